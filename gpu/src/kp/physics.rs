//! The scheme's point functions: reconstruction, desingularization, the central-upwind flux, the
//! right-hand side of a cell, friction and the RK stages.

use super::{Coeffs, WetDryScheme, cell_view, drain_factor, drained, flat_face, is_thin, stage_limit};
use crate::sediment::compensated_add;
use crate::{Level, Real};

/// One cell as the reconstruction reads it along one axis ([`cell_view`]): the surface (`w`: w*
/// of `surface`, w̄ unless the cell is partially flooded), the quantity whose slopes it limits
/// normal to the faces (`n`) and along them (`t`), and the cell's drain cap (finite exactly when
/// the cell is partially flooded). `n`, `t` are the momenta (hu, hv for x; hv, hu for y), or in a
/// scheme with [`VELOCITIES`](WetDryScheme::VELOCITIES) the desingularized velocities.
#[derive(Clone, Copy, Debug)]
pub struct Cell<T> {
    pub w: T,
    pub n: T,
    pub t: T,
    pub cap: T,
}

/// Reconstructed values at one face of a cell: surface, depth (≥ 0), the desingularized
/// velocities normal (`un`) and tangential (`ut`) to the face (0 on a dry face; the face's
/// momenta are h·u), and the cell's drain cap (what the flux through the face may take out of
/// the cell, see `wetdry.rs`).
#[derive(Clone, Copy, Debug)]
pub struct FaceState<T> {
    pub w: T,
    pub h: T,
    pub un: T,
    pub ut: T,
    pub cap: T,
}

impl<T: Real> FaceState<T> {
    pub const ZERO: FaceState<T> = FaceState { w: T::ZERO, h: T::ZERO, un: T::ZERO, ut: T::ZERO, cap: T::INFINITY };

    /// The face state of depth `h` with the values `(n, t)` the reconstruction carried to it:
    /// momenta, desingularized here; or, with [`VELOCITIES`](WetDryScheme::VELOCITIES),
    /// velocities, which a dry face does not carry.
    #[inline(always)]
    fn of<S: WetDryScheme>(k: &Coeffs<T>, w: T, h: T, (n, t): (T, T), cap: T) -> FaceState<T> {
        let (un, ut) = if !S::VELOCITIES {
            desingularize_pair(k.kappa, h, n, t)
        } else if h > T::ZERO {
            (n, t)
        } else {
            (T::ZERO, T::ZERO)
        };
        FaceState { w, h, un, ut, cap }
    }
}

/// A cell's reconstruction along one axis: its minus (west/south) and plus faces, and the bed
/// rise the source term sees, B₊ − B₋ (in a partially flooded cell each B capped at w*).
#[derive(Clone, Copy, Debug)]
pub struct Recon<T> {
    pub m: FaceState<T>,
    pub p: FaceState<T>,
    pub db: T,
}

impl<T: Real> Recon<T> {
    pub const ZERO: Recon<T> = Recon { m: FaceState::ZERO, p: FaceState::ZERO, db: T::ZERO };
}

/// Numerical flux through one face: mass, normal momentum, tangential momentum, and the
/// largest one-sided speed max(a⁺, −a⁻).
#[derive(Clone, Copy, Debug)]
pub struct Flux<T> {
    pub f0: T,
    pub fn_: T,
    pub ft: T,
    pub speed: T,
}

impl<T: Real> Flux<T> {
    pub const ZERO: Flux<T> = Flux { f0: T::ZERO, fn_: T::ZERO, ft: T::ZERO, speed: T::ZERO };
}

/// Generalized minmod of three slopes: the smallest in magnitude when all share a sign, else 0.
#[inline(always)]
pub fn minmod3<T: Real>(a: T, b: T, c: T) -> T {
    if T::CHEAP_MIN_MAX {
        // Without branches (f32): the smallest is positive only when all are, the largest
        // negative only when all are, and one of the two terms is 0 (+0 where the slopes
        // disagree or one is ±0): the same value. The branches cost the f32 flux kernel about
        // eight instructions a call.
        return a.min(b).min(c).max(T::ZERO) + a.max(b).max(c).min(T::ZERO);
    }
    if a > T::ZERO && b > T::ZERO && c > T::ZERO {
        a.min(b).min(c)
    } else if a < T::ZERO && b < T::ZERO && c < T::ZERO {
        a.max(b).max(c)
    } else {
        T::ZERO
    }
}

