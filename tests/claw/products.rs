//! Gauges and maximum maps kept by the wave-propagation model for the shallow-water equations
//! (the swe-radial example, its own gauges), on each backend: after every step the maps equal
//! the maximum of the states, every gauge sample equals the state at its cell (η = h over the
//! flat bed), and the run steps bit for bit as the run without products.

use crate::common::products::follow_the_states;
use hydrokern::GpuReal;
use hydrokern::case::CaseDoc;
use hydrokern::claw::ClawCase;
use hydrokern::grid::Mesh;
use hydrokern::run::{Case, Simulation};
use hydrokern::runtime::Backend;
use hydrokern::scenarios;

/// swe-radial on `nx`² cells, its gauges and maps kept (`with`) or not, with `equations`.
fn case(nx: i64, equations: &str, with: bool) -> ClawCase {
    let mut doc: CaseDoc = scenarios::find("swe-radial").unwrap().doc().unwrap();
    for (key, value) in [("grid.nx", nx.into()), ("grid.ny", nx.into()), ("equations.name", equations.into())] {
        doc.set(key, value, "test").unwrap();
    }
    if !with {
        doc.set("output.maxima", false.into(), "test").unwrap();
        doc.set("output.gauges", toml_edit::Value::Array(Default::default()), "test").unwrap();
    }
    ClawCase::load(&doc).unwrap()
}

fn check<T: GpuReal>(backend: &Backend, nx: i64, equations: &str, steps: u64) {
    let (with, without) = (case(nx, equations, true), case(nx, equations, false));
    let Mesh::Plane(grid) = with.mesh() else { panic!("a plane") };
    let spec = with.info().output.products();
    assert!(spec.maxima && spec.gauges.len() == 3, "the example keeps gauges and maps: {spec:?}");
    let cells = spec.cells(&grid).unwrap();
    let build = |keep: bool| if keep { with.build::<T>(backend) } else { without.build::<T>(backend) };
    let arrival = follow_the_states(build, &spec, &cells, ["h", "hu", "hv", "h"], 0.0, steps);
    assert!(arrival.iter().any(|a| *a > 0.0), "the test must see the bore arrive");
}

#[test]
fn cpu_products_follow_the_states() {
    let backend = Backend::Cpu { why: None };
    check::<f64>(&backend, 24, "shallow-roe", 20);
    check::<f32>(&backend, 20, "shallow-hlle", 20);
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_products_follow_the_states() {
    let backend = Backend::Gpu(crate::common::gpu());
    // One step an advance: the run reads its clock (and drains the samples) after each.
    check::<f64>(&backend, 72, "shallow-roe", 150);
    check::<f32>(&backend, 40, "shallow-hlle", 150);
}

/// A GPU run advanced to its step count in one call, whose batches go as graphs of steps, keeps
/// the same state, maps and gauge records, bit for bit, as the run advanced one step a call (no
/// graph: a batch of one step is launched).
#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_products_of_graphs_are_those_of_steps_launched_one_by_one() {
    fn check<T: GpuReal>(backend: &Backend) {
        use hydrokern::model::Until;
        let c = case(72, "shallow-roe", true);
        let (mut batched, mut stepped) = (c.build::<T>(backend).unwrap(), c.build::<T>(backend).unwrap());
        let steps = 150;
        batched.advance(Until { t: 1e9, steps, deadline: None }).unwrap();
        for n in 1..=steps {
            stepped.advance(Until { t: 1e9, steps: n, deadline: None }).unwrap();
        }
        let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
        let (a, b) = (batched.state().unwrap(), stepped.state().unwrap());
        assert_eq!(a.clock.steps, steps);
        for (f, g) in a.fields.iter().zip(&b.fields) {
            assert_eq!(bits(&f.data), bits(&g.data), "{} {}: the state differs", T::NAME, f.name);
        }
        let (a, b) = (batched.products(true).unwrap().unwrap(), stepped.products(true).unwrap().unwrap());
        assert!(!a.maps.is_empty() && a.maps.len() == b.maps.len(), "{}: maps kept", T::NAME);
        for (f, g) in a.maps.iter().zip(&b.maps) {
            assert_eq!(bits(&f.data), bits(&g.data), "{} {}: the map differs", T::NAME, f.name);
        }
        assert!(!a.series.is_empty() && a.series[0].times.len() >= 2, "{}: no gauge records", T::NAME);
        assert_eq!(a.series, b.series, "{}: the gauge records differ", T::NAME);
    }
    let backend = Backend::Gpu(crate::common::gpu());
    check::<f64>(&backend);
    check::<f32>(&backend);
}
