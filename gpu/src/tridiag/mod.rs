//! Batched tridiagonal solvers (the MIKE 21 thesis; docs/design.md, "Batched tridiagonal solves
//! (the MIKE 21 thesis)").
//!
//! A batch of `batch` independent systems of `n` unknowns,
//! `a_i x_{i−1} + b_i x_i + c_i x_{i+1} = d_i` (i in 0..n), with `a_0` and `c_{n−1}` ignored
//! (read as zero). Element i of system k is at `k·sys_stride + i·elem_stride`: contiguous
//! layout (`sys_stride = n`, `elem_stride = 1`), interleaved (`sys_stride = 1`,
//! `elem_stride = batch`), or the rows (`sys_stride = pitch ≥ n`, `elem_stride = 1`) or
//! columns (`sys_stride = 1`, `elem_stride = pitch ≥ batch`) of a padded 2-D field. Kernels
//! reach the arrays only at `Dims::at` positions, so the padding is never read or written; a
//! workspace "at the positions of x" holds `Dims::span` values.
//!
//! The algebra every algorithm uses is here, shared by the kernels and the CPU reference:
//! one Thomas elimination row, and the CR/PCR elimination of an equation's two neighbours.
//! A breakdown (zero or non-finite pivot, non-finite result) is reported per launch through
//! one `u64` status word: the kernels `max` into it `!(k·n + i)`, so 0 means success and the
//! largest value names the first failing (system, row) in index order.

use crate::Real;

/// Elements of each PCR staging slot per thread (the PCR family's `rpt` is at most this).
pub const PCR_MAX_PER_THREAD: u32 = 8;

/// Most chunks (threads of its block) the SPIKE kernel cuts a system into: a block of 256
/// threads launches whatever registers the kernel takes (256 × 255 ≤ 65 536).
pub const SPIKE_MAX_CHUNKS: u32 = 256;

/// Threads per block of the one-thread-per-system Thomas kernels (whole warps).
pub const THOMAS_BLOCK: u32 = 64;

/// Systems per block of the twisted Thomas kernel (blockDim.x; blockDim.y = 2 ends).
pub const TWISTED_SYSTEMS: u32 = 32;

/// Sizes and layout of one batched solve, passed by value to every tridiagonal kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Unknowns per system.
    pub n: u32,
    /// Systems.
    pub batch: u32,
    /// Offset between the first unknowns of consecutive systems.
    pub sys_stride: u32,
    /// Offset between consecutive unknowns of one system.
    pub elem_stride: u32,
    /// Contiguous Thomas: log2 of the rows staged per chunk. PCR family: elements per thread
    /// (1..=`PCR_MAX_PER_THREAD`). Partition: log2 of the rows per thread.
    pub chunk: u32,
    /// CR-PCR: switch from CR to PCR once the reduced system has at most this many
    /// equations. PCR-Thomas: PCR steps before Thomas (2^steps subsystems). Partition:
    /// systems per block.
    pub switch: u32,
}

impl Dims {
    /// Offset of unknown `i` of system `k`.
    #[inline(always)]
    pub fn at(&self, k: u32, i: u32) -> usize {
        k as usize * self.sys_stride as usize + i as usize * self.elem_stride as usize
    }
    /// Values an array holds: the offset of the last unknown of the last system, plus one
    /// (`n·batch` without padding).
    #[inline(always)]
    pub fn span(&self) -> usize {
        self.at(self.batch.saturating_sub(1), self.n.saturating_sub(1)) + 1
    }
}

/// One equation `a x_{i−s} + b x_i + c x_{i+s} = d` (`d` a value, or several right-hand
/// sides at once: [`Rhs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eq<T, R = T> {
    pub a: T,
    pub b: T,
    pub c: T,
    pub d: R,
}

impl<T: Real> Eq<T> {
    /// `x = 0`: what a neighbour beyond either end of a system contributes.
    pub const IDENTITY: Eq<T> = Eq { a: T::ZERO, b: T::ONE, c: T::ZERO, d: T::ZERO };
}

/// Eliminate `x_{i−s}` and `x_{i+s}` from equation `m` with its neighbours `l` (at i−s) and
/// `r` (at i+s): the step of both cyclic reduction and parallel cyclic reduction. The result
/// couples `x_{i−2s}` and `x_{i+2s}`. A missing neighbour is [`Eq::IDENTITY`].
#[inline(always)]
pub fn eliminate<T: Real>(l: Eq<T>, m: Eq<T>, r: Eq<T>) -> Eq<T> {
    let k1 = m.a / l.b;
    let k2 = m.c / r.b;
    Eq { a: -(l.a * k1), b: m.b - l.c * k1 - r.a * k2, c: -(r.c * k2), d: m.d - l.d * k1 - r.d * k2 }
}

/// CR back substitution: `x_i` from its equation and the known `x_{i−s}`, `x_{i+s}`.
#[inline(always)]
pub fn back_substitute<T: Real>(e: Eq<T>, x_left: T, x_right: T) -> T {
    (e.d - e.a * x_left - e.c * x_right) / e.b
}

/// A usable pivot: non-zero and finite.
#[inline(always)]
pub fn pivot_ok<T: Real>(p: T) -> bool {
    p != T::ZERO && p.is_finite()
}

