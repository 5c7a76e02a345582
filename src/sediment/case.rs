//! Sediment case files (`solver = "sediment"`), their flags, and the run's pictures and
//! progress lines. Lengths in metres, time in years.

use super::gpu::Launch;
use super::model::{SedimentModel, StepPolicy};
use super::part::SlabPart;
use super::{Accumulation, Problem, Scheme, Side, StepVariant, setup};
use crate::case::{CaseDoc, Check, Common, Flag, Grid2Section, Set, Times, approx, num};
use crate::field::Field2;
use crate::grid::{Grid2, Layout2, Mesh};
use crate::input::{Resample, case_raster, case_raster_shape};
use crate::model::{Model, State};
use crate::output::png::{map_drawing, map_pixels};
use crate::ranks::{Halo, Slabs};
use crate::run::{
    Album, Case, CaseInfo, Decomposition, Needs, Outcome, Plan, RunDir, RunOptions, Simulation, Snapshot, plan,
    simulate,
};
use crate::runtime::Backend;
use crate::{GpuReal, Precision, Real, Result};
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// Absent with `[initial.raster]`: the grid is the h raster's cells.
    grid: Option<Grid2Section>,
    time: TimeSection,
    #[serde(default)]
    physics: Physics,
    #[serde(default)]
    boundary: Boundaries,
    #[serde(default)]
    initial: Initial,
    #[serde(default)]
    numerics: Numerics,
    #[serde(default)]
    gpu: GpuSection,
}

fn default_scheme() -> String {
    Scheme::default().name().into()
}

/// `[numerics]`: the discretisation, "bounded" (default) or "seed"; how f32 adds a step's
/// increment to h, "compensated" (default) or "plain".
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Numerics {
    #[serde(default = "default_scheme")]
    scheme: String,
    #[serde(default = "Accumulation::default_name")]
    accumulation: String,
}

impl Default for Numerics {
    fn default() -> Self {
        Numerics { scheme: default_scheme(), accumulation: Accumulation::default_name() }
    }
}

fn default_update() -> u64 {
    1000
}

/// `[time]`: to `t_end` years, or exactly `steps` steps; a forced `dt` or the automatic one.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeSection {
    t_end: Option<f64>,
    steps: Option<u64>,
    dt: Option<f64>,
    #[serde(default = "default_update")]
    dt_update_steps: u64,
}

/// `[physics]`: compaction ratios and the transport layer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Physics {
    cs: f64,
    cm: f64,
    a: f64,
}

impl Default for Physics {
    fn default() -> Self {
        Physics { cs: 0.7, cm: 0.6, a: 10.0 }
    }
}

/// A side: sediment inflow (m³ per metre of side per year) and its sand fraction; a side left
/// out is closed.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SideSection {
    #[serde(default)]
    inflow: f64,
    #[serde(default)]
    sand: f64,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Boundaries {
    #[serde(default)]
    west: SideSection,
    #[serde(default)]
    east: SideSection,
    #[serde(default)]
    south: SideSection,
    #[serde(default)]
    north: SideSection,
}

/// `[initial]`: the built-in basin, with any of its fields replaced by an NPY file of shape
/// (ny, nx), and h also by a raster.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Initial {
    h: Option<PathBuf>,
    s: Option<PathBuf>,
    alpha: Option<PathBuf>,
    beta: Option<PathBuf>,
    raster: Option<InitialRaster>,
}

/// `[initial.raster]`: the basin height from a raster (Esri ASCII grid or GeoTIFF,
/// docs/raster-input.md), sampled at the grid's cell centres by `resample`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InitialRaster {
    h: PathBuf,
    #[serde(default = "bilinear")]
    resample: String,
}

fn bilinear() -> String {
    Resample::Bilinear.name().into()
}

fn default_variant() -> String {
    "fused".into()
}

/// `[gpu]`: the kernel variant and its launch shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuSection {
    #[serde(default = "default_variant")]
    variant: String,
    /// None (with `rows`): the tuning cache's for the fused kernel, else [`Launch::default`]'s.
    #[serde(default)]
    block: Option<[u32; 2]>,
    #[serde(default)]
    rows: Option<u32>,
}

fn default_block() -> [u32; 2] {
    let b = Launch::default().block;
    [b.0, b.1]
}
fn default_rows() -> u32 {
    Launch::default().rows
}

