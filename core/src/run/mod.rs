//! Running a case: the one place that resolves the backend and the precision, checks that the
//! run fits in memory and in its step limit, prepares the output directory, and — for the
//! time-dependent solvers — steps the model with progress lines, snapshots and blow-up handling
//! ([`simulate`]). A solver only says what is particular to it.

pub mod checkpoint;
mod console;
mod dir;
pub mod interrupt;
mod netcdf;
mod norms;
pub mod plan;
mod simulate;
mod writer;

pub use console::Console;
pub use dir::{CASE_FILE, LOCK_FILE, MANIFEST, Manifest, RunDir};
pub use netcdf::file_name as netcdf_file_name;
pub use norms::Norms;
pub use plan::{Plan, Snapshot};
pub use simulate::{Album, Simulation, simulate, time_tag};

use crate::case::{CaseDoc, Common, OutputSection, RunSection};
use crate::runtime::{Backend, BackendChoice};
use crate::{Precision, Result};
use std::path::PathBuf;

/// What every loaded case knows of itself.
#[derive(Clone, Debug)]
pub struct CaseInfo {
    /// The scenario's name, or the case file's stem.
    pub name: String,
    pub solver: &'static str,
    /// Where it came from, for messages and the manifest.
    pub origin: String,
    /// The document as it runs (overrides applied).
    pub text: String,
    /// The document as written, before the command's flags: what a restart tells apart from
    /// the flags of the run it continues ([`checkpoint::continue_case`]).
    pub base: String,
    pub run: RunSection,
    pub output: OutputSection,
    /// The files the case read (rasters, NPY fields, series), with their hashes.
    pub inputs: crate::case::Inputs,
}

impl CaseInfo {
    pub fn new(doc: &CaseDoc, solver: &'static str, common: Common) -> CaseInfo {
        let Common { run, output, .. } = common;
        let name = match doc.origin() {
            crate::case::Origin::Builtin { name, .. } => name.to_string(),
            crate::case::Origin::File(p) => p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        };
        let inputs = doc.inputs().clone();
        let (origin, text, base) = (doc.origin().to_string(), doc.text(), doc.written().to_string());
        CaseInfo { name, solver, origin, text, base, run, output, inputs }
    }

    /// The output directory: `[output] dir`, else `out/<name>`.
    pub fn output_dir(&self) -> PathBuf {
        self.output.dir.clone().unwrap_or_else(|| PathBuf::from("out").join(&self.name))
    }
}

/// Memory a run needs, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    pub host: u64,
    pub gpu: u64,
}

/// A loaded, validated case of some solver: what `run`, `check` and the scenarios drive.
pub trait Case {
    fn info(&self) -> &CaseInfo;
    /// What would run, for `check`: grid, constants, the solver's choices.
    fn summary(&self) -> String;
    /// Memory the solver's part of the run needs in `precision`: the case's fields, the model
    /// and its scratch ([`plan`] adds the runner's).
    fn needs(&self, precision: Precision) -> Needs;
    /// Steps, output and memory of the run, before it starts ([`plan::check`] refuses a run
    /// past a limit).
    fn plan(&self) -> Plan;
    fn run(&self, opts: &RunOptions) -> Result<Outcome>;
}

/// How to run, beyond the case.
#[derive(Debug, Default)]
pub struct RunOptions {
    /// Run in an output directory that holds files hydrokern did not write.
    pub force: bool,
    pub console: Console,
    /// Continue from this checkpoint (`--restart`; see [`checkpoint`]).
    pub restart: Option<PathBuf>,
    /// Stop a time-dependent run at the next step boundary on SIGINT or SIGTERM, with its
    /// outputs whole ([`interrupt`]), instead of dying at once.
    pub catch_signals: bool,
}

/// What a finished run hands back: where it wrote, and the norms of its final fields.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub dir: PathBuf,
    pub steps: u64,
    pub t: f64,
    pub norms: Vec<(String, Norms)>,
}

/// A run's resolved settings and its prepared directory: the common start of every case.
pub struct Started {
    pub backend: Backend,
    pub precision: Precision,
    pub dir: RunDir,
    /// The checkpoint to continue from, read and checked.
    pub restart: Option<checkpoint::Restart>,
    /// The host memory the plan estimated, bytes (the run's last line sets its peak beside it).
    pub estimate: u64,
}

/// Check the run's plan ([`plan::check`]: steps, output, memory), resolve the backend (saying
/// which on standard error), check GPU memory, read and check the
/// checkpoint to restart from (before the directory is touched), prepare the directory and
/// record the case in it. A restart into the directory of the run that wrote the checkpoint
/// continues that run's directory ([`RunDir::resume`]); into any other, it starts a new one.
pub fn start(case: &dyn Case, opts: &RunOptions) -> Result<Started> {
    let info = case.info();
    let precision = info.run.precision;
    let needs = plan::check(case)?.needs;
    let estimate = needs.host;
    let backend = Backend::select(info.run.backend.choice())?;
    crate::warn(format_args!("backend: {}", backend.describe()));
    if let Backend::Gpu(gpu) = &backend {
        gpu.check_fits(&format!("{} in {precision}", info.name), needs.gpu as usize)?;
    }
    let restart = match &opts.restart {
        Some(path) => Some(checkpoint::Restart::open(path, info, precision, checkpoint::backend_kind(&backend))?),
        None => None,
    };
    let manifest = Manifest {
        hydrokern: env!("CARGO_PKG_VERSION").into(),
        revision: crate::GIT_REVISION.into(),
        case: info.origin.clone(),
        solver: info.solver.into(),
        backend: backend.describe(),
        precision: precision.to_string(),
        restarted_from: restart.as_ref().map(|r| {
            let c = r.clock();
            format!("{} (t = {}, step {})", r.path().display(), crate::case::num(c.t), c.steps)
        }),
        ..Manifest::default()
    };
    let out = info.output_dir();
    let mut dir = match &restart {
        Some(r) if checkpoint::wrote(&out, r.path()) => RunDir::resume(&out, opts.force, manifest, r.clock().t)?,
        _ => RunDir::prepare(&out, opts.force, manifest)?,
    };
    let text = info.text.clone();
    dir.write(CASE_FILE, |p| crate::output::write_atomic(p, text.as_bytes()))?;
    Ok(Started { backend, precision, dir, restart, estimate })
}

/// Whether `choice` can run on this machine without opening a GPU (for `check`).
pub fn backend_note(choice: BackendChoice) -> &'static str {
    match choice {
        BackendChoice::Auto => "the GPU when one is usable, else the CPU",
        BackendChoice::Gpu => "the GPU (an error without one)",
        BackendChoice::Cpu => "the CPU",
    }
}
