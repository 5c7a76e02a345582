//! `bench adi`: the ADI model's sweeps and steps on n × n cells (256² to 8192², and the
//! thesis's 3008²), f32 and f64, for each strategy (S1: Thomas, twisted Thomas; S2: partition,
//! PCR, CR-PCR, where a line fits one block) and the automatic choice up to 3008², the automatic
//! choice alone above it, each with the y-sweep over transposed copies (the default) and over
//! columns (variant `<strategy>, y columns`), beside the CPU reference's step on one thread and
//! on all threads, the default design's step with Manning friction and with rain on a soil, and
//! followed by the products' update (gauges and maxima) a run keeps after every step. GB/s
//! count the fewest bytes a sweep must move: per cell it reads ζ, d, the along flux and the
//! across flux's two levels and writes ζ and the along flux (7 words), and reads and writes
//! the wet map (2 bytes); a step is two sweeps. The transposed design's extra copies (p and q
//! written twice, ζ^{n+½} and its wet map written transposed) are its cost, not useful
//! traffic: its rows count the same bytes. The problem: a closed basin 10 m deep with a hump
//! of water, Chézy friction, wind, Coriolis and the convective terms on, Courant number
//! √(gd)Δt/Δx ≈ 2; inputs rotate through several copies of the state where one would sit in
//! the L2 cache, and the sweeps alone are timed on each copy's state after two steps, when the
//! water moves (the start's fluxes are zero).

use super::Setup;
use super::cpu::Adi;
use super::gpu::{GpuAdi, Strategy, YSweep};
use crate::bench::{BenchOptions, Measurement, Report, rotation, time_cpu, time_gpu};
use crate::products::{self, ClockAt, GpuProducts};
use crate::runtime::Gpu;
use crate::{GpuReal, Result};

/// `hydrokern bench adi`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "adi",
    about: "ADI (MIKE 21 HD) x-sweep, y-sweep and step per strategy (thomas, twisted, partition, pcr, cr-pcr, auto; above 3008² auto alone), the y-sweep over transposed copies (the default) and over columns (\"<strategy>, y columns\"), f32 and f64, 256² to 8192² and 3008² (sizes: edges), CPU reference step on 1 and all threads up to 3008²; the auto step with Manning's n, with rain on a Green–Ampt soil and with the gauges' and maxima's update after it; GB/s by 7 words + 2 bytes a cell a sweep for both designs (the transposed copies are the design's cost, not counted)",
    parts: &[],
    run,
};

const DEFAULT_EDGES: [usize; 7] = [256, 512, 1024, 2048, 3008, 4096, 8192];
/// The CPU reference is timed up to this edge.
const CPU_MAX_EDGE: usize = 3008;
/// Every strategy runs up to this edge; above it the automatic choice alone.
const EVERY_STRATEGY_MAX_EDGE: usize = 3008;
/// Steps each copy takes before its sweeps are timed: after one, the wind has set every wet
/// face's flux moving.
const WARM_STEPS: u64 = 2;

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let edges = if opts.sizes.is_empty() { DEFAULT_EDGES.to_vec() } else { opts.sizes.clone() };
    for n in edges {
        size::<f32>(gpu, opts, report, n)?;
        size::<f64>(gpu, opts, report, n)?;
        report.progress(format_args!("{n}²"));
    }
    Ok(())
}

