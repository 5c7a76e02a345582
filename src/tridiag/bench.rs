//! `bench tridiag`: every tridiagonal algorithm in both layouts and cuSPARSE's
//! `gtsv2StridedBatch` (contiguous) and `gtsvInterleavedBatch` (interleaved, algorithm 0) in
//! the same run; n ∈ {64, …, 4096} (or `--sizes`) × batch ∈ {256, 1024, 4096, 16384}, f32 and
//! f64. GB/s count 5 words per unknown (a, b, c, d read, x written): the fewest a solver must
//! move (the shared-memory algorithms, partition included, move exactly that; Thomas and
//! twisted Thomas move 9, their notes say so). Rows an algorithm cannot run (n over its limit) or that do not fit in memory are
//! skipped. Each cell ends with one row per layout for the automatic choice, with its
//! speedup over the faster cuSPARSE routine of the cell. Without cuSPARSE the suite says why
//! in a row and goes on.

use crate::bench::{BenchOptions, Measurement, Report, rotation, time_gpu};
use crate::Result;
use crate::runtime::{DeviceBuffer, Gpu, Timer};
use crate::tridiag::cusparse::{Cusparse, CusparseReal};
use crate::tridiag::gpu::GpuTridiag;
use crate::tridiag::{Algorithm, Batch, Choice, Layout, Shape};

/// `hydrokern bench tridiag`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "tridiag",
    about: "batched tridiagonal solvers, every algorithm and layout, cuSPARSE as the peer, f32 and f64 (sizes: n)",
    run,
};

const DEFAULT_N: [usize; 6] = [64, 256, 512, 1024, 2048, 4096];
const BATCHES: [usize; 4] = [256, 1024, 4096, 16384];

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let mut cus = match Cusparse::load(gpu) {
        Ok(c) => {
            eprintln!("cuSPARSE: {}", c.library);
            Some(c)
        }
        Err(why) => {
            eprintln!("cuSPARSE not found: {why}");
            report.push("cusparse", "—", "—", "-", f64::NAN, 0.0, None, format!("cuSPARSE not found: {why}"));
            None
        }
    };
    let sizes = if opts.sizes.is_empty() { DEFAULT_N.to_vec() } else { opts.sizes.clone() };
    for &n in &sizes {
        for &batch in &BATCHES {
            let what = format!("bench tridiag at n = {n}, batch = {batch}");
            let unknowns = crate::bench::bytes(&what, &[n as u64, batch as u64])?;
            // On the host the f64 batch and its f32 and f64 copies (4 arrays each); on the GPU
            // inputs, output, Thomas workspace and cuSPARSE copies: about 12 words per unknown.
            if !crate::bench::fits(gpu, opts, &what, crate::bench::bytes(&what, &[unknowns, 4 * (8 + 8 + 4)])?, crate::bench::bytes(&what, &[unknowns, 12 * 8])?)? {
                continue;
            }
            let shape = Shape::new(n, batch, Layout::Contiguous);
            let host = Batch::random(shape, (n * 31 + batch) as u64, 1.0);
            cell::<f32>(gpu, opts, report, &host, cus.as_mut())?;
            cell::<f64>(gpu, opts, report, &host, cus.as_mut())?;
        }
    }
    Ok(())
}

/// Device copies of one batch.
struct Set<T: crate::GpuReal> {
    a: DeviceBuffer<T>,
    b: DeviceBuffer<T>,
    c: DeviceBuffer<T>,
    d: DeviceBuffer<T>,
}

fn upload<T: crate::GpuReal>(gpu: &Gpu, h: &Batch<T>) -> Result<Set<T>> {
    Ok(Set { a: gpu.upload(&h.a)?, b: gpu.upload(&h.b)?, c: gpu.upload(&h.c)?, d: gpu.upload(&h.d)? })
}

