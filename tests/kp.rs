//! Kurganov–Petrova shallow water: the CPU reference against exact solutions and invariants,
//! the central-upwind flux and the friction against straightforward formulas, and the GPU
//! kernels against the CPU reference.

mod common;

use hydrokern::Real;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Boundary, Problem, Scheme, exact, setup};

const BLOCK: (u32, u32) = (16, 8);

fn run<T: Real>(p: &Problem, t_end: f64) -> CpuKp<T> {
    let mut m = CpuKp::<T>::new(p, BLOCK, false).expect("valid problem");
    while m.time() < t_end {
        m.step(t_end).expect("no blow-up");
    }
    m
}

/// Interior depths h = w − B, row-major.
fn depth<T: Real>(p: &Problem, m: &CpuKp<T>) -> Vec<f64> {
    let w = p.interior(m.state()[0]);
    let b = p.interior(m.cell_bed());
    w.iter().zip(&b).map(|(w, b)| (*w - *b).to_f64()).collect()
}

// ------------------------------------------------------------ point functions ----

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

#[test]
fn central_upwind_matches_textbook_formula() {
    use hydrokern::kp::Coeffs;
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
        let fs = |s: (f64, f64, f64, f64)| kernels::kp::FaceState { w: s.0, h: s.1, qn: s.1 * s.2, qt: s.1 * s.3 };
        let got = kernels::kp::central_upwind(&k, fs(l), fs(r));
        let want = textbook_flux(9.81, l, r);
        for (g, w) in [got.f0, got.fn_, got.ft].iter().zip(want) {
            assert!((g - w).abs() <= 1e-12 * (1.0 + w.abs()), "case {case}: {g} vs {w} ({l:?} | {r:?})");
        }
    }
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

// ------------------------------------------------------------------ validation ----

/// Lake at rest over wavy bathymetry with two dry islands: 1000 RK2 steps keep the surface
/// flat and the water still to round-off (f64: 1e-12; f32: 1e-5 on a 1 m lake).
#[test]
fn lake_at_rest_with_islands_stays_at_rest() {
    fn check<T: Real>(tol: f64) {
        let p = setup::lake_at_rest(40, 40);
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
            "lake at rest ({}): 1000 steps to t = {:.3} s, max |w − 1| = {dw:.2e}, max |hu|,|hv| = {dq:.2e}",
            T::NAME,
            m.time()
        );
        assert!(dw <= tol && dq <= tol, "{}: |w − 1| ≤ {dw:e}, |q| ≤ {dq:e}", T::NAME);
    }
    check::<f64>(1e-12);
    check::<f32>(1e-5);
}

