//! Rain and infiltration in the ADI model (docs/adi.md, "Rain and infiltration"): a closed
//! basin at rest rises by exactly the rain's integral and stays at rest; a ponded Green–Ampt
//! column under a basin against the analytic F(t), written plainly here; the water account of
//! a drying basin with gridded rain on Horton soils by cell closes to round-off; and the random
//! forcing the GPU proptest (`gpu.rs`) draws.

use super::model;
use crate::common::soil::{SILT_LOAM, green_ampt_exact};
use hydrokern::Rng;
use hydrokern::adi::Setup;
use hydrokern::adi::cpu::Adi;
use hydrokern::forcing::{Forcing, GreenAmpt, Horton, RAIN, RainGrid, Series, Soil, Soils};

/// A hyetograph of (t in s, mm/h) points, as m/s.
fn rain(points: &[(f64, f64)]) -> Series {
    let si: Vec<(f64, f64)> = points.iter().map(|&(t, v)| (t, v / 3.6e6)).collect();
    Series::from_points("test rain", &si, &RAIN, "s", "m/s").unwrap()
}

#[test]
fn rain_on_a_closed_basin_raises_it_by_the_rain_and_leaves_it_at_rest() {
    let mut s = Setup::basin(12, 9, 50.0, 40.0, 5.0, 2.0);
    // A hyetograph whose breakpoints fall inside steps (every 7 s against Δt = 5 s).
    s.forcing.rain = Some(rain(&[(0.0, 0.0), (7.0, 80.0), (21.0, 20.0), (35.0, 120.0), (1e4, 0.0)]));
    let mut m: Adi<f64> = model(&s);
    let series = s.forcing.rain.clone().unwrap();
    for n in 1..=40 {
        m.step().unwrap();
        let want = series.integral(0.0, n as f64 * 5.0);
        for (c, &z) in m.zeta.iter().enumerate() {
            assert!(
                (z - want).abs() <= 1e-15 * 2.0 + 4.0 * f64::EPSILON * want,
                "step {n}, cell {c}: ζ {z} against the rain's {want}"
            );
        }
        let moved = m.p.iter().chain(&m.q).fold(0.0f64, |a, v| a.max(v.abs()));
        // The sweeps' eliminations round ζ a little differently along a line: fluxes of that
        // rounding's order, nothing the rain drives.
        assert!(moved < 1e-15, "step {n}: a flux of {moved:e} m²/s in a basin rising evenly");
    }
    assert!(m.zeta[0] > 5e-4, "the rain raised the basin by {} m only", m.zeta[0]);
}

#[test]
fn a_green_ampt_column_under_a_basin_follows_the_ponded_solution() {
    // Silt loam under 1 m of still water for 24 h.
    let soil = SILT_LOAM;
    let mut s = Setup::basin(3, 2, 100.0, 100.0, 120.0, 1.0);
    s.forcing.soil = Some(soil.into());
    let mut m: Adi<f64> = model(&s);
    let steps = (24.0 * 3600.0 / 120.0) as usize;
    for n in 1..=steps {
        m.step().unwrap();
        if n % 180 == 0 {
            let want = green_ampt_exact(soil.ks, soil.suction * soil.deficit, n as f64 * 120.0);
            for (c, &f) in m.infiltrated.iter().enumerate() {
                assert!((f - want).abs() < 2e-4 * want, "t = {} h, cell {c}: F {f} against {want}", n / 30);
                // The water the soil took left the column.
                assert!((m.zeta[c] + f).abs() < 1e-12, "cell {c}: ζ {} + F {f} is not 0", m.zeta[c]);
            }
        }
    }
    assert!(m.infiltrated[0] > 0.05, "24 h of silt loam took {} m only", m.infiltrated[0]);
}

/// A basin whose bed rises above the still-water level to the east (drying and flooding on),
/// with two frames of rain at the cells' resolution on four Horton soils, cell by cell.
fn drying_basin_in_gridded_rain(nx: usize, ny: usize, seed: u64) -> Setup {
    let mut r = Rng::new(seed);
    let mut s = Setup::basin(nx, ny, 30.0, 30.0, 3.0, 1.0);
    for k in 0..ny {
        for j in 0..nx {
            let i = k * nx + j;
            s.depth[i] = 1.0 - 2.5 * j as f64 / nx as f64 + 0.2 * r.unit();
            s.zeta[i] = (-s.depth[i]).max(0.0) + 0.02 * r.unit() * (s.depth[i] > 0.0) as u8 as f64;
        }
    }
    s.drying = Some((0.01, 0.02));
    s.forcing = random_forcing(&mut r, nx, ny, true);
    s
}

