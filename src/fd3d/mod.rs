//! 3D finite differences (seed 004): the periodic 8th-order centred first derivative along x,
//! y or z of a field on an `mx × my × mz` grid, by the CPU reference ([`cpu`]) or one of the
//! GPU kernel variants ([`gpu`]).
//!
//! The domain is the periodic unit cube `[0, 1)³` with `m` distinct points per direction,
//! `x_i = i / m` (Δ = 1/m; unlike the seed's Fortran, no duplicated end point). Layout
//! `f[i + mx·(j + my·k)]`, x fastest. Every dimension needs at least 9 points, the stencil's
//! width. The stencil itself is `kernels::fd3d::d8`, shared by the kernels and the CPU reference.
//!
//! [`TestField`] is the scenario's (`case`) and the tests' field with a known derivative:
//! `f = cos(2π kx x) · sin(2π ky y) · cos(2π kz z)`.

#[cfg(feature = "bench")]
pub mod bench;
mod case;
pub mod cpu;
pub mod gpu;
pub mod tune;

pub use case::{Fd3dCase, MAX_REPS};

pub use kernels::fd3d::{COEFFICIENTS, Coef, HALO, WIDTH, d8};

pub use crate::grid::Grid3;
use crate::{Error, Real, Result};
use rayon::prelude::*;
use std::f64::consts::TAU;
use std::str::FromStr;

/// The direction of a derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    X,
    Y,
    Z,
}

impl Direction {
    pub const ALL: [Direction; 3] = [Direction::X, Direction::Y, Direction::Z];
    pub fn name(self) -> &'static str {
        match self {
            Direction::X => "x",
            Direction::Y => "y",
            Direction::Z => "z",
        }
    }
    /// 0, 1, 2 for x, y, z.
    pub fn axis(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

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

/// The GPU kernel variants: the seed's three tiles, and what goes past them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// x with a shared tile of 4 x-pencils, 64-point chunks plus halo (the seed's x kernel).
    X4Pencil,
    /// x with a shared tile of 16 (or more) x-pencils, 8 points per thread.
    XTile,
    /// x with 16-byte loads and stores, no shared memory.
    XVec,
    /// y with a shared tile of 4 y-pencils, one point per thread (the seed's first y kernel).
    Y4Pencil,
    /// y with a shared tile of 32 y-pencils, 8 points per thread (the seed's lPencils kernel).
    Y32Pencil,
    /// y from registers: a thread marches along y with a sliding register window.
    YStream,
    /// z with a shared tile of 4 z-pencils.
    Z4Pencil,
    /// z with a shared tile of 32 z-pencils, 8 points per thread.
    Z32Pencil,
    /// z from registers, as y-stream.
    ZStream,
}

impl Variant {
    pub const ALL: [Variant; 9] = [
        Variant::X4Pencil,
        Variant::XTile,
        Variant::XVec,
        Variant::Y4Pencil,
        Variant::Y32Pencil,
        Variant::YStream,
        Variant::Z4Pencil,
        Variant::Z32Pencil,
        Variant::ZStream,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::X4Pencil => "x-4pencil",
            Variant::XTile => "x-tile",
            Variant::XVec => "x-vec",
            Variant::Y4Pencil => "y-4pencil",
            Variant::Y32Pencil => "y-32pencil",
            Variant::YStream => "y-stream",
            Variant::Z4Pencil => "z-4pencil",
            Variant::Z32Pencil => "z-32pencil",
            Variant::ZStream => "z-stream",
        }
    }

    pub fn direction(self) -> Direction {
        match self {
            Variant::X4Pencil | Variant::XTile | Variant::XVec => Direction::X,
            Variant::Y4Pencil | Variant::Y32Pencil | Variant::YStream => Direction::Y,
            Variant::Z4Pencil | Variant::Z32Pencil | Variant::ZStream => Direction::Z,
        }
    }

    /// The kernel it launches.
    pub fn entry(self) -> kernels::Entry<kernels::fd3d::Derivative<()>> {
        use kernels::fd3d::{X_PENCIL, X_TILE, X_VEC, YZ_PENCIL, YZ_STREAM};
        match self {
            Variant::X4Pencil => X_PENCIL,
            Variant::XTile => X_TILE,
            Variant::XVec => X_VEC,
            Variant::Y4Pencil | Variant::Y32Pencil | Variant::Z4Pencil | Variant::Z32Pencil => YZ_PENCIL,
            Variant::YStream | Variant::ZStream => YZ_STREAM,
        }
    }

    /// One line on how it works.
    pub fn describe(self) -> &'static str {
        match self {
            Variant::X4Pencil => "shared tile of 4 x-pencils × 64-point chunks (+4 halo), 1 point/thread (seed)",
            Variant::XTile => "shared tile of 16 x-pencils × 128-point chunks (+4 halo), 8 points/thread",
            Variant::XVec => "16-byte loads and stores, 2 vectors/thread, no shared memory",
            Variant::Y4Pencil | Variant::Z4Pencil => {
                "shared tile of 4 pencils × 64-point chunks, 1 point/thread (seed)"
            }
            Variant::Y32Pencil | Variant::Z32Pencil => {
                "shared tile of 32 pencils × 64-point chunks, 8 points/thread (seed's lPencils)"
            }
            Variant::YStream | Variant::ZStream => {
                "register window along the pencil (steps of 16 f32 / 8 f64 points), no shared memory"
            }
        }
    }

    /// The variants along `dir`.
    pub fn along(dir: Direction) -> impl Iterator<Item = Variant> {
        Variant::ALL.into_iter().filter(move |v| v.direction() == dir)
    }

    fn names() -> String {
        Variant::ALL.map(|v| v.name()).join(", ")
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Variant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| Error::invalid(format!("unknown fd3d variant '{s}' (variants: {})", Variant::names())))
    }
}

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

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "fd3d",
    about: "8th-order periodic first derivatives of a known 3D field: error and bandwidth per kernel variant",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(Fd3dCase::load(doc)?)),
    mixed: false,
    products: crate::solver::Support::None,
    tune: Some(tune::search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};
