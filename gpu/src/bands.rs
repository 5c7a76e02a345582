//! Bands of rows: how a launch of a streamed kernel splits a grid's rows, so that a slab of a
//! decomposed run computes the rows that read no ghost row while its ghost rows travel.

/// The bands of `rows` rows one launch of a streamed kernel computes: its `count` band slots,
/// slot `y` taking band `first + y`, and `first + y + skip` from slot `low` on. One launch over
/// a grid takes every band ([`Bands::all`]); a slab whose ghost rows are still travelling takes
/// its inner bands ([`Bands::inner`]) apart from the bands that read a ghost row
/// ([`Bands::edges`]), which run once the rows arrive. Every band is computed by the same code
/// whichever launch holds it, so the results are the same bit for bit.
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
    /// The bands of `ny` rows none of whose cells reads a ghost row, a cell reading the `reach`
    /// rows on each side of it: from the first band starting at row `reach` or later to the last
    /// ending at row `ny − reach` or earlier. `None` where there are none.
    pub const fn inner(ny: u32, rows: u32, reach: u32) -> Option<Bands> {
        let (lo, hi) = Bands::inner_range(ny, rows, reach);
        if lo < hi { Some(Bands { rows, first: lo, low: hi - lo, skip: 0, count: hi - lo }) } else { None }
    }
    /// The bands of `ny` rows that [`inner`](Self::inner) leaves out: those at the south edge,
    /// then those at the north edge (every band where there are no inner ones).
    pub const fn edges(ny: u32, rows: u32, reach: u32) -> Bands {
        let (lo, hi) = Bands::inner_range(ny, rows, reach);
        let n = ny.div_ceil(rows);
        if lo < hi {
            Bands { rows, first: 0, low: lo, skip: hi - lo, count: n - (hi - lo) }
        } else {
            Bands::all(ny, rows)
        }
    }
    /// Band of slot `y`.
    #[inline(always)]
    pub const fn band(&self, y: u32) -> u32 {
        self.first + y + if y >= self.low { self.skip } else { 0 }
    }
    /// Inner bands `lo..hi`: band b covers rows b·rows .. (b + 1)·rows.
    const fn inner_range(ny: u32, rows: u32, reach: u32) -> (u32, u32) {
        let lo = reach.div_ceil(rows);
        let hi = if ny >= reach { (ny - reach) / rows } else { 0 };
        (lo, hi)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::Bands;
    use std::format;
    use std::vec::Vec;

    /// The bands of one launch, in the order of its slots.
    fn bands(b: Bands) -> Vec<u32> {
        (0..b.count).map(|y| b.band(y)).collect()
    }

    /// Inner and edge bands take every band once, the inner ones read no ghost row (a cell reads
    /// `reach` rows each side), and every band that reads one is an edge band.
    #[test]
    fn inner_and_edge_bands_partition_the_grid() {
        for reach in 1..4u32 {
            for ny in 1..70u32 {
                for rows in 1..12u32 {
                    let n = ny.div_ceil(rows);
                    let what = format!("reach {reach} ny {ny} rows {rows}");
                    assert_eq!(bands(Bands::all(ny, rows)), (0..n).collect::<Vec<_>>());
                    let edges = bands(Bands::edges(ny, rows, reach));
                    let Some(inner) = Bands::inner(ny, rows, reach) else {
                        assert_eq!(edges, (0..n).collect::<Vec<_>>(), "{what}");
                        continue;
                    };
                    let inner = bands(inner);
                    let mut every = [inner.clone(), edges.clone()].concat();
                    every.sort();
                    assert_eq!(every, (0..n).collect::<Vec<_>>(), "{what}");
                    for b in 0..n {
                        let (j0, jend) = (b * rows, ((b + 1) * rows).min(ny));
                        let reads_ghost = j0 < reach || jend + reach > ny;
                        assert_eq!(reads_ghost, edges.contains(&b), "{what} band {b}");
                    }
                }
            }
        }
    }
}
