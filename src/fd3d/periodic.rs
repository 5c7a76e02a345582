//! fd3d's grids: the periodic unit cube as every API taking a grid sees it and checks it.

use super::direction::Direction;
use crate::grid::Grid3;
use crate::{Error, Real, Result};
use kernels::fd3d::{Coef, WIDTH};

/// The largest dimension accepted (keeps every index arithmetic of the kernels in range).
pub const MAX_DIM: usize = 1 << 30;

/// fd3d's grids: periodic, on the unit cube, `m` distinct points per direction (`x_i = i/m`),
/// no ghost layers (the stencils wrap in their index arithmetic). Every API taking a grid checks
/// it first ([`PeriodicGrid::validate_periodic`]), so an invalid one is an `Err`.
pub trait PeriodicGrid: Sized {
    /// The periodic unit cube with `mx × my × mz` points, checked.
    fn unit_cube(mx: usize, my: usize, mz: usize) -> Result<Self>;
    /// The periodic unit cube with `n × n × n` points, checked.
    fn cube(n: usize) -> Result<Self> {
        Self::unit_cube(n, n, n)
    }
    /// Every dimension in `9..=2^30` and the point count representable.
    fn validate_periodic(&self) -> Result<()>;
    /// Points along `dir`.
    fn m(&self, dir: Direction) -> usize;
    /// Elements between neighbours along `dir`.
    fn stride(&self, dir: Direction) -> usize;
    /// Linear index of point (i, j, k).
    fn index(&self, i: usize, j: usize, k: usize) -> usize;
    /// Grid spacing along `dir` (the domain has length 1).
    fn delta(&self, dir: Direction) -> f64 {
        1.0 / self.m(dir) as f64
    }
    /// The stencil's coefficients over Δ along `dir`.
    fn coef<T: Real>(&self, dir: Direction) -> Coef<T> {
        Coef::new(self.m(dir) as f64)
    }
}

impl PeriodicGrid for Grid3 {
    fn unit_cube(mx: usize, my: usize, mz: usize) -> Result<Grid3> {
        let d = |m: usize| 1.0 / m.max(1) as f64;
        let g = Grid3 { nx: mx, ny: my, nz: mz, dx: d(mx), dy: d(my), dz: d(mz), origin: (0.0, 0.0, 0.0), halo: 0 };
        g.validate_periodic()?;
        Ok(g)
    }
    fn validate_periodic(&self) -> Result<()> {
        for (name, m) in [("mx", self.nx), ("my", self.ny), ("mz", self.nz)] {
            if m < WIDTH as usize {
                return Err(Error::invalid(format!(
                    "fd3d: {name} = {m} is below {WIDTH}, the width of the 8th-order stencil (every periodic \
                     dimension needs at least {WIDTH} points)"
                )));
            }
            if m > MAX_DIM {
                return Err(Error::invalid(format!("fd3d: {name} = {m} is over the largest dimension, {MAX_DIM}")));
            }
        }
        self.nx
            .checked_mul(self.ny)
            .and_then(|p| p.checked_mul(self.nz))
            .filter(|&n| n <= isize::MAX as usize / 8)
            .map(|_| ())
            .ok_or_else(|| Error::invalid(format!("fd3d: a {self} grid has too many points")))
    }
    fn m(&self, dir: Direction) -> usize {
        [self.nx, self.ny, self.nz][dir.axis()]
    }
    fn stride(&self, dir: Direction) -> usize {
        [1, self.nx, self.nx * self.ny][dir.axis()]
    }
    fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.nx * (j + self.ny * k)
    }
}
