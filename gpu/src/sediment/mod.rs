//! Sediment transport, Rivenæs dual-lithology model (Su et al.; docs/design.md, "Sediment (Su et
//! al.)").
//!
//!   ∂h/∂t = (1/C_s) ∇·(α s ∇h) + (1/C_m) ∇·(β (1−s) ∇h)
//!   A ∂s/∂t + s ∂h/∂t = (1/C_s) ∇·(α s ∇h)
//!
//! h basin height, s sand fraction, α and β sand and mud diffusivities. Arrays hold the
//! Nx×Ny interior plus one ghost layer, `(nx+2)·(ny+2)` row-major, x fastest:
//! `index(i, j) = j·pitch + i` with i in 0..=nx+1, j in 0..=ny+1.
//!
//! A step, forward Euler, solves the h-equation then the s-equation:
//! 1. h' from h, s, α, β (conservative 5-point form, arithmetic-mean face coefficients);
//! 2. ghost values of h' from the boundary fluxes (old s);
//! 3. s' from h, h', s, α (central ∇²h' and ∇h', ∇(αs) upwind w.r.t. the velocity −∇h');
//! 4. ghost values of h', s' for the next step.
//!
//! Boundaries act through the ghost layer: on each side a prescribed sediment inflow q
//! (volume per unit boundary length per unit time, into the basin; 0 closes the side). The
//! ghost h is set so the discrete face flux K·(h_ghost − h_inner)/Δ equals q, with K the same
//! face conductance the h-stencil uses, so the basin gains exactly q·length·Δt per step.
//! Supplied sediment has sand fraction `s_in`; closed and outflow sides copy s (no gradient).
//!
//! That is Su et al.'s scheme (`SEED`), kept as the paper has it: its s can leave [0, 1]. The
//! default is the bounded scheme (`BOUNDED`, [`bounded`]): one pass from the old h, s with
//! upwind-capped face mobilities, which keeps 0 ≤ s ≤ 1 under its Δt limit.
//!
//! The point functions below are shared by the kernels and the CPU reference. They take h as a
//! [`Level`] `H` of the flux precision `T`: `H = T` is the f32 and f64 path, `H = f64` with
//! `T = f32` the mixed one (h stored and updated in f64, its differences rounded once to f32).

use crate::grid::Layout2;
use crate::halo::{EXTRAPOLATE, GRADIENT, Ghost, ghost_value};
use crate::{Level, Real};

/// Constants of one step, precomputed on the host.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Coeffs<T> {
    /// Interior points in x and y; `pitch = nx + 2`.
    pub nx: u32,
    pub ny: u32,
    pub pitch: u32,
    /// Points per thread along y for the multi-point kernels.
    pub rows_per_thread: u32,
    /// The scheme: [`SEED`] or [`BOUNDED`] (which boundary conductance the ghost rule uses).
    pub scheme: u32,
    /// Δt/Δx², Δt/Δy².
    pub dt_dx2: T,
    pub dt_dy2: T,
    /// 1/Δx², 1/Δy², 1/(2Δx), 1/(2Δy), 1/Δx, 1/Δy.
    pub inv_dx2: T,
    pub inv_dy2: T,
    pub inv_2dx: T,
    pub inv_2dy: T,
    pub inv_dx: T,
    pub inv_dy: T,
    /// Δt/A and 1/A.
    pub dt_a: T,
    pub inv_a: T,
    /// 1/C_s, 1/C_m.
    pub inv_cs: T,
    pub inv_cm: T,
    /// Per side (west, east, south, north): q·Δ (inflow times the spacing normal to the side)
    /// and the sand fraction of the supplied sediment.
    pub q_delta: [T; 4],
    pub s_in: [T; 4],
    /// Δt/Δx², Δt/Δy² and q·Δ per side in f64, for the h update of the mixed precision (h in
    /// f64: [`Level::WIDER`]); the other paths do not read them.
    pub dt_dx2_f64: f64,
    pub dt_dy2_f64: f64,
    pub q_delta_f64: [f64; 4],
}

