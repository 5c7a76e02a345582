//! The Environment Agency's Test 4 (Néelz & Pender 2013): a flood entering a flat, dry
//! floodplain of 1000 m × 2000 m (n = 0.05) through a 20 m reach in the middle of its west side,
//! closed elsewhere; six output points, five on the axis at 50 to 400 m from the reach and one
//! at 424 m on the diagonal.
//!
//! While the front is clear of the other sides the wall through the reach is a mirror: the half
//! plane is a whole plane fed twice the discharge, and the flood spreads radially. The reference
//! is that radial problem, solved here on a fine grid by a finite-volume scheme of its own
//! (`Radial`), independent of the model's kernels; the model is checked against it at every
//! output point: the time the front arrives there and the depths an hour and two hours in.

use hydrokern::forcing::{DISCHARGE, Inflow, Series};
use hydrokern::kp::Problem;
use hydrokern::kp::cpu::CpuKp;

const WIDTH: f64 = 1000.0;
const LENGTH: f64 = 2000.0;
const MANNING: f64 = 0.05;
const G: f64 = 9.81;
/// The inflow's reach on the west side, and the output points (m).
const REACH: (f64, f64) = (990.0, 1010.0);
const POINTS: [(f64, f64); 6] =
    [(50.0, 1000.0), (100.0, 1000.0), (200.0, 1000.0), (300.0, 1000.0), (400.0, 1000.0), (300.0, 1300.0)];
/// The depth whose first crossing at a point is the front's arrival there (m).
const ARRIVAL: f64 = 0.01;

/// The scenario's hydrograph, `examples/data/ea-test4-hydrograph.csv` (minutes, m³/s), read as
/// its case reads it: times in s.
fn series() -> Series {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/ea-test4-hydrograph.csv");
    let text = std::fs::read_to_string(path).unwrap();
    Series::parse(path, &text, &DISCHARGE, "min", "m3/s").unwrap()
}

/// The hydrograph's points (s, m³/s), read once: the reference evaluates it every step.
fn hydrograph() -> &'static [(f64, f64)] {
    static POINTS: std::sync::OnceLock<Vec<(f64, f64)>> = std::sync::OnceLock::new();
    POINTS.get_or_init(|| {
        let s = series();
        s.times.iter().copied().zip(s.values.iter().copied()).collect()
    })
}

/// Q at `t`, linear between the points.
fn discharge(t: f64) -> f64 {
    let h = hydrograph();
    let k = h.windows(2).position(|w| t <= w[1].0).unwrap_or(h.len() - 2);
    let ((t0, q0), (t1, q1)) = (h[k], h[k + 1]);
    q0 + (q1 - q0) * ((t - t0) / (t1 - t0)).clamp(0.0, 1.0)
}

/// The radial problem of a source of twice the discharge spread evenly over a disc of radius
/// `R_SOURCE` (water entering with no momentum, as the model's inflow does), on cells of `dr`
/// from the centre: depth h and radial discharge q = hu per unit width at the cells' centres.
/// A first-order HLL scheme in the conservative radial form
///
///   ∂(rh)/∂t + ∂(rq)/∂r = r·s,   ∂(rq)/∂t + ∂(r(q²/h + gh²/2))/∂r = gh²/2 − r·g n² q|q|/h^{7/3},
///
/// whose pressure source (the faces' radii differing by dr) balances still water exactly, and
/// friction taken implicitly after each step.
struct Radial {
    dr: f64,
    h: Vec<f64>,
    q: Vec<f64>,
    t: f64,
}

/// The reach as a disc: a 20 m opening mirrored is 20 m across.
const R_SOURCE: f64 = 10.0;

impl Radial {
    fn new(dr: f64, extent: f64) -> Radial {
        let n = (extent / dr).round() as usize;
        Radial { dr, h: vec![0.0; n], q: vec![0.0; n], t: 0.0 }
    }

    fn radius(&self, i: usize) -> f64 {
        (i as f64 + 0.5) * self.dr
    }

