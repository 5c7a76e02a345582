//! GPU driver: the fields live on the device for the whole run; a step launches the chosen
//! h- and s-kernels (or the fused one) of the problem's scheme and the ghost kernel.

use super::{Coeffs, HVariant, Problem, SVariant, Scheme, StepVariant};
use crate::field::{DeviceField2, Field2};
use crate::foundation::gpu::BufferKernels;
use crate::ranks::Halo;
use crate::runtime::{DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{Error, GpuReal, Real, Result};
use cudarc::driver::{CudaSlice, CudaStream};
use kernels::Bands;
use kernels::halo::perimeter_len;
use kernels::sediment::{
    B_FUSED, B_FUSED_TILE, BC_FUSED, BC_FUSED_TILE, BOUNDED_REACH, BOUNDED_STREAM_COLS, C_FUSED, C_FUSED_TILE, FUSED,
    FUSED_TILE, GHOSTS, STREAM_COLS, SetGhosts, StepBounded, StepFused, StepH, StepS, bounded_ring_bytes,
};

/// Block shape and rows per thread (run-time launch parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Interior points per block in x and y (halo-thread kernels add 2 threads to each).
    pub block: (u32, u32),
    /// Rows per thread of the multi-point kernels.
    pub rows: u32,
}

impl Default for Launch {
    /// Chosen by `bench sediment --block --rows` sweeps on an H100 at 4096² (32×2 … 128×2, 2–8
    /// rows): 64×2 with 4 rows puts the best h and s kernels at 97–100% of copy bandwidth in
    /// f64 and ~86% in f32, and the streamed fused kernel (2 warps per block) at 1.5–1.6× the
    /// best h + s pair; 8 rows or 8 warps per block lose 10–20% on the fused kernel.
    fn default() -> Self {
        Launch { block: (64, 2), rows: 4 }
    }
}

/// The sediment kernels of precision `T` for one h update (plain or compensated), looked up once.
struct SedimentKernels<T: GpuReal> {
    /// By `HVariant as usize` (the order of `HVariant::ALL`).
    h: Vec<Kernel<StepH<T>>>,
    /// By `SVariant as usize` (the order of `SVariant::ALL`).
    s: Vec<Kernel<StepS<T>>>,
    fused: Kernel<StepFused<T>>,
    fused_tile: Kernel<StepFused<T>>,
    /// The bounded scheme's, in the same orders.
    bh: Vec<Kernel<StepBounded<T>>>,
    bs: Vec<Kernel<StepBounded<T>>>,
    b_fused: Kernel<StepFused<T>>,
    b_fused_tile: Kernel<StepFused<T>>,
    ghosts: Kernel<SetGhosts<T>>,
    buffers: BufferKernels<T>,
}

impl<T: GpuReal> SedimentKernels<T> {
    /// The kernels that write h' in their compensated entries when `compensated`.
    fn new(gpu: &Gpu, compensated: bool) -> Result<SedimentKernels<T>> {
        let h = |v: &HVariant| if compensated { v.compensated_entry() } else { v.entry() };
        let bh = |v: &HVariant| if compensated { v.bounded_compensated_entry() } else { v.bounded_entry() };
        let pick = |plain, comp| if compensated { comp } else { plain };
        Ok(SedimentKernels {
            h: HVariant::ALL.iter().map(|v| gpu.kernel::<T, _>(h(v))).collect::<Result<_>>()?,
            s: SVariant::ALL.iter().map(|v| gpu.kernel::<T, _>(v.entry())).collect::<Result<_>>()?,
            fused: gpu.kernel::<T, _>(pick(FUSED, C_FUSED))?,
            fused_tile: gpu.kernel::<T, _>(pick(FUSED_TILE, C_FUSED_TILE))?,
            bh: HVariant::ALL.iter().map(|v| gpu.kernel::<T, _>(bh(v))).collect::<Result<_>>()?,
            bs: SVariant::ALL.iter().map(|v| gpu.kernel::<T, _>(v.bounded_entry())).collect::<Result<_>>()?,
            b_fused: gpu.kernel::<T, _>(pick(B_FUSED, BC_FUSED))?,
            b_fused_tile: gpu.kernel::<T, _>(pick(B_FUSED_TILE, BC_FUSED_TILE))?,
            ghosts: gpu.kernel::<T, _>(GHOSTS)?,
            buffers: BufferKernels::new(gpu)?,
        })
    }
}

