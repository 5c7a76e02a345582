//! The time loop every time-dependent solver shares: build the model in the case's precision on
//! the chosen backend, step it to each snapshot time, print progress at wall-clock intervals,
//! write snapshots, and stop a run that blows up — naming the step, the time and the first bad
//! cell, and writing the last good state.
//!
//! Progress is read between calls to [`Model::advance`], whose deadline only hands control
//! back: the steps, and so the results, do not depend on how often progress is printed.

use super::checkpoint::{self, Meta, Restart};
use super::live::{self, Live, Served};
use super::netcdf::NetcdfRun;
use super::snapshot::{Progress, blew_up, first_non_finite, write_state};
use super::writer::{Job, QUEUE, Spent, Writer, durations};
use super::{Norms, Outcome, RunDir, RunOptions, Simulation, start, time_tag};
use crate::account::{self, ACCOUNT_RECORD};
use crate::model::{Clock, Model, State, Until};
use crate::output::write_atomic;
use crate::runtime::Backend;
use crate::view::{Command, ViewOptions};
use crate::{Error, GpuReal, Precision, Result};
use std::sync::mpsc::SyncSender;
use std::time::{Duration, Instant};

/// The longest the time loop goes without looking for a signal that asks it to stop.
const POLL: Duration = Duration::from_millis(200);

/// Run a simulation case. With several ranks ([`crate::ranks::world`]) rank 0 runs it and
/// every other rank serves it with its slab; rank 0 ends them whatever becomes of the run.
pub fn simulate<S: Simulation>(sim: &S, opts: &RunOptions) -> Result<Outcome> {
    // Every rank catches the signals a launcher passes on to all; rank 0 alone acts on them,
    // and its end of the run ends the others'.
    if opts.catch_signals {
        super::interrupt::catch();
    }
    let Some(comm) = crate::ranks::world() else { return simulate_here(sim, opts) };
    if comm.rank() != 0 {
        return super::ranks::serve(sim, comm);
    }
    // A solver or a grid that cannot be cut is refused before anything is written.
    let result = sim.decomposition(comm.size()).and_then(|_| simulate_here(sim, opts));
    let ended = crate::ranks::finish(comm.as_ref(), result.is_err());
    result.and_then(|outcome| ended.map(|_| outcome))
}

fn simulate_here<S: Simulation>(sim: &S, opts: &RunOptions) -> Result<Outcome> {
    // `start` refuses a run past its step limit, output or memory (`plan::check`).
    let mut s = start(sim, opts)?;
    let restart = s.restart.as_ref();
    let result = match s.precision {
        Precision::F32 => time_loop::<S, f32>(sim, opts, &s.backend, &mut s.dir, restart),
        // Mixed hands its states over in f64 (`start` refused it for solvers without it).
        Precision::F64 | Precision::Mixed => time_loop::<S, f64>(sim, opts, &s.backend, &mut s.dir, restart),
    };
    match &result {
        // The files reach the disk here, after the run's own time: a run that wrote tens of GB
        // waits seconds for the disk, and says so.
        Ok(outcome) => {
            let t = Instant::now();
            s.dir.reached(outcome.t, outcome.steps);
            s.dir.finish("finished")?;
            opts.console
                .say(format!("  files synced to disk in {:.2} s, after the time above", t.elapsed().as_secs_f64()));
            if let Some(line) = s.memory_line() {
                opts.console.say(line);
            }
        }
        // Stopped on request: the outputs so far are whole, and the manifest says where it
        // stopped (the interrupt's line is the one to report, as any error's is).
        Err(Error::Interrupted { .. }) => {
            let _ = s.dir.finish("interrupted");
        }
        // The run's own error is the one to report: recording it can fail for the same reason
        // (a full disk), and that failure must not hide it.
        Err(e) => {
            let _ = s.dir.finish(&format!("stopped: {e}"));
        }
    }
    result
}

