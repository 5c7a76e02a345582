//! GPU driver: the state lives on the device for the whole run, and so does the clock. A step
//! launches flux → (block maxima → device-wide max → Δt) → RK stage 1 → boundary, then for RK2
//! flux → RK stage 2 → boundary; Δt is computed on the device and never read back by a step.

use super::{Problem, Scheme};
use crate::foundation::ReduceOp;
use crate::foundation::gpu::{Reducer, fill};
use crate::runtime::{ByVal, DeviceBuffer, Gpu, LaunchShape};
use crate::{Error, GpuReal, Result};
use ::gpu::kp::{
    CLOCK_DT, CLOCK_LEN, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Clock, Coeffs, flux_shared, ghosts_x, ghosts_y,
};

/// Launch parameters (run-time): the flux/RK block in cells (threads), a multiple of 32 threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub block: (u32, u32),
}

impl Default for Launch {
    fn default() -> Self {
        Launch { block: (32, 8) }
    }
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

/// The device state of one run.
pub struct GpuKp<T: GpuReal> {
    k: Coeffs<T>,
    scheme: Scheme,
    clock_params: Clock,
    bed: DeviceBuffer<T>,
    cell_bed: DeviceBuffer<T>,
    q: [DeviceBuffer<T>; 3],
    q1: [DeviceBuffer<T>; 3],
    r: [DeviceBuffer<T>; 3],
    rate: DeviceBuffer<T>,
    wet: DeviceBuffer<u32>,
    dt: DeviceBuffer<T>,
    clock: DeviceBuffer<f64>,
    reducer: Reducer<T>,
}

/// Which flux kernel a step uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluxKernel {
    Full,
    EarlyExit,
}

impl<T: GpuReal> GpuKp<T> {
    /// Validate, check that the fields fit, upload, set the ghosts and the wet map.
    pub fn new(gpu: &Gpu, problem: &Problem, launch: Launch) -> Result<GpuKp<T>> {
        problem.validate()?;
        let (bx, by) = launch.block;
        if bx == 0 || by == 0 || (bx * by) % 32 != 0 || bx * by > 1024 {
            return Err(Error::invalid(format!(
                "block {bx}×{by}: the flux and RK kernels need a multiple of 32 threads, at most 1024"
            )));
        }
        let n = problem.padded_cells();
        let w = std::mem::size_of::<T>();
        gpu.check_fits(
            &format!("a {}×{} shallow-water grid (11 fields of {})", problem.nx, problem.ny, T::NAME),
            11 * n * w + (problem.nx + 5) * (problem.ny + 5) * w,
        )?;
        let k = problem.coeffs::<T>(launch.block);
        let bed = problem.padded_bed::<T>();
        let cell_bed = problem.padded_cell_bed(&bed);
        let (mut hw, mut hu, mut hv) = problem.padded_state(&cell_bed);
        super::cpu::apply_boundary(&k, &mut hw, &mut hu, &mut hv, &cell_bed);
        let wet: Vec<u32> = super::cpu::wet_map(&k, &hw, &cell_bed).into_iter().map(u32::from).collect();
        let blocks = (k.nbx * k.nby) as usize;
        Ok(GpuKp {
            k,
            scheme: problem.scheme,
            clock_params: Clock { cfl: problem.cfl, t_stop: f64::INFINITY, dt_floor: problem.dt_floor },
            bed: gpu.upload(&bed)?,
            cell_bed: gpu.upload(&cell_bed)?,
            q1: [gpu.upload(&hw)?, gpu.upload(&hu)?, gpu.upload(&hv)?],
            q: [gpu.upload(&hw)?, gpu.upload(&hu)?, gpu.upload(&hv)?],
            r: [gpu.zeros(n)?, gpu.zeros(n)?, gpu.zeros(n)?],
            rate: gpu.zeros(blocks)?,
            wet: gpu.upload(&wet)?,
            dt: gpu.zeros(1)?,
            clock: gpu.zeros(CLOCK_LEN)?,
            reducer: Reducer::new(gpu)?,
        })
    }

