//! The shared-memory pencil kernels: x-4pencil, x-tile, and y/z-4pencil and -32pencil.

use super::windows::{window, wrap_m4};
use super::{Fd3dParams, HALO, XTILE_POINTS, XTILE_ROWS, d8};
use crate::device::{DeviceReal, shared, thread};

/// x-4pencil: Ruetsch's x kernel with the pencil cut into chunks of `p.tile` points.
///
/// Block `(tile, P)`: `threadIdx.y` picks one of P pencils (rows j), `threadIdx.x` a point of
/// the chunk starting at `blockIdx.x · tile`. The tile `sh[P][tile + 8]` holds each chunk
/// with 4 periodic halo points either side; a thread loads slots `tx, tx + tile, …`.
///
/// # Safety
/// `f` and `df` hold `p.n` = m·n_across·n_outer elements and do not overlap;
/// `p.stride == 1`; `p.m ≥ 9`; `blockDim.x == p.tile`; `gridDim.x · tile ≥ m`; dynamic
/// shared memory holds `blockDim.y · (tile + 8)` `T`s.
pub(super) unsafe fn fd3d_x_pencil<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
    let tx = thread::thread_idx_x();
    let ty = thread::thread_idx_y();
    let tile = p.tile;
    let row = tile + 2 * HALO;
    let sh = unsafe { shared::dynamic::<T>().add((ty * row) as usize) };
    let i0 = thread::block_idx_x() * tile;
    let len = (p.m - i0).min(tile);
    let pencils = thread::block_dim_y();
    let mut jb = thread::block_idx_y() * pencils;
    while jb < p.n_across {
        let j = jb + ty;
        let mut k = thread::block_idx_z();
        while k < p.n_outer {
            let base = k as u64 * p.stride_outer + j as u64 * p.stride_across;
            unsafe {
                if j < p.n_across {
                    let mut a = tx;
                    while a < len + 2 * HALO {
                        let g = wrap_m4(i0 + a, p.m);
                        *sh.add(a as usize) = T::ldg(f.add((base + g as u64) as usize));
                        a += tile;
                    }
                }
                thread::sync_threads();
                if j < p.n_across && tx < len {
                    let w = window(sh.add(tx as usize), 1);
                    *df.add((base + (i0 + tx) as u64) as usize) = d8(&p.coef, &w);
                }
                thread::sync_threads();
            }
            k += thread::grid_dim_z();
        }
        jb += thread::grid_dim_y() * pencils;
    }
}

/// x-tile: x with a shared tile of `blockDim.y · XTILE_ROWS` x-pencils, each a chunk of
/// `tile = blockDim.x · XTILE_POINTS` points plus a 4-point periodic halo either side.
/// Thread (tx, ty) computes points `tx + blockDim.x · s` (s < XTILE_POINTS) of rows
/// `ty + blockDim.y · q` (q < XTILE_ROWS): 8 points, whose loads are all issued before any
/// is stored to shared memory.
///
/// # Safety
/// As `fd3d_x_pencil`, with `blockDim.x ≥ 8`, `p.tile == blockDim.x · XTILE_POINTS` and
/// dynamic shared memory of `blockDim.y · XTILE_ROWS · (tile + 8)` `T`s.
pub(super) unsafe fn fd3d_x_tile<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
    const PX: usize = XTILE_POINTS as usize;
    const PY: usize = XTILE_ROWS as usize;
    let tx = thread::thread_idx_x();
    let ty = thread::thread_idx_y();
    let (bx, by) = (thread::block_dim_x(), thread::block_dim_y());
    let tile = p.tile;
    let row = (tile + 2 * HALO) as usize;
    let sh = shared::dynamic::<T>();
    let i0 = thread::block_idx_x() * tile;
    let len = (p.m - i0).min(tile);
    let rows = by * PY as u32;
    let mut jb = thread::block_idx_y() * rows;
    while jb < p.n_across {
        let mut k = thread::block_idx_z();
        while k < p.n_outer {
            let j: [u32; PY] = core::array::from_fn(|q| jb + ty + by * q as u32);
            let base: [u64; PY] = core::array::from_fn(|q| k as u64 * p.stride_outer + j[q] as u64 * p.stride_across);
            unsafe {
                // Slots tx + bx·s for s ≤ PX cover tile + 8 (bx ≥ 8).
                let mut v = [[T::ZERO; PX + 1]; PY];
                unroll!(q: usize in [0, 1, 2, 3] if q < PY => {
                    unroll!(s: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8] if s < PX + 1 => {
                        let a = tx + bx * s as u32;
                        if j[q] < p.n_across && a < len + 2 * HALO {
                            v[q][s] = T::ldg(f.add((base[q] + wrap_m4(i0 + a, p.m) as u64) as usize));
                        }
                    });
                });
                unroll!(q: usize in [0, 1, 2, 3] if q < PY => {
                    unroll!(s: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8] if s < PX + 1 => {
                        let a = tx + bx * s as u32;
                        if j[q] < p.n_across && a < len + 2 * HALO {
                            *sh.add((ty as usize + by as usize * q) * row + a as usize) = v[q][s];
                        }
                    });
                });
                thread::sync_threads();
                for q in 0..PY {
                    for s in 0..PX {
                        let a = tx + bx * s as u32;
                        if j[q] < p.n_across && a < len {
                            let w = window(sh.add((ty as usize + by as usize * q) * row + a as usize), 1);
                            *df.add((base[q] + (i0 + a) as u64) as usize) = d8(&p.coef, &w);
                        }
                    }
                }
                thread::sync_threads();
            }
            k += thread::grid_dim_z();
        }
        jb += thread::grid_dim_y() * rows;
    }
}