/// Total volume with walls is conserved to round-off (wet–dry fronts included).
#[test]
fn volume_conserved_with_walls() {
    for (name, p) in [("gaussian", setup::gaussian(32, 32)), ("dam-break --dry", setup::dam_break(32, 32, true))] {
        let v0 = p.initial_volume();
        let m = run::<f64>(&p, 1.5);
        let v = p.volume(m.state()[0], m.cell_bed());
        let rel = (v - v0).abs() / v0;
        println!("volume {name}: {} steps, relative change {rel:.2e}", m.steps());
        assert!(rel < 1e-13, "{name}: volume {v} vs {v0}");
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

fn convergence(name: &str, hl: f64, hr: f64, scheme: Scheme) {
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

// ------------------------------------------------------------------ bad input ----

#[test]
fn bad_input_is_refused() {
    let ok = setup::dam_break(8, 8, false);
    type Breaker = Box<dyn Fn(&mut Problem)>;
    let cases: Vec<(&str, Breaker)> = vec![
        ("sizes", Box::new(|p| p.nx = 0)),
        ("positive", Box::new(|p| p.dx = -1.0)),
        ("depth", Box::new(|p| p.h[3] = -0.1)),
        ("Manning", Box::new(|p| p.manning = -0.01)),
        ("finite", Box::new(|p| p.hu[5] = f64::NAN)),
        ("finite", Box::new(|p| p.bed[2] = f64::INFINITY)),
        ("periodic", Box::new(|p| p.boundary[0] = Boundary::Periodic)),
        ("θ", Box::new(|p| p.theta = 2.5)),
    ];
    for (word, break_it) in cases {
        let mut p = ok.clone();
        break_it(&mut p);
        let e = CpuKp::<f64>::new(&p, BLOCK, false).err().expect("refused");
        assert!(e.to_string().contains(word), "'{e}' should mention {word}");
    }
    assert!("slippery".parse::<Boundary>().is_err());
}

/// A blown-up state stops the step with a reason instead of propagating.
#[test]
fn blow_up_is_reported() {
    let mut p = setup::dam_break(8, 8, false);
    p.dt_floor = 1e3;
    let mut m = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
    assert_eq!(m.step(1e6), Err(hydrokern::kp::cpu::Halt::Collapsed));
}

// ------------------------------------------------------------- GPU vs CPU ----

use common::{Tolerance, cases, gpu};
use hydrokern::GpuReal;
use hydrokern::kp::gpu::{FluxKernel, FluxVariant, GpuKp, Launch};
use proptest::prelude::*;

/// A random smooth state with wet, dry and shoreline cells: a wavy bed, a surface that cuts
/// it (or, for `kind` 1, a column of water in a dry domain, so whole blocks are dry), smooth
/// velocities where wet, random boundary conditions and friction.
fn random_state(nx: usize, ny: usize, seed: u64, kind: u8) -> Problem {
    let mut rng = hydrokern::Rng::new(seed);
    let mut rnd = move || rng.unit();
    let (lx, ly) = (nx as f64 * (0.5 + rnd()), ny as f64 * (0.5 + rnd()));
    let mut p = Problem::new(nx, ny, lx, ly);
    let (kx, ky, ph, amp) = (0.5 + 2.0 * rnd(), 0.5 + 2.0 * rnd(), 6.0 * rnd(), 0.8 * rnd());
    p.set_bed(|x, y| amp * (kx * x / lx * 6.0 + ph).sin() * (ky * y / ly * 6.0).cos() + 0.1 * x / lx);
    let level = 0.2 + 0.6 * rnd();
    let (cx, cy, r) = (lx * rnd(), ly * rnd(), 0.2 * lx.max(ly) + 1.0);
    p.set_surface(|x, y| match kind {
        1 => {
            if (x - cx).powi(2) + (y - cy).powi(2) < r * r {
                1.5
            } else {
                -10.0
            }
        }
        _ => level + 0.1 * (3.0 * x / lx + ph).cos(),
    });
    for c in 0..nx * ny {
        let (x, y) = p.centre(c % nx, c / nx);
        let h = p.h[c];
        p.hu[c] = h * 0.5 * (2.0 * y / ly + ph).sin();
        p.hv[c] = h * 0.4 * (3.0 * x / lx).cos();
    }
    let pairs = [Boundary::Wall, Boundary::Outflow, Boundary::Periodic];
    let (a, b) = (pairs[(rnd() * 3.0) as usize % 3], pairs[(rnd() * 3.0) as usize % 3]);
    let other = |s: Boundary, r: f64| {
        if s == Boundary::Periodic {
            s
        } else if r < 0.5 {
            Boundary::Wall
        } else {
            Boundary::Outflow
        }
    };
    p.boundary = [a, other(a, rnd()), b, other(b, rnd())];
    p.manning = if rnd() < 0.5 { 0.0 } else { 0.03 };
    p.scheme = if rnd() < 0.25 { Scheme::Euler } else { Scheme::Rk2 };
    p
}

/// Largest |x| of a field's interior, at least 1 (the scale of the absolute tolerances).
fn scale<T: Real>(p: &Problem, f: &[T]) -> f64 {
    common::magnitude(&p.interior(f))
}

/// GPU against CPU after a number of steps, per step and relative to the field's magnitude
/// ([`scale`]; for the clock, to t). Both evaluate the same point functions; the GPU contracts
/// multiply-adds and, in f32, takes the wave speeds' square roots and reciprocals from the
/// approximate instructions (≤ 2 ulp each), a few ε in each of the few hundred operations of a
/// cell's step, which a stable step carries forward: 256 ε per step (f64 ≈ 6e-14, f32 ≈ 3e-5).
const GPU_STEP: Tolerance = Tolerance::eps(256.0);
/// The flux kernels alone against the CPU's R (f64), relative to the field's magnitude: R
/// divides flux differences by Δx, so the GPU's contracted rounding shows up amplified by
/// 1/Δx relative to the state; 1e-11 covers the cells of the test's small grids.
const FLUX_F64: Tolerance = Tolerance::abs(1e-11);
/// The largest rate (f64): a max over the same speeds, each a few ε from the CPU's.
const RATE_F64: Tolerance = Tolerance::abs(1e-12);

/// GPU against CPU after `steps` steps, every padded cell of every field within [`GPU_STEP`].
fn check_gpu<T: GpuReal>(
    p: &Problem,
    block: (u32, u32),
    flux: FluxVariant,
    early: bool,
    steps: usize,
) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let mut cpu_m = CpuKp::<T>::new(p, block, early).unwrap();
    let mut gpu_m = GpuKp::<T>::new(&gpu, p, Launch { block, flux }).unwrap();
    let kernel = if early { FluxKernel::EarlyExit } else { FluxKernel::Full };
    for _ in 0..steps {
        gpu_m.poison().unwrap();
        gpu_m.step(kernel).unwrap();
        cpu_m.step(f64::INFINITY).unwrap();
    }
    let g = gpu_m.download(&gpu).unwrap();
    let clock = gpu_m.clock(&gpu).unwrap();
    let what = format!(
        "{} {}×{} {:?} block {block:?} flux {} early {early} after {steps} steps",
        T::NAME,
        p.nx,
        p.ny,
        p.boundary,
        flux.describe()
    );
    prop_assert_eq!(clock.steps, steps as u64, "{}: clock steps", what);
    let tol = GPU_STEP.times(steps as f64);
    // t is f64 on both sides, but sums Δt from speeds of precision T.
    let t_tol = tol.scaled(cpu_m.time()).bound::<T>();
    prop_assert!((clock.t - cpu_m.time()).abs() <= t_tol, "{what}: t GPU {} vs CPU {}", clock.t, cpu_m.time());
    for (name, gf, cf) in
        [("w", &g[0], cpu_m.state()[0]), ("hu", &g[1], cpu_m.state()[1]), ("hv", &g[2], cpu_m.state()[2])]
    {
        // Every padded cell: interior and both ghost layers.
        tol.scaled(scale(p, cf)).check(&format!("{what}: {name}"), gf, cf)?;
    }
    Ok(())
}

/// The tile kernel and streamed shapes with bands shorter and longer than the wet-map tiles.
fn flux_variant() -> impl Strategy<Value = FluxVariant> {
    prop_oneof![
        Just(FluxVariant::Tile),
        Just(FluxVariant::STREAM),
        (1u32..5, prop::sample::select(vec![1u32, 2, 3, 7, 8, 13, 64]))
            .prop_map(|(warps, rows)| FluxVariant::Stream { warps, rows }),
    ]
}

fn awkward_size() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), Just(2), Just(3), Just(7), Just(31), Just(33), Just(65), 1usize..90]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn kp_gpu_matches_cpu(
        nx in awkward_size(),
        ny in awkward_size(),
        seed: u64,
        kind in 0u8..2,
        block in prop::sample::select(vec![(32u32, 8u32), (16, 16), (8, 4), (32, 1), (16, 2)]),
        flux in flux_variant(),
        early: bool,
        steps in prop::sample::select(vec![1usize, 20]),
    ) {
        let p = random_state(nx, ny, seed, kind);
        check_gpu::<f32>(&p, block, flux, early, steps)?;
        check_gpu::<f64>(&p, block, flux, early, steps)?;
    }
}

