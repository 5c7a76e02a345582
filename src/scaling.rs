//! `bench scaling`: runs decomposed over ranks, the ranks threads of this process (no MPI
//! needed), rank r on GPU r mod the GPUs it is given, their ghost rows and Δt through the host
//! or, where the ranks can set it up, GPU to GPU through NCCL (`ranks::nccl`). A step's time on
//! rank 0, through the host split into the ghost-row exchanges and the reduction of Δt over the
//! ranks (`ranks::spent`; the rest is the slab's own cells): weak scaling (a slab of n² a rank, one GPU a rank), strong scaling (one
//! grid over 1, 2, 4, 8 GPUs) and the decomposition's own cost (2 and 4 ranks sharing one GPU
//! against one rank on it). The one-rank rows run the undivided model as a run on one GPU does.
//! Shallow water (RK2, `bollermann`; and the default `clamp`, whose stages exchange more, on a
//! slab that is its own neighbour), sediment (the bounded scheme) and wave propagation (shallow
//! water, Roe), f32 and f64.

use crate::bench::{BenchOptions, Part, Report, Suite};
use crate::kp::EarlyExit;
use crate::model::{Model, Until};
use crate::ranks::threads::lead_on_threads;
use crate::ranks::{Comm, DeviceLink, Halo, Slabs, spent};
use crate::runtime::{Backend, Gpu};
use crate::{Error, GpuReal, Precision, Result};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub const SUITE: Suite = Suite {
    name: "scaling",
    about: "runs decomposed over ranks (threads, one GPU a rank): shallow-water RK2, sediment and wave-propagation (Roe) steps, f32 and f64, weak (n² a rank, default 4096), strong (8192²) and ranks sharing one GPU; a step split into exchange, Δt reduction and the rest; the flood early exit off and on; --only largest: the flood on the largest grid the GPUs hold",
    parts: &PARTS,
    run,
};

/// The parts `--only` names: each solver's weak, strong and shared rows, the 4096² flood, and
/// the flood on the largest grid the GPUs hold (minutes of set-up: only when named).
const PARTS: [Part; 5] = [
    Part { name: "kp", default: true },
    Part { name: "sediment", default: true },
    Part { name: "claw", default: true },
    Part { name: "flood", default: true },
    Part { name: "largest", default: false },
];

/// Steps a timed batch takes, and the batches timed (the median is reported) after a
/// warm-up of `WARMUP` steps.
const STEPS: u64 = 20;
const BATCHES: usize = 7;
const WARMUP: u64 = 10;

/// Words a cell moves in a step at least (the shallow-water step's 17; sediment's fused step
/// reads h, s, α, β and writes h, s: 6), for the GB/s a GPU.
const KP_WORDS: f64 = 17.0;
const SEDIMENT_WORDS: f64 = 6.0;
/// Wave propagation's step: an x- and a y-sweep, each reading and writing the 3 state fields.
const CLAW_WORDS: f64 = 12.0;
const CLAW: crate::claw::equations::Equations = crate::claw::equations::Equations::ShallowRoe;

/// Rank 0's figures of a configuration, per step: its time, and what of it went to
/// exchanging ghost rows and reducing Δt.
#[derive(Clone, Copy)]
struct Timed {
    step_ms: f64,
    exchange_ms: f64,
    reduce_ms: f64,
}

/// The solvers timed: how to build the whole grid's model and a slab's.
#[derive(Clone, Copy, PartialEq)]
enum Solver {
    Kp,
    /// The shallow water in its default wet–dry scheme, whose stages exchange two more fields'
    /// rows than `bollermann`'s (the draining factors and the state before the velocity clamp):
    /// its own-neighbour rows only.
    KpClamp,
    Sediment,
    Claw,
}

impl Solver {
    fn name(self) -> &'static str {
        match self {
            Solver::Kp => "kp rk2 step (bollermann)",
            Solver::KpClamp => "kp rk2 step (clamp)",
            Solver::Sediment => "sediment step (bounded)",
            Solver::Claw => "claw shallow-water step (roe)",
        }
    }
    fn words(self) -> f64 {
        match self {
            Solver::Kp | Solver::KpClamp => KP_WORDS,
            Solver::Sediment => SEDIMENT_WORDS,
            Solver::Claw => CLAW_WORDS,
        }
    }
}

