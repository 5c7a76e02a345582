//! The `Real` trait: what every kernel and CPU reference needs of f32 and f64.
//!
//! Everything here lowers to single PTX instructions on the GPU (`sqrt.rn`, `fma.rn`, `abs`,
//! `min`, `max`) and to the usual instructions on the host, so generic point-wise code is
//! written once and compiled for both precisions.

use core::fmt::{Debug, Display};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

pub trait Real:
    Copy
    + Default
    + Debug
    + Display
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Send
    + Sync
    + 'static
{
    /// "f32" or "f64": the suffix of the entry points' names.
    const NAME: &'static str;
    const ZERO: Self;
    const ONE: Self;
    const TWO: Self;
    const HALF: Self;
    /// Machine epsilon.
    const EPSILON: Self;
    /// Largest finite value.
    const MAX: Self;
    /// Smallest positive normal value.
    const MIN_POSITIVE: Self;
    const NAN: Self;
    const INFINITY: Self;
    /// Whether `min` and `max` are single instructions on the GPU (f32's FMNMX), so that a
    /// branch-free form built from them beats compares and branches. Not in f64: with the
    /// branch-free `minmod3` the f64 flux kernel executes 33% more instructions (measured on an
    /// H200; docs/kp-wet-dry-kernels.md, "Fewer instructions in the flux").
    const CHEAP_MIN_MAX: bool = false;

    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    #[inline(always)]
    fn from_usize(x: usize) -> Self {
        Self::from_f64(x as f64)
    }
    fn sqrt(self) -> Self;
    /// `self * a + b` rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn abs(self) -> Self;
    /// Minimum; like IEEE `minNum`, a NaN operand loses to a number.
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn is_finite(self) -> bool;
    /// The largest value below `self` (IEEE `nextDown`).
    fn next_down(self) -> Self;
    #[inline(always)]
    fn recip(self) -> Self {
        Self::ONE / self
    }
    /// √x where a last-bit error is acceptable (the shallow-water wave speeds): in f32 on the
    /// GPU the hardware approximation `sqrt.approx.f32` (relative error ≤ 2⁻²³; four
    /// instructions with ptxas's scaling of subnormals, against about ten for the correctly
    /// rounded one); elsewhere `sqrt`.
    fn sqrt_fast(self) -> Self;
    /// 1/x likewise: `rcp.approx.f32` (≤ 1 ulp) in f32 on the GPU, else `recip`.
    fn recip_fast(self) -> Self;
    /// [`sqrt_fast`](Real::sqrt_fast) with a subnormal argument taken as 0: in f32 on the GPU
    /// `sqrt.approx.ftz.f32`, one instruction (without `.ftz` ptxas scales subnormals around it:
    /// four, and a compare); elsewhere `sqrt`. For arguments whose subnormal values mean
    /// nothing (g·h of a face: h below 10⁻³⁸ m).
    fn sqrt_ftz(self) -> Self;
    /// [`recip_fast`](Real::recip_fast) with a subnormal argument taken as 0 (so 1/x = ∞): in
    /// f32 on the GPU `rcp.approx.ftz.f32`, one instruction (without `.ftz` ptxas scales
    /// subnormal and huge arguments around it: eight); elsewhere `recip`. For arguments known to
    /// be normal numbers.
    fn recip_ftz(self) -> Self;
    /// √x for a positive normal x, within an ulp of the correctly rounded result (and mostly
    /// equal to it), and exact at 0 and ∞: in f64 on the GPU the hardware's estimate refined by
    /// Newton steps and corrected by its residual, which ptxas does not expand into a slow-path
    /// call (whose registers a kernel at a register cap spills around); elsewhere `sqrt`.
    #[inline(always)]
    fn sqrt_refined(self) -> Self {
        self.sqrt()
    }
    /// `self / d` for a positive normal d below 2¹⁰²⁰, within an ulp of the correctly rounded
    /// quotient (and mostly equal to it): in f64 on the GPU from the hardware's estimate of 1/d
    /// refined as [`sqrt_refined`](Real::sqrt_refined) is; elsewhere the division.
    #[inline(always)]
    fn div_refined(self, d: Self) -> Self {
        self / d
    }
    /// `self / d` for a dividend that is often zero (a flux, a speed or a momentum at rest),
    /// with the same bits as the division except where `self` is zero and 1/d overflows (a
    /// subnormal d below 2.9·10⁻³⁹ in f32, 5.6·10⁻³⁰⁹ in f64), which gives NaN for ±0. The GPU's
    /// correctly rounded division checks its operands (`FCHK` in f32, an exponent test in f64)
    /// and sends a zero dividend to a slow-path subroutine of some 40 instructions: this divides
    /// 1 instead and multiplies the quotient by the zero, three instructions more on every
    /// path and none of the call.
    #[inline(always)]
    fn div_often_zero(self, d: Self) -> Self {
        let zero = self == Self::ZERO;
        let q = if zero { Self::ONE } else { self } / d;
        if zero { self * q } else { q }
    }
    /// √x for an x that is often zero, with the same bits as `sqrt` for every x: the GPU's
    /// correctly rounded square root sends 0 to a slow-path subroutine, as
    /// [`div_often_zero`](Real::div_often_zero) says of the division.
    #[inline(always)]
    fn sqrt_often_zero(self) -> Self {
        let zero = self == Self::ZERO;
        let r = if zero { Self::ONE } else { self }.sqrt();
        if zero { self } else { r }
    }
    /// `self * other` rounded on its own, never contracted into a multiply-add with what uses
    /// it: `mul.rn` on the GPU (a PTX product with a rounding modifier is not fused, by LLVM or
    /// by ptxas), the plain product on the host (which does not contract). For a value two
    /// kernels must compute to the same bits (sediment's face conductance in mixed precision).
    #[inline(always)]
    fn mul_rn(self, other: Self) -> Self {
        self * other
    }
    /// `self + other` rounded on its own: `add.rn` on the GPU (not fused with a product that
    /// feeds it), the plain sum on the host.
    #[inline(always)]
    fn add_rn(self, other: Self) -> Self {
        self + other
    }
    /// x^(−⅓) for a positive normal x, within 2 ulps, without a division (∞ at +0, NaN below
    /// it): a first guess from x's bits as an f64 (the exponent divided by −3, within 3.5% of
    /// the root), then four Newton steps y ← y·(4 − x·y³)/3, each of which takes a relative
    /// error e to about −2e² (3.4e-2, 2.4e-3, 1.1e-5, 2.6e-10, then the rounding of the last
    /// step). A fixed number of steps, so that a kernel has no data-dependent loop; the GPU has
    /// no libm, and a cube root by Newton's method would take a division a step.
    #[inline(always)]
    fn recip_cbrt(self) -> Self {
        let third = Self::ONE / Self::from_f64(3.0);
        let four = Self::from_f64(4.0);
        let mut y = Self::from_f64(f64::from_bits(0x553E_F0FF_02BB_E000 - self.to_f64().to_bits() / 3));
        let mut i = 0;
        while i < 4 {
            y = third * y * (four - self * (y * y * y));
            i += 1;
        }
        // Outside its domain as 1/∛x is: ∞ at +0; NaN at a negative x or NaN, so that a depth
        // gone negative fails the step at once, as a square root of it would.
        if self > Self::ZERO {
            y
        } else if self == Self::ZERO {
            Self::INFINITY
        } else {
            Self::NAN
        }
    }
    #[inline(always)]
    fn powi(self, n: u32) -> Self {
        let mut r = Self::ONE;
        let mut k = 0;
        while k < n {
            r *= self;
            k += 1;
        }
        r
    }
}

