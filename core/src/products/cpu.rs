//! The products on the CPU: the kernel's point functions over the model's padded arrays.

use super::records::Records;
use super::{GAUGE_VALUES, Maps, Products, Sites, Spec, fresh_maps, maps, saved};
use crate::model::Checkpoint;
use crate::{Real, Result};
use kernels::products::{Fields, Sampling, arrival, sample_slot, update_maxima, update_spell};

/// Maps, gauge and line records of a CPU model, updated after every step.
pub struct CpuProducts<T> {
    f: Fields<T>,
    s: Sampling,
    cells: Vec<u32>,
    /// Boxed: a model keeps this beside its state, and the arrays' headers need no room there.
    maps: Option<Box<Maps<T>>>,
    records: Records,
}

impl<T: Real> CpuProducts<T> {
    /// `sites` from [`Sites::of`] (or the gauges' cells from [`Spec::cells`], for a case
    /// without lines); `f.maxima` is set from the spec.
    pub fn new(spec: &Spec, mut f: Fields<T>, sites: impl Into<Sites>) -> Self {
        let sites = sites.into();
        f.maxima = u32::from(spec.maxima);
        let n = f.nx as usize * f.ny as usize;
        let maps = spec.maxima.then(|| Box::new(fresh_maps(n)));
        let s = Sampling { gauges: sites.cells.len() as u32, every: spec.every as u32, capacity: 1 };
        CpuProducts { f, s, records: Records::new(spec, &sites), cells: sites.cells, maps }
    }

    /// Take the state after a step (or the initial one, with `steps` 0): `level`, `bed`, `hu`,
    /// `hv` laid out as `f` says (one slice may serve several), at time `t` after `steps` steps.
    pub fn update(&mut self, level: &[T], bed: &[T], hu: &[T], hv: &[T], t: f64, steps: u64) {
        let f = self.f;
        let arrays = [level, bed, hu, hv];
        let read = |a: usize, k: usize| arrays[a][k];
        if let Some([mh, ms, mq, mt, ar, du, since]) = self.maps.as_deref_mut() {
            for j in 0..f.ny {
                for i in 0..f.nx {
                    let c = (j * f.nx + i) as usize;
                    let [h, u, v, _] = f.cell(i, j, read);
                    let mut m = [mh[c], ms[c], mq[c]];
                    if update_maxima(&f, h, u, v, &mut m) {
                        ar[c] = arrival(t, ar[c]);
                    }
                    if m[0] != mh[c] {
                        mt[c] = T::from_f64(t);
                    }
                    [mh[c], ms[c], mq[c]] = m;
                    let mut spell = [du[c], since[c]];
                    update_spell(&f, h, t, &mut spell);
                    [du[c], since[c]] = spell;
                }
            }
        }
        if sample_slot(&self.s, steps).is_some() && !self.records.is_empty() {
            let sample: Vec<[f64; GAUGE_VALUES]> =
                self.cells.iter().map(|&c| f.cell(c % f.nx, c / f.nx, read).map(|x| x.to_f64())).collect();
            self.records.push(t, &sample);
        }
    }

    /// Add the maps and the gauge and line records so far to the model's checkpoint `c`.
    pub fn checkpoint(&self, c: Checkpoint<T>) -> Checkpoint<T> {
        saved::save(c, &self.records.series, &self.records.lines, self.maps.as_deref().cloned())
    }

    /// Go on from the maps and gauge and line records of checkpoint `c` (taken of the same case).
    pub fn restore(&mut self, c: &Checkpoint<T>) -> Result<()> {
        saved::restore_records(c, &mut self.records, self.s.every as u64)?;
        if let Some(maps) = &mut self.maps {
            **maps = saved::restore_maps(c, maps[0].len())?;
        }
        Ok(())
    }

    /// Go on from the maps of checkpoint `c` with no records before it: a slab's products
    /// after a restart of a decomposed run, whose rank 0 keeps the records up to it
    /// ([`super::Joined`]).
    pub fn resume_after(&mut self, c: &Checkpoint<T>) -> Result<()> {
        self.records.clear();
        if let Some(maps) = &mut self.maps {
            **maps = saved::restore_maps(c, maps[0].len())?;
        }
        Ok(())
    }

    /// The products so far, the maps only with `with_maps`.
    pub fn products(&self, with_maps: bool) -> Products<T> {
        let (nx, ny) = (self.f.nx as usize, self.f.ny as usize);
        let kept = self.maps.as_ref().filter(|_| with_maps);
        Products {
            series: self.records.series.clone(),
            lines: self.records.lines.clone(),
            maps: kept.map(|m| maps(nx, ny, (**m).clone())).unwrap_or_default(),
        }
    }
}
