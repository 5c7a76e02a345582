//! GPU driver: the state lives on the device for the whole run, and so does the clock. A step
//! launches flux → (block maxima → device-wide max → Δt) → RK stage 1 → boundary, then for RK2
//! flux → RK stage 2 → boundary; Δt is computed on the device and never read back by a step. In
//! `clamp` the draining passes follow each flux (once Δt is known) and the velocity clamp each
//! RK stage, over the blocks listed after the stage before (`drain.rs`). RK2 on the streamed
//! flux kernel without early exit runs its second stage inside that kernel (`flux_rk`; then in
//! `clamp` the RK kernel runs on the drain list's blocks only, after the passes). With forcing
//! and boundary segments, each stage's draining factors are followed by the water account's
//! launch over the boundary faces (`account.rs`). The forcing's kernels follow the step
//! (`forcing.rs`); the step's uniform forcing (uniform rain, a uniform Green–Ampt soil) acts
//! inside its last stage instead, from the rain's depth and the span a one-thread kernel gives
//! once Δt is known.
//!
//! This module holds the model's state and its step. Its parts: `launch.rs` (the launch
//! parameters), `run_kernels.rs` (the kernels a run looks up), `build.rs` (a run's
//! construction), `flux.rs` (the flux launches), `stages.rs` (Δt, the RK stages, `clamp`'s
//! passes, the ghost cells and a slab's exchange), `transfers.rs` (the state to and from the
//! host), `split.rs` and `split_steps.rs` (DS1 and DS2), `mixed.rs` and `mixed_run.rs` (the
//! mixed precision), and the forcing's, the water account's and the out-only faces' own.

use super::cpu::CpuKp;
use super::forcing::Layout;
use super::mixed::check_scheme;
use super::perimeter::measure;
use super::problem::Padded;
use super::slab::Start;
use super::{Problem, Scheme, WetDry};
use crate::field::{DeviceField2, Field2};
use crate::foundation::ReduceOp;
use crate::foundation::gpu::{BufferKernels, Reducer};
use crate::ranks::Halo;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, LaunchShape};
use crate::{Error, GpuReal, Result};
use account::{GpuAccount, StageInputs};
use cudarc::driver::CudaStream;
use forcing::{GpuForcing, Target};
use kernels::forcing::Soil;
use kernels::halo::{ghosts_x, ghosts_y};
use kernels::kp::{
    CLOCK_DS_RETRIES, CLOCK_DS_STATE, CLOCK_DS_X, CLOCK_DS_Y, CLOCK_DT, CLOCK_LEN, CLOCK_LEN_SPLIT, CLOCK_STATUS,
    CLOCK_STEPS, CLOCK_T, ClampCopy, ClampVelocity, Clock, Coeffs, Drain, DrainRhs, FACES_ALL, FACES_X, FACES_X_T,
    FluxSplit, FluxStream, FluxStreamEarly, FluxStreamRk, FluxTile, FluxTileEarly, RkStage, SPLIT_GOING, SetGhosts,
    ShoreLists, TimeStep, line_slots,
};
use kernels::{Bands, Level};
use out_only::GpuOutOnly;
use split::GpuSplit;
use std::sync::Arc;

mod account;
mod aside;
mod build;
mod flux;
mod forcing;
mod launch;
mod mixed;
mod mixed_run;
mod out_only;
mod run_kernels;
mod split;
mod split_steps;
mod stages;
mod transfers;

pub use launch::{FluxVariant, Launch};
use launch::{check_line, flux_slots, fuses_by_default, stream_shape};
pub use mixed::MixedLevel;
use run_kernels::{ClampPasses, InStage, KpKernels};

/// Zero the flags `b` on `stream`, ahead of the kernels enqueued after (in a graph where one is
/// recorded).
fn clear(stream: &Arc<CudaStream>, b: &mut DeviceBuffer<u32>) -> Result<()> {
    crate::runtime::zero_u32(stream, b)
}