impl Default for GpuSection {
    fn default() -> Self {
        GpuSection { variant: default_variant(), block: None, rows: None }
    }
}

/// A validated sediment case.
pub struct SedimentCase {
    info: CaseInfo,
    /// The whole grid's problem; none on a rank other than 0 of a decomposed run, which builds
    /// its slab from the part rank 0 hands it (`slab_part`).
    whole: Option<Problem>,
    accumulation: Accumulation,
    grid: Grid2,
    times: Times,
    policy: StepPolicy,
    variant: StepVariant,
    launch: Launch,
    /// Whether the case left the fused kernel's launch to the defaults (the tuning cache may
    /// then choose it).
    tunable: bool,
    /// The step the run starts with, and the volume it starts from (NaN without the whole
    /// problem).
    dt0: f64,
    v0: f64,
}

impl SedimentCase {
    pub fn load(doc: &CaseDoc) -> Result<SedimentCase> {
        let (common, f): (Common, File) = doc.parse_case()?;
        let c = Check::new(doc);
        // A rank other than 0 of a decomposed run reads none of the fields: rank 0 reads and
        // checks them, and hands each rank its slab's part (`slab_part`). It reads the h
        // raster's header alone, for the extent it gives the grid.
        let handed = crate::ranks::handout::takes_a_part();
        let h_raster = match &f.initial.raster {
            Some(r) => {
                if f.initial.h.is_some() {
                    return c.fail(
                        "initial.raster.h",
                        "given with initial.h: the basin height comes from one file; remove one of them",
                    );
                }
                let resample: Resample = r.resample.parse().map_err(|e| doc.invalid("initial.raster.resample", e))?;
                let read = if handed { case_raster_shape } else { case_raster };
                Some((read(doc, "initial.raster.h", &r.h)?, resample))
            }
            None => None,
        };
        let grid = match (&f.grid, &h_raster) {
            (Some(g), r) => g.grid_over(&c, 1, r.as_ref().map(|(r, _)| r.bounds()))?,
            (None, Some((r, _))) => r.grid(1).map_err(|e| doc.invalid("initial.raster.h", e))?,
            (None, None) => {
                return c.fail("grid", "missing: give [grid], or take the grid from a raster of h ([initial.raster])");
            }
        };
        if !handed {
            let compensated = compensates(&f.numerics, common.run.precision);
            let needs = needs(grid.nx as u64, grid.ny as u64, common.run.precision, compensated);
            crate::files::check_host_memory(&format!("a {}×{} sediment grid", grid.nx, grid.ny), needs.host)
                .map_err(|e| doc.invalid("grid", e))?;
        }
        let times = match (f.time.t_end, f.time.steps) {
            (Some(t), None) => Times::new(&c, "time.t_end", t, &common.output.snapshots, "yr")?,
            (None, Some(n)) => Times::steps(&c, "time.steps", n, "yr")?,
            (Some(_), Some(_)) => return c.fail("time.steps", "give either time.t_end or time.steps, not both"),
            (None, None) => return c.fail("time", "give time.t_end (years) or time.steps"),
        };
        if f.time.dt_update_steps == 0 {
            return c.fail("time.dt_update_steps", "0: must be at least 1");
        }
        c.positive("physics.cs", f.physics.cs)?;
        c.positive("physics.cm", f.physics.cm)?;
        c.positive("physics.a", f.physics.a)?;
        let b = &f.boundary;
        let mut sides = [Side::CLOSED; 4];
        for (k, (name, s)) in
            [("west", &b.west), ("east", &b.east), ("south", &b.south), ("north", &b.north)].into_iter().enumerate()
        {
            let inflow = c.non_negative(&format!("boundary.{name}.inflow"), s.inflow).map_err(|_| {
                doc.invalid(
                    &format!("boundary.{name}.inflow"),
                    format!("{}: an inflow must be finite and not negative (0 closes the side)", num(s.inflow)),
                )
            })?;
            let sand = c.within(&format!("boundary.{name}.sand"), s.sand, 0.0, 1.0, " (a fraction)")?;
            sides[k] = Side { q: inflow, s_in: sand };
        }
        let scheme: Scheme = f.numerics.scheme.parse().map_err(|e| doc.invalid("numerics.scheme", e))?;
        let accumulation: Accumulation =
            f.numerics.accumulation.parse().map_err(|e| doc.invalid("numerics.accumulation", e))?;
        let variant: StepVariant = f.gpu.variant.parse().map_err(|e| doc.invalid("gpu.variant", e))?;
        let [bx, by] = f.gpu.block.unwrap_or_else(default_block);
        let launch = Launch { block: (bx, by), rows: f.gpu.rows.unwrap_or_else(default_rows) };
        let tunable = f.gpu.block.is_none() && f.gpu.rows.is_none() && variant == StepVariant::Fused;
        check_launch(&c, launch, variant)?;
        if common.run.precision == Precision::Mixed && variant != StepVariant::Fused {
            let why = format!("precision mixed runs the fused kernel only; {} runs f32 or f64", variant.name());
            return Err(doc.invalid("gpu.variant", why));
        }
        let policy = StepPolicy { forced: f.time.dt, update_every: f.time.dt_update_steps };
        let info = CaseInfo::new(doc, "sediment", common);
        let case = |whole, dt0, v0| SedimentCase {
            info,
            whole,
            accumulation,
            grid,
            times,
            policy,
            variant,
            launch,
            tunable,
            dt0,
            v0,
        };
        if handed {
            return Ok(case(None, f64::NAN, f64::NAN));
        }

        let mut problem = setup::basin_on(&grid, sides[0].q)?;
        problem.cs = f.physics.cs;
        problem.cm = f.physics.cm;
        problem.a = f.physics.a;
        problem.sides = sides;
        problem.scheme = scheme;
        problem.accumulation = accumulation;
        for (key, file, field) in [
            ("initial.h", &f.initial.h, &mut problem.h),
            ("initial.s", &f.initial.s, &mut problem.s),
            ("initial.alpha", &f.initial.alpha, &mut problem.alpha),
            ("initial.beta", &f.initial.beta, &mut problem.beta),
        ] {
            if let Some(path) = file {
                load_interior(&c, key, &c.path(path), field)?;
            }
        }
        if let Some((r, how)) = &h_raster {
            let h = r.at_centres(&grid, *how).map_err(|e| doc.invalid("initial.raster.h", e))?;
            problem.h.set_interior(&h).map_err(|e| doc.invalid("initial.raster.h", e))?;
        }
        problem.validate().map_err(|e| doc.invalid("initial", e))?;
        problem.check_inflow().map_err(|e| doc.invalid("boundary", e))?;
        let limit = problem.stability(&problem.h);
        if !(limit.limit().is_finite() && limit.limit() > 0.0) {
            return c.fail(
                "initial",
                "α and β are zero everywhere (or the limit is not a number): nothing moves, so no time step exists",
            );
        }
        let dt0 = match f.time.dt {
            Some(dt) => {
                problem.check_dt(dt, &problem.h).map_err(|e| doc.invalid("time.dt", e))?;
                dt
            }
            None => limit.automatic(),
        };
        let v0 = grid.integrate(&problem.h.interior());
        Ok(case(Some(problem), dt0, v0))
    }
}

