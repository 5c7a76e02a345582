//! Wave-propagation case files (`solver = "claw"`): the equations and their constants, the
//! grid, the algorithm's choices (limiter, splitting, CFL targets), the boundary condition of
//! each side, and the initial value of every field (`initial.rs`). Lengths in metres, time in
//! seconds.

use super::cpu::Setup;
use super::equations::{Data, Equations};
use super::initial;
use super::{Cfl, Limiter, Splitting};
use crate::case::{CaseDoc, Check, Common, Flag, Grid2Section, Set, Times, flags};
use crate::grid::Grid2;
use crate::model::{Model, State};
use crate::output::png::{MapOptions, write_field_png};
use crate::run::{Album, Case, CaseInfo, Needs, Outcome, RunDir, RunOptions, Simulation, simulate, time_tag};
use crate::runtime::Backend;
use crate::{GpuReal, Precision, Real, Result};
use kernels::halo::{EXTRAPOLATE, PERIODIC, WALL};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    grid: Grid2Section,
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

/// `[boundary]`: wall, outflow (extrapolation) or periodic per side.
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
}

impl Default for Boundaries {
    fn default() -> Self {
        Boundaries { west: wall(), east: wall(), south: wall(), north: wall() }
    }
}

fn boundary_code(c: &Check, key: &str, name: &str) -> Result<u32> {
    match name {
        "wall" => Ok(WALL),
        "outflow" | "extrapolate" => Ok(EXTRAPOLATE),
        "periodic" => Ok(PERIODIC),
        other => c.fail(key, format!("'{other}': expected wall, outflow (or extrapolate) or periodic")),
    }
}

/// A validated wave-propagation case.
pub struct ClawCase {
    info: CaseInfo,
    equations: Equations,
    data: Data,
    grid: Grid2,
    times: Times,
    first_dt: f64,
    /// The initial integral of each state field over the domain.
    totals: Vec<f64>,
    /// The pictures' colour range (of the first field, fixed from the initial data).
    range: (f64, f64),
}

impl ClawCase {
    pub fn load(doc: &CaseDoc) -> Result<ClawCase> {
        let (common, f): (Common, File) = doc.parse_case()?;
        let c = Check::new(doc);
        let grid = f.grid.grid(&c, super::cpu::HALO as usize)?;
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
        let m = info.state as u64;
        let host = host_bytes(m, info.fields.len() as u64 - m, grid.nx as u64, grid.ny as u64, common.run.precision);
        crate::files::check_host_memory(&format!("a {}×{} grid of {}", grid.nx, grid.ny, info.name), host)
            .map_err(|e| doc.invalid("grid", e))?;
        let times = Times::new(&c, "time.t_end", f.time.t_end, &common.output.snapshots, "s")?;
        for (key, v) in [("time.cfl", f.time.cfl), ("time.cfl_max", f.time.cfl_max)] {
            if !(v > 0.0 && v <= 1.0) {
                return c.fail(key, format!("{v}: must lie in (0, 1] (a wave may cross at most one cell a step)"));
            }
        }
        if f.time.cfl > f.time.cfl_max {
            return c.fail("time.cfl", format!("{}: must not exceed time.cfl_max = {}", f.time.cfl, f.time.cfl_max));
        }
        let limiter = Limiter::ALL.iter().copied().find(|l| l.name() == f.numerics.limiter).map_or_else(
            || {
                let known: Vec<&str> = Limiter::ALL.iter().map(|l| l.name()).collect();
                c.fail("numerics.limiter", format!("unknown limiter '{}' (known: {})", f.numerics.limiter, known.join(", ")))
            },
            Ok,
        )?;
        let splitting = match f.numerics.splitting.as_str() {
            "godunov" => Splitting::Godunov,
            "strang" => Splitting::Strang,
            other => return c.fail("numerics.splitting", format!("'{other}': expected godunov or strang")),
        };
        let b = &f.boundary;
        let mut bc = [WALL; 4];
        for (k, (name, v)) in [("west", &b.west), ("east", &b.east), ("south", &b.south), ("north", &b.north)].into_iter().enumerate() {
            bc[k] = boundary_code(&c, &format!("boundary.{name}"), v)?;
        }
        for (axis, pair) in [("west and east", [0, 1]), ("south and north", [2, 3])] {
            if (bc[pair[0]] == PERIODIC) != (bc[pair[1]] == PERIODIC) {
                return c.fail("boundary", format!("{axis} must both be periodic or neither"));
            }
        }
        let specs = initial::read(&c, &f.initial, &info.fields, info.name)?;
        let fields = specs
            .iter()
            .zip(&info.fields)
            .map(|(spec, name)| initial::values(&c, &format!("initial.{name}"), spec, &grid))
            .collect::<Result<Vec<_>>>()?;
        let setup = Setup {
            nx: grid.nx,
            ny: grid.ny,
            dx: grid.dx,
            dy: grid.dy,
            bc,
            limiter,
            splitting,
            cfl: Cfl { desired: f.time.cfl, max: f.time.cfl_max },
        };
        let data = Data { setup, constants, fields };
        let first_dt = equations.first_dt(&data).map_err(|e| doc.invalid("initial", e))?;
        let totals = data.fields[..info.state].iter().map(|f| grid.integrate(f)).collect();
        let range = colour_range(info.fields[0], &data.fields[0]);
        let info = CaseInfo::new(doc, "claw", common);
        Ok(ClawCase { info, equations, data, grid, times, first_dt, totals, range })
    }
}

