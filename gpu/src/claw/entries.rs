//! The core kernels' entry points: an x-sweep and a y-sweep per solver (`sweep.rs`), and
//! [`Kernels`], which ties each solver to its entry points and parameter struct so that the
//! host driver is generic over the solver.

use super::clock::Control;
use super::params::{GhostFill, Sweep};
use super::riemann::*;
#[cfg(target_arch = "nvptx64")]
use super::{
    clock::control,
    ghosts::ghosts,
    sweep::{sweep_x, sweep_y},
};
use crate::Real;
use crate::launch::{Entry, Family};

/// A solver's core kernels: its parameter struct, its sweeps along x and y, and how its
/// parameters are made. Implemented by `plane_kernels!` below for every 2D system of the registry.
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

/// The 2D kernels of the registry's `plane` systems (`systems.rs`), one `kernels!` invocation:
/// the ghost fill, then per system `Sweep<Type>` (the parameters; with the solver value as
/// `solver` when it has constants — a kernel takes no empty parameter, so a unit solver has no
/// field) and its sweeps `<file>_x`, `<file>_y` (PTX `claw_<file>_x_f32`, …), its ghost fill
/// `<file>_ghosts` (of M planes), and its [`Kernels`]; then the step's control kernel. It
/// munches one system at a time, gathering ghost entries, sweep items and impls apart, since
/// an entry belongs to the struct declared last before it.
macro_rules! plane_kernels {
    (plane { $($line:tt)* } volume { $($other:tt)* }) => {
        plane_kernels!(@munch [] [] [] $($line)*);
    };
    // A solver with constants: its value is a kernel parameter.
    (@munch [$($ghosts:tt)*] [$($sweeps:tt)*] [$($impls:tt)*]
        $file:ident => $name:ident<$t:ident>, $m:literal, $w:literal, $a:literal; $($rest:tt)*) => {
        plane_kernels!(@munch
            [$($ghosts)*
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _ghosts)}: FillGhosts = ${concat(claw_, $file, _ghosts)}(ghosts::<T, $m>);
            ]
            [$($sweeps)*
                #[doc = concat!("One 2D sweep of `", stringify!($name), "` (its constants in `solver`).")]
                pub struct ${concat(Sweep, $name)}<T> {
                    k: Sweep<T>, solver: $name<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
                }
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _x)}: ${concat(Sweep, $name)} = ${concat(claw_, $file, _x)}(sweep_x::<T, $name<T>, $m, $w, $a>);
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _y)}: ${concat(Sweep, $name)} = ${concat(claw_, $file, _y)}(sweep_y::<T, $name<T>, $m, $w, $a>);
            ]
            [$($impls)*
                impl<T: Real> Kernels<T, $m, $w, $a> for $name<T> {
                    type Family = ${concat(Sweep, $name)}<()>;
                    const X: Entry<Self::Family> = ${concat($file, _x)};
                    const Y: Entry<Self::Family> = ${concat($file, _y)};
                    const GHOSTS: Entry<FillGhosts<()>> = ${concat($file, _ghosts)};
                    fn params(self, k: Sweep<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T) -> ${concat(Sweep, $name)}<T> {
                        ${concat(Sweep, $name)} { k, solver: self, states, order, aux, dt, rate }
                    }
                }
            ]
            $($rest)*);
    };
    // A unit solver: no parameter for it; the kernel names the value.
    (@munch [$($ghosts:tt)*] [$($sweeps:tt)*] [$($impls:tt)*]
        $file:ident => $name:ident, $m:literal, $w:literal, $a:literal; $($rest:tt)*) => {
        plane_kernels!(@munch
            [$($ghosts)*
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _ghosts)}: FillGhosts = ${concat(claw_, $file, _ghosts)}(ghosts::<T, $m>);
            ]
            [$($sweeps)*
                #[doc = concat!("One 2D sweep of `", stringify!($name), "` (no constants).")]
                pub struct ${concat(Sweep, $name)}<T> {
                    k: Sweep<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
                }
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _x)}: ${concat(Sweep, $name)} = ${concat(claw_, $file, _x)}(
                    |k, states, order, aux, dt, rate| unsafe { sweep_x::<T, $name, $m, $w, $a>(k, $name, states, order, aux, dt, rate) });
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _y)}: ${concat(Sweep, $name)} = ${concat(claw_, $file, _y)}(
                    |k, states, order, aux, dt, rate| unsafe { sweep_y::<T, $name, $m, $w, $a>(k, $name, states, order, aux, dt, rate) });
            ]
            [$($impls)*
                impl<T: Real> Kernels<T, $m, $w, $a> for $name {
                    type Family = ${concat(Sweep, $name)}<()>;
                    const X: Entry<Self::Family> = ${concat($file, _x)};
                    const Y: Entry<Self::Family> = ${concat($file, _y)};
                    const GHOSTS: Entry<FillGhosts<()>> = ${concat($file, _ghosts)};
                    fn params(self, k: Sweep<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T) -> ${concat(Sweep, $name)}<T> {
                        ${concat(Sweep, $name)} { k, states, order, aux, dt, rate }
                    }
                }
            ]
            $($rest)*);
    };
    (@munch [$($ghosts:tt)*] [$($sweeps:tt)*] [$($impls:tt)*]) => {
        kernels! {
            /// The ghosts across one axis of a state buffer (one entry point per system, for its
            /// M planes).
            pub struct FillGhosts<T> { g: GhostFill, states: *mut T, order: *const u32 }
            $($ghosts)*
            $($sweeps)*
            /// PyClaw's decision on the step just tried (from the largest of `n` rates, one
            /// block), the state buffers' `order` after it, and the next step's Δt into `dt`
            /// (`clock`).
            pub struct StepControl<T> { c: Control, rate: *const T, n: u64, dt: *mut T, clock: *mut f64, order: *mut u32 }
            pub const CONTROL: StepControl = claw_control(control::<T>);
        }
        $($impls)*
    };
}

crate::claw_systems!(plane_kernels);
