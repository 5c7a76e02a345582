//! The water account's boundary faces on the GPU (`gpu/src/kp/account.rs`; docs/kp-forcing.md,
//! "The water account"): each face's segment, pending volume and totals live on the device
//! for the whole run, and a launch of one thread a face after each stage's draining factors
//! adds the stage's share of the faces' fluxes (the step's last stage committing it; in DS1 and
//! DS2 a launch after the step's end, which drops a discarded step's). The host reads the
//! totals only when it hands a state out or takes a checkpoint.
//!
//! In Euler and RK2 a stage's launch goes on a stream of its own, beside the GPU's, after
//! everything queued there so far: it reads the stage's state, Δt, wet map and draining factors,
//! so the GPU's stream goes on at once with the stage's update and waits for the account
//! ([`join`](GpuAccount::join)) only before it rewrites any of those: RK2's second stage (which
//! writes Qⁿ⁺¹ over Qⁿ and draws new draining factors) for the first stage's account, the next
//! step for the last stage's. One thread a face of the perimeter is a small launch that the
//! update's blocks leave room for; queued in line it held up the step by its whole latency (1.5%
//! of an RK2 step at 4096²).

use crate::kp::segments::Segments;
use crate::kp::{Problem, WetDry};
use crate::runtime::{Aside, DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{Error, GpuReal, Result};
use kernels::kp::{
    ACCOUNT_BOLLERMANN, ACCOUNT_CLAMP, ACCOUNT_COMMIT, ACCOUNT_KP07, Coeffs, FaceAccount, FaceCommit, Measure,
    face_lengths, measured_faces, perimeter_faces,
};

/// What a stage's measurement reads (device addresses): its state with ghosts, corner bed and
/// Δt; the split clock (null outside DS1 and DS2); the wet map its flux read (null without
/// early exit); `clamp`'s draining factors and flags (nulls in the other schemes).
pub struct StageInputs<T> {
    pub q: [*const T; 3],
    pub bed: *const T,
    pub dt: *const T,
    pub clock: *const f64,
    pub wet: *const u32,
    pub phi: *const T,
    pub drained: *const u32,
}

/// The faces' buffers and the account's kernels of the problem's wet–dry scheme.
pub struct GpuAccount<T: GpuReal> {
    /// Each face's segment, its volume pending for the step under way and its totals (four
    /// arrays of the faces: what left, values then low parts; what came in, likewise).
    segment: DeviceBuffer<u32>,
    pending: DeviceBuffer<f64>,
    totals: DeviceBuffer<f64>,
    faces: usize,
    /// The problem's cell size, Δx × Δy.
    cell: (f64, f64),
    kernel: Kernel<FaceAccount<T>>,
    commit: Kernel<FaceCommit<T>>,
    /// The stream the unsplit schemes' stages are measured on.
    aside: Aside,
}

impl<T: GpuReal> GpuAccount<T> {
    /// The account of `problem`'s boundary segments `s` (`Segments::of`, or a slab's
    /// `Segments::slab`); None where it has none to measure.
    pub fn new(gpu: &Gpu, problem: &Problem, s: &Segments) -> Result<Option<GpuAccount<T>>> {
        if s.is_empty() {
            return Ok(None);
        }
        let faces = perimeter_faces(problem.nx as u32, problem.ny as u32) as usize;
        let entry = match problem.wet_dry {
            WetDry::Bollermann => ACCOUNT_BOLLERMANN,
            WetDry::Kp07 => ACCOUNT_KP07,
            WetDry::Clamp => ACCOUNT_CLAMP,
        };
        Ok(Some(GpuAccount {
            aside: Aside::new(gpu)?,
            segment: gpu.upload(&s.map)?,
            pending: gpu.zeros(faces)?,
            totals: gpu.zeros(4 * faces)?,
            faces,
            cell: (problem.dx, problem.dy),
            kernel: gpu.kernel::<T, _>(entry)?,
            commit: gpu.kernel::<T, _>(ACCOUNT_COMMIT)?,
        }))
    }

    /// One stage's share of the faces `m` names, of the state `inputs` in orientation `k`: on
    /// the account's stream with `beside` (what it reads must then stay as it is until
    /// [`join`](Self::join)), else on the GPU's.
    pub fn stage(&mut self, k: Coeffs<T>, m: Measure, inputs: &StageInputs<T>, beside: bool) -> Result<()> {
        let StageInputs { q: [w, hu, hv], bed, dt, clock, wet, phi, drained } = *inputs;
        let (len_x, len_y) = face_lengths(self.cell, m.faces);
        let params = FaceAccount {
            k,
            m,
            len_x,
            len_y,
            dt,
            clock,
            w,
            hu,
            hv,
            bed,
            wet,
            phi,
            drained,
            segment: self.segment.ptr(),
            pending: self.pending.ptr_mut(),
            totals: self.totals.ptr_mut(),
        };
        let shape = LaunchShape::cover_1d(u64::from(measured_faces(&k, m.faces)), 128)?;
        // SAFETY: one thread a face of `m.faces` in orientation k (cover_1d of their count); the
        // state, bed and φ are padded arrays of k (every orientation has as many cells), dt holds
        // 1, clock null or CLOCK_LEN_SPLIT, wet and drained null or nbx·nby flags of k; segment
        // and pending hold the problem's perimeter faces and totals four times as many (new;
        // the transposed orientation has the same perimeter). Beside the GPU's stream, after
        // everything queued there (which wrote what it reads) and before anything queued later
        // that touches it (the caller's contract, through `join`); the account's buffers are
        // touched on the account's stream alone until then.
        if !beside {
            self.join()?;
            return unsafe { self.kernel.launch(shape, params) };
        }
        self.aside.begin(self.kernel.stream())?;
        unsafe { self.kernel.launch_on(self.aside.stream(), shape, params) }?;
        self.aside.end()
    }

    /// The GPU's stream waits, on the device, for the stages measured beside it so far.
    pub fn join(&self) -> Result<()> {
        self.aside.join(self.kernel.stream())
    }

    /// DS1 and DS2, after the step's end (`clock`, the split clock): its pending volumes
    /// committed where it went through, dropped where it was discarded.
    pub fn commit_split(&mut self, k: Coeffs<T>, clock: *const f64) -> Result<()> {
        self.join()?;
        let params = FaceCommit { k, clock, pending: self.pending.ptr_mut(), totals: self.totals.ptr_mut() };
        let shape = LaunchShape::cover_1d(self.faces as u64, 128)?;
        // SAFETY: one thread a face of the perimeter of k (the problem's); clock holds
        // CLOCK_LEN_SPLIT; pending the faces and totals four times as many (new).
        unsafe { self.commit.launch(shape, params) }
    }

    /// Every face's totals (synchronises).
    pub fn download(&self, gpu: &Gpu) -> Result<Vec<f64>> {
        self.join()?;
        gpu.download(&self.totals)
    }

    /// Continue from totals [`download`](Self::download) gave of a run of the same problem,
    /// nothing pending.
    pub fn resume(&mut self, gpu: &Gpu, totals: &[f64]) -> Result<()> {
        if totals.len() != 4 * self.faces {
            return Err(Error::invalid(format!(
                "kp: boundary volumes of {} faces to resume from, where this run measures {}",
                totals.len() / 4,
                self.faces
            )));
        }
        self.join()?;
        gpu.write(totals, &mut self.totals)?;
        gpu.write(&vec![0.0; self.faces], &mut self.pending)
    }
}
