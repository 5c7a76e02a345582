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
    /// in f64 ([`sum`]).
    pub fn integrate<T: crate::Real>(&self, interior: &[T]) -> f64 {
        sum(interior) * self.cell_area()
    }
}

/// Σ v in f64: runs of [`SUM_RUN`] values summed in storage order, in parallel, then the runs'
/// sums in order. The result depends on the values alone, not on the number of threads, so
/// progress lines and conservation figures read the same on every machine; a writer checks a
/// 4096² snapshot's volume in a few milliseconds instead of ~20 on one core.
pub fn sum<T: crate::Real>(values: &[T]) -> f64 {
    use rayon::prelude::*;
    let runs: Vec<f64> = values.par_chunks(SUM_RUN).map(|r| r.iter().map(|v| v.to_f64()).sum::<f64>()).collect();
    runs.iter().sum()
}

/// Values [`sum`] adds in one run.
pub const SUM_RUN: usize = 1 << 14;

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

impl Grid3 {
    /// Centre of cell (i, j, k) of a grid whose points are cells (the wave-propagation solver's:
    /// cell (0, 0, 0) has its corner at `origin`), in metres.
    pub fn cell_centre(&self, i: usize, j: usize, k: usize) -> (f64, f64, f64) {
        let at = |o: f64, n: usize, d: f64| o + (n as f64 + 0.5) * d;
        (at(self.origin.0, i, self.dx), at(self.origin.1, j, self.dy), at(self.origin.2, k, self.dz))
    }
    /// Extent in metres.
    pub fn extent(&self) -> (f64, f64, f64) {
        (self.nx as f64 * self.dx, self.ny as f64 * self.dy, self.nz as f64 * self.dz)
    }
}

/// The cells a simulation's output fields live on: a plane (fields of NumPy shape (ny, nx)) or a
/// volume of cells (shape (nz, ny, nx)); x fastest in both.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mesh {
    Plane(Grid2),
    Volume(Grid3),
}

impl Mesh {
    /// Interior cells.
    pub fn cells(&self) -> usize {
        match self {
            Mesh::Plane(g) => g.cells(),
            Mesh::Volume(g) => g.len(),
        }
    }
    /// The shape of a field's array, slowest axis first (NumPy's order).
    pub fn dims(&self) -> Vec<usize> {
        match self {
            Mesh::Plane(g) => vec![g.ny, g.nx],
            Mesh::Volume(g) => vec![g.nz, g.ny, g.nx],
        }
    }
    /// An area in 2D, a volume in 3D.
    pub fn cell_size(&self) -> f64 {
        match self {
            Mesh::Plane(g) => g.cell_area(),
            Mesh::Volume(g) => g.dx * g.dy * g.dz,
        }
    }
    /// The integral Σ v·(cell size) of an interior field, summed in f64 ([`sum`]).
    pub fn integrate<T: crate::Real>(&self, interior: &[T]) -> f64 {
        sum(interior) * self.cell_size()
    }
    /// The centre of the cell at storage index `c` (z = 0 on a plane), metres.
    pub fn centre(&self, c: usize) -> [f64; 3] {
        match self {
            Mesh::Plane(g) => {
                let (x, y) = g.centre(c % g.nx, c / g.nx);
                [x, y, 0.0]
            }
            Mesh::Volume(g) => {
                let (x, y, z) = g.cell_centre(c % g.nx, (c / g.nx) % g.ny, c / (g.nx * g.ny));
                [x, y, z]
            }
        }
    }
    /// The NumPy index of the cell at storage index `c`: [row, column], or [z, y, x] in 3D.
    pub fn index(&self, c: usize) -> Vec<usize> {
        match self {
            Mesh::Plane(g) => vec![c / g.nx, c % g.nx],
            Mesh::Volume(g) => vec![c / (g.nx * g.ny), (c / g.nx) % g.ny, c % g.nx],
        }
    }
    /// The cell at storage index `c` of field `name`, for messages:
    /// `h[3, 7] (NumPy row 3, column 7 of h.npy; x = 0.3500 m, y = 0.7500 m)`, or in 3D
    /// `p[1, 3, 7] (NumPy index [z, y, x] of p.npy; x = …, y = …, z = … m)`.
    pub fn cell_note(&self, name: &str, c: usize) -> String {
        let at = self.index(c);
        let [x, y, z] = self.centre(c);
        let list = at.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
        match self {
            Mesh::Plane(_) => format!(
                "{name}[{list}] (NumPy row {}, column {} of {name}.npy; x = {x:.4} m, y = {y:.4} m)",
                at[0], at[1]
            ),
            Mesh::Volume(_) => {
                format!(
                    "{name}[{list}] (NumPy index [z, y, x] of {name}.npy; x = {x:.4} m, y = {y:.4} m, z = {z:.4} m)"
                )
            }
        }
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
