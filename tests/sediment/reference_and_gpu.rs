//! Sediment transport: the CPU reference against exact solutions and invariants, the point
//! functions against straightforward formulas, and every GPU variant against the CPU reference.

use crate::common::{Tolerance, cases, gpu};
use hydrokern::field::Field2;
use hydrokern::grid::Layout2;
use hydrokern::sediment::cpu::{self, CpuSediment};
use hydrokern::sediment::gpu::{GpuSediment, Launch};
use hydrokern::sediment::{Accumulation, Problem, Scheme, Side, StepVariant, setup};
use hydrokern::{GpuReal, Rng};
use proptest::prelude::*;

/// A random problem: smooth h with noise, s in [0, 1], α, β in [0.5, 2], random sides.
pub(crate) fn random_problem(nx: usize, ny: usize, seed: u64, inflow: bool) -> Problem {
    let mut rng = Rng::new(seed);
    let mut rnd = move || rng.unit();
    let p = nx + 2;
    let n = p * (ny + 2);
    let (kx, ky, ph) = (1.0 + 3.0 * rnd(), 1.0 + 3.0 * rnd(), 6.0 * rnd());
    let mut h = vec![0.0; n];
    let (mut s, mut alpha, mut beta) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for j in 0..ny + 2 {
        for i in 0..p {
            let c = j * p + i;
            h[c] = 10.0 * ((kx * i as f64 / p as f64 + ph).sin() + (ky * j as f64 / (ny + 2) as f64).cos()) + rnd();
            s[c] = rnd();
            alpha[c] = 0.5 + 1.5 * rnd();
            beta[c] = 0.5 + 1.5 * rnd();
        }
    }
    let side = |r: f64, q: f64| if inflow && r < 0.5 { Side { q, s_in: 0.8 } } else { Side::CLOSED };
    let sides = [side(rnd(), 0.3), side(rnd(), 0.2), side(rnd(), 0.25), side(rnd(), 0.1)];
    let layout = Layout2::new(nx as u32, ny as u32, 1);
    let [h, s, alpha, beta] = [h, s, alpha, beta].map(|f| Field2::from_stored(layout, f).unwrap());
    let a = 2.0 + 3.0 * rnd();
    Problem {
        nx,
        ny,
        dx: 1.0,
        dy: 1.3,
        cs: 0.7,
        cm: 0.6,
        a,
        sides,
        h,
        s,
        alpha,
        beta,
        scheme: Scheme::default(),
        accumulation: Default::default(),
    }
}

/// `p` with `scheme`.
fn with(scheme: Scheme, mut p: Problem) -> Problem {
    p.scheme = scheme;
    p
}

fn auto_dt(p: &Problem) -> f64 {
    p.stability(&p.h).automatic()
}

// ------------------------------------------------------------ point functions ----

/// h' written as docs/design.md states the model, term by term, against the shared point function.
#[test]
fn h_point_matches_textbook_form() {
    let p = random_problem(3, 3, 7, true);
    let dt = 0.01;
    let k = p.coeffs::<f64>(dt, 1);
    let mut h_new = vec![0.0; p.len()];
    cpu::h_step(&k, &p.h, &p.s, &p.alpha, &p.beta, &mut h_new, None);
    let (pp, c) = (p.pitch(), p.index(2, 2));
    let (h, s, a, b) = (&p.h, &p.s, &p.alpha, &p.beta);
    let as_ = |g: usize| a[g] * s[g];
    let bs = |g: usize| b[g] * (1.0 - s[g]);
    let half = |f: &dyn Fn(usize) -> f64, g1: usize, g2: usize| (f(g1) + f(g2)) / 2.0;
    let sand_x = half(&as_, c, c + 1) * (h[c + 1] - h[c]) - half(&as_, c - 1, c) * (h[c] - h[c - 1]);
    let mud_x = half(&bs, c, c + 1) * (h[c + 1] - h[c]) - half(&bs, c - 1, c) * (h[c] - h[c - 1]);
    let sand_y = half(&as_, c, c + pp) * (h[c + pp] - h[c]) - half(&as_, c - pp, c) * (h[c] - h[c - pp]);
    let mud_y = half(&bs, c, c + pp) * (h[c + pp] - h[c]) - half(&bs, c - pp, c) * (h[c] - h[c - pp]);
    let want = h[c]
        + dt / (p.dx * p.dx) * (sand_x / p.cs + mud_x / p.cm)
        + dt / (p.dy * p.dy) * (sand_y / p.cs + mud_y / p.cm);
    assert!((h_new[c] - want).abs() <= 1e-13 * want.abs().max(1.0), "{} vs {want}", h_new[c]);
}

