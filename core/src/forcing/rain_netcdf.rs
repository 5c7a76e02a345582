//! `[forcing.rain] netcdf`: one NetCDF file of rain (time, y, x) with CF coordinates, as radar
//! products come, read onto a case's grid as the same [`RainGrid`] a list of rasters gives.
//!
//! ```toml
//! [forcing.rain]
//! netcdf = "data/radar.nc"
//! variable = "rain"        # where the file holds more than one variable of (time, y, x)
//! unit = "mm/h"            # where the variable's units attribute does not say
//! end = 30                 # the last frame's end, in time_unit of the run (s by default)
//! ```
//!
//! Frame k holds from its time to the next frame's (or over its CF time bounds), as a raster
//! list's frames do; only the frames a run from 0 to `t_end` reaches are read, so a year of
//! radar costs the memory of the run's hours.

use super::Domain;
use super::RainGrid;
use super::rain_cf::{self, Axis, KNOWN_UNITS, Packing, RainUnit};
use super::rain_frames::{Frame, on_grid};
use super::series::time_factor;
use crate::case::{Check, num};
use crate::cf_time::{self, GREGORIAN, TimeUnits};
use crate::output::netcdf::Dataset;
use crate::output::netcdf::classic::{Type, Var};
use crate::{Error, Result};
use std::io::Read;
use std::path::Path;

const KEY: &str = "forcing.rain.netcdf";

/// The keys of `[forcing.rain]` a NetCDF file of rain takes.
pub(super) struct NetcdfKeys<'a> {
    pub file: &'a Path,
    pub variable: Option<&'a str>,
    pub unit: Option<&'a str>,
    pub end: Option<f64>,
    pub time_unit: Option<&'a str>,
}

