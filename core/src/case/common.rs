//! Sections every case file shares: `[run]` (backend, precision, step limit), `[output]`
//! (directory, snapshot times, formats, progress), and the 2D `[grid]`.

use super::products::{self, Gauge, Line};
use super::{Check, num};
use crate::grid::{Grid2, Grid3, Mesh};
use crate::{Precision, Result};
use serde::Deserialize;
use std::path::PathBuf;

/// `run.backend`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The GPU when one is usable, else the CPU (saying why).
    #[default]
    Auto,
    Gpu,
    Cpu,
}

impl Backend {
    pub fn choice(self) -> crate::BackendChoice {
        match self {
            Backend::Auto => crate::BackendChoice::Auto,
            Backend::Gpu => crate::BackendChoice::Gpu,
            Backend::Cpu => crate::BackendChoice::Cpu,
        }
    }
}

/// The default step limit: a run estimated to take more steps is refused before it starts
/// (raise `run.max_steps` or pass `--max-steps` to allow it), and a run that reaches it stops.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;

fn default_max_steps() -> u64 {
    DEFAULT_MAX_STEPS
}
fn default_precision() -> Precision {
    Precision::F64
}

/// `[run]`: where and how precisely to run, and how long at most.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    #[serde(default)]
    pub backend: Backend,
    #[serde(default = "default_precision")]
    pub precision: Precision,
    #[serde(default = "default_max_steps")]
    pub max_steps: u64,
    /// The date and time (UTC) the run's t = 0 stands for: NetCDF files then count time in
    /// "seconds since" it, as CF readers (xarray, QGIS) turn into dates.
    #[serde(default)]
    pub start: Option<String>,
    /// The GPUs of each host the run's ranks use, the host's first ones (every GPU there when
    /// not given): rank *l* of a host takes GPU *l* mod this. More than a host has is an error.
    #[serde(default)]
    pub gpus: Option<usize>,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            backend: Backend::Auto,
            precision: Precision::F64,
            max_steps: DEFAULT_MAX_STEPS,
            start: None,
            gpus: None,
        }
    }
}

impl RunSection {
    pub fn check(&self, c: &Check) -> Result<()> {
        if self.max_steps == 0 {
            return c.fail("run.max_steps", "0: must be at least 1");
        }
        if let Some(start) = &self.start {
            crate::cf_time::reference_date(start).or_else(|e| c.fail("run.start", e))?;
        }
        match self.gpus {
            Some(0) => return c.fail("run.gpus", "0: must be at least 1 (leave it out to use every GPU of each host)"),
            Some(n) if self.backend == Backend::Cpu => {
                return c.fail(
                    "run.gpus",
                    format!(
                        "{n} with run.backend = cpu: GPUs are for the gpu and auto backends; leave one of them out"
                    ),
                );
            }
            _ => {}
        }
        Ok(())
    }
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// NumPy arrays, one file per field and snapshot.
    Npy,
    /// Pictures: maps and plots.
    Png,
    /// One NetCDF-CF file of the run, `<case name>.nc`, a record appended per snapshot.
    Netcdf,
    /// GeoTIFF maps for GIS: the maximum maps, and each snapshot's fields on a plane's cells
    /// (with the bed once and the water surface where the solver has a bed).
    Geotiff,
}

fn default_formats() -> Vec<Format> {
    vec![Format::Npy, Format::Png]
}
/// Seconds allowed between progress lines: no busier than 20 lines a second, and a wait a
/// [`Duration`](std::time::Duration) can hold (1e9 s: in effect, no lines after the first).
pub const PROGRESS_RANGE: (f64, f64) = (0.05, 1e9);

fn default_progress() -> f64 {
    2.0
}

