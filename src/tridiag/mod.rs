//! Batched tridiagonal solvers (seed 001): the CPU reference ([`cpu`]), the GPU driver
//! ([`gpu`]: Thomas, CR, PCR, CR-PCR, PCR-Thomas), cuSPARSE as the peer ([`cusparse`]), and
//! [`Solver`], one API over both backends.
//!
//! A batch holds `batch` systems of `n` unknowns, `a_i x_{i−1} + b_i x_i + c_i x_{i+1} = d_i`;
//! `a_0` and `c_{n−1}` are ignored (read as zero). Every array holds `n·batch` values in one of
//! two layouts ([`Layout`]). No pivoting: the algorithms are meant for diagonally dominant
//! (or otherwise stable without pivoting) systems; a breakdown (zero or non-finite pivot,
//! non-finite result) is an error naming the system and row, never a silent NaN.

pub mod cpu;
pub mod cusparse;
pub mod gpu;
mod solver;

pub use ::gpu::tridiag::Dims;
pub use solver::Solver;

use crate::{Error, Real, Result};
use rayon::prelude::*;

/// Kernel stems this module launches (each stamped `_f32` and `_f64`).
pub const KERNELS: &[&str] = &[
    "tridiag_thomas",
    "tridiag_thomas_contiguous",
    "tridiag_cr",
    "tridiag_pcr",
    "tridiag_cr_pcr",
    "tridiag_pcr_thomas",
];

/// Where unknown i of system k lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// System after system: `k·n + i`.
    Contiguous,
    /// Unknown i of every system together: `i·batch + k` (one thread per system reads
    /// coalesced).
    Interleaved,
}

impl Layout {
    pub const ALL: [Layout; 2] = [Layout::Contiguous, Layout::Interleaved];
    pub fn name(self) -> &'static str {
        match self {
            Layout::Contiguous => "contiguous",
            Layout::Interleaved => "interleaved",
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Layout> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| Error::invalid(format!("unknown layout '{s}' (expected contiguous or interleaved)")))
    }
}

/// Sizes and layout of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub n: usize,
    pub batch: usize,
    pub layout: Layout,
}

impl Shape {
    pub fn new(n: usize, batch: usize, layout: Layout) -> Shape {
        Shape { n, batch, layout }
    }
    /// Values per array, `n·batch`.
    pub fn len(&self) -> usize {
        self.n * self.batch
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Offset of unknown i of system k.
    #[inline]
    pub fn at(&self, k: usize, i: usize) -> usize {
        match self.layout {
            Layout::Contiguous => k * self.n + i,
            Layout::Interleaved => i * self.batch + k,
        }
    }
    /// n ≥ 1, batch ≥ 1, both within the kernels' 32-bit sizes, n·batch addressable.
    pub fn validate(&self) -> Result<()> {
        if self.n == 0 || self.batch == 0 {
            return Err(Error::invalid(format!(
                "tridiagonal batch of {} systems of {} unknowns: n and batch must be at least 1",
                self.batch, self.n
            )));
        }
        if self.n > u32::MAX as usize || self.batch > i32::MAX as usize || self.n.checked_mul(self.batch).is_none() {
            return Err(Error::invalid(format!(
                "tridiagonal batch of {} systems of {} unknowns is too large (n < 2^32, batch < 2^31)",
                self.batch, self.n
            )));
        }
        Ok(())
    }
    /// Every array must hold exactly n·batch values.
    pub fn check_lengths(&self, arrays: &[(&str, usize)]) -> Result<()> {
        self.validate()?;
        for &(name, len) in arrays {
            if len != self.len() {
                return Err(Error::invalid(format!(
                    "tridiagonal batch ({} systems of {} unknowns, {}): {name} has {len} values, expected n·batch = {}",
                    self.batch,
                    self.n,
                    self.layout.name(),
                    self.len()
                )));
            }
        }
        Ok(())
    }
    /// The kernels' view of this shape (`chunk` and `switch` zero).
    pub fn dims(&self) -> Dims {
        let (n, batch) = (self.n as u32, self.batch as u32);
        let (sys_stride, elem_stride) = match self.layout {
            Layout::Contiguous => (n, 1),
            Layout::Interleaved => (1, batch),
        };
        Dims { n, batch, sys_stride, elem_stride, chunk: 0, switch: 0 }
    }
}

/// The GPU algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// One thread per system (S1); the contiguous layout's kernel stages loads through shared
    /// memory so that they coalesce.
    Thomas,
    /// Cyclic reduction, one block per system in shared memory.
    Cr,
    /// Parallel cyclic reduction, one block per system in shared memory.
    Pcr,
    /// CR down to a small system, PCR on it, CR back substitution.
    CrPcr,
    /// PCR steps splitting each system into independent subsystems, then Thomas on each.
    PcrThomas,
}

