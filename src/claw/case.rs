//! Wave-propagation case files (`solver = "claw"`): the equations and their constants, the
//! grid (a plane, or a volume with `nz` for three-dimensional equations), the algorithm's
//! choices (limiter, splitting, CFL targets), the boundary condition of each side, and the
//! initial value of every field (`initial.rs`). Lengths in metres, time in seconds.

use super::cpu::HALO;
use super::d3::cpu::{Setup3, rows_of};
use super::equations::{Data, Equations};
use super::part::SlabPart;
use super::pictures;
use super::{Cfl, Limiter, Splitting};
use crate::case::initial;
use crate::case::{CaseDoc, Check, Common, Flag, MeshSection, Set, Times, approx, flags, num};
use crate::grid::Mesh;
use crate::model::{Model, State};
use crate::output::png::{map_drawing, map_pixels};
use crate::products::{self, Sites, slab_spec};
use crate::ranks::{Halo, Slabs};
use crate::run::{
    Album, Case, CaseInfo, Decomposition, Needs, Outcome, Plan, RunDir, RunOptions, Simulation, Snapshot, plan,
    simulate,
};
use crate::runtime::Backend;
use crate::{GpuReal, Precision, Real, Result};
use kernels::grid::Layout2;
use kernels::halo::{EXTRAPOLATE, PERIODIC, WALL};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    grid: MeshSection,
    /// `name` and the solver's constants.
    equations: toml::Table,
    time: TimeSection,
    #[serde(default)]
    numerics: Numerics,
    #[serde(default)]
    boundary: Boundaries,
    initial: toml::Table,
}

fn desired() -> f64 {
    Cfl::default().desired
}
fn max() -> f64 {
    Cfl::default().max
}

/// `[time]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeSection {
    t_end: f64,
    /// The CFL number each Δt aims at.
    #[serde(default = "desired")]
    cfl: f64,
    /// A step above this CFL number is rejected and redone.
    #[serde(default = "max")]
    cfl_max: f64,
}

fn mc() -> String {
    Limiter::Mc.name().into()
}
fn godunov() -> String {
    "godunov".into()
}

/// `[numerics]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Numerics {
    #[serde(default = "mc")]
    limiter: String,
    #[serde(default = "godunov")]
    splitting: String,
}

impl Default for Numerics {
    fn default() -> Self {
        Numerics { limiter: mc(), splitting: godunov() }
    }
}

fn wall() -> String {
    "wall".into()
}

/// `[boundary]`: wall, outflow (extrapolation) or periodic per side; `bottom` and `top` (the
/// sides across z) only in 3D.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Boundaries {
    #[serde(default = "wall")]
    west: String,
    #[serde(default = "wall")]
    east: String,
    #[serde(default = "wall")]
    south: String,
    #[serde(default = "wall")]
    north: String,
    bottom: Option<String>,
    top: Option<String>,
}

impl Default for Boundaries {
    fn default() -> Self {
        Boundaries { west: wall(), east: wall(), south: wall(), north: wall(), bottom: None, top: None }
    }
}

/// The sides' names in `Setup3::bc`'s order.
const SIDES: [&str; 6] = ["west", "east", "south", "north", "bottom", "top"];

/// A side's condition (`kernels::halo`'s code) by the name a case file gives it.
pub fn side_condition(name: &str) -> Option<u32> {
    match name {
        "wall" => Some(WALL),
        "outflow" | "extrapolate" => Some(EXTRAPOLATE),
        "periodic" => Some(PERIODIC),
        _ => None,
    }
}

fn boundary_code(c: &Check, key: &str, name: &str) -> Result<u32> {
    match side_condition(name) {
        Some(code) => Ok(code),
        None => c.fail(key, format!("'{name}': expected wall, outflow (or extrapolate) or periodic")),
    }
}

/// A validated wave-propagation case.
pub struct ClawCase {
    info: CaseInfo,
    equations: Equations,
    setup: Setup3,
    /// The equations' constants, in the solver's order.
    constants: Vec<f64>,
    /// The case's data (of `setup` and `constants`, and every field's values); none on a rank
    /// other than 0 of a decomposed run, which builds its slab from the part rank 0 hands it.
    whole: Option<Data>,
    mesh: Mesh,
    times: Times,
    /// The first Δt as the run's precision works it out, which every slab of a decomposed
    /// run starts from (NaN where the case holds no fields).
    first_dt: f64,
    /// The initial integral of each state field over the domain (none where the case holds no
    /// fields).
    totals: Vec<f64>,
    /// The pictures' colour range (of the first field, fixed from the initial data).
    range: (f64, f64),
    /// The interior cell of each gauge (`[[output.gauges]]`; equations with a depth only).
    gauge_cells: Vec<u32>,
}

