//! The time loop every time-dependent solver shares: build the model in the case's precision on
//! the chosen backend, step it to each snapshot time, print progress at wall-clock intervals,
//! write snapshots, and stop a run that blows up — naming the step, the time and the first bad
//! cell, and writing the last good state.
//!
//! Progress is read between calls to [`Model::advance`], whose deadline only hands control
//! back: the steps, and so the results, do not depend on how often progress is printed.

use super::{Case, Norms, Outcome, RunDir, RunOptions, start};
use crate::case::{Format, Times};
use crate::grid::Mesh;
use crate::model::{Clock, Halt, Model, State, Until};
use crate::output::{Animations, write_atomic, write_npy};
use crate::runtime::Backend;
use crate::{Error, GpuReal, Precision, Real, Result};
use std::time::{Duration, Instant};

/// Curves kept from snapshot to snapshot for plots that show them all (a centre-line profile),
/// and the frames of the run's animations, written when it ends.
#[derive(Clone, Debug, Default)]
pub struct Album {
    pub profiles: Vec<(f64, Vec<f64>)>,
    pub animations: Animations,
}

/// What a time-dependent solver tells the runner, beyond what every [`Case`] says.
pub trait Simulation: Case {
    /// One line on what is simulated: grid, constants, boundaries.
    fn describe(&self) -> String;
    fn times(&self) -> &Times;
    /// The cells the output fields live on, for naming cells in messages.
    fn mesh(&self) -> Mesh;
    /// Steps the run will take, estimated from the initial state (a run estimated past its
    /// step limit is refused before it starts).
    fn estimate_steps(&self) -> f64;
    /// The model, on `backend`, in precision `T`.
    fn build<T: GpuReal>(&self, backend: &Backend) -> Result<Box<dyn Model<T> + '_>>;
    /// What a progress line shows of a state beyond clock and Δt: conserved totals against
    /// their initial values, ranges.
    fn progress<T: Real>(&self, state: &State<T>) -> String;
    /// Why a finite state is not physical (a negative depth), if it is not.
    fn check<T: Real>(&self, _state: &State<T>) -> Option<String> {
        None
    }
    /// What to say of a model that halted (`halt`), given the state it kept: by default the
    /// reason alone; a solver may add where (the fastest cell, say).
    fn halted<T: Real>(&self, halt: &Halt, _state: &State<T>) -> String {
        halt.to_string()
    }
    /// Pictures of a snapshot.
    fn pictures<T: Real>(&self, state: &State<T>, album: &mut Album, dir: &mut RunDir) -> Result<()>;
}

/// A time formatted for file names and messages: the shortest decimal that reads back as the
/// same number (`0.25`, `1`, `20000`).
pub fn time_tag(t: f64) -> String {
    format!("{t}")
}

/// Run a simulation case.
pub fn simulate<S: Simulation>(sim: &S, opts: &RunOptions) -> Result<Outcome> {
    let info = sim.info();
    let estimate = sim.times().steps.map(|n| n as f64).unwrap_or_else(|| sim.estimate_steps());
    if estimate > info.run.max_steps as f64 {
        return Err(Error::invalid(format!(
            "{}: this run needs about {estimate:.3e} steps to t = {} {}, more than run.max_steps = {}; \
             raise the limit with --max-steps (or run.max_steps) if that is what you want",
            info.name,
            sim.times().t_end,
            sim.times().unit,
            info.run.max_steps
        )));
    }
    let mut s = start(sim, opts)?;
    let result = match s.precision {
        Precision::F32 => time_loop::<S, f32>(sim, opts, &s.backend, &mut s.dir),
        Precision::F64 => time_loop::<S, f64>(sim, opts, &s.backend, &mut s.dir),
    };
    match &result {
        Ok(_) => s.dir.finish("finished")?,
        Err(e) => s.dir.finish(&format!("stopped: {e}"))?,
    }
    result
}

