//! `[forcing]` of a shallow-water case: rain, infiltration and inflows, read and checked into a
//! [`Forcing`] on the case's grid.
//!
//! ```toml
//! [forcing.rain]            # one of intensity, series, points, grids, netcdf; mm/h unless `unit` says
//! intensity = 10.8
//! [forcing.infiltration]    # Green–Ampt (or Horton, `infiltration.rs`)
//! conductivity = 6.5        # saturated hydraulic conductivity K_s, mm/h
//! suction = 166.8           # wetting-front suction head ψ, mm
//! deficit = 0.34            # moisture deficit Δθ (porosity − initial water content)
//! [[forcing.inflow]]        # one of discharge, series, points; m3/s unless `unit` says
//! side = "west"             # with from/to along it (m, the grid's coordinates), or at = [x, y]
//! from = 990.0
//! to = 1010.0
//! series = "hydrograph.csv"
//! time_unit = "min"
//! [[forcing.outlet]]        # a reach of a wall side where water leaves freely
//! side = "south"
//! kind = "normal-depth"     # or "outflow" (the default), as the sides' kinds
//! from = 800.0              # the whole side without from/to
//! to = 820.0
//! ```

use super::infiltration::InfiltrationKeys;
use super::rain_frames::FrameKeys;
use super::{DISCHARGE, Domain, Forcing, Inflow, LEVEL, LevelSide, Outlet, Quantity, RAIN, Series};
use crate::Result;
use crate::case::{Check, num};
use crate::grid::Grid2;
use serde::Deserialize;
use std::path::PathBuf;

/// `[forcing]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ForcingSection {
    rain: Option<RainKeys>,
    infiltration: Option<InfiltrationKeys>,
    #[serde(default)]
    inflow: Vec<InflowKeys>,
    #[serde(default)]
    level: Vec<LevelKeys>,
    #[serde(default)]
    outlet: Vec<OutletKeys>,
}

/// `[[forcing.outlet]]`: a reach of a wall side opened for outflow.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutletKeys {
    name: Option<String>,
    side: String,
    from: Option<f64>,
    to: Option<f64>,
    /// "outflow" (the default) or "normal-depth", as the sides' kinds.
    kind: Option<String>,
}

/// `[forcing.rain]`: uniform rain given one of three ways, or gridded rain, with its units.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RainKeys {
    /// A constant.
    intensity: Option<f64>,
    /// A CSV or whitespace file of (time, value) lines.
    series: Option<PathBuf>,
    /// Inline (time, value) points.
    points: Option<Vec<(f64, f64)>>,
    /// Rasters, each with the time it starts to hold (`rain_frames.rs`).
    grids: Option<Vec<FrameKeys>>,
    /// A NetCDF file of frames (`rain_netcdf.rs`), and its variable of rain.
    netcdf: Option<PathBuf>,
    variable: Option<String>,
    /// With grids or netcdf: the time the last frame holds until.
    end: Option<f64>,
    time_unit: Option<String>,
    unit: Option<String>,
}

/// `[[forcing.inflow]]`: a series and where it enters.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InflowKeys {
    name: Option<String>,
    side: Option<String>,
    from: Option<f64>,
    to: Option<f64>,
    at: Option<(f64, f64)>,
    discharge: Option<f64>,
    series: Option<PathBuf>,
    points: Option<Vec<(f64, f64)>>,
    time_unit: Option<String>,
    unit: Option<String>,
}

/// `[[forcing.level]]`: a water level held on (part of) a side.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelKeys {
    name: Option<String>,
    side: String,
    from: Option<f64>,
    to: Option<f64>,
    level: Option<f64>,
    series: Option<PathBuf>,
    points: Option<Vec<(f64, f64)>>,
    tide: Option<TideKeys>,
    time_unit: Option<String>,
}

