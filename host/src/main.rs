//! `hydrokern`: run a scenario or a case file, check a case, show the backend, or benchmark.
//!
//! `cargo run -p host -- <scenario>` runs a simulation on the GPU when there is one and on the
//! CPU otherwise. Scenarios are the case files in `examples/`; their flags are overrides of
//! case keys, listed by each solver (`hydrokern <scenario> --help`), so this file never changes
//! when a solver or a scenario is added.

mod case_cli;
#[cfg(feature = "mpi")]
mod mpi;
mod output;
mod ranks;
mod tune_cli;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use hydrokern::bench::{self, BenchOptions};
use hydrokern::{Backend, BackendChoice, registry};
use output::out;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hydrokern",
    version,
    about = "Pure-Rust GPU kernels for water and sediment simulation, with CPU references",
    after_help = case_cli::scenarios_help()
)]
struct Cli {
    #[command(flatten)]
    backend: BackendOpt,
    #[command(flatten)]
    precision: PrecisionOpt,
    #[command(flatten)]
    tuning: TuningOpt,
    #[command(subcommand)]
    command: Command,
}

/// `--backend`, before any command or after `info`, `bench` and `tune`.
#[derive(clap::Args)]
struct BackendOpt {
    /// Where to run: auto, gpu or cpu.
    ///
    /// auto: the GPU when one is usable, else the CPU reference; gpu: the GPU or fail; cpu: the
    /// CPU reference. Overrides the case's run.backend.
    #[arg(long, value_enum)]
    backend: Option<BackendArg>,
}

/// `--precision`, before any command or after `tune`.
#[derive(clap::Args)]
struct PrecisionOpt {
    /// Floating-point precision: f32, f64 or mixed (tune: f32, f64 or both).
    ///
    /// Overrides the case's run.precision. mixed: the conserved level in f64, the rest in f32
    /// (sediment's h, on the GPU in its fused kernel; shallow water's w with rk2 or euler, on
    /// the GPU in the streamed flux kernel). both: tune only, searching each precision.
    #[arg(long, value_enum)]
    precision: Option<PrecisionArg>,
}