/// One forward row of the Thomas algorithm: from the previous row's (c', d') and this row's
/// coefficients, this row's (c', d') and its pivot `b − a·c'_{prev}`.
#[inline(always)]
pub fn thomas_row<T: Real>(e: Eq<T>, cp_prev: T, dp_prev: T) -> (T, T, T) {
    let pivot = e.b - e.a * cp_prev;
    let inv = T::ONE / pivot;
    (e.c * inv, (e.d - e.a * dp_prev) * inv, pivot)
}

// ------------------------------------- LU with partial pivoting (gtsv) ----
//
// For systems that are not diagonally dominant: Gaussian elimination with partial pivoting
// along the line, as LAPACK's `?gtsv`. At step i the equation not yet eliminated
// ([`Pending`]: `b·x_i + c·x_{i+1} = d`) and equation i+1 compete for the pivot; the larger
// |coefficient of x_i| becomes row i of U, the other is eliminated with it and becomes the
// pending equation of step i+1. A swap brings equation i+1's `c` into row i of U as a second
// superdiagonal (`u2`, coupling x_{i+2}). Rows of U are stored normalised (divided by their
// pivot), so the back substitution multiplies only: `x_i = y − u1·x_{i+1} − u2·x_{i+2}`.
// The growth of partial pivoting on a tridiagonal matrix is at most 2 (every U entry is a
// coefficient or the difference of two with a multiplier ≤ 1), so it is backward stable for
// any non-singular matrix; a zero pivot means the matrix is singular.

/// A right-hand side LU carries: one value, or several solved at once (SPIKE's three).
pub trait Rhs<T>: Copy {
    /// `self·k`.
    fn scale(self, k: T) -> Self;
    /// `self / k`.
    fn div(self, k: T) -> Self;
    /// `self − k·o`.
    fn sub_mul(self, k: T, o: Self) -> Self;
    fn finite(self) -> bool;
}

impl<T: Real> Rhs<T> for T {
    #[inline(always)]
    fn scale(self, k: T) -> T {
        self * k
    }
    #[inline(always)]
    fn div(self, k: T) -> T {
        self / k
    }
    #[inline(always)]
    fn sub_mul(self, k: T, o: T) -> T {
        self - k * o
    }
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl<T: Real> Rhs<T> for [T; 3] {
    #[inline(always)]
    fn scale(self, k: T) -> [T; 3] {
        [self[0] * k, self[1] * k, self[2] * k]
    }
    #[inline(always)]
    fn div(self, k: T) -> [T; 3] {
        [self[0] / k, self[1] / k, self[2] / k]
    }
    #[inline(always)]
    fn sub_mul(self, k: T, o: [T; 3]) -> [T; 3] {
        [self[0] - k * o[0], self[1] - k * o[1], self[2] - k * o[2]]
    }
    #[inline(always)]
    fn finite(self) -> bool {
        self[0].is_finite() && self[1].is_finite() && self[2].is_finite()
    }
}

/// The equation carried from one LU step to the next: `b·x_i + c·x_{i+1} = d`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pending<T, R = T> {
    pub b: T,
    pub c: T,
    pub d: R,
}

impl<T: Real, R: Rhs<T>> Pending<T, R> {
    /// Equation 0 (whose `a` is never read) as the first pending equation.
    #[inline(always)]
    pub fn first(e: Eq<T, R>) -> Pending<T, R> {
        Pending { b: e.b, c: e.c, d: e.d }
    }
}

/// A row of U divided by its pivot: `x_i + u1·x_{i+1} + u2·x_{i+2} = y`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct URow<T, R = T> {
    pub u1: T,
    pub u2: T,
    pub y: R,
}

/// All four coefficients finite (a bad value is named at the row it is in).
#[inline(always)]
pub fn eq_finite<T: Real, R: Rhs<T>>(e: Eq<T, R>) -> bool {
    e.a.is_finite() && e.b.is_finite() && e.c.is_finite() && e.d.finite()
}

/// One LU step: row i of U from the pending equation `p` and equation i+1 `e`, the pivot
/// (unnormalised) and the pending equation of step i+1.
#[inline(always)]
pub fn lu_step<T: Real, R: Rhs<T>>(p: Pending<T, R>, e: Eq<T, R>) -> (URow<T, R>, T, Pending<T, R>) {
    if p.b.abs() >= e.a.abs() {
        // No interchange: eliminate x_i from equation i+1 with p.
        let inv = T::ONE / p.b;
        let (u1, y) = (p.c * inv, p.d.scale(inv));
        (URow { u1, u2: T::ZERO, y }, p.b, Pending { b: e.b - e.a * u1, c: e.c, d: e.d.sub_mul(e.a, y) })
    } else {
        // Interchange: equation i+1 is row i of U; eliminate x_i from p with it.
        let inv = T::ONE / e.a;
        let (u1, u2, y) = (e.b * inv, e.c * inv, e.d.scale(inv));
        (URow { u1, u2, y }, e.a, Pending { b: p.c - p.b * u1, c: -(p.b * u2), d: p.d.sub_mul(p.b, y) })
    }
}

/// The last row of U from the last pending equation (its `c` couples nothing), and its pivot.
#[inline(always)]
pub fn lu_last<T: Real, R: Rhs<T>>(p: Pending<T, R>) -> (URow<T, R>, T) {
    (URow { u1: T::ZERO, u2: T::ZERO, y: p.d.div(p.b) }, p.b)
}