/// Whether a run in `precision` keeps h's low part (an unknown name: no; loading refuses it).
fn compensates(numerics: &Numerics, precision: Precision) -> bool {
    numerics.accumulation.parse::<Accumulation>().is_ok_and(|a| a.compensates_in(precision))
}

/// Memory of the solver's part of a run on an `nx × ny` grid (the runner adds its own:
/// `run::plan`): the problem (4 f64 fields with ghosts), the CPU model (6 fields, 8 with h's
/// low parts) or the download of h and s, and the copies of h and s with their ghosts a state
/// is cut from; on the GPU, 6 fields (8). Mixed: the model's 6 fields are 2 of f64 (h, h′) and
/// 4 of f32.
fn needs(nx: u64, ny: u64, precision: Precision, compensated: bool) -> Needs {
    let stored = (nx + 2).saturating_mul(ny + 2);
    let w = precision.bytes();
    let model = match precision {
        Precision::Mixed => (2 * 8 + 4 * 4) * stored,
        _ => (if compensated { 8 } else { 6 }) * w * stored,
    };
    let state = 2 * 8 * stored;
    Needs { host: (4 * 8 * stored).saturating_add(model).saturating_add(state), gpu: model }
}

/// The launch shape every variant can run: blocks of 1 to 1024 threads with halo threads, the
/// fused kernel's BY warps of 32.
fn check_launch(c: &Check, l: Launch, variant: StepVariant) -> Result<()> {
    let (bx, by) = l.block;
    let halo_threads = (bx as u64 + 2) * (by as u64 + 2);
    if bx == 0 || by == 0 || halo_threads > 1024 {
        return c.fail(
            "gpu.block",
            format!(
                "{bx}×{by}: needs 1 ≤ BX, BY and (BX + 2)(BY + 2) ≤ 1024 threads (the halo-thread kernels add a ring)"
            ),
        );
    }
    if variant == StepVariant::Fused && by > 32 {
        return c.fail("gpu.block", format!("{bx}×{by}: the fused kernel runs BY warps a block, at most 32"));
    }
    if l.rows == 0 || l.rows > 1024 {
        return c.fail("gpu.rows", format!("{}: rows per thread must lie in 1..=1024", l.rows));
    }
    Ok(())
}

