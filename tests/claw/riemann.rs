//! The Riemann solvers checked without the framework: the waves sum to the jump, the
//! fluctuations to the flux difference (the conservative solvers), Roe's waves are eigenvectors
//! of the Roe matrix written out here, and the entropy fix splits a transonic wave; the
//! limiters against Clawpack's φ(θ) written out here.

use hydrokern::Real;
use hydrokern::claw::{
    Acoustics2d, Acoustics3d, Advection, Burgers, Limiter, Riemann, ShallowHlle, ShallowRoe, Solution,
};
use kernels::claw::limited;
use proptest::prelude::*;

const G: f64 = 9.81;

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-12 * scale.max(1.0)
}

fn sum_waves<const M: usize, const W: usize>(s: &Solution<f64, M, W>) -> [f64; M] {
    let mut out = [0.0; M];
    for w in &s.waves {
        for m in 0..M {
            out[m] += w[m];
        }
    }
    out
}

/// The shallow-water flux normal to axis `dir`, written out: (hu_n, hu_n²/h + ½gh², hu_n·hu_t/h)
/// in the components (h, hu, hv).
fn swe_flux(dir: usize, q: &[f64; 3]) -> [f64; 3] {
    let (n, t) = if dir == 0 { (1, 2) } else { (2, 1) };
    let mut f = [0.0; 3];
    f[0] = q[n];
    f[n] = q[n] * q[n] / q[0] + 0.5 * G * q[0] * q[0];
    f[t] = q[n] * q[t] / q[0];
    f
}

fn swe_state() -> impl Strategy<Value = [f64; 3]> {
    (0.01f64..5.0, -3.0f64..3.0, -3.0f64..3.0).prop_map(|(h, u, v)| [h, h * u, h * v])
}