/// Back substitution of LU: `x_i` from its row of U and x_{i+1}, x_{i+2}.
#[inline(always)]
pub fn lu_back<T: Real, R: Rhs<T>>(u: URow<T, R>, x1: R, x2: R) -> R {
    u.y.sub_mul(u.u1, x1).sub_mul(u.u2, x2)
}

/// Most equations [`lu_solve_grouped`] loads at once (the lists it unrolls).
pub const LU_GROUP_MAX: usize = 16;

/// A row of U that the back substitution can use: a usable pivot and finite entries.
#[inline(always)]
fn lu_usable<T: Real, R: Rhs<T>>(u: URow<T, R>, pivot: T) -> bool {
    pivot_ok(pivot) && u.u1.is_finite() && u.u2.is_finite() && u.y.finite()
}

/// Step i of [`lu_forward`] on equation i+1 (`e`), keeping in `bad` the first row to blame
/// (`e`'s own row for a non-finite coefficient, row i for an unusable row of U).
#[inline(always)]
fn lu_checked_step<T: Real, R: Rhs<T>>(
    pend: Pending<T, R>,
    e: Eq<T, R>,
    i: u32,
    bad: &mut u32,
) -> (URow<T, R>, Pending<T, R>) {
    if !eq_finite(e) && *bad == u32::MAX {
        *bad = i + 1;
    }
    let (u, pivot, next) = lu_step(pend, e);
    if !lu_usable(u, pivot) && *bad == u32::MAX {
        *bad = i;
    }
    (u, next)
}

/// The forward elimination of [`lu_solve`] (`put(i, u)` stores row i of U): the last row of U
/// and the row to blame so far (the first non-finite coefficient or unusable pivot met), or
/// `u32::MAX`. With `put` doing nothing it stores nothing: the last row of U is the last
/// unknown itself (SPIKE's chunk ends, [`spike_ends`]).
#[inline(always)]
pub fn lu_forward<T: Real, R: Rhs<T>>(
    n: u32,
    eq: impl Fn(u32) -> Eq<T, R>,
    mut put: impl FnMut(u32, URow<T, R>),
) -> (URow<T, R>, u32) {
    let mut bad = u32::MAX;
    let e0 = eq(0);
    if !eq_finite(e0) {
        bad = 0;
    }
    let mut pend = Pending::first(e0);
    let mut i = 0;
    while i + 1 < n {
        let u;
        (u, pend) = lu_checked_step(pend, eq(i + 1), i, &mut bad);
        put(i, u);
        i += 1;
    }
    lu_end(pend, n, bad)
}

/// The last row of U from the last pending equation, and the row to blame.
#[inline(always)]
fn lu_end<T: Real, R: Rhs<T>>(pend: Pending<T, R>, n: u32, bad: u32) -> (URow<T, R>, u32) {
    let (u, pivot) = lu_last(pend);
    (u, if !lu_usable(u, pivot) && bad == u32::MAX { n - 1 } else { bad })
}

/// [`lu_forward`] with the equations loaded `G` at a time (1 ≤ G ≤ [`LU_GROUP_MAX`]), each
/// group's loads issued before the steps of the group before: a thread solving a system by
/// itself keeps a group's loads in flight while it steps through the last one, where
/// [`lu_forward`] waits on every load. The steps and their order are [`lu_forward`]'s, and so
/// are the results, bit for bit.
#[inline(always)]
pub fn lu_forward_grouped<T: Real, R: Rhs<T>, const G: usize>(
    n: u32,
    eq: impl Fn(u32) -> Eq<T, R>,
    mut put: impl FnMut(u32, URow<T, R>),
) -> (URow<T, R>, u32) {
    const { assert!(G >= 1 && G <= LU_GROUP_MAX) };
    let mut bad = u32::MAX;
    let e0 = eq(0);
    if !eq_finite(e0) {
        bad = 0;
    }
    let mut pend = Pending::first(e0);
    // Equations i+1..i+m of the group whose steps start at step i (m = 0 past the last).
    let group = |i: u32| {
        let m = if i + 1 < n { (n - 1 - i).min(G as u32) } else { 0 };
        let mut es = [e0; G];
        unroll!(q: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] if q < G && (q as u32) < m => {
            es[q] = eq(i + 1 + q as u32);
        });
        (es, m)
    };
    let (mut es, mut m) = group(0);
    let mut i = 0;
    while m > 0 {
        let ahead = group(i + m);
        unroll!(q: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] if q < G && (q as u32) < m => {
            let u;
            (u, pend) = lu_checked_step(pend, es[q], i + q as u32, &mut bad);
            put(i + q as u32, u);
        });
        i += m;
        (es, m) = ahead;
    }
    lu_end(pend, n, bad)
}

