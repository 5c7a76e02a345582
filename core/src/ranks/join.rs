//! How the slabs' checkpoints join into the whole grid's and a whole grid's splits into the
//! slabs': arrays of the padded layout row by row, arrays of the interior alone (the maximum
//! maps) by their rows, the boundary faces' record face by face, everything else the same on
//! every rank. And a checkpoint as the bytes that travel between ranks and fill a part file.

use super::perimeter;
use super::slabs::Slabs;
use super::wire::{Reader, Writer};
use crate::grid::Layout2;
use crate::model::{BOUNDARY_FACES, Checkpoint, Clock};
use crate::products::MAPS;
use crate::{Error, Real, Result};

/// The padded layouts of the slabs of `slabs`, in rank order, of a grid of padded layout `grid`.
pub(super) fn slab_layouts(grid: Layout2, slabs: &Slabs) -> Vec<Layout2> {
    slabs.all().iter().map(|s| Layout2::new(grid.nx, s.rows.len() as u32, grid.halo)).collect()
}

/// The values of the slabs' boundary faces (`what` they are, for errors) joined into the whole
/// grid's: every rank has them, or none does.
pub(super) fn join_faces(
    what: &str,
    parts: Vec<Option<Vec<f64>>>,
    nx: usize,
    slabs: &Slabs,
) -> Result<Option<Vec<f64>>> {
    if parts.iter().all(Option::is_none) {
        return Ok(None);
    }
    let parts: Vec<Vec<f64>> = parts
        .into_iter()
        .map(|p| p.ok_or_else(|| Error::invalid(format!("ranks: some ranks have {what} and some none"))))
        .collect::<Result<_>>()?;
    perimeter::join(what, &parts, nx, slabs).map(Some)
}

pub(super) fn encode_checkpoint<T: Real>(c: &Checkpoint<T>) -> Vec<u8> {
    let mut w = Writer::default();
    w.f64(c.clock.t).u64(c.clock.steps).f64(c.clock.dt);
    w.u64(c.fields.len() as u64);
    c.fields.iter().for_each(|(n, v)| {
        w.str(n).values(v);
    });
    w.u64(c.flags.len() as u64);
    c.flags.iter().for_each(|(n, v)| {
        w.str(n).bytes(v);
    });
    w.u64(c.values.len() as u64);
    c.values.iter().for_each(|(n, v)| {
        w.str(n).f64(*v);
    });
    w.u64(c.records.len() as u64);
    c.records.iter().for_each(|(n, v)| {
        w.str(n).values(v);
    });
    w.0
}

pub(super) fn decode_checkpoint<T: Real>(bytes: &[u8]) -> Result<Checkpoint<T>> {
    let mut r = Reader::new(bytes);
    let clock = Clock { t: r.f64()?, steps: r.u64()?, dt: r.f64()?, halt: None };
    let mut c = Checkpoint::at(clock);
    for _ in 0..r.u64()? {
        c.fields.push((r.str()?, r.values()?));
    }
    for _ in 0..r.u64()? {
        c.flags.push((r.str()?, r.bytes()?.to_vec()));
    }
    for _ in 0..r.u64()? {
        c.values.push((r.str()?, r.f64()?));
    }
    for _ in 0..r.u64()? {
        c.records.push((r.str()?, r.values()?));
    }
    Ok(c)
}

/// Arrays of the slabs' padded layouts joined into the whole grid's, row by row: rank 0's
/// ghost rows below, every slab's interior, the last slab's ghost rows above; arrays of the
/// slabs' interiors alone, the maximum maps ([`MAPS`]), one after another. Arrays of other lengths must
/// be the same on every rank.
fn join_arrays<E: Clone + PartialEq>(what: &str, name: &str, parts: Vec<Vec<E>>, slabs: &[Layout2]) -> Result<Vec<E>> {
    // A maximum map, of the interior alone: the slabs' rows one after another.
    if MAPS.contains(&name) && parts.iter().zip(slabs).all(|(p, l)| p.len() == (l.nx * l.ny) as usize) {
        return Ok(parts.concat());
    }
    if parts.iter().zip(slabs).all(|(p, l)| p.len() == l.len()) {
        let (p, g) = (slabs[0].pitch as usize, slabs[0].halo as usize);
        let last = parts.len() - 1;
        let mut out = Vec::new();
        for (k, (part, l)) in parts.iter().zip(slabs).enumerate() {
            let from = if k == 0 { 0 } else { g };
            let to = if k == last { l.ny as usize + 2 * g } else { l.ny as usize + g };
            out.extend_from_slice(&part[from * p..to * p]);
        }
        return Ok(out);
    }
    match parts.iter().position(|p| *p != parts[0]) {
        None => Ok(parts.into_iter().next().unwrap_or_default()),
        Some(rank) => Err(Error::invalid(format!(
            "ranks: {what} '{name}' of the checkpoint differs between ranks 0 and {rank} and is not a field of the grid: this solver's checkpoints cannot be joined across ranks"
        ))),
    }
}

