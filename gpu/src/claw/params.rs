//! The core kernels' parameters, which the entry points (`entries.rs`, `entries3.rs`) declare
//! and the sweeps and ghost fills (`sweep.rs`, `sweep3.rs`, `lines.rs`, `ghosts.rs`,
//! `ghosts3.rs`) read: a sweep's ([`Sweep`], [`Sweep3`]), a ghost fill's ([`GhostFill`],
//! [`GhostFill3`]), and the cells a warp of an x-sweep updates ([`X_CELLS_PER_WARP`]), which the
//! host's launch shapes follow too.

use crate::bands::Bands;
use crate::grid::{Layout2, Layout3};

/// The parameters every core kernel shares: the padded layout of every plane (two ghost
/// layers), 1/Δ along the sweep's axis, the fraction of the step's Δt the sweep takes (1, or
/// ½ for Strang's x-sweeps), the limiter's code, `rows` (the rows a warp of an x-sweep takes,
/// the cells a thread of a y- or z-sweep marches), the sweep's place in the step (`stage`: it
/// reads state buffer `order[stage]` and writes `order[stage + 1]`, [`clock`](super::clock)),
/// and the bands of the grid the launch computes, so that a slab of a decomposed run sweeps
/// across its cut in two launches while its ghost layers travel: the 2D y-sweep's bands are its
/// rows of blocks (`by · rows` rows each), the 3D z-sweep's its layers of blocks (`rows` planes
/// each); the other sweeps take the whole grid. Each state buffer holds M planes one after
/// another, each `layout.len()` values, and the buffers lie one after another; the auxiliary
/// buffer holds A planes. The layout is 2D by default, [`Sweep3`]'s 3D.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep<T, L = Layout2> {
    pub layout: L,
    pub inv_dx: T,
    pub dt_frac: T,
    pub limiter: u32,
    pub rows: u32,
    pub stage: u32,
    pub bands: Bands,
}

/// The ghost-fill kernel's parameters: the layout, each side's condition (west, east, south,
/// north; `halo` codes), the component a wall negates across `dir` (`u32::MAX` for none), the
/// axis, and the stage whose input buffer (`order[stage]`) it fills.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GhostFill {
    pub layout: Layout2,
    pub bc: [u32; 4],
    pub normal: u32,
    pub dir: u32,
    pub stage: u32,
}

/// Cells a warp of the x-sweep updates: its 32 lanes solve 32 consecutive interfaces, and the
/// first and last two serve only the limiting and the update of their neighbours.
pub const X_CELLS_PER_WARP: u32 = 29;

/// The parameters of a 3D sweep: [`Sweep`] over a 3D layout.
pub type Sweep3<T> = Sweep<T, Layout3>;

/// The 3D ghost-fill kernel's parameters: the layout, each side's condition (west, east,
/// south, north, bottom, top; `halo` codes), the component a wall negates across `dir`
/// (`u32::MAX` for none), the axis, and the stage whose input buffer (`order[stage]`) it fills.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GhostFill3 {
    pub layout: Layout3,
    pub bc: [u32; 6],
    pub normal: u32,
    pub dir: u32,
    pub stage: u32,
}
