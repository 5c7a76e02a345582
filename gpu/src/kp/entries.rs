//! The Kurganov–Petrova entry points: flux (tile and streamed, full and early exit; one entry
//! point a wet–dry scheme, [`FluxEntries`]), RK stage (one a friction source: [`RK`],
//! [`RK_FRICTION_FIELD`]; each also compensated, `RK_C…`), boundary, Δt, the `clamp` scheme's drain and clamp passes,
//! the forcing and the water account's boundary faces.
//!
//! The streamed and SRK2 flux kernels come in pairs: the plain entry treats every cell as
//! active, the `_MASKED` one reads the activity map `k.active` (inactive cells are walls,
//! `walls.rs`) and is launched for grids that have inactive cells. Two bodies in one entry would
//! share one register allocation, and the map's registers cost the plain run up to 18% (SRK2 in
//! f64, H200).
//!
//! Launch contract (all): `k` describes padded state arrays of `(nx+4)(ny+4)` cells and a
//! corner array of `(nx+5)(ny+5)`; every pointer is a whole such array (or as stated); outputs
//! do not alias inputs unless stated. The tile flux and RK kernels run on the same grid of
//! blocks of `k.bx × k.by` threads (one interior cell each, `bx·by` a multiple of 32),
//! `k.nbx × k.nby` blocks; per-block outputs (rate, wet map) are indexed
//! `blockIdx.y·nbx + blockIdx.x`.

use super::{
    Bollermann, CellForcing, Clamp, Clock, Coeffs, Kp07, Measure, SeriesSet, SplitClock, flux_shared, line_shared,
    yblock_shared,
};
#[cfg(target_arch = "nvptx64")]
use super::{
    PerCell, Uniform,
    account::{kp_account, kp_account_commit},
    boundary::kp_boundary,
    drain::{kp_clamp, kp_clamp_copy, kp_drain, kp_drain_rhs, kp_shore_lists},
    force::{kp_force_cells, kp_force_clock, kp_force_inflow, kp_force_stage},
    mixed::{
        kp_m_boundary, kp_m_clamp, kp_m_drain, kp_m_drain_rhs, kp_m_flux_stream, kp_m_flux_stream_early,
        kp_m_flux_stream_rk, kp_m_out_only, kp_m_rk,
    },
    out_only::kp_out_only,
    rk::{STAGE_PLAIN, STAGE_RAIN, STAGE_SOIL, kp_dt, kp_rk},
    split_flux::{kp_flux_x, kp_flux_y},
    split_step::{kp_rk_split, kp_split_begin, kp_split_check, kp_split_end},
    stream::{kp_flux_stream, kp_flux_stream_early, kp_flux_stream_rk},
    tile::{kp_flux, kp_flux_early},
};
use crate::Bands;
use crate::forcing::Soil;
#[cfg(target_arch = "nvptx64")]
use crate::forcing::{GREEN_AMPT, HORTON, NO_SOIL};
use crate::launch::Entry;

