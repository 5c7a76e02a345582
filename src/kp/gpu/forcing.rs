//! The forcing on the GPU (`super::super::forcing`): the layout's arrays uploaded once — the
//! gridded rain's frames all of them, at the rain grid's resolution, after a check that they
//! fit — and after each step three launches on the model's stream: the clock kernel
//! integrating every series over the span the step advanced, the inflow cells, and (with rain
//! or a soil) every cell. The step's uniform forcing (`Layout::fused`: uniform rain, a uniform
//! Green–Ampt soil) acts inside its last RK stage instead: a one-thread kernel gives the rain's
//! depth and the span over the step as soon as Δt is known.
//! Nothing comes from the host during a run.

use crate::forcing::DeviceCellArrays;
use crate::kp::forcing::Layout;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{GpuReal, Result};
use kernels::forcing::{GREEN_AMPT, HORTON, Soil};
use kernels::kp::{
    CLOCK_LEN, CLOCK_T, CellForcing, Coeffs, FORCE_CLOCK, FORCE_GREEN_AMPT, FORCE_HORTON, FORCE_INFLOW, FORCE_RAIN,
    FORCE_STAGE, FORCED_LEN, FORCED_T, ForceCells, ForceClock, ForceInflow, ForceStage, SeriesSet, force_rows,
};

/// The forcing's device arrays and kernels.
pub struct GpuForcing<T: GpuReal> {
    series: SeriesSet,
    cell_forcing: CellForcing<T>,
    every_cell: bool,
    times: DeviceBuffer<f64>,
    values: DeviceBuffer<f64>,
    starts: DeviceBuffer<u32>,
    amounts: DeviceBuffer<f64>,
    /// The gridded rain and the soils.
    per_cell: DeviceCellArrays<T>,
    /// The forcing clock (`FORCED_*`) and the last span's length in `T`.
    forced: DeviceBuffer<f64>,
    span: DeviceBuffer<T>,
    /// With `Layout::fused`, the rain's depth and the span of the step in progress.
    uniform: Option<DeviceBuffer<T>>,
    inflow_count: u32,
    cells: DeviceBuffer<u32>,
    cell_starts: DeviceBuffer<u32>,
    cell_series: DeviceBuffer<u32>,
    weights: DeviceBuffer<f64>,
    /// The depth each cell's soil has taken (padded), with a soil.
    infiltrated: Option<DeviceBuffer<T>>,
    /// The held levels' values at the forcing clock's time, and their map (with levels).
    levels: DeviceBuffer<f64>,
    level_map: Option<DeviceBuffer<u32>>,
    layout: Layout,
    clock_kernel: Kernel<ForceClock<T>>,
    inflow_kernel: Kernel<ForceInflow<T>>,
    cells_kernel: Kernel<ForceCells<T>>,
    stage_kernel: Kernel<ForceStage<T>>,
}

/// Device pointers of the padded state the forcing acts on (after a step: Qⁿ).
pub struct Target<T> {
    pub w: *mut T,
    /// w's low part, or null on the plain path.
    pub lo: *mut T,
    pub hu: *mut T,
    pub hv: *mut T,
    pub cell_bed: *const T,
    pub wet: *mut u32,
}

impl<T: GpuReal> GpuForcing<T> {
    /// `cells`: the padded state's length. The levels' values at t = 0 come from the clock
    /// kernel, as every later step's and a restored run's do.
    pub fn new(gpu: &Gpu, layout: &Layout, cells: usize) -> Result<GpuForcing<T>> {
        let mut f = GpuForcing {
            series: layout.series_set(),
            cell_forcing: layout.cell_forcing::<T>(),
            every_cell: layout.touches_every_cell(),
            times: gpu.upload_or_zero(&layout.times)?,
            values: gpu.upload_or_zero(&layout.values)?,
            starts: gpu.upload(&layout.starts)?,
            amounts: gpu.zeros(layout.series().max(1))?,
            per_cell: DeviceCellArrays::upload(gpu, &layout.per_cell)?,
            levels: gpu.zeros(layout.series().saturating_sub(layout.level_first as usize).max(1))?,
            level_map: (!layout.level_map.is_empty()).then(|| gpu.upload(&layout.level_map)).transpose()?,
            layout: layout.clone(),
            forced: gpu.zeros(FORCED_LEN)?,
            span: gpu.zeros(1)?,
            uniform: layout.fused.then(|| gpu.zeros(2)).transpose()?,
            inflow_count: layout.cells.len() as u32,
            cells: gpu.upload_or_zero(&layout.cells)?,
            cell_starts: gpu.upload(&layout.cell_starts)?,
            cell_series: gpu.upload_or_zero(&layout.cell_series)?,
            weights: gpu.upload_or_zero(&layout.weights)?,
            infiltrated: layout.has_soil().then(|| gpu.zeros(cells)).transpose()?,
            clock_kernel: gpu.kernel::<T, _>(FORCE_CLOCK)?,
            inflow_kernel: gpu.kernel::<T, _>(FORCE_INFLOW)?,
            cells_kernel: gpu.kernel::<T, _>(match layout.per_cell.soil_model {
                GREEN_AMPT => FORCE_GREEN_AMPT,
                HORTON => FORCE_HORTON,
                _ => FORCE_RAIN,
            })?,
            stage_kernel: gpu.kernel::<T, _>(FORCE_STAGE)?,
        };
        f.resume(gpu, 0.0, None)?;
        Ok(f)
    }

