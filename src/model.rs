//! The one interface every time-dependent solver offers, on the CPU and on the GPU alike: build
//! from a problem (each solver's own constructor), advance the clock, and hand the state out.
//! The scenario runner, the regression tests and (later) the tuner and the multi-GPU driver
//! speak to it and to nothing solver-specific.

use std::time::Instant;

/// Why a model stopped stepping before its stop time. The state it holds is the last one
/// before the failing step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Halt {
    /// A wave speed, flux or field value turned non-finite.
    NonFinite,
    /// The time step fell below `floor` before the stop time.
    Collapsed { floor: f64 },
    /// `times` steps in a row were rejected for exceeding the CFL limit: the wave speeds grow
    /// faster than the time step shrinks.
    Rejected { times: u32 },
}

impl std::fmt::Display for Halt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Halt::NonFinite => f.write_str("a wave speed or field value turned non-finite"),
            Halt::Collapsed { floor } => write!(f, "the time step fell below its floor of {floor:e}"),
            Halt::Rejected { times } => {
                write!(
                    f,
                    "{times} steps in a row were rejected for exceeding the CFL limit: the wave speeds keep growing"
                )
            }
        }
    }
}

/// Where a model's run stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// Simulated time, in the solver's unit (seconds; years for sediment).
    pub t: f64,
    /// Steps taken.
    pub steps: u64,
    /// The last time step taken (0 before the first).
    pub dt: f64,
    pub halt: Option<Halt>,
}

impl Clock {
    pub const START: Clock = Clock { t: 0.0, steps: 0, dt: 0.0, halt: None };
}

/// When [`Model::advance`] returns.
#[derive(Clone, Copy, Debug)]
pub struct Until {
    /// Stop at this time; the last step is shortened to land on it.
    pub t: f64,
    /// Stop after this many steps in all (a run's step limit).
    pub steps: u64,
    /// Return once this instant has passed, between steps or batches of steps. It only hands
    /// control back (for progress lines): it never shortens or otherwise changes a step.
    pub deadline: Option<Instant>,
}

/// One output field of a state: the interior, row-major (NumPy shape `dims`).
#[derive(Clone, Debug)]
pub struct Output<T> {
    /// Short name, used in file names (`h`, `hu`, `s`).
    pub name: &'static str,
    /// What it is, with its unit, for pictures and metadata ("water depth [m]").
    pub long_name: &'static str,
    pub units: &'static str,
    /// NumPy shape: (ny, nx) in 2D, (nz, ny, nx) in 3D.
    pub dims: Vec<usize>,
    pub data: Vec<T>,
}

/// A model's state on the host, as the runner writes and checks it.
#[derive(Clone, Debug)]
pub struct State<T> {
    pub clock: Clock,
    pub fields: Vec<Output<T>>,
}

impl<T> State<T> {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Output<T>> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// A time-dependent model on one backend.
pub trait Model<T> {
    /// Where it runs and with which variant, in one line ("GPU, flux stream 4×32, ...").
    fn describe(&self) -> String;
    fn clock(&self) -> Clock;
    /// Step until `until` says to return or the run halts ([`Clock::halt`]).
    fn advance(&mut self, until: Until) -> crate::Result<Clock>;
    /// The state at the current clock, on the host (a download on the GPU; synchronises).
    fn state(&mut self) -> crate::Result<State<T>>;
    /// The gauge records and maximum maps kept so far, for a model that keeps them (a
    /// download on the GPU; synchronises).
    fn products(&mut self) -> crate::Result<Option<crate::products::Products<T>>> {
        Ok(None)
    }
}
