//! The flux launches: the streamed or tiled kernel (RK2's second stage inside it where it
//! fuses), with the faces that let water only out set for each.

use super::*;

impl<T: GpuReal> GpuKp<T> {
    /// The faces that let water only out opened or closed for a flux launch on `q` (or `q1`).
    pub(super) fn set_out_only(&mut self, from_q1: bool) -> Result<()> {
        let src = if from_q1 { &self.q1 } else { &self.q };
        let q = [self.w_ptr(from_q1), src[1].ptr(), src[2].ptr()];
        let k = self.stage_k(from_q1);
        match (&self.out_only, &mut self.active) {
            (Some(o), Some(a)) => o.launch(k, q, self.bed.ptr(), a.ptr_mut()),
            _ => Ok(()),
        }
    }

    /// R of `q` (stage 1) or `q1` (stage 2) and the per-block (tile) or per-warp (stream) rates.
    pub fn flux(&mut self, kernel: FluxKernel, from_q1: bool) -> Result<()> {
        if !self.streams_bands() || self.ghosts_aside.is_some_and(|q1| q1 != from_q1) {
            self.settle()?;
        }
        self.set_out_only(from_q1)?;
        let k = self.stage_k(from_q1);
        let early = kernel == FluxKernel::EarlyExit;
        self.early = early;
        let wet = self.wet[self.map(from_q1)].ptr();
        let w = self.w_ptr(from_q1);
        let rw = self.rw_ptr_mut();
        let src = if from_q1 { &self.q1 } else { &self.q };
        let (hu, hv, bed) = (src[1].ptr(), src[2].ptr(), self.bed.ptr());
        let [_, rhu, rhv] = self.r.each_mut().map(|r| r.ptr_mut());
        let rate = self.rate.ptr_mut();
        let ks = &self.kernels;
        if let Some(ry) = &mut self.ry {
            let n = k.cells();
            let (line, early) = (self.line, early as u32);
            let x = FluxSplit { k, early, w, hu, hv, bed, rw, rhu, rhv, rate, wet };
            let ry = ry.ptr_mut();
            let y_rate = rate.wrapping_add(line_slots(k.nx, k.ny, line));
            let (yw, yhu, yhv) = (ry, ry.wrapping_add(n), ry.wrapping_add(2 * n));
            let y = FluxSplit { k, early, w, hu, hv, bed, rw: yw, rhu: yhu, rhv: yhv, rate: y_rate, wet };
            let x_shape = LaunchShape::fixed((k.nx.div_ceil(line), k.ny, 1), (line, 1, 1))
                .with_shared_of::<T>((ks.line_shared)(line));
            let y_shape = self.block_shape()?.with_shared_of::<T>((ks.yblock_shared)(k.bx, k.by));
            // SAFETY: as the tile kernel's below, R's x part in r and its y part in ry (3·cells,
            // distinct from r and the inputs); rate holds line_slots(nx, ny, line) for the x-line
            // kernel then nbx·nby for the y-block one (flux_slots, in new); the x-line blocks are
            // `line` × 1 threads (a multiple of 32, checked in new) over (⌈nx/line⌉, ny), the
            // y-block ones the tile kernel's; shared memory their line_shared and yblock_shared
            // of the kernels' scheme (from the same FluxEntries).
            return unsafe {
                ks.x_line.launch(x_shape, x)?;
                ks.y_block.launch(y_shape, y)
            };
        }
        match self.flux_variant {
            FluxVariant::Tile => {
                let shape = self.block_shape()?.with_shared_of::<T>((ks.flux_shared)(self.k.bx, self.k.by));
                // SAFETY: w, hu, hv, rw, rhu, rhv are padded arrays of k.cells(), bed the corner
                // array, rate nbx·nby slots (checked in new) and wet nbx·nby flags; R distinct
                // from the inputs; blocks of k.bx × k.by (a multiple of 32, checked in new)
                // covering the interior; shared memory flux_shared::<S>(bx, by) T of the
                // kernels' scheme S (ks.flux_shared, from the same FluxEntries).
                unsafe {
                    if early {
                        let p = FluxTileEarly { k, w, hu, hv, bed, rw, rhu, rhv, rate, wet };
                        ks.flux_early.launch(shape, p)
                    } else {
                        ks.flux.launch(shape, FluxTile { k, w, hu, hv, bed, rw, rhu, rhv, rate })
                    }
                }
            }
            FluxVariant::Stream { warps, rows } => {
                let launch = |bands: Bands, stream: &CudaStream| {
                    let shape = stream_shape(&k, warps, bands);
                    // SAFETY: arrays as for the tile kernel; rate holds stream_slots(nx, ny,
                    // rows) (new, set_flux), each band writing its own; blocks of 32·warps
                    // threads, grid (⌈strips/warps⌉, the bands' count); no shared memory. Bands
                    // launched on two streams write disjoint rows of R and slots of the rate,
                    // and read a ghost row only after it arrived (`aside::stream_bands`).
                    unsafe {
                        if early {
                            let p = FluxStreamEarly { k, bands, w, hu, hv, bed, rw, rhu, rhv, rate, wet };
                            ks.flux_stream_early.launch_on(stream, shape, p)
                        } else {
                            let p = FluxStream { k, bands, w, hu, hv, bed, rw, rhu, rhv, rate };
                            ks.flux_stream.launch_on(stream, shape, p)
                        }
                    }
                };
                let aside = self.ghosts_aside.take_if(|q1| *q1 == from_q1).is_some();
                let state = if from_q1 { &mut self.q1 } else { &mut self.q };
                aside::stream_bands(
                    self.ranks.as_deref().map(|r| (&r.halo, &*r.gpu)),
                    &self.stream,
                    aside.then_some(state),
                    (k.ny, rows),
                    launch,
                )
            }
        }
    }

