//! A forcing as bytes and back, for a rank's part of a decomposed run that rank 0 sends it
//! (`ranks::handout`): every field, in the order [`Forcing::encode`] writes them.

use super::{DISCHARGE, LEVEL, RAIN};
use super::{Forcing, GreenAmpt, Horton, Inflow, LevelSide, Outlet, RainGrid, Series, Soil, Soils};
use crate::ranks::wire::{Reader, Writer};
use crate::{Error, Result};

impl Forcing {
    pub fn encode(&self, w: &mut Writer) {
        option(w, &self.rain, series);
        option(w, &self.rain_grid, |w, g| {
            w.str(&g.source).values(&g.times).values(&g.values).u64(g.cells as u64);
            w.u32s(&g.index).values(&g.sums).u64(g.counted as u64);
        });
        option(w, &self.soil, |w, s| {
            w.u64(s.soils.len() as u64);
            for soil in &s.soils {
                let (kind, [a, b, c]) = match *soil {
                    Soil::GreenAmpt(GreenAmpt { ks, suction, deficit }) => (0, [ks, suction, deficit]),
                    Soil::Horton(Horton { f0, fc, k }) => (1, [f0, fc, k]),
                };
                w.u64(kind).f64(a).f64(b).f64(c);
            }
            w.u32s(&s.cells);
        });
        w.u64(self.inflows.len() as u64);
        for f in &self.inflows {
            w.str(&f.name);
            series(w, &f.series);
            let (cells, shares): (Vec<u64>, Vec<f64>) = f.cells.iter().map(|&(c, s)| (c as u64, s)).unzip();
            w.u64(cells.len() as u64);
            cells.iter().for_each(|&c| {
                w.u64(c);
            });
            w.values(&shares);
        }
        w.u64(self.levels.len() as u64);
        for l in &self.levels {
            w.str(&l.name).u64(l.side as u64).u64(l.cells.start as u64).u64(l.cells.end as u64);
            series(w, &l.series);
        }
        w.u64(self.outlets.len() as u64);
        for o in &self.outlets {
            w.str(&o.name).u64(o.side as u64).u64(o.cells.start as u64).u64(o.cells.end as u64);
            w.u64(o.normal_depth as u64);
        }
    }

    pub fn decode(r: &mut Reader) -> Result<Forcing> {
        let rain = decode_option(r, read_series)?;
        let rain_grid = decode_option(r, |r| {
            Ok(RainGrid {
                source: r.str()?,
                times: r.values()?,
                values: r.values::<f32>()?.into(),
                cells: r.u64()? as usize,
                index: r.u32s()?.into(),
                sums: r.values()?,
                counted: r.u64()? as usize,
            })
        })?;
        let soil = decode_option(r, |r| {
            let soils = (0..r.u64()?)
                .map(|_| {
                    let kind = r.u64()?;
                    let (a, b, c) = (r.f64()?, r.f64()?, r.f64()?);
                    match kind {
                        0 => Ok(Soil::GreenAmpt(GreenAmpt { ks: a, suction: b, deficit: c })),
                        1 => Ok(Soil::Horton(Horton { f0: a, fc: b, k: c })),
                        _ => Err(Error::invalid("ranks: a soil of no known model")),
                    }
                })
                .collect::<Result<Vec<Soil>>>()?;
            Ok(Soils { soils, cells: r.u32s()?.into() })
        })?;
        let inflows = (0..r.u64()?)
            .map(|_| {
                let (name, series) = (r.str()?, read_series(r)?);
                let cells = (0..r.u64()?).map(|_| Ok(r.u64()? as usize)).collect::<Result<Vec<usize>>>()?;
                let shares = r.values::<f64>()?;
                if shares.len() != cells.len() {
                    return Err(Error::invalid("ranks: an inflow's cells and shares differ in number"));
                }
                Ok(Inflow { name, series, cells: cells.into_iter().zip(shares).collect() })
            })
            .collect::<Result<Vec<_>>>()?;
        let levels = (0..r.u64()?)
            .map(|_| {
                let (name, side) = (r.str()?, r.u64()? as usize);
                let cells = r.u64()? as usize..r.u64()? as usize;
                Ok(LevelSide { name, side, cells, series: read_series(r)? })
            })
            .collect::<Result<Vec<_>>>()?;
        let outlets = (0..r.u64()?)
            .map(|_| {
                let (name, side) = (r.str()?, r.u64()? as usize);
                let cells = r.u64()? as usize..r.u64()? as usize;
                Ok(Outlet { name, side, cells, normal_depth: r.u64()? != 0 })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Forcing { rain, rain_grid, soil, inflows, levels, outlets })
    }
}

fn series(w: &mut Writer, s: &Series) {
    w.str(&s.source).str(s.quantity).values(&s.times).values(&s.values);
}

fn read_series(r: &mut Reader) -> Result<Series> {
    let source = r.str()?;
    let name = r.str()?;
    let quantity = [LEVEL, DISCHARGE, RAIN]
        .into_iter()
        .find(|q| q.name == name)
        .ok_or_else(|| Error::invalid(format!("ranks: a series of '{name}', no quantity hydrokern knows")))?
        .name;
    Ok(Series { source, quantity, times: r.values()?, values: r.values()? })
}

fn option<V>(w: &mut Writer, v: &Option<V>, put: impl FnOnce(&mut Writer, &V)) {
    w.u64(v.is_some() as u64);
    if let Some(v) = v {
        put(w, v);
    }
}

fn decode_option<V>(r: &mut Reader, get: impl FnOnce(&mut Reader) -> Result<V>) -> Result<Option<V>> {
    match r.u64()? {
        0 => Ok(None),
        _ => get(r).map(Some),
    }
}
