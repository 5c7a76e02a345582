//! Operation counts of the wave-propagation sweeps, for `bench claw`'s GFLOP/s: the point
//! functions the core kernels run (the solver's `solve`, `correction` with its limiter,
//! `update`) executed on the CPU over [`Counted`], an f64 that tallies every arithmetic
//! operation it takes part in.
//!
//! The convention (docs/claw.md, "Operation count"): +, −, ×, ÷ (and a reciprocal) and √
//! count one flop each, a fused multiply–add two; negation, |x|, min, max, comparisons and
//! finiteness checks are tallied apart and count none. The count is of the operations the
//! source executes for the data given (branches such as Roe's entropy fix or a dry state
//! change it); the compiler may still fold a few (a negation into an operand, a repeated
//! product), so it is a stated count, not a measurement of the instructions issued.

use crate::Real;
use kernels::claw::{Limiter, Riemann, Solution, correction_by, update, wave_dots};
use std::cell::Cell;
use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// Operations by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ops {
    /// Additions and subtractions.
    pub add: u64,
    pub mul: u64,
    /// Divisions and reciprocals.
    pub div: u64,
    pub sqrt: u64,
    /// Fused multiply–adds.
    pub fma: u64,
    /// Negations (not flops).
    pub neg: u64,
    /// Absolute values (not flops).
    pub abs: u64,
    /// Minima and maxima (not flops).
    pub min_max: u64,
    /// Comparisons and finiteness checks (not flops).
    pub compare: u64,
}

impl Ops {
    const NONE: Ops = Ops { add: 0, mul: 0, div: 0, sqrt: 0, fma: 0, neg: 0, abs: 0, min_max: 0, compare: 0 };

    /// Flops by the convention: +, −, ×, ÷ and √ one each, a fused multiply–add two.
    pub const fn flops(&self) -> u64 {
        self.add + self.mul + self.div + self.sqrt + 2 * self.fma
    }
}

impl Add for Ops {
    type Output = Ops;
    fn add(self, o: Ops) -> Ops {
        Ops {
            add: self.add + o.add,
            mul: self.mul + o.mul,
            div: self.div + o.div,
            sqrt: self.sqrt + o.sqrt,
            fma: self.fma + o.fma,
            neg: self.neg + o.neg,
            abs: self.abs + o.abs,
            min_max: self.min_max + o.min_max,
            compare: self.compare + o.compare,
        }
    }
}

thread_local! {
    /// The operations counted on this thread since the innermost [`count`] began.
    static TALLY: Cell<Ops> = const { Cell::new(Ops::NONE) };
}

/// One more operation of the `kind` that field picks.
fn tally(kind: fn(&mut Ops) -> &mut u64) {
    TALLY.with(|t| {
        let mut ops = t.get();
        *kind(&mut ops) += 1;
        t.set(ops);
    });
}

/// `f`'s result and the operations on [`Counted`] values it executed on this thread. Counts
/// nest: an enclosing count includes an inner one's. Work that `f` hands to other threads is
/// not counted; run code that uses rayon inside a one-thread pool's `install` and count there.
pub fn count<R>(f: impl FnOnce() -> R) -> (R, Ops) {
    let outer = TALLY.with(|t| t.replace(Ops::NONE));
    let r = f();
    let inner = TALLY.with(|t| t.get());
    TALLY.with(|t| t.set(outer + inner));
    (r, inner)
}

/// An f64 that counts the operations it takes part in (on this thread; read them with
/// [`count`]). It is a [`Real`], so any generic point function runs on it unchanged.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counted(pub f64);

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for Counted {
    fn eq(&self, other: &Counted) -> bool {
        tally(|o| &mut o.compare);
        self.0 == other.0
    }
}

impl PartialOrd for Counted {
    fn partial_cmp(&self, other: &Counted) -> Option<std::cmp::Ordering> {
        tally(|o| &mut o.compare);
        self.0.partial_cmp(&other.0)
    }
}

/// A binary operator and its compound assignment, tallied as `kind`.
macro_rules! counted_op {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $kind:ident, $op:tt) => {
        impl $trait for Counted {
            type Output = Counted;
            #[inline]
            fn $method(self, rhs: Counted) -> Counted {
                tally(|o| &mut o.$kind);
                Counted(self.0 $op rhs.0)
            }
        }
        impl $assign for Counted {
            #[inline]
            fn $assign_method(&mut self, rhs: Counted) {
                *self = $trait::$method(*self, rhs);
            }
        }
    };
}

