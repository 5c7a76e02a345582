//! Shallow-water case files (`solver = "kp"`), their flags, and the run's pictures and progress
//! lines. Lengths in metres, time in seconds.

use super::gpu::{FluxVariant, Launch};
use super::part::SlabPart;
use super::problem::MAX_MANNING;
use super::segments::SIDES;
use super::{Boundary, Problem, Scheme, WetDry};
use super::{EarlyExit, KpModel};
use crate::account::Account;
use crate::accumulation::Accumulation;
use crate::case::{CaseDoc, Check, Common, Flag, Set, Times, approx, flags, num};
use crate::forcing::{Domain, Forcing};
use crate::grid::{Grid2, Layout2, Mesh};
use crate::model::{Halt, Model, State};
use crate::output::png::{map_drawing, map_pixels, map_retained};
use crate::products::{Sites, slab_spec};
use crate::ranks::{Halo, Slabs};
use crate::run::{
    Album, Case, CaseInfo, Decomposition, Needs, Outcome, Plan, RunDir, RunOptions, Simulation, Snapshot, plan,
    simulate,
};
use crate::runtime::Backend;
use crate::{GpuReal, Precision, Real, Result};
use std::sync::OnceLock;

mod initial;
mod sections;

use initial::{Rasters, initial};
use sections::{File, block, kappa_depth};

/// With rain, the wet–dry scheme unless the case sets one: rain-on-grid is sheet flow thinner
/// than a cell's bed relief, which the partially flooded cells of `clamp` and `bollermann` hold
/// in their lowest part (docs/kp-forcing.md, "Sheet flow").
pub const RAIN_WET_DRY: WetDry = WetDry::Kp07;
/// With rain, `physics.kappa_depth` unless the case sets it: velocities are desingularized only
/// far below sheet flow's millimetres (κ depth 1e-4 of a cell: 2 mm on 20 m cells).
pub const RAIN_KAPPA_DEPTH: f64 = 1e-4;

/// With inactive cells: rain counted on the active cells only, and no inflow, held level or
/// outlet on an inactive cell; the split schemes DS1 and DS2 have no inactive cells.
fn forcing_on_active(
    c: &Check,
    f: &mut Forcing,
    active: &[bool],
    grid: &Grid2,
    scheme: Scheme,
    auto: bool,
) -> Result<()> {
    if scheme.is_split() && !auto {
        return c.fail("time.scheme", format!("{}: {}", scheme.name(), super::cpu::SPLIT_INACTIVE));
    }
    if let Some(g) = &mut f.rain_grid {
        g.only(active);
    }
    let (nx, ny) = (grid.nx, grid.ny);
    let inactive = |key: String, k: usize| {
        let (i, j) = (k % nx, k / nx);
        let (x, y) = grid.centre(i, j);
        c.fail::<()>(&key, format!("reaches the grid's cell ({i}, {j}) (x = {x} m, y = {y} m), which is outside the domain (nodata in the bed)"))
    };
    for (n, inflow) in f.inflows.iter().enumerate() {
        if let Some(&(k, _)) = inflow.cells.iter().find(|(k, _)| !active[*k]) {
            return inactive(format!("forcing.inflow[{n}]"), k);
        }
    }
    // The cell inside a side's reach at position `a` along it.
    let inside = |side: usize, a: usize| match side {
        0 => a * nx,
        1 => a * nx + nx - 1,
        2 => a,
        _ => (ny - 1) * nx + a,
    };
    let reaches = f.levels.iter().map(|l| ("forcing.level", l.side, l.cells.clone()));
    let reaches = reaches.chain(f.outlets.iter().map(|o| ("forcing.outlet", o.side, o.cells.clone())));
    for (n, (key, side, cells)) in reaches.enumerate() {
        let n = if key == "forcing.level" { n } else { n - f.levels.len() };
        if let Some(k) = cells.map(|a| inside(side, a)).find(|&k| !active[k]) {
            return inactive(format!("{key}[{n}]"), k);
        }
    }
    Ok(())
}

/// A validated shallow-water case.
pub struct KpCase {
    info: CaseInfo,
    /// The whole grid's problem; none on a rank other than 0 of a decomposed run, which builds
    /// its slab from the part rank 0 hands it (`slab_part`).
    whole: Option<Problem>,
    /// What every rank knows of the problem: the case's scheme, sides, wet–dry scheme, w
    /// update and whether Manning's n is a raster.
    scheme: Scheme,
    boundary: [Boundary; 4],
    wet_dry: WetDry,
    accumulation: Accumulation,
    friction_field: bool,
    grid: Grid2,
    times: Times,
    launch: Launch,
    /// Whether the case left the launch to the defaults (the tuning cache may then choose it).
    tunable: bool,
    /// Whether it left the x-line length to them (SRK2, DS1, DS2).
    line_tunable: bool,
    /// `time.scheme = "auto"`: the problem says RK2, and a run takes the tuning cache's choice
    /// (`scheme_choice::auto_scheme`), built on first use into `auto_problem` when it differs.
    scheme_auto: bool,
    auto_problem: OnceLock<Problem>,
    /// On rank 0 of a decomposed run, what every slab's part takes of the whole grid.
    whole_grid: OnceLock<super::WholeGrid>,
    early_exit: EarlyExit,
    v0: f64,
    /// Where `[output] gauges` and `lines` sample: the gauges' cells in their order, then the
    /// lines' (`products::Sites`).
    sites: Sites,
    /// What the snapshots' pictures share, made at the first.
    still: OnceLock<super::pictures::Still>,
}

