//! Forcing of a model from outside: series of values that change in time (a boundary's water
//! level, an inflow's discharge, a rain intensity), read from a file or a case's inline points,
//! checked as they are read and interpolated linearly; and a shallow-water case's rain,
//! infiltration and inflows (`[forcing]`), placed on its grid. Each solver applies them with the
//! point functions of `kernels::forcing`, which the kernels share.

mod case;
mod series;

pub use case::ForcingSection;
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

/// What enters and leaves a shallow-water model besides its sides: uniform rain (m/s), a
/// Green–Ampt soil under every cell, and inflows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Forcing {
    pub rain: Option<Series>,
    pub soil: Option<GreenAmpt>,
    pub inflows: Vec<Inflow>,
}

impl Forcing {
    pub fn is_empty(&self) -> bool {
        self.rain.is_none() && self.soil.is_none() && self.inflows.is_empty()
    }
    /// The series a run integrates each step, in the order the kernels index them: the rain's
    /// first (if any), then the inflows'.
    pub fn series(&self) -> Vec<&Series> {
        self.rain.iter().chain(self.inflows.iter().map(|f| &f.series)).collect()
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
        parts.join(", ")
    }
}
