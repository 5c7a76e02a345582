//! The row-provider interface of the tridiagonal kernels: a batch of systems as a solving
//! kernel sees it. The kernels ask for equation i of system k when they stage it and hand back
//! unknown i once solved; where the equations come from and where the solution goes is the
//! provider's business. [`Arrays`] reads coefficient arrays and writes x (the batched API of
//! `entries.rs`); a model builds its rows from its state inside the solving kernel (the ADI
//! sweeps of `crate::adi`), so that its coefficients never travel through memory.

use super::io::load;
use super::{Dims, Eq};
use crate::Real;
use crate::device::DeviceReal;

/// A batch of tridiagonal systems, as [`Dims`] sizes it (n unknowns, `batch` systems).
pub trait Lines<T> {
    /// Equation i of system k (i < n, k < batch). Its `a` is zero at i = 0 and its `c` at
    /// i = n − 1.
    ///
    /// # Safety
    /// Called only inside the launch contract of the kernel the provider is given to.
    unsafe fn row(&self, k: u32, i: u32) -> Eq<T>;
    /// Unknown i of system k is `x`. Called once per unknown, after every row of system k was
    /// read (a provider may overwrite its inputs of system k).
    ///
    /// # Safety
    /// As [`row`](Lines::row).
    unsafe fn put(&self, k: u32, i: u32, x: T);
    /// Whether the unknowns of systems k and k + 1 are neighbours in memory: a block that stages
    /// several systems then walks systems fastest, so that consecutive threads touch
    /// consecutive words.
    fn systems_fastest(&self) -> bool;
    /// Whether a one-thread-per-system sweep should load several rows at once: yes for rows
    /// that are a few loads each (coefficient arrays: a thread has nothing else to hide their
    /// latency behind); no for a provider whose row issues many loads of its own, where
    /// several rows at once take more registers than a thread has.
    const ROWS_AT_ONCE: bool;
    /// Whether rows of even and odd index are built by different code (an ADI line: faces and
    /// cells alternate). A block staging consecutive rows then builds the even rows first and
    /// the odd ones after, so that the threads of a warp take one path, not both in turn.
    const ALTERNATING: bool;
    /// Whether rows 2j and 2j + 1 share most of their loads (an ADI line: face j and cell j
    /// read the same cell), so that a kernel staging rows builds them together by
    /// [`pair`](Lines::pair).
    const PAIRED: bool = false;
    /// Equations 2j and 2j + 1 of system k of n equations (2j < n); the second is
    /// [`Eq::IDENTITY`] where 2j + 1 = n.
    ///
    /// # Safety
    /// As [`row`](Lines::row).
    #[inline(always)]
    unsafe fn pair(&self, k: u32, j: u32, n: u32) -> (Eq<T>, Eq<T>)
    where
        T: Real,
    {
        unsafe { (self.row(k, 2 * j), if 2 * j + 1 < n { self.row(k, 2 * j + 1) } else { Eq::IDENTITY }) }
    }
}

/// The row a block stages r-th of a system of n rows (r < n): r itself, or, for a provider
/// whose even and odd rows differ ([`Lines::ALTERNATING`]), the even rows first, then the odd
/// ones.
#[inline(always)]
pub fn staging_order<T, L: Lines<T>>(n: u32, r: u32) -> u32 {
    let evens = n.div_ceil(2);
    if !L::ALTERNATING {
        r
    } else if r < evens {
        2 * r
    } else {
        2 * (r - evens) + 1
    }
}

/// Coefficient arrays a, b, c, d and the solution x, each holding unknown i of system k at
/// `p.at(k, i)`: the batched solvers' API. `x` may equal `d` (a kernel reads every `d` of a
/// system before it writes that system's x).
#[derive(Clone, Copy)]
pub struct Arrays<T> {
    pub p: Dims,
    pub a: *const T,
    pub b: *const T,
    pub c: *const T,
    pub d: *const T,
    pub x: *mut T,
}

impl<T: DeviceReal> Lines<T> for Arrays<T> {
    const ROWS_AT_ONCE: bool = true;
    const ALTERNATING: bool = false;
    #[inline(always)]
    unsafe fn row(&self, k: u32, i: u32) -> Eq<T> {
        unsafe { load(self.a, self.b, self.c, self.d, self.p.at(k, i), i, self.p.n) }
    }
    #[inline(always)]
    unsafe fn put(&self, k: u32, i: u32, x: T) {
        unsafe { *self.x.add(self.p.at(k, i)) = x }
    }
    #[inline(always)]
    fn systems_fastest(&self) -> bool {
        self.p.elem_stride != 1
    }
}
