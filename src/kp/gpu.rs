//! GPU driver: the state lives on the device for the whole run, and so does the clock. A step
//! launches flux → (block maxima → device-wide max → Δt) → RK stage 1 → boundary, then for RK2
//! flux → RK stage 2 → boundary; Δt is computed on the device and never read back by a step.

use super::{Problem, Scheme};
use crate::foundation::ReduceOp;
use crate::foundation::gpu::{Reducer, fill};
use crate::runtime::{ByVal, DeviceBuffer, Gpu, LaunchShape};
use crate::{Error, GpuReal, Result};
use kernels::kp::{
    CLOCK_DT, CLOCK_LEN, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Clock, Coeffs, flux_shared, ghosts_x, ghosts_y,
    stream_slots, stream_strips,
};

/// Launch parameters (run-time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The RK kernel's block in cells (threads), a multiple of 32 threads; also the tile of the
    /// wet map (one flag a block) and the tile flux kernel's block.
    pub block: (u32, u32),
    /// How the flux kernel divides the grid.
    pub flux: FluxVariant,
}

impl Default for Launch {
    fn default() -> Self {
        Launch { block: (32, 8), flux: FluxVariant::STREAM }
    }
}

/// The flux kernel's decomposition; both give the same R, rates aside (per block or per warp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluxVariant {
    /// Seed 003's kernel: one thread a cell on a 2D shared-memory tile of `Launch::block`.
    Tile,
    /// Warps streaming up strips of 28 columns, `rows` rows each, `warps` warps a block
    /// (`gpu/src/kp/stream.rs`).
    Stream { warps: u32, rows: u32 },
}

impl FluxVariant {
    /// The default streamed shape.
    pub const STREAM: FluxVariant = FluxVariant::Stream { warps: 4, rows: 32 };

    /// Rate slots the kernel writes on an nx×ny grid with RK blocks of `block`.
    pub fn slots(&self, nx: u32, ny: u32, block: (u32, u32)) -> usize {
        match *self {
            FluxVariant::Tile => nx.div_ceil(block.0) as usize * ny.div_ceil(block.1) as usize,
            FluxVariant::Stream { rows, .. } => stream_slots(nx, ny, rows),
        }
    }

    /// A streamed shape needs 1–32 warps a block and rows ≥ 1 with at most 65535 bands.
    pub fn check(&self, ny: usize) -> Result<()> {
        match *self {
            FluxVariant::Stream { warps, rows }
                if !(1..=32).contains(&warps) || rows == 0 || ny.div_ceil(rows as usize) > 65535 =>
            {
                Err(Error::invalid(format!(
                    "streamed flux kernel {warps}×{rows}: needs 1–32 warps a block and 1 ≤ rows with ⌈ny/rows⌉ ≤ 65535"
                )))
            }
            _ => Ok(()),
        }
    }

    pub fn describe(&self) -> String {
        match *self {
            FluxVariant::Tile => "tile".into(),
            FluxVariant::Stream { warps, rows } => format!("stream {warps}×{rows}"),
        }
    }
}

