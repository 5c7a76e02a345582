//! The bounded sediment scheme (docs/sediment-bounded.md): its point function against the
//! formula written out, 0 ≤ s ≤ 1 with exact h-mass over random problems at its Δt limit (CPU
//! and GPU), the `seed` scheme's overshoot on the same problems, and the convergence orders.

use crate::common::{cases, gpu};
use hydrokern::field::Field2;
use hydrokern::grid::Layout2;
use hydrokern::sediment::cpu::{self, CpuSediment};
use hydrokern::sediment::gpu::{GpuSediment, Launch};
use hydrokern::sediment::{Problem, Scheme, Side, StepVariant};
use hydrokern::{GpuReal, Rng};
use proptest::prelude::*;

/// How the sand fraction starts.
#[derive(Clone, Copy, Debug)]
enum Start {
    Random,
    Sand,
    Mud,
    /// Sand in the west half, mud in the east: the sharpest front.
    Front,
}

/// A random smooth problem: h, α, β sums of random sinusoids (α, β in [0.05, 2]), s as `start`
/// says, each side open with probability ½ with a random inflow and sand fraction (0 and 1
/// included).
fn smooth_problem(nx: usize, ny: usize, seed: u64, start: Start, scheme: Scheme) -> Problem {
    // Spread small seeds over the state (xorshift starts slowly from a small state).
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut r = move || rng.unit();
    let p = nx + 2;
    let n = p * (ny + 2);
    let mut wave = |amp: f64| {
        let (kx, ky, ph, amp) = (1.0 + 4.0 * r(), 1.0 + 4.0 * r(), 6.3 * r(), amp * r());
        move |x: f64, y: f64| amp * (kx * x + ph).sin() * (ky * y).cos()
    };
    let (h1, h2, a1, b1) = (wave(10.0), wave(5.0), wave(0.9), wave(0.9));
    let (mut h, mut s, mut alpha, mut beta) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let s_rand: Vec<f64> = (0..n).map(|_| r()).collect();
    for j in 0..ny + 2 {
        for i in 0..p {
            let (x, y) = (i as f64 / p as f64, j as f64 / (ny + 2) as f64);
            let c = j * p + i;
            h[c] = h1(6.0 * x, 6.0 * y) + h2(2.0 * x, 3.0 * y);
            alpha[c] = 1.0 + a1(3.0 * x, 3.0 * y).clamp(-0.95, 1.0);
            beta[c] = 1.0 + b1(3.0 * x, 2.0 * y).clamp(-0.95, 1.0);
            s[c] = match start {
                Start::Random => s_rand[c],
                Start::Sand => 1.0,
                Start::Mud => 0.0,
                Start::Front => f64::from(2 * i <= p),
            };
        }
    }
    let mut side = || {
        let (open, q, s_in) = (r() < 0.5, 0.05 + 0.5 * r(), [0.0, 1.0, r()][(3.0 * r()) as usize % 3]);
        if open { Side { q, s_in } } else { Side::CLOSED }
    };
    let sides = [side(), side(), side(), side()];
    let layout = Layout2::new(nx as u32, ny as u32, 1);
    let [h, s, alpha, beta] = [h, s, alpha, beta].map(|f| Field2::from_stored(layout, f).unwrap());
    let a = 0.5 + 3.0 * r();
    let accumulation = Default::default();
    Problem { nx, ny, dx: 1.0, dy: 0.5 + r(), cs: 0.7, cm: 0.6, a, sides, h, s, alpha, beta, scheme, accumulation }
}

