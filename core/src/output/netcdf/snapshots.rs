//! A run's NetCDF file: created at the first snapshot from the fields it holds (and the water
//! account, for a run that keeps one), one record appended per snapshot.

use super::append::Appender;
use super::cf::{FILL_F64, FieldSpec, Geo, layout};
use super::classic::{Attr, Dim, Header, Type, Var};
use crate::account::Account;
use crate::grid::Mesh;
use crate::model::State;
use crate::output::outside_as;
use crate::{Error, Real, Result};
use std::path::Path;

/// The classic type of `T`'s values (float or double, by size).
pub(super) fn type_of<T: Real>() -> Type {
    if std::mem::size_of::<T>() == 4 { Type::Float } else { Type::Double }
}

/// `data` big-endian in `T`'s own width. An f32 goes through f64 and back, which is exact.
pub(super) fn be_bytes<T: Real>(data: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    be_bytes_into(data, &mut out);
    out
}

/// [`be_bytes`] into `out`, whose memory is reused from record to record (a fresh buffer as
/// large as a field costs a page fault every 4 KiB). A loop the compiler turns into byte swaps.
fn be_bytes_into<T: Real>(data: &[T], out: &mut Vec<u8>) {
    let width = type_of::<T>().size() as usize;
    out.clear();
    out.resize(width * data.len(), 0);
    if width == 4 {
        for (o, v) in out.chunks_exact_mut(4).zip(data) {
            o.copy_from_slice(&(v.to_f64() as f32).to_be_bytes());
        }
    } else {
        for (o, v) in out.chunks_exact_mut(8).zip(data) {
            o.copy_from_slice(&v.to_f64().to_be_bytes());
        }
    }
}

/// What the layout adds after the fields for a water account `account` (none without one).
fn with(account: Option<&Account>) -> impl FnOnce(&mut Vec<Dim>, &mut Vec<Var>, &mut Vec<Vec<u8>>) + '_ {
    move |dims, vars, fixed| {
        if let Some(a) = account {
            super::account::declare(a, dims, vars, fixed);
        }
    }
}

/// The names of an account's boundary segments.
fn segments(a: &Account) -> Vec<String> {
    a.boundary.iter().map(|b| b.name.clone()).collect()
}

/// The fields of a record: the state's, and the surface h + bed where there is a bed.
fn specs<T>(state: &State<T>, geo: &Geo) -> Vec<FieldSpec> {
    let mut fields: Vec<FieldSpec> = state.fields.iter().map(FieldSpec::of).collect();
    if let (Some(_), Some(h)) = (geo.bed, state.field("h")) {
        fields.push(FieldSpec {
            name: "surface".into(),
            long_name: "water surface elevation (h + bed)".into(),
            units: "m".into(),
            dims: h.dims.clone(),
        });
    }
    fields
}

pub struct Snapshots {
    file: Appender,
    fields: Vec<FieldSpec>,
    /// The account's segments, for a file with an account: every record's must be these.
    account: Option<Vec<String>>,
    /// The bed, where each record holds the surface h + bed.
    bed: Option<Vec<f64>>,
    /// The cells in the domain, where some are not: the others hold the fill value.
    active: Option<Vec<bool>>,
    /// The last record's bytes: the time, then each field big-endian.
    slabs: Vec<Vec<u8>>,
}

impl Snapshots {
    /// Whether a file of `state`'s fields on `mesh` (and its water account `account`) can be
    /// written (fields on the mesh, each within the format's size limit), without writing it: a
    /// run checks before its first step.
    pub fn check<T: Real>(mesh: &Mesh, state: &State<T>, account: Option<&Account>, geo: &Geo) -> Result<()> {
        layout(mesh, &specs(state, geo), type_of::<T>(), "s", Vec::new(), geo, with(account)).map(|_| ())
    }

    /// Create the file at `path` for the fields of `first` on `mesh` and, with `account`, the
    /// water account's terms (written with no record: [`Snapshots::append`] writes `first` too).
    /// `time_units` is the solver's unit of time.
    pub fn create<T: Real>(
        path: &Path,
        mesh: &Mesh,
        first: &State<T>,
        account: Option<&Account>,
        time_units: &str,
        globals: Vec<Attr>,
        geo: &Geo,
    ) -> Result<Snapshots> {
        let fields = specs(first, geo);
        let (header, fixed) = layout(mesh, &fields, type_of::<T>(), time_units, globals, geo, with(account))?;
        let file = Appender::create(path, header, &fixed)?;
        Ok(Snapshots::over(file, fields, first.fields.len(), account, geo))
    }