/// Undivided limited slope of q at the centre of three cells.
#[inline(always)]
pub fn slope<T: Real>(theta: T, qm: T, q0: T, qp: T) -> T {
    minmod3(theta * (q0 - qm), T::HALF * (qp - qm), theta * (qp - q0))
}

/// Reconstruct a cell (`c`, between `cm` and `cp`) along one axis; `b_m`, `b_p` are B at the
/// middle of its minus and plus faces, `half_m`, `half_p` half the rise along each face
/// ([`face_bed`]; read only in a partially flooded cell). In a scheme with partially flooded
/// cells (`S::PARTIAL`), such a cell (finite cap) is flat at its level w* where its faces are
/// under it, dry where they are not ([`flat_face`]). Otherwise the w slope is corrected so that
/// both face depths are non-negative (Kurganov–Petrova 2007, §2): a face below the bed is raised
/// to the bed and the other face lowered by as much, keeping the mean. In a scheme with
/// [`FILMS`](WetDryScheme::FILMS) (which reconstructs velocities), a thin cell (h⁴ < κ) then
/// carries its desingularized velocity to both faces, as a partially flooded cell does; any
/// other cell carries its `n`, `t` plus or minus half a limited slope (momenta, or velocities
/// with [`VELOCITIES`](WetDryScheme::VELOCITIES)). Face velocities are desingularized where
/// momenta reach the face (`FaceState::of`).
#[inline(always)]
pub fn reconstruct<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    cm: Cell<T>,
    c: Cell<T>,
    cp: Cell<T>,
    (b_m, half_m): (T, T),
    (b_p, half_p): (T, T),
) -> Recon<T> {
    if S::PARTIAL && c.cap < T::INFINITY {
        // The cell's (desingularized) velocity carried to both faces: momentum slopes would put
        // the wet neighbours' momentum over the thin water of this cell.
        let (wm, hm) = flat_face::<S, T>(c.w, (b_m, half_m), c.cap);
        let (wp, hp) = flat_face::<S, T>(c.w, (b_p, half_p), c.cap);
        // The rise of the bed the face depths stand on, (w* − h₊) − (w* − h₋): B at a face under
        // w*, w* at a dry one (a face the surface cuts: w* − its mean depth), so that at rest the
        // source is the difference of the face pressures.
        let db = if S::FACE_PART { hm - hp } else { b_p.min(c.w) - b_m.min(c.w) };
        if S::VELOCITIES {
            let uv = (c.n, c.t);
            return Recon {
                m: FaceState::of::<S>(k, wm, hm, uv, c.cap),
                p: FaceState::of::<S>(k, wp, hp, uv, c.cap),
                db,
            };
        }
        let (u, v) = desingularize_pair(k.kappa, c.cap / k.drain, c.n, c.t);
        return Recon {
            m: FaceState::of::<S>(k, wm, hm, (hm * u, hm * v), c.cap),
            p: FaceState::of::<S>(k, wp, hp, (hp * u, hp * v), c.cap),
            db,
        };
    }
    let sw = T::HALF * slope(k.theta, cm.w, c.w, cp.w);
    let (wm, wp) = (c.w - sw, c.w + sw);
    // Both corrections formed, then one selected: two operations each, cheaper than the
    // branches the warp would otherwise take around them.
    let (raise_m, raise_p) = (T::TWO * c.w - b_m, T::TWO * c.w - b_p);
    let (wm, wp) = if wp < b_p {
        (raise_p, b_p)
    } else if wm < b_m {
        (b_m, raise_m)
    } else {
        (wm, wp)
    };
    // In KP07 a cell holding at most twice the dry depth has dry faces: otherwise the rounding
    // of w̄ − s/2 and of 2w̄ − B puts a few ulps of water on the faces of a dry cell, whose flux,
    // below w's resolution in T, shows in mixed precision's f64 w, and early exit, which leaves
    // dry blocks alone, would part from the full update. Twice, so that every cell the wet map
    // counts dry (h ≤ dry, formed from the cell bed in W) is among them despite the rounding of
    // w̄ to T and of B̄ here, together below dry/2 (dry is at least 4ε of the largest level,
    // `Problem::coeffs`).
    let (wm, wp) = if !S::PARTIAL && c.w - T::HALF * (b_m + b_p) <= T::TWO * k.dry { (b_m, b_p) } else { (wm, wp) };
    // A thin cell (h⁴ < κ) carries its own velocity to both faces: its velocity slopes are 0.
    // B̄ is the mean of the two face beds (each the mean of its end corners); 0.5·s is exact, so
    // a contracted multiply-add gives the host's bits.
    // The slopes are formed in every cell and dropped in a thin one: a select, not a branch.
    let thin = S::FILMS && is_thin(k, (c.w - T::HALF * (b_m + b_p)).max(T::ZERO));
    let (sn, st) = (T::HALF * slope(k.theta, cm.n, c.n, cp.n), T::HALF * slope(k.theta, cm.t, c.t, cp.t));
    let (sn, st) = if thin { (T::ZERO, T::ZERO) } else { (sn, st) };
    Recon {
        m: FaceState::of::<S>(k, wm, (wm - b_m).max(T::ZERO), (c.n - sn, c.t - st), c.cap),
        p: FaceState::of::<S>(k, wp, (wp - b_p).max(T::ZERO), (c.n + sn, c.t + st), c.cap),
        db: b_p - b_m,
    }
}