/// Run `steps` steps in precision `T`, each at `frac` of the stability limit of the current h;
/// after each, check finiteness, 0 ≤ s ≤ 1 (exactly) and the h-mass balance (to 1000 ε of the
/// volume's magnitude a step). Returns the first violation, if any.
fn run_bounded_check<T: GpuReal>(p: &Problem, frac: f64, steps: usize) -> Result<(), String> {
    let mut m = CpuSediment::<T>::new(p, 1.0).map_err(|e| e.to_string())?;
    let f64s = |v: &[T]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let (v0, scale) = (p.volume(m.h()), p.volume(&m.h().iter().map(|v| v.abs()).collect::<Vec<T>>()));
    let mut supplied = 0.0;
    for step in 0..steps {
        let dt = frac * p.stability(m.h()).limit();
        m.set_dt(p, dt);
        m.step();
        supplied += p.supply_rate() * dt;
        let layout = p.layout();
        let s = hydrokern::field::interior_of(&layout, &f64s(m.s()));
        let h = hydrokern::field::interior_of(&layout, &f64s(m.h()));
        if let Some(v) = s.iter().chain(&h).find(|v| !v.is_finite()) {
            return Err(format!("step {step}: a value {v}"));
        }
        let (lo, hi) = s.iter().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        if lo < 0.0 || hi > 1.0 {
            return Err(format!("step {step}: s in [{lo}, {hi}]"));
        }
        let gained = p.volume(m.h()) - v0;
        if (gained - supplied).abs() > 1000.0 * T::EPSILON.to_f64() * (step + 1) as f64 * (scale + supplied) {
            return Err(format!("step {step}: volume gained {gained}, supplied {supplied}"));
        }
    }
    Ok(())
}

fn start() -> impl Strategy<Value = Start> {
    prop::sample::select(vec![Start::Random, Start::Sand, Start::Mud, Start::Front])
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), Just(2), Just(3), 1usize..24]
}

// ------------------------------------------------------------ point function ----

/// (h', s') written from the scheme's definition in docs/sediment-bounded.md, face by face.
#[test]
fn bounded_point_matches_written_out_form() {
    for seed in 0..40 {
        let start = [Start::Random, Start::Front, Start::Sand][seed as usize % 3];
        let p = smooth_problem(4, 3, seed, start, Scheme::Bounded);
        let dt = 0.7 * p.stability(&p.h).limit();
        let k = p.coeffs::<f64>(dt, 1);
        let (mut hn, mut sn) = (vec![0.0; p.len()], vec![0.0; p.len()]);
        cpu::bounded_step(&k, &p.h, &p.s, &p.alpha, &p.beta, &mut hn, &mut sn, None);
        for (i, j) in [(1, 1), (2, 2), (4, 3)] {
            let c = p.index(i, j);
            let a = |g: usize| p.alpha[g] * p.s[g] / p.cs;
            let b = |g: usize| p.beta[g] * (1.0 - p.s[g]) / p.cm;
            // Mean of the two cells, at most twice the cell the flow leaves (the higher h).
            let face = |m: &dyn Fn(usize) -> f64, n: usize| {
                let up = if p.h[c] > p.h[n] { c } else { n };
                ((m(c) + m(n)) / 2.0).min(2.0 * m(up))
            };
            let (mut sand, mut mud) = (0.0, 0.0);
            for (n, d2) in
                [(c + 1, p.dx * p.dx), (c - 1, p.dx * p.dx), (c + p.pitch(), p.dy * p.dy), (c - p.pitch(), p.dy * p.dy)]
            {
                sand += dt / d2 * face(&a, n) * (p.h[n] - p.h[c]);
                mud += dt / d2 * face(&b, n) * (p.h[n] - p.h[c]);
            }
            let h_want = p.h[c] + sand + mud;
            // A(s' − s) + s(h' − h) = (sand gain).
            let s_want = p.s[c] + (sand - p.s[c] * (h_want - p.h[c])) / p.a;
            assert!((hn[c] - h_want).abs() <= 1e-13 * h_want.abs().max(1.0), "seed {seed}: h' {} vs {h_want}", hn[c]);
            assert!((sn[c] - s_want).abs() <= 1e-13, "seed {seed}: s' {} vs {s_want}", sn[c]);
        }
    }
}

// ------------------------------------------------------------------- bounds ----

proptest! {
    #![proptest_config(crate::common::config(cases(64), file!()))]
    /// 0 ≤ s ≤ 1, finite, h-mass exact, for 300 steps at 0.9 of the limit and at the limit, f64
    /// and f32.
    #[test]
    fn bounded_scheme_keeps_s_in_unit_interval(
        nx in size(),
        ny in size(),
        seed: u64,
        start in start(),
        frac in prop::sample::select(vec![0.9, 1.0]),
    ) {
        let p = smooth_problem(nx, ny, seed, start, Scheme::Bounded);
        let what = format!("{nx}×{ny} seed {seed} {start:?} at {frac} of the limit");
        run_bounded_check::<f64>(&p, frac, 300).map_err(|e| TestCaseError::fail(format!("f64, {what}: {e}")))?;
        run_bounded_check::<f32>(&p, frac, 300).map_err(|e| TestCaseError::fail(format!("f32, {what}: {e}")))?;
    }
}

