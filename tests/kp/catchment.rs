//! The tilted V-catchment (Di Giammarco et al. 1996; Panday & Huyakorn 2004): two planes of
//! 800 m × 1000 m falling at 0.05 towards a channel 20 m wide that falls at 0.02 to an outlet,
//! Manning n 0.015 on the planes and 0.15 in the channel, rain of 10.8 mm/h for 90 minutes and
//! then 90 minutes dry. The catchment is closed but for the channel's outlet.

use hydrokern::forcing::{Outlet, RAIN, Series};
use hydrokern::kp::{Problem, WetDry};

const PLANE: f64 = 800.0;
const CHANNEL: f64 = 20.0;
const LENGTH: f64 = 1000.0;
/// 10.8 mm/h.
const RAIN_RATE: f64 = 10.8e-3 / 3600.0;
const RAIN_END: f64 = 5400.0;
/// Half the span of the central differences the discharge is taken from.
const DT: f64 = 30.0;

/// The outlet's discharge (m³/s) at `times` on cells of `cell` metres, from the water account:
/// the volume its faces measured over ±[`DT`] (equal, to round-off, to the rain in less the
/// storage's rate of change: the catchment's only opening is the outlet).
fn outlet_discharge(cell: f64, times: &[f64]) -> Vec<f64> {
    let width = 2.0 * PLANE + CHANNEL;
    let (nx, ny) = ((width / cell).round() as usize, (LENGTH / cell).round() as usize);
    let mut p = Problem::new(nx, ny, width, LENGTH);
    let mid = width / 2.0;
    p.set_bed(|x, y| 0.02 * y + 0.05 * ((x - mid).abs() - CHANNEL / 2.0).max(0.0));
    let channel = |i: usize| ((i as f64 + 0.5) * cell - mid).abs() < CHANNEL / 2.0;
    p.manning_field = Some((0..nx * ny).map(|k| if channel(k % nx) { 0.15 } else { 0.015 }).collect());
    let cells: Vec<usize> = (0..nx).filter(|&i| channel(i)).collect();
    p.forcing.outlets.push(Outlet {
        name: "outlet".into(),
        side: 2,
        cells: cells[0]..cells[cells.len() - 1] + 1,
        normal_depth: true,
    });
    let rain = [(0.0, RAIN_RATE), (RAIN_END, RAIN_RATE), (RAIN_END + 1e-6, 0.0), (1e9, 0.0)];
    p.forcing.rain = Some(Series::from_points("rain", &rain, &RAIN, "s", "m/s").unwrap());
    // Sheet flow: as a rained-on case's defaults (docs/kp-forcing.md).
    p.wet_dry = WetDry::Kp07;
    p.kappa_depth = 1e-4;
    p.dt_max = 10.0;
    super::forcing::account_outflow(&p, times, DT)
}

/// The outlet hydrograph on 20 m cells (the channel one cell wide), as the published ones: it
/// rises while the planes and the channel fill, holds the equilibrium i × area (4.86 m³/s)
/// once the whole catchment drains to the outlet (the planes' kinematic time of concentration,
/// (nL/(√S i^{2/3}))^{3/5}, is 30 minutes), and recedes once the rain stops.
#[test]
fn the_v_catchment_reaches_equilibrium_and_recedes() {
    let equilibrium = RAIN_RATE * (2.0 * PLANE + CHANNEL) * LENGTH;
    let rising = [5.0, 15.0, 30.0];
    let held = [60.0, 75.0, 89.0];
    let receding = [100.0, 120.0, 150.0, 179.0];
    let minutes: Vec<f64> = [&rising[..], &held, &receding].concat();
    let times: Vec<f64> = minutes.iter().map(|m| m * 60.0).collect();
    let q = outlet_discharge(20.0, &times);
    let at = |m: f64| q[minutes.iter().position(|&x| x == m).unwrap()];
    let shown = || format!("{:?}", minutes.iter().zip(&q).map(|(m, q)| format!("{m} min: {q:.3}")).collect::<Vec<_>>());
    // Rising: the outlet sees little before the planes' water has crossed them and the channel.
    for w in rising.windows(2) {
        assert!(at(w[0]) < at(w[1]), "the rising limb falls: {}", shown());
    }
    assert!(at(15.0) < 0.25 * equilibrium && at(30.0) < 0.9 * equilibrium, "rises too soon: {}", shown());
    for m in held {
        let r = at(m) / equilibrium - 1.0;
        assert!(r.abs() < 0.005, "{m} min: {:.4} m³/s against the equilibrium {equilibrium:.4}: {}", at(m), shown());
    }
    for w in receding.windows(2) {
        assert!(at(w[1]) < at(w[0]), "the recession rises: {}", shown());
    }
    assert!(at(100.0) < 0.95 * equilibrium && at(179.0) < 0.1 * equilibrium, "recedes too slowly: {}", shown());
    assert!(q.iter().all(|&q| q > 0.0), "water flows in at the outlet: {}", shown());
}

mod long {
    use super::*;

    /// On 10 m cells (the channel two cells wide) the hydrograph holds the same equilibrium,
    /// and its rising limb and recession stay within 3% of the equilibrium of the 20 m run's
    /// (2.7% at most, on the rising limb at 30 minutes): the 20 m run above is resolved.
    #[test]
    #[ignore = "long: the V-catchment on 10 m cells, about five minutes"]
    fn the_v_catchment_on_finer_cells_keeps_its_hydrograph() {
        let equilibrium = RAIN_RATE * (2.0 * PLANE + CHANNEL) * LENGTH;
        let minutes = [15.0, 30.0, 45.0, 75.0, 100.0, 120.0, 150.0];
        let times: Vec<f64> = minutes.iter().map(|m| m * 60.0).collect();
        let (coarse, fine) = (outlet_discharge(20.0, &times), outlet_discharge(10.0, &times));
        println!("minutes {minutes:?}\n20 m {coarse:.3?}\n10 m {fine:.3?}");
        let r = fine[3] / equilibrium - 1.0;
        assert!(r.abs() < 0.005, "75 min on 10 m cells: {:.4} m³/s against {equilibrium:.4}", fine[3]);
        for ((m, c), f) in minutes.iter().zip(&coarse).zip(&fine) {
            assert!((c - f).abs() < 0.03 * equilibrium, "{m} min: {c:.3} m³/s on 20 m cells, {f:.3} on 10 m");
        }
    }
}