impl ClawCase {
    pub fn load(doc: &CaseDoc) -> Result<ClawCase> {
        let (common, f): (Common, File) = doc.parse_case()?;
        let c = Check::new(doc);
        let equations: Equations = match f.equations.get("name") {
            Some(toml::Value::String(name)) => name.parse().map_err(|e| doc.invalid("equations.name", e))?,
            Some(v) => return c.fail("equations.name", format!("{v}: a name ({})", Equations::names())),
            None => return c.fail("equations.name", format!("missing: one of {}", Equations::names())),
        };
        let info = equations.info();
        let mut constants: Vec<f64> = info.constants.iter().map(|&(_, v)| v).collect();
        for (key, value) in f.equations.iter().filter(|(k, _)| k.as_str() != "name") {
            let full = format!("equations.{key}");
            let Some(k) = info.constants.iter().position(|(n, _)| n == key) else {
                let known: Vec<&str> = info.constants.iter().map(|(n, _)| *n).collect();
                let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                return c.fail(&full, format!("{} has no constant '{key}' (its constants: {known})", info.name));
            };
            constants[k] = match value {
                toml::Value::Float(v) if v.is_finite() => *v,
                toml::Value::Integer(v) => *v as f64,
                v => return c.fail(&full, format!("{v}: must be a finite number")),
            };
        }
        // The equations decide the dimensions; the grid must have as many.
        match (info.dims, f.grid.nz) {
            (3, None) => {
                return c.fail(
                    "grid.nz",
                    format!("missing: {} is three-dimensional; give grid.nz and grid.lz (or grid.dz)", info.name),
                );
            }
            (2, Some(_)) => {
                return c.fail(
                    "grid.nz",
                    format!("{} is two-dimensional; remove grid.nz (and grid.lz or grid.dz)", info.name),
                );
            }
            _ => {}
        }
        let mesh = f.grid.mesh(&c, super::cpu::HALO as usize)?;
        let gauge_cells = gauge_cells(&c, &common, &info, &mesh)?;
        let times = Times::new(&c, "time.t_end", f.time.t_end, &common.output.snapshots, "s")?;
        for (key, v) in [("time.cfl", f.time.cfl), ("time.cfl_max", f.time.cfl_max)] {
            if !(v > 0.0 && v <= 1.0) {
                return c
                    .fail(key, format!("{}: must lie in (0, 1] (a wave may cross at most one cell a step)", num(v)));
            }
        }
        if f.time.cfl > f.time.cfl_max {
            return c.fail(
                "time.cfl",
                format!("{}: must not exceed time.cfl_max = {}", num(f.time.cfl), num(f.time.cfl_max)),
            );
        }
        let limiter = Limiter::ALL.iter().copied().find(|l| l.name() == f.numerics.limiter).map_or_else(
            || {
                let known: Vec<&str> = Limiter::ALL.iter().map(|l| l.name()).collect();
                c.fail(
                    "numerics.limiter",
                    format!("unknown limiter '{}' (known: {})", f.numerics.limiter, known.join(", ")),
                )
            },
            Ok,
        )?;
        let splitting = match f.numerics.splitting.as_str() {
            "godunov" => Splitting::Godunov,
            "strang" => Splitting::Strang,
            other => return c.fail("numerics.splitting", format!("'{other}': expected godunov or strang")),
        };
        let b = &f.boundary;
        let across_z = [&b.bottom, &b.top];
        if let (2, Some(k)) = (info.dims, across_z.iter().position(|v| v.is_some())) {
            return c.fail(
                &format!("boundary.{}", SIDES[4 + k]),
                format!("only for three-dimensional equations ({} is two-dimensional)", info.name),
            );
        }
        let wall = wall();
        let given = [
            &b.west,
            &b.east,
            &b.south,
            &b.north,
            across_z[0].as_ref().unwrap_or(&wall),
            across_z[1].as_ref().unwrap_or(&wall),
        ];
        let mut bc = [WALL; 6];
        for (k, v) in given.into_iter().enumerate() {
            bc[k] = boundary_code(&c, &format!("boundary.{}", SIDES[k]), v)?;
        }
        for (codes, sides) in bc.chunks(2).zip(SIDES.chunks(2)).take(info.dims) {
            if (codes[0] == PERIODIC) != (codes[1] == PERIODIC) {
                let (lone, other) = if codes[0] == PERIODIC { (0, 1) } else { (1, 0) };
                return c.fail(
                    &format!("boundary.{}", sides[lone]),
                    format!(
                        "periodic, but boundary.{} is not: {} and {} must both be periodic or neither",
                        sides[other], sides[0], sides[1]
                    ),
                );
            }
        }
        let specs = initial::read(&c, &f.initial, &info.fields, info.name)?;
        // A rank other than 0 of a decomposed run reads none of the fields: rank 0 reads and
        // checks them, and hands each rank its slab's part (`slab_part`).
        let handed = crate::ranks::handout::takes_a_part();
        let held = if handed { 0 } else { specs.iter().filter(|s| s.is_file()).count() as u64 };
        let m = info.state as u64;
        let precision = common.run.precision;
        let host = host_bytes(m, info.fields.len() as u64 - m, held, &mesh.dims(), precision);
        if !handed {
            crate::files::check_host_memory(&format!("a {} grid of {}", shape(&mesh), info.name), host)
                .map_err(|e| doc.invalid("grid", e))?;
        }
        // A plane is one layer of a set-up whose z is unused (`Setup3::plane`).
        let (nx, ny, nz, dx, dy, dz) = match mesh {
            Mesh::Plane(g) => (g.nx, g.ny, 1, g.dx, g.dy, 1.0),
            Mesh::Volume(g) => (g.nx, g.ny, g.nz, g.dx, g.dy, g.dz),
        };
        let setup = Setup3 {
            nx,
            ny,
            nz,
            dx,
            dy,
            dz,
            bc,
            limiter,
            splitting,
            cfl: Cfl { desired: f.time.cfl, max: f.time.cfl_max },
        };
        let case = |whole, first_dt, totals, range| ClawCase {
            info: CaseInfo::new(doc, "claw", common),
            equations,
            setup,
            constants: constants.clone(),
            whole,
            mesh,
            times,
            first_dt,
            totals,
            range,
            gauge_cells,
        };
        if handed {
            return Ok(case(None, f64::NAN, Vec::new(), (0.0, 0.0)));
        }
        let fields = specs
            .iter()
            .zip(&info.fields)
            .map(|(spec, name)| initial::cells(&c, &format!("initial.{name}"), spec, &mesh))
            .collect::<Result<Vec<_>>>()?;
        let data = Data { setup, constants: constants.clone(), fields };
        // Mixed precision is not a claw choice: its runs are f64's.
        let first_dt = match precision {
            Precision::F32 => equations.first_dt::<f32>(&data),
            Precision::F64 | Precision::Mixed => equations.first_dt::<f64>(&data),
        };
        let first_dt = first_dt.map_err(|e| doc.invalid("initial", e))?;
        // One field's values at a time, worked out where the case gives a number or a profile.
        let cells = mesh.cells();
        let totals = data.fields[..info.state]
            .iter()
            .map(|f| mesh.integrate(&(0..cells).map(|k| f.at(k)).collect::<Vec<_>>()))
            .collect();
        let range = pictures::colour_range(&mesh, info.fields[0], (0..cells).map(|k| data.fields[0].at(k)));
        Ok(case(Some(data), first_dt, totals, range))
    }

