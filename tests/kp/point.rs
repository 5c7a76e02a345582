//! The point functions against formulas written plainly here.

use super::BLOCK;
use hydrokern::Real;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Boundary, Problem, Scheme};

/// The central-upwind flux written from Kurganov–Petrova's formula in physical variables.
fn textbook_flux(g: f64, l: (f64, f64, f64, f64), r: (f64, f64, f64, f64)) -> [f64; 3] {
    // (w, h, u, v) each side.
    let (wl, hl, ul, vl) = l;
    let (wr, hr, ur, vr) = r;
    let ap = (ul + (g * hl).sqrt()).max(ur + (g * hr).sqrt()).max(0.0);
    let am = (ul - (g * hl).sqrt()).min(ur - (g * hr).sqrt()).min(0.0);
    if ap - am <= 0.0 {
        return [0.0; 3];
    }
    let fl = [hl * ul, hl * ul * ul + 0.5 * g * hl * hl, hl * ul * vl];
    let fr = [hr * ur, hr * ur * ur + 0.5 * g * hr * hr, hr * ur * vr];
    let ql = [wl, hl * ul, hl * vl];
    let qr = [wr, hr * ur, hr * vr];
    std::array::from_fn(|k| (ap * fl[k] - am * fr[k]) / (ap - am) + ap * am / (ap - am) * (qr[k] - ql[k]))
}

/// Both schemes' central-upwind flux without drain caps against [`textbook_flux`].
#[test]
fn central_upwind_matches_textbook_formula() {
    use hydrokern::kp::Coeffs;
    use kernels::kp::{Bollermann, Kp07};
    let p = Problem::new(4, 4, 4.0, 4.0);
    let mut k: Coeffs<f64> = p.coeffs((4, 4));
    k.kappa = 1e-40; // no desingularization at these depths
    let mut rng = hydrokern::Rng::new(12345);
    let mut rnd = move || rng.unit();
    for case in 0..200 {
        let mut side = || {
            let h = if case % 7 == 0 { 0.0 } else { 3.0 * rnd() };
            let b = rnd() - 0.5;
            let (u, v) = (4.0 * rnd() - 2.0, 4.0 * rnd() - 2.0);
            // Dry faces carry no velocity (what desingularization gives at h = 0).
            if h == 0.0 { (b, h, 0.0, 0.0) } else { (b + h, h, u, v) }
        };
        let (l, r) = (side(), side());
        let fs =
            |s: (f64, f64, f64, f64)| kernels::kp::FaceState { w: s.0, h: s.1, un: s.2, ut: s.3, cap: f64::INFINITY };
        let got = kernels::kp::central_upwind::<Kp07, f64>(&k, fs(l), fs(r), false);
        // With infinite drain caps (no partially flooded cell) the schemes' fluxes are one.
        let with_caps = kernels::kp::central_upwind::<Bollermann, f64>(&k, fs(l), fs(r), false);
        let bits = |f: kernels::kp::Flux<f64>| [f.f0, f.fn_, f.ft, f.speed].map(f64::to_bits);
        assert_eq!(bits(got), bits(with_caps), "case {case}: the schemes differ without caps");
        let want = textbook_flux(9.81, l, r);
        for (g, w) in [got.f0, got.fn_, got.ft].iter().zip(want) {
            assert!((g - w).abs() <= 1e-12 * (1.0 + w.abs()), "case {case}: {g} vs {w} ({l:?} | {r:?})");
        }
    }
}