/// Both desingularized velocities of one face state, sharing one square root and one division:
/// `f = √2·h / √(h⁴ + max(h⁴, κ))`, (u, v) = (f·qn, f·qt); 0 on a dry face.
#[inline(always)]
pub fn desingularize_pair<T: Real>(kappa: T, h: T, qn: T, qt: T) -> (T, T) {
    let h2 = h * h;
    let h4 = h2 * h2;
    if h4 >= kappa && h >= T::MIN_POSITIVE {
        // Deep enough that max(h⁴, κ) = h⁴: f = √2·h/√(2h⁴) = 1/h exactly, one reciprocal
        // instead of a square root and a division (most faces of a wet domain); h is a normal
        // number here.
        let f = h.recip_ftz();
        return (f * qn, f * qt);
    }
    let den = (h4 + h4.max(kappa)).sqrt();
    if den > T::ZERO {
        let f = T::from_f64(core::f64::consts::SQRT_2) * h / den;
        (f * qn, f * qt)
    } else {
        (T::ZERO, T::ZERO)
    }
}

/// Central-upwind flux through the face between a left state `l` (the plus face of the cell
/// before it) and a right state `r` (the minus face of the cell after it), an x face or with
/// `y` a y face. In a scheme with an a-priori cap on partially flooded cells (`S::CAP`), where
/// water leaves one faster than its drain cap allows, the mass flux and the advective part of
/// the momentum fluxes are scaled down (`drain_factor`, its fastest speed
/// [`Coeffs::cap_speed`] of the face's axis); the pressure part ½gh² stays, as it balances the
/// bed-slope source. A scheme with a limit on later stages (`S::STAGE_LIMIT`) scales a face
/// likewise in a stage that reads Δt where it would let out more than a quarter of the depth on
/// the side water leaves.
#[inline(always)]
pub fn central_upwind<S: WetDryScheme, T: Real>(k: &Coeffs<T>, l: FaceState<T>, r: FaceState<T>, y: bool) -> Flux<T> {
    let (ul, vl, ur, vr) = (l.un, l.ut, r.un, r.ut);
    let (qnl, qtl, qnr, qtr) = (l.h * ul, l.h * vl, r.h * ur, r.h * vr);
    let cl = (k.g * l.h).sqrt_ftz();
    let cr = (k.g * r.h).sqrt_ftz();
    let ap = (ul + cl).max(ur + cr).max(T::ZERO);
    let am = (ul - cl).min(ur - cr).min(T::ZERO);
    let span = ap - am;
    // A span below the smallest normal number needs both faces dry (√(g·h) of any positive h is
    // above it) and counts as 0.
    if span >= T::MIN_POSITIVE {
        let inv = span.recip_ftz();
        let apam = ap * am;
        let fl1 = qnl * ul + k.half_g * l.h * l.h;
        let fr1 = qnr * ur + k.half_g * r.h * r.h;
        let f = Flux {
            f0: (ap * qnl - am * qnr + apam * (r.w - l.w)) * inv,
            fn_: (ap * fl1 - am * fr1 + apam * (qnr - qnl)) * inv,
            ft: (ap * qtl * ul - am * qtr * ur + apam * (qtr - qtl)) * inv,
            speed: ap.max(-am),
        };
        let pressure = || (ap * (k.half_g * l.h * l.h) - am * (k.half_g * r.h * r.h)) * inv;
        if S::CAP {
            let phi = drain_factor(f.f0, f.speed, l.cap, r.cap, || k.cap_speed(y));
            if phi < T::ONE {
                return drained(f, pressure(), phi);
            }
        }
        if S::STAGE_LIMIT && k.reads_dt() {
            let phi = stage_limit(f.f0, l.h, r.h, || k.quarter_take(y));
            if phi < T::ONE {
                return drained(f, pressure(), phi);
            }
        }
        f
    } else {
        Flux { f0: T::ZERO, fn_: T::ZERO, ft: T::ZERO, speed: T::ZERO }
    }
}

