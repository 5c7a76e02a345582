//! Benchmark reports: rows, run metadata, markdown and JSON.

use super::counts::{KernelCounts, Tally, table};
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
    /// The multiprocessors' peak clock (MHz), which the issue-rate floor is counted at.
    pub sm_clock_mhz: u32,
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
            sm_clock_mhz: i.sm_clock_mhz,
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
    /// Where the source studies define a flop count (or a suite states one).
    pub gflops: Option<f64>,
    /// The flops over the bytes counted (arithmetic intensity), where `gflops` is given.
    pub flops_per_byte: Option<f64>,
    /// Time of the f64 row over the matching f32 row (on f64 rows).
    pub f64_over_f32: Option<f64>,
    /// The relative error of what the solver conserves after a fixed run, on the rows that
    /// measure it (f32's beside f64's, docs/f32-conservation.md); the report's notes say what
    /// it is and why a row has none.
    pub conservation: Option<f64>,
    /// Per-cell figures of the rows that count them ([`Report::counted`]).
    pub per_cell: Option<PerCell>,
    /// Anything else worth a column (speedups, units/s).
    pub note: String,
    /// Seconds from the suite's start to this row's push: the differences between rows show
    /// what each part of a suite costs in wall time, host work included.
    pub at_s: f64,
}

/// A row's traffic and instructions a cell, and the floor its instructions set.
#[derive(Clone, Debug, Serialize)]
pub struct PerCell {
    /// The fewest bytes a cell the row counts (its GB/s are of these).
    pub bytes: f64,
    /// What the row's kernels executed and moved a cell, from the measured table
    /// ([`counts`](super::counts)); `None` with the reason in `why`.
    pub measured: Option<KernelCounts>,
    /// The time the warp instructions take at one a cycle on every scheduler of every
    /// multiprocessor at the peak clock (ms).
    pub issue_floor_ms: Option<f64>,
    /// Why `measured` is `None`: a kernel not measured or changed since.
    pub why: Option<String>,
}

/// A suite's result.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub meta: RunMeta,
    pub rows: Vec<Row>,
    /// Lines below the table: what a column means in this suite, why rows lack a value.
    pub notes: Vec<String>,
    /// When the suite started, for [`progress`](Report::progress).
    #[serde(skip)]
    started: std::time::Instant,
}

impl Report {
    pub fn new(meta: RunMeta) -> Report {
        Report { meta, rows: Vec::new(), notes: Vec::new(), started: std::time::Instant::now() }
    }

