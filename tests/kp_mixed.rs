//! Mixed precision for shallow water (docs/f32-conservation.md, "Mixed precision for shallow
//! water"): w in f64, hu, hv, the bed, reconstructions and fluxes in f32, R_w summed face by face
//! in f64. The level-generic reference with `W` = `T` against `CpuKp<T>` bit for bit; one mixed
//! step against a step written out here; the exact-solution tests of the f64 path in mixed; a
//! long run's volume beside f32's and f64's.

use hydrokern::Rng;
use hydrokern::accumulation::Accumulation;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::mixed::CpuMixed;
use hydrokern::kp::{Problem, Scheme, WetDry, exact, setup};
use hydrokern::{Real, kp};
use kernels::kp::{Kp07, cell_faces};
use std::time::Instant;

const BLOCK: (u32, u32) = (16, 8);
const WET_DRY: [WetDry; 3] = [WetDry::Clamp, WetDry::Bollermann, WetDry::Kp07];

type Mixed = CpuMixed<f32, f64>;

fn mixed(p: &Problem) -> Mixed {
    Mixed::new(p, BLOCK, false).expect("valid problem")
}

/// Interior depths w − B̄ in f64.
fn depth<T: Real, W: kernels::Level<T>>(p: &Problem, m: &CpuMixed<T, W>) -> Vec<f64> {
    let (w, b) = (p.interior(m.state().0), p.interior(m.cell_bed()));
    w.iter().zip(&b).map(|(w, b)| w.to_f64() - b.to_f64()).collect()
}

fn run_to(p: &Problem, t_end: f64) -> Mixed {
    let mut m = mixed(p);
    while m.time() < t_end {
        m.step(t_end).expect("no blow-up");
    }
    m
}

/// Thacker's bowl with friction on a few cells' worth of Manning, and a Gaussian hump: fronts,
/// partially flooded cells, friction.
fn problems(n: usize) -> Vec<(&'static str, Problem)> {
    let mut bowl = setup::thacker(n);
    bowl.manning = 0.03;
    vec![("thacker", bowl), ("gaussian", setup::gaussian(n, n)), ("dam-break --dry", setup::dam_break(n, n, true))]
}

/// With `W` = `T` the level-generic reference is `CpuKp<T>` bit for bit (f64; f32 on the plain
/// update, which is the one-field update it generalises): every wet–dry scheme, RK2 and Euler,
/// early exit off and on, 40 steps.
#[test]
fn level_generic_reference_is_cpukp_bit_for_bit() {
    fn check<T: Real + kernels::Level<T>>(p: &Problem, early: bool) -> usize {
        let mut a = CpuKp::<T>::new(p, BLOCK, early).unwrap();
        let mut b = CpuMixed::<T, T>::new(p, BLOCK, early).unwrap();
        for step in 0..40 {
            let (da, db) = (a.step(f64::INFINITY).unwrap(), b.step(f64::INFINITY).unwrap());
            assert_eq!(da.to_bits(), db.to_bits(), "Δt at step {step}");
            let (sa, (w, hu, hv)) = (a.state(), b.state());
            for (f, (x, y)) in [(sa[0], w), (sa[1], hu), (sa[2], hv)].into_iter().enumerate() {
                let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
                assert!(bits(x) == bits(y), "field {f} differs at step {step}");
            }
            assert_eq!(a.wet(), b.wet(), "wet map at step {step}");
        }
        a.state()[0].len()
    }
    let mut cases = 0;
    for (name, base) in problems(24) {
        for wet_dry in WET_DRY {
            for scheme in [Scheme::Rk2, Scheme::Euler] {
                for early in [false, true] {
                    let p = Problem { wet_dry, scheme, accumulation: Accumulation::Plain, ..base.clone() };
                    check::<f64>(&p, early);
                    check::<f32>(&p, early);
                    cases += 1;
                    let _ = name;
                }
            }
        }
    }
    println!("{cases} cases, f64 and f32, 40 steps each: bit for bit");
}

