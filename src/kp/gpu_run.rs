//! A shallow-water run on the GPU as the model drives it: the driver (`GpuKp`) with its
//! products, the steps launched in batches between reads of the device clock — as CUDA graphs
//! of [`GRAPH_STEPS`] steps where they fit — and the early exit of dry blocks chosen by timing
//! every [`CYCLE`] steps (Amundsen §4.4.2).

use super::Problem;
use super::gpu::{FluxKernel, GpuKp};
use crate::model::Pool;
use crate::model::{Checkpoint, Clock, Halt, Products, Until};
use crate::products::GpuProducts;
use crate::runtime::{Gpu, Replay, Snapshots, Timer};
use crate::{Error, GpuReal, Result};
use std::sync::Arc;
use std::time::Instant;

/// Early exit of dry blocks in the flux kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyExit {
    /// Every cycle of [`CYCLE`] steps, time one early-exit step and one full step and use the
    /// faster for the rest of the cycle (as Amundsen does).
    Auto,
    On,
    Off,
}

impl std::str::FromStr for EarlyExit {
    type Err = Error;
    fn from_str(s: &str) -> Result<EarlyExit> {
        match s {
            "auto" => Ok(EarlyExit::Auto),
            "on" => Ok(EarlyExit::On),
            "off" => Ok(EarlyExit::Off),
            _ => Err(Error::invalid(format!("unknown early-exit mode '{s}' (expected auto, on or off)"))),
        }
    }
}

/// Steps per early-exit decision cycle.
pub const CYCLE: u64 = 100;

/// Most steps the GPU runs between two reads of its clock.
pub(super) const BATCH: u64 = 64;

/// Steps a graph holds: a multiple of 6, so that the wet maps' rotation (3 steps) and Euler's
/// swap of the state buffers (2) are back where they started after it, and a graph launched
/// again finds the host as recording it left it.
pub const GRAPH_STEPS: u64 = 12;

/// What a graph of steps was recorded under: the flux kernel, whether products were kept, and
/// the model's `GpuKp::launch_key`.
type GraphKey = (FluxKernel, bool, [u64; 10]);

/// The GPU model of precision `T` with its early-exit bookkeeping, and its products in `P` (the
/// runner's precision: `T` itself, or f64 over the mixed precision's f32 model).
pub(super) struct GpuRun<T: GpuReal, P: GpuReal = T> {
    pub(super) gpu: Arc<Gpu>,
    pub(super) model: GpuKp<T>,
    pub(super) mode: EarlyExit,
    pub(super) current: FluxKernel,
    /// Steps the host has launched (some may be Δt = 0 steps past the stop time).
    pub(super) launched: u64,
    pub(super) early_steps: u64,
    /// Steps launched in graphs ([`GRAPH_STEPS`] a graph).
    pub(super) graph_steps: u64,
    pub(super) clock: Clock,
    /// `clock` is the device's: read after the last step enqueued. Reading it again would wait
    /// behind a snapshot's download, which shares the bus's copy engine with the read (5 ms for
    /// the 256 MB of a 4096² f32 state on an H200, at every snapshot).
    pub(super) clock_read: bool,
    pub(super) products: Option<GpuProducts<P>>,
    /// Copies of (w, hu, hv) for snapshots read on another thread; made by the first one. In
    /// the mixed precision the f32 momenta (hu, hv), the f64 surface going through `wide`.
    pub(super) snapshots: Option<Snapshots<T>>,
    pub(super) wide: Option<Snapshots<f64>>,
    /// The host vectors the states of `snapshots` are assembled in.
    pub(super) pool: Pool<P>,
    /// The graph of [`GRAPH_STEPS`] steps last recorded, with its key.
    graph: Option<(GraphKey, Replay)>,
}

impl<T: GpuReal, P: GpuReal> GpuRun<T, P> {
    /// `model` from its initial state, early exit as `early_exit` says, no products yet.
    pub(super) fn start(gpu: &Arc<Gpu>, model: GpuKp<T>, early_exit: EarlyExit) -> Box<GpuRun<T, P>> {
        let current = if early_exit == EarlyExit::On { FluxKernel::EarlyExit } else { FluxKernel::Full };
        Box::new(GpuRun {
            gpu: gpu.clone(),
            model,
            mode: early_exit,
            current,
            launched: 0,
            early_steps: 0,
            graph_steps: 0,
            clock: Clock::START,
            clock_read: false,
            products: None,
            snapshots: None,
            wide: None,
            pool: Pool::default(),
            graph: None,
        })
    }
}

