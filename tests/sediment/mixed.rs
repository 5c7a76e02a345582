//! Mixed precision for sediment (docs/f32-conservation.md, "Mixed precision for sediment: h in
//! f64, the rest in f32"): h in f64, s, α, β and the face conductances in f32, the face fluxes
//! and the h update in f64. Its CPU
//! reference (`CpuSediment<f32, f64>`) against a step written out here without the shared point
//! functions; the exact-solution and conservation tests of the f64 path in mixed precision; a
//! long run's mass balance beside f32's and f64's; the GPU kernels against the reference.

use crate::common::sediment::mass_balance;
use crate::common::{Tolerance, cases, gpu};
use hydrokern::Rng;
use hydrokern::field::Field2;
use hydrokern::grid::Layout2;
use hydrokern::sediment::cpu::{self, CpuSediment};
use hydrokern::sediment::gpu::Launch;
use hydrokern::sediment::mixed::GpuMixed;
use hydrokern::sediment::{Accumulation, Problem, Scheme, Side, setup};
use proptest::prelude::*;

/// A random problem: smooth h (metres to tens of metres) with noise, s in [0, 1], α, β in
/// [0.5, 2], inflow on some sides when `inflow`.
fn random_problem(nx: usize, ny: usize, seed: u64, inflow: bool, scheme: Scheme) -> Problem {
    let mut rng = Rng::new(seed);
    let mut rnd = move || rng.unit();
    let (p, n) = (nx + 2, (nx + 2) * (ny + 2));
    let (kx, ky, ph) = (1.0 + 3.0 * rnd(), 1.0 + 3.0 * rnd(), 6.0 * rnd());
    let [mut h, mut s, mut alpha, mut beta] = [(); 4].map(|_| vec![0.0; n]);
    for c in 0..n {
        let (i, j) = ((c % p) as f64, (c / p) as f64);
        h[c] = -100.0 + 10.0 * ((kx * i / p as f64 + ph).sin() + (ky * j / (ny + 2) as f64).cos()) + rnd();
        (s[c], alpha[c], beta[c]) = (rnd(), 0.5 + 1.5 * rnd(), 0.5 + 1.5 * rnd());
    }
    let side = |r: f64, q: f64| if inflow && r < 0.5 { Side { q, s_in: 0.8 } } else { Side::CLOSED };
    let sides = [side(rnd(), 0.3), side(rnd(), 0.2), side(rnd(), 0.25), side(rnd(), 0.1)];
    let layout = Layout2::new(nx as u32, ny as u32, 1);
    let [h, s, alpha, beta] = [h, s, alpha, beta].map(|f| Field2::from_stored(layout, f).unwrap());
    let (dx, dy, cs, cm, a) = (1.0, 1.3, 0.7, 0.6, 2.0 + 3.0 * rnd());
    Problem { nx, ny, dx, dy, cs, cm, a, sides, h, s, alpha, beta, scheme, accumulation: Accumulation::default() }
}

fn auto_dt(p: &Problem) -> f64 {
    p.stability(&p.h).automatic()
}

// --------------------------------------------------- the reference, written out ----

