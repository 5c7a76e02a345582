//! The mixed-precision GPU driver (docs/f32-conservation.md, "Mixed precision for sediment: h in
//! f64, the rest in f32"): h and h′ in f64, s, α, β and s′ in f32, stepped by the fused kernel of
//! the problem's scheme (`M_FUSED`, `MB_FUSED`) and the mixed ghost fill. The CPU reference of the
//! mode is `CpuSediment<f32, f64>`. The fields and the fused launch are the plain driver's
//! (`gpu::Fields`, `gpu::launch_fused`).

use super::gpu::{Fields, Launch, check_launch, ghosts_shape, launch_fused};
use super::{Coeffs, Problem, Scheme};
use crate::Result;
use crate::field::DeviceField2;
use crate::foundation::gpu::BufferKernels;
use crate::ranks::Halo;
use crate::runtime::{Gpu, Kernel};
use cudarc::driver::CudaStream;
use kernels::Bands;
use kernels::sediment::{BOUNDED_REACH, M_FUSED, M_GHOSTS, MB_FUSED, SetGhostsMixed, StepMixed};

/// The device state of one mixed-precision sediment run.
pub struct GpuMixed {
    bounded: bool,
    k: Coeffs<f32>,
    launch: Launch,
    f: Fields<f32, f64>,
    fused: Kernel<StepMixed<f32>>,
    ghosts: Kernel<SetGhostsMixed<f32>>,
    fill_h: BufferKernels<f64>,
    fill_s: BufferKernels<f32>,
    /// The state's ghost rows at the cuts are still to come (`GpuSediment`'s `ghosts_aside`):
    /// the next bounded fused launch takes them beside its inner chunks.
    ghosts_aside: bool,
}

impl GpuMixed {
    /// Validate, check that the six fields fit (two of f64, four of f32), upload, fill the ghost
    /// layer.
    pub fn new(gpu: &Gpu, problem: &Problem, dt: f64, launch: Launch) -> Result<GpuMixed> {
        GpuMixed::slab(gpu, problem, dt, launch, None)
    }

    /// [`new`](Self::new) for one slab of a decomposed run (`problem`:
    /// [`Problem::slab`](super::Problem::slab)), which takes the ghost rows at its cuts from its
    /// neighbours through `halo` (then step it with [`step_with`](Self::step_with)).
    pub fn slab(gpu: &Gpu, problem: &Problem, dt: f64, launch: Launch, halo: Option<&Halo>) -> Result<GpuMixed> {
        problem.validate()?;
        check_launch(launch)?;
        gpu.check_fits(
            &format!("a {}×{} sediment grid in mixed precision (2 fields of f64, 4 of f32)", problem.nx, problem.ny),
            problem.len() * (2 * 8 + 4 * 4),
        )?;
        let bounded = problem.scheme == Scheme::Bounded;
        let mut m = GpuMixed {
            bounded,
            k: problem.coeffs(dt, launch.rows),
            launch,
            f: Fields::upload(gpu, problem)?,
            fused: gpu.kernel::<f32, _>(if bounded { MB_FUSED } else { M_FUSED })?,
            ghosts: gpu.kernel::<f32, _>(M_GHOSTS)?,
            fill_h: BufferKernels::new(gpu)?,
            fill_s: BufferKernels::new(gpu)?,
            ghosts_aside: false,
        };
        m.ghosts_with(halo.map(|h| (gpu, h)))?;
        Ok(m)
    }

    pub fn set_dt(&mut self, problem: &Problem, dt: f64) {
        self.k = problem.coeffs(dt, self.launch.rows);
    }

    /// Fill the step's outputs with NaN, so that a point the kernel fails to write shows up in
    /// the result (the equivalence tests call this before every step).
    pub fn poison_outputs(&mut self) -> Result<()> {
        self.fill_h.fill(&mut self.f.hn, f64::NAN)?;
        self.fill_s.fill(&mut self.f.sn, f32::NAN)
    }

    /// One step: the fused kernel, then the ghost layer of the new fields.
    pub fn step(&mut self) -> Result<()> {
        self.step_with(None)
    }