/// The inverse of [`join_arrays`] for `rank`: its slab's rows of an array of the whole grid's
/// padded layout, anything else whole.
fn split_array<E: Clone>(whole: &[E], grid: Layout2, slab_rows: std::ops::Range<usize>) -> Vec<E> {
    let (p, g, nx) = (grid.pitch as usize, grid.halo as usize, grid.nx as usize);
    if whole.len() == grid.len() {
        return whole[slab_rows.start * p..(slab_rows.end + 2 * g) * p].to_vec();
    }
    // An array of the interior alone (the maximum maps).
    if whole.len() == nx * grid.ny as usize {
        return whole[slab_rows.start * nx..slab_rows.end * nx].to_vec();
    }
    whole.to_vec()
}

/// The `what` arrays (field or flags) of every rank's checkpoint, the k-th array of each joined
/// into the whole grid's (the arrays moved, not copied: rank 0 holds the whole grid's as it is).
fn join_named<E: Clone + PartialEq>(
    what: &str,
    lists: Vec<Vec<(String, Vec<E>)>>,
    slabs: &[Layout2],
) -> Result<Vec<(String, Vec<E>)>> {
    let count = lists[0].len();
    let differ = || Error::invalid(format!("ranks: the ranks' checkpoints hold different {what} arrays"));
    if lists.iter().any(|l| l.len() != count) {
        return Err(differ());
    }
    let mut ranks: Vec<_> = lists.into_iter().map(|l| l.into_iter()).collect();
    (0..count)
        .map(|_| {
            let parts: Vec<(String, Vec<E>)> = ranks.iter_mut().filter_map(|r| r.next()).collect();
            let name = parts[0].0.clone();
            if parts.iter().any(|(n, _)| *n != name) {
                return Err(differ());
            }
            let arrays = parts.into_iter().map(|(_, v)| v).collect();
            Ok((name.clone(), join_arrays(what, &name, arrays, slabs)?))
        })
        .collect()
}

/// The whole grid's checkpoint (padded layout `grid`, cut into `slabs`) from every slab's
/// `parts`: fields and flags of the slabs' padded layouts row by row, the boundary faces' record
/// face by face (`perimeter`), the rest the same on every rank.
pub(super) fn join_checkpoint<T: Real>(
    mut parts: Vec<Checkpoint<T>>,
    grid: Layout2,
    slabs: &Slabs,
) -> Result<Checkpoint<T>> {
    let layouts = slab_layouts(grid, slabs);
    // The faces' record goes back where the slabs keep it, as a one-rank checkpoint has it.
    let at = parts[0].records.iter().position(|(n, _)| n == BOUNDARY_FACES);
    let take_faces = |p: &mut Checkpoint<T>| {
        let k = p.records.iter().position(|(n, _)| n == BOUNDARY_FACES);
        k.map(|k| p.records.remove(k).1)
    };
    let faces: Vec<Option<Vec<f64>>> = parts.iter_mut().map(take_faces).collect();
    let faces = join_faces(BOUNDARY_FACES, faces, grid.nx as usize, slabs)?;
    let fields = parts.iter_mut().map(|p| std::mem::take(&mut p.fields)).collect();
    let flags = parts.iter_mut().map(|p| std::mem::take(&mut p.flags)).collect();
    let first = &parts[0];
    let mut c = Checkpoint::at(first.clock);
    c.fields = join_named("field", fields, &layouts)?;
    c.flags = join_named("flags", flags, &layouts)?;
    for (k, (name, v)) in first.values.iter().enumerate() {
        if parts.iter().any(|p| p.values.get(k).is_none_or(|(_, w)| w.to_bits() != v.to_bits())) {
            return Err(Error::invalid(format!(
                "ranks: value '{name}' of the checkpoint differs between ranks: this solver's checkpoints cannot be joined across ranks"
            )));
        }
        c.values.push((name.clone(), *v));
    }
    for (k, (name, v)) in first.records.iter().enumerate() {
        if parts.iter().any(|p| p.records.get(k).is_none_or(|(_, w)| w != v)) {
            return Err(Error::invalid(format!("ranks: record '{name}' of the checkpoint differs between ranks")));
        }
        c.records.push((name.clone(), v.clone()));
    }
    if let Some(f) = faces {
        let at = at.unwrap_or(c.records.len()).min(c.records.len());
        c.records.insert(at, (BOUNDARY_FACES.to_string(), f));
    }
    Ok(c)
}