fn time_loop<S: Simulation, T: GpuReal>(
    sim: &S,
    opts: &RunOptions,
    backend: &Backend,
    dir: &mut RunDir,
    restart: Option<&Restart>,
) -> Result<Outcome> {
    let info = sim.info();
    let times = sim.times();
    let say = |line: String| opts.console.say(line);
    let mut model = super::ranks::build::<S, T>(sim, backend)?;
    // On several ranks every rank writes its own part of each checkpoint.
    model.checkpoint_in_parts(dir.path());
    say(format!("{}: {}", info.name, sim.describe()));
    let end = match times.steps {
        Some(n) => format!("{n} steps"),
        None => format!("t = {} {}", time_tag(times.t_end), times.unit),
    };
    let every = info.output.checkpoint_every;
    let checkpoints = every.map(|e| format!("; a checkpoint every {e} {}", times.unit)).unwrap_or_default();
    let snapshots = match times.snapshots.is_empty() {
        true => "a snapshot at the end".to_string(),
        false => {
            let at: Vec<String> = times.snapshots.iter().map(|&t| time_tag(t)).collect();
            format!("snapshots at {} {} and the end", at.join(", "), times.unit)
        }
    };
    say(format!("  {} in {}; to {end}; {snapshots}{checkpoints}", model.describe(), info.run.precision));
    // The water account's rows up to the checkpoint, for a run that keeps one.
    let mut rows = None;
    if let Some(r) = restart {
        // Arrays of other names or sizes than this model's (a file written by other code).
        let path = r.path().display();
        let state = r.state::<T>()?;
        crate::ranks::parts::restore(model.as_mut(), &state, &r.dir())
            .map_err(|e| Error::invalid(format!("checkpoint {path}: {e}")))?;
        rows = state.records.into_iter().find(|(n, _)| n == ACCOUNT_RECORD).map(|(_, rows)| rows);
        let c = r.clock();
        let (path, t) = (r.path().display(), time_tag(c.t));
        say(format!("  restarted from {path} at t = {t} {} (step {})", times.unit, c.steps));
    }
    let started = Instant::now();
    // Taken as every later state is, so that a GPU model sets up its snapshot buffers now,
    // before the first step, rather than at the first progress line.
    let later = model.state_later()?;
    let pool = later.pool();
    let initial = later.wait()?;
    let t0 = initial.clock.t;
    if let Some(bad) = first_non_finite(&initial, &sim.mesh()).or_else(|| sim.check(&initial)) {
        return Err(Error::invalid(format!("{}: the initial state is not valid: {bad}", info.name)));
    }
    let account = match (sim.account(&initial), restart) {
        (Some(a), Some(r)) => {
            let names: Vec<String> = a.boundary.into_iter().map(|b| b.name).collect();
            let path = r.path().display();
            let rows = rows.ok_or_else(|| {
                Error::invalid(format!("checkpoint {path}: the checkpoint has no record '{ACCOUNT_RECORD}'"))
            })?;
            account::rows_of(&rows, &names).map_err(|e| Error::invalid(format!("checkpoint {path}: {e}")))?
        }
        _ => Vec::new(),
    };
    let mut netcdf = NetcdfRun::new(sim, model.describe(), &initial)?;
    if restart.is_some() {
        netcdf.resume(sim, dir, &initial, &opts.console)?;
    }
    say(format!("  t = {} {}: {}", time_tag(t0), times.unit, sim.progress(&initial)));
    let progress = Progress { started, from: times.fraction(t0, initial.clock.steps) };
    // The live view, where the command line or the case asks for one; a port that cannot be
    // listened on leaves the run without it, in one line.
    let view = opts.view.or(info.output.view.map(|port| ViewOptions { port, paused: false }));
    let served = view.and_then(|v| match Served::start(sim, v) {
        Ok(served) => {
            say(format!("  live view: {}", served.url()));
            Some(served)
        }
        Err(e) => {
            say(format!("  view: {e}; the run goes on without its live view"));
            None
        }
    });
    // States, checks, progress lines and files go to the writer thread; the model steps on.
    let (jobs, queue) = std::sync::mpsc::sync_channel(QUEUE);
    let (stepped, written, held) = std::thread::scope(|scope| {
        let writer = Writer {
            sim,
            console: &opts.console,
            dir: &mut *dir,
            netcdf,
            progress,
            good: initial,
            good_pool: pool,
            spent: Spent::default(),
            account,
            hub: served.as_ref().map(|s| &*s.hub),
        };
        let writer = scope.spawn(move || writer.run(queue));
        // The worker that draws the view's frames, beside the writer.
        let (mut live, drawer) = match &served {
            Some(served) => {
                let (frames, drawn) = std::sync::mpsc::sync_channel(1);
                let drawer = scope.spawn(move || live::work(sim, served, drawn));
                (Some(Live::new(served, frames, &opts.console)), Some(drawer))
            }
            None => (None, None),
        };
        let mut held = Held::default();
        let gone = || writer.is_finished();
        let stepped = step(sim, backend, model.as_mut(), restart, &jobs, &mut held, &gone, live.as_mut());
        // The view's last frames drawn and published, then its viewers told how the run ended.
        drop(live);
        if let (Some(served), Some(drawer)) = (&served, drawer) {
            let _ = drawer.join();
            served.finish(match &stepped {
                Ok(Stepped::Done) => "finished",
                Ok(Stepped::Interrupted { .. }) => "stopped",
                Ok(Stepped::OutOfSteps(..)) => "stopped at the step limit",
                Ok(Stepped::Halted(..)) | Ok(Stepped::WriterStopped) | Err(_) => "failed",
            });
            for line in served.hub.take_notes() {
                opts.console.say(line);
            }
        }
        // Close the queue; what the writer still has to do holds the run up as well.
        drop(jobs);
        let waited = Instant::now();
        let written = writer.join().unwrap_or_else(|_| Err(Error::invalid("the writer thread panicked")));
        held.finishing = waited.elapsed();
        (stepped, written, held)
    });
    // The writer's error comes first: it is the earlier event (a blow-up it found, a full disk),
    // and the time loop stopped because of it.
    let written = written?;
    let mut good = written.good;
    match stepped? {
        Stepped::Done => {}
        Stepped::Halted(clock, why, current, state_bad) => {
            return Err(blew_up(sim, dir, &good, &clock, state_bad, &why, &current));
        }
        Stepped::OutOfSteps(clock, state) => {
            good = state;
            write_state(dir, &good, "last_good")?;
            return Err(Error::invalid(format!(
                "{}: stopped at the step limit run.max_steps = {} (t = {} of {} {}); the state is in {} as last_good_*.npy; raise --max-steps to go further",
                info.name,
                info.run.max_steps,
                time_tag(clock.t),
                time_tag(times.t_end),
                times.unit,
                dir.path().display()
            )));
        }
        Stepped::WriterStopped => return Err(Error::invalid("the writer thread stopped without saying why")),
        Stepped::Interrupted { clock, signal, by, complete, checkpoint: saved } => {
            opts.console.end_progress();
            dir.reached(clock.t, clock.steps);
            let unit = times.unit;
            let resume = saved.map_or(String::new(), |c| {
                let path = dir.path().join(checkpoint::CHECKPOINT_FILE);
                format!("; continue from the checkpoint at t = {c} {unit} with --restart {}", path.display())
            });
            let message = format!(
                "interrupted at t = {} {unit}, step {} ({by}); outputs up to t = {complete} {unit} are complete{resume}",
                clock.t, clock.steps
            );
            return Err(Error::Interrupted { signal, message });
        }
    }
    opts.console.end_progress();
    // The animations over every snapshot, now that there are no more.
    for (name, bytes) in written.album.animations.encode()? {
        dir.write(&name, |p| write_atomic(p, &bytes))?;
        say(format!("  animation: {name}"));
    }
    let secs = started.elapsed().as_secs_f64();
    let cells = sim.mesh().cells() as f64;
    let steps = good.clock.steps - restart.map_or(0, |r| r.clock().steps);
    say(format!(
        "done: {} steps to t = {} {} in {secs:.2} s ({:.3e} cell updates/s, output included); results in {}",
        good.clock.steps,
        time_tag(good.clock.t),
        times.unit,
        steps as f64 * cells / secs.max(1e-9),
        dir.path().display()
    ));
    if let Some(line) = sim.conservation(&good) {
        say(format!("  conservation: {line}"));
    }
    let total = held.total().as_secs_f64();
    say(format!(
        "  output held the model up for {total:.2} s ({:.1}% of the run{}); writing took {:.2} s beside it ({})",
        100.0 * total / secs.max(1e-9),
        held.describe(),
        written.busy.as_secs_f64(),
        written.spent.describe()
    ));
    Ok(Outcome {
        dir: dir.path().to_path_buf(),
        steps: good.clock.steps,
        t: good.clock.t,
        norms: good.fields.iter().map(|f| (f.name.to_string(), Norms::of(&f.data))).collect(),
    })
}

