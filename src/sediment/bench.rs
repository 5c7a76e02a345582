//! `bench sediment`: every h, s and fused variant and full steps, f32 and f64, at 1024²,
//! 4096², 8192² (sizes are n for n×n). Bytes counted are the fewest each kernel must move:
//! h-kernel reads h, s, α, β and writes h' (5 words a point); s-kernel reads h, h', s, α and
//! writes s' (5); fused reads h, s, α, β and writes h', s' (6). GFLOP/s use Su et al.'s counts
//! (55 per h point, 34 per s point). The CPU reference (one thread, all threads) is the peer.
//!
//! Every row is timed for both schemes: the `seed` scheme's under its own names (comparable
//! with the paper and with other runs of this suite), the bounded scheme's beside it as
//! `"bounded <variant>"` (the same bytes; no GFLOP/s, Su et al.'s counts are for their formulas).
//! Its target: within 5% of the `seed` row of the same kernel.
//!
//! Those rows time the plain h update (one field of h). The "sediment balance" rows time whole
//! steps of each h update — plain in both precisions and, in f32, the compensated one (the
//! default: h's low part read and written too, 2 words a point more, counted) — and give the
//! relative mass balance (gained − supplied) / supplied after `BALANCE_STEPS` steps of a fresh
//! run in the report's conservation column: f32's beside f64's (docs/f32-conservation.md); the
//! report's note says why the other rows have none; they run up to 4096² (and at every size
//! `--sizes` names): at 8192² their fresh runs of 2000 steps, one per update, cost more than
//! all that size's other rows. The mixed precision's rows ("fused mixed", precision "mixed")
//! time its fused step: h and h' in f64, s, α, β, s' in f32, 32 bytes a point — what the
//! compensated f32 fused step moves (8 words of 4 bytes).

use crate::bench::{BenchOptions, Report, rotation, time_cpu, time_gpu};
use crate::runtime::Gpu;
use crate::sediment::cpu::CpuSediment;
use crate::sediment::gpu::{GpuSediment, Launch};
use crate::sediment::mixed::GpuMixed;
use crate::sediment::{Accumulation, FLOPS_H, FLOPS_S, HVariant, Problem, SVariant, Scheme, StepVariant, setup};
use crate::{GpuReal, Result};

/// `hydrokern bench sediment`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "sediment",
    about: "every sediment h, s and fused variant and whole steps, seed and bounded schemes, f32 and f64, n² for n in 1024, 4096, 8192; whole steps of the plain and compensated f32 h updates and of the mixed precision beside f64 with their mass balance",
    parts: &[],
    run,
};

const DEFAULT_N: [usize; 3] = [1024, 4096, 8192];
/// The CPU peer is timed up to this n (one 8192² single-thread step takes tens of seconds).
const CPU_MAX_N: usize = 4096;
/// The balance rows run up to this n at the default sizes (the module comment).
const BALANCE_MAX_N: usize = 4096;

/// What the conservation column holds here, and why most rows have none.
const CONSERVATION_NOTE: &str = "conservation error: (gained − supplied)/supplied of h after 2000 steps of a fresh run \
    (volumes summed in f64; h with its low part on the compensated path), on the \"sediment balance\" rows: whole steps \
    of every h update in every precision, f32 plain and compensated, mixed and f64, each in the variants it measures. \
    The \"sediment h\", \"sediment s\" and \"sediment h+s\" rows time single kernels, not steps, and the \"sediment step\" \
    rows time the plain h update's steps: their balance is the \"sediment balance\" row of the same variant, precision \
    and update (plain), so they show —.";

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    report.note(CONSERVATION_NOTE);
    let sizes = if opts.sizes.is_empty() { DEFAULT_N.to_vec() } else { opts.sizes.clone() };
    for n in sizes {
        // The problem (4 f64 fields) and the CPU peer (6 fields) on the host; up to 4 rotated
        // models of 6 fields on the GPU; all with one ghost layer.
        let what = format!("bench sediment at {n}²");
        let stored = crate::bench::bytes(&what, &[n as u64 + 2, n as u64 + 2])?;
        if !crate::bench::fits(
            gpu,
            opts,
            &what,
            crate::bench::bytes(&what, &[stored, 10 * 8])?,
            crate::bench::bytes(&what, &[stored, 4 * 6 * 8])?,
        )? {
            continue;
        }
        for scheme in [Scheme::Seed, Scheme::Bounded] {
            let mut problem = setup::basin(n, n, 5.0)?;
            problem.scheme = scheme;
            problem.accumulation = Accumulation::Plain;
            let dt = problem.stability(&problem.h).automatic();
            precision::<f32>(gpu, opts, report, &problem, dt)?;
            precision::<f64>(gpu, opts, report, &problem, dt)?;
            if n <= BALANCE_MAX_N || !opts.sizes.is_empty() {
                for accumulation in Accumulation::ALL {
                    let problem = Problem { accumulation, ..problem.clone() };
                    balance::<f32>(gpu, opts, report, &problem, dt)?;
                }
                balance::<f64>(gpu, opts, report, &problem, dt)?;
                balance_mixed(gpu, opts, report, &problem, dt)?;
            }
            report.progress(format_args!("{n}², scheme {}", scheme.name()));
        }
    }
    Ok(())
}

