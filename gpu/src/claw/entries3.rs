//! The 3D core kernels' entry points: an x-, y- and z-sweep per 3D solver (`sweep3.rs`) and the
//! 3D ghost fill (`ghosts3.rs`), their parameters ([`Sweep3`], [`GhostFill3`]), and
//! [`Kernels3`], which ties a solver to its entry points so that the host driver is generic
//! over the solver. The parameters follow the 2D kernels' (`entries.rs`): the run's state
//! buffers in one allocation, `order` naming the buffer each sweep reads and writes, Δt read
//! from the device.

use super::riemann::Acoustics3d;
#[cfg(target_arch = "nvptx64")]
use super::{
    ghosts3::ghosts3,
    sweep3::{sweep3_x, sweep3_y, sweep3_z},
};
use crate::Real;
use crate::grid::Layout3;
use crate::launch::{Entry, Family};

/// The parameters of a 3D sweep: [`Sweep`] over a 3D layout.
pub type Sweep3<T> = super::Sweep<T, Layout3>;

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

kernels! {
    /// The ghosts across one axis of a 3D state buffer of 4 planes.
    pub struct FillGhosts3<T> { g: GhostFill3, states: *mut T, order: *const u32 }
    pub const GHOSTS3_4: FillGhosts3 = claw_ghosts3_4(ghosts3::<T, 4>);

    /// One sweep of 3D acoustics (aux: ρ and K planes) of the state buffers' `order[k.stage]`
    /// into `order[k.stage + 1]`, with Δt read from `dt` and one rate (max |s|/Δ) a block into
    /// `rate`; the solver has no constants.
    pub struct SweepAcoustics3d<T> {
        k: Sweep3<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
    }
    pub const ACOUSTICS_3D_X: SweepAcoustics3d = claw_acoustics_3d_x(
        |k, states, order, aux, dt, rate| unsafe { sweep3_x::<T, Acoustics3d, 4, 2, 2>(k, Acoustics3d, states, order, aux, dt, rate) });
    pub const ACOUSTICS_3D_Y: SweepAcoustics3d = claw_acoustics_3d_y(
        |k, states, order, aux, dt, rate| unsafe { sweep3_y::<T, Acoustics3d, 4, 2, 2>(k, Acoustics3d, states, order, aux, dt, rate) });
    pub const ACOUSTICS_3D_Z: SweepAcoustics3d = claw_acoustics_3d_z(
        |k, states, order, aux, dt, rate| unsafe { sweep3_z::<T, Acoustics3d, 4, 2, 2>(k, Acoustics3d, states, order, aux, dt, rate) });
}

/// A 3D solver's core kernels: its parameter struct, its sweeps along x, y and z, its ghost
/// fill, and how its parameters are made.
pub trait Kernels3<T: Real, const M: usize, const W: usize, const A: usize>: super::Riemann<T, M, W, A> {
    type Family: Family;
    /// The sweeps along x, y, z.
    const SWEEPS: [Entry<Self::Family>; 3];
    /// The ghost fill for M planes.
    const GHOSTS: Entry<FillGhosts3<()>>;
    fn params(
        self,
        k: Sweep3<T>,
        states: *mut T,
        order: *const u32,
        aux: *const T,
        dt: *const T,
        rate: *mut T,
    ) -> <Self::Family as Family>::At<T>;
}

/// Acoustics has no constants: its parameter struct has no field for the solver.
impl<T: Real> Kernels3<T, 4, 2, 2> for Acoustics3d {
    type Family = SweepAcoustics3d<()>;
    const SWEEPS: [Entry<SweepAcoustics3d<()>>; 3] = [ACOUSTICS_3D_X, ACOUSTICS_3D_Y, ACOUSTICS_3D_Z];
    const GHOSTS: Entry<FillGhosts3<()>> = GHOSTS3_4;
    fn params(
        self,
        k: Sweep3<T>,
        states: *mut T,
        order: *const u32,
        aux: *const T,
        dt: *const T,
        rate: *mut T,
    ) -> SweepAcoustics3d<T> {
        SweepAcoustics3d { k, states, order, aux, dt, rate }
    }
}