/// The flux kernels alone on one state: R and the per-block rates against the CPU's, with
/// the outputs poisoned first (a cell the kernel does not write stays NaN and fails).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_flux_kernels_match_cpu() {
    let gpu = gpu();
    for (seed, (nx, ny)) in [(1u64, (67usize, 45usize)), (2, (33, 97)), (3, (1, 40))] {
        for (early, flux) in [false, true].into_iter().flat_map(|e| {
            [FluxVariant::Tile, FluxVariant::STREAM, FluxVariant::Stream { warps: 3, rows: 5 }].map(|f| (e, f))
        }) {
            let p = random_state(nx, ny, seed, (seed % 2) as u8);
            let block = (16, 8);
            let mut m = GpuKp::<f64>::new(&gpu, &p, Launch { block, flux }).unwrap();
            m.poison().unwrap();
            m.flux(if early { FluxKernel::EarlyExit } else { FluxKernel::Full }, false).unwrap();
            let res = m.download_residual(&gpu).unwrap();
            let (r, rates) = (res.r, res.rates);
            let c = CpuKp::<f64>::new(&p, block, early).unwrap();
            let k = *c.coeffs();
            let n = k.cells();
            let (mut rw, mut ru, mut rv) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            let [w, hu, hv] = c.state();
            let wet = if early { Some(c.wet()) } else { None };
            let rate = hydrokern::kp::cpu::rhs(&k, w, hu, hv, c.bed(), wet, &mut rw, &mut ru, &mut rv);
            // With early exit R is left unwritten (still NaN) where the block is inactive; the
            // CPU has 0 there. Every other cell must match.
            let c_wet = c.wet();
            let active = |c: usize| {
                let (i, j) = ((c % nx) as u32, (c / nx) as u32);
                !early || kernels::kp::block_active(&k, i / k.bx, j / k.by, |a, b| c_wet[(b * k.nbx + a) as usize] != 0)
            };
            let mut inactive = 0;
            let what = format!("{nx}×{ny}, early {early}, {}", flux.describe());
            for (name, g, cpu) in [("R_w", &r[0], &rw), ("R_hu", &r[1], &ru), ("R_hv", &r[2], &rv)] {
                let (mut got, want) = (p.interior(g), p.interior(cpu));
                for (idx, (a, b)) in got.iter_mut().zip(&want).enumerate() {
                    if !active(idx) {
                        assert_eq!(*b, 0.0, "{name}: CPU R of an inactive cell");
                        // Unwritten (NaN) on the GPU: R of an inactive block is 0 by definition.
                        *a = 0.0;
                        inactive += 1;
                    }
                }
                FLUX_F64.scaled(scale(&p, cpu)).check(&format!("{what}: {name}"), &got, &want).unwrap();
            }
            println!("{what}: {} inactive cells", inactive / 3);
            let g_rate = rates.iter().fold(0.0f64, |a, b| a.max(*b));
            RATE_F64.scaled(rate).check_value(&format!("{what}: largest rate"), g_rate, rate).unwrap();
        }
    }
}