/// A tide in a case file: ζ = mean + amplitude·sin(2πt/period + phase), ζ in m, t and period
/// in s, phase in degrees (the mean and phase 0 unless given).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TideKeys {
    #[serde(default)]
    pub mean: f64,
    pub amplitude: f64,
    pub period: f64,
    #[serde(default)]
    pub phase: f64,
}

/// Points a period a tide is sampled at: the linear interpolant between them is within
/// amplitude·(2π/256)²/8 ≈ 7.5e-5·amplitude of the sine.
const TIDE_POINTS: usize = 256;

impl ForcingSection {
    /// Whether the case rains (its solver may choose other defaults for sheet flow).
    pub fn has_rain(&self) -> bool {
        self.rain.is_some()
    }

    /// The forcing on `grid` for a run to `t_end` seconds whose t = 0 is the date `start`
    /// (`run.start`, which dated NetCDF rain needs); every key checked, every series read and
    /// shown to cover the run.
    pub fn load(&self, c: &Check, domain: Domain, t_end: f64, start: Option<&str>) -> Result<Forcing> {
        let grid = domain.grid;
        const ONE_OF: &str = "give exactly one of intensity (a constant), series (a file of time, value lines), points ([[t, value], …]), grids (rasters with their times) and netcdf (a NetCDF file of rain frames)";
        let (mut rain, mut rain_grid) = (None, None);
        match &self.rain {
            None => {}
            Some(r) => {
                let given = [
                    r.intensity.is_some(),
                    r.series.is_some(),
                    r.points.is_some(),
                    r.grids.is_some(),
                    r.netcdf.is_some(),
                ];
                if given.iter().filter(|&&g| g).count() != 1 {
                    return c.fail("forcing.rain", ONE_OF);
                }
                if r.end.is_some() && r.grids.is_none() && r.netcdf.is_none() {
                    return c.fail(
                        "forcing.rain.end",
                        "given without grids or netcdf: end is when the last frame of gridded rain stops holding",
                    );
                }
                if r.variable.is_some() && r.netcdf.is_none() {
                    return c
                        .fail("forcing.rain.variable", "given without netcdf: it names the file's variable of rain");
                }
            }
        }
        match &self.rain {
            None => {}
            Some(r) if r.netcdf.is_some() => {
                let keys = super::rain_netcdf::NetcdfKeys {
                    file: r.netcdf.as_deref().unwrap_or(std::path::Path::new("")),
                    variable: r.variable.as_deref(),
                    unit: r.unit.as_deref(),
                    end: r.end,
                    time_unit: r.time_unit.as_deref(),
                };
                rain_grid = Some(super::rain_netcdf::load(c, &keys, start, domain, t_end)?);
            }
            Some(r) if r.grids.is_some() => {
                let frames = r.grids.as_deref().unwrap_or_default();
                let time_unit = r.time_unit.as_deref().unwrap_or("s");
                let unit = r.unit.as_deref().unwrap_or("mm/h");
                rain_grid = Some(super::rain_frames::load(c, frames, r.end, time_unit, unit, domain, t_end)?);
            }
            Some(r) => {
                let s = series(
                    c,
                    "forcing.rain",
                    r.intensity,
                    &r.series,
                    &r.points,
                    &r.time_unit,
                    &r.unit,
                    &RAIN,
                    "mm/h",
                    "intensity",
                    t_end,
                )?;
                rain = Some(s);
            }
        }
        let soil = self.infiltration.as_ref().map(|i| super::infiltration::load(c, i, domain)).transpose()?;
        let mut inflows = Vec::new();
        for (n, f) in self.inflow.iter().enumerate() {
            let key = format!("forcing.inflow[{n}]");
            let s = series(
                c,
                &key,
                f.discharge,
                &f.series,
                &f.points,
                &f.time_unit,
                &f.unit,
                &DISCHARGE,
                "m3/s",
                "discharge",
                t_end,
            )?;
            if let Some(v) = s.values.iter().find(|&&v| v < 0.0) {
                return c.fail(
                    &key,
                    format!("{}: discharge {v} m³/s: an inflow's discharge must not be negative (water taken out is not modelled)", s.source),
                );
            }
            let cells = place(c, &key, f, grid)?;
            let name = f.name.clone().unwrap_or_else(|| format!("inflow {}", n + 1));
            inflows.push(Inflow { name, series: s, cells });
        }
        let mut levels: Vec<LevelSide> = Vec::new();
        for (n, l) in self.level.iter().enumerate() {
            let key = format!("forcing.level[{n}]");
            let level = level_side(c, &key, l, grid, t_end)?;
            if let Some(o) = levels
                .iter()
                .find(|o| o.side == level.side && o.cells.start < level.cells.end && level.cells.start < o.cells.end)
            {
                return c.fail(&key, format!("overlaps {} on the {} side: a cell holds one level", o.name, l.side));
            }
            levels.push(LevelSide { name: l.name.clone().unwrap_or_else(|| format!("level {}", n + 1)), ..level });
        }
        let mut outlets: Vec<Outlet> = Vec::new();
        for (n, o) in self.outlet.iter().enumerate() {
            let key = format!("forcing.outlet[{n}]");
            let (side, cells) = reach(c, &key, &o.side, o.from, o.to, grid)?;
            let holds = |s: usize, r: &std::ops::Range<usize>| s == side && r.start < cells.end && cells.start < r.end;
            let taken = levels.iter().find(|l| holds(l.side, &l.cells)).map(|l| &l.name);
            if let Some(other) = taken.or(outlets.iter().find(|p| holds(p.side, &p.cells)).map(|p| &p.name)) {
                return c
                    .fail(&key, format!("overlaps {other} on the {} side: a cell holds one level or outlet", o.side));
            }
            let normal_depth = match o.kind.as_deref() {
                None | Some("outflow") => false,
                Some("normal-depth") => true,
                Some(k) => return c.fail(&format!("{key}.kind"), format!("'{k}': expected outflow or normal-depth")),
            };
            let name = o.name.clone().unwrap_or_else(|| format!("outlet {}", n + 1));
            outlets.push(Outlet { name, side, cells, normal_depth });
        }
        Ok(Forcing { rain, rain_grid, soil, inflows, levels, outlets })
    }
}