/// One orientation of the grid on the device (device addresses): the problem's, or the
/// transposed one the split schemes' Y substeps work in (`split.rs`).
#[derive(Clone, Copy)]
struct Side<T> {
    k: Coeffs<T>,
    /// The corner bed and the cell bed.
    bed: *const T,
    cell_bed: *const T,
    /// In `clamp`, each cell's highest corner B_hi; null otherwise.
    hi: *const T,
}

/// The clock as the host reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockState {
    pub t: f64,
    pub dt: f64,
    pub status: u32,
    pub steps: u64,
}

/// The flux kernel's outputs on the host.
pub struct Residual<T> {
    /// R_w, R_hu, R_hv (padded).
    pub r: [Vec<T>; 3],
    /// Per-block max(a_x/Δx, a_y/Δy).
    pub rates: Vec<T>,
    /// Per-block wet flags.
    pub wet: Vec<u32>,
}

/// The device state of one run. Its kernels are looked up once, in [`GpuKp::new`].
pub struct GpuKp<T: GpuReal> {
    k: Coeffs<T>,
    flux_variant: FluxVariant,
    /// SRK2's line length (`Launch::line`).
    line: u32,
    /// Rate slots the flux kernel writes (the Δt reduction reads exactly these).
    slots: usize,
    scheme: Scheme,
    clock_params: Clock,
    bed: DeviceField2<T>,
    cell_bed: DeviceField2<T>,
    /// g·n² per cell when the problem has a Manning field (the RK kernel is then the per-cell one).
    friction: Option<DeviceField2<T>>,
    q: [DeviceField2<T>; 3],
    q1: [DeviceField2<T>; 3],
    /// On the compensated path (`Problem::compensates`, never in mixed precision), w's low
    /// parts of Qⁿ and Q¹ (the RK kernel is then the compensated one); their ghost layers are
    /// never read.
    low: Option<[DeviceField2<T>; 2]>,
    r: [DeviceField2<T>; 3],
    /// In SRK2: R's y part, three padded fields one after the other (`r` then holds the x part);
    /// the rates of its x-line kernel, then those of its y-block kernel, fill `rate`.
    ry: Option<DeviceBuffer<T>>,
    rate: DeviceBuffer<T>,
    /// Wet maps, rotating: `wet[cur]` is the map of Qⁿ (stage 1's flux reads it), the next one
    /// Q¹'s (stage 2's flux), the one after Qⁿ⁺¹'s; the RK kernels of an early-exit step read
    /// the older ones to know which blocks they may skip.
    wet: [DeviceBuffer<u32>; 3],
    cur: usize,
    /// Whether the last flux launch was the early-exit one (its R is unwritten where inactive).
    early: bool,
    /// Whether RK2 on the streamed flux kernel without early exit runs its second stage inside
    /// that kernel (`kp_flux_stream_rk`): the same arithmetic, nine words a cell fewer. The
    /// default is [`fuses_by_default`]'s; `set_fused` overrides it.
    fused: bool,
    dt: DeviceBuffer<T>,
    clock: DeviceBuffer<f64>,
    reducer: Reducer<T>,
    kernels: KpKernels<T>,
    /// The draining and clamp passes, in `clamp`.
    clamp: Option<ClampPasses<T>>,
    /// DS1 and DS2: the transposed orientation, the working states and their kernels.
    split: Option<Box<GpuSplit<T>>>,
    /// Mixed precision (`new_mixed`): the surfaces and R_w in f64, which the kernels read and
    /// write in place of `q[0]`, `q1[0]` and `r[0]` (then unused).
    mixed: Option<Box<MixedLevel>>,
    /// Rain, infiltration and inflows, applied after each step (not in mixed precision).
    forcing: Option<Box<GpuForcing<T>>>,
    /// The activity map `k.active` points to, where some cell is inactive or some face lets
    /// water only out; the ghosts beyond those faces (`out_only`) are set before each flux launch.
    active: Option<DeviceBuffer<u8>>,
    out_only: Option<GpuOutOnly<T>>,
    /// The water account's boundary faces, measured every stage (with forcing and a boundary
    /// segment: `account.rs`).
    account: Option<Box<GpuAccount<T>>>,
    /// The stream the kernels run on (`clamp`'s list counts and the fused second stage's flags
    /// are cleared there).
    stream: Arc<CudaStream>,
    /// On one rank's slab of a grid decomposed over ranks (`slab`).
    ranks: Option<Box<GpuRanks>>,
    /// On a slab whose ranks overlap their exchanges (`Halo::overlaps`): the state (`q1`
    /// with true) whose ghost rows at the cuts are still to come; the next flux launch on it
    /// takes them beside its inner bands (`aside::stream_bands`).
    ghosts_aside: Option<bool>,
}