/// `bollermann`'s drain cap against the bound it exists for: through a face leaving a partially
/// flooded cell of mean depth h̄ (cap h̄/(4·CFL)), a stage of Δt takes at most h̄/4 of the cell,
/// Δt·|F|/Δ ≤ h̄/4. In the stage whose speeds set Δt (Δt ≤ CFL·Δ/a, no `dt_at`) the cap is
/// cap·a; in a stage that reads Δt (`Coeffs::after_dt`) it is cap·min(a, CFL·Δ/Δt), which holds
/// the bound for faces faster than Δt was taken from, x faces by Δx and y faces by Δy. The
/// uncapped flux is `kp07`'s (the schemes' fluxes are one without caps); f32 and f64.
#[test]
fn the_drain_cap_takes_at_most_a_quarter_of_a_cell_through_a_face() {
    fn check<T: Real>() {
        use kernels::kp::{Bollermann, FaceState, Kp07, central_upwind};
        let p = Problem::new(4, 4, 8.0, 2.0);
        let k: hydrokern::kp::Coeffs<T> = p.coeffs((4, 4));
        let (cfl, t) = (p.cfl, T::from_f64);
        let mut rng = hydrokern::Rng::new(2024);
        let mut rnd = move || rng.unit();
        let (mut held, mut only_by_dt) = (0, 0);
        for case in 0..400 {
            let hbar = 0.5 * rnd();
            let dt = 0.01 + 0.5 * rnd();
            let mut face = |cap: f64| {
                let h = 2.0 * rnd();
                let b = rnd() - 0.5;
                FaceState { w: t(b + h), h: t(h), un: t(8.0 * rnd() - 4.0), ut: t(2.0 * rnd() - 1.0), cap: t(cap) }
            };
            // One side partially flooded, the other not (its cap ∞), either way round.
            let cap = k.drain.to_f64() * hbar;
            let (l, r) =
                if case % 2 == 0 { (face(cap), face(f64::INFINITY)) } else { (face(f64::INFINITY), face(cap)) };
            let dt_t = t(dt);
            // SAFETY: dt_t outlives every use of `after`.
            let after = unsafe { k.after_dt(&dt_t) };
            for (y, d) in [(false, p.dx), (true, p.dy)] {
                let free = central_upwind::<Kp07, T>(&k, l, r, y);
                let (f0, a) = (free.f0.to_f64(), free.speed.to_f64());
                let leaves_capped = (f0 > 0.0) == (case % 2 == 0) && f0 != 0.0;
                let first = central_upwind::<Bollermann, T>(&k, l, r, y).f0.to_f64();
                let second = central_upwind::<Bollermann, T>(&after, l, r, y).f0.to_f64();
                let tol = 8.0 * T::EPSILON.to_f64();
                if !leaves_capped {
                    assert_eq!((first, second), (f0, f0), "{} case {case}: a face into the capped cell", T::NAME);
                    continue;
                }
                let want = |speed: f64| f0.signum() * f0.abs().min(cap * speed);
                let fastest = cfl * d / dt;
                for (got, speed, what) in [(first, a, "first stage"), (second, a.min(fastest), "second stage")] {
                    let w = want(speed);
                    assert!((got - w).abs() <= tol * w.abs(), "{} case {case} {what}: F {got} against {w}", T::NAME);
                }
                // The second stage takes at most a quarter of the cell whatever the face's speed.
                assert!(dt * second.abs() / d <= 0.25 * hbar * (1.0 + tol), "{} case {case}: too much", T::NAME);
                held += (f0.abs() > cap * a) as u32;
                only_by_dt += (f0.abs() <= cap * a && f0.abs() > cap * fastest) as u32;
            }
        }
        // Both caps bind in some of the cases: the test sees each rule at work.
        assert!(held > 20 && only_by_dt > 20, "{}: {held} held by a, {only_by_dt} by Δt alone", T::NAME);
    }
    check::<f64>();
    check::<f32>();
}

/// `kp07`'s limit on a stage that reads Δt against the bound it exists for: a face lets out at
/// most a quarter of the depth on the side water leaves, Δt·|F|/Δ ≤ h/4 (the cell mean depth is
/// the mean of the four face depths, so the stage keeps it ≥ 0). Random faces of speeds up to
/// several times Δ/(4Δt), x faces by Δx and y faces by Δy, f32 and f64: the first stage's flux is
/// the unlimited one bit for bit; the second stage's is it where it keeps the bound and
/// F·(Δ/(4Δt))·h/|F| where not, the pressure part of the normal momentum flux kept and the
/// advective parts scaled alike.
#[test]
fn kp07_second_stage_lets_out_at_most_a_quarter_of_a_face_depth() {
    fn check<T: Real>() {
        use kernels::kp::{FaceState, Kp07, central_upwind, pressure_part};
        let p = Problem::new(4, 4, 8.0, 2.0);
        let k: hydrokern::kp::Coeffs<T> = p.coeffs((4, 4));
        let t = T::from_f64;
        let mut rng = hydrokern::Rng::new(4992);
        let mut rnd = move || rng.unit();
        let (mut limited, mut free) = (0, 0);
        let bits = |f: kernels::kp::Flux<T>| [f.f0, f.fn_, f.ft, f.speed].map(|v| v.to_f64().to_bits());
        for case in 0..400 {
            let dt = 0.01 + 0.3 * rnd();
            let mut face = || {
                let h = if case % 9 == 0 { 0.0 } else { 0.5 * rnd() * rnd() };
                let b = rnd() - 0.5;
                FaceState {
                    w: t(b + h),
                    h: t(h),
                    un: t(12.0 * rnd() - 6.0),
                    ut: t(2.0 * rnd() - 1.0),
                    cap: T::INFINITY,
                }
            };
            let (l, r) = (face(), face());
            let dt_t = t(dt);
            // SAFETY: dt_t outlives every use of `after`.
            let after = unsafe { k.after_dt(&dt_t) };
            for (y, d) in [(false, p.dx), (true, p.dy)] {
                let first = central_upwind::<Kp07, T>(&k, l, r, y);
                let second = central_upwind::<Kp07, T>(&after, l, r, y);
                let f0 = first.f0.to_f64();
                let own = if f0 > 0.0 { l.h } else { r.h }.to_f64();
                let allowed = own * d / (4.0 * dt);
                let tol = 16.0 * T::EPSILON.to_f64();
                // Faces within a few roundings of the bound may go either way.
                if (f0.abs() - allowed).abs() <= tol * allowed {
                    continue;
                }
                if f0.abs() < allowed {
                    assert_eq!(bits(second), bits(first), "{} case {case}: a face within the bound", T::NAME);
                    free += 1;
                    continue;
                }
                limited += 1;
                let phi = allowed / f0.abs();
                let pressure = pressure_part(&k, l, r).to_f64();
                let want = [phi * f0, pressure + phi * (first.fn_.to_f64() - pressure), phi * first.ft.to_f64()];
                let got = [second.f0, second.fn_, second.ft].map(|v| v.to_f64());
                for (g, w) in got.iter().zip(want) {
                    let scale = w.abs().max(pressure.abs()).max(first.fn_.to_f64().abs());
                    assert!((g - w).abs() <= tol * scale, "{} case {case}: {got:?} against {want:?}", T::NAME);
                }
                assert_eq!(
                    second.speed.to_f64().to_bits(),
                    first.speed.to_f64().to_bits(),
                    "{} case {case}: speed",
                    T::NAME
                );
                assert!(
                    dt * second.f0.to_f64().abs() / d <= 0.25 * own * (1.0 + tol),
                    "{} case {case}: too much",
                    T::NAME
                );
            }
        }
        // The limit binds in some of the cases and not in others: the test sees both.
        assert!(limited > 50 && free > 50, "{}: {limited} limited, {free} free", T::NAME);
    }
    check::<f64>();
    check::<f32>();
}