/// The problems of a solver on an `nx × ny` grid: every cell wet (shallow water: a column of
/// 2.5 m in 0.5 m; wave propagation: the tuner's hump, `claw::tune::problem`), so that every
/// cell costs a full step.
enum Problems {
    Kp(Box<crate::kp::Problem>),
    Sediment(Box<crate::sediment::Problem>),
    Claw(Box<crate::claw::equations::Data>),
}

impl Problems {
    fn new(solver: Solver, nx: usize, ny: usize) -> Result<Problems> {
        Ok(match solver {
            Solver::Kp | Solver::KpClamp => {
                let mut p = crate::kp::setup::column(nx, ny, nx as f64, ny as f64, nx.min(ny) as f64 / 4.0, 2.5, 0.5);
                p.wet_dry = if solver == Solver::Kp { crate::kp::WetDry::Bollermann } else { crate::kp::WetDry::Clamp };
                Problems::Kp(Box::new(p))
            }
            Solver::Sediment => Problems::Sediment(Box::new(crate::sediment::setup::basin(nx, ny, 1.0)?)),
            Solver::Claw => {
                let setup = crate::claw::d3::cpu::Setup3 { ny, ..crate::claw::d3::cpu::Setup3::walled(nx, 1) };
                Problems::Claw(Box::new(crate::claw::tune::problem_on(&CLAW.info(), setup)))
            }
        })
    }

    fn ny(&self) -> usize {
        match self {
            Problems::Kp(p) => p.ny,
            Problems::Sediment(p) => p.ny,
            Problems::Claw(d) => d.setup.ny,
        }
    }

    fn layout(&self) -> crate::grid::Layout2 {
        match self {
            Problems::Kp(p) => p.layout(),
            Problems::Sediment(p) => p.layout(),
            Problems::Claw(d) => {
                crate::grid::Layout2::new(d.setup.nx as u32, d.setup.ny as u32, crate::claw::cpu::HALO)
            }
        }
    }

    /// The undivided model on `backend`, as a run on one GPU steps it (shallow water with early
    /// exit as `early` says).
    fn whole<T: GpuReal>(&self, backend: &Backend, early: EarlyExit) -> Result<Box<dyn Model<T> + '_>> {
        Ok(match self {
            Problems::Kp(p) => {
                let launch = crate::kp::gpu::Launch::default_for(p.nx, p.ny);
                Box::new(crate::kp::KpModel::<T>::new(backend, p, launch, early)?)
            }
            Problems::Sediment(p) => Box::new(crate::sediment::SedimentModel::<T>::new(
                backend,
                p,
                sediment_policy(),
                crate::sediment::StepVariant::Fused,
                crate::sediment::gpu::Launch::default(),
            )?),
            Problems::Claw(d) => CLAW.model::<T>(d, backend, &Default::default(), &[])?,
        })
    }

    /// The model of `halo`'s slab on `backend` (shallow water with early exit as `early` says).
    fn slab<T: GpuReal>(&self, backend: &Backend, halo: Halo, early: EarlyExit) -> Result<Box<dyn Model<T> + '_>> {
        Ok(match self {
            Problems::Kp(p) => {
                // The whole grid's launch, as a decomposed run takes it.
                let launch = crate::kp::gpu::Launch::default_for(p.nx, p.ny);
                Box::new(crate::kp::KpModel::<T>::slab(backend, p, halo, launch, early)?)
            }
            Problems::Sediment(p) => {
                let kernels = (crate::sediment::StepVariant::Fused, crate::sediment::gpu::Launch::default());
                Box::new(crate::sediment::SedimentModel::<T>::slab(
                    backend,
                    p,
                    halo,
                    sediment_policy(),
                    false,
                    kernels,
                )?)
            }
            Problems::Claw(d) => {
                let part = CLAW.slab_part(d, halo.slab().rows.clone(), CLAW.first_dt::<T>(d)?)?;
                CLAW.slab_model::<T>((&d.setup, &d.constants, &part), backend, &Default::default(), &[], halo)?
            }
        })
    }

    fn ghosts(&self) -> usize {
        self.layout().halo as usize
    }
}

