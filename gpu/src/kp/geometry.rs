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

/// The bands of `rows` rows one launch of the streamed flux kernel computes: its `count` block
/// rows, block row `y` taking band `first + y`, and `first + y + skip` from block row `low` on.
/// One launch over a grid takes every band ([`Bands::all`]); a slab whose ghost rows are still
/// travelling takes its inner bands ([`Bands::inner`]) apart from the bands that read a ghost
/// row ([`Bands::edges`]), which run once the rows arrive. Every band is computed by the same
/// code whichever launch holds it, and its rate goes to the slot of its band, so the results
/// are the same bit for bit.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bands {
    pub rows: u32,
    pub first: u32,
    pub low: u32,
    pub skip: u32,
    pub count: u32,
}

impl Bands {
    /// Every band of `ny` rows.
    pub const fn all(ny: u32, rows: u32) -> Bands {
        let n = ny.div_ceil(rows);
        Bands { rows, first: 0, low: n, skip: 0, count: n }
    }
    /// The bands of `ny` rows none of whose cells reads a ghost row (a cell reads the two rows
    /// on each side of it): from the first band starting at row 2 or later to the last ending
    /// at row `ny − 2` or earlier. `None` where there are none.
    pub const fn inner(ny: u32, rows: u32) -> Option<Bands> {
        let (lo, hi) = Bands::inner_range(ny, rows);
        if lo < hi { Some(Bands { rows, first: lo, low: hi - lo, skip: 0, count: hi - lo }) } else { None }
    }
    /// The bands of `ny` rows that [`inner`](Self::inner) leaves out: those at the south edge,
    /// then those at the north edge (every band where there are no inner ones).
    pub const fn edges(ny: u32, rows: u32) -> Bands {
        let (lo, hi) = Bands::inner_range(ny, rows);
        let n = ny.div_ceil(rows);
        if lo < hi {
            Bands { rows, first: 0, low: lo, skip: hi - lo, count: n - (hi - lo) }
        } else {
            Bands::all(ny, rows)
        }
    }
    /// Band of block row `y`.
    #[inline(always)]
    pub const fn band(&self, y: u32) -> u32 {
        self.first + y + if y >= self.low { self.skip } else { 0 }
    }
    /// Inner bands `lo..hi`: band b covers rows b·rows .. (b + 1)·rows.
    const fn inner_range(ny: u32, rows: u32) -> (u32, u32) {
        let lo = 2u32.div_ceil(rows);
        let hi = if ny >= 2 { (ny - 2) / rows } else { 0 };
        (lo, hi)
    }
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::Bands;
    use std::vec::Vec;

    /// The bands of one launch, in the order of its block rows.
    fn bands(b: Bands) -> Vec<u32> {
        (0..b.count).map(|y| b.band(y)).collect()
    }

    /// Inner and edge bands take every band once, the inner ones read no ghost row (a cell reads
    /// two rows each side), and every band that reads one is an edge band.
    #[test]
    fn inner_and_edge_bands_partition_the_grid() {
        for ny in 1..70u32 {
            for rows in 1..12u32 {
                let n = ny.div_ceil(rows);
                assert_eq!(bands(Bands::all(ny, rows)), (0..n).collect::<Vec<_>>());
                let edges = bands(Bands::edges(ny, rows));
                let Some(inner) = Bands::inner(ny, rows) else {
                    assert_eq!(edges, (0..n).collect::<Vec<_>>(), "ny {ny} rows {rows}");
                    continue;
                };
                let inner = bands(inner);
                let mut every = [inner.clone(), edges.clone()].concat();
                every.sort();
                assert_eq!(every, (0..n).collect::<Vec<_>>(), "ny {ny} rows {rows}");
                for b in 0..n {
                    let (j0, jend) = (b * rows, ((b + 1) * rows).min(ny));
                    let reads_ghost = j0 < 2 || jend + 2 > ny;
                    assert_eq!(reads_ghost, edges.contains(&b), "ny {ny} rows {rows} band {b}");
                }
            }
        }
    }
}
