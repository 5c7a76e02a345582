//! The run's writer thread: everything the time loop hands over that can wait — states on their
//! way from the GPU, their checks, progress lines, snapshot files, pictures, products and
//! checkpoints — done in the order handed over while the model steps on.
//!
//! The time loop only enqueues ([`Job`]); a queue of [`QUEUE`] jobs lets it run ahead of the
//! disk by that much and then waits (so memory stays bounded). A state that fails its checks
//! ends the writer with the blow-up error, naming the last good state it had checked; the time
//! loop sees the writer gone at its next stop and stops too.

use super::checkpoint::{self, CHECKPOINT_FILE, Meta};
use super::netcdf::NetcdfRun;
use super::snapshot::{Progress, blew_up, first_non_finite, write_snapshot};
use super::{Album, Console, RunDir, Simulation};
use crate::account::{self, ACCOUNT_FILE, ACCOUNT_RECORD, Account, rows_record};
use crate::grid::Mesh;
use crate::model::{Checkpoint, Later, Pool, State};
use crate::products::{self, Products};
use crate::{GpuReal, Result};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Jobs the time loop may run ahead of the writer by.
pub const QUEUE: usize = 2;

/// One piece of work for the writer.
pub enum Job<T> {
    /// Check a state and show a progress line of it.
    Progress(Later<T>),
    /// Check a state and write its snapshot, and the products so far; show a progress line of
    /// it first when the flag says so.
    Snapshot(Later<T>, Option<Products<T>>, bool),
    /// Write the products so far, then a checkpoint (it replaces the last one).
    Checkpoint(Checkpoint<T>, Box<Meta>, Option<Products<T>>),
}

/// What the writer leaves when the queue closes.
pub struct Written<T> {
    /// The last state that passed the checks.
    pub good: State<T>,
    pub album: Album,
    /// Time spent on the jobs, on the writer's thread.
    pub busy: Duration,
    /// Where `busy` went.
    pub spent: Spent,
}

/// The writer's time by what it did, for the run's last line: where output's time goes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spent {
    /// Waiting for states to arrive (a GPU model's downloads, and forming the output fields
    /// from what came down).
    pub arriving: Duration,
    /// Checking states (finite, physical) and their progress lines.
    pub checking: Duration,
    /// Snapshot files: NPY, pictures, NetCDF records, the water account's CSV.
    pub snapshots: Duration,
    /// Gauge records and maps.
    pub products: Duration,
    pub checkpoints: Duration,
}

impl Spent {
    /// "0.31 s waiting for states to arrive, 0.05 s checking them, …", the parts that took time.
    pub fn describe(&self) -> String {
        let parts = [
            (self.arriving, "waiting for states to arrive"),
            (self.checking, "checking them"),
            (self.snapshots, "on snapshot files"),
            (self.products, "on gauges and maps"),
            (self.checkpoints, "on checkpoints"),
        ];
        durations(&parts)
    }
}

/// "0.31 s waiting …, 0.05 s checking …": the parts of a time that show at two decimals (5 ms
/// or more), for the run's last line.
pub(super) fn durations(parts: &[(Duration, &str)]) -> String {
    let said: Vec<String> = parts
        .iter()
        .filter(|(d, _)| d.as_secs_f64() >= 0.005)
        .map(|(d, what)| format!("{:.2} s {what}", d.as_secs_f64()))
        .collect();
    said.join(", ")
}

pub struct Writer<'a, S, T> {
    pub sim: &'a S,
    pub console: &'a Console,
    pub dir: &'a mut RunDir,
    pub netcdf: NetcdfRun,
    pub progress: Progress,
    pub good: State<T>,
    /// Where `good`'s vectors go back to when a later state replaces it.
    pub good_pool: Option<Pool<T>>,
    /// Where the writer's time went so far.
    pub spent: Spent,
    /// The water account at every snapshot so far (a restarted run's from its checkpoint), for
    /// a run that keeps one: `account.csv`'s rows.
    pub account: Vec<Account>,
    /// The live view, which plots the balance of every state checked.
    pub hub: Option<&'a crate::view::Hub>,
}