/// What a slab's driver shares with the other ranks: the ghost rows at its cuts, after every
/// ghost pass, and Δt's rate, every step: GPU to GPU on the stream where the ranks have a
/// direct link (`Halo::link`), else through the host, synchronising.
struct GpuRanks {
    halo: Halo,
    gpu: Arc<Gpu>,
}

/// Which flux kernel a step uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluxKernel {
    Full,
    EarlyExit,
}

/// The GPU's stream waits for the water account's last stages, measured beside it, before the
/// fields they read are freed on it.
impl<T: GpuReal> Drop for GpuKp<T> {
    fn drop(&mut self) {
        // A failed wait leaves nothing to order: the context is gone with the run.
        let _ = self.join_account();
    }
}

impl<T: GpuReal> GpuKp<T> {
    /// Switch the flux kernel (the benchmarks compare them on one state).
    pub fn set_flux(&mut self, gpu: &Gpu, flux: FluxVariant) -> Result<()> {
        flux.check(self.k.ny as usize)?;
        if self.mixed.is_some() && flux == FluxVariant::Tile {
            return Err(Error::invalid(mixed::NO_TILE));
        }
        let slots = flux_slots(&self.k, flux, self.ry.is_some().then_some(self.line));
        if slots > self.rate.len() {
            self.rate = gpu.zeros(slots)?;
        }
        self.flux_variant = flux;
        self.slots = slots;
        Ok(())
    }

    /// Switch SRK2's x-line length (the benchmarks compare them on one state); an error
    /// outside SRK2 or for a length its kernel cannot take.
    pub fn set_line(&mut self, gpu: &Gpu, line: u32) -> Result<()> {
        if self.ry.is_none() {
            return Err(Error::invalid("the x-line length is SRK2's: this model runs another scheme"));
        }
        let (old, old_slots) = (self.line, self.slots);
        self.line = line;
        self.slots = flux_slots(&self.k, self.flux_variant, Some(line));
        if let Err(e) = check_line(line).and_then(|_| self.check_block()) {
            (self.line, self.slots) = (old, old_slots);
            return Err(e);
        }
        if self.slots > self.rate.len() {
            self.rate = gpu.zeros(self.slots)?;
        }
        Ok(())
    }

    pub fn coeffs(&self) -> &Coeffs<T> {
        &self.k
    }

    /// The flux kernel in use (RK2 and Euler).
    pub fn flux_variant(&self) -> FluxVariant {
        self.flux_variant
    }

    /// In SRK2, DS1 and DS2, the x-line length of their flux kernel (which they run whatever the
    /// flux variant); None in the other schemes.
    pub fn split_line(&self) -> Option<u32> {
        (self.ry.is_some() || self.split.is_some()).then_some(self.line)
    }

    /// Whether a run may queue its steps as graphs (`GpuRun::graph_steps`): not on a slab, whose
    /// ghost rows come through copies and NCCL calls, nor in DS1 and DS2, whose steps the host
    /// checks between them.
    pub fn graphs_fit(&self) -> bool {
        self.ranks.is_none() && self.split.is_none()
    }

    /// What a step's launches depend on that the host changes between steps or on request: the
    /// wet maps' rotation, the buffers Euler swaps, the launch shapes and the stop time. Two
    /// steps with the same key and flux kernel launch the same kernels with the same
    /// parameters; a graph of steps is launched again only under its own key.
    pub fn launch_key(&self) -> [u64; 10] {
        let at = |p: *const T| p as usize as u64;
        let low = self.low.as_ref().map_or(0, |l| at(l[0].ptr()));
        let flux = match self.flux_variant {
            FluxVariant::Tile => 0,
            FluxVariant::Stream { warps, rows } => 1 << 48 | (warps as u64) << 24 | rows as u64,
        };
        [
            self.cur as u64,
            at(self.w_ptr(false)),
            at(self.q[1].ptr()),
            at(self.q1[1].ptr()),
            low,
            at(self.rate.ptr()),
            (self.slots as u64) << 32 | self.line as u64,
            flux << 1 | self.fused as u64,
            (self.k.bx as u64) << 32 | self.k.by as u64,
            self.clock_params.t_stop.to_bits(),
        ]
    }

