//! Out-of-place matrix transpose (seed 001; Ruetsch & Micikevicius 2009): `out = inᵀ` for a
//! row-major `rows × cols` input and a row-major `cols × rows` output, any shape.
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
//! `TILE·(TILE+1)` `T`s of dynamic shared memory for the tiled ones; `input` holds rows·cols
//! elements, `out` the same, not overlapping.

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

#[cfg(target_arch = "nvptx64")]
mod kernels {
    use super::{BLOCK_ROWS, TILE, diagonal_block};
    use crate::device::{DeviceReal, shared, thread};

    /// # Safety
    /// See the module's launch contract.
    unsafe fn transpose_naive<T: DeviceReal>(input: *const T, out: *mut T, rows: u32, cols: u32) {
        let x = thread::block_idx_x() * TILE + thread::thread_idx_x();
        let y0 = thread::block_idx_y() * TILE + thread::thread_idx_y();
        if x >= cols {
            return;
        }
        let mut j = 0;
        while j < TILE {
            let y = y0 + j;
            if y < rows {
                unsafe {
                    *out.add(x as usize * rows as usize + y as usize) =
                        T::ldg(input.add(y as usize * cols as usize + x as usize));
                }
            }
            j += BLOCK_ROWS;
        }
    }

    /// Transpose tile `(bx, by)` through shared memory.
    #[inline(always)]
    unsafe fn tile_body<T: DeviceReal>(input: *const T, out: *mut T, rows: u32, cols: u32, bx: u32, by: u32) {
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        let tile = shared::dynamic::<T>();
        let pitch = (TILE + 1) as usize;
        let (x, y) = (bx * TILE + tx, by * TILE + ty);
        unsafe {
            let mut j = 0;
            while j < TILE {
                if x < cols && y + j < rows {
                    *tile.add((ty + j) as usize * pitch + tx as usize) =
                        T::ldg(input.add((y + j) as usize * cols as usize + x as usize));
                }
                j += BLOCK_ROWS;
            }
            thread::sync_threads();
            // Output element (row y', column x') = input (x', y'): the tile's column.
            let (x, y) = (by * TILE + tx, bx * TILE + ty);
            let mut j = 0;
            while j < TILE {
                if x < rows && y + j < cols {
                    *out.add((y + j) as usize * rows as usize + x as usize) =
                        *tile.add(tx as usize * pitch + (ty + j) as usize);
                }
                j += BLOCK_ROWS;
            }
        }
    }

    /// # Safety
    /// See the module's launch contract.
    unsafe fn transpose_tile<T: DeviceReal>(input: *const T, out: *mut T, rows: u32, cols: u32) {
        unsafe { tile_body(input, out, rows, cols, thread::block_idx_x(), thread::block_idx_y()) }
    }

    /// # Safety
    /// See the module's launch contract.
    unsafe fn transpose_diagonal<T: DeviceReal>(input: *const T, out: *mut T, rows: u32, cols: u32) {
        let (bx, by) =
            diagonal_block(thread::block_idx_x(), thread::block_idx_y(), thread::grid_dim_x(), thread::grid_dim_y());
        unsafe { tile_body(input, out, rows, cols, bx, by) }
    }

    stamp! {
        transpose_naive => transpose_naive_f32, transpose_naive_f64 (input: *const T, out: *mut T, rows: u32, cols: u32);
        transpose_tile => transpose_tile_f32, transpose_tile_f64 (input: *const T, out: *mut T, rows: u32, cols: u32);
        transpose_diagonal => transpose_diagonal_f32, transpose_diagonal_f64 (input: *const T, out: *mut T, rows: u32, cols: u32);
    }
}
