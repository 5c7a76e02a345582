//! Rain and infiltration for the ADI model, applied after each whole step (both sweeps) as a
//! split operator: a cell's surface ζ rises by the rain over the step and falls by what its soil
//! takes, at most what the column d + ζ then holds. The fluxes p and q live on the faces and
//! keep their values: the water that falls or soaks away enters the continuity equation only,
//! as MIKE 21 HD's precipitation and its sources without momentum. A cell's wet flag follows
//! its new depth (`wet_next`, the sweeps' rule), so rain floods a dry cell once it is deeper
//! than the flooding depth. The span and the uniform rain's depth come from the host, which
//! knows each step's time (Δt is fixed); the CPU reference calls [`force_column`] the same way.

use super::{Params, wet_next};
use crate::Real;
use crate::forcing::{Infiltration, force_cell};

/// A column after its forcing over `dt`: still-water depth `d`, surface `zeta`, the depth `add`
/// the rain brings, the soil that has taken `f` so far. Returns (ζ, the soil's new total). A
/// soil that takes all the column holds leaves ζ at −d exactly, rather than by the rounding of
/// ζ + (add − taken).
#[inline(always)]
pub fn force_column<T: Real>(d: T, zeta: T, add: T, soil: Infiltration<T>, f: T, dt: T) -> (T, T) {
    let h = (d + zeta).max(T::ZERO);
    let (dh, taken) = force_cell(h, add, soil, f, dt);
    let left = (h + add) - taken;
    let zeta = if taken > T::ZERO && left <= T::ZERO { -d } else { zeta + dh };
    (zeta, f + taken)
}

/// [`force_column`] and the cell's wet flag after it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn force_cell_adi<T: Real>(
    k: &Params<T>,
    d: T,
    zeta: T,
    wet: bool,
    add: T,
    soil: Infiltration<T>,
    f: T,
    dt: T,
) -> (T, T, bool) {
    let (zeta, f) = force_column(d, zeta, add, soil, f, dt);
    (zeta, f, wet_next(k, wet, d + zeta))
}
