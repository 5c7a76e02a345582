//! `hydrokern tune`, `--tuning retune` and the tuning line of `hydrokern info`.

use crate::output::out;
use anyhow::{Result, bail};
use hydrokern::tune::{self, Entry, TuneOptions, cache};
use hydrokern::{Gpu, Precision};
use std::path::PathBuf;

/// The GPU the tuner runs on, or a clear error.
fn gpu() -> Result<Gpu> {
    match Gpu::new(0) {
        Ok(g) => Ok(g),
        Err(e) => bail!("tune times kernels on a GPU and needs one: {e}"),
    }
}

/// The cache file, or why there is none.
fn cache_path() -> Result<PathBuf> {
    cache::cache_path()
        .ok_or_else(|| anyhow::anyhow!("no cache directory: set HYDROKERN_CACHE_DIR, XDG_CACHE_HOME or HOME"))
}

/// Run the searches, print the table, store the entry, list the pictures.
pub fn tune(opts: &TuneOptions) -> Result<()> {
    let gpu = gpu()?;
    let path = cache_path()?;
    hydrokern::warn(format_args!(
        "tuning {} on {} ({}², {} rounds) ...",
        opts.only.join(", "),
        gpu.info().name,
        opts.size,
        opts.rounds
    ));
    let t = hydrokern::registry::tune_all(&gpu, opts)?;
    out(table(&t.entry))?;
    out(format!(
        "elapsed: {:.1} s; mean gain ×{:.3} (geometric, over {} kernels)",
        t.entry.elapsed_s,
        t.entry.mean_gain(),
        t.entry.records.len()
    ))?;
    for p in &t.pictures {
        out(format!("heat map: {}", p.display()))?;
    }
    let mut entry = t.entry;
    // A partial tune (--only, one precision) keeps what an earlier tune of this GPU, driver and
    // PTX found for the solvers and precisions it did not search.
    if let (file, None) = cache::read(&path)
        && let (Some(old), _) = cache::lookup(&file, &entry.key)
    {
        let kept: Vec<_> =
            old.records.iter().filter(|r| entry.of(&r.solver, r.precision).next().is_none()).cloned().collect();
        entry.records.extend(kept);
    }
    cache::store(&path, entry)?;
    out(format!("stored in {}", path.display()))
}

/// `--tuning retune` before a run of `solver` in `precision`: search it, store, go on (a
/// failure to store is a note: the run goes on with what it found or the defaults).
pub fn retune(solver: &str, precision: Precision) -> Result<()> {
    let opts = TuneOptions { only: vec![solver.to_string()], precisions: vec![precision], ..TuneOptions::default() };
    if let Err(e) = tune(&opts) {
        hydrokern::note(&format!("retune failed ({e:#}); the run uses the cache as it is"));
    }
    Ok(())
}

/// The table `tune` prints: per kernel, the default and the best configuration and the gain.
pub fn table(e: &Entry) -> String {
    let mut s = String::from("| solver | kernel | precision | size | default | default ms | best | best ms | gain |\n");
    s += "|---|---|---|---|---|---:|---|---:|---:|\n";
    for r in &e.records {
        let size: Vec<String> = r.size.iter().map(|v| v.to_string()).collect();
        s += &format!(
            "| {} | {} | {} | {} | {} | {:.4} | {} | {:.4} | ×{:.3} |\n",
            r.solver,
            r.kernel,
            r.precision,
            size.join("×"),
            r.default,
            r.default_ms,
            r.best,
            r.best_ms,
            r.gain()
        );
    }
    s
}

/// The line of `hydrokern info` about tuning on `gpu`.
pub fn info_line(gpu: &Gpu) -> String {
    let Some(path) = cache::cache_path() else {
        return "  tuning: no cache directory (set HYDROKERN_CACHE_DIR, XDG_CACHE_HOME or HOME)".into();
    };
    match tune::entry(gpu) {
        Some(e) => format!(
            "  tuning: tuned {} in {:.0} s, {} kernels, mean gain ×{:.3} over the defaults ({})",
            e.tuned_at,
            e.elapsed_s,
            e.records.len(),
            e.mean_gain(),
            path.display()
        ),
        None => format!("  tuning: not tuned for this GPU (no entry in {}; run `hydrokern tune`)", path.display()),
    }
}
