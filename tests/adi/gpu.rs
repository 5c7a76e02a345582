//! The GPU sweeps against the CPU reference: every strategy with the y-sweep over columns and
//! over transposed copies, both precisions, random setups
//! (uneven beds, every boundary kind — land, flux, constant level, sine tide, level series — each friction law, wind, Coriolis, convection, eddy
//! viscosity, drying, rain uniform and gridded, soils of either model, one or by cell), awkward sizes, one and several steps, from a state with moving water
//! (the CPU runs a few steps first, so the GPU starts mid-rotation with non-zero fluxes), the
//! buffers a step writes poisoned. The GPU builds its rows with the same point functions as
//! the CPU (`kernels::adi`), so this checks the kernels' gathering, their index maps, the
//! solvers over the row provider, the buffer rotation (the transposed copies' too) and the
//! boundaries' timing.

use super::model;
use crate::common::{Tolerance, cases, gpu, magnitude};
use hydrokern::adi::cpu::Adi;
use hydrokern::adi::gpu::{GpuAdi, Strategy, YSweep};
use hydrokern::adi::{Boundary, Friction, Level, Setup, Side, Tide, Wind};
use hydrokern::forcing::{LEVEL, Series};
use hydrokern::{GpuReal, Rng};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::sync::Arc;

/// A random problem on nx × ny cells: see the module comment. With `drying`, part of the bed
/// stands above the still-water level.
fn setup(nx: usize, ny: usize, seed: u64, drying: bool) -> Setup {
    let mut r = Rng::new(seed);
    let mut s = Setup::basin(nx, ny, 40.0, 30.0, 4.0, 6.0);
    for k in 0..ny {
        for j in 0..nx {
            let i = k * nx + j;
            let x = j as f64 / nx as f64;
            s.depth[i] = 6.0 + 2.0 * r.unit() - 1.0 - if drying { 7.0 * x } else { 0.0 };
            s.zeta[i] = 0.3 * (r.unit() - 0.5) + if drying { (-s.depth[i] + 0.05).max(0.0) } else { 0.0 };
        }
    }
    s.friction = match pick(&mut r, 3) {
        0 => Friction::None,
        1 => Friction::Chezy(30.0 + 40.0 * r.unit()),
        _ => Friction::Manning(0.02 + 0.02 * r.unit()),
    };
    s.coriolis = 1e-4 * r.unit();
    s.wind = Wind { speed: 25.0 * r.unit(), direction: std::f64::consts::TAU * r.unit() };
    s.convection = pick(&mut r, 2) == 1;
    s.eddy = if pick(&mut r, 2) == 1 { 5.0 * r.unit() } else { 0.0 };
    s.drying = drying.then_some((0.2, 0.3));
    s.forcing = super::forcing::random_forcing(&mut r, nx, ny, false);
    for side in &mut s.sides {
        *side = match pick(&mut r, 5) {
            0 => Boundary::Land,
            1 => Boundary::Flux(0.5 * (r.unit() - 0.5)),
            2 => Boundary::Level(Level::constant(0.1 * r.unit())),
            3 => Boundary::Level(Level::Sine(Tide {
                mean: 0.0,
                amplitude: 0.2,
                period: 40.0 + 100.0 * r.unit(),
                phase: r.unit(),
            })),
            _ => {
                // A level every 3 s (not a multiple of the half step: interpolated).
                let text: String = (0..40).map(|i| format!("{} {}\n", 3 * i, 0.2 * (r.unit() - 0.5))).collect();
                Boundary::Level(Level::Series(Arc::new(
                    Series::parse("random series", &text, &LEVEL, "s", "m").unwrap(),
                )))
            }
        };
    }
    s
}

/// One of 0..n.
fn pick(r: &mut Rng, n: usize) -> usize {
    ((r.unit() * n as f64) as usize).min(n - 1)
}

/// The CPU reference after `warm` steps, then both backends `steps` more.
fn check<T: GpuReal>(
    s: &Setup,
    strategy: Strategy,
    y_sweep: YSweep,
    warm: usize,
    steps: usize,
) -> Result<(), TestCaseError> {
    let mut cpu: Adi<T> = model(s);
    cpu.run(warm).map_err(|e| TestCaseError::reject(format!("CPU warm-up failed: {e}")))?;
    let gpu = gpu();
    let mut dev =
        GpuAdi::with_y_sweep(&gpu, &cpu, strategy, y_sweep).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(dev.y_sweep(), y_sweep);
    let what =
        format!("{} × {}, {strategy} ({}), {} after {warm} + {steps} steps", s.nx, s.ny, dev.describe(), T::NAME);
    if cpu.run(steps).is_err() {
        return Err(TestCaseError::reject("the CPU reference broke down"));
    }
    dev.advance(steps as u64).map_err(|e| TestCaseError::fail(e.to_string()))?;
    dev.check(&gpu).map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
    let mut got = cpu.clone();
    dev.download(&gpu, &mut got).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(got.steps, cpu.steps);
    // Different elimination orders (Thomas, partition, PCR) on systems whose condition grows
    // with the Courant number: a few hundred roundings a step, relative to each field.
    let tol = |x: &[T]| Tolerance::eps(400.0).times(steps as f64).scaled(magnitude(x));
    let fail = |e: crate::common::Mismatch| TestCaseError::fail(format!("{what}: {e:?}"));
    tol(&cpu.zeta).check("ζ", &got.zeta, &cpu.zeta).map_err(fail)?;
    tol(&cpu.p).check("p", &got.p, &cpu.p).map_err(fail)?;
    tol(&cpu.q).check("q", &got.q, &cpu.q).map_err(fail)?;
    tol(&cpu.q_old).check("q_old", &got.q_old, &cpu.q_old).map_err(fail)?;
    prop_assert_eq!(got.infiltrated.len(), cpu.infiltrated.len());
    tol(&cpu.infiltrated).check("F", &got.infiltrated, &cpu.infiltrated).map_err(fail)?;
    let wet_diff = got.wet.iter().zip(&cpu.wet).filter(|(a, b)| a != b).count();
    prop_assert!(wet_diff == 0, "{}: {} cells wet on one backend and dry on the other", what, wet_diff);
    Ok(())
}

