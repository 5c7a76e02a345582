//! Invariants: mass conserved to round-off in closed basins (with every term on, and with
//! drying), no negative depths, a lake at rest stays at rest over uneven bathymetry.

use super::model;
use hydrokern::Real;
use hydrokern::adi::cpu::Adi;
use hydrokern::adi::{Friction, Setup, Wind};

/// Uneven bed: a smooth bump and a trench, depths from `base − 3` to `base + 3`.
fn bed(s: &mut Setup, base: f64) {
    for k in 0..s.ny {
        for j in 0..s.nx {
            let (x, y) = (j as f64 / s.nx as f64, k as f64 / s.ny as f64);
            s.depth[k * s.nx + j] = base - 3.0 * (-30.0 * ((x - 0.3).powi(2) + (y - 0.6).powi(2))).exp()
                + 2.5 * (6.0 * x).sin() * (3.0 * y).cos();
        }
    }
}

/// A hump of height `a` in the middle.
fn hump(s: &mut Setup, a: f64) {
    for k in 0..s.ny {
        for j in 0..s.nx {
            let (x, y) = (j as f64 / s.nx as f64 - 0.5, k as f64 / s.ny as f64 - 0.5);
            s.zeta[k * s.nx + j] = a * (-40.0 * (x * x + y * y)).exp();
        }
    }
}

/// Every term on: Manning friction, wind, Coriolis, convection, eddy viscosity.
fn busy(nx: usize, ny: usize, base: f64) -> Setup {
    let mut s = Setup::basin(nx, ny, 50.0, 40.0, 20.0, base);
    bed(&mut s, base);
    hump(&mut s, 0.5);
    s.friction = Friction::Manning(0.03);
    s.wind = Wind { speed: 15.0, direction: 0.6 };
    s.coriolis = 1.2e-4;
    s.convection = true;
    s.eddy = 2.0;
    s
}

/// Largest |ΔV| over the steps, relative to Σ|ζ⁰|·ΔxΔy, and the smallest total depth seen.
fn drift<T: Real>(s: &Setup, steps: usize) -> (f64, f64, Adi<T>) {
    let mut m = model::<T>(s);
    let scale: f64 = m.zeta.iter().map(|z| z.to_f64().abs()).sum::<f64>() * s.dx * s.dy;
    let v0 = m.volume();
    let (mut worst, mut hmin) = (0.0f64, f64::INFINITY);
    for _ in 0..steps {
        m.step().unwrap();
        worst = worst.max((m.volume() - v0).abs() / scale);
        hmin = hmin.min(m.d.iter().zip(&m.zeta).map(|(d, z)| (*d + *z).to_f64()).fold(f64::INFINITY, f64::min));
    }
    (worst, hmin, m)
}

#[test]
fn mass_is_conserved_in_a_closed_basin() {
    let s = busy(23, 17, 8.0);
    let (e64, h64, m) = drift::<f64>(&s, 60);
    let (e32, h32, _) = drift::<f32>(&s, 60);
    let moving = m.p.iter().chain(&m.q).fold(0.0f64, |a, v| a.max(v.abs()));
    eprintln!(
        "closed basin, every term on, 60 steps: |ΔV|/Σ|ζ⁰| f64 {e64:.2e}, f32 {e32:.2e}; min depth {h64:.3} / {h32:.3} m; max |flux| {moving:.3} m²/s"
    );
    assert!(moving > 0.05, "the test must move water");
    assert!(e64 < 1e-13, "f64 drift {e64}");
    // f32: each step rounds every ζ (~ 6e-8 of it); the sum of 391 cells over 60 steps.
    assert!(e32 < 2e-5, "f32 drift {e32}");
    assert!(h64 > 0.0 && h32 > 0.0);
}

#[test]
fn mass_is_conserved_with_drying_and_depths_stay_positive() {
    // A basin whose bed rises above the still-water level on one side (a beach from depth 4 m
    // to 1.5 m above it), a hump that runs up the beach.
    let (nx, ny) = (40, 9);
    let mut s = Setup::basin(nx, ny, 25.0, 25.0, 5.0, 4.0);
    for k in 0..ny {
        for j in 0..nx {
            let i = k * nx + j;
            s.depth[i] = 4.0 - 5.5 * j as f64 / (nx - 1) as f64;
            // Dry cells start with ζ on their bed (h = 0).
            s.zeta[i] = (-s.depth[i]).max(0.0) + 1.0 * (-((j as f64 - 8.0) / 4.0).powi(2)).exp();
        }
    }
    s.friction = Friction::Manning(0.025);
    s.drying = Some((0.2, 0.3));
    let wet0 = Adi::<f64>::new(&s).unwrap().wet.iter().filter(|w| **w).count();
    let (e64, h64, m) = drift::<f64>(&s, 200);
    let (e32, h32, _) = drift::<f32>(&s, 200);
    let wet = m.wet.iter().filter(|w| **w).count();
    eprintln!(
        "beach with drying, 200 steps: |ΔV|/Σ|ζ⁰| f64 {e64:.2e}, f32 {e32:.2e}; min depth {h64:.4} / {h32:.4} m; wet cells {wet0} → {wet}"
    );
    assert!(e64 < 1e-13, "f64 drift {e64}");
    assert!(e32 < 2e-5, "f32 drift {e32}");
    assert!(h64 >= 0.0 && h32 >= 0.0, "negative depth: {h64} / {h32}");
    assert!(wet > wet0, "the run-up must flood cells: {wet0} → {wet}");
}

#[test]
fn lake_at_rest_stays_at_rest() {
    let mut s = busy(19, 13, 8.0);
    s.wind.speed = 0.0;
    s.zeta.iter_mut().for_each(|z| *z = 0.3);
    for steps in [1, 40] {
        let mut m = model::<f64>(&s);
        m.run(steps).unwrap();
        let dz = m.zeta.iter().fold(0.0f64, |a, z| a.max((z - 0.3).abs()));
        let f = m.p.iter().chain(&m.q).fold(0.0f64, |a, v| a.max(v.abs()));
        eprintln!("lake at rest, uneven bed, {steps} steps: max |ζ − 0.3| {dz:.1e}, max |flux| {f:.1e}");
        assert!(dz < 1e-14 && f < 1e-12, "{dz} {f}");
        let mut m = model::<f32>(&s);
        m.run(steps).unwrap();
        let dz = m.zeta.iter().fold(0.0f32, |a, z| a.max((z - 0.3).abs()));
        assert!(dz < 1e-6, "f32 {dz}");
    }
}

/// The reference is one generic code: f32 follows f64 on the busy basin (every term on), to
/// f32's round-off grown over the steps.
#[test]
fn f32_follows_f64() {
    let s = busy(23, 17, 8.0);
    let (mut a, mut b) = (model::<f64>(&s), model::<f32>(&s));
    a.run(30).unwrap();
    b.run(30).unwrap();
    let scale = a.zeta.iter().fold(0.0f64, |m, z| m.max(z.abs()));
    let worst = a.zeta.iter().zip(&b.zeta).fold(0.0f64, |m, (x, y)| m.max((x - *y as f64).abs()));
    eprintln!("f32 against f64, busy basin, 30 steps: max |Δζ| {worst:.2e} of max |ζ| {scale:.3}");
    // Seen: 1.3e-6 of max |ζ| (f32's 6e-8 a rounding over 30 steps); 1e-5 leaves a margin of ~8.
    assert!(worst < 1e-5 * scale, "{worst} against {scale}");
}