counted_op!(Add, add, AddAssign, add_assign, add, +);
counted_op!(Sub, sub, SubAssign, sub_assign, add, -);
counted_op!(Mul, mul, MulAssign, mul_assign, mul, *);
counted_op!(Div, div, DivAssign, div_assign, div, /);

impl Neg for Counted {
    type Output = Counted;
    #[inline]
    fn neg(self) -> Counted {
        tally(|o| &mut o.neg);
        Counted(-self.0)
    }
}

/// `recip`, `powi`, `sqrt_refined` and `div_refined` keep the trait's defaults, which count as
/// the square roots, divisions and products they are made of; `recip_fast` and `recip_ftz` count as `recip`, `sqrt_fast` and `sqrt_ftz` as a
/// square root.
impl Real for Counted {
    const NAME: &'static str = "counted";
    const ZERO: Self = Counted(0.0);
    const ONE: Self = Counted(1.0);
    const TWO: Self = Counted(2.0);
    const HALF: Self = Counted(0.5);
    const EPSILON: Self = Counted(f64::EPSILON);
    const MAX: Self = Counted(f64::MAX);
    const MIN_POSITIVE: Self = Counted(f64::MIN_POSITIVE);
    const NAN: Self = Counted(f64::NAN);
    const INFINITY: Self = Counted(f64::INFINITY);

    fn from_f64(x: f64) -> Self {
        Counted(x)
    }
    fn to_f64(self) -> f64 {
        self.0
    }
    fn sqrt(self) -> Self {
        tally(|o| &mut o.sqrt);
        Counted(self.0.sqrt())
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        tally(|o| &mut o.fma);
        Counted(self.0.mul_add(a.0, b.0))
    }
    fn abs(self) -> Self {
        tally(|o| &mut o.abs);
        Counted(self.0.abs())
    }
    fn min(self, other: Self) -> Self {
        tally(|o| &mut o.min_max);
        Counted(self.0.min(other.0))
    }
    fn max(self, other: Self) -> Self {
        tally(|o| &mut o.min_max);
        Counted(self.0.max(other.0))
    }
    fn is_finite(self) -> bool {
        tally(|o| &mut o.compare);
        self.0.is_finite()
    }
    fn next_down(self) -> Self {
        Counted(self.0.next_down())
    }
    fn sqrt_fast(self) -> Self {
        self.sqrt()
    }
    fn recip_fast(self) -> Self {
        self.recip()
    }
    fn sqrt_ftz(self) -> Self {
        self.sqrt()
    }
    fn recip_ftz(self) -> Self {
        self.recip()
    }
}

/// `v` as counted values.
pub fn counted<T: Real, const N: usize>(v: &[T; N]) -> [Counted; N] {
    v.map(|x| Counted(x.to_f64()))
}

/// What a sweep spends on a line of cells, by point function: the solves of its interfaces,
/// the corrections of those with a neighbour on each side, the updates of the cells between
/// two corrected interfaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepOps {
    pub solve: Ops,
    pub interfaces: usize,
    /// Each family's θ numerator, formed once for each pair of neighbouring interfaces.
    pub dots: Ops,
    pub pairs: usize,
    pub correction: Ops,
    pub corrections: usize,
    pub update: Ops,
    pub cells: usize,
}

impl SweepOps {
    /// Mean flops of one interface's solve.
    pub fn solve_flops(&self) -> f64 {
        self.solve.flops() as f64 / self.interfaces as f64
    }
    /// Mean flops of one interface's correction (the limiter's included, and one pair's θ
    /// numerators: in a long line there are as many pairs as interfaces).
    pub fn correction_flops(&self) -> f64 {
        self.dots.flops() as f64 / self.pairs as f64 + self.correction.flops() as f64 / self.corrections as f64
    }
    /// Every flop of the line.
    pub fn total(&self) -> u64 {
        self.solve.flops() + self.dots.flops() + self.correction.flops() + self.update.flops()
    }
    /// Mean flops of one cell's update.
    pub fn update_flops(&self) -> f64 {
        self.update.flops() as f64 / self.cells as f64
    }
    /// Flops a cell of a sweep costs in the steady state of a long line, where each cell owns
    /// one interface (solved and corrected once) and one update. The kernels' recomputed
    /// interfaces where warps or segments meet are not counted, as the GB/s leave out the
    /// ghost cells: this is the algorithm's work, not the kernels'.
    pub fn per_cell(&self) -> f64 {
        self.solve_flops() + self.correction_flops() + self.update_flops()
    }
}

