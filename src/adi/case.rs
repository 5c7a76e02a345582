//! ADI case files (`solver = "adi"`, docs/adi.md "Case files and scenarios"): the grid, the
//! time step, the physics, drying and flooding, the bathymetry, the initial surface and the
//! boundary of each side, rain and infiltration, read into a [`Setup`]. Lengths in metres, time
//! in seconds, angles in degrees.

use super::cpu::Adi;
use super::forcing::AdiForcing;
use super::gpu::{Strategy, YSweep, device_bytes};
use super::model::{AdiModel, state_words};
use super::{Boundary, Friction, Level, Setup, Tide, Wind, pictures};
use crate::account::Account;
use crate::case::initial::{Field, Profile, values};
use crate::case::{CaseDoc, Check, Common, Flag, Grid2Section, Set, Times, approx, flags, num};
use crate::forcing::{Domain, Forcing, ForcingSection, LEVEL, Series, TideKeys};
use crate::grid::{Grid2, Mesh};
use crate::model::{Halt, Model, State};
use crate::output::png::{map_drawing, map_pixels};
use crate::run::{
    Album, Case, CaseInfo, Needs, Outcome, Plan, RunDir, RunOptions, Simulation, Snapshot, not_decomposed, plan,
    simulate,
};
use crate::runtime::Backend;
use crate::{GpuReal, Precision, Real, Result};
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    grid: Grid2Section,
    time: TimeSection,
    #[serde(default)]
    physics: Physics,
    /// Absent: no drying (every cell must stay wet).
    drying: Option<Drying>,
    bathymetry: Bathymetry,
    #[serde(default)]
    initial: Initial,
    #[serde(default)]
    boundary: Boundaries,
    #[serde(default)]
    gpu: GpuSection,
    /// Rain and infiltration (`[forcing.rain]`, `[forcing.infiltration]`).
    #[serde(default)]
    forcing: ForcingSection,
}

/// `[gpu]`: how the sweeps solve their lines on the GPU (ignored on the CPU).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct GpuSection {
    /// `thomas`, `twisted` (S1), `partition`, `pcr`, `cr-pcr` (S2) or `auto` (the default).
    strategy: Option<String>,
    /// How the y-sweep reaches its columns: `transposed` (the default: from transposed copies
    /// the sweeps write, docs/adi.md) or `columns` (strided, less memory).
    y_sweep: Option<String>,
}

/// `[time]`: a fixed Δt that divides every snapshot time and the end.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeSection {
    dt: f64,
    t_end: f64,
}

fn gravity() -> f64 {
    super::G
}
fn yes() -> bool {
    true
}

/// `[physics]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Physics {
    #[serde(default = "gravity")]
    g: f64,
    /// `"none"`, `{ chezy = C }` (m^½/s) or `{ manning = n }` (s/m^⅓).
    #[serde(default)]
    friction: FrictionSpec,
    /// Ω (1/s).
    #[serde(default)]
    coriolis: f64,
    wind: Option<WindSpec>,
    /// The convective terms (MIKE 21 HD has them on).
    #[serde(default = "yes")]
    convection: bool,
    /// Constant eddy viscosity E (m²/s).
    #[serde(default)]
    eddy_viscosity: f64,
}

impl Default for Physics {
    fn default() -> Self {
        Physics {
            g: gravity(),
            friction: FrictionSpec::None,
            coriolis: 0.0,
            wind: None,
            convection: true,
            eddy_viscosity: 0.0,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "lowercase")]
enum FrictionSpec {
    #[default]
    None,
    Chezy(f64),
    Manning(f64),
}

/// A uniform wind: speed (m/s, 10 m above the surface) and the direction it blows towards, in
/// degrees counter-clockwise from +x (0: towards the east, 90: towards the north).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WindSpec {
    speed: f64,
    #[serde(default)]
    direction: f64,
}

fn h_dry() -> f64 {
    super::H_DRY
}
fn h_flood() -> f64 {
    super::H_FLOOD
}

