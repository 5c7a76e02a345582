//! Partially flooded cells (Bollermann, Chen, Kurganov & Noelle 2013, in 2D; docs/kp-wet-dry.md):
//! the level that holds a cell's water, and the cap on what may drain out of it.
//!
//! A cell is partially flooded when its mean surface w̄ lies below its highest corner B_hi. Its
//! bed is then taken as the plane (tilted along the steepest corner) that rises from
//! B_lo = 2B̄ − B_hi to B_hi over the cell and keeps the cell mean B̄; a flat surface at level w*
//! over it holds the depth h̄ = (w* − B_lo)² / (2(B_hi − B_lo)), so
//! `w* = B_lo + √(2 h̄ (B_hi − B_lo))`. The reconstruction (`physics.rs`) uses w* in place of
//! w̄ for slopes and faces, so a lake at rest whose shoreline cuts through cells has one level
//! everywhere. A fully flooded cell (w̄ ≥ B_hi) keeps w* = w̄, the KP07 scheme bit for bit.
//!
//! The scheme is a type parameter ([`WetDryScheme`]: [`Kp07`], [`Bollermann`] or [`Clamp`]) of the point functions
//! that depend on it and of the flux kernels, which have one entry point a scheme: each is
//! compiled with only its own scheme's code, so the choice costs nothing at run time (a run-time
//! switch kept both schemes' code, and their registers, in every flux kernel).

use super::{Coeffs, FaceState, Flux, cell_bed, desingularize_pair, pressure_part};
use crate::{Level, Real};

/// A wet–dry treatment, chosen at compile time. Every difference between the schemes follows
/// from [`PARTIAL`](WetDryScheme::PARTIAL): where it is false, every cell's level is its mean surface
/// and its drain cap ∞, so the code that reads them is left out.
pub trait WetDryScheme: Copy + 'static {
    /// Whether partially flooded cells are reconstructed flat at their level w* with a drain
    /// cap (Bollermann); false: Kurganov–Petrova 2007's slope correction in every cell.
    const PARTIAL: bool;
    /// Whether a partially flooded cell's outflow is capped a priori in the flux (the drain
    /// cap, [`drain_factor`]): true in [`Bollermann`]; [`Clamp`] scales the fluxes after Δt is
    /// known instead ([`draining_factor`]), outside the flux.
    const CAP: bool = Self::PARTIAL;
    /// Whether a stage that reads the step's Δt ([`Coeffs::reads_dt`](super::Coeffs::reads_dt):
    /// RK2's second) holds every face's outflow to a quarter of the depth at the face on the side
    /// water leaves ([`stage_limit`]): true in [`Kp07`]. Its cell
    /// mean depth is the mean of its four face depths, so such a stage keeps it ≥ 0 whatever
    /// comes in; Kurganov and Petrova's bound, Δt ≤ Δ/(4a), holds for the speeds Δt was taken
    /// from, and the second stage's faces (fast thin water) may outrun it. The first stage's
    /// faces never reach the limit: it is not evaluated there.
    const STAGE_LIMIT: bool = false;
    /// Whether a partially flooded cell's face depth is the mean depth over the face (the
    /// surface may cut a face between its end corners) rather than the depth at its middle
    /// ([`flat_face`]): true in [`Clamp`].
    const FACE_PART: bool = false;
    /// Whether a thin cell (h⁴ < κ, [`is_thin`]) carries its own desingularized velocity to its
    /// faces, its velocity slopes 0 (true in [`Clamp`]; only with
    /// [`VELOCITIES`](WetDryScheme::VELOCITIES)). Its neighbours' velocities are not its own:
    /// with momentum slopes, between two wet neighbours flowing apart, its faces get ±½ of their
    /// momenta over a depth below κ^¼, which desingularization turns into hundreds of m/s
    /// (docs/kp-wet-dry.md, "The reconstruction").
    const FILMS: bool = false;
    /// Whether the reconstruction limits slopes of velocities rather than of momenta (true in
    /// [`Clamp`]): each cell's desingularized velocity is formed once from its mean depth
    /// ([`cell_view`]), and a face's velocity is its cell's plus or minus half a minmod slope, so
    /// it lies within the velocities of the cell and its two neighbours (θ ≤ 2). With momentum
    /// slopes a cell at a local depth minimum between two flows moving apart carries up to half
    /// its neighbours' momenta over its own depth: in the f32 4096² flood such a cell 6.9·10⁻⁴ m
    /// deep (thicker than κ^¼, so not thin) gets faces moving at 155 m/s and then 10⁴ m/s
    /// (docs/kp-wet-dry.md, "The reconstruction"). ANUGA extrapolates velocities for the same
    /// reason.
    const VELOCITIES: bool = false;
    /// Whether the reconstruction reads a cell through its corners ([`cell_view`]): to find a
    /// partially flooded cell's level, or a cell's mean depth for its velocity.
    const CORNERS: bool = Self::PARTIAL || Self::VELOCITIES;
    /// Depth above which a cell counts as wet in the wet map (early exit), from the depth `dry`
    /// at or below which a cell is dry: `dry` in KP07; 0 with partially flooded cells, whose
    /// faces can be wet while their mean depth is below `dry`, so that only a block without any
    /// water is left out and early exit stays exact.
    #[inline(always)]
    fn wet_above<T: Real>(dry: T) -> T {
        if Self::PARTIAL { T::ZERO } else { dry }
    }
}

