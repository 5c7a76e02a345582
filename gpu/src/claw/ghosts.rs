//! The ghost-fill kernel: the two ghost layers across one axis of an M-plane state, by each
//! side's condition (`kernels::halo`), the normal component negated at a wall.

use super::GhostFill;
use crate::device::{DeviceReal, thread};
use crate::halo::{WALL, cell_source};

/// Fills the ghosts across `g.dir` of every line along it.
///
/// # Safety
/// `q` holds M planes of `g.layout.len()` values; the grid covers 4 threads a line (lines: ny
/// for dir 0, nx for dir 1), one dimension.
pub unsafe fn ghosts<T: DeviceReal, const M: usize>(g: GhostFill, q: *mut T) {
    let l = g.layout;
    let (n, lines) = if g.dir == 0 { (l.nx, l.ny) } else { (l.ny, l.nx) };
    let t = thread::index_1d();
    if t >= lines as u64 * 4 {
        return;
    }
    let (k, which) = ((t / 4) as i32, (t % 4) as i32);
    let ghost = if which < 2 { which - 2 } else { n as i32 + which - 2 };
    let side = if ghost >= 0 { g.hi } else { g.lo };
    let (src, mirrored) = cell_source(n, ghost, side);
    let at = |c: i32| if g.dir == 0 { l.at(c, k) } else { l.at(k, c) };
    let (from, to) = (at(src as i32), at(ghost));
    let len = l.len();
    for m in 0..M {
        unsafe {
            let v = *q.add(m * len + from);
            *q.add(m * len + to) = if mirrored && side == WALL && m as u32 == g.normal { -v } else { v };
        }
    }
}
