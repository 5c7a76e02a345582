//! The scheme's constants, precomputed on the host and passed to every kernel by value.

use crate::Real;
use crate::grid::Layout2;

/// Boundary condition codes of one side: the shared halo codes this scheme supports.
pub use crate::halo::{EXTRAPOLATE as BC_OUTFLOW, PERIODIC as BC_PERIODIC, WALL as BC_WALL};

/// Constants of the scheme, precomputed on the host.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Coeffs<T> {
    /// Interior cells; `pitch = nx + 4` (cells), `cpitch = nx + 5` (corners).
    pub nx: u32,
    pub ny: u32,
    pub pitch: u32,
    pub cpitch: u32,
    /// Boundary conditions west, east, south, north (`BC_*`).
    pub bc: [u32; 4],
    /// Cells per block in x and y of the flux and RK kernels (the wet map has one flag a block).
    pub bx: u32,
    pub by: u32,
    /// Blocks in x and y.
    pub nbx: u32,
    pub nby: u32,
    pub g: T,
    pub half_g: T,
    /// Generalized minmod parameter θ ∈ [1, 2].
    pub theta: T,
    pub inv_dx: T,
    pub inv_dy: T,
    /// Desingularization constant κ (a length to the fourth power).
    pub kappa: T,
    /// Depth at or below which a cell is dry (momentum zeroed, not wet in the wet map).
    pub dry: T,
    /// g·n² of Manning's law (0: no friction).
    pub g_n2: T,
    /// Wet–dry treatment: [`WET_DRY_KP07`] or [`WET_DRY_BOLLERMANN`] (`wetdry.rs`).
    pub wet_dry: u32,
    /// 1/(4·CFL): a partially flooded cell lets at most `drain·a·h̄` out through a face of speed
    /// a (`wetdry.rs`, the draining cap).
    pub drain: T,
}

/// Kurganov & Petrova 2007: w slopes corrected so face depths are non-negative.
pub const WET_DRY_KP07: u32 = 0;
/// Bollermann, Chen, Kurganov & Noelle 2013 in 2D: partially flooded cells reconstructed flat
/// at the level that holds their volume, their outflow capped (`wetdry.rs`).
pub const WET_DRY_BOLLERMANN: u32 = 1;

impl<T: Real> Coeffs<T> {
    /// Boundary condition of side 0..4 (west, east, south, north). A `match`, not `[side]`:
    /// indexing the by-value parameter at run time would force it into local memory.
    #[inline(always)]
    pub fn side(&self, side: u32) -> u32 {
        match side {
            0 => self.bc[0],
            1 => self.bc[1],
            2 => self.bc[2],
            _ => self.bc[3],
        }
    }
    /// Index of cell (i, j) in the padded arrays.
    #[inline(always)]
    pub fn at(&self, i: u32, j: u32) -> usize {
        j as usize * self.pitch as usize + i as usize
    }
    /// Depth above which a cell counts as wet in the wet map (early exit): `dry`, or 0 in the
    /// Bollermann scheme, where a partially flooded cell's faces can be wet while its mean
    /// depth is below `dry`, so only a block without any water has R = 0 for sure.
    #[inline(always)]
    pub fn wet_above(&self) -> T {
        if self.wet_dry == WET_DRY_BOLLERMANN { T::ZERO } else { self.dry }
    }
    /// Cells of the padded arrays.
    #[inline(always)]
    pub fn cells(&self) -> usize {
        self.pitch as usize * (self.ny as usize + 4)
    }
    /// The layout of the padded state: two ghost layers.
    #[inline(always)]
    pub fn layout(&self) -> Layout2 {
        Layout2 { nx: self.nx, ny: self.ny, halo: 2, pitch: self.pitch }
    }
}
