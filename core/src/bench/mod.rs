//! The benchmark harness: CUDA-event timing after warm-up, medians, input rotation past the
//! L2 cache, and reports (markdown and JSON) whose every row is set against a
//! device-to-device copy measured in the same run. Benchmarks are not tests: nothing here
//! asserts a speed.

pub mod counts;
pub mod report;
mod timing;

pub use report::{Report, Row, RunMeta};
pub use timing::{
    Measurement, ROW_BUDGET_MS, copy_bandwidth, rotation, time_cpu, time_gpu, time_gpu_reset, time_steps_in_graph,
};

use crate::runtime::Gpu;
use crate::{Error, Result};

/// Options shared by the suites.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Timed repetitions per row (the median is reported).
    pub reps: usize,
    /// Untimed runs before timing.
    pub warmup: usize,
    /// Sizes to run, in the suite's own unit; empty for the suite's defaults.
    pub sizes: Vec<usize>,
    /// Block shape (x, y) for suites with block-shaped kernels; None for their default.
    pub block: Option<(u32, u32)>,
    /// Rows per thread for suites with multi-row kernels; None for their default.
    pub rows: Option<u32>,
    /// Whether suites that also time whole runs (kp: the 4096² flood, the 1024² balance) do.
    pub runs: bool,
    /// The parts of a suite to run (`--only`, checked against [`Suite::parts`]); empty for
    /// its default parts.
    pub only: Vec<String>,
}

impl BenchOptions {
    /// Whether `part` of a suite runs: named in `--only`, or by default where none is named.
    pub fn runs_part(&self, part: &Part) -> bool {
        if self.only.is_empty() { part.default } else { self.only.iter().any(|o| o == part.name) }
    }
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions { reps: 50, warmup: 5, sizes: Vec::new(), block: None, rows: None, runs: true, only: Vec::new() }
    }
}

/// A benchmark suite: `hydrokern bench <name>`.
#[derive(Clone, Copy)]
pub struct Suite {
    pub name: &'static str,
    /// What it times, one line.
    pub about: &'static str,
    /// The parts `--only` can choose among (none: the suite runs whole).
    pub parts: &'static [Part],
    pub run: fn(&Gpu, &BenchOptions, &mut Report) -> Result<()>,
}

/// A part of a suite that `--only` names.
#[derive(Clone, Copy, Debug)]
pub struct Part {
    pub name: &'static str,
    /// Whether it runs when `--only` names none (a part that takes minutes does not).
    pub default: bool,
}

impl Suite {
    /// `only` checked against the suite's parts: one line naming them where one is unknown.
    pub fn check_only(&self, only: &[String]) -> Result<()> {
        let Some(bad) = only.iter().find(|o| !self.parts.iter().any(|p| p.name == o.as_str())) else {
            return Ok(());
        };
        if self.parts.is_empty() {
            return Err(Error::invalid(format!(
                "--only {bad}: bench {} has no parts to choose; leave --only out",
                self.name
            )));
        }
        let names: Vec<&str> = self.parts.iter().map(|p| p.name).collect();
        Err(Error::invalid(format!("--only {bad}: bench {}'s parts are {}", self.name, names.join(", "))))
    }
}

/// Run `suite` on `gpu`: the copy bandwidth first, then the suite's rows, each set against it.
pub fn run(suite: &Suite, gpu: &Gpu, opts: &BenchOptions) -> Result<Report> {
    let copy_gbs = copy_bandwidth(gpu)?;
    let mut report = Report::new(RunMeta::collect(gpu, suite.name, copy_gbs));
    (suite.run)(gpu, opts, &mut report)?;
    report.fill_ratios();
    Ok(report)
}

/// Whether a size can run: `host` bytes must fit in this machine's available memory (else an
/// error), `gpu` bytes in the GPU's free memory — an error for a size the user asked for with
/// `--sizes`, a skipped size (said on standard error) in a suite's default sweep, which is made
/// for the largest GPUs. Compute the byte counts with [`bytes`], which refuses overflow.
pub fn fits(gpu: &Gpu, opts: &BenchOptions, what: &str, host: u64, gpu_bytes: u64) -> Result<bool> {
    crate::files::check_host_memory(what, host)?;
    match gpu.check_fits(what, usize::try_from(gpu_bytes).unwrap_or(usize::MAX)) {
        Ok(()) => Ok(true),
        Err(e) if opts.sizes.is_empty() => {
            crate::warn(format_args!("{what}: skipped ({e})"));
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// The product of `factors` in bytes, or an error naming `what` when it overflows.
pub fn bytes(what: &str, factors: &[u64]) -> Result<u64> {
    factors
        .iter()
        .try_fold(1u64, |acc, &f| acc.checked_mul(f))
        .ok_or_else(|| Error::invalid(format!("{what}: the size is too large to count in bytes")))
}
