//! One raster in memory: its size, georeferenced extent, cell size, values and nodata mask,
//! whichever file format it came from.

use crate::case::num;
use crate::{Error, Result};

/// A north-up raster of `ncols × nrows` cells of `dx × dy` metres (in the file's coordinate
/// system) whose south-west corner is at (`west`, `south`).
///
/// Rows are stored as hydrokern stores its fields: row 0 is the **southernmost** row, x
/// fastest, so `values[j * ncols + i]` is the cell centred at `centre(i, j)` — the file's rows
/// (north first, as ASC and TIFF write them) reversed. A grid taken from a raster therefore
/// writes NPY arrays whose row 0 is the raster's last (southern) row.
#[derive(Clone, Debug, PartialEq)]
pub struct Raster {
    /// The file, for messages.
    pub name: String,
    pub ncols: usize,
    pub nrows: usize,
    pub west: f64,
    pub south: f64,
    pub dx: f64,
    pub dy: f64,
    /// Row 0 south, x fastest; 0 where `valid` is false.
    pub values: Vec<f64>,
    /// False where the file holds its nodata value.
    pub valid: Vec<bool>,
    /// The EPSG code of the projected coordinate system the file declares (a GeoTIFF's
    /// ProjectedCSTypeGeoKey, an Esri grid's `.prj`), if it declares one.
    pub epsg: Option<u16>,
}

/// What a file's header says: the raster's size, extent and cell size (its values still
/// empty) and the nodata value.
pub(super) struct Header {
    pub shape: Raster,
    pub nodata: Option<f64>,
}

/// Bytes of host memory a raster takes a cell: an f64 and a flag.
const BYTES_PER_CELL: u64 = 9;

impl Header {
    /// Sizes, cell sizes and corner checked ([`check_shape`](Self::check_shape)), and the
    /// memory the values will take (with `extra` bytes a cell for the decoder's own buffer)
    /// checked against what this machine has — all before anything is allocated.
    pub fn check(&self, extra: u64) -> Result<()> {
        self.check_shape()?;
        let r = &self.shape;
        let cells = (r.ncols as u64).checked_mul(r.nrows as u64);
        match cells.and_then(|c| c.checked_mul(BYTES_PER_CELL + extra)) {
            Some(b) => crate::files::check_host_memory(&format!("{}: a {}×{} raster", r.name, r.ncols, r.nrows), b),
            None => Err(Error::invalid(format!("{}: {}×{} cells do not fit in memory", r.name, r.ncols, r.nrows))),
        }
    }

    /// Sizes, cell sizes and corner checked.
    pub fn check_shape(&self) -> Result<()> {
        let r = &self.shape;
        let bad = |m: String| Err(Error::invalid(format!("{}: {m}", r.name)));
        if r.ncols == 0 || r.nrows == 0 {
            return bad(format!("{}×{} cells: a raster needs at least one", r.ncols, r.nrows));
        }
        for (what, v) in [("cell size in x", r.dx), ("cell size in y", r.dy)] {
            if !(v.is_finite() && v > 0.0) {
                return bad(format!("{what} {v}: must be positive and finite"));
            }
        }
        if !(r.west.is_finite() && r.south.is_finite()) {
            return bad(format!("corner ({}, {}): must be finite", num(r.west), num(r.south)));
        }
        Ok(())
    }

    /// The raster with the file's values, north row first; checked: a NaN or infinity that is
    /// not the nodata value, and a raster of nodata only, are refused.
    pub fn raster(self, north_first: impl Iterator<Item = f64>) -> Result<Raster> {
        let mut r = self.shape;
        let (nx, ny) = (r.ncols, r.nrows);
        r.values = vec![0.0; nx * ny];
        r.valid = vec![false; nx * ny];
        let is_nodata = |v: f64| self.nodata.is_some_and(|d| v == d || (d.is_nan() && v.is_nan()));
        for (k, v) in north_first.take(nx * ny).enumerate() {
            let (row, col) = (k / nx, k % nx);
            if is_nodata(v) {
                continue;
            }
            if !v.is_finite() {
                return Err(Error::invalid(format!(
                    "{}: {v} at row {row}, column {col} (from the north-west corner, as stored): values must be finite, or the nodata value{}",
                    r.name,
                    self.nodata.map_or(" (the file declares none)".to_string(), |d| format!(" {}", num(d)))
                )));
            }
            let s = (ny - 1 - row) * nx + col;
            r.values[s] = v;
            r.valid[s] = true;
        }
        if !r.valid.contains(&true) {
            return Err(Error::invalid(format!(
                "{}: every one of the {nx}×{ny} cells is nodata ({})",
                r.name,
                self.nodata.map_or("none declared".into(), |d| d.to_string())
            )));
        }
        Ok(r)
    }
}

/// UTF-8's byte-order mark.
impl Raster {
    /// The west and south edges and the extent in x and y: what a grid over the raster covers
    /// (`Grid2Section::grid_over`).
    pub fn bounds(&self) -> [f64; 4] {
        [self.west, self.south, self.ncols as f64 * self.dx, self.nrows as f64 * self.dy]
    }
    /// East and north edges.
    pub fn east(&self) -> f64 {
        self.west + self.ncols as f64 * self.dx
    }
    pub fn north(&self) -> f64 {
        self.south + self.nrows as f64 * self.dy
    }
    /// Centre of cell (i, j), row j counted from the south.
    pub fn centre(&self, i: usize, j: usize) -> (f64, f64) {
        (self.west + (i as f64 + 0.5) * self.dx, self.south + (j as f64 + 0.5) * self.dy)
    }
    /// The extent for messages: `x ∈ [w, e] m, y ∈ [s, n] m`.
    pub fn extent_text(&self) -> String {
        let (w, e, s, n) = (num(self.west), num(self.east()), num(self.south), num(self.north()));
        format!("x ∈ [{w}, {e}] m, y ∈ [{s}, {n}] m")
    }
}
