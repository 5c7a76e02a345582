//! Gauges, lines and maximum maps kept by the shallow-water model: after every step, on both
//! backends and in every precision (f32, f64, and mixed as the runner runs it, in f64), the
//! maps equal the maximum of the states taken step by step, every gauge sample equals the state
//! at its cell at that step, and every line's discharge the sum over its faces of the states'
//! momenta.

use crate::common::gpu;
use hydrokern::case::{CaseDoc, Check, Origin};
use hydrokern::grid::Grid2;
use hydrokern::kp::gpu::Launch;
use hydrokern::kp::{EarlyExit, KpModel, Problem, setup};
use hydrokern::model::{Model, State, Until};
use hydrokern::products::lines::Axis;
use hydrokern::products::{Gauge, Line, Sites, Spec, crossings};
use hydrokern::{Backend, GpuReal};

/// The model of `p` on `backend`, in the mixed precision (w in f64, the rest in f32, handed
/// over as `T`) with `mixed`; early exit off.
fn build<'p, T: GpuReal>(backend: &Backend, p: &'p Problem, mixed: bool) -> KpModel<'p, T> {
    let m = match mixed {
        true => KpModel::<T>::mixed(backend, p, Launch::default(), EarlyExit::Off),
        false => KpModel::<T>::new(backend, p, Launch::default(), EarlyExit::Off),
    };
    m.unwrap()
}

/// A column of water spreading over a dry bed with walls: cells get wet, and the water arrives
/// at each at its own time.
pub(super) fn problem() -> Problem {
    setup::column(24, 16, 12.0, 8.0, 2.0, 1.0, 0.0)
}

/// Three gauges and four lines: across the column's centre (beside the centre gauge's cell), a
/// bent line, one along a row of centres, and a closed one.
pub(super) fn spec() -> Spec {
    let gauges = [("centre", 6.0, 4.0), ("east", 10.9, 4.0), ("corner", 0.0, 0.0)];
    let lines: [(&str, &[[f64; 2]]); 4] = [
        ("across", &[[6.5, 0.0], [6.5, 8.0]]),
        ("bent", &[[1.0, 0.3], [11.0, 7.3], [3.3, 7.9]]),
        ("row", &[[0.0, 4.25], [12.0, 4.25]]),
        ("closed", &[[2.2, 1.7], [9.6, 2.1], [8.8, 6.9], [2.2, 1.7]]),
    ];
    Spec {
        gauges: gauges.iter().map(|&(n, x, y)| Gauge { name: n.into(), x, y }).collect(),
        lines: lines.iter().map(|&(n, p)| Line { name: n.into(), points: p.to_vec() }).collect(),
        every: 2,
        maxima: true,
        arrival_depth: 0.05,
    }
}

pub(super) fn grid_of(p: &Problem) -> Grid2 {
    Grid2 { nx: p.nx, ny: p.ny, dx: p.dx, dy: p.dy, origin: (0.0, 0.0), halo: 2 }
}

/// Where `s` samples on `grid`.
pub(super) fn sites(s: &Spec, grid: &Grid2) -> Sites {
    let doc = CaseDoc::parse(Origin::Builtin { name: "products", data: &[] }, "solver = \"kp\"\n".into()).unwrap();
    Sites::of(s, grid, &Check::new(&doc)).unwrap()
}

/// A line's discharge in state `st`, from its definition over the whole fields: over the faces
/// it crosses, net crossings × the face's length × the mean of the two cells' hu (or hv).
fn plain_discharge<T: GpuReal>(points: &[[f64; 2]], grid: &Grid2, st: &State<T>) -> f64 {
    let f = |name| st.field(name).unwrap().data.iter().map(|v| v.to_f64()).collect::<Vec<f64>>();
    let (hu, hv) = (f("hu"), f("hv"));
    let mut q = 0.0;
    for (face, n) in crossings(points, grid) {
        let c = face.j * grid.nx + face.i;
        q += match face.axis {
            Axis::X => n as f64 * grid.dy * (0.5 * (hu[c] + hu[c + 1])),
            Axis::Y => n as f64 * grid.dx * (0.5 * (hv[c] + hv[c + grid.nx])),
        };
    }
    q
}

