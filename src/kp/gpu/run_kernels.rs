//! The kernels a run launches, looked up once for its precision and wet–dry scheme, and the
//! fields of `clamp`'s passes.

use super::super::WetDry;
use crate::field::{DeviceField2, Field2};
use crate::foundation::gpu::BufferKernels;
use crate::grid::Layout2;
use crate::runtime::{DeviceBuffer, Gpu, Kernel};
use crate::{GpuReal, Result};
use kernels::Level;
use kernels::kp::{
    BOUNDARY, CLAMP, CLAMP_COPY, ClampCopy, ClampVelocity, Coeffs, DRAIN, DRAIN_RHS, DT, Drain, DrainRhs, FluxEntries,
    FluxSplit, FluxStream, FluxStreamEarly, FluxStreamRk, FluxTile, FluxTileEarly, M_BOUNDARY, M_CLAMP, M_DRAIN,
    M_DRAIN_RHS, M_FLUX_STREAM_BOLLERMANN, M_FLUX_STREAM_CLAMP, M_FLUX_STREAM_EARLY_BOLLERMANN,
    M_FLUX_STREAM_EARLY_CLAMP, M_FLUX_STREAM_EARLY_KP07, M_FLUX_STREAM_EARLY_MASKED_BOLLERMANN,
    M_FLUX_STREAM_EARLY_MASKED_CLAMP, M_FLUX_STREAM_EARLY_MASKED_KP07, M_FLUX_STREAM_KP07,
    M_FLUX_STREAM_MASKED_BOLLERMANN, M_FLUX_STREAM_MASKED_CLAMP, M_FLUX_STREAM_MASKED_KP07,
    M_FLUX_STREAM_RK_BOLLERMANN, M_FLUX_STREAM_RK_CLAMP, M_FLUX_STREAM_RK_KP07, M_FLUX_STREAM_RK_MASKED_BOLLERMANN,
    M_FLUX_STREAM_RK_MASKED_CLAMP, M_FLUX_STREAM_RK_MASKED_KP07, M_RK, M_RK_FRICTION_FIELD, RK, RK_C,
    RK_C_FRICTION_FIELD, RK_C_RAIN, RK_C_RAIN_FRICTION_FIELD, RK_C_SOIL, RK_C_SOIL_FRICTION_FIELD, RK_FRICTION_FIELD,
    RK_RAIN, RK_RAIN_FRICTION_FIELD, RK_SOIL, RK_SOIL_FRICTION_FIELD, RkStage, SHORE_LISTS, SetGhosts, ShoreLists,
    TimeStep, highest_corner,
};

/// The Kurganov–Petrova kernels of precision `T`, looked up once; the flux kernels those of
/// the problem's wet–dry scheme.
pub(super) struct KpKernels<T: GpuReal> {
    pub(super) flux: Kernel<FluxTile<T>>,
    pub(super) flux_early: Kernel<FluxTileEarly<T>>,
    pub(super) flux_stream: Kernel<FluxStream<T>>,
    pub(super) flux_stream_early: Kernel<FluxStreamEarly<T>>,
    /// The streamed flux kernel with RK2's second stage.
    pub(super) flux_stream_rk: Kernel<FluxStreamRk<T>>,
    /// With the step's uniform forcing in its last stage (`Layout::fused`), the second stage's
    /// and the RK stage's entries that apply it.
    pub(super) forced: Option<ForcedKernels<T>>,
    /// The tile flux kernels' shared memory in `T`s for a block (bx, by).
    pub(super) flux_shared: fn(u32, u32) -> usize,
    /// SRK2's x-line and y-block kernels and their shared memory in `T`s.
    pub(super) x_line: Kernel<FluxSplit<T>>,
    pub(super) y_block: Kernel<FluxSplit<T>>,
    pub(super) line_shared: fn(u32) -> usize,
    pub(super) yblock_shared: fn(u32, u32) -> usize,
    pub(super) rk: Kernel<RkStage<T>>,
    pub(super) boundary: Kernel<SetGhosts<T>>,
    pub(super) dt: Kernel<TimeStep<T>>,
    pub(super) buffers: BufferKernels<T>,
}

/// What the step's last RK stage applies (`Layout::fused`): uniform rain, or rain and a uniform
/// Green–Ampt soil (their entries: `RK_RAIN*`, `RK_SOIL*`).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum InStage {
    Rain,
    Soil,
}

/// The stage kernels of a run whose uniform forcing acts in the step's last RK stage.
pub(super) struct ForcedKernels<T: GpuReal> {
    pub(super) flux_stream_rk: Kernel<FluxStreamRk<T>>,
    pub(super) rk: Kernel<RkStage<T>>,
}

