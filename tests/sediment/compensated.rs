//! f32 sediment conserves h-mass (docs/f32-conservation.md): over a long run with inflow the
//! basin gains what the river supplies to a relative error that does not grow with the step
//! count, on the compensated path (the default) — and the plain path, which loses increments
//! to h's round-off, does not; the GPU's compensated kernels against the CPU reference.

use crate::common::gpu;
use crate::common::sediment::mass_balance;
use hydrokern::Real;
use hydrokern::sediment::gpu::{GpuSediment, Launch};
use hydrokern::sediment::{Accumulation, Problem, Scheme, StepVariant, setup};
use kernels::sediment::compensated_add;

/// The bound on |gained − supplied| / supplied f32 is held to (10⁵–10⁶ steps;
/// docs/f32-conservation.md).
const BOUND: f64 = 1e-5;

/// Volume of the basin in f64: Σ (high + low) ΔxΔy.
fn volume<T: Real>(p: &Problem, h: &[T], low: Option<&[T]>) -> f64 {
    p.volume(h) + low.map_or(0.0, |l| p.volume(l))
}

/// The basin at `n`² (32²: dx = 800 m; h from −20 to −220 m) fed by the river, with `accumulation`.
fn basin(n: usize, scheme: Scheme, accumulation: Accumulation) -> Problem {
    let mut p = setup::basin(n, n, 5.0).unwrap();
    p.scheme = scheme;
    p.accumulation = accumulation;
    p
}

const STEPS: u64 = 100_000;

/// Every GPU variant of both schemes on the compensated path keeps the bound over `GPU_STEPS`
/// steps (the plain path's error printed beside it): the kernels carry the low part as the CPU
/// reference does, and the GPU's contracted multiply-adds, which make a face's two fluxes
/// differ in their last bits, stay far below it.
const GPU_STEPS: u64 = 30_000;

fn gpu_mass_balance(p: &Problem, variant: StepVariant) -> f64 {
    let gpu = gpu();
    let dt = p.stability(&p.h).automatic();
    let mut m = GpuSediment::<f32>::new(&gpu, p, dt, Launch::default()).unwrap();
    let total = |m: &GpuSediment<f32>| {
        let low = m.download_low(&gpu).unwrap();
        volume(p, &m.download_h(&gpu).unwrap(), low.as_deref())
    };
    let v0 = total(&m);
    for _ in 0..GPU_STEPS {
        m.step(variant).unwrap();
    }
    let supplied = p.supply_rate() * dt * GPU_STEPS as f64;
    (total(&m) - v0 - supplied) / supplied
}

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn every_gpu_variant_keeps_f32_mass_balance() {
    for scheme in Scheme::ALL {
        for v in StepVariant::covering() {
            let err = gpu_mass_balance(&basin(61, scheme, Accumulation::Compensated), v);
            let plain = gpu_mass_balance(&basin(61, scheme, Accumulation::Plain), v);
            let what = format!("{} scheme, {} at 61², {GPU_STEPS} steps", scheme.name(), v.name());
            println!("{what}: f32 compensated {err:.2e}, plain {plain:.2e}");
            assert!(err.abs() <= BOUND, "{what}: relative mass balance {err:.3e}");
        }
    }
}

/// The pair's update is exact: hi' + lo' = hi + fl(lo + Δh) in f64, for h of either sign,
/// increments far below and above h's unit round-off, and a pair that crosses zero.
#[test]
fn compensated_add_keeps_the_sum_exact() {
    let mut rng = hydrokern::Rng::new(16);
    for _ in 0..100_000 {
        let hi = ((rng.unit() - 0.5) * 440.0) as f32;
        let lo = ((rng.unit() - 0.5) * 1e-5) as f32;
        let dh = ((rng.unit() - 0.5) * 10f64.powf(-9.0 + 11.0 * rng.unit())) as f32;
        let (t, e) = compensated_add(hi, lo, dh);
        let want = hi as f64 + (lo + dh) as f64;
        assert_eq!(t as f64 + e as f64, want, "hi {hi}, lo {lo}, Δh {dh}: pair ({t}, {e})");
        assert!(e.abs() <= t.abs() * f32::EPSILON / 2.0 || t == 0.0, "hi {hi}, lo {lo}, Δh {dh}: low part {e} of {t}");
    }
}

/// The long runs, left out of the test command and run by `cargo long`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long: 10⁵ CPU steps, about 20 s each"]
    fn compensated_f32_keeps_mass_balance_over_1e5_steps() {
        for scheme in Scheme::ALL {
            let (err, secs) = mass_balance::<f32, f32>(&basin(32, scheme, Accumulation::Compensated), STEPS);
            println!("{} scheme, {STEPS} steps: f32 compensated {err:.2e} ({secs:.1} s)", scheme.name());
            assert!(
                err.abs() <= BOUND,
                "{} scheme: relative mass balance {err:.3e} after {STEPS} steps",
                scheme.name()
            );
        }
    }

    /// The same run on the plain path exceeds the bound: the test above can fail, and the
    /// compensation is what passes it.
    #[test]
    #[ignore = "long: 10⁵ CPU steps, about 20 s each"]
    fn plain_f32_breaks_the_mass_balance_bound() {
        for scheme in Scheme::ALL {
            let (err, secs) = mass_balance::<f32, f32>(&basin(32, scheme, Accumulation::Plain), STEPS);
            println!("{} scheme, {STEPS} steps: f32 plain {err:.2e} ({secs:.1} s)", scheme.name());
            assert!(
                err.abs() > BOUND,
                "{} scheme: plain f32 kept {err:.3e}: the long-run test no longer tells the paths apart",
                scheme.name()
            );
        }
    }
}