fn awkward() -> impl proptest::strategy::Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![1usize, 2, 3, 5, 7, 31, 32, 33, 63, 64, 65, 127, 129]), 1usize..100]
}

proptest! {
    #![proptest_config(crate::common::config(cases(16), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn adi_sweeps_match_cpu(nx in awkward(), ny in awkward(), seed: u64, drying: bool, warm in 0usize..4, steps in 1usize..4) {
        let s = setup(nx, ny, seed, drying);
        for strategy in Strategy::ALL.into_iter().chain([Strategy::Auto]) {
            for y in YSweep::ALL {
                check::<f64>(&s, strategy, y, warm, steps)?;
                check::<f32>(&s, strategy, y, warm, steps)?;
            }
        }
    }
}

/// Longer lines than the proptest reaches (several chunks and PCR levels, Thomas blocks past
/// the first), more steps.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn adi_sweeps_match_cpu_at_fixed_sizes() {
    for (nx, ny, drying) in [(300, 70, false), (257, 129, true), (1000, 3, false), (2, 700, true)] {
        let s = setup(nx, ny, (nx * 1000 + ny) as u64, drying);
        for strategy in Strategy::ALL {
            for y in YSweep::ALL {
                check::<f64>(&s, strategy, y, 2, 6).unwrap();
                check::<f32>(&s, strategy, y, 2, 6).unwrap();
            }
        }
    }
}

/// A non-finite value in the state: the breakdown is found at the check, named (step, sweep,
/// line), and the model goes back to the state before the failing step, bit for bit; by every
/// strategy with both designs of the y-sweep (the transposed design's copies alternate on a
/// rotation of their own, which must keep the start state's too). A NaN in ζ breaks the
/// x-sweep of its row.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn adi_breakdown_is_named_and_the_state_before_it_kept() {
    let s = setup(40, 30, 7, false);
    let mut cpu: Adi<f64> = model(&s);
    cpu.run(3).unwrap();
    let before = cpu.clone();
    cpu.zeta[17 * 40 + 9] = f64::NAN;
    breaks_at_step_4(&cpu, &before, &["x-sweep", "row 17"]);
}

/// The same for a breakdown in the y-sweep, after the step's x-sweep has written its outputs
/// (and, in the transposed design, its transposed copies): a NaN flux on the south side, which
/// only the y-sweep reads, breaks every column.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn adi_y_sweep_breakdown_is_named_and_the_state_before_it_kept() {
    let s = setup(40, 30, 7, false);
    let mut cpu: Adi<f64> = model(&s);
    cpu.run(3).unwrap();
    let before = cpu.clone();
    cpu.sides[Side::South as usize] = Boundary::Flux(f64::NAN);
    breaks_at_step_4(&cpu, &before, &["y-sweep", "breakdown on column"]);
}

/// `cpu` (after 3 steps, with something planted) on the GPU by every strategy and design: the
/// check names step 4 and `want`, and the state downloaded is `before` bit for bit.
fn breaks_at_step_4(cpu: &Adi<f64>, before: &Adi<f64>, want: &[&str]) {
    for (strategy, y) in Strategy::ALL.into_iter().flat_map(|s| YSweep::ALL.map(|y| (s, y))) {
        let gpu = gpu();
        let mut dev = GpuAdi::with_y_sweep(&gpu, cpu, strategy, y).unwrap();
        dev.advance(5).unwrap();
        let e = dev.check(&gpu).expect_err("the planted NaN must be a breakdown").to_string();
        assert!(e.contains("step 4") && want.iter().all(|w| e.contains(w)), "{strategy}, {y}: {e}");
        assert_eq!(dev.steps(), 3, "{strategy}, {y}: {e}");
        let mut got = before.clone();
        dev.download(&gpu, &mut got).unwrap();
        let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        let fluxes = same(&got.p, &before.p) && same(&got.q, &before.q) && same(&got.q_old, &before.q_old);
        assert!(fluxes, "{strategy}, {y}: a flux changed");
        assert!(same(&got.zeta, &cpu.zeta) && got.wet == before.wet, "{strategy}, {y}: ζ or the wet map changed");
    }
}