/// LU with partial pivoting of one system of `n ≥ 1` equations (right-hand sides of type
/// `R`, `zero` their zero), shared by the kernels and the CPU reference: `eq(i)` loads equation i (`a_0 = c_{n−1} = 0`), `put(i, u)`/`get(i)` store
/// and reload row i of U, `set_x(i, x)` writes unknown i (after row i of U was read back for
/// the last time, so U's `y` may live where x goes). Returns the row to blame, or `u32::MAX`:
/// the first row holding a non-finite coefficient, else the first zero or non-finite pivot
/// (a singular matrix) or non-finite row of U, else the highest row whose x is not finite
/// (the back substitution carries a bad value downwards from where it arose).
#[inline(always)]
pub fn lu_solve<T: Real, R: Rhs<T>>(
    n: u32,
    eq: impl Fn(u32) -> Eq<T, R>,
    mut put: impl FnMut(u32, URow<T, R>),
    get: impl Fn(u32) -> URow<T, R>,
    mut set_x: impl FnMut(u32, R),
    zero: R,
) -> u32 {
    let (u, bad) = lu_forward(n, &eq, &mut put);
    let mut back = LuBack::start(n, u, zero, &mut set_x);
    let mut i = n - 1;
    while i > 0 {
        i -= 1;
        back.step(get(i), i, &mut set_x);
    }
    back.blame(bad)
}

/// The back substitution of [`lu_solve`] under way: x_{i+1} and x_{i+2} of the next row i, and
/// the highest row whose x is not finite so far.
struct LuBack<R> {
    x1: R,
    x2: R,
    xbad: u32,
}

impl<R: Copy> LuBack<R> {
    /// From the last row of U, x_{n−1} = its y, written.
    #[inline(always)]
    fn start<T: Real>(n: u32, u: URow<T, R>, zero: R, set_x: &mut impl FnMut(u32, R)) -> Self
    where
        R: Rhs<T>,
    {
        set_x(n - 1, u.y);
        LuBack { x1: u.y, x2: zero, xbad: if u.y.finite() { u32::MAX } else { n - 1 } }
    }

    /// x_i from row i of U, written.
    #[inline(always)]
    fn step<T: Real>(&mut self, u: URow<T, R>, i: u32, set_x: &mut impl FnMut(u32, R))
    where
        R: Rhs<T>,
    {
        let xi = lu_back(u, self.x1, self.x2);
        if !xi.finite() && self.xbad == u32::MAX {
            self.xbad = i;
        }
        set_x(i, xi);
        (self.x2, self.x1) = (self.x1, xi);
    }

    /// The row to blame: the forward elimination's `bad`, else the highest non-finite x.
    #[inline(always)]
    fn blame(self, bad: u32) -> u32 {
        if bad == u32::MAX { self.xbad } else { bad }
    }
}

/// [`lu_solve`] loading `G` equations at a time on the way down and `G` rows of U at a time on
/// the way back, a group ahead of the steps ([`lu_forward_grouped`]): [`lu_solve`]'s results,
/// bit for bit. Equation i+1 is still loaded before unknown i is written, and every row of U
/// is read back before its unknown is.
#[inline(always)]
pub fn lu_solve_grouped<T: Real, R: Rhs<T>, const G: usize>(
    n: u32,
    eq: impl Fn(u32) -> Eq<T, R>,
    mut put: impl FnMut(u32, URow<T, R>),
    get: impl Fn(u32) -> URow<T, R>,
    mut set_x: impl FnMut(u32, R),
    zero: R,
) -> u32 {
    let (u, bad) = lu_forward_grouped::<T, R, G>(n, &eq, &mut put);
    let mut back = LuBack::start(n, u, zero, &mut set_x);
    // Rows hi−1 down to hi−m of the group below row hi (m = 0 at row 0).
    let group = |hi: u32| {
        let m = hi.min(G as u32);
        let mut us = [u; G];
        unroll!(q: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] if q < G && (q as u32) < m => {
            us[q] = get(hi - 1 - q as u32);
        });
        (us, m)
    };
    let mut hi = n - 1;
    let (mut us, mut m) = group(hi);
    while m > 0 {
        let ahead = group(hi - m);
        unroll!(q: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] if q < G && (q as u32) < m => {
            back.step(us[q], hi - 1 - q as u32, &mut set_x);
        });
        hi -= m;
        (us, m) = ahead;
    }
    back.blame(bad)
}

// ------------------------------------------- SPIKE with partial pivoting ----
//
// For few long systems (`tridiag_spike`): a system is cut into P chunks of at least two rows
// (lengths differing by at most one, [`spike_start`]). In chunk rows f..l the interior rows
// f+1..l−1 form a tridiagonal system M (without its couplings to x_f and x_l), which LU with
// partial pivoting solves for three right-hand sides at once: d, a_{f+1}·e_first and
// c_{l−1}·e_last, so that every interior row reads `x_r = D − A·x_f − C·x_l`
// ([`spike_reduce`]). Put into rows f and l, that leaves two equations per chunk coupling
// only chunk ends — a tridiagonal reduced system in (x_{f0}, x_{l0}, x_{f1}, x_{l1}, …),
// solved by LU with partial pivoting as well — and each chunk then fills in its interior
// ([`spike_fill`]). Stable when every M is well conditioned (SPIKE's condition); the
// backward-error check reports a system where it is not.

/// The first row of chunk j of `chunks` over n rows (j ≤ chunks; `spike_start(chunks)` = n).
#[inline(always)]
pub fn spike_start(n: u32, chunks: u32, j: u32) -> u32 {
    // chunks ≥ 1 by the launch; max(1) spares the kernel a division-by-zero path.
    let chunks = chunks.max(1);
    let (q, r) = (n / chunks, n % chunks);
    j * q + if j < r { j } else { r }
}

