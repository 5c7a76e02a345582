//! `bench kp`: the Kurganov–Petrova kernels (both flux kernels; at 4096² a sweep of streamed
//! shapes) and whole RK2 steps on the circular dam break at 1024², 4096², 8192² (sizes are n
//! for n×n), f32 and f64; then the flooding dam break at 4096² run to t = 1 s (22% of the
//! wet-map tiles wet at its end) with early exit off and on, timed segment by segment with the
//! wet fraction at each segment's end. The flux rows (the 4096² sweep in the default scheme
//! only) and the RK2 step rows run for each wet–dry scheme (`clamp`, the default, `bollermann`
//! and `kp07`; each has its own flux kernels, and `clamp` its draining and clamp passes) at
//! 4096² and at every size `--sizes` names; at the other default sizes the default scheme's
//! alone. At 4096² and the sizes `--sizes` names also: the RK stages and the RK2 step with
//! Manning's n as one constant and as a friction field (n per cell, as from a raster), for
//! what the field costs, and with each kind of forcing; and SRK2's split flux kernels (a sweep
//! of x-line lengths), RK stages and steps, and DS1 and DS2. The flood runs in every wet–dry
//! scheme in f32 (those rows compare steps and time with the default scheme's), in the default
//! one in f64. Where the tuning cache holds a launch for this GPU (`hydrokern tune`, tuning not
//! off) that is not the default, the default scheme's RK2 step runs at it too ("tuned
//! launch"). The flood and the balance runs come with the default sizes; `--no-runs` leaves
//! them out there too.
//!
//! Bytes counted are the fewest each kernel must move per interior cell, in words of the
//! precision: flux reads w, hu, hv and the corner B and writes R_w, R_hu, R_hv (7); RK stage 1
//! reads Qⁿ, R and the cell B and writes Q¹ (10); RK stage 2 reads Qⁿ, Q¹, R and the cell B and
//! writes Qⁿ⁺¹ (13); a whole RK2 step 7 + 10 + 7 + 13 = 37 (the Δt reduction and the ghost
//! cells are O(blocks) and O(n) and not counted); a friction field adds one word to each stage. The boundary kernel counts 6 words per ghost
//! cell (3 read, 3 written). With the second stage in the streamed flux kernel (the default,
//! `kp_flux_stream_rk`) that stage reads Q¹, the corner B, Qⁿ and the cell B and writes Qⁿ⁺¹
//! (11): R is neither written nor read back and Q¹ is read once, so the step moves
//! 7 + 10 + 11 = 28. The step rows time both ways ("stage 2 fused", "stage 2 apart").
//!
//! The "kp balance" rows (docs/f32-conservation.md) time whole RK2 steps of Thacker's bowl at
//! 1024² in f32 plain, f32 compensated and f64, each with its relative volume change after a
//! fresh run of 10 000 steps; the compensated step moves 5 words more (w's low part: stage 1
//! reads Qⁿ's and writes Q¹'s, stage 2 reads both and writes Qⁿ⁺¹'s), 42 in all (33 fused). Every
//! other f32 row runs the default update, compensated, and counts those words too. The mixed
//! precision's row ("mixed", w and R_w in f64, the rest in f32) counts bytes: w and R_w 8 each,
//! hu, hv, their R and B 4 each: flux 20 read and 16 written, stage 1 48 read and 16 written
//! (hu, hv, B and R's momenta 4 each, w and R_w 8), stage 2 48 + 16 read and 16 written: 192
//! bytes a cell against 148 (plain f32), 168 (compensated f32) and 296 (f64); fused, R's 16
//! written and 16 read and Q¹'s 16 read again are not moved: 144.

use super::gpu_run::GRAPH_STEPS;
use crate::accumulation::Accumulation;
use crate::bench::{BenchOptions, Report, time_gpu, time_steps_in_graph};
use crate::kp::gpu::{FluxKernel, FluxVariant, GpuKp, Launch};
use crate::kp::{Problem, Scheme, WetDry, setup};
use crate::runtime::Gpu;
use crate::{GpuReal, Result};
use std::time::Instant;

/// `hydrokern bench kp`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "kp",
    about: "Kurganov–Petrova flux, Δt, RK and boundary kernels and RK2 steps (dam break, n² for n in 1024..8192; also at the tuned launch), flood 4096² early exit on/off",
    parts: &[],
    run,
};

const DEFAULT_N: [usize; 3] = [1024, 4096, 8192];
const FLOOD_N: usize = 4096;
/// The flood's end: the front has then reached 22% of the wet-map tiles, the part of a flood
/// where early exit skips work (past it the run is all wet, and its steps time what the step
/// rows time).
const FLOOD_T: f64 = 1.0;