/// Δt's cap with forcing unless the case sets `time.dt_max`, s: a dry or still state has no
/// wave speed to limit Δt, and rain or an inflow must not arrive in one step.
pub const FORCED_DT_MAX: f64 = 10.0;

/// The largest Courant number for which the scheme keeps depths non-negative (and so the
/// volume exact): Kurganov & Petrova 2007, Theorem 2.1.
pub const MAX_CFL: f64 = 0.25;

impl KpCase {
    /// The whole grid's problem, which every rank but those other than 0 of a decomposed run
    /// holds.
    fn whole(&self) -> Result<&Problem> {
        self.whole.as_ref().ok_or_else(|| {
            crate::Error::invalid("kp: this rank holds the part of the case rank 0 handed it, not the whole grid")
        })
    }

    /// The precision whose tuning a run takes: mixed runs on f32's (its kernels are f32's with
    /// an f64 surface).
    fn tuned_in(&self) -> Precision {
        match self.info.run.precision {
            Precision::Mixed => Precision::F32,
            p => p,
        }
    }

    /// The problem a model of this case runs on `backend` (with `--scheme auto` the scheme
    /// chosen for it, among those that run on several ranks with `ranks`).
    fn problem_on(&self, backend: &Backend, ranks: bool) -> Result<&Problem> {
        let whole = self.whole()?;
        // Under `auto` the case's problem says RK2: the choice and the fallbacks to RK2 run it
        // as it is, and only another choice takes a copy with that scheme.
        debug_assert!(!self.scheme_auto || whole.scheme == Scheme::Rk2);
        Ok(match self.scheme_auto {
            true => match super::scheme_choice::auto_scheme(backend, self.tuned_in()) {
                s if s == whole.scheme => whole,
                s if s.is_split() && ranks => {
                    crate::note(&format!("--scheme auto: rk2, not {}: the split schemes run on one rank", s.name()));
                    whole
                }
                s if s.is_split() && whole.active.is_some() => {
                    crate::note(&format!(
                        "--scheme auto: rk2, not {}: inactive cells run with euler, rk2 and srk2",
                        s.name()
                    ));
                    whole
                }
                s => self.auto_problem.get_or_init(|| Problem { scheme: s, ..whole.clone() }),
            },
            false => whole,
        })
    }

    /// The kernels' launch on `backend` (the case's, or the tuned one) for a run of `scheme`.
    fn launch_on(&self, backend: &Backend, scheme: Scheme) -> Launch {
        let (ny, precision) = (self.grid.ny, self.tuned_in());
        // A record is tuned on a large grid: its streamed warps take fewer rows on a small one.
        let tuned = |gpu: &crate::Gpu| {
            let fit = |l: Launch| Launch { flux: l.flux.for_grid(self.grid.nx, ny), ..l };
            super::tune::launch_for(gpu, precision).map(fit).filter(|l| l.flux.check(ny).is_ok())
        };
        let launch = crate::tune::case_launch(backend, self.tunable, self.launch, tuned, super::tune::label, "kp");
        // Mixed precision runs the streamed flux kernel only: a tuned tile launch falls back to
        // the grid's default streamed shape.
        let launch = match (self.info.run.precision, self.tunable, launch.flux) {
            (Precision::Mixed, true, FluxVariant::Tile) => {
                Launch { flux: FluxVariant::STREAM.for_grid(self.grid.nx, ny), ..launch }
            }
            _ => launch,
        };
        // The x-line length only where the scheme runs that kernel (so no note elsewhere).
        let uses_line = matches!(scheme, Scheme::Srk2 | Scheme::Ds1 | Scheme::Ds2);
        let line_tuned = |gpu: &crate::Gpu| super::tune::line_for(gpu, precision);
        let line_label = |l: u32| format!("x-line {l}");
        let line = crate::tune::case_launch(
            backend,
            self.line_tunable && uses_line,
            self.launch.line,
            line_tuned,
            line_label,
            "kp",
        );
        Launch { line, ..launch }
    }