    /// Say on standard error that the part `done` of the suite has run, with the seconds since
    /// it started: a long suite shows how far it is.
    pub fn progress(&self, done: impl std::fmt::Display) {
        crate::warn(format_args!("  {:5.0} s  {done}", self.started.elapsed().as_secs_f64()));
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
        let at_s = self.started.elapsed().as_secs_f64();
        // Each row as it is measured, so a long suite shows where its time goes (and a suite
        // stopped by a time limit still says what it measured).
        crate::warn(format_args!("  {at_s:5.0} s  {kernel}, {variant}, {size} {precision}: {median_ms:.4} ms"));
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
            conservation: None,
            per_cell: None,
            note,
            at_s,
        });
    }

    /// Set the per-cell figures of the row pushed last, whose run launched `launches` (the
    /// [`Measurement`](super::Measurement)'s) over `cells` interior cells: its counted bytes a
    /// cell and, from the measured table of this run's module, what its kernels execute and
    /// move a cell and the issue-rate floor of its instructions.
    pub fn counted(&mut self, launches: &[String], cells: f64) {
        let meta = &self.meta;
        let tally = match table(&meta.ptx_arch) {
            None => Err(format!("no counts measured for {}", meta.ptx_arch)),
            Some(t) => {
                let module = crate::ptx::MODULES.iter().find(|m| m.arch == meta.ptx_arch).map_or("", |m| m.source);
                match t.tally(module, launches) {
                    Tally::Counted(c) => Ok(c),
                    Tally::Unmeasured(k) => Err(format!("{k} not measured")),
                    Tally::Stale(k) => Err(format!("{k} changed since measured")),
                }
            }
        };
        let issue_rate = 4.0 * meta.sm_count as f64 * meta.sm_clock_mhz as f64 * 1e6;
        if let Some(r) = self.rows.last_mut() {
            let bytes = r.gbs * 1e9 * r.median_ms * 1e-3 / cells;
            r.per_cell = Some(match tally {
                Ok(c) => PerCell {
                    bytes,
                    measured: Some(c),
                    issue_floor_ms: (issue_rate > 0.0).then(|| c.warp_inst * cells / issue_rate * 1e3),
                    why: None,
                },
                Err(why) => PerCell { bytes, measured: None, issue_floor_ms: None, why: Some(why) },
            });
        }
    }

    /// Set the conservation error of the row pushed last.
    pub fn conservation(&mut self, error: f64) {
        if let Some(r) = self.rows.last_mut() {
            r.conservation = Some(error);
        }
    }

    /// A line below the table (once, however often a suite's sizes add it).
    pub fn note(&mut self, line: &str) {
        if !self.notes.iter().any(|n| n == line) {
            self.notes.push(line.to_string());
        }
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
        // The per-cell columns only in suites that count them.
        let cells = self.rows.iter().any(|r| r.per_cell.is_some());
        let (head, rule) = if cells {
            (" B/cell | DRAM B/cell | inst/cell | issue floor |", " ---: | ---: | ---: | ---: |")
        } else {
            ("", "")
        };
        s += &format!(
            "| kernel | variant | size | precision | median ms | GB/s | % of copy | GFLOP/s | f64/f32 | conservation error |{head} note |\n"
        );
        s += &format!("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |{rule} --- |\n");
        let opt = |v: Option<f64>, p: usize| v.map(|v| format!("{v:.p$}")).unwrap_or_else(|| "—".into());
        // A row without a time (a peer skipped, its note says why) shows dashes, not NaN.
        let timed = |v: f64, text: String| if v.is_finite() { text } else { "—".into() };
        for r in &self.rows {
            let per_cell = if cells { per_cell_columns(r.per_cell.as_ref(), r.median_ms) } else { String::new() };
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |{per_cell} {} |\n",
                r.kernel,
                r.variant,
                r.size,
                r.precision,
                timed(r.median_ms, fmt_ms(r.median_ms)),
                timed(r.gbs, format!("{:.0}", r.gbs)),
                timed(r.pct_copy, format!("{:.0}%", r.pct_copy)),
                opt(r.gflops, 1),
                opt(r.f64_over_f32, 2),
                r.conservation.map(|e| format!("{e:+.1e}")).unwrap_or_else(|| "—".into()),
                r.note
            );
        }
        if cells {
            s += "\nB/cell: the fewest bytes a cell the row counts (its GB/s); DRAM B/cell, inst/cell: what its kernels moved and executed (thread instructions) a cell, measured with Nsight Compute on this PTX (scripts/profile-counts; the table's measurement: ";
            s += table(&m.ptx_arch).map_or("none", |t| t.measured.as_str());
            s += "); issue floor: the time its warp instructions take at one a cycle on every scheduler at the peak clock, and the median's share of it. A row without counts says why in place of them.\n";
        }
        if self.rows.iter().all(|r| r.conservation.is_none()) && self.notes.is_empty() {
            s += "\nconservation error: — on every row: this suite measures none (`bench sediment` and `bench kp` run fixed numbers of steps to measure theirs)\n";
        }
        for n in &self.notes {
            s += &format!("\n{n}\n");
        }
        s
    }

    /// Write the report as JSON, whole or not at all (temporary file, then rename).
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| Error::invalid(format!("JSON: {e}")))?;
        crate::atomic::write_atomic(path, text.as_bytes())
    }
}