/// Kurganov & Petrova 2007: w slopes corrected so face depths are non-negative.
#[derive(Clone, Copy, Debug)]
pub struct Kp07;
impl WetDryScheme for Kp07 {
    const PARTIAL: bool = false;
    const STAGE_LIMIT: bool = true;
}

/// Bollermann, Chen, Kurganov & Noelle 2013 in 2D: partially flooded cells reconstructed flat at
/// the level that holds their volume, their outflow capped.
#[derive(Clone, Copy, Debug)]
pub struct Bollermann;
impl WetDryScheme for Bollermann {
    const PARTIAL: bool = true;
}

/// Bollermann et al.'s reconstruction of partially flooded cells with the draining time step
/// of the actual Δt in place of the a-priori cap, and a velocity maximum principle in partially
/// flooded cells after each RK stage ([`clamp_velocity`]; docs/kp-wet-dry.md, "Draining" and
/// "After each RK stage: the velocity clamp and films (`clamp`)");
/// thin cells carry their own velocity to their faces, and every other cell slopes of velocity,
/// not momentum ([`FILMS`](WetDryScheme::FILMS), [`VELOCITIES`](WetDryScheme::VELOCITIES)).
/// Its flux has no cap: the draining factors and the clamp are passes of their own (the CPU
/// reference's `kp::clamp`; the kernels of `drain.rs`).
#[derive(Clone, Copy, Debug)]
pub struct Clamp;
impl WetDryScheme for Clamp {
    const PARTIAL: bool = true;
    const CAP: bool = false;
    const FACE_PART: bool = true;
    const FILMS: bool = true;
    const VELOCITIES: bool = true;
}

// `reconstruct` zeroes a thin cell's slopes, which carries its own velocity only where the
// slopes are of velocity.
const _: () = assert!(!Clamp::FILMS || Clamp::VELOCITIES);

/// The draining factor of a cell of mean depth `h` whose faces let out `out` (the sum of its
/// outgoing mass fluxes over the spacing, m/s) in a stage of the actual `dt` (Bollermann,
/// Noelle & Lukáčová 2011): φ = min(1, h/(Δt·out)), so that an Euler stage that scales those
/// faces by φ leaves h ≥ h − Δt·φ·out ≥ 0.
#[inline(always)]
pub fn draining_factor<T: Real>(h: T, out: T, dt: T) -> T {
    if dt * out > h { h / (dt * out) } else { T::ONE }
}

