//! Whole steps on the device, in 2D or 3D: a run's three state buffers and auxiliary fields,
//! its core kernels ([`StepKernels`]: the 2D `GpuSweeps` or the 3D `GpuSweeps3`), and the
//! device clock. Each step queues every stage's ghost fill and sweep, reduces the per-block
//! rates of all its sweeps to one, and a one-thread control kernel takes PyClaw's decision
//! (`kernels::claw::clock`, the point functions the CPU reference's [`Clock`] calls) —
//! accepting the step by rewriting the buffers' order, or rejecting it so the next launch
//! redoes it from the kept state with a smaller Δt. The host only queues steps and reads the
//! clock between batches, and queues a batch as CUDA graphs of [`GRAPH_STEPS`] steps: every
//! step launches the same kernels with the same parameters, so a graph recorded once launches
//! them again, with one call from the host and shorter gaps between the step's small kernels
//! on the device.

use super::clock::{Cfl, Clock, Step};
use super::cpu::HALO;
use super::slab::DeviceCut;
use crate::foundation::ReduceOp;
use crate::foundation::gpu::{ONE_BLOCK_THREADS, Reducer};
use crate::model::{Checkpoint, Halt};
use crate::products::{ClockAt, GpuProducts, Products};
use crate::runtime::{DeviceBuffer, DevicePointers, Kernel, LaunchShape, Replay};
use crate::{Error, Gpu, GpuReal, Result};
use cudarc::driver::CudaStream;
use kernels::Bands;
use kernels::claw::clock::{CLOCK_DT, CLOCK_LEN, CLOCK_STEPS, CLOCK_T, Control};
use kernels::claw::{CONTROL, StepControl};
use std::time::Instant;

/// State buffers of a run: the state, and two the sweeps of a step write in turn.
pub const BUFFERS: usize = 3;

/// Device bytes of a run in precision T: [`BUFFERS`] state buffers of `m` planes, `a`
/// auxiliary planes, each of `plane` values, and `rates` per-block rates.
pub fn run_bytes<T>(m: usize, a: usize, plane: usize, rates: usize) -> u64 {
    ((BUFFERS * m + a) * plane + rates) as u64 * std::mem::size_of::<T>() as u64
}

/// Most steps the host queues between two reads of the device clock.
const BATCH: u64 = 64;

/// Steps a graph holds: a batch queues as many graphs as fit and the rest one launch at a time.
pub const GRAPH_STEPS: u64 = 16;

/// How a run queues its batches of steps.
struct Graphs {
    /// Whether batches go as graphs (the default; never on a slab, whose exchanges of ghost
    /// layers are copies on other streams and NCCL calls, not launches a graph records).
    on: bool,
    /// The graph of [`GRAPH_STEPS`] steps, with the stop time (its bits) the control kernel's
    /// parameters in it hold.
    kept: Option<(u64, Replay)>,
}

/// What a step needs of a run's core kernels.
pub trait StepKernels<T: GpuReal> {
    type Solver: Copy;
    /// Sweeps in a step.
    fn stages(&self) -> usize;
    /// Queues the ghost fill of stage `stage`'s input, state buffer `order[stage]` of
    /// `states`, across the stage's axis.
    fn queue_fill(&mut self, stage: usize, states: &mut DeviceBuffer<T>) -> Result<()>;
    /// Queues stage `stage`'s sweep from state buffer `order[stage]` of `states` (its ghosts
    /// across the axis filled) into `order[stage + 1]`; on the slab `cut` of a decomposed run,
    /// with the ghost layers at its cuts taken from its neighbours where the sweep reads them
    /// (`sweep_across`).
    fn queue_sweep(
        &mut self,
        solver: Self::Solver,
        stage: usize,
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        cut: Option<&DeviceCut>,
    ) -> Result<()>;
    /// The rate buffer, and how many rates a step writes at its start.
    fn step_rates(&self) -> (&DeviceBuffer<T>, usize);
    /// The Δt word the sweeps read and the buffer order, which the control kernel writes.
    fn words(&mut self) -> (&mut DeviceBuffer<T>, &mut DeviceBuffer<u32>);
    /// The buffer order: `order[0]` is the state.
    fn order(&self) -> &DeviceBuffer<u32>;
    /// Values in one state buffer (M padded planes).
    fn buffer_len(&self) -> usize;
    fn cfl(&self) -> Cfl;
    /// The solver's name, for messages.
    fn name(&self) -> &'static str;
}

