//! The products of a run decomposed over ranks (`crate::ranks`): every slab keeps the maps of
//! its rows and samples the sites in its rows (the gauges' cells and the cells beside the
//! lines' faces) as gauges of its own; rank 0 joins the maps row by row and puts each sample of
//! every site together again, recording the gauges and the lines' discharges from it as a
//! one-rank run records them. The records and files are therefore the one-rank run's bit for
//! bit. A checkpoint holds the whole grid's products as a one-rank run's does; restarted on
//! ranks, rank 0 keeps the records up to it and the slabs sample on from there.

use super::records::Records;
use super::{LineSeries, MAPS, Maps, Products, Series, Sites, Spec, saved};
use crate::model::Checkpoint;
use crate::{Error, Result};
use std::ops::Range;

/// What one slab keeps of `spec` sampled at `sites` on a grid `nx` cells wide: the maps as the
/// spec says, and one gauge for each site in its interior `rows` (in the order of the sites),
/// no lines; the sites as cells of the slab.
pub fn slab_spec(spec: &Spec, sites: &Sites, nx: usize, rows: Range<usize>) -> (Spec, Sites) {
    let owned: Vec<u32> = sites.cells.iter().copied().filter(|&c| rows.contains(&(c as usize / nx))).collect();
    let gauge = |k: usize| super::Gauge { name: format!("site {k}"), x: 0.0, y: 0.0 };
    let spec = Spec { gauges: (0..owned.len()).map(gauge).collect(), lines: Vec::new(), ..spec.clone() };
    let cells = owned.iter().map(|&c| c - (rows.start * nx) as u32).collect();
    (spec, Sites { cells, lines: Vec::new() })
}

/// Rank 0's records of a decomposed run: the whole grid's gauges and lines up to the
/// checkpoint it restarted from (none on a fresh start), and which rank samples each site.
pub struct Joined {
    history: Records,
    every: u64,
    /// For every site: the rank whose slab holds it and its place among that slab's sites.
    owners: Vec<(usize, usize)>,
}

impl Joined {
    /// The records of `spec` sampled at `sites` (`Sites::of`) on a grid `nx` cells wide, cut
    /// into slabs of interior `rows` (in rank order).
    pub fn new(spec: &Spec, sites: &Sites, nx: usize, rows: &[Range<usize>]) -> Joined {
        let mut taken = vec![0usize; rows.len()];
        let owners = sites
            .cells
            .iter()
            .map(|&c| {
                let rank = rows.iter().position(|r| r.contains(&(c as usize / nx))).unwrap_or(0);
                taken[rank] += 1;
                (rank, taken[rank] - 1)
            })
            .collect();
        Joined { history: Records::new(spec, sites), every: spec.every, owners }
    }

    /// The gauges' and lines' records of the whole grid: those up to the restart, then one
    /// sample of every site for each sample the slabs took since (each rank's sites as its
    /// gauges' series, [`slab_spec`], in rank order).
    pub fn records(&self, parts: &[Vec<Series>]) -> Result<(Vec<Series>, Vec<LineSeries>)> {
        let mut r = self.history.clone();
        let slot = |&(rank, k): &(usize, usize)| {
            parts.get(rank).and_then(|p| p.get(k)).ok_or_else(|| {
                Error::invalid(format!("ranks: rank {rank} sent fewer gauge samples than its slab has sites"))
            })
        };
        let series = self.owners.iter().map(slot).collect::<Result<Vec<&Series>>>()?;
        let samples = series.first().map_or(0, |s| s.times.len());
        if series.iter().any(|s| s.times.len() != samples || s.times != series[0].times) {
            return Err(Error::invalid("ranks: the slabs sampled their sites at different times"));
        }
        for k in 0..samples {
            let sample: Vec<_> = series.iter().map(|s| s.values[k]).collect();
            r.push(series[0].times[k], &sample);
        }
        Ok((r.series, r.lines))
    }

    /// Keep the records up to checkpoint `c`, the slabs sampling on from there.
    pub fn restore<T: Clone>(&mut self, c: &Checkpoint<T>) -> Result<()> {
        saved::restore_records(c, &mut self.history, self.every).map(|_| ())
    }

    /// Checkpoint `c` with the whole grid's products `p` (its maps all seven of [`MAPS`], or
    /// none), as a one-rank run's checkpoint holds them.
    pub fn save<T: Clone>(c: Checkpoint<T>, p: Products<T>) -> Result<Checkpoint<T>> {
        let maps = match p.maps.len() {
            0 => None,
            n if n == MAPS.len() && p.maps.iter().zip(MAPS).all(|(m, name)| m.name == name) => {
                let mut maps: Maps<T> = Default::default();
                for (m, out) in maps.iter_mut().zip(p.maps) {
                    *m = out.data;
                }
                Some(maps)
            }
            _ => return Err(Error::invalid("ranks: the joined maps are not the seven a checkpoint holds")),
        };
        Ok(saved::save(c, &p.series, &p.lines, maps))
    }
}
