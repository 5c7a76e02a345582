//! Early exit: which blocks of the wet map the flux kernels compute.

use super::{BC_PERIODIC, Coeffs};
use crate::Real;

/// Whether the flux kernel must compute block (bi, bj) in early-exit mode: the block or one of
/// its four neighbours is wet (`wet(bi, bj)`). Across a periodic side the neighbour is the block
/// at the other end; across the other sides the ghosts copy the block itself. On a slab of a
/// grid cut over ranks a block along another rank's rows counts as active, its neighbours'
/// flags being that rank's: computing a block that could be left out gives the same values.
#[inline(always)]
pub fn block_active<T: Real>(k: &Coeffs<T>, bi: u32, bj: u32, wet: impl Fn(u32, u32) -> bool) -> bool {
    if wet(bi, bj) || k.from_another_rank(bj) {
        return true;
    }
    let (nbx, nby) = (k.nbx, k.nby);
    let west = if bi > 0 {
        Some(bi - 1)
    } else if k.bc[0] == BC_PERIODIC {
        Some(nbx - 1)
    } else {
        None
    };
    let east = if bi + 1 < nbx {
        Some(bi + 1)
    } else if k.bc[1] == BC_PERIODIC {
        Some(0)
    } else {
        None
    };
    let south = if bj > 0 {
        Some(bj - 1)
    } else if k.bc[2] == BC_PERIODIC {
        Some(nby - 1)
    } else {
        None
    };
    let north = if bj + 1 < nby {
        Some(bj + 1)
    } else if k.bc[3] == BC_PERIODIC {
        Some(0)
    } else {
        None
    };
    west.is_some_and(|b| wet(b, bj))
        || east.is_some_and(|b| wet(b, bj))
        || south.is_some_and(|b| wet(bi, b))
        || north.is_some_and(|b| wet(bi, b))
}

/// The flags of a per-block map on the device (`nbx·nby` words, 0 for clear), as the closure
/// [`block_active`] and the passes read: block (a, b) at `map[b·nbx + a]`. The kernels that take
/// such a map promise it holds `nbx·nby` words.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(super) fn map_flags<T: Real>(k: &Coeffs<T>, map: *const u32) -> impl Fn(u32, u32) -> bool + '_ {
    move |a: u32, b: u32| unsafe { *map.add((b * k.nbx + a) as usize) } != 0
}
