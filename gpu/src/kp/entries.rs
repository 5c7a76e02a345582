//! The Kurganov–Petrova entry points: flux (tile and streamed, full and early exit), RK stage,
//! boundary, Δt.
//!
//! Launch contract (all): `k` describes padded state arrays of `(nx+4)(ny+4)` cells and a
//! corner array of `(nx+5)(ny+5)`; every pointer is a whole such array (or as stated); outputs
//! do not alias inputs unless stated. The tile flux and RK kernels run on the same grid of
//! blocks of `k.bx × k.by` threads (one interior cell each, `bx·by` a multiple of 32),
//! `k.nbx × k.nby` blocks; per-block outputs (rate, wet map) are indexed
//! `blockIdx.y·nbx + blockIdx.x`.

use super::{Clock, Coeffs};
#[cfg(target_arch = "nvptx64")]
use super::{
    boundary::kp_boundary,
    rk::{kp_dt, kp_rk},
    stream::{kp_flux_stream, kp_flux_stream_early},
    tile::{kp_flux, kp_flux_early},
};

kernels! {
    /// R = (R_w, R_hu, R_hv) of the state (w, hu, hv) over the corner bed, and the rates.
    pub struct FluxTile<T> {
        k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T,
    }
    /// Seed 003's flux kernel: a shared tile of `k.bx × k.by` cells, one rate a block.
    pub const FLUX: FluxTile = kp_flux(kp_flux::<T>);

    /// [`FluxTile`] with the wet map of the state (early exit).
    pub struct FluxTileEarly<T> {
        k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T, wet: *const u32,
    }
    pub const FLUX_EARLY: FluxTileEarly = kp_flux_early(kp_flux_early::<T>);

    /// [`FluxTile`] streamed by warps in bands of `rows` rows: one rate a warp.
    pub struct FluxStream<T> {
        k: Coeffs<T>, rows: u32, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T,
    }
    pub const FLUX_STREAM: FluxStream = kp_flux_stream(kp_flux_stream::<T>);

    /// [`FluxStream`] with the wet map (early exit).
    pub struct FluxStreamEarly<T> {
        k: Coeffs<T>, rows: u32, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T, wet: *const u32,
    }
    pub const FLUX_STREAM_EARLY: FluxStreamEarly = kp_flux_stream_early(kp_flux_stream_early::<T>);

    /// RK stage `stage` from Qⁿ (`*0`), the state R was evaluated at (`*1`) and R into `o*`, with
    /// the wet maps (see `kp_rk`).
    pub struct RkStage<T> {
        k: Coeffs<T>, stage: u32, early: u32, dt: *const T, bc: *const T,
        w0: *const T, hu0: *const T, hv0: *const T, w1: *const T, hu1: *const T, hv1: *const T,
        rw: *const T, rhu: *const T, rhv: *const T, ow: *mut T, ohu: *mut T, ohv: *mut T,
        wet_m0: *const u32, wet_in: *const u32, wet_out: *mut u32,
    }
    pub const RK: RkStage = kp_rk(kp_rk::<T>);

    /// Ghost cells of pass `axis` of the state, over the cell beds `bc`.
    pub struct SetGhosts<T> { k: Coeffs<T>, axis: u32, w: *mut T, hu: *mut T, hv: *mut T, bc: *const T }
    pub const BOUNDARY: SetGhosts = kp_boundary(kp_boundary::<T>);

    /// Δt from the device-wide largest rate, and the clock.
    pub struct TimeStep<T> { c: Clock, rate: *const T, dt: *mut T, clock: *mut f64 }
    pub const DT: TimeStep = kp_dt(kp_dt::<T>);
}