/// A series given at `key` as a constant (`constant_key`), a file or inline points, in `unit`
/// (`default_unit` unless given) and `time_unit` (s unless given), covering the run.
#[allow(clippy::too_many_arguments)]
fn series(
    c: &Check,
    key: &str,
    constant: Option<f64>,
    file: &Option<PathBuf>,
    points: &Option<Vec<(f64, f64)>>,
    time_unit: &Option<String>,
    unit: &Option<String>,
    q: &Quantity,
    default_unit: &str,
    constant_key: &str,
    t_end: f64,
) -> Result<Series> {
    let unit = unit.as_deref().unwrap_or(default_unit);
    let time_unit = time_unit.as_deref().unwrap_or("s");
    let sub = |k: &str| format!("{key}.{k}");
    let s = match (constant, file, points) {
        (Some(v), None, None) => {
            // A constant holds over the run: two points spanning it.
            let end = if t_end > 0.0 { t_end } else { 1.0 };
            let tf = super::series::time_factor(time_unit).map_err(|e| c.doc().invalid(&sub("time_unit"), e))?;
            Series::from_points(&sub(constant_key), &[(0.0, v), (end / tf, v)], q, time_unit, unit)
                .map_err(|e| c.doc().invalid(&sub(constant_key), e))?
        }
        (None, Some(p), None) => Series::read_input(c, &sub("series"), p, q, time_unit, unit)
            .map_err(|e| c.doc().invalid(&sub("series"), e))?,
        (None, None, Some(pts)) => Series::from_points(&sub("points"), pts, q, time_unit, unit)
            .map_err(|e| c.doc().invalid(&sub("points"), e))?,
        _ => {
            return c.fail(key, format!("give exactly one of {constant_key} (a constant), series (a file of time, value lines) and points ([[t, value], …])"));
        }
    };
    s.covers(0.0, t_end).map_err(|e| c.doc().invalid(key, e))?;
    Ok(s)
}

