//! The mixed-precision entry points' bodies (docs/f32-conservation.md, "Mixed precision for
//! shallow water"): the level-generic kernels with `W` = f64 under the plain kernels' parameter
//! structs, whose surface and R_w pointers then carry arrays of f64 (the host passes them so;
//! a pointer is an address to the launch, whatever it points to). Only the surface and R_w are
//! f64; the momenta, beds, rates and Δt keep the flux precision `T`.

use super::boundary::kp_boundary;
use super::drain::{kp_clamp, kp_drain, kp_drain_rhs};
use super::out_only::kp_out_only;
use super::rk::{STAGE_PLAIN, kp_rk};
use super::stream::{kp_flux_stream, kp_flux_stream_early, kp_flux_stream_rk};
use super::{Coeffs, Friction, WetDryScheme};
use crate::Bands;
use crate::Level;
use crate::device::DeviceReal;
use crate::forcing::Soil;

/// [`kp_flux_stream`] of an f64 surface `w` into an f64 R_w `rw`.
///
/// # Safety
/// As [`kp_flux_stream`], with `w` and `rw` padded arrays of f64.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_flux_stream<S: WetDryScheme, T: DeviceReal, const MASKED: bool>(
    k: Coeffs<T>,
    bands: Bands,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut T,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
) where
    f64: Level<T>,
{
    unsafe { kp_flux_stream::<S, T, f64, MASKED>(k, bands, w.cast(), hu, hv, bed, rw.cast(), rhu, rhv, rate) }
}

/// [`kp_flux_stream_early`] of an f64 surface into an f64 R_w.
///
/// # Safety
/// As [`kp_flux_stream_early`], with `w` and `rw` padded arrays of f64.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_flux_stream_early<S: WetDryScheme, T: DeviceReal, const MASKED: bool>(
    k: Coeffs<T>,
    bands: Bands,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut T,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
    wet: *const u32,
) where
    f64: Level<T>,
{
    unsafe {
        kp_flux_stream_early::<S, T, f64, MASKED>(k, bands, w.cast(), hu, hv, bed, rw.cast(), rhu, rhv, rate, wet)
    }
}

/// [`kp_rk`] (one field for w, no low parts) of f64 surfaces `w0`, `w1`, `ow` and R_w `rw`.
///
/// # Safety
/// As [`kp_rk`], with `w0`, `w1`, `rw` and `ow` padded arrays of f64; `ry` null.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_rk<F: Friction, T: DeviceReal>(
    k: Coeffs<T>,
    stage: u32,
    early: u32,
    dt: *const T,
    bc: *const T,
    gn2: *const T,
    w0: *const T,
    hu0: *const T,
    hv0: *const T,
    w1: *const T,
    hu1: *const T,
    hv1: *const T,
    rw: *const T,
    rhu: *const T,
    rhv: *const T,
    ry: *const T,
    ow: *mut T,
    ohu: *mut T,
    ohv: *mut T,
    wet_m0: *const u32,
    wet_in: *const u32,
    wet_out: *mut u32,
    hi: *const T,
    partial: *mut u32,
    shore: *mut u32,
    lo0: *const T,
    lo1: *const T,
    olo: *mut T,
    list: *const u32,
    count: *const u32,
    uniform: *const T,
    soil: Soil<T>,
    f: *mut T,
) where
    f64: Level<T>,
{
    unsafe {
        kp_rk::<F, T, f64, false, STAGE_PLAIN>(
            k,
            stage,
            early,
            dt,
            bc,
            gn2,
            w0.cast(),
            hu0,
            hv0,
            w1.cast(),
            hu1,
            hv1,
            rw.cast(),
            rhu,
            rhv,
            ry,
            ow.cast(),
            ohu,
            ohv,
            wet_m0,
            wet_in,
            wet_out,
            hi,
            partial,
            shore,
            lo0,
            lo1,
            olo,
            list,
            count,
            uniform,
            soil,
            f,
        )
    }
}

