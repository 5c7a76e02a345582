//! What follows a flux launch: Δt on the device, the RK stages (with the step's uniform
//! forcing in its last), `clamp`'s draining and velocity passes over their lists of blocks,
//! the water account's stage, the ghost cells and a slab's exchange of its ghost rows.

use super::*;

impl<T: GpuReal> GpuKp<T> {
    /// In `clamp`, for a state `w` (padded) set from the host as Qⁿ: the flags the RK kernel
    /// leaves and the lists the first step's passes visit.
    pub(super) fn set_shore<W: Level<T>>(&mut self, gpu: &Gpu, w: &[W]) -> Result<()> {
        let k = self.k;
        let Some(c) = &mut self.clamp else { return Ok(()) };
        c.set_flags(gpu, &k, w)?;
        self.shore_lists(self.cur)
    }

    /// In `clamp`: the lists of blocks the passes visit (`kp_shore_lists`), from the flags the
    /// last RK stage left and its output's wet map `self.wet[map]`.
    pub(super) fn shore_lists(&mut self, map: usize) -> Result<()> {
        self.shore_lists_on(self.k, self.wet[map].ptr())
    }

    /// [`shore_lists`](Self::shore_lists) in orientation `k` from the wet map `wet`.
    pub(super) fn shore_lists_on(&mut self, k: Coeffs<T>, wet: *const u32) -> Result<()> {
        let Some(c) = &mut self.clamp else { return Ok(()) };
        clear(&self.stream, &mut c.counts)?;
        let shape = LaunchShape::cover_2d(k.nbx as u64, k.nby as u64, (32, 4), (1, 1))?;
        let params = ShoreLists {
            k,
            wet,
            partial: c.partial.ptr(),
            shore: c.shore.ptr(),
            drained: c.drained.ptr_mut(),
            listed: c.listed.ptr_mut(),
            lists: c.lists.ptr_mut(),
            counts: c.counts.ptr_mut(),
        };
        // SAFETY: blocks 32 threads wide covering nbx × nby; wet, partial, shore, drained and
        // listed hold nbx·nby flags, lists 4·nbx·nby words, counts 2, zeroed just before on the same stream.
        unsafe { c.lists_kernel.launch(shape, params) }
    }

    /// The ghost rows still to come of `boundary_deferred`, now and
    /// on the stream: before anything but a flux launch reads the state's ghost rows (the end of
    /// `GpuRun::advance`, a flux kernel that does not stream bands).
    pub fn settle(&mut self) -> Result<()> {
        match self.ghosts_aside.take() {
            Some(on_q1) => self.exchange(on_q1),
            None => Ok(()),
        }
    }