    /// HLL flux of (q, q²/h + gh²/2) between two states; speeds with the dry-bed estimates.
    fn flux((hl, ql): (f64, f64), (hr, qr): (f64, f64)) -> (f64, f64) {
        let u = |h: f64, q: f64| if h > 1e-10 { q / h } else { 0.0 };
        let (ul, ur) = (u(hl, ql), u(hr, qr));
        let (cl, cr) = ((G * hl).sqrt(), (G * hr).sqrt());
        let phys = |h: f64, q: f64, u: f64| (q, q * u + 0.5 * G * h * h);
        let (fl, fr) = (phys(hl, ql, ul), phys(hr, qr, ur));
        if hl <= 1e-10 && hr <= 1e-10 {
            return (0.0, 0.0);
        }
        let sl = if hl <= 1e-10 {
            ur - 2.0 * cr
        } else if hr <= 1e-10 {
            ul - cl
        } else {
            (ul - cl).min(ur - cr)
        };
        let sr = if hr <= 1e-10 {
            ul + 2.0 * cl
        } else if hl <= 1e-10 {
            ur + cr
        } else {
            (ul + cl).max(ur + cr)
        };
        if sl >= 0.0 {
            fl
        } else if sr <= 0.0 {
            fr
        } else {
            let mix = |a: f64, b: f64, ua: f64, ub: f64| (sr * a - sl * b + sl * sr * (ub - ua)) / (sr - sl);
            (mix(fl.0, fr.0, hl, hr), mix(fl.1, fr.1, ql, qr))
        }
    }

    /// One step of at most `dt_max`; returns the step taken.
    fn step(&mut self, dt_max: f64) -> f64 {
        let n = self.h.len();
        let speed = (0..n)
            .map(|i| if self.h[i] > 1e-10 { (self.q[i] / self.h[i]).abs() + (G * self.h[i]).sqrt() } else { 0.0 })
            .fold(1e-3, f64::max);
        let dt = (0.4 * self.dr / speed).min(dt_max);
        // The fluxes through the inner faces of cells 0 to n − 1: at the centre (radius 0)
        // nothing; past the last cell a wall, far beyond the front.
        let faces: Vec<(f64, f64)> =
            (0..n)
                .map(|f| {
                    if f == 0 { (0.0, 0.0) } else { Self::flux((self.h[f - 1], self.q[f - 1]), (self.h[f], self.q[f])) }
                })
                .collect();
        let wall = (0.0, 0.5 * G * self.h[n - 1] * self.h[n - 1]);
        // The mirror's discharge, twice the model's, at its mean over the step (exact where Q
        // is linear), spread over the disc.
        let mirrored = discharge(self.t) + discharge(self.t + dt);
        let s = mirrored / (std::f64::consts::PI * R_SOURCE * R_SOURCE);
        for i in 0..n {
            let (r, rl, rr) = (self.radius(i), i as f64 * self.dr, (i + 1) as f64 * self.dr);
            let right = if i + 1 == n { wall } else { faces[i + 1] };
            let left = faces[i];
            let source = if rr <= R_SOURCE + 1e-9 { s } else { 0.0 };
            let area = r * self.dr;
            let h = self.h[i] - dt * (rr * right.0 - rl * left.0) / area + dt * source;
            let q = self.q[i] - dt * (rr * right.1 - rl * left.1 - 0.5 * G * self.h[i] * self.h[i] * self.dr) / area;
            self.h[i] = h.max(0.0);
            self.q[i] = if self.h[i] > 1e-10 {
                q / (1.0 + dt * G * MANNING * MANNING * q.abs() / self.h[i].powf(7.0 / 3.0))
            } else {
                0.0
            };
        }
        self.t += dt;
        dt
    }

    /// The depth at radius `r`, linear between the cells' centres.
    fn depth(&self, r: f64) -> f64 {
        let x = (r / self.dr - 0.5).max(0.0);
        let i = (x.floor() as usize).min(self.h.len() - 2);
        let f = x - i as f64;
        self.h[i] * (1.0 - f) + self.h[i + 1] * f
    }

    /// The water it holds (m³), as a whole plane.
    fn volume(&self) -> f64 {
        (0..self.h.len()).map(|i| 2.0 * std::f64::consts::PI * self.radius(i) * self.dr * self.h[i]).sum()
    }
}

/// What a run gives at the output points: the arrival times (s) and the depths at `times`.
struct AtPoints {
    arrival: Vec<f64>,
    depths: Vec<Vec<f64>>,
}