/// The pressure part of [`central_upwind`]'s normal momentum flux through a face,
/// (a⁺·½g h_l² − a⁻·½g h_r²)/(a⁺ − a⁻): what [`drained`](super::drained) keeps.
#[inline(always)]
pub fn pressure_part<T: Real>(k: &Coeffs<T>, l: FaceState<T>, r: FaceState<T>) -> T {
    let (ul, ur) = (l.un, r.un);
    let (cl, cr) = ((k.g * l.h).sqrt_ftz(), (k.g * r.h).sqrt_ftz());
    let ap = (ul + cl).max(ur + cr).max(T::ZERO);
    let am = (ul - cl).min(ur - cr).min(T::ZERO);
    let span = ap - am;
    if span >= T::MIN_POSITIVE {
        (ap * (k.half_g * l.h * l.h) - am * (k.half_g * r.h * r.h)) * span.recip_ftz()
    } else {
        T::ZERO
    }
}

/// The right-hand side of one cell: R = (R_w, R_hu, R_hv) and the largest wave speed over its
/// four faces divided by the spacing, max(a_x/Δx, a_y/Δy) (so Δt = CFL / that).
#[derive(Clone, Copy, Debug)]
pub struct Rhs<T> {
    pub w: T,
    pub hu: T,
    pub hv: T,
    pub rate: T,
}

/// B at the west face of the cell at offset `ci` along x (`b(ci, cj)` as in [`cell_rhs`]).
#[inline(always)]
pub fn bed_x<T: Real>(b: &impl Fn(i32, i32) -> T, ci: i32) -> T {
    T::HALF * (b(ci, 0) + b(ci, 1))
}
/// B at the south face of the cell at offset `cj` along y.
#[inline(always)]
pub fn bed_y<T: Real>(b: &impl Fn(i32, i32) -> T, cj: i32) -> T {
    T::HALF * (b(0, cj) + b(1, cj))
}

/// A face's mid bed and half the difference of its end corners `b0`, `b1` (what
/// [`reconstruct`] reads of a face).
#[inline(always)]
pub fn face_bed<T: Real>(b0: T, b1: T) -> (T, T) {
    (T::HALF * (b0 + b1), T::HALF * (b1 - b0).abs())
}
/// [`face_bed`] of the west face of the cell at offset `ci` along x.
#[inline(always)]
pub fn face_x<T: Real>(b: &impl Fn(i32, i32) -> T, ci: i32) -> (T, T) {
    face_bed(b(ci, 0), b(ci, 1))
}
/// [`face_bed`] of the south face of the cell at offset `cj` along y.
#[inline(always)]
pub fn face_y<T: Real>(b: &impl Fn(i32, i32) -> T, cj: i32) -> (T, T) {
    face_bed(b(0, cj), b(1, cj))
}

/// The x-reconstruction of the cell at offset `di` (from cells di−1..=di+1 of the row);
/// `q(di, dj)` is a cell's (w*, n_x, n_y, cap), see [`cell_view_at`].
#[inline(always)]
pub fn recon_x<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    q: &impl Fn(i32, i32) -> (T, T, T, T),
    b: &impl Fn(i32, i32) -> T,
    di: i32,
) -> Recon<T> {
    let c = |d: i32| {
        let (w, n, t, cap) = q(d, 0);
        Cell { w, n, t, cap }
    };
    reconstruct::<S, T>(k, c(di - 1), c(di), c(di + 1), face_x(b, di), face_x(b, di + 1))
}

/// The y-reconstruction of the cell at offset `dj` (normal: the y component).
#[inline(always)]
pub fn recon_y<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    q: &impl Fn(i32, i32) -> (T, T, T, T),
    b: &impl Fn(i32, i32) -> T,
    dj: i32,
) -> Recon<T> {
    let c = |d: i32| {
        let (w, t, n, cap) = q(0, d);
        Cell { w, n, t, cap }
    };
    reconstruct::<S, T>(k, c(dj - 1), c(dj), c(dj + 1), face_y(b, dj), face_y(b, dj + 1))
}

