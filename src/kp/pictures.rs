//! The pictures of a shallow-water snapshot: maps of depth, surface elevation and speed over the
//! hillshaded bed, dry cells as land; the water surface and the bed along the centre line at
//! every snapshot so far, with the initial surface; and an animation of the depth.
//!
//! Every colour range is fixed for the run by the initial state and the physics
//! ([`Ranges::of`]), so the snapshots of a run compare colour for colour.

use super::Problem;
use crate::grid::Grid2;
use crate::model::State;
use crate::output::outside_as;
use crate::output::png::{
    Ground, MapOptions, OUTSIDE, Picture, PlotOptions, Profiles, Scale, Series, render_map, write_profiles_png,
};
use crate::run::{Album, RunDir, time_tag};
use crate::view::Layer;
use crate::{Real, Result};
use rayon::prelude::*;

/// Cells shallower than this (m) are drawn as dry land: thinner films are numerical residue of
/// the wet–dry front, not water a reader should see.
pub const DRY_DEPTH: f64 = 1e-3;

/// The colour ranges of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranges {
    /// 0 to the deepest initial water, on a square-root scale (a 10 m column and the 20 cm sheet
    /// it spreads into both show).
    pub depth: (f64, f64),
    /// The initial water surface's lowest to highest level, reaching down to the lowest dry
    /// bed below it (a reservoir above a valley: the water that runs down shows), and where it
    /// is flat with nothing dry below (a lake), from the lowest bed instead.
    pub surface: (f64, f64),
    /// 0 to the larger of the fastest initial flow and 2√(g h) of the deepest water, the speed of
    /// a dam break's front on a dry bed (Ritter's solution): faster cells take the top colour,
    /// marked "≥" on the bar.
    pub speed: (f64, f64),
}

impl Ranges {
    /// The ranges of problem `p` with its bed at the cell centres `beds`.
    pub fn of(p: &Problem, beds: &[f64]) -> Ranges {
        let n = p.nx * p.ny;
        let h_max = p.h.iter().fold(0.0f64, |a, &h| a.max(h));
        let wet = || (0..n).filter(|&k| p.h[k] > DRY_DEPTH);
        let (lo, hi) = wet().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), k| {
            let eta = beds[k] + p.h[k];
            (a.min(eta), b.max(eta))
        });
        let lowest_bed = beds.iter().fold(f64::INFINITY, |a, &b| a.min(b));
        let lowest_dry = (0..n).filter(|&k| p.h[k] <= DRY_DEPTH).fold(f64::INFINITY, |a, k| a.min(beds[k]));
        let lo = lo.min(lowest_dry);
        let surface = if hi > lo { (lo, hi) } else { (lowest_bed.min(lo), hi.max(lowest_bed)) };
        let u_max = wet().fold(0.0f64, |a, k| a.max(p.hu[k].hypot(p.hv[k]) / p.h[k]));
        let speed = u_max.max(2.0 * (p.g * h_max).sqrt());
        let pos = |v: f64| if v > 0.0 && v.is_finite() { v } else { 1.0 };
        let surface = if surface.0.is_finite() && surface.1.is_finite() { surface } else { (0.0, 1.0) };
        Ranges { depth: (0.0, pos(h_max)), surface, speed: (0.0, pos(speed)) }
    }
}

/// The bed at each cell centre (the mean of its corners, as the scheme takes it).
fn cell_beds(p: &Problem) -> Vec<f64> {
    (0..p.nx * p.ny).into_par_iter().map(|k| p.cell_bed(k % p.nx, k / p.nx)).collect()
}

/// What every snapshot's pictures of a run share: the colour ranges and the bed at the cell
/// centres, worked out once (at 4096², each is a pass over 16.7 M cells).
pub struct Still {
    pub ranges: Ranges,
    pub bed: Vec<f64>,
}

impl Still {
    pub fn of(p: &Problem) -> Still {
        let bed = cell_beds(p);
        Still { ranges: Ranges::of(p, &bed), bed }
    }
}

/// The maps of a state, as both the snapshot pictures and the live view draw them: depth (on a
/// square-root scale), surface and speed over the run's `ranges`, from the depth `h`, the
/// momenta and the `bed` at the same cells; and which cells are dry (drawn as land).
pub fn maps(ranges: &Ranges, bed: &[f64], h: Vec<f64>, hu: &[f64], hv: &[f64]) -> (Vec<bool>, [Layer; 3]) {
    let dry: Vec<bool> = h.par_iter().map(|&d| d <= DRY_DEPTH).collect();
    let surface: Vec<f64> = h.par_iter().zip(bed).map(|(d, b)| d + b).collect();
    let speed: Vec<f64> =
        (0..h.len()).into_par_iter().map(|k| if dry[k] { 0.0 } else { hu[k].hypot(hv[k]) / h[k] }).collect();
    let map = |what: &str, label: &str, range| {
        let mut m = MapOptions::new(what, label);
        m.range = Some(range);
        m
    };
    let depth = MapOptions { scale: Scale::Sqrt, ..map("water depth", "h [m]", ranges.depth) };
    let maps = [
        Layer { name: "depth", opts: depth, values: h, dry: None, relief: None },
        Layer {
            name: "surface",
            opts: map("water surface elevation", "η = b + h [m]", ranges.surface),
            values: surface,
            dry: None,
            relief: None,
        },
        Layer {
            name: "speed",
            opts: map("flow speed", "|u| [m/s]", ranges.speed),
            values: speed,
            dry: None,
            relief: None,
        },
    ];
    (dry, maps)
}

