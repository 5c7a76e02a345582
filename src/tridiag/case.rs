//! Tridiagonal case files (`solver = "tridiag"`) and their flags: solve a batch of systems
//! once per timed repetition, report the median time and the residual ‖Ax − d‖/‖d‖, and write
//! x.npy (with the generated a, b, c, d).
//!
//! NPY files are always of shape (batch, n), one system per row, as NumPy users write them,
//! whatever `batch.layout` is: the layout is how the solver stores the batch in memory, and
//! arrays are converted to it on load and back when written. The padded layouts (`rows`,
//! `columns`, with `batch.pitch`) are such memory layouts too: their files hold the systems
//! without the padding, (batch, n) as well, so that a file written by one layout is read by
//! any.

use super::{
    Algorithm, BACKWARD_LIMIT_EPS, Batch, Choice, Layout, Shape, Solver as BatchSolver, backward_error,
    gpu::workspace_bound, relayout_values,
};
use crate::case::{BackendSetting, CaseDoc, Check, Common, Flag, Format, Set};
use crate::output::write_npy;
use crate::run::{Case, CaseInfo, Needs, Norms, Outcome, Plan, RunDir, RunOptions, once_on_one_rank, plan, start};
use crate::runtime::Backend;
use crate::{GpuReal, Precision, Real, Result};
use serde::Deserialize;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The most timed solves a run may ask for: the median of more changes little, and a count
/// past this is a slip of the keyboard (`hydrokern bench tridiag` times the kernels with care).
pub const MAX_REPEAT: u64 = 1000;

/// The arrays of a batch, in the order they are read and written.
const ARRAYS: [&str; 4] = ["a", "b", "c", "d"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    batch: BatchSection,
    #[serde(default)]
    gpu: GpuSection,
    #[serde(default)]
    timing: Timing,
    #[serde(default)]
    check: CheckSection,
}

fn default_check() -> bool {
    true
}

/// `[check]`: whether to report the worst system's backward error after the solve.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckSection {
    #[serde(default = "default_check")]
    enabled: bool,
}

impl Default for CheckSection {
    fn default() -> Self {
        CheckSection { enabled: default_check() }
    }
}

fn default_layout() -> String {
    "interleaved".into()
}
fn default_dominance() -> f64 {
    1.0
}
fn default_seed() -> u64 {
    1
}

/// `[batch]`: generated systems (n, batch, dominance, seed) or read ones (input), and the
/// layout the solver stores them in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchSection {
    n: Option<usize>,
    batch: Option<usize>,
    dominance: Option<f64>,
    seed: Option<u64>,
    input: Option<PathBuf>,
    #[serde(default = "default_layout")]
    layout: String,
    /// Values from one line of the padded field to the next (layouts rows and columns).
    pitch: Option<usize>,
}

fn default_algorithm() -> String {
    "auto".into()
}

/// `[gpu]`: the algorithm (the CPU reference runs thomas and lu).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuSection {
    #[serde(default = "default_algorithm")]
    algorithm: String,
}

impl Default for GpuSection {
    fn default() -> Self {
        GpuSection { algorithm: default_algorithm() }
    }
}

fn default_repeat() -> u64 {
    5
}

/// `[timing]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Timing {
    #[serde(default = "default_repeat")]
    repeat: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing { repeat: default_repeat() }
    }
}

/// Where the systems come from.
enum Source {
    Generated {
        seed: u64,
        dominance: f64,
    },
    /// Read from `dir`, held contiguous ((batch, n) as in the files) in f64.
    Read {
        dir: PathBuf,
        batch: Box<Batch<f64>>,
    },
}

/// A validated tridiagonal case.
pub struct TridiagCase {
    info: CaseInfo,
    /// The document, for errors found once the backend is known.
    doc: CaseDoc,
    shape: Shape,
    source: Source,
    choice: Choice,
    repeat: u64,
    /// Report the backward error ([`backward_error`]) after the solve.
    check: bool,
}