kernels! {
    /// R = (R_w, R_hu, R_hv) of the state (w, hu, hv) over the corner bed, and the rates.
    pub struct FluxTile<T> {
        k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T,
    }
    /// Seed 003's flux kernel: a shared tile of `k.bx × k.by` cells, one rate a block.
    pub const FLUX_KP07: FluxTile = kp_flux_kp07(kp_flux::<Kp07, T>);
    pub const FLUX_BOLLERMANN: FluxTile = kp_flux_bollermann(kp_flux::<Bollermann, T>);
    pub const FLUX_CLAMP: FluxTile = kp_flux_clamp(kp_flux::<Clamp, T>);

    /// [`FluxTile`] with the wet map of the state (early exit).
    pub struct FluxTileEarly<T> {
        k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T, wet: *const u32,
    }
    pub const FLUX_EARLY_KP07: FluxTileEarly = kp_flux_early_kp07(kp_flux_early::<Kp07, T>);
    pub const FLUX_EARLY_BOLLERMANN: FluxTileEarly = kp_flux_early_bollermann(kp_flux_early::<Bollermann, T>);
    pub const FLUX_EARLY_CLAMP: FluxTileEarly = kp_flux_early_clamp(kp_flux_early::<Clamp, T>);

    /// [`FluxTile`] streamed by warps in bands of `rows` rows: one rate a warp.
    pub struct FluxStream<T> {
        k: Coeffs<T>, bands: Bands, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T,
    }
    pub const FLUX_STREAM_KP07: FluxStream = kp_flux_stream_kp07(kp_flux_stream::<Kp07, T, T, false>);
    pub const FLUX_STREAM_MASKED_KP07: FluxStream = kp_flux_stream_masked_kp07(kp_flux_stream::<Kp07, T, T, true>);
    pub const FLUX_STREAM_BOLLERMANN: FluxStream = kp_flux_stream_bollermann(kp_flux_stream::<Bollermann, T, T, false>);
    pub const FLUX_STREAM_MASKED_BOLLERMANN: FluxStream = kp_flux_stream_masked_bollermann(kp_flux_stream::<Bollermann, T, T, true>);
    pub const FLUX_STREAM_CLAMP: FluxStream = kp_flux_stream_clamp(kp_flux_stream::<Clamp, T, T, false>);
    pub const FLUX_STREAM_MASKED_CLAMP: FluxStream = kp_flux_stream_masked_clamp(kp_flux_stream::<Clamp, T, T, true>);
    /// Mixed precision (docs/f32-conservation.md, "Mixed precision for shallow water"): `w` and
    /// `rw` carry f64 arrays (`mixed.rs`), the rest `T`. The `_f32` entry is the mixed mode; the
    /// `_f64` one computes what the plain f64 kernel does and is not used. So for every `M_` entry.
    pub const M_FLUX_STREAM_KP07: FluxStream = kp_m_flux_stream_kp07(kp_m_flux_stream::<Kp07, T, false>);
    pub const M_FLUX_STREAM_MASKED_KP07: FluxStream = kp_m_flux_stream_masked_kp07(kp_m_flux_stream::<Kp07, T, true>);
    pub const M_FLUX_STREAM_BOLLERMANN: FluxStream = kp_m_flux_stream_bollermann(kp_m_flux_stream::<Bollermann, T, false>);
    pub const M_FLUX_STREAM_MASKED_BOLLERMANN: FluxStream = kp_m_flux_stream_masked_bollermann(kp_m_flux_stream::<Bollermann, T, true>);
    pub const M_FLUX_STREAM_CLAMP: FluxStream = kp_m_flux_stream_clamp(kp_m_flux_stream::<Clamp, T, false>);
    pub const M_FLUX_STREAM_MASKED_CLAMP: FluxStream = kp_m_flux_stream_masked_clamp(kp_m_flux_stream::<Clamp, T, true>);

    /// [`FluxStream`] with the wet map (early exit).
    pub struct FluxStreamEarly<T> {
        k: Coeffs<T>, bands: Bands, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T, wet: *const u32,
    }
    pub const FLUX_STREAM_EARLY_KP07: FluxStreamEarly = kp_flux_stream_early_kp07(kp_flux_stream_early::<Kp07, T, T, false>);
    pub const FLUX_STREAM_EARLY_MASKED_KP07: FluxStreamEarly = kp_flux_stream_early_masked_kp07(kp_flux_stream_early::<Kp07, T, T, true>);
    pub const FLUX_STREAM_EARLY_BOLLERMANN: FluxStreamEarly = kp_flux_stream_early_bollermann(kp_flux_stream_early::<Bollermann, T, T, false>);
    pub const FLUX_STREAM_EARLY_MASKED_BOLLERMANN: FluxStreamEarly = kp_flux_stream_early_masked_bollermann(kp_flux_stream_early::<Bollermann, T, T, true>);
    pub const FLUX_STREAM_EARLY_CLAMP: FluxStreamEarly = kp_flux_stream_early_clamp(kp_flux_stream_early::<Clamp, T, T, false>);
    pub const FLUX_STREAM_EARLY_MASKED_CLAMP: FluxStreamEarly = kp_flux_stream_early_masked_clamp(kp_flux_stream_early::<Clamp, T, T, true>);
    pub const M_FLUX_STREAM_EARLY_KP07: FluxStreamEarly = kp_m_flux_stream_early_kp07(kp_m_flux_stream_early::<Kp07, T, false>);
    pub const M_FLUX_STREAM_EARLY_MASKED_KP07: FluxStreamEarly = kp_m_flux_stream_early_masked_kp07(kp_m_flux_stream_early::<Kp07, T, true>);
    pub const M_FLUX_STREAM_EARLY_BOLLERMANN: FluxStreamEarly = kp_m_flux_stream_early_bollermann(kp_m_flux_stream_early::<Bollermann, T, false>);
    pub const M_FLUX_STREAM_EARLY_MASKED_BOLLERMANN: FluxStreamEarly = kp_m_flux_stream_early_masked_bollermann(kp_m_flux_stream_early::<Bollermann, T, true>);
    pub const M_FLUX_STREAM_EARLY_CLAMP: FluxStreamEarly = kp_m_flux_stream_early_clamp(kp_m_flux_stream_early::<Clamp, T, false>);
    pub const M_FLUX_STREAM_EARLY_MASKED_CLAMP: FluxStreamEarly = kp_m_flux_stream_early_masked_clamp(kp_m_flux_stream_early::<Clamp, T, true>);

    /// RK2's second stage in the streamed flux kernel (`stream.rs`, `kp_flux_stream_rk`; no
    /// early exit): R of Q¹ (`w`, `hu`, `hv`) applied to Qⁿ (`w0`, `hu0`, `hv0`, and `lo0` with
    /// `lo1` Q¹'s low part where compensated, else nulls) in place, with Δt `dt[0]`, the cell bed
    /// `bc`, g·n² from `gn2` (null: `k.g_n2`), the output's flags into `wet_out` (in `clamp`, `hi`
    /// not null: `partial`, `shore`), cleared before. In the blocks `listed` flags (null: none)
    /// it writes R into `r*` and leaves the cells to the RK kernel. In the `_RAIN_` entries with
    /// `uniform` not null (the step's last stage), the step's uniform rain (`uniform[0]`) falls on
    /// every active cell it updates, and in the `_SOIL_` entries the Green–Ampt `soil` also takes
    /// its share over the step's span `uniform[1]`, each cell's total in `f` (`rk.rs`,
    /// `StageForcing`). The grid and `rows` are
    /// [`FluxStream`]'s.
    pub struct FluxStreamRk<T> {
        k: Coeffs<T>, bands: Bands, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T,
        dt: *const T, bc: *const T, gn2: *const T, w0: *mut T, hu0: *mut T, hv0: *mut T, lo0: *mut T, lo1: *const T,
        wet_out: *mut u32, hi: *const T, partial: *mut u32, shore: *mut u32, listed: *const u32,
        uniform: *const T, soil: Soil<T>, f: *mut T,
    }
    pub const FLUX_STREAM_RK_KP07: FluxStreamRk = kp_flux_stream_rk_kp07(kp_flux_stream_rk::<Kp07, T, T, false, STAGE_PLAIN>);
    pub const FLUX_STREAM_RK_MASKED_KP07: FluxStreamRk = kp_flux_stream_rk_masked_kp07(kp_flux_stream_rk::<Kp07, T, T, true, STAGE_PLAIN>);
    pub const FLUX_STREAM_RK_BOLLERMANN: FluxStreamRk = kp_flux_stream_rk_bollermann(kp_flux_stream_rk::<Bollermann, T, T, false, STAGE_PLAIN>);
    pub const FLUX_STREAM_RK_MASKED_BOLLERMANN: FluxStreamRk = kp_flux_stream_rk_masked_bollermann(kp_flux_stream_rk::<Bollermann, T, T, true, STAGE_PLAIN>);
    pub const FLUX_STREAM_RK_CLAMP: FluxStreamRk = kp_flux_stream_rk_clamp(kp_flux_stream_rk::<Clamp, T, T, false, STAGE_PLAIN>);
    pub const FLUX_STREAM_RK_MASKED_CLAMP: FluxStreamRk = kp_flux_stream_rk_masked_clamp(kp_flux_stream_rk::<Clamp, T, T, true, STAGE_PLAIN>);
    /// The same with uniform rain falling on each cell it updates (`uniform` read).
    pub const FLUX_STREAM_RK_RAIN_KP07: FluxStreamRk = kp_flux_stream_rk_rain_kp07(kp_flux_stream_rk::<Kp07, T, T, false, STAGE_RAIN>);
    pub const FLUX_STREAM_RK_RAIN_MASKED_KP07: FluxStreamRk = kp_flux_stream_rk_rain_masked_kp07(kp_flux_stream_rk::<Kp07, T, T, true, STAGE_RAIN>);
    pub const FLUX_STREAM_RK_RAIN_BOLLERMANN: FluxStreamRk = kp_flux_stream_rk_rain_bollermann(kp_flux_stream_rk::<Bollermann, T, T, false, STAGE_RAIN>);
    pub const FLUX_STREAM_RK_RAIN_MASKED_BOLLERMANN: FluxStreamRk = kp_flux_stream_rk_rain_masked_bollermann(kp_flux_stream_rk::<Bollermann, T, T, true, STAGE_RAIN>);
    pub const FLUX_STREAM_RK_RAIN_CLAMP: FluxStreamRk = kp_flux_stream_rk_rain_clamp(kp_flux_stream_rk::<Clamp, T, T, false, STAGE_RAIN>);
    pub const FLUX_STREAM_RK_RAIN_MASKED_CLAMP: FluxStreamRk = kp_flux_stream_rk_rain_masked_clamp(kp_flux_stream_rk::<Clamp, T, T, true, STAGE_RAIN>);
    /// The same with uniform rain and a uniform Green–Ampt soil (`soil`, `f` read too).
    pub const FLUX_STREAM_RK_SOIL_KP07: FluxStreamRk = kp_flux_stream_rk_soil_kp07(kp_flux_stream_rk::<Kp07, T, T, false, STAGE_SOIL>);
    pub const FLUX_STREAM_RK_SOIL_MASKED_KP07: FluxStreamRk = kp_flux_stream_rk_soil_masked_kp07(kp_flux_stream_rk::<Kp07, T, T, true, STAGE_SOIL>);
    pub const FLUX_STREAM_RK_SOIL_BOLLERMANN: FluxStreamRk = kp_flux_stream_rk_soil_bollermann(kp_flux_stream_rk::<Bollermann, T, T, false, STAGE_SOIL>);
    pub const FLUX_STREAM_RK_SOIL_MASKED_BOLLERMANN: FluxStreamRk = kp_flux_stream_rk_soil_masked_bollermann(kp_flux_stream_rk::<Bollermann, T, T, true, STAGE_SOIL>);
    pub const FLUX_STREAM_RK_SOIL_CLAMP: FluxStreamRk = kp_flux_stream_rk_soil_clamp(kp_flux_stream_rk::<Clamp, T, T, false, STAGE_SOIL>);
    pub const FLUX_STREAM_RK_SOIL_MASKED_CLAMP: FluxStreamRk = kp_flux_stream_rk_soil_masked_clamp(kp_flux_stream_rk::<Clamp, T, T, true, STAGE_SOIL>);
    /// Mixed precision: `w`, `w0` and `rw` carry f64 arrays; no low parts.
    pub const M_FLUX_STREAM_RK_KP07: FluxStreamRk = kp_m_flux_stream_rk_kp07(kp_m_flux_stream_rk::<Kp07, T, false>);
    pub const M_FLUX_STREAM_RK_MASKED_KP07: FluxStreamRk = kp_m_flux_stream_rk_masked_kp07(kp_m_flux_stream_rk::<Kp07, T, true>);
    pub const M_FLUX_STREAM_RK_BOLLERMANN: FluxStreamRk = kp_m_flux_stream_rk_bollermann(kp_m_flux_stream_rk::<Bollermann, T, false>);
    pub const M_FLUX_STREAM_RK_MASKED_BOLLERMANN: FluxStreamRk = kp_m_flux_stream_rk_masked_bollermann(kp_m_flux_stream_rk::<Bollermann, T, true>);
    pub const M_FLUX_STREAM_RK_CLAMP: FluxStreamRk = kp_m_flux_stream_rk_clamp(kp_m_flux_stream_rk::<Clamp, T, false>);
    pub const M_FLUX_STREAM_RK_MASKED_CLAMP: FluxStreamRk = kp_m_flux_stream_rk_masked_clamp(kp_m_flux_stream_rk::<Clamp, T, true>);

    /// SRK2's flux kernels (`split_flux.rs`): one part of R (x or y) of the state and one rate a
    /// block; early exit by the wet map `wet` where `early` ≠ 0 (null will do otherwise).
    pub struct FluxSplit<T> {
        k: Coeffs<T>, early: u32, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T, wet: *const u32,
    }
    /// The x-line kernel: blocks of `l` × 1 threads along a row.
    pub const FLUX_X_KP07: FluxSplit = kp_flux_x_kp07(kp_flux_x::<Kp07, T, false>);
    pub const FLUX_X_MASKED_KP07: FluxSplit = kp_flux_x_masked_kp07(kp_flux_x::<Kp07, T, true>);
    pub const FLUX_X_BOLLERMANN: FluxSplit = kp_flux_x_bollermann(kp_flux_x::<Bollermann, T, false>);
    pub const FLUX_X_MASKED_BOLLERMANN: FluxSplit = kp_flux_x_masked_bollermann(kp_flux_x::<Bollermann, T, true>);
    pub const FLUX_X_CLAMP: FluxSplit = kp_flux_x_clamp(kp_flux_x::<Clamp, T, false>);
    pub const FLUX_X_MASKED_CLAMP: FluxSplit = kp_flux_x_masked_clamp(kp_flux_x::<Clamp, T, true>);
    /// The y-block kernel: the RK kernel's blocks.
    pub const FLUX_Y_KP07: FluxSplit = kp_flux_y_kp07(kp_flux_y::<Kp07, T, false>);
    pub const FLUX_Y_MASKED_KP07: FluxSplit = kp_flux_y_masked_kp07(kp_flux_y::<Kp07, T, true>);
    pub const FLUX_Y_BOLLERMANN: FluxSplit = kp_flux_y_bollermann(kp_flux_y::<Bollermann, T, false>);
    pub const FLUX_Y_MASKED_BOLLERMANN: FluxSplit = kp_flux_y_masked_bollermann(kp_flux_y::<Bollermann, T, true>);
    pub const FLUX_Y_CLAMP: FluxSplit = kp_flux_y_clamp(kp_flux_y::<Clamp, T, false>);
    pub const FLUX_Y_MASKED_CLAMP: FluxSplit = kp_flux_y_masked_clamp(kp_flux_y::<Clamp, T, true>);

    /// RK stage `stage` from Qⁿ (`*0`), the state R was evaluated at (`*1`) and R into `o*`, with
    /// the wet maps (see `kp_rk`); R is `r*`, or in SRK2 (`ry` not null) `r*` plus the y part
    /// `ry` (three padded fields one after the other); `gn2` the friction field g·n²
    /// (`friction.rs`); in `clamp`
    /// (`hi` not null) the flags of blocks with partially flooded cells for the passes' lists.
    /// With `list` null on the nbx × nby blocks, else on any 1-D grid over the `count[0]`
    /// blocks of `list` (pairs). In the `_RAIN` and `_SOIL` entries with `uniform` not null (the
    /// step's last stage), the step's uniform forcing acts on every active cell of the output, as
    /// in [`FluxStreamRk`].
    pub struct RkStage<T> {
        k: Coeffs<T>, stage: u32, early: u32, dt: *const T, bc: *const T, gn2: *const T,
        w0: *const T, hu0: *const T, hv0: *const T, w1: *const T, hu1: *const T, hv1: *const T,
        rw: *const T, rhu: *const T, rhv: *const T, ry: *const T, ow: *mut T, ohu: *mut T, ohv: *mut T,
        wet_m0: *const u32, wet_in: *const u32, wet_out: *mut u32,
        hi: *const T, partial: *mut u32, shore: *mut u32,
        lo0: *const T, lo1: *const T, olo: *mut T, list: *const u32, count: *const u32,
        uniform: *const T, soil: Soil<T>, f: *mut T,
    }
    /// One g·n² for the grid, `k.g_n2` (`gn2` is not read: null will do).
    pub const RK: RkStage = kp_rk(kp_rk::<Uniform, T, T, false, STAGE_PLAIN>);
    /// g·n² per cell from the friction field `gn2`.
    pub const RK_FRICTION_FIELD: RkStage = kp_rk_friction_field(kp_rk::<PerCell, T, T, false, STAGE_PLAIN>);
    /// [`RK`] and [`RK_FRICTION_FIELD`] with w kept as a pair: the low parts `lo0`, `lo1` read
    /// and `olo` written (docs/f32-conservation.md); the plain ones above ignore them.
    pub const RK_C: RkStage = kp_rk_c(kp_rk::<Uniform, T, T, true, STAGE_PLAIN>);
    pub const RK_C_FRICTION_FIELD: RkStage = kp_rk_c_friction_field(kp_rk::<PerCell, T, T, true, STAGE_PLAIN>);
    /// The four above with uniform rain falling on each cell of the output (`uniform` read); the
    /// others ignore `uniform`, `soil` and `f`.
    pub const RK_RAIN: RkStage = kp_rk_rain(kp_rk::<Uniform, T, T, false, STAGE_RAIN>);
    pub const RK_RAIN_FRICTION_FIELD: RkStage = kp_rk_rain_friction_field(kp_rk::<PerCell, T, T, false, STAGE_RAIN>);
    pub const RK_C_RAIN: RkStage = kp_rk_c_rain(kp_rk::<Uniform, T, T, true, STAGE_RAIN>);
    pub const RK_C_RAIN_FRICTION_FIELD: RkStage = kp_rk_c_rain_friction_field(kp_rk::<PerCell, T, T, true, STAGE_RAIN>);
    /// The four above with uniform rain and a uniform Green–Ampt soil.
    pub const RK_SOIL: RkStage = kp_rk_soil(kp_rk::<Uniform, T, T, false, STAGE_SOIL>);
    pub const RK_SOIL_FRICTION_FIELD: RkStage = kp_rk_soil_friction_field(kp_rk::<PerCell, T, T, false, STAGE_SOIL>);
    pub const RK_C_SOIL: RkStage = kp_rk_c_soil(kp_rk::<Uniform, T, T, true, STAGE_SOIL>);
    pub const RK_C_SOIL_FRICTION_FIELD: RkStage = kp_rk_c_soil_friction_field(kp_rk::<PerCell, T, T, true, STAGE_SOIL>);
    /// Mixed precision: `w0`, `w1`, `rw` and `ow` carry f64 arrays; no low parts, no `ry`.
    pub const M_RK: RkStage = kp_m_rk(kp_m_rk::<Uniform, T>);
    pub const M_RK_FRICTION_FIELD: RkStage = kp_m_rk_friction_field(kp_m_rk::<PerCell, T>);

    /// Ghost cells of pass `axis` of the state, over the cell beds `bc`.
    /// With `level_map` (not null), the ghosts of reaches held at a level (`ghosts.rs`,
    /// [`level_of`](super::level_of)) take theirs from `levels`.
    pub struct SetGhosts<T> {
        k: Coeffs<T>, axis: u32, w: *mut T, hu: *mut T, hv: *mut T, bc: *const T, levels: *const f64,
        level_map: *const u32,
    }
    pub const BOUNDARY: SetGhosts = kp_boundary(kp_boundary::<T, T>);
    /// Mixed precision: `w` carries an f64 array.
    pub const M_BOUNDARY: SetGhosts = kp_m_boundary(kp_m_boundary::<T>);

    /// Before a flux launch: the activity of the ghosts beyond each face of `faces` (`count`
    /// faces of normal-depth sides and outlets, indices of the perimeter) in the map `active`
    /// (`k.active`'s), 0 where the face would take water into the state (w, hu, hv) over the
    /// corner bed `bed` (`out_only.rs`). One entry point a wet–dry scheme; one thread a face,
    /// any 1-D grid covering `count`.
    pub struct OutOnlyFaces<T> {
        k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T, bed: *const T, faces: *const u32, count: u32,
        active: *mut u8,
    }
    pub const OUT_ONLY_KP07: OutOnlyFaces = kp_out_only_kp07(kp_out_only::<Kp07, T, T>);
    pub const OUT_ONLY_BOLLERMANN: OutOnlyFaces = kp_out_only_bollermann(kp_out_only::<Bollermann, T, T>);
    pub const OUT_ONLY_CLAMP: OutOnlyFaces = kp_out_only_clamp(kp_out_only::<Clamp, T, T>);
    /// Mixed precision: `w` carries an f64 array.
    pub const M_OUT_ONLY_KP07: OutOnlyFaces = kp_m_out_only_kp07(kp_m_out_only::<Kp07, T>);
    pub const M_OUT_ONLY_BOLLERMANN: OutOnlyFaces = kp_m_out_only_bollermann(kp_m_out_only::<Bollermann, T>);
    pub const M_OUT_ONLY_CLAMP: OutOnlyFaces = kp_m_out_only_clamp(kp_m_out_only::<Clamp, T>);

    /// `clamp`: after an RK stage, the lists of blocks the passes visit (pairs (bi, bj) in
    /// `lists`, lengths in `counts`), from its flags; clears `drained` (`drain.rs`). Blocks of 32
    /// threads wide covering nbx × nby; the drain list's blocks flagged in `listed`.
    pub struct ShoreLists<T> {
        k: Coeffs<T>, wet: *const u32, partial: *const u32, shore: *const u32, drained: *mut u32,
        listed: *mut u32, lists: *mut u32, counts: *mut u32,
    }
    pub const SHORE_LISTS: ShoreLists = kp_shore_lists(kp_shore_lists::<T>);

    /// `clamp`: the draining factors of the state's partially flooded cells for Δt `dt[0]`
    /// into `phi`, one flag a block in `drained`, in the blocks of the drain list (`drain.rs`);
    /// with `split` ≠ 0 (DS1, DS2) from the x faces only, as the next one.
    /// This and the three below: blocks of `k.bx × k.by` threads, any 1-D grid.
    pub struct Drain<T> {
        k: Coeffs<T>, early: u32, split: u32, dt: *const T, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        bc: *const T, hi: *const T, wet_in: *const u32, list: *const u32, count: *const u32, phi: *mut T,
        drained: *mut u32,
    }
    pub const DRAIN: Drain = kp_drain(kp_drain::<T, T>);
    /// Mixed precision: `w` carries an f64 array.
    pub const M_DRAIN: Drain = kp_m_drain(kp_m_drain::<T>);

    /// `clamp`: R of the cells next to a drained face, recomputed with the faces drained (in
    /// SRK2, `ry` not null: its x part into `r*`, its y part into `ry`, as the RK kernel reads them).
    pub struct DrainRhs<T> {
        k: Coeffs<T>, early: u32, split: u32, w: *const T, hu: *const T, hv: *const T, bed: *const T, phi: *const T,
        drained: *const u32, wet_in: *const u32, list: *const u32, count: *const u32, rw: *mut T, rhu: *mut T,
        rhv: *mut T, ry: *mut T,
    }
    pub const DRAIN_RHS: DrainRhs = kp_drain_rhs(kp_drain_rhs::<T, T>);
    /// Mixed precision: `w` and `rw` carry f64 arrays; `split` 0, `ry` null.
    pub const M_DRAIN_RHS: DrainRhs = kp_m_drain_rhs(kp_m_drain_rhs::<T>);

    /// `clamp`: the velocity clamp of an RK stage's output into the scratch pair, in the blocks
    /// of the clamp list.
    pub struct ClampVelocity<T> {
        k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T, bc: *const T, hi: *const T, list: *const u32,
        count: *const u32, shu: *mut T, shv: *mut T,
    }
    pub const CLAMP: ClampVelocity = kp_clamp(kp_clamp::<T, T>);
    /// Mixed precision: `w` carries an f64 array.
    pub const M_CLAMP: ClampVelocity = kp_m_clamp(kp_m_clamp::<T>);

    /// `clamp`: the clamped momenta copied back into the state.
    pub struct ClampCopy<T> {
        k: Coeffs<T>, shu: *const T, shv: *const T, list: *const u32, count: *const u32, hu: *mut T, hv: *mut T,
    }
    pub const CLAMP_COPY: ClampCopy = kp_clamp_copy(kp_clamp_copy::<T>);

    /// Δt from the device-wide largest rate, and the clock.
    pub struct TimeStep<T> { c: Clock, rate: *const T, dt: *mut T, clock: *mut f64 }
    pub const DT: TimeStep = kp_dt(kp_dt::<T>);

    /// DS1 and DS2 (`split_step.rs`): an RK stage of a substep from Qⁿ of the substep (`*0`), the
    /// state R was evaluated at (`*1`) and R of the x faces, into `o*` in the same orientation or
    /// (the `_T` entry points) the transposed one; nothing written unless the step is going by
    /// `clock`. Flags as [`RkStage`]'s.
    pub struct RkSplit<T> {
        k: Coeffs<T>, stage: u32, dt: *const T, clock: *const f64, bc: *const T, gn2: *const T,
        w0: *const T, hu0: *const T, hv0: *const T, w1: *const T, hu1: *const T, hv1: *const T,
        rw: *const T, rhu: *const T, rhv: *const T, ow: *mut T, ohu: *mut T, ohv: *mut T,
        wet_out: *mut u32, hi: *const T, partial: *mut u32, shore: *mut u32,
    }
    pub const RK_SPLIT: RkSplit = kp_rk_split(kp_rk_split::<Uniform, T, false>);
    pub const RK_SPLIT_FRICTION_FIELD: RkSplit = kp_rk_split_friction_field(kp_rk_split::<PerCell, T, false>);
    pub const RK_SPLIT_T: RkSplit = kp_rk_split_t(kp_rk_split::<Uniform, T, true>);
    pub const RK_SPLIT_T_FRICTION_FIELD: RkSplit = kp_rk_split_t_friction_field(kp_rk_split::<PerCell, T, true>);

    /// DS1 and DS2: Δt of a step from the estimates, and the step marked going or idle.
    pub struct SplitBegin<T> { c: SplitClock, dt: *mut T, clock: *mut f64 }
    pub const SPLIT_BEGIN: SplitBegin = kp_split_begin(kp_split_begin::<T>);
    /// DS1 and DS2: a substep's limit from the largest rate, the step discarded if below Δt.
    pub struct SplitCheck<T> { c: SplitClock, axis: u32, compare: u32, rate: *const T, clock: *mut f64 }
    pub const SPLIT_CHECK: SplitCheck = kp_split_check(kp_split_check::<T>);
    /// DS1 and DS2: the clock advanced, or the estimates halved after a discarded step.
    pub struct SplitEnd<T> { c: SplitClock, dt: *mut T, clock: *mut f64 }
    pub const SPLIT_END: SplitEnd = kp_split_end(kp_split_end::<T>);

    /// Forcing (`forcing.rs`), one thread: each series integrated over the span the model clock
    /// advanced since `forced`, into `amounts`, the span's length into `span`, and `forced`
    /// moved up to the model clock.
    pub struct ForceClock<T> {
        set: SeriesSet, clock: *const f64, forced: *mut f64, times: *const f64, values: *const f64,
        starts: *const u32, amounts: *mut f64, levels: *mut f64, frame_times: *const f64, span: *mut T,
    }
    pub const FORCE_CLOCK: ForceClock = kp_force_clock(kp_force_clock::<T>);
    /// Forcing, one thread: the step's uniform forcing for its last RK stage (`uniform` of
    /// [`RkStage`] and [`FluxStreamRk`]): the uniform rain's depth (series `rain`, or
    /// `NO_RAIN`) over the step the model clock has just taken and the step's span.
    pub struct ForceStage<T> {
        rain: u32, clock: *const f64, forced: *const f64, times: *const f64, values: *const f64,
        starts: *const u32, uniform: *mut T,
    }
    pub const FORCE_STAGE: ForceStage = kp_force_stage(kp_force_stage::<T>);
    /// Forcing: one thread an inflow cell (`count` of `cells`, with their CSR lists of series
    /// and weights), its inflows' depth added; `lo` null on the plain path.
    pub struct ForceInflow<T> {
        k: Coeffs<T>, count: u32, cells: *const u32, starts: *const u32, series: *const u32,
        weights: *const f64, amounts: *const f64, span: *const T, w: *mut T, lo: *mut T, hu: *mut T,
        hv: *mut T, bc: *const T, wet: *mut u32,
    }
    pub const FORCE_INFLOW: ForceInflow = kp_force_inflow(kp_force_inflow::<T>);
    /// Forcing: every interior cell (`force.rs`: on the wet map's blocks, `force_rows` rows a
    /// thread), the uniform and gridded rain added and the soil's take (its total `f`, null
    /// without a soil) removed; `lo` null on the plain path; the rain grid's arrays unused
    /// without frames, `soil_cells` null with one soil everywhere. One entry a soil model.
    pub struct ForceCells<T> {
        k: Coeffs<T>, cf: CellForcing<T>, amounts: *const f64, forced: *const f64,
        frame_times: *const f64, frames: *const f32, rain_cells: *const u32, soils: *const T,
        soil_cells: *const u32, span: *const T, w: *mut T, lo: *mut T, hu: *mut T, hv: *mut T,
        bc: *const T, f: *mut T, wet: *mut u32,
    }
    pub const FORCE_RAIN: ForceCells = kp_force_rain(kp_force_cells::<T, NO_SOIL>);
    pub const FORCE_GREEN_AMPT: ForceCells = kp_force_green_ampt(kp_force_cells::<T, GREEN_AMPT>);
    pub const FORCE_HORTON: ForceCells = kp_force_horton(kp_force_cells::<T, HORTON>);

    /// The water account (`account.rs`): one stage's share of each boundary face's mass flux
    /// out (faces `len_x` or `len_y` long), recomputed from the state (w, hu, hv) with its
    /// ghosts, into `pending`; with
    /// `m.commit` ≠ 0 the step's volumes committed to `totals`. `clock` null, or in DS1 and DS2
    /// the split clock (nothing added unless the step is going); `wet` null or the wet map the
    /// flux launch read (early exit); `phi` and `drained` `clamp`'s draining factors and flags,
    /// or nulls. One thread a face, any 1-D grid covering `measured_faces(k, m.faces)`.
    pub struct FaceAccount<T> {
        k: Coeffs<T>, m: Measure, len_x: f64, len_y: f64, dt: *const T, clock: *const f64, w: *const T, hu: *const T, hv: *const T,
        bed: *const T, wet: *const u32, phi: *const T, drained: *const u32, segment: *const u32,
        pending: *mut f64, totals: *mut f64,
    }
    pub const ACCOUNT_KP07: FaceAccount = kp_account_kp07(kp_account::<Kp07, T>);
    pub const ACCOUNT_BOLLERMANN: FaceAccount = kp_account_bollermann(kp_account::<Bollermann, T>);
    pub const ACCOUNT_CLAMP: FaceAccount = kp_account_clamp(kp_account::<Clamp, T>);
    /// DS1 and DS2: after the step's end, the pending volumes committed where the step went
    /// through, dropped where it was discarded. One thread a face of the perimeter.
    pub struct FaceCommit<T> { k: Coeffs<T>, clock: *const f64, pending: *mut f64, totals: *mut f64 }
    pub const ACCOUNT_COMMIT: FaceCommit = kp_account_commit(kp_account_commit::<T>);
}

