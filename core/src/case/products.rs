//! What a case asks of the products (`[output]` keys `gauges`, `gauge_every`, `maxima`,
//! `arrival_depth`): the gauges and maps a run records besides its snapshots, checked before the
//! run; `crate::products` keeps them while the model runs.

use super::{Check, num};
use crate::grid::Grid2;
use crate::{Error, Result};
use serde::Deserialize;

/// One `[[output.gauges]]` entry: a named point, in metres.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gauge {
    pub name: String,
    pub x: f64,
    pub y: f64,
}

/// Depth above which water counts as arrived, by default (m).
pub const ARRIVAL_DEPTH: f64 = 0.01;

/// What a run records besides snapshots.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub gauges: Vec<Gauge>,
    /// A gauge sample every this many steps.
    pub every: u64,
    /// Keep the maps of maximum depth, maximum speed and arrival time.
    pub maxima: bool,
    pub arrival_depth: f64,
}

impl Default for Spec {
    fn default() -> Self {
        Spec { gauges: Vec::new(), every: 1, maxima: false, arrival_depth: ARRIVAL_DEPTH }
    }
}

impl Spec {
    pub fn is_empty(&self) -> bool {
        self.gauges.is_empty() && !self.maxima
    }

    /// Checks that need no grid: names usable in file names and unique, `every` ≥ 1 and small
    /// enough for the kernel, a positive finite threshold.
    pub fn check(&self, c: &Check) -> Result<()> {
        if self.every == 0 || self.every > u32::MAX as u64 {
            return c.fail("output.gauge_every", format!("{}: must be 1 to {}", self.every, u32::MAX));
        }
        if !(self.arrival_depth.is_finite() && self.arrival_depth > 0.0) {
            return c.fail(
                "output.arrival_depth",
                format!("{}: must be a positive depth in metres", num(self.arrival_depth)),
            );
        }
        if self.gauges.len() > MAX_GAUGES {
            return c.fail("output.gauges", format!("{} gauges: at most {MAX_GAUGES}", self.gauges.len()));
        }
        for (n, g) in self.gauges.iter().enumerate() {
            let ok =
                !g.name.is_empty() && g.name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-');
            if !ok {
                return c.fail(
                    "output.gauges",
                    format!("gauge name {:?}: use letters, digits, '_' and '-' (it names a file)", g.name),
                );
            }
            if self.gauges[..n].iter().any(|o| o.name == g.name) {
                return c.fail("output.gauges", format!("gauge name {:?} is used twice", g.name));
            }
            if !(g.x.is_finite() && g.y.is_finite()) {
                return c.fail("output.gauges", format!("gauge {}: x and y must be finite", g.name));
            }
        }
        Ok(())
    }

    /// The interior cell (j·nx + i) of each gauge: the cell that contains its point (a point on
    /// a face between two cells goes to the cell east or north of it; on the east or north edge
    /// of the domain, to the last cell). A point outside the domain is refused.
    pub fn cells(&self, grid: &Grid2) -> Result<Vec<u32>> {
        let [x0, x1, y0, y1] = grid.edges();
        self.gauges
            .iter()
            .map(|g| {
                if !(x0..=x1).contains(&g.x) || !(y0..=y1).contains(&g.y) {
                    return Err(Error::invalid(format!(
                        "output.gauges: gauge {} at ({}, {}) m is outside the domain [{}, {}] × [{}, {}] m",
                        g.name,
                        num(g.x),
                        num(g.y),
                        num(x0),
                        num(x1),
                        num(y0),
                        num(y1)
                    )));
                }
                let i = (((g.x - x0) / grid.dx) as usize).min(grid.nx - 1);
                let j = (((g.y - y0) / grid.dy) as usize).min(grid.ny - 1);
                Ok((j * grid.nx + i) as u32)
            })
            .collect()
    }
}

/// Most gauges a run may have: they are sampled by the threads of one block.
pub const MAX_GAUGES: usize = 256;