    pub fn coeffs(&self) -> &Coeffs<T> {
        &self.k
    }

    /// Steps cap Δt at the time left to `t_stop` (then take Δt = 0).
    pub fn set_stop(&mut self, t_stop: f64) {
        self.clock_params.t_stop = t_stop;
    }

    /// Fill R, the stage buffer, the rates and Δt with NaN, so that anything a kernel fails to
    /// write shows up (the equivalence tests call this before launches).
    pub fn poison(&mut self, gpu: &Gpu) -> Result<()> {
        for b in self.r.iter_mut().chain(self.q1.iter_mut()) {
            fill(gpu, b, T::NAN)?;
        }
        fill(gpu, &mut self.rate, T::NAN)?;
        fill(gpu, &mut self.dt, T::NAN)
    }

    fn block_shape(&self) -> Result<LaunchShape> {
        LaunchShape::cover_2d(self.k.nx as u64, self.k.ny as u64, (self.k.bx, self.k.by), (1, 1))
    }

    /// R of `q` (stage 1) or `q1` (stage 2) and the per-block rates.
    pub fn flux(&mut self, gpu: &Gpu, kernel: FluxKernel, from_q1: bool) -> Result<()> {
        let shape = self.block_shape()?.with_shared_of::<T>(flux_shared(self.k.bx, self.k.by));
        let stem = match kernel {
            FluxKernel::Full => "kp_flux",
            FluxKernel::EarlyExit => "kp_flux_early",
        };
        let f = gpu.kernel::<T>(stem)?;
        let k = ByVal(self.k);
        let src = if from_q1 { &self.q1 } else { &self.q };
        let mut l = f.launch(shape)?;
        l.arg(&k).arg(&src[0]).arg(&src[1]).arg(&src[2]).arg(&self.bed);
        l.arg(&self.r[0]).arg(&self.r[1]).arg(&self.r[2]).arg(&self.rate);
        if kernel == FluxKernel::EarlyExit {
            l.arg(&self.wet);
        }
        // SAFETY: kp_flux[_early](k, w, hu, hv, bed, rw, rhu, rhv, rate[, wet]): padded arrays of
        // k.cells(), the corner array, rate and wet of nbx·nby; R distinct from the inputs; blocks
        // of k.bx × k.by (a multiple of 32, checked in new) covering the interior; shared
        // memory flux_shared(bx, by) T.
        unsafe { l.run() }
    }