/// The operations one sweep along `dir` with Δt/Δx = `dtdx` spends on the line of cells `q`
/// (auxiliary values `aux`), ghosts included: as the CPU reference's sweep of a line of n
/// cells (`lines.rs`), the n + 3 interfaces between neighbours are solved, the n + 1 with a
/// neighbour on each side corrected, and the n cells between two corrected interfaces
/// updated (n = `q.len()` − 4).
///
/// # Panics
/// If `q` has fewer than 5 cells or `aux` another length.
pub fn sweep_ops<R: Riemann<Counted, M, W, A>, const M: usize, const W: usize, const A: usize>(
    solver: &R,
    limiter: Limiter,
    dir: usize,
    dtdx: f64,
    q: &[[Counted; M]],
    aux: &[[Counted; A]],
) -> SweepOps {
    let len = q.len();
    assert!(len >= 5 && aux.len() == len, "a line of {len} cells with {} aux values", aux.len());
    let dtdx = Counted(dtdx);
    // sol[j]: the interface between cells j and j + 1.
    let (sol, solve) = count(|| {
        (1..len).map(|c| solver.solve(dir, &q[c - 1], &q[c], &aux[c - 1], &aux[c])).collect::<Vec<Solution<_, M, W>>>()
    });
    // pair[j]: each family's θ numerator for interfaces j and j + 1, formed once for the pair
    // (as the kernels and the CPU reference form it); fix[j − 1]: interface j's correction,
    // 1 ≤ j ≤ len − 3.
    let (pair, dots) =
        count(|| sol.windows(2).map(|p| wave_dots(&p[0].waves, &p[1].waves)).collect::<Vec<[Counted; W]>>());
    let (fix, correction) = count(|| {
        (1..len - 2).map(|j| correction_by(limiter, dtdx, &sol[j], &pair[j - 1], &pair[j])).collect::<Vec<_>>()
    });
    // Cell c between interfaces c − 1 and c, 2 ≤ c ≤ len − 3.
    let ((), update) = count(|| {
        for c in 2..len - 2 {
            let _ = update(dtdx, &q[c], &sol[c - 1].apdq, &fix[c - 2], &sol[c].amdq, &fix[c - 1]);
        }
    });
    SweepOps {
        solve,
        interfaces: len - 1,
        dots,
        pairs: len - 2,
        correction,
        corrections: len - 3,
        update,
        cells: len - 4,
    }
}

/// Consecutive cells of a line along which [`count_sweeps`] counts the operations.
pub const COUNTED_CELLS: usize = 4096;

/// The operations a sweep along each of `dirs` spends on the first [`COUNTED_CELLS`] cells of
/// `cells` taken as one line (random states, independent of their place).
pub fn count_sweeps<T: Real, R: Riemann<Counted, M, W, A>, const M: usize, const W: usize, const A: usize>(
    solver: &R,
    limiter: Limiter,
    dtdx: f64,
    cells: impl Iterator<Item = ([T; M], [T; A])>,
    dirs: &[usize],
) -> Vec<SweepOps> {
    let (q, aux): (Vec<_>, Vec<_>) = cells.take(COUNTED_CELLS).map(|(q, a)| (counted(&q), counted(&a))).unzip();
    dirs.iter().map(|&dir| sweep_ops(solver, limiter, dir, dtdx, &q, &aux)).collect()
}

/// The flops of `sweeps` (one after another) over `cells` cells, for a row.
pub fn flops(sweeps: &[SweepOps], cells: usize) -> Option<f64> {
    Some(sweeps.iter().map(SweepOps::per_cell).sum::<f64>() * cells as f64)
}

/// Flops a cell of `sweeps` (one after another) and their intensity over `bytes` moved a cell
/// by each sweep, for a row's note: one sweep's by point function, several as their sum.
pub fn flop_note(sweeps: &[SweepOps], bytes: f64) -> String {
    let num = |x: f64| if (x - x.round()).abs() < 0.05 { format!("{x:.0}") } else { format!("{x:.1}") };
    let total: f64 = sweeps.iter().map(SweepOps::per_cell).sum();
    let parts = match sweeps {
        [one] => format!(
            "solve {} + correction {} + update {}",
            num(one.solve_flops()),
            num(one.correction_flops()),
            num(one.update_flops())
        ),
        _ => sweeps.iter().map(|s| num(s.per_cell())).collect::<Vec<_>>().join(" + "),
    };
    format!("{} flop/cell ({parts}), {:.2} flop/B", num(total), total / (sweeps.len() as f64 * bytes))
}
