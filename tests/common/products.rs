//! A model's gauges and maximum maps against its own states, taken after every step: the
//! maps are the maximum of the states written out plainly, every gauge sample is the state at
//! its cell at that step, and the run with products steps exactly as the run without them.

use hydrokern::model::{Model, Until};
use hydrokern::products::Spec;
use hydrokern::{GpuReal, Result};

/// Where a model's state holds what a gauge records: h, hu, hv and η, by field name.
pub type Names = [&'static str; 4];

/// Step the models of `build` (with products, and without) one step at a time to `steps`
/// steps; `cells` are `spec`'s gauges' cells, `dry` the depth at or below which a cell counts
/// as dry. Returns the arrival times (NaN where water never arrived), for the caller to check
/// that the test saw water arrive.
pub fn follow_the_states<'a, T: GpuReal>(
    build: impl Fn(bool) -> Result<Box<dyn Model<T> + 'a>>,
    spec: &Spec,
    cells: &[u32],
    names: Names,
    dry: f64,
    steps: u64,
) -> Vec<f64> {
    let (mut with, mut without) = (build(true).unwrap(), build(false).unwrap());
    let mut states = vec![with.state().unwrap()];
    for n in 1..=steps {
        let until = Until { t: 1e9, steps: n, deadline: None };
        with.advance(until).unwrap();
        without.advance(until).unwrap();
        let (a, b) = (with.state().unwrap(), without.state().unwrap());
        assert_eq!(a.clock.steps, n, "one step at a time");
        for (f, g) in a.fields.iter().zip(&b.fields) {
            let same = f.data.iter().zip(&g.data).all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits());
            assert!(same, "{} after step {n}: the run with products differs from the run without", f.name);
        }
        states.push(a);
    }
    assert!(without.products(true).unwrap().is_none());
    let got = with.products(true).unwrap().expect("products kept");
    let at = |st: &hydrokern::model::State<T>, k: usize| -> Vec<f64> {
        st.field(names[k]).unwrap().data.iter().map(|v| v.to_f64()).collect()
    };
    let n = states[0].field(names[0]).unwrap().data.len();
    let (mut max_h, mut max_s, mut arrival) = (vec![0.0f64; n], vec![0.0f64; n], vec![f64::NAN; n]);
    for st in &states {
        let (h, hu, hv) = (at(st, 0), at(st, 1), at(st, 2));
        for c in 0..n {
            if h[c] > dry {
                max_h[c] = max_h[c].max(h[c]);
                max_s[c] = max_s[c].max((hu[c] * hu[c] + hv[c] * hv[c]).sqrt() / h[c]);
            }
            if h[c] > spec.arrival_depth && arrival[c].is_nan() {
                // Kept in the run's precision.
                arrival[c] = T::from_f64(st.clock.t).to_f64();
            }
        }
    }
    let map = |name: &str| -> Vec<f64> {
        got.maps.iter().find(|m| m.name == name).unwrap().data.iter().map(|v| v.to_f64()).collect()
    };
    // The speed is √(hu² + hv²)/h, which the GPU contracts into a multiply-add (a few ε).
    let eps = T::EPSILON.to_f64();
    let (mh, ms, ar) = (map("max_h"), map("max_speed"), map("arrival"));
    for c in 0..n {
        assert_eq!(mh[c], max_h[c], "max_h at {c}");
        assert!(
            (ms[c] - max_s[c]).abs() <= 8.0 * eps * max_s[c].max(1.0),
            "max_speed at {c}: {} vs {}",
            ms[c],
            max_s[c]
        );
        assert!(
            ar[c] == arrival[c] || (ar[c].is_nan() && arrival[c].is_nan()),
            "arrival at {c}: {} vs {}",
            ar[c],
            arrival[c]
        );
    }
    assert_eq!(got.series.len(), cells.len());
    for (series, &cell) in got.series.iter().zip(cells) {
        let sampled: Vec<_> = states.iter().filter(|st| st.clock.steps % spec.every == 0).collect();
        assert_eq!(series.times.len(), sampled.len(), "gauge {}", series.gauge.name);
        for ((t, v), st) in series.times.iter().zip(&series.values).zip(sampled) {
            assert_eq!(*t, st.clock.t, "gauge {}", series.gauge.name);
            let want: [f64; 4] = std::array::from_fn(|k| at(st, k)[cell as usize]);
            assert_eq!(*v, want, "gauge {} at t = {t}", series.gauge.name);
        }
    }
    arrival
}