/// The device state of one sediment run. Its kernels are looked up once, in [`GpuSediment::new`].
pub struct GpuSediment<T: GpuReal> {
    scheme: Scheme,
    k: Coeffs<T>,
    launch: Launch,
    f: Fields<T, T>,
    /// The compensated update's low parts of h and h′ (zero on the ghost layer, which no kernel
    /// writes); none on the plain path.
    low: Option<(DeviceField2<T>, DeviceField2<T>)>,
    kernels: SedimentKernels<T>,
    /// The state's ghost rows at the cuts are still to come: the step's ghost pass ran and the
    /// exchange waits for the next streamed fused launch, which takes it beside its inner bands
    /// ([`settle`](Self::settle) takes it at once).
    ghosts_aside: bool,
}

impl<T: GpuReal> GpuSediment<T> {
    /// Validate, check that the six fields fit, upload, fill the ghost layer.
    pub fn new(gpu: &Gpu, problem: &Problem, dt: f64, launch: Launch) -> Result<GpuSediment<T>> {
        GpuSediment::slab(gpu, problem, dt, launch, None)
    }

    /// [`new`](Self::new) for one slab of a decomposed run (`problem`:
    /// [`Problem::slab`](super::Problem::slab)), which takes the ghost rows at its cuts from
    /// its neighbours through `halo`, GPU to GPU or staged through the host (then step it with
    /// [`step_with`](Self::step_with)).
    pub fn slab(gpu: &Gpu, problem: &Problem, dt: f64, launch: Launch, halo: Option<&Halo>) -> Result<GpuSediment<T>> {
        problem.validate()?;
        check_launch(launch)?;
        let n = problem.len();
        let compensates = problem.accumulation.compensates::<T>();
        let fields = if compensates { 8 } else { 6 };
        gpu.check_fits(
            &format!("a {}×{} sediment grid ({fields} fields of {})", problem.nx, problem.ny, T::NAME),
            fields * n * std::mem::size_of::<T>(),
        )?;
        let zeros = || DeviceField2::zeros(gpu, problem.layout());
        let mut m = GpuSediment {
            scheme: problem.scheme,
            k: problem.coeffs(dt, launch.rows),
            launch,
            f: Fields::upload(gpu, problem)?,
            low: if compensates { Some((zeros()?, zeros()?)) } else { None },
            kernels: SedimentKernels::new(gpu, compensates)?,
            ghosts_aside: false,
        };
        m.ghosts_with(false, halo.map(|h| (gpu, h)))?;
        Ok(m)
    }

    /// Fill the step's output buffers with NaN, so that a point a kernel fails to write shows
    /// up in the result (the equivalence tests call this before every step).
    /// h′'s low part is poisoned on the interior only: its ghost layer is zero by design (no
    /// kernel writes it).
    pub fn poison_outputs(&mut self, gpu: &Gpu) -> Result<()> {
        self.kernels.buffers.fill(&mut self.f.hn, T::NAN)?;
        if let Some((_, lon)) = &mut self.low {
            let layout = lon.layout();
            let mut poison = Field2::filled(layout, T::ZERO)?;
            for j in 0..layout.ny as i32 {
                for i in 0..layout.nx as i32 {
                    poison.set(i, j, T::NAN);
                }
            }
            gpu.write(&poison, lon)?;
        }
        self.kernels.buffers.fill(&mut self.f.sn, T::NAN)
    }

