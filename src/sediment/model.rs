//! The sediment models behind [`Model`]: the CPU reference and the GPU driver, with the time
//! step chosen the same way on both.
//!
//! The step is forced, or 90% of the explicit stability limit; the limit's sand-fraction part
//! depends on the slopes of h, so it is recomputed from h every `update_every` steps — a fixed
//! schedule, so neither progress output nor snapshots change which steps are taken (snapshots
//! only shorten the one step that lands on them).

use super::cpu::CpuSediment;
use super::gpu::{GpuSediment, Launch};
use super::mixed::GpuMixed;
use super::part::SlabPart;
use super::{Conductances, Problem, Scheme, Steepness, StepVariant};
use crate::field::{Names, interior_of};
use crate::model::Later;
use crate::model::{Checkpoint, Clock, DeviceView, Model, Output, State, Until};
use crate::ranks::{Comm, Halo, Slab};
use crate::runtime::{Backend, Gpu};
use crate::view::{GpuSampler, sample_views};
use crate::{Error, GpuReal, Real, Result};
use kernels::Level;
use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

/// How the time step is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepPolicy {
    /// A fixed step (checked against the limit when the case is read).
    pub forced: Option<f64>,
    /// Steps between recomputations of the automatic step.
    pub update_every: u64,
}

impl StepPolicy {
    /// The whole grid's conductances (α and β's part of the limit, which a run does not change)
    /// and the first step.
    fn start(self, whole: &Problem) -> (Conductances, f64) {
        let conductances = whole.conductances();
        let dt = self.forced.unwrap_or_else(|| whole.stability_with(conductances, &whole.h).automatic());
        (conductances, dt)
    }

    /// `slab`'s part of `whole`, whose first step this policy chooses.
    pub fn part(self, whole: &Problem, slab: &Slab) -> Result<SlabPart> {
        let (conductances, dt) = self.start(whole);
        Ok(SlabPart { problem: whole.slab(slab)?, conductances, dt })
    }
}

/// What differs between the backends: one step, the step's Δt, and the fields.
trait Backing<T> {
    fn step(&mut self) -> Result<()>;
    fn set_dt(&mut self, problem: &Problem, dt: f64);
    /// The ghost rows at a slab's cuts that a GPU step left to travel beside the next step's
    /// kernel, now: before anything but a step reads the state.
    fn settle(&mut self) -> Result<()> {
        Ok(())
    }
    /// How steep the current h is, for the stability limit (on the GPU, a download of h alone).
    fn steepness(&self, problem: &Problem) -> Result<Steepness>;
    /// h (its high part on the compensated path) and s with ghosts, on the host.
    fn fields(&self) -> Result<(Vec<T>, Vec<T>)>;
    /// The low part of h with ghosts, on the compensated path.
    fn low(&self) -> Result<Option<Vec<T>>>;
    /// Continue from h, s and h's low part with ghosts, as [`fields`](Backing::fields) and
    /// [`low`](Backing::low) gave them.
    fn resume(&mut self, h: &[T], s: &[T], low: Option<&[T]>) -> Result<()>;
    fn describe(&self) -> String;
    /// The state's arrays where they lie on the GPU (synchronises); none on the CPU.
    fn device_views(&self) -> Result<Vec<DeviceView>> {
        Ok(Vec::new())
    }
    /// The state at interior `cells`, gathered on the GPU; None where the state must be taken
    /// whole (the CPU, and the mixed precision, whose h and s differ in precision).
    fn sample(&mut self, _cells: &[usize], _clock: Clock) -> Result<Option<Later<T>>> {
        Ok(None)
    }
}

/// h and s, as the state names them.
const H: Names = ("h", "basin height", "m");
const S: Names = ("s", "sand fraction", "1");
/// On the compensated path, h's two parts: the height is their sum rounded once.
const H_HIGH: Names = ("h", "basin height, high part (the height is h + h_low)", "m");
const H_LOW: Names = ("h_low", "basin height, low part (the height is h + h_low)", "m");

/// The CPU reference: fluxes in `T`, h in `H` (`T`, or f64 under f32 in mixed precision), its
/// fields handed to the runner as `R` (`T`; f64 in mixed: h as it is, s widened exactly); on a
/// slab of a decomposed run, with its neighbours.
struct OnCpu<T: Real, H: Level<T>>(CpuSediment<T, H>, Option<Halo>);