impl std::str::FromStr for FluxVariant {
    type Err = Error;
    /// `tile`, `stream` (the default shape) or `stream:WARPSxROWS`.
    fn from_str(s: &str) -> Result<FluxVariant> {
        let bad = || {
            Error::invalid(format!(
                "unknown flux kernel '{s}' (expected tile, stream or stream:WxR with 1–32 warps a block and R ≥ 1 rows)"
            ))
        };
        match s {
            "tile" => Ok(FluxVariant::Tile),
            "stream" => Ok(FluxVariant::STREAM),
            _ => {
                let shape = s.strip_prefix("stream:").ok_or_else(bad)?;
                let (w, r) = shape.split_once(['x', '×']).ok_or_else(bad)?;
                let (warps, rows) = (w.parse::<u32>().map_err(|_| bad())?, r.parse::<u32>().map_err(|_| bad())?);
                if !(1..=32).contains(&warps) || rows == 0 {
                    return Err(bad());
                }
                Ok(FluxVariant::Stream { warps, rows })
            }
        }
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
    flux_variant: FluxVariant,
    /// Rate slots the flux kernel writes (the Δt reduction reads exactly these).
    slots: usize,
    scheme: Scheme,
    clock_params: Clock,
    bed: DeviceBuffer<T>,
    cell_bed: DeviceBuffer<T>,
    q: [DeviceBuffer<T>; 3],
    q1: [DeviceBuffer<T>; 3],
    r: [DeviceBuffer<T>; 3],
    rate: DeviceBuffer<T>,
    /// Wet maps, rotating: `wet[cur]` is the map of Qⁿ (stage 1's flux reads it), the next one
    /// Q¹'s (stage 2's flux), the one after Qⁿ⁺¹'s; the RK kernels of an early-exit step read
    /// the older ones to know which blocks they may skip.
    wet: [DeviceBuffer<u32>; 3],
    cur: usize,
    /// Whether the last flux launch was the early-exit one (its R is unwritten where inactive).
    early: bool,
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
        launch.flux.check(problem.ny)?;
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
        super::cpu::clean_state(&k, &mut hw, &mut hu, &mut hv, &cell_bed);
        super::cpu::apply_boundary(&k, &mut hw, &mut hu, &mut hv, &cell_bed);
        let wet: Vec<u32> = super::cpu::wet_map(&k, &hw, &cell_bed).into_iter().map(u32::from).collect();
        let slots = launch.flux.slots(k.nx, k.ny, launch.block);
        Ok(GpuKp {
            k,
            flux_variant: launch.flux,
            slots,
            scheme: problem.scheme,
            clock_params: Clock { cfl: problem.cfl, t_stop: f64::INFINITY, dt_floor: problem.dt_floor },
            bed: gpu.upload(&bed)?,
            cell_bed: gpu.upload(&cell_bed)?,
            q1: [gpu.upload(&hw)?, gpu.upload(&hu)?, gpu.upload(&hv)?],
            q: [gpu.upload(&hw)?, gpu.upload(&hu)?, gpu.upload(&hv)?],
            r: [gpu.zeros(n)?, gpu.zeros(n)?, gpu.zeros(n)?],
            rate: gpu.zeros(slots)?,
            wet: [gpu.upload(&wet)?, gpu.upload(&wet)?, gpu.upload(&wet)?],
            cur: 0,
            early: false,
            dt: gpu.zeros(1)?,
            clock: gpu.zeros(CLOCK_LEN)?,
            reducer: Reducer::new(gpu)?,
        })
    }