    /// Launch with `launch` from now on (the tuner times shapes on one running model).
    pub fn set_launch(&mut self, problem: &Problem, dt: f64, launch: Launch) -> Result<()> {
        check_launch(launch)?;
        self.launch = launch;
        self.k = problem.coeffs(dt, launch.rows);
        Ok(())
    }

    pub fn set_dt(&mut self, problem: &Problem, dt: f64) {
        self.k = problem.coeffs(dt, self.launch.rows);
    }

    /// One step with `variant`.
    pub fn step(&mut self, variant: StepVariant) -> Result<()> {
        self.step_with(variant, None)
    }

    /// [`step`](Self::step) of a slab of a decomposed run, which takes the ghost rows at its
    /// cuts from its neighbours through `halo` each time it sets its ghosts. With the bounded
    /// scheme's streamed fused kernel on ranks that overlap their exchanges (through NCCL), the
    /// rows at the end of a step travel beside the next step's inner bands (docs/ranks.md, "The
    /// exchange beside the interior"); [`settle`](Self::settle) before reading the state.
    pub fn step_with(&mut self, variant: StepVariant, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        let beside = self.scheme == Scheme::Bounded && variant == StepVariant::Fused;
        if !beside {
            self.settle(halo)?;
        }
        match variant {
            // The bounded scheme's s' reads the old fields only: no ghosts of h' between.
            StepVariant::Split(hv, sv) if self.scheme == Scheme::Bounded => {
                self.h_kernel(hv)?;
                self.s_kernel(sv)?;
            }
            StepVariant::Split(hv, sv) => {
                self.h_kernel(hv)?;
                self.ghosts_with(true, halo)?;
                self.s_kernel(sv)?;
            }
            StepVariant::Fused => self.fused_with(halo)?,
            StepVariant::FusedTile => self.fused_tile()?,
        }
        self.f.swap();
        if let Some((lo, lon)) = &mut self.low {
            std::mem::swap(lo, lon);
        }
        match halo {
            Some((_, h)) if beside && h.overlaps() => {
                self.ghosts(false)?;
                self.ghosts_aside = true;
                Ok(())
            }
            _ => self.ghosts_with(false, halo),
        }
    }

    /// The ghost rows at the cuts still to come of [`step_with`](Self::step_with), now and on
    /// the GPU's stream: before anything but the next streamed fused launch reads the state.
    pub fn settle(&mut self, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        match halo {
            Some((gpu, halo)) if std::mem::take(&mut self.ghosts_aside) => {
                halo.exchange_device(gpu, &mut self.cut_fields())
            }
            _ => Ok(()),
        }
    }

    /// The fields whose ghost rows a slab takes from its neighbours: h, s, α, β.
    fn cut_fields(&mut self) -> [&mut CudaSlice<T>; 4] {
        let f = &mut self.f;
        [&mut *f.h, &mut *f.s, &mut *f.alpha, &mut *f.beta]
    }

    /// Continue from h and s with their ghosts, as [`download`](Self::download) gave them of a
    /// run of the same problem (α, β and the coefficients do not change with the state), and
    /// h's low part as [`download_low`](Self::download_low) gave it (none: zero).
    pub fn resume(&mut self, gpu: &Gpu, h: &[T], s: &[T], low: Option<&[T]>) -> Result<()> {
        self.f.resume(gpu, h, s)?;
        if let Some((lo, _)) = &mut self.low {
            match low {
                Some(l) => gpu.write(l, lo)?,
                None => self.kernels.buffers.fill(lo, T::ZERO)?,
            }
        }
        Ok(())
    }

    /// The low part of h with its ghosts, on the compensated path (synchronises).
    pub fn download_low(&self, gpu: &Gpu) -> Result<Option<Vec<T>>> {
        self.low.as_ref().map(|(lo, _)| gpu.download(lo)).transpose()
    }

    /// (lo, lon) for the kernels: h's and h′'s low parts, or both null on the plain path (whose
    /// kernels ignore them).
    fn low_ptrs(&mut self) -> (*const T, *mut T) {
        match &mut self.low {
            Some((lo, lon)) => (lo.ptr(), lon.ptr_mut()),
            None => (std::ptr::null(), std::ptr::null_mut()),
        }
    }