/// The four flux entry points of one wet–dry scheme (`wetdry.rs`): the host picks the set of the
/// problem's scheme once, so no flux kernel branches on it.
#[derive(Clone, Copy, Debug)]
pub struct FluxEntries {
    pub tile: Entry<FluxTile<()>>,
    pub tile_early: Entry<FluxTileEarly<()>>,
    pub stream: Entry<FluxStream<()>>,
    pub stream_early: Entry<FluxStreamEarly<()>>,
    /// The streamed kernel with RK2's second stage in it, the same with uniform rain, and with
    /// uniform rain and a uniform Green–Ampt soil.
    pub stream_rk: Entry<FluxStreamRk<()>>,
    pub stream_rk_rain: Entry<FluxStreamRk<()>>,
    pub stream_rk_soil: Entry<FluxStreamRk<()>>,
    /// The tile kernels' shared memory in `T`s for blocks of (bx, by): [`flux_shared`].
    pub tile_shared: fn(u32, u32) -> usize,
    /// SRK2's x-line and y-block kernels, and their shared memory in `T`s ([`line_shared`] of
    /// the line length, [`yblock_shared`] of the block).
    pub x_line: Entry<FluxSplit<()>>,
    pub y_block: Entry<FluxSplit<()>>,
    pub line_shared: fn(u32) -> usize,
    pub yblock_shared: fn(u32, u32) -> usize,
}

