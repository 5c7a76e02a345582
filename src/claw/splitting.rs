//! How a step combines its sweeps: the choice every reference and driver, in 2D and 3D, reads
//! from its set-up.

/// How the sweeps of a step are combined (two in 2D, three in 3D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Splitting {
    /// Godunov: x over Δt, then y over Δt (then z over Δt in 3D; first order in the
    /// splitting; cudaclaw's choice).
    Godunov,
    /// Strang: x over Δt/2, y over Δt, x over Δt/2 (in 3D x½ y½ z y½ x½, `d3::cpu::STRANG`;
    /// second order in the splitting).
    Strang,
}