    /// h (its high part on the compensated path), s and, on the compensated path, h's low
    /// part, where they lie.
    pub fn state_fields(&self) -> (&DeviceField2<T>, &DeviceField2<T>, Option<&DeviceField2<T>>) {
        (&self.f.h, &self.f.s, self.low.as_ref().map(|(lo, _)| lo))
    }

    /// Copy h and s (with ghosts) to the host.
    pub fn download(&self, gpu: &Gpu) -> Result<(Vec<T>, Vec<T>)> {
        self.f.download(gpu)
    }

    /// h with its ghosts (synchronises).
    pub fn download_h(&self, gpu: &Gpu) -> Result<Vec<T>> {
        gpu.download(&self.f.h)
    }

    /// Blocks of `launch.block` points covering the interior, `rows` rows a thread; with halo
    /// threads, each block a ring of threads larger.
    fn shape(&self, halo_threads: bool, rows: u32) -> Result<LaunchShape> {
        let (bx, by) = self.launch.block;
        let mut shape = LaunchShape::cover_2d(self.k.nx as u64, self.k.ny as u64, (bx, by), (1, rows))?;
        if halo_threads {
            shape.block = (bx + 2, by + 2, 1);
        }
        Ok(shape)
    }

    /// Elements of the (BX+2)×(BY+2) tile.
    fn tile(&self) -> usize {
        (self.launch.block.0 as usize + 2) * (self.launch.block.1 as usize + 2)
    }

    /// Shared-memory tiles of the tiled kernels: the `seed` scheme's h-kernels keep αs and
    /// β(1−s), the bounded ones h as well.
    fn h_tiles(&self) -> usize {
        if self.scheme == Scheme::Bounded { 3 } else { 2 }
    }

    /// h' into `hn` from h, s, α, β.
    pub fn h_kernel(&mut self, v: HVariant) -> Result<()> {
        let tiles = self.h_tiles();
        let shape = match v {
            HVariant::Baseline | HVariant::Opt1 => self.shape(false, 1)?,
            HVariant::Opt2 => self.shape(false, 1)?.with_shared_of::<T>(tiles * self.tile()),
            HVariant::Opt3 => self.shape(true, 1)?.with_shared_of::<T>(tiles * self.tile()),
            HVariant::Multi => self.shape(false, self.launch.rows)?,
        };
        if self.scheme == Scheme::Bounded {
            let params = self.bounded_params(true);
            // SAFETY: h, s, al, be, out (= hn) are whole arrays of (nx+2)(ny+2) as `k` describes, out
            // distinct from the inputs; grid and shared memory as the variant requires (above).
            return unsafe { self.kernels.bh[v as usize].launch(shape, params) };
        }
        let (lo, lon) = self.low_ptrs();
        let f = &mut self.f;
        let (h, s, al, be, hn) = (f.h.ptr(), f.s.ptr(), f.alpha.ptr(), f.beta.ptr(), f.hn.ptr_mut());
        let params = StepH { k: self.k, h, s, al, be, hn, lo, lon };
        // SAFETY: h, s, al, be, hn are whole arrays of (nx+2)(ny+2) as `k` describes, hn distinct
        // from the inputs; grid and shared memory as the kernel's variant requires (above).
        unsafe { self.kernels.h[v as usize].launch(shape, params) }
    }