proptest! {
    #![proptest_config(crate::common::config(256, file!()))]

    #[test]
    fn shallow_roe_waves_are_eigenvectors_and_conservative(ql in swe_state(), qr in swe_state(), dir in 0usize..2) {
        let s = ShallowRoe { g: G }.solve(dir, &ql, &qr, &[], &[]);
        let scale = ql.iter().chain(&qr).fold(1.0f64, |a, b| a.max(b.abs()));
        let sum = sum_waves(&s);
        for m in 0..3 {
            prop_assert!(close(sum[m], qr[m] - ql[m], scale), "Σ waves {sum:?} against ΔQ");
        }
        // The Roe matrix along dir, in (h, hu_n, hu_t) order, from Roe averages written out.
        let (n, t) = if dir == 0 { (1, 2) } else { (2, 1) };
        let (sl, sr) = (ql[0].sqrt(), qr[0].sqrt());
        let u = (ql[n] / sl + qr[n] / sr) / (sl + sr);
        let v = (ql[t] / sl + qr[t] / sr) / (sl + sr);
        let c2 = G * 0.5 * (ql[0] + qr[0]);
        let a = [[0.0, 1.0, 0.0], [c2 - u * u, 2.0 * u, 0.0], [-u * v, v, u]];
        for p in 0..3 {
            let w = [s.waves[p][0], s.waves[p][n], s.waves[p][t]];
            for r in 0..3 {
                let aw: f64 = (0..3).map(|k| a[r][k] * w[k]).sum();
                prop_assert!((aw - s.speeds[p] * w[r]).abs() <= 1e-9 * scale * scale, "wave {p} is no eigenvector: A·w {aw} against s·w {}", s.speeds[p] * w[r]);
            }
        }
        let (fl, fr) = (swe_flux(dir, &ql), swe_flux(dir, &qr));
        for m in 0..3 {
            prop_assert!((s.amdq[m] + s.apdq[m] - (fr[m] - fl[m])).abs() <= 1e-9 * scale * scale, "A⁻ΔQ + A⁺ΔQ against Δf in {m}");
        }
    }

    #[test]
    fn shallow_hlle_is_conservative_and_keeps_depth(ql in swe_state(), qr in swe_state(), dir in 0usize..2, dry_left: bool) {
        let ql = if dry_left { [0.0, 0.0, 0.0] } else { ql };
        let s = ShallowHlle { g: G, dry: 0.0 }.solve(dir, &ql, &qr, &[], &[]);
        let scale = ql.iter().chain(&qr).fold(1.0f64, |a, b| a.max(b.abs()));
        let sum = sum_waves(&s);
        for m in 0..3 {
            prop_assert!(close(sum[m], qr[m] - ql[m], scale));
        }
        let flux = |q: &[f64; 3]| if q[0] == 0.0 { [0.0; 3] } else { swe_flux(dir, q) };
        let (fl, fr) = (flux(&ql), flux(&qr));
        for m in 0..3 {
            prop_assert!((s.amdq[m] + s.apdq[m] - (fr[m] - fl[m])).abs() <= 1e-9 * scale * scale);
        }
        // The middle state's depth.
        prop_assert!(ql[0] + s.waves[0][0] >= -1e-12 * scale, "h* = {}", ql[0] + s.waves[0][0]);
        prop_assert!(s.speeds[0] < s.speeds[1]);
    }

    #[test]
    fn acoustics_waves_split_the_jump(ql in prop::array::uniform4(-2.0f64..2.0), qr in prop::array::uniform4(-2.0f64..2.0),
                                      rho in (0.5f64..3.0, 0.5f64..3.0), bulk in (0.5f64..4.0, 0.5f64..4.0), dir in 0usize..3) {
        let (al, ar) = ([rho.0, bulk.0], [rho.1, bulk.1]);
        let s = Acoustics3d.solve(dir, &ql, &qr, &al, &ar);
        let n = dir + 1;
        let sum = sum_waves(&s);
        // The (p, u_n) jump is split into the two waves; tangential jumps move at speed 0.
        prop_assert!(close(sum[0], qr[0] - ql[0], 10.0) && close(sum[n], qr[n] - ql[n], 10.0));
        prop_assert!((1..4).filter(|&m| m != n).all(|m| sum[m] == 0.0));
        let (cl, cr) = ((bulk.0 / rho.0).sqrt(), (bulk.1 / rho.1).sqrt());
        prop_assert_eq!(s.speeds, [-cl, cr]);
        // Each wave is an eigenvector of its side's matrix: (p, u_n) ↦ (K u_n, p/ρ).
        for (p, (r, k)) in [(0usize, (rho.0, bulk.0)), (1, (rho.1, bulk.1))] {
            let w = s.waves[p];
            prop_assert!((k * w[n] - s.speeds[p] * w[0]).abs() <= 1e-12 * 100.0);
            prop_assert!((w[0] / r - s.speeds[p] * w[n]).abs() <= 1e-12 * 100.0);
        }
        // The same medium on both sides: A⁻ΔQ + A⁺ΔQ = A ΔQ.
        let h = Acoustics2d.solve(dir.min(1), &[ql[0], ql[1], ql[2]], &[qr[0], qr[1], qr[2]], &al, &al);
        let m = dir.min(1) + 1;
        let (dp, du) = (qr[0] - ql[0], qr[m] - ql[m]);
        prop_assert!(close(h.amdq[0] + h.apdq[0], bulk.0 * du, 10.0));
        prop_assert!(close(h.amdq[m] + h.apdq[m], dp / rho.0, 10.0));
    }

    #[test]
    fn advection_moves_the_jump(ql in -5.0f64..5.0, qr in -5.0f64..5.0, vel in prop::array::uniform3(-2.0f64..2.0), dir in 0usize..3) {
        let s = Advection { velocity: vel }.solve(dir, &[ql], &[qr], &[], &[]);
        prop_assert_eq!(s.waves[0][0], qr - ql);
        prop_assert!(close(s.amdq[0] + s.apdq[0], vel[dir] * (qr - ql), 10.0));
        // Everything moves with the flow: left where it goes left, right where it goes right.
        let (left, right) = if vel[dir] < 0.0 { (vel[dir] * (qr - ql), 0.0) } else { (0.0, vel[dir] * (qr - ql)) };
        prop_assert!(s.amdq[0] == left && s.apdq[0] == right, "{s:?}");
    }

    /// Burgers: the wave is the jump at the Rankine–Hugoniot speed, the fluctuations sum to
    /// f(q_r) − f(q_l) with f = q²/2, and each is the flux difference to the sonic state 0
    /// on its side of a transonic rarefaction (Godunov's flux there is f(0) = 0).
    #[test]
    fn burgers_is_conservative_and_opens_transonic_rarefactions(ql in -3.0f64..3.0, qr in -3.0f64..3.0, dir in 0usize..2) {
        let s = Burgers.solve(dir, &[ql], &[qr], &[], &[]);
        let f = |q: f64| 0.5 * q * q;
        prop_assert_eq!(s.waves[0][0], qr - ql);
        prop_assert!(close(s.speeds[0], 0.5 * (ql + qr), 1.0));
        prop_assert!(close(s.amdq[0] + s.apdq[0], f(qr) - f(ql), 10.0));
        if ql < 0.0 && qr > 0.0 {
            prop_assert!(close(s.amdq[0], -f(ql), 10.0) && close(s.apdq[0], f(qr), 10.0), "{s:?}");
        } else {
            // A shock or a rarefaction on one side: everything goes the way the wave moves.
            let (left, right) = if s.speeds[0] < 0.0 { (s.amdq[0], 0.0) } else { (0.0, s.apdq[0]) };
            prop_assert!(s.amdq[0] == left && s.apdq[0] == right, "{s:?}");
        }
    }
}