/// The well-balanced bed-slope source along one axis, `−g (B₊ − B₋)/Δ · (h₊ + h₋)/2`, from the
/// reconstruction's bed rise and face depths; `inv` is 1/Δ. With partially flooded cells the
/// rise is the reconstruction's (`r.db`: in such a cell between the faces' beds capped at w*,
/// so that at rest the source is ½g(h₊² − h₋²)/Δ, the difference of the face pressures, with a
/// dry face too). KP07 caps nothing and takes it from B at the faces, `b_m` and `b_p`, the same
/// value where the kernel has it at hand (the tile kernel reads them again after its barrier
/// rather than keep `r.db` in registers across it).
#[inline(always)]
pub fn slope_source<S: WetDryScheme, T: Real>(k: &Coeffs<T>, b_m: T, b_p: T, r: &Recon<T>, inv: T) -> T {
    let rise = if S::PARTIAL { r.db } else { b_p - b_m };
    -k.g * rise * inv * T::HALF * (r.p.h + r.m.h)
}

/// The x part of R at a cell: (R_w, R_hu, R_hv) from its west and east fluxes and the x source.
#[inline(always)]
pub fn rhs_x<T: Real>(k: &Coeffs<T>, fw: Flux<T>, fe: Flux<T>, sx: T) -> (T, T, T) {
    ((fw.f0 - fe.f0) * k.inv_dx, (fw.fn_ - fe.fn_) * k.inv_dx + sx, (fw.ft - fe.ft) * k.inv_dx)
}

/// The y part of R at a cell from its south and north fluxes (normal momentum hv) and the y
/// source.
#[inline(always)]
pub fn rhs_y<T: Real>(k: &Coeffs<T>, gs: Flux<T>, gn: Flux<T>, sy: T) -> (T, T, T) {
    ((gs.f0 - gn.f0) * k.inv_dy, (gs.ft - gn.ft) * k.inv_dy, (gs.fn_ - gn.fn_) * k.inv_dy + sy)
}

/// The x part of R at a cell from its west and east fluxes, its x reconstruction and B at its
/// west and east faces (what SRK2's x-line kernel writes; [`assemble`] adds the y part to it).
#[inline(always)]
pub fn part_x<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    fw: Flux<T>,
    fe: Flux<T>,
    rx: &Recon<T>,
    bw: T,
    be: T,
) -> (T, T, T) {
    rhs_x(k, fw, fe, slope_source::<S, T>(k, bw, be, rx, k.inv_dx))
}

/// The y part of R at a cell (SRK2's y-block kernel), as [`part_x`].
#[inline(always)]
pub fn part_y<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    gs: Flux<T>,
    gn: Flux<T>,
    ry: &Recon<T>,
    bs: T,
    bn: T,
) -> (T, T, T) {
    rhs_y(k, gs, gn, slope_source::<S, T>(k, bs, bn, ry, k.inv_dy))
}

/// R and the rate of a cell from its four face fluxes (west, east, south, north), its own
/// reconstructions (for the source's face depths and bed rises) and B at its four faces. R is the
/// x part plus the y part, so a kernel that finishes the two parts at different times gets the
/// same sums.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn assemble<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    fw: Flux<T>,
    fe: Flux<T>,
    gs: Flux<T>,
    gn: Flux<T>,
    rx: Recon<T>,
    ry: Recon<T>,
    (bw, be, bs, bn): (T, T, T, T),
) -> Rhs<T> {
    let (x, y) = (part_x::<S, T>(k, fw, fe, &rx, bw, be), part_y::<S, T>(k, gs, gn, &ry, bs, bn));
    Rhs {
        w: x.0 + y.0,
        hu: x.1 + y.1,
        hv: x.2 + y.2,
        rate: (fw.speed * k.inv_dx).max(fe.speed * k.inv_dx).max(gs.speed * k.inv_dy).max(gn.speed * k.inv_dy),
    }
}

/// A cell's (w*, n_x, n_y, cap) from its state (w̄, hu, hv) and B at its corners: what the
/// reconstruction reads ([`cell_view`]: n the momenta, or the velocities). `b(ci, cj)` is B at
/// the corner at offset (ci, cj) from the south-west corner of the cell at offset (0, 0); the
/// cell is at (di, dj).
#[inline(always)]
pub fn cell_view_at<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    s: (T, T, T),
    b: &impl Fn(i32, i32) -> T,
    di: i32,
    dj: i32,
) -> (T, T, T, T) {
    cell_view_at_of::<S, T, T>(k, s, b, di, dj)
}

