//! The grid cut into slabs along y, one per rank: which rows each rank holds and who its
//! neighbours are.

use crate::{Error, Result};
use std::ops::Range;

/// `ny` rows over `ranks` ranks: the first `ny mod ranks` slabs hold one row more than the
/// others, so slabs differ by at most one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slabs {
    pub ny: usize,
    pub ranks: usize,
    /// Whether the y axis is periodic: the last slab's neighbour above is the first.
    pub periodic: bool,
}

/// One rank's slab: its interior rows of the whole grid and its neighbours below (south) and
/// above (north); none at a side of the grid that is not periodic, and none with one rank
/// (its own ghosts wrap a periodic axis).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slab {
    pub rank: usize,
    pub rows: Range<usize>,
    pub below: Option<usize>,
    pub above: Option<usize>,
}

impl Slabs {
    /// Refuse slabs thinner than `ghosts` rows: a rank's ghost rows must all come from its
    /// neighbours' interiors.
    pub fn new(ny: usize, ranks: usize, ghosts: usize, periodic: bool) -> Result<Slabs> {
        if ranks == 0 {
            return Err(Error::invalid("ranks: a run needs at least one rank"));
        }
        let s = Slabs { ny, ranks, periodic };
        let thinnest = ny / ranks;
        if ranks > 1 && thinnest < ghosts.max(1) {
            return Err(Error::invalid(format!(
                "{ranks} ranks would cut {ny} rows into slabs of {thinnest}, thinner than the solver's {ghosts} ghost row{}: run it on at most {} ranks",
                if ghosts == 1 { "" } else { "s" },
                (ny / ghosts.max(1)).max(1)
            )));
        }
        Ok(s)
    }

    /// The slab of `rank`.
    pub fn slab(&self, rank: usize) -> Slab {
        let (base, extra) = (self.ny / self.ranks, self.ny % self.ranks);
        let start = rank * base + rank.min(extra);
        let rows = start..start + base + usize::from(rank < extra);
        let last = self.ranks - 1;
        let wrap = self.periodic && self.ranks > 1;
        let below = if rank > 0 { Some(rank - 1) } else { wrap.then_some(last) };
        let above = if rank < last { Some(rank + 1) } else { wrap.then_some(0) };
        Slab { rank, rows, below, above }
    }

    /// Every slab, in rank order.
    pub fn all(&self) -> Vec<Slab> {
        (0..self.ranks).map(|r| self.slab(r)).collect()
    }

    /// "slabs of 64 rows along y" or "slabs of 64–65 rows along y", for descriptions; of
    /// "planes along z" where the grid's rows are its z-planes (`plane_rows`).
    pub fn describe(&self, plane_rows: bool) -> String {
        let (lo, hi) = (self.ny / self.ranks, self.ny.div_ceil(self.ranks));
        let rows = if lo == hi { format!("{lo}") } else { format!("{lo}–{hi}") };
        let what = if plane_rows { "planes along z" } else { "rows along y" };
        format!("{} ranks, slabs of {rows} {what}", self.ranks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabs_cover_the_rows_once_and_differ_by_at_most_one() {
        for ny in 1..40 {
            for ranks in 1..=ny.min(9) {
                let s = Slabs::new(ny, ranks, 1, false).unwrap();
                let all = s.all();
                assert_eq!(all[0].rows.start, 0);
                assert_eq!(all[ranks - 1].rows.end, ny);
                for w in all.windows(2) {
                    assert_eq!(w[0].rows.end, w[1].rows.start);
                    assert!(w[0].rows.len() >= w[1].rows.len() && w[0].rows.len() <= w[1].rows.len() + 1);
                }
            }
        }
    }

    #[test]
    fn neighbours_wrap_only_on_a_periodic_axis_with_several_ranks() {
        let open = Slabs::new(10, 3, 2, false).unwrap();
        assert_eq!((open.slab(0).below, open.slab(0).above), (None, Some(1)));
        assert_eq!((open.slab(2).below, open.slab(2).above), (Some(1), None));
        let periodic = Slabs::new(10, 3, 2, true).unwrap();
        assert_eq!((periodic.slab(0).below, periodic.slab(2).above), (Some(2), Some(0)));
        let two = Slabs::new(4, 2, 2, true).unwrap();
        assert_eq!((two.slab(0).below, two.slab(0).above), (Some(1), Some(1)));
        let one = Slabs::new(4, 1, 2, true).unwrap();
        assert_eq!((one.slab(0).below, one.slab(0).above), (None, None));
        assert_eq!(Slabs::new(10, 3, 2, false).unwrap().describe(false), "3 ranks, slabs of 3–4 rows along y");
        assert_eq!(Slabs::new(8, 4, 2, true).unwrap().describe(true), "4 ranks, slabs of 2 planes along z");
    }

    #[test]
    fn slabs_thinner_than_the_ghost_layers_are_refused() {
        assert!(Slabs::new(4, 2, 2, false).is_ok());
        let e = Slabs::new(5, 3, 2, false).unwrap_err().to_string();
        assert!(e.contains("slabs of 1") && e.contains("2 ghost rows") && e.contains("at most 2 ranks"), "{e}");
        assert!(Slabs::new(5, 0, 1, false).is_err());
        // One rank holds any grid, whatever its ghost layers.
        assert!(Slabs::new(1, 1, 2, false).is_ok());
    }
}
