//! y-stream and z-stream: one thread per x column, a register window marching along the pencil.

use super::windows::{slide, wrap_m4};
use super::{Coef, Fd3dParams, HALO, d8, stream_step};
use crate::device::{DeviceReal, thread};

/// y-stream and z-stream: one thread per x column (`blockIdx.x · blockDim.x + tx`) and
/// segment `[blockIdx.y · tile, + tile)` along the derivative, marching in steps of
/// S = 16 (f32) or 8 (f64) points. A register window holds `f[j−4 .. j+S+4)`; each step
/// loads the S new values (one coalesced load per warp each, all in flight together),
/// writes S derivatives and shifts the window by S.
/// Indices wrap at the pencil's end; a last, partial step stores only its own points.
///
/// # Safety
/// `f` and `df` hold `p.n` elements and do not overlap; `p.stride_across == 1` and
/// `p.n_across` is mx; `p.m ≥ 9`; `p.tile ≥ 1`; `gridDim.x · blockDim.x ≥ mx`. No shared
/// memory.
pub(super) unsafe fn fd3d_yz_stream<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    if i >= p.n_across {
        return;
    }
    let segments = p.m.div_ceil(p.tile);
    let mut s = thread::block_idx_y();
    while s < segments {
        let j0 = s * p.tile;
        let j1 = (j0 + p.tile).min(p.m);
        let mut k = thread::block_idx_z();
        while k < p.n_outer {
            let base = (k as u64 * p.stride_outer + i as u64) as usize;
            unsafe { stream_column(f.add(base), df.add(base), p.stride as usize, p.m, j0, j1, &p.coef) };
            k += thread::grid_dim_z();
        }
        s += thread::grid_dim_y();
    }
}

/// Derivatives at `j0..j1` of the pencil `src[0], src[stride], …` (length m) into `dst`.
///
/// # Safety
/// `src[j·stride]` and `dst[j·stride]` are valid for `j < m`; `j0 < j1 ≤ m`; `m ≥ 9`.
#[inline(always)]
unsafe fn stream_column<T: DeviceReal>(
    src: *const T,
    dst: *mut T,
    stride: usize,
    m: u32,
    j0: u32,
    j1: u32,
    c: &Coef<T>,
) {
    let s = stream_step::<T>();
    let h = HALO as usize;
    // f[j−4 .. j+S+4): the largest S (16) plus the 8 halo values.
    let mut w = [T::ZERO; 24];
    unsafe {
        for u in 0..2 * h {
            w[u] = T::ldg(src.add(wrap_m4(j0 + u as u32, m) as usize * stride));
        }
        // The next value to load, f[g] with g = (j + 4) mod m, and its address.
        let mut g = wrap_m4(j0 + 2 * HALO, m);
        let mut q = src.add(g as usize * stride);
        let mut j = j0;
        while j < j1 {
            // S loads in flight; an index reaching m wraps to 0 (a select, no branch).
            // Past the segment's end they load values no output needs.
            unroll!(u: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] if u < s => {
                w[2 * h + u] = T::ldg(q);
                g += 1;
                q = q.add(stride);
                if g == m {
                    g = 0;
                    q = src;
                }
            });
            let mut o = dst.add(j as usize * stride);
            unroll!(u: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] if u < s => {
                if j + (u as u32) < j1 {
                    *o = d8(c, &slide(&w, u));
                }
                o = o.add(stride);
            });
            for u in 0..2 * h {
                w[u] = w[s + u];
            }
            j += s as u32;
        }
    }
}