/// `--tuning`, before any command or after `bench`.
#[derive(clap::Args)]
struct TuningOpt {
    /// Launch parameters on the GPU: auto, off or retune [default: auto].
    ///
    /// auto: the tuning cache's entry for this GPU when there is one, else the built-in
    /// defaults; off: the built-in defaults; retune: search first, store, then run. Keys a case
    /// sets win over all three.
    #[arg(long, value_enum)]
    tuning: Option<TuningArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    Auto,
    Gpu,
    Cpu,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum PrecisionArg {
    F32,
    F64,
    Mixed,
    Both,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum TuningArg {
    Auto,
    Off,
    Retune,
}

#[derive(Subcommand)]
enum Command {
    /// Show the backend, or why the CPU is used.
    ///
    /// On a GPU: its name, compute capability, multiprocessors, memory, driver, tuning cache
    /// entry and the device-to-device copy bandwidth measured now.
    Info {
        #[command(flatten)]
        backend: BackendOpt,
    },
    /// List the scenarios (the case files in examples/).
    Scenarios,
    /// Run a case file: `hydrokern run CASE.toml [flags of its solver]`.
    #[command(disable_help_flag = true)]
    Run {
        /// The case file, then any flags of its solver (see `hydrokern run CASE.toml --help`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        args: Vec<OsString>,
    },
    /// Check a case file without running it: every key, value and size.
    ///
    /// Errors name the key and the line; the run's plan (steps, outputs, memory) is printed.
    #[command(disable_help_flag = true)]
    Check {
        /// The case file, then any flags of its solver.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        args: Vec<OsString>,
    },
    /// Draw the maps of a run's NetCDF file as PNG.
    ///
    /// Every field at every time, one colour range per field; with the gauges' and maxima's
    /// files the NetCDF file names, a plot per gauge and the maximum maps. A run writes NetCDF
    /// when its case says `[output] formats = ["netcdf"]`.
    Plot {
        /// The NetCDF file a run wrote (`<case name>.nc` in its run directory).
        file: PathBuf,
        /// Where the PNG maps go (created if missing); default: `<FILE stem>-plots` in the current directory.
        #[arg(long)]
        output: Option<PathBuf>,
    },
    /// Search the launch parameters of the tunable kernels on this GPU and store the best.
    ///
    /// Prints the default and the best per kernel, stores them in the tuning cache and draws the
    /// flux kernels' heat maps.
    #[command(after_help = tune_help())]
    Tune(TuneArgs),
    /// Time a benchmark suite on the GPU and print a markdown table.
    ///
    /// Each row is the median of up to --reps timed runs after --warmup untimed ones, timed with
    /// CUDA events, in f32 and f64, beside a device-to-device copy measured in the same run. A
    /// row stops after 5 runs once its runs have taken half a second, and warms up likewise.
    #[command(after_help = bench_help())]
    Bench(BenchArgs),
    #[command(external_subcommand)]
    Scenario(Vec<OsString>),
}

#[derive(clap::Args)]
struct BenchArgs {
    #[command(flatten)]
    backend: BackendOpt,
    #[command(flatten)]
    tuning: TuningOpt,
    /// The suite: one of those listed at the end.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(registry::suites().into_iter().map(|s| s.name)))]
    suite: String,
    /// Also write the report, with the run's metadata, as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Sizes to run instead of the suite's defaults (comma-separated, in the suite's unit).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Timed repetitions per row, at most (the median is reported; a row stops after 5 once its
    /// runs have taken half a second).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    reps: u64,
    /// Untimed warm-up runs per row, at most (fewer once they have taken half a second).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    warmup: u64,
    /// Block shape BXxBY for suites with block-shaped kernels (sediment; kp: the RK block); default: the suite's.
    #[arg(long, value_parser = parse_block)]
    block: Option<(u32, u32)>,
    /// Rows per thread for suites with multi-row kernels (sediment; kp: rows a streamed flux
    /// warp takes); default: the suite's.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    rows: Option<u32>,
    /// Time kernels and steps only: leave out whole runs (kp: the 4096² flood's and the 1024²
    /// balance's, which run with the default sizes only).
    #[arg(long)]
    no_runs: bool,
    /// Parts of the suite to run, comma-separated (scaling: kp, sediment, claw, flood and
    /// largest; default: every part but largest).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

#[derive(clap::Args)]
struct TuneArgs {
    #[command(flatten)]
    backend: BackendOpt,
    #[command(flatten)]
    precision: PrecisionOpt,
    /// Solvers to tune, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(registry::tunable()))]
    only: Vec<String>,
    /// Points per side of the 2D grids (fd3d and 3D claw: a cube of as many points; tridiag: as many unknowns).
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(64..=32768))]
    size: u64,
    /// Timed repetitions per candidate (interleaved; outliers beyond 3σ dropped; medians compared).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u64).range(1..=1000))]
    rounds: u64,
    /// Where the heat maps go (created if missing).
    #[arg(long, default_value = "tuning")]
    output: PathBuf,
}

fn tune_help() -> String {
    format!(
        "Tunables: {}. Precision: --precision f32, f64 or both (default both). The cache: $HYDROKERN_CACHE_DIR, else $XDG_CACHE_HOME/hydrokern, else ~/.cache/hydrokern ({}); see docs/tuning.md.",
        registry::tunable().join(", "),
        hydrokern::tune::cache::FILE_NAME
    )
}

/// The suites and what each times.
fn bench_help() -> String {
    let mut s = String::from("Suites:\n");
    for suite in registry::suites() {
        s += &format!("  {:<10} {}\n", suite.name, suite.about);
    }
    s
}

/// `BXxBY` with 1 ≤ BX·BY ≤ 1024 threads, in checked arithmetic.
fn parse_block(s: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("block '{s}': expected BXxBY with positive integers, e.g. 32x8");
    let (x, y) = s.split_once(['x', '×']).ok_or_else(bad)?;
    let (x, y): (u32, u32) = (x.trim().parse().map_err(|_| bad())?, y.trim().parse().map_err(|_| bad())?);
    match x.checked_mul(y) {
        Some(1..=1024) => Ok((x, y)),
        _ => Err(format!("block {x}x{y}: needs 1 to 1024 threads")),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(output::clap_message(&e)),
    };
    // Started by an MPI launcher: this process is one rank of a decomposed run.
    #[cfg(feature = "mpi")]
    let _mpi = match mpi::start() {
        Ok(m) => m,
        Err(e) => {
            hydrokern::warn(format_args!("error: {e}"));
            return ExitCode::FAILURE;
        }
    };
    let rank = hydrokern::ranks::world().map_or(0, |c| c.rank());
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Rank 0 says why a decomposed run stopped; a rank's own failure stops them all with
        // its line ([`hydrokern::ranks::Comm::abort`]).
        Err(_) if rank != 0 => ExitCode::FAILURE,
        // Stopped by a signal, cleanly: its line, and the status a shell gives a run the signal
        // killed (128 + the signal: 130 for SIGINT, 143 for SIGTERM).
        Err(e) => {
            if let Some(hydrokern::Error::Interrupted { signal, message }) = e.downcast_ref() {
                hydrokern::warn(message);
                return ExitCode::from(u8::try_from(128 + signal).unwrap_or(1));
            }
            hydrokern::warn(format_args!("error: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let Cli { backend, precision, tuning, command } = cli;
    // Under a launcher, ranks other than 0 only take part in runs: rank 0 prints the rest.
    if hydrokern::ranks::world().is_some_and(|c| c.rank() != 0)
        && !matches!(command, Command::Run { .. } | Command::Scenario(_))
    {
        return Ok(());
    }
    let (mut backend, mut precision, mut tuning) = (backend.backend, precision.precision, tuning.tuning);
    // Given after the command, an option wins over the same one before it.
    match &command {
        Command::Info { backend: b } => backend = b.backend.or(backend),
        Command::Bench(args) => {
            backend = args.backend.backend.or(backend);
            tuning = args.tuning.tuning.or(tuning);
        }
        Command::Tune(args) => {
            backend = args.backend.backend.or(backend);
            precision = args.precision.precision.or(precision);
        }
        _ => {}
    }
    refuse_unused(&command, backend.is_some(), precision.is_some(), tuning.is_some())?;
    let tuning = tuning.unwrap_or(TuningArg::Auto);
    let globals = case_cli::Globals {
        backend: backend.map(|b| match b {
            BackendArg::Auto => "auto",
            BackendArg::Gpu => "gpu",
            BackendArg::Cpu => "cpu",
        }),
        precision: match precision {
            None => None,
            Some(PrecisionArg::F32) => Some("f32"),
            Some(PrecisionArg::F64) => Some("f64"),
            Some(PrecisionArg::Mixed) => Some("mixed"),
            Some(PrecisionArg::Both) if matches!(command, Command::Tune(_)) => None,
            Some(PrecisionArg::Both) => bail!("--precision both: only `tune` runs both precisions; give f32 or f64"),
        },
        retune: tuning == TuningArg::Retune,
    };
    hydrokern::tune::set_mode(match tuning {
        TuningArg::Auto => hydrokern::tune::Mode::Auto,
        TuningArg::Off => hydrokern::tune::Mode::Off,
        TuningArg::Retune => hydrokern::tune::Mode::Retune,
    });
    let choice = match backend {
        None | Some(BackendArg::Auto) => BackendChoice::Auto,
        Some(BackendArg::Gpu) => BackendChoice::Gpu,
        Some(BackendArg::Cpu) => BackendChoice::Cpu,
    };
    match command {
        Command::Info { .. } => info(choice),
        Command::Scenarios => out(case_cli::scenarios_help()),
        Command::Run { args } => case_cli::run_file(&args, &globals, false),
        Command::Check { args } => case_cli::run_file(&args, &globals, true),
        Command::Plot { file, output } => plot(&file, output),
        Command::Bench(args) => bench(choice, args),
        Command::Tune(args) => {
            if choice == BackendChoice::Cpu {
                bail!("tune times GPU kernels; it cannot run with --backend cpu");
            }
            let precisions = match precision {
                Some(PrecisionArg::F32) => vec![hydrokern::Precision::F32],
                Some(PrecisionArg::F64) => vec![hydrokern::Precision::F64],
                Some(PrecisionArg::Mixed) => {
                    bail!("tune --precision mixed: mixed runs on the f32 launch parameters; tune f32 (or both)")
                }
                _ => hydrokern::Precision::ALL.to_vec(),
            };
            let d = hydrokern::tune::TuneOptions::default();
            let opts = hydrokern::tune::TuneOptions {
                only: if args.only.is_empty() { d.only } else { args.only },
                precisions,
                size: args.size as usize,
                rounds: args.rounds as usize,
                pictures: Some(args.output),
            };
            tune_cli::tune(&opts)
        }
        Command::Scenario(args) => case_cli::run_scenario(&args, &globals),
    }
}

/// An option the command does not use is refused rather than ignored: `plot` and `scenarios`
/// run nothing, `info` only chooses a backend, `bench` times both precisions, `tune` searches
/// whatever the tuning mode.
fn refuse_unused(command: &Command, backend: bool, precision: bool, tuning: bool) -> Result<()> {
    let (name, takes_backend, takes_precision, takes_tuning) = match command {
        Command::Info { .. } => ("info", true, false, false),
        Command::Scenarios => ("scenarios", false, false, false),
        Command::Plot { .. } => ("plot", false, false, false),
        Command::Bench(_) => ("bench", true, false, true),
        Command::Tune(_) => ("tune", true, true, false),
        Command::Run { .. } | Command::Check { .. } | Command::Scenario(_) => return Ok(()),
    };
    for (given, takes, option) in [
        (backend, takes_backend, "--backend"),
        (precision, takes_precision, "--precision"),
        (tuning, takes_tuning, "--tuning"),
    ] {
        if given && !takes {
            bail!("{option} does not apply to `{name}`; leave it out (`hydrokern {name} --help` lists its options)");
        }
    }
    Ok(())
}

fn info(choice: BackendChoice) -> Result<()> {
    out(format!("hydrokern {} (rev {})", env!("CARGO_PKG_VERSION"), hydrokern::GIT_REVISION))?;
    let backend = Backend::select(choice)?;
    out(format!("backend: {}", backend.describe()))?;
    if let Backend::Gpu(gpu) = &backend {
        let i = gpu.info();
        let gib = |b: usize| b as f64 / (1u64 << 30) as f64;
        out(format!("  multiprocessors: {}", i.sm_count))?;
        out(format!(
            "  memory: {:.1} GiB total, {:.1} GiB free; L2 {:.0} MiB",
            gib(i.total_mem),
            gib(i.free_mem),
            i.l2_bytes as f64 / (1 << 20) as f64
        ))?;
        out(format!(
            "  shared memory per block: up to {} KiB; threads per block: up to {}",
            i.max_shared_per_block / 1024,
            i.max_threads_per_block
        ))?;
        out(format!("  CUDA driver: {}", i.driver))?;
        out(tune_cli::info_line(gpu))?;
        let gbs = bench::copy_bandwidth(gpu).context("measuring the copy bandwidth")?;
        out(format!(
            "  device-to-device copy: {gbs:.0} GB/s (cuMemcpyDtoD of 512 MiB, bytes read + written, median of 20)"
        ))?;
    } else {
        out("  tuning: none (no GPU to tune)")?;
    }
    Ok(())
}

fn plot(file: &std::path::Path, output: Option<PathBuf>) -> Result<()> {
    let dir = output.unwrap_or_else(|| hydrokern::output::netcdf::default_dir(file));
    let files = hydrokern::output::netcdf::plot(file, &dir)?;
    out(format!("{} pictures of {} in {}", files.len(), file.display(), dir.display()))
}

fn bench(choice: BackendChoice, args: BenchArgs) -> Result<()> {
    if choice == BackendChoice::Cpu {
        bail!(
            "bench times GPU kernels (with the CPU reference as a peer in the same run); it cannot run with --backend cpu"
        );
    }
    registry::suite(&args.suite)?.check_only(&args.only)?;
    let gpu = match hydrokern::Gpu::new(0) {
        Ok(g) => std::sync::Arc::new(g),
        Err(e) => bail!("bench times GPU kernels and needs a GPU: {e}"),
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
        runs: !args.no_runs,
        only: args.only,
    };
    hydrokern::warn(format_args!("timing suite '{}' on {} ...", args.suite, gpu.info().name));
    let report = bench::run(&registry::suite(&args.suite)?, &gpu, &opts)?;
    out(report.to_markdown())?;
    if let Some(path) = &args.json {
        report.write_json(path)?;
        hydrokern::warn(format_args!("wrote {}", path.display()));
    }
    Ok(())
}
