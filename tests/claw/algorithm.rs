//! The CPU reference of the wave-propagation algorithm: convergence against exact solutions
//! (advection and an acoustic plane wave at an angle, second order without a limiter; the dam
//! break along x and along y), the maximum principle of the limiters, conservation, the
//! rejected and redone step, and bad set-ups.

use hydrokern::claw::cpu::{Claw2, Setup};
use hydrokern::claw::{Acoustics2d, Advection, Cfl, Limiter, Riemann, ShallowHlle, ShallowRoe, Splitting};
use kernels::halo::{EXTRAPOLATE, PERIODIC, WALL};
use std::f64::consts::TAU;

const G: f64 = 9.81;

fn setup(nx: usize, ny: usize, lx: f64, ly: f64, bc: [u32; 4], limiter: Limiter, splitting: Splitting) -> Setup {
    Setup { nx, ny, dx: lx / nx as f64, dy: ly / ny as f64, bc, limiter, splitting, cfl: Cfl::default() }
}

/// The mean of sin(2π(kx·x + ky·y) + φ) over the cell [x0, x0 + dx] × [y0, y0 + dy], exactly.
fn sine_mean(kx: f64, ky: f64, phase: f64, x0: f64, y0: f64, dx: f64, dy: f64) -> f64 {
    let sinc = |a: f64| if a == 0.0 { 1.0 } else { a.sin() / a };
    let (xc, yc) = (x0 + 0.5 * dx, y0 + 0.5 * dy);
    (TAU * (kx * xc + ky * yc) + phase).sin() * sinc(TAU * kx * dx / 2.0) * sinc(TAU * ky * dy / 2.0)
}

/// Errors as text, three digits each.
pub(crate) fn sci(v: &[f64]) -> String {
    v.iter().map(|e| format!("{e:.3e}")).collect::<Vec<_>>().join(", ")
}

/// log₂ of successive error ratios.
pub(crate) fn orders(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect()
}

/// Advection of sin(2π(x + y)) at velocity (1, 0.5) on the periodic unit square to t = 0.5: the
/// L1 error against the exact cell means, and the extremes the run reached.
fn advection(n: usize, limiter: Limiter) -> (f64, f64, f64) {
    let s = setup(n, n, 1.0, 1.0, [PERIODIC; 4], limiter, Splitting::Godunov);
    let (dx, dy) = (s.dx, s.dy);
    let at = |t: f64| -> Vec<[f64; 1]> {
        (0..n * n)
            .map(|c| {
                let (i, j) = ((c % n) as f64, (c / n) as f64);
                [sine_mean(1.0, 1.0, -TAU * 1.5 * t, i * dx, j * dy, dx, dy)]
            })
            .collect()
    };
    let solver = Advection { velocity: [1.0, 0.5, 0.0] };
    let mut run = Claw2::new(solver, s, &at(0.0), &vec![[]; n * n]).unwrap();
    run.advance_to(0.5).unwrap();
    let got = run.state();
    let l1 = got.iter().zip(at(0.5)).map(|(a, b)| (a[0] - b[0]).abs()).sum::<f64>() * dx * dy;
    let max = got.iter().map(|q| q[0]).fold(f64::MIN, f64::max);
    let min = got.iter().map(|q| q[0]).fold(f64::MAX, f64::min);
    (l1, min, max)
}

#[test]
fn advection_converges_at_second_order_and_limiters_keep_the_extremes() {
    let none: Vec<f64> = [32, 64, 128].iter().map(|&n| advection(n, Limiter::None).0).collect();
    let o = orders(&none);
    println!("advection, no limiter: L1 [{}], orders {o:.2?}", sci(&none));
    assert!(o.iter().all(|&o| o >= 1.8), "orders {o:?}");
    for limiter in [Limiter::Minmod, Limiter::Superbee, Limiter::VanLeer, Limiter::Mc] {
        let runs: Vec<(f64, f64, f64)> = [32, 64, 128].iter().map(|&n| advection(n, limiter)).collect();
        let e: Vec<f64> = runs.iter().map(|r| r.0).collect();
        let o = orders(&e);
        println!("advection, {}: L1 [{}], orders {o:.2?}", limiter.name(), sci(&e));
        // The exact cell means stay within ±1; a limited sweep makes no new extrema.
        for &(_, min, max) in &runs {
            assert!(min >= -1.0 - 1e-12 && max <= 1.0 + 1e-12, "{}: range [{min}, {max}]", limiter.name());
        }
        // Limited waves lose accuracy at the extrema; still converging.
        assert!(o[1] >= 1.0, "{}: orders {o:?}", limiter.name());
    }
}

