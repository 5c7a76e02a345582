//! Gauges and maximum maps kept by the shallow-water model: after every step, on both backends,
//! the maps equal the maximum of the states taken step by step, and every gauge sample equals
//! the state at its cell at that step.

use crate::common::gpu;
use hydrokern::kp::gpu::Launch;
use hydrokern::kp::{EarlyExit, KpModel, Problem, setup};
use hydrokern::model::{Model, Until};
use hydrokern::products::{Gauge, Spec};
use hydrokern::{Backend, GpuReal};

/// A column of water spreading over a dry bed with walls: cells get wet, and the water arrives
/// at each at its own time.
fn problem() -> Problem {
    setup::column(24, 16, 12.0, 8.0, 2.0, 1.0, 0.0)
}

fn spec() -> Spec {
    let gauges = [("centre", 6.0, 4.0), ("east", 10.9, 4.0), ("corner", 0.0, 0.0)];
    Spec {
        gauges: gauges.iter().map(|&(n, x, y)| Gauge { name: n.into(), x, y }).collect(),
        every: 2,
        maxima: true,
        arrival_depth: 0.05,
    }
}

/// Step `steps` steps one at a time, taking the state after each; compare the products with
/// the states. The maps are copies of values except the speed (√(hu² + hv²)/h, a few ε apart
/// on the GPU, whose contracted multiply-add the host's download does not repeat).
fn check<T: GpuReal>(backend: &Backend, steps: u64) {
    let p = problem();
    let s = spec();
    let grid = hydrokern::grid::Grid2 { nx: p.nx, ny: p.ny, dx: p.dx, dy: p.dy, origin: (0.0, 0.0), halo: 2 };
    let cells = s.cells(&grid).unwrap();
    let mut m = KpModel::<T>::new(backend, &p, Launch::default(), EarlyExit::Off)
        .unwrap()
        .with_products(&s, cells.clone())
        .unwrap();
    let mut states = vec![m.state().unwrap()];
    for n in 1..=steps {
        m.advance(Until { t: 1e9, steps: n, deadline: None }).unwrap();
        states.push(m.state().unwrap());
    }
    let got = m.products(true).unwrap().expect("products kept");
    let dry = p.coeffs::<T>((32, 8)).dry.to_f64();
    let n = p.nx * p.ny;
    let (mut max_h, mut max_s, mut arrival) = (vec![0.0f64; n], vec![0.0f64; n], vec![f64::NAN; n]);
    for st in &states {
        let f = |name| st.field(name).unwrap().data.iter().map(|v| v.to_f64()).collect::<Vec<f64>>();
        let (h, hu, hv) = (f("h"), f("hu"), f("hv"));
        for c in 0..n {
            if h[c] > dry {
                max_h[c] = max_h[c].max(h[c]);
                max_s[c] = max_s[c].max((hu[c] * hu[c] + hv[c] * hv[c]).sqrt() / h[c]);
                if h[c] > s.arrival_depth && arrival[c].is_nan() {
                    // Kept in the run's precision.
                    arrival[c] = T::from_f64(st.clock.t).to_f64();
                }
            }
        }
    }
    let map = |name: &str| {
        got.maps.iter().find(|m| m.name == name).unwrap().data.iter().map(|v| v.to_f64()).collect::<Vec<f64>>()
    };
    let eps = T::EPSILON.to_f64();
    for c in 0..n {
        assert_eq!(map("max_h")[c], max_h[c], "max_h at {c}");
        assert!((map("max_speed")[c] - max_s[c]).abs() <= 8.0 * eps * max_s[c].max(1.0), "max_speed at {c}");
        let a = map("arrival")[c];
        assert!(a == arrival[c] || (a.is_nan() && arrival[c].is_nan()), "arrival at {c}: {a} vs {}", arrival[c]);
    }
    // Water must arrive somewhere after the start (all cells may be wet by the end).
    assert!(arrival.iter().any(|a| *a > 0.0), "the test must see water arrive");
    for (series, &cell) in got.series.iter().zip(&cells) {
        let sampled: Vec<_> = states.iter().filter(|st| st.clock.steps % s.every == 0).collect();
        assert_eq!(series.times.len(), sampled.len(), "gauge {}", series.gauge.name);
        for ((t, v), st) in series.times.iter().zip(&series.values).zip(sampled) {
            assert_eq!(*t, st.clock.t);
            let at = |name| st.field(name).unwrap().data[cell as usize].to_f64();
            assert_eq!(v[0], at("h"), "gauge {} h at t = {t}", series.gauge.name);
            assert_eq!([v[1], v[2]], [at("hu"), at("hv")]);
            // η = w from the model's own (w, B); h = w − B rounds, so h + B is within an ulp of w.
            let (i, j) = (cell as usize % p.nx, cell as usize / p.nx);
            let eta = at("h") + p.cell_bed(i, j);
            assert!(
                (v[3] - eta).abs() <= 4.0 * eps * eta.abs().max(1.0),
                "gauge {} eta {} vs {eta}",
                series.gauge.name,
                v[3]
            );
        }
    }
}