impl<S: Simulation, T: GpuReal> Writer<'_, S, T> {
    /// Do the jobs until the queue closes or one fails.
    pub fn run(mut self, jobs: Receiver<Job<T>>) -> Result<Written<T>> {
        let mut album = Album::default();
        let mut busy = Duration::ZERO;
        for job in jobs {
            let started = Instant::now();
            match job {
                Job::Progress(later) => {
                    let pool = later.pool();
                    let state = self.checked(later)?;
                    let t = Instant::now();
                    self.progress.show(self.console, self.sim, &state);
                    self.spent.checking += t.elapsed();
                    self.keep(state, pool);
                }
                Job::Snapshot(later, products, line) => {
                    let pool = later.pool();
                    let state = self.checked(later)?;
                    if line {
                        let t = Instant::now();
                        self.progress.show(self.console, self.sim, &state);
                        self.spent.checking += t.elapsed();
                    }
                    self.snapshot(&state, products, &mut album)?;
                    self.keep(state, pool);
                }
                Job::Checkpoint(c, meta, products) => {
                    // The account's rows so far, for a restart to write account.csv whole.
                    let c = match self.sim.snapshot().account {
                        true => c.record(ACCOUNT_RECORD, rows_record(&self.account)),
                        false => c,
                    };
                    let files = self.products(products, c.clock.t)?;
                    let t = Instant::now();
                    if !files.is_empty() {
                        self.console.say(format!(
                            "  checkpoint t = {} {}: {}",
                            super::time_tag(c.clock.t),
                            self.sim.times().unit,
                            files.join(", ")
                        ));
                    }
                    // What the run wrote so far is on disk before the checkpoint that stands
                    // for it: a restart after a crash finds everything up to its time.
                    // A set's parts, on disk already, listed before the manifest that names
                    // them; the last set's go once the new manifest is.
                    let parts = crate::ranks::parts::Set::of(&c)?.map(|s| s.names(c.clock.steps)).unwrap_or_default();
                    self.dir.list_all(&parts)?;
                    self.dir.sync()?;
                    self.dir.write(CHECKPOINT_FILE, |p| checkpoint::write(p, &meta, &c))?;
                    self.dir.sync()?;
                    self.dir.remove_parts_but(&parts, c.clock.steps)?;
                    self.spent.checkpoints += t.elapsed();
                }
            }
            busy += started.elapsed();
        }
        Ok(Written { good: self.good, album, busy, spent: self.spent })
    }

    /// Keep `state` as the last good one, giving the one it replaces back to its pool; the live
    /// view plots its balance.
    fn keep(&mut self, state: State<T>, pool: Option<Pool<T>>) {
        if let Some((hub, (name, error))) = self.hub.zip(self.sim.balance(&state)) {
            hub.push_balance(name, state.clock.t, error);
        }
        let old = std::mem::replace(&mut self.good, state);
        if let Some(p) = std::mem::replace(&mut self.good_pool, pool) {
            p.give(old);
        }
    }

    /// The state, once it has arrived, if it is sound; else the blow-up error (after writing
    /// the last good state).
    fn checked(&mut self, later: Later<T>) -> Result<State<T>> {
        let t = Instant::now();
        let state = later.wait()?;
        self.spent.arriving += t.elapsed();
        let t = Instant::now();
        let bad = first_non_finite(&state, &self.sim.mesh()).or_else(|| self.sim.check(&state));
        self.spent.checking += t.elapsed();
        match bad {
            None => Ok(state),
            Some(why) => Err(blew_up(self.sim, self.dir, &self.good, &state.clock, true, &why, &state)),
        }
    }

    fn snapshot(&mut self, state: &State<T>, products: Option<Products<T>>, album: &mut Album) -> Result<()> {
        let times = self.sim.times();
        let t = Instant::now();
        let account = self.sim.account(state);
        let mut files = write_snapshot(self.sim, self.dir, state, account.as_ref(), album, &mut self.netcdf)?;
        if let Some(a) = account {
            // Rewritten whole, as the products' CSV files are: a killed run leaves it whole.
            self.account.push(a);
            let text = account::csv(&self.account);
            self.dir.write(ACCOUNT_FILE, |path| crate::output::write_atomic(path, text.as_bytes()))?;
            files.push(ACCOUNT_FILE.to_string());
        }
        self.spent.snapshots += t.elapsed();
        files.extend(self.products(products, state.clock.t)?);
        if !files.is_empty() {
            let t = super::time_tag(state.clock.t);
            self.console.say(format!("  snapshot t = {t} {}: {}", times.unit, files.join(", ")));
        }
        Ok(())
    }

    /// The gauge and line records so far, rewritten whole, and the maps when they came along (at the
    /// end and at checkpoints) as they stand at time `at`; the names written.
    fn products(&mut self, products: Option<Products<T>>, at: f64) -> Result<Vec<String>> {
        let (Some(p), Mesh::Plane(grid)) = (products, self.sim.mesh()) else { return Ok(Vec::new()) };
        let t = Instant::now();
        let info = self.sim.info();
        let p = Products { maps: products::shown(p.maps, at), series: p.series, lines: p.lines };
        let (epsg, active, t_end) = (info.inputs.epsg(), self.sim.active(), self.sim.times().t_end);
        let mut files = super::products::write(self.dir, &p, &grid, t_end, &info.output, epsg, active)?;
        files.extend(self.netcdf.products(self.sim, self.dir, &p, &grid)?);
        self.spent.products += t.elapsed();
        Ok(files)
    }
}