/// A random problem on a sloped, wavy bed (some cells dry), momenta in both directions, for one
/// step of KP07 (whose level is w̄ rounded once: the written-out step reads the same f32 values).
fn random_problem(n: usize, seed: u64) -> Problem {
    let mut rng = Rng::new(seed);
    let mut rnd = move || rng.unit();
    let mut p = setup::flood(n, n + 3);
    let (a, b, c) = (0.02 + 0.05 * rnd(), 0.3 * rnd(), 100.0 + 100.0 * rnd());
    p.set_bed(move |x, y| c + a * x + b * (0.3 * y).sin());
    let level = c + 1.5 + rnd();
    p.set_surface(|_, _| level);
    for k in 0..p.h.len() {
        if p.h[k] > 0.0 {
            p.h[k] += 0.2 * rnd();
            p.hu[k] = p.h[k] * (rnd() - 0.5);
            p.hv[k] = p.h[k] * (rnd() - 0.5);
        }
    }
    p.wet_dry = WetDry::Kp07;
    p.scheme = Scheme::Euler;
    p
}

/// One mixed Euler step of KP07 written out: the f32 face fluxes of the state with w rounded
/// once to f32 (kernels' `cell_faces`, the f32 path's), R_w summed face by face in f64, w + Δt·R_w
/// in f64, the momenta in f32, negative depths clipped and dry momenta zeroed with the depth in
/// f64. The reference must give the same bits, and its w must not be f32 values (the update is
/// f64).
#[test]
fn mixed_reference_matches_the_written_out_step() {
    for seed in 0..8 {
        let p = random_problem(13 + seed as usize, seed);
        let mut m = mixed(&p);
        let (w0, hu0, hv0) = {
            let (w, hu, hv) = m.state();
            (w.to_vec(), hu.to_vec(), hv.to_vec())
        };
        let (k, cb, bed) = (*m.coeffs(), m.cell_bed().to_vec(), m.bed().to_vec());
        let dt = m.step(f64::INFINITY).unwrap();
        let (pitch, cpitch) = (k.pitch as usize, k.cpitch as usize);
        let (mut not_f32, mut checked) = (0, 0);
        for j in 2..k.ny as usize + 2 {
            for i in 2..k.nx as usize + 2 {
                let c = j * pitch + i;
                let q = |di: i32, dj: i32| {
                    let g = (c as isize + di as isize + dj as isize * pitch as isize) as usize;
                    (w0[g] as f32, hu0[g], hv0[g])
                };
                let cc = j * cpitch + i;
                let b = |ci: i32, cj: i32| bed[(cc as isize + ci as isize + cj as isize * cpitch as isize) as usize];
                let faces = cell_faces::<Kp07, f32>(&k, q, b);
                let r = faces.rhs::<Kp07>(&k);
                let [fw, fe, gs, gn] = faces.flux.map(|f| f.f0 as f64);
                let rw = (fw - fe) * k.inv_dx as f64 + (gs - gn) * k.inv_dy as f64;
                let d = dt as f32;
                let mut w = w0[c] + d as f64 * rw;
                let (mut hu, mut hv) = (hu0[c] + d * r.hu, hv0[c] + d * r.hv);
                let h = w - cb[c] as f64;
                if h < 0.0 {
                    w = cb[c] as f64;
                }
                if h <= k.dry as f64 {
                    (hu, hv) = (0.0, 0.0);
                }
                let (mw, mhu, mhv) = m.state();
                assert_eq!(mw[c].to_bits(), w.to_bits(), "seed {seed}: w at ({i}, {j}): {} vs {w}", mw[c]);
                assert_eq!(
                    (mhu[c].to_bits(), mhv[c].to_bits()),
                    (hu.to_bits(), hv.to_bits()),
                    "seed {seed}: momenta at ({i}, {j})"
                );
                not_f32 += (w as f32 as f64 != w) as usize;
                checked += 1;
            }
        }
        assert!(not_f32 * 2 > checked, "seed {seed}: only {not_f32} of {checked} surfaces are not f32 values");
    }
}