/// An acoustic plane wave along (1, 1) on the periodic unit square (ρ = 1, K = 4, c = 2) to
/// t = 0.25: the L1 error of p against the exact cell means.
fn plane_wave(n: usize, splitting: Splitting) -> f64 {
    let s = setup(n, n, 1.0, 1.0, [PERIODIC; 4], Limiter::None, splitting);
    let (dx, dy) = (s.dx, s.dy);
    let (rho, bulk) = (1.0, 4.0);
    let c = f64::sqrt(bulk / rho);
    let z = rho * c;
    let k = f64::sqrt(2.0);
    let at = |t: f64| -> Vec<[f64; 3]> {
        (0..n * n)
            .map(|q| {
                let (i, j) = ((q % n) as f64, (q / n) as f64);
                let p = sine_mean(1.0, 1.0, -TAU * k * c * t, i * dx, j * dy, dx, dy);
                [p, p / z / k, p / z / k]
            })
            .collect()
    };
    let mut run = Claw2::new(Acoustics2d, s, &at(0.0), &vec![[rho, bulk]; n * n]).unwrap();
    run.advance_to(0.25).unwrap();
    run.state().iter().zip(at(0.25)).map(|(a, b)| (a[0] - b[0]).abs()).sum::<f64>() * dx * dy
}

#[test]
fn acoustic_plane_wave_at_an_angle_converges_at_second_order() {
    let strang: Vec<f64> = [32, 64, 128].iter().map(|&n| plane_wave(n, Splitting::Strang)).collect();
    let godunov: Vec<f64> = [32, 64, 128].iter().map(|&n| plane_wave(n, Splitting::Godunov)).collect();
    let (os, og) = (orders(&strang), orders(&godunov));
    println!(
        "plane wave: Strang L1 [{}] orders {os:.2?}; Godunov L1 [{}] orders {og:.2?}",
        sci(&strang),
        sci(&godunov)
    );
    assert!(os.iter().all(|&o| o >= 1.8), "Strang orders {os:?}");
}

