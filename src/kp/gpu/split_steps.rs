//! DS1's and DS2's steps on the device, over the state of `split.rs`: each substep launches
//! the model's flux, drain, clamp and ghost kernels in its orientation.

use super::split::{SplitKernels, SplitState};
use super::*;
use kernels::kp::{RkSplit, SplitBegin, SplitCheck, SplitClock, SplitEnd};

/// DS1 and DS2 on the device (`split.rs` holds the transposed orientation, the working states
/// and the kernels these steps launch; it says which buffers each substep reads and writes).
impl<T: GpuReal> GpuKp<T> {
    /// The orientation of `axis` (0: the problem's, X; 1: the transposed one, Y).
    pub(super) fn oriented(&self, axis: u32) -> Side<T> {
        match (axis, &self.split) {
            (1, Some(s)) => Side {
                k: s.ky,
                bed: s.y_bed.ptr(),
                cell_bed: s.y_cell_bed.ptr(),
                hi: s.y_hi.as_ref().map_or(std::ptr::null(), |h| h.ptr()),
            },
            _ => self.side(),
        }
    }

    /// One split step (DS1 or DS2) from Qⁿ, all on the device: Qⁿ⁺¹ in `q`, or Qⁿ left as it was
    /// where a substep found Δt too large (the clock then holds the halved estimates).
    pub(super) fn split_step(&mut self) -> Result<()> {
        let Some(s) = &mut self.split else { return Ok(()) };
        let ds2 = s.clock.substeps == 2.0;
        let [a, b, c] = s.work.each_mut().map(ptrs);
        let q = self.q.each_mut().map(|b| b.ptr_mut());
        self.split_clock(|ks, c, dt, clock| {
            // SAFETY: dt holds 1, clock CLOCK_LEN_SPLIT (new); one thread writes.
            unsafe { ks.begin.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), SplitBegin { c, dt, clock }) }
        })?;
        if ds2 {
            self.substep(0, q, Some(a), b, true)?;
            self.substep(1, b, Some(c), a, false)?;
            self.substep(1, a, Some(c), b, true)?;
            self.substep(0, b, Some(c), q, false)?;
        } else {
            self.substep(0, q, None, a, true)?;
            self.substep(1, a, None, q, true)?;
        }
        self.split_clock(|ks, c, dt, clock| {
            // SAFETY: as for the begin kernel.
            unsafe { ks.end.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), SplitEnd { c, dt, clock }) }
        })?;
        let (k, clock) = (self.k, self.clock.ptr());
        match &mut self.account {
            Some(a) => a.commit_split(k, clock),
            None => Ok(()),
        }
    }

    /// Launch a clock kernel with the split parameters, Δt and the clock.
    pub(super) fn split_clock(
        &mut self,
        launch: impl FnOnce(&SplitKernels<T>, SplitClock, *mut T, *mut f64) -> Result<()>,
    ) -> Result<()> {
        let (dt, clock) = (self.dt.ptr_mut(), self.clock.ptr_mut());
        let Some(s) = &self.split else { return Ok(()) };
        launch(&s.kernels, s.clock, dt, clock)
    }

    /// Substep X of orientation `axis` from `input`: Euler into `out` (`mid` None) or RK2
    /// through `mid`; `out` in the other orientation with `transpose`.
    pub(super) fn substep(
        &mut self,
        axis: u32,
        input: [*mut T; 3],
        mid: Option<[*mut T; 3]>,
        out: [*mut T; 3],
        transpose: bool,
    ) -> Result<()> {
        let from = self.oriented(axis);
        let to = if transpose { self.oriented(1 - axis) } else { from };
        self.line_flux(from, reading(input))?;
        self.substep_limit(from, axis, true)?;
        let wet = self.wet[0].ptr();
        self.drain_on(from, reading(input), wet, true)?;
        // The account: this orientation's x faces, each stage's share while the step is going.
        let (faces, clock) = (if axis == 0 { FACES_X } else { FACES_X_T }, self.clock.ptr());
        let null = std::ptr::null();
        let scale = if mid.is_some() { 0.5 } else { 1.0 };
        self.account_on(from, reading(input), clock, null, scale, faces, false, false)?;
        match mid {
            None => {
                self.split_stage(axis, 1, reading(input), reading(input), out, transpose, from.hi)?;
                self.clamp_on(to, wet, out)?;
                self.boundary_on(to, out)
            }
            Some(mid) => {
                self.split_stage(axis, 1, reading(input), reading(input), mid, false, from.hi)?;
                self.clamp_on(from, wet, mid)?;
                self.boundary_on(from, mid)?;
                self.line_flux(from, reading(mid))?;
                self.drain_on(from, reading(mid), wet, true)?;
                self.account_on(from, reading(mid), clock, null, scale, faces, false, false)?;
                self.split_stage(axis, 2, reading(input), reading(mid), out, transpose, from.hi)?;
                self.clamp_on(to, wet, out)?;
                self.boundary_on(to, out)
            }
        }
    }

    /// R of the x faces of `state` in orientation `side` into `r`, and the x-line kernel's rates.
    pub(super) fn line_flux(&mut self, side: Side<T>, [w, hu, hv]: [*const T; 3]) -> Result<()> {
        let (k, line, bed) = (side.k, self.line, side.bed);
        let [rw, rhu, rhv] = self.r.each_mut().map(|r| r.ptr_mut());
        let rate = self.rate.ptr_mut();
        let params = FluxSplit { k, early: 0, w, hu, hv, bed, rw, rhu, rhv, rate, wet: std::ptr::null() };
        let shape = LaunchShape::fixed((k.nx.div_ceil(line), k.ny, 1), (line, 1, 1)).with_shared_of::<T>((self
            .kernels
            .line_shared)(
            line
        ));
        // SAFETY: state, R and beds are padded arrays of orientation k (every orientation has
        // k.cells() cells), R distinct from the state; rate holds the slots of either
        // orientation (GpuSplit::slots); blocks of `line` threads (checked in new) over
        // (⌈nx/line⌉, ny); shared memory line_shared of the kernel's scheme; no early exit.
        unsafe { self.kernels.x_line.launch(shape, params) }
    }

    /// The largest rate of the last x-line launch in orientation `side` as the limit of `axis`;
    /// with `compare`, the step is discarded if it is below Δt.
    pub(super) fn substep_limit(&mut self, side: Side<T>, axis: u32, compare: bool) -> Result<()> {
        self.reducer.enqueue(ReduceOp::Max, &self.rate, line_slots(side.k.nx, side.k.ny, self.line))?;
        let rate = self.reducer.result().ptr();
        let compare = compare as u32;
        self.split_clock(|ks, c, _, clock| {
            // SAFETY: rate is the reducer's 1-element result, clock CLOCK_LEN_SPLIT; one thread.
            unsafe {
                ks.check.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), SplitCheck { c, axis, compare, rate, clock })
            }
        })
    }

    /// RK stage `stage` (0: copy) of a substep of `axis` from `q0`, `q1` and R into `out`,
    /// transposed with `transpose`; the flags (wet map, and with `hi` not null the `clamp`
    /// lists' flags) of the output into `wet[0]`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split_stage(
        &mut self,
        axis: u32,
        stage: u32,
        [w0, hu0, hv0]: [*const T; 3],
        [w1, hu1, hv1]: [*const T; 3],
        [ow, ohu, ohv]: [*mut T; 3],
        transpose: bool,
        hi: *const T,
    ) -> Result<()> {
        let side = self.oriented(axis);
        let k = side.k;
        let [rw, rhu, rhv] = self.r.each_ref().map(|r| r.ptr());
        let gn2 =
            if axis == 0 { self.friction.as_ref().map_or(std::ptr::null(), |f| f.ptr()) } else { std::ptr::null() };
        let (partial, shore) = match &mut self.clamp {
            Some(c) if !hi.is_null() => (c.partial.ptr_mut(), c.shore.ptr_mut()),
            _ => (std::ptr::null_mut(), std::ptr::null_mut()),
        };
        let params = RkSplit {
            k,
            stage,
            dt: self.dt.ptr(),
            clock: self.clock.ptr(),
            bc: side.cell_bed,
            gn2,
            w0,
            hu0,
            hv0,
            w1,
            hu1,
            hv1,
            rw,
            rhu,
            rhv,
            ow,
            ohu,
            ohv,
            wet_out: self.wet[if hi.is_null() && stage == 0 { 1 } else { 0 }].ptr_mut(),
            hi,
            partial,
            shore,
        };
        let tile = if transpose { 3 * (k.by * (k.bx + 1)) as usize } else { 0 };
        let shape =
            LaunchShape::cover_2d(k.nx as u64, k.ny as u64, (k.bx, k.by), (1, 1))?.with_shared_of::<T>(32 + tile);
        let Some(s) = &self.split else { return Ok(()) };
        let ks = &s.kernels;
        let kernel = match (axis, transpose) {
            (0, false) => &ks.x,
            (0, true) => &ks.x_t,
            (_, false) => &ks.y,
            (_, true) => &ks.y_t,
        };
        // SAFETY: every state, R and bed array is padded to k.cells() (both orientations have as
        // many cells); out distinct from every input (the step's buffers never alias, `split_step`);
        // gn2 the friction field exactly when X's kernels are the per-cell ones (GpuSplit::new),
        // else null and unread; the wet map and flags nbx·nby (the same count in both
        // orientations); clock CLOCK_LEN_SPLIT; blocks of k.bx × k.by (checked in new) over the
        // interior; shared memory 32 T plus the transposing tile.
        unsafe { kernel.launch(shape, params) }
    }

    /// The limits of Qⁿ in both directions, as the first step's estimates (the CPU reference's
    /// `Split::measure`): X's rates from `q`, then Y's from `q` transposed into A. Leaves Qⁿ's
    /// wet map and flags as they were (the copy writes its wet map into `wet[1]`, no flags).
    pub(super) fn measure_split(&mut self) -> Result<()> {
        let Some(s) = &mut self.split else { return Ok(()) };
        let a = ptrs(&mut s.work[0]);
        let q = self.q.each_mut().map(|b| b.ptr_mut());
        let (x, y) = (self.oriented(0), self.oriented(1));
        self.line_flux(x, reading(q))?;
        self.substep_limit(x, 0, false)?;
        self.split_stage(0, 0, reading(q), reading(q), a, true, std::ptr::null())?;
        self.boundary_on(y, a)?;
        self.line_flux(y, reading(a))?;
        self.substep_limit(y, 1, false)
    }

    /// In DS1 and DS2, the Δt estimates the next step starts from (None before the first step's
    /// measurement) and the steps discarded so far (synchronises); None in the other schemes.
    pub fn split_state(&self, gpu: &Gpu) -> Result<Option<SplitState>> {
        if self.split.is_none() {
            return Ok(None);
        }
        let c = gpu.download(&self.clock)?;
        let (x, y) = (c[CLOCK_DS_X], c[CLOCK_DS_Y]);
        Ok(Some(((!x.is_nan() && !y.is_nan()).then_some((x, y)), c[CLOCK_DS_RETRIES] as u64)))
    }

    /// Continue a DS1 or DS2 run with the estimates and retry count [`split_state`](Self::split_state)
    /// gave (after [`resume`](Self::resume)); estimates None are measured from the state.
    /// Nothing in the other schemes.
    pub fn resume_split(&mut self, gpu: &Gpu, estimates: Option<(f64, f64)>, retries: u64) -> Result<()> {
        if self.split.is_none() {
            return Ok(());
        }
        let mut c = gpu.download(&self.clock)?;
        (c[CLOCK_DS_X], c[CLOCK_DS_Y]) = estimates.unwrap_or((f64::NAN, f64::NAN));
        c[CLOCK_DS_STATE] = SPLIT_GOING as f64;
        c[CLOCK_DS_RETRIES] = retries as f64;
        gpu.write(&c, &mut self.clock)?;
        if estimates.is_none() { self.measure_split() } else { Ok(()) }
    }
}
