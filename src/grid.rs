//! Grids: the interior points of a rectangle (or box) in metres, their spacing and origin, and
//! the ghost layers a solver keeps around them. A grid hands out the [`Layout2`] its padded
//! fields are indexed by, and the positions of its cells for set-ups, pictures and messages.

pub use kernels::grid::Layout2;

use crate::{Error, Result};

/// A 2D grid of `nx × ny` cells of `dx × dy` metres; cell (0, 0) has its south-west corner at
/// `origin`. Fields on it carry `halo` ghost layers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid2 {
    pub nx: usize,
    pub ny: usize,
    pub dx: f64,
    pub dy: f64,
    pub origin: (f64, f64),
    pub halo: usize,
}

/// The largest number of cells along one axis: every kernel index stays in 32 bits with room
/// for ghost layers and per-thread strides.
pub const MAX_CELLS_PER_AXIS: usize = (u32::MAX / 8) as usize;

impl Grid2 {
    /// `nx × ny` cells over `lx × ly` metres from the origin, with `halo` ghost layers.
    pub fn new(nx: usize, ny: usize, lx: f64, ly: f64, halo: usize) -> Result<Grid2> {
        let g = Grid2 { nx, ny, dx: lx / nx.max(1) as f64, dy: ly / ny.max(1) as f64, origin: (0.0, 0.0), halo };
        g.validate()?;
        Ok(g)
    }

    /// Sizes positive and within the kernels' 32-bit indices, spacings positive and finite.
    pub fn validate(&self) -> Result<()> {
        if self.nx == 0 || self.ny == 0 {
            return Err(Error::invalid(format!("grid {}×{}: sizes must be positive", self.nx, self.ny)));
        }
        if self.nx > MAX_CELLS_PER_AXIS || self.ny > MAX_CELLS_PER_AXIS {
            return Err(Error::invalid(format!(
                "grid {}×{}: at most {MAX_CELLS_PER_AXIS} cells per axis",
                self.nx, self.ny
            )));
        }
        for (name, v) in [("dx", self.dx), ("dy", self.dy)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::invalid(format!("grid spacing {name} = {v}: must be positive and finite")));
            }
        }
        if !(self.origin.0.is_finite() && self.origin.1.is_finite()) {
            return Err(Error::invalid(format!("grid origin {:?}: must be finite", self.origin)));
        }
        Ok(())
    }

    /// Interior cells.
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }
    /// The layout of cell-centred fields.
    pub fn layout(&self) -> Layout2 {
        Layout2::new(self.nx as u32, self.ny as u32, self.halo as u32)
    }
    /// The layout of node-centred fields (cell corners): `(nx+1) × (ny+1)` nodes.
    pub fn node_layout(&self) -> Layout2 {
        Layout2::new(self.nx as u32 + 1, self.ny as u32 + 1, self.halo as u32)
    }
    /// Centre of cell (i, j) in metres.
    pub fn centre(&self, i: usize, j: usize) -> (f64, f64) {
        (self.origin.0 + (i as f64 + 0.5) * self.dx, self.origin.1 + (j as f64 + 0.5) * self.dy)
    }
    /// Position of node (i, j), the south-west corner of cell (i, j).
    pub fn node(&self, i: usize, j: usize) -> (f64, f64) {
        (self.origin.0 + i as f64 * self.dx, self.origin.1 + j as f64 * self.dy)
    }
    /// Extent in metres.
    pub fn extent(&self) -> (f64, f64) {
        (self.nx as f64 * self.dx, self.ny as f64 * self.dy)
    }
    /// The edges in metres, (west, east, south, north): a map's axes.
    pub fn edges(&self) -> [f64; 4] {
        let (lx, ly) = self.extent();
        [self.origin.0, self.origin.0 + lx, self.origin.1, self.origin.1 + ly]
    }
    /// Area of one cell.
    pub fn cell_area(&self) -> f64 {
        self.dx * self.dy
    }
    /// The integral Σ v·ΔxΔy of an interior field (a volume, from a depth or a height), summed
    /// in f64 in storage order.
    pub fn integrate<T: crate::Real>(&self, interior: &[T]) -> f64 {
        interior.iter().map(|v| v.to_f64()).sum::<f64>() * self.cell_area()
    }
    /// Where cell (i, j) is, for messages: NumPy's `[row, column]` of an interior array
    /// (`[j, i]`, 0-based) and the position of its centre.
    pub fn describe_cell(&self, i: usize, j: usize) -> String {
        let (x, y) = self.centre(i, j);
        format!("[{j}, {i}] (row, column of the {}×{} array; centre at x = {x:.4} m, y = {y:.4} m)", self.ny, self.nx)
    }
}

/// A 3D grid of `nx × ny × nz` points spaced `dx × dy × dz` metres from `origin`, with `halo`
/// ghost layers on each side (none for fields periodic in their index arithmetic).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid3 {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    pub dx: f64,
    pub dy: f64,
    pub dz: f64,
    pub origin: (f64, f64, f64),
    pub halo: usize,
}

impl Grid3 {
    /// Points in the grid (interior).
    pub fn len(&self) -> usize {
        self.nx * self.ny * self.nz
    }
    /// Never true for a grid with a point (kept for clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes of one interior field of `T`.
    pub fn bytes<T>(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }
}

impl std::fmt::Display for Grid3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.nx == self.ny && self.ny == self.nz {
            write!(f, "{}³", self.nx)
        } else {
            write!(f, "{}×{}×{}", self.nx, self.ny, self.nz)
        }
    }
}
