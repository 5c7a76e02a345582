//! The core kernels: one sweep of the wave-propagation update along x or along y, generic over the
//! Riemann solver, each cell read from memory once and written once (cudaclaw's single-stage
//! update), waves kept in registers.
//!
//! x-sweep: a warp takes 32 consecutive interfaces of a row and updates the 29 cells between its
//! second and thirty-first interface, then the same columns of its next rows (`k.rows` of them, so
//! that a thread's set-up and the block's reduction of the rates serve many cells); the
//! neighbouring interfaces' waves (for limiting) and fluctuations (for the update) come by
//! shuffles, so warps are independent and recompute three interfaces where they meet (cudaclaw's
//! independent blocks with their overlap). A lane forms the θ numerators against its left
//! neighbour's waves and passes them down as that neighbour's against its right (`wave_dots`): W·M
//! shuffles up and W down, not 2·W·M.
//! y-sweep: lanes take consecutive columns (coalesced) and each thread marches `k.rows` cells up
//! its column keeping in registers what the next cell needs of the last interfaces; segments
//! recompute two interfaces where they meet; a launch may take some of its rows of blocks
//! (`k.bands`: a slab's sweep across its cut in two launches). Both write one rate (max |s|/Δ over
//! the interfaces of the cells they update) a block. Both read state buffer `order[k.stage]` and
//! write `order[k.stage + 1]` (`clock`), and return at once when the step's Δt is 0 (no step
//! armed). The work along a row or column is the 3D sweeps' too (`lines.rs`: [`x_row`], [`march`]).

use super::lines::{march, x_row};
use super::{Limiter, Riemann, Sweep, X_CELLS_PER_WARP};
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, shared, thread};

/// The buffers sweep `stage` reads and writes: `order[stage]` and `order[stage + 1]` of the
/// state buffers (each M planes of `len`) that start at `states`.
#[inline(always)]
pub(super) unsafe fn buffers<T>(
    states: *mut T,
    order: *const u32,
    stage: u32,
    m: usize,
    len: usize,
) -> (*const T, *mut T) {
    unsafe {
        let (src, dst) = (*order.add(stage as usize) as usize, *order.add(stage as usize + 1) as usize);
        (states.add(src * m * len) as *const T, states.add(dst * m * len))
    }
}

/// What every sweep starts from: the step's Δt for this sweep (`dt` × `dt_frac`) and the
/// buffers it reads and writes (each M planes of `len`), or `None` when no step is armed
/// (Δt = 0: the whole grid returns, no thread reaches a reduction).
#[inline(always)]
pub(super) unsafe fn begin<T: DeviceReal, const M: usize>(
    (dt_frac, stage, len): (T, u32, usize),
    states: *mut T,
    order: *const u32,
    dt: *const T,
) -> Option<(T, *const T, *mut T)> {
    let dt = unsafe { *dt } * dt_frac;
    if dt == T::ZERO {
        return None;
    }
    let (q, out) = unsafe { buffers(states, order, stage, M, len) };
    Some((dt, q, out))
}

/// The block's largest rate into `rate[b]`; every thread of the block calls it.
#[inline(always)]
pub(super) unsafe fn block_rate<T: DeviceReal>(speed: T, inv_dx: T, rate: *mut T, b: usize) {
    let m = block_max(speed, shared::dynamic::<T>());
    if thread::thread_rank_in_block() == 0 {
        unsafe { *rate.add(b) = m * inv_dx };
    }
}

/// This block's number in a 2D grid, x fastest.
#[inline(always)]
fn block_2d() -> usize {
    (thread::block_idx_y() * thread::grid_dim_x() + thread::block_idx_x()) as usize
}

/// One x-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// `states` holds at least max(`order[k.stage]`, `order[k.stage + 1]`) + 1 buffers of M planes
/// of `k.layout.len()` values (two ghost layers), and the two differ; `aux` holds A planes (any
/// pointer when A = 0); the ghosts of the input and `aux` across x are filled; `dt` holds one
/// value, `rate` one per block; `k.rows` ≥ 1. Block: (32·wx, by) threads with 32 `T`s of
/// dynamic shared memory; grid (⌈nx / (29·wx)⌉, ⌈⌈ny / rows⌉ / by⌉), each warp taking `k.rows`
/// consecutive rows.
pub unsafe fn sweep_x<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let at = (k.dt_frac, k.stage, l.len());
    let Some((dt, q, out)) = (unsafe { begin::<T, M>(at, states, order, dt) }) else { return };
    let (lane, warp) = (thread::thread_idx_x() % 32, thread::thread_idx_x() / 32);
    let c0 = (thread::block_idx_x() * (thread::block_dim_x() / 32) + warp) * X_CELLS_PER_WARP;
    let j0 = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) * k.rows;
    let lim = Limiter::from_code(k.limiter);
    let bufs = (q, aux, out, l.len());
    // The warp's rows one after another (the same for every lane, so the shuffles stay whole).
    let speed = lim.specialise_in_f32::<T, _>(
        #[inline(always)]
        |lim| {
            let mut speed = T::ZERO;
            let mut j = j0;
            while j < l.ny && j - j0 < k.rows {
                let at = |i: i32| l.at(i, j as i32);
                speed = speed.max(unsafe { x_row(&solver, lim, dt * k.inv_dx, bufs, l.nx, (c0, lane), at) });
                j += 1;
            }
            speed
        },
    );
    unsafe { block_rate(speed, k.inv_dx, rate, block_2d()) };
}

/// One y-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// As [`sweep_x`], with the ghosts across y filled; `k.rows` ≥ 1. Block: (bx, by) threads, a
/// multiple of 32, with 32 `T`s of dynamic shared memory; grid (⌈nx / bx⌉, `k.bands.count`),
/// the bands of `by · rows` rows of ny (⌈⌈ny / rows⌉ / by⌉ of them) that `k.bands` takes; `rate`
/// holds one value a block of the launch over every band.
pub unsafe fn sweep_y<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let at = (k.dt_frac, k.stage, l.len());
    let Some((dt, q, out)) = (unsafe { begin::<T, M>(at, states, order, dt) }) else { return };
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    // The launch's row of blocks y is band `band` of the grid's (`k.bands`), which also numbers
    // its rates as a launch over every band does.
    let band = k.bands.band(thread::block_idx_y());
    let r0 = (band * thread::block_dim_y() + thread::thread_idx_y()) * k.rows;
    let mut speed = T::ZERO;
    if i < l.nx && r0 < l.ny {
        let r1 = if l.ny - r0 < k.rows { l.ny } else { r0 + k.rows };
        let lim = Limiter::from_code(k.limiter);
        let bufs = (q, aux, out, l.len());
        let at = |r: i32| l.at(i as i32, r);
        speed = lim.specialise(
            #[inline(always)]
            |lim| unsafe { march(&solver, 1, lim, dt * k.inv_dx, bufs, (r0 as i32, r1 as i32), at) },
        );
    }
    let b = band as usize * thread::grid_dim_x() as usize + thread::block_idx_x() as usize;
    unsafe { block_rate(speed, k.inv_dx, rate, b) };
}