/// Replace the interior of `field` by an (ny, nx) NPY file's values.
fn load_interior(c: &Check, key: &str, path: &std::path::Path, field: &mut Field2<f64>) -> Result<()> {
    let (data, shape) = c.read_npy(key, path).map_err(|e| c.doc().invalid(key, e))?;
    let (nx, ny) = (field.layout().nx as usize, field.layout().ny as usize);
    if shape != [ny, nx] {
        return c.fail(key, format!("{}: shape {shape:?}; the grid needs (ny, nx) = ({ny}, {nx})", path.display()));
    }
    c.finite_npy(key, path, &data, nx)?;
    field.set_interior(&data).map_err(|e| c.doc().invalid(key, e))
}

impl SedimentCase {
    /// The whole grid's problem, which every rank but those other than 0 of a decomposed run
    /// holds.
    fn whole(&self) -> Result<&Problem> {
        self.whole.as_ref().ok_or_else(|| {
            crate::Error::invalid("sediment: this rank holds the part of the case rank 0 handed it, not the whole grid")
        })
    }
}

impl Simulation for SedimentCase {
    fn describe(&self) -> String {
        let Some(p) = &self.whole else {
            return format!(
                "sediment basin {}×{} cells, of which rank 0 hands this rank a slab",
                self.grid.nx, self.grid.ny
            );
        };
        let sides: Vec<String> = ["W", "E", "S", "N"]
            .iter()
            .zip(&p.sides)
            .filter(|(_, s)| s.q > 0.0)
            .map(|(n, s)| format!("{n} inflow {} m³/m/yr ({:.0}% sand)", num(s.q), 100.0 * s.s_in))
            .collect();
        format!(
            "sediment basin {}×{} cells of {} m × {} m; C_s = {}, C_m = {}, A = {} m; {}; {} scheme, first Δt = {} yr",
            p.nx,
            p.ny,
            approx(p.dx),
            approx(p.dy),
            num(p.cs),
            num(p.cm),
            num(p.a),
            if sides.is_empty() { "closed".to_string() } else { sides.join(", ") },
            p.scheme.name(),
            approx(self.dt0)
        )
    }
    fn times(&self) -> &Times {
        &self.times
    }
    fn mesh(&self) -> Mesh {
        Mesh::Plane(self.grid)
    }
    fn estimate_steps(&self) -> f64 {
        (self.times.t_end / self.dt0).ceil()
    }
    fn steps_basis(&self) -> &'static str {
        "from the first Δt"
    }
    fn duration(&self) -> f64 {
        // A run of a number of steps lasts about that many first steps.
        self.times.steps.map_or(self.times.t_end, |n| n as f64 * self.dt0)
    }
    fn snapshot(&self) -> Snapshot {
        let (nx, ny) = (self.grid.nx, self.grid.ny);
        let cells = (nx * ny) as u64;
        Snapshot {
            fields: 2,
            values: 2 * cells,
            pinned: 2 * cells,
            // Height, deposit and sand maps, one after the other.
            pictures: 3,
            animations: 1,
            pixels: map_pixels(nx, ny),
            // f64 copies of h and s, the initial h, the deposit, the (no) dry flags; one map at
            // a time, the height's over its hillshade.
            drawing: 33 * cells + map_drawing(nx, ny, true),
            pooled_maps: 0,
            map_retained: 0,
            checkpoint: 8 * ((nx + 2) * (ny + 2)) as u64,
            account: false,
        }
    }
    fn build<T: GpuReal>(&self, backend: &Backend) -> Result<Box<dyn Model<T> + '_>> {
        let launch = self.launch_on::<T>(backend);
        let (problem, policy, variant) = (self.whole()?, self.policy, self.variant);
        Ok(Box::new(match self.info.run.precision {
            Precision::Mixed => SedimentModel::<T>::mixed(backend, problem, policy, variant, launch)?,
            _ => SedimentModel::<T>::new(backend, problem, policy, variant, launch)?,
        }))
    }
    /// Slabs along y of at least one row (the stencil's one ghost row), the sides never
    /// periodic.
    fn decomposition(&self, ranks: usize) -> Result<Decomposition> {
        // `Problem::layout`'s.
        let layout = Layout2::new(self.grid.nx as u32, self.grid.ny as u32, 1);
        let slabs = Slabs::new(self.grid.ny, ranks, layout.halo as usize, false)?;
        Ok(Decomposition { slabs, layout, row_axes: 1, products: None })
    }
    /// The slab's rows of the whole problem with the whole grid's first step
    /// ([`SlabPart`]): the other ranks read no field of the case.
    fn slab_part(&self, _backend: &Backend, d: &Decomposition, rank: usize) -> Result<Vec<u8>> {
        Ok(self.policy.part(self.whole()?, &d.slabs.slab(rank))?.encode())
    }
    fn build_slab<T: GpuReal>(&self, backend: &Backend, halo: Halo, part: Vec<u8>) -> Result<Box<dyn Model<T> + '_>> {
        let mixed = self.info.run.precision == Precision::Mixed;
        let kernels = (self.variant, self.launch_on::<T>(backend));
        let part = SlabPart::decode(&part)?;
        let p = &part.problem;
        let needs = needs(
            p.nx as u64,
            p.ny as u64,
            self.info.run.precision,
            self.accumulation.compensates_in(self.info.run.precision),
        );
        crate::files::check_host_memory(&format!("a {}×{} slab of a sediment grid", p.nx, p.ny), needs.host)?;
        Ok(Box::new(SedimentModel::<T>::of_part(backend, part, halo, self.policy, mixed, kernels)?))
    }
    fn progress<T: Real>(&self, state: &State<T>) -> String {
        let (Some(b), Some(s)) = (self.balance(state), state.field("s")) else { return String::new() };
        let (lo, hi) = s.data.iter().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v.to_f64()), b.max(v.to_f64())));
        format!(
            "volume gained {:.5e} m³, supplied {:.5e} m³ (rel. diff {:.1e}, {})  s in [{lo:.4}, {hi:.4}]",
            b.gained, b.supplied, b.diff, b.how
        )
    }
    fn conservation<T: Real>(&self, state: &State<T>) -> Option<String> {
        let b = self.balance(state)?;
        Some(match b.supplied != 0.0 {
            true => format!("mass balance (gained − supplied)/supplied {:.1e}, {}", b.diff, b.how),
            false => format!("volume change {:.1e} m³ (closed basin, nothing supplied), {}", b.diff, b.how),
        })
    }
    fn pictures<T: Real>(&self, state: &State<T>, album: &mut Album, dir: &mut RunDir) -> Result<()> {
        super::pictures::write(self.whole()?, &self.grid, self.duration(), state, album, dir)
    }

    /// The basin height (hillshaded by itself), the deposit and the sand fraction, as the
    /// pictures draw them.
    fn view_layers(&self, sampled: &State<f64>, cells: &[usize]) -> Option<Vec<crate::view::Layer>> {
        let (h, s, whole) = (sampled.field("h")?, sampled.field("s")?, self.whole.as_ref()?);
        let h0 = whole.h.interior();
        let deposit = h.data.iter().zip(cells).map(|(v, &c)| v - h0[c]).collect();
        let [h_map, d_map, s_map] = super::pictures::maps(whole, self.duration());
        let layer = |name, opts, values| crate::view::Layer { name, opts, values, dry: None, relief: None };
        let height = crate::view::Layer {
            dry: Some(vec![false; h.data.len()]),
            relief: Some(h.data.clone()),
            ..layer("h", h_map, h.data.clone())
        };
        Some(vec![height, layer("deposit", d_map, deposit), layer("s", s_map, s.data.clone())])
    }
}