    pub fn load(doc: &CaseDoc) -> Result<KpCase> {
        let (common, f): (Common, File) = doc.parse_case()?;
        let c = Check::new(doc);
        // A rank other than 0 of a decomposed run reads none of the fields: rank 0 reads and
        // checks them, and hands each rank its slab's part (`slab_part`). It reads the bed
        // raster's header alone, for the extent it gives the grid.
        let handed = crate::ranks::handout::takes_a_part();
        let (rasters, bed) = match handed {
            false => (Rasters::read(&c, &f.initial)?, None),
            true => (None, Rasters::read_bed_shape(&c, &f.initial)?),
        };
        let bed = rasters.as_ref().map(|r| &r.bed).or(bed.as_ref());
        let grid = match (&f.grid, bed) {
            (Some(g), b) => g.grid_over(&c, 2, b.map(|b| b.bounds()))?,
            (None, Some(b)) => b.grid(2).map_err(|e| doc.invalid("initial.raster.bed", e))?,
            (None, None) => {
                return c.fail("grid", "missing: give [grid], or take the grid from a bed raster ([initial.raster])");
            }
        };
        let friction_field = f.initial.has_manning_raster();
        let scheme_auto = f.time.scheme == "auto";
        let scheme: Scheme = match scheme_auto {
            true => Scheme::Rk2,
            false => f.time.scheme.parse().map_err(|_| {
                let name = &f.time.scheme;
                doc.invalid(
                    "time.scheme",
                    format!("unknown scheme '{name}' (expected rk2, euler, srk2, ds1, ds2 or auto)"),
                )
            })?,
        };
        if common.run.precision == Precision::Mixed {
            // docs/f32-conservation.md, "Mixed precision for shallow water".
            if scheme_auto {
                return c.fail("time.scheme", "auto: precision mixed runs the rk2 and euler schemes only; auto may pick srk2, which runs f32 or f64");
            }
            super::mixed::check_scheme(scheme).map_err(|e| doc.invalid("time.scheme", e))?;
        }
        let accumulation: Accumulation =
            f.numerics.accumulation.parse().map_err(|e| doc.invalid("numerics.accumulation", e))?;
        let rain = f.forcing.has_rain();
        let wet_dry: WetDry = match &f.numerics.wet_dry {
            Some(s) => s.parse().map_err(|e| doc.invalid("numerics.wet_dry", e))?,
            None if rain => RAIN_WET_DRY,
            None => WetDry::DEFAULT,
        };
        let kappa_depth = f.physics.kappa_depth.unwrap_or(if rain { RAIN_KAPPA_DEPTH } else { kappa_depth() });
        let precision = common.run.precision;
        let compensated = |s: Scheme| accumulation.compensates_in(precision) && !s.is_split();
        // `auto` may run any of its candidates: room for the largest.
        let sized: &[Scheme] = if scheme_auto { super::scheme_choice::candidates(precision) } else { &[scheme] };
        let needs = sized
            .iter()
            .map(|&s| needs(grid.nx as u64, grid.ny as u64, friction_field, s, wet_dry, precision, compensated(s)))
            .fold(Needs { host: 0, gpu: 0 }, |a, b| Needs { host: a.host.max(b.host), gpu: a.gpu.max(b.gpu) });
        // Each rank other than 0 checks its slab's memory (`build_slab`).
        if !handed {
            crate::files::check_host_memory(&format!("a {}×{} shallow-water grid", grid.nx, grid.ny), needs.host)
                .map_err(|e| doc.invalid("grid", e))?;
        }
        let times = Times::new(&c, "time.t_end", f.time.t_end, &common.output.snapshots, "s")?;
        if !(f.time.cfl.is_finite() && f.time.cfl > 0.0 && f.time.cfl <= MAX_CFL) {
            return c.fail(
                "time.cfl",
                format!(
                    "{}: must lie in (0, {MAX_CFL}]; above {MAX_CFL} the scheme no longer keeps depths non-negative nor the volume exact (Kurganov & Petrova 2007, Theorem 2.1)",
                    num(f.time.cfl)
                ),
            );
        }
        let ds_safety = f.numerics.ds_safety;
        if !(ds_safety > 0.0 && ds_safety <= 1.0) {
            return c.fail(
                "numerics.ds_safety",
                format!("{}: the split schemes' Δt factor r must lie in (0, 1]", num(ds_safety)),
            );
        }
        c.non_negative("time.dt_floor", f.time.dt_floor)?;
        c.positive("physics.g", f.physics.g)?;
        let manning = f.physics.manning.unwrap_or(0.0);
        c.within("physics.manning", manning, 0.0, MAX_MANNING, " s/m^(1/3) (Manning's n)")?;
        if f.physics.manning.is_some() && friction_field {
            return c.fail(
                "physics.manning",
                "given with initial.raster.manning: Manning's n is one or the other; remove physics.manning to use the raster's n per cell, or initial.raster.manning to use one n everywhere",
            );
        }
        c.within("physics.theta", f.physics.theta, 1.0, 2.0, " (the generalized minmod's θ)")?;
        c.positive("physics.kappa_depth", kappa_depth)?;
        let b = &f.boundary;
        let mut boundary = [Boundary::Wall; 4];
        for (k, (name, v)) in
            [("west", &b.west), ("east", &b.east), ("south", &b.south), ("north", &b.north)].into_iter().enumerate()
        {
            boundary[k] = v.parse().map_err(|e| doc.invalid(&format!("boundary.{name}"), e))?;
        }
        const SIDES: [&str; 4] = ["west", "east", "south", "north"];
        for pair in [0, 2] {
            let periodic = [boundary[pair] == Boundary::Periodic, boundary[pair + 1] == Boundary::Periodic];
            if periodic[0] != periodic[1] {
                let (lone, other) = if periodic[0] { (pair, pair + 1) } else { (pair + 1, pair) };
                return c.fail(
                    &format!("boundary.{}", SIDES[lone]),
                    format!(
                        "periodic, but boundary.{} is {}: periodic sides come in pairs (west with east, south with north)",
                        SIDES[other],
                        boundary[other].name()
                    ),
                );
            }
        }
        let tunable = f.gpu.flux.is_none() && f.gpu.block.is_none();
        let flux: FluxVariant =
            f.gpu.flux.as_deref().unwrap_or("stream").parse().map_err(|e| doc.invalid("gpu.flux", e))?;
        // `stream` names the default shape for the grid; `stream:WxR` a shape as given.
        let flux = match f.gpu.flux.as_deref() {
            None | Some("stream") => flux.for_grid(grid.nx, grid.ny),
            Some(_) => flux,
        };
        let early_exit: EarlyExit = f.gpu.early_exit.parse().map_err(|e| doc.invalid("gpu.early_exit", e))?;
        let [bx, by] = f.gpu.block.unwrap_or_else(block);
        match bx.checked_mul(by) {
            Some(t) if bx > 0 && by > 0 && t % 32 == 0 && t <= 1024 => {}
            _ => {
                return c.fail(
                    "gpu.block",
                    format!("{bx}×{by}: the flux and RK kernels need a multiple of 32 threads, at most 1024"),
                );
            }
        }
        flux.check(grid.ny).map_err(|e| doc.invalid("gpu.flux", e))?;
        let line = f.gpu.line.unwrap_or(Launch::default().line);
        if line == 0 || !line.is_multiple_of(32) || line > 1024 {
            return c.fail(
                "gpu.line",
                format!("{line}: SRK2's x-line kernel needs a multiple of 32 threads, at most 1024"),
            );
        }
        let launch = Launch { block: (bx, by), flux, line };
        let sites = Sites::of(&common.output.products(), &grid, &c)?;
        let info = CaseInfo::new(doc, "kp", common.clone());
        let case = |whole, v0| KpCase {
            info,
            whole,
            scheme,
            boundary,
            wet_dry,
            accumulation,
            friction_field,
            grid,
            times,
            launch,
            tunable,
            line_tunable: f.gpu.line.is_none(),
            scheme_auto,
            auto_problem: OnceLock::new(),
            whole_grid: OnceLock::new(),
            early_exit,
            v0,
            sites,
            still: OnceLock::new(),
        };
        if handed {
            return Ok(case(None, f64::NAN));
        }

        let mut p = match &rasters {
            Some(r) => r.problem(&c, &grid)?,
            None => initial(&c, &f.initial, &grid)?,
        };
        p.boundary = boundary;
        p.scheme = scheme;
        p.ds_safety = ds_safety;
        p.wet_dry = wet_dry;
        p.cfl = f.time.cfl;
        p.dt_floor = f.time.dt_floor;
        p.g = f.physics.g;
        p.manning = manning;
        p.theta = f.physics.theta;
        p.kappa_depth = kappa_depth;
        p.accumulation = accumulation;
        let domain = Domain { grid: &grid, active: p.active.as_deref() };
        p.forcing = f.forcing.load(&c, domain, f.time.t_end, common.run.start.as_deref())?;
        if let Some(active) = &p.active {
            forcing_on_active(&c, &mut p.forcing, active, &grid, scheme, scheme_auto)?;
        }
        for (n, o) in p.forcing.outlets.iter().enumerate() {
            if boundary[o.side] != Boundary::Wall {
                return c.fail(
                    &format!("forcing.outlet[{n}]"),
                    format!(
                        "boundary.{} is {}: an outlet opens a reach of a wall side",
                        ["west", "east", "south", "north"][o.side],
                        boundary[o.side].name()
                    ),
                );
            }
        }
        for (n, l) in p.forcing.levels.iter().enumerate() {
            if boundary[l.side] == Boundary::Periodic {
                return c.fail(
                    &format!("forcing.level[{n}]"),
                    format!(
                        "boundary.{} is periodic: its water comes back at the other side, so a level held there would let water in or out unmeasured; hold levels on wall, outflow or normal-depth sides",
                        SIDES[l.side]
                    ),
                );
            }
        }
        account_names(&c, &p)?;
        if !p.forcing.boundary_is_plain() {
            let key = if p.forcing.levels.is_empty() { "forcing.outlet" } else { "forcing.level" };
            if scheme_auto {
                return c.fail(
                    "time.scheme",
                    "auto with levels held on the sides or outlets: auto may pick ds2, which has neither; give rk2, euler or srk2",
                );
            }
            if scheme.is_split() {
                return c.fail(key, super::cpu::SPLIT_LEVELS);
            }
        }
        let default_max = if p.forcing.has_sources() { FORCED_DT_MAX } else { f64::INFINITY };
        p.dt_max = match f.time.dt_max {
            Some(v) => c.positive("time.dt_max", v)?,
            None => default_max,
        };
        if !p.forcing.is_empty() && precision == Precision::Mixed {
            return c.fail("forcing", super::cpu::MIXED_FORCING);
        }
        p.validate().map_err(|e| doc.invalid("initial", e))?;
        let v0 = grid.integrate(&p.h);
        Ok(case(Some(p), v0))
    }
}

