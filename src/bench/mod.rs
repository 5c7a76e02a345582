//! The benchmark harness: CUDA-event timing after warm-up, medians, input rotation past the
//! L2 cache, and reports (markdown and JSON) whose every row is set against a
//! device-to-device copy measured in the same run. Benchmarks are not tests: nothing here
//! asserts a speed.

mod copy;
mod fd3d;
mod kp;
pub mod report;
mod sediment;
mod timing;
mod transpose;
mod tridiag;

pub use report::{Report, Row, RunMeta};
pub use timing::{Measurement, copy_bandwidth, rotation, time_cpu, time_gpu};

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
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions { reps: 50, warmup: 5, sizes: Vec::new(), block: None, rows: None }
    }
}

/// The suites `bench` knows, with what they time.
pub const SUITES: &[(&str, &str)] = &[
    (
        "copy",
        "cuMemcpyDtoD, the Rust copy kernel and the reductions (max|x|, sum), f32 and f64, 1 MiB to 1 GiB (sizes in MiB)",
    ),
    ("sediment", "every sediment h, s and fused variant and whole steps, f32 and f64, n² for n in 1024, 4096, 8192"),
    ("fd3d", "8th-order periodic derivatives in x, y, z, every variant, f32 and f64, 64³ to 512³ (sizes: cube edges)"),
    (
        "kp",
        "Kurganov–Petrova flux, Δt, RK and boundary kernels and RK2 steps (dam break, n² for n in 1024..8192), flood 4096² early exit on/off",
    ),
    (
        "tridiag",
        "batched tridiagonal solvers, every algorithm and layout, cuSPARSE as the peer, f32 and f64 (sizes: n)",
    ),
    ("transpose", "naive, tiled and diagonal transposes, f32 and f64, 1024² to 16384² (sizes: edge lengths)"),
];

/// Run suite `name` on `gpu`.
pub fn run_suite(name: &str, gpu: &Gpu, opts: &BenchOptions) -> Result<Report> {
    let copy_gbs = copy_bandwidth(gpu)?;
    let mut report = Report::new(RunMeta::collect(gpu, name, copy_gbs));
    match name {
        "copy" => copy::run(gpu, opts, &mut report)?,
        "sediment" => sediment::run(gpu, opts, &mut report)?,
        "fd3d" => fd3d::run(gpu, opts, &mut report)?,
        "kp" => kp::run(gpu, opts, &mut report)?,
        "tridiag" => tridiag::run(gpu, opts, &mut report)?,
        "transpose" => transpose::run(gpu, opts, &mut report)?,
        _ => {
            let names: Vec<_> = SUITES.iter().map(|s| s.0).collect();
            return Err(Error::invalid(format!("unknown benchmark suite '{name}' (suites: {})", names.join(", "))));
        }
    }
    report.fill_ratios();
    Ok(report)
}

/// Check a suite name before any work.
pub fn check_suite(name: &str) -> Result<()> {
    if SUITES.iter().any(|s| s.0 == name) {
        Ok(())
    } else {
        let names: Vec<_> = SUITES.iter().map(|s| s.0).collect();
        Err(Error::invalid(format!("unknown benchmark suite '{name}' (suites: {})", names.join(", "))))
    }
}