/// The rain of the file `keys` name on the domain's cells, for a run to `t_end` seconds whose
/// t = 0 is the date `start` (`run.start`), if the case gives one.
pub(super) fn load(c: &Check, keys: &NetcdfKeys, start: Option<&str>, domain: Domain, t_end: f64) -> Result<RainGrid> {
    let path = c.path(keys.file);
    let name = path.display().to_string();
    let fail = |key: &str, m: String| -> Error { c.doc().invalid(key, format!("{name}: {m}")) };
    let mut nc = Dataset::open(&path).map_err(|e| c.doc().invalid(KEY, e))?;
    let var = variable(&nc, keys.variable).map_err(|(key, m)| fail(key, m))?;
    let unit = unit(&var, keys.unit).map_err(|(key, m)| fail(key, m))?;

    // The axes: the coordinate variables of the variable's dimensions, in CF's order.
    let coords: Vec<Var> = var
        .dims
        .iter()
        .map(|&d| {
            let dim = &nc.header().dims[d].name;
            nc.header().vars.iter().find(|v| &v.name == dim && v.dims == [d]).cloned().ok_or_else(|| {
                format!("dimension {dim} of {} has no coordinate variable: the frames' times and cells' positions come from them", var.name)
            })
        })
        .collect::<std::result::Result<_, _>>()
        .map_err(|m| fail(KEY, m))?;
    let axes: Vec<Axis> = coords.iter().map(rain_cf::axis_of).collect();
    if axes.contains(&Axis::Degrees) {
        let why = format!("the coordinates of {} are in degrees of longitude and latitude", var.name);
        return Err(c.doc().invalid(KEY, crate::input::crs::refuse_crs(&name, &why)));
    }
    let (t, y, x) = (&coords[0], &coords[1], &coords[2]);
    let in_order = [Axis::Time, Axis::Y, Axis::X].iter().zip(&axes).all(|(want, a)| a == want || *a == Axis::Unknown);
    if !in_order {
        return Err(fail(
            KEY,
            format!(
                "{} is of ({}, {}, {}): rain is read as (time, y, x), as CF orders them; reorder it with ncpdq -a {},{},{} IN OUT",
                var.name,
                t.name,
                y.name,
                x.name,
                coords.iter().find(|v| rain_cf::axis_of(v) == Axis::Time).unwrap_or(t).name,
                coords.iter().find(|v| rain_cf::axis_of(v) == Axis::Y).unwrap_or(y).name,
                coords.iter().find(|v| rain_cf::axis_of(v) == Axis::X).unwrap_or(x).name
            ),
        ));
    }

    // The cells: regular centres in metres, either way along each axis.
    let mut cells = Vec::new();
    for v in [x, y] {
        let metres = rain_cf::metres_of(v).map_err(|m| fail(KEY, m))?;
        let packing = Packing::of(v);
        let centres: Vec<f64> = nc
            .read_numbers(&v.name, None)
            .map_err(|e| c.doc().invalid(KEY, e))?
            .iter()
            .map(|&s| packing.value(s).unwrap_or(f64::NAN) * metres)
            .collect();
        cells.push(rain_cf::regular(&v.name, &centres, v.ty == Type::Float).map_err(|m| fail(KEY, m))?);
    }
    let (xc, yc) = (cells[0], cells[1]);
    let (nx, ny) = (nc.header().dims[var.dims[2]].len as usize, nc.header().dims[var.dims[1]].len as usize);
    let epsg = match var.text("grid_mapping").and_then(|g| g.split([':', ' ']).next()) {
        Some(gm) => match nc.header().vars.iter().find(|v| v.name == gm) {
            Some(gm) => rain_cf::grid_mapping_epsg(&name, gm).map_err(|e| c.doc().invalid(KEY, e))?,
            None => None,
        },
        None => None,
    };

    // The frames' times on the run's clock, and the span of them the run reaches.
    let times = frame_times(&mut nc, t, start, keys).map_err(|(key, m)| fail(key, m))?;
    let starts = &times.starts;
    let first = starts.iter().rposition(|&s| s <= 0.0);
    let Some(first) = first else {
        return Err(fail(
            KEY,
            format!(
                "the first frame starts at t = {} s{}, after the run's start{}",
                num(starts[0]),
                times.date(starts[0]),
                times.date(0.0)
            ),
        ));
    };
    let last = starts.iter().rposition(|&s| s < t_end).unwrap_or(first).max(first);
    let end = starts.get(last + 1).copied().unwrap_or(times.end);
    if end < t_end {
        return Err(fail(
            KEY,
            format!(
                "the last frame ends at t = {} s{}, before the run's end at {} s{}",
                num(end),
                times.date(end),
                num(t_end),
                times.date(t_end)
            ),
        ));
    }
    let mut kept: Vec<f64> = starts[first..=last].to_vec();
    kept.push(end);

    // One frame at a time is read whole: its stored numbers, then its values as a raster.
    let h = nc.header();
    // A record variable's slab is one frame; a fixed one's is all of them.
    let frames_in_slab = if h.is_record(&var) { 1 } else { h.dims[var.dims[0]].len.max(1) };
    let frame_bytes = h.slab_bytes(&var).unwrap_or(0) / frames_in_slab;
    let cells_a_frame = (nx as u64).saturating_mul(ny as u64);
    crate::files::check_host_memory(
        &format!("{name}: a frame of {nx}×{ny} cells"),
        frame_bytes.saturating_add(cells_a_frame.saturating_mul(8 + 9)),
    )
    .map_err(|e| c.doc().invalid(KEY, e))?;
    record(c, &path, &name).map_err(|e| c.doc().invalid(KEY, e))?;
    let packing = Packing::of(&var);
    let grid_shape = rain_cf::shape(&name, xc, yc, nx, ny, epsg);
    c.doc().record_crs(&name, epsg).map_err(|e| c.doc().invalid(KEY, e))?;
    let unit_name = keys.unit.map_or_else(|| var.text("units").unwrap_or_default().to_string(), str::to_string);
    let frame = |n: usize| -> Result<Frame> {
        let k = first + n;
        let stored = nc.read_numbers(&var.name, Some(k as u64)).map_err(|e| c.doc().invalid(KEY, e))?;
        let mut r = grid_shape.clone();
        r.name = format!("{name}, {}[{k}]{}", var.name, times.label(k));
        r.values = vec![0.0; nx * ny];
        r.valid = vec![false; nx * ny];
        for (at, &s) in stored.iter().enumerate() {
            let (row, col) = (at / nx, at % nx);
            let j = if yc.reversed { ny - 1 - row } else { row };
            let i = if xc.reversed { nx - 1 - col } else { col };
            if let Some(v) = packing.value(s) {
                r.values[j * nx + i] = v;
                r.valid[j * nx + i] = true;
            }
        }
        let factor = match unit {
            RainUnit::Rate(f) => f,
            RainUnit::Depth(f) => f / (kept[n + 1] - kept[n]),
        };
        Ok(Frame { key: KEY.to_string(), raster: r, factor })
    };
    on_grid(c, KEY, &name, kept.clone(), frame, "a fill value", &unit_name, domain, t_end)
}