/// `[drying]`: a cell dries below `drying` and floods above `flooding` (m).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Drying {
    #[serde(default = "h_dry")]
    drying: f64,
    #[serde(default = "h_flood")]
    flooding: f64,
}

/// `[bathymetry]`: the still-water depth d (m, positive below the still-water level; negative
/// is land above it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bathymetry {
    depth: toml::Value,
}

/// `[initial]`: the surface elevation ζ (m); the water starts at rest.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Initial {
    zeta: Option<toml::Value>,
}

/// `[boundary]`: each side land (the default), a water level, a tide, a series or a flux.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Boundaries {
    west: Option<SideSpec>,
    east: Option<SideSpec>,
    south: Option<SideSpec>,
    north: Option<SideSpec>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum SideSpec {
    Land,
    /// A constant level ζ (m).
    Level(f64),
    Tide(TideKeys),
    /// A series file (two columns: t in s, ζ in m), relative to the case file.
    Series(PathBuf),
    /// The normal flux density (m²/s, positive along +x or +y).
    Flux(f64),
}

/// The ADI shapes beyond the shared profiles (`case::initial`: a number, disc, gaussian,
/// halves, file).
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
enum Shape {
    /// Depth `depth[0]` up to `at[0]` along `axis`, `depth[1]` from `at[1]`, linear between: a
    /// beach or tidal flats.
    Slope { axis: String, at: [f64; 2], depth: [f64; 2] },
    /// ζ = amplitude·cos(mode·π·s/L), s from the west (south) edge: a closed basin's seiche mode.
    Seiche { axis: String, amplitude: f64, mode: u32 },
}

const SIDES: [&str; 4] = ["west", "east", "south", "north"];

/// A validated ADI case.
pub struct AdiCase {
    info: CaseInfo,
    setup: Setup,
    grid: Grid2,
    times: Times,
    /// Initial volume Σ h ΔxΔy (m³).
    v0: f64,
    /// The pictures' fixed colour ranges.
    ranges: pictures::Ranges,
    /// How the GPU sweeps solve their lines.
    strategy: Strategy,
    /// How the GPU's y-sweep reaches its columns.
    y_sweep: YSweep,
    /// Neither given by the case: the tuning cache may choose both (`tune::launch_for`).
    tunable: bool,
    /// A failing step's message, written by the model.
    failure: Mutex<Option<String>>,
    /// The interior cell of each gauge (`[[output.gauges]]`).
    gauge_cells: Vec<u32>,
}

