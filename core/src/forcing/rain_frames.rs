//! `[forcing.rain] grids`: rasters of rain intensity, each with the time it starts to hold,
//! read onto a case's grid as a [`RainGrid`].
//!
//! ```toml
//! [forcing.rain]
//! grids = [ { time = 0, file = "rain/r000.asc" }, { time = 10, file = "rain/r010.asc" } ]
//! end = 20                  # the last frame holds until then
//! time_unit = "min"
//! unit = "mm/h"
//! ```
//!
//! Each model cell takes the rain of the rain cell its centre lies in (nearest, as LISFLOOD-FP
//! samples its rain grids), so a frame is kept at the rain grid's resolution. [`on_grid`] does
//! that for any frames read as rasters, the NetCDF file's (`rain_netcdf.rs`) as these.

use super::series::time_factor;
use super::{Domain, RAIN, RainGrid};
use crate::Result;
use crate::case::{Check, num};
use crate::input::{Raster, case_raster};
use serde::Deserialize;
use std::path::PathBuf;

/// One frame of `grids`: when it starts to hold and its raster.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FrameKeys {
    time: f64,
    file: PathBuf,
}

const KEY: &str = "forcing.rain.grids";

/// The frames of `grids` on the domain's cells, their times in `time_unit` with the last frame
/// holding to `end`, intensities in `unit`; shown to cover a run to `t_end`.
pub(super) fn load(
    c: &Check,
    frames: &[FrameKeys],
    end: Option<f64>,
    time_unit: &str,
    unit: &str,
    domain: Domain,
    t_end: f64,
) -> Result<RainGrid> {
    let ts = time_factor(time_unit).map_err(|e| c.doc().invalid("forcing.rain.time_unit", e))?;
    let vs = RAIN.factor(unit).map_err(|e| c.doc().invalid("forcing.rain.unit", e))?;
    if frames.is_empty() {
        return c.fail(KEY, "an empty list: give one { time, file } a frame");
    }
    let Some(end) = end else {
        return c.fail(
            "forcing.rain.end",
            format!("missing: the time ({time_unit}) the last frame's rain holds until; each frame holds from its time to the next frame's"),
        );
    };
    let mut times: Vec<f64> = Vec::with_capacity(frames.len() + 1);
    for (n, f) in frames.iter().enumerate() {
        let key = format!("{KEY}[{n}].time");
        if !f.time.is_finite() {
            return c.fail(&key, format!("{}: must be finite", f.time));
        }
        if let Some(&prev) = times.last()
            && f.time * ts <= prev
        {
            return c.fail(
                &key,
                format!(
                    "{} {time_unit} does not follow the frame before it at {} {time_unit}: frame times must increase strictly",
                    num(f.time),
                    num(prev / ts)
                ),
            );
        }
        times.push(f.time * ts);
    }
    let last = frames[frames.len() - 1].time;
    if !(end.is_finite() && end > last) {
        return c.fail(
            "forcing.rain.end",
            format!("{}: must come after the last frame's time, {} {time_unit}", num(end), num(last)),
        );
    }
    times.push(end * ts);
    let frame = |n: usize| -> Result<Frame> {
        let key = format!("{KEY}[{n}].file");
        let raster = case_raster(c.doc(), &key, &frames[n].file)?;
        Ok(Frame { key, raster, factor: vs })
    };
    on_grid(c, KEY, "", times, frame, "nodata", unit, domain, t_end)
}

/// One frame of gridded rain as read: the key that names its file, its raster of values in the
/// rain's unit, and the factor from those to m/s.
pub(super) struct Frame {
    pub key: String,
    pub raster: Raster,
    pub factor: f64,
}

