//! `hydrokern plot FILE.nc`: maps of every field at every time of a run's NetCDF file, drawn
//! after the run by the same PNG functions the run uses. One colour range per field over all
//! its times, so the maps of one field can be compared; a volume is shown by its horizontal
//! slice through the middle of the box. The products' files the fields' file names (its
//! `gauges_file`, `lines_file` and `maxima_file`) are drawn with it: a plot of depth and surface
//! against time per gauge, of the discharge against time per line, and the maximum maps; given
//! on their own, they are drawn alone.

use super::classic::Var;
use super::read::{Dataset, Values};
use crate::output::png::{NEVER_ARRIVED, OUTSIDE};
use crate::output::png::{PlotOptions, Series, time_unit, write_panels_png};
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

fn not_ours(path: &Path, why: &str) -> Error {
    Error::invalid(format!(
        "{}: not a NetCDF file of hydrokern's layout ({why}); `plot` draws the files `[output] formats = [\"netcdf\"]` writes",
        path.display()
    ))
}

fn create(out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|cause| Error::Io { path: out.display().to_string(), cause })
}

/// Draw every map of `path` into `out` (created if missing), and the gauges, lines and maximum
/// maps of the files it names beside it; the files written. A gauges, lines or maxima file given
/// itself is drawn alone.
pub fn plot(path: &Path, out: &Path) -> Result<Vec<PathBuf>> {
    let mut nc = Dataset::open(path)?;
    if nc.global_text("featureType") == Some("timeSeries") {
        create(out)?;
        return match nc.var("line_name") {
            Ok(_) => plot_lines(&mut nc, out),
            Err(_) => plot_gauges(&mut nc, out),
        };
    }
    let h = nc.header();
    if h.vars.iter().all(|v| !h.is_record(v)) && h.vars.iter().any(|v| v.dims.len() == 2) {
        create(out)?;
        return plot_maps(&mut nc, out);
    }
    let mut written = plot_fields(&mut nc, out)?;
    for key in ["gauges_file", "lines_file", "maxima_file"] {
        let Some(name) = nc.global_text(key) else { continue };
        let beside = path.with_file_name(name);
        if beside.exists() {
            written.extend(plot(&beside, out)?);
        } else {
            crate::warn(format_args!(
                "note: {} names {name} ({key}), which is not beside it: its plots are left out",
                path.display()
            ));
        }
    }
    Ok(written)
}

/// Every field of a fields' file at every time.
fn plot_fields(nc: &mut Dataset, out: &Path) -> Result<Vec<PathBuf>> {
    let path = nc.path().to_path_buf();
    let not_ours = |why: &str| not_ours(&path, why);
    let h = nc.header().clone();
    let time = nc.var("time").map_err(|_| not_ours("no time variable"))?.clone();
    if !h.is_record(&time) || time.dims.len() != 1 {
        return Err(not_ours("time is not the record coordinate"));
    }
    let times =
        (0..nc.records()).map(|r| nc.read("time", Some(r)).map(|v| v.to_f64()[0])).collect::<Result<Vec<_>>>()?;
    let unit = super::cf::time_unit_of(time.text("units").unwrap_or("")).to_string();
    let fields: Vec<_> =
        h.vars.iter().filter(|v| h.is_record(v) && v.name != "time" && matches!(v.dims.len(), 3 | 4)).collect();
    if fields.is_empty() {
        return Err(not_ours("no field of (time, y, x) or (time, z, y, x)"));
    }
    create(out)?;
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
        let extent = match (edges(nc, across)?, edges(nc, up)?) {
            (Some([w, e]), Some([s, n])) => Some([w, e, s, n]),
            _ => None,
        };
        // A volume: the horizontal slice through the middle of the box.
        let (offset, slice) = match shape.len() {
            3 => (shape[0] / 2 * nx * ny, format!(", {} = {} (middle)", names[1], shape[0] / 2)),
            _ => (0, String::new()),
        };
        let read = |nc: &mut Dataset, r: usize| {
            nc.read(&v.name, Some(r as u64)).map(|d| unfilled(v, slice_of(d, offset, nx * ny)))
        };
        // Two passes, one record in memory at a time: the range over all times, then the maps.
        let mut range: Option<(f64, f64)> = None;
        for r in 0..times.len() {
            for x in read(nc, r)?.0.into_iter().filter(|x| x.is_finite()) {
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
            let (data, outside) = read(nc, r)?;
            if outside {
                opts.unset = Some(OUTSIDE);
            }
            write_field_png(&file, &data, nx, ny, &opts)?;
            written.push(file);
        }
    }
    Ok(written)
}

/// The 2-D variables of a file without time (the maximum maps), each over its own finite range
/// (from 0 where all are positive: depths, speeds, times); NaN in the arrival map is water that
/// never arrived, keyed as such.
fn plot_maps(nc: &mut Dataset, out: &Path) -> Result<Vec<PathBuf>> {
    let h = nc.header().clone();
    let mut written = Vec::new();
    for v in h
        .vars
        .iter()
        .filter(|v| v.dims.len() == 2 && matches!(v.ty, super::classic::Type::Float | super::classic::Type::Double))
    {
        let (up, across) = (h.dims[v.dims[0]].name.as_str(), h.dims[v.dims[1]].name.as_str());
        if nc.var(across).is_err() || nc.var(up).is_err() {
            return Err(not_ours(nc.path(), &format!("{} has no coordinate variables {across} and {up}", v.name)));
        }
        let shape = nc.shape(v);
        let (mut data, outside) = unfilled(v, nc.read(&v.name, None)?.to_f64());
        let mut units = v.text("units").unwrap_or("");
        if units == "s" {
            // A map of times, drawn in the unit its span reads best in.
            let (unit, per) = time_unit(data.iter().copied().filter(|x| x.is_finite()).fold(0.0, f64::max));
            data.iter_mut().for_each(|x| *x /= per);
            units = unit;
        }
        let long_name = v.text("long_name").unwrap_or(&v.name);
        let mut opts = MapOptions::new(long_name.to_string(), format!("{} [{units}]", v.name));
        let finite = data.iter().copied().filter(|x| x.is_finite());
        if let Some((lo, hi)) = finite.clone().reduce(f64::min).zip(finite.reduce(f64::max)) {
            opts.range = Some((lo.min(0.0), hi));
        }
        opts.axes = (axis_label(across), axis_label(up));
        if v.name == "arrival" {
            opts.unset = Some(NEVER_ARRIVED);
        } else if outside {
            opts.unset = Some(OUTSIDE);
        }
        if let (Some([w, e]), Some([s, n])) = (edges(nc, across)?, edges(nc, up)?) {
            opts = opts.in_metres([w, e, s, n]);
        }
        let file = out.join(format!("{}.png", v.name));
        write_field_png(&file, &data, shape[1], shape[0], &opts)?;
        written.push(file);
    }
    Ok(written)
}