/// s' written from A(s'−s)/Δt = −s(h'−h)/Δt + (1/C_s)[αs∇²h' + ∇(αs)·∇h'], both upwind cases.
#[test]
fn s_point_matches_textbook_form() {
    for seed in 1..20 {
        let p = random_problem(3, 3, seed, false);
        let dt = 0.01;
        let k = p.coeffs::<f64>(dt, 1);
        let hp: Vec<f64> = p.h.iter().enumerate().map(|(i, v)| v + 0.1 * (i as f64).sin()).collect();
        let mut s_new = vec![0.0; p.len()];
        cpu::s_step(&k, &p.h, &hp, &p.s, &p.alpha, &mut s_new);
        let (pp, c) = (p.pitch(), p.index(2, 2));
        let as_ = |g: usize| p.alpha[g] * p.s[g];
        let lap = (hp[c + 1] - 2.0 * hp[c] + hp[c - 1]) / p.dx.powi(2)
            + (hp[c + pp] - 2.0 * hp[c] + hp[c - pp]) / p.dy.powi(2);
        let gx = (hp[c + 1] - hp[c - 1]) / (2.0 * p.dx);
        let gy = (hp[c + pp] - hp[c - pp]) / (2.0 * p.dy);
        // Velocity −∇h': positive x-velocity (h' falls eastwards) takes the west difference.
        let dax = if -gx > 0.0 { as_(c) - as_(c - 1) } else { as_(c + 1) - as_(c) } / p.dx;
        let day = if -gy > 0.0 { as_(c) - as_(c - pp) } else { as_(c + pp) - as_(c) } / p.dy;
        let rhs = -p.s[c] * (hp[c] - p.h[c]) / dt + (as_(c) * lap + dax * gx + day * gy) / p.cs;
        let want = p.s[c] + dt / p.a * rhs;
        assert!((s_new[c] - want).abs() <= 1e-12, "seed {seed}: {} vs {want}", s_new[c]);
    }
}

// ------------------------------------------------------------------ validation ----

#[test]
fn heat_mode_decays_as_exact_solution_at_second_order() {
    let strip = |n| random_problem(n, 4, 3, false);
    crate::common::sediment::heat_mode_decays_at_second_order("f64", |n| {
        crate::common::sediment::heat_error::<f64, f64>(strip(n), 0.05)
    });
}

#[test]
fn closed_basin_conserves_volume_to_round_off() {
    for scheme in Scheme::ALL {
        let p = with(scheme, random_problem(37, 29, 11, false));
        crate::common::sediment::conserves::<f64, f64>(&p, auto_dt(&p), 500);
    }
}

#[test]
fn inflow_adds_exactly_the_supplied_volume() {
    for scheme in Scheme::ALL {
        let p = with(scheme, random_problem(40, 23, 5, true));
        assert!(p.supply_rate() > 0.0, "the test needs a problem with inflow on at least one side");
        crate::common::sediment::conserves::<f64, f64>(&p, auto_dt(&p), 300);
    }
}

#[test]
fn sand_fraction_stays_in_unit_interval_at_automatic_step() {
    for scheme in Scheme::ALL {
        basin_stays_bounded(with(scheme, setup::basin(64, 64, 5.0).unwrap()));
    }
}

fn basin_stays_bounded(p: Problem) {
    let mut dt = auto_dt(&p);
    let mut m = CpuSediment::<f64>::new(&p, dt).unwrap();
    for step in 0..2000 {
        if step % 100 == 0 {
            let h: Vec<f64> = m.h().to_vec();
            dt = p.stability(&h).automatic();
            m.set_dt(&p, dt);
        }
        m.step();
    }
    let (lo, hi) = m.s().iter().fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(lo >= 0.0 && hi <= 1.0, "{}: s in [{lo}, {hi}]", p.scheme.name());
}

#[test]
fn forced_unstable_step_is_refused_with_the_limit() {
    let p = setup::basin(32, 32, 5.0).unwrap();
    let lim = p.stability(&p.h).limit();
    assert!(p.check_dt(0.5 * lim, &p.h).is_ok());
    let err = p.check_dt(2.0 * lim, &p.h).unwrap_err().to_string();
    assert!(err.contains("stability limit"), "{err}");
}

/// A side whose supplied sediment cannot move into its cells is refused: the bounded scheme
/// carries sand only where α > 0 and mud only where β > 0, so pure sand over α = 0 has no way in
/// (the `seed` scheme's mean conductance still takes it through β).
#[test]
fn inflow_that_cannot_enter_is_refused() {
    let mut p = setup::basin(8, 8, 1.0).unwrap();
    p.sides[0] = Side { q: 1.0, s_in: 1.0 };
    let c = p.index(1, 4);
    p.alpha[c] = 0.0;
    let err = p.check_inflow().unwrap_err().to_string();
    assert!(err.contains("west side") && err.contains("cannot enter"), "{err}");
    assert!(with(Scheme::Seed, p.clone()).check_inflow().is_ok());
    p.sides[0].s_in = 0.5;
    assert!(p.check_inflow().is_ok(), "mud can enter through β");
}