/// The basin's mass balance in a state: what it gained since the start, what the rivers
/// supplied, (gained − supplied)/supplied (gained alone, in m³, without supply), and the
/// precision and h update that produced it.
struct Balance {
    gained: f64,
    supplied: f64,
    diff: f64,
    how: String,
}

impl SedimentCase {
    /// The fused kernels' launch on `backend` in `T`: the case's, or the tuned one. Mixed runs
    /// on f32's tuning: its fused kernels stream the same rows, with h in f64.
    fn launch_on<T: GpuReal>(&self, backend: &Backend) -> Launch {
        let tuned_in = match self.info.run.precision {
            Precision::Mixed => Precision::F32,
            _ => crate::Precision::of::<T>(),
        };
        let tuned = |gpu: &crate::Gpu| super::tune::launch_for(gpu, tuned_in);
        crate::tune::case_launch(backend, self.tunable, self.launch, tuned, super::tune::label, "sediment")
    }

    fn balance<T: Real>(&self, state: &State<T>) -> Option<Balance> {
        let h = state.field("h")?;
        let gained = self.grid.integrate(&h.data) - self.v0;
        let supplied = self.whole.as_ref()?.supply_rate() * state.clock.t;
        let diff = if supplied != 0.0 { (gained - supplied) / supplied } else { gained };
        // The mass balance's precision and h update beside it: f32's is compared with f64's.
        let how = match self.info.run.precision {
            Precision::Mixed => "mixed (h in f64)".to_string(),
            _ => format!("{} {}", T::NAME, self.accumulation.effective::<T>()),
        };
        Some(Balance { gained, supplied, diff, how })
    }
}

