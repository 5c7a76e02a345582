//! Mixed precision on the GPU (docs/f32-conservation.md, "Mixed precision for shallow water"):
//! the mixed entry points against the CPU reference `CpuKp<f32, f64>`, and the volume of a
//! long run. Ignored without a GPU, as the other GPU tests.

use super::BLOCK;
use super::gpu::{GPU_STEP, awkward_size, random_state, stream_variant};
use crate::common::{Tolerance, cases, gpu, magnitude};
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::gpu::{FluxKernel, FluxVariant, GpuKp, Launch};
use hydrokern::kp::{Problem, Scheme, WetDry, setup};
use proptest::prelude::*;

/// GPU against CPU after `steps` mixed steps (outputs poisoned before each): every padded cell of
/// w (f64), hu and hv (f32) within the f32 step bound relative to the field (the fluxes are f32:
/// the GPU's contracted multiply-adds and approximate roots reach w through Δt·R_w), t likewise;
/// and the GPU's w not f32 values (the update is f64).
fn check_mixed(p: &Problem, launch: Launch, early: bool, fused: bool, steps: usize) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let mut c = CpuKp::<f32, f64>::new(p, launch.block, early).unwrap();
    let mut g = GpuKp::new_mixed(&gpu, p, launch).unwrap();
    g.set_fused(fused);
    let kernel = if early { FluxKernel::EarlyExit } else { FluxKernel::Full };
    for _ in 0..steps {
        g.poison().unwrap();
        g.step(kernel).unwrap();
        c.step(f64::INFINITY).unwrap();
    }
    let what = format!(
        "mixed {} {}×{} {:?} wet–dry {} friction {} block {:?} flux {} early {early} fused {fused} after {steps} steps",
        p.scheme.name(),
        p.nx,
        p.ny,
        p.boundary,
        p.wet_dry.name(),
        if p.manning_field.is_some() { "per cell".to_string() } else { format!("n = {}", p.manning) },
        launch.block,
        launch.flux.describe()
    );
    let clock = g.clock(&gpu).unwrap();
    prop_assert_eq!(clock.steps, steps as u64, "{}: clock steps", what);
    let per = GPU_STEP.times(steps as f64);
    let t_tol = per.scaled(c.time()).bound::<f32>();
    prop_assert!((clock.t - c.time()).abs() <= t_tol, "{what}: t GPU {} vs CPU {}", clock.t, c.time());
    let (gw, ghu, ghv) = g.download_mixed(&gpu).unwrap();
    let (cw, chu, chv) = c.fields();
    let abs = |f: &[f64]| Tolerance::abs(per.scaled(magnitude(&p.interior(f))).bound::<f32>());
    abs(cw).check(&format!("{what}: w"), &gw, cw)?;
    for (name, gf, cf) in [("hu", &ghu, chu), ("hv", &ghv, chv)] {
        per.scaled(magnitude(&p.interior(cf))).check(&format!("{what}: {name}"), gf, cf)?;
    }
    // Where the water moved, w left the f32 grid (a lake at rest keeps its f32 level).
    let moved = p.interior(&gw).iter().zip(p.interior(c.residual_fields().0)).filter(|(_, r)| *r != 0.0).count();
    let off_f32 = p.interior(&gw).iter().filter(|w| **w as f32 as f64 != **w).count();
    prop_assert!(moved == 0 || off_f32 > 0, "{what}: every w is an f32 value after {steps} steps");
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    /// The mixed streamed flux kernels (each wet–dry scheme, full and early exit, a random
    /// shape; with RK2's second stage in them and without), RK stage (one n or n per cell, by the random friction), ghost cells and `clamp`'s
    /// passes, RK2 and Euler, against the reference on random states of awkward sizes; `clamp`
    /// and the column in a dry domain one step (as `kp_gpu_matches_cpu` in f32: a film's velocity
    /// is good to ulp(w)/h in f32).
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn mixed_gpu_matches_cpu(
        nx in awkward_size(),
        ny in awkward_size(),
        seed: u64,
        kind in 0u8..2,
        block in prop::sample::select(vec![(32u32, 8u32), (16, 16), (8, 4), (32, 1), (16, 2)]),
        stream in stream_variant(),
        steps in prop::sample::select(vec![1usize, 20]),
    ) {
        let mut p = random_state(nx, ny, seed, kind);
        // Mixed runs RK2 and Euler (the split schemes refuse it).
        if p.scheme != Scheme::Euler {
            p.scheme = Scheme::Rk2;
        }
        for wet_dry in WetDry::GPU {
            p.wet_dry = wet_dry;
            let steps = if kind == 1 || wet_dry == WetDry::Clamp { 1 } else { steps };
            // RK2's second stage in the streamed kernel (the default) and apart.
            for early in [false, true] {
                for fused in [true, false] {
                    check_mixed(&p, Launch { block, flux: stream, ..Launch::default() }, early, fused, steps)?;
                }
            }
        }
    }
}