/// What the conservation column holds here, and why most rows have none.
const CONSERVATION_NOTE: &str = "conservation error: the relative volume change of Thacker's bowl (walls, no inflow: all \
    of it error) after 10 000 RK2 steps of a fresh run at 1024², on the \"kp balance\" rows, in every precision and w \
    update. The other rows time single kernels, or steps and runs of the dam break and the flood whose volume they do \
    not follow (the step rows' update is the compensated one the balance rows measure): they show —.";

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    report.note(CONSERVATION_NOTE);
    let sizes = if opts.sizes.is_empty() { DEFAULT_N.to_vec() } else { opts.sizes.clone() };
    for &n in &sizes {
        // The problem (4 f64 fields and, for the friction rows, n) and its padded copy (5
        // fields, and g·n²) on the host, the model's 11 padded fields (12 with the friction
        // field) and the corner bed on the GPU.
        let what = format!("bench kp at {n}²");
        let padded = crate::bench::bytes(&what, &[n as u64 + 5, n as u64 + 5])?;
        if !crate::bench::fits(
            gpu,
            opts,
            &what,
            crate::bench::bytes(&what, &[padded, 11 * 8])?,
            crate::bench::bytes(&what, &[padded, 13 * 8])?,
        )? {
            continue;
        }
        kernels::<f32>(gpu, opts, report, n)?;
        report.progress(format_args!("{n}² f32"));
        kernels::<f64>(gpu, opts, report, n)?;
        report.progress(format_args!("{n}² f64"));
    }
    // The whole runs come with the default sizes: a size `--sizes` names stays within a minute.
    if opts.runs && opts.sizes.is_empty() {
        flood::<f32>(gpu, report)?;
        report.progress("flood f32");
        flood::<f64>(gpu, report)?;
        report.progress("flood f64");
    }
    if opts.runs && opts.sizes.is_empty() {
        balance::<f32>(gpu, opts, report, Accumulation::Plain)?;
        balance::<f32>(gpu, opts, report, Accumulation::Compensated)?;
        balance::<f64>(gpu, opts, report, Accumulation::Compensated)?;
        balance_mixed(gpu, opts, report)?;
        report.progress("balance");
    }
    Ok(())
}

/// Words a cell an RK2 step of `p` moves in `T` (the module comment): [`step_words_of`] with
/// w's low parts where `p` keeps them in `T`.
fn step_words<T: GpuReal>(p: &Problem, fused: bool) -> f64 {
    step_words_of(fused, p.compensates::<T>())
}

/// Words a cell an RK2 step moves: 37, or 28 with the second stage in the streamed flux kernel
/// (`fused`), and 5 more for w's low parts (`compensated`).
fn step_words_of(fused: bool, compensated: bool) -> f64 {
    (if fused { 28.0 } else { 37.0 }) + 5.0 * compensated as u8 as f64
}

/// 1 where a run of `p` in `T` keeps w's low part (the default in f32), else 0: the words it adds
/// a cell, 2 to stage 1 and 3 to stage 2.
fn low<T: GpuReal>(p: &Problem) -> f64 {
    p.compensates::<T>() as u8 as f64
}

/// The notes' cell rate: `cells` updated in `ms` milliseconds, in Gcell/s.
fn cell_rate(cells: f64, ms: f64) -> String {
    format!("{:.3} Gcell/s", cells / (ms * 1e-3) / 1e9)
}

/// The grid and the fresh run's steps of the "kp balance" rows.
const BALANCE_N: usize = 1024;
const BALANCE_STEPS: u64 = 10_000;

/// Whole RK2 steps of Thacker's bowl at [`BALANCE_N`]² in precision `T` with `accumulation`
/// (f64 runs the plain update whatever it says), with the words a cell each moves and the
/// relative volume change of a fresh run after [`BALANCE_STEPS`] steps.
fn balance<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, accumulation: Accumulation) -> Result<()> {
    let problem = Problem { accumulation, ..setup::thacker(BALANCE_N) };
    let launch = bench_launch(opts, BALANCE_N);
    let how = problem.accumulation_of::<T>();
    let words = step_words::<T>(&problem, true);
    let cells = (BALANCE_N * BALANCE_N) as f64;
    let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
    let t = time_gpu(gpu, opts.warmup, opts.reps, |_| m.step(FluxKernel::Full))?;
    drop(m);
    let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
    let bed = m.cell_bed(gpu)?;
    let volume = |m: &GpuKp<T>| -> Result<f64> {
        Ok(problem.volume_with_low(&m.download(gpu)?[0], m.download_low(gpu)?.as_deref(), &bed))
    };
    let v0 = volume(&m)?;
    for _ in 0..BALANCE_STEPS {
        m.step(FluxKernel::Full)?;
    }
    let err = (volume(&m)? - v0) / v0;
    let name = format!("RK2 step, Thacker bowl, wet–dry {}, {how}", problem.wet_dry.name());
    let note = format!("volume change after {BALANCE_STEPS} steps");
    report.push(
        "kp balance",
        &name,
        &format!("{BALANCE_N}²"),
        T::NAME,
        t.median_ms,
        words * size_of::<T>() as f64 * cells,
        None,
        note,
    );
    report.conservation(err);
    Ok(())
}