/// The first cell of `state` that is not finite: "h[3, 7] (NumPy row 3, column 7 of h.npy; …) = NaN".
fn first_non_finite<T: Real>(state: &State<T>, mesh: &Mesh) -> Option<String> {
    for f in &state.fields {
        if let Some(k) = f.data.iter().position(|v| !v.is_finite()) {
            let at =
                if f.dims == mesh.dims() { mesh.cell_note(f.name, k) } else { format!("{}[{k}] (flat index)", f.name) };
            return Some(format!("{at} = {}", f.data[k]));
        }
    }
    None
}

fn time_loop<S: Simulation, T: GpuReal>(
    sim: &S,
    opts: &RunOptions,
    backend: &Backend,
    dir: &mut RunDir,
) -> Result<Outcome> {
    let info = sim.info();
    let times = sim.times();
    let limit = info.run.max_steps;
    let say = |line: String| opts.console.say(line);
    let mut model = sim.build::<T>(backend)?;
    say(format!("{}: {}", info.name, sim.describe()));
    let end = match times.steps {
        Some(n) => format!("{n} steps"),
        None => format!("t = {} {}", times.t_end, times.unit),
    };
    say(format!(
        "  {} in {}; to {end}; snapshots at {:?} {} and the end",
        model.describe(),
        T::NAME,
        times.snapshots,
        times.unit
    ));
    let started = Instant::now();
    // In PROGRESS_RANGE: the case reader checked it.
    let every = Duration::from_secs_f64(info.output.progress);
    // The first line comes early, so a long run shows signs of life within a second.
    let mut next_line = started + every.min(Duration::from_secs(1));
    let mut album = Album::default();
    // The last state that passed the checks: what progress lines, snapshots and a blow-up's
    // last_good files show.
    let mut good = model.state()?;
    if let Some(bad) = first_non_finite(&good, &sim.mesh()).or_else(|| sim.check(&good)) {
        return Err(Error::invalid(format!("{}: the initial state is not valid: {bad}", info.name)));
    }
    say(format!("  t = 0 {}: {}", times.unit, sim.progress(&good)));
    // (time, step budget, whether the budget ends the run rather than limits it)
    let mut targets: Vec<(f64, u64, bool)> = times.snapshots.iter().map(|&t| (t, limit, false)).collect();
    targets.push(match times.steps {
        Some(n) => (f64::INFINITY, n, true),
        None => (times.t_end, limit, false),
    });
    for (stop, budget, ends) in targets {
        let reached = |c: &Clock| c.t >= stop || (ends && c.steps >= budget);
        while !reached(&good.clock) {
            let until = Until { t: stop, steps: budget, deadline: Some(next_line) };
            let clock = model.advance(until)?;
            let at_stop = reached(&clock);
            let due = Instant::now() >= next_line;
            let out_of_steps = !at_stop && clock.steps >= budget;
            if !(at_stop || due || clock.halt.is_some() || out_of_steps) {
                continue;
            }
            let state = model.state()?;
            let bad = first_non_finite(&state, &sim.mesh()).or_else(|| sim.check(&state));
            if let Some(why) = bad.clone().or_else(|| clock.halt.map(|h| sim.halted(&h, &state))) {
                return blew_up(sim, dir, &good, &clock, bad.is_some(), &why, &state);
            }
            good = state;
            if out_of_steps {
                write_state(dir, &good, "last_good")?;
                return Err(Error::invalid(format!(
                    "{}: stopped at the step limit run.max_steps = {limit} (t = {} of {} {}); the state is in {} as last_good_*.npy; raise --max-steps to go further",
                    info.name,
                    clock.t,
                    times.t_end,
                    times.unit,
                    dir.path().display()
                )));
            }
            if due || at_stop {
                say(progress_line(sim, &good, &clock, started));
                next_line = Instant::now() + every;
            }
        }
        let files = write_snapshot(sim, dir, &good, &mut album)?;
        if !files.is_empty() {
            say(format!("  snapshot t = {} {}: {}", good.clock.t, times.unit, files.join(", ")));
        }
    }
    // The animations over every snapshot, now that there are no more.
    for (name, bytes) in album.animations.encode()? {
        dir.write(&name, |p| write_atomic(p, &bytes))?;
        say(format!("  animation: {name}"));
    }
    let secs = started.elapsed().as_secs_f64();
    let cells = sim.mesh().cells() as f64;
    say(format!(
        "done: {} steps to t = {} {} in {secs:.2} s ({:.3e} cell updates/s, output included); results in {}",
        good.clock.steps,
        good.clock.t,
        times.unit,
        good.clock.steps as f64 * cells / secs.max(1e-9),
        dir.path().display()
    ));
    Ok(Outcome {
        dir: dir.path().to_path_buf(),
        steps: good.clock.steps,
        t: good.clock.t,
        norms: good.fields.iter().map(|f| (f.name.to_string(), Norms::of(&f.data))).collect(),
    })
}