impl AdiCase {
    pub fn load(doc: &CaseDoc) -> Result<AdiCase> {
        let (common, f): (Common, File) = doc.parse_case()?;
        let c = Check::new(doc);
        let grid = f.grid.grid(&c, 0)?;
        let y_sweep = match &f.gpu.y_sweep {
            None => YSweep::default(),
            Some(name) => name.parse::<YSweep>().map_err(|e| doc.invalid("gpu.y_sweep", e))?,
        };
        let (nx, ny) = (grid.nx as u64, grid.ny as u64);
        crate::files::check_host_memory(
            &format!("a {nx}×{ny} ADI grid in {}", common.run.precision),
            needs(nx, ny, common.run.precision, y_sweep).host,
        )
        .map_err(|e| doc.invalid("grid", e))?;
        let dt = c.positive("time.dt", f.time.dt)?;
        let times = Times::new(&c, "time.t_end", f.time.t_end, &common.output.snapshots, "s")?;
        for &t in times.snapshots.iter().chain([&times.t_end]) {
            let n = t / dt;
            if (n - n.round()).abs() > 1e-9 * n.max(1.0) {
                return c.fail(
                    "time.dt",
                    format!("{} s does not divide the snapshot or end time {} s (t/Δt = {}): ADI steps with a fixed Δt; choose one that lands on every snapshot", num(dt), num(t), num(n)),
                );
            }
        }
        if let Some(every) = common.output.checkpoint_every {
            let n = every / dt;
            if (n - n.round()).abs() > 1e-9 * n.max(1.0) || n.round() < 1.0 {
                return c.fail(
                    "output.checkpoint_every",
                    format!("{} s is not a multiple of time.dt = {} s (t/Δt = {}): ADI steps with a fixed Δt and lands on every checkpoint time", num(every), num(dt), num(n)),
                );
            }
        }
        let ph = &f.physics;
        let g = c.positive("physics.g", ph.g)?;
        let friction = match ph.friction {
            FrictionSpec::None => Friction::None,
            FrictionSpec::Chezy(v) => Friction::Chezy(c.positive("physics.friction.chezy", v)?),
            FrictionSpec::Manning(v) => Friction::Manning(c.positive("physics.friction.manning", v)?),
        };
        if !ph.coriolis.is_finite() {
            return c.fail("physics.coriolis", format!("{}: must be finite", ph.coriolis));
        }
        let wind = match &ph.wind {
            None => Wind { speed: 0.0, direction: 0.0 },
            Some(w) => {
                c.non_negative("physics.wind.speed", w.speed)?;
                if !w.direction.is_finite() {
                    return c.fail("physics.wind.direction", format!("{}: must be finite (degrees)", w.direction));
                }
                Wind { speed: w.speed, direction: w.direction.to_radians() }
            }
        };
        let eddy = c.non_negative("physics.eddy_viscosity", ph.eddy_viscosity)?;
        let drying = match &f.drying {
            None => None,
            Some(d) => {
                c.positive("drying.drying", d.drying)?;
                c.positive("drying.flooding", d.flooding)?;
                if d.drying > d.flooding {
                    return c.fail(
                        "drying.drying",
                        format!(
                            "{} m is above the flooding depth {} m: a cell must flood deeper than it dries",
                            d.drying, d.flooding
                        ),
                    );
                }
                Some((d.drying, d.flooding))
            }
        };
        let mesh = Mesh::Plane(grid);
        let depth = field(&c, "bathymetry.depth", &f.bathymetry.depth, &grid, &mesh)?;
        let mut zeta = match &f.initial.zeta {
            None => vec![0.0; grid.cells()],
            Some(v) => field(&c, "initial.zeta", v, &grid, &mesh)?,
        };
        if drying.is_some() {
            // Dry land's surface is its bed: ζ never starts below it.
            for (z, d) in zeta.iter_mut().zip(&depth) {
                *z = z.max(-d);
            }
        }
        let b = &f.boundary;
        let mut sides = [Boundary::Land, Boundary::Land, Boundary::Land, Boundary::Land];
        for (k, spec) in [&b.west, &b.east, &b.south, &b.north].into_iter().enumerate() {
            let key = format!("boundary.{}", SIDES[k]);
            sides[k] = match spec {
                None | Some(SideSpec::Land) => Boundary::Land,
                Some(SideSpec::Level(v)) => Boundary::Level(Level::constant(finite(&c, &key, *v)?)),
                Some(SideSpec::Flux(v)) => Boundary::Flux(finite(&c, &key, *v)?),
                Some(SideSpec::Tide(t)) => {
                    for (name, v) in [("mean", t.mean), ("phase", t.phase)] {
                        finite(&c, &format!("{key}.tide.{name}"), v)?;
                    }
                    c.positive(&format!("{key}.tide.period"), t.period)?;
                    c.non_negative(&format!("{key}.tide.amplitude"), t.amplitude)?;
                    let phase = t.phase.to_radians();
                    Boundary::Level(Level::Sine(Tide { mean: t.mean, amplitude: t.amplitude, period: t.period, phase }))
                }
                Some(SideSpec::Series(p)) => {
                    let s = Series::read_input(&c, &key, p, &LEVEL, "s", "m").map_err(|e| doc.invalid(&key, e))?;
                    s.covers(0.0, times.t_end).map_err(|e| doc.invalid(&key, e))?;
                    Boundary::Level(Level::Series(Arc::new(s)))
                }
            };
        }
        let setup = Setup {
            nx: grid.nx,
            ny: grid.ny,
            dx: grid.dx,
            dy: grid.dy,
            dt,
            g,
            depth,
            zeta,
            friction,
            coriolis: ph.coriolis,
            wind,
            convection: ph.convection,
            eddy,
            drying,
            sides,
            forcing: adi_forcing(&c, &f.forcing, &grid, times.t_end, common.run.start.as_deref())?,
        };
        setup.validate().map_err(|e| doc.invalid("bathymetry", e))?;
        let h: Vec<f64> = setup.depth.iter().zip(&setup.zeta).map(|(d, z)| d + z).collect();
        let v0 = grid.integrate(&h);
        let ranges = pictures::Ranges::of(&setup, &grid, &h);
        let gauge_cells = common.output.products().cells(&grid).map_err(|e| doc.invalid("output.gauges", e))?;
        let info = CaseInfo::new(doc, "adi", common);
        let strategy = match &f.gpu.strategy {
            None => Strategy::Auto,
            Some(name) => name.parse::<Strategy>().map_err(|e| doc.invalid("gpu.strategy", e))?,
        };
        let failure = Mutex::new(None);
        let tunable = f.gpu.strategy.is_none() && f.gpu.y_sweep.is_none();
        Ok(AdiCase { info, setup, grid, times, v0, ranges, strategy, y_sweep, tunable, failure, gauge_cells })
    }