/// Both desingularized velocities of a face against √2·h·q/√(h⁴ + max(h⁴, κ)) written out, on
/// deep faces (h⁴ ≥ κ: the one-reciprocal path), shallow ones (h⁴ < κ: the square-root path)
/// and a dry one (0), in both precisions; and the limits: q/h for deep water, → 0 with h.
#[test]
fn desingularized_velocities_match_the_formula() {
    fn check<T: Real>(kappa: f64, h: f64, qn: f64, qt: f64) {
        let plain = |q: f64| {
            let h4 = h * h * h * h;
            let den = (h4 + h4.max(kappa)).sqrt();
            if den > 0.0 { std::f64::consts::SQRT_2 * h * q / den } else { 0.0 }
        };
        let t = T::from_f64;
        let (u, v) = kernels::kp::desingularize_pair(t(kappa), t(h), t(qn), t(qt));
        for (got, q) in [(u, qn), (v, qt)] {
            // The inputs rounded to T, then a handful of operations in T.
            let want = plain(q);
            let tol = 8.0 * T::EPSILON.to_f64() * want.abs();
            assert!((got.to_f64() - want).abs() <= tol, "{} h {h} q {q}: {got} vs {want}", T::NAME);
        }
    }
    let kappa = 1e-8; // κ^{1/4} = 0.01
    for (h, qn, qt) in [(2.0, 3.0, -1.0), (0.5, 0.1, 0.2), (0.02, 1e-3, -2e-3)] {
        assert!(h * h * h * h >= kappa);
        check::<f64>(kappa, h, qn, qt);
        check::<f32>(kappa, h, qn, qt);
    }
    for (h, qn, qt) in [(0.005, 1e-3, -4e-4), (1e-4, 1e-5, 1e-5), (1e-6, 1e-6, 3e-6)] {
        assert!(h * h * h * h < kappa);
        check::<f64>(kappa, h, qn, qt);
        check::<f32>(kappa, h, qn, qt);
    }
    assert_eq!(kernels::kp::desingularize_pair(kappa, 0.0, 3.0, 1.0), (0.0, 0.0));
    let (u, _) = kernels::kp::desingularize_pair(kappa, 2.0, 3.0, 0.0);
    assert!((u - 1.5).abs() < 1e-15, "{u}");
    // Below κ^{1/4} the velocity is bounded by √2·h·q/√κ → 0.
    let (tiny, _) = kernels::kp::desingularize_pair(kappa, 1e-6, 1e-6, 0.0);
    assert!(tiny.abs() < 1e-7, "{tiny}");
}

