//! The 3D ghost-fill kernel: the ghosts across one axis of an M-plane 3D state, one thread a
//! ghost, as `halo::edge_ghost3` places them (the pass the 3D CPU reference uses), the normal
//! component negated at a wall.

use super::GhostFill3;
use crate::device::{DeviceReal, thread};
use crate::halo::{WALL, edge_ghost3};

/// Fills the ghosts of pass `g.dir` of state buffer `order[g.stage]`.
///
/// # Safety
/// `states` holds at least `order[g.stage]` + 1 buffers of M planes of `g.layout.len()` values;
/// a 1D grid of at least `halo::ghosts3(&g.layout, g.dir)` threads.
pub unsafe fn ghosts3<T: DeviceReal, const M: usize>(g: GhostFill3, states: *mut T, order: *const u32) {
    let t = thread::index_1d();
    if t > u32::MAX as u64 {
        return;
    }
    let Some(gh) = edge_ghost3(&g.layout, g.bc, g.dir, t as u32) else { return };
    let len = g.layout.len();
    let q = unsafe { states.add(*order.add(g.stage as usize) as usize * M * len) };
    // Every source value is read before any ghost is stored (KERNELS.md rule 10).
    let mut v = [T::ZERO; M];
    for (m, x) in v.iter_mut().enumerate() {
        *x = unsafe { *q.add(m * len + gh.source) };
    }
    for (m, x) in v.iter().enumerate() {
        let flip = gh.mirrored && gh.bc == WALL && m as u32 == g.normal;
        unsafe { *q.add(m * len + gh.ghost) = if flip { -*x } else { *x } };
    }
}
