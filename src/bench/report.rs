//! Benchmark reports: rows, run metadata, markdown and JSON.

use crate::runtime::Gpu;
use crate::{Error, Result};
use serde::Serialize;
use std::path::Path;

/// Where and when a report was measured.
#[derive(Clone, Debug, Serialize)]
pub struct RunMeta {
    pub suite: String,
    pub gpu: String,
    pub compute_capability: String,
    pub sm_count: u32,
    pub ptx_arch: String,
    pub driver: String,
    pub date: String,
    pub git_revision: String,
    /// Device-to-device copy bandwidth measured in this run (GB/s, read + write).
    pub copy_gbs: f64,
    pub cpu_threads: usize,
}

impl RunMeta {
    pub fn collect(gpu: &Gpu, suite: &str, copy_gbs: f64) -> RunMeta {
        let i = gpu.info();
        RunMeta {
            suite: suite.into(),
            gpu: i.name.clone(),
            compute_capability: format!("{}.{}", i.cc.0, i.cc.1),
            sm_count: i.sm_count,
            ptx_arch: gpu.arch().into(),
            driver: i.driver.clone(),
            date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            git_revision: crate::GIT_REVISION.into(),
            copy_gbs,
            cpu_threads: rayon::current_num_threads(),
        }
    }
}

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub kernel: String,
    pub variant: String,
    /// Problem size as the suite states it (e.g. "256 MiB", "4096²").
    pub size: String,
    /// "f32", "f64", or "-" where precision does not apply.
    pub precision: String,
    pub median_ms: f64,
    /// Fewest bytes the kernel must move, over the median time.
    pub gbs: f64,
    /// `gbs` as a percentage of the run's copy bandwidth.
    pub pct_copy: f64,
    /// Where the seeds define a flop count (or a suite states one).
    pub gflops: Option<f64>,
    /// The flops over the bytes counted (arithmetic intensity), where `gflops` is given.
    pub flops_per_byte: Option<f64>,
    /// Time of the f64 row over the matching f32 row (on f64 rows).
    pub f64_over_f32: Option<f64>,
    /// Anything else worth a column (speedups, units/s).
    pub note: String,
}

/// A suite's result.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub meta: RunMeta,
    pub rows: Vec<Row>,
}

impl Report {
    pub fn new(meta: RunMeta) -> Report {
        Report { meta, rows: Vec::new() }
    }

    /// Add a row from its timing and the bytes (and flops) one run must move (do).
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        kernel: &str,
        variant: &str,
        size: &str,
        precision: &str,
        median_ms: f64,
        bytes: f64,
        flops: Option<f64>,
        note: String,
    ) {
        let secs = median_ms * 1e-3;
        let gbs = bytes / secs / 1e9;
        self.rows.push(Row {
            kernel: kernel.into(),
            variant: variant.into(),
            size: size.into(),
            precision: precision.into(),
            median_ms,
            gbs,
            pct_copy: 100.0 * gbs / self.meta.copy_gbs,
            gflops: flops.map(|f| f / secs / 1e9),
            flops_per_byte: flops.map(|f| f / bytes),
            f64_over_f32: None,
            note,
        });
    }

    /// Set `f64_over_f32` on every f64 row that has an f32 twin.
    pub fn fill_ratios(&mut self) {
        let f32_times: Vec<_> = self
            .rows
            .iter()
            .filter(|r| r.precision == "f32")
            .map(|r| ((r.kernel.clone(), r.variant.clone(), r.size.clone()), r.median_ms))
            .collect();
        for r in self.rows.iter_mut().filter(|r| r.precision == "f64") {
            r.f64_over_f32 = f32_times
                .iter()
                .find(|(k, _)| k.0 == r.kernel && k.1 == r.variant && k.2 == r.size)
                .map(|(_, t)| r.median_ms / t);
        }
    }

    pub fn to_markdown(&self) -> String {
        let m = &self.meta;
        let mut s = format!(
            "{} — {} (cc {}, {} SMs, PTX {}, driver {}), {}, rev {}; device-to-device copy: {:.0} GB/s\n\n",
            m.suite, m.gpu, m.compute_capability, m.sm_count, m.ptx_arch, m.driver, m.date, m.git_revision, m.copy_gbs
        );
        s += "| kernel | variant | size | precision | median ms | GB/s | % of copy | GFLOP/s | f64/f32 | note |\n";
        s += "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
        let opt = |v: Option<f64>, p: usize| v.map(|v| format!("{v:.p$}")).unwrap_or_else(|| "—".into());
        // A row without a time (a peer skipped, its note says why) shows dashes, not NaN.
        let timed = |v: f64, text: String| if v.is_finite() { text } else { "—".into() };
        for r in &self.rows {
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.kernel,
                r.variant,
                r.size,
                r.precision,
                timed(r.median_ms, fmt_ms(r.median_ms)),
                timed(r.gbs, format!("{:.0}", r.gbs)),
                timed(r.pct_copy, format!("{:.0}%", r.pct_copy)),
                opt(r.gflops, 1),
                opt(r.f64_over_f32, 2),
                r.note
            );
        }
        s
    }

    /// Write the report as JSON, whole or not at all (temporary file, then rename).
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| Error::invalid(format!("JSON: {e}")))?;
        crate::output::write_atomic(path, text.as_bytes())
    }
}

/// Milliseconds with four significant digits.
fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.3}")
    } else {
        format!("{ms:.4}")
    }
}