/// Enqueue `products`' update from `model`'s current state and device clock.
pub(super) fn launch_products<T: GpuReal, P: GpuReal>(model: &GpuKp<T>, products: &mut GpuProducts<P>) -> Result<()> {
    let (inputs, clock) = model.product_inputs();
    products.launch(inputs.map(<*const T>::cast), clock, (kernels::kp::CLOCK_T, kernels::kp::CLOCK_STEPS))
}

impl<T: GpuReal, P: GpuReal> GpuRun<T, P> {
    /// Keep `products` from the current state on (their kernel reads the model's arrays as
    /// they are: `P`'s own, or the mixed precision's through `GpuProducts::reading_mixed`).
    pub(super) fn start_products(&mut self, products: GpuProducts<P>) -> Result<()> {
        self.graph = None;
        launch_products(&self.model, self.products.insert(products))
    }

    /// The products so far (their samples drained first).
    pub(super) fn products(&mut self, maps: bool) -> Result<Option<Products<P>>> {
        let steps = if self.clock_read { self.clock.steps } else { self.model.clock(&self.gpu)?.steps };
        match &mut self.products {
            Some(k) => {
                k.drain(&self.gpu, steps)?;
                Ok(Some(k.products(&self.gpu, maps)?))
            }
            None => Ok(None),
        }
    }

    /// `c` with the products' maps and records so far.
    pub(super) fn products_checkpoint(&mut self, c: Checkpoint<P>) -> Result<Checkpoint<P>> {
        match &mut self.products {
            Some(k) => k.checkpoint(&self.gpu, self.clock.steps, c),
            None => Ok(c),
        }
    }

    /// `c` with the early-exit bookkeeping that [`resume_run`](Self::resume_run) reads back.
    pub(super) fn with_run_values(&self, c: Checkpoint<P>) -> Checkpoint<P> {
        c.value("launched", self.launched as f64)
            .value("early_steps", self.early_steps as f64)
            .value("early_exit_now", (self.current == FluxKernel::EarlyExit) as u8 as f64)
    }

    /// After the model's fields are resumed from checkpoint `c`: its clock, its early-exit
    /// bookkeeping and its products (a slab's sample on from `c`, rank 0 keeping the records).
    pub(super) fn resume_run(&mut self, c: &Checkpoint<P>, slab: bool) -> Result<()> {
        let Clock { t, dt, steps, .. } = c.clock;
        self.graph = None;
        self.launched = c.get_count("launched")?;
        self.early_steps = c.get_count("early_steps")?;
        let early = c.get_value("early_exit_now")? != 0.0;
        self.current = if early { FluxKernel::EarlyExit } else { FluxKernel::Full };
        self.clock = Clock { t, steps, dt, halt: None };
        match &mut self.products {
            Some(k) if slab => k.resume_after(&self.gpu, c),
            Some(k) => k.restore(&self.gpu, c),
            None => Ok(()),
        }
    }

    pub(super) fn step(&mut self, kernel: FluxKernel) -> Result<()> {
        self.count(kernel, 1);
        self.model.step(kernel)?;
        match &mut self.products {
            Some(k) => launch_products(&self.model, k),
            None => Ok(()),
        }
    }

    /// The bookkeeping of `steps` steps with `kernel` queued (launched, or as a graph).
    fn count(&mut self, kernel: FluxKernel, steps: u64) {
        self.clock_read = false;
        self.launched += steps;
        if kernel == FluxKernel::EarlyExit {
            self.early_steps += steps;
        }
    }

    /// Time one step with `kernel` (events; synchronises).
    pub(super) fn timed_step(&mut self, kernel: FluxKernel) -> Result<f64> {
        let timer = Timer::new(&self.gpu)?;
        timer.start(&self.gpu)?;
        self.step(kernel)?;
        timer.stop(&self.gpu)?;
        timer.elapsed_ms()
    }