/// A fixed colour range for the pictures of field `name` from its initial values: from 0 for
/// a depth; for a pressure or velocity perturbation, symmetric about 0 at half the initial
/// peak (the pulse saturates at first; the waves it spreads into stay visible); the data's
/// own range otherwise.
fn colour_range(name: &str, v: &[f64]) -> (f64, f64) {
    let (lo, hi) = v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
    let span = |lo: f64, hi: f64| if hi > lo { (lo, hi) } else { (lo - 1.0, hi + 1.0) };
    match name {
        "h" => span(0.0, hi),
        "p" | "u" | "v" | "w" => {
            let m = 0.5 * lo.abs().max(hi.abs());
            span(-m, m)
        }
        _ => span(lo, hi),
    }
}

/// Host memory of a case with `m` state and `a` auxiliary fields on `nx × ny` cells, at its
/// peak: the case's fields (f64) beside either the f64 CPU reference that checks them at
/// load, or, when it runs, the CPU reference in the run's precision (padded state and aux
/// fields, and a trial's copy of the state: the GPU run starts from it too) and the runner's
/// two states. Saturating, so an absurd grid is refused rather than overflowing.
fn host_bytes(m: u64, a: u64, nx: u64, ny: u64, precision: Precision) -> u64 {
    let cells = nx.saturating_mul(ny);
    let padded = (nx + 4).saturating_mul(ny + 4);
    let fields = (8 * (m + a)).saturating_mul(cells);
    let reference = |w: u64| (w * (2 * m + a)).saturating_mul(padded);
    let w = precision.bytes();
    let run = reference(w).saturating_add((2 * w * m).saturating_mul(cells));
    fields.saturating_add(reference(8).max(run))
}

fn needs(case: &ClawCase, precision: Precision) -> Needs {
    let info = case.equations.info();
    let m = info.state as u64;
    let s = &case.data.setup;
    let host = host_bytes(m, info.fields.len() as u64 - m, s.nx as u64, s.ny as u64, precision);
    let gpu = match precision {
        Precision::F32 => case.equations.device_bytes::<f32>(s),
        Precision::F64 => case.equations.device_bytes::<f64>(s),
    };
    Needs { host, gpu }
}

