//! The one interface every time-dependent solver offers, on the CPU and on the GPU alike: build
//! from a problem (each solver's own constructor), advance the clock, and hand the state out.
//! The scenario runner, the regression tests and (later) the tuner and the multi-GPU driver
//! speak to it and to nothing solver-specific.

use std::sync::{Arc, Mutex};
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
    /// What it is, with its unit, for pictures and metadata ("water depth \[m\]").
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
    /// What crossed each segment of the boundary since the start, for a model that measures it
    /// (kp with forcing: its water account); empty otherwise.
    pub boundary: Vec<BoundaryFlow>,
}

/// Water that crossed one segment of a model's boundary since the run's start (m³): what left
/// through it and what came in by it, each summed step by step as the model measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundaryFlow {
    pub name: String,
    pub out: f64,
    pub into: f64,
}

/// The checkpoint record of a model's water account over its boundary faces
/// ([`Model::boundary_faces`]): one or more arrays of values per face of the grid's perimeter
/// (`ranks::perimeter`'s order), which a decomposed run joins face by face.
pub const BOUNDARY_FACES: &str = "boundary_volumes";

impl<T> State<T> {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Output<T>> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl<T: Copy> State<T> {
    /// Its fields at interior `cells` (storage indices), in that order: a field of
    /// `cells.len()` values each, the clock kept (what [`Model::sample`] gives).
    pub fn at(&self, cells: &[usize]) -> crate::Result<State<T>> {
        let fields = self
            .fields
            .iter()
            .map(|f| {
                let data =
                    cells.iter().map(|&c| f.data.get(c).copied()).collect::<Option<Vec<T>>>().ok_or_else(|| {
                        crate::Error::invalid(format!("a cell outside field '{}' was asked for", f.name))
                    })?;
                Ok(Output { name: f.name, long_name: f.long_name, units: f.units, dims: vec![cells.len()], data })
            })
            .collect::<crate::Result<Vec<_>>>()?;
        Ok(State { clock: self.clock, fields, boundary: Vec::new() })
    }
}

/// A state on its way to the host ([`Model::state_later`]), and the pool its fields' memory
/// comes from, if any.
pub struct Later<T> {
    arrive: Box<dyn FnOnce() -> crate::Result<State<T>> + Send>,
    pool: Option<Pool<T>>,
}

impl<T: Send + 'static> Later<T> {
    /// A state that is already here.
    pub fn now(state: State<T>) -> Later<T> {
        Later { arrive: Box::new(move || Ok(state)), pool: None }
    }
    /// A state that `arrive` waits for and assembles.
    pub fn of(arrive: impl FnOnce() -> crate::Result<State<T>> + Send + 'static) -> Later<T> {
        Later { arrive: Box::new(arrive), pool: None }
    }
    /// A state that `arrive` waits for and assembles, in vectors of `pool`.
    pub fn new(pool: Pool<T>, arrive: impl FnOnce() -> crate::Result<State<T>> + Send + 'static) -> Later<T> {
        Later { arrive: Box::new(arrive), pool: Some(pool) }
    }
    /// Where the state's vectors go back to once their reader is done with them
    /// ([`Pool::give`]).
    pub fn pool(&self) -> Option<Pool<T>> {
        self.pool.clone()
    }
    /// Wait for the state.
    pub fn wait(self) -> crate::Result<State<T>> {
        (self.arrive)()
    }
}

/// Host vectors for states that come often and are as large as the grid (snapshots and
/// progress lines of a GPU model): a state's vectors are given back when its reader is done, and
/// the next state is assembled in them. Fresh vectors of that size cost a page fault every 4 KiB
/// at first touch, which measured more than the download itself (docs/output.md).
pub struct Pool<T>(Arc<Mutex<Vec<Vec<T>>>>);

impl<T> Clone for Pool<T> {
    fn clone(&self) -> Self {
        Pool(self.0.clone())
    }
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Pool(Arc::default())
    }
}

impl<T> Pool<T> {
    /// An empty vector with room for `len` values: one given back, or a new one.
    pub fn take(&self, len: usize) -> Vec<T> {
        let mut kept = self.0.lock().map(|mut free| free.pop()).ok().flatten().unwrap_or_default();
        kept.clear();
        kept.reserve(len);
        kept
    }
    /// Give the vectors of `state` back, for the next states.
    pub fn give(&self, state: State<T>) {
        if let Ok(mut free) = self.0.lock() {
            free.extend(state.fields.into_iter().map(|f| f.data));
        }
    }
    /// Give one vector back (a part a state was assembled from).
    pub fn give_vec(&self, v: Vec<T>) {
        if let Ok(mut free) = self.0.lock() {
            free.push(v);
        }
    }
}

