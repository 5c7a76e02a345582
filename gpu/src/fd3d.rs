//! 3D finite differences (seed 004): the periodic 8th-order centred first derivative.
//!
//! ```text
//! ∂f/∂x ≈ a (f[i+1] − f[i−1]) + b (f[i+2] − f[i−2]) + c (f[i+3] − f[i−3]) + d (f[i+4] − f[i−4])
//! (a, b, c, d) = (4/5, −1/5, 4/105, −1/280) / Δ
//! ```
//!
//! Layout: `f[i + mx·(j + my·k)]`, x fastest. Every index wraps periodically, so a dimension
//! needs at least [`WIDTH`] = 9 points (the stencil must not reach a point twice).
//!
//! The point-wise [`d8`] compiles for the host too (the CPU reference calls it). The kernels
//! (nvptx64 only) all take `(f, df, Fd3dParams)` and differ in how they move data:
//! - `fd3d_x_pencil`: the seed's x kernel. A shared tile of `blockDim.y` (4) x-pencils, each a
//!   chunk of `tile` (= blockDim.x) points plus a 4-point periodic halo on either side.
//! - `fd3d_x_tile`: x with a larger shared tile (16 pencils × 128-point chunks plus halo),
//!   8 points per thread with all their loads in flight together.
//! - `fd3d_x_vec`: x without shared memory. Each thread owns two 16-byte vectors of output
//!   (4 f32 or 2 f64 each), reads their windows with 16-byte read-only loads, all in flight
//!   together (neighbours' loads hit L1), patches the few window values past a row end with
//!   their periodic images, and writes 16-byte stores.
//! - `fd3d_yz_pencil`: the seed's y and z kernels. A shared tile of `blockDim.x` (4 or 32)
//!   pencils along x, each a chunk of `tile` points along y (or z) plus the periodic halo;
//!   `blockDim.y` threads per pencil, each computing `tile / blockDim.y` points.
//! - `fd3d_yz_stream`: y and z from registers. One thread per x column and segment of `tile`
//!   points, marching along y (or z) in steps of 16 (f32) or 8 (f64) points with a register
//!   window of step + 8 values: each value is loaded once per segment, coalesced along x, and
//!   no shared memory or barrier is needed.

use crate::Real;

/// Points the stencil reaches on each side of the centre.
pub const HALO: u32 = 4;
/// Points the stencil spans: the smallest periodic dimension it accepts.
pub const WIDTH: u32 = 2 * HALO + 1;

/// The unscaled coefficients (a, b, c, d) of f[±1], f[±2], f[±3], f[±4].
pub const COEFFICIENTS: [f64; 4] = [4.0 / 5.0, -1.0 / 5.0, 4.0 / 105.0, -1.0 / 280.0];

/// The stencil's coefficients divided by the grid spacing Δ.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coef<T> {
    pub a: T,
    pub b: T,
    pub c: T,
    pub d: T,
}

impl<T: Real> Coef<T> {
    /// Coefficients for spacing `1 / inv_delta`, scaled in f64 and rounded once to `T`.
    pub fn new(inv_delta: f64) -> Coef<T> {
        let [a, b, c, d] = COEFFICIENTS.map(|v| T::from_f64(v * inv_delta));
        Coef { a, b, c, d }
    }
}

/// The derivative at the centre of the window `w = f[i−4..=i+4]`.
///
/// Evaluated as the seed does, `((a Δ1 + b Δ2) + c Δ3) + d Δ4` with plain multiplies and adds
/// (no fused multiply-add), so the kernels and the CPU reference round identically.
#[inline(always)]
pub fn d8<T: Real>(c: &Coef<T>, w: &[T; 9]) -> T {
    c.a * (w[5] - w[3]) + c.b * (w[6] - w[2]) + c.c * (w[7] - w[1]) + c.d * (w[8] - w[0])
}