/// Where an inflow enters: the cells (interior, x fastest) and the share of the discharge each
/// takes, summing to 1. Along a side, per unit width (as LISFLOOD-FP): each boundary cell takes
/// the length of its edge inside [from, to] over the segment's length. At a point, its cell.
fn place(c: &Check, key: &str, f: &InflowKeys, grid: &Grid2) -> Result<Vec<(usize, f64)>> {
    let [west, east, south, north] = grid.edges();
    match (&f.side, f.at) {
        (None, Some((x, y))) => {
            if f.from.is_some() || f.to.is_some() {
                return c.fail(&format!("{key}.at"), "a point inflow takes no from/to (those run along a side)");
            }
            if !(x >= west && x < east && y >= south && y < north) {
                return c.fail(
                    &format!("{key}.at"),
                    format!(
                        "({}, {}) lies outside the grid ({} to {} m in x, {} to {} m in y)",
                        num(x),
                        num(y),
                        num(west),
                        num(east),
                        num(south),
                        num(north)
                    ),
                );
            }
            let i = (((x - west) / grid.dx) as usize).min(grid.nx - 1);
            let j = (((y - south) / grid.dy) as usize).min(grid.ny - 1);
            Ok(vec![(j * grid.nx + i, 1.0)])
        }
        (Some(side), None) => {
            let (Some(from), Some(to)) = (f.from, f.to) else {
                return c.fail(key, format!("side = \"{side}\" needs from and to: the segment along it in metres"));
            };
            // The side's cells: (count, along-side start and spacing, cell index of the k-th).
            let (n, start, d): (usize, f64, f64) = match side.as_str() {
                "west" | "east" => (grid.ny, south, grid.dy),
                "south" | "north" => (grid.nx, west, grid.dx),
                _ => return c.fail(&format!("{key}.side"), format!("'{side}': expected west, east, south or north")),
            };
            let end = start + n as f64 * d;
            if !(from.is_finite() && to.is_finite() && from < to && from >= start && to <= end) {
                return c.fail(
                    &format!("{key}.from"),
                    format!(
                        "{} to {}: the segment must run forwards within the {side} side, {} to {} m",
                        num(from),
                        num(to),
                        num(start),
                        num(end)
                    ),
                );
            }
            let cell = |k: usize| match side.as_str() {
                "west" => k * grid.nx,
                "east" => k * grid.nx + grid.nx - 1,
                "south" => k,
                _ => (grid.ny - 1) * grid.nx + k,
            };
            let mut cells = Vec::new();
            for k in 0..n {
                let (a, b) = (start + k as f64 * d, start + (k + 1) as f64 * d);
                let overlap = b.min(to) - a.max(from);
                if overlap > 0.0 {
                    cells.push((cell(k), overlap / (to - from)));
                }
            }
            Ok(cells)
        }
        _ => c.fail(key, "give side (with from and to) or at = [x, y]: where the inflow enters"),
    }
}

/// The reach [`from`, `to`] (m, the grid's coordinates; the whole side without them) of side
/// `name` at `key`: the side (0 west, 1 east, 2 south, 3 north) and its cells whose centres lie
/// in it.
fn reach(
    c: &Check,
    key: &str,
    name: &str,
    from: Option<f64>,
    to: Option<f64>,
    grid: &Grid2,
) -> Result<(usize, std::ops::Range<usize>)> {
    let [west, _, south, _] = grid.edges();
    let (side, n, start, d) = match name {
        "west" => (0, grid.ny, south, grid.dy),
        "east" => (1, grid.ny, south, grid.dy),
        "south" => (2, grid.nx, west, grid.dx),
        "north" => (3, grid.nx, west, grid.dx),
        s => return c.fail(&format!("{key}.side"), format!("'{s}': expected west, east, south or north")),
    };
    let end = start + n as f64 * d;
    let (from, to) = (from.unwrap_or(start), to.unwrap_or(end));
    if !(from.is_finite() && to.is_finite() && from < to && from >= start && to <= end) {
        return c.fail(
            &format!("{key}.from"),
            format!(
                "{} to {}: the reach must run forwards within the {} side, {} to {} m",
                num(from),
                num(to),
                name,
                num(start),
                num(end)
            ),
        );
    }
    let first = (0..n).find(|&k| start + (k as f64 + 0.5) * d >= from).unwrap_or(n);
    let last = (0..n).rev().find(|&k| start + (k as f64 + 0.5) * d <= to).map_or(0, |k| k + 1);
    if first >= last {
        return c.fail(
            &format!("{key}.from"),
            format!("{} to {} m holds no cell centre of the {} side", num(from), num(to), name),
        );
    }
    Ok((side, first..last))
}