/// Reduce one chunk of `len ≥ 2` rows (local rows; `eq` as [`lu_solve`]'s, `put`/`get`/`set_x`
/// hold the interior rows' U and then their `[D, A, C]` in `y`). Returns the chunk's two
/// reduced equations (the first couples the previous chunk's last unknown through `a` and this
/// chunk's last through `c`; the last couples this chunk's first through `a` and the next
/// chunk's first through `c`) and the local row to blame, or `u32::MAX`.
#[inline(always)]
pub fn spike_reduce<T: Real>(
    len: u32,
    eq: impl Fn(u32) -> Eq<T>,
    mut put: impl FnMut(u32, URow<T, [T; 3]>),
    get: impl Fn(u32) -> URow<T, [T; 3]>,
    mut set_x: impl FnMut(u32, [T; 3]),
) -> (Eq<T>, Eq<T>, u32) {
    let (e0, el) = (eq(0), eq(len - 1));
    let mut bad = if eq_finite(e0) { u32::MAX } else { 0 };
    if len == 2 {
        if !eq_finite(el) && bad == u32::MAX {
            bad = 1;
        }
        return (e0, el, bad);
    }
    let q = len - 2;
    // Interior row i is local row i+1; its couplings to the chunk's ends move to the right.
    let interior = |i: u32| spike_interior_row(eq(i + 1), i, q);
    let ibad = lu_solve(q, interior, |i, u| put(i + 1, u), |i| get(i + 1), |i, x| set_x(i + 1, x), [T::ZERO; 3]);
    if ibad != u32::MAX && bad == u32::MAX {
        bad = ibad + 1;
    }
    if !eq_finite(el) && bad == u32::MAX {
        bad = len - 1;
    }
    let [d1, a1, c1] = get(1).y;
    let [dm, am, cm] = get(len - 2).y;
    let first = Eq { a: e0.a, b: e0.b - e0.c * a1, c: -(e0.c * c1), d: e0.d - e0.c * d1 };
    let last = Eq { a: -(el.a * am), b: el.b - el.a * cm, c: el.c, d: el.d - el.a * dm };
    (first, last, bad)
}

/// An interior unknown from its `[D, A, C]` and the chunk's end unknowns.
#[inline(always)]
pub fn spike_fill<T: Real>(dac: [T; 3], x_first: T, x_last: T) -> T {
    dac[0] - dac[1] * x_first - dac[2] * x_last
}

// ------------------------------------------- multi-block SPIKE levels ----
//
// One block per system cannot fill a GPU with a few long systems. A *level* of the
// multi-block SPIKE (`tridiag_spike_reduce`, `tridiag_spike_fill`) cuts each system into
// chunks of about `SPIKE_ROWS` rows ([`spike_level_chunks`], [`spike_start`]) spread over as
// many blocks as the GPU needs, and writes the chunks' reduced equations (two per chunk, the
// same as the one-block kernel's) as a new tridiagonal system of 2·chunks unknowns — about
// n/8 — which is solved the same way, level after level, until it is short enough for the
// one-block kernel (`SPIKE_ONE_BLOCK_MAX`). Then each level fills in its chunks from the
// solved ends, from the deepest level up. A level stores nothing per row: the reduction
// sweeps each chunk's interior twice with LU with partial pivoting, downwards for the last
// interior row's `[D, A, C]` and upwards (the interior in reverse order) for the first's
// ([`spike_ends`]); the fill solves the interior again, with the ends known
// ([`spike_interior`]). Global traffic per level: a, b, c, d read twice, x written once.

/// Rows per chunk of a multi-block SPIKE level: the reduced system has 2/`SPIKE_ROWS` = 1/8 of
/// the unknowns, and a thread's sequential work (and its interior's condition, see
/// docs/tridiag-pivoting.md) stays small.
pub const SPIKE_ROWS: u32 = 16;

/// The longest system the one-block SPIKE kernel solves by itself; a longer one is reduced by
/// multi-block levels first (each dividing its length by about 8).
pub const SPIKE_ONE_BLOCK_MAX: u32 = 1024;

/// Most multi-block levels: 2³² rows reach `SPIKE_ONE_BLOCK_MAX` in 8 (each level ÷ 8).
pub const SPIKE_MAX_LEVELS: usize = 8;

/// Chunks of a multi-block level over `n` rows: ⌈n / SPIKE_ROWS⌉, so every chunk has
/// `SPIKE_ROWS` or `SPIKE_ROWS − 1` rows once n > `SPIKE_ONE_BLOCK_MAX`.
#[inline(always)]
pub fn spike_level_chunks(n: u32) -> u32 {
    n.div_ceil(SPIKE_ROWS)
}

/// Shared-memory slot of staged row `i` of a block: one pad every 16 rows, so that threads
/// walking chunks of 16 rows in step touch distinct banks (a stride of 16 would not).
#[inline(always)]
pub fn spike_slot(i: u32) -> u32 {
    i + (i >> 4)
}

/// Values of one staged array of a level's block of `threads` chunks (of at most ⌈n/chunks⌉
/// rows each); a block stages four (a, b, c, d).
#[inline(always)]
pub fn spike_span(n: u32, chunks: u32, threads: u32) -> u32 {
    spike_slot(threads * n.div_ceil(chunks.max(1))) + 1
}