/// A sweep across the cut axis of a slab (`cut`: the slab's, when the sweep runs across its
/// axis), launched by `launch` (its bands of the `n` rows — planes in 3D — across the axis in
/// bands of `rows`, and the stream to queue them on), after the ghost layers at the cuts of
/// every state buffer of `states` come from the neighbours (the device's order, which the host
/// does not read, names the one the sweep reads): beside the bands that read no ghost layer
/// where the ranks' link overlaps (`Halo::exchange_buffer_beside_bands`), else before the
/// sweep. Each band is computed by the same code wherever it runs, so the results are those of
/// the exchange and the whole sweep in turn, bit for bit. Without `cut`, the whole sweep on
/// `stream`.
pub(super) fn sweep_across<T: GpuReal>(
    cut: Option<&DeviceCut>,
    states: &mut DeviceBuffer<T>,
    stream: &CudaStream,
    (n, rows): (u32, u32),
    launch: impl Fn(Bands, &CudaStream) -> Result<()>,
) -> Result<()> {
    match cut {
        Some(c) => c.halo.exchange_buffer_beside_bands(&c.gpu, states, (n, rows, HALO), launch),
        None => launch(Bands::all(n, rows), stream),
    }
}

/// The current state on the device: the address of its buffer, the values in one padded plane,
/// the index in a plane of the first interior cell, and the interior's NumPy shape and strides
/// (in values).
pub struct Planes {
    pub address: u64,
    pub plane: usize,
    pub first: usize,
    pub dims: Vec<usize>,
    pub strides: Vec<usize>,
}

/// A run on the GPU over the core kernels `K`.
pub struct GpuRun<T: GpuReal, K: StepKernels<T>> {
    pub(super) solver: K::Solver,
    pub(super) kernels: K,
    control: Kernel<StepControl<T>>,
    reducer: Reducer<T>,
    states: DeviceBuffer<T>,
    aux: DeviceBuffer<T>,
    clock: DeviceBuffer<f64>,
    /// The stop time the device clock is armed for.
    t_stop: f64,
    /// The clock as last read.
    host_clock: Clock,
    /// Gauges and maximum maps, with where the depth and momenta planes start in a state buffer.
    products: Option<(GpuProducts<T>, [usize; 3])>,
    /// A slab's share of a run decomposed over ranks.
    cut: Option<DeviceCut>,
    graphs: Graphs,
}

impl<T: GpuReal, K: StepKernels<T>> GpuRun<T, K> {
    /// A run of `kernels` from the padded state's planes `q` (one buffer) and the auxiliary
    /// planes `aux` (their ghosts filled), from `clock`.
    pub fn start(gpu: &Gpu, solver: K::Solver, kernels: K, mut q: Vec<T>, aux: &[T], clock: Clock) -> Result<Self> {
        if q.len() != kernels.buffer_len() {
            return Err(Error::invalid(format!(
                "claw: a state of {} values for buffers of {}",
                q.len(),
                kernels.buffer_len()
            )));
        }
        q.resize(BUFFERS * q.len(), T::ZERO);
        Ok(GpuRun {
            solver,
            kernels,
            control: gpu.kernel::<T, _>(CONTROL)?,
            reducer: Reducer::new(gpu)?,
            states: gpu.upload(&q)?,
            aux: gpu.upload(aux)?,
            clock: gpu.upload(&clock.slots)?,
            t_stop: f64::NAN,
            host_clock: clock,
            products: None,
            cut: None,
            graphs: Graphs { on: true, kept: None },
        })
    }

    /// Step as the slab `cut` of a run decomposed over ranks.
    pub fn cut_across(&mut self, cut: DeviceCut) {
        self.cut = Some(cut);
        self.forget_graph();
    }

