//! The transposes' bodies: every variant over `TILE × TILE` tiles (module comment of `mod.rs`).

use super::{BLOCK_ROWS, TILE, diagonal_block};
use crate::device::{DeviceReal, shared, thread};

/// # Safety
/// The launch contract in the comment of `transpose/mod.rs`.
pub(super) unsafe fn transpose_naive<T: DeviceReal>(
    input: *const T,
    out: *mut T,
    rows: u32,
    cols: u32,
    in_pitch: u32,
    out_pitch: u32,
) {
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
                *out.add(x as usize * out_pitch as usize + y as usize) =
                    T::ldg(input.add(y as usize * in_pitch as usize + x as usize));
            }
        }
        j += BLOCK_ROWS;
    }
}

/// Transpose tile `(bx, by)` through shared memory.
#[inline(always)]
unsafe fn tile_body<T: DeviceReal>(
    input: *const T,
    out: *mut T,
    shape: (u32, u32),
    pitches: (u32, u32),
    bx: u32,
    by: u32,
) {
    unsafe { tile_of(|o| T::ldg(input.add(o)), out, shape, pitches, (bx, by)) }
}

/// Transpose tile `(bx, by)` of a `rows × cols` matrix whose element at offset o `load` gives
/// (rows `pitches.0` apart) into `out` (rows `pitches.1` apart), through the block's dynamic
/// shared memory (`TILE·(TILE+1)` `V`s; it must hold no other live values). Every thread of
/// the block calls it: it synchronises them.
///
/// # Safety
/// The transposes' launch contract (`transpose/mod.rs`) for this matrix and `V`.
#[inline(always)]
pub(crate) unsafe fn tile_of<V: Copy>(
    load: impl Fn(usize) -> V,
    out: *mut V,
    (rows, cols): (u32, u32),
    pitches: (u32, u32),
    (bx, by): (u32, u32),
) {
    let (in_pitch, out_pitch) = (pitches.0 as usize, pitches.1 as usize);
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let tile = shared::dynamic::<V>();
    let pitch = (TILE + 1) as usize;
    let (x, y) = (bx * TILE + tx, by * TILE + ty);
    unsafe {
        let mut j = 0;
        while j < TILE {
            if x < cols && y + j < rows {
                *tile.add((ty + j) as usize * pitch + tx as usize) = load((y + j) as usize * in_pitch + x as usize);
            }
            j += BLOCK_ROWS;
        }
        thread::sync_threads();
        // Output element (row y', column x') = input (x', y'): the tile's column.
        let (x, y) = (by * TILE + tx, bx * TILE + ty);
        let mut j = 0;
        while j < TILE {
            if x < rows && y + j < cols {
                *out.add((y + j) as usize * out_pitch + x as usize) =
                    *tile.add(tx as usize * pitch + (ty + j) as usize);
            }
            j += BLOCK_ROWS;
        }
    }
}

/// # Safety
/// The launch contract in the comment of `transpose/mod.rs`.
pub(super) unsafe fn transpose_tile<T: DeviceReal>(
    input: *const T,
    out: *mut T,
    rows: u32,
    cols: u32,
    in_pitch: u32,
    out_pitch: u32,
) {
    let (bx, by) = (thread::block_idx_x(), thread::block_idx_y());
    unsafe { tile_body(input, out, (rows, cols), (in_pitch, out_pitch), bx, by) }
}

/// # Safety
/// The launch contract in the comment of `transpose/mod.rs`.
pub(super) unsafe fn transpose_diagonal<T: DeviceReal>(
    input: *const T,
    out: *mut T,
    rows: u32,
    cols: u32,
    in_pitch: u32,
    out_pitch: u32,
) {
    let (bx, by) =
        diagonal_block(thread::block_idx_x(), thread::block_idx_y(), thread::grid_dim_x(), thread::grid_dim_y());
    unsafe { tile_body(input, out, (rows, cols), (in_pitch, out_pitch), bx, by) }
}