    /// Steps cap Δt at the time left to `t_stop` (then take Δt = 0).
    pub fn set_stop(&mut self, t_stop: f64) {
        self.clock_params.t_stop = t_stop;
        if let Some(s) = &mut self.split {
            s.clock.t_stop = t_stop;
        }
    }

    /// Fill R, the stage buffer, the rates, Δt and `clamp`'s draining factors and scratch
    /// momenta with NaN, so that anything a kernel fails to
    /// write shows up (the equivalence tests call this before launches).
    pub fn poison(&mut self) -> Result<()> {
        let fill = &self.kernels.buffers;
        // Q¹'s low part too (compensated): its ghost layers are never read.
        for b in self.r.iter_mut().chain(self.q1.iter_mut()).chain(self.low.iter_mut().map(|[_, l1]| l1)) {
            fill.fill(b, T::NAN)?;
        }
        if let Some(ry) = &mut self.ry {
            fill.fill(ry, T::NAN)?;
        }
        if let Some(s) = &mut self.split {
            for b in s.work.iter_mut().flatten() {
                fill.fill(b, T::NAN)?;
            }
        }
        fill.fill(&mut self.rate, T::NAN)?;
        if let Some(m) = &mut self.mixed {
            m.poison()?;
        }
        if let Some(c) = &mut self.clamp {
            // Read only where their passes flagged the block as written.
            for b in std::iter::once(&mut c.phi).chain(c.scratch.iter_mut()) {
                fill.fill(b, T::NAN)?;
            }
        }
        fill.fill(&mut self.dt, T::NAN)
    }

    /// The surface of Qⁿ (or Q¹ with `q1`) as the kernels take it: in mixed precision the f64
    /// field, whose address the mixed entry points read as f64.
    fn w_ptr(&self, q1: bool) -> *const T {
        match &self.mixed {
            Some(m) => m.w[q1 as usize].ptr().cast(),
            None => {
                if q1 {
                    self.q1[0].ptr()
                } else {
                    self.q[0].ptr()
                }
            }
        }
    }

    /// [`w_ptr`](Self::w_ptr), to write.
    fn w_ptr_mut(&mut self, q1: bool) -> *mut T {
        match &mut self.mixed {
            Some(m) => m.w[q1 as usize].ptr_mut().cast(),
            None => {
                if q1 {
                    self.q1[0].ptr_mut()
                } else {
                    self.q[0].ptr_mut()
                }
            }
        }
    }

    /// R_w as the kernels take it (f64 in mixed precision).
    fn rw_ptr_mut(&mut self) -> *mut T {
        match &mut self.mixed {
            Some(m) => m.rw.ptr_mut().cast(),
            None => self.r[0].ptr_mut(),
        }
    }

    fn block_shape(&self) -> Result<LaunchShape> {
        LaunchShape::cover_2d(self.k.nx as u64, self.k.ny as u64, (self.k.bx, self.k.by), (1, 1))
    }

    /// The constants of an unsplit stage: RK2's second (`from_q1`) reads the step's Δt from its
    /// buffer (`Coeffs::after_dt`: `bollermann`'s cap counts no face faster than it allows, and
    /// `kp07` limits each face to a quarter of its depth), the first sets it.
    fn stage_k(&self, from_q1: bool) -> Coeffs<T> {
        // SAFETY: the Δt buffer lives as long as the model, and every launch reads it after the
        // step's reduction wrote it, on the stream that wrote it (or beside it, joined as the
        // account's stages are: they read it for their volumes too).
        if from_q1 { unsafe { self.k.after_dt(self.dt.ptr()) } } else { self.k }
    }

