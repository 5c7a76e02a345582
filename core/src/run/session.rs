//! A simulation stepped by another program (the Python module) instead of the runner's time
//! loop: the model built on the case's backend in its precision, advanced to the times the
//! caller names, its state read between calls. The checks are the runner's: the plan's limits
//! and the GPU's memory before the model is built, a halted model or a state that is not finite
//! refused with the step, the time and the cell.

use super::checkpoint::{self, Meta, Restart};
use super::live::{Drawer, Pace, Served};
use super::snapshot::first_non_finite;
use super::stepping::{AnyCheckpoint, AnyState, Diagnostics, Session, Steppable};
use super::{Case, Simulation, plan, time_tag};
use crate::case::Times;
use crate::grid::Mesh;
use crate::model::{Checkpoint, Clock, DeviceView, Model, State, Until};
use crate::runtime::Backend;
use crate::view::{Command, ViewOptions};
use crate::{Error, GpuReal, Precision, Result};
use std::path::Path;
use std::time::{Duration, Instant};

impl<S: Simulation> Steppable for S {
    fn times(&self) -> &Times {
        Simulation::times(self)
    }
    fn mesh(&self) -> Mesh {
        Simulation::mesh(self)
    }
    fn bed(&self) -> Option<&[f64]> {
        Simulation::bed(self)
    }
    fn open(&self) -> Result<Box<dyn Session + '_>> {
        let info = self.info();
        let precision = info.run.precision;
        let needs = plan::check(self as &dyn Case)?.needs;
        let backend = Backend::select(info.run.backend.choice())?;
        if let Backend::Gpu(gpu) = &backend {
            gpu.check_fits(&format!("{} in {precision}", info.name), needs.gpu as usize)?;
        }
        let kind = checkpoint::backend_kind(&backend);
        Ok(match precision {
            Precision::F32 => Box::new(Open::<S, f32> {
                model: self.build::<f32>(&backend)?,
                sim: self,
                backend: kind,
                halted: None,
                view: None,
            }),
            Precision::F64 | Precision::Mixed => Box::new(Open::<S, f64> {
                model: self.build::<f64>(&backend)?,
                sim: self,
                backend: kind,
                halted: None,
                view: None,
            }),
        })
    }
}

/// A model of `sim` and why it halted, once it has.
struct Open<'a, S: Simulation, T: GpuReal> {
    sim: &'a S,
    /// "cpu" or "gpu", as checkpoints name backends.
    backend: &'static str,
    model: Box<dyn Model<T> + 'a>,
    halted: Option<String>,
    /// Its live view, once asked for: the server's side, what draws the frames, and when the
    /// next is due.
    view: Option<(Served, Drawer<'a, S>, Pace)>,
}

/// How each precision's states and checkpoints travel as [`AnyState`] and [`AnyCheckpoint`].
trait Wrap: GpuReal {
    fn state(s: State<Self>) -> AnyState;
    fn checkpoint(c: Checkpoint<Self>) -> AnyCheckpoint;
    fn unwrap(c: &AnyCheckpoint) -> Option<&Checkpoint<Self>>;
}

impl Wrap for f32 {
    fn state(s: State<f32>) -> AnyState {
        AnyState::F32(s)
    }
    fn checkpoint(c: Checkpoint<f32>) -> AnyCheckpoint {
        AnyCheckpoint::F32(c)
    }
    fn unwrap(c: &AnyCheckpoint) -> Option<&Checkpoint<f32>> {
        match c {
            AnyCheckpoint::F32(c) => Some(c),
            AnyCheckpoint::F64(_) => None,
        }
    }
}

impl Wrap for f64 {
    fn state(s: State<f64>) -> AnyState {
        AnyState::F64(s)
    }
    fn checkpoint(c: Checkpoint<f64>) -> AnyCheckpoint {
        AnyCheckpoint::F64(c)
    }
    fn unwrap(c: &AnyCheckpoint) -> Option<&Checkpoint<f64>> {
        match c {
            AnyCheckpoint::F64(c) => Some(c),
            AnyCheckpoint::F32(_) => None,
        }
    }
}

impl<S: Simulation, T: Wrap> Open<'_, S, T> {
    fn refuse_if_halted(&self) -> Result<()> {
        match &self.halted {
            Some(why) => Err(Error::invalid(format!("{why}; restore a checkpoint or start a new simulation"))),
            None => Ok(()),
        }
    }
}