#[test]
fn bad_inputs_are_refused() {
    let mut p = setup::basin(8, 8, 1.0).unwrap();
    let c = p.index(3, 3);
    p.alpha[c] = -1.0;
    assert!(p.validate().unwrap_err().to_string().contains("alpha[3, 3]"));
    let mut p = setup::basin(8, 8, 1.0).unwrap();
    let c = p.index(2, 5);
    p.s[c] = 1.5;
    assert!(p.validate().unwrap_err().to_string().contains("s[2, 5]"));
    let mut p = setup::basin(8, 8, 1.0).unwrap();
    p.nx = 0;
    assert!(p.validate().is_err());
    assert!("opt9/opt1".parse::<StepVariant>().is_err());
    assert_eq!("opt3/multi".parse::<StepVariant>().unwrap().name(), "opt3/multi");
    assert!("upwind".parse::<Scheme>().unwrap_err().to_string().contains("bounded or seed"));
    assert_eq!("seed".parse::<Scheme>().unwrap(), Scheme::Seed);
    assert_eq!(Scheme::default(), Scheme::Bounded);
}

// ------------------------------------------------------------- GPU vs CPU ----

/// GPU against CPU after a number of steps, per step and relative to the field's magnitude
/// (h: max(1, max|h|) of the initial state; s: 1, it lies in [0, 1]). Kernels and reference
/// evaluate the same point functions; the GPU contracts their multiply-adds, a rounding
/// difference of a few ε in each of the ~90 operations of a point, which the explicit step
/// carries forward without growth (it is stable at the automatic Δt): 64 ε per step.
const GPU_STEP: Tolerance = Tolerance::eps(64.0);

fn check_gpu<T: GpuReal>(p: &Problem, variant: StepVariant, launch: Launch, steps: usize) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let dt = auto_dt(p);
    let mut cpu_m = CpuSediment::<T>::new(p, dt).unwrap();
    let mut gpu_m = GpuSediment::<T>::new(&gpu, p, dt, launch).unwrap();
    for _ in 0..steps {
        gpu_m.poison_outputs(&gpu).unwrap();
        gpu_m.step(variant).unwrap();
        cpu_m.step();
    }
    let (gh, gs) = gpu_m.download(&gpu).unwrap();
    // On the compensated path h is high + low: compared summed, so a low part a kernel failed
    // to write (poisoned to NaN) fails the comparison.
    let (gh, ch) =
        (with_low(gh, gpu_m.download_low(&gpu).unwrap().as_deref()), with_low(cpu_m.h().to_vec(), cpu_m.low()));
    let h_scale = crate::common::magnitude(&p.h);
    for (name, g, c, scale) in [("h", &gh, &ch[..], h_scale), ("s", &gs, cpu_m.s(), 1.0)] {
        let what = format!(
            "{} scheme, {} h update, {} {}×{} block {:?} rows {}: {name} after {steps} steps",
            p.scheme.name(),
            p.accumulation.effective::<T>(),
            variant.name(),
            p.nx,
            p.ny,
            launch.block,
            launch.rows
        );
        GPU_STEP.times(steps as f64).scaled(scale).check(&what, g, c)?;
    }
    Ok(())
}

/// h as high + low (one rounding) where the run keeps a low part.
fn with_low<T: GpuReal>(mut h: Vec<T>, low: Option<&[T]>) -> Vec<T> {
    if let Some(low) = low {
        h.iter_mut().zip(low).for_each(|(hi, lo)| *hi += *lo);
    }
    h
}

fn awkward_size() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), Just(2), Just(3), Just(7), Just(31), Just(32), Just(33), Just(65), 1usize..140]
}

proptest! {
    #![proptest_config(crate::common::config(cases(48), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn sediment_gpu_matches_cpu(
        nx in awkward_size(),
        ny in awkward_size(),
        seed: u64,
        inflow: bool,
        v in prop::sample::select(StepVariant::covering()),
        block in prop::sample::select(vec![(32u32, 8u32), (16, 16), (8, 4), (32, 4), (30, 30)]),
        rows in prop::sample::select(vec![1u32, 3, 8]),
        steps in prop::sample::select(vec![1usize, 5]),
        scheme in prop::sample::select(Scheme::ALL.to_vec()),
        accumulation in prop::sample::select(Accumulation::ALL.to_vec()),
    ) {
        let mut p = with(scheme, random_problem(nx, ny, seed, inflow));
        p.accumulation = accumulation;
        let launch = Launch { block, rows };
        check_gpu::<f32>(&p, v, launch, steps)?;
        check_gpu::<f64>(&p, v, launch, steps)?;
    }
}

/// Every variant at a size with several blocks each way, f64 and f32 (both h updates), on the
/// basin set-up.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn every_variant_matches_cpu_on_the_basin() {
    for scheme in Scheme::ALL {
        for accumulation in Accumulation::ALL {
            let mut p = with(scheme, setup::basin(150, 97, 5.0).unwrap());
            p.accumulation = accumulation;
            for v in StepVariant::covering() {
                check_gpu::<f64>(&p, v, Launch::default(), 3).unwrap();
                check_gpu::<f32>(&p, v, Launch::default(), 3).unwrap();
            }
        }
    }
}