    /// The problem as read.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }
}

/// The rain and soils of `[forcing]`; the parts the ADI model has no use for are refused in one
/// line that says what it offers instead.
fn adi_forcing(c: &Check, f: &ForcingSection, grid: &Grid2, t_end: f64, start: Option<&str>) -> Result<Forcing> {
    let forcing = f.load(c, Domain { grid, active: None }, t_end, start)?;
    if !forcing.inflows.is_empty() {
        return c.fail(
            "forcing.inflow",
            "the ADI model takes rain and infiltration from [forcing]; a discharge enters through a flux side ([boundary] <side> = { flux = … })",
        );
    }
    if !forcing.levels.is_empty() {
        return c.fail(
            "forcing.level",
            "the ADI model takes rain and infiltration from [forcing]; a water level is held by a level, tide or series side ([boundary])",
        );
    }
    if !forcing.outlets.is_empty() {
        return c.fail(
            "forcing.outlet",
            "the ADI model takes rain and infiltration from [forcing]; water leaves through a level, tide or series side ([boundary])",
        );
    }
    Ok(forcing)
}

fn finite(c: &Check, key: &str, v: f64) -> Result<f64> {
    if v.is_finite() { Ok(v) } else { c.fail(key, format!("{v}: must be finite")) }
}

/// The values of a field given as a number, one of the shared profiles, or an ADI shape.
fn field(c: &Check, key: &str, v: &toml::Value, grid: &Grid2, mesh: &Mesh) -> Result<Vec<f64>> {
    let is_shape = v.as_table().is_some_and(|t| t.contains_key("slope") || t.contains_key("seiche"));
    if is_shape {
        let shape = Shape::deserialize(v.clone()).or_else(|e| c.fail(key, crate::case::first_line(&e.to_string())))?;
        return shaped(c, key, &shape, grid);
    }
    let f = match v {
        toml::Value::Float(x) => Field::Constant(finite(c, key, *x)?),
        toml::Value::Integer(x) => Field::Constant(*x as f64),
        toml::Value::Table(_) => Profile::deserialize(v.clone())
            .map(Field::Profile)
            .or_else(|e| c.fail(key, crate::case::first_line(&e.to_string())))?,
        other => {
            return c
                .fail(key, format!("{other}: a number or a profile (slope, seiche, disc, gaussian, halves, file)"));
        }
    };
    values(c, key, &f, mesh)
}

