//! The products' files in the run directory: a CSV per gauge, one of the lines' discharges,
//! and the maps as NPY arrays, pictures and GeoTIFFs.

use super::RunDir;
use crate::case::{Format, OutputSection};
use crate::grid::Grid2;
use crate::model::{LineSeries, Output, Products};
use crate::output::png::{MapOptions, NEVER_ARRIVED, NEVER_WET, OUTSIDE, time_unit, write_field_png};
use crate::output::{GeoRef, outside_as, write_geotiff, write_npy};
use crate::products::GAUGE_COLUMNS;
use crate::{GpuReal, Result};
use std::fmt::Write as _;

/// The lines' discharges' file in the run directory.
pub const LINES_FILE: &str = "lines.csv";

/// Write `gauge_<name>.csv` for every gauge, [`LINES_FILE`] with every line's discharge, and
/// the maps, as the files show them
/// ([`crate::products::shown`]), as `max_h.npy`, `max_speed.npy`, … (with `output` asking for NPY),
/// their pictures (asking for PNG) and GeoTIFFs `max_h.tif`, … in the system `epsg` (asking
/// for GeoTIFF, cells outside the domain, `active` false, as nodata), each whole (the run
/// directory writes atomically); the names written. The time maps' colours span [0, `t_end`],
/// so their pictures compare across snapshots.
pub fn write<T: GpuReal>(
    dir: &mut RunDir,
    p: &Products<T>,
    grid: &Grid2,
    t_end: f64,
    output: &OutputSection,
    epsg: Option<u16>,
    active: Option<&[bool]>,
) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for s in &p.series {
        let mut csv = format!(
            "# gauge {} at x = {} m, y = {} m (cell {}, {}); t in s, h and eta in m, hu and hv in m²/s\nt,{}\n",
            s.gauge.name,
            s.gauge.x,
            s.gauge.y,
            s.cell % grid.nx,
            s.cell / grid.nx,
            GAUGE_COLUMNS.join(",")
        );
        for (t, v) in s.times.iter().zip(&s.values) {
            // Shortest decimal that reads back as the same number.
            let _ = writeln!(csv, "{t},{},{},{},{}", v[0], v[1], v[2], v[3]);
        }
        let name = format!("gauge_{}.csv", s.gauge.name);
        dir.write(&name, |path| crate::output::write_atomic(path, csv.as_bytes()))?;
        names.push(name);
    }
    if !p.lines.is_empty() {
        dir.write(LINES_FILE, |path| crate::output::write_atomic(path, lines_csv(&p.lines).as_bytes()))?;
        names.push(LINES_FILE.to_string());
    }
    // Each map's NPY file and picture on a thread of their own: the maps are as large as a
    // field and come at the end of the run, where nothing else overlaps them.
    let wanted = [
        ("npy", output.wants(Format::Npy)),
        ("png", output.wants(Format::Png)),
        ("tif", output.wants(Format::Geotiff)),
    ];
    let files: Vec<(String, (&Output<T>, &str))> = p
        .maps
        .iter()
        .flat_map(|m| wanted.iter().filter(|w| w.1).map(move |&(ext, _)| (format!("{}.{ext}", m.name), (m, ext))))
        .collect();
    let geo = GeoRef::of(grid, epsg);
    dir.write_each(&files, |path, &(m, ext)| {
        match ext {
            "npy" => return write_npy(path, &m.data, &m.dims),
            "tif" => return write_geotiff(path, &outside_as(&m.data, active, T::NAN), grid.nx, grid.ny, &geo),
            _ => {}
        }
        let time = matches!(m.name, "arrival" | "max_h_time" | "duration");
        let hi = m.data.iter().map(|x| x.to_f64()).filter(|x| x.is_finite()).fold(0.0f64, f64::max).max(1e-12);
        // Times over the run, drawn in the unit its length reads best in (the files keep seconds).
        let top = if time && t_end.is_finite() { t_end } else { hi };
        let (units, per) = if time { time_unit(top) } else { (m.units, 1.0) };
        let v: Vec<f64> = outside_as(&m.data, active, T::NAN).iter().map(|x| x.to_f64() / per).collect();
        let mut map = MapOptions::new(m.long_name.to_string(), format!("{} [{units}]", m.name)).in_metres(grid.edges());
        map.range = Some((0.0, top / per));
        match m.name {
            "arrival" => map.unset = Some(NEVER_ARRIVED),
            "max_h_time" => map.unset = Some(NEVER_WET),
            _ if active.is_some_and(|a| a.contains(&false)) => map.unset = Some(OUTSIDE),
            _ => {}
        }
        write_field_png(path, &v, grid.nx, grid.ny, &map)
    })?;
    names.extend(files.into_iter().map(|(name, _)| name));
    Ok(names)
}

/// The lines' CSV: a comment line with the units and the sign, then `t` and a column per line
/// (its name), a row per sample.
fn lines_csv(lines: &[LineSeries]) -> String {
    let names: Vec<&str> = lines.iter().map(|l| l.line.name.as_str()).collect();
    let mut csv = format!(
        "# discharge through each line in m³/s, positive from its left to its right looking from \
         its first point to its last; t in s\nt,{}\n",
        names.join(",")
    );
    for (k, t) in lines[0].times.iter().enumerate() {
        let _ = write!(csv, "{t}");
        for l in lines {
            // Shortest decimal that reads back as the same number.
            let _ = write!(csv, ",{}", l.discharge[k]);
        }
        csv.push('\n');
    }
    csv
}