macro_rules! impl_real {
    ($t:ty, $cheap_min_max:expr, $sqrt:ident, $fma:ident, $sqrt_fast:path, $recip_fast:path, $sqrt_ftz:path, $recip_ftz:path, $mul_rn:path, $add_rn:path $(, $sqrt_refined:path, $div_refined:path)?) => {
        impl Real for $t {
            const NAME: &'static str = stringify!($t);
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const HALF: Self = 0.5;
            const EPSILON: Self = <$t>::EPSILON;
            const MAX: Self = <$t>::MAX;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            const NAN: Self = <$t>::NAN;
            const INFINITY: Self = <$t>::INFINITY;
            const CHEAP_MIN_MAX: bool = $cheap_min_max;

            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                core::intrinsics::$sqrt(self)
            }
            #[inline(always)]
            fn sqrt_fast(self) -> Self {
                $sqrt_fast(self)
            }
            #[inline(always)]
            fn recip_fast(self) -> Self {
                $recip_fast(self)
            }
            #[inline(always)]
            fn sqrt_ftz(self) -> Self {
                $sqrt_ftz(self)
            }
            #[inline(always)]
            fn recip_ftz(self) -> Self {
                $recip_ftz(self)
            }
            $(
                #[inline(always)]
                fn sqrt_refined(self) -> Self {
                    $sqrt_refined(self)
                }
                #[inline(always)]
                fn div_refined(self, d: Self) -> Self {
                    $div_refined(self, d)
                }
            )?
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                core::intrinsics::$fma(self, a, b)
            }
            #[inline(always)]
            fn mul_rn(self, other: Self) -> Self {
                $mul_rn(self, other)
            }
            #[inline(always)]
            fn add_rn(self, other: Self) -> Self {
                $add_rn(self, other)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn min(self, other: Self) -> Self {
                <$t>::min(self, other)
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                <$t>::max(self, other)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline(always)]
            fn next_down(self) -> Self {
                <$t>::next_down(self)
            }
        }
    };
}