/// The cell-centre values of an ADI shape.
fn shaped(c: &Check, key: &str, shape: &Shape, grid: &Grid2) -> Result<Vec<f64>> {
    let axis = |name: &str, a: &str| match a {
        "x" => Ok(true),
        "y" => Ok(false),
        other => c.fail(&format!("{key}.{name}.axis"), format!("'{other}': expected x or y")),
    };
    // The coordinate of each cell's centre along the axis, from the grid's west or south edge.
    let along = |x_axis: bool| -> Vec<f64> {
        (0..grid.cells())
            .map(|k| {
                let (x, y) = grid.centre(k % grid.nx, k / grid.nx);
                if x_axis { x - grid.origin.0 } else { y - grid.origin.1 }
            })
            .collect()
    };
    match shape {
        Shape::Slope { axis: a, at, depth } => {
            let x_axis = axis("slope", a)?;
            for (name, v) in [("at", at), ("depth", depth)] {
                if !v.iter().all(|x| x.is_finite()) {
                    return c.fail(&format!("{key}.slope.{name}"), format!("{v:?}: must be finite"));
                }
            }
            if at[1] <= at[0] {
                return c.fail(&format!("{key}.slope.at"), format!("{at:?}: the slope must end after it starts"));
            }
            Ok(along(x_axis)
                .into_iter()
                .map(|s| depth[0] + (depth[1] - depth[0]) * ((s - at[0]) / (at[1] - at[0])).clamp(0.0, 1.0))
                .collect())
        }
        Shape::Seiche { axis: a, amplitude, mode } => {
            let x_axis = axis("seiche", a)?;
            finite(c, &format!("{key}.seiche.amplitude"), *amplitude)?;
            if *mode == 0 {
                return c.fail(&format!("{key}.seiche.mode"), "0: must be at least 1 (1: the longest mode)");
            }
            let (lx, ly) = grid.extent();
            let l = if x_axis { lx } else { ly };
            let k = *mode as f64 * std::f64::consts::PI / l;
            Ok(along(x_axis).into_iter().map(|s| amplitude * (k * s).cos()).collect())
        }
    }
}

/// Memory of the solver's part of a run on an `nx × ny` grid (the runner adds its own:
/// `run::plan`). Host: the case's f64 depth, ζ and initial depth (3 words a cell), the CPU
/// reference's state with a wet byte a cell, a step's start ζ and p set aside, the new ζ and
/// flux a sweep returns and the wet flags' copy (4 words and a byte), its sweep's rows and
/// solution (5·(2n+1) a line, about 10 words a cell). GPU: [`device_bytes`] of the y-sweep's
/// design.
fn needs(nx: u64, ny: u64, precision: Precision, y: YSweep) -> Needs {
    let w = precision.bytes();
    let cells = nx.saturating_mul(ny);
    let faces = (nx + 1).saturating_mul(ny).max(nx.saturating_mul(ny + 1));
    let lines = (2 * nx + 1).saturating_mul(ny).max((2 * ny + 1).saturating_mul(nx));
    let words = state_words(nx, ny).saturating_add(faces.saturating_mul(4)).saturating_add(lines.saturating_mul(5));
    let host = cells.saturating_mul(26).saturating_add(words.saturating_mul(w));
    let gpu = device_bytes(nx as usize, ny as usize, w as usize, y);
    Needs { host, gpu }
}

fn describe_side(b: &Boundary) -> String {
    match b {
        Boundary::Land => "land".into(),
        Boundary::Flux(v) => format!("flux {} m²/s", num(*v)),
        Boundary::Level(Level::Sine(t)) if t.amplitude == 0.0 => format!("level {} m", num(t.mean)),
        Boundary::Level(Level::Sine(t)) => format!(
            "tide {} ± {} m, period {} s, phase {:.1}°",
            num(t.mean),
            num(t.amplitude),
            num(t.period),
            t.phase.to_degrees()
        ),
        Boundary::Level(Level::Series(s)) => format!("series {} ({} points)", s.source, s.times.len()),
    }
}

