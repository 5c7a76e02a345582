//! hydrokern's kernels (package `hydrokern-kernels`, library `kernels`, folder `gpu/`).
//!
//! This crate is compiled twice: for `nvptx64-nvidia-cuda` (by the top-level `build.rs`, into
//! PTX that the library embeds) and for the host (as an ordinary dependency of `hydrokern`).
//! Point-wise physics, the [`Real`] trait and every kernel's parameter struct and entry constant
//! ([`kernels!`]) compile for both, so the CPU references call the same code the kernels call and
//! the host launches kernels with the types they were declared with; kernel bodies, entry points
//! and the device layer exist only on nvptx64.
//!
//! Each solver is a module `<solver>/`: its point functions and constants in `mod.rs` (or files
//! it re-exports), its entry points in `entries.rs`, the kernel bodies in nvptx-only files
//! named for what they hold.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_gpu_kernel, stdarch_nvptx, asm_experimental_arch, gpu_intrinsics, gpu_launch_sized_workgroup_mem)
)]
#![feature(core_intrinsics, macro_metavar_expr_concat)]
#![allow(internal_features)]
// The kernel declarations (`kernels!`) recurse once per item they declare; the shallow-water
// module's run past the default limit.
#![recursion_limit = "256"]

pub mod real;
pub use real::Real;

#[macro_use]
pub mod launch;
pub use launch::{Entry, Family, MAX_PARAMS, Params};

pub mod bands;
pub use bands::Bands;
pub mod forcing;
pub mod grid;
pub mod halo;
pub mod level;
pub use level::Level;

#[cfg(target_arch = "nvptx64")]
pub mod async_copy;
#[cfg(target_arch = "nvptx64")]
pub mod device;

#[macro_use]
mod unroll;

/// Register caps build.rs writes into the PTX (`.maxnreg`).
pub mod registers;

// The solver modules. Declared here rather than by `entry_points!` so that rustfmt sees them.
pub mod adi;
pub mod claw;
pub mod fd3d;
pub mod foundation;
pub mod kp;
pub mod products;
pub mod sediment;
pub mod transpose;
pub mod tridiag;
pub mod view;

/// [`ENTRY_POINTS`] from the solver modules' `ENTRY_STEMS`.
macro_rules! entry_points {
    ($($name:ident),* $(,)?) => {
        /// Every kernel entry point of the crate, per solver module: (module, stems). Each stem is
        /// two PTX symbols, `<stem>_f32` and `<stem>_f64`. A module missing here would show in
        /// the PTX as entry points nobody expects (`tests/core/ptxas.rs` checks both ways).
        pub const ENTRY_POINTS: &[(&str, &[&str])] = &[$((stringify!($name), $name::ENTRY_STEMS)),*];
    };
}

entry_points!(foundation, sediment, fd3d, kp, tridiag, transpose, claw, adi, products, view);

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // With -Cpanic=immediate-abort every panic path is already `trap`; this is never reached.
    core::intrinsics::abort()
}