/// Bytes a cell an RK2 step moves in mixed precision, stage 2 fused (the module comment).
const MIXED_STEP_BYTES: f64 = 144.0;

/// [`balance`] in mixed precision (`GpuKp::new_mixed`: w and R_w in f64), its volume in f64.
fn balance_mixed(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let problem = setup::thacker(BALANCE_N);
    let launch = bench_launch(opts, BALANCE_N);
    let cells = (BALANCE_N * BALANCE_N) as f64;
    let mut m = GpuKp::new_mixed(gpu, &problem, launch)?;
    let t = time_gpu(gpu, opts.warmup, opts.reps, |_| m.step(FluxKernel::Full))?;
    drop(m);
    let mut m = GpuKp::new_mixed(gpu, &problem, launch)?;
    let bed = problem.interior(&m.cell_bed(gpu)?);
    let volume = |m: &GpuKp<f32>| -> Result<f64> {
        let w = problem.interior(&m.download_mixed(gpu)?.0);
        Ok(w.iter().zip(&bed).map(|(w, b)| w - *b as f64).sum::<f64>() * problem.dx * problem.dy)
    };
    let v0 = volume(&m)?;
    for _ in 0..BALANCE_STEPS {
        m.step(FluxKernel::Full)?;
    }
    let err = (volume(&m)? - v0) / v0;
    let name = format!("RK2 step, Thacker bowl, wet–dry {}, w in f64", problem.wet_dry.name());
    let note = format!("volume change after {BALANCE_STEPS} steps");
    report.push(
        "kp balance",
        &name,
        &format!("{BALANCE_N}²"),
        "mixed",
        t.median_ms,
        MIXED_STEP_BYTES * cells,
        None,
        note,
    );
    report.conservation(err);
    Ok(())
}

/// The launch of an `n × n` bench grid: the built-in one for it (`Launch::default_for`), with
/// `--block`'s RK block and `--rows`' rows a streamed warp where they are given.
fn bench_launch(opts: &BenchOptions, n: usize) -> Launch {
    let d = Launch::default_for(n, n);
    let flux = match (opts.rows, d.flux) {
        (Some(rows), FluxVariant::Stream { warps, .. }) => FluxVariant::Stream { warps, rows },
        (_, flux) => flux,
    };
    Launch { block: opts.block.unwrap_or(d.block), flux, ..d }
}

/// Streamed shapes (warps a block, rows a warp) swept at [`SWEEP_N`].
const SWEEP: [(u32, u32); 8] = [(2, 16), (2, 32), (4, 16), (4, 64), (4, 128), (8, 16), (8, 32), (8, 64)];
const SWEEP_N: usize = 4096;

