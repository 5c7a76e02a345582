//! The mixed precision on the GPU (docs/f32-conservation.md, "Mixed precision for shallow
//! water"): `GpuKp<f32>` whose surfaces (Qⁿ's and Q¹'s) and R_w are f64 fields, stepped by the
//! mixed entry points (`M_…`: the streamed flux kernels, the RK stage, the ghost cells and
//! `clamp`'s passes with `W` = f64). Its CPU reference is `CpuKp<f32, f64>`, whose initial
//! state it uploads.

use super::{ClockState, FluxVariant, GpuKp, Launch};
use crate::field::DeviceField2;
use crate::foundation::gpu::BufferKernels;
use crate::kp::Problem;
use crate::kp::cpu::CpuKp;
use crate::kp::mixed::check_scheme;
use crate::runtime::Gpu;
use crate::{Error, Result};

/// Why the tile flux kernel is refused in mixed precision (it has no mixed entry point).
pub(super) const NO_TILE: &str = "precision mixed runs the streamed flux kernel only; --flux tile runs f32 or f64";

/// The f64 fields of a mixed run: the surfaces of Qⁿ and Q¹, and R_w.
pub struct MixedLevel {
    pub(super) w: [DeviceField2<f64>; 2],
    pub(super) rw: DeviceField2<f64>,
    fill: BufferKernels<f64>,
}

impl MixedLevel {
    /// NaN into Q¹'s surface and R_w (see `GpuKp::poison`).
    pub(super) fn poison(&mut self) -> Result<()> {
        self.fill.fill(&mut self.w[1], f64::NAN)?;
        self.fill.fill(&mut self.rw, f64::NAN)
    }
}

impl GpuKp<f32> {
    /// The mixed precision: RK2 or Euler on the streamed flux kernel, any wet–dry scheme, early
    /// exit on or off, friction; from the CPU reference's initial state. Other schemes and the
    /// tile kernel are refused in one line.
    pub fn new_mixed(gpu: &Gpu, problem: &Problem, launch: Launch) -> Result<GpuKp<f32>> {
        problem.validate()?;
        check_scheme(problem.scheme)?;
        if launch.flux == FluxVariant::Tile {
            return Err(Error::invalid(NO_TILE));
        }
        let start = CpuKp::<f32, f64>::new(problem, launch.block, false)?;
        let (w, hu, hv) = start.fields();
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
        let mut m = GpuKp::build(gpu, problem, launch, Some(Box::new(level)))?;
        let wet: Vec<u32> = start.wet().iter().map(|&f| u32::from(f)).collect();
        m.resume_mixed(gpu, (w, hu, hv), &wet, ClockState { t: 0.0, dt: 0.0, status: kernels::kp::STEP_OK, steps: 0 })?;
        Ok(m)
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
}
