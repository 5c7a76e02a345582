//! `bench claw`, its 3D rows: the acoustics_3d core kernels, one x-, y- and z-sweep and the
//! three in a row (the sweeps of a Godunov step, buffer order 0 → 1 → 2 → 1) at 96³, 256³ and
//! 512³ (sizes: the given edges up to [`MAX_EDGE_3D`]), f32 and f64, with the CPU reference's
//! Godunov trial (all threads) at 96³. GB/s count the fewest words a sweep moves: the 4 state
//! planes read once and written once and the 2 auxiliary planes (ρ, K) read once, 10 words a
//! cell (ghost cells and the per-block rates left out); the three sweeps count three times
//! that. Ghost fills are not timed. GFLOP/s as in 2D (`bench.rs`): the point functions'
//! operations for a cell of each sweep, counted over the bench's own random states.

use super::cpu::{Claw3, Setup3};
use super::gpu::GpuSweeps3;
use crate::bench::{BenchOptions, Report, time_cpu, time_gpu};
use crate::claw::flops::{count_sweeps, flop_note, flops};
use crate::claw::stepper::BUFFERS;
use crate::claw::{Acoustics3d, Splitting};
use crate::runtime::Gpu;
use crate::{GpuReal, Result, Rng};

const DEFAULT_EDGES_3D: [usize; 3] = [96, 256, 512];
/// Given sizes above this are 2D edges only (1000, the smallest 2D default, is not a 3D edge:
/// 1000³ would be a 40 GB state).
pub const MAX_EDGE_3D: usize = 512;
/// The CPU peer is timed up to this edge.
const CPU_MAX_EDGE_3D: usize = 96;

/// The 3D rows at every edge, f32 then f64.
pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let edges: Vec<usize> = if opts.sizes.is_empty() {
        DEFAULT_EDGES_3D.to_vec()
    } else {
        opts.sizes.iter().copied().filter(|&n| n <= MAX_EDGE_3D).collect()
    };
    for n in edges {
        acoustics::<f32>(gpu, opts, report, n)?;
        acoustics::<f64>(gpu, opts, report, n)?;
    }
    Ok(())
}

/// The rows of acoustics_3d at n³ cells.
fn acoustics<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize) -> Result<()> {
    const M: usize = 4;
    const A: usize = 2;
    let h = 1.0 / n as f64;
    // Speeds are at most about 2.2 m/s: CFL ≤ 0.25.
    let dt = 0.1 * h;
    let setup = Setup3::walled(n, n);
    let len = setup.layout().len();
    let word = std::mem::size_of::<T>() as u64;
    let what = format!("bench claw acoustics-3d at {n}³ in {}", T::NAME);
    let planes = (BUFFERS * M + A) as u64;
    let bytes = crate::bench::bytes(&what, &[planes, len as u64, word])?;
    if !crate::bench::fits(gpu, opts, &what, bytes, bytes)? {
        return Ok(());
    }
    // Random admissible states and media, ghosts included (the sweeps read them; only their
    // speed is measured). Every state buffer starts as the first.
    let mut rng = Rng::new(n as u64);
    let mut u = |lo: f64, hi: f64| T::from_f64(lo + (hi - lo) * rng.unit());
    let mut states: Vec<T> = (0..M * len).map(|_| u(-1.0, 1.0)).collect();
    let aux: Vec<T> = (0..A * len).map(|p| if p < len { u(0.9, 1.1) } else { u(3.6, 4.4) }).collect();
    // The operation count along the first cells of the state (its planes' first values).
    let line = (0..len).map(|p| ([0, 1, 2, 3].map(|m| states[m * len + p]), [aux[p], aux[len + p]]));
    let ops = count_sweeps(&Acoustics3d, setup.limiter, dt / h, line, &[0, 1, 2]);
    for _ in 1..BUFFERS {
        states.extend_from_within(..M * len);
    }
    let (mut states, aux) = (gpu.upload(&states)?, gpu.upload(&aux)?);
    let mut k = GpuSweeps3::<T, Acoustics3d, M, 2, A>::new(gpu, setup)?;
    let label = format!("{n}³");
    let moved = ((2 * M + A) * n * n * n) as f64 * word as f64;
    let note = format!("MC limiter; moves {} words/cell", 2 * M + A);
    let cell_bytes = ((2 * M + A) as u64 * word) as f64;
    for (dir, kernel) in [(0, "claw3 x-sweep"), (1, "claw3 y-sweep"), (2, "claw3 z-sweep")] {
        // Also sets Δt and the first order (buffer 0 into 1), which the timed launches keep.
        let cfl = dt * k.sweep(gpu, Acoustics3d, dir, &mut states, &aux, dt)?;
        let m = time_gpu(gpu, opts.warmup, opts.reps, |_| k.enqueue_alone(Acoustics3d, dir, &mut states, &aux))?;
        let one = &ops[dir..=dir];
        let text = format!("{note}; {}; CFL {cfl:.2}", flop_note(one, cell_bytes));
        report.push(kernel, "acoustics-3d", &label, T::NAME, m.median_ms, moved, flops(one, n * n * n), text);
        report.counted(&m.launches, (n * n * n) as f64);
    }
    let note = format!("{note}; {}", flop_note(&ops, cell_bytes));
    let m = time_gpu(gpu, opts.warmup, opts.reps, |_| {
        (0..3).try_for_each(|stage| k.enqueue(Acoustics3d, Splitting::Godunov, stage, &mut states, &aux))
    })?;
    report.push(
        "claw3 x+y+z sweeps",
        "acoustics-3d",
        &label,
        T::NAME,
        m.median_ms,
        3.0 * moved,
        flops(&ops, n * n * n),
        note,
    );
    report.counted(&m.launches, (n * n * n) as f64);
    drop(states);
    if n <= CPU_MAX_EDGE_3D {
        let cells = n * n * n;
        let q: Vec<[T; M]> = (0..cells).map(|_| [u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0)]).collect();
        let media: Vec<[T; A]> = (0..cells).map(|_| [u(0.9, 1.1), u(3.6, 4.4)]).collect();
        let run = Claw3::new(Acoustics3d, setup, &q, &media)?;
        let mc = time_cpu(1, opts.reps.clamp(1, 5), |_| {
            let _ = run.trial(dt);
            Ok(())
        })?;
        let threads = rayon::current_num_threads();
        report.push(
            "claw3 x+y+z sweeps",
            "acoustics-3d, cpu reference",
            &label,
            T::NAME,
            mc.median_ms,
            3.0 * moved,
            flops(&ops, n * n * n),
            format!("{threads} CPU threads; {}", flop_note(&ops, cell_bytes)),
        );
    }
    Ok(())
}