    /// The case's data, which every rank but those other than 0 of a decomposed run holds.
    fn whole(&self) -> Result<&Data> {
        self.whole.as_ref().ok_or_else(|| {
            crate::Error::invalid("claw: this rank holds the part of the case rank 0 handed it, not the whole grid")
        })
    }
}

/// The gauges' cells, where the case asks for gauges or maps: only equations in two dimensions
/// whose state is a water depth and its momenta keep them. (Discharge lines, which claw does not
/// keep, are the registry's to refuse.)
fn gauge_cells(c: &Check, common: &Common, info: &super::equations::Info, mesh: &Mesh) -> Result<Vec<u32>> {
    let spec = common.output.products();
    if spec.gauges.is_empty() && !spec.maxima {
        return Ok(Vec::new());
    }
    let key = if spec.gauges.is_empty() { "output.maxima" } else { "output.gauges" };
    match mesh {
        Mesh::Plane(grid) if info.fields.starts_with(&products::DEPTH_FIELDS) => {
            spec.cells(grid).or_else(|e| c.fail("output.gauges", e.to_string().trim_start_matches("output.gauges: ")))
        }
        _ => c.fail(
            key,
            format!(
                "gauges and maximum maps need a water depth: claw keeps them for the shallow-water equations (shallow-roe, shallow-hlle), not {}",
                info.name
            ),
        ),
    }
}

