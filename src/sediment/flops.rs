//! Floating-point operations per point of the `seed` scheme's updates, as Su et al. count them:
//! the figures `bench sediment` turns into GFLOP/s, so its rows compare with the paper's. The
//! bounded scheme has no count here; its formulas differ from the ones these figures count.

/// Operations per point of the h update.
pub const FLOPS_H: f64 = 55.0;
/// Operations per point of the s update.
pub const FLOPS_S: f64 = 34.0;
