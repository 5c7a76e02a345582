//! The water account's boundary segments against independent estimates: a steady uniform
//! channel lets out q·width·t through its normal-depth end and takes as much in at its held
//! level; a tide lets water in and out, each the tidal range's volume; a lake at rest behind an
//! outlet lets nothing through it. (That the account closes to round-off in every scheme is
//! `forcing.rs`'s proptest.)

use super::BLOCK;
use hydrokern::forcing::{LEVEL, LevelSide, Outlet, Series};
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::segments::Segments;
use hydrokern::kp::{Boundary, Problem, WetDry};
use hydrokern::model::BoundaryFlow;

/// The segments' volumes of a CPU run of `p` at each of `times`, and the storage there; `each`
/// sees the storage after every step.
fn run_to(p: &Problem, times: &[f64], mut each: impl FnMut(f64)) -> Vec<(Vec<BoundaryFlow>, f64)> {
    let mut m = CpuKp::<f64>::new(p, BLOCK, false).expect("valid problem");
    let segments = Segments::of(p);
    times
        .iter()
        .map(|&t| {
            while m.time() < t {
                m.step(t).expect("no blow-up");
                each(p.volume(m.state()[0], m.cell_bed()));
            }
            let flows = segments.flows(m.boundary_volumes().expect("segments to measure"));
            (flows, p.volume(m.state()[0], m.cell_bed()))
        })
        .collect()
}

/// A level held on the whole of side `side` of `p` at `level` (m) until `t_end`.
fn held(p: &mut Problem, name: &str, side: usize, points: &[(f64, f64)]) {
    let n = if side < 2 { p.ny } else { p.nx };
    let series = Series::from_points(name, points, &LEVEL, "s", "m").unwrap();
    p.forcing.levels.push(LevelSide { name: name.into(), side, cells: 0..n, series });
}

/// Uniform flow 0.5 m deep down a 200 m × 20 m channel at slope 0.001 (Manning n = 0.03): q =
/// h^{5/3}√S₀/n per unit width enters at the west, where the level is held at the normal
/// depth over the bed, and leaves through the normal-depth east side. Once the start's
/// adjustment has passed, each segment's volume over 10 minutes is q·width·t within 0.5%, in
/// every wet–dry scheme.
#[test]
fn a_uniform_channel_lets_out_q_times_width_times_t() {
    let (l, w, s0, n, h): (f64, f64, f64, f64, f64) = (200.0, 20.0, 1e-3, 0.03, 0.5);
    let q = h * h.powf(2.0 / 3.0) * s0.sqrt() / n;
    for wet_dry in WetDry::ALL {
        let mut p = Problem::new(40, 4, l, w);
        p.set_bed(|x, _| s0 * (l - x));
        p.set_depth(|_, _| h);
        p.hu.fill(q);
        p.manning = n;
        p.wet_dry = wet_dry;
        p.boundary = [Boundary::Wall, Boundary::NormalDepth, Boundary::Wall, Boundary::Wall];
        held(&mut p, "upstream", 0, &[(0.0, s0 * l + h), (1e4, s0 * l + h)]);
        let (t1, t2) = (300.0, 900.0);
        let at = run_to(&p, &[t1, t2], |_| {});
        let volume = |k: usize, name: &str| {
            let f = at[k].0.iter().find(|f| f.name == name).expect("the segment");
            (f.out, f.into)
        };
        let want = q * w * (t2 - t1);
        let (east, upstream) =
            (volume(1, "east").0 - volume(0, "east").0, volume(1, "upstream").1 - volume(0, "upstream").1);
        let what = wet_dry.name();
        assert!((east / want - 1.0).abs() < 5e-3, "{what}: {east:.4} m³ left by the east side, q·W·t = {want:.4}");
        assert!((upstream / want - 1.0).abs() < 5e-3, "{what}: {upstream:.4} m³ came in upstream, q·W·t = {want:.4}");
        // Nothing the other way: the flow is uniform.
        assert!(volume(1, "east").1 == 0.0 && volume(1, "upstream").0 == 0.0, "{what}: {:?}", at[1].0);
    }
}

/// A tide of ±1 m over an hour held at the mouth of a basin whose bed rises from 3 m below the
/// mean to 1 m above it: the water that comes in over the period and the water that leaves are
/// each the volume between high and low water (within 3%: the flow through the mouth is one way
/// at a time but for slack water), and in and out balance the storage to round-off.
#[test]
fn a_tide_lets_water_in_and_out() {
    let (l, period, amplitude): (f64, f64, f64) = (1000.0, 3600.0, 1.0);
    let mut p = Problem::new(20, 6, l, 300.0);
    p.set_bed(|x, _| -3.0 + 4.0 * (l - x) / l);
    p.set_level(0.0);
    p.manning = 0.025;
    p.dt_max = 10.0;
    let tide: Vec<(f64, f64)> = (0..=256)
        .map(|k| {
            let t = k as f64 * period / 256.0;
            (t, amplitude * (std::f64::consts::TAU * t / period).sin())
        })
        .collect();
    held(&mut p, "mouth", 1, &tide);
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    let at = run_to(&p, &[0.0, period], |v| (low, high) = (low.min(v), high.max(v)));
    let (v0, (flows, storage)) = (at[0].1, &at[1]);
    let mouth = &flows[0];
    let range = high - low;
    assert!((mouth.into / range - 1.0).abs() < 0.03, "in {:.1} m³ against the range {range:.1}", mouth.into);
    assert!((mouth.out / range - 1.0).abs() < 0.03, "out {:.1} m³ against the range {range:.1}", mouth.out);
    let r = (storage - v0) - mouth.into + mouth.out;
    assert!(
        r.abs() < 1e-12 * range,
        "storage change {:.6e} against in − out {:.6e}",
        storage - v0,
        mouth.into - mouth.out
    );
}