/// The per-cell columns of a row (leading `|` each).
fn per_cell_columns(p: Option<&PerCell>, median_ms: f64) -> String {
    let Some(p) = p else { return " — | — | — | — |".into() };
    match (&p.measured, p.issue_floor_ms) {
        (Some(c), Some(floor)) => format!(
            " {:.0} | {:.0} | {:.0} | {} ms, {:.0}% |",
            p.bytes,
            c.dram_bytes,
            c.thread_inst,
            fmt_ms(floor),
            100.0 * floor / median_ms
        ),
        _ => format!(" {:.0} | — | — | {} |", p.bytes, p.why.as_deref().unwrap_or("—")),
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

#[cfg(test)]
mod tests {
    use super::{Report, RunMeta};

    fn report() -> Report {
        let meta = RunMeta {
            suite: "test".into(),
            gpu: "none".into(),
            compute_capability: "0.0".into(),
            sm_count: 0,
            ptx_arch: "sm_90".into(),
            driver: "none".into(),
            date: "today".into(),
            git_revision: "rev".into(),
            copy_gbs: 1000.0,
            sm_clock_mhz: 1000,
            cpu_threads: 1,
        };
        Report::new(meta)
    }

    #[test]
    fn the_conservation_column_shows_the_rows_that_measure_it_and_the_notes_say_why_others_do_not() {
        let mut r = report();
        r.push("k", "step", "1²", "f32", 1.0, 1e6, None, "timed".into());
        r.push("k", "balance", "1²", "f32", 1.0, 1e6, None, "after 10 steps".into());
        r.conservation(-2.5e-8);
        r.note("conservation error: why the step row has none");
        r.note("conservation error: why the step row has none");
        let md = r.to_markdown();
        assert!(md.contains("| f64/f32 | conservation error | note |"), "{md}");
        assert!(md.contains("| — | — | timed |"), "{md}");
        assert!(md.contains("| — | -2.5e-8 | after 10 steps |"), "{md}");
        assert_eq!(md.matches("why the step row has none").count(), 1, "{md}");
        assert_eq!(r.rows[1].conservation, Some(-2.5e-8));
    }

    #[test]
    fn a_suite_that_measures_no_conservation_says_so_once() {
        let mut r = report();
        r.push("copy", "memcpy", "1 MiB", "-", 1.0, 1e6, None, String::new());
        let md = r.to_markdown();
        assert_eq!(md.matches("conservation error: — on every row").count(), 1, "{md}");
    }

    #[test]
    fn per_cell_columns_show_bytes_counts_and_why_a_row_has_none() {
        let mut r = report();
        r.meta.sm_count = 100;
        // 1 MB in 1 ms over 1000 cells: 1000 bytes a cell.
        r.push("k", "none launched", "1²", "f32", 1.0, 1e6, None, String::new());
        r.counted(&[], 1000.0);
        r.push("k", "unmeasured", "1²", "f32", 1.0, 1e6, None, String::new());
        r.counted(&["no_such_kernel_f32".into()], 1000.0);
        r.push("plain", "row", "1²", "f32", 1.0, 1e6, None, String::new());
        let md = r.to_markdown();
        assert!(md.contains("| B/cell | DRAM B/cell | inst/cell | issue floor | note |"), "{md}");
        assert!(md.contains("| 1000 | 0 | 0 | 0.0000 ms, 0% |"), "{md}");
        assert!(md.contains("| 1000 | — | — | no_such_kernel_f32 not measured |"), "{md}");
        assert!(md.contains("| — | — | — | — |  |"), "{md}");
        let p = r.rows[0].per_cell.as_ref().unwrap();
        assert_eq!((p.bytes, p.issue_floor_ms), (1000.0, Some(0.0)));
        assert!(r.rows[2].per_cell.is_none());
    }

    #[test]
    fn suites_without_counts_keep_their_columns() {
        let mut r = report();
        r.push("copy", "memcpy", "1 MiB", "-", 1.0, 1e6, None, String::new());
        assert!(!r.to_markdown().contains("B/cell"));
    }
}