/// Random rain (none, uniform, gridded or both) and soils (none, Green–Ampt or Horton, one or
/// by cell) on nx × ny cells; with `wet`, always some rain and a soil.
pub fn random_forcing(r: &mut Rng, nx: usize, ny: usize, wet: bool) -> Forcing {
    let cells = nx * ny;
    let pick = |r: &mut Rng, n: usize| ((r.unit() * n as f64) as usize).min(n - 1);
    let mut f = Forcing::default();
    let kind = if wet { 1 + pick(r, 3) } else { pick(r, 4) };
    if kind & 1 == 1 {
        let i = 200.0 * r.unit();
        f.rain = Some(rain(&[(0.0, i), (4.0 + 10.0 * r.unit(), 300.0 * r.unit()), (1e4, i)]));
    }
    if kind & 2 == 2 {
        // Frames on a coarser grid of rain cells, changing mid-step.
        let rain_cells = 1 + pick(r, 5);
        let frames = 3;
        let values: Vec<f32> = (0..frames * rain_cells).map(|_| (r.unit() * 300.0 / 3.6e6) as f32).collect();
        let index: Vec<u32> = (0..cells).map(|_| pick(r, rain_cells) as u32).collect();
        let t1 = 1.0 + 9.0 * r.unit();
        let times = vec![0.0, t1, t1 + 1.0 + 9.0 * r.unit(), 1e4];
        f.rain_grid = Some(RainGrid::new("test rain grid", times, values, rain_cells, index).unwrap());
    }
    let soil = |r: &mut Rng, horton: bool| -> Soil {
        if horton {
            let f0 = (20.0 + 100.0 * r.unit()) / 3.6e6;
            Horton { f0, fc: f0 * 0.2 * r.unit(), k: (1.0 + 5.0 * r.unit()) / 3600.0 }.into()
        } else {
            GreenAmpt {
                ks: (1.0 + 20.0 * r.unit()) / 3.6e6,
                suction: 0.05 + 0.2 * r.unit(),
                deficit: 0.1 + 0.3 * r.unit(),
            }
            .into()
        }
    };
    let soils = if wet { 1 + pick(r, 4) } else { pick(r, 5) };
    if soils > 0 {
        let horton = soils % 2 == 0;
        f.soil = Some(if soils > 2 {
            let table: Vec<Soil> = (0..4).map(|_| soil(r, horton)).collect();
            Soils::per_cell(table, (0..cells).map(|_| pick(r, 4) as u32).collect()).unwrap()
        } else {
            soil(r, horton).into()
        });
    }
    f
}

#[test]
fn the_water_account_of_a_drying_basin_in_gridded_rain_closes() {
    for seed in 0..4u64 {
        let s = drying_basin_in_gridded_rain(17, 11, seed);
        let mut m: Adi<f64> = model(&s);
        let cell = s.dx * s.dy;
        let volume = |m: &Adi<f64>| m.d.iter().zip(&m.zeta).map(|(d, z)| d + z).sum::<f64>() * cell;
        let v0 = volume(&m);
        m.run(60).unwrap();
        let t = 60.0 * s.dt;
        let area = (s.nx * s.ny) as f64 * cell;
        let rain = s.forcing.rain_volume(area, t);
        let soaked = m.infiltrated.iter().sum::<f64>() * cell;
        let residual = volume(&m) - v0 - rain + soaked;
        assert!(rain > 0.0 && soaked > 0.0, "seed {seed}: rain {rain} m³, infiltration {soaked} m³");
        assert!(residual.abs() < 1e-12 * (v0 + rain), "seed {seed}: residual {residual:e} m³ of {v0} + {rain}");
        // The soil never took more than a cell held: no column below its bed.
        for (c, (&d, &z)) in m.d.iter().zip(&m.zeta).enumerate() {
            assert!(d + z >= 0.0, "seed {seed}, cell {c}: depth {}", d + z);
        }
    }
}