/// The `clamp` scheme's passes and their fields (`gpu/src/kp/drain.rs`).
pub(super) struct ClampPasses<T: GpuReal> {
    pub(super) lists_kernel: Kernel<ShoreLists<T>>,
    pub(super) drain: Kernel<Drain<T>>,
    pub(super) drain_rhs: Kernel<DrainRhs<T>>,
    pub(super) clamp: Kernel<ClampVelocity<T>>,
    pub(super) copy: Kernel<ClampCopy<T>>,
    /// Each cell's highest corner B_hi (padded): partially flooded while w̄ < B_hi; and a host
    /// copy for the flags of a state set from the host.
    pub(super) hi: DeviceField2<T>,
    pub(super) hi_host: Field2<T>,
    /// The draining factors (valid in the blocks `drained` flags), and the clamped momenta (valid
    /// in the blocks of the clamp list).
    pub(super) phi: DeviceField2<T>,
    /// Ones for the ghost layers' rows of φ: a slab resets the rows it sends with them.
    pub(super) ones: DeviceBuffer<T>,
    pub(super) scratch: [DeviceField2<T>; 2],
    pub(super) drained: DeviceBuffer<u32>,
    /// The drain list's blocks, flagged (`kp_shore_lists`): the streamed second stage leaves
    /// them to the RK kernel, after the drain passes.
    pub(super) listed: DeviceBuffer<u32>,
    /// The RK kernel's flags of its output (`kp_rk`), the lists made of them (the drain list's
    /// pairs, then the clamp list's, nbx·nby each) and their lengths.
    pub(super) partial: DeviceBuffer<u32>,
    pub(super) shore: DeviceBuffer<u32>,
    pub(super) lists: DeviceBuffer<u32>,
    pub(super) counts: DeviceBuffer<u32>,
    /// Blocks of the passes' grid, which step through the lists: enough to fill the GPU when a
    /// list is long, few enough to cost nothing when it is empty (nearly always).
    pub(super) grid: u32,
}

impl<T: GpuReal> ClampPasses<T> {
    /// With `mixed`, the passes' mixed entry points (an f64 surface and R_w).
    pub(super) fn new(
        gpu: &Gpu,
        k: &Coeffs<T>,
        bed: &Field2<T>,
        layout: Layout2,
        mixed: bool,
    ) -> Result<ClampPasses<T>> {
        let (p, cp) = (k.pitch as usize, k.cpitch as usize);
        let mut hi = Field2::filled(layout, T::ZERO)?;
        for (c, v) in hi.iter_mut().enumerate() {
            let cc = c / p * cp + c % p;
            *v = highest_corner(bed[cc], bed[cc + 1], bed[cc + cp], bed[cc + cp + 1]);
        }
        let zeros = || DeviceField2::zeros(gpu, layout);
        let blocks = (k.nbx * k.nby) as usize;
        Ok(ClampPasses {
            lists_kernel: gpu.kernel::<T, _>(SHORE_LISTS)?,
            drain: gpu.kernel::<T, _>(if mixed { M_DRAIN } else { DRAIN })?,
            drain_rhs: gpu.kernel::<T, _>(if mixed { M_DRAIN_RHS } else { DRAIN_RHS })?,
            clamp: gpu.kernel::<T, _>(if mixed { M_CLAMP } else { CLAMP })?,
            copy: gpu.kernel::<T, _>(CLAMP_COPY)?,
            hi: DeviceField2::upload(gpu, &hi)?,
            hi_host: hi,
            phi: zeros()?,
            ones: gpu.upload(&vec![T::ONE; (layout.halo * layout.pitch) as usize])?,
            scratch: [zeros()?, zeros()?],
            drained: gpu.zeros(blocks)?,
            listed: gpu.zeros(blocks)?,
            partial: gpu.zeros(blocks)?,
            shore: gpu.zeros(blocks)?,
            lists: gpu.zeros(4 * blocks)?,
            counts: gpu.zeros(2)?,
            grid: (blocks as u32).clamp(1, 8 * gpu.info().sm_count.max(1)),
        })
    }

    /// The flags the RK kernel would have left of padded surface `w` whose velocities need no
    /// clamp (a state set from the host: at the start, or resumed), uploaded.
    pub(super) fn set_flags<W: Level<T>>(&mut self, gpu: &Gpu, k: &Coeffs<T>, w: &[W]) -> Result<()> {
        let p = k.pitch as usize;
        let mut partial = vec![0u32; (k.nbx * k.nby) as usize];
        for j in 0..k.ny as usize {
            for i in 0..k.nx as usize {
                let c = (j + 2) * p + i + 2;
                if w[c] < W::widen(self.hi_host[c]) {
                    partial[j / k.by as usize * k.nbx as usize + i / k.bx as usize] = 1;
                }
            }
        }
        gpu.write(&partial, &mut self.partial)?;
        gpu.write(&vec![0u32; partial.len()], &mut self.shore)
    }
}