impl<R: GpuReal, T: Real, H: Level<T>> Backing<R> for OnCpu<T, H> {
    fn step(&mut self) -> Result<()> {
        self.0.step_with(self.1.as_ref());
        Ok(())
    }
    fn set_dt(&mut self, problem: &Problem, dt: f64) {
        self.0.set_dt(problem, dt)
    }
    fn steepness(&self, problem: &Problem) -> Result<Steepness> {
        Ok(problem.steepness(self.0.h()))
    }
    fn fields(&self) -> Result<(Vec<R>, Vec<R>)> {
        Ok((convert(self.0.h()), convert(self.0.s())))
    }
    fn low(&self) -> Result<Option<Vec<R>>> {
        Ok(self.0.low().map(convert))
    }
    fn resume(&mut self, h: &[R], s: &[R], low: Option<&[R]>) -> Result<()> {
        self.0.resume(&convert(h), &convert(s), low.map(convert::<R, H>).as_deref())
    }
    fn describe(&self) -> String {
        let threads = rayon::current_num_threads();
        match H::WIDER {
            true => format!("CPU reference ({threads} threads), mixed precision (h in f64, the rest in f32)"),
            false => format!("CPU reference ({threads} threads)"),
        }
    }
}

/// The GPU driver; on a slab of a decomposed run, with its neighbours.
struct OnGpu<T: GpuReal> {
    gpu: Arc<Gpu>,
    model: GpuSediment<T>,
    variant: StepVariant,
    halo: Option<Halo>,
    /// The live view's gather, set up with its first frame.
    sampler: Option<GpuSampler<T>>,
}

impl<T: GpuReal> Backing<T> for OnGpu<T> {
    fn step(&mut self) -> Result<()> {
        self.model.step_with(self.variant, self.halo.as_ref().map(|h| (&*self.gpu, h)))
    }
    fn settle(&mut self) -> Result<()> {
        self.model.settle(self.halo.as_ref().map(|h| (&*self.gpu, h)))
    }
    fn set_dt(&mut self, problem: &Problem, dt: f64) {
        self.model.set_dt(problem, dt)
    }
    fn steepness(&self, problem: &Problem) -> Result<Steepness> {
        Ok(problem.steepness(&self.model.download_h(&self.gpu)?))
    }
    fn fields(&self) -> Result<(Vec<T>, Vec<T>)> {
        self.model.download(&self.gpu)
    }
    fn low(&self) -> Result<Option<Vec<T>>> {
        self.model.download_low(&self.gpu)
    }
    fn resume(&mut self, h: &[T], s: &[T], low: Option<&[T]>) -> Result<()> {
        self.model.resume(&self.gpu, h, s, low)
    }
    fn describe(&self) -> String {
        format!("GPU, variant {}", self.variant.name())
    }
    /// h (its two parts added as the state adds them) and s, gathered on the device behind
    /// the queued steps (the host tracks which buffers hold them: no wait).
    fn sample(&mut self, cells: &[usize], clock: Clock) -> Result<Option<Later<T>>> {
        let views = self.views();
        sample_views(&mut self.sampler, &self.gpu, views, cells, clock).map(Some)
    }
    fn device_views(&self) -> Result<Vec<DeviceView>> {
        self.gpu.synchronize()?;
        Ok(self.views())
    }
}

impl<T: GpuReal> OnGpu<T> {
    /// Where h (or its two parts) and s lie, once the work queued on them is done.
    fn views(&self) -> Vec<DeviceView> {
        let (h, s, low) = self.model.state_fields();
        let g = &self.gpu;
        match low {
            None => vec![h.view(g, H), s.view(g, S)],
            Some(low) => vec![h.view(g, H_HIGH), low.view(g, H_LOW), s.view(g, S)],
        }
    }
}

/// A state field named by `names`.
fn output<T>((name, long_name, units): Names, dims: Vec<usize>, data: Vec<T>) -> Output<T> {
    Output { name, long_name, units, dims, data }
}

/// Values of one precision as another's: the runner's and a model's (exact where they are
/// the same type, and from f32 to the f64 the runner runs mixed in; from the runner's f64 back
/// to the f32 s of a mixed model, exact for what the model handed over).
fn convert<A: Real, B: Real>(v: &[A]) -> Vec<B> {
    v.iter().map(|x| B::from_f64(x.to_f64())).collect()
}

/// The mixed precision on the GPU: h in f64, s, α, β in f32.
struct OnGpuMixed {
    gpu: Arc<Gpu>,
    model: GpuMixed,
    halo: Option<Halo>,
}

