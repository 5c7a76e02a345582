//! Test helpers shared by the suites: the GPU, proptest sizes, poison values, and tolerances.
//!
//! GPU tests carry `#[cfg_attr(not(gpu_tests), ignore = "…")]`: built on a machine without an
//! NVIDIA driver they are ignored (cargo counts them so), and `--include-ignored` runs them on
//! one (see `build.rs`). A GPU test that runs must get its GPU: [`gpu`] panics otherwise.
#![allow(dead_code)]

pub mod netcdf_rain;
pub mod products;
pub mod ranks;
pub mod raster;
pub mod sediment;
pub mod soil;

use hydrokern::{Gpu, Real};
use proptest::test_runner::TestCaseError;
use std::sync::{Arc, OnceLock};

/// The GPU the tests of this executable share, or a panic saying why there is none (no driver,
/// no device, a PTX module the driver rejects, …).
pub fn gpu() -> Arc<Gpu> {
    static GPU: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();
    match GPU.get_or_init(|| Gpu::new(0).map(Arc::new).map_err(|e| e.to_string())) {
        Ok(g) => g.clone(),
        Err(why) => panic!("this test needs a GPU: {why}"),
    }
}

/// The share of a proptest's cases that run on the GPU in a test that runs on the CPU too:
/// half where this run has a GPU (decided when it runs, not when it was built: the GPU bundle's
/// tests are built where there is none), none elsewhere. `HYDROKERN_REQUIRE_GPU=1` asks for the
/// GPU's half whatever the machine (then a missing GPU fails the test), `0` for none.
pub fn gpu_share() -> f64 {
    let has = match std::env::var("HYDROKERN_REQUIRE_GPU").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => Gpu::count() > 0,
    };
    if has { 0.5 } else { 0.0 }
}

