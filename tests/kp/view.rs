//! The live view's frames of the shallow-water model: on the GPU, w and the momenta gathered at
//! the view's cells on the device and the depth formed from them are the state the model hands
//! out whole, at those cells (the momenta bit for bit; the depth within an ulp of the surface on
//! the compensated f32 path, whose low part the frame leaves out), at every precision and
//! accumulation; taking frames changes no step.

use crate::common::gpu;
use hydrokern::accumulation::Accumulation;
use hydrokern::kp::gpu::Launch;
use hydrokern::kp::{EarlyExit, KpModel, Problem, setup};
use hydrokern::model::{Model, Until};
use hydrokern::{Backend, GpuReal, Rng};

fn problem(accumulation: Accumulation) -> Problem {
    Problem { accumulation, ..setup::column(37, 29, 12.0, 8.0, 2.0, 1.0, 0.0) }
}

fn check<T: GpuReal>(backend: &Backend, accumulation: Accumulation) {
    let p = problem(accumulation);
    let mut watched = KpModel::<T>::new(backend, &p, Launch::default(), EarlyExit::Off).unwrap();
    let mut plain = KpModel::<T>::new(backend, &p, Launch::default(), EarlyExit::Off).unwrap();
    let mut rng = Rng::new(7);
    let n = p.nx * p.ny;
    for round in 0..6 {
        let until = Until { t: f64::INFINITY, steps: 15 * (round + 1), deadline: None };
        watched.advance(until).unwrap();
        plain.advance(until).unwrap();
        let cells: Vec<usize> =
            (0..(40 + 300 * round as usize)).map(|_| (rng.unit() * n as f64) as usize % n).collect();
        let got = watched.sample(&cells).unwrap();
        let want = watched.state().unwrap().at(&cells).unwrap();
        assert_eq!(got.clock, want.clock);
        let eps = T::EPSILON.to_f64();
        for name in ["h", "hu", "hv"] {
            let (g, w) = (got.field(name).unwrap(), want.field(name).unwrap());
            assert_eq!(g.data.len(), cells.len());
            for (k, (a, b)) in g.data.iter().zip(&w.data).enumerate() {
                let (a, b) = (a.to_f64(), b.to_f64());
                let (i, j) = (cells[k] % p.nx, cells[k] / p.nx);
                let surface = b + p.cell_bed(i, j);
                let bound = if name == "h" { 2.0 * eps * surface.abs().max(1.0) } else { 0.0 };
                assert!((a - b).abs() <= bound, "{name} at {:?}, round {round}: {a} vs {b}", (i, j));
            }
        }
    }
    // Frames taken between steps change none of them.
    let (a, b) = (watched.state().unwrap(), plain.state().unwrap());
    assert_eq!(a.clock, b.clock);
    for (f, g) in a.fields.iter().zip(&b.fields) {
        assert!(f.data.iter().zip(&g.data).all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits()), "{}", f.name);
    }
}

#[test]
fn cpu_frames_are_the_state_at_their_cells() {
    let backend = Backend::Cpu { why: None };
    check::<f64>(&backend, Accumulation::default());
    check::<f32>(&backend, Accumulation::default());
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_frames_are_the_state_at_their_cells() {
    let backend = Backend::Gpu(gpu());
    for accumulation in [Accumulation::Plain, Accumulation::Compensated] {
        check::<f64>(&backend, accumulation);
        check::<f32>(&backend, accumulation);
    }
}