impl Algorithm {
    pub const ALL: [Algorithm; 5] =
        [Algorithm::Thomas, Algorithm::Cr, Algorithm::Pcr, Algorithm::CrPcr, Algorithm::PcrThomas];
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Thomas => "thomas",
            Algorithm::Cr => "cr",
            Algorithm::Pcr => "pcr",
            Algorithm::CrPcr => "cr-pcr",
            Algorithm::PcrThomas => "pcr-thomas",
        }
    }
    /// True for the one-block-per-system algorithms limited by shared memory.
    pub fn uses_shared_system(self) -> bool {
        self != Algorithm::Thomas
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm, or the automatic choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Choice {
    #[default]
    Auto,
    Force(Algorithm),
}

impl std::str::FromStr for Choice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Choice> {
        if s == "auto" {
            return Ok(Choice::Auto);
        }
        Algorithm::ALL.into_iter().find(|a| a.name() == s).map(Choice::Force).ok_or_else(|| {
            let names: Vec<_> = Algorithm::ALL.iter().map(|a| a.name()).collect();
            Error::invalid(format!("unknown tridiagonal algorithm '{s}' (expected auto, {})", names.join(", ")))
        })
    }
}

/// What the automatic choice and the size checks need to know of the device and precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Dynamic shared memory a block may use (opt-in maximum), bytes.
    pub max_shared_bytes: usize,
    /// Bytes per value (4 or 8).
    pub value_bytes: usize,
    /// Multiprocessors.
    pub sm_count: usize,
    /// Most threads a block of the PCR-family kernels may have (set by their registers).
    pub pcr_threads: usize,
    /// Most threads a block of the CR and CR-PCR kernels may have.
    pub cr_threads: usize,
}

impl Limits {
    /// Largest n the shared-memory algorithm `alg` accepts: 4n values must fit in shared
    /// memory; PCR and PCR-Thomas also hold at most `PCR_MAX_PER_THREAD` equations per thread
    /// in registers during a step. Thomas: no limit but 32-bit sizes.
    pub fn max_n(&self, alg: Algorithm) -> usize {
        let shared = self.max_shared_bytes / (4 * self.value_bytes);
        let staged = ::gpu::tridiag::PCR_MAX_PER_THREAD as usize * (self.pcr_threads / 32 * 32);
        match alg {
            Algorithm::Thomas => u32::MAX as usize,
            Algorithm::Cr | Algorithm::CrPcr => shared,
            Algorithm::Pcr | Algorithm::PcrThomas => shared.min(staged),
        }
    }

    /// The automatic choice, from `bench tridiag` on an H100 (f32 and f64, n 64…4096, batch
    /// 256…16384): cyclic reduction in shared memory is the fastest or within a few percent
    /// of it almost everywhere, in both layouts; one thread per system (Thomas) wins only in
    /// the interleaved layout once the batch alone fills the GPU (at least 120 systems per
    /// multiprocessor, about 16 K on an H100), and it is the fallback where n exceeds CR's
    /// shared-memory limit.
    pub fn auto(&self, shape: Shape) -> Algorithm {
        let fills = shape.batch >= 120 * self.sm_count.max(1);
        if shape.n > self.max_n(Algorithm::Cr) || (shape.layout == Layout::Interleaved && fills) {
            Algorithm::Thomas
        } else {
            Algorithm::Cr
        }
    }
}

