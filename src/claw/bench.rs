//! `bench claw`: the core kernels (one x-sweep, one y-sweep, and the two in a row as the sweeps
//! of a Godunov step) and whole Godunov steps (ghost fills, sweeps, the rates' reduction and
//! the control kernel) for shallow water (Roe, HLLE), 2D acoustics and advection at 1000²,
//! 2048², 4096² and 8192² (sizes: edges), f32 and f64, with the CPU reference's step (all
//! threads) at 1000². GB/s count the fewest words a sweep moves: the M state planes read once
//! and written once and the A auxiliary planes read once, per cell (ghost cells and the
//! per-block rates left out); a step counts two sweeps' worth. GFLOP/s count the operations
//! of the point functions a sweep runs for a cell (one interface solved and corrected, one
//! update; `flops.rs`), counted on the CPU over the bench's own random states: +, −, ×, ÷ and √
//! one flop each, a fused multiply–add two, negation, |x|, min, max and comparisons none; a
//! step and the CPU reference count their two sweeps'.

use super::cpu::{Claw2, Clock, HALO, Setup};
use super::flops::{Counted, count_sweeps, flop_note, flops};
use super::gpu::{GpuClaw2, GpuSweeps, planes};
use super::stepper::GRAPH_STEPS;
use super::{Acoustics2d, Advection, Cfl, Limiter, ShallowHlle, ShallowRoe, Splitting};
use crate::bench::{BenchOptions, Report, time_cpu, time_gpu, time_steps_in_graph};
use crate::runtime::Gpu;
use crate::{GpuReal, Real, Result, Rng};
use kernels::claw::{Kernels, Riemann};
use kernels::grid::Layout2;
use kernels::halo::WALL;

/// `hydrokern bench claw`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "claw",
    about: "wave-propagation sweeps (x, y, both) for shallow water (Roe, HLLE), 2D acoustics and advection, f32 and f64, 1000² to 8192² (sizes: edges); 3D acoustics (x, y, z, all three) at 96³, 256³, 512³ (sizes up to 512: also 3D edges); GFLOP/s by the point functions' operation count (+ − × ÷ √ one flop, fma two, min/max/abs/neg none; docs/claw.md)",
    parts: &[],
    run,
};

const DEFAULT_EDGES: [usize; 4] = [1000, 2048, 4096, 8192];
/// The CPU peer is timed up to this edge.
const CPU_MAX_EDGE: usize = 1000;

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let edges = if opts.sizes.is_empty() { DEFAULT_EDGES.to_vec() } else { opts.sizes.clone() };
    for n in edges {
        precision::<f32>(gpu, opts, report, n)?;
        precision::<f64>(gpu, opts, report, n)?;
    }
    super::d3::bench::run(gpu, opts, report)
}

fn precision<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize) -> Result<()> {
    let (g, g_counted) = (T::from_f64(9.81), Counted(9.81));
    let u = |rng: &mut Rng, lo: f64, hi: f64| T::from_f64(lo + (hi - lo) * rng.unit());
    let shallow = |rng: &mut Rng| {
        let h = u(rng, 0.9, 1.1);
        ([h, h * u(rng, -0.5, 0.5), h * u(rng, -0.5, 0.5)], [])
    };
    // Each solver twice: in T for the kernels, over `Counted` for the operation count.
    let roe = (ShallowRoe { g }, ShallowRoe { g: g_counted });
    solver(gpu, opts, report, n, roe, "shallow-roe", shallow)?;
    let hlle = (ShallowHlle { g, dry: T::from_f64(1e-6) }, ShallowHlle { g: g_counted, dry: Counted(1e-6) });
    solver(gpu, opts, report, n, hlle, "shallow-hlle", shallow)?;
    solver(gpu, opts, report, n, (Acoustics2d, Acoustics2d), "acoustics-2d", |rng| {
        ([u(rng, -1.0, 1.0), u(rng, -1.0, 1.0), u(rng, -1.0, 1.0)], [u(rng, 0.9, 1.1), u(rng, 3.6, 4.4)])
    })?;
    let adv = Advection { velocity: [T::ONE, T::HALF, T::ZERO] };
    let adv_counted = Advection { velocity: [Counted::ONE, Counted::HALF, Counted::ZERO] };
    solver(gpu, opts, report, n, (adv, adv_counted), "advection", |rng| ([u(rng, -1.0, 1.0)], []))
}

/// The rows of one solver at n² cells: x-sweep, y-sweep, both, and the CPU reference's step;
/// the solver comes twice, in T for the kernels and over `Counted` for the operation count.
#[allow(clippy::too_many_arguments)]
fn solver<
    T: GpuReal,
    R: Kernels<T, M, W, A>,
    C: Riemann<Counted, M, W, A>,
    const M: usize,
    const W: usize,
    const A: usize,
