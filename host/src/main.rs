//! `hydrokern`: run a scenario, show the backend, or benchmark the kernels.
//!
//! `cargo run -p host -- <scenario>` runs a simulation on the GPU when there is one and on the
//! CPU otherwise; `info` says which and why; `bench <suite>` times the kernels.

mod scenarios;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use hydrokern::bench::{self, BenchOptions};
use hydrokern::{Backend, BackendChoice, Precision};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hydrokern",
    version,
    about = "Pure-Rust GPU kernels for water and sediment simulation, with CPU references",
    after_help = scenarios::help_text()
)]
struct Cli {
    /// Where to run: the GPU when one is usable (auto), the GPU or fail (gpu), or the CPU.
    #[arg(long, global = true, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Floating-point precision of the fields and kernels.
    #[arg(long, global = true, value_enum, default_value_t = PrecisionArg::F64)]
    precision: PrecisionArg,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    Auto,
    Gpu,
    Cpu,
}

#[derive(Clone, Copy, ValueEnum)]
enum PrecisionArg {
    F32,
    F64,
}

#[derive(Subcommand)]
enum Command {
    /// Show the backend (GPU name, compute capability, SMs, memory, measured copy bandwidth), or why the CPU is used.
    Info,
    /// Time a benchmark suite on the GPU and print a markdown table.
    Bench(BenchArgs),
    /// List the scenarios.
    Scenarios,
    /// Scenario: a coastal basin filled by a river (sand and mud transport, seed 000).
    Sediment(scenarios::sediment::Args),
    /// Scenario: solve a batch of tridiagonal systems; time and residual (seed 001).
    Tridiag(scenarios::tridiag::Args),
    /// 8th-order periodic derivatives in x, y, z: errors, time and bandwidth per kernel variant.
    #[command(name = "fd3d")]
    Fd3d(scenarios::fd3d::Args),
    /// Scenario: circular dam break (shallow water, Kurganov–Petrova, seed 003).
    #[command(name = "dam-break")]
    DamBreak(scenarios::kp::DamBreakArgs),
    /// Scenario: flooding dam break into a dry domain (shallow water, seed 003).
    Flood(scenarios::kp::Args),
    /// Scenario: a Gaussian hump of water with friction (shallow water, seed 003).
    Gaussian(scenarios::kp::Args),
    /// Scenario: a sine wave on a flat bed with walls (shallow water, seed 003).
    Sine(scenarios::kp::Args),
    /// Scenario: a lake at rest with dry islands (shallow water, seed 003).
    #[command(name = "lake-at-rest")]
    LakeAtRest(scenarios::kp::Args),
    #[command(external_subcommand)]
    Unknown(Vec<OsString>),
}

#[derive(clap::Args)]
struct BenchArgs {
    /// The suite (see `bench --help` for the list).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(bench::SUITES.iter().map(|s| s.0)))]
    suite: String,
    /// Also write the report, with the run's metadata, as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Sizes to run instead of the suite's defaults (comma-separated, in the suite's unit).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Timed repetitions per row (the median is reported).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Untimed warm-up runs per row.
    #[arg(long, default_value_t = 5)]
    warmup: u64,
    /// Block shape BXxBY for suites with block-shaped kernels (sediment); default: the suite's.
    #[arg(long, value_parser = scenarios::sediment::parse_block)]
    block: Option<(u32, u32)>,
    /// Rows per thread for suites with multi-row kernels (sediment); default: the suite's.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    rows: Option<u32>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let choice = match cli.backend {
        BackendArg::Auto => BackendChoice::Auto,
        BackendArg::Gpu => BackendChoice::Gpu,
        BackendArg::Cpu => BackendChoice::Cpu,
    };
    let precision = match cli.precision {
        PrecisionArg::F32 => Precision::F32,
        PrecisionArg::F64 => Precision::F64,
    };
    // Every scenario runs on the backend resolved here, announced on stderr.
    let scenario = |run: &dyn Fn(&Backend) -> Result<()>| -> Result<()> {
        let backend = Backend::select(choice)?;
        eprintln!("backend: {}", backend.describe());
        run(&backend)
    };
    match cli.command {
        Command::Info => info(choice),
        Command::Bench(args) => bench(choice, args),
        Command::Scenarios => {
            print!("{}", scenarios::help_text());
            Ok(())
        }
        Command::Fd3d(args) => scenario(&|b| scenarios::fd3d::run(&args, b, precision)),
        Command::DamBreak(args) => scenario(&|b| scenarios::kp::dam_break(&args, b, precision)),
        Command::Flood(args) => scenario(&|b| scenarios::kp::flood(&args, b, precision)),
        Command::Gaussian(args) => scenario(&|b| scenarios::kp::gaussian(&args, b, precision)),
        Command::Sine(args) => scenario(&|b| scenarios::kp::sine(&args, b, precision)),
        Command::LakeAtRest(args) => scenario(&|b| scenarios::kp::lake_at_rest(&args, b, precision)),
        Command::Sediment(args) => scenario(&|b| scenarios::sediment::run(&args, b, precision)),
        Command::Tridiag(args) => scenario(&|b| scenarios::tridiag::run(&args, b, precision)),
        Command::Unknown(args) => {
            let name = args.first().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            scenarios::unknown(&name)
        }
    }
}

fn info(choice: BackendChoice) -> Result<()> {
    println!("hydrokern {} (rev {})", env!("CARGO_PKG_VERSION"), hydrokern::GIT_REVISION);
    let backend = Backend::select(choice)?;
    println!("backend: {}", backend.describe());
    if let Backend::Gpu(gpu) = &backend {
        let i = gpu.info();
        let gib = |b: usize| b as f64 / (1u64 << 30) as f64;
        println!("  multiprocessors: {}", i.sm_count);
        println!(
            "  memory: {:.1} GiB total, {:.1} GiB free; L2 {:.0} MiB",
            gib(i.total_mem),
            gib(i.free_mem),
            i.l2_bytes as f64 / (1 << 20) as f64
        );
        println!(
            "  shared memory per block: up to {} KiB; threads per block: up to {}",
            i.max_shared_per_block / 1024,
            i.max_threads_per_block
        );
        println!("  CUDA driver: {}", i.driver);
        let gbs = bench::copy_bandwidth(gpu).context("measuring the copy bandwidth")?;
        println!(
            "  device-to-device copy: {gbs:.0} GB/s (cuMemcpyDtoD of 512 MiB, bytes read + written, median of 20)"
        );
    }
    Ok(())
}

fn bench(choice: BackendChoice, args: BenchArgs) -> Result<()> {
    let gpu = match Backend::select(if choice == BackendChoice::Cpu { BackendChoice::Cpu } else { BackendChoice::Gpu })
    {
        Ok(Backend::Gpu(g)) => g,
        Ok(Backend::Cpu { .. }) => {
            bail!("benchmarks time GPU kernels (with the CPU reference as a peer); drop --backend cpu")
        }
        Err(e) => bail!("benchmarks need a GPU: {e}"),
    };
    if let Some(path) = &args.json {
        hydrokern::output::check_writable(path)?;
    }
    let opts = BenchOptions {
        reps: args.reps as usize,
        warmup: args.warmup as usize,
        sizes: args.sizes,
        block: args.block,
        rows: args.rows,
    };
    eprintln!("timing suite '{}' on {} ...", args.suite, gpu.info().name);
    let report = bench::run_suite(&args.suite, &gpu, &opts)?;
    println!("{}", report.to_markdown());
    if let Some(path) = &args.json {
        report.write_json(path)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