    /// s' into `sn`: seed, from h, h' (in `hn`), s, α; bounded, from h, s, α, β.
    pub fn s_kernel(&mut self, v: SVariant) -> Result<()> {
        let tiles = if self.scheme == Scheme::Bounded { 3 } else { 1 };
        let shape = match v {
            SVariant::Baseline | SVariant::Opt1 => self.shape(false, 1)?,
            SVariant::Opt2 => self.shape(false, 1)?.with_shared_of::<T>(tiles * self.tile()),
            SVariant::Multi => self.shape(false, self.launch.rows)?,
        };
        if self.scheme == Scheme::Bounded {
            let params = self.bounded_params(false);
            // SAFETY: h, s, al, be, out (= sn) are whole arrays, out distinct from the inputs; grid
            // and shared memory as the variant requires (above).
            return unsafe { self.kernels.bs[v as usize].launch(shape, params) };
        }
        let f = &mut self.f;
        let params =
            StepS { k: self.k, h: f.h.ptr(), hp: f.hn.ptr(), s: f.s.ptr(), al: f.alpha.ptr(), sn: f.sn.ptr_mut() };
        // SAFETY: h, hp, s, al, sn are whole arrays, sn distinct from the inputs; grid and shared
        // memory as the variant requires (above).
        unsafe { self.kernels.s[v as usize].launch(shape, params) }
    }

    /// h' and s' in one pass streamed by warps: blocks of 32 × `block.1` threads (one warp
    /// per strip of 28 columns, 30 for the bounded scheme, and chunk of `rows` rows).
    pub fn fused(&mut self) -> Result<()> {
        self.fused_with(None)
    }

    /// [`fused`](Self::fused), taking the ghost rows at the cuts still to come through `halo`
    /// beside its inner bands.
    fn fused_with(&mut self, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        let bounded = self.scheme == Scheme::Bounded;
        let params = self.fused_params();
        let (k, launch) = (self.k, self.launch);
        let kernel = if bounded { &self.kernels.b_fused } else { &self.kernels.fused };
        let go = |bands: Bands, stream: &CudaStream| {
            // SAFETY: h, s, al, be, hn, sn (and lo, lon on the compensated path) are whole
            // arrays, outputs distinct from inputs, as `fused_params` gives them. Bands launched
            // on two streams write disjoint rows, and read a ghost row only after it arrived
            // (`Halo::exchange_beside_bands`).
            unsafe { launch_fused(kernel, &k, launch, bounded, stream, StepFused { bands, ..params }) }
        };
        let f = &mut self.f;
        match halo {
            Some((gpu, halo)) if std::mem::take(&mut self.ghosts_aside) => halo.exchange_beside_bands(
                gpu,
                &mut [&mut *f.h, &mut *f.s, &mut *f.alpha, &mut *f.beta],
                (k.ny, launch.rows, BOUNDED_REACH),
                go,
            ),
            _ => go(Bands::all(k.ny, launch.rows), kernel.stream()),
        }
    }

    /// h' and s' in one pass on a haloed shared tile (with the ghost rule for h' inside).
    pub fn fused_tile(&mut self) -> Result<()> {
        let shape = self.shape(true, 1)?.with_shared_of::<T>(self.h_tiles() * self.tile());
        let params = self.fused_params();
        let kernel = if self.scheme == Scheme::Bounded { &self.kernels.b_fused_tile } else { &self.kernels.fused_tile };
        // SAFETY: as for `fused`; halo-thread blocks with the scheme's tiles of shared memory.
        unsafe { kernel.launch(shape, params) }
    }

    /// The bounded split kernels' parameters: the old fields, and `hn` (with h's low parts) or
    /// `sn` as the output.
    fn bounded_params(&mut self, h: bool) -> StepBounded<T> {
        let (out, (lo, lon)) = if h {
            (self.f.hn.ptr_mut(), self.low_ptrs())
        } else {
            (self.f.sn.ptr_mut(), (std::ptr::null(), std::ptr::null_mut()))
        };
        let (h, s, al, be) = (self.f.h.ptr(), self.f.s.ptr(), self.f.alpha.ptr(), self.f.beta.ptr());
        StepBounded { k: self.k, h, s, al, be, out, lo, lon }
    }

    fn fused_params(&mut self) -> StepFused<T> {
        let (lo, lon) = self.low_ptrs();
        let (h, s, al, be, hn, sn) = self.f.step_ptrs();
        let bands = Bands::all(self.k.ny, self.launch.rows);
        StepFused { lo, lon, k: self.k, bands, h, s, al, be, hn, sn }
    }

