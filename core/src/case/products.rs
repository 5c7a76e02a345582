//! What a case asks of the products (`[output]` keys `gauges`, `lines`, `gauge_every`,
//! `maxima`, `arrival_depth`): the gauges, discharge lines and maps a run records besides its
//! snapshots, checked before the run; `crate::products` finds where they sample on the grid
//! (`Sites::of`) and keeps them while the model runs.

use super::{Check, num};
use crate::grid::Grid2;
use crate::{Error, Result};

pub use crate::places::{Gauge, Line};

/// Depth above which water counts as arrived, by default (m).
pub const ARRIVAL_DEPTH: f64 = 0.01;

/// What a run records besides snapshots.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub gauges: Vec<Gauge>,
    pub lines: Vec<Line>,
    /// A gauge (and line) sample every this many steps.
    pub every: u64,
    /// Keep the maps of maximum depth, maximum speed and arrival time.
    pub maxima: bool,
    pub arrival_depth: f64,
}

impl Default for Spec {
    fn default() -> Self {
        Spec { gauges: Vec::new(), lines: Vec::new(), every: 1, maxima: false, arrival_depth: ARRIVAL_DEPTH }
    }
}

impl Spec {
    pub fn is_empty(&self) -> bool {
        self.gauges.is_empty() && self.lines.is_empty() && !self.maxima
    }

    /// Checks that need no grid: names usable in file names (and CSV columns) and unique,
    /// points finite, lines of two points or more, `every` ≥ 1 and small enough for the
    /// kernel, a positive finite threshold.
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
            if !fit_for_a_name(&g.name) {
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
        for (n, l) in self.lines.iter().enumerate() {
            if !fit_for_a_name(&l.name) {
                return c.fail(
                    "output.lines",
                    format!("line name {:?}: use letters, digits, '_' and '-' (it names a column)", l.name),
                );
            }
            if self.lines[..n].iter().any(|o| o.name == l.name) {
                return c.fail("output.lines", format!("line name {:?} is used twice", l.name));
            }
            if l.name == "t" {
                return c
                    .fail("output.lines", "line name \"t\": lines.csv's time column has it; name the line otherwise");
            }
            if l.points.len() < 2 {
                return c.fail(
                    "output.lines",
                    format!("line {}: {} point(s); give two or more [x, y] in metres", l.name, l.points.len()),
                );
            }
            if l.points.iter().flatten().any(|v| !v.is_finite()) {
                return c.fail("output.lines", format!("line {}: every point's x and y must be finite", l.name));
            }
        }
        Ok(())
    }

    /// The interior cell (j·nx + i) of each gauge: the cell that contains its point (a point on
    /// a face between two cells goes to the cell east or north of it; on the east or north edge
    /// of the domain, to the last cell). A point outside the domain is refused.
    pub fn cells(&self, grid: &Grid2) -> Result<Vec<u32>> {
        self.gauges
            .iter()
            .map(|g| gauge_cell(g, grid).map_err(|e| Error::invalid(format!("output.gauges: {e}"))))
            .collect()
    }
}

/// A gauge's or line's name: letters, digits, '_' and '-', so it can name a file or a column.
fn fit_for_a_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')
}

/// Whether (x, y) lies in the domain of `grid`, its edges included.
pub(crate) fn inside(x: f64, y: f64, grid: &Grid2) -> bool {
    let [x0, x1, y0, y1] = grid.edges();
    (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
}

/// "outside the domain [x0, x1] × [y0, y1] m".
pub(crate) fn outside(grid: &Grid2) -> String {
    let [x0, x1, y0, y1] = grid.edges();
    format!("outside the domain [{}, {}] × [{}, {}] m", num(x0), num(x1), num(y0), num(y1))
}

/// The cell of gauge `g` ([`Spec::cells`]), or why it has none.
pub(crate) fn gauge_cell(g: &Gauge, grid: &Grid2) -> std::result::Result<u32, String> {
    if !inside(g.x, g.y, grid) {
        return Err(format!("gauge {} at ({}, {}) m is {}", g.name, num(g.x), num(g.y), outside(grid)));
    }
    let [x0, _, y0, _] = grid.edges();
    let i = (((g.x - x0) / grid.dx) as usize).min(grid.nx - 1);
    let j = (((g.y - y0) / grid.dy) as usize).min(grid.ny - 1);
    Ok((j * grid.nx + i) as u32)
}

/// Most gauges a run may have: a CSV file each, rewritten whole at every snapshot.
pub const MAX_GAUGES: usize = 256;