    /// [`step`](Self::step) of a slab of a decomposed run, which takes the ghost rows at its
    /// cuts from its neighbours through `halo` once it has set its ghosts: with the bounded
    /// scheme on ranks that overlap their exchanges, beside the next step's inner chunks (as
    /// `GpuSediment::step_with`); [`settle`](Self::settle) before reading the state.
    pub fn step_with(&mut self, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        let (h, s, al, be, hn, sn) = self.f.step_ptrs();
        let (k, launch, bounded) = (self.k, self.launch, self.bounded);
        let fused = &self.fused;
        let go = |bands: Bands, stream: &CudaStream| {
            let params = StepMixed { k, bands, h, s, al, be, hn, sn };
            // SAFETY: h, hn ((nx+2)(ny+2) f64) and s, al, be, sn (as many f32) are whole arrays
            // as `k` describes, outputs distinct from inputs; bands of `launch.rows` rows, those
            // on two streams writing disjoint rows and reading a ghost row only after it arrived
            // (`Halo::exchange_beside_bands_of_two`).
            unsafe { launch_fused(fused, &k, launch, bounded, stream, params) }
        };
        match halo {
            Some((gpu, halo)) if std::mem::take(&mut self.ghosts_aside) => {
                let f = &mut self.f;
                let (wide, narrow) = (&mut [&mut *f.h][..], &mut [&mut *f.s, &mut *f.alpha, &mut *f.beta][..]);
                halo.exchange_beside_bands_of_two(gpu, (wide, narrow), (k.ny, launch.rows, BOUNDED_REACH), go)?
            }
            _ => go(Bands::all(k.ny, launch.rows), fused.stream())?,
        }
        self.f.swap();
        match halo {
            Some((_, h)) if bounded && h.overlaps() => {
                self.set_ghosts()?;
                self.ghosts_aside = true;
                Ok(())
            }
            _ => self.ghosts_with(halo),
        }
    }

    /// The ghost rows at the cuts still to come of [`step_with`](Self::step_with), now and on
    /// the GPU's stream: before anything but the next step reads the state.
    pub fn settle(&mut self, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        match halo {
            Some(_) if std::mem::take(&mut self.ghosts_aside) => self.exchange(halo),
            _ => Ok(()),
        }
    }

    /// Continue from h and s with their ghosts, as [`download`](Self::download) gave them.
    pub fn resume(&mut self, gpu: &Gpu, h: &[f64], s: &[f32]) -> Result<()> {
        self.f.resume(gpu, h, s)
    }

    /// h (f64) and s (f32) where they lie.
    pub fn state_fields(&self) -> (&DeviceField2<f64>, &DeviceField2<f32>) {
        (&self.f.h, &self.f.s)
    }

    /// h (f64) and s (f32) with their ghosts, on the host.
    pub fn download(&self, gpu: &Gpu) -> Result<(Vec<f64>, Vec<f32>)> {
        self.f.download(gpu)
    }

    /// h with its ghosts (synchronises).
    pub fn download_h(&self, gpu: &Gpu) -> Result<Vec<f64>> {
        gpu.download(&self.f.h)
    }

    /// The ghost layer, then on a slab the ghost rows at its cuts from its neighbours.
    fn ghosts_with(&mut self, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        self.set_ghosts()?;
        self.exchange(halo)
    }

    /// On a slab, the ghost rows at its cuts from its neighbours: h in f64, then s, α and β in
    /// f32, one exchange for each precision.
    fn exchange(&mut self, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        let Some((gpu, halo)) = halo else { return Ok(()) };
        let f = &mut self.f;
        halo.exchange_device_of_two(gpu, (&mut [&mut *f.h], &mut [&mut *f.s, &mut *f.alpha, &mut *f.beta]))
    }

    fn set_ghosts(&mut self) -> Result<()> {
        let shape = ghosts_shape(&self.k)?;
        let (h, s, al, be) = self.f.ghost_ptrs(false);
        // SAFETY: h (f64), s, al, be (f32) are whole arrays; one thread per perimeter point,
        // each writing only its own ghost cells.
        unsafe { self.ghosts.launch(shape, SetGhostsMixed { k: self.k, h, s, al, be }) }
    }
}