/// A state array of a model on a GPU, for a program that reads it where it lies (DLPack): the
/// device address of its buffer, where the first interior value lies in it, the interior's
/// shape and strides (in values, slowest axis first, as NumPy's), and the device. It shows the
/// state of the moment it was taken; the model's next step, restore or drop ends it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceView {
    pub name: &'static str,
    pub long_name: &'static str,
    pub units: &'static str,
    pub address: u64,
    /// Bytes from `address` to the first interior value.
    pub offset: u64,
    pub dims: Vec<usize>,
    pub strides: Vec<usize>,
    /// Bits of a value: 32 or 64 (IEEE floats).
    pub bits: u8,
    pub device: usize,
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
    /// The state at the current clock, to be read later, on another thread: a GPU model may
    /// start its copy to the host and step on while it travels. By default, [`state`](Self::state)
    /// now.
    fn state_later(&mut self) -> crate::Result<Later<T>>
    where
        T: Send + 'static,
    {
        Ok(Later::now(self.state()?))
    }
    /// Its state's fields at interior `cells` (storage indices of the output fields), each a
    /// field of `cells.len()` values in that order ([`State::at`]): a frame of the live view.
    /// A GPU model gathers them on the device, so that the frame is all that crosses the bus;
    /// by default the state is taken whole and indexed.
    fn sample(&mut self, cells: &[usize]) -> crate::Result<State<T>>
    where
        T: Copy,
    {
        self.state()?.at(cells)
    }
    /// [`sample`](Self::sample), to be read later on another thread: a GPU model enqueues the
    /// gather and its download behind its queued steps and steps on. By default `sample` now.
    fn sample_later(&mut self, cells: &[usize]) -> crate::Result<Later<T>>
    where
        T: Copy + Send + 'static,
    {
        Ok(Later::now(self.sample(cells)?))
    }
    /// The gauge records kept so far and, with `maps`, the maximum maps, for a model that keeps
    /// them (a download on the GPU; synchronises). The maps are as large as the state: a run
    /// asks for them at its end and at checkpoints only.
    fn products(&mut self, _maps: bool) -> crate::Result<Option<Products<T>>> {
        Ok(None)
    }
    /// Everything needed to continue from the current clock exactly as this run would (a
    /// download on the GPU; synchronises). Taken between calls to [`advance`](Self::advance),
    /// never of a halted model.
    fn checkpoint(&mut self) -> crate::Result<Checkpoint<T>>;
    /// Continue from `checkpoint`, taken of a model of the same problem on the same backend in
    /// the same precision: afterwards every step is the one the run it was taken of would take.
    fn restore(&mut self, checkpoint: &Checkpoint<T>) -> crate::Result<()>;
    /// A model decomposed over ranks: write each later checkpoint as a set of parts in `dir`,
    /// every rank its own slab's, and return the set's manifest from
    /// [`checkpoint`](Self::checkpoint) (`ranks::parts`). Any other model ignores it.
    fn checkpoint_in_parts(&mut self, _dir: &std::path::Path) {}
    /// Continue from a set of parts in `dir` whose manifest is `manifest`, by the model's own
    /// means: true where it did (a decomposed model), false where the caller must join the
    /// parts into the whole grid's checkpoint and [`restore`](Self::restore) that.
    fn restore_parts(&mut self, _manifest: &Checkpoint<T>, _dir: &std::path::Path) -> crate::Result<bool> {
        Ok(false)
    }
    /// What a model that keeps a water account over its boundary has measured so far, face by
    /// face: its checkpoint's [`BOUNDARY_FACES`] record (a download on the GPU). A slab's model
    /// gives those of its slab's perimeter, nothing measured at its cuts, and leaves the flows
    /// out of its states: rank 0 joins every slab's and asks [`boundary_flows`](Self::boundary_flows).
    /// None for a model without an account.
    fn boundary_faces(&mut self) -> crate::Result<Option<Vec<f64>>> {
        Ok(None)
    }
    /// On rank 0 of a decomposed run: the flows through the whole grid's boundary segments (a
    /// state's [`State::boundary`]) from its faces' values `faces`, joined from every slab's
    /// [`boundary_faces`](Self::boundary_faces).
    fn boundary_flows(&self, _faces: &[f64]) -> crate::Result<Vec<BoundaryFlow>> {
        Ok(Vec::new())
    }
    /// On rank 0 of a run decomposed over ranks, whose model is that of its slab: the
    /// checkpoint joined row by row from every slab's made the whole grid's, where a slab keeps
    /// something in another form than the whole grid does (a map per block of its own rows,
    /// say). By default `joined` as it is.
    fn joined(&self, joined: Checkpoint<T>) -> crate::Result<Checkpoint<T>> {
        Ok(joined)
    }
    /// Its state arrays on the GPU as they lie there, after the work queued on them is done
    /// (synchronises); empty for a model on the CPU or one that offers none.
    fn device_views(&mut self) -> crate::Result<Vec<DeviceView>> {
        Ok(Vec::new())
    }
}