/// Interior row i (local row i+1) of a chunk of `len ≥ 3` rows with its couplings to the
/// chunk's ends moved to the right: `[d, a (coupling x_first), c (coupling x_last)]`.
#[inline(always)]
fn spike_interior_row<T: Real>(e: Eq<T>, i: u32, q: u32) -> Eq<T, [T; 3]> {
    let first = if i == 0 { e.a } else { T::ZERO };
    let last = if i + 1 == q { e.c } else { T::ZERO };
    Eq {
        a: if i == 0 { T::ZERO } else { e.a },
        b: e.b,
        c: if i + 1 == q { T::ZERO } else { e.c },
        d: [e.d, first, last],
    }
}

/// The two reduced equations of a chunk of `len ≥ 2` rows (as [`spike_reduce`]'s), storing
/// nothing: LU with partial pivoting of the interior (rows 1..len−1) for `[d, A, C]` gives
/// the last interior row's `[D, A, C]` as its last unknown; the same on the interior in
/// reverse order (a and c exchanged) gives the first interior row's. Returns them and the
/// local row to blame (the downward sweep's, else the upward's, else the last row's
/// non-finite coefficient), or `u32::MAX`.
#[inline(always)]
pub fn spike_ends<T: Real>(len: u32, eq: impl Fn(u32) -> Eq<T>) -> (Eq<T>, Eq<T>, u32) {
    let (e0, el) = (eq(0), eq(len - 1));
    let mut bad = if eq_finite(e0) { u32::MAX } else { 0 };
    if len == 2 {
        if !eq_finite(el) && bad == u32::MAX {
            bad = 1;
        }
        return (e0, el, bad);
    }
    let q = len - 2;
    let (last_dac, down_bad) = lu_forward(q, |i| spike_interior_row(eq(i + 1), i, q), |_, _| {});
    let (first_dac, up_bad) = lu_forward(
        q,
        |i| {
            let e = spike_interior_row(eq(q - i), q - 1 - i, q);
            Eq { a: e.c, b: e.b, c: e.a, d: e.d }
        },
        |_, _| {},
    );
    if bad == u32::MAX && down_bad != u32::MAX {
        bad = down_bad + 1;
    }
    if bad == u32::MAX && up_bad != u32::MAX {
        bad = q - up_bad;
    }
    if !eq_finite(el) && bad == u32::MAX {
        bad = len - 1;
    }
    let [d1, a1, c1] = first_dac.y;
    let [dm, am, cm] = last_dac.y;
    let first = Eq { a: e0.a, b: e0.b - e0.c * a1, c: -(e0.c * c1), d: e0.d - e0.c * d1 };
    let last = Eq { a: -(el.a * am), b: el.b - el.a * cm, c: el.c, d: el.d - el.a * dm };
    (first, last, bad)
}

/// The interior unknowns of a chunk of `len ≥ 3` rows from its end unknowns: LU with partial
/// pivoting ([`lu_solve`]) of rows 1..len−1 with `a_1·x_first` and `c_{len−2}·x_last` moved to
/// the right-hand side. `put`/`get`/`set_x` take local rows (1..len−1). Returns the local row
/// to blame, or `u32::MAX`.
#[inline(always)]
pub fn spike_interior<T: Real>(
    len: u32,
    eq: impl Fn(u32) -> Eq<T>,
    x_first: T,
    x_last: T,
    mut put: impl FnMut(u32, URow<T>),
    get: impl Fn(u32) -> URow<T>,
    mut set_x: impl FnMut(u32, T),
) -> u32 {
    let q = len - 2;
    let interior = |i: u32| {
        let e = spike_interior_row(eq(i + 1), i, q);
        let [d, first, last] = e.d;
        Eq { a: e.a, b: e.b, c: e.c, d: d - first * x_first - last * x_last }
    };
    let bad = lu_solve(q, interior, |i, u| put(i + 1, u), |i| get(i + 1), |i, x| set_x(i + 1, x), T::ZERO);
    if bad == u32::MAX { bad } else { bad + 1 }
}

/// Row diagonal dominance `|b| ≥ |a| + |c|` with `b ≠ 0` (false for any NaN): where every row
/// of a system has it, elimination without pivoting keeps |c'| ≤ 1 and is stable, so the
/// automatic choice takes the fast non-pivoting solvers only then.
#[inline(always)]
pub fn dominant<T: Real>(a: T, b: T, c: T) -> bool {
    b.abs() >= a.abs() + c.abs() && b != T::ZERO && b.is_finite()
}

/// A Thomas row that can be trusted: its pivot usable and its c′, d′ finite. Checking c′ and
/// d′ names the row where a non-finite coefficient (a NaN in d) or an overflow first appears,
/// rather than the row where the back substitution happens to meet it.
#[inline(always)]
pub fn row_ok<T: Real>(pivot: T, c1: T, d1: T) -> bool {
    pivot_ok(pivot) && c1.is_finite() && d1.is_finite()
}

