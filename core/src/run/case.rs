//! What the runner knows of a case: its name, origin, text and shared sections ([`CaseInfo`]),
//! the memory it needs ([`Needs`]) and what its run will do ([`Plan`], worked out by
//! `run::plan`), the interface every loaded case offers ([`Case`]), how to
//! run it ([`RunOptions`]) and what a finished run hands back ([`Outcome`]).

use super::{Console, Norms};
use crate::case::{CaseDoc, Common, OutputSection, RunSection, count};
use crate::files::bytes;
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
    /// the flags of the run it continues ([`continue_case`](super::checkpoint::continue_case)).
    pub base: String,
    pub run: RunSection,
    pub output: OutputSection,
    /// The files the case read (rasters, NPY fields, series), with their hashes.
    pub inputs: crate::case::Inputs,
}

impl CaseInfo {
    pub fn new(doc: &CaseDoc, solver: &'static str, common: Common) -> CaseInfo {
        let Common { run, output, .. } = common;
        let name = doc.name();
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
    /// and its scratch ([`plan`](super::plan) adds the runner's).
    fn needs(&self, precision: Precision) -> Needs;
    /// Steps, output and memory of the run, before it starts ([`plan::check`](super::plan::check) refuses a run
    /// past a limit).
    fn plan(&self) -> Plan;
    fn run(&self, opts: &RunOptions) -> Result<Outcome>;
    /// The case as a program that steps it sees it, for a time-dependent solver; None for a
    /// solver that computes once.
    fn steppable(&self) -> Option<&dyn super::stepping::Steppable> {
        None
    }
}

/// How to run, beyond the case.
#[derive(Debug, Default)]
pub struct RunOptions {
    /// Run in an output directory that holds files hydrokern did not write.
    pub force: bool,
    pub console: Console,
    /// Continue from this checkpoint (`--restart`; see [`checkpoint`](super::checkpoint)).
    pub restart: Option<PathBuf>,
    /// Stop a time-dependent run at the next step boundary on SIGINT or SIGTERM, with its
    /// outputs whole (`interrupt.rs`), instead of dying at once.
    pub catch_signals: bool,
    /// Serve the live view while the run goes (`--view`; docs/view.md); the case's
    /// `output.view` port where this is None.
    pub view: Option<crate::view::ViewOptions>,
}

/// What a finished run hands back: where it wrote, and the norms of its final fields.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub dir: PathBuf,
    pub steps: u64,
    pub t: f64,
    pub norms: Vec<(String, Norms)>,
}

/// What a run will do, before it starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Steps to the end, the stops at snapshots and checkpoints included (each may add one);
    /// `None` for a solver that computes once.
    pub steps: Option<f64>,
    /// What the estimate of `steps` rests on, for `check` ("from the initial wave speeds").
    pub basis: &'static str,
    /// The unit of simulated time ("s", "yr").
    pub unit: &'static str,
    pub output: Volume,
    /// Host memory at the peak, and GPU memory.
    pub needs: Needs,
    /// The longest name of a file the run writes that the case names (its NetCDF files, its
    /// gauges' files), and what gives it that length.
    pub longest_name: (String, &'static str),
}

/// The output of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Volume {
    /// Snapshots, the end's included.
    pub snapshots: u64,
    pub checkpoints: u64,
    /// Gauge samples over all gauges (a row of a gauge's file each).
    pub gauge_records: u64,
    /// Line samples over all lines (a value of `lines.csv` each).
    pub line_records: u64,
    /// Files written, a file rewritten counting each time.
    pub files: u64,
    /// Bytes the run directory holds at the end (pictures at about a byte for four pixels).
    pub bytes: u64,
}

impl Plan {
    /// The plan in `check`'s words: the steps, then the output.
    pub fn describe(&self) -> String {
        let v = &self.output;
        let mut s = match self.steps {
            Some(n) if self.basis.is_empty() => format!("about {} steps; ", count(n)),
            Some(n) => format!("about {} steps ({}); ", count(n), self.basis),
            None => String::new(),
        };
        if self.steps.is_some() {
            let mut events = vec![format!("{} snapshot{}", count(v.snapshots as f64), plural(v.snapshots))];
            if v.checkpoints > 0 {
                events.push(format!("{} checkpoint{}", count(v.checkpoints as f64), plural(v.checkpoints)));
            }
            if v.gauge_records > 0 {
                events.push(format!("{} gauge record{}", count(v.gauge_records as f64), plural(v.gauge_records)));
            }
            if v.line_records > 0 {
                events.push(format!("{} line record{}", count(v.line_records as f64), plural(v.line_records)));
            }
            s += &format!("{}; ", events.join(", "));
        }
        s + &format!("output: {} files written, about {}", count(v.files as f64), bytes(v.bytes))
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