fn kernels<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize) -> Result<()> {
    let launch = bench_launch(opts, n);
    let cells = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let size = format!("{n}²");
    let p = T::NAME;
    let (bx, by) = launch.block;
    let rate = |ms: f64| cell_rate(cells, ms);
    let (warm, reps) = (opts.warmup, opts.reps);
    // Each wet–dry scheme has its own flux kernels: their rows and whole steps with each (one
    // model at a time: 8192² f64 is 6 GB). The other kernels are the same in both schemes.
    let every_scheme = n == SWEEP_N || !opts.sizes.is_empty();
    for wet_dry in WetDry::GPU.into_iter().filter(|&s| every_scheme || s == WetDry::DEFAULT) {
        let mut problem = setup::dam_break(n, n, false);
        problem.wet_dry = wet_dry;
        let scheme = format!("wet–dry {}", wet_dry.name());
        let default = wet_dry == WetDry::DEFAULT;
        let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
        let mut sweep: Vec<FluxVariant> = vec![FluxVariant::Tile, launch.flux];
        if n == SWEEP_N && default {
            sweep.extend(SWEEP.iter().map(|&(warps, rows)| FluxVariant::Stream { warps, rows }));
        }
        for (i, &flux) in sweep.iter().enumerate() {
            m.set_flux(gpu, flux)?;
            let shape = match flux {
                FluxVariant::Tile => format!("block {bx}×{by}"),
                FluxVariant::Stream { warps, rows } => format!("{warps} warps a block, {rows} rows a warp"),
            };
            // Early exit (on an all-wet grid: its overhead) for the two default shapes only.
            let kernels: &[FluxKernel] =
                if i < 2 { &[FluxKernel::Full, FluxKernel::EarlyExit] } else { &[FluxKernel::Full] };
            for &kernel in kernels {
                let t = time_gpu(gpu, warm, reps, |_| m.flux(kernel, false))?;
                let what = if kernel == FluxKernel::Full { "full" } else { "early exit (all wet)" };
                let note = format!("{shape}; {}", rate(t.median_ms));
                report.push(
                    "kp flux",
                    &format!("{} {what}, {scheme}", flux.describe()),
                    &size,
                    p,
                    t.median_ms,
                    7.0 * w * cells,
                    None,
                    note,
                );
                report.counted(&t.launches, cells);
            }
        }
        m.set_flux(gpu, launch.flux)?;
        if default {
            let t = time_gpu(gpu, warm, reps, |_| m.time_step())?;
            let slots = launch.flux.slots(n as u32, n as u32, launch.block);
            let note = format!("{slots} rate slots");
            report.push("kp dt", "reduce + Δt", &size, p, t.median_ms, w * slots as f64, None, note);
            report.counted(&t.launches, cells);
            let note = |ms: f64| format!("block {bx}×{by}; {}", rate(ms));
            let t = time_gpu(gpu, warm, reps, |_| m.rk(1))?;
            let stage1 = (10.0 + 2.0 * low::<T>(&problem)) * w * cells;
            report.push("kp rk", "stage 1", &size, p, t.median_ms, stage1, None, note(t.median_ms));
            report.counted(&t.launches, cells);
            let t = time_gpu(gpu, warm, reps, |_| m.rk(2))?;
            let stage2 = (13.0 + 3.0 * low::<T>(&problem)) * w * cells;
            report.push("kp rk", "stage 2", &size, p, t.median_ms, stage2, None, note(t.median_ms));
            report.counted(&t.launches, cells);
            // Stage 2 in the streamed flux kernel: Q¹, B, Qⁿ, cell B read, Qⁿ⁺¹ written.
            let t = time_gpu(gpu, warm, reps, |_| m.flux_rk())?;
            let fused = (11.0 + 3.0 * low::<T>(&problem)) * w * cells;
            let v = format!("stage 2 in the {} flux kernel", launch.flux.describe());
            report.push("kp rk", &v, &size, p, t.median_ms, fused, None, rate(t.median_ms));
            report.counted(&t.launches, cells);
            let t = time_gpu(gpu, warm, reps, |_| m.boundary(false))?;
            let ghosts = 4.0 * (2 * n + 4) as f64;
            report.push("kp boundary", "both passes", &size, p, t.median_ms, 6.0 * w * ghosts, None, String::new());
            report.counted(&t.launches, cells);
        }
        // The streamed kernel with the second stage in it (the default) and apart, and the tile one.
        for (flux, fused) in [(launch.flux, true), (launch.flux, false), (FluxVariant::Tile, false)] {
            m.set_flux(gpu, flux)?;
            m.set_fused(fused);
            let stage2 = match flux {
                FluxVariant::Tile => "",
                FluxVariant::Stream { .. } if fused => ", stage 2 fused",
                FluxVariant::Stream { .. } => ", stage 2 apart",
            };
            // The fused second stage has no early-exit form: one row for early exit.
            let kernels: &[FluxKernel] =
                if fused { &[FluxKernel::Full] } else { &[FluxKernel::Full, FluxKernel::EarlyExit] };
            for &kernel in kernels {
                let t = time_gpu(gpu, warm, reps, |_| m.step(kernel))?;
                let v = format!(
                    "RK2 step, {} flux{stage2}{}, {scheme}",
                    flux.describe(),
                    if kernel == FluxKernel::Full { "" } else { ", early exit" },
                );
                let words = step_words::<T>(&problem, fused);
                report.push("kp step", &v, &size, p, t.median_ms, words * w * cells, None, rate(t.median_ms));
                report.counted(&t.launches, cells);
                // The default step as a run queues its batches: GRAPH_STEPS steps as one graph,
                // and the same steps launched one by one; per step.
                if fused {
                    let steps = GRAPH_STEPS as usize;
                    let both = time_steps_in_graph(gpu, warm, reps, steps, || m.step(kernel))?;
                    for (t, how) in both.into_iter().zip(["a graph of", "launches of"]) {
                        let v = format!("{v}, {how} {steps} steps");
                        report.push("kp step", &v, &size, p, t.median_ms, words * w * cells, None, rate(t.median_ms));
                        report.counted(&t.launches, cells);
                    }
                }
            }
        }
        drop(m);
        if default {
            tuned_step::<T>(gpu, opts, report, &problem, launch)?;
        }
    }
    // The other time-stepping schemes, and what friction fields and forcing add to the step:
    // at 4096² and the sizes asked for.
    if every_scheme {
        srk2::<T>(gpu, opts, report, n, launch)?;
        split::<T>(gpu, opts, report, n, launch)?;
        friction::<T>(gpu, opts, report, n, launch)?;
        forcing::<T>(gpu, opts, report, n, launch)?;
    }
    Ok(())
}

