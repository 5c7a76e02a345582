//! The tuning engine: a run-time search over a kernel's launch parameters (block shapes in whole
//! warps, rows per thread, a kernel's decomposition, an algorithm) inside a running simulation on
//! a grid that fills the GPU, and a cache of what it found, per GPU, that every run looks up.
//! The engine knows no solver: each solver's `tune.rs` states its search space as a
//! [`Tunable`], runs [`search`] and reads its records back with [`tuned_config`]; the registry
//! hands `hydrokern tune` the solvers that have a search.
//!
//! - [`space`]: search spaces and pruning against the device's and the kernel's limits
//!   (threads, registers, shared memory) before any launch;
//! - [`stats`]: repetitions interleaved across candidates, outliers beyond 3σ dropped, medians
//!   compared;
//! - [`cache`]: the file, its key and its reading that never fails a run;
//! - [`heatmap`]: pictures of a 2D search space's times.
//!
//! A run uses the cache through [`tuned`] when the mode ([`set_mode`]) is [`Mode::Auto`]; the
//! library starts in [`Mode::Off`] (its results do not depend on a file in the user's home),
//! and the command line sets `--tuning auto` unless told otherwise.

pub mod cache;
pub mod heatmap;
pub mod space;
pub mod stats;

pub use cache::{CacheFile, Entry, Key, Record};

use crate::runtime::{Gpu, Timer};
use crate::{Error, Precision, Result, note};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Whether runs use the cache (`--tuning`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The built-in defaults.
    Off,
    /// The cache's entry for this GPU when there is one, else the defaults.
    Auto,
    /// Search first and store (done by the caller, `hydrokern --tuning retune`), then as `Auto`.
    Retune,
}

impl std::str::FromStr for Mode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Mode> {
        match s {
            "off" => Ok(Mode::Off),
            "auto" => Ok(Mode::Auto),
            "retune" => Ok(Mode::Retune),
            _ => Err(Error::invalid(format!("tuning '{s}': expected auto, off or retune"))),
        }
    }
}

static MODE: AtomicU8 = AtomicU8::new(0);

/// Set how runs of this process use the cache.
pub fn set_mode(mode: Mode) {
    MODE.store(mode as u8, Ordering::Relaxed);
}

/// How runs of this process use the cache.
pub fn mode() -> Mode {
    match MODE.load(Ordering::Relaxed) {
        1 => Mode::Auto,
        2 => Mode::Retune,
        _ => Mode::Off,
    }
}

/// The hash of the PTX module `gpu` loaded (computed once per module).
fn ptx_hash(gpu: &Gpu) -> String {
    static HASHES: [OnceLock<String>; crate::ptx::MODULES.len()] =
        [const { OnceLock::new() }; crate::ptx::MODULES.len()];
    match crate::ptx::MODULES.iter().position(|m| m.arch == gpu.arch()) {
        Some(k) => HASHES[k].get_or_init(|| crate::hash::fnv1a(crate::ptx::MODULES[k].source.as_bytes())).clone(),
        None => String::new(),
    }
}

/// The cache key of this GPU, driver, hydrokern and PTX.
pub fn key(gpu: &Gpu) -> Key {
    let i = gpu.info();
    Key {
        gpu: i.name.clone(),
        cc: i.cc,
        sm_count: i.sm_count,
        driver: i.driver.clone(),
        version: env!("CARGO_PKG_VERSION").into(),
        ptx: ptx_hash(gpu),
    }
}

/// The cache's entry for this GPU, whatever the mode (for `hydrokern info`), with notes for a
/// corrupt file or a stale entry. None when there is no cache directory, file or entry.
pub fn entry(gpu: &Gpu) -> Option<Entry> {
    let path = cache::cache_path()?;
    let (file, why) = cache::read(&path);
    if let Some(why) = why {
        note(&why);
    }
    let (found, why) = cache::lookup(&file, &key(gpu));
    if let Some(why) = why {
        note(&why);
    }
    found.cloned()
}

/// The record a run of `solver`'s `kernel` in `precision` should use, when the mode is `Auto`
/// (or `Retune`, whose search already ran) and the cache has a matching entry.
pub fn tuned(gpu: &Gpu, solver: &str, kernel: &str, precision: Precision) -> Option<Record> {
    if mode() == Mode::Off {
        return None;
    }
    entry(gpu)?.find(solver, kernel, precision).cloned()
}

/// `tuned`'s best configuration parsed by `parse`; a record that does not parse (written by
/// another build) is ignored with a note.
pub fn tuned_config<C>(
    gpu: &Gpu,
    solver: &str,
    kernel: &str,
    precision: Precision,
    parse: impl Fn(&str) -> Result<C>,
) -> Option<C> {
    let r = tuned(gpu, solver, kernel, precision)?;
    match parse(&r.best) {
        Ok(c) => Some(c),
        Err(e) => {
            note(&format!("tuning cache: {solver} {kernel} ({precision}) '{}': {e}; using the defaults", r.best));
            None
        }
    }
}

/// A kernel or solver with a search space of run-time launch parameters, timed in a running
/// simulation. The search ([`search`]) prunes its candidates, warms each up once, then runs
/// them interleaved (`run`, one step or launch each) and compares medians.
pub trait Tunable {
    /// The candidates' labels (as the solver's parser reads them back) with the verdict of
    /// pruning; the default configuration among them.
    fn space(&self) -> Vec<(String, std::result::Result<(), space::Pruned>)>;
    /// The index of the default configuration in [`space`](Self::space).
    fn default_index(&self) -> usize;
    /// Run candidate `k` once, between the timer's events (the simulation advances).
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()>;
}