/// "400×400" or "64×64×64": a grid's cells for messages.
fn shape(mesh: &Mesh) -> String {
    mesh.dims().iter().rev().map(|n| n.to_string()).collect::<Vec<_>>().join("×")
}

/// Host memory of a case with `m` state and `a` auxiliary fields on cells of shape `dims`, at
/// its peak: the fields the case holds whole (`held` of them, read from files: those given by
/// a number or a profile are worked out where they are read) and one field's values at load,
/// beside the CPU reference in the run's precision (padded state and aux fields, made from the
/// fields' values, and the trial state it keeps between steps: the GPU run starts from it too); the runner
/// adds its own (`run::plan`). Saturating, so an absurd grid is refused rather than
/// overflowing.
fn host_bytes(m: u64, a: u64, held: u64, dims: &[usize], precision: Precision) -> u64 {
    let halo = 2 * super::cpu::HALO as u64;
    let cells = dims.iter().fold(1u64, |n, &d| n.saturating_mul(d as u64));
    let padded = dims.iter().fold(1u64, |n, &d| n.saturating_mul(d as u64 + halo));
    let fields = (8 * (held + 1)).saturating_mul(cells);
    fields.saturating_add((precision.bytes() * (2 * m + a)).saturating_mul(padded))
}

fn needs(case: &ClawCase, precision: Precision) -> Needs {
    let info = case.equations.info();
    let m = info.state as u64;
    let s = &case.setup;
    let held = case.whole.as_ref().map_or(0, |d| d.fields.iter().filter(|f| f.is_stored()).count() as u64);
    let host = host_bytes(m, info.fields.len() as u64 - m, held, &case.mesh.dims(), precision);
    let gpu = match precision {
        Precision::F32 => case.equations.device_bytes::<f32>(s),
        Precision::F64 | Precision::Mixed => case.equations.device_bytes::<f64>(s),
    };
    Needs { host, gpu }
}