/// Step `steps` steps one at a time, taking the state after each; compare the products with
/// the states. The maps are copies of values except the speed (√(hu² + hv²)/h, a few ε apart
/// on the GPU, whose contracted multiply-add the host's download does not repeat).
fn check<T: GpuReal>(backend: &Backend, steps: u64, mixed: bool) {
    let p = problem();
    let s = spec();
    let grid = grid_of(&p);
    let sites = sites(&s, &grid);
    let cells = s.cells(&grid).unwrap();
    assert_eq!(sites.cells[..cells.len()], cells, "the gauges' cells come first");
    let mut m = build::<T>(backend, &p, mixed).with_products(&s, sites).unwrap();
    let mut states = vec![m.state().unwrap()];
    for n in 1..=steps {
        m.advance(Until { t: 1e9, steps: n, deadline: None }).unwrap();
        states.push(m.state().unwrap());
    }
    let got = m.products(true).unwrap().expect("products kept");
    // The mixed precision's dry depth is its f32 model's.
    let dry = if mixed { p.coeffs::<f32>((32, 8)).dry as f64 } else { p.coeffs::<T>((32, 8)).dry.to_f64() };
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
    let sampled: Vec<_> = states.iter().filter(|st| st.clock.steps % s.every == 0).collect();
    assert_eq!(got.lines.len(), s.lines.len());
    for (l, want) in got.lines.iter().zip(&s.lines) {
        assert_eq!(&l.line, want);
        assert_eq!(l.times, sampled.iter().map(|st| st.clock.t).collect::<Vec<_>>(), "line {}", want.name);
        for (&q, st) in l.discharge.iter().zip(&sampled) {
            let plain = plain_discharge(&want.points, &grid, st);
            assert!(
                (q - plain).abs() <= 1e-14 * plain.abs().max(1.0),
                "line {} at t = {}: {q} vs {plain}",
                want.name,
                st.clock.t
            );
        }
    }
    // The water must cross the lines (the closed one's net discharge may stay near 0).
    assert!(got.lines[0].discharge.iter().any(|q| q.abs() > 1e-3), "no flow across {:?}", got.lines[0].discharge);
    for (series, &cell) in got.series.iter().zip(&cells) {
        assert_eq!(series.times.len(), sampled.len(), "gauge {}", series.gauge.name);
        for ((t, v), st) in series.times.iter().zip(&series.values).zip(&sampled) {
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
    check::<f64>(&backend, 30, false);
    check::<f32>(&backend, 30, false);
    check::<f64>(&backend, 30, true);
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_products_follow_the_states() {
    let backend = Backend::Gpu(gpu());
    // Past the ring's drains: the model reads its clock every few dozen steps.
    check::<f64>(&backend, 150, false);
    check::<f32>(&backend, 150, false);
    check::<f64>(&backend, 150, true);
}

/// A model restored from a checkpoint taken between two gauge samples goes on with the maps and
/// gauge records of the run it was taken of: after more steps, its products are bit for bit
/// those of that run. The restored model ran steps of its own first, so its maps and records
/// hold other values (and, on the GPU, its ring stands elsewhere) until the restore.
fn restored<T: GpuReal>(backend: &Backend, mixed: bool) {
    let p = problem();
    let s = spec();
    let grid = grid_of(&p);
    let sites = sites(&s, &grid);
    let model = || build::<T>(backend, &p, mixed).with_products(&s, sites.clone()).unwrap();
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
    assert_eq!(pa.lines, pb.lines);
    assert_eq!(pa.series[0].times.len(), 140 / 2 + 1);
    assert_eq!(pa.lines[0].discharge.len(), 140 / 2 + 1);
    // A checkpoint of another sampling (every 3 steps here) is refused, not misread.
    let other = Spec { every: 3, ..spec() };
    let mut m = build::<T>(backend, &p, mixed).with_products(&other, sites.clone()).unwrap();
    let e = m.restore(&c).unwrap_err().to_string();
    assert!(e.contains("gauge samples"), "{e}");
    // Nor is one without the lines' records: a checkpoint of the same gauges without lines.
    let gauges_only = Spec { lines: Vec::new(), ..spec() };
    let mut a = build::<T>(backend, &p, mixed).with_products(&gauges_only, s.cells(&grid).unwrap()).unwrap();
    to(&mut a, 37);
    let e = model().restore(&a.checkpoint().unwrap()).unwrap_err().to_string();
    assert!(e.contains("line_discharge"), "{e}");
}

#[test]
fn cpu_products_go_on_from_a_checkpoint() {
    let backend = Backend::Cpu { why: None };
    restored::<f64>(&backend, false);
    restored::<f32>(&backend, false);
    restored::<f64>(&backend, true);
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_products_go_on_from_a_checkpoint() {
    let backend = Backend::Gpu(gpu());
    restored::<f64>(&backend, false);
    restored::<f32>(&backend, false);
    restored::<f64>(&backend, true);
}