impl<S: Simulation, T: Wrap> Session for Open<'_, S, T> {
    fn describe(&self) -> String {
        self.model.describe()
    }
    fn clock(&self) -> Clock {
        self.model.clock()
    }
    fn advance(&mut self, until: Until) -> Result<Clock> {
        self.refuse_if_halted()?;
        let clock = self.model.advance(until)?;
        let Some(halt) = &clock.halt else { return Ok(clock) };
        // The halted model holds the state before its failing step.
        let kept = self.model.state()?;
        let unit = self.sim.times().unit;
        let why = format!(
            "{}: the run blew up at step {} after t = {} {unit}: {}",
            self.sim.info().name,
            kept.clock.steps + 1,
            time_tag(kept.clock.t),
            self.sim.halted(halt, &kept)
        );
        self.halted = Some(why.clone());
        Err(Error::invalid(why))
    }
    fn state(&mut self) -> Result<AnyState> {
        let state = self.model.state()?;
        if let Some(bad) = first_non_finite(&state, &self.sim.mesh()).or_else(|| self.sim.check(&state)) {
            let (name, unit) = (&self.sim.info().name, self.sim.times().unit);
            let why = format!(
                "{name}: the state at step {} (t = {} {unit}) is not valid: {bad}",
                state.clock.steps,
                time_tag(state.clock.t)
            );
            self.halted = Some(why.clone());
            return Err(Error::invalid(why));
        }
        Ok(T::state(state))
    }
    fn checkpoint(&mut self) -> Result<AnyCheckpoint> {
        self.refuse_if_halted()?;
        Ok(T::checkpoint(self.model.checkpoint()?))
    }
    fn restore(&mut self, checkpoint: &AnyCheckpoint) -> Result<()> {
        let c = T::unwrap(checkpoint).ok_or_else(|| {
            Error::invalid("the checkpoint was taken in another precision than this simulation runs in".to_string())
        })?;
        self.model.restore(c)?;
        self.halted = None;
        Ok(())
    }
    fn restore_file(&mut self, path: &Path) -> Result<Clock> {
        let info = self.sim.info();
        let restart = Restart::open(path, info, info.run.precision, self.backend)?;
        let state = restart.state::<T>()?;
        crate::ranks::parts::restore(self.model.as_mut(), &state, &restart.dir())
            .map_err(|e| Error::invalid(format!("checkpoint {}: {e}", path.display())))?;
        self.halted = None;
        Ok(self.model.clock())
    }
    fn diagnostics(&mut self) -> Result<Diagnostics> {
        self.refuse_if_halted()?;
        let state = self.model.state()?;
        Ok(Diagnostics {
            progress: self.sim.progress(&state),
            conservation: self.sim.conservation(&state),
            account: self.sim.account(&state),
        })
    }
    fn write_checkpoint(&mut self, path: &Path) -> Result<()> {
        self.refuse_if_halted()?;
        let state = self.model.checkpoint()?;
        let info = self.sim.info();
        // The checkpoint times (k·every) the clock has passed, as a run counts them: a run
        // restarted from this file writes its next at the first one after it.
        let passed = info.output.checkpoint_every.map_or(0, |e| (state.clock.t / e).floor() as u64);
        checkpoint::write(path, &Meta::of(info, self.backend, passed), &state)
    }
    fn device_views(&mut self) -> Result<Vec<DeviceView>> {
        self.refuse_if_halted()?;
        self.model.device_views()
    }

    fn view(&mut self, opts: ViewOptions) -> Result<String> {
        if let Some((served, ..)) = &self.view {
            return Err(Error::invalid(format!("the simulation is served already, at {}", served.url())));
        }
        let served = Served::start(self.sim, opts)?;
        let mut drawer = Drawer::new(self.sim, served.samples.clone());
        drawer.draw(&self.model.sample(&served.samples.cells)?, &served.hub);
        let url = served.url();
        self.view = Some((served, drawer, Pace::new()));
        Ok(url)
    }

    fn view_tick(&mut self, always: bool) -> Result<Option<(Command, Vec<String>)>> {
        let Some((served, drawer, pace)) = &mut self.view else { return Ok(None) };
        if pace.take(&served.hub, always) {
            drawer.draw(&self.model.sample(&served.samples.cells)?, &served.hub);
        }
        Ok(Some((served.hub.command(), served.hub.take_notes())))
    }

    fn view_wait(&self, poll: Duration) -> Command {
        match &self.view {
            Some((served, ..)) => served.hub.wait_while_paused(poll),
            None => Command::Run,
        }
    }

    fn view_due(&self) -> Option<Instant> {
        let (served, _, pace) = self.view.as_ref()?;
        pace.due(&served.hub)
    }

    fn view_end(&mut self, how: &str) {
        if let Some((served, ..)) = self.view.take() {
            served.finish(how);
        }
    }
}