/// Time `run(false)` with `run(true)` (a reset: cuSPARSE overwrites its inputs) before each
/// call, untimed.
fn time_with_reset(gpu: &Gpu, opts: &BenchOptions, run: &mut impl FnMut(bool) -> Result<()>) -> Result<Measurement> {
    for _ in 0..opts.warmup.max(1) {
        run(true)?;
        run(false)?;
    }
    let timer = Timer::new(gpu)?;
    let mut times = Vec::with_capacity(opts.reps);
    for _ in 0..opts.reps.max(1) {
        run(true)?;
        timer.start(gpu)?;
        run(false)?;
        timer.stop(gpu)?;
        times.push(timer.elapsed_ms()?);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(Measurement {
        median_ms: times[times.len() / 2],
        min_ms: times[0],
        max_ms: times[times.len() - 1],
        reps: times.len(),
    })
}

fn cell<T: CusparseReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    host64: &Batch<f64>,
    mut cus: Option<&mut Cusparse>,
) -> Result<()> {
    let (n, batch) = (host64.shape.n, host64.shape.batch);
    let size = format!("n={n} × {batch}");
    let p = T::NAME;
    let unknowns = (n * batch) as f64;
    let bytes = 5.0 * unknowns * std::mem::size_of::<T>() as f64;
    let note = |ms: f64, extra: &str| format!("{:.2} G unknowns/s{extra}", unknowns / (ms * 1e-3) / 1e9);
    let reps = if unknowns >= 16e6 { opts.reps.min(20) } else { opts.reps };
    let opts = &BenchOptions { reps, ..opts.clone() };
    let mut autos = Vec::new();
    let mut best_cusparse: Option<(f64, &str)> = None;
    for layout in Layout::ALL {
        let host = host64.relayout(layout).to::<T>();
        let shape = host.shape;
        let rot = rotation(gpu, 5 * shape.len() * std::mem::size_of::<T>()).min(8);
        let sets: Vec<Set<T>> = (0..rot).map(|_| upload(gpu, &host)).collect::<Result<_>>()?;
        let mut xs: Vec<DeviceBuffer<T>> = (0..rot).map(|_| gpu.alloc::<T>(shape.len())).collect::<Result<_>>()?;
        let mut solver = GpuTridiag::<T>::new(gpu, shape)?;
        let auto = solver.algorithm(Choice::Auto);
        let mut times = Vec::new();
        for alg in Algorithm::ALL {
            let Ok(plan) = solver.plan(Choice::Force(alg)) else { continue };
            solver.reset_status(gpu)?;
            let m = time_gpu(gpu, opts.warmup, opts.reps, |i| {
                let s = &sets[i % rot];
                solver.enqueue(gpu, &plan, &s.a, &s.b, &s.c, &s.d, &mut xs[i % rot])
            })?;
            let status = match solver.check_status(gpu, &plan) {
                Ok(()) => String::new(),
                Err(e) => format!("; FAILED: {e}"),
            };
            // The first set's residual, as a check that the timed kernel solves.
            let x = gpu.download(&xs[0])?;
            let r = host.residual(&x);
            // Thomas and twisted Thomas write c', d' to the workspace and read them back.
            let moved = if plan.workspace > 0 { "; moves 9 words/unknown" } else { "" };
            let extra = format!("; {}{moved}; residual {r:.1e}{status}", plan.describe());
            report.push(
                &format!("tridiag {alg}"),
                layout.name(),
                &size,
                p,
                m.median_ms,
                bytes,
                None,
                note(m.median_ms, &extra),
            );
            times.push((alg, m.median_ms));
        }
        if let Some(cus) = cus.as_deref_mut() {
            let s = &sets[0];
            let (name, m) = match layout {
                Layout::Contiguous => {
                    let x = &mut xs[0];
                    let mut run = |reset: bool| -> Result<()> {
                        if reset { gpu.copy_dtod(&s.d, x) } else { cus.strided(gpu, n, batch, &s.a, &s.b, &s.c, x) }
                    };
                    ("cuSPARSE gtsv2StridedBatch", time_with_reset(gpu, opts, &mut run))
                }
                Layout::Interleaved => {
                    let len = shape.len();
                    let (mut a, mut b, mut c) = (gpu.alloc::<T>(len)?, gpu.alloc::<T>(len)?, gpu.alloc::<T>(len)?);
                    let x = &mut xs[0];
                    let mut run = |reset: bool| -> Result<()> {
                        if reset {
                            gpu.copy_dtod(&s.a, &mut a)?;
                            gpu.copy_dtod(&s.b, &mut b)?;
                            gpu.copy_dtod(&s.c, &mut c)?;
                            gpu.copy_dtod(&s.d, x)
                        } else {
                            cus.interleaved(gpu, n, batch, &mut a, &mut b, &mut c, x)
                        }
                    };
                    ("cuSPARSE gtsvInterleavedBatch", time_with_reset(gpu, opts, &mut run))
                }
            };
            match m {
                Ok(m) => {
                    let x = gpu.download(&xs[0])?;
                    let r = host.residual(&x);
                    let extra = format!("; residual {r:.1e}");
                    report.push(name, layout.name(), &size, p, m.median_ms, bytes, None, note(m.median_ms, &extra));
                    if best_cusparse.is_none_or(|(t, _)| m.median_ms < t) {
                        best_cusparse = Some((m.median_ms, name));
                    }
                }
                Err(e) => {
                    report.push(name, layout.name(), &size, p, f64::NAN, bytes, None, format!("failed: {e}"));
                }
            }
        }
        if let Some(&(_, t)) = times.iter().find(|(a, _)| *a == auto) {
            autos.push((layout, auto, t));
        }
    }
    for (layout, alg, t) in autos {
        let vs = match best_cusparse {
            Some((tc, name)) => format!("{:.2}× the faster cuSPARSE routine ({name}, {tc:.4} ms)", tc / t),
            None => "no cuSPARSE to compare".into(),
        };
        report.push(
            "tridiag auto",
            &format!("{}: {alg}", layout.name()),
            &size,
            p,
            t,
            bytes,
            None,
            note(t, &format!("; {vs}")),
        );
    }
    Ok(())
}