/// The hard cases: random smooth α, β and inflows at 0.9 of the limit with s started at 1,
/// and 2×2 grids. The `seed` scheme leaves [0, 1] on some of them (so these problems do test the
/// bound); the bounded one on none.
#[test]
fn seed_scheme_overshoots_where_bounded_does_not() {
    for (nx, ny) in [(24, 24), (2, 2)] {
        let mut overshoots = Vec::new();
        for seed in 0..12 {
            for start in [Start::Sand, Start::Random] {
                let p = smooth_problem(nx, ny, seed, start, Scheme::Seed);
                if let Err(e) = run_bounded_check::<f64>(&p, 0.9, 200) {
                    overshoots.push(format!("seed {seed} {start:?}: {e}"));
                }
                let p = smooth_problem(nx, ny, seed, start, Scheme::Bounded);
                run_bounded_check::<f64>(&p, 0.9, 200)
                    .unwrap_or_else(|e| panic!("bounded, {nx}×{ny} seed {seed} {start:?}: {e}"));
            }
        }
        println!(
            "seed scheme at {nx}×{ny}, 24 problems: {} leave the bounds:\n  {}",
            overshoots.len(),
            overshoots.join("\n  ")
        );
        assert!(
            !overshoots.is_empty(),
            "the seed scheme stayed in bounds on every {nx}×{ny} problem: the test proves nothing"
        );
    }
}

// ------------------------------------------------------------ convergence ----

/// A 1D problem on n cells (x in [0, 1], one row, closed sides): smooth h, s, α, β.
fn strip(n: usize, scheme: Scheme, s_const: Option<f64>) -> Problem {
    let dx = 1.0 / n as f64;
    let p = n + 2;
    let layout = Layout2::new(n as u32, 1, 1);
    let f = |g: &dyn Fn(f64) -> f64| {
        let v: Vec<f64> = (0..3 * p).map(|c| g(((c % p) as f64 - 0.5) * dx)).collect();
        Field2::from_stored(layout, v).unwrap()
    };
    let pi = std::f64::consts::PI;
    Problem {
        nx: n,
        ny: 1,
        dx,
        dy: dx,
        cs: 0.7,
        cm: 0.6,
        a: 0.5,
        sides: [Side::CLOSED; 4],
        h: f(&|x| (pi * x).cos() + 0.3 * (2.0 * pi * x).cos()),
        s: f(&|x| s_const.unwrap_or(0.5 + 0.3 * (pi * x).cos())),
        alpha: f(&|x| 0.7 * (1.0 + 0.5 * (pi * x).sin())),
        beta: f(&|x| 0.6 * (1.0 + 0.3 * (2.0 * pi * x).cos())),
        scheme,
        accumulation: Default::default(),
    }
}

/// (h, s) interiors on n cells at t_end, Δt = 0.1 Δx² (time error below the space error).
fn strip_run(n: usize, scheme: Scheme, s_const: Option<f64>, t_end: f64) -> (Vec<f64>, Vec<f64>) {
    let p = strip(n, scheme, s_const);
    let dx = p.dx;
    let steps = (t_end / (0.1 * dx * dx)).ceil() as usize;
    let mut m = CpuSediment::<f64>::new(&p, t_end / steps as f64).unwrap();
    for _ in 0..steps {
        m.step();
    }
    let layout = p.layout();
    (hydrokern::field::interior_of(&layout, m.h()), hydrokern::field::interior_of(&layout, m.s()))
}

/// Mean |coarse − fine averaged onto the coarse cells|.
fn l1_vs(coarse: &[f64], fine: &[f64]) -> f64 {
    let r = fine.len() / coarse.len();
    let avg = |i: usize| fine[i * r..(i + 1) * r].iter().sum::<f64>() / r as f64;
    coarse.iter().enumerate().map(|(i, v)| (v - avg(i)).abs()).sum::<f64>() / coarse.len() as f64
}

fn sci(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x:.3e}")).collect::<Vec<_>>().join(", ")
}

