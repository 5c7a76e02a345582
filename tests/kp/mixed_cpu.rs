//! Mixed precision for shallow water (docs/f32-conservation.md, "Mixed precision for shallow
//! water"): w in f64, hu, hv, the bed, reconstructions and fluxes in f32, R_w summed face by face
//! in f64. One step of the reference (`CpuKp<T, W>`, one set of loops for every level) against
//! a step written out here, in f64, f32 and mixed; the exact-solution tests of the f64 path in
//! mixed; a long run's volume beside f32's and f64's.

use hydrokern::Rng;
use hydrokern::accumulation::Accumulation;
use hydrokern::kp::cpu::{CpuKp, Surface};
use hydrokern::kp::{Problem, Scheme, WetDry, exact, setup};
use hydrokern::{Real, kp};
use kernels::kp::{Kp07, cell_faces};
use kernels::sediment::compensated_add;
use std::time::Instant;

const BLOCK: (u32, u32) = (16, 8);

type Mixed = CpuKp<f32, f64>;

fn mixed(p: &Problem) -> Mixed {
    Mixed::new(p, BLOCK, false).expect("valid problem")
}

/// Interior depths w − B̄ in f64.
fn depth<T: Real, W: Surface<T>>(p: &Problem, m: &CpuKp<T, W>) -> Vec<f64> {
    let (w, b) = (p.interior(m.fields().0), p.interior(m.cell_bed()));
    w.iter().zip(&b).map(|(w, b)| w.to_f64() - b.to_f64()).collect()
}

