//! A GPU run queues its batches of steps as CUDA graphs of `GRAPH_STEPS` steps (recorded from
//! the steps' launches): the same launches as one step a call, so the same state, water account
//! and products, bit for bit — across the early-exit choice's timed cycles, the wet maps'
//! rotation, Euler's swaps, the mixed precision and the account measured beside the stream.

use crate::common::gpu;
use crate::common::ranks::same_state;
use hydrokern::kp::gpu::Launch;
use hydrokern::kp::{EarlyExit, KpModel, Problem, Scheme, WetDry};
use hydrokern::model::{Model, Until};
use hydrokern::{Backend, GpuReal};
use proptest::prelude::*;

/// Two models of `p` (`mixed`: w in f64), the products of `super::products::spec` kept with
/// `products`, advanced to `t_end` or `steps` steps: one in a call (its batches as graphs), the
/// other a step a call (a batch of one step is launched). The same state and products, and
/// steps in graphs where the run was long enough for them.
fn same_in_graphs<T: GpuReal>(
    p: &Problem,
    mixed: bool,
    early: EarlyExit,
    products: bool,
    (t_end, steps): (f64, u64),
) -> Result<(), TestCaseError> {
    let backend = Backend::Gpu(gpu());
    let build = || {
        let m = match mixed {
            true => KpModel::<T>::mixed(&backend, p, Launch::default(), early),
            false => KpModel::<T>::new(&backend, p, Launch::default(), early),
        }
        .unwrap();
        match products {
            true => {
                let s = super::products::spec();
                m.with_products(&s, super::products::sites(&s, &super::products::grid_of(p))).unwrap()
            }
            false => m,
        }
    };
    let (mut batched, mut stepped) = (build(), build());
    let c = batched.advance(Until { t: t_end, steps, deadline: None }).unwrap();
    for n in 1..=c.steps {
        stepped.advance(Until { t: t_end, steps: n, deadline: None }).unwrap();
    }
    let what = format!("{} {}×{} {:?} mixed {mixed} {early:?}", T::NAME, p.nx, p.ny, p.scheme);
    prop_assert!(c.steps >= 40, "{}: only {} steps", what, c.steps);
    prop_assert!(batched.graph_steps() > 0, "{}: no steps in graphs", what);
    prop_assert_eq!(stepped.graph_steps(), 0);
    same_state(&batched.state().unwrap(), &stepped.state().unwrap())?;
    if products {
        let (a, b) = (batched.products(true).unwrap().unwrap(), stepped.products(true).unwrap().unwrap());
        let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
        for (f, g) in a.maps.iter().zip(&b.maps) {
            prop_assert!(bits(&f.data) == bits(&g.data), "{}: map {} differs", what, f.name);
        }
        prop_assert!(!a.series.is_empty() && a.series == b.series, "{}: gauge records", what);
        prop_assert!(a.lines == b.lines, "{}: line records", what);
    }
    Ok(())
}

/// A column spreading over a dry bed, its gauges, lines and maps kept, 250 steps with early
/// exit chosen by timing (its cycles of 100 steps fall inside batches): f32, f64 and mixed.
#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn steps_in_graphs_keep_products_across_early_exit_cycles() {
    let p = super::products::problem();
    same_in_graphs::<f32>(&p, false, EarlyExit::Auto, true, (1e9, 250)).unwrap();
    same_in_graphs::<f64>(&p, false, EarlyExit::Auto, true, (1e9, 250)).unwrap();
    same_in_graphs::<f64>(&p, true, EarlyExit::Auto, true, (1e9, 250)).unwrap();
}

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(4), file!()))]
    /// Random basins under rain, a soil, inflows, a held level and an outlet (a water account
    /// measured beside the stream), every wet–dry scheme, Euler, RK2 and SRK2, both precisions.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
    fn steps_in_graphs_are_the_steps_launched_one_by_one(
        nx in 20usize..90,
        ny in 20usize..90,
        seed: u64,
        wet_dry in prop::sample::select(WetDry::ALL.to_vec()),
    ) {
        for scheme in [Scheme::Rk2, Scheme::Euler, Scheme::Srk2] {
            let mut p = super::gpu::random_state(nx, ny, seed, 0);
            p.scheme = scheme;
            p.wet_dry = wet_dry;
            // Series over a minute: 150 steps end well before it.
            super::forcing::forced(&mut p, seed, 60.0, true);
            same_in_graphs::<f64>(&p, false, EarlyExit::Off, false, (60.0, 150))?;
            same_in_graphs::<f32>(&p, false, EarlyExit::Off, false, (60.0, 150))?;
        }
    }
}