/// (one thread, all threads) milliseconds per step of the CPU reference.
fn cpu_times<T: GpuReal>(problem: &crate::sediment::Problem, dt: f64, opts: &BenchOptions) -> Result<(f64, f64)> {
    let reps = opts.reps.clamp(1, 5);
    let mut m = CpuSediment::<T>::new(problem, dt)?;
    let all = time_cpu(1, reps, |_| {
        m.step();
        Ok(())
    })?;
    let one_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| crate::Error::invalid(format!("a one-thread pool: {e}")))?;
    let one = one_pool.install(|| {
        time_cpu(0, reps.min(2), |_| {
            m.step();
            Ok(())
        })
    })?;
    Ok((one.median_ms, all.median_ms))
}

fn precision<T: GpuReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    problem: &crate::sediment::Problem,
    dt: f64,
) -> Result<()> {
    let n = problem.nx;
    let cpu = if n <= CPU_MAX_N { Some(cpu_times::<T>(problem, dt, opts)?) } else { None };
    let points = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let size = format!("{n}²");
    let p = T::NAME;
    let d = Launch::default();
    let launch = Launch { block: opts.block.unwrap_or(d.block), rows: opts.rows.unwrap_or(d.rows) };
    // Six fields per model; rotate models so repeated runs read device memory, not L2.
    let rot = rotation(gpu, 6 * problem.len() * std::mem::size_of::<T>()).min(4);
    let mut models: Vec<GpuSediment<T>> =
        (0..rot).map(|_| GpuSediment::new(gpu, problem, dt, launch)).collect::<Result<_>>()?;
    let (b, bb) = launch.block;
    let shape = format!("{b}×{bb}");
    // Seed rows keep their names and counts; bounded rows are named "bounded <variant>".
    let seed = problem.scheme == Scheme::Seed;
    let name = |v: &str| if seed { v.to_string() } else { format!("bounded {v}") };
    let counted = |f: f64| if seed { Some(f * points) } else { None };
    for v in HVariant::ALL {
        let m = time_gpu(gpu, opts.warmup, opts.reps, |i| models[i % rot].h_kernel(v))?;
        let note = if v == HVariant::Multi {
            format!("block {shape}, {} rows/thread", launch.rows)
        } else {
            format!("block {shape}")
        };
        report.push("sediment h", &name(v.name()), &size, p, m.median_ms, 5.0 * w * points, counted(FLOPS_H), note);
    }
    for v in SVariant::ALL {
        let m = time_gpu(gpu, opts.warmup, opts.reps, |i| models[i % rot].s_kernel(v))?;
        let note = format!("block {shape}");
        report.push("sediment s", &name(v.name()), &size, p, m.median_ms, 5.0 * w * points, counted(FLOPS_S), note);
    }
    let flops = counted(FLOPS_H + FLOPS_S);
    let cols = if seed { 28 } else { 30 };
    let stream = format!("warps of {cols} columns, {bb} warps/block, {} rows/warp", launch.rows);
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| models[i % rot].fused())?;
    report.push("sediment h+s", &name("fused"), &size, p, m.median_ms, 6.0 * w * points, flops, stream);
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| models[i % rot].fused_tile())?;
    let tile = format!("block {shape} + halo threads");
    report.push("sediment h+s", &name("fused-tile"), &size, p, m.median_ms, 6.0 * w * points, flops, tile);
    // Whole steps (kernels plus the ghost launches), with speedups over the CPU reference.
    for (variant, words) in [
        (StepVariant::Split(HVariant::Opt1, SVariant::Opt1), 10.0),
        (StepVariant::Split(HVariant::Opt3, SVariant::Opt1), 10.0),
        (StepVariant::Split(HVariant::Multi, SVariant::Multi), 10.0),
        (StepVariant::Fused, 6.0),
        (StepVariant::FusedTile, 6.0),
    ] {
        let m = time_gpu(gpu, opts.warmup, opts.reps, |i| models[i % rot].step(variant))?;
        let note = match cpu {
            Some((one, all)) => format!(
                "{:.0}× CPU 1 thread, {:.0}× CPU {} threads",
                one / m.median_ms,
                all / m.median_ms,
                rayon::current_num_threads()
            ),
            None => String::new(),
        };
        report.push("sediment step", &name(&variant.name()), &size, p, m.median_ms, words * w * points, flops, note);
    }
    if let Some((one, all)) = cpu {
        let one_name = name("cpu reference, 1 thread");
        report.push("sediment step", &one_name, &size, p, one, 10.0 * w * points, flops, String::new());
        let threads = name(&format!("cpu reference, {} threads", rayon::current_num_threads()));
        report.push("sediment step", &threads, &size, p, all, 10.0 * w * points, flops, String::new());
    }
    Ok(())
}

