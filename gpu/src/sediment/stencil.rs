//! What the sediment kernels share: how a kernel loads its inputs, the stencil's values at a
//! point, shared tiles, and which point a thread computes.

use super::{Coeffs, Five, products};
use crate::device::{DeviceReal, thread};

/// How a kernel loads its read-only inputs.
pub(super) trait Load {
    unsafe fn ld<T: DeviceReal>(p: *const T, i: usize) -> T;
}
pub(super) struct Plain;
pub(super) struct ReadOnly;
impl Load for Plain {
    #[inline(always)]
    unsafe fn ld<T: DeviceReal>(p: *const T, i: usize) -> T {
        unsafe { *p.add(i) }
    }
}
impl Load for ReadOnly {
    #[inline(always)]
    unsafe fn ld<T: DeviceReal>(p: *const T, i: usize) -> T {
        unsafe { T::ldg(p.add(i)) }
    }
}

#[inline(always)]
pub(super) unsafe fn five<T: DeviceReal, L: Load>(p: *const T, c: usize, pitch: usize) -> Five<T> {
    unsafe {
        Five { c: L::ld(p, c), w: L::ld(p, c - 1), e: L::ld(p, c + 1), s: L::ld(p, c - pitch), n: L::ld(p, c + pitch) }
    }
}

/// (αs, β(1−s)) at index `g`.
#[inline(always)]
pub(super) unsafe fn ab<T: DeviceReal, L: Load>(s: *const T, al: *const T, be: *const T, g: usize) -> (T, T) {
    unsafe {
        let sv = L::ld(s, g);
        products::<T, T>(L::ld(al, g), sv, L::ld(be, g))
    }
}

/// Global interior point (i, j) of this thread in a block of interior threads.
#[inline(always)]
pub(super) fn interior_ij() -> (u32, u32) {
    let (x, y) = thread::index_2d();
    (x + 1, y + 1)
}

/// Read a 5-point stencil out of a shared tile of width `tw` around tile point `t`.
#[inline(always)]
pub(super) unsafe fn five_tile<T: DeviceReal>(tile: *const T, t: usize, tw: usize) -> Five<T> {
    unsafe {
        Five { c: *tile.add(t), w: *tile.add(t - 1), e: *tile.add(t + 1), s: *tile.add(t - tw), n: *tile.add(t + tw) }
    }
}

/// Fill a (BX+2)×(BY+2) tile for a block of BX×BY interior threads: each thread its own point,
/// edge threads also the halo beyond them. `put(ti, tj, gi, gj)` stores global point (gi, gj)
/// at tile point (ti, tj). Threads past the ghost layer load nothing.
#[inline(always)]
pub(super) fn fill_tile<T>(k: &Coeffs<T>, (i, j): (u32, u32), mut put: impl FnMut(u32, u32, u32, u32)) {
    let (bx, by) = (thread::block_dim_x(), thread::block_dim_y());
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    if i > k.nx + 1 || j > k.ny + 1 {
        return;
    }
    put(tx + 1, ty + 1, i, j);
    if tx == 0 {
        put(0, ty + 1, i - 1, j);
    }
    if tx == bx - 1 && i <= k.nx {
        put(tx + 2, ty + 1, i + 1, j);
    }
    if ty == 0 {
        put(tx + 1, 0, i, j - 1);
    }
    if ty == by - 1 && j <= k.ny {
        put(tx + 1, ty + 2, i, j + 1);
    }
}

/// Tile coordinates of a halo-thread block: block (BX+2)×(BY+2), thread (tx, ty) holds global
/// point (blockIdx·BX + tx, blockIdx·BY + ty); threads 1..=BX × 1..=BY are the interior ones.
#[inline(always)]
pub(super) fn halo_ij() -> (u32, u32, u32, u32) {
    let (bxi, byi) = (thread::block_dim_x() - 2, thread::block_dim_y() - 2);
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    (thread::block_idx_x() * bxi + tx, thread::block_idx_y() * byi + ty, tx, ty)
}

#[inline(always)]
pub(super) fn halo_computes(tx: u32, ty: u32) -> bool {
    tx >= 1 && ty >= 1 && tx <= thread::block_dim_x() - 2 && ty <= thread::block_dim_y() - 2
}

/// Rows handled by thread row `ty` of a multi-point block: `rows_per_thread` consecutive rows.
#[inline(always)]
pub(super) fn multi_rows(k_rows: u32) -> (u32, u32) {
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x() + 1;
    let j0 = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) * k_rows + 1;
    (i, j0)
}

/// h's low parts on the compensated path (`crate::device::Low`).
pub(super) use crate::device::Low;
