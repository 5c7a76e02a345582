//! The core kernels' entry points: an x-sweep and a y-sweep per solver (`sweep.rs`), and
//! [`Kernels`], which ties each solver to its entry points and parameter struct so that the
//! host driver is generic over the solver.

use super::clock::Control;
use super::riemann::{Acoustics2d, Advection, ShallowHlle, ShallowRoe};
use super::{GhostFill, Sweep};
#[cfg(target_arch = "nvptx64")]
use super::{
    clock::control,
    ghosts::ghosts,
    sweep::{sweep_x, sweep_y},
};
use crate::Real;
use crate::launch::{Entry, Family};

kernels! {
    /// The ghosts across one axis of a state buffer of 1, 3 or 4 planes.
    pub struct FillGhosts<T> { g: GhostFill, states: *mut T, order: *const u32 }
    pub const GHOSTS_1: FillGhosts = claw_ghosts_1(ghosts::<T, 1>);
    pub const GHOSTS_3: FillGhosts = claw_ghosts_3(ghosts::<T, 3>);
    pub const GHOSTS_4: FillGhosts = claw_ghosts_4(ghosts::<T, 4>);

    /// One sweep of advection of the state buffers' `order[k.stage]` into `order[k.stage + 1]`,
    /// with Δt read from `dt` and one rate (max |s|/Δ) a block into `rate`; `aux` is unused (no
    /// auxiliary fields).
    pub struct SweepAdvection<T> {
        k: Sweep<T>, solver: Advection<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
    }
    pub const ADVECTION_X: SweepAdvection = claw_advection_x(sweep_x::<T, Advection<T>, 1, 1, 0>);
    pub const ADVECTION_Y: SweepAdvection = claw_advection_y(sweep_y::<T, Advection<T>, 1, 1, 0>);

    /// One sweep of 2D acoustics (aux: ρ and K planes); the solver has no constants.
    pub struct SweepAcoustics2d<T> {
        k: Sweep<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
    }
    pub const ACOUSTICS_2D_X: SweepAcoustics2d = claw_acoustics_2d_x(
        |k, states, order, aux, dt, rate| unsafe { sweep_x::<T, Acoustics2d, 3, 2, 2>(k, Acoustics2d, states, order, aux, dt, rate) });
    pub const ACOUSTICS_2D_Y: SweepAcoustics2d = claw_acoustics_2d_y(
        |k, states, order, aux, dt, rate| unsafe { sweep_y::<T, Acoustics2d, 3, 2, 2>(k, Acoustics2d, states, order, aux, dt, rate) });

    /// One sweep of shallow water, Roe with the entropy fix; `aux` is unused.
    pub struct SweepShallowRoe<T> {
        k: Sweep<T>, solver: ShallowRoe<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
    }
    pub const SHALLOW_ROE_X: SweepShallowRoe = claw_shallow_roe_x(sweep_x::<T, ShallowRoe<T>, 3, 3, 0>);
    pub const SHALLOW_ROE_Y: SweepShallowRoe = claw_shallow_roe_y(sweep_y::<T, ShallowRoe<T>, 3, 3, 0>);

    /// One sweep of shallow water, HLLE; `aux` is unused.
    pub struct SweepShallowHlle<T> {
        k: Sweep<T>, solver: ShallowHlle<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
    }
    pub const SHALLOW_HLLE_X: SweepShallowHlle = claw_shallow_hlle_x(sweep_x::<T, ShallowHlle<T>, 3, 2, 0>);
    pub const SHALLOW_HLLE_Y: SweepShallowHlle = claw_shallow_hlle_y(sweep_y::<T, ShallowHlle<T>, 3, 2, 0>);

    /// PyClaw's decision on the step just tried (from the device-wide largest rate `rate[0]`),
    /// the state buffers' `order` after it, and the next step's Δt into `dt` (`clock`).
    pub struct StepControl<T> { c: Control, rate: *const T, dt: *mut T, clock: *mut f64, order: *mut u32 }
    pub const CONTROL: StepControl = claw_control(control::<T>);
}

/// A solver's core kernels: its parameter struct, its sweeps along x and y, and how its
/// parameters are made. Implemented below for every solver with kernels (one line each).
pub trait Kernels<T: Real, const M: usize, const W: usize, const A: usize>: super::Riemann<T, M, W, A> {
    type Family: Family;
    const X: Entry<Self::Family>;
    const Y: Entry<Self::Family>;
    /// The ghost fill for M planes.
    const GHOSTS: Entry<FillGhosts<()>>;
    fn params(
        self,
        k: Sweep<T>,
        states: *mut T,
        order: *const u32,
        aux: *const T,
        dt: *const T,
        rate: *mut T,
    ) -> <Self::Family as Family>::At<T>;
}

/// `Kernels` for a solver: its parameter struct carries the solver value, or (`stateless`) the
/// solver has no constants and the struct has no field for it (a kernel takes no empty
/// parameter).
macro_rules! kernels_of {
    ($solver:ty, $m:literal, $w:literal, $a:literal, $params:ident, $x:ident, $y:ident, $g:ident $(, $stateless:ident)?) => {
        impl<T: Real> Kernels<T, $m, $w, $a> for $solver {
            type Family = $params<()>;
            const X: Entry<$params<()>> = $x;
            const Y: Entry<$params<()>> = $y;
            const GHOSTS: Entry<FillGhosts<()>> = $g;
            fn params(self, k: Sweep<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T) -> $params<T> {
                kernels_of!(@new $params, self, k, states, order, aux, dt, rate $(, $stateless)?)
            }
        }
    };
    (@new $params:ident, $s:ident, $k:ident, $states:ident, $order:ident, $aux:ident, $dt:ident, $rate:ident) => {
        $params { k: $k, solver: $s, states: $states, order: $order, aux: $aux, dt: $dt, rate: $rate }
    };
    (@new $params:ident, $s:ident, $k:ident, $states:ident, $order:ident, $aux:ident, $dt:ident, $rate:ident, stateless) => {{
        let _ = $s;
        $params { k: $k, states: $states, order: $order, aux: $aux, dt: $dt, rate: $rate }
    }};
}

kernels_of!(Advection<T>, 1, 1, 0, SweepAdvection, ADVECTION_X, ADVECTION_Y, GHOSTS_1);
kernels_of!(Acoustics2d, 3, 2, 2, SweepAcoustics2d, ACOUSTICS_2D_X, ACOUSTICS_2D_Y, GHOSTS_3, stateless);
kernels_of!(ShallowRoe<T>, 3, 3, 0, SweepShallowRoe, SHALLOW_ROE_X, SHALLOW_ROE_Y, GHOSTS_3);
kernels_of!(ShallowHlle<T>, 3, 2, 0, SweepShallowHlle, SHALLOW_HLLE_X, SHALLOW_HLLE_Y, GHOSTS_3);
