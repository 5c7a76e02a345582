//! A run's NetCDF file: created at the first snapshot from the fields it holds, one record
//! appended per snapshot.

use super::append::Appender;
use super::cf::{FieldSpec, layout};
use super::classic::{Attr, Type};
use crate::grid::Mesh;
use crate::model::State;
use crate::{Error, Real, Result};
use std::path::Path;

/// The classic type of `T`'s values (float or double, by size).
fn type_of<T: Real>() -> Type {
    if std::mem::size_of::<T>() == 4 { Type::Float } else { Type::Double }
}

/// `data` big-endian in `T`'s own width. An f32 goes through f64 and back, which is exact.
fn be_bytes<T: Real>(data: &[T]) -> Vec<u8> {
    match type_of::<T>() {
        Type::Float => data.iter().flat_map(|v| (v.to_f64() as f32).to_be_bytes()).collect(),
        _ => data.iter().flat_map(|v| v.to_f64().to_be_bytes()).collect(),
    }
}

pub struct Snapshots {
    file: Appender,
    fields: Vec<FieldSpec>,
}

impl Snapshots {
    /// Whether a file of `state`'s fields on `mesh` can be written (fields on the mesh, each
    /// within the format's size limit), without writing it: a run checks before its first step.
    pub fn check<T: Real>(mesh: &Mesh, state: &State<T>) -> Result<()> {
        let fields: Vec<FieldSpec> = state.fields.iter().map(FieldSpec::of).collect();
        layout(mesh, &fields, type_of::<T>(), "s", Vec::new()).map(|_| ())
    }

    /// Create the file at `path` for the fields of `first` on `mesh` (written with no record:
    /// [`Snapshots::append`] writes `first` too). `time_units` is the solver's unit of time.
    pub fn create<T: Real>(
        path: &Path,
        mesh: &Mesh,
        first: &State<T>,
        time_units: &str,
        globals: Vec<Attr>,
    ) -> Result<Snapshots> {
        let fields: Vec<FieldSpec> = first.fields.iter().map(FieldSpec::of).collect();
        let (header, fixed) = layout(mesh, &fields, type_of::<T>(), time_units, globals)?;
        Ok(Snapshots { file: Appender::create(path, header, &fixed)?, fields })
    }

    /// Append `state` as the next record.
    pub fn append<T: Real>(&mut self, state: &State<T>) -> Result<()> {
        let specs: Vec<FieldSpec> = state.fields.iter().map(FieldSpec::of).collect();
        if specs != self.fields {
            return Err(Error::invalid(
                "netcdf: a snapshot's fields differ from the first snapshot's (names, units or shapes)",
            ));
        }
        let mut slabs = vec![state.clock.t.to_be_bytes().to_vec()];
        slabs.extend(state.fields.iter().map(|f| be_bytes(&f.data)));
        self.file.append(&slabs)
    }

    /// Records written.
    pub fn records(&self) -> u64 {
        self.file.records()
    }
}
