//! `hydrokern plot FILE.nc`: maps of every field at every time of a run's NetCDF file, drawn
//! after the run by the same PNG functions the run uses. One colour range per field over all
//! its times, so the maps of one field can be compared; a volume is shown by its horizontal
//! slice through the middle of the box.

use super::read::{Dataset, Values};
use crate::output::{MapOptions, write_field_png};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The default folder for the maps of `file`: `<stem>-plots` in the current directory, not in
/// the run directory, whose next run would refuse a folder it did not write.
pub fn default_dir(file: &Path) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "netcdf".into());
    PathBuf::from(format!("{stem}-plots"))
}

/// The extent in metres (first and last edge) of coordinate variable `name`, from its values:
/// uniform spacing, as hydrokern writes them. `None` for a single value, whose width is unknown.
fn edges(nc: &mut Dataset, name: &str) -> Result<Option<[f64; 2]>> {
    let c = nc.read(name, None)?.to_f64();
    Ok(match c.as_slice() {
        [first, .., last] => {
            let half = (last - first) / (c.len() - 1) as f64 / 2.0;
            Some([first - half, last + half])
        }
        _ => None,
    })
}

/// Draw every map of `path` into `out` (created if missing); the files written.
pub fn plot(path: &Path, out: &Path) -> Result<Vec<PathBuf>> {
    let mut nc = Dataset::open(path)?;
    let h = nc.header().clone();
    let not_ours = |why: &str| {
        Error::invalid(format!(
            "{}: not a NetCDF file of hydrokern's layout ({why}); `plot` draws the files `[output] formats = [\"netcdf\"]` writes",
            path.display()
        ))
    };
    let time = nc.var("time").map_err(|_| not_ours("no time variable"))?.clone();
    if !h.is_record(&time) || time.dims.len() != 1 {
        return Err(not_ours("time is not the record coordinate"));
    }
    let times =
        (0..nc.records()).map(|r| nc.read("time", Some(r)).map(|v| v.to_f64()[0])).collect::<Result<Vec<_>>>()?;
    let unit = time.text("units").unwrap_or("").to_string();
    let fields: Vec<_> =
        h.vars.iter().filter(|v| h.is_record(v) && v.name != "time" && matches!(v.dims.len(), 3 | 4)).collect();
    if fields.is_empty() {
        return Err(not_ours("no field of (time, y, x) or (time, z, y, x)"));
    }
    std::fs::create_dir_all(out).map_err(|cause| Error::Io { path: out.display().to_string(), cause })?;
    let mut written = Vec::new();
    for v in fields {
        let names: Vec<&str> = v.dims.iter().map(|&d| h.dims[d].name.as_str()).collect();
        let shape = nc.shape(v);
        let (ny, nx) = (shape[shape.len() - 2], shape[shape.len() - 1]);
        let (across, up) = (names[names.len() - 1], names[names.len() - 2]);
        for c in [across, up] {
            if nc.var(c).is_err() {
                return Err(not_ours(&format!("{} has no coordinate variable {c}", v.name)));
            }
        }
        let extent = match (edges(&mut nc, across)?, edges(&mut nc, up)?) {
            (Some([w, e]), Some([s, n])) => Some([w, e, s, n]),
            _ => None,
        };
        // A volume: the horizontal slice through the middle of the box.
        let (offset, slice) = match shape.len() {
            3 => (shape[0] / 2 * nx * ny, format!(", {} = {} (middle)", names[1], shape[0] / 2)),
            _ => (0, String::new()),
        };
        let read = |nc: &mut Dataset, r: usize| nc.read(&v.name, Some(r as u64)).map(|d| slice_of(d, offset, nx * ny));
        // Two passes, one record in memory at a time: the range over all times, then the maps.
        let mut range: Option<(f64, f64)> = None;
        for r in 0..times.len() {
            for x in read(&mut nc, r)?.into_iter().filter(|x| x.is_finite()) {
                range = Some(range.map_or((x, x), |(lo, hi)| (lo.min(x), hi.max(x))));
            }
        }
        let units = v.text("units").unwrap_or("");
        let long_name = v.text("long_name").unwrap_or(&v.name);
        for (r, t) in times.iter().enumerate() {
            let title = format!("{} at t = {t} {unit}{slice}", v.name);
            let mut opts = MapOptions::new(title, format!("{long_name} [{units}]"));
            opts.range = range;
            opts.axes = (axis_label(across), axis_label(up));
            if let Some(e) = extent {
                opts = opts.in_metres(e);
            }
            let file = out.join(format!("{}_t{t}.png", v.name));
            write_field_png(&file, &read(&mut nc, r)?, nx, ny, &opts)?;
            written.push(file);
        }
    }
    Ok(written)
}

fn slice_of(values: Values, offset: usize, len: usize) -> Vec<f64> {
    let all = values.to_f64();
    all[offset..offset + len].to_vec()
}

/// The axis label of a coordinate: its name in metres.
fn axis_label(name: &str) -> &'static str {
    match name {
        "x" => "x [m]",
        "y" => "y [m]",
        "z" => "z [m]",
        "x_face" => "x (faces) [m]",
        "y_face" => "y (faces) [m]",
        "z_face" => "z (faces) [m]",
        _ => "[m]",
    }
}
