//! The pictures of a wave-propagation snapshot: a map of the first state field in 2D (a depth's
//! dry cells drawn as land); in 3D three slices of it through the cells nearest the middle of
//! the box (across z, y and x), so a user sees the field in every plane without a 3D viewer;
//! and an animation of the map (of the slice across z in 3D). Colours use one fixed range for
//! the whole run (from the initial data), axes are in metres.

use crate::Real;
use crate::Result;
use crate::grid::Mesh;
use crate::model::State;
use crate::output::png::{Colormap, Ground, MapOptions, render_map};
use crate::run::{Album, RunDir, time_tag};

/// A fixed colour range for the pictures of field `name` from its initial values on `mesh`:
/// from 0 for a depth; for a pressure or velocity perturbation, symmetric about 0 at a fraction
/// of the initial peak — a half in 2D, an eighth in 3D, where a spreading pulse's amplitude
/// falls like 1/r rather than 1/√r (the pulse saturates at first; the waves it spreads into
/// stay visible); the data's own range otherwise.
pub fn colour_range(mesh: &Mesh, name: &str, v: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = v.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    let span = |lo: f64, hi: f64| if hi > lo { (lo, hi) } else { (lo - 1.0, hi + 1.0) };
    let fraction = match mesh {
        Mesh::Plane(_) => 0.5,
        Mesh::Volume(_) => 0.125,
    };
    match name {
        "h" => span(0.0, hi),
        "p" | "u" | "v" | "w" => {
            let m = fraction * lo.abs().max(hi.abs());
            span(-m, m)
        }
        _ => span(lo, hi),
    }
}

/// Depths at most this (m) are drawn as dry land, as the shallow-water solver `kp` draws them.
pub const DRY_DEPTH: f64 = 1e-3;

/// How a field `name` is drawn over `range` (the live view's map too): diverging colours for a
/// pressure or velocity, viridis for the rest.
pub fn map_options(name: &str, units: &str, range: (f64, f64)) -> MapOptions {
    let mut map = MapOptions::new(name, format!("{name} [{units}]"));
    map.range = Some(range);
    if matches!(name, "p" | "u" | "v" | "w") {
        map.colormap = Colormap::diverging();
    }
    map
}

/// Writes the snapshot's pictures: `<field>_t<time>.png` and a frame of `<field>.gif` in 2D;
/// `<field>_xy_t<time>.png`, `<field>_xz_…` and `<field>_yz_…` and a frame of `<field>_xy.gif`
/// in 3D.
pub fn write<T: Real>(
    mesh: &Mesh,
    state: &State<T>,
    range: (f64, f64),
    album: &mut Album,
    dir: &mut RunDir,
) -> Result<()> {
    let Some(f) = state.fields.first() else { return Ok(()) };
    let v: Vec<f64> = f.data.iter().map(|x| x.to_f64()).collect();
    let t = time_tag(state.clock.t);
    let options = |title: String| MapOptions { title, ..map_options(f.name, f.units, range) };
    match mesh {
        Mesh::Plane(g) => {
            let (lx, ly) = g.extent();
            let title = format!("{} at t = {t} s ({}x{} cells, {lx} m x {ly} m)", f.long_name, g.nx, g.ny);
            let map = options(title).in_metres(g.edges());
            // A depth's dry cells are land (on a flat bed: these equations have none).
            let (flat, dry): (Vec<f64>, Vec<bool>) = v.iter().map(|&h| (0.0, h <= DRY_DEPTH)).unzip();
            let ground = (f.name == "h").then_some(Ground { bed: &flat, dry: &dry });
            let pic = render_map(&v, g.nx, g.ny, &map, ground.as_ref())?;
            dir.write(&format!("{}_t{t}.png", f.name), |path| pic.write_png(path))?;
            album.animations.push(&format!("{}.gif", f.name), pic);
            Ok(())
        }
        Mesh::Volume(g) => {
            let (nx, ny, nz) = (g.nx, g.ny, g.nz);
            let (i, j, k) = (nx / 2, ny / 2, nz / 2);
            let (x, y, z) = g.cell_centre(i, j, k);
            let (lx, ly, lz) = g.extent();
            let (x0, y0, z0) = g.origin;
            let at = |i: usize, j: usize, k: usize| v[(k * ny + j) * nx + i];
            // (name, the slice's values with its horizontal axis fastest, its size, where it
            // lies, its extent, its axes)
            let slices = [
                (
                    "xy",
                    (0..ny)
                        .flat_map(|j| (0..nx).map(move |i| (i, j, k)))
                        .map(|(i, j, k)| at(i, j, k))
                        .collect::<Vec<_>>(),
                    (nx, ny),
                    format!("z = {z:.3} m"),
                    [x0, x0 + lx, y0, y0 + ly],
                    ("x [m]", "y [m]"),
                ),
                (
                    "xz",
                    (0..nz).flat_map(|k| (0..nx).map(move |i| (i, j, k))).map(|(i, j, k)| at(i, j, k)).collect(),
                    (nx, nz),
                    format!("y = {y:.3} m"),
                    [x0, x0 + lx, z0, z0 + lz],
                    ("x [m]", "z [m]"),
                ),
                (
                    "yz",
                    (0..nz).flat_map(|k| (0..ny).map(move |j| (i, j, k))).map(|(i, j, k)| at(i, j, k)).collect(),
                    (ny, nz),
                    format!("x = {x:.3} m"),
                    [y0, y0 + ly, z0, z0 + lz],
                    ("y [m]", "z [m]"),
                ),
            ];
            for (name, values, (w, h), place, extent, (across, up)) in slices {
                let title = format!("{} at t = {t} s, slice {place} ({nx}x{ny}x{nz} cells)", f.long_name);
                let map = options(title).in_metres(extent).with_axes(across, up);
                let pic = render_map(&values, w, h, &map, None)?;
                dir.write(&format!("{}_{name}_t{t}.png", f.name), |path| pic.write_png(path))?;
                if name == "xy" {
                    album.animations.push(&format!("{}_xy.gif", f.name), pic);
                }
            }
            Ok(())
        }
    }
}