/// The variable of rain: the one named, or the file's one variable of three dimensions.
fn variable(nc: &Dataset, given: Option<&str>) -> std::result::Result<Var, (&'static str, String)> {
    let h = nc.header();
    let dims = |v: &Var| v.dims.iter().map(|&d| h.dims[d].name.as_str()).collect::<Vec<_>>().join(", ");
    let three: Vec<&Var> = h.vars.iter().filter(|v| v.dims.len() == 3 && v.ty != Type::Char).collect();
    let names = || three.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ");
    match given {
        Some(name) => match h.vars.iter().find(|v| v.name == name) {
            Some(v) if v.dims.len() == 3 && v.ty != Type::Char => Ok(v.clone()),
            Some(v) => Err((
                "forcing.rain.variable",
                format!(
                    "{name} is a {} variable of ({}): rain is a variable of numbers over (time, y, x)",
                    v.ty,
                    dims(v)
                ),
            )),
            None => {
                Err(("forcing.rain.variable", format!("no variable {name}; those of three dimensions: {}", names())))
            }
        },
        None => match three.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err((KEY, "holds no variable of three dimensions (time, y, x)".into())),
            _ => Err((
                "forcing.rain.variable",
                format!(
                    "missing: the file holds {} variables of three dimensions ({}); name the rain's",
                    three.len(),
                    names()
                ),
            )),
        },
    }
}

/// The rain's unit: the `unit` key's, else the variable's `units` attribute's; a key that
/// contradicts the attribute is refused, and so is a variable whose unit neither gives.
fn unit(var: &Var, key: Option<&str>) -> std::result::Result<RainUnit, (&'static str, String)> {
    const UNIT: &str = "forcing.rain.unit";
    let attr = var.text("units").map(str::trim).filter(|u| !u.is_empty());
    let of_attr = attr.and_then(rain_cf::rain_unit);
    match (key, attr) {
        (Some(k), _) => {
            let Some(u) = rain_cf::rain_unit(k) else {
                return Err((UNIT, format!("'{k}' is not a unit of rain: {KNOWN_UNITS}")));
            };
            match (of_attr, attr) {
                (Some(a), Some(text)) if a != u => Err((
                    UNIT,
                    format!("'{k}', but {} says its units are '{text}': leave unit out, or correct the file", var.name),
                )),
                _ => Ok(u),
            }
        }
        (None, Some(text)) => of_attr.ok_or_else(|| {
            (
                UNIT,
                format!(
                    "missing, and the units of {}, '{text}', are not a unit of rain: give one of {KNOWN_UNITS}",
                    var.name
                ),
            )
        }),
        (None, None) => {
            Err((UNIT, format!("missing, and {} has no units attribute: give one of {KNOWN_UNITS}", var.name)))
        }
    }
}

