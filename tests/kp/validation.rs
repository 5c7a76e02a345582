//! The CPU reference against exact solutions and invariants.

use super::{BLOCK, depth, run};
use hydrokern::Real;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Scheme, exact, setup};

/// Lake at rest over wavy bathymetry with two dry islands: 1000 steps of each scheme keep the
/// surface flat and the water still to round-off (f64: 1e-12; f32: 1e-5 on a 1 m lake).
#[test]
fn lake_at_rest_with_islands_stays_at_rest() {
    fn check<T: Real>(scheme: Scheme, tol: f64) {
        let mut p = setup::lake_at_rest(40, 40);
        p.scheme = scheme;
        let mut m = CpuKp::<T>::new(&p, BLOCK, false).unwrap();
        for _ in 0..1000 {
            m.step(f64::INFINITY).unwrap();
        }
        let h = depth(&p, &m);
        let w = p.interior(m.state()[0]);
        let (hu, hv) = (p.interior(m.state()[1]), p.interior(m.state()[2]));
        let (mut dw, mut dq) = (0.0f64, 0.0f64);
        for c in 0..h.len() {
            if p.h[c] > 0.0 {
                dw = dw.max((w[c].to_f64() - 1.0).abs());
            } else {
                assert!(h[c] <= 1e-5, "island cell {c} got water: {}", h[c]);
            }
            dq = dq.max(hu[c].to_f64().abs()).max(hv[c].to_f64().abs());
        }
        println!(
            "lake at rest ({} {}): 1000 steps to t = {:.3} s, max |w − 1| = {dw:.2e}, max |hu|,|hv| = {dq:.2e}",
            scheme.name(),
            T::NAME,
            m.time()
        );
        assert!(dw <= tol && dq <= tol, "{} {}: |w − 1| ≤ {dw:e}, |q| ≤ {dq:e}", scheme.name(), T::NAME);
    }
    for scheme in Scheme::ALL {
        check::<f64>(scheme, 1e-12);
        check::<f32>(scheme, 1e-5);
    }
}

/// Total volume with walls is conserved to round-off (wet–dry fronts included), in every scheme.
#[test]
fn volume_conserved_with_walls() {
    for scheme in Scheme::ALL {
        for (name, mut p) in
            [("gaussian", setup::gaussian(32, 32)), ("dam-break --dry", setup::dam_break(32, 32, true))]
        {
            p.scheme = scheme;
            let v0 = p.initial_volume();
            let m = run::<f64>(&p, 1.5);
            let v = p.volume(m.state()[0], m.cell_bed());
            let rel = (v - v0).abs() / v0;
            println!("volume {name} ({}): {} steps, relative change {rel:.2e}", scheme.name(), m.steps());
            assert!(rel < 1e-13, "{name} {}: volume {v} vs {v0}", scheme.name());
        }
    }
}

/// No step leaves a negative depth, on a flat bed and on a sloping one, Euler and RK2.
#[test]
fn depth_never_negative() {
    let mut sloped = setup::flood(40, 40);
    sloped.set_bed(|x, y| 0.05 * x + 0.5 * (0.2 * y).sin());
    sloped.set_depth(|x, y| if (x - 50.0).powi(2) + (y - 50.0).powi(2) < 6.5f64.powi(2) { 10.0 } else { 0.0 });
    let mut euler = setup::dam_break(32, 32, true);
    euler.scheme = Scheme::Euler;
    for (name, p) in [("flood", setup::flood(40, 40)), ("flood on a slope", sloped), ("dam-break --dry (Euler)", euler)]
    {
        let mut m = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
        let mut min_h = f64::INFINITY;
        while m.time() < 2.0 {
            m.step(2.0).unwrap();
            min_h = min_h.min(depth(&p, &m).into_iter().fold(f64::INFINITY, f64::min));
            assert!(min_h >= 0.0, "{name}: negative depth {min_h} at step {}", m.steps());
        }
        println!("{name}: {} steps, min depth {min_h:e}", m.steps());
    }
}

/// L1 error of h against the exact 1D dam break at t = 4 s, for nx cells over 100 m.
fn dam_break_error(nx: usize, hl: f64, hr: f64, scheme: Scheme) -> f64 {
    let mut p = setup::dam_break_strip(nx, hl, hr);
    p.scheme = scheme;
    let t = 4.0;
    let m = run::<f64>(&p, t);
    let h = depth(&p, &m);
    let j = 1; // any row: the strip is uniform in y
    (0..nx)
        .map(|i| {
            let (x, _) = p.centre(i, j);
            (h[j * nx + i] - exact::dam_break(p.g, hl, hr, 50.0, x, t).0).abs() * p.dx
        })
        .sum()
}

pub fn convergence(name: &str, hl: f64, hr: f64, scheme: Scheme) {
    let ns = [50, 100, 200, 400];
    let errs: Vec<f64> = ns.iter().map(|&n| dam_break_error(n, hl, hr, scheme)).collect();
    let errs_txt: Vec<String> = errs.iter().map(|e| format!("{e:.3e}")).collect();
    let orders: Vec<f64> = errs.windows(2).map(|e| (e[0] / e[1]).log2()).collect();
    println!("{name} ({scheme:?}): L1 errors {errs_txt:?} for nx = {ns:?}; observed orders {orders:.2?}");
    for (k, e) in errs.windows(2).enumerate() {
        assert!(e[1] < e[0], "{name}: error does not decrease from nx = {} to {}", ns[k], ns[k + 1]);
    }
    assert!(orders.iter().sum::<f64>() / orders.len() as f64 > 0.6, "{name}: mean order {orders:?}");
}

#[test]
fn ritter_dry_dam_break_converges() {
    convergence("Ritter (dry bed)", 1.0, 0.0, Scheme::Rk2);
}

#[test]
fn stoker_wet_dam_break_converges() {
    convergence("Stoker (wet bed)", 1.0, 0.2, Scheme::Rk2);
    convergence("Stoker (wet bed)", 1.0, 0.2, Scheme::Euler);
}

/// The circular dam break stays symmetric under 90° rotation (and the diagonal mirror).
#[test]
fn circular_dam_break_stays_symmetric() {
    for dry in [false, true] {
        let n = 40;
        let p = setup::dam_break(n, n, dry);
        let m = run::<f64>(&p, 1.0);
        let h = depth(&p, &m);
        let (hu, hv) = (p.interior(m.state()[1]), p.interior(m.state()[2]));
        let scale = h.iter().fold(0.0f64, |a, b| a.max(*b));
        let mut worst = 0.0f64;
        for j in 0..n {
            for i in 0..n {
                // Rotation by 90°: (i, j) → (n−1−j, i), velocity (u, v) → (−v, u).
                let (a, b) = (j * n + i, i * n + (n - 1 - j));
                worst = worst.max((h[a] - h[b]).abs() / scale);
                worst = worst.max((hu[b] + hv[a]).abs() / scale).max((hv[b] - hu[a]).abs() / scale);
            }
        }
        println!(
            "circular dam break (dry = {dry}): {} steps, max rotation asymmetry {worst:.2e} (relative)",
            m.steps()
        );
        assert!(worst < 1e-12, "asymmetry {worst}");
    }
}