/// Inside a 1-rarefaction whose fan straddles the interface (states of the exact fan at
/// ξ = u − c = ∓0.2 m/s either side, so the characteristic speed changes sign across the
/// 1-wave): the entropy fix splits the 1-wave's fluctuation between the two sides where the
/// plain splitting sends it all one way; the fluctuations still sum to the flux difference.
#[test]
fn shallow_roe_entropy_fix_splits_a_transonic_rarefaction() {
    let cl = (G * 1.0f64).sqrt();
    // In the fan of a 1-rarefaction from rest at depth 1 m: u + 2c = 2c_l and u − c = ξ.
    let fan = |xi: f64| {
        let c = (2.0 * cl - xi) / 3.0;
        let h = c * c / G;
        [h, h * (xi + c), 0.0]
    };
    let (ql, qr) = (fan(-0.2), fan(0.2));
    let s = ShallowRoe { g: G }.solve(0, &ql, &qr, &[], &[]);
    let plain = Solution::from_waves(s.waves, s.speeds);
    let moved = (s.amdq[0] - plain.amdq[0]).abs();
    assert!(moved > 1e-3 * s.waves[0][0].abs(), "the fix moved {moved:e} of the 1-wave's fluctuation: {s:?}");
    let (fl, fr) = (swe_flux(0, &ql), swe_flux(0, &qr));
    for m in 0..3 {
        assert!((s.amdq[m] + s.apdq[m] - (fr[m] - fl[m])).abs() < 1e-12);
    }
    // Not transonic (both states subcritical, a small jump): no fix.
    let s = ShallowRoe { g: G }.solve(0, &[1.0, 0.1, 0.0], &[0.9, 0.1, 0.0], &[], &[]);
    let plain = Solution::from_waves(s.waves, s.speeds);
    assert_eq!(s.amdq, plain.amdq);
}

#[test]
fn inadmissible_data_is_named() {
    assert!(Acoustics2d.inadmissible(&[0.0; 3], &[0.0, 1.0]).unwrap().contains("density"));
    assert!(Acoustics2d.inadmissible(&[0.0; 3], &[1.0, -1.0]).unwrap().contains("bulk"));
    assert!(ShallowHlle { g: G, dry: 0.0 }.inadmissible(&[-1.0, 0.0, 0.0], &[]).unwrap().contains("negative"));
    assert!(ShallowHlle { g: G, dry: 0.0 }.inadmissible(&[0.0, 0.0, 0.0], &[]).is_none());
    assert!(ShallowRoe { g: G }.inadmissible(&[0.0, 0.0, 0.0], &[]).unwrap().contains("h > 0"));
    assert!(ShallowRoe { g: G }.inadmissible(&[1.0, f64::NAN, 0.0], &[]).unwrap().contains("finite"));
}

/// Clawpack's limiter function φ(θ), written out as Clawpack writes it.
fn clawpack_phi<T: Real>(limiter: Limiter, theta: T) -> T {
    let (zero, one, two, half) = (T::ZERO, T::ONE, T::TWO, T::HALF);
    match limiter {
        Limiter::None => one,
        Limiter::Minmod => zero.max(one.min(theta)),
        Limiter::Superbee => zero.max(one.min(two * theta)).max(two.min(theta)),
        Limiter::VanLeer => (theta + theta.abs()) / (one + theta.abs()),
        Limiter::Mc => zero.max((half * (one + theta)).min(two).min(two * theta)),
    }
}