// ------------------------------------------------------ partition method ----
//
// The partition ("Thomas–PCR hybrid") method of Wang 1981 / László–Giles–Appleyard 2016, as
// `tridiag_partition` runs it and the CPU tests emulate it. A system is cut into chunks of
// `2^lg` consecutive rows, lg ≥ 1 (the last chunk may be shorter, or one row longer: see
// [`partition_chunks`]). Rows are first normalised (b = 1,
// [`Row`]). Within a chunk of rows f..l, one thread eliminates downwards and then upwards
// ([`chunk_reduce`]) so that every interior row reads `x_r = D − A·x_f − C·x_l`: the chunk
// then only couples to its neighbours through its first and last unknowns, and those form a
// tridiagonal *reduced system* of two equations per chunk (one for a chunk of one row),
// reduced index `2j` = first row of chunk j, `2j + 1` = its last row ([`reduced_row`]). It
// is solved by PCR on normalised rows ([`pcr_row`]); each thread then fills in its interior
// rows ([`chunk_interior`]). All of it happens in place, in three arrays (a, c, d of the
// normalised rows) with the chunks `2^lg + 1` apart ([`partition_pitch`]).

/// A normalised equation `a x_{i−s} + x_i + c x_{i+s} = d` (b = 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row<T> {
    pub a: T,
    pub c: T,
    pub d: T,
}

impl<T: Real> Row<T> {
    /// `x = 0`: a missing neighbour.
    pub const ZERO: Row<T> = Row { a: T::ZERO, c: T::ZERO, d: T::ZERO };
}

/// `e / e.b` (the caller checks `pivot_ok(e.b)`).
#[inline(always)]
pub fn normalize<T: Real>(e: Eq<T>) -> Row<T> {
    let inv = T::ONE / e.b;
    Row { a: e.a * inv, c: e.c * inv, d: e.d * inv }
}

/// Rows `r` and its pivot scaled by `1/p`.
#[inline(always)]
fn scaled<T: Real>(a: T, c: T, d: T, p: T) -> Row<T> {
    let inv = T::ONE / p;
    Row { a: a * inv, c: c * inv, d: d * inv }
}

/// Shared-memory distance between consecutive chunks of `2^lg` rows: odd, so that threads
/// walking their own chunks in step touch distinct banks (a stride of `2^lg` would put every
/// thread of a warp in the same bank).
#[inline(always)]
pub fn partition_pitch(lg: u32) -> u32 {
    (1 << lg) + 1
}

/// Chunks (threads) of a system of `n` rows in chunks of `2^lg`. A last chunk of a single row
/// joins the chunk before it (which then holds `2^lg + 1` rows, exactly its pitch): systems of
/// `m·2^lg + 1` rows — every line of an ADI sweep, 2n + 1 unknowns — then take m threads, a
/// whole number of warps, instead of a warp more for one row.
#[inline(always)]
pub fn partition_chunks(n: u32, lg: u32) -> u32 {
    let c = n.div_ceil(1 << lg);
    if c > 1 && n - ((c - 1) << lg) == 1 { c - 1 } else { c }
}

/// Values of shared memory one system takes in the partition kernel: three arrays (a, c, d)
/// of `chunks·pitch`, plus one when that is even, so that consecutive systems of a block start
/// on different banks.
#[inline(always)]
pub fn partition_span(n: u32, lg: u32) -> u32 {
    (3 * partition_chunks(n, lg) * partition_pitch(lg)) | 1
}

/// Values of shared memory each system of a block takes in the cyclic-reduction kernels
/// (CR, PCR, CR-PCR, PCR-Thomas) with `2^group` systems a block: 4n (a, b, c, d) for one; for
/// more, 4n rounded up to 32 values plus the rows a warp stages of each system (32 / 2^group),
/// so that a warp staging consecutive systems row by row writes 32 distinct banks.
#[inline(always)]
pub fn cyclic_span(n: u32, group: u32) -> u32 {
    if group == 0 { 4 * n } else { (4 * n).div_ceil(32) * 32 + (32 >> group).max(1) }
}

/// Offset of row `i` of a system of `n` in one array of the partition layout.
#[inline(always)]
pub fn partition_slot(n: u32, i: u32, lg: u32) -> u32 {
    let last = partition_chunks(n, lg) - 1;
    let j = if i >> lg > last { last } else { i >> lg };
    j * partition_pitch(lg) + (i - (j << lg))
}

/// Rows of chunk `j` of a system of `n` (chunks of `2^lg`; the last one shorter, or one row
/// longer, [`partition_chunks`]).
#[inline(always)]
pub fn chunk_len(n: u32, lg: u32, j: u32) -> u32 {
    let f = j << lg;
    if j + 1 == partition_chunks(n, lg) { n - f } else { 1 << lg }
}

/// Equations of the reduced system: two per chunk, one for a system of one row.
#[inline(always)]
pub fn reduced_len(n: u32, lg: u32) -> u32 {
    let chunks = partition_chunks(n, lg);
    2 * chunks - if chunk_len(n, lg, chunks - 1) == 1 { 1 } else { 0 }
}

/// The system row holding reduced equation `q` (`q < reduced_len`).
#[inline(always)]
pub fn reduced_row(n: u32, lg: u32, q: u32) -> u32 {
    let j = q >> 1;
    (j << lg) + if q & 1 == 1 { chunk_len(n, lg, j) - 1 } else { 0 }
}

/// Offset of reduced equation `q` in one array of the partition layout: the first row of chunk
/// q/2 (q even) or its last (q odd). The same as `partition_slot(n, reduced_row(n, lg, q), lg)`
/// in fewer operations, as PCR on the reduced system takes two neighbours' slots an equation a
/// level. `end` is `chunk_len(n, lg, j) − 1` written against the last chunk's index: through
/// `chunk_len` the PCR loop assembles to about ten instructions more (sm_90).
#[inline(always)]
pub fn reduced_slot(n: u32, lg: u32, q: u32) -> u32 {
    let j = q >> 1;
    let last = partition_chunks(n, lg) - 1;
    let end = if j == last { n - (last << lg) - 1 } else { (1 << lg) - 1 };
    j * partition_pitch(lg) + (q & 1) * end
}