impl_real!(
    f32,
    true,
    sqrtf32,
    fmaf32,
    fast::sqrt_f32,
    fast::recip_f32,
    fast::sqrt_ftz_f32,
    fast::recip_ftz_f32,
    rn::mul_f32,
    rn::add_f32
);
impl_real!(
    f64,
    false,
    sqrtf64,
    fmaf64,
    fast::sqrt_f64,
    fast::recip_f64,
    fast::sqrt_f64,
    fast::recip_f64,
    rn::mul_f64,
    rn::add_f64,
    refined::sqrt_f64,
    refined::div_f64
);

/// The operations rounded on their own (see [`Real::mul_rn`]): on the GPU one PTX instruction
/// with the `.rn` modifier each, which neither LLVM (inline assembly is opaque to it) nor ptxas
/// (it fuses only products without a rounding modifier) contracts; on the host the plain
/// operation.
mod rn {
    macro_rules! rn_op {
        ($name:ident, $t:ty, $op:literal, $reg:ident, $plain:tt) => {
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            pub fn $name(a: $t, b: $t) -> $t {
                let r: $t;
                unsafe {
                    core::arch::asm!(concat!($op, " {r}, {a}, {b};"), r = out($reg) r, a = in($reg) a, b = in($reg) b,
                        options(pure, nomem, nostack))
                };
                r
            }
            #[cfg(not(target_arch = "nvptx64"))]
            #[inline(always)]
            pub fn $name(a: $t, b: $t) -> $t {
                a $plain b
            }
        };
    }
    rn_op!(mul_f32, f32, "mul.rn.f32", reg32, *);
    rn_op!(add_f32, f32, "add.rn.f32", reg32, +);
    rn_op!(mul_f64, f64, "mul.rn.f64", reg64, *);
    rn_op!(add_f64, f64, "add.rn.f64", reg64, +);
}

/// The "fast" forms (see [`Real::sqrt_fast`]): approximations in f32 on the GPU; the exact
/// operations in f64 (the approximate f64 instructions are far coarser) and on the host.
mod fast {
    #[inline(always)]
    pub fn sqrt_f64(x: f64) -> f64 {
        core::intrinsics::sqrtf64(x)
    }
    #[inline(always)]
    pub fn recip_f64(x: f64) -> f64 {
        1.0 / x
    }
    /// An f32 approximation: the PTX instruction `$op` on the GPU, `$exact` on the host.
    macro_rules! approx_op {
        ($name:ident, $op:literal, $exact:expr) => {
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            pub fn $name(x: f32) -> f32 {
                let r: f32;
                unsafe {
                    core::arch::asm!(concat!($op, " {r}, {x};"), r = out(reg32) r, x = in(reg32) x,
                        options(pure, nomem, nostack))
                };
                r
            }
            #[cfg(not(target_arch = "nvptx64"))]
            #[inline(always)]
            pub fn $name(x: f32) -> f32 {
                $exact(x)
            }
        };
    }
    approx_op!(sqrt_f32, "sqrt.approx.f32", core::intrinsics::sqrtf32);
    approx_op!(recip_f32, "rcp.approx.f32", |x: f32| 1.0 / x);
    approx_op!(sqrt_ftz_f32, "sqrt.approx.ftz.f32", core::intrinsics::sqrtf32);
    approx_op!(recip_ftz_f32, "rcp.approx.ftz.f32", |x: f32| 1.0 / x);
}