#[test]
fn cpu_products_follow_the_states() {
    let backend = Backend::Cpu { why: None };
    check::<f64>(&backend, 30);
    check::<f32>(&backend, 30);
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_products_follow_the_states() {
    let backend = Backend::Gpu(gpu());
    // Past the ring's drains: the model reads its clock every few dozen steps.
    check::<f64>(&backend, 150);
    check::<f32>(&backend, 150);
}

/// A model restored from a checkpoint taken between two gauge samples goes on with the maps and
/// gauge records of the run it was taken of: after more steps, its products are bit for bit
/// those of that run. The restored model ran steps of its own first, so its maps and records
/// hold other values (and, on the GPU, its ring stands elsewhere) until the restore.
fn restored<T: GpuReal>(backend: &Backend) {
    let p = problem();
    let s = spec();
    let grid = hydrokern::grid::Grid2 { nx: p.nx, ny: p.ny, dx: p.dx, dy: p.dy, origin: (0.0, 0.0), halo: 2 };
    let cells = s.cells(&grid).unwrap();
    let model = || {
        KpModel::<T>::new(backend, &p, Launch::default(), EarlyExit::Off)
            .unwrap()
            .with_products(&s, cells.clone())
            .unwrap()
    };
    let to = |m: &mut KpModel<T>, n| m.advance(Until { t: 1e9, steps: n, deadline: None }).unwrap();
    let (mut a, mut b) = (model(), model());
    // Step 37: sample 18 was at step 36, the next comes at step 38.
    to(&mut a, 37);
    let c = a.checkpoint().unwrap();
    to(&mut b, 80);
    b.restore(&c).unwrap();
    to(&mut a, 140);
    to(&mut b, 140);
    let (pa, pb) = (a.products(true).unwrap().unwrap(), b.products(true).unwrap().unwrap());
    let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
    for (ma, mb) in pa.maps.iter().zip(&pb.maps) {
        assert_eq!(bits(&ma.data), bits(&mb.data), "{} after the restore", ma.name);
    }
    assert_eq!(pa.maps.len(), hydrokern::products::MAPS.len());
    assert_eq!(pa.series, pb.series);
    assert_eq!(pa.series[0].times.len(), 140 / 2 + 1);
    // A checkpoint of another sampling (every 3 steps here) is refused, not misread.
    let other = Spec { every: 3, ..spec() };
    let mut m = KpModel::<T>::new(backend, &p, Launch::default(), EarlyExit::Off)
        .unwrap()
        .with_products(&other, cells)
        .unwrap();
    let e = m.restore(&c).unwrap_err().to_string();
    assert!(e.contains("gauge samples"), "{e}");
}

#[test]
fn cpu_products_go_on_from_a_checkpoint() {
    let backend = Backend::Cpu { why: None };
    restored::<f64>(&backend);
    restored::<f32>(&backend);
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_products_go_on_from_a_checkpoint() {
    let backend = Backend::Gpu(gpu());
    restored::<f64>(&backend);
    restored::<f32>(&backend);
}
