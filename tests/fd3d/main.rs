//! 3D finite differences: the CPU reference against exact derivatives and every GPU variant
//! against the CPU reference.

#[path = "../common/mod.rs"]
mod common;
mod kernels;