    /// Whether a step with flux kernel `kernel` runs RK2's second stage inside the streamed flux
    /// kernel (`set_fused`, RK2 on the streamed kernel without early exit: not SRK2, DS1, DS2,
    /// the tile kernel or the early-exit one, whose fused form measured slower than the two
    /// kernels apart, docs/kp-wet-dry-kernels.md).
    pub fn fuses(&self, kernel: FluxKernel) -> bool {
        self.fused
            && kernel == FluxKernel::Full
            && self.ry.is_none()
            && self.split.is_none()
            && matches!(self.flux_variant, FluxVariant::Stream { .. })
    }

    /// Run RK2's second stage inside the streamed flux kernel (`on`; steps without early exit)
    /// or as its own kernel after it, whatever `fuses_by_default` chose; both give the same
    /// result (the tests and `bench kp` compare them).
    pub fn set_fused(&mut self, on: bool) {
        self.fused = on;
    }

    /// RK2's second stage through the streamed flux kernel (`kp_flux_stream_rk`): R of Q¹
    /// applied to Qⁿ in place, and the output's flags (cleared first). In `clamp` the drain
    /// list's blocks keep R for the drain passes, and `rk_listed` updates them after.
    pub fn flux_rk(&mut self) -> Result<()> {
        let FluxVariant::Stream { warps, rows } = self.flux_variant else {
            return Err(Error::invalid("kp: the second stage runs in the streamed flux kernel only"));
        };
        if self.ghosts_aside == Some(false) {
            self.settle()?;
        }
        self.set_out_only(true)?;
        let k = self.stage_k(true);
        self.early = false;
        let out_map = (self.map(true) + 1) % 3;
        clear(&self.stream, &mut self.wet[out_map])?;
        if let Some(c) = &mut self.clamp {
            clear(&self.stream, &mut c.partial)?;
            clear(&self.stream, &mut c.shore)?;
        }
        let (uniform, soil, f) = self.in_stage(true);
        let (w, w0, rw) = (self.w_ptr(true), self.w_ptr_mut(false), self.rw_ptr_mut());
        let (hu, hv) = (self.q1[1].ptr(), self.q1[2].ptr());
        let [_, hu0, hv0] = self.q.each_mut().map(|b| b.ptr_mut());
        let [_, rhu, rhv] = self.r.each_mut().map(|r| r.ptr_mut());
        // w's low parts on the compensated path (never in mixed precision, whose surfaces are
        // f64: the fused kernel takes the compensated path wherever they are given).
        let (lo0, lo1) = match &mut self.low {
            Some([l0, l1]) => (l0.ptr_mut(), l1.ptr()),
            None => (std::ptr::null_mut(), std::ptr::null()),
        };
        let c = self.clamp.as_mut();
        let (hi, partial, shore, listed) = match c {
            Some(c) => (c.hi.ptr(), c.partial.ptr_mut(), c.shore.ptr_mut(), c.listed.ptr()),
            None => (std::ptr::null(), std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null()),
        };
        let params = FluxStreamRk {
            k,
            bands: Bands::all(k.ny, rows),
            w,
            hu,
            hv,
            bed: self.bed.ptr(),
            rw,
            rhu,
            rhv,
            dt: self.dt.ptr(),
            bc: self.cell_bed.ptr(),
            gn2: self.friction.as_ref().map_or(std::ptr::null(), |f| f.ptr()),
            w0,
            hu0,
            hv0,
            lo0,
            lo1,
            wet_out: self.wet[out_map].ptr_mut(),
            hi,
            partial,
            shore,
            listed,
            uniform,
            soil,
            f,
        };
        let ks = &self.kernels;
        let kernel = match &ks.forced {
            Some(r) if !params.uniform.is_null() => &r.flux_stream_rk,
            _ => &ks.flux_stream_rk,
        };
        let launch = |bands: Bands, stream: &CudaStream| {
            let shape = stream_shape(&k, warps, bands);
            // SAFETY: the streamed flux kernel's arrays and grid (`flux`); Qⁿ (w0, hu0, hv0,
            // lo0) is written in place and read only at each thread's own cell, distinct from Q¹
            // (w, hu, hv, lo1) and R; cell bed, g·n² (the field where the problem has one, else
            // null), B_hi padded arrays; the output's wet map nbx·nby flags, cleared just before
            // on the same stream with partial and shore (flags only set, so bands on two streams
            // may share a block's); listed nbx·nby flags from the lists kernel after stage 1, or
            // null outside clamp.
            unsafe { kernel.launch_on(stream, shape, FluxStreamRk { bands, ..params }) }
        };
        let aside = self.ghosts_aside.take_if(|q1| *q1).is_some();
        let state = aside.then_some(&mut self.q1);
        aside::stream_bands(
            self.ranks.as_deref().map(|r| (&r.halo, &*r.gpu)),
            &self.stream,
            state,
            (k.ny, rows),
            launch,
        )
    }

    /// Whether the flux kernel streams bands of the state's own precision (`FluxVariant::Stream`,
    /// not SRK2's or DS1/DS2's kernels, nor the mixed precision's): only then can a slab's ghost
    /// rows travel beside its inner bands.
    pub(super) fn streams_bands(&self) -> bool {
        matches!(self.flux_variant, FluxVariant::Stream { .. })
            && self.ry.is_none()
            && self.split.is_none()
            && self.mixed.is_none()
    }
}
