//! The field with a known derivative that the scenario (`case`), the benchmark and the tests
//! differentiate, and the error norms of a computed derivative against the exact one.

use super::direction::Direction;
use super::periodic::PeriodicGrid;
use crate::grid::Grid3;
use crate::{Error, Real, Result};
use rayon::prelude::*;
use std::f64::consts::TAU;

/// `f = cos(2π kx x) · sin(2π ky y) · cos(2π kz z)` on the unit cube, with its exact
/// derivatives. Separable, so it is sampled from three 1D tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestField {
    /// Wavenumbers (kx, ky, kz): whole periods across the domain.
    pub k: [u32; 3],
}

impl Default for TestField {
    fn default() -> Self {
        TestField { k: [1, 1, 1] }
    }
}

/// Error norms of a computed derivative against the exact one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorNorms {
    pub rms: f64,
    pub max: f64,
    /// max |exact|, for relative statements.
    pub max_exact: f64,
}

impl TestField {
    pub const FORMULA: &'static str = "cos(2π kx x)·sin(2π ky y)·cos(2π kz z)";

    /// Per axis, the factor and its derivative at each grid point.
    fn tables(&self, grid: Grid3) -> [(Vec<f64>, Vec<f64>); 3] {
        let m = [grid.nx, grid.ny, grid.nz];
        std::array::from_fn(|a| {
            let w = TAU * self.k[a] as f64;
            let x = |i: usize| i as f64 / m[a] as f64;
            // x and z factors are cosines, y a sine.
            if a == 1 {
                ((0..m[a]).map(|i| (w * x(i)).sin()).collect(), (0..m[a]).map(|i| w * (w * x(i)).cos()).collect())
            } else {
                ((0..m[a]).map(|i| (w * x(i)).cos()).collect(), (0..m[a]).map(|i| -w * (w * x(i)).sin()).collect())
            }
        })
    }

    /// The field at every grid point.
    pub fn sample<T: Real>(&self, grid: Grid3) -> Result<Vec<T>> {
        grid.validate_periodic()?;
        let [(fx, _), (fy, _), (fz, _)] = self.tables(grid);
        let mut out = Vec::new();
        out.try_reserve_exact(grid.len()).map_err(|_| {
            Error::invalid(format!("fd3d: no host memory for a {grid} field ({} bytes)", grid.bytes::<T>()))
        })?;
        out.resize(grid.len(), T::ZERO);
        out.par_chunks_mut(grid.nx).enumerate().for_each(|(row, out)| {
            let (j, k) = (row % grid.ny, row / grid.ny);
            let s = fy[j] * fz[k];
            for (o, &v) in out.iter_mut().zip(&fx) {
                *o = T::from_f64(v * s);
            }
        });
        Ok(out)
    }

    /// RMS and max of `got − ∂f/∂dir` over the grid (the exact derivative in f64).
    pub fn errors<T: Real>(&self, grid: Grid3, dir: Direction, got: &[T]) -> Result<ErrorNorms> {
        grid.validate_periodic()?;
        if got.len() != grid.len() {
            return Err(Error::invalid(format!("fd3d: {} values for a {grid} grid", got.len())));
        }
        let [(fx, dx), (fy, dy), (fz, dz)] = self.tables(grid);
        let (tx, ty, tz) = match dir {
            Direction::X => (&dx, &fy, &fz),
            Direction::Y => (&fx, &dy, &fz),
            Direction::Z => (&fx, &fy, &dz),
        };
        // NaN (an unwritten point) must not vanish in a max: `f64::max` drops NaNs.
        let (sum, max, max_exact) = got
            .par_chunks(grid.nx)
            .enumerate()
            .map(|(row, got)| {
                let (j, k) = (row % grid.ny, row / grid.ny);
                let s = ty[j] * tz[k];
                let mut acc = (0.0f64, 0.0f64, 0.0f64);
                for (g, &v) in got.iter().zip(tx) {
                    let exact = v * s;
                    let e = (g.to_f64() - exact).abs();
                    acc.0 += e * e;
                    acc.1 = if e > acc.1 || e.is_nan() { e } else { acc.1 };
                    acc.2 = acc.2.max(exact.abs());
                }
                acc
            })
            .reduce(
                || (0.0, 0.0, 0.0),
                |a, b| (a.0 + b.0, if b.1 > a.1 || b.1.is_nan() { b.1 } else { a.1 }, a.2.max(b.2)),
            );
        Ok(ErrorNorms { rms: (sum / grid.len() as f64).sqrt(), max, max_exact })
    }
}