    /// The problem's orientation.
    fn side(&self) -> Side<T> {
        Side {
            k: self.k,
            bed: self.bed.ptr(),
            cell_bed: self.cell_bed.ptr(),
            hi: self.clamp.as_ref().map_or(std::ptr::null(), |c| c.hi.ptr()),
        }
    }

    /// One whole step: Δt on the device, then Euler or RK2, or (DS1, DS2, whose kernels have no
    /// early exit: `kernel` does not matter) a split step; then the forcing over the time it
    /// advanced and the ghosts of the forced state.
    pub fn step(&mut self, kernel: FluxKernel) -> Result<()> {
        // The last step's account, measured beside the stream, read its state and Δt.
        self.join_account()?;
        // Early exit does not see water a held level's ghosts bring to a dry block (`CpuKp::new`).
        let kernel = if self.forcing.as_ref().is_some_and(|f| f.sets_ghosts()) { FluxKernel::Full } else { kernel };
        if self.split.is_some() {
            self.split_step()?;
        } else {
            // The forcing's kernels read no ghost, and the ghosts are set after them.
            self.flow(kernel, self.forcing.is_none())?;
        }
        if self.forcing.is_some() {
            let to = Target {
                w: self.q[0].ptr_mut(),
                lo: self.low.as_mut().map_or(std::ptr::null_mut(), |[lo, _]| lo.ptr_mut()),
                hu: self.q[1].ptr_mut(),
                hv: self.q[2].ptr_mut(),
                cell_bed: self.cell_bed.ptr(),
                wet: self.wet[self.cur].ptr_mut(),
            };
            let k = self.k;
            if let Some(f) = &mut self.forcing {
                f.apply(k, &self.clock, &to)?;
            }
            self.boundary_deferred(false)?;
        }
        Ok(())
    }

    /// The step of [`step`](Self::step) without the forcing, in Euler or RK2; the output's
    /// ghosts set with `ghosts`.
    fn flow(&mut self, kernel: FluxKernel, ghosts: bool) -> Result<()> {
        self.flux(kernel, false)?;
        self.time_step()?;
        if let Some(f) = &mut self.forcing {
            f.stage_amounts(&self.clock)?;
        }
        self.drain(false)?;
        self.account_stage(false, self.scheme == Scheme::Euler)?;
        self.rk(1)?;
        self.clamp(true)?;
        if ghosts || self.scheme != Scheme::Euler {
            self.boundary_deferred(true)?;
        }
        match self.scheme {
            Scheme::Euler => {
                self.q.swap_with_slice(&mut self.q1);
                // Q¹'s ghost rows still to come are now Qⁿ's.
                self.ghosts_aside = self.ghosts_aside.map(|_| false);
                if let Some(l) = &mut self.low {
                    l.swap(0, 1);
                }
                if let Some(m) = &mut self.mixed {
                    m.w.swap(0, 1);
                }
                self.cur = (self.cur + 1) % 3;
            }
            Scheme::Rk2 | Scheme::Srk2 | Scheme::Ds1 | Scheme::Ds2 => {
                // Stage 1's account, measured beside the stream, read Qⁿ and the draining
                // factors, which stage 2 rewrites (its update writes Qⁿ⁺¹ over Qⁿ, its drain
                // pass the factors).
                self.join_account()?;
                if self.fuses(kernel) {
                    self.flux_rk()?;
                    self.drain(true)?;
                    self.account_stage(true, true)?;
                    self.rk_listed()?;
                } else {
                    self.flux(kernel, true)?;
                    self.drain(true)?;
                    self.account_stage(true, true)?;
                    self.rk(2)?;
                }
                self.clamp(false)?;
                if ghosts {
                    self.boundary_deferred(false)?;
                }
                self.cur = (self.cur + 2) % 3;
            }
        }
        Ok(())
    }
}

/// A state's three fields as the kernels take them.
fn ptrs<T>(s: &mut [DeviceBuffer<T>; 3]) -> [*mut T; 3] {
    s.each_mut().map(|b| b.ptr_mut())
}

fn reading<T>(s: [*mut T; 3]) -> [*const T; 3] {
    s.map(|p| p.cast_const())
}