/// The cells outside the domain (`active` false) among `cells` (the whole grid's cells at the
/// maps' values, in order) as no data in `maps`: NaN, not land in `dry`, keyed as outside.
pub fn mark_outside(active: Option<&[bool]>, cells: impl Iterator<Item = usize>, dry: &mut [bool], maps: &mut [Layer]) {
    let Some(active) = active.filter(|a| a.contains(&false)) else { return };
    for (k, _) in cells.enumerate().filter(|&(_, c)| !active[c]) {
        dry[k] = false;
        maps.iter_mut().for_each(|layer| layer.values[k] = f64::NAN);
    }
    maps.iter_mut().for_each(|layer| layer.opts.unset = Some(OUTSIDE));
}

/// `depth_t<time>.png`, `surface_t<time>.png`, `speed_t<time>.png`, `centreline.png`, and a
/// frame of `depth.gif`.
#[allow(clippy::too_many_arguments)]
pub fn write<T: Real>(
    p: &Problem,
    still: &Still,
    g: &Grid2,
    t_end: f64,
    state: &State<T>,
    album: &mut Album,
    dir: &mut RunDir,
) -> Result<()> {
    let (Some(h), Some(hu), Some(hv)) = (state.field("h"), state.field("hu"), state.field("hv")) else {
        return Ok(());
    };
    // Passes over every cell in parallel: the run's writer draws these while the model steps.
    let f64s = |v: &[T]| v.par_iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let (h, hu, hv) = (f64s(&h.data), f64s(&hu.data), f64s(&hv.data));
    let (bed, ranges) = (&still.bed, still.ranges);
    let (mut dry, mut maps) = maps(&ranges, bed, h, &hu, &hv);
    mark_outside(p.active.as_deref(), 0..dry.len(), &mut dry, &mut maps);
    // No bed outside the domain: those cells shade flat in the maps' hillshade (their grey stays
    // the key's) and leave a gap in the centre-line profile, rather than drawing the bed their
    // neighbours give them.
    let shade_bed = outside_as(bed, p.active.as_deref(), f64::NAN);
    let ground = Ground { bed: &shade_bed, dry: &dry };
    let t = time_tag(state.clock.t);
    let (lx, ly) = g.extent();
    let size = format!("{lx} m × {ly} m, {}×{} cells", g.nx, g.ny);
    let titled = |opts: &MapOptions| MapOptions {
        title: format!("{}, t = {t} s ({size})", opts.title),
        ..opts.clone().in_metres(g.edges())
    };
    // The three maps drawn side by side: at 4096² one takes most of a second on one core, and
    // the run's writer draws them while the model steps.
    let mut pictures: Vec<Picture> = maps
        .par_iter()
        .map(|layer| render_map(&layer.values, g.nx, g.ny, &titled(&layer.opts), Some(&ground)))
        .collect::<Result<_>>()?;
    let files: Vec<(String, &Picture)> =
        maps.iter().map(|layer| format!("{}_t{t}.png", layer.name)).zip(&pictures).collect();
    dir.write_each(&files, |path, picture| picture.write_png(path))?;
    album.animations.push("depth.gif", pictures.swap_remove(0));
    let h = &maps[0].values;

    // The centre line (the middle row): the surface at every snapshot so far, over the bed,
    // with the initial surface dashed; on dry cells the surface is the bed's.
    let row = g.ny / 2;
    let cells = row * g.nx..(row + 1) * g.nx;
    let row_bed = shade_bed[cells.clone()].to_vec();
    let line = |depths: &[f64]| -> Vec<f64> { depths.iter().zip(&row_bed).map(|(d, b)| d + b).collect() };
    album.profiles.push((state.clock.t, line(&h[cells.clone()])));
    let x: Vec<f64> = (0..g.nx).map(|i| g.centre(i, row).0).collect();
    let initial =
        Series { name: "t = 0 s".into(), x: x.clone(), y: line(&p.h[cells.clone()]), color: [0, 0, 0], dashed: true };
    let profiles = Profiles {
        x,
        curves: album.profiles.clone(),
        times: (0.0, t_end),
        time_label: "t [s]".into(),
        references: vec![initial],
        bed: Some(row_bed),
    };
    let opts = PlotOptions {
        title: format!("water surface along y = {:.2} m, every snapshot to t = {t} s", g.centre(0, row).1),
        x_label: "x [m]".into(),
        y_label: "η [m]".into(),
    };
    dir.write("centreline.png", |path| write_profiles_png(path, &profiles, &opts))
}
