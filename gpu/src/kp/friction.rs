//! Where a cell's Manning friction g·n² comes from: one value for the whole grid
//! (`Coeffs::g_n2`, [`Uniform`]) or a field of one value a cell ([`PerCell`], from a raster of n:
//! docs/raster-input.md). Friction acts only in the RK stage (`euler`), so only the RK kernel
//! depends on it.
//!
//! The source is a type parameter of the RK kernel, as the wet–dry scheme is of the flux
//! kernels (docs/kp-wet-dry-kernels.md): each has its own entry point, and the host takes the
//! per-cell one only when the problem has a friction field. A run without one reads no extra
//! array; with one, each RK stage reads one more value a cell (against the 10 or 13 values a
//! cell the stage moves otherwise, stage 1 or 2: docs/raster-input.md).

/// A source of g·n², chosen at compile time.
pub trait Friction: Copy + 'static {
    /// Whether each cell's g·n² is read from the friction field (else `Coeffs::g_n2`).
    const PER_CELL: bool;
}

/// One g·n² for every cell: `Coeffs::g_n2`.
#[derive(Clone, Copy, Debug)]
pub struct Uniform;
impl Friction for Uniform {
    const PER_CELL: bool = false;
}

/// g·n² per cell, from a padded array of the state's layout.
#[derive(Clone, Copy, Debug)]
pub struct PerCell;
impl Friction for PerCell {
    const PER_CELL: bool = true;
}
