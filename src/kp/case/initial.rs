//! The initial state of a case: a built-in set-up, NPY files, or terrain and water sampled
//! from rasters onto the grid.

use super::super::problem::MAX_MANNING;
use super::super::{Problem, setup};
use super::sections::Initial;
use crate::Result;
use crate::case::{Check, num};
use crate::grid::Grid2;
use crate::input::{Raster, Resample, case_raster, case_raster_shape};

/// The rasters of `[initial.raster]`, read.
pub(super) struct Rasters {
    pub(super) bed: Raster,
    pub(super) water: Water,
    pub(super) manning: Option<Raster>,
    pub(super) resample: Resample,
}

/// Where the initial water comes from.
pub(super) enum Water {
    Surface(Raster),
    Depth(Raster),
    Level(f64),
}

impl Rasters {
    pub(super) fn read(c: &Check, init: &Initial) -> Result<Option<Rasters>> {
        let Initial::Raster { ref bed, ref surface, ref depth, level, ref manning, ref resample } = *init else {
            return Ok(None);
        };
        let doc = c.doc();
        let resample: Resample = resample.parse().map_err(|e| doc.invalid("initial.raster.resample", e))?;
        let water = match (surface, depth, level) {
            (Some(p), None, None) => Water::Surface(case_raster(doc, "initial.raster.surface", p)?),
            (None, Some(p), None) => Water::Depth(case_raster(doc, "initial.raster.depth", p)?),
            (None, None, Some(l)) if l.is_finite() => Water::Level(l),
            (None, None, Some(l)) => return c.fail("initial.raster.level", format!("{l}: must be finite")),
            _ => {
                return c.fail(
                    "initial.raster",
                    "give exactly one of surface (a raster), depth (a raster) and level (metres)",
                );
            }
        };
        let manning = manning.as_ref().map(|p| case_raster(doc, "initial.raster.manning", p)).transpose()?;
        Ok(Some(Rasters { bed: case_raster(doc, "initial.raster.bed", bed)?, water, manning, resample }))
    }

    /// The shape of the bed raster of `[initial.raster]` alone, from its header (its values
    /// empty: [`case_raster_shape`]), for the grid's extent.
    pub(super) fn read_bed_shape(c: &Check, init: &Initial) -> Result<Option<Raster>> {
        let Initial::Raster { ref bed, .. } = *init else { return Ok(None) };
        case_raster_shape(c.doc(), "initial.raster.bed", bed).map(Some)
    }

    /// The problem on `grid`: the cells in the domain (those whose centre lies in a bed cell
    /// that is not nodata), the bed at every corner, sampled from the cell-centred bed raster
    /// (bilinear: the mean of the four cells that meet at an interior corner, of those that are
    /// not nodata; on the raster's edge the slope of the cells inside continued), then the
    /// water. A corner only inactive cells share has no bed of its own: it takes the nearest
    /// active cell's neighbourhood's (no stencil of an active cell reads it; it is finite so
    /// that no arithmetic on it is NaN).
    pub(super) fn problem(&self, c: &Check, grid: &Grid2) -> Result<Problem> {
        let (lx, ly) = grid.extent();
        let (nx, ny) = (grid.nx, grid.ny);
        let mut p = Problem::new(nx, ny, lx, ly);
        let bed_key = "initial.raster.bed";
        let outside = |what: &str, (i, j): (usize, usize), e: String| {
            c.doc().invalid(bed_key, format!("the grid's {what} ({i}, {j}) at {e}"))
        };
        let mut active = vec![true; nx * ny];
        for j in 0..ny {
            for i in 0..nx {
                let (x, y) = grid.centre(i, j);
                let k = self.bed.nearest_cell(x, y).map_err(|e| outside("cell", (i, j), e))?;
                active[j * nx + i] = self.bed.valid[k];
            }
        }
        if !active.contains(&true) {
            return c.fail(
                bed_key,
                format!("{}: no cell of the grid lies on data (every one's centre is in a nodata cell)", self.bed.name),
            );
        }
        let mut known = vec![false; (nx + 1) * (ny + 1)];
        for j in 0..=ny {
            for i in 0..=nx {
                let (x, y) = grid.node(i, j);
                let b = self.bed.sample_bed(x, y, self.resample).map_err(|e| outside("corner", (i, j), e))?;
                let n = j * (nx + 1) + i;
                (p.bed[n], known[n]) = (b.unwrap_or(0.0), b.is_some());
            }
        }
        // A corner of an active cell with no data around it (a grid coarser than the raster's
        // cells): its cell's own bed, the raster cell its centre lies in.
        for j in 0..ny {
            for i in 0..nx {
                if !active[j * nx + i] {
                    continue;
                }
                let (x, y) = grid.centre(i, j);
                let own = self.bed.values[self.bed.nearest_cell(x, y).map_err(|e| outside("cell", (i, j), e))?];
                for n in [j * (nx + 1) + i, j * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i, (j + 1) * (nx + 1) + i + 1] {
                    if !known[n] {
                        (p.bed[n], known[n]) = (own, true);
                    }
                }
            }
        }
        // The others (corners of inactive cells only): the lowest known bed, finite and below
        // every active corner.
        let low = p.bed.iter().zip(&known).filter(|(_, k)| **k).fold(f64::INFINITY, |m, (b, _)| m.min(*b));
        for (b, k) in p.bed.iter_mut().zip(&known) {
            if !k {
                *b = low;
            }
        }
        let all = !active.contains(&false);
        let centres = |key: &str, r: &Raster| -> Result<Vec<f64>> {
            let mut v = vec![0.0; nx * ny];
            for j in 0..ny {
                for i in 0..nx {
                    if active[j * nx + i] {
                        let (x, y) = grid.centre(i, j);
                        v[j * nx + i] = r
                            .sample(x, y, self.resample)
                            .map_err(|e| c.doc().invalid(key, format!("the grid's cell ({i}, {j}) at {e}")))?;
                    }
                }
            }
            Ok(v)
        };
        p.active = (!all).then(|| active.clone());
        match &self.water {
            // Each cell holds what a flat surface at the raster's level holds over its corner
            // bed, so a flat surface is a lake at rest even where the shoreline cuts cells.
            Water::Surface(r) => {
                let w = centres("initial.raster.surface", r)?;
                p.set_levels(|i, j| w[j * nx + i]);
            }
            Water::Depth(r) => {
                p.h = centres("initial.raster.depth", r)?;
                if let Some(k) = p.h.iter().position(|&h| h < 0.0) {
                    let (x, y) = grid.centre(k % nx, k / nx);
                    return c.fail(
                        "initial.raster.depth",
                        format!("{}: depth {} at the grid's cell ({}, {}) (x = {x} m, y = {y} m): depths must not be negative", r.name, p.h[k], k % nx, k / nx),
                    );
                }
            }
            Water::Level(l) => p.set_level(*l),
        }
        // Outside the domain no water stands.
        for s in 0..nx * ny {
            if !p.is_active(s) {
                (p.h[s], p.hu[s], p.hv[s]) = (0.0, 0.0, 0.0);
            }
        }
        if let Some(r) = &self.manning {
            let n = centres("initial.raster.manning", r)?;
            if let Some(k) = n.iter().position(|n| !(0.0..=MAX_MANNING).contains(n)) {
                let (x, y) = grid.centre(k % nx, k / nx);
                return c.fail(
                    "initial.raster.manning",
                    format!(
                        "{}: n = {} at the grid's cell ({}, {}) (x = {x} m, y = {y} m): Manning's n must lie in [0, {MAX_MANNING}] s/m^(1/3)",
                        r.name,
                        n[k],
                        k % nx,
                        k / nx
                    ),
                );
            }
            p.manning_field = Some(n);
        }
        Ok(p)
    }
}