/// Memory of the solver's part of a run on an `nx × ny` grid (the runner adds its own:
/// `run::plan`). Host: the problem (h, hu, hv in f64, the corner bed, n with a friction field)
/// and the pictures' bed at the cell centres; the CPU model's padded fields — Qⁿ, Q¹, R and the
/// stage output (12), the cell and corner beds (2), g·n² with a friction field, w's low parts
/// (3, `compensated`) — with RK2's and Euler's face scratch under `clamp` (`clamp.rs`: the
/// highest corners, the face surfaces (4), both directions' reconstructions (2 × 11) and fluxes
/// (2 × 4) and φ: 36 words a cell) or DS1's and DS2's 38 words a corner (`split.rs`: both
/// orientations' beds and highest corners, three working states, the x faces); the interior bed
/// the model hands out with its states. A GPU run holds less on the host (the problem and a
/// download), so this bounds both. GPU: the model's fields (state, stage, residual, two beds:
/// 11 padded arrays, 12 with a friction field); DS1 and DS2 add 11 padded fields and a corner
/// array (`kp/gpu/split.rs`), `compensated` w's low parts (2). Mixed is counted as f64 (an upper
/// bound: its surfaces and R_w are f64, the rest f32; the GPU's f32 surfaces stay allocated).
#[allow(clippy::too_many_arguments)]
fn needs(
    nx: u64,
    ny: u64,
    friction_field: bool,
    scheme: Scheme,
    wet_dry: WetDry,
    precision: Precision,
    compensated: bool,
) -> Needs {
    let cells = nx.saturating_mul(ny);
    let padded = (nx + 4).saturating_mul(ny + 4);
    let corners = (nx + 5).saturating_mul(ny + 5);
    let w = precision.bytes();
    let f = friction_field as u64;
    let problem = 8 * ((3 + f) * cells + (nx + 1) * (ny + 1)) + 8 * cells;
    let low = compensated as u64;
    let faces = match (scheme.is_split(), wet_dry == WetDry::Clamp) {
        (true, _) => 38 * corners,
        (false, true) => 36 * padded,
        (false, false) => 0,
    };
    let model = (12 + 1 + f + 3 * low) * padded + corners + faces + cells;
    // SRK2 keeps R's y part besides.
    let fields = 11 + f + 3 * (scheme == Scheme::Srk2) as u64;
    // On the GPU the split schemes keep three working states, the transposed cell bed, B_hi
    // (`clamp`) and corner bed (`kp/gpu/split.rs`).
    let (gpu_split, gpu_corners) = if scheme.is_split() { (11, 2) } else { (0, 1) };
    Needs {
        host: problem.saturating_add(model.saturating_mul(w)),
        gpu: (fields + gpu_split + 2 * low) * w * padded + gpu_corners * w * corners,
    }
}