/// Thacker's bowl at 40², 10⁵ mixed steps on the GPU with early exit off and on, `clamp` and
/// `bollermann`: the volume within f64's bound of the CPU test (1e-12).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn mixed_gpu_keeps_f64_volume() {
    const STEPS: u64 = 100_000;
    let gpu = gpu();
    for wet_dry in [WetDry::Clamp, WetDry::Bollermann] {
        for kernel in [FluxKernel::Full, FluxKernel::EarlyExit] {
            let mut p = setup::thacker(40);
            p.wet_dry = wet_dry;
            let mut m = GpuKp::new_mixed(&gpu, &p, Launch::default()).unwrap();
            let bed = m.cell_bed(&gpu).unwrap();
            let volume = |m: &GpuKp<f32>| {
                let w = p.interior(&m.download_mixed(&gpu).unwrap().0);
                w.iter().zip(p.interior(&bed)).map(|(w, b)| w - b as f64).sum::<f64>() * p.dx * p.dy
            };
            let v0 = volume(&m);
            for _ in 0..STEPS {
                m.step(kernel).unwrap();
            }
            assert_eq!(m.clock(&gpu).unwrap().steps, STEPS);
            let err = (volume(&m) - v0) / v0;
            println!("thacker 40², {}, {STEPS} steps, {kernel:?}: mixed {err:+.2e}", wet_dry.name());
            assert!(err.abs() <= 1e-12, "{} {kernel:?}: relative volume change {err:.3e}", wet_dry.name());
        }
    }
}

/// The split schemes and the tile kernel refuse mixed on the GPU in one line (before any GPU
/// work: refused without one too).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn mixed_gpu_refuses_what_it_does_not_run() {
    let gpu = gpu();
    let mut p = setup::gaussian(32, 32);
    let tile = Launch { block: BLOCK, flux: FluxVariant::Tile, ..Launch::default() };
    let e = GpuKp::new_mixed(&gpu, &p, tile).err().expect("tile refused").to_string();
    assert!(e.contains("streamed flux kernel only") && !e.contains('\n'), "{e}");
    p.scheme = Scheme::Srk2;
    let e = GpuKp::new_mixed(&gpu, &p, Launch::default()).err().expect("srk2 refused").to_string();
    assert!(e.contains("rk2 and euler") && !e.contains('\n'), "{e}");
}

/// The mixed kernels give a cell the same bits whichever runs it: the fused second stage, the
/// stage kernel apart and early exit (which leaves dry blocks alone), on blocks of 32×8 and
/// 32×4, so that a run's result does not depend on its launch or on `auto`'s choice of early
/// exit, and slabs (whose blocks lie otherwise) match the whole grid. Random states with dry
/// regions and the flood, every wet–dry scheme, with and without friction, 30 RK2 steps,
/// outputs poisoned.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn mixed_kernels_give_the_same_bits_with_early_exit_and_fused() {
    let gpu = gpu();
    let run = |p: &Problem, block: (u32, u32), fused: bool, early: bool| {
        let launch = Launch { block, flux: FluxVariant::STREAM, ..Launch::default() };
        let mut m = GpuKp::new_mixed(&gpu, p, launch).unwrap();
        m.set_fused(fused);
        super::gpu::gpu_steps(&gpu, &mut m, if early { FluxKernel::EarlyExit } else { FluxKernel::Full }, 30, true);
        m.download_mixed(&gpu).unwrap()
    };
    let first = |a: &(Vec<f64>, Vec<f32>, Vec<f32>), b: &(Vec<f64>, Vec<f32>, Vec<f32>)| {
        let bits = |x: &[f32], y: &[f32]| x.iter().zip(y).position(|(u, v)| u.to_bits() != v.to_bits());
        let w = a.0.iter().zip(&b.0).position(|(u, v)| u.to_bits() != v.to_bits()).map(|c| (0, c));
        w.or(bits(&a.1, &b.1).map(|c| (1, c))).or(bits(&a.2, &b.2).map(|c| (2, c)))
    };
    let mut problems: Vec<(String, Problem)> = vec![("flood 40×30".into(), setup::flood(40, 30))];
    for seed in [2, 4, 7] {
        for (nx, ny) in [(7, 24), (33, 20)] {
            problems.push((format!("random {nx}×{ny} seed {seed}"), random_state(nx, ny, seed, 1)));
        }
    }
    for (name, base) in &problems {
        for wet_dry in WetDry::GPU {
            for manning in [0.0, 0.03] {
                let mut p = base.clone();
                (p.wet_dry, p.scheme) = (wet_dry, Scheme::Rk2);
                if p.manning_field.is_none() {
                    p.manning = manning;
                }
                let what = format!("{name} {} n = {}", wet_dry.name(), p.manning);
                let apart = run(&p, (32, 8), false, false);
                for (label, block, fused, early) in [
                    ("fused 32×8", (32, 8), true, false),
                    ("early exit 32×8", (32, 8), false, true),
                    ("early exit 32×4", (32, 4), false, true),
                    ("fused 32×4", (32, 4), true, false),
                ] {
                    let at = first(&apart, &run(&p, block, fused, early));
                    assert!(at.is_none(), "{what}: {label} differs from apart 32×8 at (field, cell) {at:?}");
                }
            }
        }
    }
}