fn size<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize) -> Result<()> {
    let what = format!("bench adi at {n}² in {}", T::NAME);
    let word = std::mem::size_of::<T>() as u64;
    let cells = (n * n) as u64;
    // The larger design's state, so that both designs rotate through the same number of copies.
    let state = super::gpu::device_bytes(n, n, word as usize, YSweep::Transposed);
    let copies = rotation(gpu, state as usize);
    // The host holds the CPU model (5 words and a flag a cell) and, while it steps, its
    // sweep's five arrays of 2n + 1 values a line.
    let host = crate::bench::bytes(&what, &[cells, 16 * word + 1])?;
    if !crate::bench::fits(gpu, opts, &what, host, crate::bench::bytes(&what, &[state, copies as u64])?)? {
        return Ok(());
    }
    let cpu = Adi::<T>::new(&Setup::busy_basin(n))?;
    let label = format!("{n}²");
    let moved = (cells * (7 * word + 2)) as f64;
    let base = "closed basin, Chézy, wind, Coriolis, convection; 7 words + 2 B a cell a sweep".to_string();
    let cpu_times = if n <= CPU_MAX_EDGE { Some(cpu_steps(opts, report, &cpu, &label, moved, &base)?) } else { None };
    let speedup = |ms: f64| match cpu_times {
        Some((one, all)) => format!("; {:.0}× the CPU reference on 1 thread, {:.1}× on all", one / ms, all / ms),
        None => String::new(),
    };
    // Every strategy up to the thesis's 3008²; above it the automatic choice alone, whose
    // models (one a design, built from the CPU model's state) cost more host time than the
    // sweeps they time.
    let strategies: Vec<Strategy> = match n <= EVERY_STRATEGY_MAX_EDGE {
        true => Strategy::ALL.into_iter().chain([Strategy::Auto]).collect(),
        false => vec![Strategy::Auto],
    };
    let designs = strategies.into_iter().flat_map(|s| YSweep::ALL.map(|y| (s, y)));
    for (strategy, y_sweep) in designs {
        let variant = match y_sweep {
            YSweep::Transposed => strategy.name().to_string(),
            YSweep::Columns => format!("{strategy}, y columns"),
        };
        let mut runs = Vec::with_capacity(copies);
        for _ in 0..copies {
            match GpuAdi::with_y_sweep(gpu, &cpu, strategy, y_sweep) {
                Ok(r) => runs.push(r),
                Err(e) => {
                    crate::warn(format_args!("{what}, {variant}: skipped ({e})"));
                    break;
                }
            }
        }
        if runs.len() < copies {
            continue;
        }
        // The sweeps are timed on moving water: the start's fluxes are all zero, which takes
        // branches (a speed of 0, zero dividends) a flowing state does not.
        for r in &mut runs {
            r.advance(WARM_STEPS)?;
            r.check(gpu)
                .map_err(|e| crate::Error::invalid(format!("{what}, {variant}: the first steps failed: {e}")))?;
        }
        let how = runs[0].describe();
        let note = format!("{base}; {how}; {copies} state copies; sweeps timed after {WARM_STEPS} steps");
        for (y, kernel) in [(false, "adi x-sweep"), (true, "adi y-sweep")] {
            let m = time_gpu(gpu, opts.warmup, opts.reps, |i| runs[i % copies].enqueue_sweep(y))?;
            report.push(kernel, &variant, &label, T::NAME, m.median_ms, moved, None, note.clone());
        }
        let m = time_gpu(gpu, opts.warmup, opts.reps, |i| runs[i % copies].advance(1))?;
        for r in &mut runs {
            r.check(gpu)
                .map_err(|e| crate::Error::invalid(format!("{what}, {variant}: the timed steps failed: {e}")))?;
        }
        let note = format!("{note}{}", speedup(m.median_ms));
        report.push("adi step", &variant, &label, T::NAME, m.median_ms, 2.0 * moved, None, note.clone());
        if strategy == Strategy::Auto && y_sweep == YSweep::Transposed {
            drop(runs);
            let alone = (m.median_ms, moved, note.as_str());
            for with in [With::Manning, With::RainOnSoil] {
                step_with::<T>(gpu, opts, report, n, copies, with, (&variant, &label), alone)?;
            }
            let mut runs: Vec<GpuAdi<T>> =
                (0..copies).map(|_| GpuAdi::with_y_sweep(gpu, &cpu, strategy, y_sweep)).collect::<Result<_>>()?;
            products_step(gpu, opts, report, &cpu, &mut runs, (&variant, &label), (m.median_ms, moved, note))?;
        }
    }
    Ok(())
}

/// What [`step_with`] changes in the bench's basin.
#[derive(Clone, Copy)]
enum With {
    /// Manning's n = 0.03 in place of Chézy 50: the friction's h^(−⅓) at every face.
    Manning,
    /// Rain on a Green–Ampt soil: the forcing's pass over every cell after the y-sweep, which
    /// reads ζ, d, the wet flag and the soil's total and writes three of them.
    RainOnSoil,
}

