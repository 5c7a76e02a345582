//! The live view's entry point.
//!
//! Launch contract: a 1D grid of at least `n` threads. `at` holds `n` element offsets, each
//! inside the array `src` begins; `out` holds `n` elements and does not overlap `src`.

#[cfg(target_arch = "nvptx64")]
use super::kernel::gather;

kernels! {
    /// `out[k] = src[at[k]]` for k < n: an array's values at the view's cells.
    pub struct Gather<T> { src: *const T, at: *const u64, n: u64, out: *mut T }
    pub const GATHER: Gather = gather(gather::<T>);
}