impl<T: GpuReal> KpKernels<T> {
    /// The kernels of scheme `wet_dry`, and the RK stage with a friction field when
    /// `friction_field` (else the one that reads `Coeffs::g_n2`), compensated with `compensated`;
    /// with `mixed` the streamed flux, RK and boundary kernels are the mixed entry points (an
    /// f64 surface and R_w; docs/f32-conservation.md). With `masked` (a grid with inactive cells)
    /// the streamed and SRK2 flux kernels that read the activity map. With `forced` also the
    /// stage kernels that apply the step's uniform forcing (never with `mixed`, which refuses
    /// forcing).
    pub(super) fn new(
        gpu: &Gpu,
        wet_dry: WetDry,
        friction_field: bool,
        compensated: bool,
        mixed: bool,
        masked: bool,
        forced: Option<InStage>,
    ) -> Result<KpKernels<T>> {
        let soil = forced == Some(InStage::Soil);
        let rk_forced = match (friction_field, compensated, soil) {
            (false, false, false) => RK_RAIN,
            (true, false, false) => RK_RAIN_FRICTION_FIELD,
            (false, true, false) => RK_C_RAIN,
            (true, true, false) => RK_C_RAIN_FRICTION_FIELD,
            (false, false, true) => RK_SOIL,
            (true, false, true) => RK_SOIL_FRICTION_FIELD,
            (false, true, true) => RK_C_SOIL,
            (true, true, true) => RK_C_SOIL_FRICTION_FIELD,
        };
        let rk = match (friction_field, compensated, mixed) {
            (false, _, true) => M_RK,
            (true, _, true) => M_RK_FRICTION_FIELD,
            (false, false, false) => RK,
            (true, false, false) => RK_FRICTION_FIELD,
            (false, true, false) => RK_C,
            (true, true, false) => RK_C_FRICTION_FIELD,
        };
        let mut flux = match (wet_dry, masked) {
            (WetDry::Bollermann, false) => FluxEntries::BOLLERMANN,
            (WetDry::Kp07, false) => FluxEntries::KP07,
            (WetDry::Clamp, false) => FluxEntries::CLAMP,
            (WetDry::Bollermann, true) => FluxEntries::BOLLERMANN_MASKED,
            (WetDry::Kp07, true) => FluxEntries::KP07_MASKED,
            (WetDry::Clamp, true) => FluxEntries::CLAMP_MASKED,
        };
        if mixed {
            (flux.stream, flux.stream_early, flux.stream_rk) = match (wet_dry, masked) {
                (WetDry::Bollermann, false) => {
                    (M_FLUX_STREAM_BOLLERMANN, M_FLUX_STREAM_EARLY_BOLLERMANN, M_FLUX_STREAM_RK_BOLLERMANN)
                }
                (WetDry::Kp07, false) => (M_FLUX_STREAM_KP07, M_FLUX_STREAM_EARLY_KP07, M_FLUX_STREAM_RK_KP07),
                (WetDry::Clamp, false) => (M_FLUX_STREAM_CLAMP, M_FLUX_STREAM_EARLY_CLAMP, M_FLUX_STREAM_RK_CLAMP),
                (WetDry::Bollermann, true) => (
                    M_FLUX_STREAM_MASKED_BOLLERMANN,
                    M_FLUX_STREAM_EARLY_MASKED_BOLLERMANN,
                    M_FLUX_STREAM_RK_MASKED_BOLLERMANN,
                ),
                (WetDry::Kp07, true) => {
                    (M_FLUX_STREAM_MASKED_KP07, M_FLUX_STREAM_EARLY_MASKED_KP07, M_FLUX_STREAM_RK_MASKED_KP07)
                }
                (WetDry::Clamp, true) => {
                    (M_FLUX_STREAM_MASKED_CLAMP, M_FLUX_STREAM_EARLY_MASKED_CLAMP, M_FLUX_STREAM_RK_MASKED_CLAMP)
                }
            };
        }
        Ok(KpKernels {
            flux: gpu.kernel::<T, _>(flux.tile)?,
            flux_early: gpu.kernel::<T, _>(flux.tile_early)?,
            flux_stream: gpu.kernel::<T, _>(flux.stream)?,
            flux_stream_early: gpu.kernel::<T, _>(flux.stream_early)?,
            flux_stream_rk: gpu.kernel::<T, _>(flux.stream_rk)?,
            forced: match forced.is_some() && !mixed {
                true => Some(ForcedKernels {
                    flux_stream_rk: gpu.kernel::<T, _>(if soil { flux.stream_rk_soil } else { flux.stream_rk_rain })?,
                    rk: gpu.kernel::<T, _>(rk_forced)?,
                }),
                false => None,
            },
            flux_shared: flux.tile_shared,
            x_line: gpu.kernel::<T, _>(flux.x_line)?,
            y_block: gpu.kernel::<T, _>(flux.y_block)?,
            line_shared: flux.line_shared,
            yblock_shared: flux.yblock_shared,
            rk: gpu.kernel::<T, _>(rk)?,
            boundary: gpu.kernel::<T, _>(if mixed { M_BOUNDARY } else { BOUNDARY })?,
            dt: gpu.kernel::<T, _>(DT)?,
            buffers: BufferKernels::new(gpu)?,
        })
    }
}