/// The refined forms of f64 (see [`Real::sqrt_refined`]). f32 keeps the trait's defaults, the
/// correctly rounded operations: ptxas expands them in a few instructions with no call, and a
/// soil's step with the approximate ones took as long (docs/kp-forcing.md, "Cost").
pub mod refined {
    use super::Real;

    /// Newton steps from the hardware's estimates (good to about 2⁻²⁰ or better): one leaves
    /// about 2⁻⁴⁰, and the correction by the residual then about 2⁻⁸⁰, below the half ulp of the
    /// last rounding.
    const STEPS: u32 = 1;

    /// √x from an estimate `r` of 1/√x: `STEPS` steps of Goldschmidt's coupled iteration for
    /// g ≈ √x and h ≈ 1/(2√x), each doubling the correct bits, then g corrected by its residual
    /// x − g² (exact in a multiply-add), which leaves it within an ulp.
    #[inline(always)]
    pub fn sqrt_from_estimate(x: f64, r: f64) -> f64 {
        let (mut g, mut h) = (x * r, 0.5 * r);
        let mut n = 0;
        while n < STEPS {
            let e = Real::mul_add(-g, h, 0.5);
            g = Real::mul_add(g, e, g);
            h = Real::mul_add(h, e, h);
            n += 1;
        }
        let s = Real::mul_add(Real::mul_add(-g, g, x), h, g);
        // 0 and ∞ as they are, NaN below 0 (the estimate gives NaN at both ends).
        if x > 0.0 && x < f64::INFINITY {
            s
        } else if x >= 0.0 {
            x
        } else {
            f64::NAN
        }
    }

