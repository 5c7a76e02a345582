//! The sediment entry points. Every variant computes the same point functions (`h_point`,
//! `s_point`); they differ in how the stencil's inputs reach the thread:
//! - baseline: plain global loads; OPT-1: read-only cache loads;
//! - OPT-2: OPT-1 plus a shared-memory tile of αs and β(1−s), each computed once per point
//!   (edge threads also fill the tile's halo);
//! - OPT-3: OPT-2 with halo threads, a block of (BX+2)×(BY+2) where every thread fills one
//!   tile entry and the interior ones compute;
//! - multi: several rows per thread, sliding a register window along y;
//! - fused-tile: h' on a haloed shared tile (halo threads), then s' from it, in one pass;
//! - fused: one pass streamed by warps down the rows: h' in registers, x-neighbours by shuffle.
//!
//! The bounded scheme (`B_…`, [`super::bounded`]) has the same variants; its h- and s-kernels
//! read the same old fields (h, s, α, β) and write one output each.
//!
//! Every kernel that writes h' takes h's low part `lo` and h′'s `lon`: its compensated entry
//! (`HC_…`, `C_…`, `BC_…`; docs/f32-conservation.md) reads and writes them, its plain one
//! (compiled without them) is passed nulls.
//!
//! The mixed-precision entries (`M_…`, `MB_…`) run the fused kernels and the ghost fill with h
//! and h' in f64 (`H` = f64 in their bodies) and the other fields in f32.
//!
//! Launch contract (all): `k` describes arrays of `(nx+2)(ny+2)` elements, every pointer is a
//! whole such array (`lo`, `lon` of the compensated entries; the plain ones ignore them), outputs
//! do not alias inputs, and the grid covers the interior as the host driver
//! (`src/sediment/gpu.rs`) computes it; tiled variants get the shared memory stated.

use super::Coeffs;
#[cfg(target_arch = "nvptx64")]
use super::{
    bounded_kernels::{
        bh_baseline, bh_multi, bh_opt1, bh_opt2, bh_opt3, bounded_fused, bounded_fused_tile, bs_baseline, bs_multi,
        bs_opt1, bs_opt2,
    },
    fused::{fused, fused_tile},
    ghosts::ghosts,
    height::{h_baseline, h_multi, h_opt1, h_opt2, h_opt3},
    sand::{s_baseline, s_multi, s_opt1, s_opt2},
};
use crate::Bands;