/// The frames' times on the run's clock (s): each frame's start and the last one's end.
struct Times {
    starts: Vec<f64>,
    end: f64,
    /// The run's t = 0 as a date (seconds since 1970), where the file's axis is dated.
    zero: Option<f64>,
    /// The axis' values as stored and its units, for messages.
    stored: Vec<f64>,
    units: String,
}

impl Times {
    /// ` (date)` for run time `t` on a dated axis, else nothing.
    fn date(&self, t: f64) -> String {
        self.zero.map_or_else(String::new, |z| format!(" ({})", cf_time::date_text(z + t)))
    }
    /// Frame k's time as the file gives it, for messages.
    fn label(&self, k: usize) -> String {
        match self.zero {
            Some(z) => format!(" ({})", cf_time::date_text(z + self.starts[k])),
            None => format!(" (time {} {})", num(self.stored[k]), self.units),
        }
    }
}

/// The times of the frames of time coordinate `t`: from its units (dated ones need the
/// run's `start`), strictly increasing, each frame holding to the next one's time; the last
/// to its time bounds' end, the `end` key, or one spacing of the frames before it.
fn frame_times(
    nc: &mut Dataset,
    t: &Var,
    start: Option<&str>,
    keys: &NetcdfKeys,
) -> std::result::Result<Times, (&'static str, String)> {
    let units = t.text("units").unwrap_or_default().trim().to_string();
    if units.is_empty() {
        return Err((KEY, format!("the time coordinate {} has no units attribute", t.name)));
    }
    let TimeUnits { seconds, since } = cf_time::time_units(&units).map_err(|m| (KEY, format!("{}: {m}", t.name)))?;
    let zero = match (since, start) {
        (None, _) => None,
        (Some(_), None) => {
            return Err((
                KEY,
                format!(
                    "its time axis {} counts {units}: give the date and time the run's t = 0 stands for as run.start, e.g. start = \"{}\" (the first frame's) in [run]",
                    t.name,
                    first_date(nc, t, seconds, since).unwrap_or_else(|| "2020-06-01T00:00:00Z".into())
                ),
            ));
        }
        (Some(_), Some(date)) => {
            let calendar = t.text("calendar").unwrap_or("standard").trim().to_ascii_lowercase();
            if !GREGORIAN.contains(&calendar.as_str()) {
                return Err((
                    KEY,
                    format!(
                        "{} counts in the {calendar} calendar; dated rain is read in the standard (Gregorian) one",
                        t.name
                    ),
                ));
            }
            let date = cf_time::reference_date(date).map_err(|m| ("run.start", m))?;
            Some(cf_time::epoch_seconds(&date).map_err(|m| ("run.start", m))?)
        }
    };
    let offset = match (since, zero) {
        (Some(s), Some(z)) => s - z,
        _ => 0.0,
    };
    let packing = Packing::of(t);
    let read = |nc: &mut Dataset, v: &Var| -> std::result::Result<Vec<f64>, (&'static str, String)> {
        Ok(nc
            .read_numbers(&v.name, None)
            .map_err(|e| (KEY, e.to_string()))?
            .iter()
            .map(|&s| packing.value(s).unwrap_or(f64::NAN))
            .collect())
    };
    let stored = read(nc, t)?;
    let run_time = |v: f64| v * seconds + offset;
    for (k, &v) in stored.iter().enumerate() {
        if !v.is_finite() {
            return Err((KEY, format!("{}[{k}] is {v} (or a fill value): times must be finite", t.name)));
        }
        if k > 0 && v <= stored[k - 1] {
            return Err((
                KEY,
                format!(
                    "{}[{k}] = {} does not follow {}[{}] = {} ({units}): the time axis must increase strictly",
                    t.name,
                    num(v),
                    t.name,
                    k - 1,
                    num(stored[k - 1])
                ),
            ));
        }
    }
    if stored.is_empty() {
        return Err((KEY, format!("{} holds no time: the file has no frames", t.name)));
    }
    let starts: Vec<f64> = stored.iter().map(|&v| run_time(v)).collect();
    let n = starts.len();
    if keys.time_unit.is_some() && keys.end.is_none() {
        return Err((
            "forcing.rain.time_unit",
            format!("with netcdf it is end's unit; the frames' times are in the file's own ({units})"),
        ));
    }
    let bounds = t.text("bounds").and_then(|b| nc.header().vars.iter().find(|v| v.name == b.trim()).cloned());
    let end = match (bounds, keys.end) {
        (Some(b), Some(_)) => {
            return Err(("forcing.rain.end", format!("the file's time bounds ({}) say when each frame ends", b.name)));
        }
        (Some(b), None) => {
            let v = read(nc, &b)?;
            if v.len() != 2 * n {
                return Err((
                    KEY,
                    format!("the time bounds {} hold {} values, not two for each of {n} times", b.name, v.len()),
                ));
            }
            for k in 0..n {
                let (lo, hi) = (v[2 * k], v[2 * k + 1]);
                let next = if k + 1 < n { Some(v[2 * k + 2]) } else { None };
                if !(lo.is_finite() && hi.is_finite() && lo < hi) || next.is_some_and(|b| b != hi) {
                    return Err((
                        KEY,
                        format!(
                            "{}[{k}] = [{}, {}]{}: each frame must end where the next begins",
                            b.name,
                            num(lo),
                            num(hi),
                            next.map_or(String::new(), |b| format!(", the next begins at {}", num(b)))
                        ),
                    ));
                }
            }
            // Each frame holds over its bounds: it starts at its lower bound.
            let lower: Vec<f64> = (0..n).map(|k| run_time(v[2 * k])).collect();
            return Ok(Times { starts: lower, end: run_time(v[2 * n - 1]), zero, stored, units });
        }
        (None, Some(e)) => {
            let unit = keys.time_unit.unwrap_or("s");
            let ts = time_factor(unit).map_err(|m| ("forcing.rain.time_unit", m))?;
            let e_run = e * ts;
            if !(e_run.is_finite() && e_run > starts[n - 1]) {
                return Err((
                    "forcing.rain.end",
                    format!("{}: must come after the last frame's time, t = {} s", num(e), num(starts[n - 1])),
                ));
            }
            e_run
        }
        (None, None) if n >= 2 => starts[n - 1] + (starts[n - 1] - starts[n - 2]),
        (None, None) => {
            return Err((
                "forcing.rain.end",
                "missing: the file holds one frame; give the time (s of the run, or time_unit) its rain holds until"
                    .into(),
            ));
        }
    };
    Ok(Times { starts, end, zero, stored, units })
}