/// Tiny and odd grids with every boundary condition step without trouble and stay finite.
#[test]
fn tiny_grids_with_every_boundary_run() {
    for (nx, ny) in [(1, 1), (1, 5), (2, 3), (3, 2), (5, 1)] {
        for bc in Boundary::ALL {
            for kind in 0..2 {
                let mut p = random_state(nx, ny, 7 + nx as u64, kind);
                p.boundary = [bc; 4];
                let mut m = CpuKp::<f64>::new(&p, BLOCK, kind == 1).unwrap();
                for _ in 0..5 {
                    m.step(f64::INFINITY).unwrap();
                }
                assert!(m.state().iter().all(|f| f.iter().all(|v| v.is_finite())), "{nx}×{ny} {bc:?}");
            }
        }
    }
}

#[test]
fn early_exit_matches_full_on_the_cpu() {
    let p = setup::flood(64, 64);
    let block = (8, 4);
    let mut full = CpuKp::<f64>::new(&p, block, false).unwrap();
    let mut early = CpuKp::<f64>::new(&p, block, true).unwrap();
    let dry_blocks = early.wet().iter().filter(|&&w| w == 0).count();
    assert!(dry_blocks > early.wet().len() / 2, "{dry_blocks} of {} blocks dry", early.wet().len());
    for _ in 0..60 {
        full.step(f64::INFINITY).unwrap();
        early.step(f64::INFINITY).unwrap();
    }
    let worst = (0..3)
        .flat_map(|f| full.state()[f].iter().zip(early.state()[f]).map(|(a, b)| (a - b).abs()))
        .fold(0.0f64, f64::max);
    println!("early exit vs full after 60 steps: max difference {worst:.2e} ({dry_blocks} dry blocks at the start)");
    assert!(worst <= 1e-9, "{worst}");
}