/// One mixed step on the interior written out from the model's equations (docs/design.md and
/// docs/sediment-bounded.md) with the mixed split, not through the point functions: from h (f64)
/// and s, α, β (f32) with their ghosts as the reference set them, (h', s') on the interior (the
/// `seed` scheme's s' only where its stencil of h' lies inside: from the second cell in).
fn written_out_step(p: &Problem, dt: f64, h: &[f64], s: &[f32], al: &[f32], be: &[f32]) -> (Vec<f64>, Vec<f32>) {
    let (pitch, n) = (p.nx + 2, h.len());
    let c32 = |v: f64| v as f32;
    let (inv_cs, inv_cm, inv_a) = (c32(1.0 / p.cs), c32(1.0 / p.cm), c32(1.0 / p.a));
    let (cx, cy) = (dt / (p.dx * p.dx), dt / (p.dy * p.dy));
    let (mut hn, mut sn) = (vec![f64::NAN; n], vec![f32::NAN; n]);
    let interior = |c: usize| (1..=p.nx).contains(&(c % pitch)) && (1..=p.ny).contains(&(c / pitch));
    // The four neighbours with their Δt/Δ² (f64 and f32) and sign: east, west, north, south.
    let nbrs = |c: usize| [(c + 1, cx), (c - 1, cx), (c + pitch, cy), (c - pitch, cy)];
    for c in (0..n).filter(|&c| interior(c)) {
        match p.scheme {
            Scheme::Seed => {
                // K = ½ (αs/C_s + β(1−s)/C_m summed over the face's two cells), in f32.
                let k = |m: usize| {
                    let (a, b) = (al[c] * s[c] + al[m] * s[m], be[c] * (1.0 - s[c]) + be[m] * (1.0 - s[m]));
                    0.5 * (inv_cs * a + inv_cm * b)
                };
                let f = |m: usize, d2: f64| d2 * (k(m) as f64 * (h[m] - h[c]));
                let [e, w, nn, ss] = nbrs(c);
                hn[c] = h[c] + (f(e.0, e.1) + f(w.0, w.1)) + (f(nn.0, nn.1) + f(ss.0, ss.1));
            }
            Scheme::Bounded => {
                let mob = |g: usize| (al[g] * s[g] * inv_cs, be[g] * (1.0 - s[g]) * inv_cm);
                // Each lithology's face mobility: the mean, at most twice the upwind cell's.
                let face = |mc: f32, mn: f32, c_up: bool| (0.5 * (mc + mn)).min(2.0 * if c_up { mc } else { mn });
                let (mut dh, mut sand, mut mud) = (0.0f64, [0.0f32; 2], [0.0f32; 2]);
                for (axis, (m, d2)) in nbrs(c).into_iter().enumerate() {
                    let ((ac, bc), (am, bm)) = (mob(c), mob(m));
                    let up = h[c] > h[m];
                    let (fa, fb) = (face(ac, am, up), face(bc, bm, up));
                    dh += d2 * ((fa + fb) as f64 * (h[m] - h[c]));
                    let d = c32(h[m] - h[c]);
                    sand[axis / 2] += fa * d;
                    mud[axis / 2] += fb * d;
                }
                let (x, y) = (c32(cx), c32(cy));
                let (sand, mud) = (x * sand[0] + y * sand[1], x * mud[0] + y * mud[1]);
                hn[c] = h[c] + dh;
                sn[c] = s[c] + ((1.0 - s[c]) * sand - s[c] * mud) * inv_a;
            }
        }
    }
    if p.scheme == Scheme::Seed {
        // s' from h' by the `seed` scheme's s-equation, upwind ∇(αs) against −∇h'.
        let deep = |c: usize| interior(c) && nbrs(c).iter().all(|&(m, _)| interior(m));
        for c in (0..n).filter(|&c| deep(c)) {
            let (e, w, nn, ss) = (c + 1, c - 1, c + pitch, c - pitch);
            let lap = c32(hn[e] - 2.0 * hn[c] + hn[w]) * c32(1.0 / (p.dx * p.dx))
                + c32(hn[nn] - 2.0 * hn[c] + hn[ss]) * c32(1.0 / (p.dy * p.dy));
            let (gx, gy) = (c32(hn[e] - hn[w]) * c32(0.5 / p.dx), c32(hn[nn] - hn[ss]) * c32(0.5 / p.dy));
            let a = |g: usize| al[g] * s[g];
            let dax = if hn[w] > hn[e] { a(c) - a(w) } else { a(e) - a(c) } * c32(1.0 / p.dx);
            let day = if hn[ss] > hn[nn] { a(c) - a(ss) } else { a(nn) - a(c) } * c32(1.0 / p.dy);
            sn[c] =
                s[c] + c32(dt / p.a) * inv_cs * (a(c) * lap + dax * gx + day * gy) - s[c] * c32(hn[c] - h[c]) * inv_a;
        }
    }
    (hn, sn)
}

