//! Gauges and maximum-value maps, as GeoClaw offers them (gauges, fgmax): time series of depth,
//! momenta and surface at named points, sampled every step (or every k steps), and maps of the
//! largest depth and speed each cell has seen and of the time water first arrived in it.
//!
//! What the case asks for is [`Spec`] (`[output]` keys `gauges`, `gauge_every`, `maxima`,
//! `arrival_depth`); a model keeps the products on its backend ([`CpuProducts`],
//! [`GpuProducts`], both calling the point functions of `kernels::products`), and hands them
//! out as [`Products`], which [`write`] turns into files. On the GPU the maps and the samples
//! stay on the device while stepping: no copy to the host per step; the samples come over in
//! batches when the model reads its clock anyway.

mod cpu;
mod files;
mod gpu;
mod saved;

pub use cpu::CpuProducts;
pub use files::{NEVER_ARRIVED, write};
pub use gpu::{ClockAt, GpuProducts};
pub use kernels::products::{
    Fields, GAUGE_COLUMNS, GAUGE_VALUES, LEVEL_DEPTH, LEVEL_DEPTH_FLAT, LEVEL_ELEVATION, LEVEL_SURFACE, Sampling, View,
};

use crate::case::{Check, num};
use crate::grid::Grid2;
use crate::model::Output;
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

/// The state fields, in this order, of equations that have a water depth: the ones whose runs
/// keep gauges and maximum maps among the wave-propagation solver's.
pub const DEPTH_FIELDS: [&str; 3] = ["h", "hu", "hv"];

/// Which gauges and maximum maps a solver's runs keep (its registry entry says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// None: a case that asks for them is refused.
    None,
    /// Gauges and maps, but its checkpoints do not hold them: a case may not ask for both
    /// products and checkpoints (a restart would begin them afresh).
    Kept,
    /// Gauges and maps, held by its checkpoints too (its models' `checkpoint`/`restore` call
    /// [`CpuProducts::checkpoint`], [`GpuProducts::checkpoint`] and the `restore`s).
    Checkpointed,
}

impl Support {
    /// Refuse, naming the key, what a case of `solver` asks for and `solver` does not keep.
    pub fn check(self, solver: &str, output: &crate::case::OutputSection, c: &crate::case::Check) -> Result<()> {
        let spec = output.products();
        if spec.is_empty() {
            return Ok(());
        }
        let key = if spec.gauges.is_empty() { "output.maxima" } else { "output.gauges" };
        match self {
            Support::None => c.fail(key, format!("{solver} keeps no gauges or maximum maps")),
            Support::Kept if output.checkpoint_every.is_some() => c.fail(
                "output.checkpoint_every",
                format!("checkpoints of {solver} do not hold gauge records and maximum maps: leave out output.gauges and output.maxima to checkpoint this case (docs/products.md)"),
            ),
            Support::Kept | Support::Checkpointed => Ok(()),
        }
    }
}

/// Most gauges a run may have: they are sampled by the threads of one block.
pub const MAX_GAUGES: usize = 256;

/// One gauge's record so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub gauge: Gauge,
    /// The interior cell sampled (j·nx + i).
    pub cell: usize,
    pub times: Vec<f64>,
    /// [`GAUGE_COLUMNS`] at each time.
    pub values: Vec<[f64; GAUGE_VALUES]>,
}

/// What a model hands out of its products: every gauge's record so far and the maps.
#[derive(Clone, Debug)]
pub struct Products<T> {
    pub series: Vec<Series>,
    /// `max_h`, `max_speed`, `arrival` (NaN where water never arrived); empty without maxima.
    pub maps: Vec<Output<T>>,
}

/// The series of `spec`'s gauges at `cells`, empty.
fn empty_series(spec: &Spec, cells: &[u32]) -> Vec<Series> {
    spec.gauges
        .iter()
        .zip(cells)
        .map(|(g, &c)| Series { gauge: g.clone(), cell: c as usize, times: Vec::new(), values: Vec::new() })
        .collect()
}

/// The three maps as outputs of shape (ny, nx).
fn maps<T>(nx: usize, ny: usize, [h, s, a]: [Vec<T>; 3]) -> Vec<Output<T>> {
    let out = |name, long_name, units, data| Output { name, long_name, units, dims: vec![ny, nx], data };
    vec![
        out("max_h", "maximum water depth", "m", h),
        out("max_speed", "maximum speed", "m/s", s),
        out("arrival", "arrival time (depth first above output.arrival_depth)", "s", a),
    ]
}

#[cfg(test)]
mod tests;