    /// [`ghosts`](Self::ghosts), then on a slab of a decomposed run the ghost rows at its cuts
    /// from its neighbours.
    fn ghosts_with(&mut self, next_h: bool, halo: Option<(&Gpu, &Halo)>) -> Result<()> {
        self.ghosts(next_h)?;
        let Some((gpu, halo)) = halo else { return Ok(()) };
        if !next_h {
            return halo.exchange_device(gpu, &mut self.cut_fields());
        }
        let f = &mut self.f;
        halo.exchange_device(gpu, &mut [&mut *f.hn, &mut *f.s, &mut *f.alpha, &mut *f.beta])
    }

    /// Set the ghost layer of (h, s), or of (h', s) mid-step when `next_h` is true.
    pub fn ghosts(&mut self, next_h: bool) -> Result<()> {
        let shape = ghosts_shape(&self.k)?;
        let (h, s, al, be) = self.f.ghost_ptrs(next_h);
        // SAFETY: h, s, al, be are whole arrays; one thread per perimeter point, each writing
        // only its own ghost cells.
        unsafe { self.kernels.ghosts.launch(shape, SetGhosts { k: self.k, h, s, al, be }) }
    }
}

/// The fields of a sediment run on the device: h and h′ in `H` (`T`, or f64 in mixed
/// precision), s, α, β and s′ in `T`. What the plain, compensated and mixed drivers share.
pub(super) struct Fields<T: GpuReal, H: GpuReal> {
    pub h: DeviceField2<H>,
    pub s: DeviceField2<T>,
    pub alpha: DeviceField2<T>,
    pub beta: DeviceField2<T>,
    /// h′ and s′ while a step computes them.
    pub hn: DeviceField2<H>,
    pub sn: DeviceField2<T>,
}

/// h, s, α, β and the outputs h′, s′ of a fused step, as its kernel's parameters take them.
pub(super) type StepPtrs<T, H> = (*const H, *const T, *const T, *const T, *mut H, *mut T);

impl<T: GpuReal, H: GpuReal> Fields<T, H> {
    /// `problem`'s fields converted and uploaded; h′ and s′ allocated.
    pub fn upload(gpu: &Gpu, problem: &Problem) -> Result<Fields<T, H>> {
        let up = |f: &Field2<f64>| DeviceField2::upload(gpu, &f.convert::<T>());
        Ok(Fields {
            h: DeviceField2::upload(gpu, &problem.h.convert::<H>())?,
            s: up(&problem.s)?,
            alpha: up(&problem.alpha)?,
            beta: up(&problem.beta)?,
            hn: DeviceField2::uninit(gpu, problem.layout())?,
            sn: DeviceField2::uninit(gpu, problem.layout())?,
        })
    }

    /// The step's outputs become its inputs.
    pub fn swap(&mut self) {
        std::mem::swap(&mut self.h, &mut self.hn);
        std::mem::swap(&mut self.s, &mut self.sn);
    }

    /// h, s, α, β and the outputs h′, s′ of a fused step.
    pub fn step_ptrs(&mut self) -> StepPtrs<T, H> {
        (self.h.ptr(), self.s.ptr(), self.alpha.ptr(), self.beta.ptr(), self.hn.ptr_mut(), self.sn.ptr_mut())
    }

    /// h (h′ when `next_h`), s, α, β for the ghost fill.
    pub fn ghost_ptrs(&mut self, next_h: bool) -> (*mut H, *mut T, *mut T, *mut T) {
        let h = if next_h { self.hn.ptr_mut() } else { self.h.ptr_mut() };
        (h, self.s.ptr_mut(), self.alpha.ptr_mut(), self.beta.ptr_mut())
    }

    /// Continue from h and s with their ghosts.
    pub fn resume(&mut self, gpu: &Gpu, h: &[H], s: &[T]) -> Result<()> {
        gpu.write(h, &mut self.h)?;
        gpu.write(s, &mut self.s)
    }