/// The RK2 step of `problem` at the launch the tuning cache holds for this GPU (`hydrokern
/// tune`; the RK2 step's targets are for the step after tuning), beside the default `launch`'s
/// rows: nothing when there is no entry, tuning is off, or the entry is the default.
fn tuned_step<T: GpuReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    problem: &Problem,
    launch: Launch,
) -> Result<()> {
    let Some(tuned) = super::tune::launch_for(gpu, crate::Precision::of::<T>()) else { return Ok(()) };
    if tuned == launch {
        return Ok(());
    }
    let n = problem.nx;
    let cells = (n * problem.ny) as f64;
    let mut m = GpuKp::<T>::new(gpu, problem, tuned)?;
    let t = time_gpu(gpu, opts.warmup, opts.reps, |_| m.step(FluxKernel::Full))?;
    let fused = m.fuses(FluxKernel::Full);
    let v = format!(
        "RK2 step, tuned launch {} ({}), {}wet–dry {}",
        super::tune::label(tuned),
        tuned.flux.describe(),
        if fused { "stage 2 fused, " } else { "" },
        problem.wet_dry.name()
    );
    let words = step_words::<T>(problem, fused);
    let rate = cell_rate(cells, t.median_ms);
    report.push(
        "kp step",
        &v,
        &format!("{n}²"),
        T::NAME,
        t.median_ms,
        words * size_of::<T>() as f64 * cells,
        None,
        rate,
    );
    report.counted(&t.launches, cells);
    Ok(())
}

/// DS1 and DS2 (Amundsen §3.1.2–3.1.3) in the default wet–dry scheme: whole steps on the
/// all-wet dam break, beside RK2's. Words a cell: a substep's x-line launch 7 (w, hu, hv and B
/// read, R written), an Euler stage 10 (Qⁿ, R and the cell bed read, the output written), an RK2
/// stage 2 13: DS1's step (X, Y: two Euler substeps) 34 for Δt, DS2's double step (four RK2
/// substeps) 148 for 2Δt; the clock kernels and the reductions besides. By the words alone:
/// DS1 about RK2's step time (34 words against 37), DS2 about four times it per
/// double step, so twice RK2's time for the same simulated time, unless the x-line kernel and
/// the transposing stage run nearer the copy bandwidth than RK2's kernels.
fn split<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize, launch: Launch) -> Result<()> {
    let cells = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let rate = |ms: f64| cell_rate(cells, ms);
    for (scheme, words, what) in [(Scheme::Ds1, 34.0, "advances Δt"), (Scheme::Ds2, 148.0, "advances 2Δt")] {
        let problem = Problem { scheme, ..setup::dam_break(n, n, false) };
        let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
        let t = time_gpu(gpu, opts.warmup, opts.reps, |_| m.step(FluxKernel::Full))?;
        let retries = m.split_state(gpu)?.map_or(0, |(_, r)| r);
        let v = format!(
            "{} step, x-line {}, wet–dry {}",
            scheme.name().to_uppercase(),
            launch.line,
            problem.wet_dry.name()
        );
        let note = format!("{what}; {}; {retries} of the timed steps discarded", rate(t.median_ms));
        report.push("kp step", &v, &format!("{n}²"), T::NAME, t.median_ms, words * w * cells, None, note);
        report.counted(&t.launches, cells);
    }
    Ok(())
}

/// SRK2's x-line lengths swept.
const LINES: [u32; 4] = [64, 128, 256, 512];

/// SRK2 (Amundsen §3.1.1) in the default wet–dry scheme: its x-line kernel (each length of
/// [`LINES`]) with its y-block kernel, its RK stages and whole
/// steps, beside the RK2 rows above. Words a cell: each flux kernel 7 (w, hu, hv, B read, its
/// part of R written), stage 1 13 and stage 2 16 (the two parts of R read), a step 57.
fn srk2<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize, launch: Launch) -> Result<()> {
    let cells = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let (size, p) = (format!("{n}²"), T::NAME);
    let (warm, reps) = (opts.warmup, opts.reps);
    let rate = |ms: f64| cell_rate(cells, ms);
    let mut problem = setup::dam_break(n, n, false);
    problem.scheme = Scheme::Srk2;
    let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
    let scheme = format!("wet–dry {}", WetDry::DEFAULT.name());
    for line in LINES {
        m.set_line(gpu, line)?;
        // x-line and y-block together (one `flux` call launches both).
        let t = time_gpu(gpu, warm, reps, |_| m.flux(FluxKernel::Full, false))?;
        let note = format!("x-line {line} + y-block {}×{}; {}", launch.block.0, launch.block.1, rate(t.median_ms));
        report.push(
            "kp flux",
            &format!("srk2 x-line + y-block, {scheme}"),
            &size,
            p,
            t.median_ms,
            14.0 * w * cells,
            None,
            note,
        );
        report.counted(&t.launches, cells);
    }
    m.set_line(gpu, launch.line)?;
    let t = time_gpu(gpu, warm, reps, |_| m.rk(1))?;
    report.push("kp rk", "srk2 stage 1", &size, p, t.median_ms, 13.0 * w * cells, None, rate(t.median_ms));
    report.counted(&t.launches, cells);
    let t = time_gpu(gpu, warm, reps, |_| m.rk(2))?;
    report.push("kp rk", "srk2 stage 2", &size, p, t.median_ms, 16.0 * w * cells, None, rate(t.median_ms));
    report.counted(&t.launches, cells);
    for kernel in [FluxKernel::Full, FluxKernel::EarlyExit] {
        let t = time_gpu(gpu, warm, reps, |_| m.step(kernel))?;
        let early = if kernel == FluxKernel::Full { "" } else { ", early exit" };
        let v = format!("SRK2 step, x-line {}{early}, {scheme}", launch.line);
        report.push("kp step", &v, &size, p, t.median_ms, 57.0 * w * cells, None, rate(t.median_ms));
        report.counted(&t.launches, cells);
    }
    Ok(())
}

