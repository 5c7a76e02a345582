//! Clawpack-style wave propagation (cudaclaw; docs/claw.md): LeVeque's
//! high-resolution wave-propagation algorithm with dimensional splitting, where the only
//! equation-specific code is a point-wise Riemann solver ([`Riemann`], one file per system of
//! equations under [`riemann`]).
//!
//! Along one axis, at the interface i−½ between cells i−1 and i, the solver splits the jump
//! ΔQ = Q_i − Q_{i−1} into W waves 𝒲_p moving at speeds s_p and returns the fluctuations
//! A⁻ΔQ (into cell i−1) and A⁺ΔQ (into cell i). A sweep then updates every cell from its two
//! interfaces,
//!
//!   Q_i ← Q_i − Δt/Δx·(A⁺ΔQ_{i−½} + A⁻ΔQ_{i+½}) − Δt/Δx·(F̃_{i+½} − F̃_{i−½}),
//!   F̃_{i−½} = ½ Σ_p |s_p| (1 − Δt/Δx·|s_p|) 𝒲̃_p,
//!
//! where 𝒲̃_p = φ(θ_p)·𝒲_p is the wave limited by comparing it with the same family's wave at
//! the upwind interface ([`limited`], [`correction`]). These point functions are shared by the
//! CPU reference (`src/claw/cpu.rs`) and the core kernels (`sweep.rs`).

pub mod clock;
pub mod riemann;
mod systems;

mod limiter;
mod params;
mod solver;
mod update;
pub use limiter::*;
pub use params::{GhostFill, GhostFill3, Sweep, Sweep3, X_CELLS_PER_WARP};
pub use solver::{Riemann, Solution};
pub use update::{correction, correction_by, step_by, update, update_west, wave_dots};

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod ghosts;
#[cfg(target_arch = "nvptx64")]
mod sweep;

// The 3D kernels: entry points (`entries3.rs`, their parameters in `params.rs`), bodies
// (`sweep3.rs`, `ghosts3.rs`) on the line bodies of `lines.rs`.
mod entries3;
pub use entries3::*;
#[cfg(target_arch = "nvptx64")]
mod ghosts3;
#[cfg(target_arch = "nvptx64")]
mod lines;
#[cfg(target_arch = "nvptx64")]
mod sweep3;

/// Every entry-point stem of the module (`kernels!` makes one list an invocation): the 2D
/// kernels' (`entries.rs`), then the 3D kernels' (`entries3.rs`).
pub const ENTRY_STEMS: &[&str] = &STEMS;
const STEMS: [&str; entries::ENTRY_STEMS.len() + entries3::ENTRY_STEMS.len()] = {
    let (two, three) = (entries::ENTRY_STEMS, entries3::ENTRY_STEMS);
    let mut out = [""; entries::ENTRY_STEMS.len() + entries3::ENTRY_STEMS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = if i < two.len() { two[i] } else { three[i - two.len()] };
        i += 1;
    }
    out
};