impl<T: GpuReal> Backing<T> for OnGpuMixed {
    fn step(&mut self) -> Result<()> {
        self.model.step_with(self.halo.as_ref().map(|h| (&*self.gpu, h)))
    }
    fn settle(&mut self) -> Result<()> {
        self.model.settle(self.halo.as_ref().map(|h| (&*self.gpu, h)))
    }
    fn set_dt(&mut self, problem: &Problem, dt: f64) {
        self.model.set_dt(problem, dt)
    }
    fn steepness(&self, problem: &Problem) -> Result<Steepness> {
        Ok(problem.steepness(&self.model.download_h(&self.gpu)?))
    }
    fn fields(&self) -> Result<(Vec<T>, Vec<T>)> {
        let (h, s) = self.model.download(&self.gpu)?;
        Ok((convert(&h), convert(&s)))
    }
    fn low(&self) -> Result<Option<Vec<T>>> {
        Ok(None)
    }
    fn resume(&mut self, h: &[T], s: &[T], _low: Option<&[T]>) -> Result<()> {
        self.model.resume(&self.gpu, &convert(h), &convert(s))
    }
    fn describe(&self) -> String {
        "GPU, variant fused, mixed precision (h in f64, the rest in f32)".into()
    }
    /// h in f64 and s in f32, as the model holds them (the state widens s).
    fn device_views(&self) -> Result<Vec<DeviceView>> {
        self.gpu.synchronize()?;
        let (h, s) = self.model.state_fields();
        Ok(vec![h.view(&self.gpu, H), s.view(&self.gpu, S)])
    }
}

/// The mixed precision has one kernel variant, the fused one (its `M_FUSED`, `MB_FUSED` entries).
fn mixed_variant(variant: StepVariant) -> Result<()> {
    match variant {
        StepVariant::Fused => Ok(()),
        v => Err(Error::invalid(format!(
            "precision mixed runs the fused kernel only; gpu.variant = \"{}\" runs f32 or f64",
            v.name()
        ))),
    }
}

/// A sediment run on either backend.
pub struct SedimentModel<'p, T: GpuReal> {
    /// The whole grid's problem, or one slab's in a decomposed run.
    problem: Cow<'p, Problem>,
    /// In a decomposed run, the ranks whose steepness the step's limit takes the maximum of.
    ranks: Option<Rc<dyn Comm>>,
    backing: Box<dyn Backing<T>>,
    policy: StepPolicy,
    /// α and β's part of the stability limit, which the run does not change.
    conductances: Conductances,
    /// The step the policy chose last.
    dt: f64,
    /// The Δt the backend's coefficients hold now.
    dt_set: f64,
    since_update: u64,
    clock: Clock,
}

