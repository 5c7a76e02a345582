//! The common start of every run: its plan checked, the backend resolved, the checkpoint to
//! continue from read, the output directory prepared and the case recorded in it.

use super::dir::{CASE_FILE, Manifest, RunDir};
use super::{Case, RunOptions, checkpoint, plan};
use crate::runtime::{Backend, BackendChoice};
use crate::{Error, Precision, Result};

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

impl Started {
    /// The run's last line on memory ([`plan::peak_line`]): the peak beside the estimate and,
    /// on the GPU, the host memory the driver took to open it.
    pub fn memory_line(&self) -> Option<String> {
        plan::peak_line(self.estimate, self.backend.driver_host_bytes())
    }

    /// The end of a run that computes once (no time loop): its directory finished, with the
    /// memory line said, or stopped with the run's error, which is the one handed on (recording
    /// it can fail for the same reason, a full disk, and that must not hide it).
    pub fn finish_once<T>(&mut self, opts: &RunOptions, result: Result<T>) -> Result<T> {
        match &result {
            Ok(_) => {
                self.dir.finish("finished")?;
                if let Some(line) = self.memory_line() {
                    opts.console.say(line);
                }
            }
            Err(e) => {
                let _ = self.dir.finish(&format!("stopped: {e}"));
            }
        }
        result
    }
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
    let local = crate::ranks::world().map_or(0, |c| c.local_rank());
    let backend = Backend::select_for(info.run.backend.choice(), local, info.run.gpus)?;
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
        Some(r) if checkpoint::wrote(&out, r.path()) => {
            RunDir::resume(&out, opts.force, manifest, (r.clock().t, r.clock().steps))?
        }
        // A new run in the directory of a set's parts would clear them before they are read.
        Some(r) if r.has_parts() && checkpoint::same_path(&out, &r.dir()) => {
            return Err(Error::invalid(format!(
                "checkpoint {}: its parts lie in the output directory {}, which this run would clear as a new run's: restart into another directory",
                r.path().display(),
                out.display()
            )));
        }
        _ => RunDir::prepare(&out, opts.force, manifest)?,
    };
    let text = info.text.clone();
    dir.write(CASE_FILE, |p| crate::output::write_atomic(p, text.as_bytes()))?;
    Ok(Started { backend, precision, dir, restart, estimate })
}

/// What `hydrokern check` prints of a case, a line each: that it passes the checks a run
/// starts with ([`plan::check`]), what would run, the plan, and where and in what.
pub fn check_report(case: &dyn Case) -> Result<Vec<String>> {
    let plan = plan::check(case)?;
    let info = case.info();
    Ok(vec![
        format!("{}: ok ({} case from {})", info.name, info.solver, info.origin),
        format!("  {}", case.summary()),
        format!("  {}", plan.describe()),
        format!(
            "  {} on {}; memory: about {} on the host at the peak, {} on a GPU; output to {}",
            info.run.precision,
            backend_note(info.run.backend.choice(), info.run.gpus),
            crate::files::bytes(plan.needs.host),
            crate::files::bytes(plan.needs.gpu),
            info.output_dir().display()
        ),
    ])
}

/// Whether `choice` can run on this machine without opening a GPU (for `check`), with the
/// GPUs of each host it asks for (`run.gpus`).
pub fn backend_note(choice: BackendChoice, gpus: Option<usize>) -> String {
    let on = match choice {
        BackendChoice::Auto => "the GPU when one is usable, else the CPU",
        BackendChoice::Gpu => "the GPU (an error without one)",
        BackendChoice::Cpu => "the CPU",
    };
    match gpus {
        Some(n) => format!(
            "{on}; the first {n} GPU{} of each host (an error on a host with fewer)",
            if n == 1 { "" } else { "s" }
        ),
        None => on.to_string(),
    }
}
