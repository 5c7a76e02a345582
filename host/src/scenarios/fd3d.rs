//! `fd3d`: 8th-order periodic derivatives of a known trigonometric field (seed 004).
//!
//! Samples `f = cos(2π kx x)·sin(2π ky y)·cos(2π kz z)` on the unit cube, takes ∂f/∂x, ∂f/∂y,
//! ∂f/∂z with every kernel variant (GPU) or the CPU reference, and prints per direction and
//! variant, as the seed does: RMS and max error against the exact derivative, average time
//! and bandwidth (one read and one write per point).

use anyhow::{Context, Result, bail};
use hydrokern::fd3d::{Direction, Grid3, TestField, Variant, cpu, gpu::Plan};
use hydrokern::runtime::Timer;
use hydrokern::{Backend, Gpu, GpuReal, Precision};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Points per direction of a cubic grid (at least 9).
    #[arg(long, default_value_t = 64)]
    size: usize,
    /// Points along x (overrides --size).
    #[arg(long)]
    mx: Option<usize>,
    /// Points along y (overrides --size).
    #[arg(long)]
    my: Option<usize>,
    /// Points along z (overrides --size).
    #[arg(long)]
    mz: Option<usize>,
    /// GPU variants to run, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// Timed runs per variant (the average is reported).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Whole periods of the field across the domain in x, y and z.
    #[arg(long, value_delimiter = ',', num_args = 3, default_values_t = [1u32, 1, 1])]
    wavenumbers: Vec<u32>,
}

pub fn run(args: &Args, backend: &Backend, precision: Precision) -> Result<()> {
    let grid = Grid3::new(args.mx.unwrap_or(args.size), args.my.unwrap_or(args.size), args.mz.unwrap_or(args.size))?;
    let variants: Vec<Variant> = if args.variants.is_empty() {
        Variant::ALL.to_vec()
    } else {
        args.variants.iter().map(|s| s.parse::<Variant>()).collect::<hydrokern::Result<_>>()?
    };
    let k = match args.wavenumbers[..] {
        [kx, ky, kz] => [kx, ky, kz],
        _ => bail!("--wavenumbers takes three integers, kx,ky,kz"),
    };
    let field = TestField { k };
    match precision {
        Precision::F32 => run_t::<f32>(args, backend, grid, field, &variants),
        Precision::F64 => run_t::<f64>(args, backend, grid, field, &variants),
    }
}

fn run_t<T: GpuReal>(
    args: &Args,
    backend: &Backend,
    grid: Grid3,
    field: TestField,
    variants: &[Variant],
) -> Result<()> {
    let bytes = grid.bytes::<T>();
    println!(
        "fd3d: {grid} periodic grid on [0,1)³, f = {} with k = {:?}, {}, {:.1} MiB per field",
        TestField::FORMULA,
        field.k,
        T::NAME,
        bytes as f64 / (1 << 20) as f64
    );
    if let Backend::Cpu { .. } = backend {
        check_host_memory(2 * bytes)?;
    }
    let f = field.sample::<T>(grid)?;
    println!(
        "{:<11} {:<11} {:>12} {:>12} {:>16} {:>10}  how",
        "derivative", "variant", "RMS error", "max error", "avg time (ms)", "GB/s"
    );
    let mut bad = Vec::new();
    let mut row = |dir: Direction, name: &str, ms: f64, got: &[T], how: &str| -> Result<()> {
        let e = field.errors(grid, dir, got)?;
        let gbs = 2.0 * bytes as f64 / (ms * 1e-3) / 1e9;
        println!(
            "{:<11} {name:<11} {:>12.4e} {:>12.4e} {ms:>16.4} {gbs:>10.1}  {how}",
            format!("d/d{dir}"),
            e.rms,
            e.max
        );
        if !e.max.is_finite() {
            bad.push(name.to_string());
        }
        Ok(())
    };
    let reps = args.reps as usize;
    match backend {
        Backend::Gpu(gpu) => {
            gpu.check_fits(&format!("fd3d on a {grid} grid ({} input and output)", T::NAME), 2 * bytes)?;
            let src = gpu.upload(&f)?;
            let mut dst = gpu.alloc::<T>(grid.len())?;
            for &v in variants {
                let (ms, got) = time_variant(gpu, grid, v, &src, &mut dst, reps)
                    .with_context(|| format!("variant {v} on a {grid} grid"))?;
                row(v.direction(), v.name(), ms, &got, v.describe())?;
            }
        }
        Backend::Cpu { .. } => {
            let mut df = vec![T::ZERO; grid.len()];
            for dir in Direction::ALL {
                cpu::derivative(grid, dir, &f, &mut df)?;
                let t0 = Instant::now();
                for _ in 0..reps {
                    cpu::derivative(grid, dir, &f, &mut df)?;
                }
                let ms = t0.elapsed().as_secs_f64() * 1e3 / reps as f64;
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
                let how = format!("cpu reference, {threads} threads");
                row(dir, "cpu", ms, &df, &how)?;
            }
            if !args.variants.is_empty() {
                println!("(--variants selects GPU kernels; the CPU backend runs its reference once per direction)");
            }
        }
    }
    if !bad.is_empty() {
        bail!("non-finite derivative from {}: some points were not written or the field blew up", bad.join(", "));
    }
    Ok(())
}

/// Average milliseconds of `reps` back-to-back launches (events around the loop, as the seed
/// times), after one untimed launch into an output poisoned with NaN; and the result.
fn time_variant<T: GpuReal>(
    gpu: &Gpu,
    grid: Grid3,
    variant: Variant,
    src: &hydrokern::runtime::DeviceBuffer<T>,
    dst: &mut hydrokern::runtime::DeviceBuffer<T>,
    reps: usize,
) -> Result<(f64, Vec<T>)> {
    let plan = Plan::<T>::new(gpu, grid, variant)?;
    hydrokern::foundation::gpu::fill(gpu, dst, T::NAN)?;
    plan.run(src, dst)?;
    let got = gpu.download(dst)?;
    let timer = Timer::new(gpu)?;
    timer.start(gpu)?;
    for _ in 0..reps {
        plan.run(src, dst)?;
    }
    timer.stop(gpu)?;
    Ok((timer.elapsed_ms()? / reps as f64, got))
}

/// On Linux, refuse a CPU run that needs more than the available memory (MemAvailable):
/// better a clear error than the out-of-memory killer.
fn check_host_memory(bytes: usize) -> Result<()> {
    let Ok(info) = std::fs::read_to_string("/proc/meminfo") else {
        return Ok(());
    };
    let available_kib = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(kib) = available_kib
        && bytes as u64 > kib * 1024
    {
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        bail!(
            "fd3d needs {:.1} MiB of host memory for the CPU run but only {:.1} MiB are available; use a smaller size",
            mib(bytes as u64),
            mib(kib * 1024)
        );
    }
    Ok(())
}
