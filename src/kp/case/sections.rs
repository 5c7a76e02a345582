//! The sections of a shallow-water case file as it is read (`[time]`, `[physics]`,
//! `[numerics]`, `[boundary]`, `[initial.<set-up>]`, `[gpu]`), with their defaults.

use super::super::gpu::Launch;
use crate::accumulation::Accumulation;
use crate::case::Grid2Section;
use crate::forcing::ForcingSection;
use crate::input::Resample;
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    /// Absent with `[initial.raster]`: the grid is the bed raster's cells.
    pub(super) grid: Option<Grid2Section>,
    pub(super) time: TimeSection,
    #[serde(default)]
    pub(super) physics: Physics,
    #[serde(default)]
    pub(super) numerics: Numerics,
    #[serde(default)]
    pub(super) boundary: Boundaries,
    pub(super) initial: Initial,
    #[serde(default)]
    pub(super) forcing: ForcingSection,
    #[serde(default)]
    pub(super) gpu: GpuSection,
}

pub(super) fn cfl() -> f64 {
    0.25
}
pub(super) fn rk2() -> String {
    "rk2".into()
}
pub(super) fn dt_floor() -> f64 {
    1e-9
}

/// `[time]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimeSection {
    pub(super) t_end: f64,
    #[serde(default = "cfl")]
    pub(super) cfl: f64,
    /// `euler`, `rk2`, `srk2`, `ds1`, `ds2` or `auto` (docs/kp-schemes.md).
    #[serde(default = "rk2")]
    pub(super) scheme: String,
    /// A Δt below this stops the run as collapsed.
    #[serde(default = "dt_floor")]
    pub(super) dt_floor: f64,
    /// Δt never exceeds this, s (default: none, or [`FORCED_DT_MAX`](super::FORCED_DT_MAX) with forcing).
    pub(super) dt_max: Option<f64>,
}

/// `[physics]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Physics {
    #[serde(default = "gravity")]
    pub(super) g: f64,
    /// n in every cell; absent: 0, or the `initial.raster.manning` raster.
    pub(super) manning: Option<f64>,
    #[serde(default = "theta")]
    pub(super) theta: f64,
    /// Default: [`kappa_depth`], or [`RAIN_KAPPA_DEPTH`](super::RAIN_KAPPA_DEPTH) with rain.
    pub(super) kappa_depth: Option<f64>,
}

pub(super) fn gravity() -> f64 {
    9.81
}
pub(super) fn theta() -> f64 {
    1.3
}
pub(super) fn kappa_depth() -> f64 {
    0.01
}

impl Default for Physics {
    fn default() -> Self {
        Physics { g: gravity(), manning: None, theta: theta(), kappa_depth: None }
    }
}

/// `[numerics]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Numerics {
    /// `clamp` (the default; [`RAIN_WET_DRY`](super::RAIN_WET_DRY) with rain), `bollermann` or `kp07`
    /// (docs/kp-wet-dry.md).
    pub(super) wet_dry: Option<String>,
    /// r of DS1's and DS2's Δt = r·min(Δt_x, Δt_y), in (0, 1].
    #[serde(default = "ds_safety")]
    pub(super) ds_safety: f64,
    /// How f32 RK stages add to w: `compensated` (the default) or `plain`
    /// (docs/f32-conservation.md).
    #[serde(default = "Accumulation::default_name")]
    pub(super) accumulation: String,
}

pub(super) fn ds_safety() -> f64 {
    super::super::problem::DS_SAFETY
}

impl Default for Numerics {
    fn default() -> Self {
        Numerics { wet_dry: None, ds_safety: ds_safety(), accumulation: Accumulation::default_name() }
    }
}

pub(super) fn wall() -> String {
    "wall".into()
}

/// `[boundary]`: wall, outflow, normal-depth or periodic per side.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Boundaries {
    #[serde(default = "wall")]
    pub(super) west: String,
    #[serde(default = "wall")]
    pub(super) east: String,
    #[serde(default = "wall")]
    pub(super) south: String,
    #[serde(default = "wall")]
    pub(super) north: String,
}

impl Default for Boundaries {
    fn default() -> Self {
        Boundaries { west: wall(), east: wall(), south: wall(), north: wall() }
    }
}

/// `[initial.<set-up>]`: one of the built-in set-ups, or the user's fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) enum Initial {
    /// A circular column of water on a flat bed, centred in the domain.
    Column { radius: f64, inside: f64, outside: f64 },
    /// A Gaussian hump on a lake over a bed rising linearly from west to east.
    Gaussian { level: f64, amplitude: f64, width: f64, bed_west: f64, bed_east: f64 },
    /// A sine wave in x on a flat bed: h = mean + amplitude·sin(2π·waves·x/L).
    Sine { mean: f64, amplitude: f64, waves: f64 },
    /// A still lake at `level` over a wavy bed with two dry islands.
    LakeAtRest { level: f64 },
    /// Fields from NPY files: depth and (optional) momenta of shape (ny, nx), bed at the cell
    /// corners of shape (ny + 1, nx + 1) (flat at 0 when left out).
    Files { depth: PathBuf, bed: Option<PathBuf>, hu: Option<PathBuf>, hv: Option<PathBuf> },
    /// Terrain and water from rasters (Esri ASCII grid or GeoTIFF, docs/raster-input.md): the
    /// bed, and the water as a surface raster, a depth raster or one level; each sampled at the
    /// grid's corners (bed) or cell centres (water, Manning's n) by `resample`.
    Raster {
        bed: PathBuf,
        surface: Option<PathBuf>,
        depth: Option<PathBuf>,
        level: Option<f64>,
        /// Manning's n per cell, s/m^(1/3) (instead of `physics.manning`).
        manning: Option<PathBuf>,
        #[serde(default = "bilinear")]
        resample: String,
    },
}

impl Initial {
    /// Whether Manning's n comes from a raster (`[initial.raster] manning`).
    pub(super) fn has_manning_raster(&self) -> bool {
        matches!(self, Initial::Raster { manning: Some(_), .. })
    }
}

pub(super) fn bilinear() -> String {
    Resample::Bilinear.name().into()
}

/// `[gpu]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GpuSection {
    /// None: the tuning cache's (with `--tuning auto`), else `stream`.
    #[serde(default)]
    pub(super) flux: Option<String>,
    /// None: the tuning cache's, else [`Launch::default`]'s.
    #[serde(default)]
    pub(super) block: Option<[u32; 2]>,
    /// SRK2's x-line kernel, cells a block (None: [`Launch::default`]'s).
    #[serde(default)]
    pub(super) line: Option<u32>,
    #[serde(default = "early")]
    pub(super) early_exit: String,
}

pub(super) fn block() -> [u32; 2] {
    [Launch::default().block.0, Launch::default().block.1]
}
pub(super) fn early() -> String {
    "auto".into()
}

impl Default for GpuSection {
    fn default() -> Self {
        GpuSection { flux: None, block: None, line: None, early_exit: early() }
    }
}