/// What a search found: per candidate its label, verdict and summary (None where pruned).
pub struct Found {
    pub labels: Vec<String>,
    pub pruned: Vec<Option<space::Pruned>>,
    pub summaries: Vec<Option<stats::Summary>>,
    pub default: usize,
    pub best: usize,
}

impl Found {
    pub fn ms(&self, k: usize) -> f64 {
        self.summaries[k].map_or(f64::NAN, |s| s.median_ms)
    }
    /// The record of this search.
    pub fn record(&self, solver: &str, kernel: &str, precision: Precision, size: Vec<u64>) -> Record {
        Record {
            solver: solver.into(),
            kernel: kernel.into(),
            precision,
            size,
            default: self.labels[self.default].clone(),
            best: self.labels[self.best].clone(),
            default_ms: self.ms(self.default),
            best_ms: self.ms(self.best),
        }
    }
}

/// Search `t`: prune, one untimed run of each candidate left, then `rounds` interleaved timed
/// runs each; the best is the smallest median (the default when it ties).
pub fn search(gpu: &Gpu, t: &mut dyn Tunable, rounds: usize) -> Result<Found> {
    let space = t.space();
    let default = t.default_index();
    let live: Vec<usize> = (0..space.len()).filter(|&k| space[k].1.is_ok()).collect();
    if !live.contains(&default) {
        return Err(Error::invalid(format!("tuning: the default configuration {} is pruned", space[default].0)));
    }
    let timer = Timer::new(gpu)?;
    for &k in &live {
        t.run(gpu, k, &timer)?;
    }
    gpu.synchronize()?;
    let s = stats::measure(live.len(), rounds, |i| {
        t.run(gpu, live[i], &timer)?;
        timer.elapsed_ms()
    })?;
    let mut summaries = vec![None; space.len()];
    for (i, &k) in live.iter().enumerate() {
        summaries[k] = Some(s[i]);
    }
    let fastest = live[stats::fastest(&s).ok_or_else(|| Error::invalid("tuning: no candidate timed"))?];
    // Prefer the default unless something is measurably (0.5%) faster.
    let d = summaries[default].map_or(f64::INFINITY, |s| s.median_ms);
    let f = summaries[fastest].map_or(f64::INFINITY, |s| s.median_ms);
    let best = if f < 0.995 * d { fastest } else { default };
    Ok(Found {
        labels: space.iter().map(|(l, _)| l.clone()).collect(),
        pruned: space.into_iter().map(|(_, v)| v.err()).collect(),
        summaries,
        default,
        best,
    })
}

/// What `hydrokern tune` searches.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// Solvers by name; empty for every solver that has a search.
    pub only: Vec<String>,
    pub precisions: Vec<Precision>,
    /// Points per side of the 2D grids (a 3D search takes a cube of as many points); 4096
    /// fills an H100.
    pub size: usize,
    /// Timed repetitions per candidate.
    pub rounds: usize,
    /// Where the heat maps go (None: none drawn).
    pub pictures: Option<PathBuf>,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions { only: Vec::new(), precisions: Precision::ALL.to_vec(), size: 4096, rounds: 7, pictures: None }
    }
}

impl TuneOptions {
    /// The side of the cube with as many points as a `size`² grid (256 for 4096), for the 3D
    /// searches.
    pub fn cube_side(&self) -> usize {
        ((self.size as f64).powf(2.0 / 3.0).round() as usize).max(16)
    }
}

/// What one solver's search in one precision found: the records to store and the heat maps
/// drawn.
#[derive(Default)]
pub struct Tuned {
    pub records: Vec<Record>,
    pub pictures: Vec<PathBuf>,
}

impl From<Vec<Record>> for Tuned {
    fn from(records: Vec<Record>) -> Tuned {
        Tuned { records, pictures: Vec::new() }
    }
}

/// Everything one `tune` found.
pub struct Tuning {
    pub entry: Entry,
    /// The heat maps drawn.
    pub pictures: Vec<PathBuf>,
}

/// Check `opts` before any search: a size the searches can fill and at least one round.
pub fn check_options(opts: &TuneOptions) -> Result<()> {
    if opts.size < 64 || opts.rounds == 0 {
        return Err(Error::invalid(format!(
            "tune: size {} and {} rounds: needs a size of at least 64 and at least one round",
            opts.size, opts.rounds
        )));
    }
    Ok(())
}

/// Now as RFC 3339 in UTC, to the second.
pub fn now_utc() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The launch a case runs with: on a GPU, when the case left its launch to the defaults
/// (`tunable`), the tuning cache's (`lookup`, when tuning is on and there is an entry), with a
/// one-line note naming it; else the case's (`given`, the defaults or the keys it set).
pub fn case_launch<L: Copy + PartialEq>(
    backend: &crate::Backend,
    tunable: bool,
    given: L,
    lookup: impl Fn(&Gpu) -> Option<L>,
    label: impl Fn(L) -> String,
    solver: &str,
) -> L {
    match backend {
        crate::Backend::Gpu(gpu) if tunable => match lookup(gpu) {
            Some(l) => {
                if l != given {
                    note(&format!("{solver}: launch {} from the tuning cache (default {})", label(l), label(given)));
                }
                l
            }
            None => given,
        },
        _ => given,
    }
}