impl TridiagCase {
    pub fn load(doc: &CaseDoc) -> Result<TridiagCase> {
        let (common, f): (Common, File) = doc.parse_case()?;
        let c = Check::new(doc);
        if !common.output.snapshots.is_empty() {
            return c.fail("output.snapshots", "tridiag solves once; it has no snapshot times (leave the key out)");
        }
        if common.output.checkpoint_every.is_some() {
            return c.fail(
                "output.checkpoint_every",
                "tridiag solves once; it has no time loop to checkpoint (leave the key out)",
            );
        }
        common.output.refuse_netcdf(&c, "tridiag solves once")?;
        let layout_key = if f.batch.pitch.is_some() { "batch.pitch" } else { "batch.layout" };
        let layout = Layout::parse(&f.batch.layout, f.batch.pitch).map_err(|e| doc.invalid(layout_key, e))?;
        let choice: Choice = f.gpu.algorithm.parse().map_err(|e| doc.invalid("gpu.algorithm", e))?;
        if f.timing.repeat == 0 || f.timing.repeat > MAX_REPEAT {
            return c.fail(
                "timing.repeat",
                format!(
                    "{}: timed solves must lie in 1..={MAX_REPEAT} (the median of more changes little; `hydrokern bench tridiag` times the kernels with care)",
                    f.timing.repeat
                ),
            );
        }
        let b = &f.batch;
        let (shape, source) = match &b.input {
            Some(dir) => {
                for (key, given) in [
                    ("batch.n", b.n.is_some()),
                    ("batch.batch", b.batch.is_some()),
                    ("batch.dominance", b.dominance.is_some()),
                    ("batch.seed", b.seed.is_some()),
                ] {
                    if given {
                        return c.fail(
                            key,
                            "give either batch.input (read the systems) or batch.n, batch.batch, batch.dominance and batch.seed (generate them), not both",
                        );
                    }
                }
                let dir = c.path(dir);
                let batch = read_batch(&c, &dir)?;
                (Shape { layout, ..batch.shape }, Source::Read { dir, batch: Box::new(batch) })
            }
            None => {
                let n = b
                    .n
                    .ok_or_else(|| doc.invalid("batch.n", "missing: give the unknowns per system (or batch.input)"))?;
                let count = b.batch.ok_or_else(|| {
                    doc.invalid("batch.batch", "missing: give the number of systems (or batch.input)")
                })?;
                if n == 0 {
                    return c.fail("batch.n", "0: a system has at least 1 unknown");
                }
                if n > u32::MAX as usize {
                    return c.fail("batch.n", format!("{n}: at most {} unknowns per system (32-bit sizes)", u32::MAX));
                }
                if count == 0 {
                    return c.fail("batch.batch", "0: a batch has at least 1 system");
                }
                if count > i32::MAX as usize {
                    return c.fail("batch.batch", format!("{count}: at most {} systems (32-bit sizes)", i32::MAX));
                }
                if n.checked_mul(count).is_none_or(|len| len > isize::MAX as usize / 8) {
                    return c
                        .fail("batch.batch", format!("{count} systems of {n} unknowns: too many values to address"));
                }
                let dominance = c.non_negative("batch.dominance", b.dominance.unwrap_or_else(default_dominance))?;
                let seed = b.seed.unwrap_or_else(default_seed);
                (Shape::new(n, count, layout), Source::Generated { seed, dominance })
            }
        };
        let size_key = match (&source, shape.n >= shape.batch) {
            (Source::Read { .. }, _) => "batch.input",
            (Source::Generated { .. }, true) => "batch.n",
            (Source::Generated { .. }, false) => "batch.batch",
        };
        Shape { layout: Layout::Contiguous, ..shape }.validate().map_err(|e| doc.invalid(size_key, e))?;
        shape.validate().map_err(|e| doc.invalid("batch.pitch", e))?;
        let precision = common.run.precision;
        // Where padding is most of the arrays, the pitch is what to change.
        let memory_key = if shape.span() / 2 > shape.len() { "batch.pitch" } else { size_key };
        crate::files::check_host_memory(
            &format!(
                "a batch of {} systems of {} unknowns ({} layout) in {precision}",
                shape.batch,
                shape.n,
                shape.layout.describe()
            ),
            needs(shape, choice, precision).host,
        )
        .map_err(|e| doc.invalid(memory_key, e))?;
        if let (BackendSetting::Cpu, Choice::Force(alg)) = (common.run.backend, choice)
            && !alg.on_cpu()
        {
            return c.fail("gpu.algorithm", cpu_refuses(alg));
        }
        let info = CaseInfo::new(doc, "tridiag", common);
        Ok(TridiagCase {
            info,
            doc: doc.clone(),
            shape,
            source,
            choice,
            repeat: f.timing.repeat,
            check: f.check.enabled,
        })
    }