impl AdiCase {
    /// The start's Courant number √(g h_max)Δt/Δx of the fixed Δt.
    fn courant(&self) -> f64 {
        let s = &self.setup;
        let d_max = s.depth.iter().zip(&s.zeta).fold(0.0f64, |a, (d, z)| a.max(d + z));
        (s.g * d_max).sqrt() * s.dt / s.dx.min(s.dy)
    }

    /// What a run that failed can change: the step is the case's, fixed. Past a Courant number
    /// of 1 the implicit sweeps stay stable, but the explicit terms and the drying rules can
    /// fall behind fast flow over the flats (a finer grid at the same Courant number resolves
    /// faster flow), so the line suggests a smaller Δt there.
    fn dt_hint(&self) -> String {
        let courant = self.courant();
        let advice = if courant > 1.0 { ": a smaller --dt may hold it" } else { "" };
        format!(
            " (Δt = {} s, Courant number √(g h_max)Δt/Δx = {} at the start{advice})",
            num(self.setup.dt),
            approx(courant)
        )
    }
}

impl Simulation for AdiCase {
    fn describe(&self) -> String {
        let s = &self.setup;
        let courant = self.courant();
        let friction = match s.friction {
            Friction::None => "no friction".to_string(),
            Friction::Chezy(c) => format!("Chézy {} m^½/s", num(c)),
            Friction::Manning(n) => format!("Manning n = {} s/m^⅓", num(n)),
        };
        let wind = if s.wind.speed > 0.0 {
            format!(", wind {} m/s towards {:.1}°", num(s.wind.speed), s.wind.direction.to_degrees())
        } else {
            String::new()
        };
        let drying = match s.drying {
            Some((d, f)) => format!(", drying {} m / flooding {} m", num(d), num(f)),
            None => ", no drying".into(),
        };
        let sides: Vec<String> = s.sides.iter().map(describe_side).collect();
        format!(
            "ADI shallow water (MIKE 21 HD style) on {}×{} cells of {} m × {} m; Δt = {} s (Courant √(g h_max)Δt/Δx = {}); {friction}{wind}, Ω = {} 1/s, convection {}, eddy viscosity {} m²/s{drying}; boundaries (W, E, S, N) {}",
            s.nx,
            s.ny,
            approx(s.dx),
            approx(s.dy),
            num(s.dt),
            approx(courant),
            num(s.coriolis),
            if s.convection { "on" } else { "off" },
            num(s.eddy),
            sides.join(", ")
        ) + &if s.forcing.is_empty() { String::new() } else { format!("; forcing: {}", s.forcing.describe()) }
    }
    fn decomposition(&self, _ranks: usize) -> Result<crate::run::Decomposition> {
        // docs/ranks.md: what a decomposed ADI step would need.
        Err(not_decomposed(
            "adi",
            "its y sweep solves each column of the grid as one tridiagonal system, across every slab, and hydrokern has no distributed tridiagonal solve",
        ))
    }
    fn times(&self) -> &Times {
        &self.times
    }
    fn mesh(&self) -> Mesh {
        Mesh::Plane(self.grid)
    }
    fn estimate_steps(&self) -> f64 {
        (self.times.t_end / self.setup.dt).round()
    }
    fn snapshot(&self) -> Snapshot {
        let (nx, ny) = (self.grid.nx, self.grid.ny);
        let cells = (nx * ny) as u64;
        let faces = ((nx + 1) * ny).max(nx * (ny + 1)) as u64;
        let maps = if self.info.output.maxima { 3 * cells } else { 0 };
        let soil = self.setup.forcing.soil.is_some() as u64;
        Snapshot {
            // h, ζ, p and q on their faces and at the centres; with a soil its totals.
            fields: 6 + soil,
            values: (4 + soil) * cells + 2 * faces,
            pinned: (4 + soil) * cells + 2 * faces,
            // ζ and h over the ground, one after the other, and the centre line.
            pictures: 3,
            animations: 1,
            pixels: map_pixels(nx, ny),
            // f64 copies of ζ and h, the bed, the dry flags.
            drawing: 25 * cells + map_drawing(nx, ny, true),
            pooled_maps: 0,
            map_retained: 0,
            // ζ, p, q and the last q, the wet flags, the soil's totals; the maximum maps.
            checkpoint: (1 + soil) * cells + 3 * faces + cells / 8 + maps,
            account: !self.setup.forcing.is_empty(),
        }
    }
    fn build<T: GpuReal>(&self, backend: &Backend) -> Result<Box<dyn Model<T> + '_>> {
        let given = (self.strategy, self.y_sweep);
        let lookup = |g: &crate::Gpu| super::tune::launch_for(g, crate::Precision::of::<T>());
        let (strategy, y_sweep) =
            crate::tune::case_launch(backend, self.tunable, given, lookup, super::tune::label, "adi");
        let model = match AdiModel::new(backend, Adi::<T>::new(&self.setup)?, strategy, y_sweep, &self.failure) {
            // A strategy tuned on another size may not fit this grid's lines.
            Err(e) if (strategy, y_sweep) != given => {
                crate::note(&format!(
                    "adi: the tuned {strategy}/{y_sweep} does not run here ({e}); using the defaults"
                ));
                AdiModel::new(backend, Adi::<T>::new(&self.setup)?, self.strategy, self.y_sweep, &self.failure)?
            }
            m => m?,
        };
        Ok(Box::new(model.with_products(&self.info.output.products(), self.gauge_cells.clone())?))
    }
    fn progress<T: Real>(&self, state: &State<T>) -> String {
        let Some(h) = state.field("h") else { return String::new() };
        let v = self.grid.integrate(&h.data);
        let change = if self.v0 > 0.0 { (v - self.v0) / self.v0 } else { v };
        let dry = self.setup.drying.map_or(f64::NEG_INFINITY, |(d, _)| d);
        // Wet: deeper than the drying depth (the model's flags add hysteresis; close enough here).
        let wet: Vec<f64> = h.data.iter().map(|x| x.to_f64()).filter(|&x| x > dry).collect();
        let min = wet.iter().fold(f64::INFINITY, |a, &x| a.min(x));
        format!(
            "volume {v:.6e} m³ ({change:+.1e} of the initial), {} of {} cells wet, min wet depth {min:.4} m",
            wet.len(),
            h.data.len()
        )
    }
    fn conservation<T: Real>(&self, state: &State<T>) -> Option<String> {
        let closed = self.setup.sides.iter().all(|b| matches!(b, Boundary::Land));
        if let Some(a) = self.account(state) {
            let how = if closed {
                "land all round: the residual is the error"
            } else {
                "open sides: the flow through them is in the residual"
            };
            return Some(format!(
                "water account: storage change {:+.6e} m³ = rain {:.6e} − infiltration {:.6e} + residual {:+.3e} ({:+.1e} of the water in the account), {} ({how})",
                a.storage - a.start,
                a.rain,
                a.infiltration,
                a.residual(),
                a.relative(),
                T::NAME
            ));
        }
        let v = self.grid.integrate(&state.field("h")?.data);
        let change = if self.v0 > 0.0 { (v - self.v0) / self.v0 } else { v };
        let what =
            if closed { "land all round: all of it is error" } else { "open sides: the flow through them counts too" };
        Some(format!("volume change {change:+.1e} of the initial volume, {} ({what})", T::NAME))
    }
    /// With rain or a soil, the water account at `state`'s time: the volume in the domain, the
    /// rain's (exact integrals over every cell) and what the soil took (its totals summed).
    fn account<T: Real>(&self, state: &State<T>) -> Option<Account> {
        let f = &self.setup.forcing;
        if f.is_empty() {
            return None;
        }
        let t = state.clock.t;
        let area = (self.grid.nx * self.grid.ny) as f64 * self.grid.dx * self.grid.dy;
        Some(Account {
            t,
            storage: self.grid.integrate(&state.field("h")?.data),
            start: self.v0,
            rain: f.rain_volume(area, t),
            inflow: 0.0,
            infiltration: state.field("infiltration").map_or(0.0, |i| self.grid.integrate(&i.data)),
            boundary: Vec::new(),
        })
    }
    fn check<T: Real>(&self, state: &State<T>) -> Option<String> {
        let h = state.field("h")?;
        let k = h.data.iter().position(|v| v.to_f64() < 0.0)?;
        Some(format!("negative depth {} = {}{}", self.mesh().cell_note("h", k), h.data[k], self.dt_hint()))
    }
    fn halted<T: Real>(&self, halt: &Halt, _state: &State<T>) -> String {
        match self.failure.lock().ok().and_then(|f| f.clone()) {
            Some(why) => format!("{halt}: {why}{}", self.dt_hint()),
            None => format!("{halt}{}", self.dt_hint()),
        }
    }
    fn pictures<T: Real>(&self, state: &State<T>, album: &mut Album, dir: &mut RunDir) -> Result<()> {
        pictures::write(&self.setup, &self.grid, self.ranges, self.times.t_end, state, album, dir)
    }

    /// ζ and h as the pictures draw them: dry cells as land, over the hillshaded bed (−d).
    fn view_layers(&self, sampled: &State<f64>, cells: &[usize]) -> Option<Vec<crate::view::Layer>> {
        let (zeta, h) = (sampled.field("zeta")?, sampled.field("h")?);
        let dry = Some(pictures::dry_cells(&self.setup, &h.data));
        let relief = Some(cells.iter().map(|&c| -self.setup.depth[c]).collect::<Vec<f64>>());
        let [zeta_map, depth_map] = pictures::maps(self.ranges);
        let layer = |name, opts, values: &[f64]| crate::view::Layer {
            name,
            opts,
            values: values.to_vec(),
            dry: dry.clone(),
            relief: relief.clone(),
        };
        Some(vec![layer("zeta", zeta_map, &zeta.data), layer("h", depth_map, &h.data)])
    }
}

