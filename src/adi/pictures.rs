//! The pictures of an ADI snapshot: maps of ζ and of h = d + ζ with axes in metres, and the
//! centre line of ζ along x at every snapshot so far. Colours keep one range for the whole run
//! ([`zeta_range`] for ζ; 0 to the initial largest depth for h), so snapshots compare.

use super::case::AdiCase;
use super::{Boundary, Level, Setup};
use crate::Real;
use crate::Result;
use crate::grid::Grid2;
use crate::model::State;
use crate::output::png::{Colormap, MapOptions, PlotOptions, Series, write_field_png, write_line_plot_png};
use crate::run::{Album, RunDir, time_tag};

/// The ζ maps' range, ± this (m): the larger of the initial |ζ| over the water (cells whose
/// initial depth exceeds the drying depth) and the boundaries' largest |level|; for a basin at
/// rest without level boundaries (a wind set-up), the steady set-up's end-to-end rise
/// τ L/(g d̄) over two; 1 cm if that is zero too.
pub fn zeta_range(s: &Setup, grid: &Grid2, h: &[f64]) -> f64 {
    let dry = s.drying.map_or(0.0, |(d, _)| d);
    let water = s.zeta.iter().zip(h).filter(|(_, h)| **h > dry).fold(0.0f64, |a, (z, _)| a.max(z.abs()));
    let edges = s.sides.iter().fold(0.0f64, |a, b| match b {
        Boundary::Level(Level::Sine(t)) => a.max(t.mean.abs() + t.amplitude),
        Boundary::Level(Level::Series(series)) => series.levels.iter().fold(a, |a, z| a.max(z.abs())),
        _ => a,
    });
    let mut r = water.max(edges);
    if r == 0.0 {
        let (tx, ty) = s.wind.stress();
        let (lx, ly) = grid.extent();
        let wet: Vec<f64> = h.iter().copied().filter(|&v| v > dry).collect();
        let mean = wet.iter().sum::<f64>() / wet.len().max(1) as f64;
        r = 0.5 * (tx.abs() * lx + ty.abs() * ly) / (s.g * mean);
    }
    if r > 0.0 && r.is_finite() { r } else { 0.01 }
}

const COLORS: [[u8; 3]; 6] = [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189], [140, 86, 75]];

/// `zeta_t<time>.png`, `h_t<time>.png` and `centreline.png`.
pub fn write<T: Real>(case: &AdiCase, g: &Grid2, state: &State<T>, album: &mut Album, dir: &mut RunDir) -> Result<()> {
    let (Some(zeta), Some(h)) = (state.field("zeta"), state.field("h")) else { return Ok(()) };
    let t = time_tag(state.clock.t);
    let (lx, ly) = g.extent();
    let size = format!("{}x{} cells, {lx} m x {ly} m", g.nx, g.ny);
    let z: Vec<f64> = zeta.data.iter().map(|v| v.to_f64()).collect();
    let r = case.zeta_range;
    let mut map = MapOptions::new(format!("surface elevation at t = {t} s ({size})"), "zeta [m]").in_metres(g.edges());
    map.range = Some((-r, r));
    map.colormap = Colormap::diverging();
    dir.write(&format!("zeta_t{t}.png"), |p| write_field_png(p, &z, g.nx, g.ny, &map))?;
    let hv: Vec<f64> = h.data.iter().map(|v| v.to_f64()).collect();
    let mut map = MapOptions::new(format!("total depth at t = {t} s ({size})"), "h [m]").in_metres(g.edges());
    map.range = Some((0.0, case.h_max.max(1e-12)));
    dir.write(&format!("h_t{t}.png"), |p| write_field_png(p, &hv, g.nx, g.ny, &map))?;
    // The centre line (the middle row), every snapshot so far.
    let row = g.ny / 2;
    album.profiles.push((state.clock.t, z[row * g.nx..(row + 1) * g.nx].to_vec()));
    let x: Vec<f64> = (0..g.nx).map(|i| g.centre(i, row).0).collect();
    let series: Vec<Series> = album
        .profiles
        .iter()
        .enumerate()
        .map(|(k, (t, y))| Series { name: format!("t = {t} s"), x: x.clone(), y: y.clone(), color: COLORS[k % COLORS.len()], dashed: false })
        .collect();
    let opts = PlotOptions {
        title: format!("surface elevation along y = {:.2} m", g.centre(0, row).1),
        x_label: "x [m]".into(),
        y_label: "zeta [m]".into(),
    };
    dir.write("centreline.png", |p| write_line_plot_png(p, &series, &opts))
}
