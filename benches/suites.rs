//! `cargo bench --features bench [-- SUITE ...]`: the benchmark suites of `hydrokern bench`
//! (every one, or those named), each printed as its markdown table: medians of CUDA-event
//! timings after warm-up, f32 beside f64, every row set against a device-to-device copy measured
//! in the same run. Without a GPU it says so and times nothing; any other failure to start the
//! GPU, or a suite that fails, exits non-zero. `hydrokern bench` takes the options (sizes, reps,
//! JSON).

use hydrokern::bench::{self, BenchOptions};
use hydrokern::{Error, Gpu, registry};
use std::process::ExitCode;

fn main() -> ExitCode {
    // cargo passes `--bench` (and libtest's flags where given): the rest are suite names.
    let names: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let suites = match names.iter().map(|n| registry::suite(n)).collect::<Result<Vec<_>, _>>() {
        Ok(s) if s.is_empty() => registry::suites(),
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e @ Error::NoGpu(_)) => {
            println!("benches: nothing timed: {e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(e),
    };
    let opts = BenchOptions::default();
    for suite in &suites {
        match bench::run(suite, &gpu, &opts) {
            Ok(report) => println!("{}", report.to_markdown()),
            Err(e) => return fail(e),
        }
    }
    ExitCode::SUCCESS
}

fn fail(e: Error) -> ExitCode {
    eprintln!("benches: {e}");
    ExitCode::FAILURE
}