/// Observed orders from errors against a reference 4× finer than the finest grid.
fn orders(scheme: Scheme, s_const: Option<f64>, field: usize) -> (Vec<f64>, Vec<f64>) {
    let t_end = 0.05;
    let ns = [16, 32, 64];
    let reference = strip_run(4 * 64, scheme, s_const, t_end);
    let reference = if field == 0 { reference.0 } else { reference.1 };
    let errs: Vec<f64> = ns
        .iter()
        .map(|&n| {
            let r = strip_run(n, scheme, s_const, t_end);
            l1_vs(if field == 0 { &r.0 } else { &r.1 }, &reference)
        })
        .collect();
    let ord = errs.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    (errs, ord)
}

/// h is second order where s is uniform (variable α: the face mobilities are the mean on
/// smooth data; the bounded scheme keeps s = 1 exactly, the `seed` scheme does not, which is why
/// `reference_and_gpu.rs` measures its h-order with the h-update alone), s first order or better in
/// the coupled problem, both schemes.
#[test]
fn bounded_scheme_keeps_the_seed_orders() {
    let (e, o) = orders(Scheme::Bounded, Some(1.0), 0);
    println!("bounded: h errors with s = 1 at n = 16, 32, 64: {}, orders {o:.2?}", sci(&e));
    assert!(o.iter().all(|&o| o > 1.8), "bounded: h orders {o:?}");
    for scheme in Scheme::ALL {
        let (e, o) = orders(scheme, None, 0);
        println!("{}: h errors, coupled, at n = 16, 32, 64: {}, orders {o:.2?}", scheme.name(), sci(&e));
        let (e, o) = orders(scheme, None, 1);
        println!("{}: s errors, coupled, at n = 16, 32, 64: {}, orders {o:.2?}", scheme.name(), sci(&e));
        assert!(o.iter().all(|&o| o > 0.9), "{}: s orders {o:?}", scheme.name());
    }
}

// ---------------------------------------------------------------------- GPU ----

/// The bounds on the GPU: every bounded variant, f32 and f64, poisoned outputs, 200 steps at
/// 0.9 of the limit recomputed from the device's h every 10 steps (f32 rounding stays inside
/// the 10% margin: s is checked against [0, 1] exactly).
fn check_gpu_bounds<T: GpuReal>(p: &Problem, variant: StepVariant, launch: Launch) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let mut m = GpuSediment::<T>::new(&gpu, p, 1.0, launch).unwrap();
    let v0 = p.volume(&m.download_h(&gpu).unwrap());
    let mut supplied = 0.0;
    let mut dt = 0.0;
    for step in 0..200 {
        if step % 10 == 0 {
            dt = 0.9 * p.stability(&m.download_h(&gpu).unwrap()).limit();
            m.set_dt(p, dt);
        }
        m.poison_outputs(&gpu).unwrap();
        m.step(variant).unwrap();
        supplied += p.supply_rate() * dt;
    }
    let (h, s) = m.download(&gpu).unwrap();
    let layout = p.layout();
    let (h, s) = (hydrokern::field::interior_of(&layout, &h), hydrokern::field::interior_of(&layout, &s));
    let what = format!("{} {} {}×{}", T::NAME, variant.name(), p.nx, p.ny);
    prop_assert!(h.iter().chain(&s).all(|v| v.is_finite()), "{what}: a value is not finite");
    let (lo, hi) = s.iter().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v.to_f64()), b.max(v.to_f64())));
    prop_assert!(lo >= 0.0 && hi <= 1.0, "{what}: s in [{lo}, {hi}]");
    let hv: Vec<f64> = m.download_h(&gpu).unwrap().iter().map(|v| v.to_f64()).collect();
    let scale = p.volume(&hv.iter().map(|v| v.abs()).collect::<Vec<_>>()) + supplied;
    let gained = p.volume(&hv) - v0;
    let tol = 200.0 * 4.0 * T::EPSILON.to_f64() * scale;
    prop_assert!((gained - supplied).abs() <= tol, "{what}: gained {gained}, supplied {supplied}");
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn bounded_gpu_keeps_s_in_unit_interval(
        nx in size(),
        ny in size(),
        seed: u64,
        start in start(),
        v in prop::sample::select(StepVariant::covering()),
    ) {
        let p = smooth_problem(nx, ny, seed, start, Scheme::Bounded);
        let launch = Launch { block: (8, 4), rows: 3 };
        check_gpu_bounds::<f64>(&p, v, launch)?;
        check_gpu_bounds::<f32>(&p, v, launch)?;
    }
}
