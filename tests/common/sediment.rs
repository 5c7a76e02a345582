//! The sediment suites' shared harnesses, for every precision of the CPU reference: fluxes in
//! `T`, h in `H` (`T`, or f64 under f32 in mixed precision). The heat mode's exact decay, the
//! volume a run keeps or gains, and a long run's mass balance.

use hydrokern::Real;
use hydrokern::field::Field2;
use hydrokern::sediment::Problem;
use hydrokern::sediment::cpu::{self, CpuSediment};
use kernels::Level;
use std::f64::consts::PI;
use std::time::Instant;

/// The error of a cosine mode of the heat equation after `t_end` on an n×4 strip with s ≡ 1
/// (α/C_s = 0.8, β = 1): `p` (n×4, spacing and fields set here) stepped by the h update alone,
/// against exp(−0.8 π² t) cos(π x) on the interior row.
pub fn heat_error<T: Real, H: Level<T>>(mut p: Problem, t_end: f64) -> f64 {
    let n = p.nx;
    let dx = 1.0 / n as f64;
    (p.dx, p.dy) = (dx, dx);
    let d = 0.8; // α / C_s
    let pp = p.pitch();
    for c in 0..6 * pp {
        let x = ((c % pp) as f64 - 0.5) * dx;
        p.h[c] = (PI * x).cos();
        (p.s[c], p.alpha[c], p.beta[c]) = (1.0, d * p.cs, 1.0);
    }
    let steps = (t_end / (0.2 * dx * dx / d)).ceil() as usize;
    let dt = t_end / steps as f64;
    let k = p.coeffs::<T>(dt, 1);
    let (mut h, mut hn): (Field2<H>, Field2<H>) = (p.h.convert(), p.h.convert());
    let [mut s, mut al, mut be]: [Field2<T>; 3] = [&p.s, &p.alpha, &p.beta].map(|f| f.convert());
    cpu::apply_ghosts(&k, &mut h, &mut s, &mut al, &mut be);
    for _ in 0..steps {
        cpu::h_step(&k, &h, &s, &al, &be, &mut hn, None);
        cpu::apply_ghosts(&k, &mut hn, &mut s, &mut al, &mut be);
        std::mem::swap(&mut h, &mut hn);
    }
    let decay = (-d * PI * PI * t_end).exp();
    (1..=n).map(|i| (h[2 * pp + i].to_f64() - decay * (PI * (i as f64 - 0.5) * dx).cos()).abs()).fold(0.0, f64::max)
}

/// The heat mode's errors at n = 16, 32, 64 (t = 0.05) are small and fall at second order;
/// `what` names the precision in the printed line.
pub fn heat_mode_decays_at_second_order(what: &str, error: impl Fn(usize) -> f64) {
    let errs: Vec<f64> = [16, 32, 64].iter().map(|&n| error(n)).collect();
    println!("{what}: cosine-mode errors at n = 16, 32, 64: {errs:?}");
    assert!(errs[0] < 5e-3, "{errs:?}");
    for w in errs.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!(order > 1.8, "observed order {order:.2} ({errs:?})");
    }
}

/// `steps` CPU steps of `p`: a closed basin keeps its volume to 1e-13 of Σ|h|ΔxΔy, a basin
/// with inflow gains the supplied volume to 1e-10 of it.
pub fn conserves<T: Real, H: Level<T>>(p: &Problem, dt: f64, steps: usize) {
    let v0 = p.volume(&p.h);
    let mut m = CpuSediment::<T, H>::new(p, dt).unwrap();
    for _ in 0..steps {
        m.step();
    }
    let gained = p.volume(m.h()) - v0;
    let supplied = p.supply_rate() * dt * steps as f64;
    let what = format!("{} scheme, h in {}, fluxes in {}", p.scheme.name(), H::NAME, T::NAME);
    if p.supply_rate() > 0.0 {
        assert!((gained - supplied).abs() <= 1e-10 * supplied, "{what}: gained {gained}, supplied {supplied}");
    } else {
        let scale: f64 = p.h.iter().map(|v| v.abs()).sum::<f64>() * p.dx * p.dy;
        assert!(gained.abs() <= 1e-13 * scale, "{what}: volume {v0} → {}", v0 + gained);
    }
}

/// (gained − supplied) / supplied after `steps` CPU steps of `p` at the automatic Δt (the
/// volumes summed in f64, of h and its low part on the compensated path), and the seconds
/// the steps took.
pub fn mass_balance<T: Real, H: Level<T>>(p: &Problem, steps: u64) -> (f64, f64) {
    let dt = p.stability(&p.h).automatic();
    let mut m = CpuSediment::<T, H>::new(p, dt).unwrap();
    let volume = |m: &CpuSediment<T, H>| p.volume(m.h()) + m.low().map_or(0.0, |l| p.volume(l));
    let v0 = volume(&m);
    let start = Instant::now();
    for _ in 0..steps {
        m.step();
    }
    let secs = start.elapsed().as_secs_f64();
    let supplied = p.supply_rate() * dt * steps as f64;
    ((volume(&m) - v0 - supplied) / supplied, secs)
}