/// y/z-4pencil and y/z-32pencil: Ruetsch's y and z kernels (`derivative_y`,
/// `derivative_y_lPencils`) with the pencil cut into chunks of `p.tile` points.
///
/// Block `(W, B)`: `threadIdx.x` picks one of W pencils (x = `blockIdx.x · W + tx`),
/// `threadIdx.y` starts a stride-B walk over the chunk. The tile `sh[tile + 8][W]` (x
/// fastest, so a warp reads consecutive words) holds the chunk from `blockIdx.y · tile`
/// with 4 periodic halo points either side.
///
/// # Safety
/// `f` and `df` hold `p.n` elements and do not overlap; `p.stride_across == 1` and
/// `p.n_across` is mx; `p.m ≥ 9`; `gridDim.x · W ≥ mx`; dynamic shared memory holds
/// `(tile + 8) · W` `T`s.
pub(super) unsafe fn fd3d_yz_pencil<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
    let tx = thread::thread_idx_x();
    let ty = thread::thread_idx_y();
    let w_pencils = thread::block_dim_x();
    let walkers = thread::block_dim_y();
    let sh = shared::dynamic::<T>();
    let i = thread::block_idx_x() * w_pencils + tx;
    let stride = p.stride as usize;
    let tiles = p.m.div_ceil(p.tile);
    let mut t = thread::block_idx_y();
    while t < tiles {
        let j0 = t * p.tile;
        let len = (p.m - j0).min(p.tile);
        let mut k = thread::block_idx_z();
        while k < p.n_outer {
            let base = (k as u64 * p.stride_outer + i as u64) as usize;
            unsafe {
                if i < p.n_across {
                    // Four loads in flight before their shared-memory stores.
                    let lim = len + 2 * HALO;
                    let mut a = ty;
                    while a < lim {
                        let v: [T; 4] = core::array::from_fn(|r| {
                            let ar = a + r as u32 * walkers;
                            if ar < lim {
                                T::ldg(f.add(base + wrap_m4(j0 + ar, p.m) as usize * stride))
                            } else {
                                T::ZERO
                            }
                        });
                        for (r, &vr) in v.iter().enumerate() {
                            let ar = a + r as u32 * walkers;
                            if ar < lim {
                                *sh.add((ar * w_pencils + tx) as usize) = vr;
                            }
                        }
                        a += 4 * walkers;
                    }
                }
                thread::sync_threads();
                if i < p.n_across {
                    let mut a = ty;
                    while a < len {
                        let w = window(sh.add((a * w_pencils + tx) as usize), w_pencils as usize);
                        *df.add(base + (j0 + a) as usize * stride) = d8(&p.coef, &w);
                        a += walkers;
                    }
                }
                thread::sync_threads();
            }
            k += thread::grid_dim_z();
        }
        t += thread::grid_dim_y();
    }
}