impl<T: Real> Coeffs<T> {
    /// The layout of the fields: one ghost layer.
    #[inline(always)]
    pub fn layout(&self) -> Layout2 {
        Layout2 { nx: self.nx, ny: self.ny, halo: 1, pitch: self.pitch }
    }
    /// The boundary conditions of the ghost fill: the edge value on every side, which the
    /// sediment rules of [`set_ghost`] then adjust.
    pub const GHOSTS: [u32; 4] = [EXTRAPOLATE; 4];
    /// (q·Δ, s_in) of side 0..4. A `match`, not `[side]`: indexing the by-value parameter
    /// with a run-time index would copy the whole struct into local memory on the GPU.
    #[inline(always)]
    pub fn side(&self, side: usize) -> (T, T) {
        match side {
            0 => (self.q_delta[0], self.s_in[0]),
            1 => (self.q_delta[1], self.s_in[1]),
            2 => (self.q_delta[2], self.s_in[2]),
            _ => (self.q_delta[3], self.s_in[3]),
        }
    }
    /// q·Δ of side 0..4 in `T` and in f64 (a `match`, as [`side`](Self::side)), for [`ghost_h`].
    #[inline(always)]
    pub fn q_delta_of(&self, side: usize) -> (T, f64) {
        match side {
            0 => (self.q_delta[0], self.q_delta_f64[0]),
            1 => (self.q_delta[1], self.q_delta_f64[1]),
            2 => (self.q_delta[2], self.q_delta_f64[2]),
            _ => (self.q_delta[3], self.q_delta_f64[3]),
        }
    }
}

/// Seed 000's scheme: h then s from h', arithmetic-mean face conductances.
pub const SEED: u32 = 0;
/// The bounded scheme of [`bounded`].
pub const BOUNDED: u32 = 1;

/// The five values of a 5-point stencil: centre, west, east, south, north.
#[derive(Clone, Copy, Debug)]
pub struct Five<T> {
    pub c: T,
    pub w: T,
    pub e: T,
    pub s: T,
    pub n: T,
}

/// αs and β(1−s) at one point, the products the `seed` scheme's face conductances ([`face_k`])
/// sum. Every kernel and the CPU reference form them here. With a wider `H` (mixed) each is
/// rounded on its own ([`Real::mul_rn`]): the ghost kernel and the fused kernel then hand
/// [`face_k`] the same bits, whatever the compiler contracts around them.
#[inline(always)]
pub fn products<T: Real, H: Level<T>>(alpha: T, s: T, beta: T) -> (T, T) {
    if H::WIDER { (alpha.mul_rn(s), beta.mul_rn(T::ONE - s)) } else { (alpha * s, beta * (T::ONE - s)) }
}

/// Face conductance between two points: (1/C_s)(αs)_{½} + (1/C_m)(β(1−s))_{½}, with
/// arithmetic means. `a` = αs and `b` = β(1−s) at the two points ([`products`]).
///
/// With a wider `H` (mixed), in a pinned order, each operation rounded on its own
/// ([`Real::mul_rn`], [`Real::add_rn`]): the inflow ghost h = h + q·Δ/K gives back the flux
/// q·Δ only if the ghost kernel's K and the fused kernel's are the same f32 value, and the GPU
/// contracted the plain expression into multiply-adds one way in one kernel and another way in
/// the other (an H100 lost 5.6e-9 of the supplied volume over 30 000 steps at 61²). Pinned, both
/// kernels and the CPU reference compute the same bits; the sums are of two terms, which IEEE
/// addition gives the same in either order. The f32 and f64 paths keep the plain expression
/// (their kernels' instructions unchanged).
#[inline(always)]
pub fn face_k<T: Real, H: Level<T>>(k: &Coeffs<T>, a0: T, a1: T, b0: T, b1: T) -> T {
    if H::WIDER {
        T::HALF.mul_rn(k.inv_cs.mul_rn(a0.add_rn(a1)).add_rn(k.inv_cm.mul_rn(b0.add_rn(b1))))
    } else {
        T::HALF * (k.inv_cs * (a0 + a1) + k.inv_cm * (b0 + b1))
    }
}