/// The RK stages and the default RK2 step with Manning's n = 0.03 as one constant (the RK
/// kernel `kp_rk`) and as a field of 0.03 in every cell (`kp_rk_friction_field`, one more word
/// a cell a stage), one model at a time, in the same run: what the friction field costs.
fn friction<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize, launch: Launch) -> Result<()> {
    let cells = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let size = format!("{n}²");
    let (warm, reps) = (opts.warmup, opts.reps);
    for field in [false, true] {
        let mut problem = setup::dam_break(n, n, false);
        let (what, extra) = if field {
            problem.manning_field = Some(vec![0.03; n * n]);
            ("Manning n = 0.03 per cell (friction field)", 1.0)
        } else {
            problem.manning = 0.03;
            ("Manning n = 0.03", 0.0)
        };
        let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
        let t = time_gpu(gpu, warm, reps, |_| m.rk(1))?;
        report.push(
            "kp rk",
            &format!("stage 1, {what}"),
            &size,
            T::NAME,
            t.median_ms,
            (10.0 + extra + 2.0 * low::<T>(&problem)) * w * cells,
            None,
            String::new(),
        );
        report.counted(&t.launches, cells);
        let t = time_gpu(gpu, warm, reps, |_| m.rk(2))?;
        report.push(
            "kp rk",
            &format!("stage 2, {what}"),
            &size,
            T::NAME,
            t.median_ms,
            (13.0 + extra + 3.0 * low::<T>(&problem)) * w * cells,
            None,
            String::new(),
        );
        report.counted(&t.launches, cells);
        let t = time_gpu(gpu, warm, reps, |_| m.step(FluxKernel::Full))?;
        let v = format!("RK2 step, {} flux, wet–dry {}, {what}", launch.flux.describe(), WetDry::DEFAULT.name());
        // The default step: stage 2 in the streamed flux kernel.
        report.push(
            "kp step",
            &v,
            &size,
            T::NAME,
            t.median_ms,
            (step_words::<T>(&problem, true) + 2.0 * extra) * w * cells,
            None,
            String::new(),
        );
        report.counted(&t.launches, cells);
    }
    Ok(())
}

