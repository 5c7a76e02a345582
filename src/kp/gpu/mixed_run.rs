//! A mixed-precision run's construction on the f64 fields of `mixed.rs`, and its transfers.

use super::build::check_slab;
use super::*;

/// The mixed precision's construction and transfers: `GpuKp<f32>` over the f64 fields of
/// `mixed.rs`.
impl GpuKp<f32> {
    /// The mixed precision: RK2 or Euler on the streamed flux kernel, any wet–dry scheme, early
    /// exit on or off, friction; from the CPU reference's initial state. Other schemes and the
    /// tile kernel are refused in one line.
    pub fn new_mixed(gpu: &Gpu, problem: &Problem, launch: Launch) -> Result<GpuKp<f32>> {
        problem.validate()?;
        let start = CpuKp::<f32, f64>::new(problem, launch.block, false)?;
        let wet: Vec<u32> = start.wet().iter().map(|&f| u32::from(f)).collect();
        Self::build_mixed(gpu, problem, launch, (start.fields(), &wet), None)
    }

    /// The mixed precision's driver of `problem` (the whole grid's, or with `slab` a slab's and
    /// its start) from padded (w, hu, hv) and their wet map: the schemes and kernel it runs
    /// checked, the f64 surfaces uploaded.
    #[allow(clippy::type_complexity)]
    pub(super) fn build_mixed(
        gpu: &Gpu,
        problem: &Problem,
        launch: Launch,
        ((w, hu, hv), wet): ((&[f64], &[f32], &[f32]), &[u32]),
        slab: Option<(Start<f32>, Option<Box<GpuRanks>>)>,
    ) -> Result<GpuKp<f32>> {
        check_scheme(problem.scheme)?;
        if launch.flux == FluxVariant::Tile {
            return Err(Error::invalid(mixed::NO_TILE));
        }
        let up = |f: &[f64]| -> Result<DeviceField2<f64>> {
            let mut d = DeviceField2::zeros(gpu, problem.layout())?;
            gpu.write(f, &mut d)?;
            Ok(d)
        };
        let level = MixedLevel {
            w: [up(w)?, up(w)?],
            rw: DeviceField2::zeros(gpu, problem.layout())?,
            fill: BufferKernels::new(gpu)?,
        };
        let mut m = GpuKp::build(gpu, problem, launch, Some(Box::new(level)), slab)?;
        m.resume_mixed(gpu, (w, hu, hv), wet, ClockState { t: 0.0, dt: 0.0, status: kernels::kp::STEP_OK, steps: 0 })?;
        Ok(m)
    }

    /// The driver of one rank's slab in the mixed precision: [`slab`](Self::slab)'s `start`,
    /// with `state` the slab's rows of the whole grid's mixed start (`mixed::slab_start`); its w
    /// rows (f64) and momenta rows (f32) are exchanged apart, through NCCL or the host, before
    /// the kernels that read them (no exchange beside the inner bands: their kernels read
    /// surfaces of another precision than the state's rows). Without early exit
    /// (`KpModel::mixed_slab`).
    pub fn slab_mixed(
        gpu: &Arc<Gpu>,
        problem: &Problem,
        (start, state): (Start<f32>, super::super::state::State<f32, f64>),
        halo: Halo,
        launch: Launch,
    ) -> Result<GpuKp<f32>> {
        check_slab(problem, &start, launch)?;
        let fields = (state.w.stored(), state.hu.stored(), state.hv.stored());
        let wet: Vec<u32> = super::super::state::wet_map(&start.k, fields.0, start.padded.cell_bed.stored())
            .into_iter()
            .map(u32::from)
            .collect();
        let ranks = Some(Box::new(GpuRanks { halo, gpu: gpu.clone() }));
        Self::build_mixed(gpu, problem, launch, (fields, &wet), Some((start, ranks)))
    }

    /// Continue from padded (w, hu, hv), the wet map and the clock, as
    /// [`download_mixed`](Self::download_mixed), `wet_map` and `clock` gave them (see `resume`).
    pub fn resume_mixed(
        &mut self,
        gpu: &Gpu,
        (w, hu, hv): (&[f64], &[f32], &[f32]),
        wet: &[u32],
        clock: ClockState,
    ) -> Result<()> {
        let Some(m) = &mut self.mixed else {
            return Err(Error::invalid("kp: not a mixed-precision model"));
        };
        gpu.write(w, &mut m.w[0])?;
        // The f32 surface is unused in mixed precision: any values of the right length will do.
        let unused: Vec<f32> = w.iter().map(|&v| v as f32).collect();
        self.resume(gpu, [&unused, hu, hv], None, wet, clock)?;
        self.set_shore(gpu, w)
    }

    /// Padded (w, hu, hv) of Qⁿ on the host: w in f64.
    pub fn download_mixed(&self, gpu: &Gpu) -> Result<(Vec<f64>, Vec<f32>, Vec<f32>)> {
        let Some(m) = &self.mixed else {
            return Err(Error::invalid("kp: not a mixed-precision model"));
        };
        Ok((gpu.download(&m.w[0])?, gpu.download(&self.q[1])?, gpu.download(&self.q[2])?))
    }

    /// The device buffers [`download_mixed`](Self::download_mixed) reads: the padded f64 surface
    /// and the padded f32 momenta (hu, hv).
    pub fn mixed_state_buffers(&self) -> Result<(&DeviceBuffer<f64>, [&DeviceBuffer<f32>; 2])> {
        let Some(m) = &self.mixed else {
            return Err(Error::invalid("kp: not a mixed-precision model"));
        };
        Ok((m.w[0].buffer(), [self.q[1].buffer(), self.q[2].buffer()]))
    }
}