/// Proptest cases for GPU tests: `PROPTEST_CASES` when set (the sanitizer runs lower it).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Proptest's configuration for the tests of `source` (`file!()`): `cases` cases, and the
/// failures it keeps in `proptest-regressions/<file>.txt` beside that file
/// (`tests/kp/proptest-regressions/gpu.txt` for `tests/kp/gpu.rs`). Proptest's default folder is
/// the one above the test crate's `main.rs`, which every test crate under `tests/` shares, so
/// files of one name in two crates would replay each other's cases.
pub fn config(cases: u32, source: &'static str) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, FileFailurePersistence};
    let mut config = Config::with_cases(cases);
    // The source as proptest finds it: `file!()` joined to the directory the test runs in or
    // to the nearest one above it where that is a file. Not found (an executable run away from
    // its checkout): proptest's own rule.
    let found =
        std::env::current_dir().ok().and_then(|cwd| cwd.ancestors().map(|d| d.join(source)).find(|p| p.is_file()));
    if let Some(file) = found {
        let (dir, stem) = (file.parent().expect("a file's folder"), file.file_stem().expect("a file name"));
        let path = dir.join("proptest-regressions").join(stem).with_extension("txt");
        let path: &'static str = Box::leak(path.to_string_lossy().into_owned().into_boxed_str());
        config.failure_persistence = Some(Box::new(FileFailurePersistence::Direct(path)));
    }
    config
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
pub fn poison<T: Real>() -> T {
    T::NAN
}

/// max(1, max |x|): the magnitude a field's absolute tolerance scales with.
pub fn magnitude<T: Real>(x: &[T]) -> f64 {
    x.iter().fold(1.0f64, |m, v| m.max(v.to_f64().abs()))
}

/// How far a result may be from its reference, value by value: `|got − want| ≤ bound` with
/// `bound = base · growth · scale`, where
/// - `base` is [`Tolerance::BITS`] (the same bits: a move), [`Tolerance::EXACT`] (the same
///   value), `eps(k)` (k machine epsilons of the precision compared) or `abs(x)` (a fixed size);
/// - `growth` is how it grows with the work done ([`times`](Tolerance::times): steps, levels);
/// - `scale` is the magnitude of the field ([`scaled`](Tolerance::scaled), usually
///   [`magnitude`]), which makes the bound relative.
///
/// A NaN (a poisoned output nobody wrote) never passes, except bit for bit under `BITS`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    base: Base,
    growth: f64,
    scale: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Base {
    Bits,
    Exact,
    Eps(f64),
    Abs(f64),
}

impl Tolerance {
    /// The same bits: what moving values (copy, fill, transpose) must give.
    pub const BITS: Tolerance = Tolerance { base: Base::Bits, growth: 1.0, scale: 1.0 };
    /// The same value (`==`): what an exact operation (max, min) must give.
    pub const EXACT: Tolerance = Tolerance { base: Base::Exact, growth: 1.0, scale: 1.0 };

    /// `k` machine epsilons of the precision compared.
    pub const fn eps(k: f64) -> Tolerance {
        Tolerance { base: Base::Eps(k), growth: 1.0, scale: 1.0 }
    }
    /// A fixed size, whatever the precision.
    pub const fn abs(x: f64) -> Tolerance {
        Tolerance { base: Base::Abs(x), growth: 1.0, scale: 1.0 }
    }
    /// Grown `n` times (per step, per level).
    pub const fn times(self, n: f64) -> Tolerance {
        Tolerance { growth: self.growth * n, ..self }
    }
    /// Relative to a magnitude.
    pub const fn scaled(self, magnitude: f64) -> Tolerance {
        Tolerance { scale: self.scale * magnitude, ..self }
    }

    /// The bound on |got − want| in precision `T` (0 for `BITS` and `EXACT`).
    pub fn bound<T: Real>(&self) -> f64 {
        match self.base {
            Base::Bits | Base::Exact => 0.0,
            Base::Eps(k) => k * T::EPSILON.to_f64() * self.growth * self.scale,
            Base::Abs(x) => x * self.growth * self.scale,
        }
    }

    fn accepts<T: Real>(&self, got: T, want: T, bound: f64) -> bool {
        let (g, w) = (got.to_f64(), want.to_f64());
        match self.base {
            Base::Bits => g.to_bits() == w.to_bits(),
            Base::Exact => g == w,
            _ => (g - w).abs() <= bound,
        }
    }

    /// One value against its reference.
    pub fn check_value<T: Real>(&self, what: &str, got: T, want: T) -> Result<(), Mismatch> {
        self.check(what, &[got], &[want])
    }

    /// A field against its reference, value by value; the error names the first value outside
    /// the bound (by its index) and how many are.
    pub fn check<T: Real>(&self, what: &str, got: &[T], want: &[T]) -> Result<(), Mismatch> {
        self.check_at(what, got, want, |i| format!("[{i}]"))
    }

    /// As [`check`](Self::check), naming a value by `at(index)` (grid coordinates, say).
    pub fn check_at<T: Real>(
        &self,
        what: &str,
        got: &[T],
        want: &[T],
        at: impl Fn(usize) -> String,
    ) -> Result<(), Mismatch> {
        if got.len() != want.len() {
            return Err(Mismatch(format!("{what}: {} values against a reference of {}", got.len(), want.len())));
        }
        let bound = self.bound::<T>();
        let mut bad = got.iter().zip(want).enumerate().filter(|(_, (g, w))| !self.accepts(**g, **w, bound));
        let Some((i, (g, w))) = bad.next() else { return Ok(()) };
        let more = bad.count();
        Err(Mismatch(format!(
            "{what} ({}): {} at {} is {g}, want {w} (difference {:e}, {}){}",
            T::NAME,
            if got.len() == 1 { "the value" } else { "the first bad value" },
            at(i),
            (g.to_f64() - w.to_f64()).abs(),
            match self.base {
                Base::Bits => "not the same bits".to_string(),
                Base::Exact => "not equal".to_string(),
                _ => format!("bound {bound:e}"),
            },
            if more > 0 { format!("; {more} more of {} values outside it", got.len()) } else { String::new() }
        )))
    }
}

/// A comparison that failed, with what [`Tolerance::check`] found.
pub struct Mismatch(pub String);

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The message itself, so that `unwrap` in a plain test prints it readably.
impl std::fmt::Debug for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `?` in a proptest body fails the case with the message.
impl From<Mismatch> for TestCaseError {
    fn from(m: Mismatch) -> TestCaseError {
        TestCaseError::fail(m.0)
    }
}

/// A model's live-view frames ([`hydrokern::model::Model::sample`]) after each of `rounds`
/// advances of `steps` steps are its state at random cells, bit for bit, the clock included.
pub fn frames_are_the_state<T: hydrokern::GpuReal>(m: &mut dyn hydrokern::model::Model<T>, rounds: u64, steps: u64) {
    let mut rng = hydrokern::Rng::new(11);
    for round in 1..=rounds {
        let until = hydrokern::model::Until { t: f64::INFINITY, steps: round * steps, deadline: None };
        m.advance(until).unwrap();
        let state = m.state().unwrap();
        let n = state.fields[0].data.len();
        let cells: Vec<usize> = (0..(1 + 257 * round as usize)).map(|_| (rng.unit() * n as f64) as usize % n).collect();
        let got = m.sample(&cells).unwrap();
        let want = state.at(&cells).unwrap();
        assert_eq!(got.clock, want.clock);
        let names = |s: &hydrokern::model::State<T>| s.fields.iter().map(|f| f.name).collect::<Vec<_>>();
        assert_eq!(names(&got), names(&want));
        for (g, w) in got.fields.iter().zip(&want.fields) {
            for (k, (a, b)) in g.data.iter().zip(&w.data).enumerate() {
                assert!(
                    a.to_f64().to_bits() == b.to_f64().to_bits(),
                    "{} at cell {}: {a:?} vs {b:?}",
                    g.name,
                    cells[k]
                );
            }
        }
    }
}