/// Reduce one chunk of `len ≥ 1` normalised rows in place (`get(r)`/`put(r, ·)` for r < len).
/// Afterwards row 0 holds the chunk's first reduced equation (`a` couples the previous
/// chunk's last unknown, `c` this chunk's last), row len−1 its last reduced equation (`a`
/// couples this chunk's first unknown, `c` the next chunk's first); for len = 1 both are the
/// row itself. Interior rows hold `(A, C, D)` with `x_r = D − A·x_first − C·x_last`.
/// Returns the first row (offset in the chunk) whose pivot failed, or `u32::MAX`.
#[inline(always)]
pub fn chunk_reduce<T: Real>(len: u32, get: impl Fn(u32) -> Row<T>, mut put: impl FnMut(u32, Row<T>)) -> u32 {
    let mut bad = u32::MAX;
    if len < 2 {
        return bad;
    }
    // Downwards: row r (r ≥ 1) becomes A·x_first + x_r + C·x_{r+1} = D. Row 1 already is.
    let mut prev = get(1);
    let mut r = 2;
    while r < len {
        let e = get(r);
        let p = T::ONE - e.a * prev.c;
        if !pivot_ok(p) && bad == u32::MAX {
            bad = r;
        }
        prev = scaled(-(e.a * prev.a), e.c, e.d - e.a * prev.d, p);
        put(r, prev);
        r += 1;
    }
    // Upwards from row len−2 (whose C already multiplies x_last): x_r = D − A·x_f − C·x_l.
    // `next` is row r+1 in that form; for len = 2 it is x_last itself.
    let mut next = Row { a: T::ZERO, c: -T::ONE, d: T::ZERO };
    if len > 2 {
        next = get(len - 2);
        let mut r = len - 2;
        while r > 1 {
            r -= 1;
            let e = get(r);
            next = Row { a: e.a - e.c * next.a, c: -(e.c * next.c), d: e.d - e.c * next.d };
            put(r, next);
        }
    }
    // Row 0 with x_1 substituted: a·x_prev + (1 − c·A_1)·x_0 − c·C_1·x_last = d − c·D_1.
    let e = get(0);
    let p = T::ONE - e.c * next.a;
    if !pivot_ok(p) && bad == u32::MAX {
        bad = 0;
    }
    put(0, scaled(e.a, -(e.c * next.c), e.d - e.c * next.d, p));
    bad
}

/// An interior row's unknown from its `(A, C, D)` and the chunk's end unknowns.
#[inline(always)]
pub fn chunk_interior<T: Real>(e: Row<T>, x_first: T, x_last: T) -> T {
    e.d - e.a * x_first - e.c * x_last
}

/// One PCR step on normalised rows: eliminate `m`'s neighbours with `l` and `r` (missing:
/// [`Row::ZERO`]) and renormalise. Returns the new row and its pivot. One division instead
/// of [`eliminate`]'s two.
#[inline(always)]
pub fn pcr_row<T: Real>(l: Row<T>, m: Row<T>, r: Row<T>) -> (Row<T>, T) {
    let p = T::ONE - m.a * l.c - m.c * r.a;
    (scaled(-(m.a * l.a), -(m.c * r.c), m.d - m.a * l.d - m.c * r.d, p), p)
}

/// The twist of a two-sided (twisted) Thomas factorisation: one side's last row reads
/// `x_me + c_me·x_other = d_me`, the other side's `x_other + c_other·x_me = d_other`.
/// Returns `x_me` and the twist pivot `1 − c_me·c_other`.
#[inline(always)]
pub fn twist<T: Real>(c_me: T, d_me: T, c_other: T, d_other: T) -> (T, T) {
    let p = T::ONE - c_me * c_other;
    ((d_me - c_me * d_other) / p, p)
}

/// Status word for a failure at unknown `i` of system `k` (see the module comment).
#[inline(always)]
pub fn fail_code(n: u32, k: u32, i: u32) -> u64 {
    !(k as u64 * n as u64 + i as u64)
}

/// The (system, row) a non-zero status word names.
pub fn decode_status(n: u32, status: u64) -> Option<(u64, u64)> {
    if status == 0 || n == 0 {
        return None;
    }
    let idx = !status;
    Some((idx / n as u64, idx % n as u64))
}

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod cyclic;
#[cfg(target_arch = "nvptx64")]
mod io;
#[cfg(target_arch = "nvptx64")]
mod lines;
#[cfg(target_arch = "nvptx64")]
pub(crate) use {
    cyclic::{cr_pcr_lines, pcr_lines},
    io::{read_status, report_min},
    lines::Lines,
    partition::partition_lines,
    thomas::{thomas_lines, thomas_twisted_lines},
};
#[cfg(target_arch = "nvptx64")]
mod lu;
#[cfg(target_arch = "nvptx64")]
mod partition;
#[cfg(target_arch = "nvptx64")]
mod spike;
#[cfg(target_arch = "nvptx64")]
mod spike_levels;
#[cfg(target_arch = "nvptx64")]
mod thomas;