/// Everything a model needs to continue exactly where it stands, on the backend and in the
/// precision it was taken on: its clock, its arrays as the model holds them (ghost cells, padding
/// and all), flags (wet maps) and the numbers that steer its next steps (Δt estimates, counters
/// of a schedule, a kernel choice). [`crate::run::checkpoint`] writes and reads it; each model
/// names its own parts, and [`Model::restore`] refuses a checkpoint that lacks one or holds one
/// of the wrong length.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint<T> {
    pub clock: Clock,
    pub fields: Vec<(String, Vec<T>)>,
    pub flags: Vec<(String, Vec<u8>)>,
    /// Numbers, bit for bit (counters below 2⁵³ are exact).
    pub values: Vec<(String, f64)>,
    /// Arrays of f64 whatever the run's precision, of lengths the run decides as it goes (the
    /// gauge records so far: their times would not survive f32).
    pub records: Vec<(String, Vec<f64>)>,
}

impl<T: Clone> Checkpoint<T> {
    /// An empty checkpoint at `clock`.
    pub fn at(clock: Clock) -> Checkpoint<T> {
        Checkpoint { clock, fields: Vec::new(), flags: Vec::new(), values: Vec::new(), records: Vec::new() }
    }

    pub fn field(mut self, name: &str, data: Vec<T>) -> Self {
        self.fields.push((name.to_string(), data));
        self
    }

    pub fn flag(mut self, name: &str, data: Vec<u8>) -> Self {
        self.flags.push((name.to_string(), data));
        self
    }

    pub fn value(mut self, name: &str, v: f64) -> Self {
        self.values.push((name.to_string(), v));
        self
    }

    /// Field `name`, which must hold `len` values.
    pub fn get_field(&self, name: &str, len: usize) -> crate::Result<&[T]> {
        sized(self.fields.iter().find(|(n, _)| n == name).map(|(_, d)| &d[..]), "field", name, len)
    }

    /// Field `name` if the checkpoint has one (then of `len` values): a part that only some runs
    /// keep, such as the low part of a compensated field.
    pub fn get_optional_field(&self, name: &str, len: usize) -> crate::Result<Option<&[T]>> {
        match self.fields.iter().any(|(n, _)| n == name) {
            true => self.get_field(name, len).map(Some),
            false => Ok(None),
        }
    }

    /// Flags `name`, which must hold `len` values.
    pub fn get_flags(&self, name: &str, len: usize) -> crate::Result<&[u8]> {
        sized(self.flags.iter().find(|(n, _)| n == name).map(|(_, d)| &d[..]), "flags", name, len)
    }

    pub fn record(mut self, name: &str, data: Vec<f64>) -> Self {
        self.records.push((name.to_string(), data));
        self
    }

    /// Record `name`, which must hold `len` values.
    pub fn get_record(&self, name: &str, len: usize) -> crate::Result<&[f64]> {
        sized(self.records.iter().find(|(n, _)| n == name).map(|(_, d)| &d[..]), "record", name, len)
    }

    pub fn get_value(&self, name: &str) -> crate::Result<f64> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
            .ok_or_else(|| crate::Error::invalid(format!("the checkpoint has no value '{name}'")))
    }

    /// A whole count stored as a value (a step counter, an index).
    pub fn get_count(&self, name: &str) -> crate::Result<u64> {
        let v = self.get_value(name)?;
        if !(v >= 0.0 && v.fract() == 0.0 && v < 9.007_199_254_740_992e15) {
            return Err(crate::Error::invalid(format!("the checkpoint's '{name}' = {v} is not a count")));
        }
        Ok(v as u64)
    }
}

fn sized<'a, E>(found: Option<&'a [E]>, what: &str, name: &str, len: usize) -> crate::Result<&'a [E]> {
    match found {
        None => Err(crate::Error::invalid(format!("the checkpoint has no {what} '{name}'"))),
        Some(d) if d.len() != len => Err(crate::Error::invalid(format!(
            "the checkpoint's {what} '{name}' holds {} values where this run has {len}",
            d.len()
        ))),
        Some(d) => Ok(d),
    }
}

/// One gauge's record so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub gauge: crate::places::Gauge,
    /// The interior cell sampled (j·nx + i).
    pub cell: usize,
    pub times: Vec<f64>,
    /// `kernels::products::GAUGE_COLUMNS` at each time.
    pub values: Vec<[f64; kernels::products::GAUGE_VALUES]>,
}

/// One discharge line's record so far (`crate::products::lines`).
#[derive(Clone, Debug, PartialEq)]
pub struct LineSeries {
    pub line: crate::places::Line,
    /// The faces it crosses.
    pub faces: usize,
    /// The gauges' sample times.
    pub times: Vec<f64>,
    /// The discharge through it at each time, m³/s, positive from its left to its right.
    pub discharge: Vec<f64>,
}

/// What a model hands out of its products: every gauge's and line's record so far and the maps.
#[derive(Clone, Debug)]
pub struct Products<T> {
    pub series: Vec<Series>,
    pub lines: Vec<LineSeries>,
    /// `max_h`, `max_speed`, `arrival` (NaN where water never arrived); empty without maxima.
    pub maps: Vec<Output<T>>,
}

/// No records and no maps.
impl<T> Default for Products<T> {
    fn default() -> Self {
        Products { series: Vec::new(), lines: Vec::new(), maps: Vec::new() }
    }
}