/// Steps of the fresh run whose mass balance the "sediment balance" rows note.
const BALANCE_STEPS: u64 = 2000;

/// Whole steps of `problem`'s h update in precision `T` (the fused kernels and the multi-row
/// pair), with the words a point each moves (h's low part read and written on the compensated
/// path: 2 more) and the mass balance after [`BALANCE_STEPS`] steps.
fn balance<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, problem: &Problem, dt: f64) -> Result<()> {
    let n = problem.nx;
    let points = (n * n) as f64;
    let w = std::mem::size_of::<T>() as f64;
    let how = problem.accumulation.effective::<T>();
    let extra = if problem.accumulation.compensates::<T>() { 2.0 } else { 0.0 };
    let d = Launch::default();
    let launch = Launch { block: opts.block.unwrap_or(d.block), rows: opts.rows.unwrap_or(d.rows) };
    let fields = 6 + extra as usize;
    let rot = rotation(gpu, fields * problem.len() * std::mem::size_of::<T>()).min(4);
    let mut models: Vec<GpuSediment<T>> =
        (0..rot).map(|_| GpuSediment::new(gpu, problem, dt, launch)).collect::<Result<_>>()?;
    let scheme = if problem.scheme == Scheme::Seed { "" } else { "bounded " };
    for (variant, words) in [
        (StepVariant::Fused, 6.0),
        (StepVariant::FusedTile, 6.0),
        (StepVariant::Split(HVariant::Multi, SVariant::Multi), 10.0),
    ] {
        let m = time_gpu(gpu, opts.warmup, opts.reps, |i| models[i % rot].step(variant))?;
        let err = mass_balance::<T>(gpu, problem, dt, variant, launch)?;
        let name = format!("{scheme}{} {how}", variant.name());
        let note = format!("mass balance after {BALANCE_STEPS} steps");
        report.push(
            "sediment balance",
            &name,
            &format!("{n}²"),
            T::NAME,
            m.median_ms,
            (words + extra) * w * points,
            None,
            note,
        );
        report.conservation(err);
    }
    Ok(())
}

/// (gained − supplied) / supplied after [`BALANCE_STEPS`] steps of a fresh run, the volumes
/// summed in f64 from h (and its low part).
fn mass_balance<T: GpuReal>(
    gpu: &Gpu,
    problem: &Problem,
    dt: f64,
    variant: StepVariant,
    launch: Launch,
) -> Result<f64> {
    let mut m = GpuSediment::<T>::new(gpu, problem, dt, launch)?;
    let volume = |m: &GpuSediment<T>| -> Result<f64> {
        let low = m.download_low(gpu)?.map_or(0.0, |l| problem.volume(&l));
        Ok(problem.volume(&m.download_h(gpu)?) + low)
    };
    let v0 = volume(&m)?;
    for _ in 0..BALANCE_STEPS {
        m.step(variant)?;
    }
    let supplied = problem.supply_rate() * dt * BALANCE_STEPS as f64;
    Ok((volume(&m)? - v0 - supplied) / supplied)
}

/// Whole fused steps of `problem` in mixed precision (h in f64, the rest in f32: 2·8 + 4·4 bytes
/// a point) with the mass balance after [`BALANCE_STEPS`] steps of a fresh run.
fn balance_mixed(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, problem: &Problem, dt: f64) -> Result<()> {
    let n = problem.nx;
    let bytes_per_point = 2.0 * 8.0 + 4.0 * 4.0;
    let d = Launch::default();
    let launch = Launch { block: opts.block.unwrap_or(d.block), rows: opts.rows.unwrap_or(d.rows) };
    let rot = rotation(gpu, problem.len() * (2 * 8 + 4 * 4)).min(4);
    let mut models: Vec<GpuMixed> = (0..rot).map(|_| GpuMixed::new(gpu, problem, dt, launch)).collect::<Result<_>>()?;
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| models[i % rot].step())?;
    let mut fresh = GpuMixed::new(gpu, problem, dt, launch)?;
    let v0 = problem.volume(&fresh.download_h(gpu)?);
    for _ in 0..BALANCE_STEPS {
        fresh.step()?;
    }
    let supplied = problem.supply_rate() * dt * BALANCE_STEPS as f64;
    let err = (problem.volume(&fresh.download_h(gpu)?) - v0 - supplied) / supplied;
    let scheme = if problem.scheme == Scheme::Seed { "" } else { "bounded " };
    let note = format!("mass balance after {BALANCE_STEPS} steps");
    let bytes = bytes_per_point * (n * n) as f64;
    report.push(
        "sediment balance",
        &format!("{scheme}fused mixed"),
        &format!("{n}²"),
        "mixed",
        m.median_ms,
        bytes,
        None,
        note,
    );
    report.conservation(err);
    Ok(())
}
