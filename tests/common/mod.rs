//! Test helpers shared by the GPU-vs-CPU suites.
#![allow(dead_code)]

use hydrokern::Gpu;
use std::sync::{Arc, OnceLock};

/// The shared GPU, or `None` after printing that the test was skipped. With
/// `HYDROKERN_REQUIRE_GPU=1` a missing GPU fails the test instead.
pub fn gpu_or_skip(test: &str) -> Option<Arc<Gpu>> {
    static GPU: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();
    let gpu = GPU.get_or_init(|| Gpu::new(0).map(Arc::new).map_err(|e| e.to_string()));
    match gpu {
        Ok(g) => Some(g.clone()),
        Err(why) => {
            if std::env::var("HYDROKERN_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: HYDROKERN_REQUIRE_GPU=1 but {why}");
            }
            // Once per test, not once per proptest case.
            static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
            let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
            if !said.iter().any(|t| t == test) {
                said.push(test.to_string());
                println!("SKIPPED {test}: {why}");
            }
            None
        }
    }
}

/// Proptest cases for GPU tests: `PROPTEST_CASES` when set (the sanitizer runs lower it).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Lengths worth testing: 0, 1, primes, block multiples and their neighbours, and random ones.
pub fn awkward_len(max: usize) -> impl proptest::strategy::Strategy<Value = usize> {
    use proptest::prelude::*;
    prop_oneof![
        Just(0usize),
        Just(1usize),
        prop::sample::select(vec![2usize, 3, 5, 7, 31, 127, 251, 1021, 4093, 65521]),
        (1usize..64).prop_flat_map(|k| prop::sample::select(vec![256 * k - 1, 256 * k, 256 * k + 1])),
        0usize..max,
    ]
    .prop_map(move |n| n.min(max))
}

/// A value that no kernel writes: poisoned outputs that keep it were never written.
pub fn poison<T: hydrokern::Real>() -> T {
    T::NAN
}

/// A small deterministic generator (xorshift64): proptest picks the seed, the test draws values.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// `n` values uniform in [lo, hi), in precision `T`.
    pub fn values<T: hydrokern::Real>(&mut self, n: usize, lo: f64, hi: f64) -> Vec<T> {
        (0..n).map(|_| T::from_f64(lo + (hi - lo) * self.unit())).collect()
    }
}
