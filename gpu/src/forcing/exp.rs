//! e^(−x) in f64 for the soil models, in plain arithmetic: the kernels have no libm, and the CPU
//! reference must compute what the kernels compute, so both call these.

/// ln 2 split so that n·LN2_HI is exact for the n used (its low bits are zero).
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LOG2_E: f64 = core::f64::consts::LOG2_E;

/// Beyond this e^(−x) is below f64's smallest normal value: 0.
const UNDERFLOW: f64 = 708.0;

/// Taylor terms of e^(−r) for |r| ≤ ln 2 / 2: the 15th is below 1e-19.
const EXP_TERMS: u32 = 14;
/// Terms of the series of 1 − e^(−x) for x < [`SERIES_BELOW`]: the 17th is below 1e-17 of x.
const SERIES_TERMS: u32 = 17;
const SERIES_BELOW: f64 = 0.5;

/// e^(−x) for x ≥ 0 (1 for x ≤ 0 or NaN) to a few ulp: x = n·ln 2 + r with |r| ≤ ln 2 / 2,
/// e^(−r) by its Taylor polynomial and 2^(−n) from the exponent bits.
#[inline(always)]
pub fn exp_neg(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 1.0;
    }
    if x > UNDERFLOW {
        return 0.0;
    }
    // n = round(x / ln 2) ≤ 1022, so 2^(−n) is a normal number.
    let n = (x * LOG2_E + 0.5) as u32;
    let r = (x - n as f64 * LN2_HI) - n as f64 * LN2_LO;
    // e^(−r) = 1 − r(1 − r/2(1 − r/3(…))). The loop unrolls, so 1/m is a constant and each
    // term a multiply: an f64 division is many times a multiply on the GPU.
    let mut p = 1.0;
    let mut m = EXP_TERMS;
    while m > 0 {
        p = 1.0 - r * (1.0 / m as f64) * p;
        m -= 1;
    }
    p * f64::from_bits(((1023 - n) as u64) << 52)
}

/// 1 − e^(−x) for x ≥ 0 (0 for x ≤ 0 or NaN), without the cancellation of 1 − [`exp_neg`] at
/// small x: there its series x(1 − x/2(1 − x/3(…))).
#[inline(always)]
pub fn one_minus_exp_neg(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    if x >= SERIES_BELOW {
        return 1.0 - exp_neg(x);
    }
    small_one_minus_exp_neg(x)
}

/// 1 − e^(−x) given e = e^(−x) (from [`exp_neg`]): the same value as [`one_minus_exp_neg`]
/// without a second exponential where it would take 1 − e.
#[inline(always)]
pub fn one_minus_given(x: f64, e: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    if x >= SERIES_BELOW { 1.0 - e } else { small_one_minus_exp_neg(x) }
}

/// The series x(1 − x/2(1 − x/3(…))) of 1 − e^(−x), for 0 < x < [`SERIES_BELOW`]; unrolled,
/// with multiplies by the constants 1/m as in [`exp_neg`].
#[inline(always)]
fn small_one_minus_exp_neg(x: f64) -> f64 {
    let mut p = 1.0;
    let mut m = SERIES_TERMS;
    while m > 1 {
        p = 1.0 - x * (1.0 / m as f64) * p;
        m -= 1;
    }
    x * p
}
