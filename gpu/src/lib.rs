//! hydrokern's kernels (package `hydrokern-kernels`, library `kernels`, folder `gpu/`).
//!
//! This crate is compiled twice: for `nvptx64-nvidia-cuda` (by the top-level `build.rs`, into
//! PTX that the library embeds) and for the host (as an ordinary dependency of `hydrokern`).
//! Point-wise physics and the [`Real`] trait compile for both, so the CPU references call the
//! same code the kernels call; kernel entry points and the device layer exist only on nvptx64.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_gpu_kernel, stdarch_nvptx, asm_experimental_arch, gpu_intrinsics, gpu_launch_sized_workgroup_mem)
)]
#![feature(core_intrinsics)]
#![allow(internal_features)]

pub mod real;
pub use real::Real;

pub mod params;

#[cfg(target_arch = "nvptx64")]
pub mod device;

#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod stamp;

pub mod fd3d;
#[cfg(target_arch = "nvptx64")]
mod foundation;

pub mod sediment;
pub mod transpose;
pub mod tridiag;

pub mod kp;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // With -Cpanic=immediate-abort every panic path is already `trap`; this is never reached.
    core::intrinsics::abort()
}
