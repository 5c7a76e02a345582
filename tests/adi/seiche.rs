//! The first seiche mode of a closed flat basin, ζ = a cos(πx/L) cos(ωt), ω = π√(gd)/L,
//! period T = 2L/√(gd), at small amplitude without friction or convection.
//!
//! Along a line with the other flux at rest the scheme is the Crank–Nicolson (trapezoidal) rule
//! for the staggered linear system (docs/adi.md), whose mode turns by
//! θ = 2 atan(Cr·sin(kΔx/2)) a step (Cr = √(gd)Δt/Δx, k = π/L): the tests check the measured
//! period against that discrete relation (tight) and against the exact one (the phase error).

use super::model;
use hydrokern::Real;
use hydrokern::adi::cpu::Adi;
use hydrokern::adi::{G, Setup};
use std::f64::consts::PI;

const L: f64 = 1000.0;
const D: f64 = 10.0;
/// Amplitude: 1e-4 of the depth, so the depth's variation (the only nonlinearity left) moves the
/// period by ~1e-8.
const A: f64 = 1e-3;

fn speed() -> f64 {
    (G * D).sqrt()
}

/// Exact period 2L/√(gd).
fn period() -> f64 {
    2.0 * L / speed()
}

/// A basin of `n` cells along x (or y), 2 across, with the first mode at Courant number `cr`.
fn basin(n: usize, cr: f64, along_y: bool) -> Setup {
    let dx = L / n as f64;
    let dt = cr * dx / speed();
    let (nx, ny) = if along_y { (2, n) } else { (n, 2) };
    let mut s = Setup::basin(nx, ny, dx, dx, dt, D);
    for k in 0..ny {
        for j in 0..nx {
            let i = if along_y { k } else { j };
            s.zeta[k * nx + j] = A * (PI * (i as f64 + 0.5) / n as f64).cos();
        }
    }
    s
}

/// ζ of the first cell along the line.
fn probe<T: Real>(m: &Adi<T>) -> f64 {
    m.zeta[0].to_f64()
}

/// Period from the zero crossings of the first cell's ζ over `periods` periods (linear
/// interpolation between steps), and the largest |ζ| seen at the probe.
fn measure<T: Real>(s: &Setup, periods: f64) -> (f64, f64) {
    let mut m = model::<T>(s);
    let steps = (periods * period() / s.dt).ceil() as usize;
    let mut crossings = Vec::new();
    let mut peak: f64 = 0.0;
    let mut prev = probe(&m);
    for n in 0..steps {
        m.step().unwrap();
        let z = probe(&m);
        peak = peak.max(z.abs());
        if (prev > 0.0) != (z > 0.0) {
            crossings.push(s.dt * (n as f64 + prev / (prev - z)));
        }
        prev = z;
    }
    assert!(crossings.len() >= 3, "too few zero crossings: {crossings:?}");
    let half = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    (2.0 * half, peak)
}

/// The Crank–Nicolson period of the mode on n cells at Courant number cr.
fn discrete_period(n: usize, cr: f64) -> f64 {
    let dt = cr * L / n as f64 / speed();
    let theta = 2.0 * (cr * (PI / n as f64 / 2.0).sin()).atan();
    2.0 * PI / theta * dt
}

#[test]
fn period_and_amplitude_at_small_courant_number() {
    for along_y in [false, true] {
        let s = basin(50, 0.5, along_y);
        let (t, peak) = measure::<f64>(&s, 5.0);
        let exact = period();
        let discrete = discrete_period(50, 0.5);
        eprintln!(
            "seiche n = 50, Cr = 0.5, along y {along_y}: T = {t:.6} s, exact {exact:.6} s ({:+.2e}), CN {discrete:.6} s ({:+.2e}), peak {peak:.6e}",
            t / exact - 1.0,
            t / discrete - 1.0
        );
        assert!((t / discrete - 1.0).abs() < 1e-5, "period {t} against the discrete {discrete}");
        assert!((t / exact - 1.0).abs() < 5e-4, "period {t} against the exact {exact}");
        // The trapezoidal rule neither damps nor amplifies: the probe's peak stays at its
        // amplitude A cos(πΔx/2L) (sampled at steps 1/200 of a period apart, within
        // 1 − cos(π/200) = 1.2e-4 of it).
        let amp = A * (PI / 100.0).cos();
        assert!(peak <= amp * (1.0 + 1e-6) && peak >= amp * (1.0 - 2e-4), "peak {peak} against {amp}");
    }
}

#[test]
fn period_in_f32() {
    let s = basin(50, 0.5, false);
    let (t, peak) = measure::<f32>(&s, 3.0);
    let discrete = discrete_period(50, 0.5);
    eprintln!("seiche f32: T = {t:.5} s, CN {discrete:.5} s ({:+.2e}), peak {peak:.4e}", t / discrete - 1.0);
    assert!((t / discrete - 1.0).abs() < 1e-3);
    let amp = A * (PI / 100.0).cos();
    assert!(peak <= amp * (1.0 + 1e-5) && peak >= amp * (1.0 - 5e-4), "peak {peak} against {amp}");
}

/// Error at t = 5T/4 (where the exact ζ is zero: all of it is phase) at three resolutions,
/// refined in space and time together (Cr = 1): the order is 2.
#[test]
fn second_order_in_space_and_time() {
    let mut errors = Vec::new();
    for n in [16usize, 32, 64] {
        // Δt = T/(2n): Cr = 2L/(2n Δx)·… = 1, and 5T/4 is 5n/2 steps.
        let s = basin(n, 1.0, false);
        assert!((s.dt - period() / (2 * n) as f64).abs() < 1e-12 * s.dt);
        let mut m = model::<f64>(&s);
        let steps = 5 * n / 2;
        m.run(steps).unwrap();
        let t = steps as f64 * s.dt;
        let w = PI * speed() / L;
        let e = (0..n)
            .map(|j| (m.zeta[j] - A * (PI * (j as f64 + 0.5) / n as f64).cos() * (w * t).cos()).abs())
            .fold(0.0, f64::max)
            / A;
        errors.push(e);
    }
    let orders: Vec<f64> = errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect();
    eprintln!("seiche convergence n = 16, 32, 64 at Cr = 1: errors {errors:.3?}, orders {orders:.3?}");
    for o in &orders {
        assert!((1.9..2.1).contains(o), "order {o}");
    }
}

/// ADI's reason to exist: at Courant numbers 2, 4 and 8 the scheme stays stable and keeps the
/// amplitude; its phase error is the trapezoidal rule's, (ωΔt)²/12 to leading order.
#[test]
fn large_courant_numbers_stay_stable() {
    let n = 50;
    for cr in [2.0, 4.0, 8.0] {
        let s = basin(n, cr, false);
        let (t, peak) = measure::<f64>(&s, 6.0);
        let discrete = discrete_period(n, cr);
        let exact = period();
        eprintln!(
            "seiche n = {n}, Cr = {cr}: T = {t:.4} s, exact {exact:.4} s, phase error {:+.3}% a period (CN predicts {:+.3}%), peak {:.5}·A",
            100.0 * (t / exact - 1.0),
            100.0 * (discrete / exact - 1.0),
            peak / A
        );
        assert!((t / discrete - 1.0).abs() < 1e-3, "Cr {cr}: period {t} against the discrete {discrete}");
        // Sampled peaks lie within cos(θ/2) of A; nothing grows.
        assert!(peak <= A * (1.0 + 1e-6) && peak > 0.9 * A, "Cr {cr}: peak {peak}");
    }
}