fn run_to(p: &Problem, t_end: f64) -> Mixed {
    let mut m = mixed(p);
    while m.time() < t_end {
        m.step(t_end).expect("no blow-up");
    }
    m
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

/// One Euler step of KP07 written out from the point functions, against `CpuKp<T, W>::step`:
/// the `T` face fluxes of the state with w rounded once to `T` (kernels' `cell_faces`), R_w
/// summed face by face in `W`, w + Δt·R_w in `W`, the momenta in `T`, negative depths clipped
/// and dry momenta zeroed with the depth in `W`. With `compensated` (f32 only) w is the pair
/// (w, low) instead: w + Δt·R_w by TwoSum (`compensated_add`, Qⁿ's low part 0), the depth that
/// of the pair, a clipped cell losing its low part. Every interior cell must have the same bits.
///
/// The reference has one set of loops for every level (`src/kp/cpu.rs`): `CpuKp<T>` is
/// `CpuKp<T, T>`, so the f32 and f64 paths and the mixed one cannot differ from each
/// other by their loops, only from what the point functions say. This checks the loops against
/// those functions for (f64, f64), (f32, f32) plain and compensated, and the mixed (f32, f64);
/// with `W` = `T` also that R_w summed face by face is the plain R_w (`CellFaces::rhs`); in
/// mixed, that the new w are not f32 values (the update is f64); compensated, that low parts
/// were written.
fn check_written_out_step<T: Real, W: Surface<T>>(accumulation: Accumulation) {
    // The mixed precision's w is f64: it keeps no low part.
    let compensated = accumulation == Accumulation::Compensated && !W::WIDER;
    for seed in 0..8 {
        let p = Problem { accumulation, ..random_problem(13 + seed as usize, seed) };
        let mut m = CpuKp::<T, W>::new(&p, BLOCK, false).expect("valid problem");
        assert_eq!(m.low().is_some(), compensated, "seed {seed}: low parts");
        let (w0, hu0, hv0) = {
            let (w, hu, hv) = m.fields();
            (w.to_vec(), hu.to_vec(), hv.to_vec())
        };
        let (k, cb, bed) = (*m.coeffs(), m.cell_bed().to_vec(), m.bed().to_vec());
        let dt = m.step(f64::INFINITY).unwrap();
        let (pitch, cpitch) = (k.pitch as usize, k.cpitch as usize);
        let (mut not_t, mut with_low, mut checked) = (0, 0, 0);
        let wide = |v: T| W::widen(v);
        for j in 2..k.ny as usize + 2 {
            for i in 2..k.nx as usize + 2 {
                let c = j * pitch + i;
                let q = |di: i32, dj: i32| {
                    let g = (c as isize + di as isize + dj as isize * pitch as isize) as usize;
                    (w0[g].narrow(), hu0[g], hv0[g])
                };
                let cc = j * cpitch + i;
                let b = |ci: i32, cj: i32| bed[(cc as isize + ci as isize + cj as isize * cpitch as isize) as usize];
                let faces = cell_faces::<Kp07, T>(&k, q, b);
                let r = faces.rhs::<Kp07>(&k);
                let [fw, fe, gs, gn] = faces.flux.map(|f| wide(f.f0));
                let rw = (fw - fe) * wide(k.inv_dx) + (gs - gn) * wide(k.inv_dy);
                if !W::WIDER {
                    assert_eq!(rw.to_f64().to_bits(), r.w.to_f64().to_bits(), "seed {seed}: R_w at ({i}, {j})");
                }
                let d = T::from_f64(dt);
                let (mut w, mut lo, h) = if compensated {
                    let (w, lo) = compensated_add(w0[c].narrow(), T::ZERO, d * rw.narrow());
                    (wide(w), lo, wide((w - cb[c]) + lo))
                } else {
                    let w = w0[c] + wide(d) * rw;
                    (w, T::ZERO, w - wide(cb[c]))
                };
                let (mut hu, mut hv) = (hu0[c] + d * r.hu, hv0[c] + d * r.hv);
                if h < W::ZERO {
                    (w, lo) = (wide(cb[c]), T::ZERO);
                }
                if h <= wide(k.dry) {
                    (hu, hv) = (T::ZERO, T::ZERO);
                }
                let (mw, mhu, mhv) = m.fields();
                let bits = |v: W| v.to_f64().to_bits();
                assert_eq!(bits(mw[c]), bits(w), "seed {seed}: w at ({i}, {j}): {} vs {w}", mw[c]);
                let bits = |v: T| v.to_f64().to_bits();
                assert_eq!((bits(mhu[c]), bits(mhv[c])), (bits(hu), bits(hv)), "seed {seed}: momenta at ({i}, {j})");
                if let Some(low) = m.low() {
                    assert_eq!(bits(low[c]), bits(lo), "seed {seed}: low part at ({i}, {j})");
                }
                not_t += (wide(w.narrow()) != w) as usize;
                with_low += (lo != T::ZERO) as usize;
                checked += 1;
            }
        }
        if W::WIDER {
            assert!(not_t * 2 > checked, "seed {seed}: only {not_t} of {checked} surfaces are not f32 values");
        }
        if compensated {
            assert!(with_low * 2 > checked, "seed {seed}: only {with_low} of {checked} cells have a low part");
        }
    }
}

#[test]
fn f64_reference_matches_the_written_out_step() {
    check_written_out_step::<f64, f64>(Accumulation::Plain);
}

#[test]
fn f32_reference_matches_the_written_out_step() {
    check_written_out_step::<f32, f32>(Accumulation::Plain);
    check_written_out_step::<f32, f32>(Accumulation::Compensated);
}

#[test]
fn mixed_reference_matches_the_written_out_step() {
    check_written_out_step::<f32, f64>(Accumulation::Compensated);
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

/// The bound: f64's (`compensated.rs` keeps f64 to 1e-12 over 10⁴ steps).
const BOUND: f64 = 1e-12;

/// The mixed start is exactly dry where the problem is dry (w̄ = B̄ of the f32 cell bed, depth 0)
/// and the f64 state's h + B̄ where it is wet: the lake with islands and the random problem's
/// shore, where the f64 state's B̄ differs from the f32 one (it once left that difference, up to
/// half an f32 ulp of B̄, as water in dry cells: wet by the wet map, drained by `clamp`'s passes).
#[test]
fn mixed_start_is_dry_where_the_problem_is() {
    for (name, p) in [("lake at rest", setup::lake_at_rest(40, 40)), ("random shore", random_problem(30, 7))] {
        let m = mixed(&p);
        let h = depth(&p, &m);
        let wide = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
        let w64 = p.interior(wide.fields().0);
        let w = p.interior(m.fields().0);
        let (mut dry, mut differs) = (0, 0);
        for c in 0..h.len() {
            if p.h[c] > 0.0 {
                assert_eq!(w[c].to_bits(), w64[c].to_bits(), "{name}: wet cell {c} is not the f64 state's surface");
            } else {
                assert_eq!(h[c], 0.0, "{name}: dry cell {c} holds {:e} m", h[c]);
                dry += 1;
                differs += (w64[c] != w[c]) as usize;
            }
        }
        println!("{name}: {dry} dry cells exactly dry, {differs} of them where the f64 bed is not the f32 one");
        assert!(dry > 0 && differs > 0, "{name}: the test would not tell ({dry} dry, {differs} differ)");
    }
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
        let (w, hu, hv) = m.fields();
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

/// The long runs, left out of the test command and run by `cargo long`.
mod long {
    use super::*;

    /// Thacker's bowl at 40², `clamp`, 10⁵ CPU steps in mixed precision keeps the volume at f64's
    /// level; the compensated f32 path (`compensated.rs`: 10⁵ steps within 1e-5) is run here to
    /// 2·10⁴ steps and exceeds this bound, so the bound tells the paths apart.
    #[test]
    #[ignore = "long: 10⁵ and 2·10⁴ CPU steps, about a minute and a half"]
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
    #[ignore = "long: 10⁵ and 2·10⁴ CPU steps, about a minute and a half"]
    fn mixed_bollermann_keeps_f64_volume() {
        let (err, secs) = mixed_bowl(WetDry::Bollermann, 20_000);
        println!("thacker 40², bollermann, 20000 steps: mixed {err:+.2e} ({secs:.1} s)");
        assert!(err.abs() <= BOUND, "mixed bollermann: relative volume change {err:.3e}");
    }
}

/// Early exit leaves alone the blocks that are dry with their neighbours, so it must give the
/// full update's bits: in KP07 a cell of at most twice the dry depth has dry faces, or the
/// faces of dry cells carry a few ulps of f32 water whose flux shows in mixed precision's f64 w
/// (its early exit parted from the full update by 2e-13 m within one step). Random states with
/// dry regions, every wet–dry scheme, mixed, f32 and f64, blocks of 32×8 and 32×4, 30 steps.
#[test]
fn early_exit_gives_the_full_updates_bits() {
    use super::gpu::random_state;
    fn first_difference<T: Real, W: Surface<T>>(p: &Problem, block: (u32, u32)) -> Option<String> {
        let mut full = CpuKp::<T, W>::new(p, block, false).unwrap();
        let mut early = CpuKp::<T, W>::new(p, block, true).unwrap();
        for step in 0..30 {
            full.step(f64::INFINITY).unwrap();
            early.step(f64::INFINITY).unwrap();
            let (a, b) = (full.fields(), early.fields());
            let bits =
                |x: &[T], y: &[T]| x.iter().zip(y).position(|(u, v)| u.to_f64().to_bits() != v.to_f64().to_bits());
            let w = a.0.iter().zip(b.0).position(|(u, v)| u.to_f64().to_bits() != v.to_f64().to_bits());
            if let Some(c) = w.or(bits(a.1, b.1)).or(bits(a.2, b.2)) {
                return Some(format!("step {step}, padded cell {c}"));
            }
        }
        None
    }
    for seed in [2, 4, 7] {
        for (nx, ny) in [(7, 24), (33, 20)] {
            for wet_dry in WetDry::ALL {
                let mut p = random_state(nx, ny, seed, 1);
                (p.wet_dry, p.scheme) = (wet_dry, Scheme::Rk2);
                for block in [(32, 8), (32, 4)] {
                    let what = format!("{nx}×{ny} seed {seed} {} block {block:?}", wet_dry.name());
                    let found = [
                        ("mixed", first_difference::<f32, f64>(&p, block)),
                        ("f32", first_difference::<f32, f32>(&p, block)),
                        ("f64", first_difference::<f64, f64>(&p, block)),
                    ];
                    for (precision, at) in found {
                        assert!(
                            at.is_none(),
                            "{what} {precision}: early exit differs from the full update at {}",
                            at.unwrap()
                        );
                    }
                }
            }
        }
    }
}
