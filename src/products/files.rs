//! The products' files: a CSV per gauge and the maps as NPY arrays and pictures.

use super::{GAUGE_COLUMNS, Products};
use crate::grid::Grid2;
use crate::output::png::{MapOptions, write_field_png};
use crate::output::write_npy;
use crate::run::RunDir;
use crate::{GpuReal, Result};
use std::fmt::Write as _;

/// The arrival map's key for its NaN cells, drawn in [`crate::output::png::UNSET_COLOR`].
pub const NEVER_ARRIVED: &str = "never arrived";

/// Write `gauge_<name>.csv` for every gauge and `max_h.npy`, `max_speed.npy`, `arrival.npy`
/// with their maps and pictures, each whole (the run directory writes atomically); the names
/// written. The arrival map's colours span [0, `t_end`], so its pictures compare across
/// snapshots.
pub fn write<T: GpuReal>(dir: &mut RunDir, p: &Products<T>, grid: &Grid2, t_end: f64) -> Result<Vec<String>> {
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
    for m in &p.maps {
        let name = format!("{}.npy", m.name);
        dir.write(&name, |path| write_npy(path, &m.data, &m.dims))?;
        names.push(name);
        let v: Vec<f64> = m.data.iter().map(|x| x.to_f64()).collect();
        let hi = v.iter().filter(|x| x.is_finite()).fold(0.0f64, |a, &b| a.max(b)).max(1e-12);
        let mut map =
            MapOptions::new(m.long_name.to_string(), format!("{} [{}]", m.name, m.units)).in_metres(grid.edges());
        map.range = Some((0.0, if m.name == "arrival" && t_end.is_finite() { t_end } else { hi }));
        if m.name == "arrival" {
            map.unset = Some(NEVER_ARRIVED);
        }
        let png = format!("{}.png", m.name);
        dir.write(&png, |path| write_field_png(path, &v, grid.nx, grid.ny, &map))?;
        names.push(png);
    }
    Ok(names)
}