/// `[output]`: where results go and when.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// The run directory (default `out/<case name>`).
    pub dir: Option<PathBuf>,
    /// Times at which to write the state (default: the end only).
    #[serde(default)]
    pub snapshots: Vec<f64>,
    #[serde(default = "default_formats")]
    pub formats: Vec<Format>,
    /// Seconds of wall time between progress lines. Progress never changes the simulation.
    #[serde(default = "default_progress")]
    pub progress: f64,
    /// Simulated time between checkpoints (none by default): the run stops at every multiple
    /// of it before the end, as at a snapshot time, and writes its whole state to
    /// `checkpoint.hkc` (docs/restart.md).
    pub checkpoint_every: Option<f64>,
    /// Gauges: `[[output.gauges]]` with `name`, `x`, `y` (metres), sampled every `gauge_every`
    /// steps into `gauge_<name>.csv` (crate::products).
    #[serde(default)]
    pub gauges: Vec<Gauge>,
    /// Discharge lines: `[[output.lines]]` with `name` and `points` (`[[x, y], ...]`, metres),
    /// sampled with the gauges into `lines.csv` (crate::products::lines).
    #[serde(default)]
    pub lines: Vec<Line>,
    #[serde(default = "one")]
    pub gauge_every: u64,
    /// Keep maps of maximum depth, maximum speed and arrival time.
    #[serde(default)]
    pub maxima: bool,
    /// Depth (m) above which water has arrived in a cell.
    #[serde(default = "arrival_depth")]
    pub arrival_depth: f64,
    /// Serve the live view on this port of localhost while the run goes (0: a free port the
    /// system picks; `--view` on the command line wins). Never changes the simulation.
    pub view: Option<u16>,
}

fn one() -> u64 {
    1
}
fn arrival_depth() -> f64 {
    products::ARRIVAL_DEPTH
}

impl Default for OutputSection {
    fn default() -> Self {
        OutputSection {
            dir: None,
            snapshots: Vec::new(),
            formats: default_formats(),
            progress: default_progress(),
            gauges: Vec::new(),
            lines: Vec::new(),
            gauge_every: 1,
            maxima: false,
            arrival_depth: products::ARRIVAL_DEPTH,
            checkpoint_every: None,
            view: None,
        }
    }
}

impl OutputSection {
    /// Checks of the section. Whether the solver keeps the gauges and maps asked for is the
    /// registry's check ([`crate::solver::Support::check`]).
    pub fn check(&self, c: &Check) -> Result<()> {
        if self.dir.as_ref().is_some_and(|d| d.as_os_str().is_empty()) {
            return c.fail("output.dir", "empty: give a directory, or leave output.dir out for out/<case name>");
        }
        let (lo, hi) = PROGRESS_RANGE;
        c.within("output.progress", self.progress, lo, hi, " seconds between progress lines")?;
        if let Some(every) = self.checkpoint_every {
            c.positive("output.checkpoint_every", every)?;
        }
        self.products().check(c)
    }
    /// The gauges, lines and maps the case asks for.
    pub fn products(&self) -> products::Spec {
        products::Spec {
            gauges: self.gauges.clone(),
            lines: self.lines.clone(),
            every: self.gauge_every,
            maxima: self.maxima,
            arrival_depth: self.arrival_depth,
        }
    }
    pub fn wants(&self, f: Format) -> bool {
        self.formats.contains(&f)
    }
    /// For a solver that computes once (`what`: "fd3d computes once"): a NetCDF file holds
    /// snapshots, which it has none of, so asking for one is an error rather than nothing.
    pub fn refuse_netcdf(&self, c: &Check, what: &str) -> Result<()> {
        if self.wants(Format::Netcdf) {
            return c.fail(
                "output.formats",
                format!("\"netcdf\": {what}; NetCDF files hold the snapshots of time-dependent solvers"),
            );
        }
        Ok(())
    }
}

/// When a run ends and when it writes snapshots, checked: snapshot times in [0, t_end],
/// ascending without repeats; the end always writes one.
#[derive(Clone, Debug, PartialEq)]
pub struct Times {
    /// The end time (infinite for a run that ends after a number of steps).
    pub t_end: f64,
    /// A run of exactly this many steps, instead of one to `t_end`.
    pub steps: Option<u64>,
    /// Snapshot times before the end.
    pub snapshots: Vec<f64>,
    /// The unit of time ("s", or "yr" for sediment).
    pub unit: &'static str,
}

