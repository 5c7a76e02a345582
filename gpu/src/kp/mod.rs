//! Kurganov–Petrova shallow water (seed 003, DESIGN.md "Kurganov–Petrova shallow water"):
//! Kurganov & Petrova 2007 as implemented on GPUs by Brodtkorb, Sætra & Altinakar 2012.
//!
//!   Q_t + F(Q)_x + G(Q)_y = S,   Q = (w, hu, hv),   h = w − B
//!   F = (hu, hu²/h + ½gh², huv/h),   G = (hv, huv/h, hv²/h + ½gh²)
//!   S = (0, −ghB_x − C_f hu, −ghB_y − C_f hv),   C_f = g n² |u| / h^{4/3}  (Manning)
//!
//! Grid: nx×ny cells plus two ghost layers, state arrays of `(nx+4)(ny+4)` cells row-major,
//! x fastest, interior cells i in 2..nx+2, j in 2..ny+2. Bathymetry B is given at cell corners,
//! an array of `(nx+5)(ny+5)`: corner (i, j) is the south-west corner of cell (i, j). Face
//! values of B are the means of the face's two corners (the bilinear interpolant), the cell
//! value the mean of its four.
//!
//! Per cell and axis: generalized-minmod slopes (θ) of w, hu, hv; the w slope corrected so
//! both face depths are non-negative; desingularized face velocities
//! `u = √2·h·(hu) / √(h⁴ + max(h⁴, κ))` with the momenta recomputed as h·u; central-upwind
//! fluxes with one-sided speeds a⁺, a⁻; the well-balanced bed-slope source
//! `−g (B_{+} − B_{−})/Δ · (h_{+} + h_{−})/2` from the reconstructed face depths. Time stepping:
//! Euler steps E(Q) = Q + Δt·R(Q) with Manning friction treated semi-implicitly
//! (hu ← (hu + ΔtR_hu)/(1 + Δt C_f(Q))); RK2 is Q^{n+1} = ½(Q^n + E(E(Q^n))) with one Δt from
//! the first stage's speeds. After every stage negative depths (round-off) are set to 0 and the
//! momentum of cells with h ≤ `dry` is zeroed.
//!
//! These point functions are shared by the kernels and the CPU reference.

use crate::Real;

/// Boundary condition codes of one side.
pub const BC_WALL: u32 = 0;
pub const BC_OUTFLOW: u32 = 1;
pub const BC_PERIODIC: u32 = 2;

/// Constants of the scheme, precomputed on the host.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Coeffs<T> {
    /// Interior cells; `pitch = nx + 4` (cells), `cpitch = nx + 5` (corners).
    pub nx: u32,
    pub ny: u32,
    pub pitch: u32,
    pub cpitch: u32,
    /// Boundary conditions west, east, south, north (`BC_*`).
    pub bc: [u32; 4],
    /// Cells per block in x and y of the flux and RK kernels (the wet map has one flag a block).
    pub bx: u32,
    pub by: u32,
    /// Blocks in x and y.
    pub nbx: u32,
    pub nby: u32,
    pub g: T,
    pub half_g: T,
    /// Generalized minmod parameter θ ∈ [1, 2].
    pub theta: T,
    pub inv_dx: T,
    pub inv_dy: T,
    /// Desingularization constant κ (a length to the fourth power).
    pub kappa: T,
    /// Depth at or below which a cell is dry (momentum zeroed, not wet in the wet map).
    pub dry: T,
    /// g·n² of Manning's law (0: no friction).
    pub g_n2: T,
}

impl<T: Real> Coeffs<T> {
    /// Boundary condition of side 0..4 (west, east, south, north). A `match`, not `[side]`:
    /// indexing the by-value parameter at run time would force it into local memory.
    #[inline(always)]
    pub fn side(&self, side: u32) -> u32 {
        match side {
            0 => self.bc[0],
            1 => self.bc[1],
            2 => self.bc[2],
            _ => self.bc[3],
        }
    }
    /// Index of cell (i, j) in the padded arrays.
    #[inline(always)]
    pub fn at(&self, i: u32, j: u32) -> usize {
        j as usize * self.pitch as usize + i as usize
    }
    /// Cells of the padded arrays.
    #[inline(always)]
    pub fn cells(&self) -> usize {
        self.pitch as usize * (self.ny as usize + 4)
    }
}

/// The conserved variables of one cell, seen along one axis: the momentum normal to the
/// faces (`qn`: hu for x, hv for y) and the tangential one (`qt`).
#[derive(Clone, Copy, Debug)]
pub struct Cell<T> {
    pub w: T,
    pub qn: T,
    pub qt: T,
}