    fn describe(&self) -> String {
        let s = self.shape;
        let from = match &self.source {
            Source::Generated { seed, dominance } => format!("generated (dominance {dominance}, seed {seed})"),
            Source::Read { dir, .. } => format!("read from {}", dir.display()),
        };
        let alg = match self.choice {
            Choice::Auto => "auto".to_string(),
            Choice::Force(a) => a.name().to_string(),
        };
        format!(
            "tridiag: {} systems of {} unknowns, {from}; {} layout, algorithm {alg}; {} timed solves; backward-error check {}",
            s.batch,
            s.n,
            s.layout.describe(),
            self.repeat,
            if self.check { "on" } else { "off" }
        )
    }

    fn run_t<T: GpuReal>(&self, opts: &RunOptions, backend: &Backend, dir: &mut RunDir) -> Result<Outcome> {
        let say = |line: String| opts.console.say(line);
        let shape = self.shape;
        if let (Backend::Cpu { .. }, Choice::Force(alg)) = (backend, self.choice)
            && !alg.on_cpu()
        {
            return Err(self.doc.invalid("gpu.algorithm", cpu_refuses(alg)));
        }
        let batch: Batch<T> = match &self.source {
            Source::Generated { seed, dominance } => Batch::try_random(shape, *seed, *dominance)?,
            Source::Read { batch, .. } => {
                let converted = batch.try_to_layout::<T>(shape.layout)?;
                if let Some((name, k, i, v)) = first_unrepresentable(batch, &converted) {
                    return Err(self.doc.invalid(
                        "batch.input",
                        format!("{name}.npy: system {k}, row {i} = {v:e} is past {}'s range; run in f64", T::NAME),
                    ));
                }
                converted
            }
        };
        let mut solver = BatchSolver::<T>::new(backend, shape)?;
        let alg = match self.choice {
            Choice::Auto => {
                format!("auto ({} if diagonally dominant, else a pivoting one)", solver.algorithm(self.choice))
            }
            Choice::Force(a) => a.name().to_string(),
        };
        say(format!(
            "tridiag: {} systems of {} unknowns, {} layout, {}, algorithm {alg}",
            shape.batch,
            shape.n,
            shape.layout.describe(),
            T::NAME,
        ));
        let mut times = Vec::new();
        let mut x = Vec::new();
        let mut ran = Algorithm::Thomas;
        for _ in 0..self.repeat {
            let t0 = Instant::now();
            let (xs, alg) = solver.solve(self.choice, &batch.a, &batch.b, &batch.c, &batch.d)?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            (x, ran) = (xs, alg);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let ms = times[times.len() / 2];
        let r = batch.checked_residual(&x)?;
        say(format!(
            "solved by {ran} in {ms:.3} ms (median of {}, including transfers on the GPU): {:.1} M unknowns/s; residual ‖Ax − d‖/‖d‖ = {r:.3e}",
            self.repeat,
            shape.len() as f64 / (ms * 1e-3) / 1e6
        ));
        if self.check {
            for line in check_lines::<T>(&batch, &x, ran)? {
                say(line);
            }
        }
        // NumPy's (batch, n): one system per row.
        let rows = as_rows(shape, &x)?;
        let norms = Norms::of(&rows);
        if self.info.output.wants(Format::Npy) {
            let dims = [shape.batch, shape.n];
            dir.write("x.npy", |p| write_npy(p, &rows, &dims))?;
            drop(rows);
            let generated = matches!(self.source, Source::Generated { .. });
            if generated {
                for (name, v) in ARRAYS.into_iter().zip([&batch.a, &batch.b, &batch.c, &batch.d]) {
                    let v = as_rows(shape, v)?;
                    dir.write(&format!("{name}.npy"), |p| write_npy(p, &v, &dims))?;
                }
            }
            say(format!(
                "wrote x.npy{} (shape (batch, n) = ({}, {})) to {}",
                if generated { ", a.npy, b.npy, c.npy, d.npy" } else { "" },
                shape.batch,
                shape.n,
                dir.path().display()
            ));
        }
        Ok(Outcome { dir: dir.path().to_path_buf(), steps: 1, t: 0.0, norms: vec![("x".into(), norms)] })
    }
}

/// Memory of a run of `shape` by `choice`. Host: a, b, c, d; the solution and the next one
/// while timing; the CPU solver's scratch or a download; a copy in (batch, n) order and its
/// file's bytes when written (systems read from files are already in memory). GPU: a, b, c, d
/// (x over d) and the largest workspace a plan of `choice` takes
/// (`tridiag::gpu::workspace_bound`). Every array counted at the span (padding included);
/// call after `shape.validate()`.
fn needs(shape: Shape, choice: Choice, precision: Precision) -> Needs {
    let len = shape.span() as u64;
    let words = |k: u64| k.saturating_mul(precision.bytes()).saturating_mul(len);
    let work = (workspace_bound(shape, choice) as u64).saturating_mul(precision.bytes());
    Needs { host: words(8), gpu: words(4).saturating_add(work) }
}

fn cpu_refuses(alg: Algorithm) -> String {
    format!("{alg}: the CPU reference solves by thomas and lu only; {alg} needs the GPU backend")
}

/// What the check reports: the worst system's normwise backward error, and a warning naming
/// the system when it is past [`BACKWARD_LIMIT_EPS`] ε — with the likely cause: a solver
/// without pivoting on a system that is not diagonally dominant (lu would pivot), or, after
/// pivoting, a matrix singular to working precision (which no pivoting cures).
pub fn check_lines<T: Real>(batch: &Batch<T>, x: &[T], ran: Algorithm) -> Result<Vec<String>> {
    let (s, a, b, c, d) = (batch.shape, &batch.a, &batch.b, &batch.c, &batch.d);
    let be = backward_error(s, a, b, c, d, x)?;
    let limit = BACKWARD_LIMIT_EPS * T::EPSILON.to_f64();
    let mut lines = vec![format!(
        "check: worst backward error ‖Ax − d‖∞/(‖A‖∞‖x‖∞ + ‖d‖∞) = {:.3e} (system {}); limit {limit:.1e} ({BACKWARD_LIMIT_EPS} ε of {})",
        be.value,
        be.system,
        T::NAME
    )];
    // NaN (x not finite) warns too.
    if be.value.is_nan() || be.value > limit {
        let why = if ran == Algorithm::Spike {
            "spike is stable only where its chunks' interiors are well conditioned: solve with lu; if lu warns too, the matrix is singular to working precision".to_string()
        } else if ran.pivots() {
            "LU with partial pivoting is backward stable, so the matrix is singular to working precision (no pivoting cures that; check the coefficients, or solve in f64)".to_string()
        } else {
            match super::cpu::first_non_dominant(s, a, b, c) {
                Some((k, i)) => format!(
                    "{ran} does not pivot and system {k} is not diagonally dominant at row {i}: solve with lu (or auto, which checks)"
                ),
                None => format!("{ran} does not pivot; the matrix may be singular to working precision: try lu"),
            }
        };
        lines.push(format!(
            "warning: system {}: backward error {:.3e} is past the limit {limit:.1e}: x is not to be trusted. {why}",
            be.system, be.value
        ));
    }
    Ok(lines)
}

/// `v` in (batch, n) order: borrowed when the layout already is, else a fallible copy.
pub fn as_rows<T: Copy + Default + Send + Sync>(shape: Shape, v: &[T]) -> Result<Cow<'_, [T]>> {
    Ok(match shape.layout {
        Layout::Contiguous => Cow::Borrowed(v),
        _ => Cow::Owned(relayout_values(shape, Layout::Contiguous, v, |x| x, T::default())?),
    })
}