    pub(super) fn advance(&mut self, until: Until, problem: &Problem) -> Result<Clock> {
        self.model.set_stop(until.t);
        loop {
            // Read after the last step (the samples up to it drained then): what it said stands.
            if !self.clock_read {
                let clock = self.model.clock(&self.gpu)?;
                let halt = match clock.status {
                    kernels::kp::STEP_OK => None,
                    kernels::kp::STEP_NON_FINITE => Some(Halt::NonFinite),
                    _ => Some(Halt::Collapsed { floor: problem.dt_floor }),
                };
                self.clock = Clock { t: clock.t, steps: clock.steps, dt: clock.dt, halt };
                self.clock_read = true;
                // The read synchronised: bring the gauge samples over while they fit the ring.
                if let Some(k) = &mut self.products {
                    k.drain(&self.gpu, clock.steps)?;
                }
            }
            let clock = self.clock;
            let halt = clock.halt;
            let past_deadline = until.deadline.is_some_and(|d| Instant::now() >= d);
            if halt.is_some() || clock.t >= until.t || clock.steps >= until.steps || past_deadline {
                // A slab's ghost rows still to come (`GpuKp::boundary_deferred`) arrive before
                // anything but the next step reads the state.
                self.model.settle()?;
                return Ok(self.clock);
            }
            // Steps left at the last Δt, within the step budget (at least 1, at most a batch).
            let left = if clock.dt > 0.0 { ((until.t - clock.t) / clock.dt).ceil() } else { 1.0 };
            let batch = (left.clamp(1.0, BATCH as f64) as u64).min(until.steps - clock.steps);
            let mut left = batch;
            while left > 0 {
                // Each cycle starts by timing one step of each kernel (two steps, so only when
                // the budget has two left); the wet map is written by every RK stage, so both
                // kernels see a fresh one.
                if self.mode == EarlyExit::Auto && self.launched.is_multiple_of(CYCLE) && left >= 2 {
                    // On ranks a step takes as long as the slowest slab's: they choose together,
                    // the kernel whose slowest slab is faster.
                    let early = self.timed_step(FluxKernel::EarlyExit)?;
                    let full = self.timed_step(FluxKernel::Full)?;
                    let (early, full) = (self.model.max_over_ranks(early)?, self.model.max_over_ranks(full)?);
                    self.current = if early < full { FluxKernel::EarlyExit } else { FluxKernel::Full };
                    left -= 2;
                    continue;
                }
                // A graph never reaches the next cycle's timed steps.
                let to_cycle = if self.mode == EarlyExit::Auto { CYCLE - self.launched % CYCLE } else { u64::MAX };
                if self.model.graphs_fit() && left >= GRAPH_STEPS && to_cycle >= GRAPH_STEPS {
                    self.graph_steps()?;
                    left -= GRAPH_STEPS;
                    continue;
                }
                self.step(self.current)?;
                left -= 1;
            }
        }
    }

    /// [`GRAPH_STEPS`] steps with the current flux kernel as one graph: the one kept if its key
    /// is the model's now, else recorded (`Gpu::record`) from the steps' launches. The steps are
    /// those [`step`](Self::step) launches one by one, bit for bit.
    fn graph_steps(&mut self) -> Result<()> {
        let key = (self.current, self.products.is_some(), self.model.launch_key());
        // What the last steps measured beside the stream, before the graph's own.
        self.model.join_account()?;
        if self.graph.as_ref().is_some_and(|(k, _)| *k == key) {
            // Recording counted its steps as `step` does; a launch again counts them here.
            self.count(self.current, GRAPH_STEPS);
        } else {
            self.graph = None;
            let (gpu, kernel) = (self.gpu.clone(), self.current);
            let replay = gpu.record(|| (0..GRAPH_STEPS).try_for_each(|_| self.step(kernel)))?;
            if self.model.launch_key() != key.2 {
                return Err(Error::invalid(format!(
                    "kp: {GRAPH_STEPS} steps do not bring the model's buffers back to where they started, so their graph cannot be launched again"
                )));
            }
            self.graph = Some((key, replay));
        }
        self.graph_steps += GRAPH_STEPS;
        match &self.graph {
            Some((_, g)) => g.launch(),
            None => Err(Error::invalid("kp: no graph of steps kept")),
        }
    }
}
