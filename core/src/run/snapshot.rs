//! What the time loop and the writer both do with a state: write it as a snapshot (NPY files,
//! pictures, a NetCDF record), name its first non-finite cell, report a blow-up with the last
//! good state written, and show progress.

use super::netcdf::NetcdfRun;
use super::{Album, Console, RunDir, Simulation, time_tag};
use crate::account::Account;
use crate::case::Format;
use crate::field::first_where;
use crate::grid::Mesh;
use crate::model::{Clock, State};
use crate::output::{GeoRef, outside_as, write_geotiff, write_npy};
use crate::{Error, GpuReal, Real, Result};
use std::time::Instant;

/// The first cell of `state` that is not finite: "h[3, 7] (NumPy row 3, column 7 of h.npy; …) = NaN".
pub(super) fn first_non_finite<T: Real>(state: &State<T>, mesh: &Mesh) -> Option<String> {
    for f in &state.fields {
        // In parallel: the writer checks every snapshot of a GPU run.
        if let Some(k) = first_where(&f.data, |v| !v.is_finite()) {
            let at =
                if f.dims == mesh.dims() { mesh.cell_note(f.name, k) } else { format!("{}[{k}] (flat index)", f.name) };
            return Some(format!("{at} = {}", f.data[k]));
        }
    }
    None
}

/// Progress lines (or a bar on a terminal), with the ETA from the part of the run done since
/// this process started it.
pub(super) struct Progress {
    pub(super) started: Instant,
    /// The fraction of the run done when it started here (after a restart, more than 0).
    pub(super) from: f64,
}

impl Progress {
    pub(super) fn show<S: Simulation, T: Real>(&self, console: &Console, sim: &S, state: &State<T>) {
        let clock = &state.clock;
        let times = sim.times();
        let frac = times.fraction(clock.t, clock.steps);
        let elapsed = self.started.elapsed().as_secs_f64();
        let done = frac - self.from;
        let eta = if done > 0.0 { elapsed * (1.0 - frac) / done } else { f64::NAN };
        let line = format!(
            "[{:>3.0}%] step {:>8}  t = {:.6e} {}  Δt = {:.3e}  {}  {elapsed:.1} s, ETA {eta:.1} s",
            100.0 * frac,
            clock.steps,
            clock.t,
            times.unit,
            clock.dt,
            sim.progress(state)
        );
        let short = format!("step {}  t = {:.4e} {}  Δt = {:.2e}", clock.steps, clock.t, times.unit, clock.dt);
        console.progress(frac, eta, &short, &line);
    }
}

/// NPY files of every field, `<name>_t<time>.npy` with `tag` `state`, or `<tag>_<name>_t<time>.npy`,
/// written side by side.
pub(super) fn write_state<T: GpuReal>(dir: &mut RunDir, state: &State<T>, tag: &str) -> Result<Vec<String>> {
    let t = time_tag(state.clock.t);
    let files: Vec<_> = state
        .fields
        .iter()
        .map(|f| {
            let name =
                if tag.is_empty() { format!("{}_t{t}.npy", f.name) } else { format!("{tag}_{}_t{t}.npy", f.name) };
            (name, f)
        })
        .collect();
    dir.write_each(&files, |p, f| write_npy(p, &f.data, &f.dims))?;
    Ok(files.into_iter().map(|(name, _)| name).collect())
}

/// The snapshot's files (NPY), pictures (PNG) and record of the run's NetCDF file (with the
/// water account `account`, for a run that keeps one), as the case's formats ask; their names.
pub(super) fn write_snapshot<S: Simulation, T: GpuReal>(
    sim: &S,
    dir: &mut RunDir,
    state: &State<T>,
    account: Option<&Account>,
    album: &mut Album,
    netcdf: &mut NetcdfRun,
) -> Result<Vec<String>> {
    let out = &sim.info().output;
    let mut names = Vec::new();
    if out.wants(Format::Npy) {
        names = write_state(dir, state, "")?;
    }
    if out.wants(Format::Png) {
        sim.pictures(state, album, dir)?;
        names.push("pictures".into());
    }
    if out.wants(Format::Netcdf) {
        names.push(netcdf.snapshot(sim, dir, state, account)?);
    }
    if out.wants(Format::Geotiff) {
        names.extend(write_geotiffs(sim, dir, state)?);
    }
    Ok(names)
}