impl Simulation for ClawCase {
    fn describe(&self) -> String {
        let s = &self.data.setup;
        let info = self.equations.info();
        let constants: Vec<String> =
            info.constants.iter().zip(&self.data.constants).map(|((n, _), v)| format!("{n} = {v}")).collect();
        let bcs: Vec<&str> = s
            .bc
            .iter()
            .map(|&b| match b {
                WALL => "wall",
                PERIODIC => "periodic",
                _ => "outflow",
            })
            .collect();
        format!(
            "{} (wave propagation) on {}×{} cells of {:.4} m × {:.4} m{}; {} limiter, {:?} splitting, CFL {} (max {}); boundaries (W, E, S, N) {}",
            info.name,
            s.nx,
            s.ny,
            s.dx,
            s.dy,
            if constants.is_empty() { String::new() } else { format!(", {}", constants.join(", ")) },
            s.limiter.name(),
            s.splitting,
            s.cfl.desired,
            s.cfl.max,
            bcs.join(", ")
        )
    }
    fn times(&self) -> &Times {
        &self.times
    }
    fn grid(&self) -> &Grid2 {
        &self.grid
    }
    fn estimate_steps(&self) -> f64 {
        if self.first_dt.is_finite() && self.first_dt > 0.0 { (self.times.t_end / self.first_dt).ceil() } else { 1.0 }
    }
    fn build<T: GpuReal>(&self, backend: &Backend) -> Result<Box<dyn Model<T> + '_>> {
        self.equations.model::<T>(&self.data, backend)
    }
    fn progress<T: Real>(&self, state: &State<T>) -> String {
        let parts: Vec<String> = state
            .fields
            .iter()
            .zip(&self.totals)
            .map(|(f, &t0)| {
                let t = self.grid.integrate(&f.data);
                format!("∫{} {t:.6e} ({:+.1e})", f.name, t - t0)
            })
            .collect();
        parts.join(", ")
    }
    fn check<T: Real>(&self, state: &State<T>) -> Option<String> {
        let h = state.field("h")?;
        let k = h.data.iter().position(|v| v.to_f64() < 0.0)?;
        let (row, col) = (k / self.grid.nx, k % self.grid.nx);
        Some(format!("negative depth h[{row}, {col}] = {} (NumPy row, column of h.npy)", h.data[k]))
    }
    fn pictures<T: Real>(&self, state: &State<T>, _: &mut Album, dir: &mut RunDir) -> Result<()> {
        let Some(f) = state.fields.first() else { return Ok(()) };
        let v: Vec<f64> = f.data.iter().map(|x| x.to_f64()).collect();
        let t = time_tag(state.clock.t);
        let s = &self.data.setup;
        let mut map = MapOptions::new(
            format!("{} at t = {t} s ({}x{} cells, {} m x {} m)", f.long_name, s.nx, s.ny, s.nx as f64 * s.dx, s.ny as f64 * s.dy),
            format!("{} [{}]", f.name, f.units),
        )
        .in_metres(self.grid.edges());
        map.range = Some(self.range);
        if matches!(f.name, "p" | "u" | "v" | "w") {
            map.colormap = crate::output::png::Colormap::diverging();
        }
        dir.write(&format!("{}_t{t}.png", f.name), |path| write_field_png(path, &v, s.nx, s.ny, &map))
    }
}

impl Case for ClawCase {
    fn info(&self) -> &CaseInfo {
        &self.info
    }
    fn summary(&self) -> String {
        format!("{}\n  about {:.0} steps (from the initial wave speeds)", self.describe(), self.estimate_steps())
    }
    fn needs(&self, precision: Precision) -> Needs {
        needs(self, precision)
    }
    fn run(&self, opts: &RunOptions) -> Result<Outcome> {
        simulate(self, opts)
    }
}

static FLAGS: &[Flag] = &[
    flags::NX,
    flags::NY,
    flags::T_END,
    flags::SNAPSHOTS,
    flags::BOUNDARY,
    Flag::new("limiter", "NAME", Set::Text("numerics.limiter"), "wave limiter: none, minmod, superbee, vanleer or mc"),
    Flag::new("splitting", "godunov|strang", Set::Text("numerics.splitting"), "dimensional splitting: x then y (godunov), or x/2, y, x/2 (strang)"),
    Flag::new("cfl", "C", Set::Float("time.cfl"), "the CFL number each Δt aims at, in (0, cfl_max]"),
    Flag::new("cfl-max", "C", Set::Float("time.cfl_max"), "steps above this CFL number are rejected and redone, in (0, 1]"),
];

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "claw",
    about: "wave propagation (LeVeque's algorithm, Clawpack style): advection, acoustics, shallow water (Roe, HLLE) (seed 002)",
    flags: FLAGS,
    #[cfg(feature = "bench")]
    bench: Some(super::bench::SUITE),
    load: |doc| Ok(Box::new(ClawCase::load(doc)?)),
};
