//! The one piece of code a system of equations brings: a point-wise Riemann solver
//! ([`Riemann`]), and what it returns at an interface ([`Solution`]). The solvers themselves
//! are the files of `riemann/`.

use crate::Real;

/// What a Riemann solver returns at one interface: W waves of M components, their speeds, and
/// the fluctuations A⁻ΔQ (towards the left cell) and A⁺ΔQ (towards the right cell).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solution<T, const M: usize, const W: usize> {
    pub waves: [[T; M]; W],
    pub speeds: [T; W],
    pub amdq: [T; M],
    pub apdq: [T; M],
}

impl<T: Real, const M: usize, const W: usize> Solution<T, M, W> {
    /// No waves: the solution at an interface with equal states on both sides.
    pub const ZERO: Self =
        Solution { waves: [[T::ZERO; M]; W], speeds: [T::ZERO; W], amdq: [T::ZERO; M], apdq: [T::ZERO; M] };

    /// The solution made of `waves` and `speeds` with the fluctuations of the plain splitting
    /// A∓ΔQ = Σ_p s_p^∓ 𝒲_p (what a solver without an entropy fix returns).
    #[inline(always)]
    pub fn from_waves(waves: [[T; M]; W], speeds: [T; W]) -> Self {
        let (mut amdq, mut apdq) = ([T::ZERO; M], [T::ZERO; M]);
        for p in 0..W {
            let (sm, sp) = (speeds[p].min(T::ZERO), speeds[p].max(T::ZERO));
            for m in 0..M {
                amdq[m] = sm.mul_add(waves[p][m], amdq[m]);
                apdq[m] = sp.mul_add(waves[p][m], apdq[m]);
            }
        }
        Solution { waves, speeds, amdq, apdq }
    }

    /// The largest |s_p|: what the CFL number is taken from. Infinite when a speed is not
    /// finite, so that a state which has blown up can never pass for a slow one (a maximum
    /// would drop a NaN).
    #[inline(always)]
    pub fn max_speed(&self) -> T {
        let mut s = T::ZERO;
        for p in 0..W {
            let a = self.speeds[p].abs();
            if !a.is_finite() {
                return T::INFINITY;
            }
            s = s.max(a);
        }
        s
    }
}

/// A point-wise Riemann solver for a system of M equations with W waves and A auxiliary fields
/// per cell (material properties, bathymetry, …): the one piece of code a user writes to add a
/// system of equations. `dir` is the axis normal to the interface (0 = x, 1 = y, 2 = z); the
/// left state is the cell on the minus side. Problem constants (gravity, a velocity) are the
/// solver's own fields.
///
/// Implementations are plain `#[inline]` generic Rust over [`Real`], compiled for the GPU and
/// the host alike; they must not panic. Each lives in its own file under
/// [`riemann`](super::riemann), with a header stating the equations, the waves and the meaning
/// of each component.
pub trait Riemann<T: Real, const M: usize, const W: usize, const A: usize>: Copy + Send + Sync {
    /// The solver's name in case files (`claw.solver`).
    const NAME: &'static str;
    /// Each state component's name, in order (outputs and messages).
    const FIELDS: [&'static str; M];
    /// Each auxiliary field's name, in order (case files name them).
    const AUX: [&'static str; A];
    /// The solver's constants (gravity, a velocity), by the names case files give them, with
    /// their defaults.
    const CONSTANTS: &'static [(&'static str, f64)];

    /// The solver with `values` for its constants, one per [`CONSTANTS`](Self::CONSTANTS) entry
    /// in that order (the host fills in the defaults).
    fn with_constants(values: &[f64]) -> Self;

    /// Waves, speeds and fluctuations at an interface normal to axis `dir`.
    fn solve(&self, dir: usize, ql: &[T; M], qr: &[T; M], al: &[T; A], ar: &[T; A]) -> Solution<T, M, W>;

    /// The component that is the velocity (or momentum) normal to a face across axis `dir`, if
    /// any: a reflecting wall negates it in the ghost cells.
    fn normal(dir: usize) -> Option<usize>;

    /// Why a cell's state or auxiliary values are not admissible initial data (a negative
    /// depth, a non-positive density), or `None`.
    fn inadmissible(&self, q: &[T; M], aux: &[T; A]) -> Option<&'static str> {
        let _ = (q, aux);
        None
    }
}