impl Simulation for ClawCase {
    fn describe(&self) -> String {
        let s = &self.setup;
        let info = self.equations.info();
        let constants: Vec<String> =
            info.constants.iter().zip(&self.constants).map(|((n, _), v)| format!("{n} = {v}")).collect();
        let bcs: Vec<&str> = s.bc[..2 * info.dims]
            .iter()
            .map(|&b| match b {
                WALL => "wall",
                PERIODIC => "periodic",
                _ => "outflow",
            })
            .collect();
        let sizes: Vec<String> = [s.dx, s.dy, s.dz][..info.dims].iter().map(|&d| format!("{} m", approx(d))).collect();
        let sides = if info.dims == 3 { "W, E, S, N, bottom, top" } else { "W, E, S, N" };
        format!(
            "{} (wave propagation) on {} cells of {}{}; {} limiter, {:?} splitting, CFL {} (max {}); boundaries ({sides}) {}",
            info.name,
            shape(&self.mesh),
            sizes.join(" × "),
            if constants.is_empty() { String::new() } else { format!(", {}", constants.join(", ")) },
            s.limiter.name(),
            s.splitting,
            num(s.cfl.desired),
            num(s.cfl.max),
            bcs.join(", ")
        )
    }
    fn times(&self) -> &Times {
        &self.times
    }
    fn mesh(&self) -> Mesh {
        self.mesh
    }
    fn estimate_steps(&self) -> f64 {
        // Only rank 0, which holds the fields, plans a run.
        if self.whole.is_none() {
            return f64::NAN;
        }
        if self.first_dt.is_finite() && self.first_dt > 0.0 { (self.times.t_end / self.first_dt).ceil() } else { 1.0 }
    }
    fn steps_basis(&self) -> &'static str {
        "from the initial wave speeds"
    }
    fn snapshot(&self) -> Snapshot {
        let info = self.equations.info();
        let m = info.state as u64;
        let cells = self.mesh.cells() as u64;
        let halo = 2 * super::cpu::HALO as usize;
        let padded = self.mesh.dims().iter().fold(1u64, |n, &d| n * (d + halo) as u64);
        let maps = if info.fields.starts_with(&products::DEPTH_FIELDS) { 3 * cells } else { 0 };
        let (pictures, pixels, drawing) = match self.mesh {
            // The first field's map (over the ground for a depth): its f64 copy, a flat bed and
            // dry flags.
            Mesh::Plane(g) => (1, map_pixels(g.nx, g.ny), 17 * cells + map_drawing(g.nx, g.ny, true)),
            // Three slices through the middle, one after the other.
            Mesh::Volume(g) => {
                let largest = (g.nx * g.ny).max(g.nx * g.nz).max(g.ny * g.nz) as u64;
                let (a, b) = [(g.nx, g.ny), (g.nx, g.nz), (g.ny, g.nz)]
                    .into_iter()
                    .max_by_key(|&(a, b)| map_pixels(a, b))
                    .unwrap_or((g.nx, g.ny));
                (3, map_pixels(a, b), 8 * cells + 8 * largest + map_drawing(a, b, false))
            }
        };
        Snapshot {
            fields: m,
            values: m * cells,
            pinned: m * cells,
            pictures,
            animations: 1,
            pixels,
            drawing,
            pooled_maps: 0,
            map_retained: 0,
            checkpoint: m * padded + maps,
            account: false,
        }
    }
    fn build<T: GpuReal>(&self, backend: &Backend) -> Result<Box<dyn Model<T> + '_>> {
        self.equations.model::<T>(self.whole()?, backend, &self.info.output.products(), &self.gauge_cells)
    }
    /// Slabs across y in 2D, across z in 3D, of at least the two ghost layers a sweep across the
    /// cut reads, wrapping a periodic axis; in 2D each slab keeps its share of the gauges and
    /// maps.
    fn decomposition(&self, ranks: usize) -> Result<Decomposition> {
        let s = &self.setup;
        let g = HALO as usize;
        let (layout, rows, periodic, row_axes) = match self.mesh {
            Mesh::Plane(_) => (Layout2::new(s.nx as u32, s.ny as u32, HALO), s.ny, s.bc[2] == PERIODIC, 1),
            Mesh::Volume(_) => (rows_of(&s.layout()), s.nz, s.bc[4] == PERIODIC, 2),
        };
        let slabs = Slabs::new(rows, ranks, g, periodic)?;
        let spec = self.info.output.products();
        let products = (!spec.is_empty()).then(|| (spec, Sites::from(self.gauge_cells.clone())));
        Ok(Decomposition { slabs, layout, row_axes, products })
    }
    /// Every field's values on the rows (planes) the slab's padded fields read, and the whole
    /// grid's first Δt in the run's precision ([`SlabPart`]): the other ranks read no field of
    /// the case.
    fn slab_part(&self, _backend: &Backend, d: &Decomposition, rank: usize) -> Result<Vec<u8>> {
        Ok(self.equations.slab_part(self.whole()?, d.slabs.slab(rank).rows, self.first_dt)?.encode())
    }
    fn build_slab<T: GpuReal>(&self, backend: &Backend, halo: Halo, part: Vec<u8>) -> Result<Box<dyn Model<T> + '_>> {
        let part = SlabPart::decode(&part)?;
        let rows = halo.slab().rows.clone();
        let info = self.equations.info();
        let m = info.state as u64;
        let mut dims = self.mesh.dims();
        // The slab's rows (planes) and those the part holds beyond them.
        dims[0] = rows.len() + 2 * HALO as usize;
        let host =
            host_bytes(m, info.fields.len() as u64 - m, info.fields.len() as u64, &dims, self.info.run.precision);
        let slab = dims.iter().rev().map(|n| n.to_string()).collect::<Vec<_>>().join("×");
        crate::files::check_host_memory(&format!("a {slab} slab of a grid of {}", info.name), host)?;
        let sites = Sites::from(self.gauge_cells.clone());
        let (spec, sites) = slab_spec(&self.info.output.products(), &sites, self.setup.nx, rows);
        let start = (&self.setup, self.constants.as_slice(), &part);
        self.equations.slab_model::<T>(start, backend, &spec, &sites.cells, halo)
    }
    fn progress<T: Real>(&self, state: &State<T>) -> String {
        let parts: Vec<String> = state
            .fields
            .iter()
            .zip(&self.totals)
            .map(|(f, &t0)| {
                let t = self.mesh.integrate(&f.data);
                format!("∫{} {t:.6e} ({:+.1e})", f.name, t - t0)
            })
            .collect();
        parts.join(", ")
    }
    fn check<T: Real>(&self, state: &State<T>) -> Option<String> {
        let h = state.field("h")?;
        let k = h.data.iter().position(|v| v.to_f64() < 0.0)?;
        Some(format!("negative depth {} = {}", self.mesh.cell_note("h", k), h.data[k]))
    }
    fn pictures<T: Real>(&self, state: &State<T>, album: &mut Album, dir: &mut RunDir) -> Result<()> {
        pictures::write(&self.mesh, state, self.range, album, dir)
    }

    /// The first field, as the pictures draw it (a depth's dry cells as land).
    fn view_layers(&self, sampled: &State<f64>, _cells: &[usize]) -> Option<Vec<crate::view::Layer>> {
        let f = sampled.fields.first()?;
        let mut opts = pictures::map_options(f.name, f.units, self.range);
        opts.title = f.long_name.to_string();
        let dry = (f.name == "h").then(|| f.data.iter().map(|&h| h <= pictures::DRY_DEPTH).collect());
        Some(vec![crate::view::Layer { name: f.name, opts, values: f.data.clone(), dry, relief: None }])
    }
}

