//! Launch geometry the host and the flux kernels agree on: shared memory of the tile kernel,
//! strips and rate slots of the streamed one.

use super::WetDryScheme;

/// Shared memory of the tile flux kernels of scheme `S`, in `T`s: (bx+4)(by+4) tiles of the
/// cells' (w*, n_x, n_y) (`cell_view`) and, with partially flooded cells, their drain caps; a
/// corner tile of (bx+5)(by+5) (every corner of those cells, where `cell_view` reads them) or,
/// without, (bx+3)(by+3) (the corners of the cross's faces); three x-face flux arrays of
/// (bx+1)·by and three y-face ones of bx·(by+1); 32 words of reduction scratch.
pub const fn flux_shared<S: WetDryScheme>(bx: u32, by: u32) -> usize {
    let tiles = if S::PARTIAL { 4 } else { 3 };
    let corners = if S::CORNERS { 5 } else { 3 };
    tiles * ((bx + 4) * (by + 4)) as usize
        + ((bx + corners) * (by + corners)) as usize
        + 3 * ((bx + 1) * by + bx * (by + 1)) as usize
        + 32
}

/// Interior columns each warp of the streamed flux kernel computes: its 32 lanes hold 32
/// consecutive padded columns, and the two lanes at each edge only supply neighbours (a face
/// flux needs the reconstructions of the cells on both sides, each of which needs its own
/// neighbours).
pub const STREAM_COLS: u32 = 28;

/// Strips of [`STREAM_COLS`] columns across `nx` cells.
pub const fn stream_strips(nx: u32) -> u32 {
    nx.div_ceil(STREAM_COLS)
}

/// Rate slots the streamed flux kernel writes: one per strip and band of `rows` rows.
pub const fn stream_slots(nx: u32, ny: u32, rows: u32) -> usize {
    stream_strips(nx) as usize * ny.div_ceil(rows) as usize
}

/// Shared memory of SRK2's x-line flux kernels (`split_flux.rs`) for lines of `l` cells, in
/// `T`s: tiles of the l+4 cells' (w*, n_x, n_y) (and drain caps with partially flooded cells), the
/// two rows of l+5 corners under and over them, three x-face flux arrays of l+1, 32 words of
/// reduction scratch.
pub const fn line_shared<S: WetDryScheme>(l: u32) -> usize {
    let tiles = if S::PARTIAL { 4 } else { 3 };
    tiles * (l + 4) as usize + 2 * (l + 5) as usize + 3 * (l + 1) as usize + 32
}

/// Rate slots SRK2's x-line kernel writes on an nx×ny grid: one a line of `l` cells.
pub const fn line_slots(nx: u32, ny: u32, l: u32) -> usize {
    nx.div_ceil(l) as usize * ny as usize
}

/// Shared memory of SRK2's y-block flux kernels for blocks of (bx, by), in `T`s: tiles of
/// bx·(by+4) cells (no x halo), the (bx+1)(by+5) corners of those cells, three y-face flux
/// arrays of bx·(by+1), 32 words of reduction scratch.
pub const fn yblock_shared<S: WetDryScheme>(bx: u32, by: u32) -> usize {
    let tiles = if S::PARTIAL { 4 } else { 3 };
    tiles * (bx * (by + 4)) as usize + ((bx + 1) * (by + 5)) as usize + 3 * (bx * (by + 1)) as usize + 32
}