/// Sediment's step recomputed from the state every 100 steps, as its cases do by default.
fn sediment_policy() -> crate::sediment::StepPolicy {
    crate::sediment::StepPolicy { forced: None, update_every: 100 }
}

/// Time `model` on rank 0 (its GPU `gpu`, waited for after each batch: a model may return
/// with steps still queued): warm-up steps, then batches of steps, each split by `spent`.
fn time_steps<T>(model: &mut dyn Model<T>, gpu: &Gpu) -> Result<Timed> {
    let mut steps = model.clock().steps;
    let mut advance = |m: &mut dyn Model<T>, n: u64| {
        steps += n;
        m.advance(Until { t: f64::INFINITY, steps, deadline: None })?;
        gpu.synchronize()
    };
    advance(model, WARMUP)?;
    let mut batches = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        spent::take();
        let t = Instant::now();
        advance(model, STEPS)?;
        let ms = t.elapsed().as_secs_f64() * 1e3 / STEPS as f64;
        let s = spent::take();
        batches.push(Timed {
            step_ms: ms,
            exchange_ms: s.exchange * 1e3 / STEPS as f64,
            reduce_ms: s.reduce * 1e3 / STEPS as f64,
        });
    }
    batches.sort_by(|a, b| a.step_ms.total_cmp(&b.step_ms));
    Ok(batches[BATCHES / 2])
}

/// How the ranks' ghost rows and Δt travel: GPU to GPU through NCCL where the ranks can set
/// up the link (`DeviceLink::establish`), beside the computation where the solver can (the
/// shallow water's and sediment's inner bands, `Halo::overlaps`) or always before it
/// (`NcclInOrder`), or through the host.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Route {
    Nccl,
    NcclInOrder,
    Host,
}

impl Route {
    fn nccl(self) -> bool {
        self != Route::Host
    }
}

/// `problems` on `ranks` ranks (threads), rank r on GPU r mod `gpus`, exchanging by `route`;
/// one rank runs the undivided model. `None` where the route is NCCL and the ranks cannot
/// set it up.
fn timed<T: GpuReal>(problems: &Problems, ranks: usize, gpus: usize, route: Route) -> Result<Option<Timed>> {
    on_ranks::<T, _>(problems, ranks, gpus, (route, EarlyExit::Off), |m, zero| time_steps(m, zero))
}

/// `time` of rank 0's model of `problems` on `ranks` ranks (threads), rank r on GPU r mod
/// `gpus`, exchanging by the route and with the early exit of `how`; one rank runs the
/// undivided model. `None` where the route is NCCL and the ranks cannot set it up.
fn on_ranks<T: GpuReal, R>(
    problems: &Problems,
    ranks: usize,
    gpus: usize,
    (route, early): (Route, EarlyExit),
    time: impl FnOnce(&mut dyn Model<T>, &Gpu) -> Result<R>,
) -> Result<Option<R>> {
    let zero = Arc::new(Gpu::new(0)?);
    let backend = |rank: usize| match rank % gpus {
        0 => Ok(Backend::Gpu(zero.clone())),
        g => Gpu::new(g).map(|g| Backend::Gpu(Arc::new(g))),
    };
    if ranks == 1 {
        return time(problems.whole::<T>(&backend(0)?, early)?.as_mut(), &zero).map(Some);
    }
    let slabs = Slabs::new(problems.ny(), ranks, problems.ghosts(), false)?;
    let layout = problems.layout();
    let linked = AtomicBool::new(false);
    let slab = |comm: Rc<dyn Comm>| {
        let s = slabs.slab(comm.rank());
        let l = crate::grid::Layout2::new(layout.nx, s.rows.len() as u32, layout.halo);
        let on = backend(comm.rank())?;
        problems.slab::<T>(&on, halo_by(route, comm, s, l, &on, &linked)?, early)
    };
    let t = lead_on_threads(slabs, (layout, 1), None, slab, |m| time(m, &zero))??;
    Ok((route == Route::Host || linked.load(Ordering::Relaxed)).then_some(t))
}