/// The error for a breakdown at row `row` of system `system`.
pub fn breakdown(what: &str, system: u64, row: u64) -> Error {
    Error::invalid(format!(
        "tridiagonal {what}: system {system}, row {row}: zero or non-finite pivot or result \
         (elimination without pivoting broke down; is the matrix singular or far from diagonally dominant?)"
    ))
}

/// ‖Ax − d‖₂ / ‖d‖₂ over the whole batch, in f64 (0 when d = 0 and Ax = 0).
pub fn residual<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T]) -> f64 {
    let (num, den) = (0..shape.batch)
        .into_par_iter()
        .map(|k| {
            let mut num = 0.0;
            let mut den = 0.0;
            for i in 0..shape.n {
                let g = shape.at(k, i);
                let mut ax = b[g].to_f64() * x[g].to_f64();
                if i > 0 {
                    ax += a[g].to_f64() * x[shape.at(k, i - 1)].to_f64();
                }
                if i + 1 < shape.n {
                    ax += c[g].to_f64() * x[shape.at(k, i + 1)].to_f64();
                }
                let r = ax - d[g].to_f64();
                num += r * r;
                den += d[g].to_f64() * d[g].to_f64();
            }
            (num, den)
        })
        .reduce(|| (0.0, 0.0), |p, q| (p.0 + q.0, p.1 + q.1));
    if den == 0.0 { num.sqrt() } else { (num / den).sqrt() }
}

/// Coefficients of a batch: a, b, c, d in one layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch<T> {
    pub shape: Shape,
    pub a: Vec<T>,
    pub b: Vec<T>,
    pub c: Vec<T>,
    pub d: Vec<T>,
}

impl Batch<f64> {
    /// Random diagonally dominant systems: a, c uniform in [−1, 1], |b| ≥ dominance·(|a|+|c|)
    /// plus a margin, random signs, d uniform in [−1, 1]; `a_0 = c_{n−1} = 0`. Reproducible
    /// from `seed`.
    pub fn random(shape: Shape, seed: u64, dominance: f64) -> Batch<f64> {
        let mut st = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut rnd = move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            (st >> 11) as f64 / (1u64 << 53) as f64
        };
        let len = shape.len();
        let (mut a, mut b, mut c, mut d) = (vec![0.0; len], vec![0.0; len], vec![0.0; len], vec![0.0; len]);
        for k in 0..shape.batch {
            for i in 0..shape.n {
                let g = shape.at(k, i);
                a[g] = if i == 0 { 0.0 } else { 2.0 * rnd() - 1.0 };
                c[g] = if i + 1 == shape.n { 0.0 } else { 2.0 * rnd() - 1.0 };
                let mag = dominance * (a[g].abs() + c[g].abs()) + 0.1 + rnd();
                b[g] = if rnd() < 0.5 { -mag } else { mag };
                d[g] = 2.0 * rnd() - 1.0;
            }
        }
        Batch { shape, a, b, c, d }
    }

    /// The same batch in precision `T`.
    pub fn to<T: Real>(&self) -> Batch<T> {
        let conv = |v: &[f64]| v.iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>();
        Batch { shape: self.shape, a: conv(&self.a), b: conv(&self.b), c: conv(&self.c), d: conv(&self.d) }
    }
}

impl<T: Real> Batch<T> {
    /// The same systems in the other layout (or this one).
    pub fn relayout(&self, layout: Layout) -> Batch<T> {
        let to = Shape { layout, ..self.shape };
        let mv = |v: &[T]| {
            let mut out = vec![T::ZERO; v.len()];
            for k in 0..self.shape.batch {
                for i in 0..self.shape.n {
                    out[to.at(k, i)] = v[self.shape.at(k, i)];
                }
            }
            out
        };
        Batch { shape: to, a: mv(&self.a), b: mv(&self.b), c: mv(&self.c), d: mv(&self.d) }
    }
    /// ‖Ax − d‖₂ / ‖d‖₂ for a solution `x` of this batch.
    pub fn residual(&self, x: &[T]) -> f64 {
        residual(self.shape, &self.a, &self.b, &self.c, &self.d, x)
    }
}