/// The first coefficient (array, system, row, value) that is finite as read but not in `T`
/// (1e300 in f32), skipping the two that are never read.
fn first_unrepresentable<T: Real>(
    read: &Batch<f64>,
    converted: &Batch<T>,
) -> Option<(&'static str, usize, usize, f64)> {
    let (s, t) = (read.shape, converted.shape);
    let pairs = [(&read.a, &converted.a), (&read.b, &converted.b), (&read.c, &converted.c), (&read.d, &converted.d)];
    for (name, (r, v)) in ARRAYS.into_iter().zip(pairs) {
        for k in 0..s.batch {
            for i in 0..s.n {
                let unread = (name == "a" && i == 0) || (name == "c" && i + 1 == s.n);
                if !unread && !v[t.at(k, i)].is_finite() {
                    return Some((name, k, i, r[s.at(k, i)]));
                }
            }
        }
    }
    None
}

/// Read a.npy, b.npy, c.npy, d.npy from `dir`: each of shape (batch, n), one system per row,
/// with finite coefficients (a in the first column and c in the last are never read).
fn read_batch(c: &Check, dir: &Path) -> Result<Batch<f64>> {
    let key = "batch.input";
    if !dir.is_dir() {
        return c.fail(key, format!("{}: not a directory (it should hold a.npy, b.npy, c.npy, d.npy)", dir.display()));
    }
    let mut arrays: Vec<Vec<f64>> = Vec::with_capacity(4);
    let mut dims0: Option<(usize, usize)> = None;
    for name in ARRAYS {
        let path = dir.join(format!("{name}.npy"));
        let (v, dims) = c.read_npy(key, &path).map_err(|e| c.doc().invalid(key, e))?;
        let (rows, cols) = match dims[..] {
            [rows, cols] => (rows, cols),
            _ => {
                return c.fail(
                    key,
                    format!(
                        "{}: shape {dims:?}; expected a 2-D array of shape (batch, n), one system per row (a single system is shape (1, n))",
                        path.display()
                    ),
                );
            }
        };
        match dims0 {
            None => dims0 = Some((rows, cols)),
            Some(first) if first != (rows, cols) => {
                return c.fail(
                    key,
                    format!(
                        "{}: shape ({rows}, {cols}), but a.npy is ({}, {}); every array is (batch, n), one system per row",
                        path.display(),
                        first.0,
                        first.1
                    ),
                );
            }
            Some(_) => {}
        }
        arrays.push(v);
    }
    let (batch, n) = dims0.unwrap_or_default();
    let shape = Shape::new(n, batch, Layout::Contiguous);
    shape.validate().map_err(|e| c.doc().invalid(key, format!("{}: {e}", dir.display())))?;
    for (name, v) in ARRAYS.into_iter().zip(&arrays) {
        let unread = |i: usize| (name == "a" && i == 0) || (name == "c" && i + 1 == n);
        if let Some(g) = v.iter().enumerate().position(|(g, x)| !x.is_finite() && !unread(g % n)) {
            return c.fail(
                key,
                format!(
                    "{}: system {}, row {} is {}; coefficients must be finite",
                    dir.join(format!("{name}.npy")).display(),
                    g / n,
                    g % n,
                    v[g]
                ),
            );
        }
    }
    let mut it = arrays.into_iter();
    let mut next = || it.next().unwrap_or_default();
    Ok(Batch { shape, a: next(), b: next(), c: next(), d: next() })
}