impl FluxEntries {
    /// Kurganov & Petrova 2007's flux kernels.
    pub const KP07: FluxEntries = FluxEntries {
        tile: FLUX_KP07,
        tile_early: FLUX_EARLY_KP07,
        stream: FLUX_STREAM_KP07,
        stream_early: FLUX_STREAM_EARLY_KP07,
        stream_rk: FLUX_STREAM_RK_KP07,
        stream_rk_rain: FLUX_STREAM_RK_RAIN_KP07,
        stream_rk_soil: FLUX_STREAM_RK_SOIL_KP07,
        tile_shared: flux_shared::<Kp07>,
        x_line: FLUX_X_KP07,
        y_block: FLUX_Y_KP07,
        line_shared: line_shared::<Kp07>,
        yblock_shared: yblock_shared::<Kp07>,
    };
    /// The flux kernels with partially flooded cells (Bollermann et al.).
    pub const BOLLERMANN: FluxEntries = FluxEntries {
        tile: FLUX_BOLLERMANN,
        tile_early: FLUX_EARLY_BOLLERMANN,
        stream: FLUX_STREAM_BOLLERMANN,
        stream_early: FLUX_STREAM_EARLY_BOLLERMANN,
        stream_rk: FLUX_STREAM_RK_BOLLERMANN,
        stream_rk_rain: FLUX_STREAM_RK_RAIN_BOLLERMANN,
        stream_rk_soil: FLUX_STREAM_RK_SOIL_BOLLERMANN,
        tile_shared: flux_shared::<Bollermann>,
        x_line: FLUX_X_BOLLERMANN,
        y_block: FLUX_Y_BOLLERMANN,
        line_shared: line_shared::<Bollermann>,
        yblock_shared: yblock_shared::<Bollermann>,
    };
    /// The flux kernels of `clamp`: partially flooded cells with no a-priori cap (the draining
    /// factors and the velocity clamp are the passes of `drain.rs`).
    pub const CLAMP: FluxEntries = FluxEntries {
        tile: FLUX_CLAMP,
        tile_early: FLUX_EARLY_CLAMP,
        stream: FLUX_STREAM_CLAMP,
        stream_early: FLUX_STREAM_EARLY_CLAMP,
        stream_rk: FLUX_STREAM_RK_CLAMP,
        stream_rk_rain: FLUX_STREAM_RK_RAIN_CLAMP,
        stream_rk_soil: FLUX_STREAM_RK_SOIL_CLAMP,
        tile_shared: flux_shared::<Clamp>,
        x_line: FLUX_X_CLAMP,
        y_block: FLUX_Y_CLAMP,
        line_shared: line_shared::<Clamp>,
        yblock_shared: yblock_shared::<Clamp>,
    };
    /// [`Self::KP07`] for a grid with inactive cells: the streamed and SRK2 kernels that read the
    /// activity map (the tile kernels read it where `k` has one).
    pub const KP07_MASKED: FluxEntries = FluxEntries {
        stream: FLUX_STREAM_MASKED_KP07,
        stream_early: FLUX_STREAM_EARLY_MASKED_KP07,
        stream_rk: FLUX_STREAM_RK_MASKED_KP07,
        stream_rk_rain: FLUX_STREAM_RK_RAIN_MASKED_KP07,
        stream_rk_soil: FLUX_STREAM_RK_SOIL_MASKED_KP07,
        x_line: FLUX_X_MASKED_KP07,
        y_block: FLUX_Y_MASKED_KP07,
        ..FluxEntries::KP07
    };
    /// [`Self::BOLLERMANN`] for a grid with inactive cells: the streamed and SRK2 kernels that read the
    /// activity map (the tile kernels read it where `k` has one).
    pub const BOLLERMANN_MASKED: FluxEntries = FluxEntries {
        stream: FLUX_STREAM_MASKED_BOLLERMANN,
        stream_early: FLUX_STREAM_EARLY_MASKED_BOLLERMANN,
        stream_rk: FLUX_STREAM_RK_MASKED_BOLLERMANN,
        stream_rk_rain: FLUX_STREAM_RK_RAIN_MASKED_BOLLERMANN,
        stream_rk_soil: FLUX_STREAM_RK_SOIL_MASKED_BOLLERMANN,
        x_line: FLUX_X_MASKED_BOLLERMANN,
        y_block: FLUX_Y_MASKED_BOLLERMANN,
        ..FluxEntries::BOLLERMANN
    };
    /// [`Self::CLAMP`] for a grid with inactive cells: the streamed and SRK2 kernels that read the
    /// activity map (the tile kernels read it where `k` has one).
    pub const CLAMP_MASKED: FluxEntries = FluxEntries {
        stream: FLUX_STREAM_MASKED_CLAMP,
        stream_early: FLUX_STREAM_EARLY_MASKED_CLAMP,
        stream_rk: FLUX_STREAM_RK_MASKED_CLAMP,
        stream_rk_rain: FLUX_STREAM_RK_RAIN_MASKED_CLAMP,
        stream_rk_soil: FLUX_STREAM_RK_SOIL_MASKED_CLAMP,
        x_line: FLUX_X_MASKED_CLAMP,
        y_block: FLUX_Y_MASKED_CLAMP,
        ..FluxEntries::CLAMP
    };
}