/// (V − V₀)/V₀ after `steps` RK2 steps of Thacker's bowl at 40² in `wet_dry` on the mixed
/// reference, and the seconds they took.
fn mixed_bowl(wet_dry: WetDry, steps: u64) -> (f64, f64) {
    let mut p = setup::thacker(40);
    p.wet_dry = wet_dry;
    let mut m = mixed(&p);
    let v0 = m.volume(&p);
    let start = Instant::now();
    for _ in 0..steps {
        m.step(f64::INFINITY).unwrap();
    }
    ((m.volume(&p) - v0) / v0, start.elapsed().as_secs_f64())
}

/// The bound: f64's (tests/kp_f32.rs keeps f64 to 1e-12 over 10⁴ steps).
const BOUND: f64 = 1e-12;

/// Thacker's bowl at 40², `clamp`, 10⁵ CPU steps in mixed precision keeps the volume at f64's
/// level; the compensated f32 path (tests/kp_f32.rs: 10⁵ steps within 1e-5) is run here to 2·10⁴
/// steps and exceeds this bound, so the bound tells the paths apart.
#[test]
fn mixed_keeps_f64_volume_over_1e5_steps() {
    let steps = 100_000;
    let (err, secs) = mixed_bowl(WetDry::Clamp, steps);
    println!("thacker 40², clamp, {steps} steps: mixed {err:+.2e} ({secs:.1} s)");
    let mut p = setup::thacker(40);
    p.accumulation = Accumulation::Compensated;
    let mut f = CpuKp::<f32>::new(&p, BLOCK, false).unwrap();
    let v0 = p.volume_with_low(f.state()[0], f.low(), f.cell_bed());
    for _ in 0..20_000 {
        f.step(f64::INFINITY).unwrap();
    }
    let e32 = (p.volume_with_low(f.state()[0], f.low(), f.cell_bed()) - v0) / v0;
    println!("thacker 40², clamp, 20000 steps: f32 compensated {e32:+.2e}");
    assert!(err.abs() <= BOUND, "mixed: relative volume change {err:.3e} after {steps} steps");
    assert!(e32.abs() > BOUND, "compensated f32 kept {e32:.3e}: the bound no longer tells the paths apart");
}

/// Bollermann's scheme likewise, 2·10⁴ steps.
#[test]
fn mixed_bollermann_keeps_f64_volume() {
    let (err, secs) = mixed_bowl(WetDry::Bollermann, 20_000);
    println!("thacker 40², bollermann, 20000 steps: mixed {err:+.2e} ({secs:.1} s)");
    assert!(err.abs() <= BOUND, "mixed bollermann: relative volume change {err:.3e}");
}

// ------------------------------------------- the f64 path's exact-solution tests, in mixed ----

/// Lake at rest over wavy bathymetry with two dry islands: 1000 steps of RK2 and Euler keep the
/// surface flat and the water still (f32's tolerance: the reconstruction is f32's).
#[test]
fn mixed_lake_at_rest_stays_at_rest() {
    for scheme in [Scheme::Rk2, Scheme::Euler] {
        let mut p = setup::lake_at_rest(40, 40);
        p.scheme = scheme;
        let mut m = mixed(&p);
        for _ in 0..1000 {
            m.step(f64::INFINITY).unwrap();
        }
        let h = depth(&p, &m);
        let (w, hu, hv) = m.state();
        let (w, hu, hv) = (p.interior(w), p.interior(hu), p.interior(hv));
        let (mut dw, mut dq) = (0.0f64, 0.0f64);
        for c in 0..h.len() {
            if p.h[c] > 0.0 {
                dw = dw.max((w[c] - 1.0).abs());
            } else {
                assert!(h[c] <= 1e-5, "island cell {c} got water: {}", h[c]);
            }
            dq = dq.max(hu[c].abs().into()).max(hv[c].abs().into());
        }
        println!("lake at rest (mixed {}): max |w − 1| = {dw:.2e}, max |hu|,|hv| = {dq:.2e}", scheme.name());
        assert!(dw <= 1e-5 && dq <= 1e-5, "|w − 1| ≤ {dw:e}, |q| ≤ {dq:e}");
    }
}

