//! Wave limiters, as Clawpack defines them: a wave 𝒲_p is scaled by φ(θ_p), where θ_p compares
//! it with the same family's wave 𝒲_p^up at the interface upwind of it,
//! θ = (𝒲^up · 𝒲)/(𝒲 · 𝒲) (0 where 𝒲 = 0).
//!
//! No division is formed: θ is the dot product times one approximate reciprocal of 𝒲 · 𝒲
//! (`recip_ftz`: one instruction in f32 on the GPU, ≤ 1 ulp, against about a dozen for a
//! correctly rounded quotient; the exact reciprocal elsewhere), and van Leer's
//! (θ + |θ|)/(1 + |θ|) is 2(𝒲^up · 𝒲)/(𝒲 · 𝒲 + 𝒲^up · 𝒲) for θ > 0, again one reciprocal
//! (`recip_fast`, whose argument is not bounded by the wave's own norm).
//! φ is then the same piecewise-linear clamp of θ as Clawpack's, so a plateau (φ = 0, 1 or 2)
//! is exact and a sloped part differs from the quotient's by a few ulp.

use crate::Real;

/// A limiter function φ(θ). `#[repr(u32)]` so it can sit in a kernel's parameter struct.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    /// φ = 1: the unlimited Lax–Wendroff correction (second order, oscillates at jumps).
    None = 0,
    /// φ = max(0, min(1, θ)).
    Minmod = 1,
    /// φ = max(0, min(1, 2θ), min(2, θ)).
    Superbee = 2,
    /// φ = (θ + |θ|)/(1 + |θ|).
    VanLeer = 3,
    /// Monotonized centred: φ = max(0, min((1 + θ)/2, 2, 2θ)).
    Mc = 4,
}

impl Limiter {
    pub const ALL: [Limiter; 5] = [Limiter::None, Limiter::Minmod, Limiter::Superbee, Limiter::VanLeer, Limiter::Mc];

    /// The name case files and flags use.
    pub const fn name(self) -> &'static str {
        match self {
            Limiter::None => "none",
            Limiter::Minmod => "minmod",
            Limiter::Superbee => "superbee",
            Limiter::VanLeer => "vanleer",
            Limiter::Mc => "mc",
        }
    }

    /// The limiter of a kernel parameter's code (an unknown code, which the host never passes,
    /// reads as MC).
    #[inline(always)]
    pub const fn from_code(code: u32) -> Limiter {
        match code {
            0 => Limiter::None,
            1 => Limiter::Minmod,
            2 => Limiter::Superbee,
            3 => Limiter::VanLeer,
            _ => Limiter::Mc,
        }
    }

    /// `sweep` run with this limiter as a constant: each arm is a copy of `sweep` specialised
    /// to its limiter, so the loop of a sweep carries no branch on which limiter it is (a
    /// kernel takes the limiter's code and branches once). The marches (y- and z-sweeps) run
    /// so in both precisions. Callers mark `sweep` `#[inline(always)]`: a closure inlined at
    /// the ordinary inliner's turn leaves its loop shaped differently (f64's Roe and HLLE
    /// x-sweeps then spill more than the same loop written in place).
    #[inline(always)]
    pub fn specialise<R>(self, sweep: impl Fn(Limiter) -> R) -> R {
        match self {
            Limiter::None => sweep(Limiter::None),
            Limiter::Minmod => sweep(Limiter::Minmod),
            Limiter::Superbee => sweep(Limiter::Superbee),
            Limiter::VanLeer => sweep(Limiter::VanLeer),
            Limiter::Mc => sweep(Limiter::Mc),
        }
    }

    /// [`specialise`](Limiter::specialise) in f32; in f64 one copy of `sweep` with the limiter
    /// a run-time value. For the x-sweeps: in f64 they run at register caps under which the
    /// copies spill (Roe's 424 bytes against 64).
    #[inline(always)]
    pub fn specialise_in_f32<T: Real, R>(self, sweep: impl Fn(Limiter) -> R) -> R {
        if core::mem::size_of::<T>() == 4 { self.specialise(sweep) } else { sweep(self) }
    }

    /// φ(θ) from θ's numerator `dot` = 𝒲^up · 𝒲 and denominator `norm2` = 𝒲 · 𝒲, a normal
    /// number no larger than [`largest_norm2`] (so that its reciprocal is finite and normal).
    #[inline(always)]
    pub fn phi<T: Real>(self, dot: T, norm2: T) -> T {
        let two = T::TWO;
        let theta = || dot * norm2.recip_ftz();
        match self {
            Limiter::None => T::ONE,
            Limiter::Minmod => T::ZERO.max(T::ONE.min(theta())),
            Limiter::Superbee => {
                let theta = theta();
                T::ZERO.max(T::ONE.min(two * theta)).max(two.min(theta))
            }
            // (θ + |θ|)/(1 + |θ|) is 0 for θ ≤ 0, else 2θ/(1 + θ) = 2·dot/(norm2 + dot).
            Limiter::VanLeer => {
                if dot > T::ZERO {
                    (dot + dot) * (norm2 + dot).recip_fast()
                } else {
                    T::ZERO
                }
            }
            Limiter::Mc => {
                let theta = theta();
                T::ZERO.max((T::HALF * (T::ONE + theta)).min(two).min(two * theta))
            }
        }
    }
}