/// The radial reference at the output points' distances from the reach's middle.
fn reference(dr: f64, times: &[f64]) -> AtPoints {
    let radii: Vec<f64> = POINTS.iter().map(|&(x, y)| x.hypot(y - 0.5 * LENGTH)).collect();
    let mut r = Radial::new(dr, 1500.0);
    let mut arrival = vec![f64::NAN; radii.len()];
    let mut depths = vec![];
    for &t in times {
        while r.t < t {
            r.step(t - r.t);
            for (a, &x) in arrival.iter_mut().zip(&radii) {
                if a.is_nan() && r.depth(x) > ARRIVAL {
                    *a = r.t;
                }
            }
        }
        depths.push(radii.iter().map(|&x| r.depth(x)).collect());
    }
    // Mass: what the mirror's discharge (twice the model's) brought in, to round-off; a depth
    // clamped at 0 would show.
    let inflow: f64 = hydrograph()
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0].0.min(r.t), w[1].0.min(r.t));
            (b - a) * (discharge(a) + discharge(b))
        })
        .sum();
    assert!((r.volume() - inflow).abs() < 1e-9 * inflow, "the reference holds {} m³ of {inflow} m³", r.volume());
    AtPoints { arrival, depths }
}

/// The floodplain as the case file `examples/ea-test4.toml` sets it, on square cells of `cell`.
fn floodplain(cell: f64) -> Problem {
    let (nx, ny) = ((WIDTH / cell).round() as usize, (LENGTH / cell).round() as usize);
    let mut p = Problem::new(nx, ny, WIDTH, LENGTH);
    p.manning = MANNING;
    // As a case with forcing: the dry plain sets no Δt of its own.
    p.dt_max = 10.0;
    // Per unit width: a cell's share is the length of its west edge inside the reach.
    let inside = |j: usize| ((j + 1) as f64 * cell).min(REACH.1) - (j as f64 * cell).max(REACH.0);
    let cells = (0..ny).filter(|&j| inside(j) > 0.0).map(|j| (j * nx, inside(j) / (REACH.1 - REACH.0))).collect();
    p.forcing.inflows.push(Inflow { name: "breach".into(), series: series(), cells });
    p
}

/// A run of the floodplain on cells of `cell` at the output points (the cell each lies in, or
/// the mean of the two whose shared side it lies on): `step(t)` takes one step towards `t` and
/// gives the time reached and the padded w.
fn at_points(cell: f64, times: &[f64], mut step: impl FnMut(f64) -> (f64, Vec<f64>)) -> AtPoints {
    let p = floodplain(cell);
    let cells: Vec<Vec<usize>> = POINTS
        .iter()
        .map(|&(x, y)| {
            let i = (x / cell).floor() as usize;
            let j = y / cell;
            let rows = if j.fract() == 0.0 { vec![j as usize - 1, j as usize] } else { vec![j.floor() as usize] };
            rows.into_iter().map(|j| j * p.nx + i).collect()
        })
        .collect();
    // The bed is flat at 0: w is the depth.
    let depth = |w: &[f64], cs: &[usize]| {
        let w = p.interior(w);
        cs.iter().map(|&c| w[c]).sum::<f64>() / cs.len() as f64
    };
    let (mut arrival, mut depths, mut now) = (vec![f64::NAN; POINTS.len()], vec![], 0.0);
    for &t in times {
        let mut w = vec![];
        while now < t {
            (now, w) = step(t);
            for (a, cs) in arrival.iter_mut().zip(&cells) {
                if a.is_nan() && depth(&w, cs) > ARRIVAL {
                    *a = now;
                }
            }
        }
        depths.push(cells.iter().map(|cs| depth(&w, cs)).collect());
    }
    AtPoints { arrival, depths }
}

/// The CPU reference's run at the output points.
fn model(cell: f64, times: &[f64]) -> AtPoints {
    let p = floodplain(cell);
    let mut m = CpuKp::<f64>::new(&p, super::BLOCK, false).unwrap();
    at_points(cell, times, |t| {
        m.step(t).expect("no blow-up");
        (m.time(), m.state()[0].to_vec())
    })
}

/// The largest relative difference of `model` from `reference` over the points `which`.
fn worst(model: &[f64], reference: &[f64], which: std::ops::Range<usize>) -> f64 {
    which.map(|k| (model[k] / reference[k] - 1.0).abs()).fold(0.0, f64::max)
}

/// The points (1 to 6) and their values in minutes or metres, for messages.
fn shown(label: &str, m: &AtPoints, r: &AtPoints, times: &[f64]) -> String {
    let minutes = |a: &[f64]| a.iter().map(|a| format!("{:.2}", a / 60.0)).collect::<Vec<_>>().join(", ");
    let metres = |d: &[f64]| d.iter().map(|d| format!("{d:.4}")).collect::<Vec<_>>().join(", ");
    let mut s = format!("{label}: arrival (min) {} against {}", minutes(&m.arrival), minutes(&r.arrival));
    for (k, t) in times.iter().enumerate() {
        s += &format!("; depth at {t} s (m) {} against {}", metres(&m.depths[k]), metres(&r.depths[k]));
    }
    s
}