    /// Device-wide max of the rates, then Δt and the clock on the device.
    pub fn time_step(&mut self, gpu: &Gpu) -> Result<()> {
        let n = self.rate.len();
        self.reducer.enqueue(gpu, ReduceOp::Max, &self.rate, n)?;
        let f = gpu.kernel::<T>("kp_dt")?;
        let c = ByVal(self.clock_params);
        let mut l = f.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)))?;
        l.arg(&c).arg(self.reducer.result()).arg(&self.dt).arg(&self.clock);
        // SAFETY: kp_dt(c, rate, dt, clock): rate = the reducer's 1-element result, dt of 1,
        // clock of CLOCK_LEN; thread 0 alone writes.
        unsafe { l.run() }
    }

    /// RK stage 1 (q → q1) or 2 (q ← ½(q + E(q1))), with the wet map.
    pub fn rk(&mut self, gpu: &Gpu, stage: u32) -> Result<()> {
        let shape = self.block_shape()?.with_shared_of::<T>(32);
        let f = gpu.kernel::<T>("kp_rk")?;
        let k = ByVal(self.k);
        let mut l = f.launch(shape)?;
        l.arg(&k).arg(&stage).arg(&self.dt).arg(&self.cell_bed);
        if stage == 1 {
            l.arg(&self.q[0]).arg(&self.q[1]).arg(&self.q[2]);
            l.arg(&self.q[0]).arg(&self.q[1]).arg(&self.q[2]);
            l.arg(&self.r[0]).arg(&self.r[1]).arg(&self.r[2]);
            l.arg(&self.q1[0]).arg(&self.q1[1]).arg(&self.q1[2]);
        } else {
            l.arg(&self.q[0]).arg(&self.q[1]).arg(&self.q[2]);
            l.arg(&self.q1[0]).arg(&self.q1[1]).arg(&self.q1[2]);
            l.arg(&self.r[0]).arg(&self.r[1]).arg(&self.r[2]);
            l.arg(&self.q[0]).arg(&self.q[1]).arg(&self.q[2]);
        }
        l.arg(&self.wet);
        // SAFETY: kp_rk(k, stage, dt, bc, q0, q1, r, out, wet): padded arrays of k.cells(); out
        // is q1 (stage 1, distinct from every input) or q (stage 2, aliasing only q0, which the
        // kernel allows); wet of nbx·nby; same blocks as the flux kernel; 32 T shared.
        unsafe { l.run() }
    }

    /// Both ghost passes on `q` (or `q1`).
    pub fn boundary(&mut self, gpu: &Gpu, on_q1: bool) -> Result<()> {
        let f = gpu.kernel::<T>("kp_boundary")?;
        let k = ByVal(self.k);
        for (axis, count) in [(0u32, ghosts_x(self.k.ny)), (1u32, ghosts_y(self.k.nx))] {
            let dst = if on_q1 { &self.q1 } else { &self.q };
            let mut l = f.launch(LaunchShape::cover_1d(count as u64, 128)?)?;
            l.arg(&k).arg(&axis).arg(&dst[0]).arg(&dst[1]).arg(&dst[2]).arg(&self.cell_bed);
            // SAFETY: kp_boundary(k, axis, w, hu, hv, bc): padded arrays; one thread per ghost of
            // the pass, each writing only its ghost (sources are interior cells or, in pass 1,
            // ghosts set by pass 0, which ran before on the same stream).
            unsafe { l.run()? };
        }
        Ok(())
    }

    /// One whole step: Δt on the device, then Euler or RK2.
    pub fn step(&mut self, gpu: &Gpu, kernel: FluxKernel) -> Result<()> {
        self.flux(gpu, kernel, false)?;
        self.time_step(gpu)?;
        self.rk(gpu, 1)?;
        self.boundary(gpu, true)?;
        match self.scheme {
            Scheme::Euler => {
                self.q.swap_with_slice(&mut self.q1);
            }
            Scheme::Rk2 => {
                self.flux(gpu, kernel, true)?;
                self.rk(gpu, 2)?;
                self.boundary(gpu, false)?;
            }
        }
        Ok(())
    }

    /// The clock (synchronises).
    pub fn clock(&self, gpu: &Gpu) -> Result<ClockState> {
        let c = gpu.download(&self.clock)?;
        Ok(ClockState { t: c[CLOCK_T], dt: c[CLOCK_DT], status: c[CLOCK_STATUS] as u32, steps: c[CLOCK_STEPS] as u64 })
    }

    /// Padded (w, hu, hv) on the host.
    pub fn download(&self, gpu: &Gpu) -> Result<[Vec<T>; 3]> {
        Ok([gpu.download(&self.q[0])?, gpu.download(&self.q[1])?, gpu.download(&self.q[2])?])
    }
    /// The last R (padded), the per-block rates and the wet map.
    pub fn download_residual(&self, gpu: &Gpu) -> Result<Residual<T>> {
        Ok(Residual {
            r: [gpu.download(&self.r[0])?, gpu.download(&self.r[1])?, gpu.download(&self.r[2])?],
            rates: gpu.download(&self.rate)?,
            wet: gpu.download(&self.wet)?,
        })
    }
    /// Padded cell beds (as uploaded).
    pub fn cell_bed(&self, gpu: &Gpu) -> Result<Vec<T>> {
        gpu.download(&self.cell_bed)
    }
}