impl Case for ClawCase {
    fn info(&self) -> &CaseInfo {
        &self.info
    }
    fn summary(&self) -> String {
        self.describe()
    }
    fn needs(&self, precision: Precision) -> Needs {
        needs(self, precision)
    }
    fn plan(&self) -> Plan {
        plan::simulation(self)
    }
    fn run(&self, opts: &RunOptions) -> Result<Outcome> {
        simulate(self, opts)
    }
    fn steppable(&self) -> Option<&dyn crate::run::Steppable> {
        Some(self)
    }
}

pub(super) static FLAGS: &[Flag] = &[
    flags::NX,
    flags::NY,
    Flag::new("nz", "N", Set::Int("grid.nz"), "cells in z (three-dimensional equations only)"),
    flags::T_END,
    flags::SNAPSHOTS,
    flags::BOUNDARY,
    Flag::new(
        "boundary-z",
        "BC",
        Set::Custom(bottom_and_top),
        "in 3D, the bottom and top (--boundary sets the four sides around them): one condition or two (bottom,top)",
    ),
    Flag::new("limiter", "NAME", Set::Text("numerics.limiter"), "wave limiter: none, minmod, superbee, vanleer or mc"),
    Flag::new(
        "splitting",
        "godunov|strang",
        Set::Text("numerics.splitting"),
        "dimensional splitting: x then y (godunov), or x/2, y, x/2 (strang)",
    ),
    Flag::new("cfl", "C", Set::Float("time.cfl"), "the CFL number each Δt aims at, in (0, cfl_max]"),
    Flag::new(
        "cfl-max",
        "C",
        Set::Float("time.cfl_max"),
        "steps above this CFL number are rejected and redone, in (0, 1]",
    ),
];

/// `--boundary-z`'s rule: one condition for the bottom and the top, or two.
fn bottom_and_top(raw: &str) -> std::result::Result<Vec<(&'static str, toml_edit::Value)>, String> {
    let parts: Vec<&str> = raw.split(',').map(str::trim).collect();
    let two = match parts.len() {
        1 => [parts[0]; 2],
        2 => [parts[0], parts[1]],
        n => return Err(format!("one condition or two (bottom,top), not {n}")),
    };
    Ok(["boundary.bottom", "boundary.top"].into_iter().zip(two).map(|(k, v)| (k, v.into())).collect())
}