/// The RK2 step of the dam break without forcing and with each kind: uniform rain; rain on a
/// Green–Ampt soil; rain, soil and two inflows (a 100-cell reach of the west side and a point), and
/// with the east side an outlet (the water account's faces), plain and of normal depth (its faces
/// let water only out: a pass over them before each flux launch, and the flux kernels that read the
/// activity map); the cells outside the inscribed disc inactive (a catchment's outline) with no
/// forcing, with uniform rain and with rain on a Green–Ampt soil; gridded rain at the cells'
/// resolution (two frames); and that rain on four Horton soils by cell. Words a cell: the step's,
/// plus what the forcing adds — uniform rain and a uniform Green–Ampt soil act inside the last RK
/// stage, which reads and writes the soil's total besides; a rain grid and soils by cell take a
/// pass over every cell (w and the cell B read, w written; the soil's total read and written with a
/// soil; a cell's rain cell and its frame's value, with soils per cell its soil's index, 4 bytes
/// each); with an activity map its byte a cell in each flux kernel — and the ghost cells again
/// (O(n)).
fn forcing<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize, launch: Launch) -> Result<()> {
    use crate::forcing::{DISCHARGE, GreenAmpt, Horton, Inflow, Outlet, RAIN, RainGrid, Series, Soil, Soils};
    let cells = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let size = format!("{n}²");
    let series = |v: f64, q, unit| Series::from_points("bench", &[(0.0, v), (1e9, v)], q, "s", unit);
    let rain = series(1e-5, &RAIN, "m/s")?;
    let soil = GreenAmpt { ks: 1e-6, suction: 0.2, deficit: 0.3 };
    let reach = Inflow {
        name: "reach".into(),
        series: series(10.0, &DISCHARGE, "m3/s")?,
        cells: (0..100.min(n)).map(|j| (j * n, 0.01)).collect(),
    };
    let point = Inflow {
        name: "point".into(),
        series: series(1.0, &DISCHARGE, "m3/s")?,
        cells: vec![(n * n / 2 + n / 4, 1.0)],
    };
    // Two frames of the cells' own resolution, the second from t = 0.5 s; four Horton soils.
    let frames: Vec<f32> = (0..2 * n * n).map(|c| 1e-5 * (1 + c % 7) as f32).collect();
    let grid = RainGrid::new("bench", vec![0.0, 0.5, 1e9], frames, n * n, (0..(n * n) as u32).collect())?;
    let hortons: Vec<Soil> = (1..=4).map(|k| Horton { f0: 2e-5 * k as f64, fc: 2e-6, k: 1e-3 }.into()).collect();
    let by_cell = Soils::per_cell(hortons, (0..n * n).map(|c| ((c % n + c / n) % 4) as u32).collect())?;
    let index = 4.0 / w;
    // The east side opened as an outlet: the water account's kernel over its faces each stage.
    let outlet = Outlet { name: "outlet".into(), side: 1, cells: 0..n, normal_depth: false };
    // The activity map, one byte a cell, read by the two flux kernels of a step.
    let map = 2.0 / w;
    // (what, extra words a cell, uniform rain, Green–Ampt soil, inflows, rain grid, Horton by
    // cell, the outlet, of normal depth, the cells outside the inscribed disc inactive)
    let kinds: [(&str, f64, [bool; 8]); 11] = [
        ("no forcing", 0.0, [false, false, false, false, false, false, false, false]),
        ("uniform rain", 0.0, [true, false, false, false, false, false, false, false]),
        ("rain, Green–Ampt soil", 2.0, [true, true, false, false, false, false, false, false]),
        ("rain, soil, two inflows", 2.0, [true, true, true, false, false, false, false, false]),
        ("rain, soil, two inflows, an outlet", 2.0, [true, true, true, false, false, true, false, false]),
        (
            "rain, soil, two inflows, a normal-depth outlet",
            2.0 + map,
            [true, true, true, false, false, true, true, false],
        ),
        ("no forcing, inactive cells outside a disc", map, [false, false, false, false, false, false, false, true]),
        ("uniform rain, inactive cells outside a disc", map, [true, false, false, false, false, false, false, true]),
        (
            "rain, Green–Ampt soil, inactive cells outside a disc",
            2.0 + map,
            [true, true, false, false, false, false, false, true],
        ),
        ("rain grid", 3.0 + 2.0 * index, [false, false, false, true, false, false, false, false]),
        ("rain grid, Horton soils by cell", 5.0 + 3.0 * index, [false, false, false, true, true, false, false, false]),
    ];
    for (what, extra, [uniform, with_soil, inflows, gridded, horton, open, normal_depth, disc]) in kinds {
        let mut problem = setup::dam_break(n, n, false);
        if what != "no forcing" {
            problem.dt_max = 10.0;
        }
        if uniform {
            problem.forcing.rain = Some(rain.clone());
        }
        if with_soil {
            problem.forcing.soil = Some(soil.into());
        }
        if inflows {
            problem.forcing.inflows = vec![reach.clone(), point.clone()];
        }
        if gridded {
            problem.forcing.rain_grid = Some(grid.clone());
        }
        if horton {
            problem.forcing.soil = Some(by_cell.clone());
        }
        if open {
            problem.forcing.outlets = vec![Outlet { normal_depth, ..outlet.clone() }];
        }
        if disc {
            // A catchment's nodata: the 21% of the cells outside the inscribed disc.
            let r2 = (n * n) as f64 / 4.0;
            let inside = |c: usize| {
                let (x, y) = ((c % n) as f64 + 0.5 - n as f64 / 2.0, (c / n) as f64 + 0.5 - n as f64 / 2.0);
                x * x + y * y <= r2
            };
            let active: Vec<bool> = (0..n * n).map(inside).collect();
            for (c, _) in active.iter().enumerate().filter(|(_, a)| !**a) {
                (problem.h[c], problem.hu[c], problem.hv[c]) = (0.0, 0.0, 0.0);
            }
            problem.active = Some(active);
        }
        let mut m = GpuKp::<T>::new(gpu, &problem, launch)?;
        let t = time_gpu(gpu, opts.warmup, opts.reps, |_| m.step(FluxKernel::Full))?;
        report.push(
            "kp forcing",
            &format!("RK2 step, {} flux, wet–dry {}, {what}", launch.flux.describe(), WetDry::DEFAULT.name()),
            &size,
            T::NAME,
            t.median_ms,
            (step_words::<T>(&problem, true) + extra) * w * cells,
            None,
            String::new(),
        );
        report.counted(&t.launches, cells);
    }
    Ok(())
}

/// Times at which the flood run is split: each segment is timed on its own, and the wet
/// fraction at its end says how much of the domain the early exit could still skip.
const FLOOD_CHECKPOINTS: [f64; 4] = [0.1, 0.25, 0.5, FLOOD_T];