    /// h and s with their ghosts, on the host.
    pub fn download(&self, gpu: &Gpu) -> Result<(Vec<H>, Vec<T>)> {
        Ok((gpu.download(&self.h)?, gpu.download(&self.s)?))
    }
}

/// Launch a streamed fused kernel (plain, compensated or mixed) of the scheme on `stream`, on
/// [`fused_shape`] for the bands its parameters hold.
///
/// # Safety
/// `params` are a fused kernel's: whole arrays as `k` describes, outputs distinct from inputs,
/// bands of `launch.rows` rows.
pub(super) unsafe fn launch_fused<P: kernels::Params + FusedBands, R: Real>(
    kernel: &Kernel<P>,
    k: &Coeffs<R>,
    launch: Launch,
    bounded: bool,
    stream: &CudaStream,
    params: P,
) -> Result<()> {
    let ring = if bounded { bounded_ring_bytes(P::H_BYTES, size_of::<R>() as u32) } else { 0 };
    let shape = fused_shape(k, launch, bounded, params.bands(), kernel.max_threads_per_block())?;
    let shape = shape.with_shared(shape.block.1 as usize * ring as usize);
    // SAFETY: blocks of one warp across, the grid covering the strips (of the scheme's kernel)
    // and the bands' slots, and the bounded kernel's rings of shared memory, as the fused
    // kernels require; the arrays as the caller promises.
    unsafe { kernel.launch_on(stream, shape, params) }
}

/// The bands of rows a streamed fused kernel's parameters say it computes, and the bytes of a
/// value of its h.
pub(super) trait FusedBands {
    const H_BYTES: u32;
    fn bands(&self) -> Bands;
}

impl<T> FusedBands for StepFused<T> {
    const H_BYTES: u32 = size_of::<T>() as u32;
    fn bands(&self) -> Bands {
        self.bands
    }
}

impl<T> FusedBands for kernels::sediment::StepMixed<T> {
    const H_BYTES: u32 = size_of::<f64>() as u32;
    fn bands(&self) -> Bands {
        self.bands
    }
}

/// The streamed fused kernels' launch (plain, compensated and mixed): blocks of 32 ×
/// `launch.block.1` threads, fewer warps when the kernel's registers (`max_threads` a block) do
/// not fit that many (f64 at 72 registers a thread fits 28 warps, not 30); one warp per strip
/// of 28 columns (30 for the bounded scheme) and slot of `bands` (a chunk of `launch.rows` rows).
pub(super) fn fused_shape<T: Real>(
    k: &Coeffs<T>,
    launch: Launch,
    bounded: bool,
    bands: Bands,
    max_threads: u32,
) -> Result<LaunchShape> {
    let warps = launch.block.1.min(max_threads / 32).max(1);
    let chunks = bands.count as u64;
    let cols = if bounded { BOUNDED_STREAM_COLS } else { STREAM_COLS };
    let strips = (k.nx as u64).div_ceil(cols as u64);
    let grid_y = u32::try_from(chunks.div_ceil(warps as u64)).map_err(|_| Error::invalid("grid too large"))?;
    Ok(LaunchShape::fixed((strips as u32, grid_y, 1), (32, warps, 1)))
}

/// The ghost kernels' launch: one thread per perimeter point.
pub(super) fn ghosts_shape<T: Real>(k: &Coeffs<T>) -> Result<LaunchShape> {
    LaunchShape::cover_1d(perimeter_len(&k.layout()) as u64, 128)
}

/// Refuse a launch with an empty block or no rows, in one line.
pub(super) fn check_launch(launch: Launch) -> Result<()> {
    let (bx, by) = launch.block;
    if bx == 0 || by == 0 || launch.rows == 0 {
        return Err(Error::invalid(format!(
            "block {bx}×{by} with {} rows per thread: all must be positive",
            launch.rows
        )));
    }
    Ok(())
}