kernels! {
    /// h' into `hn` from h, s, α, β; on the compensated path (`lo` not null) with h's low part
    /// `lo`, h′'s into `lon`.
    pub struct StepH<T> {
        k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T, lo: *const T, lon: *mut T,
    }
    pub const H_BASELINE: StepH = sediment_h_baseline(h_baseline::<T, false>);
    pub const H_OPT1: StepH = sediment_h_opt1(h_opt1::<T, false>);
    pub const H_OPT2: StepH = sediment_h_opt2(h_opt2::<T, false>);
    pub const H_OPT3: StepH = sediment_h_opt3(h_opt3::<T, false>);
    pub const H_MULTI: StepH = sediment_h_multi(h_multi::<T, false>);
    pub const HC_BASELINE: StepH = sediment_hc_baseline(h_baseline::<T, true>);
    pub const HC_OPT1: StepH = sediment_hc_opt1(h_opt1::<T, true>);
    pub const HC_OPT2: StepH = sediment_hc_opt2(h_opt2::<T, true>);
    pub const HC_OPT3: StepH = sediment_hc_opt3(h_opt3::<T, true>);
    pub const HC_MULTI: StepH = sediment_hc_multi(h_multi::<T, true>);

    /// s' into `sn` from h, h' (`hp`), s, α.
    pub struct StepS<T> { k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T }
    pub const S_BASELINE: StepS = sediment_s_baseline(s_baseline::<T>);
    pub const S_OPT1: StepS = sediment_s_opt1(s_opt1::<T>);
    pub const S_OPT2: StepS = sediment_s_opt2(s_opt2::<T>);
    pub const S_MULTI: StepS = sediment_s_multi(s_multi::<T>);

    /// h' and s' in one pass (h's low parts as for [`StepH`]); the streamed kernels compute
    /// the chunks of rows `bands` lists (a chunk of `bands.rows` rows a band), the tile ones
    /// every point.
    pub struct StepFused<T> {
        k: Coeffs<T>, bands: Bands, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T, sn: *mut T,
        lo: *const T, lon: *mut T,
    }
    pub const FUSED_TILE: StepFused = sediment_fused_tile(
        |k, _bands, h, s, al, be, hn, sn, lo, lon| fused_tile::<T, false>(k, h, s, al, be, hn, sn, lo, lon)
    );
    pub const FUSED: StepFused = sediment_fused(fused::<T, T, false>);

    pub const B_FUSED_TILE: StepFused = sediment_b_fused_tile(
        |k, _bands, h, s, al, be, hn, sn, lo, lon| bounded_fused_tile::<T, false>(k, h, s, al, be, hn, sn, lo, lon)
    );
    pub const B_FUSED: StepFused = sediment_b_fused(bounded_fused::<T, T, false>);
    pub const C_FUSED_TILE: StepFused = sediment_c_fused_tile(
        |k, _bands, h, s, al, be, hn, sn, lo, lon| fused_tile::<T, true>(k, h, s, al, be, hn, sn, lo, lon)
    );
    pub const C_FUSED: StepFused = sediment_c_fused(fused::<T, T, true>);
    pub const BC_FUSED_TILE: StepFused = sediment_bc_fused_tile(
        |k, _bands, h, s, al, be, hn, sn, lo, lon| bounded_fused_tile::<T, true>(k, h, s, al, be, hn, sn, lo, lon)
    );
    pub const BC_FUSED: StepFused = sediment_bc_fused(bounded_fused::<T, T, true>);

    /// The bounded scheme's h' (H kernels) or s' (S kernels) into `out` from h, s, α, β; h's low
    /// parts as for [`StepH`] (the S kernels ignore them).
    pub struct StepBounded<T> {
        k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, out: *mut T, lo: *const T, lon: *mut T,
    }
    pub const B_H_BASELINE: StepBounded = sediment_b_h_baseline(bh_baseline::<T, false>);
    pub const B_H_OPT1: StepBounded = sediment_b_h_opt1(bh_opt1::<T, false>);
    pub const B_H_OPT2: StepBounded = sediment_b_h_opt2(bh_opt2::<T, false>);
    pub const B_H_OPT3: StepBounded = sediment_b_h_opt3(bh_opt3::<T, false>);
    pub const B_H_MULTI: StepBounded = sediment_b_h_multi(bh_multi::<T, false>);
    pub const BC_H_BASELINE: StepBounded = sediment_bc_h_baseline(bh_baseline::<T, true>);
    pub const BC_H_OPT1: StepBounded = sediment_bc_h_opt1(bh_opt1::<T, true>);
    pub const BC_H_OPT2: StepBounded = sediment_bc_h_opt2(bh_opt2::<T, true>);
    pub const BC_H_OPT3: StepBounded = sediment_bc_h_opt3(bh_opt3::<T, true>);
    pub const BC_H_MULTI: StepBounded = sediment_bc_h_multi(bh_multi::<T, true>);
    pub const B_S_BASELINE: StepBounded = sediment_b_s_baseline(bs_baseline::<T, false>);
    pub const B_S_OPT1: StepBounded = sediment_b_s_opt1(bs_opt1::<T, false>);
    pub const B_S_OPT2: StepBounded = sediment_b_s_opt2(bs_opt2::<T, false>);
    pub const B_S_MULTI: StepBounded = sediment_b_s_multi(bs_multi::<T, false>);

    /// The ghost layer of h, s, α, β: one thread per perimeter point.
    pub struct SetGhosts<T> { k: Coeffs<T>, h: *mut T, s: *mut T, al: *mut T, be: *mut T }
    pub const GHOSTS: SetGhosts = sediment_ghosts(ghosts::<T, T>);

    /// Mixed precision (docs/f32-conservation.md, "Mixed precision for sediment: h in f64, the
    /// rest in f32"): h' and s' in one pass with h and h' in f64 and the rest in `T` (the `_f32`
    /// entry is the mixed mode; the `_f64` one computes what the plain f64 kernel does, and is
    /// not used).
    pub struct StepMixed<T> {
        k: Coeffs<T>, bands: Bands, h: *const f64, s: *const T, al: *const T, be: *const T, hn: *mut f64, sn: *mut T,
    }
    pub const M_FUSED: StepMixed = sediment_m_fused(
        |k, bands, h, s, al, be, hn, sn| fused::<T, f64, false>(k, bands, h, s, al, be, hn, sn, core::ptr::null(), core::ptr::null_mut())
    );
    pub const MB_FUSED: StepMixed = sediment_mb_fused(
        |k, bands, h, s, al, be, hn, sn| bounded_fused::<T, f64, false>(k, bands, h, s, al, be, hn, sn, core::ptr::null(), core::ptr::null_mut())
    );

    /// The ghost layer in mixed precision: h in f64, s, α, β in `T`.
    pub struct SetGhostsMixed<T> { k: Coeffs<T>, h: *mut f64, s: *mut T, al: *mut T, be: *mut T }
    pub const M_GHOSTS: SetGhostsMixed = sediment_m_ghosts(ghosts::<T, f64>);
}