/// A face flux with its mass flux and the advective part of its momentum fluxes scaled by `phi`
/// (a draining factor); `pressure` is the part of the normal momentum flux that is ½gh² (kept:
/// it balances the bed-slope source).
#[inline(always)]
pub fn drained<T: Real>(f: Flux<T>, pressure: T, phi: T) -> Flux<T> {
    Flux { f0: phi * f.f0, fn_: pressure + phi * (f.fn_ - pressure), ft: phi * f.ft, speed: f.speed }
}

/// What leaves a cell through its faces a unit of area (m/s, the O of [`draining_factor`]) from
/// the mass fluxes through its west, east, south and north faces.
#[inline(always)]
pub fn outflow<T: Real>(k: &Coeffs<T>, [fw, fe, gs, gn]: [T; 4]) -> T {
    ((-fw).max(T::ZERO) + fe.max(T::ZERO)) * k.inv_dx + ((-gs).max(T::ZERO) + gn.max(T::ZERO)) * k.inv_dy
}

/// A face flux computed from the face states `(l, r)`, drained by the factor of the cell its
/// water leaves: `phi_l` when it flows from left to right, `phi_r` the other way (1 for a cell
/// that is not drained, ghost cells included).
#[inline(always)]
pub fn drain_face<T: Real>(
    k: &Coeffs<T>,
    f: Flux<T>,
    (l, r): (FaceState<T>, FaceState<T>),
    phi_l: T,
    phi_r: T,
) -> Flux<T> {
    let phi = if f.f0 > T::ZERO { phi_l } else { phi_r };
    if f.f0 != T::ZERO && phi < T::ONE { drained(f, pressure_part(k, l, r), phi) } else { f }
}

/// A velocity component of a partially flooded cell held to the range [`lo`, `hi`] of its
/// neighbours' (0 when no neighbour gave a range: `lo > hi`).
#[inline(always)]
pub fn clamp_velocity<T: Real>(u: T, lo: T, hi: T) -> T {
    if lo > hi { T::ZERO } else { u.max(lo).min(hi) }
}

/// The eight neighbours (edge, then corner) whose velocities bound a partially flooded cell's.
pub const AROUND: [(i32, i32); 8] = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, -1), (-1, 1), (1, 1)];

/// The momenta of a partially flooded cell of depth `h` > `dry` with momenta `(hu, hv)` after the
/// velocity clamp: each component of u = q/h held to the range of that component over the
/// neighbours at [`AROUND`] that are fully flooded, deeper than `dry` and not films
/// ([`is_film`]: the pass changes films too, so their velocities would make the range depend
/// on the order of the cells); where none is, over those deeper than `dry`; u = 0 where no neighbour is.
/// `n(di, dj)` is the neighbour's (h, hu, hv, fully flooded), or `None` outside the interior.
#[inline(always)]
pub fn clamped_momenta<T: Real>(
    k: &Coeffs<T>,
    h: T,
    (hu, hv): (T, T),
    n: impl Fn(i32, i32) -> Option<(T, T, T, bool)>,
) -> (T, T) {
    let empty = (T::INFINITY, -T::INFINITY, T::INFINITY, -T::INFINITY);
    let widen = |r: (T, T, T, T), u: T, v: T| (r.0.min(u), r.1.max(u), r.2.min(v), r.3.max(v));
    let (mut full, mut wet) = (empty, empty);
    // Unrolled: a rolled loop would keep AROUND in local memory in a kernel.
    unroll!(m: usize in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let (di, dj) = AROUND[m];
        if let Some((hn, hun, hvn, is_full)) = n(di, dj)
            && hn > k.dry
        {
            let (u, v) = (hun / hn, hvn / hn);
            wet = widen(wet, u, v);
            if is_full && !is_film(k, hn) {
                full = widen(full, u, v);
            }
        }
    });
    let r = if full.0 <= full.1 { full } else { wet };
    (h * clamp_velocity(hu / h, r.0, r.1), h * clamp_velocity(hv / h, r.2, r.3))
}