/// The time the time loop spent on output rather than stepping, by what it waited for: the
/// run's last line, so that what holds the model up can be told apart.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    /// Taking states, products and checkpoints from the model (on the GPU: enqueueing the
    /// device copies, downloading gauge records and maps; a page-locked buffer allocated when
    /// the writer fell behind).
    taking: Duration,
    /// Waiting for room in the writer's queue.
    queue: Duration,
    /// Waiting for the writer to finish after the last step.
    finishing: Duration,
    /// Taking the live view's frames (a gather and a download of the view's size on the GPU).
    frames: Duration,
}

impl Held {
    fn total(&self) -> Duration {
        self.taking + self.queue + self.finishing + self.frames
    }

    /// ": 0.10 s taking states, …", the parts that took time.
    fn describe(&self) -> String {
        let parts = [
            (self.taking, "taking states"),
            (self.queue, "waiting for the writer's queue"),
            (self.finishing, "waiting for the writer at the end"),
            (self.frames, "taking the live view's frames"),
        ];
        let said = durations(&parts);
        if said.is_empty() { said } else { format!(": {said}") }
    }
}

/// How the stepping ended.
enum Stepped<T> {
    /// Every target reached; the last job was the final snapshot.
    Done,
    /// The model halted (or its state failed the checks) at `clock`: why, the state it holds,
    /// and whether that state is bad.
    Halted(Clock, String, State<T>, bool),
    /// The step limit: the state there.
    OutOfSteps(Clock, State<T>),
    /// The writer ended early: its result says why.
    WriterStopped,
    /// A signal asked the run to stop (SIGINT, SIGTERM), or a viewer did (as SIGINT would):
    /// where it stopped, the signal and who asked, the last time whose outputs were handed to
    /// the writer (a snapshot's, or the start), and the last checkpoint time of this run.
    Interrupted { clock: Clock, signal: i32, by: &'static str, complete: f64, checkpoint: Option<f64> },
}

/// Step the model to every snapshot and the end, handing states, snapshots and checkpoints to
/// the writer (`jobs`) and frames to the live view (`live`); `held` adds up the time this
/// spends on output (copies started, downloads for products and checkpoints, waits for room in
/// the queue), by kind.
#[allow(clippy::too_many_arguments)]
fn step<S: Simulation, T: GpuReal>(
    sim: &S,
    backend: &Backend,
    model: &mut dyn Model<T>,
    restart: Option<&Restart>,
    jobs: &SyncSender<Job<T>>,
    held: &mut Held,
    writer_gone: &dyn Fn() -> bool,
    mut live: Option<&mut Live<T>>,
) -> Result<Stepped<T>> {
    let info = sim.info();
    let times = sim.times();
    let limit = info.run.max_steps;
    // In PROGRESS_RANGE: the case reader checked it.
    let progress_every = Duration::from_secs_f64(info.output.progress);
    // The first line comes early, so a long run shows signs of life within a second.
    let mut next_line = Instant::now() + progress_every.min(Duration::from_secs(1));
    let every = info.output.checkpoint_every;
    // Checkpoint times are k·every before the end: stops of the time loop as snapshot times
    // are, so that a run with checkpoints takes the same steps whether or not it was restarted.
    let mut passed = restart.map_or(0, |r| r.checkpoints());
    let checkpoint_at = |k: u64| every.map(|e| (k + 1) as f64 * e).filter(|&t| t < times.t_end);
    let mut clock = model.clock();
    let t0 = clock.t;
    // What an interrupt reports: outputs are whole up to `complete`; a checkpoint at `saved`.
    let (mut complete, mut saved) = (t0, None);
    let interrupted = |clock: Clock, complete: f64, saved: Option<f64>| {
        super::interrupt::requested().map(|signal| Stepped::Interrupted {
            clock,
            signal,
            by: super::interrupt::name(signal),
            complete,
            checkpoint: saved,
        })
    };
    // The view's frames, timed as output.
    let frame = |live: &mut Option<&mut Live<T>>, model: &mut dyn Model<T>, held: &mut Held, always: bool| {
        let t = Instant::now();
        let taken = live.as_deref_mut().map_or(Ok(()), |l| l.frame(model, always));
        held.frames += t.elapsed();
        taken
    };
    // The first: the state the run starts from.
    frame(&mut live, model, held, true)?;
    // (time, step budget, whether the budget ends the run rather than limits it); a restarted
    // run has written the snapshots up to its checkpoint's time.
    let snapshots = times.snapshots.iter().filter(|&&t| restart.is_none() || t > t0);
    let mut targets: Vec<(f64, u64, bool)> = snapshots.map(|&t| (t, limit, false)).collect();
    targets.push(match times.steps {
        Some(n) => (f64::INFINITY, n, true),
        None => (times.t_end, limit, false),
    });
    // Hand a job over, timing the wait; false when the writer is gone.
    let mut send = |job: Job<T>, held: &mut Held| {
        let t = Instant::now();
        let ok = jobs.send(job).is_ok();
        held.queue += t.elapsed();
        ok
    };
    let last = targets.len() - 1;
    for (target, (stop, budget, ends)) in targets.into_iter().enumerate() {
        let reached = |c: &Clock, stop: f64| c.t >= stop || (ends && c.steps >= budget);
        // Whether a stop was reached on the way here: the snapshot's state then shows as a
        // progress line too, as every stop's does.
        let mut stepped = false;
        while !reached(&clock, stop) {
            // A viewer's pause holds the run here, between steps; a viewer's stop is SIGINT's.
            if let Some(l) = live.as_deref()
                && l.hold(POLL) == Command::Stop
            {
                let by = "stopped from the live view";
                let checkpoint = saved;
                return Ok(Stepped::Interrupted { clock, signal: libc::SIGINT, by, complete, checkpoint });
            }
            if let Some(stopped) = interrupted(clock, complete, saved) {
                return Ok(stopped);
            }
            stepped = true;
            let to = checkpoint_at(passed).map_or(stop, |c| c.min(stop));
            // Back at least every POLL, to look for a signal; the deadline never changes a step.
            let deadline = next_line.min(Instant::now() + POLL);
            let deadline = live.as_deref().and_then(|l| l.due()).map_or(deadline, |d| d.min(deadline));
            let until = Until { t: to, steps: budget, deadline: Some(deadline) };
            clock = model.advance(until)?;
            let at_stop = reached(&clock, to);
            let due = Instant::now() >= next_line;
            let out_of_steps = !at_stop && clock.steps >= budget;
            if writer_gone() {
                return Ok(Stepped::WriterStopped);
            }
            if let Some(h) = clock.halt {
                let state = model.state()?;
                let bad = first_non_finite(&state, &sim.mesh()).or_else(|| sim.check(&state));
                let why = bad.clone().unwrap_or_else(|| sim.halted(&h, &state));
                return Ok(Stepped::Halted(clock, why, state, bad.is_some()));
            }
            if out_of_steps {
                let state = model.state()?;
                if let Some(why) = first_non_finite(&state, &sim.mesh()).or_else(|| sim.check(&state)) {
                    return Ok(Stepped::Halted(clock, why, state, true));
                }
                return Ok(Stepped::OutOfSteps(clock, state));
            }
            frame(&mut live, model, held, false)?;
            // At the snapshot's own stop, the snapshot job shows the line.
            if (due || at_stop) && !(at_stop && to >= stop) {
                let t = Instant::now();
                let later = model.state_later()?;
                held.taking += t.elapsed();
                if !send(Job::Progress(later), held) {
                    return Ok(Stepped::WriterStopped);
                }
                next_line = Instant::now() + progress_every;
            }
            if to < stop && at_stop && clock.t >= to {
                passed += 1;
                if !checkpoint(sim, backend, model, passed, &mut send, held)? {
                    return Ok(Stepped::WriterStopped);
                }
                saved = Some(clock.t);
            }
        }
        let t = Instant::now();
        let later = model.state_later()?;
        // The maps only at the end (and at checkpoints): each is as large as a field.
        let products = model.products(target == last)?;
        held.taking += t.elapsed();
        if !send(Job::Snapshot(later, products, stepped), held) {
            return Ok(Stepped::WriterStopped);
        }
        // Every snapshot shows in the view, the last one included.
        frame(&mut live, model, held, true)?;
        complete = clock.t;
        next_line = Instant::now() + progress_every;
        // A checkpoint time that is also this snapshot's: the checkpoint comes after the
        // snapshot, so that a restart from it has nothing before it left to write.
        if checkpoint_at(passed).is_some_and(|c| clock.t >= c) {
            passed += 1;
            if !checkpoint(sim, backend, model, passed, &mut send, held)? {
                return Ok(Stepped::WriterStopped);
            }
            saved = Some(clock.t);
        }
    }
    Ok(Stepped::Done)
}

/// The model's whole state, handed to the writer for the run directory's checkpoint file
/// (replacing the last one) with the products so far, maps included, written beside it; false
/// when the writer is gone.
fn checkpoint<S: Simulation, T: GpuReal>(
    sim: &S,
    backend: &Backend,
    model: &mut dyn Model<T>,
    passed: u64,
    send: &mut impl FnMut(Job<T>, &mut Held) -> bool,
    held: &mut Held,
) -> Result<bool> {
    let info = sim.info();
    let t = Instant::now();
    let state = model.checkpoint()?;
    let products = model.products(true)?;
    held.taking += t.elapsed();
    let meta = Meta::of(info, checkpoint::backend_kind(backend), passed);
    Ok(send(Job::Checkpoint(state, Box::new(meta), products), held))
}