impl Times {
    /// A run to `t_end` (read from `end_key`) with `[output] snapshots`.
    pub fn new(c: &Check, end_key: &str, t_end: f64, snapshots: &[f64], unit: &'static str) -> Result<Times> {
        c.positive(end_key, t_end)?;
        for (k, &s) in snapshots.iter().enumerate() {
            if !(s.is_finite() && (0.0..=t_end).contains(&s)) {
                return c.fail(
                    "output.snapshots",
                    format!("{}: snapshot times must lie in [0, {end_key} = {}]", num(s), num(t_end)),
                );
            }
            if k > 0 && s <= snapshots[k - 1] {
                return c.fail(
                    "output.snapshots",
                    format!("{} after {}: snapshot times must increase", num(s), num(snapshots[k - 1])),
                );
            }
        }
        let snapshots = snapshots.iter().copied().filter(|&s| s < t_end).collect();
        Ok(Times { t_end, steps: None, snapshots, unit })
    }

    /// A run of exactly `steps` steps (read from `steps_key`), with a snapshot at the end only.
    pub fn steps(c: &Check, steps_key: &str, steps: u64, unit: &'static str) -> Result<Times> {
        if steps == 0 {
            return c.fail(steps_key, "0: must be at least 1");
        }
        Ok(Times { t_end: f64::INFINITY, steps: Some(steps), snapshots: Vec::new(), unit })
    }

    /// How far along a run at (t, steps) is, in [0, 1].
    pub fn fraction(&self, t: f64, steps: u64) -> f64 {
        match self.steps {
            Some(n) => steps as f64 / n as f64,
            None => t / self.t_end,
        }
        .clamp(0.0, 1.0)
    }
}

/// `[grid]` of a 2D solver: cells, and either the extent or the spacing per axis. Over a
/// raster (a case whose terrain comes from one) the extent may be left out: the grid then
/// covers the raster, and the cells of one axis may be left out too.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid2Section {
    pub nx: Option<usize>,
    pub ny: Option<usize>,
    /// Extent in x, metres (or give `dx`).
    pub lx: Option<f64>,
    pub ly: Option<f64>,
    /// Cell size in x, metres (or give `lx`).
    pub dx: Option<f64>,
    pub dy: Option<f64>,
    /// Position of the grid's south-west corner, metres: two numbers (x, y).
    pub origin: Option<Vec<f64>>,
}

impl Grid2Section {
    /// The grid, with `halo` ghost layers.
    pub fn grid(&self, c: &Check, halo: usize) -> Result<Grid2> {
        self.grid_over(c, halo, None)
    }

    /// The grid, with `halo` ghost layers. With `raster` — a raster's west and south edges and
    /// its extent in x and y, metres — a section that gives cells but no extent (no `lx`, `ly`,
    /// `dx`, `dy`) covers the raster, from its south-west corner unless `origin` says
    /// otherwise: its cells resample the raster. Of the cells, one axis may then be left out:
    /// it gets as many as keep the raster's aspect.
    pub fn grid_over(&self, c: &Check, halo: usize, raster: Option<[f64; 4]>) -> Result<Grid2> {
        let extent_given = [self.lx, self.ly, self.dx, self.dy].iter().any(Option::is_some);
        let over = raster.filter(|_| !extent_given);
        let (nx, ny) = match (self.nx, self.ny, over) {
            (Some(nx), Some(ny), _) => (nx, ny),
            (Some(nx), None, Some([.., w, h])) => (nx, aspect(nx, h / w)),
            (None, Some(ny), Some([.., w, h])) => (aspect(ny, w / h), ny),
            (None, None, Some(_)) => {
                return c.fail("grid.nx", "missing: give the cells in x (grid.nx) or in y (grid.ny)");
            }
            (None, _, None) => return c.fail("grid.nx", "missing: give the cells in x"),
            (Some(_), None, None) => return c.fail("grid.ny", "missing: give the cells in y"),
        };
        let (lx, ly) = match over {
            Some([.., w, h]) => (Some(w), Some(h)),
            None => (self.lx, self.ly),
        };
        let dx = spacing(c, "x", nx, lx, self.dx)?;
        let dy = spacing(c, "y", ny, ly, self.dy)?;
        let origin = match (&self.origin, over) {
            (Some(o), _) => match o[..] {
                [x, y] if x.is_finite() && y.is_finite() => (x, y),
                _ => {
                    return c.fail(
                        "grid.origin",
                        format!("{o:?}: must be two finite numbers (x, y): the grid is two-dimensional"),
                    );
                }
            },
            (None, Some([x, y, ..])) => (x, y),
            (None, None) => (0.0, 0.0),
        };
        Ok(Grid2 { nx, ny, dx, dy, origin, halo })
    }
}

