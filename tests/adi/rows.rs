//! The row providers (`kernels::adi`) against rows written out plainly from the discretised
//! equations of docs/adi.md, and the Manning cube root against std's.

use kernels::adi::{self, Dir, FrictionLaw, MassAt, MomentumAt, Params, Stencil};

fn params() -> Params<f64> {
    Params {
        g: 9.81,
        dt: 30.0,
        dx: 100.0,
        dy: 50.0,
        friction: 40.0,
        law: FrictionLaw::Chezy,
        convection: 1,
        coriolis: 1e-4,
        wind_x: 1e-3,
        wind_y: -2e-3,
        h_dry: 0.2,
        h_flood: 0.3,
        eddy: 5.0,
    }
}

#[test]
fn mass_row_is_the_half_step_continuity() {
    let k = params();
    let m = MassAt { zeta: 0.3, flux_lo: 1.0, flux_hi: 2.5, cross_lo: -0.5, cross_hi: 0.7 };
    for (dir, dl, dc) in [(Dir::X, 100.0, 50.0), (Dir::Y, 50.0, 100.0)] {
        let e = adi::mass_row(&k, dir, &m);
        // (ζ − ζ⁰)/(Δt/2) + ((F + F⁰)_hi − (F + F⁰)_lo)/(2Δl) + (X_hi − X_lo)/(2Δc) = 0, X a sum
        // of two levels, times Δt/2.
        let r = 30.0 / (4.0 * dl);
        assert_eq!((e.a, e.b, e.c), (-r, 1.0, r));
        let d = 0.3 - 30.0 / 2.0 * ((2.5 - 1.0) / (2.0 * dl) + (0.7 + 0.5) / (2.0 * dc));
        assert!((e.d - d).abs() < 1e-15, "{dir:?}: {} against {d}", e.d);
    }
}

#[test]
fn momentum_row_is_the_full_step_momentum() {
    let mut k = params();
    let m = MomentumAt { flux: 0.8, cross: -0.4, zeta_lo: 0.1, zeta_hi: 0.3, d_lo: 4.0, d_hi: 6.0, explicit: 2e-4 };
    for law in [FrictionLaw::None, FrictionLaw::Chezy, FrictionLaw::Manning] {
        k.law = law;
        k.friction = if law == FrictionLaw::Manning { 0.025 } else { 40.0 };
        for (dir, dl, sign, wind) in [(Dir::X, 100.0, 1.0, 1e-3), (Dir::Y, 50.0, -1.0, -2e-3)] {
            let e = adi::momentum_row(&k, dir, &m);
            let h: f64 = (4.1 + 6.3) / 2.0;
            let c2 = match law {
                FrictionLaw::None => f64::INFINITY,
                FrictionLaw::Chezy => 1600.0,
                FrictionLaw::Manning => h.powf(1.0 / 3.0) / (0.025 * 0.025),
            };
            let speed = (0.8f64 * 0.8 + 0.4 * 0.4).sqrt();
            let g_h = 30.0 * 9.81 * h / dl;
            let b = 1.0 + 30.0 * 9.81 * speed / (c2 * h * h);
            let d = 0.8 + 30.0 * (sign * 1e-4 * -0.4 + wind + 2e-4);
            assert!((e.a + g_h).abs() < 1e-12 && (e.c - g_h).abs() < 1e-12, "{law:?} {dir:?}: {e:?}");
            assert!((e.b - b).abs() < 1e-14, "{law:?} {dir:?}: b {} against {b}", e.b);
            assert!((e.d - d).abs() < 1e-14, "{law:?} {dir:?}: d {} against {d}", e.d);
        }
    }
}

#[test]
fn known_neighbours_move_to_the_right_hand_side() {
    let e = kernels::tridiag::Eq { a: -2.0, b: 3.0, c: 5.0, d: 7.0 };
    let lo = adi::known_lo(e, 0.5);
    assert_eq!((lo.a, lo.b, lo.c, lo.d), (0.0, 3.0, 5.0, 8.0));
    let hi = adi::known_hi(e, 0.5);
    assert_eq!((hi.a, hi.b, hi.c, hi.d), (-2.0, 3.0, 0.0, 4.5));
}

#[test]
fn explicit_terms_are_the_centred_differences() {
    let k = params();
    let s = Stencil {
        f: 1.0,
        f_lo: 0.8,
        f_hi: 1.3,
        f_left: 0.9,
        f_right: 1.2,
        x_left_lo: 0.1,
        x_left_hi: 0.2,
        x_right_lo: -0.1,
        x_right_hi: 0.3,
        h_lo: 4.0,
        h_hi: 5.0,
        h_left_lo: 3.0,
        h_left_hi: 3.5,
        h_right_lo: 6.0,
        h_right_hi: 5.5,
    };
    let e = adi::explicit(&k, Dir::X, &s);
    let (dl, dc) = (100.0, 50.0);
    let along = (1.15f64.powi(2) / 5.0 - 0.9f64.powi(2) / 4.0) / dl;
    let corner_r = 1.1 * 0.1 / ((4.0 + 5.0 + 6.0 + 5.5) / 4.0);
    let corner_l = 0.95 * 0.15 / ((4.0 + 5.0 + 3.0 + 3.5) / 4.0);
    let lap = (0.8 - 2.0 + 1.3) / (dl * dl) + (0.9 - 2.0 + 1.2) / (dc * dc);
    let plain = -(along + (corner_r - corner_l) / dc) + 5.0 * lap;
    assert!((e - plain).abs() < 1e-15, "{e} against {plain}");
    // A drying cell in the stencil: no convection, viscosity only.
    let dry = Stencil { h_left_lo: 0.1, ..s };
    assert!((adi::explicit(&k, Dir::X, &dry) - 5.0 * lap).abs() < 1e-15);
}

#[test]
fn wetting_rules() {
    let k = params();
    assert!(adi::wet_next(&k, true, 0.2) && !adi::wet_next(&k, true, 0.19));
    assert!(!adi::wet_next(&k, false, 0.3) && adi::wet_next(&k, false, 0.31));
    // Wet lo at level 0.5 over beds at depth 1 (lo) and 0.1 (hi, dry): 0.5 + 0.1 > 0.3, open.
    assert!(adi::face_open(&k, (true, false), (0.5, -0.1), (1.0, 0.1)));
    // The same with the dry bed above the water: 0.0 + (−0.5) < 0.3, closed.
    assert!(!adi::face_open(&k, (true, false), (0.0, 0.5), (1.0, -0.5)));
    assert!(!adi::face_open(&k, (false, false), (1.0, 1.0), (1.0, 1.0)));
}