    /// The held levels' values and the map of levels and outlets for the boundary kernel, or
    /// nulls without either.
    pub fn ghosts(&self) -> (*const f64, *const u32) {
        match &self.level_map {
            Some(map) => (self.levels.ptr(), map.ptr()),
            None => (std::ptr::null(), std::ptr::null()),
        }
    }

    /// Whether levels or outlets set some ghosts (the boundary kernel reads the map).
    pub fn sets_ghosts(&self) -> bool {
        self.level_map.is_some()
    }

    /// Whether the gridded rain's frames fit the device, all of them: refused in one line naming
    /// them, before the model's own memory is counted with them.
    pub fn check_frames(gpu: &Gpu, layout: &Layout) -> Result<()> {
        if layout.frames() == 0 {
            return Ok(());
        }
        gpu.check_fits(
            &format!(
                "the rain grids' {} frames of {} rain cells (forcing.rain)",
                layout.frames(),
                layout.per_cell.frame_stride
            ),
            4 * (layout.per_cell.frames.len() + layout.per_cell.rain_cells.len()),
        )
    }

    /// Bytes of device memory it takes beyond the state, for a layout on `cells` padded cells.
    pub fn bytes(layout: &Layout, cells: usize) -> usize {
        let t = std::mem::size_of::<T>();
        16 * layout.times.len()
            + 4 * (layout.starts.len() + layout.cells.len() + layout.cell_starts.len() + layout.cell_series.len())
            + 8 * layout.weights.len()
            + layout.per_cell.bytes::<T>()
            + if layout.has_soil() { cells * t } else { 0 }
    }