#[test]
fn mixed_reference_matches_the_written_out_step() {
    for scheme in Scheme::ALL {
        for (seed, (nx, ny)) in [(3u64, (17usize, 11usize)), (8, (5, 23)), (21, (40, 31))] {
            let p = random_problem(nx, ny, seed, true, scheme);
            let dt = auto_dt(&p);
            let mut m = CpuSediment::<f32, f64>::new(&p, dt).unwrap();
            let (h, s) = (m.h().to_vec(), m.s().to_vec());
            let (al, be): (Field2<f32>, Field2<f32>) = (p.alpha.convert(), p.beta.convert());
            let mut g = (al.to_vec(), be.to_vec());
            // The written-out step reads the ghost layer of α, β as the reference fills it.
            let (mut hh, mut ss) = (h.clone(), s.clone());
            cpu::apply_ghosts(&p.coeffs::<f32>(dt, 1), &mut hh, &mut ss, &mut g.0, &mut g.1);
            let (want_h, want_s) = written_out_step(&p, dt, &h, &s, &g.0, &g.1);
            m.step();
            let what = format!("{} scheme, {nx}×{ny}, seed {seed}", scheme.name());
            let scale = crate::common::magnitude(&h);
            let mut compared = 0;
            for c in (0..h.len()).filter(|&c| !want_h[c].is_nan()) {
                let dh = (m.h()[c] - want_h[c]).abs();
                assert!(dh <= 4.0 * f64::EPSILON * scale, "{what}: h'[{c}] {} against {}", m.h()[c], want_h[c]);
                compared += 1;
            }
            for c in (0..s.len()).filter(|&c| !want_s[c].is_nan()) {
                let ds = (m.s()[c] - want_s[c]).abs();
                assert!(ds <= 8.0 * f32::EPSILON, "{what}: s'[{c}] {} against {}", m.s()[c], want_s[c]);
            }
            assert_eq!(compared, nx * ny, "{what}: h' compared on the whole interior");
            // The step changed h by more than f32 could hold: the comparison above is in f64.
            let moved = (0..h.len()).filter(|&c| !want_h[c].is_nan()).any(|c| m.h()[c] != (m.h()[c] as f32) as f64);
            assert!(moved, "{what}: h' holds f32 values only");
        }
    }
}

// -------------------------------------------- the f64 path's exact solutions in mixed ----

/// The cosine mode of `reference_and_gpu.rs`'s heat test, in mixed precision: h in f64, s ≡ 1, α, β
/// and the conductances in f32.
#[test]
fn mixed_heat_mode_decays_as_exact_solution_at_second_order() {
    let strip = |n| random_problem(n, 4, 3, false, Scheme::Seed);
    crate::common::sediment::heat_mode_decays_at_second_order("mixed", |n| {
        crate::common::sediment::heat_error::<f32, f64>(strip(n), 0.05)
    });
}

/// `reference_and_gpu.rs`'s closed basin (1e-13 of Σ|h|) and inflow (1e-10 of the supply) in mixed.
#[test]
fn mixed_conserves_and_adds_the_supplied_volume_as_f64_does() {
    for scheme in Scheme::ALL {
        for inflow in [false, true] {
            let p = random_problem(40, 23, 5, inflow, scheme);
            assert_eq!(p.supply_rate() > 0.0, inflow, "{} scheme: the problem's inflow", scheme.name());
            crate::common::sediment::conserves::<f32, f64>(&p, auto_dt(&p), 300);
        }
    }
}

// ----------------------------------------------------- a long run's mass balance ----

const STEPS: u64 = 100_000;

/// The bound of `reference_and_gpu.rs`'s f64 inflow test, 1e-10 of the supply. The h update rounds
/// in f64, ε/2·|h| ≤ 2.4e-14 m a cell and step on this basin (|h| ≤ 220 m), without bias; the
/// faces' fluxes are f64 values each cell of a face adds with opposite signs, and the inflow
/// face's is q·Δ·Δt/Δ² to f64's round-off (the ghost h is formed in f64). f64 itself lands
/// near 1e-13 here; f32's compensated path near 1e-8, which this bound tells apart.
const BOUND: f64 = 1e-10;

// ------------------------------------------------------------ GPU ≡ CPU reference ----

/// As `reference_and_gpu.rs`'s GPU tolerance, 64 ε a step, in f32's ε (s is f32, and the GPU
/// contracts the multiply-adds of its update and of the bounded scheme's mobilities; the `seed`
/// scheme's face conductances are pinned and match the reference's bits) relative to the
/// fields' magnitudes: h (f64) differs from the reference by what its f32 inputs change of the
/// increments.
const GPU_STEP: f64 = 64.0 * f32::EPSILON as f64;

