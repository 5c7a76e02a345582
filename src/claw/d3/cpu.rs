//! The CPU reference of the wave-propagation algorithm in three dimensions: the 2D reference
//! (`cpu.rs`) one axis up, on the same line sweeps (`lines.rs`) and the same step control
//! ([`Clock::step`]). Cells with two ghost layers on every side, six sides each a wall,
//! extrapolation or periodic, and dimensionally split sweeps:
//!
//! - Godunov: x, y, z, each over Δt (first order in the splitting; cudaclaw's choice);
//! - Strang: x over Δt/2, y over Δt/2, z over Δt, y over Δt/2, x over Δt/2 — the symmetric
//!   sequence, second order in the splitting (each half of it is the other's adjoint).
//!
//! The CFL number of a step is the largest Δt·|s|/Δ of any wave of any sweep, half sweeps
//! measured against the full Δt.

use crate::claw::clock::Cfl;
use crate::claw::cpu::{HALO, Setup};
use crate::claw::cpu_run::{CpuRun, RunGrid};
use crate::claw::lines;
use crate::claw::slab::Whole;
use crate::claw::splitting::Splitting;
use crate::claw::start::Shape;
use crate::{Error, Real, Result};
use kernels::claw::Limiter;
use kernels::grid::{Layout2, Layout3};
use kernels::halo::{WALL, edge_ghost3, ghosts3};

/// Strang's sweeps in 3D: (axis, fraction of Δt), x½ y½ z y½ x½.
pub const STRANG: [(usize, f64); 5] = [(0, 0.5), (1, 0.5), (2, 1.0), (1, 0.5), (0, 0.5)];

/// The grid and the algorithm's choices in 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup3 {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    /// Cell sizes in metres.
    pub dx: f64,
    pub dy: f64,
    pub dz: f64,
    /// Boundary condition per side (west, east, south, north, bottom, top):
    /// `kernels::halo::{WALL, EXTRAPOLATE, PERIODIC}`.
    pub bc: [u32; 6],
    pub limiter: Limiter,
    pub splitting: Splitting,
    pub cfl: Cfl,
}

impl Setup3 {
    /// `n` cells along x and y and `nz` along z of side 1/`n` (the unit square when `nz` is 1),
    /// walls all round, the MC limiter, Godunov splitting and the default CFL targets: the
    /// benchmarks' and the tuner's problem.
    pub fn walled(n: usize, nz: usize) -> Setup3 {
        let h = 1.0 / n as f64;
        Setup3 {
            nx: n,
            ny: n,
            nz,
            dx: h,
            dy: h,
            dz: h,
            bc: [WALL; 6],
            limiter: Limiter::Mc,
            splitting: Splitting::Godunov,
            cfl: Cfl::default(),
        }
    }

    /// The padded layout of every field.
    pub fn layout(&self) -> Layout3 {
        Layout3::new(self.nx as u32, self.ny as u32, self.nz as u32, HALO)
    }

    /// The 2D set-up of the plane z = 0: x and y as they are (the bottom and top sides and dz
    /// dropped).
    pub fn plane(&self) -> Setup {
        let [w, e, s, n, ..] = self.bc;
        Setup {
            nx: self.nx,
            ny: self.ny,
            dx: self.dx,
            dy: self.dy,
            bc: [w, e, s, n],
            limiter: self.limiter,
            splitting: self.splitting,
            cfl: self.cfl,
        }
    }

    /// The cell size along axis `dir`.
    pub fn spacing(&self, dir: usize) -> f64 {
        [self.dx, self.dy, self.dz][dir]
    }

    /// The grid as a start sees it (`start.rs`): slabs cut across z.
    pub fn shape(&self) -> Shape {
        Shape::new([self.nx, self.ny, self.nz], [HALO as usize; 3], self.bc, 2)
    }
}

/// A 3D wave-propagation run on the CPU over solver `R` (M equations, W waves, A aux fields).
pub type Claw3<T, R, const M: usize, const W: usize, const A: usize> = CpuRun<Setup3, T, R, M, W, A>;

/// Godunov's sweeps in 3D: x, y, z, each over Δt.
const GODUNOV: [(usize, f64); 3] = [(0, 1.0), (1, 1.0), (2, 1.0)];

impl RunGrid for Setup3 {
    type Layout = Layout3;
    const ROWS: &'static str = "planes";
    fn validate(&self) -> Result<()> {
        let n = [self.nx, self.ny, self.nz];
        // The padded grid's points must count in u32 (the kernels' ghost enumeration).
        let padded: f64 = n.iter().map(|&n| (n + 2 * HALO as usize) as f64).product();
        if n.contains(&0) || padded > u32::MAX as f64 {
            return Err(Error::invalid(format!("claw: {} × {} × {} cells is not a grid", n[0], n[1], n[2])));
        }
        if ![self.dx, self.dy, self.dz].iter().all(|d| *d > 0.0 && d.is_finite()) {
            return Err(Error::invalid(format!(
                "claw: cell sizes {} × {} × {} m must be positive",
                self.dx, self.dy, self.dz
            )));
        }
        lines::check_sides_and_cfl(&self.bc, self.cfl)
    }
    fn layout(&self) -> Layout3 {
        Setup3::layout(self)
    }
    fn shape(&self) -> Shape {
        Setup3::shape(self)
    }
    fn spacings(&self) -> [f64; 3] {
        [self.dx, self.dy, self.dz]
    }
    fn sweeps(&self) -> &'static [(usize, f64)] {
        match self.splitting {
            Splitting::Godunov => &GODUNOV,
            Splitting::Strang => &STRANG,
        }
    }
    fn fill_ghosts<T: Real, const N: usize>(
        &self,
        layout: &Layout3,
        dir: usize,
        q: &mut [[T; N]],
        normal: Option<usize>,
    ) {
        fill_ghosts3(layout, &self.bc, dir, q, normal);
    }
    fn limiter(&self) -> Limiter {
        self.limiter
    }
    fn cfl(&self) -> Cfl {
        self.cfl
    }
    fn rows(&self) -> usize {
        self.nz
    }
    fn row_cells(&self) -> usize {
        self.nx * self.ny
    }
    fn with_rows(&self, rows: usize) -> Setup3 {
        Setup3 { nz: rows, ..*self }
    }
    fn halo_layout(&self) -> Layout2 {
        rows_of(&Setup3::layout(self))
    }
    fn whole(&self) -> Whole {
        Whole::Volume(Setup3::layout(self))
    }
}

/// Fills the ghost cells across axis `dir` by each side's condition (`halo::edge_ghost3`, the
/// pass the GPU's 3D ghost kernel uses); at a wall the mirrored ghosts' component `normal`
/// changes sign. A split sweep reads no edge or corner ghost, so what later passes put there
/// does not matter.
pub fn fill_ghosts3<T: Real, const N: usize>(
    layout: &Layout3,
    bc: &[u32; 6],
    dir: usize,
    q: &mut [[T; N]],
    normal: Option<usize>,
) {
    let count = ghosts3(layout, dir as u32);
    lines::fill(q, normal, (0..count).filter_map(|t| edge_ghost3(layout, *bc, dir as u32, t)));
}

/// The padded 3D `layout` as rows of a 2D layout, one padded z-plane a row: how a run cut
/// across z is decomposed (the slabs' rows are planes; a checkpoint's fields join and split
/// plane by plane).
pub fn rows_of(layout: &Layout3) -> Layout2 {
    let plane = layout.plane_len() as u32;
    Layout2::new(plane - 2 * layout.halo, layout.nz, layout.halo)
}