/// Cells along an axis that keep the aspect `ratio` (its extent over the other's) with `n`
/// cells along the other: at least one.
fn aspect(n: usize, ratio: f64) -> usize {
    let m = (n as f64 * ratio).round();
    if m.is_finite() && m >= 1.0 { m.min(usize::MAX as f64) as usize } else { 1 }
}

/// The cell size along `axis` ("x", "y", "z") of `n` cells from the extent `l` or the size `d`
/// (exactly one of them given), checked positive; the keys are `grid.n<axis>` and so on.
fn spacing(c: &Check, axis: &str, n: usize, l: Option<f64>, d: Option<f64>) -> Result<f64> {
    let (nk, lk, dk) = (format!("grid.n{axis}"), format!("grid.l{axis}"), format!("grid.d{axis}"));
    if n == 0 {
        return c.fail(&nk, "0: must be at least 1");
    }
    if n > crate::grid::MAX_CELLS_PER_AXIS {
        return c.fail(&nk, format!("{n}: at most {} cells per axis", crate::grid::MAX_CELLS_PER_AXIS));
    }
    match (l, d) {
        (Some(l), None) => Ok(c.positive(&lk, l)? / n as f64),
        (None, Some(d)) => c.positive(&dk, d),
        (Some(_), Some(_)) => c.fail(&dk, format!("give either {lk} or {dk}, not both")),
        (None, None) => c.fail(&lk, format!("missing: give the extent {lk} or the cell size {dk}")),
    }
}

/// `[grid]` of a solver that runs in two or three dimensions: the keys of [`Grid2Section`], and
/// for a volume `nz` with `lz` or `dz` (and a third origin coordinate).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshSection {
    pub nx: usize,
    pub ny: usize,
    pub nz: Option<usize>,
    pub lx: Option<f64>,
    pub ly: Option<f64>,
    pub lz: Option<f64>,
    pub dx: Option<f64>,
    pub dy: Option<f64>,
    pub dz: Option<f64>,
    /// Position of the grid's south-west (bottom) corner, metres: two or three values.
    pub origin: Option<Vec<f64>>,
}

impl MeshSection {
    /// The plane (no `nz`) or the volume of cells, with `halo` ghost layers.
    pub fn mesh(&self, c: &Check, halo: usize) -> Result<Mesh> {
        let dx = spacing(c, "x", self.nx, self.lx, self.dx)?;
        let dy = spacing(c, "y", self.ny, self.ly, self.dy)?;
        let dims = if self.nz.is_some() { 3 } else { 2 };
        let origin = self.origin.clone().unwrap_or(vec![0.0; dims]);
        if origin.len() != dims || !origin.iter().all(|v| v.is_finite()) {
            let what = if dims == 3 {
                "three finite numbers (x, y, z), as grid.nz is given"
            } else {
                "two finite numbers (x, y)"
            };
            return c.fail("grid.origin", format!("{origin:?}: must be {what}"));
        }
        let Some(nz) = self.nz else {
            for (key, given) in [("grid.lz", self.lz.is_some()), ("grid.dz", self.dz.is_some())] {
                if given {
                    return c.fail(key, "only with grid.nz (a three-dimensional grid)");
                }
            }
            return Ok(Mesh::Plane(Grid2 { nx: self.nx, ny: self.ny, dx, dy, origin: (origin[0], origin[1]), halo }));
        };
        let dz = spacing(c, "z", nz, self.lz, self.dz)?;
        let origin = (origin[0], origin[1], origin[2]);
        Ok(Mesh::Volume(Grid3 { nx: self.nx, ny: self.ny, nz, dx, dy, dz, origin, halo }))
    }
}