/// Rank `rank`'s part of the whole grid's checkpoint `c` (padded layout `layout`, cut into
/// `slabs`): its rows of the fields and flags of the grid, its faces of the boundary faces'
/// record, everything else whole.
pub(super) fn split_checkpoint<T: Clone>(
    c: &Checkpoint<T>,
    layout: Layout2,
    slabs: &Slabs,
    rank: usize,
) -> Result<Checkpoint<T>> {
    let rows = slabs.slab(rank).rows;
    let mut part = Checkpoint::at(c.clock);
    part.fields = c.fields.iter().map(|(n, v)| (n.clone(), split_array(v, layout, rows.clone()))).collect();
    part.flags = c.flags.iter().map(|(n, v)| (n.clone(), split_array(v, layout, rows.clone()))).collect();
    part.values = c.values.clone();
    part.records = c.records.clone();
    for (name, v) in part.records.iter_mut().filter(|(n, _)| n == BOUNDARY_FACES) {
        *v = perimeter::slab_of(name, v, layout.nx as usize, slabs.ny, &rows)?;
    }
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Clock;

    /// Splitting a whole grid's padded field into slabs and joining them gives it back, for
    /// uneven slabs and any ghost width; arrays of other lengths pass whole and must agree.
    #[test]
    fn slabs_of_a_checkpoint_join_into_the_whole_grid() {
        for (nx, ny, g, ranks) in [(3u32, 7usize, 1u32, 3usize), (2, 9, 2, 4), (5, 4, 2, 2), (1, 1, 1, 1)] {
            let grid = Layout2::new(nx, ny as u32, g);
            let whole: Vec<f64> = (0..grid.len()).map(|i| i as f64 * 0.5).collect();
            let slabs = Slabs::new(ny, ranks, g as usize, false).unwrap();
            let layouts = slab_layouts(grid, &slabs);
            let parts: Vec<Vec<f64>> = slabs.all().iter().map(|s| split_array(&whole, grid, s.rows.clone())).collect();
            assert!(parts.iter().zip(&layouts).all(|(p, l)| p.len() == l.len()));
            assert_eq!(join_arrays("field", "h", parts, &layouts).unwrap(), whole);
            let same = vec![vec![1.0, 2.0]; ranks];
            assert_eq!(join_arrays("field", "x", same, &layouts).unwrap(), vec![1.0, 2.0]);
        }
        let layouts = [Layout2::new(2, 2, 1); 2];
        let e = join_arrays("field", "x", vec![vec![1.0], vec![2.0]], &layouts).unwrap_err().to_string();
        assert!(e.contains("'x'") && e.contains("ranks 0 and 1"), "{e}");
    }

    /// The slabs' boundary faces join face by face into the whole grid's record, in the place
    /// the slabs keep it among the other records, which pass as they are.
    #[test]
    fn boundary_faces_join_in_their_place() {
        let (nx, ny) = (2usize, 5usize);
        let slabs = Slabs::new(ny, 2, 1, false).unwrap();
        let whole: Vec<f64> = (0..2 * perimeter::faces(nx, ny)).map(|i| i as f64 + 0.5).collect();
        let clock = Clock { t: 1.0, steps: 3, dt: 0.5, halt: None };
        let parts: Vec<Checkpoint<f64>> = slabs
            .all()
            .iter()
            .map(|s| {
                let faces = perimeter::slab_of(BOUNDARY_FACES, &whole, nx, ny, &s.rows).unwrap();
                Checkpoint::at(clock).record("gauge", vec![1.0]).record(BOUNDARY_FACES, faces).record("line", vec![2.0])
            })
            .collect();
        let c = join_checkpoint(parts, Layout2::new(nx as u32, ny as u32, 1), &slabs).unwrap();
        let names: Vec<&str> = c.records.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["gauge", BOUNDARY_FACES, "line"]);
        assert_eq!(c.records[1].1, whole);
    }
}
