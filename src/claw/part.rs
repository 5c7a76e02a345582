//! One rank's part of a decomposed wave-propagation run (docs/ranks.md, "How it works": what
//! each rank reads): every field's values on the rows (2D) or planes (3D) of the whole grid
//! that the slab's padded fields take values from — its own, two beyond each cut, and at a
//! periodic side the far side's — and the whole grid's first Δt in the run's precision. Rank 0
//! makes each part from the case's fields and sends it (`ranks::handout`); the other ranks
//! read none of the case's fields.

use super::start::Shape;
use crate::ranks::wire::{Reader, Writer};
use crate::{Error, Real, Result};
use std::ops::Range;

/// What a slab's run starts from (`Claw2::slab_of_part`, `Claw3::slab_of_part`).
#[derive(Clone, Debug, PartialEq)]
pub struct SlabPart {
    /// The whole grid's first Δt, as the run's precision works it out.
    pub first_dt: f64,
    /// Cells of one row (2D: nx) or plane (3D: nx·ny).
    row: usize,
    /// The whole grid's rows (planes) held, ascending.
    rows: Vec<usize>,
    /// Each field's values on `rows`, x fastest: the state fields, then the auxiliary ones.
    fields: Vec<Vec<f64>>,
    /// Where each of the whole grid's rows lies in `rows` (`usize::MAX`: not held).
    at: Vec<usize>,
}

impl SlabPart {
    /// The part of the slab of `slab` (rows or planes across the cut of `shape`) of a grid whose
    /// `fields` fields have `value(field, cell)` (cells numbered x fastest), the whole grid's
    /// first Δt `first_dt`.
    pub fn of(
        shape: &Shape,
        slab: Range<usize>,
        first_dt: f64,
        fields: usize,
        value: impl Fn(usize, usize) -> f64,
    ) -> Result<SlabPart> {
        let (row, across) = (shape.row(), shape.across());
        let rows = shape.cut_sources(slab);
        let fields = (0..fields)
            .map(|f| rows.iter().flat_map(|&r| (r * row..(r + 1) * row).map(|c| value(f, c))).collect())
            .collect();
        SlabPart::held(first_dt, row, across, rows, fields)
    }

    fn held(first_dt: f64, row: usize, across: usize, rows: Vec<usize>, fields: Vec<Vec<f64>>) -> Result<SlabPart> {
        let mut at = crate::alloc::try_filled("a slab's index of the rows it holds", across, usize::MAX)?;
        for (p, &r) in rows.iter().enumerate() {
            at[r] = p;
        }
        Ok(SlabPart { first_dt, row, rows, fields, at })
    }

    /// Whether the part holds what the slab of `slab` of `shape` reads, with `fields` fields:
    /// an error says what differs (a part made for another grid or slab).
    pub(super) fn check(&self, shape: &Shape, slab: Range<usize>, fields: usize) -> Result<()> {
        let rows = shape.cut_sources(slab.clone());
        if self.row != shape.row()
            || self.at.len() != shape.across()
            || self.rows != rows
            || self.fields.len() != fields
        {
            return Err(Error::invalid(format!(
                "claw: the part handed to the slab of rows {slab:?} holds {} fields on {} rows of {} cells, not {fields} on rows {rows:?} of {}",
                self.fields.len(),
                self.rows.len(),
                self.row,
                shape.row()
            )));
        }
        Ok(())
    }

    /// Field `f`'s value at the whole grid's cell `c`, which lies on a row the part holds.
    fn value(&self, f: usize, c: usize) -> f64 {
        let (r, i) = (c / self.row, c % self.row);
        self.fields[f][self.at[r] * self.row + i]
    }

    /// Cell `c`'s state (the first M fields) in precision T.
    pub(super) fn state<T: Real, const M: usize>(&self, c: usize) -> [T; M] {
        std::array::from_fn(|m| T::from_f64(self.value(m, c)))
    }

    /// Cell `c`'s auxiliary values (the A fields after the first M) in precision T.
    pub(super) fn aux<T: Real, const M: usize, const A: usize>(&self, c: usize) -> [T; A] {
        std::array::from_fn(|a| T::from_f64(self.value(M + a, c)))
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.f64(self.first_dt).u64(self.row as u64).u64(self.at.len() as u64).u64(self.rows.len() as u64);
        for &r in &self.rows {
            w.u64(r as u64);
        }
        w.u64(self.fields.len() as u64);
        for f in &self.fields {
            w.values(f);
        }
        w.0
    }

    pub fn decode(bytes: &[u8]) -> Result<SlabPart> {
        let bad = |what: &str| Error::invalid(format!("claw: a slab's part {what}"));
        let mut r = Reader::new(bytes);
        let first_dt = r.f64()?;
        let (row, across, n) = (r.u64()? as usize, r.u64()? as usize, r.u64()? as usize);
        let rows = (0..n).map(|_| Ok(r.u64()? as usize)).collect::<Result<Vec<_>>>()?;
        if rows.windows(2).any(|w| w[0] >= w[1]) || rows.last().is_some_and(|&l| l >= across) {
            return Err(bad(&format!("names rows {rows:?} of a grid of {across}")));
        }
        let fields = (0..r.u64()?).map(|_| r.values::<f64>()).collect::<Result<Vec<_>>>()?;
        if fields.iter().any(|f| f.len() != rows.len() * row) {
            return Err(bad(&format!("has a field of other than {} rows of {row} cells", rows.len())));
        }
        if !r.rest().is_empty() {
            return Err(bad("has bytes past its fields"));
        }
        SlabPart::held(first_dt, row, across, rows, fields)
    }
}