/// The initial state of a set-up on `grid`.
pub(super) fn initial(c: &Check, init: &Initial, grid: &Grid2) -> Result<Problem> {
    let (lx, ly) = grid.extent();
    let (nx, ny) = (grid.nx, grid.ny);
    Ok(match *init {
        Initial::Column { radius, inside, outside } => {
            c.positive("initial.column.radius", radius)?;
            c.non_negative("initial.column.inside", inside)?;
            c.non_negative("initial.column.outside", outside)?;
            setup::column(nx, ny, lx, ly, radius, inside, outside)
        }
        Initial::Gaussian { level, amplitude, width, bed_west, bed_east } => {
            c.positive("initial.gaussian.width", width)?;
            for (k, v) in [("level", level), ("amplitude", amplitude), ("bed_west", bed_west), ("bed_east", bed_east)] {
                if !v.is_finite() {
                    return c.fail(&format!("initial.gaussian.{k}"), format!("{v}: must be finite"));
                }
            }
            setup::gaussian_hump(nx, ny, lx, ly, level, amplitude, width, (bed_west, bed_east))
        }
        Initial::Sine { mean, amplitude, waves } => {
            c.positive("initial.sine.mean", mean)?;
            if !(amplitude.is_finite() && amplitude.abs() <= mean) {
                return c.fail(
                    "initial.sine.amplitude",
                    format!("{}: |amplitude| ≤ mean keeps the depth non-negative", num(amplitude)),
                );
            }
            c.positive("initial.sine.waves", waves)?;
            setup::sine_wave(nx, ny, lx, ly, mean, amplitude, waves)
        }
        Initial::LakeAtRest { level } => {
            if !level.is_finite() {
                return c.fail("initial.lake-at-rest.level", format!("{level}: must be finite"));
            }
            setup::lake_at_rest_on(nx, ny, lx, ly, level)
        }
        Initial::Raster { .. } => unreachable!("read by Rasters::problem"),
        Initial::Files { ref depth, ref bed, ref hu, ref hv } => {
            let mut p = Problem::new(nx, ny, lx, ly);
            read_field(c, "initial.files.depth", &c.path(depth), (ny, nx), &mut p.h)?;
            if let Some(b) = bed {
                read_field(c, "initial.files.bed", &c.path(b), (ny + 1, nx + 1), &mut p.bed)?;
            }
            for (key, file, field) in [("initial.files.hu", hu, &mut p.hu), ("initial.files.hv", hv, &mut p.hv)] {
                if let Some(path) = file {
                    read_field(c, key, &c.path(path), (ny, nx), field)?;
                }
            }
            p
        }
    })
}

pub(super) fn read_field(
    c: &Check,
    key: &str,
    path: &std::path::Path,
    shape: (usize, usize),
    out: &mut [f64],
) -> Result<()> {
    let (data, dims) = c.read_npy(key, path).map_err(|e| c.doc().invalid(key, e))?;
    if dims != [shape.0, shape.1] {
        return c.fail(key, format!("{}: shape {dims:?}; expected {:?}", path.display(), [shape.0, shape.1]));
    }
    c.finite_npy(key, path, &data, shape.1)?;
    out.copy_from_slice(&data);
    Ok(())
}