/// The default design's step on the bench's basin changed as `with` says, in the same run as
/// the step alone (`alone`: its median, bytes, note).
#[allow(clippy::too_many_arguments)]
fn step_with<T: GpuReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    n: usize,
    copies: usize,
    with: With,
    (variant, label): (&str, &str),
    (alone, moved, note): (f64, f64, &str),
) -> Result<()> {
    use crate::forcing::{GreenAmpt, RAIN, Series};
    let word = std::mem::size_of::<T>() as f64;
    let mut setup = Setup::busy_basin(n);
    let (name, pass) = match with {
        With::Manning => {
            setup.friction = super::Friction::Manning(0.03);
            ("Manning n = 0.03", 0.0)
        }
        With::RainOnSoil => {
            setup.forcing.rain = Some(Series::from_points("bench", &[(0.0, 1e-5), (1e9, 1e-5)], &RAIN, "s", "m/s")?);
            setup.forcing.soil = Some(GreenAmpt { ks: 1e-6, suction: 0.2, deficit: 0.3 }.into());
            ("rain on a Green–Ampt soil", (n * n) as f64 * (5.0 * word + 2.0))
        }
    };
    let cpu = Adi::<T>::new(&setup)?;
    let mut runs: Vec<GpuAdi<T>> = (0..copies)
        .map(|_| GpuAdi::with_y_sweep(gpu, &cpu, Strategy::Auto, YSweep::Transposed))
        .collect::<Result<_>>()?;
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| runs[i % copies].advance(1))?;
    for r in &mut runs {
        r.check(gpu)
            .map_err(|e| crate::Error::invalid(format!("{variant} with {name}: the timed steps failed: {e}")))?;
    }
    let extra = m.median_ms / alone - 1.0;
    let note = format!("{note}; {name}: {:+.1}% on the step alone", 100.0 * extra);
    report.push("adi step", &format!("{variant}, {name}"), label, T::NAME, m.median_ms, 2.0 * moved + pass, None, note);
    Ok(())
}

/// The default design's step followed by the products' update a run with gauges and maxima
/// launches after every step (three gauges sampled every step, the three maps), in the same
/// run as the step alone (`alone`: its median, bytes, note): what output's products cost a step.
fn products_step<T: GpuReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    cpu: &Adi<T>,
    runs: &mut [GpuAdi<T>],
    (variant, label): (&str, &str),
    (alone, moved, note): (f64, f64, String),
) -> Result<()> {
    let cells = (cpu.nx * cpu.ny) as u32;
    let gauge = |name: &str| products::Gauge { name: name.into(), x: 0.0, y: 0.0 };
    let spec = products::Spec {
        gauges: vec![gauge("first"), gauge("middle"), gauge("last")],
        lines: Vec::new(),
        every: 1,
        maxima: true,
        arrival_depth: products::ARRIVAL_DEPTH,
    };
    let fields = super::model::product_fields(cpu, spec.arrival_depth);
    // Samples overwrite the ring's slots (never drained while timed): only their cost counts.
    let mut k = GpuProducts::new(gpu, &spec, fields, vec![0, cells / 2, cells - 1])?;
    let copies = runs.len();
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| {
        let r = &mut runs[i % copies];
        r.advance(1)?;
        k.launch_at(r.product_inputs(), None, ClockAt::Host { t: 0.0, steps: r.steps() })
    })?;
    for r in runs.iter_mut() {
        r.check(gpu)
            .map_err(|e| crate::Error::invalid(format!("{variant} with products: the timed steps failed: {e}")))?;
    }
    let extra = m.median_ms / alone - 1.0;
    let note = format!("{note}; with the products' update after every step: +{:.1}% on the step alone", 100.0 * extra);
    report.push(
        "adi step",
        &format!("{variant}, gauges and maxima"),
        label,
        T::NAME,
        m.median_ms,
        2.0 * moved,
        None,
        note,
    );
    Ok(())
}

/// The CPU reference's step on one thread and on all, as rows; their medians (ms).
fn cpu_steps<T: GpuReal>(
    opts: &BenchOptions,
    report: &mut Report,
    cpu: &Adi<T>,
    label: &str,
    moved: f64,
    base: &str,
) -> Result<(f64, f64)> {
    let reps = opts.reps.clamp(1, 3);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| crate::Error::invalid(format!("bench adi: no one-thread pool: {e}")))?;
    let step = |model: &Adi<T>, warmup: usize, reps: usize| -> Result<Measurement> {
        let mut m = model.clone();
        time_cpu(warmup, reps, |_| m.step())
    };
    // One thread takes seconds a step at 3008²: two steps of a fresh copy (its memory already
    // written by the copy), no warm-up.
    let single = one.install(|| step(cpu, 0, reps.min(2)))?;
    let all = step(cpu, 1, reps)?;
    let threads = rayon::current_num_threads();
    for (m, variant, n) in [(&single, "cpu reference, 1 thread", 1), (&all, "cpu reference, all threads", threads)] {
        let note = format!("{base}; {n} CPU threads");
        report.push("adi step", variant, label, T::NAME, m.median_ms, 2.0 * moved, None, note);
    }
    Ok((single.median_ms, all.median_ms))
}
