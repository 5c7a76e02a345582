//! Kurganov–Petrova shallow water (Amundsen; docs/design.md, "Kurganov–Petrova shallow water
//! (Amundsen)"): Kurganov & Petrova 2007 as implemented on GPUs by Brodtkorb, Sætra & Altinakar
//! 2012.
//!
//!   Q_t + F(Q)_x + G(Q)_y = S,   Q = (w, hu, hv),   h = w − B
//!   F = (hu, hu²/h + ½gh², huv/h),   G = (hv, huv/h, hv²/h + ½gh²)
//!   S = (0, −ghB_x − C_f hu, −ghB_y − C_f hv),   C_f = g n² |u| / h^{4/3}  (Manning)
//!
//! Grid: nx×ny cells plus two ghost layers, state arrays of `(nx+4)(ny+4)` cells row-major,
//! x fastest, interior cells i in 2..nx+2, j in 2..ny+2. Bathymetry B is given at cell corners,
//! an array of `(nx+5)(ny+5)`: corner (i, j) is the south-west corner of cell (i, j). Face
//! values of B are the means of the face's two corners (the bilinear interpolant), the cell
//! value the mean of its four.
//!
//! Per cell and axis: generalized-minmod slopes (θ) of w, hu, hv; the w slope corrected so
//! both face depths are non-negative; desingularized face velocities
//! `u = √2·h·(hu) / √(h⁴ + max(h⁴, κ))` with the momenta recomputed as h·u (the wet–dry scheme
//! `clamp` desingularizes each cell's velocity once and limits slopes of u, v instead of hu, hv:
//! `wetdry.rs`); central-upwind fluxes with one-sided speeds a⁺, a⁻; the well-balanced bed-slope
//! source
//! `−g (B_{+} − B_{−})/Δ · (h_{+} + h_{−})/2` from the reconstructed face depths. Time stepping:
//! Euler steps E(Q) = Q + Δt·R(Q) with Manning friction treated semi-implicitly
//! (hu ← (hu + ΔtR_hu)/(1 + Δt C_f(Q)); n one constant or one value a cell, `friction.rs`); RK2 is Q^{n+1} = ½(Q^n + E(E(Q^n))) with one Δt from
//! the first stage's speeds. After every stage negative depths (round-off) are set to 0 and the
//! momentum of cells with h ≤ `dry` is zeroed.
//!
//! The point functions (`physics.rs`, `ghosts.rs`, `early_exit.rs`, `clock.rs`, `perimeter.rs`)
//! are shared by the kernels and the CPU reference; `entries.rs` declares the kernels.

mod clock;
mod coeffs;
mod early_exit;
mod entries;
mod forcing;
mod friction;
mod geometry;
mod ghosts;
mod perimeter;
mod physics;
mod walls;
mod wetdry;

pub use clock::*;
pub use coeffs::*;
pub use early_exit::*;
pub use entries::*;
pub use forcing::*;
pub use friction::*;
pub use geometry::*;
pub use ghosts::*;
pub use perimeter::*;
pub use physics::*;
pub use walls::*;
pub use wetdry::*;

#[cfg(target_arch = "nvptx64")]
mod account;
#[cfg(target_arch = "nvptx64")]
mod boundary;
#[cfg(target_arch = "nvptx64")]
mod drain;
#[cfg(target_arch = "nvptx64")]
mod force;
#[cfg(target_arch = "nvptx64")]
mod mixed;
#[cfg(target_arch = "nvptx64")]
mod out_only;
#[cfg(target_arch = "nvptx64")]
mod rk;
#[cfg(target_arch = "nvptx64")]
mod smem;
#[cfg(target_arch = "nvptx64")]
mod split_flux;
#[cfg(target_arch = "nvptx64")]
mod split_step;
#[cfg(target_arch = "nvptx64")]
mod stream;
#[cfg(target_arch = "nvptx64")]
mod tile;
