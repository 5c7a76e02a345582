//! What a program that steps a case sees of it ([`Steppable`], from [`Case::steppable`]) and of
//! its model ([`Session`]): the runner's interface for the Python module. `session.rs` builds them
//! for every time-dependent solver.
//!
//! [`Case::steppable`]: super::Case::steppable

use crate::Result;
use crate::case::Times;
use crate::grid::Mesh;
use crate::model::{Checkpoint, Clock, DeviceView, State, Until};
use crate::view::{Command, ViewOptions};
use std::path::Path;
use std::time::{Duration, Instant};

/// A state in the precision its model runs in.
#[derive(Clone, Debug)]
pub enum AnyState {
    F32(State<f32>),
    F64(State<f64>),
}

impl AnyState {
    pub fn clock(&self) -> Clock {
        match self {
            AnyState::F32(s) => s.clock,
            AnyState::F64(s) => s.clock,
        }
    }
}

/// A checkpoint in the precision its model runs in.
#[derive(Clone, Debug)]
pub enum AnyCheckpoint {
    F32(Checkpoint<f32>),
    F64(Checkpoint<f64>),
}

/// What [`Session::diagnostics`] reports.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    pub progress: String,
    pub conservation: Option<String>,
    pub account: Option<crate::account::Account>,
}

/// A model that another program steps: [`Model`](crate::model::Model) without its precision, and with the runner's
/// checks of what it hands back.
pub trait Session {
    /// Where it runs and with which variant, in one line.
    fn describe(&self) -> String;
    fn clock(&self) -> Clock;
    /// Step until `until` says to return. A model that halts is an error naming the step, the
    /// time and why; it keeps the state before the failing step.
    fn advance(&mut self, until: Until) -> Result<Clock>;
    /// The state now, on the host; an error naming the first cell that is not finite or not
    /// physical (a negative depth).
    fn state(&mut self) -> Result<AnyState>;
    /// Everything needed to continue exactly from here ([`Model::checkpoint`](crate::model::Model::checkpoint)).
    fn checkpoint(&mut self) -> Result<AnyCheckpoint>;
    /// Continue from `checkpoint`, taken of a session of the same case in the same precision
    /// on the same backend.
    fn restore(&mut self, checkpoint: &AnyCheckpoint) -> Result<()>;
    /// Continue from the checkpoint file `path` that a run of this case wrote, in this
    /// session's precision on its backend ([`Restart::open`]'s checks); the clock it reached.
    ///
    /// [`Restart::open`]: super::checkpoint::Restart::open
    fn restore_file(&mut self, path: &Path) -> Result<Clock>;
    /// What the runner reports of the state now: its progress line's totals (volumes and their
    /// change), its summary's conservation line where the solver conserves something, and the
    /// water account where it keeps one (kp with forcing).
    fn diagnostics(&mut self) -> Result<Diagnostics>;
    /// Write a checkpoint file of the clock now, as a run of the case writes one: a run
    /// restarted from it (`hydrokern run --restart`, [`restore_file`](Self::restore_file)) takes
    /// the steps this session would. Whole or not at all.
    fn write_checkpoint(&mut self, path: &Path) -> Result<()>;
    /// The model's state arrays on the GPU where they lie ([`Model::device_views`]); empty on
    /// the CPU.
    ///
    /// [`Model::device_views`]: crate::model::Model::device_views
    fn device_views(&mut self) -> Result<Vec<DeviceView>>;
    /// Serve its live view (`crate::view`, docs/view.md) as `opts` asks: the address. A frame
    /// of the state now is there at once.
    fn view(&mut self, opts: ViewOptions) -> Result<String>;
    /// With a view, at a step boundary: a frame of the state now where one is due (or
    /// `always`), the lines the view has to say, and the viewers' command; None without a view.
    fn view_tick(&mut self, always: bool) -> Result<Option<(Command, Vec<String>)>>;
    /// Hold while the viewers pause, up to `poll`: their command then.
    fn view_wait(&self, poll: Duration) -> Command;
    /// When the next frame is due: None without a view or without viewers.
    fn view_due(&self) -> Option<Instant>;
    /// Stop serving its view, its viewers told `how` the simulation stands.
    fn view_end(&mut self, how: &str);
}

/// What a time-dependent case offers a program that steps it: the object-safe part of
/// [`Simulation`](super::Simulation) and the [`Session`] it opens.
pub trait Steppable {
    fn times(&self) -> &Times;
    /// The cells the output fields live on.
    fn mesh(&self) -> Mesh;
    /// The bed under a depth (row 0 south, as the fields), for solvers whose water has one.
    fn bed(&self) -> Option<&[f64]>;
    /// The model on the case's backend (`run.backend`) in its precision (`run.precision`; mixed
    /// hands its states over in f64, as the runner's), after the checks a run starts with: its
    /// plan's limits and the GPU's memory.
    fn open(&self) -> Result<Box<dyn Session + '_>>;
}
