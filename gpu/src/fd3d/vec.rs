//! x-vec: the x derivative with 16-byte loads and stores, no shared memory.

use super::windows::slide;
use super::{Coef, Fd3dParams, HALO, XVEC_PER_THREAD, d8};
use crate::device::vec::{W4, ldg_v4, st_v4};
use crate::device::{DeviceReal, thread};

/// A precision as 16-byte vectors: what `fd3d_x_vec` loads and stores.
pub(super) trait Words: DeviceReal {
    /// Elements per 16-byte vector.
    const VEC: usize;
    /// `f[e − 4 .. e + VEC + 4)` (into the first `VEC + 8` slots) by `1 + 8 / VEC` aligned
    /// 16-byte read-only loads.
    ///
    /// # Safety
    /// `e` is a multiple of `VEC`, `f` is 16-byte aligned and the range is readable.
    unsafe fn load_window(f: *const Self, e: usize) -> [Self; 12];
    /// `df[e .. e + VEC) = v[..VEC]` by one 16-byte store.
    ///
    /// # Safety
    /// `e` is a multiple of `VEC`, `df` is 16-byte aligned and the range is writable.
    unsafe fn store(df: *mut Self, e: usize, v: &[Self; 4]);
}
impl Words for f32 {
    const VEC: usize = 4;
    #[inline(always)]
    unsafe fn load_window(f: *const f32, e: usize) -> [f32; 12] {
        let p = unsafe { f.add(e - HALO as usize) } as *const W4;
        let q: [W4; 3] = core::array::from_fn(|k| unsafe { ldg_v4(p.add(k)) });
        core::array::from_fn(|t| f32::from_bits(q[t / 4][t % 4]))
    }
    #[inline(always)]
    unsafe fn store(df: *mut f32, e: usize, v: &[f32; 4]) {
        unsafe { st_v4(df.add(e) as *mut W4, v.map(f32::to_bits)) }
    }
}
impl Words for f64 {
    const VEC: usize = 2;
    #[inline(always)]
    unsafe fn load_window(f: *const f64, e: usize) -> [f64; 12] {
        let p = unsafe { f.add(e - HALO as usize) } as *const W4;
        let q: [W4; 5] = core::array::from_fn(|k| unsafe { ldg_v4(p.add(k)) });
        core::array::from_fn(|t| {
            if t < 10 {
                let (v, h) = (&q[t / 2], 2 * (t % 2));
                f64::from_bits(v[h] as u64 | (v[h + 1] as u64) << 32)
            } else {
                0.0
            }
        })
    }
    #[inline(always)]
    unsafe fn store(df: *mut f64, e: usize, v: &[f64; 4]) {
        let (a, b) = (v[0].to_bits(), v[1].to_bits());
        unsafe { st_v4(df.add(e) as *mut W4, [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]) }
    }
}

/// x-vec: x derivative with 16-byte loads and stores and no shared memory.
///
/// The grid is a flat array of vectors of `VEC` elements; thread `tx` of block `b` owns
/// vectors `(b · XVEC_PER_THREAD + q) · blockDim.x + tx` for `q < XVEC_PER_THREAD`. Each
/// vector's window `f[e − 4 .. e + VEC + 4)` is `1 + 8 / VEC` aligned 16-byte loads (the
/// neighbours' share of them hits L1), all of the thread's issued together. Window values
/// past a row end are then replaced by their periodic images in the row (a few predicated
/// loads, only where a row end is within 4 points). A vector that straddles a row end
/// (only when mx is not a multiple of VEC), and the grid's first and last vectors, take
/// the general path, [`vec_general`].
///
/// # Safety
/// `f` and `df` hold `p.n` elements, are 16-byte aligned and do not overlap; `p.m` (= mx)
/// `≥ 9`; the grid covers `ceil(n / VEC)` vectors.
pub(super) unsafe fn fd3d_x_vec<T: Words>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
    const G: usize = XVEC_PER_THREAD as usize;
    let (vec, h) = (T::VEC as u64, HALO as u64);
    let bdx = thread::block_dim_x() as u64;
    let first = (thread::block_idx_x() as u64 * G as u64 * bdx + thread::thread_idx_x() as u64) * vec;
    if first >= p.n {
        return;
    }
    let (m, n) = (p.m as u64, p.n);
    let step = bdx * vec;
    let e: [u64; G] = core::array::from_fn(|g| first + g as u64 * step);
    // x index of each vector's first element: one remainder, then steps.
    let mut i = [0u64; G];
    i[0] = if n <= u32::MAX as u64 { (first as u32 % p.m) as u64 } else { first % m };
    let step_mod = step % m;
    for g in 1..G {
        i[g] = i[g - 1] + step_mod;
        if i[g] >= m {
            i[g] -= m;
        }
    }
    let Coef { a, b, c, d } = p.coef;
    unsafe {
        if first >= h && e[G - 1] + vec + h <= n {
            let mut v: [[T; 12]; G] = core::array::from_fn(|g| T::load_window(f, e[g] as usize));
            unroll!(g: usize in [0, 1, 2, 3] if g < G => {
                // Slot s holds x index i + s − 4 of the vector's row: wrap it into the row.
                if (i[g] < h || i[g] + vec + h > m) && i[g] + vec <= m {
                    unroll!(s: usize in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] if s < T::VEC + 8 => {
                        let x = i[g] + s as u64;
                        if x < h {
                            v[g][s] = T::ldg(f.add((e[g] + s as u64 + m - h) as usize));
                        } else if x >= m + h {
                            v[g][s] = T::ldg(f.add((e[g] + s as u64 - h - m) as usize));
                        }
                    });
                }
            });
            unroll!(g: usize in [0, 1, 2, 3] if g < G => {
                if i[g] + vec <= m {
                    let mut out = [T::ZERO; 4];
                    for u in 0..T::VEC {
                        out[u] = d8(&p.coef, &slide(&v[g], u));
                    }
                    T::store(df, e[g] as usize, &out);
                } else {
                    vec_general(f, df, e[g], i[g], n, m, a, b, c, d);
                }
            });
        } else {
            for g in 0..G {
                if e[g] < n {
                    vec_general(f, df, e[g], i[g], n, m, a, b, c, d);
                }
            }
        }
    }
}

/// The vector at `e` (x index `i` of its first element), point by point: each point's
/// 9 values with indices wrapped into its own row, stopping at the grid's end. Out of line
/// (rare: vectors straddling a row end, the grid's first and last), with scalar arguments
/// so that nothing goes through the stack.
///
/// # Safety
/// `f` and `df` hold `n` elements; `e < n`, `i == e mod m`, `m ≥ 9`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn vec_general<T: Words>(f: *const T, df: *mut T, e: u64, i: u64, n: u64, m: u64, a: T, b: T, c: T, d: T) {
    let coef = Coef { a, b, c, d };
    let h = HALO as u64;
    for u in 0..T::VEC as u64 {
        let p = e + u;
        if p >= n {
            return;
        }
        let mut ip = i + u;
        if ip >= m {
            ip -= m;
        }
        let row = p - ip;
        let w: [T; 9] = core::array::from_fn(|t| {
            // Periodic x index of ip + t − 4 within the row: ip + t + m − 4 lies in
            // [m − 4, 2m + 4), so at most two subtractions.
            let x = ip + t as u64 + m - h;
            let x = if x >= m { x - m } else { x };
            let x = if x >= m { x - m } else { x };
            unsafe { T::ldg(f.add((row + x) as usize)) }
        });
        unsafe { *df.add(p as usize) = d8(&coef, &w) };
    }
}
