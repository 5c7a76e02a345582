//! Launch geometry the host and the flux kernels agree on: shared memory of the tile kernel,
//! strips and rate slots of the streamed one.

use super::WetDryScheme;

/// Shared memory of the tile flux kernels of scheme `S`, in `T`s: (bx+4)(by+4) tiles of the
/// cells' (w*, hu, hv) and, with partially flooded cells, their drain caps; a corner tile of
/// (bx+5)(by+5) (every corner of those cells, for w*) or, without, (bx+3)(by+3) (the corners of
/// the cross's faces); three x-face flux arrays of (bx+1)·by and three y-face ones of
/// bx·(by+1); 32 words of reduction scratch.
pub const fn flux_shared<S: WetDryScheme>(bx: u32, by: u32) -> usize {
    let (tiles, corners) = if S::PARTIAL { (4, 5) } else { (3, 3) };
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