/// On 20 m cells (the reach one cell) the flood is a coarse copy of the radial one: the front
/// reaches points 2 to 6 at most 25% late (16–20% when written), and two hours in the depths
/// are within 20% (up to 17%); the diagonal point is no further off than the axis's last.
#[test]
fn ea_test4_on_coarse_cells_follows_the_radial_flood() {
    let times = [7200.0];
    let (r, m) = (reference(1.0, &times), model(20.0, &times));
    let s = shown("20 m cells", &m, &r, &times);
    assert!((1..6).all(|k| m.arrival[k] > r.arrival[k]), "the front runs ahead: {s}");
    assert!(worst(&m.arrival, &r.arrival, 1..6) < 0.25, "{s}");
    assert!(worst(&m.depths[0], &r.depths[0], 0..6) < 0.2, "{s}");
    let off = |k: usize| (m.depths[0][k] / r.depths[0][k] - 1.0).abs();
    assert!(off(5) < off(4) + 0.03, "the diagonal lags the axis: {s}");
}

/// The GPU's run on 20 m cells (f64, the streamed kernels as a case runs them) is the CPU
/// reference's to the GPU's rounding: the front reaches each point within one step of its time
/// (a step is 2–3 s here) and the depths two hours in agree to 1e-9 m.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn ea_test4_on_the_gpu_is_the_cpu_references() {
    use hydrokern::kp::gpu::{FluxKernel, GpuKp, Launch};
    let (cell, times) = (20.0, [7200.0]);
    let gpu = crate::common::gpu();
    let mut m = GpuKp::<f64>::new(&gpu, &floodplain(cell), Launch::default()).unwrap();
    let on_gpu = at_points(cell, &times, |t| {
        m.set_stop(t);
        m.step(FluxKernel::Full).unwrap();
        (m.clock(&gpu).unwrap().t, m.download(&gpu).unwrap()[0].clone())
    });
    let cpu = model(cell, &times);
    let s = shown("GPU against CPU, 20 m cells", &on_gpu, &cpu, &times);
    for k in 0..POINTS.len() {
        assert!((on_gpu.arrival[k] - cpu.arrival[k]).abs() <= 3.0, "point {}: {s}", k + 1);
        assert!((on_gpu.depths[0][k] - cpu.depths[0][k]).abs() <= 1e-9, "point {}: {s}", k + 1);
    }
}

mod long {
    use super::*;

    /// On 10 m cells and on the benchmark's 5 m: the front reaches points 2 to 6 within 12% of
    /// the radial flood's time on 10 m cells (5.5–10.4% when written) and within 6% on 5 m
    /// (2.4–5.5%), each point's lag at most 0.6 of its lag on 10 m (first order: 0.41–0.53);
    /// the depths an hour in (points 1 to 4; the front is at point 5) and two hours in are within
    /// 4% on 10 m cells (2.4%) and 2% on 5 m (0.8%). The reference on 0.5 m cells, whose arrival
    /// times at points 2 to 6 differ from those on 1 m cells by 1.4% at most.
    #[test]
    #[ignore = "long: the floodplain on 10 m and 5 m cells for two hours, about five minutes"]
    fn ea_test4_converges_to_the_radial_flood() {
        let times = [3600.0, 7200.0];
        let r = reference(0.5, &times);
        let depth = |m: &AtPoints| worst(&m.depths[0], &r.depths[0], 0..4).max(worst(&m.depths[1], &r.depths[1], 0..6));
        let lag = |m: &AtPoints, k: usize| m.arrival[k] / r.arrival[k] - 1.0;
        let coarse = model(10.0, &times);
        let fine = model(5.0, &times);
        let (s10, s5) = (shown("10 m cells", &coarse, &r, &times), shown("5 m cells", &fine, &r, &times));
        println!("{s10}\n{s5}");
        assert!(worst(&coarse.arrival, &r.arrival, 1..6) < 0.12 && depth(&coarse) < 0.04, "{s10}");
        assert!(worst(&fine.arrival, &r.arrival, 1..6) < 0.06 && depth(&fine) < 0.02, "{s5}");
        for k in 1..6 {
            assert!(lag(&fine, k).abs() <= 0.6 * lag(&coarse, k).abs(), "point {}: {s5}\n{s10}", k + 1);
        }
    }
}
