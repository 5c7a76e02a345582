//! Values kept per face of a grid's perimeter (a solver's water account over its boundary) on
//! ranks: which faces of the whole grid a slab's perimeter holds, the whole grid's values
//! joined from the slabs' and cut into them. A perimeter's faces lie in the order west (`ny`
//! faces, south to north), east (`ny`), south (`nx`, west to east), north (`nx`); a record of
//! them holds one or more such arrays back to back.
//!
//! A slab's west and east faces are the whole grid's of its rows; its south faces are the
//! grid's only on the first slab, its north faces only on the last: elsewhere they lie at a cut,
//! inside the grid, where nothing is measured.

use super::slabs::Slabs;
use crate::{Error, Result};
use std::ops::Range;

/// Faces of the perimeter of a grid of `nx` × `ny` cells.
pub fn faces(nx: usize, ny: usize) -> usize {
    2 * (nx + ny)
}

/// Face `f` of the perimeter of the slab of interior rows `rows` of a grid of `nx` × `ny` cells,
/// as a face of the whole grid's perimeter; None where it lies at a cut.
pub fn whole_face(nx: usize, ny: usize, rows: &Range<usize>, f: usize) -> Option<usize> {
    let n = rows.len();
    if f < n {
        Some(rows.start + f)
    } else if f < 2 * n {
        Some(ny + rows.start + f - n)
    } else if f < 2 * n + nx {
        (rows.start == 0).then(|| 2 * ny + f - 2 * n)
    } else {
        (rows.end == ny).then(|| 2 * ny + f - 2 * n)
    }
}

/// How many arrays of `per` faces `len` values are; an error naming `what` where they are not
/// whole arrays.
fn arrays(what: &str, len: usize, per: usize) -> Result<usize> {
    if per == 0 || !len.is_multiple_of(per) {
        return Err(Error::invalid(format!(
            "ranks: {what} of {len} values is no whole number of perimeters of {per} faces"
        )));
    }
    Ok(len / per)
}

/// The whole grid's values from every slab's `parts` (in rank order, each of its slab's
/// perimeter), each face taken from the slab that holds it.
pub fn join(what: &str, parts: &[Vec<f64>], nx: usize, slabs: &Slabs) -> Result<Vec<f64>> {
    let whole = faces(nx, slabs.ny);
    let first = slabs.slab(0).rows.len();
    let count = arrays(what, parts.first().map_or(0, Vec::len), faces(nx, first))?;
    if parts.len() != slabs.ranks {
        return Err(Error::invalid(format!("ranks: {what} from {} ranks of {}", parts.len(), slabs.ranks)));
    }
    let mut out = vec![0.0; count * whole];
    for (slab, part) in slabs.all().iter().zip(parts) {
        let own = faces(nx, slab.rows.len());
        if arrays(what, part.len(), own)? != count {
            return Err(Error::invalid(format!("ranks: the ranks' {what} hold different numbers of arrays")));
        }
        for a in 0..count {
            for f in 0..own {
                if let Some(w) = whole_face(nx, slabs.ny, &slab.rows, f) {
                    out[a * whole + w] = part[a * own + f];
                }
            }
        }
    }
    Ok(out)
}

/// The values of the slab of `rows` from the whole grid's `whole` (a grid of `nx` × `ny`): 0 at
/// the faces at its cuts.
pub fn slab_of(what: &str, whole: &[f64], nx: usize, ny: usize, rows: &Range<usize>) -> Result<Vec<f64>> {
    let per = faces(nx, ny);
    let count = arrays(what, whole.len(), per)?;
    let own = faces(nx, rows.len());
    let mut out = vec![0.0; count * own];
    for a in 0..count {
        for f in 0..own {
            if let Some(w) = whole_face(nx, ny, rows, f) {
                out[a * own + f] = whole[a * per + w];
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every face of the whole grid belongs to exactly one slab, whatever the cut; cutting the
    /// whole grid's values into slabs and joining them gives them back, bit for bit.
    #[test]
    fn slabs_hold_every_face_once_and_join_back() {
        for (nx, ny, ranks, periodic) in [(3, 7, 3, false), (1, 4, 4, true), (5, 2, 1, false), (4, 9, 2, true)] {
            let slabs = Slabs::new(ny, ranks, 1, periodic).unwrap();
            let mut held = vec![0; faces(nx, ny)];
            for s in slabs.all() {
                for f in 0..faces(nx, s.rows.len()) {
                    if let Some(w) = whole_face(nx, ny, &s.rows, f) {
                        held[w] += 1;
                    }
                }
            }
            assert!(held.iter().all(|&h| h == 1), "{nx}×{ny} over {ranks}: {held:?}");
            let whole: Vec<f64> = (0..3 * faces(nx, ny)).map(|i| i as f64 + 0.25).collect();
            let parts: Vec<Vec<f64>> =
                slabs.all().iter().map(|s| slab_of("t", &whole, nx, ny, &s.rows).unwrap()).collect();
            assert_eq!(join("t", &parts, nx, &slabs).unwrap(), whole);
        }
    }

    /// A slab's faces at its cuts are none of the grid's: its south on every slab but the
    /// first, its north on every slab but the last.
    #[test]
    fn faces_at_a_cut_are_not_the_grids() {
        let (nx, ny) = (2, 6);
        let middle = 2..4;
        let mapped: Vec<Option<usize>> = (0..faces(nx, 2)).map(|f| whole_face(nx, ny, &middle, f)).collect();
        assert_eq!(mapped, [Some(2), Some(3), Some(8), Some(9), None, None, None, None]);
        let last = 4..6;
        let mapped: Vec<Option<usize>> = (0..faces(nx, 2)).map(|f| whole_face(nx, ny, &last, f)).collect();
        assert_eq!(mapped, [Some(4), Some(5), Some(10), Some(11), None, None, Some(14), Some(15)]);
    }

    #[test]
    fn values_of_other_lengths_are_refused() {
        let slabs = Slabs::new(4, 2, 1, false).unwrap();
        let e = join("boundary", &[vec![0.0; 7], vec![0.0; 8]], 2, &slabs).unwrap_err().to_string();
        assert!(e.contains("boundary") && e.contains("7 values"), "{e}");
        let e = join("b", &[vec![0.0; 8], vec![0.0; 16]], 2, &slabs).unwrap_err().to_string();
        assert!(e.contains("different numbers"), "{e}");
        assert!(slab_of("b", &[0.0; 5], 2, 4, &(0..2)).is_err());
    }
}