/// The kernels' φ from θ's numerator and denominator (θ as a product with one reciprocal, van
/// Leer's as 2·dot/(norm2 + dot)) against Clawpack's φ of the quotient, in precision T: within
/// a few ε of φ ≤ 2, and exactly where θ lies on a plateau (θ = k ≤ 0 or ≥ 3.5: φ = 0, 1 or 2).
fn check_phi<T: Real>(dot: f64, norm2: f64, k: Option<f64>) -> Result<(), TestCaseError> {
    let norm2 = T::from_f64(norm2);
    let dot = k.map_or(T::from_f64(dot), |k| T::from_f64(k) * norm2);
    for limiter in Limiter::ALL {
        let (got, want) = (limiter.phi(dot, norm2), clawpack_phi(limiter, dot / norm2));
        prop_assert!(
            (got - want).abs() <= T::from_f64(8.0) * T::EPSILON,
            "{limiter:?} {}: {got} against {want}",
            T::NAME
        );
        let plateau = k.is_some_and(|k| k <= 0.0 || (k >= 3.5 && limiter != Limiter::VanLeer));
        prop_assert!(!plateau || got == want, "{limiter:?} {}: {got} off the plateau {want}", T::NAME);
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(512, file!()))]

    #[test]
    fn limiters_are_clawpacks(dot in -8.0f64..8.0, norm2 in 1e-3f64..8.0, k in prop_oneof![Just(None), (-4.0f64..5.0).prop_map(Some)]) {
        check_phi::<f64>(dot, norm2, k)?;
        check_phi::<f32>(dot, norm2, k)?;
    }

    /// `limited` forms θ from the waves as Clawpack does (within the rounding of the dot
    /// product's terms) and drops a zero wave.
    #[test]
    fn limited_waves_are_clawpacks(w in prop::array::uniform3(prop_oneof![3 => -2.0f64..2.0, 1 => Just(0.0)]),
                                   up in prop::array::uniform3(-2.0f64..2.0)) {
        let norm2: f64 = w.iter().map(|x| x * x).sum();
        let terms: f64 = w.iter().zip(&up).map(|(x, u)| (x * u).abs()).sum();
        for limiter in Limiter::ALL {
            let got = limited(limiter, &w, &up);
            let want = if limiter == Limiter::None { 1.0 } else if norm2 == 0.0 { 0.0 } else {
                let dot: f64 = w.iter().zip(&up).map(|(x, u)| x * u).sum();
                clawpack_phi(limiter, dot / norm2)
            };
            let tol = if norm2 == 0.0 { 0.0 } else { 16.0 * f64::EPSILON * (1.0 + terms / norm2) };
            prop_assert!((got - want).abs() <= tol, "{limiter:?}: {got} against {want}");
        }
    }
}

#[test]
fn an_underflowed_wave_counts_as_zero() {
    for limiter in [Limiter::Minmod, Limiter::Superbee, Limiter::VanLeer, Limiter::Mc] {
        // 𝒲·𝒲 = 3e-40 is subnormal in f32: the wave counts as zero; 3e-36 is not.
        assert_eq!(limited(limiter, &[1e-20f32; 3], &[1e-20; 3]), 0.0);
        assert!((limited(limiter, &[1e-18f32; 3], &[1e-18; 3]) - 1.0).abs() < 1e-6);
    }
}

#[test]
fn a_wave_too_large_to_limit_counts_as_zero() {
    // 𝒲·𝒲 above 2¹²⁶ in f32: its reciprocal would be subnormal, which the GPU's f32 reciprocal
    // flushes to zero, so the wave is left out on every side; just below, it is limited as
    // Clawpack does (θ = 1: φ = 1 for every limiter). f64 has no such bound: a wave there is
    // limited on both sides of 2¹⁰²².
    let (above32, below32) = (1.01 * 2f32.powi(63) / 3f32.sqrt(), 0.99 * 2f32.powi(63) / 3f32.sqrt());
    let (above64, below64) = (1.01 * 2f64.powi(511) / 3f64.sqrt(), 0.99 * 2f64.powi(511) / 3f64.sqrt());
    assert_eq!(kernels::claw::largest_norm2::<f32>(), 2f32.powi(126));
    assert_eq!(kernels::claw::largest_norm2::<f64>(), f64::INFINITY);
    for limiter in [Limiter::Minmod, Limiter::Superbee, Limiter::VanLeer, Limiter::Mc] {
        assert_eq!(limited(limiter, &[above32; 3], &[above32; 3]), 0.0, "{limiter:?} f32");
        assert!((limited(limiter, &[below32; 3], &[below32; 3]) - 1.0).abs() < 1e-6, "{limiter:?} f32");
        for w in [above64, below64] {
            assert!((limited(limiter, &[w; 3], &[w; 3]) - 1.0).abs() < 1e-12, "{limiter:?} f64");
        }
    }
}