    /// Queue batches of steps as graphs (`on`, the default) or one launch at a time; the
    /// results are the same bit for bit.
    pub fn set_graphs(&mut self, on: bool) {
        self.graphs.on = on;
        self.forget_graph();
    }

    /// Drops the graph kept, after a change to what a step launches (shapes, products, buffers,
    /// the clock, a cut).
    pub(super) fn forget_graph(&mut self) {
        self.graphs.kept = None;
    }

    /// The kernels one launch of the graph kept runs (0 while none is kept): how a test sees
    /// that batches go as graphs.
    pub fn graph_kernels(&self) -> usize {
        self.graphs.kept.as_ref().map_or(0, |(_, g)| g.kernels())
    }

    /// Keep `products` of the planes at `planes` (h, hu, hv) of the state buffer: the kernel
    /// runs on the current state now and after every step queued (a rejected trial or one past
    /// the stop leaves the state and the clock as they were, and so the maps and the sample).
    pub fn keep_products(&mut self, mut products: GpuProducts<T>, planes: [usize; 3]) -> Result<()> {
        let len = self.kernels.buffer_len();
        if planes.iter().any(|&p| p >= len) {
            return Err(Error::invalid(format!("claw products: planes at {planes:?} of a state buffer of {len}")));
        }
        products.set_buffer(len as u64);
        self.products = Some((products, planes));
        self.forget_graph();
        self.launch_products()
    }

    /// The products kernel over the state buffer the order names, at the device clock.
    fn launch_products(&mut self) -> Result<()> {
        let Some((k, planes)) = &mut self.products else { return Ok(()) };
        let base = self.states.ptr();
        let [h, hu, hv] = planes.map(|p| base.wrapping_add(p));
        let clock = ClockAt::Device(&self.clock, CLOCK_T, CLOCK_STEPS);
        // The bed is not read (a flat bed): any array will do.
        k.launch_at([h, h, hu, hv], Some(self.kernels.order()), clock)
    }

    /// The products so far, the maps only with `maps` (synchronises), if kept.
    pub fn products(&mut self, gpu: &Gpu, maps: bool) -> Result<Option<Products<T>>> {
        let steps = self.read_clock(gpu)?.steps();
        match &mut self.products {
            Some((k, _)) => {
                k.drain(gpu, steps)?;
                Ok(Some(k.products(gpu, maps)?))
            }
            None => Ok(None),
        }
    }

    /// Add the products' maps and gauge records up to the clock last read, if kept, to the
    /// checkpoint `c` (synchronises).
    pub fn checkpoint_products(&mut self, gpu: &Gpu, c: Checkpoint<T>) -> Result<Checkpoint<T>> {
        let steps = self.host_clock.steps();
        match &mut self.products {
            Some((k, _)) => k.checkpoint(gpu, steps, c),
            None => Ok(c),
        }
    }

    /// Go on from the products' maps and gauge records of checkpoint `c`, if kept; on a slab,
    /// from its maps alone (rank 0 keeps the records before).
    pub fn restore_products(&mut self, gpu: &Gpu, c: &Checkpoint<T>) -> Result<()> {
        self.forget_graph();
        match &mut self.products {
            Some((k, _)) if self.cut.is_some() => k.resume_after(gpu, c),
            Some((k, _)) => k.restore(gpu, c),
            None => Ok(()),
        }
    }

    /// The control kernel: judge the step just queued from the largest of the `n` rates at
    /// `rate` (or, `judge` false, only arm the next towards `self.t_stop`).
    fn control(&mut self, rate: *const T, n: usize, judge: bool) -> Result<()> {
        let cfl = self.kernels.cfl();
        let sweeps = self.kernels.stages() as u32;
        let c = Control { desired: cfl.desired, max: cfl.max, t_stop: self.t_stop, sweeps, judge: judge as u32 };
        let (dt, order) = self.kernels.words();
        let p =
            StepControl { c, rate, n: n as u64, dt: dt.ptr_mut(), clock: self.clock.ptr_mut(), order: order.ptr_mut() };
        let shape = LaunchShape::fixed((1, 1, 1), (ONE_BLOCK_THREADS, 1, 1)).with_shared_of::<T>(32);
        // SAFETY: rate holds n values (read only when judging), written before on the same
        // stream; dt holds one value, the clock CLOCK_LEN (uploaded from a Clock), the order
        // ORDER_LEN (the kernels' own); one block of a multiple of 32 threads with 32 T of shared
        // memory; thread 0 alone writes.
        unsafe { self.control.launch(shape, p) }
    }

