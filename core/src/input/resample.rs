//! Values of a raster at points of a grid: the nearest cell's, or bilinear between the four
//! cell centres around the point.

use super::Raster;
use crate::Error;
use crate::grid::Grid2;

/// How a raster's cell-centred values become values at other points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resample {
    /// The value of the cell the point lies in (on a cell edge: the cell east or north of it).
    Nearest,
    /// Bilinear between the centres of the four cells around the point, which reproduces a
    /// field linear in x and y exactly; within half a cell of the raster's edge, where no
    /// centre lies beyond the point, the edge cells' values are held constant outwards (the
    /// bed at a grid's corners continues the slope instead: [`Raster::sample_bed`]).
    Bilinear,
}

impl Resample {
    pub const ALL: [Resample; 2] = [Resample::Nearest, Resample::Bilinear];
    pub fn name(self) -> &'static str {
        match self {
            Resample::Nearest => "nearest",
            Resample::Bilinear => "bilinear",
        }
    }
}

impl std::str::FromStr for Resample {
    type Err = Error;
    fn from_str(s: &str) -> crate::Result<Resample> {
        Resample::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| Error::invalid(format!("unknown resampling '{s}' (expected nearest or bilinear)")))
    }
}

/// A point lies outside a raster's extent when it is further out than this fraction of a cell:
/// grids whose edges coincide with the raster's in exact arithmetic may miss them by round-off.
const EDGE_SLACK: f64 = 1e-6;

impl Raster {
    /// The value at (x, y) by `how`; `Err` names why there is none: the point lies outside the
    /// raster, or a cell it needs (with a non-zero weight) is nodata.
    pub fn sample(&self, x: f64, y: f64, how: Resample) -> Result<f64, String> {
        // Position in cells from the south-west corner.
        let (u, v) = ((x - self.west) / self.dx, (y - self.south) / self.dy);
        let (nx, ny) = (self.ncols as f64, self.nrows as f64);
        if !(u >= -EDGE_SLACK && u <= nx + EDGE_SLACK && v >= -EDGE_SLACK && v <= ny + EDGE_SLACK) {
            let (x, y) = (crate::case::num(x), crate::case::num(y));
            return Err(format!("(x = {x} m, y = {y} m) lies outside {} ({})", self.name, self.extent_text()));
        }
        let cell = |i: usize, j: usize| -> Result<f64, String> {
            let k = j * self.ncols + i;
            if self.valid[k] {
                Ok(self.values[k])
            } else {
                let (cx, cy) = self.centre(i, j);
                Err(format!(
                    "(x = {x} m, y = {y} m) needs cell ({cx} m, {cy} m) of {}, row {} from the north, column {i}, which is nodata",
                    self.name,
                    self.nrows - 1 - j
                ))
            }
        };
        match how {
            Resample::Nearest => {
                let (i, j) = self.cell_of(u, v);
                cell(i, j)
            }
            Resample::Bilinear => {
                // Between centres: the centre of cell i sits at u = i + 0.5.
                let (s, i0, i1) = between(u - 0.5, self.ncols);
                let (t, j0, j1) = between(v - 0.5, self.nrows);
                let mut sum = 0.0;
                for (wx, i) in [(1.0 - s, i0), (s, i1)] {
                    for (wy, j) in [(1.0 - t, j0), (t, j1)] {
                        if wx * wy != 0.0 {
                            sum += wx * wy * cell(i, j)?;
                        }
                    }
                }
                Ok(sum)
            }
        }
    }
}

impl Raster {
    /// The bed at (x, y) by `how` from the cells that have one. Bilinear: within half a cell of
    /// the raster's edge, beyond the outer centres, the slope between the last two centres
    /// continues (linear extrapolation), so a plane stays a plane to the raster's edge and an
    /// open side's ghosts continue the slope the cells inside have (held constant, the last
    /// half cell would be level, and water running off a slope would meet a step in the slope
    /// at the side). Where a cell it needs is nodata: the weights of the nodata cells left
    /// out of the bilinear weights between the centres (the outer ones held constant) and the
    /// rest scaled to sum to 1 (how a DEM's edge next to its nodata keeps its heights).
    /// `Ok(None)` where every cell the point needs is nodata; `Err` where the point lies
    /// outside the raster.
    pub fn sample_bed(&self, x: f64, y: f64, how: Resample) -> Result<Option<f64>, String> {
        let k = self.nearest_cell(x, y)?;
        match how {
            Resample::Nearest => Ok(self.valid[k].then(|| self.values[k])),
            Resample::Bilinear => {
                let (u, v) = ((x - self.west) / self.dx, (y - self.south) / self.dy);
                let weighted = |(s, i0, i1): (f64, usize, usize), (t, j0, j1): (f64, usize, usize)| {
                    let (mut sum, mut weight, mut missing) = (0.0, 0.0, false);
                    for (wx, i) in [(1.0 - s, i0), (s, i1)] {
                        for (wy, j) in [(1.0 - t, j0), (t, j1)] {
                            let k = j * self.ncols + i;
                            if wx * wy == 0.0 {
                                continue;
                            }
                            if self.valid[k] {
                                sum += wx * wy * self.values[k];
                                weight += wx * wy;
                            } else {
                                missing = true;
                            }
                        }
                    }
                    (sum, weight, missing)
                };
                let (sum, _, missing) = weighted(beyond(u - 0.5, self.ncols), beyond(v - 0.5, self.nrows));
                if !missing {
                    return Ok(Some(sum));
                }
                let (sum, weight, _) = weighted(between(u - 0.5, self.ncols), between(v - 0.5, self.nrows));
                Ok((weight > 0.0).then(|| sum / weight))
            }
        }
    }