impl<'p, T: GpuReal> SedimentModel<'p, T> {
    /// On the GPU of `backend` with `variant` and `launch`, or the CPU reference.
    pub fn new(
        backend: &Backend,
        problem: &'p Problem,
        policy: StepPolicy,
        variant: StepVariant,
        launch: Launch,
    ) -> Result<SedimentModel<'p, T>> {
        let (conductances, dt) = policy.start(problem);
        let backing: Box<dyn Backing<T>> = match backend {
            Backend::Gpu(gpu) => Box::new(OnGpu {
                gpu: gpu.clone(),
                model: GpuSediment::new(gpu, problem, dt, launch)?,
                variant,
                halo: None,
                sampler: None,
            }),
            Backend::Cpu { .. } => Box::new(OnCpu::<T, T>(CpuSediment::new(problem, dt)?, None)),
        };
        Ok(SedimentModel::with(Cow::Borrowed(problem), backing, policy, conductances, dt))
    }

    /// The model of one slab of a decomposed run of `whole` (`halo`: the slab and its
    /// neighbours), in `T` or with `mixed` in the mixed precision (the fused kernel only, as on
    /// one rank): the step and its limit are the whole grid's. On the GPU with `variant` and
    /// `launch`, the ghost rows at the cuts through NCCL or staged through the host
    /// (`Halo::exchange_device`).
    pub fn slab(
        backend: &Backend,
        whole: &Problem,
        halo: Halo,
        policy: StepPolicy,
        mixed: bool,
        kernels: (StepVariant, Launch),
    ) -> Result<SedimentModel<'p, T>> {
        let part = policy.part(whole, halo.slab())?;
        Self::of_part(backend, part, halo, policy, mixed, kernels)
    }

    /// [`slab`](Self::slab) from the slab's part of the whole problem (`StepPolicy::part`), as a
    /// rank other than 0 builds it from what rank 0 sent.
    pub fn of_part(
        backend: &Backend,
        part: SlabPart,
        halo: Halo,
        policy: StepPolicy,
        mixed: bool,
        (variant, launch): (StepVariant, Launch),
    ) -> Result<SedimentModel<'p, T>> {
        let SlabPart { problem, conductances, dt } = part;
        let fused = matches!(variant, StepVariant::Fused | StepVariant::FusedTile);
        if let (Backend::Gpu(_), Scheme::Seed, true) = (backend, problem.scheme, mixed) {
            return Err(Error::invalid(
                "sediment's seed scheme in precision mixed does not run on several GPU ranks: its one kernel, the fused one, forms h′ next to a slab's edge by the boundary rule, not from the neighbouring slab; run it in f32 or f64 with the split kernels (gpu.variant = \"opt1/opt1\"), or on the CPU",
            ));
        }
        if let (Backend::Gpu(_), Scheme::Seed, true) = (backend, problem.scheme, fused) {
            return Err(Error::invalid(format!(
                "sediment's seed scheme runs on several GPU ranks with the split kernels only (gpu.variant = \"opt1/opt1\", say): its fused kernel \"{}\" forms h′ next to a slab's edge by the boundary rule, not from the neighbouring slab",
                variant.name()
            )));
        }
        if mixed {
            mixed_variant(variant)?;
        }
        let ranks = Some(halo.comm().clone());
        let backing: Box<dyn Backing<T>> = match (backend, mixed) {
            (Backend::Gpu(gpu), true) => Box::new(OnGpuMixed {
                gpu: gpu.clone(),
                model: GpuMixed::slab(gpu, &problem, dt, launch, Some(&halo))?,
                halo: Some(halo),
            }),
            (Backend::Gpu(gpu), false) => Box::new(OnGpu {
                gpu: gpu.clone(),
                model: GpuSediment::slab(gpu, &problem, dt, launch, Some(&halo))?,
                variant,
                halo: Some(halo),
                sampler: None,
            }),
            (Backend::Cpu { .. }, true) => {
                Box::new(OnCpu::<f32, f64>(CpuSediment::slab(&problem, dt, Some(&halo))?, Some(halo)))
            }
            (Backend::Cpu { .. }, false) => {
                Box::new(OnCpu::<T, T>(CpuSediment::slab(&problem, dt, Some(&halo))?, Some(halo)))
            }
        };
        let mut m = SedimentModel::with(Cow::Owned(problem), backing, policy, conductances, dt);
        m.ranks = ranks;
        Ok(m)
    }

    /// The mixed precision (h in f64, the rest in f32) on the GPU of `backend` with the fused
    /// kernel of the problem's scheme (the one variant with a mixed entry), or the CPU
    /// reference. The runner runs it with `T` = f64: states and checkpoints hold h as it is and
    /// s widened (exact).
    pub fn mixed(
        backend: &Backend,
        problem: &'p Problem,
        policy: StepPolicy,
        variant: StepVariant,
        launch: Launch,
    ) -> Result<SedimentModel<'p, T>> {
        mixed_variant(variant)?;
        let (conductances, dt) = policy.start(problem);
        let backing: Box<dyn Backing<T>> = match backend {
            Backend::Gpu(gpu) => {
                Box::new(OnGpuMixed { gpu: gpu.clone(), model: GpuMixed::new(gpu, problem, dt, launch)?, halo: None })
            }
            Backend::Cpu { .. } => Box::new(OnCpu::<f32, f64>(CpuSediment::new(problem, dt)?, None)),
        };
        Ok(SedimentModel::with(Cow::Borrowed(problem), backing, policy, conductances, dt))
    }

    fn with(
        problem: Cow<'p, Problem>,
        backing: Box<dyn Backing<T>>,
        policy: StepPolicy,
        conductances: Conductances,
        dt: f64,
    ) -> SedimentModel<'p, T> {
        SedimentModel {
            problem,
            ranks: None,
            backing,
            policy,
            conductances,
            dt,
            dt_set: dt,
            since_update: 0,
            clock: Clock::START,
        }
    }

    /// Recompute the automatic step from the current h (of every slab, in a decomposed run).
    fn update_dt(&mut self) -> Result<()> {
        let mut s = self.backing.steepness(&self.problem)?;
        if let Some(ranks) = &self.ranks {
            s = crate::ranks::spent::reducing(|| {
                Ok::<_, Error>(Steepness { curv: ranks.max(s.curv)?, slope: ranks.max(s.slope)? })
            })?;
        }
        self.dt = self.problem.limit_of(self.conductances, s).automatic();
        Ok(())
    }
}

