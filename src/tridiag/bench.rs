//! `bench tridiag`: every tridiagonal algorithm in four layouts — contiguous, interleaved, and
//! the lines of a padded 2-D field ([`padded_layouts`]: rows with pitch n + 32, columns with
//! pitch batch + 32), to show what padding costs — and cuSPARSE's `gtsv2StridedBatch`
//! (contiguous, and rows with its batch stride = the pitch) and `gtsvInterleavedBatch`
//! (interleaved, algorithm 0; it takes no pitch, so the columns rows say so instead) in the
//! same run; n ∈ {64, …, 4096} (or the n of `--sizes`) × batch ∈ {256, 1024, 4096, 16384}, f32 and
//! f64. GB/s count 5 words per unknown (a, b, c, d read, x written): the fewest a solver must
//! move (the shared-memory algorithms, partition included, move exactly that; Thomas and
//! twisted Thomas move 9, lu 11, spike 15 (one block per system) or about 11 (multi-block,
//! n > 1024), their notes say so). Rows an algorithm cannot run
//! (n over its limit) or that do not fit in memory are skipped. Each cell ends with one row
//! per layout for the automatic choice, with its speedup over the faster cuSPARSE routine of
//! the cell. The dominance check the automatic choice runs first is timed in its own row
//! (3 words per unknown read).
//!
//! Then, per cell, the pivoting solvers on a batch that is not diagonally dominant (generated
//! with dominance 0): `lu` and `spike` in both layouts, the automatic choice (dominance check
//! plus the pivoting solver it picks), and cuSPARSE's pivoting solvers beside them —
//! `gtsvInterleavedBatch` with algorithm 1 (LU with partial pivoting, the like-for-like peer)
//! and `gtsv2` on one system of the batch (it solves one matrix at a time); and the same rows
//! for a few long systems (n = 2^16, 2^18, 2^20, 2^22 of batch 1, and 2^20 × 8; with `--sizes`,
//! those whose n it names), where auto takes spike (multi-block) and gtsv2 is the like-for-like
//! peer: there `lu` and `gtsvInterleavedBatch`, a thread a system, would each take about a
//! second a solve on a handful of threads, and their rows say so instead. Without cuSPARSE the
//! suite says why in a row and goes on.

use crate::Result;
use crate::bench::{BenchOptions, Measurement, Report, rotation, time_gpu, time_gpu_reset};
use crate::runtime::{DeviceBuffer, Gpu};
use crate::tridiag::cusparse::{Cusparse, CusparseReal, InterleavedAlgo};
use crate::tridiag::gpu::{GpuTridiag, Plan, PlanKernel};
use crate::tridiag::{Algorithm, Batch, Choice, Layout, Shape};

/// `hydrokern bench tridiag`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "tridiag",
    about: "batched tridiagonal solvers, every algorithm and layout, cuSPARSE as the peer; the pivoting ones (lu, spike, auto) on non-dominant batches beside cuSPARSE's pivoting gtsvInterleavedBatch and gtsv2; f32 and f64 (sizes: n)",
    parts: &[],
    run,
};

const DEFAULT_N: [usize; 6] = [64, 256, 512, 1024, 2048, 4096];
/// The residual in a row's note is over this many systems of the batch, spread evenly: a check
/// that the timed kernel solves (the tests check every system); the whole batch's residual
/// would cost the host more than the timing.
const CHECKED_SYSTEMS: usize = 256;
const BATCHES: [usize; 4] = [256, 1024, 4096, 16384];

/// Why few long systems have no `lu` row and no `gtsvInterleavedBatch` one.
const FEW_LONG_LU: &str = "skipped: a thread a system (lu, and cuSPARSE's algorithm 1) runs a batch this small on as \
    many threads of the GPU's hundreds of thousands, about a second a solve at n = 2^20; spike and gtsv2 are the rows \
    that compare";

