//! The level a solver conserves (sediment's h, the shallow-water surface w), stored in a type
//! `Self` that may be wider than the precision `T` of its fluxes: the mixed precision
//! (docs/f32-conservation.md, "Mixed precision for sediment: h in f64, the rest in f32" and "Mixed
//! precision for shallow water").
//!
//! A point function generic over `H: Level<T>` forms every difference of the level in `H` and
//! rounds it once to `T` (two heights of ~100 m that differ by a millimetre keep that
//! millimetre to `T`'s relative precision), computes the fluxes in `T`, and adds the increment
//! to the level in `H`. With `H = T` (the blanket implementation) each method is the plain
//! expression in `T`: the f32 and f64 paths compute no differences in a wider type.

use crate::Real;

/// A level stored in `Self`, whose differences and increments are values of `T`.
pub trait Level<T: Real>: Real {
    /// Whether `Self` is wider than `T`. Then a point's increment is summed face by face in
    /// `Self` ([`face`](Self::face)): each face's flux is the same `T` value in both cells it
    /// joins, so the sum of the increments over the grid telescopes to the boundary fluxes up
    /// to `Self`'s round-off, not `T`'s.
    const WIDER: bool;
    /// self − other, formed in `Self` and rounded to `T`.
    fn minus(self, other: Self) -> T;
    /// An increment of `T` as a `Self` (exact: `Self` is at least as wide).
    fn widen(d: T) -> Self;
    /// e − 2c + w (the second difference of three neighbours), formed in `Self`, rounded to `T`.
    fn second_difference(e: Self, c: Self, w: Self) -> T;
    /// `self` rounded to `T` (exact for a value that came from [`widen`](Self::widen)).
    fn narrow(self) -> T;
    /// One face's part c·K·(hi − lo) of a point's increment in `Self`, for a wider `Self`: c the
    /// step's Δt/Δ² in f64, K the face's conductance in `T`, hi − lo the level's difference
    /// across the face. Both cells of the face get the same value (of opposite sign).
    #[inline(always)]
    fn face(c: f64, k: T, hi: Self, lo: Self) -> Self {
        Self::from_f64(c) * (Self::widen(k) * (hi - lo))
    }
}

impl<T: Real> Level<T> for T {
    const WIDER: bool = false;
    #[inline(always)]
    fn minus(self, other: T) -> T {
        self - other
    }
    #[inline(always)]
    fn widen(d: T) -> T {
        d
    }
    #[inline(always)]
    fn second_difference(e: T, c: T, w: T) -> T {
        e - T::TWO * c + w
    }
    #[inline(always)]
    fn narrow(self) -> T {
        self
    }
}

/// The mixed precision: an f64 level, f32 fluxes.
impl Level<f32> for f64 {
    const WIDER: bool = true;
    #[inline(always)]
    fn minus(self, other: f64) -> f32 {
        (self - other) as f32
    }
    #[inline(always)]
    fn widen(d: f32) -> f64 {
        d as f64
    }
    #[inline(always)]
    fn second_difference(e: f64, c: f64, w: f64) -> f32 {
        (e - 2.0 * c + w) as f32
    }
    #[inline(always)]
    fn narrow(self) -> f32 {
        self as f32
    }
}

#[cfg(test)]
mod tests {
    use super::Level;

    #[test]
    fn mixed_differences_keep_what_f32_heights_lose() {
        // Two heights 1 mm apart near −150 m: as f32 values their difference is off by up to
        // half an ulp of 150 (7.6e-6), formed in f64 it is the nearest f32 to 1e-3.
        let (a, b) = (-150.0f64, -150.001f64);
        assert_eq!(Level::<f32>::minus(a, b), 1e-3f32);
        assert_ne!(a as f32 - b as f32, 1e-3f32);
        assert_eq!(<f64 as Level<f32>>::second_difference(1.0, 0.5, 0.25), 0.25f32);
        assert_eq!(<f64 as Level<f32>>::face(3.0, 0.5, -150.0, -150.001), 3.0 * (0.5 * (-150.0 - -150.001)));
    }
}