    /// The cell (i, j) holding position (u, v) in cells from the south-west corner (on a cell
    /// edge: the cell east or north of it; the edge cells for points just outside).
    fn cell_of(&self, u: f64, v: f64) -> (usize, usize) {
        let i = (u.floor().max(0.0) as usize).min(self.ncols - 1);
        let j = (v.floor().max(0.0) as usize).min(self.nrows - 1);
        (i, j)
    }

    /// The index in `values` of the cell holding (x, y), [`Resample::Nearest`]'s cell, whether
    /// it is nodata or not; `Err` says the point lies outside the raster.
    pub fn nearest_cell(&self, x: f64, y: f64) -> Result<usize, String> {
        let (u, v) = ((x - self.west) / self.dx, (y - self.south) / self.dy);
        let (nx, ny) = (self.ncols as f64, self.nrows as f64);
        if !(u >= -EDGE_SLACK && u <= nx + EDGE_SLACK && v >= -EDGE_SLACK && v <= ny + EDGE_SLACK) {
            let (x, y) = (crate::case::num(x), crate::case::num(y));
            return Err(format!("(x = {x} m, y = {y} m) lies outside {} ({})", self.name, self.extent_text()));
        }
        let (i, j) = self.cell_of(u, v);
        Ok(j * self.ncols + i)
    }

    /// Whether `other` has this raster's cells: the same size, corner and cell size.
    pub fn same_cells(&self, other: &Raster) -> bool {
        (self.ncols, self.nrows) == (other.ncols, other.nrows)
            && (self.west, self.south, self.dx, self.dy) == (other.west, other.south, other.dx, other.dy)
    }

    /// The grid of this raster's cells, with `halo` ghost layers, when a case gives no `[grid]`.
    pub fn grid(&self, halo: usize) -> crate::Result<Grid2> {
        let g =
            Grid2 { nx: self.ncols, ny: self.nrows, dx: self.dx, dy: self.dy, origin: (self.west, self.south), halo };
        g.validate().map_err(|e| Error::invalid(format!("{}: as the grid: {e}", self.name)))?;
        Ok(g)
    }

    /// The values at the centres of `grid`'s cells by `how`, `nx·ny` with x fastest and row 0
    /// south; `Err` names the first cell without one (see [`sample`](Raster::sample)).
    pub fn at_centres(&self, grid: &Grid2, how: Resample) -> Result<Vec<f64>, String> {
        self.at_active_centres(grid, how, None)
    }

    /// [`at_centres`](Self::at_centres) at the cells `active` marks (every cell where `None`),
    /// NaN at the others: a cell outside the domain may lie on nodata or beyond the raster.
    pub fn at_active_centres(&self, grid: &Grid2, how: Resample, active: Option<&[bool]>) -> Result<Vec<f64>, String> {
        let mut v = Vec::with_capacity(grid.nx * grid.ny);
        for j in 0..grid.ny {
            for i in 0..grid.nx {
                if active.is_some_and(|a| !a[j * grid.nx + i]) {
                    v.push(f64::NAN);
                    continue;
                }
                let (x, y) = grid.centre(i, j);
                v.push(self.sample(x, y, how).map_err(|e| format!("the grid's cell ({i}, {j}) at {e}"))?);
            }
        }
        Ok(v)
    }
}

/// [`between`], but beyond the outer centres the last two cells with the weights that continue
/// their slope (the upper one's below 0 or above 1); one cell where the axis has one.
fn beyond(c: f64, n: usize) -> (f64, usize, usize) {
    if n >= 2 && c < 0.0 {
        return (c, 0, 1);
    }
    if n >= 2 && c > (n - 1) as f64 {
        return (c - (n - 2) as f64, n - 2, n - 1);
    }
    between(c, n)
}

/// For a position `c` in centre units along an axis of `n` cells: the weight of the upper
/// neighbour and the two cells, clamped at the ends (weight 0 beyond the outer centres).
fn between(c: f64, n: usize) -> (f64, usize, usize) {
    if n == 1 || c <= 0.0 {
        return (0.0, 0, (n - 1).min(1));
    }
    let top = (n - 1) as f64;
    if c >= top {
        return (0.0, n - 1, n - 1);
    }
    let i = c.floor() as usize;
    (c - i as f64, i, i + 1)
}