/// Few long systems (n, batch), pivoting rows only: where `auto` takes spike, and where
/// cuSPARSE's gtsv2 (one matrix at a time) is the like-for-like peer.
/// 2^18, 2^20 and 2^22 of batch 1 are the multi-block SPIKE's sizes against gtsv2.
const FEW_LONG: [(usize, usize); 5] = [(1 << 16, 1), (1 << 18, 1), (1 << 20, 1), (1 << 20, 8), (1 << 22, 1)];

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let mut cus = match Cusparse::load(gpu) {
        Ok(c) => {
            crate::warn(format_args!("cuSPARSE: {}", c.library));
            Some(c)
        }
        Err(why) => {
            crate::warn(format_args!("cuSPARSE not found: {why}"));
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
            // inputs, output, the largest workspace (spike's 5 words) and cuSPARSE copies: about
            // 15 words per unknown.
            if !crate::bench::fits(
                gpu,
                opts,
                &what,
                crate::bench::bytes(&what, &[unknowns, 4 * (8 + 8 + 4)])?,
                crate::bench::bytes(&what, &[unknowns, 15 * 8])?,
            )? {
                continue;
            }
            let shape = Shape::new(n, batch, Layout::Contiguous);
            let host = Batch::random(shape, (n * 31 + batch) as u64, 1.0);
            cell::<f32>(gpu, opts, report, &host, cus.as_mut())?;
            cell::<f64>(gpu, opts, report, &host, cus.as_mut())?;
            let hard = Batch::random(shape, (n * 37 + batch) as u64, 0.0);
            pivoting_cell::<f32>(gpu, opts, report, &hard, cus.as_mut())?;
            pivoting_cell::<f64>(gpu, opts, report, &hard, cus.as_mut())?;
            report.progress(format_args!("n = {n}, batch = {batch}"));
        }
    }
    // The long systems are cells of their own: `--sizes` runs those whose n it names.
    for (n, batch) in FEW_LONG.into_iter().filter(|&(n, _)| opts.sizes.is_empty() || opts.sizes.contains(&n)) {
        let what = format!("bench tridiag (few long systems) at n = {n}, batch = {batch}");
        let unknowns = crate::bench::bytes(&what, &[n as u64, batch as u64])?;
        if !crate::bench::fits(
            gpu,
            opts,
            &what,
            crate::bench::bytes(&what, &[unknowns, 4 * (8 + 8 + 4)])?,
            crate::bench::bytes(&what, &[unknowns, 15 * 8])?,
        )? {
            continue;
        }
        let hard = Batch::random(Shape::new(n, batch, Layout::Contiguous), (n * 37 + batch) as u64, 0.0);
        pivoting_cell::<f32>(gpu, opts, report, &hard, cus.as_mut())?;
        pivoting_cell::<f64>(gpu, opts, report, &hard, cus.as_mut())?;
        report.progress(format_args!("n = {n}, batch = {batch}"));
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
/// call, untimed, at least one warm-up and one timed call.
fn time_with_reset(gpu: &Gpu, opts: &BenchOptions, run: &mut impl FnMut(bool) -> Result<()>) -> Result<Measurement> {
    time_gpu_reset(gpu, opts.warmup.max(1), opts.reps.max(1), |_, reset| run(reset))
}

/// What every row of a cell shares: sizes, bytes counted (5 words per unknown), the note's
/// throughput, and fewer repetitions for the largest cells.
struct CellInfo {
    n: usize,
    batch: usize,
    unknowns: f64,
    bytes: f64,
    opts: BenchOptions,
}

impl CellInfo {
    fn new<T>(host64: &Batch<f64>, opts: &BenchOptions) -> CellInfo {
        let (n, batch) = (host64.shape.n, host64.shape.batch);
        let unknowns = (n * batch) as f64;
        let reps = if unknowns >= 16e6 { opts.reps.min(20) } else { opts.reps };
        let bytes = 5.0 * unknowns * std::mem::size_of::<T>() as f64;
        CellInfo { n, batch, unknowns, bytes, opts: BenchOptions { reps, ..opts.clone() } }
    }
    /// Few long systems: a batch too small to fill the GPU with a thread a system.
    fn few_long(&self) -> bool {
        self.batch < 32 && self.n >= 1 << 16
    }
    fn note(&self, ms: f64, extra: &str) -> String {
        format!("{:.2} G unknowns/s{extra}", self.unknowns / (ms * 1e-3) / 1e9)
    }
}

/// The padded layouts the suite times beside contiguous and interleaved: the rows of a field
/// with 32 values of padding per row (pitch n + 32: rows stay 128-byte aligned in f32 where n
/// is a multiple of 32, as in the default sizes), and its columns with 32 columns of padding
/// (pitch batch + 32).
pub fn padded_layouts(n: usize, batch: usize) -> [Layout; 2] {
    [Layout::Rows { pitch: n + 32 }, Layout::Columns { pitch: batch + 32 }]
}

/// A batch on the host, its rotating device copies and their outputs.
type LayoutSets<T> = (Batch<T>, Vec<Set<T>>, Vec<DeviceBuffer<T>>);

/// `host64` in `layout` and precision `T`, uploaded as enough rotating sets to pass the L2,
/// with an output buffer per set. A padded layout's arrays are the whole field (lines·pitch
/// values, NaN in the padding), as a model would hand its field over.
fn layout_sets<T: crate::GpuReal>(gpu: &Gpu, host64: &Batch<f64>, layout: Layout) -> Result<LayoutSets<T>> {
    let mut host = host64.relayout(layout).to::<T>();
    if let Some(pitch) = layout.pitch() {
        let lines = if layout.systems_adjacent() { host.shape.n } else { host.shape.batch };
        for v in [&mut host.a, &mut host.b, &mut host.c, &mut host.d] {
            v.resize(lines * pitch, T::NAN);
        }
    }
    let len = host.a.len();
    let rot = rotation(gpu, 5 * len * std::mem::size_of::<T>()).min(8);
    let sets: Vec<Set<T>> = (0..rot).map(|_| upload(gpu, &host)).collect::<Result<_>>()?;
    let xs: Vec<DeviceBuffer<T>> = (0..rot).map(|_| gpu.alloc::<T>(len)).collect::<Result<_>>()?;
    Ok((host, sets, xs))
}

/// `plan` timed over the rotating sets, and the status it left: empty, or "; FAILED: …" (a
/// row a note should show).
fn time_plan<T: crate::GpuReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    solver: &mut GpuTridiag<T>,
    plan: &Plan,
    sets: &[Set<T>],
    xs: &mut [DeviceBuffer<T>],
) -> Result<(Measurement, String)> {
    let rot = sets.len();
    solver.reset_status(gpu)?;
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| {
        let s = &sets[i % rot];
        solver.enqueue(gpu, plan, &s.a, &s.b, &s.c, &s.d, &mut xs[i % rot])
    })?;
    let status = match solver.check_status(gpu, plan) {
        Ok(()) => String::new(),
        Err(e) => format!("; FAILED: {e}"),
    };
    Ok((m, status))
}

