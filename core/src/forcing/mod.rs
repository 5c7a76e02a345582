//! Forcing of a model from outside: series of values that change in time (a boundary's water
//! level, an inflow's discharge, a rain intensity), read from a file or a case's inline points,
//! checked as they are read and interpolated linearly; and a shallow-water case's rain,
//! infiltration and inflows (`[forcing]`), placed on its grid. Each solver applies them with the
//! point functions of `kernels::forcing`, which the kernels share.

mod case;
mod series;

pub use case::{ForcingSection, TideKeys};

pub use series::{DISCHARGE, LEVEL, Quantity, RAIN, Series};

/// Green–Ampt soil, SI: saturated hydraulic conductivity `ks` (m/s), wetting-front suction head
/// `suction` (m) and moisture deficit `deficit` (−).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GreenAmpt {
    pub ks: f64,
    pub suction: f64,
    pub deficit: f64,
}

impl GreenAmpt {
    /// The kernels' soil in precision `T`.
    pub fn soil<T: crate::Real>(&self) -> kernels::forcing::Soil<T> {
        kernels::forcing::Soil { ks: T::from_f64(self.ks), suction_deficit: T::from_f64(self.suction * self.deficit) }
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

/// What enters and leaves a shallow-water model besides its plain sides: uniform rain (m/s), a
/// Green–Ampt soil under every cell, inflows, water levels held on reaches of the sides and
/// outlets opened in them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Forcing {
    pub rain: Option<Series>,
    pub soil: Option<GreenAmpt>,
    pub inflows: Vec<Inflow>,
    pub levels: Vec<LevelSide>,
    pub outlets: Vec<Outlet>,
}

impl Forcing {
    pub fn is_empty(&self) -> bool {
        self.rain.is_none() && self.soil.is_none() && self.inflows.is_empty() && self.boundary_is_plain()
    }
    /// Whether the sides are only as `[boundary]` says: no held level, no outlet.
    pub fn boundary_is_plain(&self) -> bool {
        self.levels.is_empty() && self.outlets.is_empty()
    }
    /// Whether water comes in or soaks away (rain, soil, inflows or levels), so that Δt must
    /// follow the forcing's changes.
    pub fn has_sources(&self) -> bool {
        !self.series().is_empty() || self.soil.is_some()
    }
    /// The series a run evaluates each step, in the order the kernels index them: the rain's
    /// first (if any), then the inflows', then the levels'.
    pub fn series(&self) -> Vec<&Series> {
        let inflows = self.inflows.iter().map(|f| &f.series);
        self.rain.iter().chain(inflows).chain(self.levels.iter().map(|l| &l.series)).collect()
    }
    /// Water the rain brings to `area` m² from 0 to `t` (m³).
    pub fn rain_volume(&self, area: f64, t: f64) -> f64 {
        self.rain.as_ref().map_or(0.0, |r| r.integral(0.0, t) * area)
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
        if let Some(s) = &self.soil {
            parts.push(format!(
                "Green–Ampt soil (K_s {:.4} mm/h, ψ {:.4} mm, Δθ {:.4})",
                s.ks * 3.6e6,
                s.suction * 1e3,
                s.deficit
            ));
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
