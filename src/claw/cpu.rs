//! The CPU reference of the wave-propagation algorithm in two dimensions: cells with two ghost
//! layers, the boundary conditions of every side, dimensionally split sweeps (Godunov or
//! Strang), and PyClaw's CFL control with reject-and-redo. Any [`Riemann`] solver; the sweeps
//! (`lines.rs`, shared with the 3D reference) call the same point functions (`kernels::claw`)
//! the core kernels do.

use super::clock::Cfl;
use super::cpu_run::{CpuRun, RunGrid};
use super::lines;
use super::slab::Whole;
use super::splitting::Splitting;
use super::start::Shape;
use crate::{Error, Real, Result};
use kernels::claw::Limiter;
use kernels::grid::Layout2;
use kernels::halo::{WALL, edge_ghost, ghosts_x, ghosts_y};

pub use super::clock::{Clock, Step};

/// Ghost layers: a cell's update reads the waves of the interfaces one beyond its own.
pub const HALO: u32 = 2;

/// The grid and the algorithm's choices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    pub nx: usize,
    pub ny: usize,
    /// Cell sizes in metres.
    pub dx: f64,
    pub dy: f64,
    /// Boundary condition per side (west, east, south, north): `kernels::halo::{WALL,
    /// EXTRAPOLATE, PERIODIC}`.
    pub bc: [u32; 4],
    pub limiter: Limiter,
    pub splitting: Splitting,
    pub cfl: Cfl,
}

impl Setup {
    /// The grid as a start sees it (`start.rs`): slabs cut across y.
    pub fn shape(&self) -> Shape {
        let [w, e, s, n] = self.bc;
        let h = HALO as usize;
        Shape::new([self.nx, self.ny, 1], [h, h, 0], [w, e, s, n, WALL, WALL], 1)
    }
}

/// A 2D wave-propagation run on the CPU over solver `R` (M equations, W waves, A aux fields).
pub type Claw2<T, R, const M: usize, const W: usize, const A: usize> = CpuRun<Setup, T, R, M, W, A>;

/// Godunov's sweeps in 2D (x, y) and Strang's (x½ y x½): (axis, fraction of Δt).
const GODUNOV: [(usize, f64); 2] = [(0, 1.0), (1, 1.0)];
const STRANG: [(usize, f64); 3] = [(0, 0.5), (1, 1.0), (0, 0.5)];

impl RunGrid for Setup {
    type Layout = Layout2;
    const ROWS: &'static str = "rows";
    fn validate(&self) -> Result<()> {
        if self.nx == 0 || self.ny == 0 || self.nx > u32::MAX as usize / 2 || self.ny > u32::MAX as usize / 2 {
            return Err(Error::invalid(format!("claw: {} × {} cells is not a grid", self.nx, self.ny)));
        }
        if !(self.dx > 0.0 && self.dx.is_finite() && self.dy > 0.0 && self.dy.is_finite()) {
            return Err(Error::invalid(format!("claw: cell sizes {} × {} m must be positive", self.dx, self.dy)));
        }
        lines::check_sides_and_cfl(&self.bc, self.cfl)
    }
    fn layout(&self) -> Layout2 {
        Layout2::new(self.nx as u32, self.ny as u32, HALO)
    }
    fn shape(&self) -> Shape {
        Setup::shape(self)
    }
    fn spacings(&self) -> [f64; 3] {
        [self.dx, self.dy, 1.0]
    }
    fn sweeps(&self) -> &'static [(usize, f64)] {
        match self.splitting {
            Splitting::Godunov => &GODUNOV,
            Splitting::Strang => &STRANG,
        }
    }
    fn fill_ghosts<T: Real, const N: usize>(
        &self,
        layout: &Layout2,
        dir: usize,
        q: &mut [[T; N]],
        normal: Option<usize>,
    ) {
        fill_ghosts(layout, &self.bc, dir, q, normal);
    }
    fn limiter(&self) -> Limiter {
        self.limiter
    }
    fn cfl(&self) -> Cfl {
        self.cfl
    }
    fn rows(&self) -> usize {
        self.ny
    }
    fn row_cells(&self) -> usize {
        self.nx
    }
    fn with_rows(&self, rows: usize) -> Setup {
        Setup { ny: rows, ..*self }
    }
    fn halo_layout(&self) -> Layout2 {
        RunGrid::layout(self)
    }
    fn whole(&self) -> Whole {
        Whole::Plane(RunGrid::layout(self))
    }
}

/// Fills the ghost cells across axis `dir` by each side's condition (`halo::edge_ghost`, the
/// pass the kp solver and the GPU's ghost kernel use); at a wall the mirrored ghosts'
/// component `normal` changes sign. A split sweep reads no corner ghost, so what the y-pass
/// puts there does not matter.
fn fill_ghosts<T: Real, const N: usize>(
    layout: &Layout2,
    bc: &[u32; 4],
    dir: usize,
    q: &mut [[T; N]],
    normal: Option<usize>,
) {
    let count = if dir == 0 { ghosts_x(layout) } else { ghosts_y(layout) };
    lines::fill(q, normal, (0..count).filter_map(|t| edge_ghost(layout, *bc, dir as u32, t)));
}
