//! The Riemann solvers, one file per system of equations. Each file's header states the
//! equations, the waves and the meaning of every state and auxiliary component.
//!
//! Adding a system: write a file here implementing [`super::Riemann`] (copy the shape of
//! `advection.rs`) and give it one line in the registry (`../systems.rs`); its `mod` and `pub
//! use` lines are made from there.

/// `mod file; pub use file::Type;` for every registered system.
macro_rules! solver_modules {
    ($(plane)? $(volume)? { $($file:ident => $name:ident $(<$t:ident>)?, $m:literal, $w:literal, $a:literal;)* } $($rest:tt)*) => {
        $(
            mod $file;
            pub use $file::$name;
        )*
        solver_modules! { $($rest)* }
    };
    () => {};
}

crate::claw_systems!(solver_modules);

/// Acoustic waves across a face between two media (both acoustics solvers; M = 1 + the
/// dimensions): the jump (δp, δu_n) in pressure and normal velocity u_n = q[dir + 1] split into
/// a left-going wave α₁·(−Z_l, 1) at −c_l and a right-going one α₂·(Z_r, 1) at +c_r, in the
/// (p, u_n) components, with c = √(K/ρ) and impedance Z = ρc of each side (aux = (ρ, K)). The
/// tangential velocity jumps are zero-speed waves that move nothing; they are left out, as in
/// Clawpack's acoustics solvers.
#[inline(always)]
fn acoustic_waves<T: crate::Real, const M: usize>(
    dir: usize,
    ql: &[T; M],
    qr: &[T; M],
    al: &[T; 2],
    ar: &[T; 2],
) -> super::Solution<T, M, 2> {
    let n = dir + 1;
    let (cl, cr) = ((al[1] / al[0]).sqrt(), (ar[1] / ar[0]).sqrt());
    let (zl, zr) = (al[0] * cl, ar[0] * cr);
    let (dp, du) = (qr[0] - ql[0], qr[n] - ql[n]);
    let inv = T::ONE / (zl + zr);
    let (a1, a2) = ((zr * du - dp) * inv, (zl * du + dp) * inv);
    let (mut w1, mut w2) = ([T::ZERO; M], [T::ZERO; M]);
    (w1[0], w1[n]) = (-a1 * zl, a1);
    (w2[0], w2[n]) = (a2 * zr, a2);
    super::Solution::from_waves([w1, w2], [-cl, cr])
}

/// Why a medium (ρ, K) is not admissible, or `None`.
fn acoustic_medium<T: crate::Real>(aux: &[T; 2]) -> Option<&'static str> {
    let ok = |x: T| x > T::ZERO && x.is_finite();
    if !ok(aux[0]) {
        Some("the density rho must be positive and finite")
    } else if !ok(aux[1]) {
        Some("the bulk modulus must be positive and finite")
    } else {
        None
    }
}

/// A shallow-water state seen across a face along axis `dir`: depth h and its square root s,
/// normal and tangential velocities (0 where h ≤ `dry`, so a film does not divide by nothing),
/// and the gravity wave speed c = √g·s.
///
/// Each state takes one square root and one reciprocal, both `_fast` (one instruction each in
/// f32 on the GPU, ≤ 2 ulp, against about a dozen for a correctly rounded `sqrt` or `/`; exact
/// elsewhere): u = hu·(1/h), v = hv·(1/h), and √(gh) as √g·√h, where √h is what the Roe
/// averages weigh by anyway.
#[derive(Clone, Copy)]
struct Shallow<T> {
    h: T,
    s: T,
    un: T,
    ut: T,
    c: T,
}

/// The normal and tangential momentum components across axis `dir` of (h, hu, hv).
#[inline(always)]
fn shallow_axes(dir: usize) -> (usize, usize) {
    if dir == 0 { (1, 2) } else { (2, 1) }
}

/// The state `q` across axis `dir`, with gravity given as √g (`sqrt_g`).
#[inline(always)]
fn shallow<T: crate::Real>(sqrt_g: T, dry: T, dir: usize, q: &[T; 3]) -> Shallow<T> {
    let (n, t) = shallow_axes(dir);
    let h = q[0].max(T::ZERO);
    let s = h.sqrt_fast();
    let c = sqrt_g * s;
    if h <= dry {
        return Shallow { h, s, un: T::ZERO, ut: T::ZERO, c };
    }
    let inv = h.recip_fast();
    Shallow { h, s, un: q[n] * inv, ut: q[t] * inv, c }
}

/// Roe averages of two shallow-water states: (û, v̂, ĉ) with û = (√h_l u_l + √h_r u_r)/(√h_l + √h_r),
/// ĉ = √(g (h_l + h_r)/2); `None` where both sides are dry. One reciprocal for û and v̂, one
/// square root for ĉ (both `_fast`, as [`shallow`]'s).
#[inline(always)]
fn roe_average<T: crate::Real>(g: T, l: &Shallow<T>, r: &Shallow<T>) -> Option<(T, T, T)> {
    let (sl, sr) = (l.s, r.s);
    if sl + sr <= T::ZERO {
        return None;
    }
    let inv = (sl + sr).recip_fast();
    let c = (g * T::HALF * (l.h + r.h)).sqrt_fast();
    Some(((sl * l.un + sr * r.un) * inv, (sl * l.ut + sr * r.ut) * inv, c))
}

/// Why a shallow-water state is not admissible initial data, or `None`.
fn shallow_state<T: crate::Real>(q: &[T; 3]) -> Option<&'static str> {
    if !(q[0].is_finite() && q[1].is_finite() && q[2].is_finite()) {
        Some("the depth and momenta must be finite")
    } else if q[0] < T::ZERO {
        Some("the depth h must not be negative")
    } else {
        None
    }
}