/// [`cell_view_at`] of a state whose surface is a level `W` of `T` ([`cell_view`]).
#[inline(always)]
pub fn cell_view_at_of<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    s: (W, T, T),
    b: &impl Fn(i32, i32) -> T,
    di: i32,
    dj: i32,
) -> (T, T, T, T) {
    cell_view::<S, T, W>(k, s, (b(di, dj), b(di + 1, dj), b(di, dj + 1), b(di + 1, dj + 1)))
}

/// The four faces of one cell, as [`cell_faces`] computes them: the fluxes (west, east, south,
/// north), the face states each was computed from (the plus face of the cell before, the minus
/// face of the cell after: what [`pressure_part`] reads), the cell's own reconstructions and B at
/// its four faces (what [`assemble`] reads besides the fluxes).
#[derive(Clone, Copy, Debug)]
pub struct CellFaces<T> {
    pub flux: [Flux<T>; 4],
    pub sides: [(FaceState<T>, FaceState<T>); 4],
    pub rx: Recon<T>,
    pub ry: Recon<T>,
    pub beds: (T, T, T, T),
}

impl<T: Real> CellFaces<T> {
    /// R and the rate of the cell from its faces as they are.
    #[inline(always)]
    pub fn rhs<S: WetDryScheme>(&self, k: &Coeffs<T>) -> Rhs<T> {
        let [fw, fe, gs, gn] = self.flux;
        assemble::<S, T>(k, fw, fe, gs, gn, self.rx, self.ry, self.beds)
    }

    /// R's x part and y part (`part_x`, `part_y`) from the faces as they are: their sum is
    /// [`rhs`](Self::rhs)'s R.
    #[inline(always)]
    pub fn parts<S: WetDryScheme>(&self, k: &Coeffs<T>) -> ((T, T, T), (T, T, T)) {
        let [fw, fe, gs, gn] = self.flux;
        let (bw, be, bs, bn) = self.beds;
        (part_x::<S, T>(k, fw, fe, &self.rx, bw, be), part_y::<S, T>(k, gs, gn, &self.ry, bs, bn))
    }
}

/// The four faces of one cell from its neighbourhood: `q(di, dj)` the state (w, hu, hv) of the
/// cell at offset (di, dj) for |di| + |dj| ≤ 2 on the axes, `b(ci, cj)` B at the corner at offset
/// (ci, cj) from the cell's south-west corner, ci, cj in −2..=3 (the corners of the five-cell
/// cross's cells). Each face flux is `central_upwind(plus face of the cell before, minus face of
/// the cell after)`, so a kernel that computes every face once gets the same values.
#[inline(always)]
pub fn cell_faces<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    q: impl Fn(i32, i32) -> (T, T, T),
    b: impl Fn(i32, i32) -> T,
) -> CellFaces<T> {
    cell_faces_of::<S, T, T>(k, q, b)
}

/// [`cell_faces`] of a state whose surface is a level `W` of `T` (mixed precision: read through
/// [`cell_view_at_of`], everything after it in `T`).
#[inline(always)]
pub fn cell_faces_of<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    q: impl Fn(i32, i32) -> (W, T, T),
    b: impl Fn(i32, i32) -> T,
) -> CellFaces<T> {
    super::cell_faces_on::<S, T, W>(k, q, b, |_, _| true)
}

/// R at one cell from its neighbourhood (`q`, `b` as in [`cell_faces`]).
#[inline(always)]
pub fn cell_rhs<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    q: impl Fn(i32, i32) -> (T, T, T),
    b: impl Fn(i32, i32) -> T,
) -> Rhs<T> {
    cell_faces::<S, T>(k, q, b).rhs::<S>(k)
}

/// R_w of a cell in the level type `W` from the mass fluxes through its west, east, south and
/// north faces: ((f_w − f_e)/Δx + (g_s − g_n)/Δy) formed in `W`. With `W` = `T` it is
/// [`assemble`]'s R_w bit for bit; with a wider `W` (mixed precision) each face's `T` flux
/// enters both cells it joins as the same `W` value, so Σ R_w over the grid telescopes to the
/// boundary fluxes up to `W`'s round-off (docs/f32-conservation.md).
#[inline(always)]
pub fn mass_rate<T: Real, W: Level<T>>(k: &Coeffs<T>, [fw, fe, gs, gn]: [T; 4]) -> W {
    mass_part::<T, W>(fw, fe, k.inv_dx) + mass_part::<T, W>(gs, gn, k.inv_dy)
}

