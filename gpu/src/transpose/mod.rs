//! Out-of-place matrix transpose (as the MIKE 21 thesis uses it; Ruetsch & Micikevicius 2009):
//! `out = inᵀ` for a row-major `rows × cols` input and a row-major `cols × rows` output, any
//! shape, each with rows a pitch apart (`in_pitch` ≥ cols, `out_pitch` ≥ rows; the values
//! between a row's end and the next row are neither read nor written).
//!
//! Every variant covers the matrix with `TILE × TILE` tiles, one block of `TILE × BLOCK_ROWS`
//! threads each (every thread moves `TILE / BLOCK_ROWS` elements):
//! - `transpose_naive`: reads coalesced, writes strided by `rows`;
//! - `transpose_tile`: through a shared tile with one padding column (`TILE × (TILE + 1)`, no
//!   bank conflicts), so reads and writes are both coalesced;
//! - `transpose_diagonal`: the tile kernel with blocks reordered along diagonals, so that
//!   concurrently running blocks spread over memory partitions instead of hitting one
//!   ("partition camping").
//!
//! Launch contract (all): block `(TILE, BLOCK_ROWS)`, grid `(⌈cols/TILE⌉, ⌈rows/TILE⌉)`,
//! `TILE·(TILE+1)` `T`s of dynamic shared memory for the tiled ones; `input` holds
//! (rows − 1)·in_pitch + cols elements, `out` (cols − 1)·out_pitch + rows, not overlapping.

/// Tile edge (elements).
pub const TILE: u32 = 32;
/// Thread rows per block.
pub const BLOCK_ROWS: u32 = 8;
/// Shared-memory elements of one tile, with the padding column.
pub const TILE_ELEMS: usize = (TILE * (TILE + 1)) as usize;

/// Where block `(bx, by)` of a `gx × gy` grid works in the diagonal ordering: consecutive
/// block ids walk along diagonals of the tile grid. A bijection of the grid for any shape.
#[inline(always)]
pub fn diagonal_block(bx: u32, by: u32, gx: u32, gy: u32) -> (u32, u32) {
    let bid = bx + gx * by;
    let y = bid % gy;
    let x = (bid / gy + y) % gx;
    (x, y)
}

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
pub(crate) mod tiles;
