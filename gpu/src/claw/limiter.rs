//! Wave limiters, as Clawpack defines them: a wave 𝒲_p is scaled by φ(θ_p), where θ_p compares
//! it with the same family's wave 𝒲_p^up at the interface upwind of it,
//! θ = (𝒲^up · 𝒲)/(𝒲 · 𝒲) (0 where 𝒲 = 0).

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

    /// φ(θ).
    #[inline(always)]
    pub fn phi<T: Real>(self, theta: T) -> T {
        let two = T::TWO;
        match self {
            Limiter::None => T::ONE,
            Limiter::Minmod => T::ZERO.max(T::ONE.min(theta)),
            Limiter::Superbee => T::ZERO.max(T::ONE.min(two * theta)).max(two.min(theta)),
            Limiter::VanLeer => (theta + theta.abs()) / (T::ONE + theta.abs()),
            Limiter::Mc => T::ZERO.max((T::HALF * (T::ONE + theta)).min(two).min(two * theta)),
        }
    }
}

/// φ(θ) for `wave` against `upwind` (the same family's wave at the upwind interface); 1 for the
/// unlimited scheme, 0 for a zero wave (nothing to correct).
#[inline(always)]
pub fn limited<T: Real, const M: usize>(limiter: Limiter, wave: &[T; M], upwind: &[T; M]) -> T {
    if limiter == Limiter::None {
        return T::ONE;
    }
    let (mut norm2, mut dot) = (T::ZERO, T::ZERO);
    for m in 0..M {
        norm2 = wave[m].mul_add(wave[m], norm2);
        dot = wave[m].mul_add(upwind[m], dot);
    }
    if norm2 == T::ZERO { T::ZERO } else { limiter.phi(dot / norm2) }
}