/// One axis's part of [`mass_rate`]: (f₋ − f₊)·(1/Δ) in `W`.
#[inline(always)]
pub fn mass_part<T: Real, W: Level<T>>(f_minus: T, f_plus: T, inv: T) -> W {
    (W::widen(f_minus) - W::widen(f_plus)) * W::widen(inv)
}

/// B at the centre of a cell from its corners (sw, se, nw, ne): the mean, summed along the
/// diagonals so that every symmetry of the square gives the same bits: the mirror images, and
/// the transpose the split schemes' Y substeps work in. Summed by rows, (sw + se) + (nw + ne),
/// a fifth of the islands lake's cells get another bed when transposed, and a dry cell there
/// (w = B̄) a film of one ulp, which `clamp`'s mean face depth carries into its faces.
#[inline(always)]
pub fn cell_bed<T: Real>(sw: T, se: T, nw: T, ne: T) -> T {
    T::HALF * T::HALF * ((sw + ne) + (se + nw))
}

/// Manning friction coefficient C_f = g n² |q| / h^{7/3} (of d(hu)/dt = −C_f·hu) with `g_n2`
/// the cell's g·n² (`k.g_n2`, or the cell's entry of a friction field: `friction.rs`), 0 when
/// dry or frictionless. |q|² is formed by products and a sum each rounded on its own
/// (`mul_rn`, `add_rn`): contracted, it would be fma(hu, hu, hv²) in one kernel and
/// fma(hv, hv, hu²) in another, so kernels that share a cell (a slab's fused stage and the
/// stage kernel of its listed blocks, the early-exit step and the full one) would part by an
/// ulp.
#[inline(always)]
pub fn friction<T: Real>(k: &Coeffs<T>, g_n2: T, h: T, hu: T, hv: T) -> T {
    if g_n2 > T::ZERO && h > k.dry {
        let q = hu.mul_rn(hu).add_rn(hv.mul_rn(hv)).sqrt();
        g_n2 * q * h.recip_cbrt() / (h * h)
    } else {
        T::ZERO
    }
}

/// One Euler stage at a cell of friction `g_n2` (g·n²): Q + Δt·R with semi-implicit friction
/// evaluated at Q. The momenta's update and damping are rounded operation by operation
/// (`mul_rn`, `add_rn`), as the host computes them: where the compiler could contract them
/// (with RK2's ½(Qⁿ + E) after them, say) depends on the kernel around them, and every kernel
/// must give a cell the same bits (the decomposed runs' slabs run different kernels on a cell
/// than the whole grid does).
#[inline(always)]
pub fn euler<T: Real>(k: &Coeffs<T>, g_n2: T, dt: T, bc: T, q: (T, T, T), r: (T, T, T)) -> (T, T, T) {
    euler_of::<T, T>(k, g_n2, dt, bc, q, r)
}

/// [`euler`] of a state whose surface is a level `W` of `T`, its R_w a `W`: w + Δt·R_w in `W`,
/// the depth friction sees formed in `W` and rounded once, the momenta in `T`.
#[inline(always)]
pub fn euler_of<T: Real, W: Level<T>>(k: &Coeffs<T>, g_n2: T, dt: T, bc: T, q: (W, T, T), r: (W, T, T)) -> (W, T, T) {
    let cf = friction(k, g_n2, q.0.minus(W::widen(bc)), q.1, q.2);
    let damp = T::ONE.add_rn(dt.mul_rn(cf)).recip();
    let momentum = |m: T, rm: T| m.add_rn(dt.mul_rn(rm)).mul_rn(damp);
    (q.0 + W::widen(dt) * r.0, momentum(q.1, r.1), momentum(q.2, r.2))
}

/// Dry-cell clean-up after a stage: a negative depth (round-off) becomes 0, a dry cell loses
/// its momentum. Returns the cleaned state and whether the cell is wet for the wet map
/// (h > `k.wet_above`).
#[inline(always)]
pub fn clean<T: Real>(k: &Coeffs<T>, bc: T, q: (T, T, T)) -> ((T, T, T), bool) {
    clean_of::<T, T>(k, bc, q)
}

