//! The transposes' entry points.

#[cfg(target_arch = "nvptx64")]
use super::tiles::{transpose_diagonal, transpose_naive, transpose_tile};

kernels! {
    /// `out = inputᵀ` for a row-major `rows × cols` input whose rows lie `in_pitch` apart,
    /// into a row-major `cols × rows` output whose rows lie `out_pitch` apart.
    pub struct Transpose<T> { input: *const T, out: *mut T, rows: u32, cols: u32, in_pitch: u32, out_pitch: u32 }
    /// Coalesced reads, strided writes.
    pub const TRANSPOSE_NAIVE: Transpose = transpose_naive(transpose_naive::<T>);
    /// Through a padded shared tile: reads and writes coalesced.
    pub const TRANSPOSE_TILE: Transpose = transpose_tile(transpose_tile::<T>);
    /// The tile kernel with blocks in diagonal order.
    pub const TRANSPOSE_DIAGONAL: Transpose = transpose_diagonal(transpose_diagonal::<T>);
}
