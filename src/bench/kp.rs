//! `bench kp`: the Kurganov–Petrova kernels and whole RK2 steps on the circular dam break at
//! 1024², 2048², 4096², 8192² (sizes are n for n×n), f32 and f64; then the flooding dam break
//! at 4096² run to t = 4 s with early exit on and off.
//!
//! Bytes counted are the fewest each kernel must move per interior cell, in words of the
//! precision: flux reads w, hu, hv and the corner B and writes R_w, R_hu, R_hv (7); RK stage 1
//! reads Qⁿ, R and the cell B and writes Q¹ (10); RK stage 2 reads Qⁿ, Q¹, R and the cell B and
//! writes Qⁿ⁺¹ (13); a whole RK2 step 7 + 10 + 7 + 13 = 37 (the Δt reduction and the ghost
//! cells are O(blocks) and O(n) and not counted). The boundary kernel counts 6 words per ghost
//! cell (3 read, 3 written).

use super::{BenchOptions, Report, time_gpu};
use crate::kp::gpu::{FluxKernel, GpuKp, Launch};
use crate::kp::setup;
use crate::runtime::Gpu;
use crate::{GpuReal, Result};
use std::time::Instant;

const DEFAULT_N: [usize; 4] = [1024, 2048, 4096, 8192];
const FLOOD_N: usize = 4096;
const FLOOD_T: f64 = 4.0;

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let sizes = if opts.sizes.is_empty() { DEFAULT_N.to_vec() } else { opts.sizes.clone() };
    for &n in &sizes {
        kernels::<f32>(gpu, opts, report, n)?;
        kernels::<f64>(gpu, opts, report, n)?;
    }
    if opts.sizes.is_empty() || opts.sizes.contains(&FLOOD_N) {
        for kernel in [FluxKernel::EarlyExit, FluxKernel::Full] {
            flood::<f32>(gpu, report, kernel)?;
            flood::<f64>(gpu, report, kernel)?;
        }
    }
    Ok(())
}

fn kernels<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize) -> Result<()> {
    let problem = setup::dam_break(n, n, false);
    let launch = Launch::default();
    let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
    let cells = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let size = format!("{n}²");
    let p = T::NAME;
    let (bx, by) = launch.block;
    let note = |ms: f64| format!("block {bx}×{by}; {:.3} Gcell/s", cells / (ms * 1e-3) / 1e9);
    let (warm, reps) = (opts.warmup, opts.reps);
    let t = time_gpu(gpu, warm, reps, |_| m.flux(gpu, FluxKernel::Full, false))?;
    report.push("kp flux", "full", &size, p, t.median_ms, 7.0 * w * cells, None, note(t.median_ms));
    let t = time_gpu(gpu, warm, reps, |_| m.flux(gpu, FluxKernel::EarlyExit, false))?;
    report.push("kp flux", "early exit (all wet)", &size, p, t.median_ms, 7.0 * w * cells, None, note(t.median_ms));
    let t = time_gpu(gpu, warm, reps, |_| m.time_step(gpu))?;
    let blocks = problem.nx.div_ceil(bx as usize) * problem.ny.div_ceil(by as usize);
    report.push(
        "kp dt",
        "reduce + Δt",
        &size,
        p,
        t.median_ms,
        w * blocks as f64,
        None,
        format!("{blocks} block maxima"),
    );
    let t = time_gpu(gpu, warm, reps, |_| m.rk(gpu, 1))?;
    report.push("kp rk", "stage 1", &size, p, t.median_ms, 10.0 * w * cells, None, note(t.median_ms));
    let t = time_gpu(gpu, warm, reps, |_| m.rk(gpu, 2))?;
    report.push("kp rk", "stage 2", &size, p, t.median_ms, 13.0 * w * cells, None, note(t.median_ms));
    let t = time_gpu(gpu, warm, reps, |_| m.boundary(gpu, false))?;
    let ghosts = 4.0 * (2 * n + 4) as f64;
    report.push("kp boundary", "both passes", &size, p, t.median_ms, 6.0 * w * ghosts, None, String::new());
    for kernel in [FluxKernel::Full, FluxKernel::EarlyExit] {
        let t = time_gpu(gpu, warm, reps, |_| m.step(gpu, kernel))?;
        let v = if kernel == FluxKernel::Full { "RK2 step" } else { "RK2 step, early exit" };
        report.push("kp step", v, &size, p, t.median_ms, 37.0 * w * cells, None, note(t.median_ms));
    }
    Ok(())
}

/// The flooding dam break to t = 4 s with one flux kernel throughout: wall time of the run.
fn flood<T: GpuReal>(gpu: &Gpu, report: &mut Report, kernel: FluxKernel) -> Result<()> {
    let n = FLOOD_N;
    let problem = setup::flood(n, n);
    let mut m = GpuKp::<T>::new(gpu, &problem, Launch::default())?;
    m.set_stop(FLOOD_T);
    gpu.synchronize()?;
    let start = Instant::now();
    loop {
        for _ in 0..50 {
            m.step(gpu, kernel)?;
        }
        let c = m.clock(gpu)?;
        if c.t >= FLOOD_T || c.status != 0 {
            break;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let c = m.clock(gpu)?;
    let cells = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let variant =
        if kernel == FluxKernel::EarlyExit { "flood to t=4, early exit on" } else { "flood to t=4, early exit off" };
    report.push(
        "kp run",
        variant,
        &format!("{n}²"),
        T::NAME,
        secs * 1e3,
        37.0 * w * cells * c.steps as f64,
        None,
        format!(
            "{} steps; {:.3} Gcell/s over the run (clock reads included)",
            c.steps,
            cells * c.steps as f64 / secs / 1e9
        ),
    );
    Ok(())
}