/// What every fd3d kernel is told about the grid, by value.
///
/// "Along" is the derivative's direction; "across" is the dimension whose pencils share a
/// tile (y for the x kernels, x for the y and z kernels); "outer" is the third, looped over
/// by `blockIdx.z` with a grid stride.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fd3dParams<T> {
    /// Stencil coefficients over Δ along the derivative.
    pub coef: Coef<T>,
    /// Points in the grid (mx·my·mz).
    pub n: u64,
    /// Elements between neighbours along the derivative (1, mx or mx·my).
    pub stride: u64,
    /// Elements between neighbours across.
    pub stride_across: u64,
    /// Elements between neighbours in the outer dimension.
    pub stride_outer: u64,
    /// Points along the derivative (≥ [`WIDTH`]).
    pub m: u32,
    /// Points across.
    pub n_across: u32,
    /// Points in the outer dimension.
    pub n_outer: u32,
    /// Points along per block: the tile of the pencil kernels, the segment of the streams.
    pub tile: u32,
}

#[cfg(target_arch = "nvptx64")]
#[allow(clippy::missing_safety_doc)]
mod kernels {
    use super::{Coef, Fd3dParams, HALO, XTILE_POINTS, XTILE_ROWS, XVEC_PER_THREAD, d8};
    use crate::device::vec::{W4, ldg_v4, st_v4};
    use crate::device::{DeviceReal, shared, thread};

    /// `body` for each constant `u` of the list that is below `n`, unrolled by hand: LLVM's
    /// unroller leaves some 16-trip loops rolled, and a rolled loop that indexes a register
    /// window puts the window in local memory.
    macro_rules! unroll {
        ($u:ident < $n:expr, [$($k:literal)*] => $body:block) => {
            $({
                #[allow(non_upper_case_globals)]
                const $u: usize = $k;
                if $u < $n $body
            })*
        };
    }

    /// `(g − 4) mod m` for `g` in `[0, m + 8)` (with `m ≥ 4`): the periodic index of tile slot
    /// `g` when slot 0 holds the point 4 before the tile's first.
    #[inline(always)]
    fn wrap_m4(g: u32, m: u32) -> u32 {
        let h = if g < HALO { g + m - HALO } else { g - HALO };
        if h >= m { h - m } else { h }
    }

    /// The 9 values `p[0], p[s], …, p[8s]`.
    ///
    /// # Safety
    /// All nine are readable.
    #[inline(always)]
    unsafe fn window<T: DeviceReal>(p: *const T, s: usize) -> [T; 9] {
        core::array::from_fn(|o| unsafe { *p.add(o * s) })
    }

    /// The 9 values `w[u..u + 9]` of a register window (`u` is a constant after unrolling).
    #[inline(always)]
    fn slide<T: DeviceReal, const N: usize>(w: &[T; N], u: usize) -> [T; 9] {
        core::array::from_fn(|o| w[u + o])
    }

