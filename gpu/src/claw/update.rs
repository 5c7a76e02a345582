//! The point functions of the wave-propagation update that every sweep runs, on the host and
//! the device alike: the second-order correction flux of an interface from its waves and its
//! neighbours' ([`correction`], [`wave_dots`], [`correction_by`]), and a cell's new state from
//! its two interfaces ([`update`], in the steps [`update_west`] and [`step_by`]).

use super::limiter::{Limiter, dot, limited_by};
use super::solver::Solution;
use crate::Real;

/// The second-order correction flux F̃_{i−½} at an interface from its solution `here` and the
/// solutions at the interfaces to its left (i−3/2) and right (i+½), with `dtdx` = Δt/Δx:
/// each wave limited against the same family's wave at the interface upwind of it, then
/// ½ |s| (1 − Δt/Δx |s|) times the limited wave.
#[inline(always)]
pub fn correction<T: Real, const M: usize, const W: usize>(
    limiter: Limiter,
    dtdx: T,
    left: &Solution<T, M, W>,
    here: &Solution<T, M, W>,
    right: &Solution<T, M, W>,
) -> [T; M] {
    let (l, r) = (wave_dots(&here.waves, &left.waves), wave_dots(&here.waves, &right.waves));
    correction_by(limiter, dtdx, here, &l, &r)
}

/// Each family's θ numerator between two interfaces, 𝒲_p · 𝒲'_p ([`dot`]): the same for
/// either order, so the sweeps form it once for the pair and hand it to both interfaces
/// (as the right one's left, the left one's right).
#[inline(always)]
pub fn wave_dots<T: Real, const M: usize, const W: usize>(a: &[[T; M]; W], b: &[[T; M]; W]) -> [T; W] {
    let mut d = [T::ZERO; W];
    for p in 0..W {
        d[p] = dot(&a[p], &b[p]);
    }
    d
}

/// [`correction`] from `here` and its waves' dot products with the waves to its left and to
/// its right ([`wave_dots`]).
#[inline(always)]
pub fn correction_by<T: Real, const M: usize, const W: usize>(
    limiter: Limiter,
    dtdx: T,
    here: &Solution<T, M, W>,
    left: &[T; W],
    right: &[T; W],
) -> [T; M] {
    let mut f = [T::ZERO; M];
    for p in 0..W {
        let s = here.speeds[p];
        let upwind = if s > T::ZERO { left[p] } else { right[p] };
        let phi = limited_by(limiter, &here.waves[p], upwind);
        let c = T::HALF * s.abs() * (T::ONE - dtdx * s.abs()) * phi;
        for (fm, wm) in f.iter_mut().zip(&here.waves[p]) {
            *fm = c.mul_add(*wm, *fm);
        }
    }
    f
}

/// Cell i's new state from its two interfaces: A⁺ΔQ and F̃ of i−½ (`apdq_w`, `fw`) and A⁻ΔQ and
/// F̃ of i+½ (`amdq_e`, `fe`): Q − Δt/Δx (A⁺ΔQ_{i−½} + A⁻ΔQ_{i+½}) − Δt/Δx (F̃_{i+½} − F̃_{i−½}),
/// taken in three steps, [`update_west`], then [`step_by`] A⁻ΔQ_{i+½}, then F̃_{i+½}, so that a
/// sweep marching along a line keeps M numbers of a cell's part-done update rather than Q,
/// A⁺ΔQ, F̃ and A⁻ΔQ.
#[inline(always)]
pub fn update<T: Real, const M: usize>(
    dtdx: T,
    q: &[T; M],
    apdq_w: &[T; M],
    fw: &[T; M],
    amdq_e: &[T; M],
    fe: &[T; M],
) -> [T; M] {
    step_by(dtdx, &step_by(dtdx, &update_west(dtdx, q, apdq_w, fw), amdq_e), fe)
}

/// The west interface's part of [`update`]: Q − Δt/Δx (A⁺ΔQ_{i−½} − F̃_{i−½}).
#[inline(always)]
pub fn update_west<T: Real, const M: usize>(dtdx: T, q: &[T; M], apdq_w: &[T; M], fw: &[T; M]) -> [T; M] {
    let mut out = *q;
    for m in 0..M {
        out[m] = (-dtdx).mul_add(apdq_w[m] - fw[m], q[m]);
    }
    out
}

/// q − Δt/Δx·d, one fused multiply-add a component (a step of [`update`]).
#[inline(always)]
pub fn step_by<T: Real, const M: usize>(dtdx: T, q: &[T; M], d: &[T; M]) -> [T; M] {
    let mut out = *q;
    for m in 0..M {
        out[m] = (-dtdx).mul_add(d[m], q[m]);
    }
    out
}