/// The water account names each boundary segment once (`segments.rs`): an open side by its
/// side, a held level or an outlet by its name, which must then be none of the others'.
fn account_names(c: &Check, p: &Problem) -> Result<()> {
    let f = &p.forcing;
    let mut seen: Vec<(&str, String)> = (0..4)
        .filter(|&s| p.boundary[s].is_open())
        .map(|s| (SIDES[s], format!("the open side boundary.{}", SIDES[s])))
        .collect();
    let levels = f.levels.iter().enumerate().map(|(n, l)| (&l.name, format!("forcing.level[{n}]")));
    let outlets = f.outlets.iter().enumerate().map(|(n, o)| (&o.name, format!("forcing.outlet[{n}]")));
    for (name, key) in levels.chain(outlets) {
        if let Some((_, other)) = seen.iter().find(|(s, _)| *s == name.as_str()) {
            return c.fail(
                &format!("{key}.name"),
                format!(
                    "'{name}' names {other} too: the water account names each open side, held level and outlet once"
                ),
            );
        }
        seen.push((name, key));
    }
    Ok(())
}

impl Simulation for KpCase {
    fn describe(&self) -> String {
        let Some(p) = &self.whole else {
            let (nx, ny) = (self.grid.nx, self.grid.ny);
            return format!(
                "shallow water (Kurganov–Petrova) on {nx}×{ny} cells, of which rank 0 hands this rank a slab"
            );
        };
        let bcs: Vec<&str> = p.boundary.iter().map(|b| b.name()).collect();
        let manning = match &p.manning_field {
            Some(n) => {
                let (lo, hi) = n.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
                format!("Manning n per cell from a raster, {} to {}", approx(lo), approx(hi))
            }
            None => format!("Manning n = {}", num(p.manning)),
        };
        format!(
            "shallow water (Kurganov–Petrova) on {}×{} cells of {} m × {} m; {}, wet–dry {}, CFL {}, θ = {}, {manning}; boundaries (W, E, S, N) {}",
            p.nx,
            p.ny,
            approx(p.dx),
            approx(p.dy),
            match (self.scheme_auto, p.scheme.is_split()) {
                (true, _) => "scheme auto (rk2 or srk2, the tuning cache's choice for the GPU)".to_string(),
                (false, true) => format!("{} (r = {})", p.scheme.name(), num(p.ds_safety)),
                (false, false) => p.scheme.name().to_string(),
            },
            p.wet_dry.name(),
            num(p.cfl),
            num(p.theta),
            bcs.join(", ")
        ) + &match p.forcing.is_empty() {
            true => String::new(),
            false => format!("; forcing: {}", p.forcing.describe()),
        }
    }
    fn times(&self) -> &Times {
        &self.times
    }
    fn mesh(&self) -> Mesh {
        Mesh::Plane(self.grid)
    }
    fn estimate_steps(&self) -> f64 {
        // Only rank 0, which holds the whole grid, plans a run.
        let Some(p) = &self.whole else { return f64::NAN };
        // The first step's Δt, from the initial wave speeds |u| + √(gh).
        let mut rate = 0.0f64;
        for (k, &h) in p.h.iter().enumerate() {
            if h > 0.0 {
                let c = (p.g * h).sqrt();
                rate = rate.max((p.hu[k] / h).abs() / p.dx + c / p.dx).max((p.hv[k] / h).abs() / p.dy + c / p.dy);
            }
        }
        if rate > 0.0 { (self.times.t_end * rate / p.cfl).ceil() } else { 1.0 }
    }
    fn steps_basis(&self) -> &'static str {
        "from the initial wave speeds; fronts may need more"
    }
    fn snapshot(&self) -> Snapshot {
        let (nx, ny) = (self.grid.nx, self.grid.ny);
        let cells = (nx * ny) as u64;
        let padded = ((nx + 4) * (ny + 4)) as u64;
        let forcing = self.whole.as_ref().map(|p| &p.forcing);
        let soil = forcing.is_some_and(|f| f.soil.is_some()) as u64;
        Snapshot {
            // h, hu and hv; with a soil its totals.
            fields: 3 + soil,
            values: (3 + soil) * cells,
            // On a GPU: w, hu, hv, w's low part and a soil's totals, padded (in the mixed
            // precision the f64 surface and f32 momenta, less).
            pinned: (4 + soil) * padded,
            // Depth, surface and speed maps and the centre line.
            pictures: 4,
            animations: 1,
            pixels: map_pixels(nx, ny),
            // f64 copies of h, hu and hv, the surface, the speed and the dry flags; the three
            // maps drawn side by side over the ground.
            drawing: 41 * cells + 3 * map_drawing(nx, ny, true),
            pooled_maps: 3,
            map_retained: map_retained(nx, ny, true),
            // w, hu, hv and w's low parts, padded, and the maximum maps.
            checkpoint: 6 * padded + 3 * cells,
            account: forcing.is_some_and(|f| !f.is_empty()),
        }
    }
    fn build<T: GpuReal>(&self, backend: &Backend) -> Result<Box<dyn Model<T> + '_>> {
        let problem = self.problem_on(backend, false)?;
        let launch = self.launch_on(backend, problem.scheme);
        let model = match self.info.run.precision {
            Precision::Mixed => KpModel::<T>::mixed(backend, problem, launch, self.early_exit)?,
            _ => KpModel::<T>::new(backend, problem, launch, self.early_exit)?,
        };
        Ok(Box::new(model.with_products(&self.info.output.products(), self.sites.clone())?))
    }
    /// Slabs along y of at least two rows (the reconstruction's two ghost rows), wrapping a
    /// periodic y axis; each slab keeps its share of the gauges, lines and maps and of the
    /// forcing. Refused in one line: the split schemes.
    fn decomposition(&self, ranks: usize) -> Result<Decomposition> {
        // With `--scheme auto` a scheme that runs on several ranks is chosen (`build_slab`).
        let why = if self.scheme_auto { None } else { super::slab::refuses_ranks(self.scheme) };
        if let Some(why) = why {
            return Err(crate::Error::invalid(why));
        }
        // `Problem::layout`'s.
        let layout = Layout2::new(self.grid.nx as u32, self.grid.ny as u32, 2);
        let periodic = self.boundary[2] == Boundary::Periodic;
        let slabs = Slabs::new(self.grid.ny, ranks, layout.halo as usize, periodic)?;
        let spec = self.info.output.products();
        let products = (!spec.is_empty()).then(|| (spec, self.sites.clone()));
        Ok(Decomposition { slabs, layout, row_axes: 1, products })
    }
    /// The slab's rows of the whole problem, its start and the whole grid's segments
    /// ([`SlabPart`]), in the run's precision, with `--scheme auto` of the scheme rank 0 chose:
    /// the other ranks read no field of the case.
    fn slab_part(&self, backend: &Backend, d: &Decomposition, rank: usize) -> Result<Vec<u8>> {
        let problem = self.problem_on(backend, true)?;
        let block = self.launch_on(backend, problem.scheme).block;
        let slab = d.slabs.slab(rank);
        // Passes over the whole grid, once for every slab (the scheme does not change them).
        let grid = self.whole_grid.get_or_init(|| problem.whole_grid());
        Ok(match self.info.run.precision {
            Precision::F32 => SlabPart::<f32>::of(problem, grid, block, &slab)?.encode(),
            Precision::F64 => SlabPart::<f64>::of(problem, grid, block, &slab)?.encode(),
            Precision::Mixed => SlabPart::mixed_of(problem, grid, block, &slab)?.encode(),
        })
    }
    fn build_slab<T: GpuReal>(&self, backend: &Backend, halo: Halo, part: Vec<u8>) -> Result<Box<dyn Model<T> + '_>> {
        let (nx, rows) = (self.grid.nx, halo.slab().rows.clone());
        let precision = self.info.run.precision;
        let compensated = self.accumulation.compensates_in(precision);
        let (ny, f) = (rows.len() as u64, self.friction_field);
        let needs =
            needs(nx as u64, ny, f, self.scheme, self.wet_dry, precision, compensated && !self.scheme.is_split());
        crate::files::check_host_memory(&format!("a {nx}×{} slab of a shallow-water grid", rows.len()), needs.host)?;
        let (spec, sites) = slab_spec(&self.info.output.products(), &self.sites, nx, rows);
        let model = match precision {
            Precision::Mixed => {
                let part = SlabPart::<f32>::decode(&part)?;
                let launch = self.launch_on(backend, part.problem.scheme);
                KpModel::<T>::mixed_of_part(backend, part, halo, launch, self.early_exit)?
            }
            _ => {
                let part = SlabPart::<T>::decode(&part)?;
                let launch = self.launch_on(backend, part.problem.scheme);
                KpModel::<T>::of_part(backend, part, halo, launch, self.early_exit)?
            }
        };
        Ok(Box::new(model.with_products(&spec, sites)?))
    }
    fn progress<T: Real>(&self, state: &State<T>) -> String {
        if let Some(a) = self.account(state) {
            let out = if a.boundary.is_empty() { String::new() } else { format!(", out {:.3e}", a.boundary_out()) };
            return format!(
                "volume {:.6e} m³ (in {:.3e}, infiltrated {:.3e}{out}, residual {:+.1e})",
                a.storage,
                a.rain + a.inflow + a.boundary_in(),
                a.infiltration,
                a.relative()
            );
        }
        let Some((v, change, how)) = self.volume_change(state) else { return String::new() };
        format!("volume {v:.6e} m³ (rel. change {change:+.1e}, {how})")
    }
    fn conservation<T: Real>(&self, state: &State<T>) -> Option<String> {
        if let Some(a) = self.account(state) {
            let how = self.volume_change(state)?.2;
            let segments = match a.boundary.is_empty() {
                true => "walls and periodic sides only: the residual is the error".to_string(),
                false => {
                    let each: Vec<String> =
                        a.boundary.iter().map(|b| format!("{} out {:.6e} in {:.6e}", b.name, b.out, b.into)).collect();
                    format!("boundary, m³: {}", each.join(", "))
                }
            };
            return Some(format!(
                "water account: storage change {:+.6e} m³ = rain {:.6e} + inflow {:.6e} − infiltration {:.6e} + boundary in {:.6e} − boundary out {:.6e} + residual {:+.3e} ({:+.1e} of the water in the account), {how} ({segments})",
                a.storage - a.start,
                a.rain,
                a.inflow,
                a.infiltration,
                a.boundary_in(),
                a.boundary_out(),
                a.residual(),
                a.relative()
            ));
        }
        let (_, change, how) = self.volume_change(state)?;
        // Walls and periodic sides close the domain: then the change is the error.
        let closed = self.boundary.iter().all(|b| !b.is_open());
        let what =
            if closed { "no outflow side: all of it is error" } else { "outflow sides: water that left counts too" };
        Some(format!("volume change {change:+.1e} of the initial volume, {how} ({what})"))
    }
    /// The water account of a forced run at `state`'s time: the boundary's volumes as the model
    /// measured them (`segments.rs`).
    fn account<T: Real>(&self, state: &State<T>) -> Option<Account> {
        let whole = self.whole.as_ref()?;
        let f = &whole.forcing;
        if f.is_empty() {
            return None;
        }
        let t = state.clock.t;
        // Rain falls on the active cells only.
        let cells = whole.active.as_ref().map_or(self.grid.nx * self.grid.ny, |a| a.iter().filter(|&&a| a).count());
        let area = cells as f64 * self.grid.dx * self.grid.dy;
        Some(Account {
            t,
            storage: self.grid.integrate(&state.field("h")?.data),
            start: self.v0,
            rain: f.rain_volume(area, t),
            inflow: f.inflow_volume(t),
            infiltration: state.field("infiltration").map_or(0.0, |i| self.grid.integrate(&i.data)),
            boundary: state.boundary.clone(),
        })
    }
    fn check<T: Real>(&self, state: &State<T>) -> Option<String> {
        let h = state.field("h")?;
        let k = crate::field::first_where(&h.data, |v| v.to_f64() < 0.0)?;
        let (row, col) = (k / self.grid.nx, k % self.grid.nx);
        Some(format!("negative depth h[{row}, {col}] = {} (NumPy row, column of h.npy)", h.data[k]))
    }
    fn halted<T: Real>(&self, halt: &Halt, state: &State<T>) -> String {
        let (Some(h), Some(hu), Some(hv), Some(p)) =
            (state.field("h"), state.field("hu"), state.field("hv"), &self.whole)
        else {
            return halt.to_string();
        };
        // The cell with the largest wave speed |u| + |v| + √(gh): what drives Δt down.
        let mut best = (0.0f64, 0usize);
        for k in 0..h.data.len() {
            let d = h.data[k].to_f64();
            if d > 0.0 {
                let s = (hu.data[k].to_f64().abs() + hv.data[k].to_f64().abs()) / d + (p.g * d).sqrt();
                if s > best.0 {
                    best = (s, k);
                }
            }
        }
        let (row, col) = (best.1 / self.grid.nx, best.1 % self.grid.nx);
        format!("{halt}; the fastest cell, h[{row}, {col}] (NumPy row, column), moves at {:.3e} m/s", best.0)
    }
    fn bed(&self) -> Option<&[f64]> {
        let whole = self.whole.as_ref()?;
        Some(&self.still.get_or_init(|| super::pictures::Still::of(whole)).bed)
    }
    fn active(&self) -> Option<&[bool]> {
        self.whole.as_ref()?.active.as_deref()
    }

    fn balance<T: Real>(&self, state: &State<T>) -> Option<(&'static str, f64)> {
        if let Some(a) = self.account(state) {
            return Some(("water account's residual, relative", a.relative()));
        }
        let (_, change, _) = self.volume_change(state)?;
        Some(("volume's change, relative", change))
    }

    fn view_layers(&self, sampled: &State<f64>, cells: &[usize]) -> Option<Vec<crate::view::Layer>> {
        let whole = self.whole.as_ref()?;
        let still = self.still.get_or_init(|| super::pictures::Still::of(whole));
        let (h, hu, hv) = (sampled.field("h")?, sampled.field("hu")?, sampled.field("hv")?);
        let bed: Vec<f64> = cells.iter().map(|&c| still.bed[c]).collect();
        let (mut dry, mut maps) = super::pictures::maps(&still.ranges, &bed, h.data.clone(), &hu.data, &hv.data);
        super::pictures::mark_outside(whole.active.as_deref(), cells.iter().copied(), &mut dry, &mut maps);
        Some(maps.into_iter().map(|layer| crate::view::Layer { dry: Some(dry.clone()), ..layer }).collect())
    }

    fn pictures<T: Real>(&self, state: &State<T>, album: &mut Album, dir: &mut RunDir) -> Result<()> {
        let whole = self.whole()?;
        let still = self.still.get_or_init(|| super::pictures::Still::of(whole));
        super::pictures::write(whole, still, &self.grid, self.times.t_end, state, album, dir)
    }
}