/// `gtsvInterleavedBatch` with `algo` on `s`, into `x`, with its inputs restored (untimed)
/// before each call: it overwrites a, b, c and d.
#[allow(clippy::too_many_arguments)]
fn time_interleaved<T: CusparseReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    cus: &mut Cusparse,
    algo: InterleavedAlgo,
    (n, batch): (usize, usize),
    s: &Set<T>,
    x: &mut DeviceBuffer<T>,
) -> Result<Measurement> {
    let len = n * batch;
    let (mut a, mut b, mut c) = (gpu.alloc::<T>(len)?, gpu.alloc::<T>(len)?, gpu.alloc::<T>(len)?);
    let mut run = |reset: bool| -> Result<()> {
        if reset {
            gpu.copy_dtod(&s.a, &mut a)?;
            gpu.copy_dtod(&s.b, &mut b)?;
            gpu.copy_dtod(&s.c, &mut c)?;
            gpu.copy_dtod(&s.d, x)
        } else {
            cus.interleaved(gpu, algo, n, batch, &mut a, &mut b, &mut c, x)
        }
    };
    time_with_reset(gpu, opts, &mut run)
}

fn cell<T: CusparseReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    host64: &Batch<f64>,
    mut cus: Option<&mut Cusparse>,
) -> Result<()> {
    let info = CellInfo::new::<T>(host64, opts);
    let (n, batch, unknowns, bytes, opts) = (info.n, info.batch, info.unknowns, info.bytes, &info.opts);
    let note = |ms: f64, extra: &str| info.note(ms, extra);
    let size = format!("n={n} × {batch}");
    let p = T::NAME;
    let mut autos = Vec::new();
    let mut best_cusparse: Option<(f64, &str)> = None;
    for layout in Layout::ALL.into_iter().chain(padded_layouts(n, batch)) {
        let (host, sets, mut xs) = layout_sets::<T>(gpu, host64, layout)?;
        let (shape, rot) = (host.shape, sets.len());
        let mut solver = GpuTridiag::<T>::new(gpu, shape)?;
        let auto = solver.algorithm(Choice::Auto);
        let lname = layout.describe();
        let mut times = Vec::new();
        // The dominance check the automatic choice runs before the solve (a, b, c read).
        let check = time_gpu(gpu, opts.warmup, opts.reps, |i| {
            let s = &sets[i % rot];
            solver.enqueue_dominance(gpu, &s.a, &s.b, &s.c)
        })?;
        let check_bytes = 3.0 * unknowns * std::mem::size_of::<T>() as f64;
        report.push(
            "tridiag dominance check",
            &lname,
            &size,
            p,
            check.median_ms,
            check_bytes,
            None,
            note(check.median_ms, "; reads a, b, c (3 words/unknown); auto runs it before every solve"),
        );
        for alg in Algorithm::ALL {
            let Ok(plan) = solver.plan(Choice::Force(alg)) else { continue };
            let (m, status) = time_plan(gpu, opts, &mut solver, &plan, &sets, &mut xs)?;
            // The first set's residual, as a check that the timed kernel solves.
            let r = gpu.download_with(&xs[0], |x| host.sampled_residual(x, CHECKED_SYSTEMS))?;
            // Thomas and twisted Thomas write c', d' to the workspace and read them back; lu
            // U's two superdiagonals and y; spike u1, u2 and three right-hand sides.
            let moved = match alg {
                Algorithm::Lu => "; moves 11 words/unknown",
                Algorithm::Spike => spike_words(&plan),
                _ if plan.workspace > 0 => "; moves 9 words/unknown",
                _ => "",
            };
            let extra = format!("; {}{moved}; residual {r:.1e}{status}", plan.describe());
            report.push(
                &format!("tridiag {alg}"),
                &lname,
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
            let peer = match layout {
                Layout::Contiguous | Layout::Rows { .. } => {
                    let (stride, _) = shape.strides();
                    let x = &mut xs[0];
                    let mut run = |reset: bool| -> Result<()> {
                        if reset {
                            gpu.copy_dtod(&s.d, x)
                        } else {
                            cus.strided(gpu, n, batch, stride, &s.a, &s.b, &s.c, x)
                        }
                    };
                    Some(("cuSPARSE gtsv2StridedBatch", time_with_reset(gpu, opts, &mut run)))
                }
                Layout::Interleaved => {
                    let m = time_interleaved(gpu, opts, cus, InterleavedAlgo::Thomas, (n, batch), s, &mut xs[0]);
                    Some(("cuSPARSE gtsvInterleavedBatch", m))
                }
                Layout::Columns { .. } => None,
            };
            match peer {
                None => {
                    let why = "skipped: gtsvInterleavedBatch takes no pitch (unknown i of system k at i·batch + k only) and no other cuSPARSE routine solves the columns of a padded field where they lie";
                    report.push("cuSPARSE gtsvInterleavedBatch", &lname, &size, p, f64::NAN, bytes, None, why.into());
                }
                Some((name, Ok(m))) => {
                    let r = gpu.download_with(&xs[0], |x| host.sampled_residual(x, CHECKED_SYSTEMS))?;
                    let extra = format!("; residual {r:.1e}");
                    report.push(name, &lname, &size, p, m.median_ms, bytes, None, note(m.median_ms, &extra));
                    if best_cusparse.is_none_or(|(t, _)| m.median_ms < t) {
                        best_cusparse = Some((m.median_ms, name));
                    }
                }
                Some((name, Err(e))) => {
                    report.push(name, &lname, &size, p, f64::NAN, bytes, None, format!("failed: {e}"));
                }
            }
        }
        // The automatic choice's own plan where it is not one of the rows above (an interleaved
        // batch solved on a contiguous copy), else the time of its algorithm's row.
        let auto_plan = solver.plan(Choice::Auto)?;
        if matches!(auto_plan.kernel, PlanKernel::Restaged(_)) {
            let (m, status) = time_plan(gpu, opts, &mut solver, &auto_plan, &sets, &mut xs)?;
            let r = gpu.download_with(&xs[0], |x| host.sampled_residual(x, CHECKED_SYSTEMS))?;
            let how = format!("; {}; moves 15 words/unknown; residual {r:.1e}{status}", auto_plan.describe());
            autos.push((layout, format!("{auto} on a contiguous copy"), m.median_ms, check.median_ms, how));
        } else if let Some(&(_, t)) = times.iter().find(|(a, _)| *a == auto) {
            autos.push((layout, auto.to_string(), t, check.median_ms, String::new()));
        }
    }
    for (layout, alg, t, check, how) in autos {
        let vs = match best_cusparse {
            Some((tc, name)) => format!("{:.2}× the faster cuSPARSE routine ({name}, {tc:.4} ms)", tc / t),
            None => "no cuSPARSE to compare".into(),
        };
        let vs = format!("{vs}; the solve alone, its dominance check adds {check:.4} ms");
        report.push(
            "tridiag auto",
            &format!("{}: {alg}", layout.describe()),
            &size,
            p,
            t,
            bytes,
            None,
            note(t, &format!("{how}; {vs}")),
        );
    }
    Ok(())
}

/// The pivoting rows of one cell (see the module comment): `host64` is not diagonally
/// dominant, so the automatic choice takes lu.
fn pivoting_cell<T: CusparseReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    host64: &Batch<f64>,
    mut cus: Option<&mut Cusparse>,
) -> Result<()> {
    let info = CellInfo::new::<T>(host64, opts);
    let (n, batch, bytes, opts) = (info.n, info.batch, info.bytes, &info.opts);
    let note = |ms: f64, extra: &str| info.note(ms, extra);
    let size = format!("n={n} × {batch}, not dominant");
    let p = T::NAME;
    for layout in Layout::ALL {
        let (host, sets, mut xs) = layout_sets::<T>(gpu, host64, layout)?;
        let (shape, rot) = (host.shape, sets.len());
        let mut solver = GpuTridiag::<T>::new(gpu, shape)?;
        let chosen = solver.choose(gpu, Choice::Auto, &sets[0].a, &sets[0].b, &sets[0].c)?;
        // lu moves a, b, c, d in, x out and U's two superdiagonals out and back with y in x:
        // 11 words.
        for alg in [Algorithm::Lu, Algorithm::Spike] {
            if alg == Algorithm::Lu && info.few_long() {
                report.push("tridiag lu", layout.name(), &size, p, f64::NAN, bytes, None, FEW_LONG_LU.into());
                continue;
            }
            let plan = solver.plan(Choice::Force(alg))?;
            let moved = if alg == Algorithm::Lu { "; moves 11 words/unknown" } else { spike_words(&plan) };
            let (m, status) = time_plan(gpu, opts, &mut solver, &plan, &sets, &mut xs)?;
            let be = gpu.download_with(&xs[0], |x| {
                crate::tridiag::backward_error(shape, &host.a, &host.b, &host.c, &host.d, x)
            })??;
            let extra = format!("; {}{moved}; worst backward error {:.1e}{status}", plan.describe(), be.value);
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
        }
        let plan = solver.plan_of(Choice::Auto, chosen)?;
        let chosen = match plan.kernel {
            PlanKernel::Restaged(_) if !layout.systems_adjacent() => format!("{chosen} on an interleaved copy"),
            _ => chosen.to_string(),
        };
        // The automatic choice: the dominance check, then the solve it picks.
        let auto = time_gpu(gpu, opts.warmup, opts.reps, |i| {
            let s = &sets[i % rot];
            solver.enqueue_dominance(gpu, &s.a, &s.b, &s.c)?;
            solver.enqueue(gpu, &plan, &s.a, &s.b, &s.c, &s.d, &mut xs[i % rot])
        })?;
        let auto_row = |report: &mut Report, vs: &str| {
            let extra = format!("; picks {chosen}; check + solve{vs}");
            report.push(
                "tridiag auto",
                layout.name(),
                &size,
                p,
                auto.median_ms,
                bytes,
                None,
                note(auto.median_ms, &extra),
            );
        };
        let Some(cus) = cus.as_deref_mut() else {
            auto_row(report, "; no cuSPARSE to compare");
            continue;
        };
        let s = &sets[0];
        let (name, peer) = match layout {
            Layout::Interleaved if info.few_long() => {
                let name = "cuSPARSE gtsvInterleavedBatch LU";
                report.push(name, layout.name(), &size, p, f64::NAN, bytes, None, FEW_LONG_LU.into());
                auto_row(report, "; the peer is gtsv2 (contiguous rows)");
                continue;
            }
            Layout::Interleaved => {
                let m = time_interleaved(gpu, opts, cus, InterleavedAlgo::Lu, (n, batch), s, &mut xs[0]);
                ("cuSPARSE gtsvInterleavedBatch LU", m)
            }
            // Contiguous, the only other layout this loop runs.
            _ => {
                // gtsv2 solves one matrix: the batch's first system (a, b, c, d from offset 0).
                let x = &mut xs[0];
                let mut run = |reset: bool| -> Result<()> {
                    if reset { gpu.copy_dtod(&s.d, x) } else { cus.gtsv2(gpu, n, &s.a, &s.b, &s.c, x) }
                };
                ("cuSPARSE gtsv2 (one system)", time_with_reset(gpu, opts, &mut run))
            }
        };
        let vs = match peer {
            Ok(m) => {
                let one = layout == Layout::Contiguous;
                let r = gpu.download_with(&xs[0], |x| {
                    if one {
                        let first = Shape::new(n, 1, Layout::Contiguous);
                        crate::tridiag::residual(first, &host.a[..n], &host.b[..n], &host.c[..n], &host.d[..n], &x[..n])
                    } else {
                        host.sampled_residual(x, CHECKED_SYSTEMS)
                    }
                })?;
                let (cell_bytes, extra) = if one {
                    (
                        bytes / batch as f64,
                        format!("; one system of the batch (gtsv2 solves one matrix); residual {r:.1e}"),
                    )
                } else {
                    (bytes, format!("; algorithm 1, LU with partial pivoting; residual {r:.1e}"))
                };
                let one_note = format!(
                    "{:.2} G unknowns/s{extra}",
                    n as f64 * if one { 1.0 } else { batch as f64 } / (m.median_ms * 1e-3) / 1e9
                );
                report.push(name, layout.name(), &size, p, m.median_ms, cell_bytes, None, one_note);
                if one {
                    format!("; gtsv2 takes {:.4} ms per system (× {batch} systems one after another)", m.median_ms)
                } else {
                    format!("; {:.2}× {name} ({:.4} ms)", m.median_ms / auto.median_ms, m.median_ms)
                }
            }
            Err(e) => {
                report.push(name, layout.name(), &size, p, f64::NAN, bytes, None, format!("failed: {e}"));
                String::new()
            }
        };
        auto_row(report, &vs);
    }
    Ok(())
}

/// The words per unknown a SPIKE plan moves. One block per system: a, b, c, d in, x out, and
/// u1, u2 and three right-hand sides through the workspace (5 + 2·5). Multi-block levels: per
/// level a, b, c, d read twice (reduction, fill), x written, the reduced system (4 words per
/// chunk end, n/8 of them) written and its solution read: 9⅝ words per unknown of the level,
/// and the levels below add 1/8, 1/64, …: about 11.
fn spike_words(plan: &crate::tridiag::gpu::Plan) -> &'static str {
    match plan.kernel {
        crate::tridiag::gpu::PlanKernel::SpikeLevels(_) => "; moves about 11 words/unknown",
        _ => "; moves 15 words/unknown",
    }
}