/// The GPU on the validation cases: the lake at rest stays at rest for 1000 steps, and the
/// largest GPU−CPU differences after 20 steps of a flood and a Gaussian hump (printed).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_validation_cases() {
    let gpu = gpu();
    fn lake<T: GpuReal>(gpu: &hydrokern::Gpu, tol: f64) {
        let p = setup::lake_at_rest(40, 40);
        let mut m = GpuKp::<T>::new(gpu, &p, Launch::default()).unwrap();
        for _ in 0..1000 {
            m.step(FluxKernel::EarlyExit).unwrap();
        }
        let q = m.download(gpu).unwrap();
        let (w, hu, hv) = (p.interior(&q[0]), p.interior(&q[1]), p.interior(&q[2]));
        let mut worst = 0.0f64;
        for c in 0..w.len() {
            if p.h[c] > 0.0 {
                worst = worst.max((w[c].to_f64() - 1.0).abs());
            }
            worst = worst.max(hu[c].to_f64().abs()).max(hv[c].to_f64().abs());
        }
        println!("GPU lake at rest ({}): 1000 steps, max deviation {worst:.2e}", T::NAME);
        assert!(worst <= tol, "{worst}");
    }
    lake::<f64>(&gpu, 1e-12);
    lake::<f32>(&gpu, 1e-5);
    /// 20 steps on the GPU and the CPU, every field within [`GPU_STEP`]; prints the largest
    /// difference relative to the field's magnitude.
    fn diff<T: GpuReal>(gpu: &hydrokern::Gpu, name: &str, p: &Problem, early: bool) {
        let (block, steps) = ((32, 8), 20);
        let mut c = CpuKp::<T>::new(p, block, early).unwrap();
        let mut g = GpuKp::<T>::new(gpu, p, Launch { block, flux: FluxVariant::STREAM }).unwrap();
        for _ in 0..steps {
            c.step(f64::INFINITY).unwrap();
            g.step(if early { FluxKernel::EarlyExit } else { FluxKernel::Full }).unwrap();
        }
        let q = g.download(gpu).unwrap();
        let mut worst = 0.0f64;
        for (f, field) in ["w", "hu", "hv"].into_iter().enumerate() {
            let s = scale(p, c.state()[f]);
            let d = q[f].iter().zip(c.state()[f]).map(|(a, b)| (a.to_f64() - b.to_f64()).abs() / s);
            worst = worst.max(d.fold(0.0f64, f64::max));
            let what = format!("{name} early {early}, {steps} steps: {field}");
            GPU_STEP.times(steps as f64).scaled(s).check(&what, &q[f], c.state()[f]).unwrap();
        }
        println!("GPU vs CPU, {name} {} early {early}: {steps} steps, max |difference| / scale = {worst:.2e}", T::NAME);
    }
    for (name, p) in [("flood 96×80", setup::flood(96, 80)), ("gaussian 70×90", setup::gaussian(70, 90))] {
        for early in [false, true] {
            diff::<f64>(&gpu, name, &p, early);
            diff::<f32>(&gpu, name, &p, early);
        }
    }
}

/// The flux variant option: tile, stream, stream:WxR; anything else is refused.
#[test]
fn flux_variant_parses_and_refuses() {
    assert_eq!("tile".parse::<FluxVariant>().unwrap(), FluxVariant::Tile);
    assert_eq!("stream".parse::<FluxVariant>().unwrap(), FluxVariant::STREAM);
    assert_eq!("stream:2x16".parse::<FluxVariant>().unwrap(), FluxVariant::Stream { warps: 2, rows: 16 });
    for bad in ["", "tiles", "stream:", "stream:0x8", "stream:33x8", "stream:4x0", "stream:4", "stream:ax8"] {
        let e = bad.parse::<FluxVariant>().unwrap_err().to_string();
        assert!(e.contains("unknown flux kernel"), "{bad}: {e}");
    }
}