/// A lake at rest behind an outlet on part of a wall side (and behind a side held at its own
/// level) lets nothing through either, in every wet–dry scheme: the account measures no flow
/// where there is none.
#[test]
fn a_lake_at_rest_lets_nothing_out() {
    for wet_dry in WetDry::ALL {
        let mut p = Problem::new(12, 8, 12.0, 8.0);
        p.set_bed(|x, y| 0.3 * (x * 0.7).sin() * (y * 0.5).cos());
        p.set_level(0.5);
        p.wet_dry = wet_dry;
        p.forcing.outlets.push(Outlet { name: "outlet".into(), side: 1, cells: 2..5, normal_depth: false });
        held(&mut p, "held", 2, &[(0.0, 0.5), (10.0, 0.5)]);
        let at = run_to(&p, &[5.0], |_| {});
        let v = at[0].1;
        for f in &at[0].0 {
            assert!(f.out < 1e-12 * v && f.into < 1e-12 * v, "{}: {f:?} from a lake of {v} m³", wet_dry.name());
        }
    }
}

/// A lake at rest against a normal-depth side, and behind a normal-depth outlet, where the bed
/// rises toward them lets nothing in or out, in every wet–dry scheme: there is no uniform flow
/// to leave at up a rise, so their ghosts mirror the bed (as an `outflow` side's do) instead of
/// continuing its slope, which would stand them above the cells inside and pour the copied
/// depth in over them.
#[test]
fn normal_depth_on_rising_ground_lets_nothing_in() {
    for wet_dry in WetDry::ALL {
        let mut p = Problem::new(12, 8, 12.0, 8.0);
        // Rising toward the east side and toward the north side's outlet.
        p.set_bed(|x, y| 0.02 * x + 0.01 * y + 0.05 * (y * 0.9).sin());
        p.set_level(0.5);
        p.wet_dry = wet_dry;
        p.boundary = [Boundary::Wall, Boundary::NormalDepth, Boundary::Wall, Boundary::Wall];
        p.forcing.outlets.push(Outlet { name: "outlet".into(), side: 3, cells: 3..9, normal_depth: true });
        let at = run_to(&p, &[5.0], |_| {});
        let v = at[0].1;
        for f in &at[0].0 {
            assert!(f.out < 1e-12 * v && f.into < 1e-12 * v, "{}: {f:?} from a lake of {v} m³", wet_dry.name());
        }
    }
}

/// Rain on a valley that drains east over a normal-depth side (and over a normal-depth outlet
/// in a wall) where the bed bends across the side: its x slope steepens toward the north, so
/// each node line continues into the ghosts at a slope of its own, and a shallow cell beside
/// them can have its face above its ghost's surface. The central-upwind flux would then carry
/// water in through the face; a face that would take water in is closed for the stage, so in
/// every wet–dry scheme water only leaves, and the account still closes.
#[test]
fn a_normal_depth_side_lets_water_only_out() {
    use hydrokern::forcing::RAIN;
    let (l, w): (f64, f64) = (400.0, 200.0);
    for outlet in [false, true] {
        for wet_dry in WetDry::ALL {
            let mut p = Problem::new(20, 10, l, w);
            p.set_bed(|x, y| {
                let n = y / w;
                (l - x) * (0.002 + 0.03 * n * n) + 2.0 * n * n
            });
            p.manning = 0.05;
            p.wet_dry = wet_dry;
            p.dt_max = 5.0;
            let rain = [(0.0, 5e-5), (600.0, 5e-5), (600.5, 0.0), (1e4, 0.0)];
            p.forcing.rain = Some(Series::from_points("rain", &rain, &RAIN, "s", "m/s").unwrap());
            let name = if outlet {
                p.forcing.outlets.push(Outlet { name: "outlet".into(), side: 1, cells: 2..9, normal_depth: true });
                "outlet"
            } else {
                p.boundary[1] = Boundary::NormalDepth;
                "east"
            };
            let at = run_to(&p, &[1800.0], |_| {});
            let f = at[0].0.iter().find(|f| f.name == name).expect("the segment");
            let what = format!("{} ({name})", wet_dry.name());
            assert!(f.out > 1.0, "{what}: {:.3} m³ left", f.out);
            assert!(f.into == 0.0, "{what}: {:.3e} m³ came in, {:.3} m³ left", f.into, f.out);
        }
    }
}
