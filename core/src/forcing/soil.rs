//! The soils under a shallow-water model's cells, in SI: Green–Ampt or Horton, one soil under
//! every cell or a soil per cell from a table ([`Soils`]).

use crate::{Error, Result};
use kernels::forcing::{self as point, Infiltration};

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
    pub fn soil<T: crate::Real>(&self) -> point::Soil<T> {
        point::Soil { ks: T::from_f64(self.ks), suction_deficit: T::from_f64(self.suction * self.deficit) }
    }
}

/// Horton soil, SI: initial and final infiltration capacities `f0` ≥ `fc` ≥ 0 (m/s) and the
/// decay constant `k` (1/s): f(t) = fc + (f0 − fc)e^(−kt) while ponded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Horton {
    pub f0: f64,
    pub fc: f64,
    pub k: f64,
}

impl Horton {
    /// The kernels' soil in precision `T`.
    pub fn soil<T: crate::Real>(&self) -> point::Horton<T> {
        point::Horton { f0: T::from_f64(self.f0), fc: T::from_f64(self.fc), k: T::from_f64(self.k) }
    }

    /// F(t) = fc·t + (f0 − fc)(1 − e^(−kt))/k: what the soil takes by `t` s ponded from t = 0 (m).
    pub fn ponded(&self, t: f64) -> f64 {
        self.fc * t + (self.f0 - self.fc) * (1.0 - (-self.k * t).exp()) / self.k
    }
}

/// One soil, of either model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Soil {
    GreenAmpt(GreenAmpt),
    Horton(Horton),
}

impl From<GreenAmpt> for Soil {
    fn from(s: GreenAmpt) -> Soil {
        Soil::GreenAmpt(s)
    }
}

impl From<Horton> for Soil {
    fn from(s: Horton) -> Soil {
        Soil::Horton(s)
    }
}

impl Soil {
    /// The kernels' soil in precision `T`.
    pub fn infiltration<T: crate::Real>(&self) -> Infiltration<T> {
        match self {
            Soil::GreenAmpt(s) => Infiltration::green_ampt(s.soil()),
            Soil::Horton(s) => Infiltration::horton(s.soil()),
        }
    }

    /// The model's name, as a case gives it.
    pub fn model(&self) -> &'static str {
        match self {
            Soil::GreenAmpt(_) => "green-ampt",
            Soil::Horton(_) => "horton",
        }
    }

    /// Its parameters in the units a case gives them.
    pub fn describe(&self) -> String {
        match self {
            Soil::GreenAmpt(s) => {
                format!("K_s {:.4} mm/h, ψ {:.4} mm, Δθ {:.4}", s.ks * 3.6e6, s.suction * 1e3, s.deficit)
            }
            Soil::Horton(s) => {
                format!("f0 {:.4} mm/h, fc {:.4} mm/h, k {:.4}/h", s.f0 * 3.6e6, s.fc * 3.6e6, s.k * 3600.0)
            }
        }
    }
}

/// The soils under a model's cells: one soil under every cell, or a table of soils of one
/// model and each cell's entry in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Soils {
    /// At least one; all of one model.
    pub soils: Vec<Soil>,
    /// Each interior cell's soil (x fastest), or empty: `soils[0]` under every cell.
    pub cells: std::sync::Arc<[u32]>,
}

impl<S: Into<Soil>> From<S> for Soils {
    fn from(s: S) -> Soils {
        Soils { soils: vec![s.into()], cells: std::sync::Arc::new([]) }
    }
}

impl Soils {
    /// A soil per cell: `cells[c]` indexes `soils` (checked: one model, every index in range).
    pub fn per_cell(soils: Vec<Soil>, cells: Vec<u32>) -> Result<Soils> {
        let Some(first) = soils.first() else { return Err(Error::invalid("a soil table needs at least one soil")) };
        if soils.iter().any(|s| s.model() != first.model()) {
            return Err(Error::invalid("the soils of one run are of one model (green-ampt or horton)"));
        }
        if let Some(k) = cells.iter().position(|&c| c as usize >= soils.len()) {
            return Err(Error::invalid(format!("cell {k}: soil {} of a table of {}", cells[k], soils.len())));
        }
        Ok(Soils { soils, cells: cells.into() })
    }

    /// The model every cell's soil is of.
    pub fn model(&self) -> &'static str {
        self.soils[0].model()
    }

    /// Whether the soil changes from cell to cell.
    pub fn varies(&self) -> bool {
        !self.cells.is_empty()
    }

    /// One line of what they are, for a case's summary.
    pub fn describe(&self) -> String {
        let name = match self.soils[0] {
            Soil::GreenAmpt(_) => "Green–Ampt",
            Soil::Horton(_) => "Horton",
        };
        match self.soils.as_slice() {
            [one] if !self.varies() => format!("{name} soil ({})", one.describe()),
            many => format!("{name} soils per cell ({} kinds)", many.len()),
        }
    }
}