    /// Queues one trial step: every stage's ghosts and sweep, the largest rate (the reduction's
    /// first pass where the rates are many, `Reducer::enqueue_for_block`) and the control's
    /// decision (a whole step, as a benchmark times it).
    pub fn queue_step(&mut self) -> Result<()> {
        for stage in 0..self.kernels.stages() {
            self.kernels.queue_fill(stage, &mut self.states)?;
            self.kernels.queue_sweep(self.solver, stage, &mut self.states, &self.aux, self.cut.as_ref())?;
        }
        let (rates, slots) = self.kernels.step_rates();
        let (rate, n) = if let Some(c) = &self.cut {
            self.reducer.enqueue(ReduceOp::Max, rates, slots)?;
            // Every rank's largest: the sweeps' rates and their reduction keep the larger of a
            // number and a NaN, as NCCL's maximum does, so this is the one-rank run's rate.
            c.halo.max_device(&c.gpu, self.reducer.result_mut())?;
            (self.reducer.result().ptr(), 1)
        } else {
            self.reducer.enqueue_for_block(ReduceOp::Max, rates, slots)?
        };
        self.control(rate, n, true)?;
        self.launch_products()
    }

    /// Queues `n` trial steps: as graphs of [`GRAPH_STEPS`] steps where graphs are on (a
    /// graph is recorded on first use and again after a change of the stop time), the rest one
    /// launch at a time.
    pub fn queue_steps(&mut self, gpu: &Gpu, n: u64) -> Result<()> {
        let mut left = n;
        if self.graphs.on && self.cut.is_none() {
            while left >= GRAPH_STEPS {
                self.graph(gpu)?.launch()?;
                left -= GRAPH_STEPS;
            }
        }
        (0..left).try_for_each(|_| self.queue_step())
    }

    /// The graph of [`GRAPH_STEPS`] steps towards the stop time armed, recorded if none is kept
    /// for it.
    fn graph(&mut self, gpu: &Gpu) -> Result<&Replay> {
        let stop = self.t_stop.to_bits();
        if self.graphs.kept.as_ref().is_none_or(|(at, _)| *at != stop) {
            self.graphs.kept = None;
            let replay = gpu.record(|| (0..GRAPH_STEPS).try_for_each(|_| self.queue_step()))?;
            self.graphs.kept = Some((stop, replay));
        }
        match &self.graphs.kept {
            Some((_, g)) => Ok(g),
            None => Err(Error::invalid("claw: no graph of steps kept")),
        }
    }

    /// Arms the device clock for steps ending at `t_stop`.
    pub fn set_stop(&mut self, t_stop: f64) -> Result<()> {
        if t_stop != self.t_stop {
            self.t_stop = t_stop;
            self.control(std::ptr::null(), 0, false)?;
        }
        Ok(())
    }

    /// Reads the device clock (synchronises).
    pub fn read_clock(&mut self, gpu: &Gpu) -> Result<Clock> {
        let slots = gpu.download(&self.clock)?;
        let mut c = Clock::start(0.0, 0.0);
        c.slots.copy_from_slice(&slots[..CLOCK_LEN]);
        self.host_clock = c;
        // The read synchronised: bring the gauge samples over while they fit the ring (at most a
        // batch of steps since the last read).
        if let Some((k, _)) = &mut self.products {
            k.drain(gpu, c.steps())?;
        }
        Ok(c)
    }

