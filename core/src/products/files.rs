//! The products' files: a CSV per gauge and the maps as NPY arrays and pictures.

use super::{GAUGE_COLUMNS, Products};
use crate::case::{Format, OutputSection};
use crate::grid::Grid2;
use crate::model::Output;
use crate::output::png::{MapOptions, write_field_png};
use crate::output::write_npy;
use crate::run::RunDir;
use crate::{GpuReal, Result};
use std::borrow::Cow;
use std::fmt::Write as _;

/// The arrival map's key for its NaN cells, drawn in [`crate::output::png::UNSET_COLOR`].
pub const NEVER_ARRIVED: &str = "none (wet at t = 0 or never reached)";

/// Write `gauge_<name>.csv` for every gauge and the maps as `max_h.npy`, `max_speed.npy`,
/// `arrival.npy` (with `output` asking for NPY) and their pictures (asking for PNG), each whole
/// (the run directory writes atomically); the names written. The arrival map's colours span
/// [0, `t_end`], so its pictures compare across snapshots.
pub fn write<T: GpuReal>(
    dir: &mut RunDir,
    p: &Products<T>,
    grid: &Grid2,
    t_end: f64,
    output: &OutputSection,
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
    // Each map's NPY file and picture on a thread of their own: the maps are as large as a
    // field and come at the end of the run, where nothing else overlaps them.
    let (npy, png) = (output.wants(Format::Npy), output.wants(Format::Png));
    let files: Vec<(String, (&Output<T>, bool))> = p
        .maps
        .iter()
        .flat_map(|m| [(format!("{}.npy", m.name), (m, false)), (format!("{}.png", m.name), (m, true))])
        .filter(|(_, (_, picture))| if *picture { png } else { npy })
        .collect();
    dir.write_each(&files, |path, &(m, picture)| {
        let shown =
            if m.name == "arrival" { Cow::Owned(super::arrival_shown(&m.data)) } else { Cow::Borrowed(&m.data[..]) };
        if !picture {
            return write_npy(path, &shown, &m.dims);
        }
        let v: Vec<f64> = shown.iter().map(|x| x.to_f64()).collect();
        let hi = v.iter().filter(|x| x.is_finite()).fold(0.0f64, |a, &b| a.max(b)).max(1e-12);
        let mut map =
            MapOptions::new(m.long_name.to_string(), format!("{} [{}]", m.name, m.units)).in_metres(grid.edges());
        map.range = Some((0.0, if m.name == "arrival" && t_end.is_finite() { t_end } else { hi }));
        if m.name == "arrival" {
            map.unset = Some(NEVER_ARRIVED);
        }
        write_field_png(path, &v, grid.nx, grid.ny, &map)
    })?;
    names.extend(files.into_iter().map(|(name, _)| name));
    Ok(names)
}
