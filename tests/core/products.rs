//! Gauges, lines and maximum maps: the GPU kernel against the CPU products over the same random
//! padded states, in f32, f64 and reading the shallow-water model's mixed precision (the CPU
//! products are checked against their definition in the library's unit tests, and the
//! shallow-water model's use of them in `tests/kp`).

use crate::common::{Tolerance, cases, gpu};
use hydrokern::GpuReal;
use hydrokern::grid::{Grid2, Layout2};
use hydrokern::products::{
    ClockAt, CpuProducts, Fields, Gauge, GpuProducts, LEVEL_DEPTH_FLAT, LEVEL_ELEVATION, Line, Sites, Spec, View,
    crossings,
};
use hydrokern::runtime::DevicePointers;
use proptest::prelude::*;

/// The maps against the CPU's: depth maxima and arrival times are copies of values (exact);
/// the speed is √(hu² + hv²)/h, which the GPU contracts into a multiply-add (a few ε).
const SPEED: Tolerance = Tolerance::eps(4.0);

/// With `mixed`, the GPU reads the level as f64 and the bed and momenta as f32
/// (`GpuProducts::reading_mixed`), the CPU the same values as `T`.
#[allow(clippy::too_many_arguments)]
fn check<T: GpuReal>(
    mixed: bool,
    nx: usize,
    ny: usize,
    steps: u64,
    every: u64,
    gauges: usize,
    lines: usize,
    maxima: bool,
    seed: u64,
) -> Result<usize, TestCaseError> {
    let gpu = gpu();
    let mut rng = hydrokern::Rng::new(seed);
    let layout = Layout2::new(nx as u32, ny as u32, 2);
    // An arrival threshold above the dry depth, or below it (water arrives before it counts
    // as wet).
    let thr = if (seed >> 1).is_multiple_of(2) { 0.3 } else { 0.02 };
    let f = Fields::on(layout, seed.is_multiple_of(2), T::from_f64(0.05), T::from_f64(thr));
    let cells: Vec<u32> = (0..gauges).map(|_| ((rng.unit() * (nx * ny) as f64) as usize % (nx * ny)) as u32).collect();
    // Lines of two to four random points across the domain (of 1 m cells); those that cross no
    // face (on a grid of one cell, say) are left out. With many gauges, the sampled cells are
    // more than a block's threads.
    let grid = Grid2 { nx, ny, dx: 1.0, dy: 1.0, origin: (0.0, 0.0), halo: 2 };
    let mut drawn = Vec::new();
    for k in 0..lines {
        let n = 2 + (rng.unit() * 3.0) as usize;
        let points: Vec<[f64; 2]> = (0..n).map(|_| [rng.unit() * nx as f64, rng.unit() * ny as f64]).collect();
        if !crossings(&points, &grid).is_empty() {
            drawn.push(Line { name: format!("l{k}"), points });
        }
    }
    let faces: Vec<_> = drawn.iter().map(|l| crossings(&l.points, &grid)).collect();
    let sites = Sites::new(&grid, cells, &faces);
    let sampled = sites.cells.len();
    let spec = Spec {
        gauges: (0..gauges).map(|k| Gauge { name: format!("g{k}"), x: 0.0, y: 0.0 }).collect(),
        lines: drawn,
        every,
        maxima,
        arrival_depth: thr,
    };
    let mut cpu = CpuProducts::<T>::new(&spec, f, sites.clone());
    let mut dev = GpuProducts::<T>::new(&gpu, &spec, f, sites).expect("products on the GPU");
    if mixed {
        dev = dev.reading_mixed(&gpu).expect("the mixed entry point");
    }
    let mut t = 0.0;
    for step in 0..=steps {
        // Ghosts hold NaN: a kernel that reads one leaves a NaN in a map or a record. The
        // values as stored: T's, or in the mixed precision an f64 level and f32 others.
        let stored = |level: bool, x: f64| match (mixed, level) {
            (true, true) => x,
            (true, false) => x as f32 as f64,
            (false, _) => T::from_f64(x).to_f64(),
        };
        let mut fill = |scale: f64, lo: f64, level: bool| -> Vec<f64> {
            let mut v = vec![f64::NAN; layout.len()];
            for j in 0..ny {
                for i in 0..nx {
                    v[(j + 2) * layout.pitch as usize + i + 2] = stored(level, lo + scale * rng.unit());
                }
            }
            v
        };
        let host = [fill(2.0, -0.5, true), fill(2.0, -1.0, false), fill(2.0, -1.0, false), fill(2.0, -1.0, false)];
        let as_t = |v: &Vec<f64>| v.iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>();
        let host_t: Vec<Vec<T>> = host.iter().map(as_t).collect();
        cpu.update(&host_t[0], &host_t[1], &host_t[2], &host_t[3], t, step);
        let clock = gpu.upload(&[t, 0.0, 0.0, step as f64]).unwrap();
        if mixed {
            let narrow = |v: &Vec<f64>| gpu.upload(&v.iter().map(|&x| x as f32).collect::<Vec<f32>>()).unwrap();
            let w = gpu.upload(&host[0]).unwrap();
            let [b, hu, hv] = [&host[1], &host[2], &host[3]].map(narrow);
            let ptrs = [w.ptr().cast(), b.ptr().cast(), hu.ptr().cast(), hv.ptr().cast()];
            dev.launch(ptrs, &clock, (0, 3)).unwrap();
        } else {
            let bufs: Vec<_> = host_t.iter().map(|v| gpu.upload(v).unwrap()).collect();
            dev.launch([bufs[0].ptr(), bufs[1].ptr(), bufs[2].ptr(), bufs[3].ptr()], &clock, (0, 3)).unwrap();
        }
        // Drain now and then, as a model does when it reads its clock.
        if step % 5 == 4 {
            dev.drain(&gpu, step).unwrap();
        }
        t += 0.25 + rng.unit();
    }
    dev.drain(&gpu, steps).unwrap();
    let (want, got) = (cpu.products(true), dev.products(&gpu, true).unwrap());
    prop_assert_eq!(got.maps.len(), if maxima { hydrokern::products::MAPS.len() } else { 0 });
    for (g, w) in got.maps.iter().zip(&want.maps) {
        for (c, (a, b)) in g.data.iter().zip(&w.data).enumerate() {
            let (a, b) = (a.to_f64(), b.to_f64());
            let ok = if g.name == "max_speed" || g.name == "max_hazard" {
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
    // The discharges are sums the host forms from the same samples in the same order: equal.
    prop_assert_eq!(got.lines.len(), want.lines.len());
    for (g, w) in got.lines.iter().zip(&want.lines) {
        prop_assert_eq!(&g.times, &w.times, "line {} times", g.line.name);
        prop_assert_eq!(&g.discharge, &w.discharge, "line {} discharge", g.line.name);
        prop_assert!(
            g.discharge.iter().all(|q| q.is_finite()),
            "line {}: a ghost or an unwritten sample read",
            g.line.name
        );
    }
    Ok(sampled)
}

/// Many more sampled cells than the block's 256 threads (256 gauges and four lines across the
/// grid), sampled every step, past the drains: every sample and discharge as the CPU's.
#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_samples_past_a_block_match_cpu() {
    for seed in [3, 17] {
        let sampled = check::<f32>(false, 65, 17, 12, 1, 256, 4, true, seed).unwrap();
        assert!(sampled > 300, "{sampled} sampled cells: the lines must add some");
        check::<f64>(false, 65, 17, 12, 1, 256, 4, false, seed).unwrap();
        check::<f64>(true, 65, 17, 12, 1, 256, 4, true, seed).unwrap();
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]

    /// Random sizes (1 to block multiples ± 1), steps past the drain interval, sampling
    /// intervals, gauge counts up to a whole block, discharge lines (with 256 gauges, more
    /// sampled cells than the block's threads), maps on and off, both precisions, and both
    /// reading the mixed precision's arrays.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
    fn gpu_products_match_cpu(
        nx in prop::sample::select(vec![1usize, 2, 7, 31, 32, 33, 65]), ny in prop::sample::select(vec![1usize, 3, 8, 9, 17]),
        steps in 0u64..23, every in 1u64..5, gauges in prop::sample::select(vec![0usize, 1, 5, 256]),
        lines in prop::sample::select(vec![0usize, 1, 4]), maxima in any::<bool>(), seed in any::<u64>(),
    ) {
        for mixed in [false, true] {
            check::<f32>(mixed, nx, ny, steps, every, gauges, lines, maxima, seed)?;
            check::<f64>(mixed, nx, ny, steps, every, gauges, lines, maxima, seed)?;
        }
    }
}

/// The views the other solvers hand over, GPU against CPU: the wave-propagation solver's state
/// (depth over a flat bed) as cells of three values on the CPU and as three planes of one of
/// three state buffers on the GPU, the buffer the device names in `select` (the others hold
/// NaN), with the device clock; or ADI's staggered grid (momenta the means of two faces over a
/// still-water depth) with the clock given by the host. The record ring starts as NaN.
fn check_views<T: GpuReal>(
    nx: usize,
    ny: usize,
    steps: u64,
    every: u64,
    gauges: usize,
    staggered: bool,
    seed: u64,
) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let mut rng = hydrokern::Rng::new(seed);
    let (x, y, n) = (nx as u32, ny as u32, nx * ny);
    let (dry, thr) = (T::from_f64(0.05), T::from_f64(0.3));
    let layout = Layout2::new(x, y, 2);
    let len = layout.len();
    let (cpu_fields, gpu_fields) = if staggered {
        let cells = View { origin: 0, row: x, col: 1, pair: 0 };
        let views = [
            cells,
            cells,
            View { origin: 0, row: x + 1, col: 1, pair: 1 },
            View { origin: 0, row: x, col: 1, pair: x },
        ];
        let f = Fields::of(x, y, views, LEVEL_ELEVATION, dry, thr);
        (f, f)
    } else {
        let v = View::padded(layout);
        let wide = |k: u32| View { origin: v.origin * 3 + k, row: v.row * 3, col: 3, pair: 0 };
        let cpu = Fields::of(x, y, [wide(0), wide(0), wide(1), wide(2)], LEVEL_DEPTH_FLAT, dry, thr);
        (cpu, Fields::of(x, y, [v; 4], LEVEL_DEPTH_FLAT, dry, thr))
    };
    let cells: Vec<u32> = (0..gauges).map(|_| ((rng.unit() * n as f64) as usize % n) as u32).collect();
    let spec = Spec {
        gauges: (0..gauges).map(|k| Gauge { name: format!("g{k}"), x: 0.0, y: 0.0 }).collect(),
        lines: Vec::new(),
        every,
        maxima: true,
        arrival_depth: 0.3,
    };
    let mut cpu = CpuProducts::<T>::new(&spec, cpu_fields, cells.clone());
    let mut dev = GpuProducts::<T>::new(&gpu, &spec, gpu_fields, cells).expect("products on the GPU");
    dev.set_buffer(3 * len as u64);
    dev.poison_records(&gpu).unwrap();
    let mut t = 0.0;
    for step in 0..=steps {
        let mut r = |lo: f64, scale: f64| T::from_f64(lo + scale * rng.unit());
        if staggered {
            let zeta: Vec<T> = (0..n).map(|_| r(-0.5, 1.0)).collect();
            let d: Vec<T> = (0..n).map(|_| r(-0.5, 1.5)).collect();
            let p: Vec<T> = (0..(nx + 1) * ny).map(|_| r(-1.0, 2.0)).collect();
            let q: Vec<T> = (0..nx * (ny + 1)).map(|_| r(-1.0, 2.0)).collect();
            cpu.update(&zeta, &d, &p, &q, t, step);
            let b =
                [gpu.upload(&zeta).unwrap(), gpu.upload(&d).unwrap(), gpu.upload(&p).unwrap(), gpu.upload(&q).unwrap()];
            dev.launch_at([b[0].ptr(), b[1].ptr(), b[2].ptr(), b[3].ptr()], None, ClockAt::Host { t, steps: step })
                .unwrap();
        } else {
            // Ghosts hold NaN: a kernel that reads one leaves a NaN in a map or a record.
            let mut cells = vec![T::NAN; 3 * len];
            for j in 0..ny {
                for i in 0..nx {
                    let g = layout.at(i as i32, j as i32);
                    cells[3 * g..3 * g + 3].copy_from_slice(&[r(-0.2, 1.0), r(-1.0, 2.0), r(-1.0, 2.0)]);
                }
            }
            cpu.update(&cells, &cells, &cells, &cells, t, step);
            // Three state buffers of three planes; the state in buffer `at`, the others NaN.
            let at = (rng.unit() * 3.0) as usize % 3;
            let mut buffers = vec![T::NAN; 9 * len];
            for g in 0..len {
                for k in 0..3 {
                    buffers[at * 3 * len + k * len + g] = cells[3 * g + k];
                }
            }
            let (states, select) = (gpu.upload(&buffers).unwrap(), gpu.upload(&[at as u32]).unwrap());
            let clock = gpu.upload(&[0.0, t, step as f64]).unwrap();
            let planes = [0, 0, len, 2 * len].map(|o| states.ptr().wrapping_add(o));
            dev.launch_at(planes, Some(&select), ClockAt::Device(&clock, 1, 2)).unwrap();
        }
        if step % 5 == 4 {
            dev.drain(&gpu, step).unwrap();
        }
        t += 0.25 + rng.unit();
    }
    dev.drain(&gpu, steps).unwrap();
    let (want, got) = (cpu.products(true), dev.products(&gpu, true).unwrap());
    for (g, w) in got.maps.iter().zip(&want.maps) {
        for (c, (a, b)) in g.data.iter().zip(&w.data).enumerate() {
            let (a, b) = (a.to_f64(), b.to_f64());
            let ok = if g.name == "max_speed" || g.name == "max_hazard" {
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
    #![proptest_config(crate::common::config(cases(24), file!()))]

    /// Random sizes, steps past the drain interval, sampling intervals, gauge counts up to a
    /// whole block, both layouts, both precisions.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
    fn gpu_products_of_other_layouts_match_cpu(
        nx in prop::sample::select(vec![1usize, 2, 7, 31, 32, 33, 65]), ny in prop::sample::select(vec![1usize, 3, 8, 9, 17]),
        steps in 0u64..23, every in 1u64..5, gauges in prop::sample::select(vec![0usize, 1, 5, 256]),
        staggered in any::<bool>(), seed in any::<u64>(),
    ) {
        check_views::<f32>(nx, ny, steps, every, gauges, staggered, seed)?;
        check_views::<f64>(nx, ny, steps, every, gauges, staggered, seed)?;
    }
}