/// A level held on a reach of a side: the side's cells whose centres lie in [from, to] (the
/// whole side without them), and the level's series (metres; a tide sampled
/// [`TIDE_POINTS`] times a period over the run).
fn level_side(c: &Check, key: &str, l: &LevelKeys, grid: &Grid2, t_end: f64) -> Result<LevelSide> {
    let (side, cells) = reach(c, key, &l.side, l.from, l.to, grid)?;
    let time_unit = l.time_unit.as_deref().unwrap_or("s");
    let sub = |k: &str| format!("{key}.{k}");
    let series = match (l.level, &l.series, &l.points, &l.tide) {
        (Some(v), None, None, None) => {
            if !v.is_finite() {
                return c.fail(&sub("level"), format!("{v}: must be finite"));
            }
            Series::from_points(&sub("level"), &[(0.0, v), (t_end.max(1.0), v)], &LEVEL, "s", "m")
                .map_err(|e| c.doc().invalid(&sub("level"), e))?
        }
        (None, Some(p), None, None) => Series::read_input(c, &sub("series"), p, &LEVEL, time_unit, "m")
            .map_err(|e| c.doc().invalid(&sub("series"), e))?,
        (None, None, Some(pts), None) => Series::from_points(&sub("points"), pts, &LEVEL, time_unit, "m")
            .map_err(|e| c.doc().invalid(&sub("points"), e))?,
        (None, None, None, Some(t)) => {
            for (name, v) in [("mean", t.mean), ("amplitude", t.amplitude), ("period", t.period), ("phase", t.phase)] {
                if !v.is_finite() {
                    return c.fail(&sub(&format!("tide.{name}")), format!("{v}: must be finite"));
                }
            }
            c.positive(&sub("tide.period"), t.period)?;
            c.non_negative(&sub("tide.amplitude"), t.amplitude)?;
            let dt = t.period / TIDE_POINTS as f64;
            // Counted in f64: a run of 1e30 s would overflow a usize.
            let count = (t_end / dt).ceil() + 1.0;
            if count > 1e7 {
                return c.fail(
                    &sub("tide.period"),
                    format!(
                        "{} s over a run of {} s: {count:.3e} points of the tide ({TIDE_POINTS} a period), more than 10⁷; a tide's period is hours, and a run this long takes a level series",
                        num(t.period),
                        num(t_end)
                    ),
                );
            }
            let count = count as usize;
            let phase = t.phase.to_radians();
            let points: Vec<(f64, f64)> = (0..=count)
                .map(|k| {
                    let s = k as f64 * dt;
                    (s, t.mean + t.amplitude * (std::f64::consts::TAU * s / t.period + phase).sin())
                })
                .collect();
            Series::from_points(&sub("tide"), &points, &LEVEL, "s", "m")
                .map_err(|e| c.doc().invalid(&sub("tide"), e))?
        }
        _ => {
            return c.fail(key, "give exactly one of level (m), series (a file of time, level lines), points and tide");
        }
    };
    series.covers(0.0, t_end).map_err(|e| c.doc().invalid(key, e))?;
    Ok(LevelSide { name: String::new(), side, cells, series })
}