/// Whether a fully flooded cell of depth `h` is a film: deeper than `dry` but shallower than the
/// depth below which its faces desingularize velocities (h⁴ < κ,
/// [`desingularize_pair`](super::desingularize_pair)). The fluxes drain a film's water but leave
/// its momentum to the neighbours' faces, so its own q/h can grow without bound and set Δt (the
/// flood's corners: docs/kp-wet-dry.md, "After each RK stage: the velocity clamp and films
/// (`clamp`)").
#[inline(always)]
pub fn is_film<T: Real>(k: &Coeffs<T>, h: T) -> bool {
    h > k.dry && is_thin(k, h)
}

/// Whether a depth `h` is below the one at which velocities are desingularized (h⁴ < κ,
/// [`desingularize_pair`](super::desingularize_pair)): a film, dust or a dry cell.
#[inline(always)]
pub fn is_thin<T: Real>(k: &Coeffs<T>, h: T) -> bool {
    fourth_power(h) < k.kappa
}

/// h⁴ rounded as the host rounds it (`mul_rn`: no multiply-add contraction on the GPU), so both
/// backends find the same films and treat them alike: contracting h⁴ + κ into a multiply-add
/// changes which cells are thin, and with them the f32 flood's step count.
#[inline(always)]
fn fourth_power<T: Real>(h: T) -> T {
    let h2 = h.mul_rn(h);
    h2.mul_rn(h2)
}

/// A film's momenta after the pass: each component of its velocity u = q/h held to the range
/// its neighbours' waves span, [min(u_n − 2c_n), max(u_n + 2c_n)] (c_n = √(g·h_n)) over the
/// neighbours at [`AROUND`] deeper than `dry`, films included; u = 0 where no neighbour is.
/// These are the Riemann invariants u ∓ 2c, which the exact solution keeps within their
/// neighbourhood's range: a film carried by the flow (a front running onto a dry bed, where
/// u + 2c is the wet side's) lies inside and is left alone, whatever its depth, while a film
/// whose q/h has outgrown every neighbour's wave (its faces carry a desingularized velocity, so
/// the fluxes drain its water but not its momentum) is held to them. A clamp, not a scaling:
/// applied again it changes nothing, so it holds no front back however often it runs.
#[inline(always)]
pub fn film_momenta<T: Real>(
    k: &Coeffs<T>,
    h: T,
    (hu, hv): (T, T),
    n: impl Fn(i32, i32) -> Option<(T, T, T, bool)>,
) -> (T, T) {
    let mut r = (T::INFINITY, -T::INFINITY, T::INFINITY, -T::INFINITY);
    // Unrolled: a rolled loop would keep AROUND in local memory in a kernel.
    unroll!(m: usize in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let (di, dj) = AROUND[m];
        if let Some((hn, hun, hvn, _)) = n(di, dj)
            && hn > k.dry
        {
            let (u, v) = (hun / hn, hvn / hn);
            let c2 = T::TWO * (k.g * hn).sqrt();
            r = (r.0.min(u - c2), r.1.max(u + c2), r.2.min(v - c2), r.3.max(v + c2));
        }
    });
    (h * clamp_velocity(hu / h, r.0, r.1), h * clamp_velocity(hv / h, r.2, r.3))
}

/// Whether `clamp`'s pass after an RK stage changes the momenta of a cell of depth `h` (w̄ − B̄;
/// `partial` where w̄ < B_hi): a partially flooded cell deeper than `dry` (its velocity held to
/// its neighbours', [`clamped_momenta`]) or a fully flooded film ([`film_momenta`]). The RK
/// kernels flag the blocks that hold such a cell for the pass's list; the CPU reference and the
/// pass ask the same.
#[inline(always)]
pub fn to_clamp<T: Real>(k: &Coeffs<T>, partial: bool, h: T) -> bool {
    if partial { h > k.dry } else { is_film(k, h) }
}