impl Case for TridiagCase {
    fn info(&self) -> &CaseInfo {
        &self.info
    }
    fn summary(&self) -> String {
        self.describe()
    }
    fn needs(&self, precision: Precision) -> Needs {
        needs(self.shape, self.choice, precision)
    }
    fn plan(&self) -> Plan {
        // x, and the four arrays of a generated batch.
        let generated = matches!(self.source, Source::Generated { .. });
        let files = if self.info.output.wants(Format::Npy) { 1 + 4 * generated as u64 } else { 0 };
        let bytes = files * (self.shape.len() as u64 * self.info.run.precision.bytes() + 128);
        plan::once(self, files, bytes)
    }
    fn run(&self, opts: &RunOptions) -> Result<Outcome> {
        once_on_one_rank("tridiag", "it solves one batch of systems")?;
        let mut s = start(self, opts)?;
        let result = match s.precision {
            Precision::F32 => self.run_t::<f32>(opts, &s.backend, &mut s.dir),
            // `start` refused mixed: this solver has none.
            Precision::F64 | Precision::Mixed => self.run_t::<f64>(opts, &s.backend, &mut s.dir),
        };
        s.finish_once(opts, result)
    }
}

const GENERATED: &[&str] = &["batch.input"];
const READ: &[&str] = &["batch.n", "batch.batch", "batch.dominance", "batch.seed"];

