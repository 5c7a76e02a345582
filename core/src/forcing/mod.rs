//! Forcing of a model from outside: series of values that change in time (a boundary's water
//! level, an inflow's discharge, a rain intensity), read from a file or a case's inline points,
//! checked as they are read and interpolated linearly; and a shallow-water case's rain (uniform
//! or gridded), soils and inflows (`[forcing]`), placed on its grid. Each solver applies them
//! with the point functions of `kernels::forcing`, which the kernels share.

mod case;
mod cells;
mod infiltration;
mod rain_cf;
mod rain_frames;
mod rain_grid;
mod rain_netcdf;
mod series;
mod soil;
mod wire;

pub use case::{ForcingSection, TideKeys};
pub use cells::{CellArrays, DeviceCellArrays};
pub use rain_grid::RainGrid;
pub use series::{DISCHARGE, LEVEL, Quantity, RAIN, Series};
pub use soil::{GreenAmpt, Horton, Soil, Soils};

use crate::grid::Grid2;

/// A case's grid and the cells of its domain, where the rain and soil rasters must hold data: a
/// cell outside it (an inactive cell, nodata in the bed) may lie on their nodata or beyond
/// them, and takes a value no water ever meets.
#[derive(Clone, Copy)]
pub struct Domain<'a> {
    pub grid: &'a Grid2,
    /// Which cells (`nx·ny`, x fastest) are in the domain; `None`: all of them.
    pub active: Option<&'a [bool]>,
}

impl Domain<'_> {
    /// Whether interior cell `k` is in the domain.
    pub fn inside(&self, k: usize) -> bool {
        self.active.is_none_or(|a| a[k])
    }
}

/// A discharge Q(t) (m³/s) entering at cells of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Inflow {
    pub name: String,
    pub series: Series,
    /// Interior cells (x fastest) and the share of Q each takes; the shares sum to 1.
    pub cells: Vec<(usize, f64)>,
}

/// A water level (m) held on a reach of one side: the ghost cells there hold the water at the
/// level (not below their bed), with the momenta of the cells inside.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelSide {
    pub name: String,
    /// 0 west, 1 east, 2 south, 3 north.
    pub side: usize,
    /// The side's cells it holds, counted from the south (west, east) or west (south, north).
    pub cells: std::ops::Range<usize>,
    pub series: Series,
}

/// A reach of a wall side opened for water to leave freely (the depth and momenta of the cell
/// inside extrapolated into the ghosts, as on an outflow side): a river's or a channel's outlet
/// in a closed catchment. With `normal_depth`, the ghosts' bed continues the bed's last slope,
/// as on a normal-depth side, so water leaves a slope at the depth of uniform flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Outlet {
    pub name: String,
    /// 0 west, 1 east, 2 south, 3 north.
    pub side: usize,
    /// The side's cells it opens, counted from the south (west, east) or west (south, north).
    pub cells: std::ops::Range<usize>,
    pub normal_depth: bool,
}

/// What enters and leaves a shallow-water model besides its plain sides: uniform rain (m/s),
/// gridded rain (added to it), the soils under the cells, inflows, water levels held on reaches
/// of the sides and outlets opened in them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Forcing {
    pub rain: Option<Series>,
    pub rain_grid: Option<RainGrid>,
    pub soil: Option<Soils>,
    pub inflows: Vec<Inflow>,
    pub levels: Vec<LevelSide>,
    pub outlets: Vec<Outlet>,
}