impl<T: GpuReal> Model<T> for SedimentModel<'_, T> {
    fn describe(&self) -> String {
        let dt = match self.policy.forced {
            Some(dt) => format!("Δt = {dt} yr (forced)"),
            None => format!("Δt = 90% of the stability limit, recomputed every {} steps", self.policy.update_every),
        };
        format!("{}, {dt}", self.backing.describe())
    }

    fn clock(&self) -> Clock {
        self.clock
    }

    fn advance(&mut self, until: Until) -> Result<Clock> {
        while self.clock.t < until.t && self.clock.steps < until.steps {
            if until.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if self.policy.forced.is_none() && self.since_update >= self.policy.update_every {
                self.backing.settle()?;
                self.update_dt()?;
                self.since_update = 0;
            }
            // The step that would reach (or pass) the stop time lands on it exactly.
            let left = until.t - self.clock.t;
            let (dt, lands) = if self.dt >= left * (1.0 - 1e-12) { (left, true) } else { (self.dt, false) };
            if dt != self.dt_set {
                self.backing.set_dt(&self.problem, dt);
                self.dt_set = dt;
            }
            self.backing.step()?;
            self.clock.t = if lands { until.t } else { self.clock.t + dt };
            self.clock.steps += 1;
            self.clock.dt = dt;
            self.since_update += 1;
        }
        self.backing.settle()?;
        Ok(self.clock)
    }

    /// h (on the compensated path, high + low rounded once: the nearest value of `T` to the
    /// pair) and s.
    fn sample(&mut self, cells: &[usize]) -> Result<State<T>> {
        self.sample_later(cells)?.wait()
    }

    fn sample_later(&mut self, cells: &[usize]) -> Result<Later<T>> {
        match self.backing.sample(cells, self.clock)? {
            Some(later) => Ok(Later::of(move || {
                let mut state = later.wait()?;
                // Named and described as the state's fields are (the views name h's parts).
                for f in &mut state.fields {
                    (f.name, f.long_name, f.units) = if f.name == H.0 { H } else { S };
                }
                Ok(state)
            })),
            None => Ok(Later::now(self.state()?.at(cells)?)),
        }
    }

    fn state(&mut self) -> Result<State<T>> {
        let (mut h, s) = self.backing.fields()?;
        if let Some(low) = self.backing.low()? {
            h.iter_mut().zip(&low).for_each(|(hi, lo)| *hi += *lo);
        }
        let layout = self.problem.layout();
        let dims = vec![self.problem.ny, self.problem.nx];
        Ok(State {
            clock: self.clock,
            fields: vec![output(H, dims.clone(), interior_of(&layout, &h)), output(S, dims, interior_of(&layout, &s))],
            boundary: Vec::new(),
        })
    }

    /// h and s with their ghosts (and h's low part, "h_low", on the compensated path), and the
    /// step policy's state: the step chosen last, the one the coefficients hold, and the steps
    /// since the last recomputation.
    fn checkpoint(&mut self) -> Result<Checkpoint<T>> {
        let (h, s) = self.backing.fields()?;
        let mut c = Checkpoint::at(self.clock).field("h", h).field("s", s);
        if let Some(low) = self.backing.low()? {
            c = c.field("h_low", low);
        }
        Ok(c.value("dt", self.dt).value("dt_set", self.dt_set).value("since_update", self.since_update as f64))
    }

    /// On the GPU: h and s where they lie, in their padded fields (on the compensated path h's
    /// high part and its low part apart).
    fn device_views(&mut self) -> Result<Vec<DeviceView>> {
        self.backing.device_views()
    }

    fn restore(&mut self, c: &Checkpoint<T>) -> Result<()> {
        let n = self.problem.layout().len();
        // A checkpoint of a plain run has no low part: the compensated run starts it at zero.
        let low = c.get_optional_field("h_low", n)?;
        self.backing.resume(c.get_field("h", n)?, c.get_field("s", n)?, low)?;
        self.dt = c.get_value("dt")?;
        self.dt_set = c.get_value("dt_set")?;
        self.since_update = c.get_count("since_update")?;
        self.backing.set_dt(&self.problem, self.dt_set);
        self.clock = Clock { halt: None, ..c.clock };
        Ok(())
    }
}