pub(super) static FLAGS: &[Flag] = &[
    Flag::new("n", "N", Set::Int("batch.n"), "unknowns per system of the generated batch (replaces --input)").clearing(GENERATED),
    Flag::new("batch", "N", Set::Int("batch.batch"), "systems in the generated batch (replaces --input)").clearing(GENERATED),
    Flag::new("layout", "contiguous|interleaved|rows|columns", Set::Text("batch.layout"), "how the solver stores the batch: contiguous (system after system), interleaved (unknown i of every system together), or the rows or columns of a padded 2-D field (give --pitch); NPY files are (batch, n) whatever the layout"),
    Flag::new("pitch", "N", Set::Int("batch.pitch"), "layouts rows and columns: values from one row of the padded field to the next (rows: at least n, system k at k·pitch + i; columns: at least batch, system k at i·pitch + k)"),
    Flag::new("algorithm", "ALG", Set::Text("gpu.algorithm"), "auto, thomas, cr, pcr, cr-pcr, pcr-thomas, twisted, partition, lu (LU with partial pivoting), spike (SPIKE with partial pivoting, for few long systems); auto checks diagonal dominance and pivots (lu or spike) where it fails (the CPU backend runs thomas and lu)"),
    Flag::new("dominance", "D", Set::Float("batch.dominance"), "diagonal dominance of generated systems: |b| ≥ D·(|a| + |c|) + margin").clearing(GENERATED),
    Flag::new("seed", "N", Set::Int("batch.seed"), "seed of the generated systems").clearing(GENERATED),
    Flag::new("input", "DIR", Set::Text("batch.input"), "read a.npy, b.npy, c.npy, d.npy from DIR instead of generating: each of shape (batch, n), one system per row, any float dtype").clearing(READ),
    Flag::new("repeat", "N", Set::Int("timing.repeat"), "timed solves, 1 to 1000 (the median is reported)"),
    Flag::new("check", "on|off", Set::Custom(check_switch), "report the worst system's backward error ‖Ax − d‖∞/(‖A‖∞‖x‖∞ + ‖d‖∞), with a warning naming the system when it is past 1024 ε (on by default)"),
];

/// `--check on|off` → `check.enabled`.
fn check_switch(raw: &str) -> std::result::Result<Vec<(&'static str, toml_edit::Value)>, String> {
    match raw {
        "on" => Ok(vec![("check.enabled", toml_edit::Value::from(true))]),
        "off" => Ok(vec![("check.enabled", toml_edit::Value::from(false))]),
        _ => Err(format!("expected on or off, not '{raw}'")),
    }
}