impl Case for AdiCase {
    fn info(&self) -> &CaseInfo {
        &self.info
    }
    fn summary(&self) -> String {
        format!(
            "{}\n  on a GPU, the sweeps' tridiagonal strategy {}, the y-sweep over {}",
            self.describe(),
            self.strategy,
            match self.y_sweep {
                YSweep::Columns => "columns",
                YSweep::Transposed => "transposed copies",
            }
        )
    }
    fn needs(&self, precision: Precision) -> Needs {
        let mut n = needs(self.grid.nx as u64, self.grid.ny as u64, precision, self.y_sweep);
        // The rain grid's frames and the soils, and with a soil its totals: on the host (the
        // case's copy and the model's) and on the device.
        if let Some(f) = AdiForcing::of(&self.setup.forcing) {
            let cells = (self.grid.nx * self.grid.ny) as u64;
            let arrays = match precision {
                Precision::F32 => f.per_cell.bytes::<f32>(),
                _ => f.per_cell.bytes::<f64>(),
            } as u64;
            let totals = if f.has_soil() { cells * precision.bytes() } else { 0 };
            n.host = n.host.saturating_add(2 * arrays + totals);
            n.gpu = n.gpu.saturating_add(arrays + totals);
        }
        n
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
    flags::T_END,
    flags::SNAPSHOTS,
    Flag::new(
        "dt",
        "SECONDS",
        Set::Float("time.dt"),
        "the fixed time step; it must divide every snapshot time and the end",
    ),
    Flag::new(
        "strategy",
        "NAME",
        Set::Text("gpu.strategy"),
        "how the GPU sweeps solve their lines: thomas, twisted (S1), partition, pcr, cr-pcr (S2) or auto (the default: partition where a line fits a block, else twisted)",
    ),
    Flag::new(
        "y-sweep",
        "NAME",
        Set::Text("gpu.y_sweep"),
        "how the GPU's y-sweep reaches its columns: transposed (the default: copies the sweeps write) or columns (strided loads, less memory)",
    ),
];