/// [`clean`] of a state whose surface is a level `W` of `T`: the depth is formed and compared
/// in `W`.
#[inline(always)]
pub fn clean_of<T: Real, W: Level<T>>(k: &Coeffs<T>, bc: T, q: (W, T, T)) -> ((W, T, T), bool) {
    let (mut w, mut hu, mut hv) = q;
    let h = w - W::widen(bc);
    if h < W::ZERO {
        w = W::widen(bc);
    }
    if h <= W::widen(k.dry) {
        hu = T::ZERO;
        hv = T::ZERO;
    }
    ((w, hu, hv), h > W::widen(k.wet_above))
}

/// RK stage `stage` (1 or 2) at a cell of friction `g_n2` (g·n²): stage 1 is
/// E(Q⁰) = Q⁰ + ΔtR(Q⁰); stage 2 is ½(Q⁰ + E(Q¹)) with R = R(Q¹). `q0` is Qⁿ, `q1` the state
/// R was evaluated at.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rk_point<T: Real>(
    k: &Coeffs<T>,
    g_n2: T,
    stage: u32,
    dt: T,
    bc: T,
    q0: (T, T, T),
    q1: (T, T, T),
    r: (T, T, T),
) -> ((T, T, T), bool) {
    rk_of::<T, T>(k, g_n2, stage, dt, bc, q0, q1, r)
}

/// [`rk_point`] of a state whose surface is a level `W` of `T` and R_w a `W` (mixed precision:
/// the surface's stages summed in `W`, [`euler_of`], [`clean_of`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rk_of<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    g_n2: T,
    stage: u32,
    dt: T,
    bc: T,
    q0: (W, T, T),
    q1: (W, T, T),
    r: (W, T, T),
) -> ((W, T, T), bool) {
    let e = euler_of(k, g_n2, dt, bc, q1, r);
    let out = if stage == 2 { (W::HALF * (q0.0 + e.0), T::HALF * (q0.1 + e.1), T::HALF * (q0.2 + e.2)) } else { e };
    clean_of(k, bc, out)
}

/// [`rk_point`] with the surface kept as a pair (hi, lo) (the compensated update,
/// docs/f32-conservation.md): `lo0`, `lo1` are the low parts of Qⁿ's and Q¹'s w, and the result
/// is ((w, hu, hv), w's low part, wet). R was computed from the high parts alone; the momenta
/// are [`rk_point`]'s. The surface's sum is kept to round-off of the small terms:
/// - stage 1: (w¹, lo¹) + Δt·R_w by [`compensated_add`];
/// - stage 2: E = (w¹, lo¹) + Δt·R_w likewise, then Qⁿ + E as the exact sum of the high parts
///   (TwoSum: [`compensated_add`] with a zero low part) with the three low parts added to its
///   error, and ½ of both parts (exact in binary).
///
/// [`clean_pair`] then sees the depth of the pair.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rk_pair<T: Real>(
    k: &Coeffs<T>,
    g_n2: T,
    stage: u32,
    dt: T,
    bc: T,
    (q0, lo0): ((T, T, T), T),
    (q1, lo1): ((T, T, T), T),
    r: (T, T, T),
) -> ((T, T, T), T, bool) {
    let e = euler(k, g_n2, dt, bc, q1, r);
    let (ew, el) = compensated_add(q1.0, lo1, dt * r.0);
    if stage == 2 {
        let (s, err) = compensated_add(q0.0, T::ZERO, ew);
        let (w, lo) = compensated_add(s, err + lo0, el);
        let q = (T::HALF * w, T::HALF * (q0.1 + e.1), T::HALF * (q0.2 + e.2));
        clean_pair(k, bc, q, T::HALF * lo)
    } else {
        clean_pair(k, bc, (ew, e.1, e.2), el)
    }
}

/// [`clean`] of a state whose surface has the low part `lo`: the depth is that of the pair,
/// (w − B) + lo. A negative one (round-off) becomes 0 with both parts: w = B, lo = 0 (the
/// water added is the plain update's, −h); a cell that is not clipped keeps its low part.
#[inline(always)]
pub fn clean_pair<T: Real>(k: &Coeffs<T>, bc: T, q: (T, T, T), lo: T) -> ((T, T, T), T, bool) {
    let (mut w, mut lo, mut hu, mut hv) = (q.0, lo, q.1, q.2);
    let h = (w - bc) + lo;
    if h < T::ZERO {
        (w, lo) = (bc, T::ZERO);
    }
    if h <= k.dry {
        hu = T::ZERO;
        hv = T::ZERO;
    }
    ((w, hu, hv), lo, h > k.wet_above)
}