/// The momenta `clamp`'s pass leaves in a cell [`to_clamp`] names (see there; `n` as for
/// [`clamped_momenta`]).
#[inline(always)]
pub fn clamp_pass<T: Real>(
    k: &Coeffs<T>,
    partial: bool,
    h: T,
    q: (T, T),
    n: impl Fn(i32, i32) -> Option<(T, T, T, bool)>,
) -> (T, T) {
    if partial { clamped_momenta(k, h, q, n) } else { film_momenta(k, h, q, n) }
}

/// A cell's highest corner B_hi: the cell is partially flooded while its mean surface is below.
#[inline(always)]
pub fn highest_corner<T: Real>(sw: T, se: T, nw: T, ne: T) -> T {
    sw.max(se).max(nw.max(ne))
}

/// The surface seen by the reconstruction at one cell: its level (w* in a partially flooded
/// cell, else w̄) and its drain cap (`drain·h̄` in a partially flooded cell, else ∞).
#[inline(always)]
pub fn surface<S: WetDryScheme, T: Real>(k: &Coeffs<T>, w: T, corners: (T, T, T, T)) -> (T, T) {
    surface_of::<S, T, T>(k, w, corners)
}

/// [`surface`] of a cell whose mean surface is stored as a level `W` of `T` (`T` itself, or
/// f64 in mixed precision, docs/f32-conservation.md): the depth w̄ − B̄ is formed in `W` and
/// rounded once, a fully flooded cell's level is w̄ rounded once to `T`.
#[inline(always)]
pub fn surface_of<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    w: W,
    (sw, se, nw, ne): (T, T, T, T),
) -> (T, T) {
    if !S::PARTIAL {
        return (w.narrow(), T::INFINITY);
    }
    let hi = highest_corner(sw, se, nw, ne);
    if w >= W::widen(hi) {
        return (w.narrow(), T::INFINITY);
    }
    let b = cell_bed(sw, se, nw, ne);
    let h = w.minus(W::widen(b)).max(T::ZERO);
    let rise = hi - b; // (B_hi − B_lo)/2
    (b - rise + T::TWO * (h * rise).sqrt(), k.drain * h)
}

/// What the reconstruction reads of a cell of state (w̄, hu, hv) (w̄ a level `W` of `T`) over
/// corner beds (sw, se, nw, ne): its level and drain cap ([`surface_of`]) and, in a scheme with
/// [`VELOCITIES`](WetDryScheme::VELOCITIES), its desingularized velocities (u, v) from its mean
/// depth h̄ = w̄ − B̄ (formed in `W`, rounded once) in place of its momenta: (w*, u, v, cap);
/// otherwise (w*, hu, hv, cap). Each kernel forms it once per cell it loads.
#[inline(always)]
pub fn cell_view<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    (w, hu, hv): (W, T, T),
    corners: (T, T, T, T),
) -> (T, T, T, T) {
    let (ws, cap) = surface_of::<S, T, W>(k, w, corners);
    if !S::VELOCITIES {
        return (ws, hu, hv, cap);
    }
    let (sw, se, nw, ne) = corners;
    let h = w.minus(W::widen(cell_bed(sw, se, nw, ne))).max(T::ZERO);
    let (u, v) = desingularize_pair(k.kappa, h, hu, hv);
    (ws, u, v, cap)
}

/// The reconstructed face (w, h) of a partially flooded cell at level `ws` over a face whose bed
/// rises linearly from `bf − half` to `bf + half` (`bf` the face's mid bed, `half` half the
/// difference of its end corners). In a scheme with [`FACE_PART`](WetDryScheme::FACE_PART), h
/// is the mean depth over the face: `ws − bf` where the whole face is under water,
/// (ws − B_min)²/(2(B_max − B_min)) where the surface cuts the face, 0 where the face is dry;
/// w = bf + h, so that a neighbour sees w and h continuous across the face. Otherwise the face
/// is flat at `ws` where its mid bed is under water, dry (w = B, h = 0) where it is not: water in
/// the lowest corner of a cell tilted along a diagonal then reaches no face's mid bed until
/// h̄ > (B_hi − B̄)/16, and stays (docs/kp-wet-dry.md, "The reconstruction").
#[inline(always)]
pub fn flat_face<S: WetDryScheme, T: Real>(ws: T, (bf, half): (T, T), cap: T) -> (T, T) {
    if !S::FACE_PART || ws >= bf + half {
        return if ws > bf && cap > T::ZERO { (ws, ws - bf) } else { (bf, T::ZERO) };
    }
    let d = ws - (bf - half);
    if d > T::ZERO && cap > T::ZERO {
        let h = d * d / (T::TWO * T::TWO * half);
        (bf + h, h)
    } else {
        (bf, T::ZERO)
    }
}