/// The x and y parts of h' − h at one interior point. `a` = αs and `b` = β(1−s) on the stencil.
/// With a wider `H` (mixed), each face's part is widened before the sum ([`Level::WIDER`]).
#[inline(always)]
fn h_terms<T: Real, H: Level<T>>(k: &Coeffs<T>, h: Five<H>, a: Five<T>, b: Five<T>) -> (H, H) {
    let ke = face_k::<T, H>(k, a.c, a.e, b.c, b.e);
    let kw = face_k::<T, H>(k, a.c, a.w, b.c, b.w);
    let kn = face_k::<T, H>(k, a.c, a.n, b.c, b.n);
    let ks = face_k::<T, H>(k, a.c, a.s, b.c, b.s);
    if H::WIDER {
        let (x, y) = (k.dt_dx2_f64, k.dt_dy2_f64);
        (H::face(x, ke, h.e, h.c) - H::face(x, kw, h.c, h.w), H::face(y, kn, h.n, h.c) - H::face(y, ks, h.c, h.s))
    } else {
        (
            H::widen(k.dt_dx2 * (ke * h.e.minus(h.c) - kw * h.c.minus(h.w))),
            H::widen(k.dt_dy2 * (kn * h.n.minus(h.c) - ks * h.c.minus(h.s))),
        )
    }
}

/// h' at one interior point. `a` = αs and `b` = β(1−s) on the stencil.
#[inline(always)]
pub fn h_point<T: Real, H: Level<T>>(k: &Coeffs<T>, h: Five<H>, a: Five<T>, b: Five<T>) -> H {
    let (x, y) = h_terms(k, h, a, b);
    h.c + x + y
}

/// h' at one interior point as (high, low) parts: with `lo` (the compensated update, the low
/// part of h at the point), h' = h + lo + increment kept to round-off of the pair
/// ([`compensated_add`]); without, [`h_point`] and a zero low part.
#[inline(always)]
pub fn h_next<T: Real, H: Level<T>>(k: &Coeffs<T>, h: Five<H>, lo: Option<H>, a: Five<T>, b: Five<T>) -> (H, H) {
    match lo {
        None => (h_point(k, h, a, b), H::ZERO),
        Some(lo) => {
            let (x, y) = h_terms(k, h, a, b);
            compensated_add(h.c, lo, x + y)
        }
    }
}

/// hi + lo + dh as a new (hi, lo) pair, the sum exact but for the rounding of lo + dh (both far
/// below hi): Knuth's TwoSum of hi and lo + dh, which needs no ordering of the magnitudes (h may
/// cross zero). The low part carries what an f32 h of ~100 m would round away from increments
/// near its unit round-off (docs/f32-conservation.md). No products, so no multiply-add
/// contraction on the GPU can change it.
#[inline(always)]
pub fn compensated_add<T: Real>(hi: T, lo: T, dh: T) -> (T, T) {
    let y = lo + dh;
    let t = hi + y;
    let y_part = t - hi;
    let hi_part = t - y_part;
    (t, (hi - hi_part) + (y - y_part))
}

/// True when the x-upwind neighbour is west: the velocity −∇h' points east.
#[inline(always)]
pub fn upwind_is_west<H: Real>(hp: &Five<H>) -> bool {
    hp.w > hp.e
}
/// True when the y-upwind neighbour is south.
#[inline(always)]
pub fn upwind_is_south<H: Real>(hp: &Five<H>) -> bool {
    hp.s > hp.n
}

/// s' at one interior point: A(s'−s)/Δt = −s(h'−h)/Δt + (1/C_s)[ αs ∇²h' + ∇(αs)·∇h' ].
/// `h_old`, `s` at the point; `hp` = h' on the stencil; `a_c` = αs at the point, `a_x`, `a_y`
/// at its upwind neighbours in x and y (see [`upwind_is_west`], [`upwind_is_south`]).
#[inline(always)]
pub fn s_point<T: Real, H: Level<T>>(k: &Coeffs<T>, h_old: H, s: T, hp: Five<H>, a_c: T, a_x: T, a_y: T) -> T {
    let lap = H::second_difference(hp.e, hp.c, hp.w) * k.inv_dx2 + H::second_difference(hp.n, hp.c, hp.s) * k.inv_dy2;
    let gx = hp.e.minus(hp.w) * k.inv_2dx;
    let gy = hp.n.minus(hp.s) * k.inv_2dy;
    let dax = if upwind_is_west(&hp) { a_c - a_x } else { a_x - a_c } * k.inv_dx;
    let day = if upwind_is_south(&hp) { a_c - a_y } else { a_y - a_c } * k.inv_dy;
    s + k.dt_a * k.inv_cs * (a_c * lap + dax * gx + day * gy) - s * hp.c.minus(h_old) * k.inv_a
}