/// The first frame's date in a case's form, for the message asking for `run.start`.
fn first_date(nc: &mut Dataset, t: &Var, seconds: f64, since: Option<f64>) -> Option<String> {
    let first = *nc.read_numbers(&t.name, Some(0)).ok()?.first()?;
    let text = cf_time::date_text(since? + first * seconds);
    Some(format!("{}Z", text.replacen(' ', "T", 1)))
}

/// The largest file whose every byte the case's record of inputs hashes.
const HASHED_WHOLE: u64 = 256 << 20;

/// Records the file among the case's inputs, so that a restart from another file is refused:
/// its hash covers every byte of a file up to [`HASHED_WHOLE`], and of a larger one (a year
/// of radar, read only where the run reaches) its length and first [`HASHED_WHOLE`] bytes,
/// which hold its header and coordinates.
fn record(c: &Check, path: &Path, name: &str) -> Result<()> {
    let io = |cause| Error::Io { path: name.to_string(), cause };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut hash = crate::hash::Fnv1a::default();
    hash.update(&len.to_be_bytes());
    let mut chunk = vec![0; 1 << 20];
    let mut reader = file.take(HASHED_WHOLE);
    loop {
        let n = reader.read(&mut chunk).map_err(io)?;
        if n == 0 {
            break;
        }
        hash.update(&chunk[..n]);
    }
    c.doc().record_input_hash(KEY, name, hash.hex());
    Ok(())
}