/// Manning friction of a uniform periodic flow: R = 0, so each Euler step is exactly
/// hu ← hu / (1 + Δt g n² |u| / h^{4/3}).
#[test]
fn manning_friction_semi_implicit() {
    let mut p = Problem::new(8, 8, 8.0, 8.0);
    p.boundary = [Boundary::Periodic; 4];
    p.manning = 0.03;
    p.scheme = Scheme::Euler;
    p.set_depth(|_, _| 0.8);
    p.hu.fill(0.8 * 1.5);
    p.hv.fill(0.8 * -0.5);
    let mut m = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
    let (mut hu, mut hv) = (1.2f64, -0.4f64);
    for _ in 0..20 {
        let dt = m.step(f64::INFINITY).unwrap();
        let speed = (hu * hu + hv * hv).sqrt() / 0.8;
        let cf = 9.81 * 0.03f64.powi(2) * speed / 0.8f64.powf(4.0 / 3.0);
        hu /= 1.0 + dt * cf;
        hv /= 1.0 + dt * cf;
    }
    let c = m.coeffs().at(5, 5);
    let [w, u, v] = m.state();
    assert!((w[c] - 0.8).abs() < 1e-14, "depth changed: {}", w[c]);
    assert!(
        (u[c] - hu).abs() < 1e-12 * hu.abs() && (v[c] - hv).abs() < 1e-12 * hv.abs(),
        "{} {} vs {hu} {hv}",
        u[c],
        v[c]
    );
}

/// A cell's bed (the mean of its corners) is the same bits under every symmetry of the square: the
/// mirror images and the transpose the split schemes' Y substeps work in (summed by rows it would
/// not be, and a dry cell of the transposed grid would hold a film of one ulp). Random corners of
/// mixed magnitudes, f32 and f64, each within half an ulp of the mean taken in f64 twice over.
#[test]
fn cell_bed_is_the_same_under_the_squares_symmetries() {
    use kernels::kp::cell_bed;
    fn check<T: Real>(c: [f64; 4]) {
        let [sw, se, nw, ne] = c.map(T::from_f64);
        let b = cell_bed(sw, se, nw, ne);
        let images = [
            ("transposed", cell_bed(sw, nw, se, ne)),
            ("mirrored in x", cell_bed(se, sw, ne, nw)),
            ("mirrored in y", cell_bed(nw, ne, sw, se)),
            ("turned a half", cell_bed(ne, nw, se, sw)),
            ("anti-transposed", cell_bed(ne, se, nw, sw)),
        ];
        for (name, v) in images {
            assert_eq!(v.to_f64().to_bits(), b.to_f64().to_bits(), "{} {c:?} {name}", T::NAME);
        }
        let mean = [sw, se, nw, ne].iter().map(|v| v.to_f64()).sum::<f64>() / 4.0;
        let scale = [sw, se, nw, ne].iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
        assert!((b.to_f64() - mean).abs() <= 2.0 * T::EPSILON.to_f64() * scale, "{} {c:?}", T::NAME);
    }
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut transposed_differs_by_rows = 0;
    for _ in 0..100_000 {
        let c: [f64; 4] = std::array::from_fn(|_| (next() - 0.3) * 10f64.powi((next() * 4.0) as i32));
        check::<f32>(c);
        check::<f64>(c);
        let [sw, se, nw, ne] = c;
        transposed_differs_by_rows += ((sw + se) + (nw + ne) != (sw + nw) + (se + ne)) as u32;
    }
    // The check can fail: summed by rows, the transpose changes the bits of many of these cells.
    assert!(transposed_differs_by_rows > 1000, "{transposed_differs_by_rows}");
}

/// `minmod3` (branch-free in f32, compares and branches in f64) against the limiter written
/// plainly, on random slopes with repeated values, zeros of both signs and mixed signs.
#[test]
fn minmod3_is_the_plain_minmod() {
    fn plain(a: f64, b: f64, c: f64) -> f64 {
        if a > 0.0 && b > 0.0 && c > 0.0 {
            a.min(b.min(c))
        } else if a < 0.0 && b < 0.0 && c < 0.0 {
            a.max(b.max(c))
        } else {
            0.0
        }
    }
    let mut rng = hydrokern::Rng::new(777);
    let picks = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30, -1e-30];
    for case in 0..20_000 {
        let mut one = || {
            let r = rng.unit();
            if case % 3 == 0 { picks[(r * picks.len() as f64) as usize % picks.len()] } else { 4.0 * r - 2.0 }
        };
        let (a, b, c) = (one(), one(), one());
        let want = plain(a, b, c);
        let got64 = kernels::kp::minmod3(a, b, c);
        assert_eq!(got64, want, "f64: minmod({a}, {b}, {c})");
        let (a, b, c) = (a as f32, b as f32, c as f32);
        let want = plain(a as f64, b as f64, c as f64) as f32;
        let got32 = kernels::kp::minmod3(a, b, c);
        // Where the slopes disagree the limiter is +0, as the plain one's.
        assert!(
            got32 == want && (want != 0.0 || got32.is_sign_positive()),
            "f32: minmod({a}, {b}, {c}) = {got32:?}, not {want:?}"
        );
    }
}