/// The snapshot's GeoTIFFs, on a plane: `<field>_t<time>.tif` for every field of the plane's
/// cells (fields on faces and volumes have no place in a one-band map), and where the solver
/// has a bed, `surface_t<time>.tif` (h + bed) and, once, `bed.tif`; written side by side, in
/// the coordinate system of the case's rasters, cells outside the domain as nodata. Their names.
pub(super) fn write_geotiffs<S: Simulation, T: GpuReal>(
    sim: &S,
    dir: &mut RunDir,
    state: &State<T>,
) -> Result<Vec<String>> {
    let Mesh::Plane(grid) = sim.mesh() else { return Ok(Vec::new()) };
    let geo = GeoRef::of(&grid, sim.info().inputs.epsg());
    let t = time_tag(state.clock.t);
    let cells = vec![grid.ny, grid.nx];
    let mut maps: Vec<(String, std::borrow::Cow<[f64]>)> = state
        .fields
        .iter()
        .filter(|f| f.dims == cells)
        .map(|f| (format!("{}_t{t}.tif", f.name), f.data.iter().map(|v| v.to_f64()).collect::<Vec<_>>().into()))
        .collect();
    if let (Some(bed), Some(h)) = (sim.bed(), state.field("h")) {
        let surface: Vec<f64> = h.data.iter().zip(bed).map(|(h, b)| h.to_f64() + b).collect();
        maps.push((format!("surface_t{t}.tif"), surface.into()));
        // The bed does not change: written by the first snapshot (a restart's included).
        if !dir.path().join(BED_TIF).exists() {
            maps.push((BED_TIF.to_string(), bed.into()));
        }
    }
    let active = sim.active();
    dir.write_each(&maps, |path, data| {
        write_geotiff(path, &outside_as(&data[..], active, f64::NAN), grid.nx, grid.ny, &geo)
    })?;
    Ok(maps.into_iter().map(|(name, _)| name).collect())
}

/// The bed's GeoTIFF, for a solver that has a bed ([`Simulation::bed`]).
pub const BED_TIF: &str = "bed.tif";

pub(super) fn blew_up<S: Simulation, T: GpuReal>(
    sim: &S,
    dir: &mut RunDir,
    good: &State<T>,
    clock: &Clock,
    state_bad: bool,
    why: &str,
    current: &State<T>,
) -> Error {
    let info = sim.info();
    // A halted model holds the state before its failing step: keep that one when it is sound.
    let keep = if state_bad { good } else { current };
    if let Err(e) = write_state(dir, keep, "last_good") {
        return e;
    }
    let unit = sim.times().unit;
    // A model that halted holds its state and clock from before the failing step, whose time
    // is not known here; otherwise the state at `clock` is the bad one.
    let halted = clock.halt.is_some() && !state_bad;
    let (from, to) = if halted {
        (&current.clock, format!("step {}", clock.steps + 1))
    } else {
        (&good.clock, format!("step {} (t = {} {unit})", clock.steps.max(good.clock.steps + 1), time_tag(clock.t)))
    };
    Error::invalid(format!(
        "{}: the run blew up between step {} (t = {} {unit}) and {to}: {why}; the last good state (step {}, t = {} {}) is in {} as last_good_*.npy",
        info.name,
        from.steps,
        time_tag(from.t),
        keep.clock.steps,
        time_tag(keep.clock.t),
        sim.times().unit,
        dir.path().display()
    ))
}