    /// Device-wide max of the rates, then Δt and the clock on the device.
    pub fn time_step(&mut self) -> Result<()> {
        self.reducer.enqueue(ReduceOp::Max, &self.rate, self.slots)?;
        if let Some(r) = &self.ranks {
            // The largest rate of every rank: a maximum, so the one-rank run's bit for bit. The
            // rates are never NaN (a NaN counts as an infinite speed), so NCCL's maximum, which
            // would lose a NaN, keeps a blow-up.
            r.halo.max_device(&r.gpu, self.reducer.result_mut())?;
        }
        let params = TimeStep {
            c: self.clock_params,
            rate: self.reducer.result().ptr(),
            dt: self.dt.ptr_mut(),
            clock: self.clock.ptr_mut(),
        };
        // SAFETY: rate is the reducer's 1-element result, dt holds 1, clock CLOCK_LEN; thread 0
        // alone writes.
        unsafe { self.kernels.dt.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), params) }
    }

    /// What the stage forces each cell with: the forcing's, in the step's `last` stage where
    /// the forcing acts inside it (`Layout::fused`; `GpuForcing::in_stage`), else nulls.
    pub(super) fn in_stage(&self, last: bool) -> (*const T, Soil<T>, *mut T) {
        match &self.forcing {
            Some(f) if last => f.in_stage(),
            _ => (std::ptr::null(), Soil::NONE, std::ptr::null_mut()),
        }
    }

    /// RK stage 1 (q → q1) or 2 (q ← ½(q + E(q1))), with the wet map.
    pub fn rk(&mut self, stage: u32) -> Result<()> {
        let shape = self.block_shape()?.with_shared_of::<T>(32);
        self.rk_on(stage, shape, std::ptr::null(), std::ptr::null())
    }

    /// In `clamp`, RK stage 2 in the blocks of the drain list alone, which the streamed second
    /// stage (`flux_rk`) left to it: their R is final only after the drain passes.
    pub(super) fn rk_listed(&mut self) -> Result<()> {
        let Some(c) = &self.clamp else { return Ok(()) };
        let shape = LaunchShape::fixed((c.grid, 1, 1), (self.k.bx, self.k.by, 1)).with_shared_of::<T>(32);
        let (list, count) = (c.lists.ptr(), c.counts.ptr());
        self.rk_on(2, shape, list, count)
    }

    /// [`rk`](Self::rk) on the grid of blocks `shape`, or (`list` not null) on the `count[0]`
    /// blocks of `list`.
    pub(super) fn rk_on(&mut self, stage: u32, shape: LaunchShape, list: *const u32, count: *const u32) -> Result<()> {
        let (m0, m_in) = (self.map(false), self.map(stage == 2));
        let q0 = self.q.each_ref().map(|b| b.ptr());
        let (q1, out) = if stage == 1 {
            (q0, self.q1.each_mut().map(|b| b.ptr_mut()))
        } else {
            (self.q1.each_ref().map(|b| b.ptr()), self.q.each_mut().map(|b| b.ptr_mut()))
        };
        let mut r = self.r.each_ref().map(|b| b.ptr());
        let (mut q0, mut q1, mut out) = (q0, q1, out);
        if self.mixed.is_some() {
            // The f64 surfaces and R_w (the mixed RK entry reads them as f64).
            (q0[0], r[0]) = (self.w_ptr(false), self.rw_ptr_mut().cast_const());
            q1[0] = self.w_ptr(stage == 2);
            out[0] = self.w_ptr_mut(stage == 1);
        }
        let ry = self.ry.as_ref().map_or(std::ptr::null(), |b| b.ptr());
        // w's low parts (compensated): Qⁿ's, and Q¹'s or Qⁿ's as q1 and out are; nulls if plain.
        let low = self.low.as_ref().map_or([std::ptr::null(); 2], |l| l.each_ref().map(|b| b.ptr()));
        let low_out = self.low.as_mut().map_or(std::ptr::null_mut(), |l| l[2 - stage as usize].ptr_mut());
        let (uniform, soil, f) = self.in_stage(stage == 2 || self.scheme == Scheme::Euler);
        let params = RkStage {
            k: self.k,
            stage,
            early: self.early as u32,
            dt: self.dt.ptr(),
            bc: self.cell_bed.ptr(),
            gn2: self.friction.as_ref().map_or(std::ptr::null(), |f| f.ptr()),
            w0: q0[0],
            hu0: q0[1],
            hv0: q0[2],
            w1: q1[0],
            hu1: q1[1],
            hv1: q1[2],
            rw: r[0],
            rhu: r[1],
            rhv: r[2],
            ry,
            ow: out[0],
            ohu: out[1],
            ohv: out[2],
            wet_m0: self.wet[m0].ptr(),
            wet_in: self.wet[m_in].ptr(),
            wet_out: self.wet[(m_in + 1) % 3].ptr_mut(),
            hi: self.clamp.as_ref().map_or(std::ptr::null(), |c| c.hi.ptr()),
            partial: self.clamp.as_mut().map_or(std::ptr::null_mut(), |c| c.partial.ptr_mut()),
            shore: self.clamp.as_mut().map_or(std::ptr::null_mut(), |c| c.shore.ptr_mut()),
            lo0: low[0],
            lo1: low[stage as usize - 1],
            olo: low_out,
            list,
            count,
            uniform,
            soil,
            f,
        };
        // SAFETY: every state, R and bed array is padded to k.cells(), and so is gn2 where the
        // kernel reads it (the per-cell one, chosen in new exactly when `friction` is uploaded;
        // the other reads no gn2, null); out is q1 (stage 1,
        // distinct from every input) or q (stage 2, aliasing only q0 = w0, hu0, hv0, which the
        // kernel allows); the three wet maps hold nbx·nby flags, wet_out distinct from the other
        // two; the flux kernel's blocks; 32 T of shared memory. hi is null, or (in clamp) the
        // padded B_hi with partial and shore nbx·nby flags. ry is null, or (SRK2) 3·cells. lo0,
        // lo1, olo are null (the plain kernel, which ignores them) or padded arrays aliasing as
        // w0, w1 and ow do. list is null (the block shape: nbx × nby blocks of bx × by), or the
        // drain list's pairs with their count in `counts` (rk_listed: a 1-D grid of bx × by).
        let rk = match &self.kernels.forced {
            Some(r) if !params.uniform.is_null() => &r.rk,
            _ => &self.kernels.rk,
        };
        unsafe { rk.launch(shape, params) }
    }

    /// In `clamp`, once Δt is known: the draining factors of the state the last flux launch read
    /// (`q`, or `q1` with `from_q1`), and R recomputed where a face drains, in the blocks of the
    /// drain list (`drain.rs`). Nothing in the other schemes.
    pub fn drain(&mut self, from_q1: bool) -> Result<()> {
        let wet_in = self.wet[self.map(from_q1)].ptr();
        let src = if from_q1 { &self.q1 } else { &self.q };
        let mut state = src.each_ref().map(|b| b.ptr());
        state[0] = self.w_ptr(from_q1);
        let side = Side { k: self.stage_k(from_q1), ..self.side() };
        self.drain_on(side, state, wet_in, false)
    }

    /// [`drain`](Self::drain) of `state` in orientation `side`; with `split` (DS1, DS2) from the
    /// x faces alone, R the x part.
    pub(super) fn drain_on(
        &mut self,
        side: Side<T>,
        [w, hu, hv]: [*const T; 3],
        wet_in: *const u32,
        split: bool,
    ) -> Result<()> {
        let Some(c) = &mut self.clamp else { return Ok(()) };
        let k = side.k;
        let shape = LaunchShape::fixed((c.grid, 1, 1), (k.bx, k.by, 1));
        let (early, bed, split) = (self.early as u32, side.bed, split as u32);
        let (list, count) = (c.lists.ptr(), c.counts.ptr());
        let params = Drain {
            k,
            early,
            split,
            dt: self.dt.ptr(),
            w,
            hu,
            hv,
            bed,
            bc: side.cell_bed,
            hi: side.hi,
            wet_in,
            list,
            count,
            phi: c.phi.ptr_mut(),
            drained: c.drained.ptr_mut(),
        };
        let [mut rw, rhu, rhv] = self.r.each_mut().map(|r| r.ptr_mut());
        if let Some(m) = &mut self.mixed {
            rw = m.rw.ptr_mut().cast();
        }
        let (phi, drained) = (c.phi.ptr(), c.drained.ptr());
        let ry = self.ry.as_mut().map_or(std::ptr::null_mut(), |b| b.ptr_mut());
        let rhs = DrainRhs { k, early, split, w, hu, hv, bed, phi, drained, wet_in, list, count, rw, rhu, rhv, ry };
        // On a slab the rows it hands its neighbours start at 1 every stage, so that they hold 1
        // wherever nothing drained. Elsewhere φ is read only in the blocks the drain pass flags
        // and writes whole (a whole grid's φ is stale elsewhere and not read either).
        if let Some(r) = &self.ranks {
            for rows in r.halo.sent_rows().into_iter().flatten() {
                r.gpu.copy_dtod_at(&c.ones, &mut c.phi, rows.start)?;
            }
        }
        // SAFETY: the state, beds, B_hi, φ and R are padded arrays (the corner bed the corner
        // array), dt holds 1, the maps nbx·nby flags (drained 0 outside the drain list, which
        // `shore_lists` made of this state); blocks of k.bx × k.by.
        unsafe { c.drain.launch(shape, params)? };
        if let Some(r) = &self.ranks {
            r.halo.exchange_device(&r.gpu, &mut [&mut c.phi])?;
        }
        // SAFETY: as above; R (and ry, null or 3·cells) distinct from every input. It reads φ and
        // the flags the first launch wrote, on the same stream.
        unsafe { c.drain_rhs.launch(shape, rhs) }
    }

    /// The water account's share of RK stage 1 (of `q`) or 2 (of `q1`, `from_q1`) of an unsplit
    /// step, once its draining factors are known: the faces of the boundary segments, through
    /// the wet map the flux launch read (early exit) and `clamp`'s draining factors; the step's
    /// last stage (`last`) commits it. Nothing without segments.
    pub(super) fn account_stage(&mut self, from_q1: bool, last: bool) -> Result<()> {
        let src = if from_q1 { &self.q1 } else { &self.q };
        let mut q = src.each_ref().map(|b| b.ptr());
        q[0] = self.w_ptr(from_q1);
        let wet = if self.early { self.wet[self.map(from_q1)].ptr() } else { std::ptr::null() };
        let scale = if self.scheme == Scheme::Euler { 1.0 } else { 0.5 };
        let side = Side { k: self.stage_k(from_q1), ..self.side() };
        self.account_on(side, q, std::ptr::null(), wet, scale, FACES_ALL, last, true)
    }

    /// The GPU's stream waits for the water account's stages measured beside it
    /// (`account.rs`): before anything rewrites what they read, and before a graph of steps,
    /// whose recording joins only the stages it recorded.
    pub fn join_account(&self) -> Result<()> {
        self.account.as_ref().map_or(Ok(()), |a| a.join())
    }

    /// The water account's share of a stage of weight `scale` over `faces` of the state `q` in
    /// orientation `side` (`clock`: the split clock, or null), committing with `commit`;
    /// `beside` the GPU's stream, joined before anything rewrites what it reads
    /// ([`join_account`](Self::join_account)): stage 2 of RK2, the next step.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn account_on(
        &mut self,
        side: Side<T>,
        q: [*const T; 3],
        clock: *const f64,
        wet: *const u32,
        scale: f64,
        faces: u32,
        commit: bool,
        beside: bool,
    ) -> Result<()> {
        let Some(a) = &mut self.account else { return Ok(()) };
        let (phi, drained) = match &self.clamp {
            Some(c) => (c.phi.ptr(), c.drained.ptr()),
            None => (std::ptr::null(), std::ptr::null()),
        };
        let inputs = StageInputs { q, bed: side.bed, dt: self.dt.ptr(), clock, wet, phi, drained };
        a.stage(side.k, measure(scale, faces, commit), &inputs, beside)
    }

    /// With boundary segments, every face's volumes so far (`CpuKp::boundary_volumes`'
    /// layout), on the host (synchronises); None otherwise.
    pub fn boundary_volumes(&self, gpu: &Gpu) -> Result<Option<Vec<f64>>> {
        self.account.as_ref().map(|a| a.download(gpu)).transpose()
    }

    /// Continue the boundary volumes from [`boundary_volumes`](Self::boundary_volumes)'
    /// values (nothing without segments).
    pub fn resume_boundary(&mut self, gpu: &Gpu, totals: &[f64]) -> Result<()> {
        self.account.as_mut().map_or(Ok(()), |a| a.resume(gpu, totals))
    }

    /// In `clamp`, after an RK stage: the lists of blocks for the passes from its flags, and the
    /// velocity clamp of its output (`q1` after stage 1 with `on_q1`, `q` after stage 2) in the
    /// blocks of the clamp list, before its ghosts are set. Nothing in the other schemes.
    pub fn clamp(&mut self, on_q1: bool) -> Result<()> {
        // The map the stage's RK kernel wrote (`rk`: stage 1 writes map(true), stage 2 the next).
        let wet = self.wet[(self.cur + if on_q1 { 1 } else { 2 }) % 3].ptr();
        // On a slab the clamp reads the neighbours' velocities beyond the cut as the stage left them.
        if self.clamp.is_some() {
            self.exchange(on_q1)?;
        }
        let w = self.w_ptr_mut(on_q1);
        let dst = if on_q1 { &mut self.q1 } else { &mut self.q };
        let mut state = dst.each_mut().map(|b| b.ptr_mut());
        state[0] = w;
        self.clamp_on(self.side(), wet, state)
    }

    /// [`clamp`](Self::clamp) of `state` in orientation `side`, whose RK stage wrote the wet map
    /// `wet` and the flags.
    pub(super) fn clamp_on(&mut self, side: Side<T>, wet: *const u32, [w, hu, hv]: [*mut T; 3]) -> Result<()> {
        if self.clamp.is_none() {
            return Ok(());
        }
        let k = side.k;
        self.shore_lists_on(k, wet)?;
        let Some(c) = &mut self.clamp else { return Ok(()) };
        let shape = LaunchShape::fixed((c.grid, 1, 1), (k.bx, k.by, 1));
        let [shu, shv] = c.scratch.each_mut().map(|b| b.ptr_mut());
        let blocks = (k.nbx * k.nby) as usize;
        // The clamp list follows the drain list's nbx·nby pairs; its length is the second count.
        let (list, count) = (c.lists.ptr().wrapping_add(2 * blocks), c.counts.ptr().wrapping_add(1));
        let (bc, hi) = (side.cell_bed, side.hi);
        let params = ClampVelocity { k, w, hu, hv, bc, hi, list, count, shu, shv };
        let copy = ClampCopy { k, shu, shv, list, count, hu, hv };
        // SAFETY: state, beds, B_hi and scratch are padded arrays, the scratch distinct from the
        // state; the list and its count inside `lists` and `counts`; blocks of k.bx × k.by. The
        // copy runs after the clamp has read every momentum (same stream).
        unsafe {
            c.clamp.launch(shape, params)?;
            c.copy.launch(shape, copy)
        }
    }

    /// Index of the wet map of Qⁿ (`stage2` false) or of Q¹ (true).
    pub(super) fn map(&self, stage2: bool) -> usize {
        (self.cur + stage2 as usize) % 3
    }

    /// Both ghost passes on `q` (or `q1`).
    pub fn boundary(&mut self, on_q1: bool) -> Result<()> {
        self.ghost_passes(on_q1)?;
        self.exchange(on_q1)
    }

    /// The ghost passes of `q` (or `q1`) in the problem's orientation, without the exchange.
    pub(super) fn ghost_passes(&mut self, on_q1: bool) -> Result<()> {
        let w = self.w_ptr_mut(on_q1);
        let dst = if on_q1 { &mut self.q1 } else { &mut self.q };
        let mut state = dst.each_mut().map(|b| b.ptr_mut());
        state[0] = w;
        self.boundary_on(self.side(), state)
    }

    /// [`boundary`](Self::boundary) inside a step: on a slab whose ranks overlap their
    /// exchanges the ghost rows at the cuts are left to the next flux launch on the state, which
    /// takes them beside its inner bands (`ghosts_aside`; [`settle`](Self::settle) takes them
    /// at once).
    pub(super) fn boundary_deferred(&mut self, on_q1: bool) -> Result<()> {
        if !self.ranks.as_ref().is_some_and(|r| r.halo.overlaps()) || !self.streams_bands() {
            return self.boundary(on_q1);
        }
        self.ghost_passes(on_q1)?;
        self.ghosts_aside = Some(on_q1);
        Ok(())
    }

    /// [`boundary`](Self::boundary) of `state` in orientation `side`.
    pub(super) fn boundary_on(&self, side: Side<T>, [w, hu, hv]: [*mut T; 3]) -> Result<()> {
        let (k, bc) = (side.k, side.cell_bed);
        let layout = k.layout();
        // Held levels in the problem's orientation (the split schemes, which transpose, have none).
        let (levels, level_map) = match &self.forcing {
            Some(f) if bc == self.cell_bed.ptr() => f.ghosts(),
            _ => (std::ptr::null(), std::ptr::null()),
        };
        for (axis, count) in [(0u32, ghosts_x(&layout)), (1u32, ghosts_y(&layout))] {
            let shape = LaunchShape::cover_1d(count as u64, 128)?;
            // SAFETY: w, hu, hv and bc are padded arrays of orientation k; one thread per ghost
            // of the pass, each writing only its ghost (sources are interior cells or, in pass 1,
            // ghosts set by pass 0, which ran before on the same stream); the level map, in the
            // problem's orientation only, holds 2(nx + ny) entries indexing `levels`.
            let params = SetGhosts { k, axis, w, hu, hv, bc, levels, level_map };
            unsafe { self.kernels.boundary.launch(shape, params)? };
        }
        Ok(())
    }

    /// The largest `x` of every rank on a slab of a decomposed run (`x` itself on a whole grid):
    /// what the ranks decide together, such as the early-exit kernel.
    pub fn max_over_ranks(&self, x: f64) -> Result<f64> {
        match &self.ranks {
            Some(r) => r.halo.comm().max(x),
            None => Ok(x),
        }
    }

    /// On a slab, the ghost rows at its cuts of `q` (or `q1`) from its neighbours (synchronises).
    /// In the mixed precision the surfaces (f64) go apart from the momenta (f32).
    pub(super) fn exchange(&mut self, on_q1: bool) -> Result<()> {
        let Some(r) = &self.ranks else { return Ok(()) };
        let dst = if on_q1 { &mut self.q1 } else { &mut self.q };
        let [w, hu, hv] = dst.each_mut().map(|f| &mut **f);
        match &mut self.mixed {
            Some(m) => {
                r.halo.exchange_device(&r.gpu, &mut [&mut *m.w[on_q1 as usize]])?;
                r.halo.exchange_device(&r.gpu, &mut [hu, hv])
            }
            None => r.halo.exchange_device(&r.gpu, &mut [w, hu, hv]),
        }
    }
}
