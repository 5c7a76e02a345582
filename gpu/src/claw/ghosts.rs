//! The ghost-fill kernel: the ghosts across one axis of an M-plane state, one thread a ghost,
//! as `halo::edge_ghost` places them (the pass the kp solver and the CPU reference use), the
//! normal component negated at a wall.

use super::GhostFill;
use crate::device::{DeviceReal, thread};
use crate::halo::{WALL, edge_ghost};

/// Fills the ghosts of pass `g.dir` of state buffer `order[g.stage]`.
///
/// # Safety
/// `states` holds at least `order[g.stage]` + 1 buffers of M planes of `g.layout.len()` values;
/// a 1D grid of at least `halo::ghosts_x` (dir 0) or `halo::ghosts_y` (dir 1) of `g.layout`
/// threads.
pub unsafe fn ghosts<T: DeviceReal, const M: usize>(g: GhostFill, states: *mut T, order: *const u32) {
    let t = thread::index_1d();
    if t > u32::MAX as u64 {
        return;
    }
    let Some(gh) = edge_ghost(&g.layout, g.bc, g.dir, t as u32) else { return };
    let len = g.layout.len();
    let q = unsafe { states.add(*order.add(g.stage as usize) as usize * M * len) };
    for m in 0..M {
        unsafe {
            let v = *q.add(m * len + gh.source);
            *q.add(m * len + gh.ghost) = if gh.mirrored && gh.bc == WALL && m as u32 == g.normal { -v } else { v };
        }
    }
}