impl Case for SedimentCase {
    fn info(&self) -> &CaseInfo {
        &self.info
    }
    fn summary(&self) -> String {
        format!("{}\n  GPU variant {}", self.describe(), self.variant.name())
    }
    fn needs(&self, precision: Precision) -> Needs {
        let compensated = self.accumulation.compensates_in(precision);
        needs(self.grid.nx as u64, self.grid.ny as u64, precision, compensated)
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

/// `--boundary`-style flags are not needed here: the river is the west side's inflow.
pub(super) static FLAGS: &[Flag] = &[
    crate::case::flags::NX,
    Flag::new("ny", "N", Set::Int("grid.ny"), "cells in y"),
    Flag::new("t-end", "YEARS", Set::Float("time.t_end"), "simulated time in years (clears the case's snapshot times)")
        .clearing(&["time.steps", "output.snapshots"]),
    Flag::new(
        "steps",
        "N",
        Set::Int("time.steps"),
        "run exactly N steps instead of to the end time (one snapshot, at the end)",
    )
    .clearing(&["time.t_end", "output.snapshots"]),
    Flag::new(
        "dt",
        "YEARS",
        Set::Float("time.dt"),
        "force the time step (refused above the stability limit); default 90% of it",
    ),
    Flag::new(
        "inflow",
        "Q",
        Set::Float("boundary.west.inflow"),
        "river inflow through the west side, m³ of sediment per metre of shore per year",
    ),
    Flag::new(
        "scheme",
        "NAME",
        Set::Text("numerics.scheme"),
        "discretisation: bounded (default; keeps the sand fraction in [0, 1]) or seed (Su et al.'s, as the paper has it)",
    ),
    Accumulation::FLAG,
    Flag::new(
        "variant",
        "V",
        Set::Text("gpu.variant"),
        "GPU kernels: fused, fused-tile, or <h>/<s> with h in {baseline, opt1, opt2, opt3, multi}, s in {baseline, opt1, opt2, multi}",
    ),
    Flag::new(
        "block",
        "BXxBY",
        Set::Pair("gpu.block"),
        "GPU block: interior points a block (the fused kernel: BY warps a block)",
    ),
    Flag::new("rows", "N", Set::Int("gpu.rows"), "rows per thread of the multi-row and fused kernels"),
    Flag::new("h-file", "NPY", Set::Text("initial.h"), "initial basin height from an NPY file of shape (ny, nx)"),
    Flag::new("s-file", "NPY", Set::Text("initial.s"), "initial sand fraction (NPY, (ny, nx), values in [0, 1])"),
    Flag::new("alpha-file", "NPY", Set::Text("initial.alpha"), "sand diffusivity α (NPY, (ny, nx), not negative)"),
    Flag::new("beta-file", "NPY", Set::Text("initial.beta"), "mud diffusivity β (NPY, (ny, nx), not negative)"),
];
