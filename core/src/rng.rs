//! [`Rng`]: the deterministic generator for generated inputs (random tridiagonal batches) and
//! for the tests' random data.

use crate::Real;

/// xorshift64 (Marsaglia 2003): small, fast, and the same sequence from the same seed on every
/// machine, which is what generated inputs and test data need (not statistical quality).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value: the state is `seed | 1`, never the fixed point 0).
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [0, 1), 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// `n` values uniform in [lo, hi), rounded to precision `T`.
    pub fn values<T: Real>(&mut self, n: usize, lo: f64, hi: f64) -> Vec<T> {
        (0..n).map(|_| T::from_f64(lo + (hi - lo) * self.unit())).collect()
    }
}