impl KpCase {
    /// The volume in `state`, its change relative to the initial volume (the volume itself when
    /// that is 0), and the precision and w update beside it: f32's is compared with f64's.
    fn volume_change<T: Real>(&self, state: &State<T>) -> Option<(f64, f64, String)> {
        let v = self.grid.integrate(&state.field("h")?.data);
        let change = if self.v0 > 0.0 { (v - self.v0) / self.v0 } else { v };
        // The precision and w update beside the change: f32's is compared with f64's.
        let how = match self.info.run.precision {
            Precision::Mixed => "mixed (w in f64)".to_string(),
            _ => format!("{} {}", T::NAME, self.whole.as_ref()?.accumulation_of::<T>()),
        };
        Some((v, change, how))
    }
}

impl Case for KpCase {
    fn info(&self) -> &CaseInfo {
        &self.info
    }
    fn summary(&self) -> String {
        self.describe()
    }
    /// The whole grid's, on rank 0; a rank other than 0 of a decomposed run checks its slab's
    /// where it builds it (`build_slab`).
    fn needs(&self, precision: Precision) -> Needs {
        let Some(p) = &self.whole else { return Needs { host: 0, gpu: 0 } };
        let scheme = if self.scheme_auto { Scheme::Srk2 } else { p.scheme };
        let (nx, ny) = (p.nx as u64, p.ny as u64);
        let n = needs(nx, ny, p.manning_field.is_some(), scheme, p.wet_dry, precision, p.compensates_in(precision));
        // The rain grid's frames, on the host and all of them on the device.
        let frames = p.forcing.rain_grid.as_ref().map_or(0, |g| g.bytes() as u64);
        Needs { host: n.host + frames, gpu: n.gpu + frames }
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
    flags::BOUNDARY,
    Flag::new(
        "manning",
        "N",
        Set::Float("physics.manning"),
        "Manning coefficient n in s/m^(1/3), the same in every cell (0: no friction; a raster of n: initial.raster.manning)",
    ),
    Flag::new("theta", "θ", Set::Float("physics.theta"), "generalized minmod θ in [1, 2]"),
    Flag::new("cfl", "C", Set::Float("time.cfl"), "Courant number, at most 0.25 (positivity)"),
    Flag::new(
        "scheme",
        "rk2|euler|srk2|ds1|ds2|auto",
        Set::Text("time.scheme"),
        "time integration: RK2 (default), Euler, RK2 with split flux kernels (srk2), dimensional splitting, first (ds1) or second order (ds2), or auto (the fastest of rk2, srk2 and, in f64, ds2 by `hydrokern tune` on this GPU)",
    ),
    Flag::new(
        "ds-safety",
        "R",
        Set::Float("numerics.ds_safety"),
        "ds1/ds2: Δt = R·min(Δt_x, Δt_y) of the last substeps, R in (0, 1] (0.95)",
    ),
    Flag::new(
        "wet-dry",
        "bollermann|kp07|clamp",
        Set::Text("numerics.wet_dry"),
        "wet–dry fronts: partially flooded cells well balanced, drained with the actual Δt, their velocities held to their neighbours', thin films' velocities to the range of their neighbours' waves (u ∓ 2c), thin cells' own velocity at their faces, slopes of velocity rather than momentum elsewhere (clamp, the default); the same reconstruction with an a-priori outflow cap (bollermann); or Kurganov–Petrova 2007's correction (kp07)",
    ),
    Accumulation::FLAG,
    Flag::new(
        "early-exit",
        "auto|on|off",
        Set::Text("gpu.early_exit"),
        "GPU early exit of dry blocks (auto: timed every 100 steps)",
    ),
    Flag::new(
        "flux",
        "KERNEL",
        Set::Text("gpu.flux"),
        "GPU flux kernel: stream (4 warps a block, 32 rows a warp, fewer rows on a small grid), stream:WxR (W warps a block, R rows a warp) or tile (a shared-memory tile of --block)",
    ),
    Flag::new(
        "block",
        "BXxBY",
        Set::Pair("gpu.block"),
        "GPU block in cells, a multiple of 32 threads (also the wet map's tile)",
    ),
    Flag::new(
        "line",
        "N",
        Set::Int("gpu.line"),
        "SRK2's x-line flux kernel: cells a block along a row, a multiple of 32 (DS1 and DS2 too; default: `hydrokern tune`'s choice for this GPU, else 128)",
    ),
];