fn progress_line<S: Simulation, T: Real>(sim: &S, state: &State<T>, clock: &Clock, started: Instant) -> String {
    let times = sim.times();
    let frac = times.fraction(clock.t, clock.steps);
    let elapsed = started.elapsed().as_secs_f64();
    let eta = if frac > 0.0 { elapsed * (1.0 - frac) / frac } else { f64::NAN };
    format!(
        "[{:>3.0}%] step {:>8}  t = {:.6e} {}  Δt = {:.3e}  {}  {elapsed:.1} s, ETA {eta:.1} s",
        100.0 * frac,
        clock.steps,
        clock.t,
        times.unit,
        clock.dt,
        sim.progress(state)
    )
}

/// NPY files of every field, `<name>_t<time>.npy` with `tag` `state`, or `<tag>_<name>_t<time>.npy`.
fn write_state<T: GpuReal>(dir: &mut RunDir, state: &State<T>, tag: &str) -> Result<Vec<String>> {
    let t = time_tag(state.clock.t);
    let mut names = Vec::new();
    for f in &state.fields {
        let name = if tag.is_empty() { format!("{}_t{t}.npy", f.name) } else { format!("{tag}_{}_t{t}.npy", f.name) };
        dir.write(&name, |p| write_npy(p, &f.data, &f.dims))?;
        names.push(name);
    }
    Ok(names)
}

/// The snapshot's files (NPY) and pictures (PNG), as the case's formats ask; their names.
fn write_snapshot<S: Simulation, T: GpuReal>(
    sim: &S,
    dir: &mut RunDir,
    state: &State<T>,
    album: &mut Album,
) -> Result<Vec<String>> {
    let out = &sim.info().output;
    let mut names = Vec::new();
    if out.wants(Format::Npy) {
        names = write_state(dir, state, "")?;
    }
    if out.wants(Format::Png) {
        sim.pictures(state, album, dir)?;
        names.push("pictures".into());
    }
    Ok(names)
}

fn blew_up<S: Simulation, T: GpuReal>(
    sim: &S,
    dir: &mut RunDir,
    good: &State<T>,
    clock: &Clock,
    state_bad: bool,
    why: &str,
    current: &State<T>,
) -> Result<Outcome> {
    let info = sim.info();
    // A halted model holds the state before its failing step: keep that one when it is sound.
    let keep = if state_bad { good } else { current };
    write_state(dir, keep, "last_good")?;
    let unit = sim.times().unit;
    // A model that halted holds its state and clock from before the failing step, whose time
    // is not known here; otherwise the state at `clock` is the bad one.
    let halted = clock.halt.is_some() && !state_bad;
    let (from, to) = if halted {
        (&current.clock, format!("step {}", clock.steps + 1))
    } else {
        (&good.clock, format!("step {} (t = {} {unit})", clock.steps.max(good.clock.steps + 1), clock.t))
    };
    Err(Error::invalid(format!(
        "{}: the run blew up between step {} (t = {} {unit}) and {to}: {why}; the last good state (step {}, t = {} {}) is in {} as last_good_*.npy",
        info.name,
        from.steps,
        from.t,
        keep.clock.steps,
        keep.clock.t,
        sim.times().unit,
        dir.path().display()
    )))
}