/// The [`RainGrid`] of frames on one grid, frame n given by `frame(n)`, holding over `times`
/// (their starts and the last one's end, s), in `unit` (for messages, as `nodata` names a
/// missing value); `source` names them (the first frame's file where empty). Each cell of the
/// domain takes the rain cell its centre lies in, which must hold a finite value not below
/// zero in every frame (a cell outside the domain takes the first such rain cell, and its rain
/// never falls); the frames are shown to cover a run to `t_end`, and their memory is checked
/// before they are kept. `key` names them all (memory and coverage).
#[allow(clippy::too_many_arguments)]
pub(super) fn on_grid(
    c: &Check,
    key: &str,
    source: &str,
    times: Vec<f64>,
    mut frame: impl FnMut(usize) -> Result<Frame>,
    nodata: &str,
    unit: &str,
    domain: Domain,
    t_end: f64,
) -> Result<RainGrid> {
    let grid = domain.grid;
    let count = times.len() - 1;
    // The first frame's raster fixes the rain cells: each model cell's, and those some cell takes.
    let mut first: Option<Raster> = None;
    let mut index: Vec<u32> = Vec::with_capacity(grid.nx * grid.ny);
    let mut used: Vec<usize> = Vec::new();
    let mut values: Vec<f32> = Vec::new();
    for n in 0..count {
        let Frame { key: fkey, raster: r, factor } = frame(n)?;
        match &first {
            None => {
                let mut compact = vec![u32::MAX; r.ncols * r.nrows];
                for j in 0..grid.ny {
                    for i in 0..grid.nx {
                        if !domain.inside(j * grid.nx + i) {
                            index.push(0);
                            continue;
                        }
                        let (x, y) = grid.centre(i, j);
                        let cell = r
                            .nearest_cell(x, y)
                            .map_err(|e| c.doc().invalid(&fkey, format!("the grid's cell ({i}, {j}) at {e}")))?;
                        if compact[cell] == u32::MAX {
                            compact[cell] = used.len() as u32;
                            used.push(cell);
                        }
                        index.push(compact[cell]);
                    }
                }
                let bytes = (count as u64).saturating_mul(used.len() as u64).saturating_mul(4);
                crate::files::check_host_memory(&format!("{count} frames of {} rain cells", used.len()), bytes)
                    .map_err(|e| c.doc().invalid(key, e))?;
                values.reserve_exact(count * used.len());
            }
            Some(f0) if !f0.same_cells(&r) => {
                return c.fail(
                    &fkey,
                    format!(
                        "{}: {}×{} cells of {}×{} m from ({}, {}), but {} has {}×{} of {}×{} m from ({}, {}): the frames of gridded rain share one grid",
                        r.name,
                        r.ncols,
                        r.nrows,
                        num(r.dx),
                        num(r.dy),
                        num(r.west),
                        num(r.south),
                        f0.name,
                        f0.ncols,
                        f0.nrows,
                        num(f0.dx),
                        num(f0.dy),
                        num(f0.west),
                        num(f0.south)
                    ),
                );
            }
            Some(_) => {}
        }
        for &cell in &used {
            let (i, j) = (cell % r.ncols, cell / r.ncols);
            let (x, y) = r.centre(i, j);
            let at = format!("row {} from the north, column {i} (x = {} m, y = {} m)", r.nrows - 1 - j, num(x), num(y));
            if !r.valid[cell] {
                return c.fail(
                    &fkey,
                    format!("{}: the cell at {at} is {nodata}, and model cells take their rain from it", r.name),
                );
            }
            let v = r.values[cell];
            if !v.is_finite() {
                return c.fail(&fkey, format!("{}: {v} at {at}: rain must be finite", r.name));
            }
            if v < 0.0 {
                return c.fail(&fkey, format!("{}: {} {unit} at {at}: rain must not be negative", r.name, num(v)));
            }
            values.push((v * factor) as f32);
        }
        if first.is_none() {
            first = Some(r);
        }
    }
    let source = match first {
        Some(r) if source.is_empty() => r.name,
        _ => source.to_string(),
    };
    let g = RainGrid::new(&source, times, values, used.len(), index).map_err(|e| c.doc().invalid(key, e))?;
    g.covers(0.0, t_end).map_err(|e| c.doc().invalid(key, e))?;
    Ok(g)
}
