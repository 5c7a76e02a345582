//! The pictures of an ADI snapshot: maps of ζ and of h = d + ζ with axes in metres over the
//! hillshaded bed, dry cells as land; the centre line of ζ along x at every snapshot so far,
//! coloured by time, with the initial ζ and the bed; and an animation of ζ. Colours keep one
//! range for the whole run ([`Ranges`]: [`zeta_range`] for ζ; 0 to the initial largest depth
//! for h), so snapshots compare.

use super::setup::{Boundary, Level, Setup};
use crate::Real;
use crate::Result;
use crate::grid::Grid2;
use crate::model::State;
use crate::output::png::{Colormap, Ground, MapOptions, PlotOptions, Profiles, Series, render_map, write_profiles_png};
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
        Boundary::Level(Level::Series(series)) => a.max(series.max_abs()),
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

/// The colour ranges every snapshot keeps: ζ's maps ± `zeta` ([`zeta_range`]), h's from 0 to
/// `h_max`, the initial largest depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranges {
    pub zeta: f64,
    pub h_max: f64,
}

impl Ranges {
    /// The ranges of a run of `s` on `grid` whose initial total depth is `h`.
    pub fn of(s: &Setup, grid: &Grid2, h: &[f64]) -> Ranges {
        Ranges { zeta: zeta_range(s, grid, h), h_max: h.iter().fold(0.0f64, |a, &v| a.max(v)) }
    }
}

/// How ζ (diverging, ± the run's range) and the total depth h (0 to the initial largest) are
/// drawn, in the pictures and the live view.
pub fn maps(ranges: Ranges) -> [MapOptions; 2] {
    let r = ranges.zeta;
    let mut zeta = MapOptions::new("surface elevation", "ζ [m]");
    zeta.range = Some((-r, r));
    zeta.colormap = Colormap::diverging();
    let mut depth = MapOptions::new("total depth h = d + ζ", "h [m]");
    depth.range = Some((0.0, ranges.h_max.max(1e-12)));
    [zeta, depth]
}

/// Cells no deeper than the drying depth, drawn as land.
pub fn dry_cells(s: &Setup, h: &[f64]) -> Vec<bool> {
    let dry_below = s.drying.map_or(f64::NEG_INFINITY, |(d, _)| d);
    h.iter().map(|&h| h <= dry_below).collect()
}

/// `zeta_t<time>.png`, `h_t<time>.png` (over the hillshaded bed, dry cells as land),
/// `centreline.png` and a frame of `zeta.gif`; `t_end` is the run's end, the end of the colour
/// scale of time in the profile plot.
pub fn write<T: Real>(
    s: &Setup,
    g: &Grid2,
    ranges: Ranges,
    t_end: f64,
    state: &State<T>,
    album: &mut Album,
    dir: &mut RunDir,
) -> Result<()> {
    let (Some(zeta), Some(h)) = (state.field("zeta"), state.field("h")) else { return Ok(()) };
    let t = time_tag(state.clock.t);
    let (lx, ly) = g.extent();
    let size = format!("{lx} m × {ly} m, {}×{} cells", g.nx, g.ny);
    let z: Vec<f64> = zeta.data.iter().map(|v| v.to_f64()).collect();
    let hv: Vec<f64> = h.data.iter().map(|v| v.to_f64()).collect();
    // The bed lies at −d; cells no deeper than the drying depth are land.
    let bed: Vec<f64> = s.depth.iter().map(|d| -d).collect();
    let dry = dry_cells(s, &hv);
    let ground = Ground { bed: &bed, dry: &dry };
    let [zeta_map, depth_map] = maps(ranges);
    let map = MapOptions { title: format!("surface elevation, t = {t} s ({size})"), ..zeta_map.in_metres(g.edges()) };
    let pic = render_map(&z, g.nx, g.ny, &map, Some(&ground))?;
    dir.write(&format!("zeta_t{t}.png"), |p| pic.write_png(p))?;
    album.animations.push("zeta.gif", pic);
    let map =
        MapOptions { title: format!("total depth h = d + ζ, t = {t} s ({size})"), ..depth_map.in_metres(g.edges()) };
    let pic = render_map(&hv, g.nx, g.ny, &map, Some(&ground))?;
    dir.write(&format!("h_t{t}.png"), |p| pic.write_png(p))?;
    // The centre line (the middle row): ζ at every snapshot so far, the initial ζ dashed, and
    // the bed where it comes within the waves' range (the tidal flats; not a deep basin's floor).
    let row = g.ny / 2;
    let cells = row * g.nx..(row + 1) * g.nx;
    album.profiles.push((state.clock.t, z[cells.clone()].to_vec()));
    let x: Vec<f64> = (0..g.nx).map(|i| g.centre(i, row).0).collect();
    let initial = Series {
        name: "t = 0 s".into(),
        x: x.clone(),
        y: s.zeta[cells.clone()].to_vec(),
        color: [0, 0, 0],
        dashed: true,
    };
    let profiles = Profiles {
        x,
        curves: album.profiles.clone(),
        times: (0.0, t_end),
        time_label: "t [s]".into(),
        references: vec![initial],
        bed: Some(bed[cells].to_vec()),
    };
    let opts = PlotOptions {
        title: format!("surface elevation along y = {:.2} m, every snapshot to t = {t} s", g.centre(0, row).1),
        x_label: "x [m]".into(),
        y_label: "ζ [m]".into(),
    };
    dir.write("centreline.png", |p| write_profiles_png(p, &profiles, &opts))
}