/// Ghost h beyond a side with inflow q, the prescribed-gradient condition: the face flux
/// K·(h_ghost − h_inner)/Δ equals q, so h_ghost = h_inner + (q/K)·Δ, with K the face
/// conductance the h-stencil uses and the spacing Δ already in q·Δ (given in `T` and in f64,
/// [`Coeffs::q_delta_of`]). A face with no
/// conductance (K = 0) cannot carry flux and copies h. With a wider h (mixed), q·Δ/K is formed
/// in f64, so that the h update's f64 face flux K·(h_ghost − h_inner) gives back q·Δ.
#[inline(always)]
pub fn ghost_h<T: Real, H: Level<T>>(h_inner: H, (q_delta, q_delta_f64): (T, f64), k_face: T) -> H {
    if k_face > T::ZERO {
        if H::WIDER {
            h_inner + H::from_f64(q_delta_f64) / H::widen(k_face)
        } else {
            ghost_value(GRADIENT, h_inner, H::ONE, H::widen(q_delta / k_face), H::ONE)
        }
    } else {
        h_inner
    }
}

/// Ghost s beyond a side: the supplied fraction where sediment flows in, else the edge value.
#[inline(always)]
pub fn ghost_s<T: Real>(s_inner: T, q_delta: T, s_in: T) -> T {
    if q_delta > T::ZERO { s_in } else { s_inner }
}

/// Set the ghost values of one ghost point of the one-pass perimeter fill
/// ([`crate::halo::perimeter_ghost`] with every side [`EXTRAPOLATE`], whose source for the one
/// ghost layer is the edge point, the mirror image): α and β copied; s first (the h rule's
/// conductance uses the ghost s), then h under a prescribed gradient — the inflow q imposed as
/// K·(h_ghost − h_inner)/Δ = q, so h_ghost = h_inner + (q/K)·Δ with K the face conductance the
/// h-stencil of the scheme uses ([`face_k`] or [`bounded_face_k`]). A side with no conductance
/// (K = 0) cannot carry flux and copies h. The corner blocks copy their diagonal neighbour (the
/// 5-point stencils never read them).
///
/// # Safety
/// The four pointers hold `(nx+2)(ny+2)` elements and `gh` comes from
/// `perimeter_ghost(&k.layout(), [EXTRAPOLATE; 4], _)`.
#[inline(always)]
pub unsafe fn set_ghost<T: Real, H: Level<T>>(
    k: &Coeffs<T>,
    h: *mut H,
    s: *mut T,
    alpha: *mut T,
    beta: *mut T,
    gh: Ghost,
) {
    // One arm per side, so each reads its side's inflow at a constant index: a side chosen at
    // run time would index the by-value coefficients and move them to local memory.
    unsafe {
        match gh.side {
            0 => side_ghost::<T, H, 0>(k, h, s, alpha, beta, gh),
            1 => side_ghost::<T, H, 1>(k, h, s, alpha, beta, gh),
            2 => side_ghost::<T, H, 2>(k, h, s, alpha, beta, gh),
            3 => side_ghost::<T, H, 3>(k, h, s, alpha, beta, gh),
            _ => {
                let (g, i) = (gh.ghost, gh.source);
                let (a, b, si, hi) = (*alpha.add(i), *beta.add(i), *s.add(i), *h.add(i));
                (*alpha.add(g), *beta.add(g), *s.add(g), *h.add(g)) = (a, b, si, hi);
            }
        }
    }
}