/// a · b, as one chain of fused multiply-adds (so dot(a, b) and dot(b, a) are the same
/// number: one product serves the interfaces on both sides of a pair).
#[inline(always)]
pub fn dot<T: Real, const M: usize>(a: &[T; M], b: &[T; M]) -> T {
    let mut d = T::ZERO;
    for m in 0..M {
        d = a[m].mul_add(b[m], d);
    }
    d
}

/// φ(θ) for `wave` against `upwind` (the same family's wave at the upwind interface); 1 for the
/// unlimited scheme, 0 for a zero wave (nothing to correct).
#[inline(always)]
pub fn limited<T: Real, const M: usize>(limiter: Limiter, wave: &[T; M], upwind: &[T; M]) -> T {
    limited_by(limiter, wave, dot(wave, upwind))
}

/// The largest 𝒲 · 𝒲 a wave is limited at. In f32, the reciprocal of the smallest normal
/// number, 2¹²⁶: the reciprocal of a norm up to it is normal, so the GPU's one-instruction
/// reciprocal, which flushes a subnormal result to zero, agrees with the exact one. In f64, ∞
/// (no bound, and no compare in the kernels): f64 forms the reciprocal by a division, which
/// keeps subnormal results on the host and the GPU alike.
#[inline(always)]
pub fn largest_norm2<T: Real>() -> T {
    if core::mem::size_of::<T>() == 4 { T::from_f64(1.0 / T::MIN_POSITIVE.to_f64()) } else { T::INFINITY }
}

/// [`limited`] from θ's numerator `upwind_dot` = 𝒲^up · 𝒲 ([`dot`]). A wave whose 𝒲 · 𝒲 is
/// below the smallest normal number (components under 1e-19 in f32, 1e-154 in f64) counts as
/// zero: the reciprocal of its norm would overflow, and its products have lost their digits
/// to underflow. So does an f32 wave whose 𝒲 · 𝒲 exceeds [`largest_norm2`] (‖𝒲‖ above 2⁶³,
/// near the square's overflow): it is not limited but left out of the correction, on the host
/// and the GPU alike.
#[inline(always)]
pub fn limited_by<T: Real, const M: usize>(limiter: Limiter, wave: &[T; M], upwind_dot: T) -> T {
    if limiter == Limiter::None {
        return T::ONE;
    }
    let norm2 = dot(wave, wave);
    if norm2 < T::MIN_POSITIVE || norm2 > largest_norm2() { T::ZERO } else { limiter.phi(upwind_dot, norm2) }
}