/// A gauges file (CF timeSeries, a record per sample): per gauge, one picture of its depth
/// above its surface against time, `gauge_<name>.png`.
fn plot_gauges(nc: &mut Dataset, out: &Path) -> Result<Vec<PathBuf>> {
    let path = nc.path().to_path_buf();
    for name in ["time", "station_name", "x", "y", "h", "eta"] {
        if nc.var(name).is_err() {
            return Err(not_ours(&path, &format!("a timeSeries file without {name}")));
        }
    }
    let names = nc.read_text("station_name")?;
    let (xs, ys) = (nc.read("x", None)?.to_f64(), nc.read("y", None)?.to_f64());
    let unit = super::cf::time_unit_of(nc.var("time")?.text("units").unwrap_or("")).to_string();
    let n = names.len();
    let (mut t, mut h, mut eta) = (Vec::new(), vec![Vec::new(); n], vec![Vec::new(); n]);
    for r in 0..nc.records() {
        t.push(nc.read("time", Some(r))?.to_f64()[0]);
        for (series, var) in [(&mut h, "h"), (&mut eta, "eta")] {
            let v = nc.read(var, Some(r))?.to_f64();
            if v.len() != n {
                return Err(not_ours(&path, &format!("{var} holds {} values a sample for {n} stations", v.len())));
            }
            series.iter_mut().zip(v).for_each(|(s, x)| s.push(x));
        }
    }
    let mut written = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let at = format!("gauge {name} at x = {} m, y = {} m", xs[k], ys[k]);
        let panel = |what: &str, label: &str, y: &[f64], color| {
            let curve = Series { name: label.to_string(), x: t.clone(), y: y.to_vec(), color, dashed: false };
            let opts = PlotOptions {
                title: format!("{at}: {what}"),
                x_label: format!("t [{unit}]"),
                y_label: format!("{label} [m]"),
            };
            (vec![curve], opts)
        };
        let panels = [
            panel("water depth", "h", &h[k], [31, 119, 180]),
            panel("surface elevation", "eta", &eta[k], [44, 160, 44]),
        ];
        // Only letters, digits, '_' and '-' from a name into a file name (hydrokern's are so).
        let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        let file = out.join(format!("gauge_{safe}.png"));
        write_panels_png(&file, &panels)?;
        written.push(file);
    }
    Ok(written)
}

/// A lines file (CF timeSeries of discharge, a record per sample): per line, one picture of its
/// discharge against time, `line_<name>.png`.
fn plot_lines(nc: &mut Dataset, out: &Path) -> Result<Vec<PathBuf>> {
    let path = nc.path().to_path_buf();
    for name in ["time", "line_name", "discharge"] {
        if nc.var(name).is_err() {
            return Err(not_ours(&path, &format!("a timeSeries file without {name}")));
        }
    }
    let names = nc.read_text("line_name")?;
    let unit = super::cf::time_unit_of(nc.var("time")?.text("units").unwrap_or("")).to_string();
    let n = names.len();
    let (mut t, mut q) = (Vec::new(), vec![Vec::new(); n]);
    for r in 0..nc.records() {
        t.push(nc.read("time", Some(r))?.to_f64()[0]);
        let v = nc.read("discharge", Some(r))?.to_f64();
        if v.len() != n {
            return Err(not_ours(&path, &format!("discharge holds {} values a sample for {n} lines", v.len())));
        }
        q.iter_mut().zip(v).for_each(|(s, x)| s.push(x));
    }
    let mut written = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let curve = Series { name: "Q".into(), x: t.clone(), y: q[k].clone(), color: [31, 119, 180], dashed: false };
        let opts = PlotOptions {
            title: format!("line {name}: discharge, positive from its left to its right"),
            x_label: format!("t [{unit}]"),
            y_label: "Q [m³/s]".into(),
        };
        // Only letters, digits, '_' and '-' from a name into a file name (hydrokern's are so).
        let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        let file = out.join(format!("line_{safe}.png"));
        write_panels_png(&file, &[(vec![curve], opts)])?;
        written.push(file);
    }
    Ok(written)
}

/// `data` of variable `v` with its fill value (`_FillValue`: no data, as the cells outside a
/// run's domain) as NaN, and whether it held any.
fn unfilled(v: &Var, mut data: Vec<f64>) -> (Vec<f64>, bool) {
    let mut any = false;
    if let Some(&fill) = v.attr("_FillValue").and_then(|a| a.numbers()).as_ref().and_then(|f| f.first()) {
        for x in data.iter_mut().filter(|x| **x == fill) {
            *x = f64::NAN;
            any = true;
        }
    }
    (data, any)
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
