//! Timing: CUDA events on the GPU, a monotonic clock on the CPU; medians of many runs.

use crate::Result;
use crate::runtime::{Gpu, Timer, launches_of};
use std::time::Instant;

/// Summary of repeated timings, in milliseconds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Measurement {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub reps: usize,
    /// The kernels one timed run launched, in order (empty on the CPU).
    pub launches: Vec<String>,
}

impl Measurement {
    pub fn from(mut t: Vec<f64>) -> Measurement {
        t.sort_by(|a, b| a.total_cmp(b));
        let n = t.len();
        let median = if n == 0 {
            f64::NAN
        } else if n % 2 == 1 {
            t[n / 2]
        } else {
            0.5 * (t[n / 2 - 1] + t[n / 2])
        };
        Measurement {
            median_ms: median,
            min_ms: t.first().copied().unwrap_or(f64::NAN),
            max_ms: t.last().copied().unwrap_or(f64::NAN),
            reps: n,
            launches: Vec::new(),
        }
    }
}

/// A row stops timing after `MIN_RUNS` runs once its runs have taken this long (ms), and
/// stops warming up once its warm-up runs have: a 40 ms ADI step at 8192² gets 13 timed runs
/// instead of 50, a one-second solve one warm-up and 5 timed runs, and the suite's wall time
/// goes to rows rather than to repeats whose median no longer moves.
pub const ROW_BUDGET_MS: f64 = 500.0;
/// The fewest timed runs a row's median is taken over (fewer only when `reps` asks for fewer).
pub const MIN_RUNS: usize = 5;

/// Time `f(i)` on the GPU's stream with events: up to `warmup` untimed calls (at least one
/// when `warmup` > 0, then until they have taken [`ROW_BUDGET_MS`]), then up to `reps` timed
/// ones, each between its own pair of events (at least `MIN_RUNS`, then until they have taken
/// [`ROW_BUDGET_MS`]). `i` counts calls so callers can rotate inputs. The first timed call's
/// launches are recorded.
pub fn time_gpu(gpu: &Gpu, warmup: usize, reps: usize, mut f: impl FnMut(usize) -> Result<()>) -> Result<Measurement> {
    time_gpu_reset(gpu, warmup, reps, |i, reset| if reset { Ok(()) } else { f(i) })
}

/// `steps` calls of `step` (each queuing one step of a simulation on the GPU's stream) timed
/// two ways, as [`time_gpu`] times a call: recorded once as a graph and launched as one
/// ([`Gpu::record`], as a run queues its batches), and the calls themselves, launch by launch.
/// Both [`Measurement`]s are per step, their launches one step's (every step launches the same
/// kernels).
pub fn time_steps_in_graph(
    gpu: &Gpu,
    warmup: usize,
    reps: usize,
    steps: usize,
    mut step: impl FnMut() -> Result<()>,
) -> Result<[Measurement; 2]> {
    let replay = gpu.record(|| (0..steps).try_for_each(|_| step()))?;
    let graph = time_gpu(gpu, warmup, reps, |_| replay.launch())?;
    let launched = time_gpu(gpu, warmup, reps, |_| (0..steps).try_for_each(|_| step()))?;
    Ok([graph, launched].map(|m| {
        let n = steps as f64;
        let one = m.launches.len() / steps.max(1);
        Measurement {
            median_ms: m.median_ms / n,
            min_ms: m.min_ms / n,
            max_ms: m.max_ms / n,
            reps: m.reps,
            launches: m.launches[..one].to_vec(),
        }
    }))
}

/// [`time_gpu`] of `f(i, false)`, each call (warm-up and timed) preceded by `f(i, true)`, untimed:
/// a reset of what the timed call overwrites (cuSPARSE's solvers overwrite their inputs).
pub fn time_gpu_reset(
    gpu: &Gpu,
    warmup: usize,
    reps: usize,
    mut f: impl FnMut(usize, bool) -> Result<()>,
) -> Result<Measurement> {
    let timer = Timer::new(gpu)?;
    let mut calls = 0;
    let mut spent = 0.0;
    while calls < warmup && !(calls >= 1 && spent >= ROW_BUDGET_MS) {
        f(calls, true)?;
        timer.start(gpu)?;
        f(calls, false)?;
        timer.stop(gpu)?;
        spent += timer.elapsed_ms()?;
        calls += 1;
    }
    gpu.synchronize()?;
    let mut times = Vec::with_capacity(reps);
    let mut launches = Vec::new();
    let mut spent = 0.0;
    for i in 0..reps {
        if i >= MIN_RUNS && spent >= ROW_BUDGET_MS {
            break;
        }
        f(calls + i, true)?;
        timer.start(gpu)?;
        if i == 0 {
            let (r, log) = launches_of(|| f(calls, false));
            r?;
            launches = log;
        } else {
            f(calls + i, false)?;
        }
        timer.stop(gpu)?;
        let ms = timer.elapsed_ms()?;
        spent += ms;
        times.push(ms);
    }
    Ok(Measurement { launches, ..Measurement::from(times) })
}

/// Time `f(i)` on the CPU with the monotonic clock, like [`time_gpu`].
pub fn time_cpu(warmup: usize, reps: usize, mut f: impl FnMut(usize) -> Result<()>) -> Result<Measurement> {
    for i in 0..warmup {
        f(i)?;
    }
    let mut times = Vec::with_capacity(reps);
    for i in 0..reps {
        let t0 = Instant::now();
        f(warmup + i)?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    Ok(Measurement::from(times))
}

/// How many input sets to rotate through so that repeated runs over `bytes` of inputs read
/// from device memory, not from the L2 cache: enough to cover three times the L2.
pub fn rotation(gpu: &Gpu, bytes: usize) -> usize {
    (3 * gpu.info().l2_bytes).div_ceil(bytes.max(1)).clamp(1, 64)
}

/// The yardstick: device-to-device copy bandwidth (bytes read + written per second, GB/s) of
/// `cuMemcpyDtoD` on two 512 MiB buffers (less when memory is short), median of 20 runs.
pub fn copy_bandwidth(gpu: &Gpu) -> Result<f64> {
    let (free, _) = gpu.memory()?;
    let bytes = (512usize << 20).min(free / 4).max(1 << 20);
    let n = bytes / 4;
    let src = gpu.zeros::<f32>(n)?;
    let mut dst = gpu.alloc::<f32>(n)?;
    let m = time_gpu(gpu, 3, 20, |_| gpu.copy_dtod(&src, &mut dst))?;
    Ok(2.0 * bytes as f64 / (m.median_ms * 1e-3) / 1e9)
}