/// Cap the mass flux `f0` through a face of speed `a` by the upwind cell's drain cap (`cap_l`
/// when water leaves the left cell, `cap_r` when it leaves the right one; ∞ where that cell is
/// not partially flooded): the factor φ ∈ [0, 1] that scales the advective fluxes. The cap is
/// cap·min(a, a_max), a_max = `fastest()` ([`Coeffs::cap_speed`](super::Coeffs::cap_speed),
/// read only where a cap applies). With Δt ≤ CFL·Δ/a_max a cell loses at most h̄/4 through each
/// face in one Euler stage, so its depth stays ≥ 0: in the stage whose speeds set Δt every
/// face's a is within the rate and a_max is ∞; in RK2's second stage a face may be faster than
/// any Δt was taken from, and a_max = CFL·Δ/Δt holds the bound.
#[inline(always)]
pub fn drain_factor<T: Real>(f0: T, a: T, cap_l: T, cap_r: T, fastest: impl FnOnce() -> T) -> T {
    let (out, cap) = if f0 > T::ZERO { (f0, cap_l) } else { (-f0, cap_r) };
    if !(out > T::ZERO && cap < T::INFINITY) {
        return T::ONE;
    }
    let allowed = cap * a.min(fastest());
    if out > allowed { allowed / out } else { T::ONE }
}

/// [`Kp07`]'s limit on a stage that reads Δt ([`STAGE_LIMIT`](WetDryScheme::STAGE_LIMIT)): the
/// factor φ ∈ [0, 1] that scales the advective fluxes of a face of mass flux `f0` so that it
/// takes at most a quarter of the depth on the side water leaves (`hl` when it leaves the left
/// cell, `hr` the right one): φ·|f0|·4Δt/Δ ≤ h, `quarter_take()` = 4Δt/Δ
/// ([`Coeffs::quarter_take`](super::Coeffs::quarter_take), read only where water leaves; 0 in a
/// stage that reads no Δt, so nothing is limited there). The same rule as [`drain_factor`]'s,
/// with the face's depth for the cell's: a cell whose mean depth is the mean of its four face
/// depths then keeps it ≥ 0 whatever comes in.
#[inline(always)]
pub fn stage_limit<T: Real>(f0: T, hl: T, hr: T, quarter_take: impl FnOnce() -> T) -> T {
    let (out, h) = if f0 > T::ZERO { (f0, hl) } else { (-f0, hr) };
    if out > T::ZERO {
        let taken = out * quarter_take();
        if taken > h {
            return h / taken;
        }
    }
    T::ONE
}

/// The mean depth a flat surface at `level` gives a cell over its corner bed, in the model of
/// [`surface`] (its inverse: a cell at rest at `level`): `level − B̄` when the cell is under
/// water, (level − B_lo)²/(2(B_hi − B_lo)) when the shoreline crosses it, 0 when it is dry.
#[inline(always)]
pub fn depth_at_level<T: Real>(level: T, (sw, se, nw, ne): (T, T, T, T)) -> T {
    let hi = highest_corner(sw, se, nw, ne);
    let b = cell_bed(sw, se, nw, ne);
    if level >= hi {
        return level - b;
    }
    let rise = hi - b;
    let lo = b - rise;
    if level <= lo || rise <= T::ZERO {
        return T::ZERO;
    }
    let d = level - lo;
    d * d / (T::TWO * T::TWO * rise)
}
