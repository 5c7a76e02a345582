//! Flooding and drying: which cells are wet and which faces carry flux.

use super::Params;
use crate::Real;

/// Whether a cell of total depth h is wet after a sweep, given whether it was: a wet cell
/// dries below `h_dry`, a dry cell floods above `h_flood` (between the two it keeps its state,
/// so that a cell at the threshold does not flicker).
#[inline(always)]
pub fn wet_next<T: Real>(k: &Params<T>, wet: bool, h: T) -> bool {
    if wet { h >= k.h_dry } else { h > k.h_flood }
}

/// Whether the face between two cells carries flux: both cells wet, or one wet and its water
/// surface above the higher of the two beds by more than the flooding depth (so water can run
/// onto a dry cell and flood it). Elevations ζ and still-water depths d of the two cells.
#[inline(always)]
pub fn face_open<T: Real>(k: &Params<T>, wet: (bool, bool), zeta: (T, T), d: (T, T)) -> bool {
    match wet {
        (true, true) => true,
        (false, false) => false,
        (true, false) => zeta.0 + d.0.min(d.1) > k.h_flood,
        (false, true) => zeta.1 + d.0.min(d.1) > k.h_flood,
    }
}
