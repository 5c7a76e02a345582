//! Gauges and maximum maps kept by the ADI model, on each backend: after every step the maps
//! equal the maximum of the states (h = d + ζ, the momenta the means of each cell's two faces,
//! `p_centre` and `q_centre`), every gauge sample equals the state at its cell, and the run
//! steps bit for bit as the run without products.

use crate::common::products::follow_the_states;
use hydrokern::adi::cpu::Adi;
use hydrokern::adi::gpu::{Strategy, YSweep};
use hydrokern::adi::model::AdiModel;
use hydrokern::adi::{Boundary, Friction, Setup};
use hydrokern::grid::Grid2;
use hydrokern::model::Model;
use hydrokern::products::{Gauge, Spec};
use hydrokern::{Backend, GpuReal};
use std::sync::Mutex;

/// A channel whose bed rises from 3 m deep in the west to 1 m above the still water in the
/// east, a 1 m hump of water in the west: the wave runs up the slope and floods the dry cells.
fn setup() -> Setup {
    let (nx, ny) = (24, 8);
    let mut s = Setup::basin(nx, ny, 50.0, 50.0, 5.0, 3.0);
    for c in 0..nx * ny {
        let x = (c % nx) as f64 + 0.5;
        s.depth[c] = 3.0 - 4.0 * x / nx as f64;
        s.zeta[c] = (1.0 * (-((x - 4.0) / 2.0f64).powi(2)).exp()).max(-s.depth[c]);
    }
    s.friction = Friction::Manning(0.03);
    s.drying = Some((0.2, 0.3));
    s.sides = [Boundary::Land, Boundary::Land, Boundary::Land, Boundary::Land];
    s
}

fn spec(grid: &Grid2) -> (Spec, Vec<u32>) {
    let gauges = [("hump", 200.0, 200.0), ("slope", 900.0, 120.0), ("flats", 1100.0, 380.0), ("corner", 1200.0, 400.0)];
    let spec = Spec {
        gauges: gauges.iter().map(|&(n, x, y)| Gauge { name: n.into(), x, y }).collect(),
        lines: Vec::new(),
        every: 3,
        maxima: true,
        arrival_depth: 0.3,
    };
    let cells = spec.cells(grid).unwrap();
    (spec, cells)
}

fn check<T: GpuReal>(backend: &Backend, steps: u64) {
    let s = setup();
    let grid = Grid2 { nx: s.nx, ny: s.ny, dx: s.dx, dy: s.dy, origin: (0.0, 0.0), halo: 0 };
    let (spec, cells) = spec(&grid);
    let failure = Mutex::new(None);
    let build = |with: bool| -> hydrokern::Result<Box<dyn Model<T> + '_>> {
        let m = AdiModel::new(backend, Adi::<T>::new(&s)?, Strategy::Auto, YSweep::default(), &failure)?;
        let none = Spec::default();
        Ok(Box::new(m.with_products(if with { &spec } else { &none }, cells.clone())?))
    };
    let arrival = follow_the_states(build, &spec, &cells, ["h", "p_centre", "q_centre", "zeta"], 0.2, steps);
    // Water must arrive on the dry flats during the run.
    let t0 = arrival.iter().filter(|a| **a > 0.0).count();
    assert!(t0 > 0, "the test must see water arrive: {arrival:?}");
}

#[test]
fn cpu_products_follow_the_states() {
    let backend = Backend::Cpu { why: None };
    check::<f64>(&backend, 40);
    check::<f32>(&backend, 40);
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_products_follow_the_states() {
    let backend = Backend::Gpu(crate::common::gpu());
    // One step an advance: the model checks the step (and drains the samples) after each.
    check::<f64>(&backend, 100);
    check::<f32>(&backend, 100);
}
