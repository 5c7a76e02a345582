//! The 3D core kernels' entry points: an x-, y- and z-sweep per 3D solver (`sweep3.rs`) and the
//! 3D ghost fill (`ghosts3.rs`), with their parameters ([`Sweep3`], [`GhostFill3`], from
//! `params.rs`), and [`Kernels3`], which ties a solver to its entry points so that the host
//! driver is generic over the solver. The parameters follow the 2D kernels' (`entries.rs`): the run's state
//! buffers in one allocation, `order` naming the buffer each sweep reads and writes, Δt read
//! from the device.

use super::params::{GhostFill3, Sweep3};
use super::riemann::*;
#[cfg(target_arch = "nvptx64")]
use super::{
    ghosts3::ghosts3,
    sweep3::{sweep3_x, sweep3_y, sweep3_z},
};
use crate::Real;
use crate::launch::{Entry, Family};

/// A 3D solver's core kernels: its parameter struct, its sweeps along x, y and z, its ghost
/// fill, and how its parameters are made. Implemented by `volume_kernels!` below for every 3D
/// system of the registry.
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

/// The 3D kernels of the registry's `volume` systems (`systems.rs`), as `plane_kernels!`
/// (`entries.rs`) makes the 2D ones: per system `Sweep3<Type>`, the sweeps `<file>_x3`, `<file>_y3`,
/// `<file>_z3` (PTX `claw3_<file>_x_f32`, …), the ghost fill `<file>_ghosts3` and its
/// [`Kernels3`].
macro_rules! volume_kernels {
    (plane { $($other:tt)* } volume { $($line:tt)* }) => {
        volume_kernels!(@munch [] [] [] $($line)*);
    };
    // A solver with constants: its value is a kernel parameter.
    (@munch [$($ghosts:tt)*] [$($sweeps:tt)*] [$($impls:tt)*]
        $file:ident => $name:ident<$t:ident>, $m:literal, $w:literal, $a:literal; $($rest:tt)*) => {
        volume_kernels!(@munch
            [$($ghosts)*
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _ghosts3)}: FillGhosts3 = ${concat(claw3_, $file, _ghosts)}(ghosts3::<T, $m>);
            ]
            [$($sweeps)*
                #[doc = concat!("One 3D sweep of `", stringify!($name), "` (its constants in `solver`).")]
                pub struct ${concat(Sweep3, $name)}<T> {
                    k: Sweep3<T>, solver: $name<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
                }
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _x3)}: ${concat(Sweep3, $name)} = ${concat(claw3_, $file, _x)}(sweep3_x::<T, $name<T>, $m, $w, $a>);
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _y3)}: ${concat(Sweep3, $name)} = ${concat(claw3_, $file, _y)}(sweep3_y::<T, $name<T>, $m, $w, $a>);
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _z3)}: ${concat(Sweep3, $name)} = ${concat(claw3_, $file, _z)}(sweep3_z::<T, $name<T>, $m, $w, $a>);
            ]
            [$($impls)*
                impl<T: Real> Kernels3<T, $m, $w, $a> for $name<T> {
                    type Family = ${concat(Sweep3, $name)}<()>;
                    const SWEEPS: [Entry<Self::Family>; 3] = [${concat($file, _x3)}, ${concat($file, _y3)}, ${concat($file, _z3)}];
                    const GHOSTS: Entry<FillGhosts3<()>> = ${concat($file, _ghosts3)};
                    fn params(self, k: Sweep3<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T) -> ${concat(Sweep3, $name)}<T> {
                        ${concat(Sweep3, $name)} { k, solver: self, states, order, aux, dt, rate }
                    }
                }
            ]
            $($rest)*);
    };
    // A unit solver: no parameter for it; the kernel names the value.
    (@munch [$($ghosts:tt)*] [$($sweeps:tt)*] [$($impls:tt)*]
        $file:ident => $name:ident, $m:literal, $w:literal, $a:literal; $($rest:tt)*) => {
        volume_kernels!(@munch
            [$($ghosts)*
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _ghosts3)}: FillGhosts3 = ${concat(claw3_, $file, _ghosts)}(ghosts3::<T, $m>);
            ]
            [$($sweeps)*
                #[doc = concat!("One 3D sweep of `", stringify!($name), "` (no constants).")]
                pub struct ${concat(Sweep3, $name)}<T> {
                    k: Sweep3<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T,
                }
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _x3)}: ${concat(Sweep3, $name)} = ${concat(claw3_, $file, _x)}(
                    |k, states, order, aux, dt, rate| unsafe { sweep3_x::<T, $name, $m, $w, $a>(k, $name, states, order, aux, dt, rate) });
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _y3)}: ${concat(Sweep3, $name)} = ${concat(claw3_, $file, _y)}(
                    |k, states, order, aux, dt, rate| unsafe { sweep3_y::<T, $name, $m, $w, $a>(k, $name, states, order, aux, dt, rate) });
                #[allow(non_upper_case_globals)]
                pub const ${concat($file, _z3)}: ${concat(Sweep3, $name)} = ${concat(claw3_, $file, _z)}(
                    |k, states, order, aux, dt, rate| unsafe { sweep3_z::<T, $name, $m, $w, $a>(k, $name, states, order, aux, dt, rate) });
            ]
            [$($impls)*
                impl<T: Real> Kernels3<T, $m, $w, $a> for $name {
                    type Family = ${concat(Sweep3, $name)}<()>;
                    const SWEEPS: [Entry<Self::Family>; 3] = [${concat($file, _x3)}, ${concat($file, _y3)}, ${concat($file, _z3)}];
                    const GHOSTS: Entry<FillGhosts3<()>> = ${concat($file, _ghosts3)};
                    fn params(self, k: Sweep3<T>, states: *mut T, order: *const u32, aux: *const T, dt: *const T, rate: *mut T) -> ${concat(Sweep3, $name)}<T> {
                        ${concat(Sweep3, $name)} { k, states, order, aux, dt, rate }
                    }
                }
            ]
            $($rest)*);
    };
    (@munch [$($ghosts:tt)*] [$($sweeps:tt)*] [$($impls:tt)*]) => {
        kernels! {
            /// The ghosts across one axis of a 3D state buffer (one entry point per system, for
            /// its M planes).
            pub struct FillGhosts3<T> { g: GhostFill3, states: *mut T, order: *const u32 }
            $($ghosts)*
            $($sweeps)*
        }
        $($impls)*
    };
}

crate::claw_systems!(volume_kernels);
