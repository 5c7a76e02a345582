//! Batched tridiagonal solvers (seed 001, DESIGN.md "Batched tridiagonal solvers and transpose").
//!
//! A batch of `batch` independent systems of `n` unknowns,
//! `a_i x_{i−1} + b_i x_i + c_i x_{i+1} = d_i` (i in 0..n), with `a_0` and `c_{n−1}` ignored
//! (read as zero). Element i of system k is at `k·sys_stride + i·elem_stride`: contiguous
//! layout (`sys_stride = n`, `elem_stride = 1`) or interleaved (`sys_stride = 1`,
//! `elem_stride = batch`).
//!
//! The algebra every algorithm uses is here, shared by the kernels and the CPU reference:
//! one Thomas elimination row, and the CR/PCR elimination of an equation's two neighbours.
//! A breakdown (zero or non-finite pivot, non-finite result) is reported per launch through
//! one `u64` status word: the kernels `max` into it `!(k·n + i)`, so 0 means success and the
//! largest value names the first failing (system, row) in index order.

use crate::Real;

/// Elements of each PCR staging slot per thread (the PCR family's `rpt` is at most this).
pub const PCR_MAX_PER_THREAD: u32 = 8;

/// Threads per block of the one-thread-per-system Thomas kernels (whole warps).
pub const THOMAS_BLOCK: u32 = 64;

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
    /// (1..=`PCR_MAX_PER_THREAD`).
    pub chunk: u32,
    /// CR-PCR: switch from CR to PCR once the reduced system has at most this many
    /// equations. PCR-Thomas: PCR steps before Thomas (2^steps subsystems).
    pub switch: u32,
}

impl Dims {
    /// Offset of unknown `i` of system `k`.
    #[inline(always)]
    pub fn at(&self, k: u32, i: u32) -> usize {
        k as usize * self.sys_stride as usize + i as usize * self.elem_stride as usize
    }
}

/// One equation `a x_{i−s} + b x_i + c x_{i+s} = d`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eq<T> {
    pub a: T,
    pub b: T,
    pub c: T,
    pub d: T,
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

#[cfg(target_arch = "nvptx64")]
mod kernels;