/// Reconstructed values at one face of a cell: surface, depth (≥ 0), momenta.
#[derive(Clone, Copy, Debug)]
pub struct FaceState<T> {
    pub w: T,
    pub h: T,
    pub qn: T,
    pub qt: T,
}

impl<T: Real> FaceState<T> {
    pub const ZERO: FaceState<T> = FaceState { w: T::ZERO, h: T::ZERO, qn: T::ZERO, qt: T::ZERO };
}

/// A cell's reconstruction along one axis: its minus (west/south) and plus faces.
#[derive(Clone, Copy, Debug)]
pub struct Recon<T> {
    pub m: FaceState<T>,
    pub p: FaceState<T>,
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

/// Reconstruct a cell (`c`, between `cm` and `cp`) along one axis; `b_m`, `b_p` are B at its
/// minus and plus faces. The w slope is corrected so that both face depths are non-negative
/// (Kurganov–Petrova 2007, §2): a face below the bed is raised to the bed and the other face
/// lowered by as much, keeping the cell mean.
#[inline(always)]
pub fn reconstruct<T: Real>(k: &Coeffs<T>, cm: Cell<T>, c: Cell<T>, cp: Cell<T>, b_m: T, b_p: T) -> Recon<T> {
    let sw = T::HALF * slope(k.theta, cm.w, c.w, cp.w);
    let mut wm = c.w - sw;
    let mut wp = c.w + sw;
    if wp < b_p {
        wp = b_p;
        wm = T::TWO * c.w - b_p;
    } else if wm < b_m {
        wm = b_m;
        wp = T::TWO * c.w - b_m;
    }
    let sn = T::HALF * slope(k.theta, cm.qn, c.qn, cp.qn);
    let st = T::HALF * slope(k.theta, cm.qt, c.qt, cp.qt);
    Recon {
        m: FaceState { w: wm, h: (wm - b_m).max(T::ZERO), qn: c.qn - sn, qt: c.qt - st },
        p: FaceState { w: wp, h: (wp - b_p).max(T::ZERO), qn: c.qn + sn, qt: c.qt + st },
    }
}

/// Desingularized velocity q/h: `√2·h·q / √(h⁴ + max(h⁴, κ))`, 0 on a dry face.
#[inline(always)]
pub fn desingularize<T: Real>(kappa: T, h: T, q: T) -> T {
    let h2 = h * h;
    let h4 = h2 * h2;
    let den = (h4 + h4.max(kappa)).sqrt();
    if den > T::ZERO { T::from_f64(core::f64::consts::SQRT_2) * h * q / den } else { T::ZERO }
}

/// Both desingularized velocities of one face state, sharing one square root and one division:
/// `f = √2·h / √(h⁴ + max(h⁴, κ))`, (u, v) = (f·qn, f·qt); 0 on a dry face.
#[inline(always)]
pub fn desingularize_pair<T: Real>(kappa: T, h: T, qn: T, qt: T) -> (T, T) {
    let h2 = h * h;
    let h4 = h2 * h2;
    if h4 >= kappa && h > T::ZERO {
        // Deep enough that max(h⁴, κ) = h⁴: f = √2·h/√(2h⁴) = 1/h exactly, one reciprocal
        // instead of a square root and a division (most faces of a wet domain).
        let f = h.recip_fast();
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
/// before it) and a right state `r` (the minus face of the cell after it).
#[inline(always)]
pub fn central_upwind<T: Real>(k: &Coeffs<T>, l: FaceState<T>, r: FaceState<T>) -> Flux<T> {
    let (ul, vl) = desingularize_pair(k.kappa, l.h, l.qn, l.qt);
    let (ur, vr) = desingularize_pair(k.kappa, r.h, r.qn, r.qt);
    let (qnl, qtl, qnr, qtr) = (l.h * ul, l.h * vl, r.h * ur, r.h * vr);
    let cl = (k.g * l.h).sqrt_fast();
    let cr = (k.g * r.h).sqrt_fast();
    let ap = (ul + cl).max(ur + cr).max(T::ZERO);
    let am = (ul - cl).min(ur - cr).min(T::ZERO);
    let span = ap - am;
    if span > T::ZERO {
        let inv = span.recip_fast();
        let apam = ap * am;
        let fl1 = qnl * ul + k.half_g * l.h * l.h;
        let fr1 = qnr * ur + k.half_g * r.h * r.h;
        Flux {
            f0: (ap * qnl - am * qnr + apam * (r.w - l.w)) * inv,
            fn_: (ap * fl1 - am * fr1 + apam * (qnr - qnl)) * inv,
            ft: (ap * qtl * ul - am * qtr * ur + apam * (qtr - qtl)) * inv,
            speed: ap.max(-am),
        }
    } else {
        Flux { f0: T::ZERO, fn_: T::ZERO, ft: T::ZERO, speed: T::ZERO }
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

/// The x-reconstruction of the cell at offset `di` (from cells di−1..=di+1 of the row).
#[inline(always)]
pub fn recon_x<T: Real>(
    k: &Coeffs<T>,
    q: &impl Fn(i32, i32) -> (T, T, T),
    b: &impl Fn(i32, i32) -> T,
    di: i32,
) -> Recon<T> {
    let c = |d: i32| {
        let (w, hu, hv) = q(d, 0);
        Cell { w, qn: hu, qt: hv }
    };
    reconstruct(k, c(di - 1), c(di), c(di + 1), bed_x(b, di), bed_x(b, di + 1))
}

/// The y-reconstruction of the cell at offset `dj` (normal momentum hv).
#[inline(always)]
pub fn recon_y<T: Real>(
    k: &Coeffs<T>,
    q: &impl Fn(i32, i32) -> (T, T, T),
    b: &impl Fn(i32, i32) -> T,
    dj: i32,
) -> Recon<T> {
    let c = |d: i32| {
        let (w, hu, hv) = q(0, d);
        Cell { w, qn: hv, qt: hu }
    };
    reconstruct(k, c(dj - 1), c(dj), c(dj + 1), bed_y(b, dj), bed_y(b, dj + 1))
}

/// The well-balanced bed-slope source along one axis, `−g (B₊ − B₋)/Δ · (h₊ + h₋)/2`, from B at
/// the cell's minus and plus faces and the reconstructed face depths; `inv` is 1/Δ.
#[inline(always)]
pub fn slope_source<T: Real>(k: &Coeffs<T>, b_m: T, b_p: T, r: &Recon<T>, inv: T) -> T {
    -k.g * (b_p - b_m) * inv * T::HALF * (r.p.h + r.m.h)
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

/// R and the rate of a cell from its four face fluxes (west, east, south, north), its own
/// reconstructions (for the source's face depths) and B at its four faces. R is the x part
/// plus the y part, so a kernel that finishes the two parts at different times gets the same
/// sums.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn assemble<T: Real>(
    k: &Coeffs<T>,
    fw: Flux<T>,
    fe: Flux<T>,
    gs: Flux<T>,
    gn: Flux<T>,
    rx: Recon<T>,
    ry: Recon<T>,
    (bw, be, bs, bn): (T, T, T, T),
) -> Rhs<T> {
    let x = rhs_x(k, fw, fe, slope_source(k, bw, be, &rx, k.inv_dx));
    let y = rhs_y(k, gs, gn, slope_source(k, bs, bn, &ry, k.inv_dy));
    Rhs {
        w: x.0 + y.0,
        hu: x.1 + y.1,
        hv: x.2 + y.2,
        rate: (fw.speed * k.inv_dx).max(fe.speed * k.inv_dx).max(gs.speed * k.inv_dy).max(gn.speed * k.inv_dy),
    }
}

/// R at one cell from its neighbourhood: `q(di, dj)` the state (w, hu, hv) of the cell at offset
/// (di, dj) for |di| + |dj| ≤ 2 on the axes, `b(ci, cj)` B at the corner at offset (ci, cj) from
/// the cell's south-west corner, ci, cj in −1..=2 (only the corners of the five-cell cross).
/// Each face flux is `central_upwind(plus face of the cell before, minus face of the cell
/// after)`, so a kernel that computes every face once gets the same values.
#[inline(always)]
pub fn cell_rhs<T: Real>(k: &Coeffs<T>, q: impl Fn(i32, i32) -> (T, T, T), b: impl Fn(i32, i32) -> T) -> Rhs<T> {
    let (rx_m, rx_0, rx_p) = (recon_x(k, &q, &b, -1), recon_x(k, &q, &b, 0), recon_x(k, &q, &b, 1));
    let (ry_m, ry_0, ry_p) = (recon_y(k, &q, &b, -1), recon_y(k, &q, &b, 0), recon_y(k, &q, &b, 1));
    let fw = central_upwind(k, rx_m.p, rx_0.m);
    let fe = central_upwind(k, rx_0.p, rx_p.m);
    let gs = central_upwind(k, ry_m.p, ry_0.m);
    let gn = central_upwind(k, ry_0.p, ry_p.m);
    let beds = (bed_x(&b, 0), bed_x(&b, 1), bed_y(&b, 0), bed_y(&b, 1));
    assemble(k, fw, fe, gs, gn, rx_0, ry_0, beds)
}

/// B at the centre of a cell from its corners (sw, se, nw, ne): the mean, summed so that a
/// mirror image of the corners gives the same bits.
#[inline(always)]
pub fn cell_bed<T: Real>(sw: T, se: T, nw: T, ne: T) -> T {
    T::HALF * T::HALF * ((sw + se) + (nw + ne))
}

/// Cube root for positive x, in f64 (bit-level first guess, then Newton steps).
#[inline(always)]
pub fn cbrt_pos(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut y = f64::from_bits(bits / 3 + 0x2A9F_7893_782D_A1CE);
    let mut n = 0;
    while n < 4 {
        y = y - (y * y * y - x) / (3.0 * y * y);
        n += 1;
    }
    y
}

/// Manning friction coefficient C_f = g n² |q| / h^{7/3} (of d(hu)/dt = −C_f·hu), 0 when dry
/// or frictionless.
#[inline(always)]
pub fn friction<T: Real>(k: &Coeffs<T>, h: T, hu: T, hv: T) -> T {
    if k.g_n2 > T::ZERO && h > k.dry {
        let q = (hu * hu + hv * hv).sqrt();
        k.g_n2 * q / (h * h * T::from_f64(cbrt_pos(h.to_f64())))
    } else {
        T::ZERO
    }
}

/// One Euler stage at a cell: Q + Δt·R with semi-implicit friction evaluated at Q.
#[inline(always)]
pub fn euler<T: Real>(k: &Coeffs<T>, dt: T, bc: T, q: (T, T, T), r: (T, T, T)) -> (T, T, T) {
    let cf = friction(k, q.0 - bc, q.1, q.2);
    let damp = (T::ONE + dt * cf).recip();
    (q.0 + dt * r.0, (q.1 + dt * r.1) * damp, (q.2 + dt * r.2) * damp)
}

/// Dry-cell clean-up after a stage: a negative depth (round-off) becomes 0, a dry cell loses
/// its momentum. Returns the cleaned state and whether the cell is wet (h > dry).
#[inline(always)]
pub fn clean<T: Real>(k: &Coeffs<T>, bc: T, q: (T, T, T)) -> ((T, T, T), bool) {
    let (mut w, mut hu, mut hv) = q;
    let h = w - bc;
    if h < T::ZERO {
        w = bc;
    }
    let wet = h > k.dry;
    if !wet {
        hu = T::ZERO;
        hv = T::ZERO;
    }
    ((w, hu, hv), wet)
}

/// RK stage `stage` (1 or 2) at a cell: stage 1 is E(Q⁰) = Q⁰ + ΔtR(Q⁰); stage 2 is
/// ½(Q⁰ + E(Q¹)) with R = R(Q¹). `q0` is Qⁿ, `q1` the state R was evaluated at.
#[inline(always)]
pub fn rk_point<T: Real>(
    k: &Coeffs<T>,
    stage: u32,
    dt: T,
    bc: T,
    q0: (T, T, T),
    q1: (T, T, T),
    r: (T, T, T),
) -> ((T, T, T), bool) {
    let e = euler(k, dt, bc, q1, r);
    let out = if stage == 2 { (T::HALF * (q0.0 + e.0), T::HALF * (q0.1 + e.1), T::HALF * (q0.2 + e.2)) } else { e };
    clean(k, bc, out)
}

/// Source cell of ghost cell index `g` (0..n+4) along an axis of `n` ≥ 1 interior cells for
/// boundary condition `bc` on that side, and whether the normal momentum flips sign.
/// Ghosts: 0, 1 (minus side) and n+2, n+3 (plus side); interior indices map to themselves.
/// Sources are always interior cells (mirrors clamp when n < 2; periodic wraps modulo n).
#[inline(always)]
pub fn ghost_source(n: u32, g: u32, bc: u32) -> (u32, bool) {
    let n = n.max(1);
    if g < 2 {
        match bc {
            BC_WALL => ((3 - g).min(n + 1), true),
            BC_OUTFLOW => (2, false),
            _ => ((g + 2 * n - 2) % n + 2, false),
        }
    } else if g >= n + 2 {
        match bc {
            BC_WALL => ((2 * n + 3).saturating_sub(g).max(2), true),
            BC_OUTFLOW => (n + 1, false),
            _ => ((g - 2) % n + 2, false),
        }
    } else {
        (g, false)
    }
}

/// Ghost corner index: corners 0..=n+4 along an axis, interior corners 2..=n+2. Periodic sides
/// wrap (corner n+2 is corner 2), the others mirror the bed about the boundary (clamped to the
/// interior corners when n < 2).
#[inline(always)]
pub fn corner_source(n: u32, c: u32, bc: u32) -> u32 {
    let n = n.max(1);
    if c < 2 {
        if bc == BC_PERIODIC { (c + 2 * n - 2) % n + 2 } else { (4 - c).min(n + 2) }
    } else if c > n + 2 {
        if bc == BC_PERIODIC { (c - 2) % n + 2 } else { (2 * (n + 2)).saturating_sub(c).max(2) }
    } else {
        c
    }
}

/// Number of ghost cells the x-pass of the boundary kernel sets: 4 columns × interior rows.
pub const fn ghosts_x(ny: u32) -> u32 {
    4 * ny
}
/// Number of ghost cells the y-pass sets: 4 rows × all (nx+4) columns (corner blocks included).
pub const fn ghosts_y(nx: u32) -> u32 {
    4 * (nx + 4)
}

/// How a ghost cell is set from its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ghost {
    pub ghost: usize,
    pub source: usize,
    pub flip_u: bool,
    pub flip_v: bool,
    /// Outflow: copy the depth (w − B) onto the ghost's own bed; otherwise copy w.
    pub outflow: bool,
}

/// The ghost cell number `t` of pass `axis` sets, and from where
/// (0: west/east columns for the interior rows; 1: south/north rows over all columns, run
/// after the x-pass so the corner blocks copy already-set ghosts).
#[inline(always)]
pub fn ghost_pair<T: Real>(k: &Coeffs<T>, axis: u32, t: u32) -> Option<Ghost> {
    if axis == 0 {
        if t >= ghosts_x(k.ny) {
            return None;
        }
        let j = t / 4 + 2;
        let col = t % 4;
        let (g, side) = match col {
            0 => (0, 0),
            1 => (1, 0),
            2 => (k.nx + 2, 1),
            _ => (k.nx + 3, 1),
        };
        let bc = k.side(side);
        let (s, flip) = ghost_source(k.nx, g, bc);
        Some(Ghost { ghost: k.at(g, j), source: k.at(s, j), flip_u: flip, flip_v: false, outflow: bc == BC_OUTFLOW })
    } else {
        if t >= ghosts_y(k.nx) {
            return None;
        }
        // max(1) proves the divisor non-zero (no trap path).
        let w = (k.nx + 4).max(1);
        let (i, row) = (t % w, t / w);
        let (g, side) = match row {
            0 => (0, 2),
            1 => (1, 2),
            2 => (k.ny + 2, 3),
            _ => (k.ny + 3, 3),
        };
        let bc = k.side(side);
        let (s, flip) = ghost_source(k.ny, g, bc);
        Some(Ghost { ghost: k.at(i, g), source: k.at(i, s), flip_u: false, flip_v: flip, outflow: bc == BC_OUTFLOW })
    }
}

/// Set one ghost cell. Walls and periodic sides copy w (the bed is mirrored or wrapped, so
/// the ghost's B equals its source's); outflow copies the depth onto the ghost's own bed.
///
/// # Safety
/// Every pointer holds `(nx+4)(ny+4)` cells and the pair comes from [`ghost_pair`].
#[inline(always)]
pub unsafe fn set_ghost<T: Real>(w: *mut T, hu: *mut T, hv: *mut T, bc: *const T, gh: Ghost) {
    let (g, s) = (gh.ghost, gh.source);
    unsafe {
        let ws = *w.add(s);
        *w.add(g) = if gh.outflow { (ws - *bc.add(s)).max(T::ZERO) + *bc.add(g) } else { ws };
        let (u, v) = (*hu.add(s), *hv.add(s));
        *hu.add(g) = if gh.flip_u { -u } else { u };
        *hv.add(g) = if gh.flip_v { -v } else { v };
    }
}

/// Whether the flux kernel must compute block (bi, bj) in early-exit mode: the block or one of
/// its four neighbours is wet (`wet(bi, bj)`). Across a periodic side the neighbour is the block
/// at the other end; across the other sides the ghosts copy the block itself.
#[inline(always)]
pub fn block_active<T: Real>(k: &Coeffs<T>, bi: u32, bj: u32, wet: impl Fn(u32, u32) -> bool) -> bool {
    if wet(bi, bj) {
        return true;
    }
    let (nbx, nby) = (k.nbx, k.nby);
    let west = if bi > 0 {
        Some(bi - 1)
    } else if k.bc[0] == BC_PERIODIC {
        Some(nbx - 1)
    } else {
        None
    };
    let east = if bi + 1 < nbx {
        Some(bi + 1)
    } else if k.bc[1] == BC_PERIODIC {
        Some(0)
    } else {
        None
    };
    let south = if bj > 0 {
        Some(bj - 1)
    } else if k.bc[2] == BC_PERIODIC {
        Some(nby - 1)
    } else {
        None
    };
    let north = if bj + 1 < nby {
        Some(bj + 1)
    } else if k.bc[3] == BC_PERIODIC {
        Some(0)
    } else {
        None
    };
    west.is_some_and(|b| wet(b, bj))
        || east.is_some_and(|b| wet(b, bj))
        || south.is_some_and(|b| wet(bi, b))
        || north.is_some_and(|b| wet(bi, b))
}

/// Shared memory of the flux kernels, in `T`s: three (bx+4)(by+4) state tiles, a
/// (bx+3)(by+3) corner tile, three x-face flux arrays of (bx+1)·by and three y-face ones of
/// bx·(by+1), 32 words of reduction scratch.
pub const fn flux_shared(bx: u32, by: u32) -> usize {
    3 * ((bx + 4) * (by + 4)) as usize
        + ((bx + 3) * (by + 3)) as usize
        + 3 * ((bx + 1) * by + bx * (by + 1)) as usize
        + 32
}

/// Interior columns each warp of the streamed flux kernel computes: its 32 lanes hold 32
/// consecutive padded columns, and the two lanes at each edge only supply neighbours (a face
/// flux needs the reconstructions of the cells on both sides, each of which needs its own
/// neighbours).
pub const STREAM_COLS: u32 = 28;

/// Strips of [`STREAM_COLS`] columns across `nx` cells.
pub const fn stream_strips(nx: u32) -> u32 {
    nx.div_ceil(STREAM_COLS)
}

/// Rate slots the streamed flux kernel writes: one per strip and band of `rows` rows.
pub const fn stream_slots(nx: u32, ny: u32, rows: u32) -> usize {
    stream_strips(nx) as usize * ny.div_ceil(rows) as usize
}

/// Parameters of the Δt kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub cfl: f64,
    /// Δt is capped at `t_stop − t`.
    pub t_stop: f64,
    pub dt_floor: f64,
}

/// Slots of the device clock (an f64 array).
pub const CLOCK_T: usize = 0;
pub const CLOCK_DT: usize = 1;
pub const CLOCK_STATUS: usize = 2;
pub const CLOCK_STEPS: usize = 3;
pub const CLOCK_LEN: usize = 4;

/// Outcome of choosing a time step.
pub const STEP_OK: u32 = 0;
/// The largest wave speed is not finite: the state has blown up.
pub const STEP_NON_FINITE: u32 = 1;
/// Δt fell below the floor before the stop time.
pub const STEP_COLLAPSED: u32 = 2;

/// Δt = CFL / rate, capped at the time left until `t_stop` (0 once there); a non-finite rate
/// or a Δt below `dt_floor` short of `t_stop` stops the run (Δt 0, status ≠ [`STEP_OK`]).
/// A still state (rate 0) steps straight to `t_stop` (Δt 0 when that is infinitely far).
#[inline(always)]
pub fn time_step(cfl: f64, rate: f64, t: f64, t_stop: f64, dt_floor: f64) -> (f64, u32) {
    let left = t_stop - t;
    if !rate.is_finite() {
        return (0.0, STEP_NON_FINITE);
    }
    if left <= 0.0 {
        return (0.0, STEP_OK);
    }
    let dt = if rate > 0.0 { cfl / rate } else { f64::INFINITY };
    let dt = if dt < left { dt } else { left };
    if !dt.is_finite() {
        return (0.0, STEP_OK);
    }
    if dt < dt_floor && left > dt_floor {
        return (0.0, STEP_COLLAPSED);
    }
    (dt, STEP_OK)
}

#[cfg(target_arch = "nvptx64")]
mod kernels;
#[cfg(target_arch = "nvptx64")]
mod stream;