>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    n: usize,
    (solver, counting): (R, C),
    name: &str,
    cell: impl Fn(&mut Rng) -> ([T; M], [T; A]),
) -> Result<()> {
    let layout = Layout2::new(n as u32, n as u32, HALO);
    let len = layout.len();
    let word = std::mem::size_of::<T>() as u64;
    let what = format!("bench claw {name} at {n}² in {}", T::NAME);
    // Three state buffers (in, between the sweeps, out) and the aux planes on the GPU; the
    // padded planes on the host.
    let plane_count = (3 * M + A) as u64;
    if !crate::bench::fits(
        gpu,
        opts,
        &what,
        (M + A) as u64 * len as u64 * word,
        crate::bench::bytes(&what, &[plane_count, len as u64, word])?,
    )? {
        return Ok(());
    }
    let mut rng = Rng::new(n as u64);
    let cells: Vec<([T; M], [T; A])> = (0..len).map(|_| cell(&mut rng)).collect();
    let q_host = planes(&cells.iter().map(|c| c.0).collect::<Vec<_>>());
    let aux_host = planes(&cells.iter().map(|c| c.1).collect::<Vec<_>>());
    let mut states = q_host.clone();
    states.resize(3 * q_host.len(), T::ZERO);
    let (mut states, aux) = (gpu.upload(&states)?, gpu.upload(&aux_host)?);
    let h = 1.0 / n as f64;
    let setup = Setup {
        nx: n,
        ny: n,
        dx: h,
        dy: h,
        bc: [WALL; 4],
        limiter: Limiter::Mc,
        splitting: Splitting::Godunov,
        cfl: Cfl::default(),
    };
    let mut k = GpuSweeps::<T, R, M, W, A>::new(gpu, setup)?;
    // Speeds are at most about 4 m/s (shallow water) or 2 m/s (acoustics): CFL ≤ 0.5.
    let dt = 0.1 * h;
    let label = format!("{n}²");
    let moved = ((2 * M + A) * n * n) as f64 * word as f64;
    let note = format!("MC limiter; moves {} words/cell", 2 * M + A);
    let ops = count_sweeps(&counting, setup.limiter, dt / h, cells.iter().copied(), &[0, 1]);
    let cell_bytes = ((2 * M + A) as u64 * word) as f64;
    // Each sweep alone reads buffer 0 and writes 1 (`sweep` sets the order).
    for (dir, kernel) in [(0, "claw x-sweep"), (1, "claw y-sweep")] {
        let cfl = dt * k.sweep(gpu, solver, dir, &mut states, &aux, dt)?;
        let m =
            time_gpu(gpu, opts.warmup, opts.reps, |_| k.enqueue(solver, Splitting::Godunov, dir, &mut states, &aux))?;
        let one = &ops[dir..=dir];
        let text = format!("{note}; {}; CFL {cfl:.2}", flop_note(one, cell_bytes));
        report.push(kernel, name, &label, T::NAME, m.median_ms, moved, flops(one, n * n), text);
        report.counted(&m.launches, (n * n) as f64);
    }
    let note = format!("{note}; {}", flop_note(&ops, cell_bytes));
    // x: buffer 0 into 1, y: 1 into 2.
    k.set_order(gpu, kernels::claw::clock::FIRST_ORDER)?;
    let m = time_gpu(gpu, opts.warmup, opts.reps, |_| {
        k.enqueue(solver, Splitting::Godunov, 0, &mut states, &aux)?;
        k.enqueue(solver, Splitting::Godunov, 1, &mut states, &aux)
    })?;
    report.push("claw x+y sweeps", name, &label, T::NAME, m.median_ms, 2.0 * moved, flops(&ops, n * n), note.clone());
    report.counted(&m.launches, (n * n) as f64);
    drop(states);
    // Whole steps from the same state, the device taking every decision (CFL 0.9 after the
    // first); the run must neither halt nor reject, or the rows would time idle launches. A
    // timed call queues GRAPH_STEPS steps as a run queues its batches, as one graph, and (the
    // second row) the same steps one launch at a time.
    let mut run = GpuClaw2::from_planes(gpu, solver, setup, q_host, &aux_host, Clock::start(0.0, dt))?;
    run.set_stop(f64::MAX)?;
    let steps = GRAPH_STEPS as usize;
    let both = time_steps_in_graph(gpu, opts.warmup, opts.reps, steps, || run.queue_step())?;
    let c = run.read_clock(gpu)?;
    if let Some(halt) = c.halt() {
        return Err(crate::Error::invalid(format!("{what}: the timed steps halted: {halt}")));
    }
    for (m, (kernel, how)) in
        both.into_iter().zip([("claw step", "a graph of"), ("claw step, launches", "launches of")])
    {
        report.push(
            kernel,
            name,
            &label,
            T::NAME,
            m.median_ms,
            2.0 * moved,
            flops(&ops, n * n),
            format!(
                "{note} (the sweeps' count); Godunov, ghosts + sweeps + Δt control, {how} {steps} steps, per step; {} steps, {} rejected",
                c.steps(),
                c.rejected()
            ),
        );
        report.counted(&m.launches, (n * n) as f64);
    }
    if n <= CPU_MAX_EDGE {
        let interior: Vec<[T; M]> = (0..n * n).map(|c| cells[layout.at((c % n) as i32, (c / n) as i32)].0).collect();
        let aux_interior: Vec<[T; A]> =
            (0..n * n).map(|c| cells[layout.at((c % n) as i32, (c / n) as i32)].1).collect();
        let run = Claw2::new(solver, setup, &interior, &aux_interior)?;
        let mc = time_cpu(1, opts.reps.clamp(1, 5), |_| {
            let _ = run.trial(0.1 * h);
            Ok(())
        })?;
        let threads = rayon::current_num_threads();
        report.push(
            "claw x+y sweeps",
            &format!("{name}, cpu reference"),
            &label,
            T::NAME,
            mc.median_ms,
            2.0 * moved,
            flops(&ops, n * n),
            format!("{threads} CPU threads; {}", flop_note(&ops, cell_bytes)),
        );
    }
    Ok(())
}