    /// Queues steps towards `t_stop` in batches, reading the clock between them, until it
    /// reaches `t_stop`, `max_steps` steps in all, the run halts, or `deadline` passes. Steps
    /// queued past the stop find no Δt armed and do nothing.
    pub fn advance(&mut self, gpu: &Gpu, t_stop: f64, max_steps: u64, deadline: Option<Instant>) -> Result<Clock> {
        self.set_stop(t_stop)?;
        loop {
            let c = self.read_clock(gpu)?;
            let late = deadline.is_some_and(|d| Instant::now() >= d);
            // No Δt armed: halted, at the stop, or a still state with no stop to step to.
            let idle = c.slots[CLOCK_DT] <= 0.0;
            if idle || c.time() >= t_stop || c.steps() >= max_steps || late {
                return Ok(c);
            }
            // Steps left at the Δt the control wants (at least 1, at most a batch, within the
            // step budget; rejected trials count as launches, never as steps).
            let left = ((t_stop - c.time()) / c.next_dt()).ceil();
            let batch = if left.is_finite() { left.clamp(1.0, BATCH as f64) as u64 } else { 1 };
            self.queue_steps(gpu, batch.min(max_steps - c.steps()))?;
        }
    }

    /// One accepted step towards `t_end`, as the CPU reference's `step`: trials until the
    /// device accepts one (reading the clock after each), or an error naming the step and time
    /// when the run halts.
    pub fn step(&mut self, gpu: &Gpu, t_end: f64) -> Result<Step> {
        let name = self.kernels.name();
        self.set_stop(t_end)?;
        let before = self.read_clock(gpu)?.slots[CLOCK_STEPS];
        loop {
            let c = self.read_clock(gpu)?;
            if c.halt().is_some() {
                return Err(Error::invalid(c.halt_message(name)));
            }
            if c.slots[CLOCK_STEPS] > before {
                return Ok(c.last());
            }
            if c.slots[CLOCK_DT] <= 0.0 {
                return Err(Error::invalid(format!("claw: no time left to step (t = {} s, end {t_end} s)", c.time())));
            }
            self.queue_step()?;
        }
    }

    /// Why the run halted, as of the clock last read.
    pub fn halt(&self) -> Option<Halt> {
        self.host_clock.halt()
    }

    /// The clock as last read.
    pub fn clock(&self) -> Clock {
        self.host_clock
    }

    /// Continue from the state's planes `q` and `clock`, as [`current`](Self::current) and
    /// [`clock`](Self::clock) gave them of a run of the same set-up. A step reads only the
    /// state buffer (`order[0]`) before writing the others, and the next stop re-arms Δt.
    pub fn resume(&mut self, gpu: &Gpu, q: &[T], clock: Clock) -> Result<()> {
        let len = self.kernels.buffer_len();
        if q.len() != len {
            return Err(Error::invalid(format!("claw: a state of {} values for buffers of {len}", q.len())));
        }
        let at = gpu.download_range(self.kernels.order(), 0..1)?[0] as usize;
        let mut all = gpu.download(&self.states)?;
        all[at * len..(at + 1) * len].copy_from_slice(q);
        gpu.write(&all, &mut self.states)?;
        gpu.write(&clock.slots, &mut self.clock)?;
        self.host_clock = clock;
        self.t_stop = f64::NAN;
        self.forget_graph();
        Ok(())
    }

    /// The device address of the current state buffer's first value, once the work queued is
    /// done (synchronises).
    pub fn current_address(&self, gpu: &Gpu) -> Result<u64> {
        let len = self.kernels.buffer_len();
        let at = gpu.download_range(self.kernels.order(), 0..1)?[0] as usize;
        Ok(gpu.address(&self.states) + (at * len * std::mem::size_of::<T>()) as u64)
    }

    /// The current state buffer's planes (synchronises).
    pub fn current(&self, gpu: &Gpu) -> Result<Vec<T>> {
        let len = self.kernels.buffer_len();
        let at = gpu.download_range(self.kernels.order(), 0..1)?[0] as usize;
        gpu.download_range(&self.states, at * len..(at + 1) * len)
    }
}