    /// Switch the flux kernel (the benchmarks compare them on one state).
    pub fn set_flux(&mut self, gpu: &Gpu, flux: FluxVariant) -> Result<()> {
        flux.check(self.k.ny as usize)?;
        let slots = flux.slots(self.k.nx, self.k.ny, (self.k.bx, self.k.by));
        if slots > self.rate.len() {
            self.rate = gpu.zeros(slots)?;
        }
        self.flux_variant = flux;
        self.slots = slots;
        Ok(())
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

    /// R of `q` (stage 1) or `q1` (stage 2) and the per-block (tile) or per-warp (stream) rates.
    pub fn flux(&mut self, gpu: &Gpu, kernel: FluxKernel, from_q1: bool) -> Result<()> {
        let k = ByVal(self.k);
        let src = if from_q1 { &self.q1 } else { &self.q };
        let early = kernel == FluxKernel::EarlyExit;
        self.early = early;
        let wet = &self.wet[self.map(from_q1)];
        match self.flux_variant {
            FluxVariant::Tile => {
                let shape = self.block_shape()?.with_shared_of::<T>(flux_shared(self.k.bx, self.k.by));
                let f = gpu.kernel::<T>(if early { "kp_flux_early" } else { "kp_flux" })?;
                let mut l = f.launch(shape)?;
                l.arg(&k).arg(&src[0]).arg(&src[1]).arg(&src[2]).arg(&self.bed);
                l.arg(&self.r[0]).arg(&self.r[1]).arg(&self.r[2]).arg(&self.rate);
                if early {
                    l.arg(wet);
                }
                // SAFETY: kp_flux[_early](k, w, hu, hv, bed, rw, rhu, rhv, rate[, wet]): padded
                // arrays of k.cells(), the corner array, rate of nbx·nby slots (checked in new) and
                // wet of nbx·nby; R distinct from the inputs; blocks of k.bx × k.by (a multiple of
                // 32, checked in new) covering the interior; shared memory flux_shared(bx, by) T.
                unsafe { l.run() }
            }
            FluxVariant::Stream { warps, rows } => {
                let grid = (stream_strips(self.k.nx).div_ceil(warps), self.k.ny.div_ceil(rows), 1);
                let shape = LaunchShape::fixed(grid, (32 * warps, 1, 1));
                let f = gpu.kernel::<T>(if early { "kp_flux_stream_early" } else { "kp_flux_stream" })?;
                let mut l = f.launch(shape)?;
                l.arg(&k).arg(&rows).arg(&src[0]).arg(&src[1]).arg(&src[2]).arg(&self.bed);
                l.arg(&self.r[0]).arg(&self.r[1]).arg(&self.r[2]).arg(&self.rate);
                if early {
                    l.arg(wet);
                }
                // SAFETY: kp_flux_stream[_early](k, rows, w, hu, hv, bed, rw, rhu, rhv, rate[, wet]):
                // arrays as for the tile kernel; rate holds stream_slots(nx, ny, rows) (new); blocks
                // of 32·warps threads, grid (⌈strips/warps⌉, ⌈ny/rows⌉); no shared memory.
                unsafe { l.run() }
            }
        }
    }

    /// Device-wide max of the rates, then Δt and the clock on the device.
    pub fn time_step(&mut self, gpu: &Gpu) -> Result<()> {
        self.reducer.enqueue(gpu, ReduceOp::Max, &self.rate, self.slots)?;
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
        let early = self.early as u32;
        l.arg(&k).arg(&stage).arg(&early).arg(&self.dt).arg(&self.cell_bed);
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
        let (m0, m_in) = (self.map(false), self.map(stage == 2));
        l.arg(&self.wet[m0]).arg(&self.wet[m_in]).arg(&self.wet[(m_in + 1) % 3]);
        // SAFETY: kp_rk(k, stage, early, dt, bc, q0, q1, r, out, wet_m0, wet_in, wet_out): padded
        // arrays of k.cells(); out is q1 (stage 1, distinct from every input) or q (stage 2,
        // aliasing only q0, which the kernel allows); three wet maps of nbx·nby, wet_out distinct
        // from the other two; same blocks as the flux kernel; 32 T shared.
        unsafe { l.run() }
    }

    /// Index of the wet map of Qⁿ (`stage2` false) or of Q¹ (true).
    fn map(&self, stage2: bool) -> usize {
        (self.cur + stage2 as usize) % 3
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
                self.cur = (self.cur + 1) % 3;
            }
            Scheme::Rk2 => {
                self.flux(gpu, kernel, true)?;
                self.rk(gpu, 2)?;
                self.boundary(gpu, false)?;
                self.cur = (self.cur + 2) % 3;
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
    /// The last R (padded; after an early-exit flux, unwritten where the block was inactive), the
    /// rates and the wet map of Qⁿ.
    pub fn download_residual(&self, gpu: &Gpu) -> Result<Residual<T>> {
        Ok(Residual {
            r: [gpu.download(&self.r[0])?, gpu.download(&self.r[1])?, gpu.download(&self.r[2])?],
            rates: gpu.download(&self.rate)?.into_iter().take(self.slots).collect(),
            wet: gpu.download(&self.wet[self.cur])?,
        })
    }
    /// Fraction of the wet-map tiles that are wet (synchronises).
    pub fn wet_fraction(&self, gpu: &Gpu) -> Result<f64> {
        let wet = gpu.download(&self.wet[self.cur])?;
        Ok(wet.iter().filter(|&&f| f != 0).count() as f64 / wet.len().max(1) as f64)
    }

    /// Padded cell beds (as uploaded).
    pub fn cell_bed(&self, gpu: &Gpu) -> Result<Vec<T>> {
        gpu.download(&self.cell_bed)
    }
}