fn check_gpu(p: &Problem, launch: Launch, steps: usize) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let dt = auto_dt(p);
    let mut cpu_m = CpuSediment::<f32, f64>::new(p, dt).unwrap();
    let mut gpu_m = GpuMixed::new(&gpu, p, dt, launch).unwrap();
    for _ in 0..steps {
        gpu_m.poison_outputs().unwrap();
        gpu_m.step().unwrap();
        cpu_m.step();
    }
    let (gh, gs) = gpu_m.download(&gpu).unwrap();
    let what = |name: &str| {
        format!(
            "{} scheme, mixed {}×{} block {:?} rows {}: {name} after {steps} steps",
            p.scheme.name(),
            p.nx,
            p.ny,
            launch.block,
            launch.rows
        )
    };
    let bound = Tolerance::abs(GPU_STEP).times(steps as f64);
    bound.scaled(crate::common::magnitude(&p.h)).check(&what("h"), &gh, cpu_m.h())?;
    bound.check(&what("s"), &gs, cpu_m.s())?;
    Ok(())
}

fn awkward_size() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), Just(2), Just(3), Just(7), Just(31), Just(32), Just(33), Just(65), 1usize..140]
}

proptest! {
    #![proptest_config(crate::common::config(cases(48), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn mixed_gpu_matches_cpu(
        nx in awkward_size(),
        ny in awkward_size(),
        seed: u64,
        inflow: bool,
        warps in prop::sample::select(vec![1u32, 2, 4, 8]),
        rows in prop::sample::select(vec![1u32, 3, 8]),
        steps in prop::sample::select(vec![1usize, 5]),
    ) {
        for scheme in Scheme::ALL {
            let p = random_problem(nx, ny, seed, inflow, scheme);
            check_gpu(&p, Launch { block: (32, warps), rows }, steps)?;
        }
    }
}

/// The GPU's mixed kernels keep the f64 mass balance on the basin (61², `GPU_STEPS` steps), in
/// both schemes. The `seed` scheme's would lose 5.6e-9 of the supply (measured on an H100) if
/// its ghost kernel and fused kernel contracted the face conductance K into multiply-adds
/// differently (the inflow face's flux K_fused·qΔ/K_ghost an f32 ulp from qΔ every step); both
/// compute K by `kernels::sediment::face_k`'s pinned operations.
const GPU_STEPS: u64 = 30_000;

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn mixed_gpu_keeps_f64_mass_balance() {
    let gpu = gpu();
    for scheme in Scheme::ALL {
        let mut p = setup::basin(61, 61, 5.0).unwrap();
        p.scheme = scheme;
        let dt = auto_dt(&p);
        let mut m = GpuMixed::new(&gpu, &p, dt, Launch::default()).unwrap();
        let v0 = p.volume(&m.download_h(&gpu).unwrap());
        for _ in 0..GPU_STEPS {
            m.step().unwrap();
        }
        let supplied = p.supply_rate() * dt * GPU_STEPS as f64;
        let err = (p.volume(&m.download_h(&gpu).unwrap()) - v0 - supplied) / supplied;
        println!("{} scheme, mixed on the GPU at 61², {GPU_STEPS} steps: {err:.2e}", scheme.name());
        assert!(err.abs() <= BOUND, "{} scheme: relative mass balance {err:.3e}", scheme.name());
    }
}

/// The long runs, left out of the test command and run by `cargo long`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long: 10⁵ CPU steps, about a minute"]
    fn mixed_keeps_f64_mass_balance_over_1e5_steps() {
        for scheme in Scheme::ALL {
            let basin = |accumulation| {
                let mut p = setup::basin(32, 32, 5.0).unwrap();
                (p.scheme, p.accumulation) = (scheme, accumulation);
                p
            };
            let p = basin(Accumulation::Compensated);
            let (mixed, secs) = mass_balance::<f32, f64>(&p, STEPS);
            let (f64_, f64_secs) = mass_balance::<f64, f64>(&p, STEPS);
            let (comp, comp_secs) = mass_balance::<f32, f32>(&p, STEPS);
            let (plain, plain_secs) = mass_balance::<f32, f32>(&basin(Accumulation::Plain), STEPS);
            println!(
                "{} scheme, 32² basin, {STEPS} steps: mixed {mixed:.2e} ({secs:.1} s), f64 {f64_:.2e} ({f64_secs:.1} s), \
                 f32 compensated {comp:.2e} ({comp_secs:.1} s), f32 plain {plain:.2e} ({plain_secs:.1} s)",
                scheme.name()
            );
            assert!(mixed.abs() <= BOUND, "{} scheme: mixed relative mass balance {mixed:.3e}", scheme.name());
            assert!(
                comp.abs() > BOUND,
                "{} scheme: f32 compensated {comp:.3e}: the bound no longer tells f32 and f64 apart",
                scheme.name()
            );
        }
    }
}
