//! Gauges and maximum maps: the GPU kernel against the CPU products over the same random
//! padded states (the CPU products are checked against their definition in the library's unit
//! tests, and the shallow-water model's use of them in `tests/kp`).

#[path = "common/mod.rs"]
mod common;

use common::{Tolerance, cases, gpu};
use hydrokern::GpuReal;
use hydrokern::grid::Layout2;
use hydrokern::products::{CpuProducts, Fields, Gauge, GpuProducts, Spec};
use hydrokern::runtime::DevicePointers;
use proptest::prelude::*;

/// The maps against the CPU's: depth maxima and arrival times are copies of values (exact);
/// the speed is √(hu² + hv²)/h, which the GPU contracts into a multiply-add (a few ε).
const SPEED: Tolerance = Tolerance::eps(4.0);

fn check<T: GpuReal>(
    nx: usize,
    ny: usize,
    steps: u64,
    every: u64,
    gauges: usize,
    maxima: bool,
    seed: u64,
) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let mut rng = hydrokern::Rng::new(seed);
    let layout = Layout2::new(nx as u32, ny as u32, 2);
    let f = Fields::on(layout, seed.is_multiple_of(2), T::from_f64(0.05), T::from_f64(0.3));
    let cells: Vec<u32> = (0..gauges).map(|_| ((rng.unit() * (nx * ny) as f64) as usize % (nx * ny)) as u32).collect();
    let spec = Spec {
        gauges: (0..gauges).map(|k| Gauge { name: format!("g{k}"), x: 0.0, y: 0.0 }).collect(),
        every,
        maxima,
        arrival_depth: 0.3,
    };
    let mut cpu = CpuProducts::<T>::new(&spec, f, cells.clone());
    let mut dev = GpuProducts::<T>::new(&gpu, &spec, f, cells).expect("products on the GPU");
    let mut t = 0.0;
    for step in 0..=steps {
        // Ghosts hold NaN: a kernel that reads one leaves a NaN in a map or a record.
        let mut fill = |scale: f64, lo: f64| -> Vec<T> {
            let mut v = vec![T::NAN; layout.len()];
            for j in 0..ny {
                for i in 0..nx {
                    v[(j + 2) * layout.pitch as usize + i + 2] = T::from_f64(lo + scale * rng.unit());
                }
            }
            v
        };
        let host = [fill(2.0, -0.5), fill(2.0, -1.0), fill(2.0, -1.0), fill(2.0, -1.0)];
        cpu.update(&host[0], &host[1], &host[2], &host[3], t, step);
        let bufs: Vec<_> = host.iter().map(|v| gpu.upload(v).unwrap()).collect();
        let clock = gpu.upload(&[t, 0.0, 0.0, step as f64]).unwrap();
        dev.launch([bufs[0].ptr(), bufs[1].ptr(), bufs[2].ptr(), bufs[3].ptr()], &clock, (0, 3)).unwrap();
        // Drain now and then, as a model does when it reads its clock.
        if step % 5 == 4 {
            dev.drain(&gpu, step).unwrap();
        }
        t += 0.25 + rng.unit();
    }
    dev.drain(&gpu, steps).unwrap();
    let (want, got) = (cpu.products(), dev.products(&gpu).unwrap());
    prop_assert_eq!(got.maps.len(), if maxima { 3 } else { 0 });
    for (g, w) in got.maps.iter().zip(&want.maps) {
        for (c, (a, b)) in g.data.iter().zip(&w.data).enumerate() {
            let (a, b) = (a.to_f64(), b.to_f64());
            let ok = if g.name == "max_speed" {
                (a - b).abs() <= SPEED.scaled(b.abs().max(1.0)).bound::<T>()
            } else {
                a == b || (a.is_nan() && b.is_nan())
            };
            prop_assert!(ok, "{} at {c}: GPU {a}, CPU {b}", g.name);
        }
    }
    prop_assert_eq!(got.series.len(), want.series.len());
    for (g, w) in got.series.iter().zip(&want.series) {
        prop_assert_eq!(&g.times, &w.times, "gauge {} times", g.gauge.name);
        prop_assert_eq!(&g.values, &w.values, "gauge {} values", g.gauge.name);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    /// Random sizes (1 to block multiples ± 1), steps past the drain interval, sampling
    /// intervals, gauge counts up to a whole block, maps on and off, both precisions.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
    fn gpu_products_match_cpu(
        nx in prop::sample::select(vec![1usize, 2, 7, 31, 32, 33, 65]), ny in prop::sample::select(vec![1usize, 3, 8, 9, 17]),
        steps in 0u64..23, every in 1u64..5, gauges in prop::sample::select(vec![0usize, 1, 5, 256]),
        maxima in any::<bool>(), seed in any::<u64>(),
    ) {
        check::<f32>(nx, ny, steps, every, gauges, maxima, seed)?;
        check::<f64>(nx, ny, steps, every, gauges, maxima, seed)?;
    }
}