impl Forcing {
    pub fn is_empty(&self) -> bool {
        self.rain.is_none()
            && self.rain_grid.is_none()
            && self.soil.is_none()
            && self.inflows.is_empty()
            && self.boundary_is_plain()
    }
    /// Whether the sides are only as `[boundary]` says: no held level, no outlet.
    pub fn boundary_is_plain(&self) -> bool {
        self.levels.is_empty() && self.outlets.is_empty()
    }
    /// Whether water comes in or soaks away (rain, soil, inflows or levels), so that Δt must
    /// follow the forcing's changes.
    pub fn has_sources(&self) -> bool {
        !self.series().is_empty() || self.rain_grid.is_some() || self.soil.is_some()
    }
    /// The series a run evaluates each step, in the order the kernels index them: the rain's
    /// first (if any), then the inflows', then the levels'.
    pub fn series(&self) -> Vec<&Series> {
        let inflows = self.inflows.iter().map(|f| &f.series);
        self.rain.iter().chain(inflows).chain(self.levels.iter().map(|l| &l.series)).collect()
    }
    /// Water the rain brings to the `area` m² of a grid's active cells from 0 to `t` (m³): the
    /// uniform rain's over the area, the gridded rain's over each active cell (of area / their
    /// number).
    pub fn rain_volume(&self, area: f64, t: f64) -> f64 {
        let uniform = self.rain.as_ref().map_or(0.0, |r| r.integral(0.0, t) * area);
        uniform + self.rain_grid.as_ref().map_or(0.0, |g| g.volume(area / g.counted as f64, t))
    }
    /// The forcing of the interior rows `rows` of a grid of `nx` × `ny` cells, for a slab of it
    /// decomposed over ranks: the rain grid's and the soils' cells of those rows, each inflow's
    /// cells among them, each held level's and outlet's cells of the slab's sides (of the west
    /// and east sides those of its rows, the south side's on the first slab only, the north
    /// side's on the last), as cells of the slab. Every inflow, level and outlet is kept, none
    /// of its cells there or not, so that the series keep their order and every slab's model
    /// makes the same choices.
    pub fn slab(&self, nx: usize, ny: usize, rows: std::ops::Range<usize>) -> Forcing {
        let cut = |v: &[u32]| -> std::sync::Arc<[u32]> {
            if v.is_empty() { v.into() } else { v[rows.start * nx..rows.end * nx].into() }
        };
        let cells = rows.start * nx..rows.end * nx;
        // A reach of side `side`'s cells, as the slab's side holds it.
        let reach = |side: usize, r: &std::ops::Range<usize>| match side {
            0 | 1 => r.start.clamp(rows.start, rows.end) - rows.start..r.end.clamp(rows.start, rows.end) - rows.start,
            2 if rows.start == 0 => r.clone(),
            3 if rows.end == ny => r.clone(),
            _ => 0..0,
        };
        Forcing {
            rain: self.rain.clone(),
            rain_grid: self.rain_grid.as_ref().map(|g| RainGrid { index: cut(&g.index), ..g.clone() }),
            soil: self.soil.as_ref().map(|s| Soils { soils: s.soils.clone(), cells: cut(&s.cells) }),
            inflows: self
                .inflows
                .iter()
                .map(|f| Inflow {
                    cells: f
                        .cells
                        .iter()
                        .filter(|(c, _)| cells.contains(c))
                        .map(|&(c, w)| (c - cells.start, w))
                        .collect(),
                    ..f.clone()
                })
                .collect(),
            levels: self.levels.iter().map(|l| LevelSide { cells: reach(l.side, &l.cells), ..l.clone() }).collect(),
            outlets: self.outlets.iter().map(|o| Outlet { cells: reach(o.side, &o.cells), ..o.clone() }).collect(),
        }
    }

    /// Water the inflows bring from 0 to `t` (m³).
    pub fn inflow_volume(&self, t: f64) -> f64 {
        self.inflows.iter().fold(0.0, |v, f| v + f.series.integral(0.0, t))
    }
    /// One line of what it holds, for a case's summary.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(r) = &self.rain {
            parts.push(format!("rain up to {:.4} mm/h", r.max_abs() * 3.6e6));
        }
        if let Some(g) = &self.rain_grid {
            parts.push(format!(
                "gridded rain of {} frame(s) of {} cell(s) up to {:.4} mm/h",
                g.frames(),
                g.cells,
                g.max() * 3.6e6
            ));
        }
        if let Some(s) = &self.soil {
            parts.push(s.describe());
        }
        for f in &self.inflows {
            parts.push(format!("{} up to {:.4} m³/s over {} cell(s)", f.name, f.series.max_abs(), f.cells.len()));
        }
        const SIDES: [&str; 4] = ["west", "east", "south", "north"];
        for l in &self.levels {
            let (lo, hi) =
                l.series.values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
            parts.push(format!(
                "{}: level {:.4} to {:.4} m on {} cell(s) of the {} side",
                l.name,
                lo,
                hi,
                l.cells.len(),
                SIDES[l.side]
            ));
        }
        for o in &self.outlets {
            parts.push(format!("{}: outlet on {} cell(s) of the {} side", o.name, o.cells.len(), SIDES[o.side]));
        }
        parts.join(", ")
    }
}