/// One flood run to [`FLOOD_T`] with one flux kernel throughout: per segment, wall time (clock
/// reads included), steps and the wet fraction at its end.
fn flood_run<T: GpuReal>(gpu: &Gpu, kernel: FluxKernel, wet_dry: WetDry) -> Result<Vec<(f64, u64, f64)>> {
    let mut problem = setup::flood(FLOOD_N, FLOOD_N);
    problem.wet_dry = wet_dry;
    let mut m = GpuKp::<T>::new(gpu, &problem, Launch::default_for(FLOOD_N, FLOOD_N))?;
    let mut out = Vec::new();
    let mut steps_before = 0;
    for &t_stop in &FLOOD_CHECKPOINTS {
        m.set_stop(t_stop);
        gpu.synchronize()?;
        let start = Instant::now();
        loop {
            for _ in 0..50 {
                m.step(kernel)?;
            }
            let c = m.clock(gpu)?;
            if c.t >= t_stop || c.status != 0 {
                break;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let c = m.clock(gpu)?;
        out.push((secs, c.steps - steps_before, m.wet_fraction(gpu)?));
        steps_before = c.steps;
    }
    Ok(out)
}

/// The flooding dam break at 4096² to [`FLOOD_T`] with early exit off and on, segment by
/// segment and whole (the default wet–dry scheme); then, in f32, the whole run with early exit
/// on in each other scheme, for its steps.
fn flood<T: GpuReal>(gpu: &Gpu, report: &mut Report) -> Result<()> {
    let off = flood_run::<T>(gpu, FluxKernel::Full, WetDry::DEFAULT)?;
    let on = flood_run::<T>(gpu, FluxKernel::EarlyExit, WetDry::DEFAULT)?;
    let cells = (FLOOD_N * FLOOD_N) as f64;
    let w = std::mem::size_of::<T>() as f64;
    // The flood runs the default update (compensated in f32): early exit off with the second
    // stage in the streamed flux kernel, on with the two apart (no early-exit fused form).
    let compensated = Accumulation::default().compensates::<T>();
    let (words_off, words_on) = (step_words_of(true, compensated), step_words_of(false, compensated));
    let size = format!("{FLOOD_N}²");
    let mut t0 = 0.0;
    for (i, &t1) in FLOOD_CHECKPOINTS.iter().enumerate() {
        let ((s_off, n_off, _), (s_on, n_on, wet)) = (off[i], on[i]);
        for (mode, secs, steps) in [("off", s_off, n_off), ("on", s_on, n_on)] {
            let speedup = if mode == "on" { format!("; {:.2}× early exit off", s_off / s_on) } else { String::new() };
            report.push(
                "kp flood",
                &format!("t {t0}–{t1} s, early exit {mode}"),
                &size,
                T::NAME,
                secs * 1e3,
                if mode == "on" { words_on } else { words_off } * w * cells * steps as f64,
                None,
                format!("{steps} steps, {:.0}% of tiles wet at the end{speedup}", wet * 100.0),
            );
        }
        t0 = t1;
    }
    let (total_on, total_off): (f64, f64) = (on.iter().map(|r| r.0).sum(), off.iter().map(|r| r.0).sum());
    let steps: u64 = on.iter().map(|r| r.1).sum();
    let default = WetDry::DEFAULT.name();
    report.push(
        "kp flood",
        &format!("t 0–{FLOOD_T} s, early exit on, wet–dry {default}"),
        &size,
        T::NAME,
        total_on * 1e3,
        words_on * w * cells * steps as f64,
        None,
        format!("{steps} steps; {:.2}× early exit off ({:.0} ms)", total_off / total_on, total_off * 1e3),
    );
    let last = FLOOD_CHECKPOINTS.len() - 1;
    let late_on = on[last].1;
    let late_span = format!("t = {} s to {FLOOD_T} s", FLOOD_CHECKPOINTS[last - 1]);
    // The other schemes in f32 only: their rows compare steps and time with the default's.
    let others = if crate::Precision::of::<T>() == crate::Precision::F32 { &WetDry::GPU[..] } else { &[] };
    for &other in others.iter().filter(|&&s| s != WetDry::DEFAULT) {
        let run = flood_run::<T>(gpu, FluxKernel::EarlyExit, other)?;
        let (secs, steps): (f64, u64) = (run.iter().map(|r| r.0).sum(), run.iter().map(|r| r.1).sum());
        let late: u64 = run[last].1;
        report.push(
            "kp flood",
            &format!("t 0–{FLOOD_T} s, early exit on, wet–dry {}", other.name()),
            &size,
            T::NAME,
            secs * 1e3,
            words_on * w * cells * steps as f64,
            None,
            format!(
                "{steps} steps ({late} from {late_span}; {default} {late_on}); {:.2}× {default}'s time",
                secs / total_on
            ),
        );
    }
    Ok(())
}