    /// n/d from an estimate `y` of 1/d: `STEPS` Newton steps for 1/d, then the quotient
    /// corrected by its residual n − d·q (exact in a multiply-add).
    #[inline(always)]
    pub fn div_from_estimate(n: f64, d: f64, y: f64) -> f64 {
        let mut y = y;
        let mut k = 0;
        while k < STEPS {
            y = Real::mul_add(y, Real::mul_add(-d, y, 1.0), y);
            k += 1;
        }
        let q = n * y;
        Real::mul_add(Real::mul_add(-d, q, n), y, q)
    }

    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub fn sqrt_f64(x: f64) -> f64 {
        let r: f64;
        unsafe {
            core::arch::asm!("rsqrt.approx.f64 {r}, {x};", r = out(reg64) r, x = in(reg64) x, options(pure, nomem, nostack))
        };
        sqrt_from_estimate(x, r)
    }

    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub fn div_f64(n: f64, d: f64) -> f64 {
        let y: f64;
        unsafe {
            core::arch::asm!("rcp.approx.ftz.f64 {y}, {d};", y = out(reg64) y, d = in(reg64) d, options(pure, nomem, nostack))
        };
        div_from_estimate(n, d, y)
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub fn sqrt_f64(x: f64) -> f64 {
        core::intrinsics::sqrtf64(x)
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub fn div_f64(n: f64, d: f64) -> f64 {
        n / d
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::refined::{div_from_estimate, sqrt_from_estimate};
    use std::vec::Vec;

    /// x^(−⅓) within 2 ulps of the correctly rounded root's reciprocal over 60 decades in each
    /// precision (the points 10^(−30 + 60k/N) take mantissas of every kind).
    #[test]
    fn reciprocal_cube_roots_are_within_two_ulps() {
        use super::Real;
        let n = 20_000;
        let (mut worst64, mut worst32) = (0.0f64, 0.0f64);
        for k in 0..=n {
            let x = 10f64.powf(-30.0 + 60.0 * k as f64 / n as f64);
            worst64 = worst64.max((x.recip_cbrt() * x.cbrt() - 1.0).abs() / f64::EPSILON);
            let x32 = x as f32;
            let y32 = x32.recip_cbrt() as f64;
            worst32 = worst32.max((y32 * (x32 as f64).cbrt() - 1.0).abs() / f32::EPSILON as f64);
        }
        assert!(worst64 < 2.0 && worst32 < 2.0, "{worst64} ulp (f64), {worst32} ulp (f32)");
        assert!(0.0f64.recip_cbrt() == f64::INFINITY && 0.0f32.recip_cbrt() == f32::INFINITY);
        assert!((-1.0f64).recip_cbrt().is_nan() && (-1e-3f32).recip_cbrt().is_nan() && f64::NAN.recip_cbrt().is_nan());
    }

    /// Random f64s of `bits` random mantissa bits over exponents −60…60 (an LCG: no dependency).
    fn randoms(n: usize) -> impl Iterator<Item = f64> {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        (0..n).map(move |_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let m = 1.0 + (s >> 11) as f64 / (1u64 << 53) as f64;
            let e = ((s >> 3) % 121) as i32 - 60;
            m * 2f64.powi(e)
        })
    }

    /// An estimate of `exact` off by a relative 2⁻¹⁶ either way, coarser than the hardware's
    /// (about 2⁻²⁰ at worst): with 2⁻²⁰ every result is the correctly rounded one.
    fn estimate(exact: f64, i: usize) -> f64 {
        exact * (1.0 + [1.0, -1.0, 0.5, -0.25][i % 4] * 2f64.powi(-16))
    }

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn refined_square_roots_are_within_an_ulp_and_mostly_exact() {
        let (mut equal, n) = (0, 20_000);
        for (i, x) in randoms(n).enumerate() {
            let s = sqrt_from_estimate(x, estimate(1.0 / x.sqrt(), i));
            assert!(ulps(s, x.sqrt()) <= 1, "√{x:e}: {s:e} against {:e}", x.sqrt());
            equal += (s == x.sqrt()) as usize;
        }
        assert!(equal * 100 >= n * 99, "{equal} of {n} correctly rounded");
        assert_eq!(sqrt_from_estimate(0.0, f64::INFINITY), 0.0);
        assert_eq!(sqrt_from_estimate(f64::INFINITY, 0.0), f64::INFINITY);
        assert!(sqrt_from_estimate(-1.0, f64::NAN).is_nan());
    }

    /// Zeros, infinities, NaN, the smallest and largest normals and subnormals and ordinary
    /// values, of both signs.
    fn specials<T: super::Real + Copy>(from: impl Fn(f64) -> T) -> Vec<T> {
        let mut v = Vec::new();
        for x in [0.0, 1.0, 0.5, 3.0, 1e-3, 7.25e2, f64::INFINITY, f64::NAN] {
            v.extend([from(x), from(-x)]);
        }
        v
    }

    #[test]
    fn zero_dividend_forms_give_the_divisions_and_roots_bits() {
        fn check<T: super::Real + Copy>(values: &[T], bits: impl Fn(T) -> u64, tiny: T) {
            let nan = |a: T| a != a;
            let same = |a: T, b: T| (nan(a) && nan(b)) || bits(a) == bits(b);
            for &x in values {
                assert!(same(x.sqrt_often_zero(), x.sqrt()), "√{x}");
                for &d in values {
                    // The one difference it states: a zero over a finite divisor whose
                    // reciprocal overflows gives NaN.
                    let stated = x == T::ZERO && d.is_finite() && d != T::ZERO && !(T::ONE / d).is_finite();
                    let q = x.div_often_zero(d);
                    assert!(if stated { nan(q) } else { same(q, x / d) }, "{x} / {d}");
                }
            }
            assert!(nan(T::ZERO.div_often_zero(tiny)) && bits(T::ZERO / tiny) == 0);
        }
        let f32s: Vec<f32> =
            specials(|x| x as f32).into_iter().chain([f32::MIN_POSITIVE, f32::MAX, 1e-40, -1e-40]).collect();
        let f64s: Vec<f64> =
            specials(|x| x).into_iter().chain([f64::MIN_POSITIVE, f64::MAX, 1e-310, -1e-310]).collect();
        check(&f32s, |x: f32| x.to_bits() as u64, 1e-40f32);
        check(&f64s, f64::to_bits, 1e-310f64);
    }

    #[test]
    fn refined_quotients_are_within_an_ulp_and_mostly_exact() {
        let (mut equal, n) = (0, 20_000);
        let (a, b): (Vec<f64>, Vec<f64>) = (randoms(n).collect(), randoms(2 * n).skip(n).collect());
        for (i, (&x, &d)) in a.iter().zip(&b).enumerate() {
            let q = div_from_estimate(x, d, estimate(1.0 / d, i));
            assert!(ulps(q, x / d) <= 1, "{x:e}/{d:e}: {q:e} against {:e}", x / d);
            equal += (q == x / d) as usize;
        }
        assert!(equal * 100 >= n * 99, "{equal} of {n} correctly rounded");
    }
}
