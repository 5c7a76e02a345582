//! The state and clock on the host: downloads, restores from a checkpoint, and what the
//! products and the forcing read.

use super::*;

impl<T: GpuReal> GpuKp<T> {
    /// The clock (synchronises).
    pub fn clock(&self, gpu: &Gpu) -> Result<ClockState> {
        let c = gpu.download(&self.clock)?;
        Ok(ClockState { t: c[CLOCK_T], dt: c[CLOCK_DT], status: c[CLOCK_STATUS] as u32, steps: c[CLOCK_STEPS] as u64 })
    }

    /// The wet map of Qⁿ (synchronises).
    pub fn wet_map(&self, gpu: &Gpu) -> Result<Vec<u32>> {
        gpu.download(&self.wet[self.cur])
    }

    /// Continue from padded (w, hu, hv), the wet map of that state and the clock, as
    /// [`download`](Self::download), [`wet_map`](Self::wet_map) and [`clock`](Self::clock) gave
    /// them of a run of the same problem and launch. A step reads no other buffer before it
    /// writes it (R, Q¹, the rates and Δt), and only Qⁿ's wet map of the three (in `clamp`, the
    /// passes' flags and lists are made again from Qⁿ). On the compensated path w's low part is
    /// `low` ([`download_low`](Self::download_low)), or 0 without one (a plain run's state).
    pub fn resume(&mut self, gpu: &Gpu, q: [&[T]; 3], low: Option<&[T]>, wet: &[u32], clock: ClockState) -> Result<()> {
        self.join_account()?;
        for (dst, src) in self.q.iter_mut().zip(q) {
            gpu.write(src, dst)?;
        }
        if let Some([lo, _]) = &mut self.low {
            match low {
                Some(src) => gpu.write(src, lo)?,
                None => self.kernels.buffers.fill(lo, T::ZERO)?,
            }
        }
        for map in &mut self.wet {
            gpu.write(wet, map)?;
        }
        self.cur = 0;
        // The split schemes' slots are set by `resume_split`.
        let mut c = vec![0.0; self.clock.len()];
        c[CLOCK_T] = clock.t;
        c[CLOCK_DT] = clock.dt;
        c[CLOCK_STATUS] = clock.status as f64;
        c[CLOCK_STEPS] = clock.steps as f64;
        gpu.write(&c, &mut self.clock)?;
        self.set_shore(gpu, q[0])
    }

    /// Padded (w, hu, hv) on the host (in mixed precision w is `download_mixed`'s: this one's
    /// is unused).
    pub fn download(&self, gpu: &Gpu) -> Result<[Vec<T>; 3]> {
        Ok([gpu.download(&self.q[0])?, gpu.download(&self.q[1])?, gpu.download(&self.q[2])?])
    }
    /// On the compensated path, w's low part of Qⁿ (padded; the surface is w + low).
    pub fn download_low(&self, gpu: &Gpu) -> Result<Option<Vec<T>>> {
        self.low.as_ref().map(|[lo, _]| gpu.download(lo)).transpose()
    }
    /// The padded (w, hu, hv) on the device, and w's low part on the compensated path, for
    /// copies.
    pub fn state_buffers(&self) -> Vec<&DeviceBuffer<T>> {
        self.q.iter().chain(self.low.iter().map(|[lo, _]| lo)).map(|f| f.buffer()).collect()
    }
    /// The padded fields of (w, hu, hv) on the device.
    pub fn state_fields(&self) -> &[DeviceField2<T>; 3] {
        &self.q
    }
    /// The interiors of (w, hu, hv), row-major (synchronises).
    pub fn interiors(&self, gpu: &Gpu) -> Result<[Vec<T>; 3]> {
        Ok([self.q[0].interior(gpu)?, self.q[1].interior(gpu)?, self.q[2].interior(gpu)?])
    }
    /// The last R (padded; after an early-exit flux, unwritten where the block was inactive), the
    /// rates and the wet map of Qⁿ.
    pub fn download_residual(&self, gpu: &Gpu) -> Result<Residual<T>> {
        let mut r = [gpu.download(&self.r[0])?, gpu.download(&self.r[1])?, gpu.download(&self.r[2])?];
        if let Some(ry) = &self.ry {
            // SRK2: the x part plus the y part, as the RK kernel adds them.
            let y = gpu.download(ry)?;
            for (x, y) in r.iter_mut().zip(y.chunks(self.k.cells())) {
                x.iter_mut().zip(y).for_each(|(a, b)| *a += *b);
            }
        }
        Ok(Residual {
            r,
            rates: gpu.download(&self.rate)?.into_iter().take(self.slots).collect(),
            wet: gpu.download(&self.wet[self.cur])?,
        })
    }
    /// Fraction of the wet-map tiles that are wet (synchronises).
    pub fn wet_fraction(&self, gpu: &Gpu) -> Result<f64> {
        let wet = gpu.download(&self.wet[self.cur])?;
        Ok(wet.iter().filter(|&&f| f != 0).count() as f64 / wet.len().max(1) as f64)
    }

    /// What the products kernel reads after a step: the padded (w, cell bed, hu, hv), and the
    /// device clock (t at `CLOCK_T`, steps at `CLOCK_STEPS`). In the mixed precision w is the
    /// f64 field (`GpuProducts::reading_mixed` reads it so).
    pub fn product_inputs(&self) -> ([*const T; 4], &DeviceBuffer<f64>) {
        ([self.w_ptr(false), self.cell_bed.ptr(), self.q[1].ptr(), self.q[2].ptr()], &self.clock)
    }

    /// With forcing, the time it has been applied up to and the depth each cell's soil has
    /// taken (padded; `None` without a soil), on the host (synchronises).
    pub fn forcing_state(&self, gpu: &Gpu) -> Result<Option<(f64, Option<Vec<T>>)>> {
        self.forcing.as_ref().map(|f| f.download(gpu)).transpose()
    }

    /// Continue the forcing from [`forcing_state`](Self::forcing_state)'s values (nothing
    /// without forcing).
    pub fn resume_forcing(&mut self, gpu: &Gpu, forced: f64, infiltrated: Option<&[T]>) -> Result<()> {
        match &mut self.forcing {
            Some(f) => {
                f.resume(gpu, forced, infiltrated)?;
                // The ghosts at the resumed clock's levels.
                if f.sets_ghosts() { self.boundary(false) } else { Ok(()) }
            }
            None => Ok(()),
        }
    }

    /// The device buffer of the soil's totals (padded; `None` without a soil), as
    /// [`forcing_state`](Self::forcing_state) downloads it.
    pub fn soil_buffer(&self) -> Option<&DeviceBuffer<T>> {
        self.forcing.as_ref().and_then(|f| f.infiltrated())
    }

    /// Padded cell beds (as uploaded).
    pub fn cell_bed(&self, gpu: &Gpu) -> Result<Vec<T>> {
        gpu.download(&self.cell_bed)
    }
}
