//! GPU driver: the state lives on the device for the whole run, and so does the clock. A step
//! launches flux → (block maxima → device-wide max → Δt) → RK stage 1 → boundary, then for RK2
//! flux → RK stage 2 → boundary; Δt is computed on the device and never read back by a step. In
//! `clamp` the draining passes follow each flux (once Δt is known) and the velocity clamp each
//! RK stage, over the blocks listed after the stage before (`drain.rs`). RK2 on the streamed
//! flux kernel without early exit runs its second stage inside that kernel (`flux_rk`; then in
//! `clamp` the RK kernel runs on the drain list's blocks only, after the passes). With forcing
//! and boundary segments, each stage's draining factors are followed by the water account's
//! launch over the boundary faces (`account.rs`). The forcing's kernels follow the step
//! (`forcing.rs`); the step's uniform forcing (uniform rain, a uniform Green–Ampt soil) acts
//! inside its last stage instead, from the rain's depth and the span a one-thread kernel gives
//! once Δt is known.

use super::cpu::CpuKp;
use super::forcing::Layout;
use super::mixed::check_scheme;
use super::perimeter::measure;
use super::problem::Padded;
use super::slab::Start;
use super::{Problem, Scheme, WetDry};
use crate::field::{DeviceField2, Field2};
use crate::foundation::ReduceOp;
use crate::foundation::gpu::{BufferKernels, Reducer};
use crate::grid::Layout2;
use crate::ranks::Halo;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{Error, GpuReal, Result};
use account::{GpuAccount, StageInputs};
use cudarc::driver::CudaStream;
use forcing::{GpuForcing, Target};
use kernels::forcing::Soil;
use kernels::halo::{ghosts_x, ghosts_y};
use kernels::kp::{
    BOUNDARY, CLAMP, CLAMP_COPY, CLOCK_DS_RETRIES, CLOCK_DS_STATE, CLOCK_DS_X, CLOCK_DS_Y, CLOCK_DT, CLOCK_LEN,
    CLOCK_LEN_SPLIT, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, ClampCopy, ClampVelocity, Clock, Coeffs, DRAIN, DRAIN_RHS, DT,
    Drain, DrainRhs, FACES_ALL, FACES_X, FACES_X_T, FluxEntries, FluxSplit, FluxStream, FluxStreamEarly, FluxStreamRk,
    FluxTile, FluxTileEarly, M_BOUNDARY, M_CLAMP, M_DRAIN, M_DRAIN_RHS, M_FLUX_STREAM_BOLLERMANN, M_FLUX_STREAM_CLAMP,
    M_FLUX_STREAM_EARLY_BOLLERMANN, M_FLUX_STREAM_EARLY_CLAMP, M_FLUX_STREAM_EARLY_KP07,
    M_FLUX_STREAM_EARLY_MASKED_BOLLERMANN, M_FLUX_STREAM_EARLY_MASKED_CLAMP, M_FLUX_STREAM_EARLY_MASKED_KP07,
    M_FLUX_STREAM_KP07, M_FLUX_STREAM_MASKED_BOLLERMANN, M_FLUX_STREAM_MASKED_CLAMP, M_FLUX_STREAM_MASKED_KP07,
    M_FLUX_STREAM_RK_BOLLERMANN, M_FLUX_STREAM_RK_CLAMP, M_FLUX_STREAM_RK_KP07, M_FLUX_STREAM_RK_MASKED_BOLLERMANN,
    M_FLUX_STREAM_RK_MASKED_CLAMP, M_FLUX_STREAM_RK_MASKED_KP07, M_RK, M_RK_FRICTION_FIELD, RK, RK_C,
    RK_C_FRICTION_FIELD, RK_C_RAIN, RK_C_RAIN_FRICTION_FIELD, RK_C_SOIL, RK_C_SOIL_FRICTION_FIELD, RK_FRICTION_FIELD,
    RK_RAIN, RK_RAIN_FRICTION_FIELD, RK_SOIL, RK_SOIL_FRICTION_FIELD, RkSplit, RkStage, SHORE_LISTS, SPLIT_GOING,
    SetGhosts, ShoreLists, SplitBegin, SplitCheck, SplitClock, SplitEnd, TimeStep, highest_corner, line_slots,
    stream_slots, stream_strips,
};
use kernels::{Bands, Level};
use out_only::GpuOutOnly;
use split::{GpuSplit, SplitKernels, SplitState};
use std::sync::Arc;

mod account;
mod aside;
mod forcing;
mod mixed;
mod out_only;
mod split;

pub use mixed::MixedLevel;

/// Whether RK2's second stage runs inside the streamed flux kernel unless `set_fused` says
/// otherwise: in every wet–dry scheme and precision but `bollermann` in f64, whose fused kernel
/// (176 registers, capped at 128 with 216 bytes spilled) made the step slower than the two
/// kernels apart on an H200: 2.503 against 2.437 ms at 4096², 0.763 against 0.715 at 2048².
/// Mixed precision runs f32's kernels (`T` = f32): fused.
fn fuses_by_default<T: GpuReal>(wet_dry: WetDry) -> bool {
    !(wet_dry == WetDry::Bollermann && crate::Precision::of::<T>() == crate::Precision::F64)
}

/// Launch parameters (run-time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The RK kernel's block in cells (threads), a multiple of 32 threads; also the tile of the
    /// wet map (one flag a block) and the tile flux kernel's block.
    pub block: (u32, u32),
    /// How the flux kernel divides the grid (RK2 and Euler).
    pub flux: FluxVariant,
    /// SRK2's x-line kernel: cells (threads) a block along a row, a multiple of 32 (its y-block
    /// kernel runs on `block`); DS1 and DS2 run it in both orientations.
    pub line: u32,
}

impl Default for Launch {
    fn default() -> Self {
        Launch { block: (32, 8), flux: FluxVariant::STREAM, line: 128 }
    }
}

/// The flux kernel's decomposition; both give the same R, rates aside (per block or per warp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluxVariant {
    /// Amundsen's kernel: one thread a cell on a 2D shared-memory tile of `Launch::block`.
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

/// The streamed flux kernels' launch (`gpu/src/kp/stream.rs`) of `bands`: blocks of `warps`
/// warps, grid (⌈strips / warps⌉, the bands' count).
fn stream_shape<T: GpuReal>(k: &Coeffs<T>, warps: u32, bands: Bands) -> LaunchShape {
    LaunchShape::fixed((stream_strips(k.nx).div_ceil(warps), bands.count, 1), (32 * warps, 1, 1))
}

/// A slab's problem runs on several ranks, and its start was cut for its launch's blocks.
fn check_slab<T: GpuReal>(problem: &Problem, start: &Start<T>, launch: Launch) -> Result<()> {
    if let Some(why) = problem.refuses_ranks() {
        return Err(Error::invalid(why));
    }
    if (start.k.bx, start.k.by) != launch.block {
        return Err(Error::invalid("kp: a slab's start for another block than its launch's"));
    }
    Ok(())
}

/// Zero the flags `b` on `stream`, ahead of the kernels enqueued after.
fn clear(stream: &Arc<CudaStream>, b: &mut DeviceBuffer<u32>) -> Result<()> {
    stream.memset_zeros(b).map_err(|source| Error::Driver { call: "cuMemsetD8", source })
}

/// SRK2's x-line kernel takes blocks of whole warps, at most 1024 threads.
fn check_line(line: u32) -> Result<()> {
    if line == 0 || !line.is_multiple_of(32) || line > 1024 {
        return Err(Error::invalid(format!(
            "SRK2 x-line kernel of {line} cells: needs a multiple of 32 threads, at most 1024"
        )));
    }
    Ok(())
}

/// Rate slots a step's flux launches write: the flux kernel's of `flux`, or in SRK2 (`line`) the
/// x-line kernel's followed by the y-block kernel's.
fn flux_slots<T: GpuReal>(k: &Coeffs<T>, flux: FluxVariant, line: Option<u32>) -> usize {
    match line {
        Some(l) => line_slots(k.nx, k.ny, l) + (k.nbx * k.nby) as usize,
        None => flux.slots(k.nx, k.ny, (k.bx, k.by)),
    }
}