    /// x-4pencil: the seed's x kernel with the pencil cut into chunks of `p.tile` points.
    ///
    /// Block `(tile, P)`: `threadIdx.y` picks one of P pencils (rows j), `threadIdx.x` a point of
    /// the chunk starting at `blockIdx.x · tile`. The tile `sh[P][tile + 8]` holds each chunk
    /// with 4 periodic halo points either side; a thread loads slots `tx, tx + tile, …`.
    ///
    /// # Safety
    /// `f` and `df` hold `p.n` = m·n_across·n_outer elements and do not overlap;
    /// `p.stride == 1`; `p.m ≥ 9`; `blockDim.x == p.tile`; `gridDim.x · tile ≥ m`; dynamic
    /// shared memory holds `blockDim.y · (tile + 8)` `T`s.
    unsafe fn fd3d_x_pencil<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
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
    unsafe fn fd3d_x_tile<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
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
                let base: [u64; PY] =
                    core::array::from_fn(|q| k as u64 * p.stride_outer + j[q] as u64 * p.stride_across);
                unsafe {
                    // Slots tx + bx·s for s ≤ PX cover tile + 8 (bx ≥ 8).
                    let mut v = [[T::ZERO; PX + 1]; PY];
                    unroll!(q < PY, [0 1 2 3] => {
                        unroll!(s < PX + 1, [0 1 2 3 4 5 6 7 8] => {
                            let a = tx + bx * s as u32;
                            if j[q] < p.n_across && a < len + 2 * HALO {
                                v[q][s] = T::ldg(f.add((base[q] + wrap_m4(i0 + a, p.m) as u64) as usize));
                            }
                        });
                    });
                    unroll!(q < PY, [0 1 2 3] => {
                        unroll!(s < PX + 1, [0 1 2 3 4 5 6 7 8] => {
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

    /// y/z-4pencil and y/z-32pencil: the seed's y and z kernels (`derivative_y`,
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
    unsafe fn fd3d_yz_pencil<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
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

    /// Outputs per step of the streaming kernels: 64 bytes of loads in flight per thread
    /// (16 f32, 8 f64). The register window holds `step + 8` values.
    #[inline(always)]
    const fn stream_step<T>() -> usize {
        64 / core::mem::size_of::<T>()
    }

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
    unsafe fn fd3d_yz_stream<T: DeviceReal>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
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
                unroll!(u < s, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15] => {
                    w[2 * h + u] = T::ldg(q);
                    g += 1;
                    q = q.add(stride);
                    if g == m {
                        g = 0;
                        q = src;
                    }
                });
                let mut o = dst.add(j as usize * stride);
                unroll!(u < s, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15] => {
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

    /// A precision as 16-byte vectors: what `fd3d_x_vec` loads and stores.
    pub trait Words: DeviceReal {
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
    unsafe fn fd3d_x_vec<T: Words>(f: *const T, df: *mut T, p: Fd3dParams<T>) {
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
                unroll!(g < G, [0 1 2 3] => {
                    // Slot s holds x index i + s − 4 of the vector's row: wrap it into the row.
                    if (i[g] < h || i[g] + vec + h > m) && i[g] + vec <= m {
                        unroll!(s < T::VEC + 8, [0 1 2 3 4 5 6 7 8 9 10 11] => {
                            let x = i[g] + s as u64;
                            if x < h {
                                v[g][s] = T::ldg(f.add((e[g] + s as u64 + m - h) as usize));
                            } else if x >= m + h {
                                v[g][s] = T::ldg(f.add((e[g] + s as u64 - h - m) as usize));
                            }
                        });
                    }
                });
                unroll!(g < G, [0 1 2 3] => {
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

    stamp! {
        fd3d_x_pencil => fd3d_x_pencil_f32, fd3d_x_pencil_f64 (f: *const T, df: *mut T, p: Fd3dParams<T>);
        fd3d_x_tile => fd3d_x_tile_f32, fd3d_x_tile_f64 (f: *const T, df: *mut T, p: Fd3dParams<T>);
        fd3d_x_vec => fd3d_x_vec_f32, fd3d_x_vec_f64 (f: *const T, df: *mut T, p: Fd3dParams<T>);
        fd3d_yz_pencil => fd3d_yz_pencil_f32, fd3d_yz_pencil_f64 (f: *const T, df: *mut T, p: Fd3dParams<T>);
        fd3d_yz_stream => fd3d_yz_stream_f32, fd3d_yz_stream_f64 (f: *const T, df: *mut T, p: Fd3dParams<T>);
    }
}

/// 16-byte vectors each thread of `fd3d_x_vec` handles (a constant, so its loop unrolls; the
/// host sizes the grid by it).
pub const XVEC_PER_THREAD: u32 = 2;

/// Points along x (strided by blockDim.x) and rows each thread of `fd3d_x_tile` computes.
pub const XTILE_POINTS: u32 = 4;
/// See [`XTILE_POINTS`].
pub const XTILE_ROWS: u32 = 2;