/// The halo of `slab` (padded `layout`) on `on` exchanging by `route`: its ranks linked through
/// NCCL where the route asks and they can set it up (said in `linked`), in order where it says.
fn halo_by(
    route: Route,
    comm: Rc<dyn Comm>,
    slab: crate::ranks::Slab,
    layout: crate::grid::Layout2,
    on: &Backend,
    linked: &AtomicBool,
) -> Result<Halo> {
    let link = if route.nccl() { DeviceLink::establish(comm.as_ref(), on)?.map(Rc::new) } else { None };
    linked.store(link.is_some(), Ordering::Relaxed);
    let halo = Halo::new(comm, slab, layout).linked(link);
    Ok(if route == Route::NcclInOrder { halo.in_order() } else { halo })
}

/// One row: `what` (weak, strong, shared) of `ranks` ranks on `gpus` GPUs over an `nx × ny`
/// grid, against the one-rank time `one` of the same slab (weak) or grid (strong, shared).
#[allow(clippy::too_many_arguments)]
fn row<T: GpuReal>(
    report: &mut Report,
    solver: Solver,
    what: &str,
    (nx, ny): (usize, usize),
    (ranks, gpus, route): (usize, usize, Route),
    t: Timed,
    one: Option<f64>,
) {
    let cells = (nx * ny) as f64 / ranks as f64;
    let bytes = cells * solver.words() * std::mem::size_of::<T>() as f64;
    let efficiency = match (what, one) {
        ("weak", Some(one)) => format!("; efficiency {:.0}% of one rank", 100.0 * one / t.step_ms),
        (_, Some(one)) => format!("; speed-up {:.2}× one rank", one / t.step_ms),
        _ => String::new(),
    };
    let gpus_used = ranks.min(gpus);
    let note = match route {
        Route::Host => {
            format!("exchange {:.3} ms, Δt reduction {:.3} ms a step (rank 0){efficiency}", t.exchange_ms, t.reduce_ms)
        }
        // Queued on the stream: the host's time is only the queueing.
        Route::Nccl | Route::NcclInOrder => format!("exchange and Δt queued on the stream{efficiency}"),
    };
    let by = match (ranks, route) {
        (1, _) => "",
        (_, Route::Host) => ", through the host",
        (_, Route::Nccl) => ", through NCCL beside the inner bands",
        (_, Route::NcclInOrder) => ", through NCCL before the kernel",
    };
    let variant = format!("{what}: {ranks} rank{} on {gpus_used} GPU{}{by}", plural(ranks), plural(gpus_used));
    let precision = Precision::of::<T>().to_string();
    report.push(solver.name(), &variant, &format!("{nx}×{ny}"), &precision, t.step_ms, bytes, None, note);
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Weak, strong and shared rows of one solver in precision `T`: weak and strong through the
/// host and, where the ranks can set it up, through NCCL.
fn solver_rows<T: GpuReal>(report: &mut Report, solver: Solver, n: usize, strong: usize, gpus: usize) -> Result<()> {
    let counts: Vec<usize> = [2, 4, 8].into_iter().filter(|&r| r <= gpus).collect();
    let one_rank =
        |p: &Problems| timed::<T>(p, 1, gpus, Route::Host)?.ok_or_else(|| Error::invalid("scaling: no host route"));
    // The undivided model once, each route's rows set against it.
    let weak_one = one_rank(&Problems::new(solver, n, n)?)?;
    row::<T>(report, solver, "weak", (n, n), (1, gpus, Route::Host), weak_one, Some(weak_one.step_ms));
    let strong_problem = Problems::new(solver, strong, strong)?;
    let strong_one = one_rank(&strong_problem)?;
    row::<T>(report, solver, "strong", (strong, strong), (1, gpus, Route::Host), strong_one, Some(strong_one.step_ms));
    report.progress(format_args!("{} one rank", solver.name()));
    // The exchange beside the computation against the same exchange before it, where the
    // solver has the choice.
    for route in [Route::Host, Route::Nccl, Route::NcclInOrder] {
        // Weak: n² a rank, a GPU a rank.
        for &r in &counts {
            let p = Problems::new(solver, n, n * r)?;
            let Some(t) = timed::<T>(&p, r, gpus, route)? else { continue };
            row::<T>(report, solver, "weak", (n, n * r), (r, gpus, route), t, Some(weak_one.step_ms));
            report.progress(format_args!("{} weak {r}", solver.name()));
        }
        // Strong: one grid over the GPUs.
        for &r in &counts {
            let Some(t) = timed::<T>(&strong_problem, r, gpus, route)? else { continue };
            row::<T>(report, solver, "strong", (strong, strong), (r, gpus, route), t, Some(strong_one.step_ms));
            report.progress(format_args!("{} strong {r}", solver.name()));
        }
    }
    // Shared: ranks on one GPU (NCCL refuses two ranks on one device), against one rank there.
    let p = Problems::new(solver, n, n)?;
    for r in [2, 4] {
        let t = timed::<T>(&p, r, 1, Route::Host)?.ok_or_else(|| Error::invalid("scaling: no host route"))?;
        row::<T>(report, solver, "shared", (n, n), (r, 1, Route::Host), t, Some(weak_one.step_ms));
    }
    Ok(())
}

/// The exchange beside the computation on one GPU: the step of one rank whose slab is its own
/// neighbour across the y axis (shallow water and wave propagation: periodic along y;
/// sediment: its own top and bottom rows as its ghost rows), passing its ghost rows to itself through NCCL beside its
/// inner bands and before the kernel that reads them, against the undivided model of the same
/// grid (no rows where NCCL cannot be set up).
fn own_neighbour_rows<T: GpuReal>(report: &mut Report, solver: Solver, n: usize) -> Result<()> {
    let p = match Problems::new(solver, n, n)? {
        Problems::Kp(mut p) => {
            p.boundary[2] = crate::kp::Boundary::Periodic;
            p.boundary[3] = crate::kp::Boundary::Periodic;
            Problems::Kp(p)
        }
        Problems::Claw(mut d) => {
            d.setup.bc[2] = kernels::halo::PERIODIC;
            d.setup.bc[3] = kernels::halo::PERIODIC;
            Problems::Claw(d)
        }
        p => p,
    };
    let one = timed::<T>(&p, 1, 1, Route::Host)?.ok_or_else(|| Error::invalid("scaling: no host route"))?;
    let zero = Arc::new(Gpu::new(0)?);
    let layout = p.layout();
    for route in [Route::Nccl, Route::NcclInOrder] {
        let linked = AtomicBool::new(false);
        let slab = |comm: Rc<dyn Comm>| {
            let on = Backend::Gpu(zero.clone());
            let own = crate::ranks::Slab { rank: 0, rows: 0..n, below: Some(0), above: Some(0) };
            p.slab::<T>(&on, halo_by(route, comm, own, layout, &on, &linked)?, EarlyExit::Off)
        };
        let slabs = Slabs::new(n, 1, p.ghosts(), true)?;
        let t = lead_on_threads(slabs, (layout, 1), None, slab, |m| time_steps(m, &zero))??;
        if !linked.load(Ordering::Relaxed) {
            return Ok(());
        }
        let by = if route == Route::Nccl { "beside the inner bands" } else { "before the kernel" };
        let variant = format!("own neighbour: 1 rank on 1 GPU, its ghost rows to itself through NCCL {by}");
        let note =
            format!("{:.3} ms a step more than the undivided grid's {:.3} ms", t.step_ms - one.step_ms, one.step_ms);
        let bytes = (n * n) as f64 * solver.words() * std::mem::size_of::<T>() as f64;
        report.push(
            solver.name(),
            &variant,
            &format!("{n}×{n}"),
            &Precision::of::<T>().to_string(),
            t.step_ms,
            bytes,
            None,
            note,
        );
    }
    report.progress(format_args!("{} own neighbour", solver.name()));
    Ok(())
}

/// The flooding dam break of `bench kp` (4096², to t = 1 s, the front over 22% of the grid)
/// with early exit off and on, on one rank and on as many ranks as GPUs (up to 2), through
/// NCCL where the ranks can set it up: early exit on slabs skips their dry blocks as one rank
/// does.
fn flood_rows<T: GpuReal>(report: &mut Report, gpus: usize) -> Result<()> {
    const N: usize = 4096;
    const T_END: f64 = 1.0;
    let p = Problems::Kp(Box::new(crate::kp::setup::flood(N, N)));
    let run = |m: &mut dyn Model<T>, gpu: &Gpu| -> Result<(f64, u64)> {
        gpu.synchronize()?;
        let t = Instant::now();
        let c = m.advance(Until { t: T_END, steps: u64::MAX, deadline: None })?;
        gpu.synchronize()?;
        Ok((t.elapsed().as_secs_f64() * 1e3, c.steps))
    };
    let counts: &[usize] = if gpus > 1 { &[1, 2] } else { &[1] };
    let mut off_one = None;
    for &r in counts {
        let mut off = None;
        for early in [EarlyExit::Off, EarlyExit::On] {
            // Through NCCL where the ranks can set it up, else through the host.
            let (by, (ms, steps)) = match on_ranks::<T, _>(&p, r, gpus, (Route::Nccl, early), run)? {
                Some(t) if r > 1 => (", through NCCL", t),
                Some(t) => ("", t),
                None => (
                    ", through the host",
                    on_ranks::<T, _>(&p, r, gpus, (Route::Host, early), run)?
                        .ok_or_else(|| Error::invalid("scaling: no host route"))?,
                ),
            };
            off = off.or(Some(ms));
            off_one = off_one.or(Some(ms));
            let mode = if early == EarlyExit::On { "on" } else { "off" };
            let note = format!(
                "{steps} steps to t = {T_END} s; {:.2}× early exit off on these ranks, {:.2}× one rank with it off",
                off.unwrap_or(ms) / ms,
                off_one.unwrap_or(ms) / ms
            );
            let variant =
                format!("flood to t = 1 s, early exit {mode}: {r} rank{} on {r} GPU{}{by}", plural(r), plural(r));
            let precision = Precision::of::<T>().to_string();
            let bytes = (N * N / r) as f64 * KP_WORDS * std::mem::size_of::<T>() as f64 * steps as f64;
            report.push("kp flood run (clamp)", &variant, &format!("{N}×{N}"), &precision, ms, bytes, None, note);
            report.progress(format_args!("flood {r} ranks, early exit {mode}"));
        }
    }
    Ok(())
}

/// The flood of `bench kp` (`clamp`, RK2, f32, early exit off, so every cell is computed) on
/// the largest square grid the GPUs hold, one slab a GPU (through NCCL where the ranks set it
/// up), or on `--sizes n`: its cells, the GPU memory a cell takes (measured: what a 2048²
/// model takes of the free memory) and the cells updated a second.
fn largest_rows(report: &mut Report, opts: &BenchOptions, gpus: usize) -> Result<()> {
    const PROBE: usize = 2048;
    /// The share of the smallest GPU's free memory the grid may take.
    const SHARE: f64 = 0.9;
    let zero = Arc::new(Gpu::new(0)?);
    let free = zero.memory_settled()?;
    let per_cell = {
        let p = crate::kp::setup::flood(PROBE, PROBE);
        let backend = Backend::Gpu(zero.clone());
        let model = crate::kp::KpModel::<f32>::new(&backend, &p, crate::kp::gpu::Launch::default(), EarlyExit::Off)?;
        let left = zero.memory_settled()?;
        drop(model);
        free.saturating_sub(left) as f64 / (PROBE * PROBE) as f64
    };
    let mut smallest = zero.memory_settled()?;
    for g in 1..gpus {
        smallest = smallest.min(Gpu::new(g)?.memory_settled()?);
    }
    let fits = ((SHARE * smallest as f64 * gpus as f64 / per_cell).sqrt() as usize) / 1024 * 1024;
    let n = opts.sizes.first().copied().unwrap_or(fits);
    let cells = (n * n) as u64;
    // On the host: the whole grid's problem (h, hu, hv and the corner bed in f64), each rank's
    // whole padded start in f32 (w, hu, hv, the corner and cell beds: 20 B a cell), which it
    // cuts its slab's from, and the slabs' problems and starts (`KpModel::slab`).
    let host = crate::bench::bytes("the largest flood", &[cells, 32 + 20 * gpus as u64 + 32 + 20])?;
    let slab_bytes = (per_cell * cells as f64 / gpus as f64) as u64;
    if !crate::bench::fits(&zero, opts, &format!("the flood on {n}×{n}"), host, slab_bytes)? {
        return Ok(());
    }
    report.note(&format!(
        "largest flood: {per_cell:.1} B of GPU memory a cell (f32, clamp); {fits}² fill {:.0}% of the {gpus} GPUs' smallest free memory",
        100.0 * SHARE
    ));
    report.progress(format_args!("largest flood: {n}² on {gpus} GPU{}, building", plural(gpus)));
    let p = Problems::Kp(Box::new(crate::kp::setup::flood(n, n)));
    let (t, by) = match timed::<f32>(&p, gpus, gpus, Route::Nccl)? {
        Some(t) => (t, if gpus > 1 { ", through NCCL" } else { "" }),
        None => (
            timed::<f32>(&p, gpus, gpus, Route::Host)?.ok_or_else(|| Error::invalid("scaling: no host route"))?,
            ", through the host",
        ),
    };
    let rate = cells as f64 / (t.step_ms * 1e-3) / 1e9;
    let note = format!(
        "{:.2}·10⁹ cells, {per_cell:.1} B of GPU memory a cell ({:.0} GiB a GPU); {rate:.1}·10⁹ cell updates a second (RK2 steps)",
        cells as f64 / 1e9,
        slab_bytes as f64 / (1u64 << 30) as f64
    );
    let variant =
        format!("largest grid, early exit off: {gpus} rank{} on {gpus} GPU{}{by}", plural(gpus), plural(gpus));
    let bytes = cells as f64 / gpus as f64 * KP_WORDS * 4.0;
    report.push("kp flood step (clamp)", &variant, &format!("{n}×{n}"), "f32", t.step_ms, bytes, None, note);
    Ok(())
}

fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let gpus = Gpu::count().max(1);
    let n = opts.sizes.first().copied().unwrap_or(4096);
    let strong = opts.sizes.get(1).copied().unwrap_or(2 * n);
    report.note(&format!(
        "{gpus} GPU{} ({}); ranks are threads of one process, their ghost rows and Δt through the host (staged copies) or GPU to GPU through NCCL",
        plural(gpus),
        gpu.info().name
    ));
    let [kp, sediment, claw, flood, largest] = PARTS.map(|p| opts.runs_part(&p));
    for (solver, on) in [(Solver::Kp, kp), (Solver::Sediment, sediment), (Solver::Claw, claw)] {
        if on {
            solver_rows::<f32>(report, solver, n, strong, gpus)?;
            solver_rows::<f64>(report, solver, n, strong, gpus)?;
        }
        if on {
            own_neighbour_rows::<f32>(report, solver, n)?;
            own_neighbour_rows::<f64>(report, solver, n)?;
        }
    }
    if kp {
        own_neighbour_rows::<f32>(report, Solver::KpClamp, n)?;
        own_neighbour_rows::<f64>(report, Solver::KpClamp, n)?;
    }
    if flood && opts.runs {
        flood_rows::<f32>(report, gpus)?;
    }
    if largest {
        largest_rows(report, opts, gpus)?;
    }
    Ok(())
}