/// [`set_ghost`] for a ghost of side `SIDE`.
#[inline(always)]
unsafe fn side_ghost<T: Real, H: Level<T>, const SIDE: usize>(
    k: &Coeffs<T>,
    h: *mut H,
    s: *mut T,
    alpha: *mut T,
    beta: *mut T,
    gh: Ghost,
) {
    let (g, i) = (gh.ghost, gh.source);
    unsafe {
        // Every load before any store (the four pointers may alias as far as the compiler knows).
        let (ai, bi, si, hi) = (*alpha.add(i), *beta.add(i), *s.add(i), *h.add(i));
        let (q_delta, s_in) = k.side(SIDE);
        let sg = ghost_s(si, q_delta, s_in);
        let kf = if k.scheme == BOUNDED {
            let ((ag, bg), (a_i, b_i)) = (mobility(k, sg, ai, bi), mobility(k, si, ai, bi));
            bounded_face_k(ag, a_i, bg, b_i, q_delta)
        } else if H::WIDER {
            // Mixed: K from the products as the fused kernel forms them, to the same bits.
            let ((ag, bg), (a_i, b_i)) = (products::<T, H>(ai, sg, bi), products::<T, H>(ai, si, bi));
            face_k::<T, H>(k, ag, a_i, bg, b_i)
        } else {
            // The same products in the plain expression's order (in this order LLVM shares
            // β(1−s_g) with the bounded arm: 8 instructions fewer in f32).
            face_k::<T, H>(k, ai * sg, ai * si, bi * (T::ONE - sg), bi * (T::ONE - si))
        };
        (*alpha.add(g), *beta.add(g), *s.add(g), *h.add(g)) = (ai, bi, sg, ghost_h(hi, k.q_delta_of(SIDE), kf));
    }
}

/// Output columns per warp of the streamed fused kernel: 32 lanes load, lanes 1..=30 compute
/// h', lanes 2..=29 write.
pub const STREAM_COLS: u32 = 28;
/// Output columns per warp of the bounded scheme's streamed kernel: 32 lanes load, lanes 1..=30
/// compute and write.
pub const BOUNDED_STREAM_COLS: u32 = 30;
/// Rows the bounded scheme's streamed kernel reads on each side of a row it computes: a slab's
/// chunks of rows within this many rows of a cut wait for its ghost rows.
pub const BOUNDED_REACH: u32 = 1;
/// Rows a warp of the bounded scheme's streamed kernel has in its ring of shared memory, where
/// it has one ([`bounded_rings`]): it reads one and has the next `BOUNDED_RING − 1` in flight.
pub const BOUNDED_RING: u32 = 4;

/// Whether the bounded scheme's streamed kernel, with h in values of `h_bytes` and the other
/// fields in values of `t_bytes`, takes its rows through a ring of shared memory: in f64 only.
/// An H200 measured the f64 step 2.6% faster with it (its kernel 5%), the plain and compensated
/// f32 steps 3% slower and the mixed one 4% slower (their copies are of 4-byte values); rings
/// filled by 16-byte copies or by bulk copies left the compensated step as fast or 4% faster
/// and the plain f32 and mixed ones 5–17% slower (docs/bench/README.md, "sediment").
pub const fn bounded_rings(h_bytes: u32, t_bytes: u32) -> bool {
    h_bytes == 8 && t_bytes == 8
}

/// Dynamic shared memory a warp of the bounded scheme's streamed kernel takes, for h in values
/// of `h_bytes` and the other fields in values of `t_bytes`: a ring of [`BOUNDED_RING`] rows of
/// 32 lanes, each h and its low part, s, α and β, where it has one.
pub const fn bounded_ring_bytes(h_bytes: u32, t_bytes: u32) -> u32 {
    let slot = 32 * (RING_H_VALUES * h_bytes + RING_T_VALUES * t_bytes);
    if bounded_rings(h_bytes, t_bytes) { BOUNDED_RING * slot } else { 0 }
}

/// A lane's values of a row in the ring: h and its low part (`H`), then s, α and β (`T`).
const RING_H_VALUES: u32 = 2;
const RING_T_VALUES: u32 = 3;

pub mod bounded;
pub use bounded::{bounded_face_k, bounded_next, bounded_point, mobility};
mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod bounded_kernels;
#[cfg(target_arch = "nvptx64")]
mod fused;
#[cfg(target_arch = "nvptx64")]
mod ghosts;
#[cfg(target_arch = "nvptx64")]
mod height;
#[cfg(target_arch = "nvptx64")]
mod sand;
#[cfg(target_arch = "nvptx64")]
mod stencil;