/// [`kp_flux_stream_rk`] of f64 surfaces `w` (Q¹) and `w0` (Qⁿ, updated in place) with an f64
/// R_w `rw` (written in the listed blocks); no low parts.
///
/// # Safety
/// As [`kp_flux_stream_rk`], with `w`, `w0` and `rw` padded arrays of f64; `lo0`, `lo1` null.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_flux_stream_rk<S: WetDryScheme, T: DeviceReal, const MASKED: bool>(
    k: Coeffs<T>,
    bands: Bands,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut T,
    rhu: *mut T,
    rhv: *mut T,
    dt: *const T,
    bc: *const T,
    gn2: *const T,
    w0: *mut T,
    hu0: *mut T,
    hv0: *mut T,
    lo0: *mut T,
    lo1: *const T,
    wet_out: *mut u32,
    hi: *const T,
    partial: *mut u32,
    shore: *mut u32,
    listed: *const u32,
    uniform: *const T,
    soil: Soil<T>,
    f: *mut T,
) where
    f64: Level<T>,
{
    unsafe {
        kp_flux_stream_rk::<S, T, f64, MASKED, STAGE_PLAIN>(
            k,
            bands,
            w.cast(),
            hu,
            hv,
            bed,
            rw.cast(),
            rhu,
            rhv,
            dt,
            bc,
            gn2,
            w0.cast(),
            hu0,
            hv0,
            lo0,
            lo1,
            wet_out,
            hi,
            partial,
            shore,
            listed,
            uniform,
            soil,
            f,
        )
    }
}

/// [`kp_boundary`] of an f64 surface.
///
/// # Safety
/// As [`kp_boundary`], with `w` a padded array of f64.
#[inline(always)]
pub(super) unsafe fn kp_m_boundary<T: DeviceReal>(
    k: Coeffs<T>,
    axis: u32,
    w: *mut T,
    hu: *mut T,
    hv: *mut T,
    bc: *const T,
    levels: *const f64,
    level_map: *const u32,
) where
    f64: Level<T>,
{
    unsafe { kp_boundary::<T, f64>(k, axis, w.cast(), hu, hv, bc, levels, level_map) }
}

/// [`kp_out_only`] of an f64 surface.
///
/// # Safety
/// As [`kp_out_only`], with `w` a padded array of f64.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_out_only<S: WetDryScheme, T: DeviceReal>(
    k: Coeffs<T>,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    faces: *const u32,
    count: u32,
    active: *mut u8,
) where
    f64: Level<T>,
{
    unsafe { kp_out_only::<S, T, f64>(k, w.cast(), hu, hv, bed, faces, count, active) }
}

/// [`kp_drain`] of an f64 surface.
///
/// # Safety
/// As [`kp_drain`], with `w` a padded array of f64.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_drain<T: DeviceReal>(
    k: Coeffs<T>,
    early: u32,
    split: u32,
    dt: *const T,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    bc: *const T,
    hi: *const T,
    wet_in: *const u32,
    list: *const u32,
    count: *const u32,
    phi: *mut T,
    drained: *mut u32,
) where
    f64: Level<T>,
{
    unsafe { kp_drain::<T, f64>(k, early, split, dt, w.cast(), hu, hv, bed, bc, hi, wet_in, list, count, phi, drained) }
}

/// [`kp_drain_rhs`] of an f64 surface into an f64 R_w.
///
/// # Safety
/// As [`kp_drain_rhs`], with `w` and `rw` padded arrays of f64; `split` 0 and `ry` null.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_drain_rhs<T: DeviceReal>(
    k: Coeffs<T>,
    early: u32,
    split: u32,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    phi: *const T,
    drained: *const u32,
    wet_in: *const u32,
    list: *const u32,
    count: *const u32,
    rw: *mut T,
    rhu: *mut T,
    rhv: *mut T,
    ry: *mut T,
) where
    f64: Level<T>,
{
    unsafe {
        kp_drain_rhs::<T, f64>(
            k,
            early,
            split,
            w.cast(),
            hu,
            hv,
            bed,
            phi,
            drained,
            wet_in,
            list,
            count,
            rw.cast(),
            rhu,
            rhv,
            ry,
        )
    }
}

/// [`kp_clamp`] of an f64 surface.
///
/// # Safety
/// As [`kp_clamp`], with `w` a padded array of f64.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_m_clamp<T: DeviceReal>(
    k: Coeffs<T>,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bc: *const T,
    hi: *const T,
    list: *const u32,
    count: *const u32,
    shu: *mut T,
    shv: *mut T,
) where
    f64: Level<T>,
{
    unsafe { kp_clamp::<T, f64>(k, w.cast(), hu, hv, bc, hi, list, count, shu, shv) }
}