/// One orientation of the grid on the device (device addresses): the problem's, or the
/// transposed one the split schemes' Y substeps work in (`split.rs`).
#[derive(Clone, Copy)]
struct Side<T> {
    k: Coeffs<T>,
    /// The corner bed and the cell bed.
    bed: *const T,
    cell_bed: *const T,
    /// In `clamp`, each cell's highest corner B_hi; null otherwise.
    hi: *const T,
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

/// The Kurganov–Petrova kernels of precision `T`, looked up once; the flux kernels those of
/// the problem's wet–dry scheme.
struct KpKernels<T: GpuReal> {
    flux: Kernel<FluxTile<T>>,
    flux_early: Kernel<FluxTileEarly<T>>,
    flux_stream: Kernel<FluxStream<T>>,
    flux_stream_early: Kernel<FluxStreamEarly<T>>,
    /// The streamed flux kernel with RK2's second stage.
    flux_stream_rk: Kernel<FluxStreamRk<T>>,
    /// With the step's uniform forcing in its last stage (`Layout::fused`), the second stage's
    /// and the RK stage's entries that apply it.
    forced: Option<ForcedKernels<T>>,
    /// The tile flux kernels' shared memory in `T`s for a block (bx, by).
    flux_shared: fn(u32, u32) -> usize,
    /// SRK2's x-line and y-block kernels and their shared memory in `T`s.
    x_line: Kernel<FluxSplit<T>>,
    y_block: Kernel<FluxSplit<T>>,
    line_shared: fn(u32) -> usize,
    yblock_shared: fn(u32, u32) -> usize,
    rk: Kernel<RkStage<T>>,
    boundary: Kernel<SetGhosts<T>>,
    dt: Kernel<TimeStep<T>>,
    buffers: BufferKernels<T>,
}

/// What the step's last RK stage applies (`Layout::fused`): uniform rain, or rain and a uniform
/// Green–Ampt soil (their entries: `RK_RAIN*`, `RK_SOIL*`).
#[derive(Clone, Copy, PartialEq)]
enum InStage {
    Rain,
    Soil,
}

/// The stage kernels of a run whose uniform forcing acts in the step's last RK stage.
struct ForcedKernels<T: GpuReal> {
    flux_stream_rk: Kernel<FluxStreamRk<T>>,
    rk: Kernel<RkStage<T>>,
}

/// The `clamp` scheme's passes and their fields (`gpu/src/kp/drain.rs`).
struct ClampPasses<T: GpuReal> {
    lists_kernel: Kernel<ShoreLists<T>>,
    drain: Kernel<Drain<T>>,
    drain_rhs: Kernel<DrainRhs<T>>,
    clamp: Kernel<ClampVelocity<T>>,
    copy: Kernel<ClampCopy<T>>,
    /// Each cell's highest corner B_hi (padded): partially flooded while w̄ < B_hi; and a host
    /// copy for the flags of a state set from the host.
    hi: DeviceField2<T>,
    hi_host: Field2<T>,
    /// The draining factors (valid in the blocks `drained` flags), and the clamped momenta (valid
    /// in the blocks of the clamp list).
    phi: DeviceField2<T>,
    /// Ones for the ghost layers' rows of φ: a slab resets the rows it sends with them.
    ones: DeviceBuffer<T>,
    scratch: [DeviceField2<T>; 2],
    drained: DeviceBuffer<u32>,
    /// The drain list's blocks, flagged (`kp_shore_lists`): the streamed second stage leaves
    /// them to the RK kernel, after the drain passes.
    listed: DeviceBuffer<u32>,
    /// The RK kernel's flags of its output (`kp_rk`), the lists made of them (the drain list's
    /// pairs, then the clamp list's, nbx·nby each) and their lengths.
    partial: DeviceBuffer<u32>,
    shore: DeviceBuffer<u32>,
    lists: DeviceBuffer<u32>,
    counts: DeviceBuffer<u32>,
    /// Blocks of the passes' grid, which step through the lists: enough to fill the GPU when a
    /// list is long, few enough to cost nothing when it is empty (nearly always).
    grid: u32,
}

impl<T: GpuReal> ClampPasses<T> {
    /// With `mixed`, the passes' mixed entry points (an f64 surface and R_w).
    fn new(gpu: &Gpu, k: &Coeffs<T>, bed: &Field2<T>, layout: Layout2, mixed: bool) -> Result<ClampPasses<T>> {
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
    fn set_flags<W: Level<T>>(&mut self, gpu: &Gpu, k: &Coeffs<T>, w: &[W]) -> Result<()> {
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
    fn new(
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

/// The device state of one run. Its kernels are looked up once, in [`GpuKp::new`].
pub struct GpuKp<T: GpuReal> {
    k: Coeffs<T>,
    flux_variant: FluxVariant,
    /// SRK2's line length (`Launch::line`).
    line: u32,
    /// Rate slots the flux kernel writes (the Δt reduction reads exactly these).
    slots: usize,
    scheme: Scheme,
    clock_params: Clock,
    bed: DeviceField2<T>,
    cell_bed: DeviceField2<T>,
    /// g·n² per cell when the problem has a Manning field (the RK kernel is then the per-cell one).
    friction: Option<DeviceField2<T>>,
    q: [DeviceField2<T>; 3],
    q1: [DeviceField2<T>; 3],
    /// On the compensated path (`Problem::compensates`, never in mixed precision), w's low
    /// parts of Qⁿ and Q¹ (the RK kernel is then the compensated one); their ghost layers are
    /// never read.
    low: Option<[DeviceField2<T>; 2]>,
    r: [DeviceField2<T>; 3],
    /// In SRK2: R's y part, three padded fields one after the other (`r` then holds the x part);
    /// the rates of its x-line kernel, then those of its y-block kernel, fill `rate`.
    ry: Option<DeviceBuffer<T>>,
    rate: DeviceBuffer<T>,
    /// Wet maps, rotating: `wet[cur]` is the map of Qⁿ (stage 1's flux reads it), the next one
    /// Q¹'s (stage 2's flux), the one after Qⁿ⁺¹'s; the RK kernels of an early-exit step read
    /// the older ones to know which blocks they may skip.
    wet: [DeviceBuffer<u32>; 3],
    cur: usize,
    /// Whether the last flux launch was the early-exit one (its R is unwritten where inactive).
    early: bool,
    /// Whether RK2 on the streamed flux kernel without early exit runs its second stage inside
    /// that kernel (`kp_flux_stream_rk`): the same arithmetic, nine words a cell fewer. The
    /// default is [`fuses_by_default`]'s; `set_fused` overrides it.
    fused: bool,
    dt: DeviceBuffer<T>,
    clock: DeviceBuffer<f64>,
    reducer: Reducer<T>,
    kernels: KpKernels<T>,
    /// The draining and clamp passes, in `clamp`.
    clamp: Option<ClampPasses<T>>,
    /// DS1 and DS2: the transposed orientation, the working states and their kernels.
    split: Option<Box<GpuSplit<T>>>,
    /// Mixed precision (`new_mixed`): the surfaces and R_w in f64, which the kernels read and
    /// write in place of `q[0]`, `q1[0]` and `r[0]` (then unused).
    mixed: Option<Box<MixedLevel>>,
    /// Rain, infiltration and inflows, applied after each step (not in mixed precision).
    forcing: Option<Box<GpuForcing<T>>>,
    /// The activity map `k.active` points to, where some cell is inactive or some face lets
    /// water only out; the ghosts beyond those faces (`out_only`) are set before each flux launch.
    active: Option<DeviceBuffer<u8>>,
    out_only: Option<GpuOutOnly<T>>,
    /// The water account's boundary faces, measured every stage (with forcing and a boundary
    /// segment: `account.rs`).
    account: Option<Box<GpuAccount<T>>>,
    /// The stream the kernels run on (`clamp`'s list counts and the fused second stage's flags
    /// are cleared there).
    stream: Arc<CudaStream>,
    /// On one rank's slab of a grid decomposed over ranks (`slab`).
    ranks: Option<Box<GpuRanks>>,
    /// On a slab whose ranks overlap their exchanges (`Halo::overlaps`): the state (`q1`
    /// with true) whose ghost rows at the cuts are still to come; the next flux launch on it
    /// takes them beside its inner bands (`aside::stream_bands`).
    ghosts_aside: Option<bool>,
}

/// What a slab's driver shares with the other ranks: the ghost rows at its cuts, after every
/// ghost pass, and Δt's rate, every step: GPU to GPU on the stream where the ranks have a
/// direct link (`Halo::link`), else through the host, synchronising.
struct GpuRanks {
    halo: Halo,
    gpu: Arc<Gpu>,
}

/// Which flux kernel a step uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluxKernel {
    Full,
    EarlyExit,
}

/// The GPU's stream waits for the water account's last stages, measured beside it, before the
/// fields they read are freed on it.
impl<T: GpuReal> Drop for GpuKp<T> {
    fn drop(&mut self) {
        // A failed wait leaves nothing to order: the context is gone with the run.
        let _ = self.join_account();
    }
}

impl<T: GpuReal> GpuKp<T> {
    /// Validate, check that the fields fit, upload, set the ghosts and the wet map.
    pub fn new(gpu: &Gpu, problem: &Problem, launch: Launch) -> Result<GpuKp<T>> {
        problem.validate()?;
        Self::build(gpu, problem, launch, None, None)
    }

    /// The driver of one rank's slab of a grid decomposed over ranks (docs/ranks.md): `problem`
    /// is the slab's (`Problem::slab`), `start` the slab's of the whole grid's for
    /// `launch.block` (`Problem::slab_start`), `halo` exchanges the ghost rows at its cuts (through NCCL where the
    /// ranks have the link, else through the host). Refused
    /// where the problem does not run on several ranks (`Problem::refuses_ranks`). In `clamp`
    /// the draining factors and the stage's velocities cross the cuts too (`drain_on`, `clamp`).
    pub fn slab(gpu: &Arc<Gpu>, problem: &Problem, start: Start<T>, halo: Halo, launch: Launch) -> Result<GpuKp<T>> {
        check_slab(problem, &start, launch)?;
        let ranks = Some(Box::new(GpuRanks { halo, gpu: gpu.clone() }));
        Self::build(gpu, problem, launch, None, Some((start, ranks)))
    }

    /// [`new`](Self::new) of a validated problem, with `mixed` (its f64 surfaces, set from the
    /// host) the mixed precision's kernels; with `slab` from a slab's start, exchanging its
    /// ghost rows and Δt's rate with the other ranks.
    #[allow(clippy::type_complexity)]
    fn build(
        gpu: &Gpu,
        problem: &Problem,
        launch: Launch,
        mixed: Option<Box<MixedLevel>>,
        slab: Option<(Start<T>, Option<Box<GpuRanks>>)>,
    ) -> Result<GpuKp<T>> {
        let (bx, by) = launch.block;
        if bx == 0 || by == 0 || (bx * by) % 32 != 0 || bx * by > 1024 {
            return Err(Error::invalid(format!(
                "block {bx}×{by}: the flux and RK kernels need a multiple of 32 threads, at most 1024"
            )));
        }
        launch.flux.check(problem.ny)?;
        let split = problem.scheme == Scheme::Srk2;
        let ds = problem.scheme.is_split();
        if split || ds {
            check_line(launch.line)?;
        }
        let n = problem.padded_cells();
        let w = std::mem::size_of::<T>();
        // State, stage state, R, two beds (and g·n²); with `clamp` B_hi, the draining factors
        // and the scratch momenta; compensated, w's low parts of the state and the stage state;
        // in SRK2 R's y part; in DS1 and DS2 three working states, the transposed cell bed (and
        // B_hi) and corner bed.
        // Mixed precision's surfaces are f64 (`MixedLevel`): no low parts, whatever the problem's
        // accumulation says for f32.
        let compensated = problem.compensates::<T>() && mixed.is_none();
        let clamp = problem.wet_dry == WetDry::Clamp;
        let fields = 11
            + problem.manning_field.is_some() as usize
            + 4 * clamp as usize
            + 2 * compensated as usize
            + 3 * split as usize
            + (10 + clamp as usize) * ds as usize
            // Mixed: the f64 surfaces and R_w (`MixedLevel`), two f32 fields' worth each.
            + 6 * mixed.is_some() as usize;
        let corner_arrays = 1 + ds as usize;
        let forcing = Layout::of(problem);
        if forcing.is_some() && mixed.is_some() {
            return Err(Error::invalid(super::cpu::MIXED_FORCING));
        }
        if ds && !problem.forcing.boundary_is_plain() {
            return Err(Error::invalid(super::cpu::SPLIT_LEVELS));
        }
        // The activity map with the streamed kernel's strips after its cells (`kernels::kp::walls`).
        let active = match &slab {
            Some((start, _)) => {
                start.active.as_ref().map(|a| [a, start.plain_strips.as_deref().unwrap_or_default()].concat())
            }
            None => problem.active_map().map(|a| {
                let strips = problem.plain_strips_of(&a);
                [a, strips].concat()
            }),
        };
        if ds && active.is_some() {
            return Err(Error::invalid(super::cpu::SPLIT_INACTIVE));
        }
        if let Some(l) = &forcing {
            GpuForcing::<T>::check_frames(gpu, l)?;
        }
        gpu.check_fits(
            &format!("a {}×{} shallow-water grid ({fields} fields of {})", problem.nx, problem.ny, T::NAME),
            fields * n * w
                + corner_arrays * (problem.nx + 5) * (problem.ny + 5) * w
                + forcing.as_ref().map_or(0, |l| GpuForcing::<T>::bytes(l, n))
                + active.as_ref().map_or(0, Vec::len),
        )?;
        // Every kernel finds the map through `k`.
        let active = active.map(|a| gpu.upload(&a)).transpose()?;
        let (start, ranks) = match slab {
            Some((start, ranks)) => (start, ranks),
            None => (problem.start::<T>(launch.block)?, None),
        };
        let Start { mut k, padded: Padded { bed, cell_bed, q }, friction, segments, out_only, .. } = start;
        k.active = active.as_ref().map_or(0, |a| a.ptr() as usize as u64);
        let wet: Vec<u32> = super::cpu::wet_map(&k, &q[0], &cell_bed).into_iter().map(u32::from).collect();
        let up = |f: &Field2<T>| DeviceField2::upload(gpu, f);
        let zeros = || DeviceField2::zeros(gpu, problem.layout());
        let slots = if ds {
            GpuSplit::slots(&k, launch.line)
        } else {
            flux_slots(&k, launch.flux, split.then_some(launch.line))
        };
        let clamp = (problem.wet_dry == WetDry::Clamp)
            .then(|| ClampPasses::new(gpu, &k, &bed, problem.layout(), mixed.is_some()))
            .transpose()?;
        let ds = match ds {
            true => Some(Box::new(GpuSplit::new(
                gpu,
                problem.scheme,
                problem.cfl,
                problem.ds_safety,
                (problem.dt_floor, problem.dt_max),
                &k,
                [&bed, &cell_bed],
                clamp.as_ref().map(|c| &c.hi_host[..]),
                problem.manning_field.is_some(),
            )?)),
            false => None,
        };
        let out_only = GpuOutOnly::new(gpu, problem.wet_dry, mixed.is_some(), &out_only)?;
        let mut g = GpuKp {
            k,
            flux_variant: launch.flux,
            line: launch.line,
            slots,
            scheme: problem.scheme,
            clock_params: Clock {
                cfl: problem.cfl,
                t_stop: f64::INFINITY,
                dt_floor: problem.dt_floor,
                dt_max: problem.dt_max,
            },
            bed: up(&bed)?,
            cell_bed: up(&cell_bed)?,
            friction: friction.map(|f| up(&f)).transpose()?,
            q1: [up(&q[0])?, up(&q[1])?, up(&q[2])?],
            q: [up(&q[0])?, up(&q[1])?, up(&q[2])?],
            low: compensated.then(|| Ok::<_, Error>([zeros()?, zeros()?])).transpose()?,
            r: [zeros()?, zeros()?, zeros()?],
            ry: split.then(|| gpu.zeros(3 * n)).transpose()?,
            rate: gpu.zeros(slots)?,
            wet: [gpu.upload(&wet)?, gpu.upload(&wet)?, gpu.upload(&wet)?],
            cur: 0,
            early: false,
            fused: fuses_by_default::<T>(problem.wet_dry),
            dt: gpu.zeros(1)?,
            clock: gpu.zeros(if ds.is_some() { CLOCK_LEN_SPLIT } else { CLOCK_LEN })?,
            reducer: Reducer::new(gpu)?,
            kernels: KpKernels::new(
                gpu,
                problem.wet_dry,
                problem.manning_field.is_some(),
                compensated,
                mixed.is_some(),
                active.is_some(),
                forcing.as_ref().filter(|l| l.fused).map(|l| match l.stage_soil::<T>() {
                    Some(_) => InStage::Soil,
                    None => InStage::Rain,
                }),
            )?,
            clamp,
            split: ds,
            mixed,
            forcing: forcing.map(|l| GpuForcing::new(gpu, &l, n).map(Box::new)).transpose()?,
            out_only,
            active,
            account: GpuAccount::new(gpu, problem, &segments)?.map(Box::new),
            stream: gpu.stream().clone(),
            ranks,
            ghosts_aside: None,
        };
        g.check_block()?;
        g.set_shore(gpu, &q[0])?;
        g.resume_split(gpu, None, 0)?;
        if g.forcing.as_ref().is_some_and(|f| f.sets_ghosts()) {
            g.boundary(false)?;
        }
        Ok(g)
    }

    /// Every kernel launched on the block (the tile flux kernel, the RK stage and `clamp`'s
    /// passes) can take its threads: their registers may allow fewer than 1024.
    fn check_block(&self) -> Result<()> {
        let (bx, by) = (self.k.bx, self.k.by);
        let ks = &self.kernels;
        let mut limits =
            vec![(ks.flux.name(), ks.flux.max_threads_per_block()), (ks.rk.name(), ks.rk.max_threads_per_block())];
        if let Some(r) = &ks.forced {
            limits.push((r.rk.name(), r.rk.max_threads_per_block()));
        }
        if let Some(s) = &self.split {
            limits.extend(s.limits());
        }
        if self.ry.is_some() {
            limits.push((ks.y_block.name(), ks.y_block.max_threads_per_block()));
        }
        if self.ry.is_some() || self.split.is_some() {
            let max = ks.x_line.max_threads_per_block();
            if self.line > max {
                return Err(Error::invalid(format!(
                    "SRK2 x-line kernel of {} cells: kernel {}'s registers allow at most {max} threads",
                    self.line,
                    ks.x_line.name()
                )));
            }
        }
        if let Some(c) = &self.clamp {
            limits.push((c.drain.name(), c.drain.max_threads_per_block()));
            limits.push((c.drain_rhs.name(), c.drain_rhs.max_threads_per_block()));
            limits.push((c.clamp.name(), c.clamp.max_threads_per_block()));
            limits.push((c.copy.name(), c.copy.max_threads_per_block()));
        }
        match limits.into_iter().find(|&(_, max)| bx * by > max) {
            Some((name, max)) => Err(Error::invalid(format!(
                "block {bx}×{by}: {} threads, but kernel {name}'s registers allow at most {max}: use a smaller block",
                bx * by
            ))),
            None => Ok(()),
        }
    }

    /// In `clamp`, for a state `w` (padded) set from the host as Qⁿ: the flags the RK kernel
    /// leaves and the lists the first step's passes visit.
    fn set_shore<W: Level<T>>(&mut self, gpu: &Gpu, w: &[W]) -> Result<()> {
        let k = self.k;
        let Some(c) = &mut self.clamp else { return Ok(()) };
        c.set_flags(gpu, &k, w)?;
        self.shore_lists(self.cur)
    }

    /// In `clamp`: the lists of blocks the passes visit (`kp_shore_lists`), from the flags the
    /// last RK stage left and its output's wet map `self.wet[map]`.
    fn shore_lists(&mut self, map: usize) -> Result<()> {
        self.shore_lists_on(self.k, self.wet[map].ptr())
    }

    /// [`shore_lists`](Self::shore_lists) in orientation `k` from the wet map `wet`.
    fn shore_lists_on(&mut self, k: Coeffs<T>, wet: *const u32) -> Result<()> {
        let Some(c) = &mut self.clamp else { return Ok(()) };
        clear(&self.stream, &mut c.counts)?;
        let shape = LaunchShape::cover_2d(k.nbx as u64, k.nby as u64, (32, 4), (1, 1))?;
        let params = ShoreLists {
            k,
            wet,
            partial: c.partial.ptr(),
            shore: c.shore.ptr(),
            drained: c.drained.ptr_mut(),
            listed: c.listed.ptr_mut(),
            lists: c.lists.ptr_mut(),
            counts: c.counts.ptr_mut(),
        };
        // SAFETY: blocks 32 threads wide covering nbx × nby; wet, partial, shore, drained and
        // listed hold nbx·nby flags, lists 4·nbx·nby words, counts 2, zeroed just before on the same stream.
        unsafe { c.lists_kernel.launch(shape, params) }
    }

    /// Switch the flux kernel (the benchmarks compare them on one state).
    pub fn set_flux(&mut self, gpu: &Gpu, flux: FluxVariant) -> Result<()> {
        flux.check(self.k.ny as usize)?;
        if self.mixed.is_some() && flux == FluxVariant::Tile {
            return Err(Error::invalid(mixed::NO_TILE));
        }
        let slots = flux_slots(&self.k, flux, self.ry.is_some().then_some(self.line));
        if slots > self.rate.len() {
            self.rate = gpu.zeros(slots)?;
        }
        self.flux_variant = flux;
        self.slots = slots;
        Ok(())
    }

    /// Switch SRK2's x-line length (the benchmarks compare them on one state); an error
    /// outside SRK2 or for a length its kernel cannot take.
    pub fn set_line(&mut self, gpu: &Gpu, line: u32) -> Result<()> {
        if self.ry.is_none() {
            return Err(Error::invalid("the x-line length is SRK2's: this model runs another scheme"));
        }
        let (old, old_slots) = (self.line, self.slots);
        self.line = line;
        self.slots = flux_slots(&self.k, self.flux_variant, Some(line));
        if let Err(e) = check_line(line).and_then(|_| self.check_block()) {
            (self.line, self.slots) = (old, old_slots);
            return Err(e);
        }
        if self.slots > self.rate.len() {
            self.rate = gpu.zeros(self.slots)?;
        }
        Ok(())
    }

    pub fn coeffs(&self) -> &Coeffs<T> {
        &self.k
    }

    /// The flux kernel in use (RK2 and Euler).
    pub fn flux_variant(&self) -> FluxVariant {
        self.flux_variant
    }

    /// In SRK2, DS1 and DS2, the x-line length of their flux kernel (which they run whatever the
    /// flux variant); None in the other schemes.
    pub fn split_line(&self) -> Option<u32> {
        (self.ry.is_some() || self.split.is_some()).then_some(self.line)
    }

    /// Steps cap Δt at the time left to `t_stop` (then take Δt = 0).
    pub fn set_stop(&mut self, t_stop: f64) {
        self.clock_params.t_stop = t_stop;
        if let Some(s) = &mut self.split {
            s.clock.t_stop = t_stop;
        }
    }

    /// Fill R, the stage buffer, the rates, Δt and `clamp`'s draining factors and scratch
    /// momenta with NaN, so that anything a kernel fails to
    /// write shows up (the equivalence tests call this before launches).
    pub fn poison(&mut self) -> Result<()> {
        let fill = &self.kernels.buffers;
        // Q¹'s low part too (compensated): its ghost layers are never read.
        for b in self.r.iter_mut().chain(self.q1.iter_mut()).chain(self.low.iter_mut().map(|[_, l1]| l1)) {
            fill.fill(b, T::NAN)?;
        }
        if let Some(ry) = &mut self.ry {
            fill.fill(ry, T::NAN)?;
        }
        if let Some(s) = &mut self.split {
            for b in s.work.iter_mut().flatten() {
                fill.fill(b, T::NAN)?;
            }
        }
        fill.fill(&mut self.rate, T::NAN)?;
        if let Some(m) = &mut self.mixed {
            m.poison()?;
        }
        if let Some(c) = &mut self.clamp {
            // Read only where their passes flagged the block as written.
            for b in std::iter::once(&mut c.phi).chain(c.scratch.iter_mut()) {
                fill.fill(b, T::NAN)?;
            }
        }
        fill.fill(&mut self.dt, T::NAN)
    }

    /// The surface of Qⁿ (or Q¹ with `q1`) as the kernels take it: in mixed precision the f64
    /// field, whose address the mixed entry points read as f64.
    fn w_ptr(&self, q1: bool) -> *const T {
        match &self.mixed {
            Some(m) => m.w[q1 as usize].ptr().cast(),
            None => {
                if q1 {
                    self.q1[0].ptr()
                } else {
                    self.q[0].ptr()
                }
            }
        }
    }

    /// [`w_ptr`](Self::w_ptr), to write.
    fn w_ptr_mut(&mut self, q1: bool) -> *mut T {
        match &mut self.mixed {
            Some(m) => m.w[q1 as usize].ptr_mut().cast(),
            None => {
                if q1 {
                    self.q1[0].ptr_mut()
                } else {
                    self.q[0].ptr_mut()
                }
            }
        }
    }

    /// R_w as the kernels take it (f64 in mixed precision).
    fn rw_ptr_mut(&mut self) -> *mut T {
        match &mut self.mixed {
            Some(m) => m.rw.ptr_mut().cast(),
            None => self.r[0].ptr_mut(),
        }
    }

    fn block_shape(&self) -> Result<LaunchShape> {
        LaunchShape::cover_2d(self.k.nx as u64, self.k.ny as u64, (self.k.bx, self.k.by), (1, 1))
    }

    /// The faces that let water only out opened or closed for a flux launch on `q` (or `q1`).
    fn set_out_only(&mut self, from_q1: bool) -> Result<()> {
        let src = if from_q1 { &self.q1 } else { &self.q };
        let q = [self.w_ptr(from_q1), src[1].ptr(), src[2].ptr()];
        match (&self.out_only, &mut self.active) {
            (Some(o), Some(a)) => o.launch(self.k, q, self.bed.ptr(), a.ptr_mut()),
            _ => Ok(()),
        }
    }

    /// R of `q` (stage 1) or `q1` (stage 2) and the per-block (tile) or per-warp (stream) rates.
    pub fn flux(&mut self, kernel: FluxKernel, from_q1: bool) -> Result<()> {
        if !self.streams_bands() || self.ghosts_aside.is_some_and(|q1| q1 != from_q1) {
            self.settle()?;
        }
        self.set_out_only(from_q1)?;
        let k = self.k;
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
    /// or as its own kernel after it, whatever [`fuses_by_default`] chose; both give the same
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
        let k = self.k;
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
    fn streams_bands(&self) -> bool {
        matches!(self.flux_variant, FluxVariant::Stream { .. })
            && self.ry.is_none()
            && self.split.is_none()
            && self.mixed.is_none()
    }

    /// The ghost rows still to come of [`boundary_deferred`](Self::boundary_deferred), now and
    /// on the stream: before anything but a flux launch reads the state's ghost rows (the end of
    /// `GpuRun::advance`, a flux kernel that does not stream bands).
    pub fn settle(&mut self) -> Result<()> {
        match self.ghosts_aside.take() {
            Some(on_q1) => self.exchange(on_q1),
            None => Ok(()),
        }
    }

    /// Device-wide max of the rates, then Δt and the clock on the device.
    pub fn time_step(&mut self) -> Result<()> {
        self.reducer.enqueue(ReduceOp::Max, &self.rate, self.slots)?;
        if let Some(r) = &self.ranks {
            // The largest rate of every rank: a maximum, so the one-rank run's bit for bit. The
            // rates are never NaN (a NaN counts as an infinite speed), so NCCL's maximum, which
            // would lose a NaN, keeps a blow-up.
            r.halo.max_device(&r.gpu, self.reducer.result_mut())?;
        }
        let params = TimeStep {
            c: self.clock_params,
            rate: self.reducer.result().ptr(),
            dt: self.dt.ptr_mut(),
            clock: self.clock.ptr_mut(),
        };
        // SAFETY: rate is the reducer's 1-element result, dt holds 1, clock CLOCK_LEN; thread 0
        // alone writes.
        unsafe { self.kernels.dt.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), params) }
    }

    /// What the stage forces each cell with: the forcing's, in the step's `last` stage where
    /// the forcing acts inside it (`Layout::fused`; `GpuForcing::in_stage`), else nulls.
    fn in_stage(&self, last: bool) -> (*const T, Soil<T>, *mut T) {
        match &self.forcing {
            Some(f) if last => f.in_stage(),
            _ => (std::ptr::null(), Soil::NONE, std::ptr::null_mut()),
        }
    }

    /// RK stage 1 (q → q1) or 2 (q ← ½(q + E(q1))), with the wet map.
    pub fn rk(&mut self, stage: u32) -> Result<()> {
        let shape = self.block_shape()?.with_shared_of::<T>(32);
        self.rk_on(stage, shape, std::ptr::null(), std::ptr::null())
    }

    /// In `clamp`, RK stage 2 in the blocks of the drain list alone, which the streamed second
    /// stage (`flux_rk`) left to it: their R is final only after the drain passes.
    fn rk_listed(&mut self) -> Result<()> {
        let Some(c) = &self.clamp else { return Ok(()) };
        let shape = LaunchShape::fixed((c.grid, 1, 1), (self.k.bx, self.k.by, 1)).with_shared_of::<T>(32);
        let (list, count) = (c.lists.ptr(), c.counts.ptr());
        self.rk_on(2, shape, list, count)
    }

    /// [`rk`](Self::rk) on the grid of blocks `shape`, or (`list` not null) on the `count[0]`
    /// blocks of `list`.
    fn rk_on(&mut self, stage: u32, shape: LaunchShape, list: *const u32, count: *const u32) -> Result<()> {
        let (m0, m_in) = (self.map(false), self.map(stage == 2));
        let q0 = self.q.each_ref().map(|b| b.ptr());
        let (q1, out) = if stage == 1 {
            (q0, self.q1.each_mut().map(|b| b.ptr_mut()))
        } else {
            (self.q1.each_ref().map(|b| b.ptr()), self.q.each_mut().map(|b| b.ptr_mut()))
        };
        let mut r = self.r.each_ref().map(|b| b.ptr());
        let (mut q0, mut q1, mut out) = (q0, q1, out);
        if self.mixed.is_some() {
            // The f64 surfaces and R_w (the mixed RK entry reads them as f64).
            (q0[0], r[0]) = (self.w_ptr(false), self.rw_ptr_mut().cast_const());
            q1[0] = self.w_ptr(stage == 2);
            out[0] = self.w_ptr_mut(stage == 1);
        }
        let ry = self.ry.as_ref().map_or(std::ptr::null(), |b| b.ptr());
        // w's low parts (compensated): Qⁿ's, and Q¹'s or Qⁿ's as q1 and out are; nulls if plain.
        let low = self.low.as_ref().map_or([std::ptr::null(); 2], |l| l.each_ref().map(|b| b.ptr()));
        let low_out = self.low.as_mut().map_or(std::ptr::null_mut(), |l| l[2 - stage as usize].ptr_mut());
        let (uniform, soil, f) = self.in_stage(stage == 2 || self.scheme == Scheme::Euler);
        let params = RkStage {
            k: self.k,
            stage,
            early: self.early as u32,
            dt: self.dt.ptr(),
            bc: self.cell_bed.ptr(),
            gn2: self.friction.as_ref().map_or(std::ptr::null(), |f| f.ptr()),
            w0: q0[0],
            hu0: q0[1],
            hv0: q0[2],
            w1: q1[0],
            hu1: q1[1],
            hv1: q1[2],
            rw: r[0],
            rhu: r[1],
            rhv: r[2],
            ry,
            ow: out[0],
            ohu: out[1],
            ohv: out[2],
            wet_m0: self.wet[m0].ptr(),
            wet_in: self.wet[m_in].ptr(),
            wet_out: self.wet[(m_in + 1) % 3].ptr_mut(),
            hi: self.clamp.as_ref().map_or(std::ptr::null(), |c| c.hi.ptr()),
            partial: self.clamp.as_mut().map_or(std::ptr::null_mut(), |c| c.partial.ptr_mut()),
            shore: self.clamp.as_mut().map_or(std::ptr::null_mut(), |c| c.shore.ptr_mut()),
            lo0: low[0],
            lo1: low[stage as usize - 1],
            olo: low_out,
            list,
            count,
            uniform,
            soil,
            f,
        };
        // SAFETY: every state, R and bed array is padded to k.cells(), and so is gn2 where the
        // kernel reads it (the per-cell one, chosen in new exactly when `friction` is uploaded;
        // the other reads no gn2, null); out is q1 (stage 1,
        // distinct from every input) or q (stage 2, aliasing only q0 = w0, hu0, hv0, which the
        // kernel allows); the three wet maps hold nbx·nby flags, wet_out distinct from the other
        // two; the flux kernel's blocks; 32 T of shared memory. hi is null, or (in clamp) the
        // padded B_hi with partial and shore nbx·nby flags. ry is null, or (SRK2) 3·cells. lo0,
        // lo1, olo are null (the plain kernel, which ignores them) or padded arrays aliasing as
        // w0, w1 and ow do. list is null (the block shape: nbx × nby blocks of bx × by), or the
        // drain list's pairs with their count in `counts` (rk_listed: a 1-D grid of bx × by).
        let rk = match &self.kernels.forced {
            Some(r) if !params.uniform.is_null() => &r.rk,
            _ => &self.kernels.rk,
        };
        unsafe { rk.launch(shape, params) }
    }

    /// In `clamp`, once Δt is known: the draining factors of the state the last flux launch read
    /// (`q`, or `q1` with `from_q1`), and R recomputed where a face drains, in the blocks of the
    /// drain list (`drain.rs`). Nothing in the other schemes.
    pub fn drain(&mut self, from_q1: bool) -> Result<()> {
        let wet_in = self.wet[self.map(from_q1)].ptr();
        let src = if from_q1 { &self.q1 } else { &self.q };
        let mut state = src.each_ref().map(|b| b.ptr());
        state[0] = self.w_ptr(from_q1);
        self.drain_on(self.side(), state, wet_in, false)
    }

    /// [`drain`](Self::drain) of `state` in orientation `side`; with `split` (DS1, DS2) from the
    /// x faces alone, R the x part.
    fn drain_on(&mut self, side: Side<T>, [w, hu, hv]: [*const T; 3], wet_in: *const u32, split: bool) -> Result<()> {
        let Some(c) = &mut self.clamp else { return Ok(()) };
        let k = side.k;
        let shape = LaunchShape::fixed((c.grid, 1, 1), (k.bx, k.by, 1));
        let (early, bed, split) = (self.early as u32, side.bed, split as u32);
        let (list, count) = (c.lists.ptr(), c.counts.ptr());
        let params = Drain {
            k,
            early,
            split,
            dt: self.dt.ptr(),
            w,
            hu,
            hv,
            bed,
            bc: side.cell_bed,
            hi: side.hi,
            wet_in,
            list,
            count,
            phi: c.phi.ptr_mut(),
            drained: c.drained.ptr_mut(),
        };
        let [mut rw, rhu, rhv] = self.r.each_mut().map(|r| r.ptr_mut());
        if let Some(m) = &mut self.mixed {
            rw = m.rw.ptr_mut().cast();
        }
        let (phi, drained) = (c.phi.ptr(), c.drained.ptr());
        let ry = self.ry.as_mut().map_or(std::ptr::null_mut(), |b| b.ptr_mut());
        let rhs = DrainRhs { k, early, split, w, hu, hv, bed, phi, drained, wet_in, list, count, rw, rhu, rhv, ry };
        // On a slab the rows it hands its neighbours start at 1 every stage, so that they hold 1
        // wherever nothing drained. Elsewhere φ is read only in the blocks the drain pass flags
        // and writes whole (a whole grid's φ is stale elsewhere and not read either).
        if let Some(r) = &self.ranks {
            for rows in r.halo.sent_rows().into_iter().flatten() {
                r.gpu.copy_dtod_at(&c.ones, &mut c.phi, rows.start)?;
            }
        }
        // SAFETY: the state, beds, B_hi, φ and R are padded arrays (the corner bed the corner
        // array), dt holds 1, the maps nbx·nby flags (drained 0 outside the drain list, which
        // `shore_lists` made of this state); blocks of k.bx × k.by.
        unsafe { c.drain.launch(shape, params)? };
        if let Some(r) = &self.ranks {
            r.halo.exchange_device(&r.gpu, &mut [&mut c.phi])?;
        }
        // SAFETY: as above; R (and ry, null or 3·cells) distinct from every input. It reads φ and
        // the flags the first launch wrote, on the same stream.
        unsafe { c.drain_rhs.launch(shape, rhs) }
    }

    /// The water account's share of RK stage 1 (of `q`) or 2 (of `q1`, `from_q1`) of an unsplit
    /// step, once its draining factors are known: the faces of the boundary segments, through
    /// the wet map the flux launch read (early exit) and `clamp`'s draining factors; the step's
    /// last stage (`last`) commits it. Nothing without segments.
    fn account_stage(&mut self, from_q1: bool, last: bool) -> Result<()> {
        let src = if from_q1 { &self.q1 } else { &self.q };
        let mut q = src.each_ref().map(|b| b.ptr());
        q[0] = self.w_ptr(from_q1);
        let wet = if self.early { self.wet[self.map(from_q1)].ptr() } else { std::ptr::null() };
        let scale = if self.scheme == Scheme::Euler { 1.0 } else { 0.5 };
        self.account_on(self.side(), q, std::ptr::null(), wet, scale, FACES_ALL, last, true)
    }

    /// The GPU's stream waits for the water account's stages measured beside it
    /// (`account.rs`): before anything rewrites what they read.
    fn join_account(&self) -> Result<()> {
        self.account.as_ref().map_or(Ok(()), |a| a.join())
    }

    /// The water account's share of a stage of weight `scale` over `faces` of the state `q` in
    /// orientation `side` (`clock`: the split clock, or null), committing with `commit`;
    /// `beside` the GPU's stream, joined before anything rewrites what it reads
    /// ([`join_account`](Self::join_account)): stage 2 of RK2, the next step.
    #[allow(clippy::too_many_arguments)]
    fn account_on(
        &mut self,
        side: Side<T>,
        q: [*const T; 3],
        clock: *const f64,
        wet: *const u32,
        scale: f64,
        faces: u32,
        commit: bool,
        beside: bool,
    ) -> Result<()> {
        let Some(a) = &mut self.account else { return Ok(()) };
        let (phi, drained) = match &self.clamp {
            Some(c) => (c.phi.ptr(), c.drained.ptr()),
            None => (std::ptr::null(), std::ptr::null()),
        };
        let inputs = StageInputs { q, bed: side.bed, dt: self.dt.ptr(), clock, wet, phi, drained };
        a.stage(side.k, measure(scale, faces, commit), &inputs, beside)
    }

    /// With boundary segments, every face's volumes so far (`CpuKp::boundary_volumes`'
    /// layout), on the host (synchronises); None otherwise.
    pub fn boundary_volumes(&self, gpu: &Gpu) -> Result<Option<Vec<f64>>> {
        self.account.as_ref().map(|a| a.download(gpu)).transpose()
    }

    /// Continue the boundary volumes from [`boundary_volumes`](Self::boundary_volumes)'
    /// values (nothing without segments).
    pub fn resume_boundary(&mut self, gpu: &Gpu, totals: &[f64]) -> Result<()> {
        self.account.as_mut().map_or(Ok(()), |a| a.resume(gpu, totals))
    }

    /// In `clamp`, after an RK stage: the lists of blocks for the passes from its flags, and the
    /// velocity clamp of its output (`q1` after stage 1 with `on_q1`, `q` after stage 2) in the
    /// blocks of the clamp list, before its ghosts are set. Nothing in the other schemes.
    pub fn clamp(&mut self, on_q1: bool) -> Result<()> {
        // The map the stage's RK kernel wrote (`rk`: stage 1 writes map(true), stage 2 the next).
        let wet = self.wet[(self.cur + if on_q1 { 1 } else { 2 }) % 3].ptr();
        // On a slab the clamp reads the neighbours' velocities beyond the cut as the stage left them.
        if self.clamp.is_some() {
            self.exchange(on_q1)?;
        }
        let w = self.w_ptr_mut(on_q1);
        let dst = if on_q1 { &mut self.q1 } else { &mut self.q };
        let mut state = dst.each_mut().map(|b| b.ptr_mut());
        state[0] = w;
        self.clamp_on(self.side(), wet, state)
    }

    /// [`clamp`](Self::clamp) of `state` in orientation `side`, whose RK stage wrote the wet map
    /// `wet` and the flags.
    fn clamp_on(&mut self, side: Side<T>, wet: *const u32, [w, hu, hv]: [*mut T; 3]) -> Result<()> {
        if self.clamp.is_none() {
            return Ok(());
        }
        let k = side.k;
        self.shore_lists_on(k, wet)?;
        let Some(c) = &mut self.clamp else { return Ok(()) };
        let shape = LaunchShape::fixed((c.grid, 1, 1), (k.bx, k.by, 1));
        let [shu, shv] = c.scratch.each_mut().map(|b| b.ptr_mut());
        let blocks = (k.nbx * k.nby) as usize;
        // The clamp list follows the drain list's nbx·nby pairs; its length is the second count.
        let (list, count) = (c.lists.ptr().wrapping_add(2 * blocks), c.counts.ptr().wrapping_add(1));
        let (bc, hi) = (side.cell_bed, side.hi);
        let params = ClampVelocity { k, w, hu, hv, bc, hi, list, count, shu, shv };
        let copy = ClampCopy { k, shu, shv, list, count, hu, hv };
        // SAFETY: state, beds, B_hi and scratch are padded arrays, the scratch distinct from the
        // state; the list and its count inside `lists` and `counts`; blocks of k.bx × k.by. The
        // copy runs after the clamp has read every momentum (same stream).
        unsafe {
            c.clamp.launch(shape, params)?;
            c.copy.launch(shape, copy)
        }
    }

    /// Index of the wet map of Qⁿ (`stage2` false) or of Q¹ (true).
    fn map(&self, stage2: bool) -> usize {
        (self.cur + stage2 as usize) % 3
    }

    /// Both ghost passes on `q` (or `q1`).
    pub fn boundary(&mut self, on_q1: bool) -> Result<()> {
        self.ghost_passes(on_q1)?;
        self.exchange(on_q1)
    }

    /// The ghost passes of `q` (or `q1`) in the problem's orientation, without the exchange.
    fn ghost_passes(&mut self, on_q1: bool) -> Result<()> {
        let w = self.w_ptr_mut(on_q1);
        let dst = if on_q1 { &mut self.q1 } else { &mut self.q };
        let mut state = dst.each_mut().map(|b| b.ptr_mut());
        state[0] = w;
        self.boundary_on(self.side(), state)
    }

    /// [`boundary`](Self::boundary) inside a step: on a slab whose ranks overlap their
    /// exchanges the ghost rows at the cuts are left to the next flux launch on the state, which
    /// takes them beside its inner bands (`ghosts_aside`; [`settle`](Self::settle) takes them
    /// at once).
    fn boundary_deferred(&mut self, on_q1: bool) -> Result<()> {
        if !self.ranks.as_ref().is_some_and(|r| r.halo.overlaps()) || !self.streams_bands() {
            return self.boundary(on_q1);
        }
        self.ghost_passes(on_q1)?;
        self.ghosts_aside = Some(on_q1);
        Ok(())
    }

    /// [`boundary`](Self::boundary) of `state` in orientation `side`.
    fn boundary_on(&self, side: Side<T>, [w, hu, hv]: [*mut T; 3]) -> Result<()> {
        let (k, bc) = (side.k, side.cell_bed);
        let layout = k.layout();
        // Held levels in the problem's orientation (the split schemes, which transpose, have none).
        let (levels, level_map) = match &self.forcing {
            Some(f) if bc == self.cell_bed.ptr() => f.ghosts(),
            _ => (std::ptr::null(), std::ptr::null()),
        };
        for (axis, count) in [(0u32, ghosts_x(&layout)), (1u32, ghosts_y(&layout))] {
            let shape = LaunchShape::cover_1d(count as u64, 128)?;
            // SAFETY: w, hu, hv and bc are padded arrays of orientation k; one thread per ghost
            // of the pass, each writing only its ghost (sources are interior cells or, in pass 1,
            // ghosts set by pass 0, which ran before on the same stream); the level map, in the
            // problem's orientation only, holds 2(nx + ny) entries indexing `levels`.
            let params = SetGhosts { k, axis, w, hu, hv, bc, levels, level_map };
            unsafe { self.kernels.boundary.launch(shape, params)? };
        }
        Ok(())
    }

    /// The largest `x` of every rank on a slab of a decomposed run (`x` itself on a whole grid):
    /// what the ranks decide together, such as the early-exit kernel.
    pub fn max_over_ranks(&self, x: f64) -> Result<f64> {
        match &self.ranks {
            Some(r) => r.halo.comm().max(x),
            None => Ok(x),
        }
    }

    /// On a slab, the ghost rows at its cuts of `q` (or `q1`) from its neighbours (synchronises).
    /// In the mixed precision the surfaces (f64) go apart from the momenta (f32).
    fn exchange(&mut self, on_q1: bool) -> Result<()> {
        let Some(r) = &self.ranks else { return Ok(()) };
        let dst = if on_q1 { &mut self.q1 } else { &mut self.q };
        let [w, hu, hv] = dst.each_mut().map(|f| &mut **f);
        match &mut self.mixed {
            Some(m) => {
                r.halo.exchange_device(&r.gpu, &mut [&mut *m.w[on_q1 as usize]])?;
                r.halo.exchange_device(&r.gpu, &mut [hu, hv])
            }
            None => r.halo.exchange_device(&r.gpu, &mut [w, hu, hv]),
        }
    }

    /// The problem's orientation.
    fn side(&self) -> Side<T> {
        Side {
            k: self.k,
            bed: self.bed.ptr(),
            cell_bed: self.cell_bed.ptr(),
            hi: self.clamp.as_ref().map_or(std::ptr::null(), |c| c.hi.ptr()),
        }
    }

    /// One whole step: Δt on the device, then Euler or RK2, or (DS1, DS2, whose kernels have no
    /// early exit: `kernel` does not matter) a split step; then the forcing over the time it
    /// advanced and the ghosts of the forced state.
    pub fn step(&mut self, kernel: FluxKernel) -> Result<()> {
        // The last step's account, measured beside the stream, read its state and Δt.
        self.join_account()?;
        // Early exit does not see water a held level's ghosts bring to a dry block (`CpuKp::new`).
        let kernel = if self.forcing.as_ref().is_some_and(|f| f.sets_ghosts()) { FluxKernel::Full } else { kernel };
        if self.split.is_some() {
            self.split_step()?;
        } else {
            // The forcing's kernels read no ghost, and the ghosts are set after them.
            self.flow(kernel, self.forcing.is_none())?;
        }
        if self.forcing.is_some() {
            let to = Target {
                w: self.q[0].ptr_mut(),
                lo: self.low.as_mut().map_or(std::ptr::null_mut(), |[lo, _]| lo.ptr_mut()),
                hu: self.q[1].ptr_mut(),
                hv: self.q[2].ptr_mut(),
                cell_bed: self.cell_bed.ptr(),
                wet: self.wet[self.cur].ptr_mut(),
            };
            let k = self.k;
            if let Some(f) = &mut self.forcing {
                f.apply(k, &self.clock, &to)?;
            }
            self.boundary_deferred(false)?;
        }
        Ok(())
    }

    /// The step of [`step`](Self::step) without the forcing, in Euler or RK2; the output's
    /// ghosts set with `ghosts`.
    fn flow(&mut self, kernel: FluxKernel, ghosts: bool) -> Result<()> {
        self.flux(kernel, false)?;
        self.time_step()?;
        if let Some(f) = &mut self.forcing {
            f.stage_amounts(&self.clock)?;
        }
        self.drain(false)?;
        self.account_stage(false, self.scheme == Scheme::Euler)?;
        self.rk(1)?;
        self.clamp(true)?;
        if ghosts || self.scheme != Scheme::Euler {
            self.boundary_deferred(true)?;
        }
        match self.scheme {
            Scheme::Euler => {
                self.q.swap_with_slice(&mut self.q1);
                // Q¹'s ghost rows still to come are now Qⁿ's.
                self.ghosts_aside = self.ghosts_aside.map(|_| false);
                if let Some(l) = &mut self.low {
                    l.swap(0, 1);
                }
                if let Some(m) = &mut self.mixed {
                    m.w.swap(0, 1);
                }
                self.cur = (self.cur + 1) % 3;
            }
            Scheme::Rk2 | Scheme::Srk2 | Scheme::Ds1 | Scheme::Ds2 => {
                // Stage 1's account, measured beside the stream, read Qⁿ and the draining
                // factors, which stage 2 rewrites (its update writes Qⁿ⁺¹ over Qⁿ, its drain
                // pass the factors).
                self.join_account()?;
                if self.fuses(kernel) {
                    self.flux_rk()?;
                    self.drain(true)?;
                    self.account_stage(true, true)?;
                    self.rk_listed()?;
                } else {
                    self.flux(kernel, true)?;
                    self.drain(true)?;
                    self.account_stage(true, true)?;
                    self.rk(2)?;
                }
                self.clamp(false)?;
                if ghosts {
                    self.boundary_deferred(false)?;
                }
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
    fn build_mixed(
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
        (start, state): (Start<f32>, super::state::State<f32, f64>),
        halo: Halo,
        launch: Launch,
    ) -> Result<GpuKp<f32>> {
        check_slab(problem, &start, launch)?;
        let fields = (state.w.stored(), state.hu.stored(), state.hv.stored());
        let wet: Vec<u32> = super::state::wet_map(&start.k, fields.0, start.padded.cell_bed.stored())
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

/// A state's three fields as the kernels take them.
fn ptrs<T>(s: &mut [DeviceBuffer<T>; 3]) -> [*mut T; 3] {
    s.each_mut().map(|b| b.ptr_mut())
}

fn reading<T>(s: [*mut T; 3]) -> [*const T; 3] {
    s.map(|p| p.cast_const())
}

/// DS1 and DS2 on the device (`split.rs` holds the transposed orientation, the working states
/// and the kernels these steps launch; it says which buffers each substep reads and writes).
impl<T: GpuReal> GpuKp<T> {
    /// The orientation of `axis` (0: the problem's, X; 1: the transposed one, Y).
    fn oriented(&self, axis: u32) -> Side<T> {
        match (axis, &self.split) {
            (1, Some(s)) => Side {
                k: s.ky,
                bed: s.y_bed.ptr(),
                cell_bed: s.y_cell_bed.ptr(),
                hi: s.y_hi.as_ref().map_or(std::ptr::null(), |h| h.ptr()),
            },
            _ => self.side(),
        }
    }

    /// One split step (DS1 or DS2) from Qⁿ, all on the device: Qⁿ⁺¹ in `q`, or Qⁿ left as it was
    /// where a substep found Δt too large (the clock then holds the halved estimates).
    pub(super) fn split_step(&mut self) -> Result<()> {
        let Some(s) = &mut self.split else { return Ok(()) };
        let ds2 = s.clock.substeps == 2.0;
        let [a, b, c] = s.work.each_mut().map(ptrs);
        let q = self.q.each_mut().map(|b| b.ptr_mut());
        self.split_clock(|ks, c, dt, clock| {
            // SAFETY: dt holds 1, clock CLOCK_LEN_SPLIT (new); one thread writes.
            unsafe { ks.begin.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), SplitBegin { c, dt, clock }) }
        })?;
        if ds2 {
            self.substep(0, q, Some(a), b, true)?;
            self.substep(1, b, Some(c), a, false)?;
            self.substep(1, a, Some(c), b, true)?;
            self.substep(0, b, Some(c), q, false)?;
        } else {
            self.substep(0, q, None, a, true)?;
            self.substep(1, a, None, q, true)?;
        }
        self.split_clock(|ks, c, dt, clock| {
            // SAFETY: as for the begin kernel.
            unsafe { ks.end.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), SplitEnd { c, dt, clock }) }
        })?;
        let (k, clock) = (self.k, self.clock.ptr());
        match &mut self.account {
            Some(a) => a.commit_split(k, clock),
            None => Ok(()),
        }
    }

    /// Launch a clock kernel with the split parameters, Δt and the clock.
    fn split_clock(
        &mut self,
        launch: impl FnOnce(&SplitKernels<T>, SplitClock, *mut T, *mut f64) -> Result<()>,
    ) -> Result<()> {
        let (dt, clock) = (self.dt.ptr_mut(), self.clock.ptr_mut());
        let Some(s) = &self.split else { return Ok(()) };
        launch(&s.kernels, s.clock, dt, clock)
    }

    /// Substep X of orientation `axis` from `input`: Euler into `out` (`mid` None) or RK2
    /// through `mid`; `out` in the other orientation with `transpose`.
    fn substep(
        &mut self,
        axis: u32,
        input: [*mut T; 3],
        mid: Option<[*mut T; 3]>,
        out: [*mut T; 3],
        transpose: bool,
    ) -> Result<()> {
        let from = self.oriented(axis);
        let to = if transpose { self.oriented(1 - axis) } else { from };
        self.line_flux(from, reading(input))?;
        self.substep_limit(from, axis, true)?;
        let wet = self.wet[0].ptr();
        self.drain_on(from, reading(input), wet, true)?;
        // The account: this orientation's x faces, each stage's share while the step is going.
        let (faces, clock) = (if axis == 0 { FACES_X } else { FACES_X_T }, self.clock.ptr());
        let null = std::ptr::null();
        let scale = if mid.is_some() { 0.5 } else { 1.0 };
        self.account_on(from, reading(input), clock, null, scale, faces, false, false)?;
        match mid {
            None => {
                self.split_stage(axis, 1, reading(input), reading(input), out, transpose, from.hi)?;
                self.clamp_on(to, wet, out)?;
                self.boundary_on(to, out)
            }
            Some(mid) => {
                self.split_stage(axis, 1, reading(input), reading(input), mid, false, from.hi)?;
                self.clamp_on(from, wet, mid)?;
                self.boundary_on(from, mid)?;
                self.line_flux(from, reading(mid))?;
                self.drain_on(from, reading(mid), wet, true)?;
                self.account_on(from, reading(mid), clock, null, scale, faces, false, false)?;
                self.split_stage(axis, 2, reading(input), reading(mid), out, transpose, from.hi)?;
                self.clamp_on(to, wet, out)?;
                self.boundary_on(to, out)
            }
        }
    }

    /// R of the x faces of `state` in orientation `side` into `r`, and the x-line kernel's rates.
    fn line_flux(&mut self, side: Side<T>, [w, hu, hv]: [*const T; 3]) -> Result<()> {
        let (k, line, bed) = (side.k, self.line, side.bed);
        let [rw, rhu, rhv] = self.r.each_mut().map(|r| r.ptr_mut());
        let rate = self.rate.ptr_mut();
        let params = FluxSplit { k, early: 0, w, hu, hv, bed, rw, rhu, rhv, rate, wet: std::ptr::null() };
        let shape = LaunchShape::fixed((k.nx.div_ceil(line), k.ny, 1), (line, 1, 1)).with_shared_of::<T>((self
            .kernels
            .line_shared)(
            line
        ));
        // SAFETY: state, R and beds are padded arrays of orientation k (every orientation has
        // k.cells() cells), R distinct from the state; rate holds the slots of either
        // orientation (GpuSplit::slots); blocks of `line` threads (checked in new) over
        // (⌈nx/line⌉, ny); shared memory line_shared of the kernel's scheme; no early exit.
        unsafe { self.kernels.x_line.launch(shape, params) }
    }

    /// The largest rate of the last x-line launch in orientation `side` as the limit of `axis`;
    /// with `compare`, the step is discarded if it is below Δt.
    fn substep_limit(&mut self, side: Side<T>, axis: u32, compare: bool) -> Result<()> {
        self.reducer.enqueue(ReduceOp::Max, &self.rate, line_slots(side.k.nx, side.k.ny, self.line))?;
        let rate = self.reducer.result().ptr();
        let compare = compare as u32;
        self.split_clock(|ks, c, _, clock| {
            // SAFETY: rate is the reducer's 1-element result, clock CLOCK_LEN_SPLIT; one thread.
            unsafe {
                ks.check.launch(LaunchShape::fixed((1, 1, 1), (32, 1, 1)), SplitCheck { c, axis, compare, rate, clock })
            }
        })
    }

    /// RK stage `stage` (0: copy) of a substep of `axis` from `q0`, `q1` and R into `out`,
    /// transposed with `transpose`; the flags (wet map, and with `hi` not null the `clamp`
    /// lists' flags) of the output into `wet[0]`.
    #[allow(clippy::too_many_arguments)]
    fn split_stage(
        &mut self,
        axis: u32,
        stage: u32,
        [w0, hu0, hv0]: [*const T; 3],
        [w1, hu1, hv1]: [*const T; 3],
        [ow, ohu, ohv]: [*mut T; 3],
        transpose: bool,
        hi: *const T,
    ) -> Result<()> {
        let side = self.oriented(axis);
        let k = side.k;
        let [rw, rhu, rhv] = self.r.each_ref().map(|r| r.ptr());
        let gn2 =
            if axis == 0 { self.friction.as_ref().map_or(std::ptr::null(), |f| f.ptr()) } else { std::ptr::null() };
        let (partial, shore) = match &mut self.clamp {
            Some(c) if !hi.is_null() => (c.partial.ptr_mut(), c.shore.ptr_mut()),
            _ => (std::ptr::null_mut(), std::ptr::null_mut()),
        };
        let params = RkSplit {
            k,
            stage,
            dt: self.dt.ptr(),
            clock: self.clock.ptr(),
            bc: side.cell_bed,
            gn2,
            w0,
            hu0,
            hv0,
            w1,
            hu1,
            hv1,
            rw,
            rhu,
            rhv,
            ow,
            ohu,
            ohv,
            wet_out: self.wet[if hi.is_null() && stage == 0 { 1 } else { 0 }].ptr_mut(),
            hi,
            partial,
            shore,
        };
        let tile = if transpose { 3 * (k.by * (k.bx + 1)) as usize } else { 0 };
        let shape =
            LaunchShape::cover_2d(k.nx as u64, k.ny as u64, (k.bx, k.by), (1, 1))?.with_shared_of::<T>(32 + tile);
        let Some(s) = &self.split else { return Ok(()) };
        let ks = &s.kernels;
        let kernel = match (axis, transpose) {
            (0, false) => &ks.x,
            (0, true) => &ks.x_t,
            (_, false) => &ks.y,
            (_, true) => &ks.y_t,
        };
        // SAFETY: every state, R and bed array is padded to k.cells() (both orientations have as
        // many cells); out distinct from every input (the step's buffers never alias, `split_step`);
        // gn2 the friction field exactly when X's kernels are the per-cell ones (GpuSplit::new),
        // else null and unread; the wet map and flags nbx·nby (the same count in both
        // orientations); clock CLOCK_LEN_SPLIT; blocks of k.bx × k.by (checked in new) over the
        // interior; shared memory 32 T plus the transposing tile.
        unsafe { kernel.launch(shape, params) }
    }

    /// The limits of Qⁿ in both directions, as the first step's estimates (the CPU reference's
    /// `Split::measure`): X's rates from `q`, then Y's from `q` transposed into A. Leaves Qⁿ's
    /// wet map and flags as they were (the copy writes its wet map into `wet[1]`, no flags).
    pub(super) fn measure_split(&mut self) -> Result<()> {
        let Some(s) = &mut self.split else { return Ok(()) };
        let a = ptrs(&mut s.work[0]);
        let q = self.q.each_mut().map(|b| b.ptr_mut());
        let (x, y) = (self.oriented(0), self.oriented(1));
        self.line_flux(x, reading(q))?;
        self.substep_limit(x, 0, false)?;
        self.split_stage(0, 0, reading(q), reading(q), a, true, std::ptr::null())?;
        self.boundary_on(y, a)?;
        self.line_flux(y, reading(a))?;
        self.substep_limit(y, 1, false)
    }

    /// In DS1 and DS2, the Δt estimates the next step starts from (None before the first step's
    /// measurement) and the steps discarded so far (synchronises); None in the other schemes.
    pub fn split_state(&self, gpu: &Gpu) -> Result<Option<SplitState>> {
        if self.split.is_none() {
            return Ok(None);
        }
        let c = gpu.download(&self.clock)?;
        let (x, y) = (c[CLOCK_DS_X], c[CLOCK_DS_Y]);
        Ok(Some(((!x.is_nan() && !y.is_nan()).then_some((x, y)), c[CLOCK_DS_RETRIES] as u64)))
    }

    /// Continue a DS1 or DS2 run with the estimates and retry count [`split_state`](Self::split_state)
    /// gave (after [`resume`](Self::resume)); estimates None are measured from the state.
    /// Nothing in the other schemes.
    pub fn resume_split(&mut self, gpu: &Gpu, estimates: Option<(f64, f64)>, retries: u64) -> Result<()> {
        if self.split.is_none() {
            return Ok(());
        }
        let mut c = gpu.download(&self.clock)?;
        (c[CLOCK_DS_X], c[CLOCK_DS_Y]) = estimates.unwrap_or((f64::NAN, f64::NAN));
        c[CLOCK_DS_STATE] = SPLIT_GOING as f64;
        c[CLOCK_DS_RETRIES] = retries as f64;
        gpu.write(&c, &mut self.clock)?;
        if estimates.is_none() { self.measure_split() } else { Ok(()) }
    }
}