/// Total volume with walls, fronts included, RK2 and Euler: f64's bound of `volume_conserved_with_walls`.
#[test]
fn mixed_volume_conserved_with_walls() {
    for scheme in [Scheme::Rk2, Scheme::Euler] {
        for (name, mut p) in
            [("gaussian", setup::gaussian(32, 32)), ("dam-break --dry", setup::dam_break(32, 32, true))]
        {
            p.scheme = scheme;
            let m0 = mixed(&p);
            let v0 = m0.volume(&p);
            let m = run_to(&p, 1.5);
            let rel = (m.volume(&p) - v0).abs() / v0;
            println!("volume {name} (mixed {}): {} steps, relative change {rel:.2e}", scheme.name(), m.steps());
            assert!(rel < 1e-13, "{name} {}: relative change {rel:e}", scheme.name());
        }
    }
}

/// L1 error of h against the exact 1D dam break at t = 4 s (as `tests/kp/validation.rs`).
fn dam_break_error(nx: usize, hl: f64, hr: f64, scheme: Scheme) -> f64 {
    let mut p = setup::dam_break_strip(nx, hl, hr);
    p.scheme = scheme;
    let t = 4.0;
    let h = depth(&p, &run_to(&p, t));
    let j = 1;
    (0..nx).map(|i| (h[j * nx + i] - exact::dam_break(p.g, hl, hr, 50.0, p.centre(i, j).0, t).0).abs() * p.dx).sum()
}

/// Ritter's (dry) and Stoker's (wet) dam breaks converge in mixed as in f64: errors fall with
/// the resolution at a mean order above 0.6.
#[test]
fn mixed_dam_breaks_converge() {
    for (name, hl, hr, scheme) in
        [("Ritter", 1.0, 0.0, Scheme::Rk2), ("Stoker", 1.0, 0.2, Scheme::Rk2), ("Stoker", 1.0, 0.2, Scheme::Euler)]
    {
        let ns = [50, 100, 200, 400];
        let errs: Vec<f64> = ns.iter().map(|&n| dam_break_error(n, hl, hr, scheme)).collect();
        let orders: Vec<f64> = errs.windows(2).map(|e| (e[0] / e[1]).log2()).collect();
        println!("{name} (mixed {}): L1 errors {errs:.3?}; orders {orders:.2?}", scheme.name());
        assert!(errs.windows(2).all(|e| e[1] < e[0]), "{name}: errors {errs:?}");
        assert!(orders.iter().sum::<f64>() / orders.len() as f64 > 0.6, "{name}: orders {orders:?}");
    }
}

/// Thacker's planar solution in the paraboloid after a quarter period, `clamp`: the mixed run's
/// L1 depth error is within 1% of the f64 run's (the reconstruction is f32, the level f64).
#[test]
fn mixed_thacker_matches_f64() {
    let p = setup::thacker(60);
    let t = exact::thacker_period(p.g) / 4.0;
    let m = run_to(&p, t);
    let mut f = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
    while f.time() < t {
        f.step(t).unwrap();
    }
    let hm = depth(&p, &m);
    let (w, b) = (p.interior(f.state()[0]), p.interior(f.cell_bed()));
    let err = |h: &dyn Fn(usize) -> f64| {
        (0..hm.len())
            .map(|c| {
                let (x, y) = p.centre(c % p.nx, c / p.nx);
                (h(c) - exact::thacker(p.g, x, y, t).0).abs()
            })
            .sum::<f64>()
            * p.dx
            * p.dy
    };
    let (em, ef) = (err(&|c| hm[c]), err(&|c| w[c] - b[c]));
    println!("thacker 60², t = T/4: L1 error mixed {em:.4e}, f64 {ef:.4e}");
    assert!((em - ef).abs() <= 0.01 * ef, "mixed {em:e} against f64 {ef:e}");
}

/// The split schemes refuse mixed in one line.
#[test]
fn split_schemes_refuse_mixed() {
    for scheme in [Scheme::Srk2, Scheme::Ds1, Scheme::Ds2] {
        let mut p = setup::gaussian(16, 16);
        p.scheme = scheme;
        let e = Mixed::new(&p, BLOCK, false).err().expect("refused").to_string();
        assert!(e.contains("precision mixed") && !e.contains('\n'), "{e}");
    }
    let _ = kp::CYCLE;
}