    /// Open the file a run wrote at `path` to go on after its records up to time `t0` (a
    /// restart from a checkpoint at `t0`): its layout must be the one [`create`](Self::create)
    /// makes of `state`'s fields on `mesh` and its `account`, and its times increasing; the
    /// records after `t0` are dropped. Why not, if not (the caller starts a new file).
    pub fn resume<T: Real>(
        path: &Path,
        mesh: &Mesh,
        state: &State<T>,
        account: Option<&Account>,
        time_units: &str,
        t0: f64,
        geo: &Geo,
    ) -> Result<Snapshots> {
        let fields = specs(state, geo);
        let (want, _) = layout(mesh, &fields, type_of::<T>(), time_units, Vec::new(), geo, with(account))?;
        let mut nc = super::Dataset::open(path)?;
        let have = nc.header().clone();
        let shape = |h: &Header| -> Vec<(String, Vec<usize>, Vec<Attr>, Type)> {
            h.vars.iter().map(|v| (v.name.clone(), v.dims.clone(), v.attrs.clone(), v.ty)).collect()
        };
        if have.dims != want.dims || shape(&have) != shape(&want) {
            return Err(Error::invalid(format!(
                "{}: its dimensions or variables are not those of this run's fields",
                path.display()
            )));
        }
        let times =
            (0..nc.records()).map(|r| nc.read("time", Some(r)).map(|v| v.to_f64()[0])).collect::<Result<Vec<_>>>()?;
        if times.windows(2).any(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less)) {
            return Err(Error::invalid(format!("{}: its times do not increase", path.display())));
        }
        let keep = times.iter().take_while(|&&t| t <= t0).count() as u64;
        drop(nc);
        let file = Appender::reopen(path, have, keep)?;
        Ok(Snapshots::over(file, fields, state.fields.len(), account, geo))
    }

    /// The writer of `file`, whose records hold `fields`: a state's `n` and, where they are
    /// more, the surface over `geo`'s bed; and `account`'s rows.
    fn over(file: Appender, fields: Vec<FieldSpec>, n: usize, account: Option<&Account>, geo: &Geo) -> Snapshots {
        let bed = geo.bed.filter(|_| fields.len() > n).map(<[f64]>::to_vec);
        let active = geo.active.map(<[bool]>::to_vec);
        Snapshots { file, fields, account: account.map(segments), bed, active, slabs: Vec::new() }
    }

    /// Append `state` as the next record, with its water account `account` where the file
    /// holds one.
    pub fn append<T: Real>(&mut self, state: &State<T>, account: Option<&Account>) -> Result<()> {
        let mut specs: Vec<FieldSpec> = state.fields.iter().map(FieldSpec::of).collect();
        if let Some(surface) = self.bed.as_ref().and(self.fields.last()) {
            specs.push(surface.clone());
        }
        if specs != self.fields {
            return Err(Error::invalid(
                "netcdf: a snapshot's fields differ from the first snapshot's (names, units or shapes)",
            ));
        }
        if account.map(segments) != self.account {
            return Err(Error::invalid(
                "netcdf: a snapshot's water account differs from the first snapshot's (its presence or its boundary segments)",
            ));
        }
        self.slabs.resize_with(1 + self.fields.len(), Vec::new);
        let (time, fields) = self.slabs.split_at_mut(1);
        time[0] = state.clock.t.to_be_bytes().to_vec();
        let (fields, surface) = fields.split_at_mut(state.fields.len());
        // A field each thread: the conversion runs at memory speed on several cores.
        let (active, fill) = (self.active.as_deref(), T::from_f64(FILL_F64));
        std::thread::scope(|s| {
            for (f, out) in state.fields.iter().zip(fields) {
                s.spawn(move || be_bytes_into(&outside_as(&f.data, active, fill), out));
            }
            if let (Some(bed), Some(h), Some(out)) = (&self.bed, state.field("h"), surface.first_mut()) {
                s.spawn(move || {
                    let w: Vec<T> = h.data.iter().zip(bed).map(|(h, b)| T::from_f64(h.to_f64() + b)).collect();
                    be_bytes_into(&outside_as(&w, active, fill), out)
                });
            }
        });
        match account {
            Some(a) => {
                let mut record = std::mem::take(&mut self.slabs);
                let n = record.len();
                record.extend(super::account::slabs(a));
                let written = self.file.append(&record);
                record.truncate(n);
                self.slabs = record;
                written
            }
            None => self.file.append(&self.slabs),
        }
    }

    /// Records written.
    pub fn records(&self) -> u64 {
        self.file.records()
    }
}