    /// With `Layout::fused`, the rain's depth and the span of the step the model clock `clock`
    /// has just taken, for the step's last RK stage (enqueued; `kernels::kp::kp_force_stage`);
    /// nothing otherwise.
    pub fn stage_amounts(&mut self, clock: &DeviceBuffer<f64>) -> Result<()> {
        let Some(uniform) = &mut self.uniform else { return Ok(()) };
        let params = ForceStage {
            rain: self.layout.rain,
            clock: clock.ptr(),
            forced: self.forced.ptr(),
            times: self.times.ptr(),
            values: self.values.ptr(),
            starts: self.starts.ptr(),
            uniform: uniform.ptr_mut(),
        };
        // SAFETY: one thread; clock holds CLOCK_LEN slots, forced FORCED_LEN, uniform 2; starts
        // holds offsets into times and values for the rain's series and the next, where there
        // is rain (`Layout::of`).
        unsafe { self.stage_kernel.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), params) }
    }

    /// What the step's last RK stage forces each cell with: where it reads the rain's depth and
    /// the span ([`stage_amounts`](Self::stage_amounts)), the soil, and each cell's soil total
    /// (null without a soil); a null first where the forcing is a pass after the step.
    pub fn in_stage(&self) -> (*const T, Soil<T>, *mut T) {
        match (&self.uniform, self.layout.stage_soil::<T>()) {
            (Some(u), Some(soil)) => {
                let f = self.infiltrated.as_ref().map_or(std::ptr::null_mut(), |f| f.ptr().cast_mut());
                (u.ptr(), soil, f)
            }
            (Some(u), None) => (u.ptr(), Soil::NONE, std::ptr::null_mut()),
            (None, _) => (std::ptr::null(), Soil::NONE, std::ptr::null_mut()),
        }
    }

    /// The forcing from its clock to the model clock `clock` applied to `to` (enqueued).
    pub fn apply(&mut self, k: Coeffs<T>, clock: &DeviceBuffer<f64>, to: &Target<T>) -> Result<()> {
        self.clock_to(clock)?;
        if self.inflow_count > 0 {
            let params = ForceInflow {
                k,
                count: self.inflow_count,
                cells: self.cells.ptr(),
                starts: self.cell_starts.ptr(),
                series: self.cell_series.ptr(),
                weights: self.weights.ptr(),
                amounts: self.amounts.ptr(),
                span: self.span.ptr(),
                w: to.w,
                lo: to.lo,
                hu: to.hu,
                hv: to.hv,
                bc: to.cell_bed,
                wet: to.wet,
            };
            // SAFETY: one thread a listed cell, each a distinct padded interior index; the CSR
            // lists and amounts as `Layout::of` made them; the state padded to k.cells().
            unsafe { self.inflow_kernel.launch(LaunchShape::cover_1d(self.inflow_count as u64, 128)?, params)? };
        }
        if self.every_cell {
            let params = ForceCells {
                k,
                cf: self.cell_forcing,
                amounts: self.amounts.ptr(),
                forced: self.forced.ptr(),
                frame_times: self.per_cell.frame_times.ptr(),
                frames: self.per_cell.frames.ptr(),
                rain_cells: self.per_cell.rain_cells.ptr(),
                soils: self.per_cell.soils.ptr(),
                soil_cells: self.per_cell.soil_cells(),
                span: self.span.ptr(),
                w: to.w,
                lo: to.lo,
                hu: to.hu,
                hv: to.hv,
                bc: to.cell_bed,
                f: self.infiltrated.as_mut().map_or(std::ptr::null_mut(), |f| f.ptr_mut()),
                wet: to.wet,
            };
            let rows = k.by.div_ceil(force_rows(self.layout.per_cell.soil_model));
            let shape = LaunchShape::fixed((k.nbx, k.nby, 1), (k.bx, rows, 1));
            // SAFETY: the wet map's blocks, force_rows rows a thread (the entry of the layout's
            // soil model); the state and f padded to k.cells(); wet
            // nbx·nby flags; amounts holds the rain's index when there is rain; the clock as the
            // clock kernel left it; with frames, frame_times frames + 1, rain_cells every
            // interior cell, frames frames × stride, each index checked (`RainGrid::new`);
            // soil_cells null or every interior cell's entry of soils (`Soils::per_cell`).
            unsafe { self.cells_kernel.launch(shape, params)? };
        }
        Ok(())
    }

    /// The clock kernel (enqueued): the forcing clock moved to the time of the model clock
    /// `clock` (`kernels::kp::CLOCK_LEN` slots), the series integrated over the span and the
    /// levels' values there.
    fn clock_to(&mut self, clock: &DeviceBuffer<f64>) -> Result<()> {
        let params = ForceClock {
            set: self.series,
            clock: clock.ptr(),
            forced: self.forced.ptr_mut(),
            times: self.times.ptr(),
            values: self.values.ptr(),
            starts: self.starts.ptr(),
            amounts: self.amounts.ptr_mut(),
            levels: self.levels.ptr_mut(),
            frame_times: self.per_cell.frame_times.ptr(),
            span: self.span.ptr_mut(),
        };
        // SAFETY: one thread; forced holds FORCED_LEN, span 1, amounts every series, levels
        // every level, starts count + 1 offsets into times and values (`Layout::of`), clock
        // CLOCK_LEN slots, frame_times frames + 1 with frames.
        unsafe { self.clock_kernel.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), params) }
    }

    /// The forcing clock's time and the soil's totals (padded), on the host (synchronises).
    pub fn download(&self, gpu: &Gpu) -> Result<(f64, Option<Vec<T>>)> {
        let forced = gpu.download(&self.forced)?[FORCED_T];
        Ok((forced, self.infiltrated.as_ref().map(|f| gpu.download(f)).transpose()?))
    }

    /// The soil's totals on the device (padded; `None` without a soil).
    pub fn infiltrated(&self) -> Option<&DeviceBuffer<T>> {
        self.infiltrated.as_ref()
    }

    /// Continue from a forcing clock at `forced` and the soil's totals `infiltrated` (zeros
    /// where `None`). The levels' values at `forced` come from the clock kernel, over a span
    /// of nothing: the device's arithmetic (which contracts to FMA) gives them as the run that
    /// wrote the checkpoint had them, where the host's could differ in the last bit.
    pub fn resume(&mut self, gpu: &Gpu, forced: f64, infiltrated: Option<&[T]>) -> Result<()> {
        let mut c = vec![0.0; FORCED_LEN];
        c[FORCED_T] = forced;
        gpu.write(&c, &mut self.forced)?;
        if self.series.count > self.series.level_first {
            let mut at = [0.0; CLOCK_LEN];
            at[CLOCK_T] = forced;
            // A clock at `forced`: the span is empty and the forcing clock stays there; the next
            // step's clock kernel writes the amounts again.
            let at = gpu.upload(&at)?;
            self.clock_to(&at)?;
            // `at` outlives the launch.
            gpu.synchronize()?;
        }
        if let Some(f) = &mut self.infiltrated {
            match infiltrated {
                Some(src) => gpu.write(src, f)?,
                None => gpu.write(&vec![T::ZERO; f.len()], f)?,
            }
        }
        Ok(())
    }
}