/// Stoker's dam break, h 1 → 0.1 m at rest: depth at x/t = ξ.
fn stoker(xi: f64) -> f64 {
    let (hl, hr) = (1.0f64, 0.1f64);
    let (cl, cr) = ((G * hl).sqrt(), (G * hr).sqrt());
    // The middle state's celerity c_m: u_m = 2(c_l − c_m) from the rarefaction must equal the
    // shock's u_m = (h_m − h_r)·√(g(h_m + h_r)/(2 h_m h_r)); bisection in c_m.
    let mismatch = |cm: f64| {
        let hm = cm * cm / G;
        2.0 * (cl - cm) - (hm - hr) * (G * (hm + hr) / (2.0 * hm * hr)).sqrt()
    };
    let (mut lo, mut hi) = (cr, cl);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mismatch(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    let cm = 0.5 * (lo + hi);
    let (hm, um) = (cm * cm / G, 2.0 * (cl - cm));
    let shock = hm * um / (hm - hr);
    if xi <= -cl {
        hl
    } else if xi <= um - cm {
        (2.0 * cl - xi).powi(2) / (9.0 * G)
    } else if xi < shock {
        hm
    } else {
        hr
    }
}

/// The dam break on [−1, 1] along axis `dir` (three cells across, walls there) to t = 0.15: L1
/// of h against the exact profile's cell means, and h in the cell just right of the dam.
fn dam_break<R: Riemann<f64, 3, W, 0>, const W: usize>(solver: R, n: usize, dir: usize) -> (f64, f64) {
    let (nx, ny) = if dir == 0 { (n, 3) } else { (3, n) };
    let (lx, ly) = if dir == 0 { (2.0, 3.0 * 2.0 / n as f64) } else { (3.0 * 2.0 / n as f64, 2.0) };
    let bc = if dir == 0 { [EXTRAPOLATE, EXTRAPOLATE, WALL, WALL] } else { [WALL, WALL, EXTRAPOLATE, EXTRAPOLATE] };
    let s = setup(nx, ny, lx, ly, bc, Limiter::Mc, Splitting::Godunov);
    let dx = 2.0 / n as f64;
    let along = |c: usize| if dir == 0 { c % nx } else { c / nx };
    let q: Vec<[f64; 3]> = (0..nx * ny).map(|c| [if along(c) < n / 2 { 1.0 } else { 0.1 }, 0.0, 0.0]).collect();
    let mut run = Claw2::new(solver, s, &q, &vec![[]; nx * ny]).unwrap();
    let t = 0.15;
    run.advance_to(t).unwrap();
    let h = run.state();
    let (mut l1, mut at_dam) = (0.0, 0.0);
    for (c, hc) in h.iter().enumerate() {
        let i = along(c);
        let x0 = -1.0 + i as f64 * dx;
        let exact = (0..16).map(|k| stoker((x0 + (k as f64 + 0.5) * dx / 16.0) / t)).sum::<f64>() / 16.0;
        l1 += (hc[0] - exact).abs() * dx / 3.0;
        if i == n / 2 {
            at_dam = hc[0];
        }
    }
    (l1, at_dam)
}

#[test]
fn dam_break_converges_along_both_axes_with_both_shallow_water_solvers() {
    // The fan is transonic: h at the dam tends to the sonic depth 4/9 h_l.
    for dir in 0..2 {
        let roe: Vec<(f64, f64)> = [50, 100, 200].iter().map(|&n| dam_break(ShallowRoe { g: G }, n, dir)).collect();
        let hlle: Vec<(f64, f64)> =
            [50, 100, 200].iter().map(|&n| dam_break(ShallowHlle { g: G, dry: 0.0 }, n, dir)).collect();
        for (name, runs) in [("roe", &roe), ("hlle", &hlle)] {
            let e: Vec<f64> = runs.iter().map(|r| r.0).collect();
            println!(
                "dam break along {dir}, {name}: L1 [{}], h at the dam {:.4?} (sonic 0.4444)",
                sci(&e),
                runs.iter().map(|r| r.1).collect::<Vec<_>>()
            );
            assert!(e[0] > 1.5 * e[1] && e[1] > 1.5 * e[2], "{name} along {dir}: L1 {e:?}");
            assert!((runs[2].1 - 4.0 / 9.0).abs() < 0.02, "{name} along {dir}: h at the dam {}", runs[2].1);
        }
    }
}

/// A hump of water in a box: walls keep the volume to round-off; a periodic box also keeps
/// both momenta.
#[test]
fn shallow_water_conserves_mass_and_momentum() {
    for bc in [[WALL; 4], [PERIODIC; 4]] {
        let n = 40;
        let s = setup(n, n, 4.0, 4.0, bc, Limiter::Mc, Splitting::Godunov);
        let q: Vec<[f64; 3]> = (0..n * n)
            .map(|c| {
                let (x, y) = ((c % n) as f64 * 0.1 - 1.7, (c / n) as f64 * 0.1 - 2.2);
                [1.0 + 0.5 * (-(x * x + y * y) * 3.0).exp(), 0.3, -0.2]
            })
            .collect();
        let total = |q: &[[f64; 3]], m: usize| q.iter().map(|c| c[m]).sum::<f64>();
        let mut run = Claw2::new(ShallowHlle { g: G, dry: 0.0 }, s, &q, &vec![[]; n * n]).unwrap();
        run.advance_to(0.5).unwrap();
        let got = run.state();
        let dm = (total(&got, 0) - total(&q, 0)).abs() / total(&q, 0);
        assert!(dm < 1e-13, "mass changed by {dm:e}");
        if bc[0] == PERIODIC {
            for m in 1..3 {
                let dp = (total(&got, m) - total(&q, m)).abs() / total(&q, 0);
                assert!(dp < 1e-13, "momentum {m} changed by {dp:e}");
            }
        }
        assert!(run.steps() > 10);
    }
}

/// A step whose CFL number exceeds the maximum is rejected, and the redone step is exactly a
/// step taken with the smaller Δt from the start. First forced (a Δt twice too large), then as
/// it happens in a dam break whose speeds grow after the first steps.
#[test]
fn rejected_steps_are_redone_with_the_smaller_step() {
    let n = 60;
    let s = setup(n, 3, 2.0, 0.1, [EXTRAPOLATE, EXTRAPOLATE, WALL, WALL], Limiter::Superbee, Splitting::Godunov);
    let q: Vec<[f64; 3]> = (0..n * 3).map(|c| [if c % n < n / 2 { 2.0 } else { 0.05 }, 0.0, 0.0]).collect();
    let fresh = || Claw2::new(ShallowRoe { g: G }, s, &q, &vec![[]; n * 3]).unwrap();
    let mut run = fresh();
    run.set_next_dt(2.0 * run.next_dt() / 0.9);
    let step = run.step(1.0).unwrap();
    assert_eq!(step.rejected, 1, "{step:?}");
    assert!(step.cfl <= 1.0 && (step.cfl - 0.9).abs() < 0.05, "{step:?}");
    let (want, _) = fresh().trial(step.dt);
    let mut again = fresh();
    again.set_padded(want);
    assert_eq!(run.state(), again.state());
    // Natural rejections: the speeds of the dam break grow as the water accelerates.
    let mut run = fresh();
    let mut natural = 0;
    while run.time() < 0.2 {
        let before = run.state();
        let mut probe = fresh();
        probe.set_padded(padded(&before, n, 3));
        probe.set_next_dt(run.next_dt());
        let step = run.step(0.2).unwrap();
        if step.rejected > 0 {
            natural += 1;
            let (want, _) = probe.trial(step.dt);
            probe.set_padded(want);
            assert_eq!(run.state(), probe.state(), "step {}", run.steps());
        }
    }
    println!("dam break to t = 0.2 s: {} steps, {natural} with rejections", run.steps());
    assert!(natural > 0, "no step was rejected: the test would not tell");
}

/// An interior state padded with (unused) zero ghosts.
fn padded(q: &[[f64; 3]], nx: usize, ny: usize) -> Vec<[f64; 3]> {
    let l = kernels::grid::Layout2::new(nx as u32, ny as u32, 2);
    let mut out = vec![[0.0; 3]; l.len()];
    for j in 0..ny {
        for i in 0..nx {
            out[l.at(i as i32, j as i32)] = q[j * nx + i];
        }
    }
    out
}

#[test]
fn bad_setups_are_refused_with_one_line() {
    let ok = setup(4, 4, 1.0, 1.0, [WALL; 4], Limiter::Mc, Splitting::Godunov);
    let q = vec![[1.0, 0.0, 0.0]; 16];
    let try_with = |s: Setup, q: &[[f64; 3]]| match Claw2::new(ShallowRoe { g: G }, s, q, &vec![[]; q.len()]) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    };
    assert_eq!(try_with(ok, &q), "");
    let mut s = ok;
    s.cfl = Cfl { desired: 0.9, max: 1.2 };
    assert!(try_with(s, &q).contains("CFL"));
    let mut s = ok;
    s.bc = [PERIODIC, WALL, WALL, WALL];
    assert!(try_with(s, &q).contains("periodic"));
    let mut s = ok;
    s.nx = 0;
    assert!(try_with(s, &q).contains("grid"));
    let mut bad = q.clone();
    bad[6] = [-1.0, 0.0, 0.0];
    let e = try_with(ok, &bad);
    assert!(e.contains("cell (2, 1)") && e.contains("negative"), "{e}");
    assert!(try_with(ok, &q[..15]).contains("15 states"));
}
