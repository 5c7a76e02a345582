//! The 3D core kernels: one sweep of the wave-propagation update along x, y or z of a padded
//! 3D state (`Layout3`, x fastest), generic over the Riemann solver, each cell read from memory
//! once and written once, waves kept in registers. The work along one line of cells is the 2D
//! sweeps' too, over an index function (`lines.rs`): [`x_row`] (a warp across 32
//! interfaces, shuffles) and [`march`] (a thread up a segment of a line, the last interfaces
//! in registers).
//!
//! - x-sweep: as the 2D one, a warp taking `k.rows` rows; block (32·wx, by), grid
//!   (⌈nx / (29·wx)⌉, ⌈⌈ny / rows⌉ / by⌉, nz), so a block's rows share their z-plane.
//! - y-sweep: lanes take consecutive x (coalesced), each thread marches `k.rows` cells along y;
//!   block (bx, by) over x and segments, grid (⌈nx / bx⌉, ⌈⌈ny / rows⌉ / by⌉, nz).
//! - z-sweep: lanes take consecutive x, threads of a block consecutive y, each thread marches
//!   `k.rows` cells along z; block (bx, by), grid (⌈nx / bx⌉, ⌈ny / by⌉, ⌈nz / rows⌉), or a
//!   launch's share of those layers of blocks (`k.bands`).
//!
//! Each writes one rate (max |s|/Δ over the interfaces of the cells it updates) a block, reads
//! state buffer `order[k.stage]` and writes `order[k.stage + 1]`, and returns at once when the
//! step's Δt is 0 (no step armed).

use super::lines::{march, x_row};
use super::sweep::{begin, block_rate};
use super::{Limiter, Riemann, Sweep3, X_CELLS_PER_WARP};
use crate::device::{DeviceReal, thread};

/// This block's number in a 3D grid, x fastest.
#[inline(always)]
fn block_3d() -> usize {
    (thread::block_idx_z() as usize * thread::grid_dim_y() as usize + thread::block_idx_y() as usize)
        * thread::grid_dim_x() as usize
        + thread::block_idx_x() as usize
}

/// One x-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// `states` holds at least max(`order[k.stage]`, `order[k.stage + 1]`) + 1 buffers of M planes
/// of `k.layout.len()` values (two ghost layers), and the two differ; `aux` holds A planes (any
/// pointer when A = 0); the ghosts of the input and `aux` across x are filled; `dt` holds one
/// value, `rate` one per block; `k.rows` ≥ 1. Block: (32·wx, by) threads with 32 `T`s of
/// dynamic shared memory; grid (⌈nx / (29·wx)⌉, ⌈⌈ny / rows⌉ / by⌉, nz), each warp taking
/// `k.rows` consecutive rows of its plane.
pub unsafe fn sweep3_x<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep3<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let Some((dt, q, out)) = (unsafe { begin::<T, M>((k.dt_frac, k.stage, l.len()), states, order, dt) }) else {
        return;
    };
    let (lane, warp) = (thread::thread_idx_x() % 32, thread::thread_idx_x() / 32);
    let c0 = (thread::block_idx_x() * (thread::block_dim_x() / 32) + warp) * X_CELLS_PER_WARP;
    let j0 = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) * k.rows;
    let z = thread::block_idx_z();
    let lim = Limiter::from_code(k.limiter);
    let bufs = (q, aux, out, l.len());
    // The warp's rows one after another (the same for every lane, so the shuffles stay whole).
    let speed = lim.specialise_in_f32::<T, _>(
        #[inline(always)]
        |lim| {
            let mut speed = T::ZERO;
            let mut j = j0;
            while z < l.nz && j < l.ny && j - j0 < k.rows {
                let at = |i: i32| l.at(i, j as i32, z as i32);
                speed = speed.max(unsafe { x_row(&solver, lim, dt * k.inv_dx, bufs, l.nx, (c0, lane), at) });
                j += 1;
            }
            speed
        },
    );
    unsafe { block_rate(speed, k.inv_dx, rate, block_3d()) };
}

/// One y-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// As [`sweep3_x`], with the ghosts across y filled; `k.rows` ≥ 1. Block: (bx, by) threads, a
/// multiple of 32, with 32 `T`s of dynamic shared memory; grid (⌈nx / bx⌉, ⌈⌈ny / rows⌉ / by⌉,
/// nz).
pub unsafe fn sweep3_y<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep3<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let Some((dt, q, out)) = (unsafe { begin::<T, M>((k.dt_frac, k.stage, l.len()), states, order, dt) }) else {
        return;
    };
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let r0 = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) * k.rows;
    let z = thread::block_idx_z();
    let mut speed = T::ZERO;
    if i < l.nx && r0 < l.ny && z < l.nz {
        let r1 = if l.ny - r0 < k.rows { l.ny } else { r0 + k.rows };
        let lim = Limiter::from_code(k.limiter);
        let bufs = (q, aux, out, l.len());
        let at = |r: i32| l.at(i as i32, r, z as i32);
        speed = lim.specialise(
            #[inline(always)]
            |lim| unsafe { march(&solver, 1, lim, dt * k.inv_dx, bufs, (r0 as i32, r1 as i32), at) },
        );
    }
    unsafe { block_rate(speed, k.inv_dx, rate, block_3d()) };
}

/// One z-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// As [`sweep3_x`], with the ghosts across z filled; `k.rows` ≥ 1. Block: (bx, by) threads, a
/// multiple of 32, with 32 `T`s of dynamic shared memory; grid (⌈nx / bx⌉, ⌈ny / by⌉,
/// `k.bands.count`), the bands of `rows` planes of nz (⌈nz / rows⌉ of them) that `k.bands`
/// takes; `rate` holds one value a block of the launch over every band.
pub unsafe fn sweep3_z<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep3<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let Some((dt, q, out)) = (unsafe { begin::<T, M>((k.dt_frac, k.stage, l.len()), states, order, dt) }) else {
        return;
    };
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let j = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    // The launch's layer of blocks z is band `band` of the grid's (`k.bands`), which also
    // numbers its rates as a launch over every band does.
    let band = k.bands.band(thread::block_idx_z());
    let r0 = band * k.rows;
    let mut speed = T::ZERO;
    if i < l.nx && j < l.ny && r0 < l.nz {
        let r1 = if l.nz - r0 < k.rows { l.nz } else { r0 + k.rows };
        let lim = Limiter::from_code(k.limiter);
        let bufs = (q, aux, out, l.len());
        let at = |r: i32| l.at(i as i32, j as i32, r);
        speed = lim.specialise(
            #[inline(always)]
            |lim| unsafe { march(&solver, 2, lim, dt * k.inv_dx, bufs, (r0 as i32, r1 as i32), at) },
        );
    }
    let b = (band as usize * thread::grid_dim_y() as usize + thread::block_idx_y() as usize)
        * thread::grid_dim_x() as usize
        + thread::block_idx_x() as usize;
    unsafe { block_rate(speed, k.inv_dx, rate, b) };
}
