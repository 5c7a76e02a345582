//! Forcing that changes from cell to cell, and Horton's soil: gridded rain (each cell its frames'
//! rain, a step straddling frame times taking each frame's share), soils per cell (two soils side
//! by side infiltrating as their own columns), and Horton's step against the analytic ponded
//! curve, with the e^(−x) the kernels compute it with.

use super::forcing::{SILT_LOAM, green_ampt_exact};
use super::run;
use hydrokern::forcing::{GreenAmpt, Horton, RainGrid, Soil, Soils};
use hydrokern::kp::Problem;
use kernels::forcing::{exp_neg, frame_at, held_integral, horton, one_minus_exp_neg, one_minus_given};

/// e^(−x) and 1 − e^(−x) as the kernels compute them, against the standard library's, from
/// 1e-12 to past f64's underflow: within a few ulp.
#[test]
fn exp_neg_agrees_with_the_standard_library() {
    let mut xs: Vec<f64> = (0..400).map(|k| 1e-12 * 1.1f64.powi(k)).collect();
    xs.extend((0..64).map(|k| k as f64 * std::f64::consts::LN_2 / 2.0));
    xs.extend([0.0, 0.4999999, 0.5, 0.5000001, 700.0, 708.0, 709.0, 800.0]);
    for x in xs {
        let (got, want) = (exp_neg(x), (-x).exp());
        assert!((got - want).abs() <= 4.0 * f64::EPSILON * want + 1e-300, "e^-{x}: {got:e} against {want:e}");
        let (got, want) = (one_minus_exp_neg(x), -(-x).exp_m1());
        assert!((got - want).abs() <= 4.0 * f64::EPSILON * want, "1 − e^-{x}: {got:e} against {want:e}");
    }
}

/// A Horton soil (f0 75 mm/h, fc 10 mm/h, k 4/h: a sandy loam's in Akan's tables).
const HORTON: Horton = Horton { f0: 75e-3 / 3600.0, fc: 10e-3 / 3600.0, k: 4.0 / 3600.0 };

/// Ponded, Horton's step follows F(t) = fc·t + (f0 − fc)(1 − e^(−kt))/k to round-off whatever
/// Δt is: each step is F(τ + Δt) − F(τ) from the time τ the soil's total gives. A soil whose total
/// lags the curve (light rain kept it from ponding) takes what the curve takes from that total on.
#[test]
fn horton_step_follows_the_ponded_curve() {
    let soil = HORTON.soil::<f64>();
    let day = 86_400.0;
    for dt in [1.0, 7.0, 60.0, 600.0, 3600.0] {
        let (mut f, mut t) = (0.0, 0.0);
        while t < day {
            f += horton(soil, f, dt);
            t += dt;
            let want = HORTON.ponded(t);
            assert!((f - want).abs() <= 1e-11 * want, "Δt = {dt} s, t = {t} s: F {f:e} against {want:e}");
        }
    }
    for t in [0.0, 60.0, 1800.0, 7200.0, day] {
        let (f, dt) = (HORTON.ponded(t), 90.0);
        let (got, want) = (horton(soil, f, dt), HORTON.ponded(t + dt) - HORTON.ponded(t));
        assert!((got - want).abs() <= 1e-9 * want, "from F({t}): {got:e} against {want:e}");
    }
    // fc = 0: the soil takes at most (f0 − fc)/k in all, and nothing once there.
    let decaying = Horton { fc: 0.0, ..HORTON };
    let limit = decaying.f0 / decaying.k;
    let f = limit * (1.0 + 1e-12);
    assert_eq!(horton(decaying.soil::<f64>(), f, 60.0), 0.0);
    assert!(horton(decaying.soil::<f64>(), 0.5 * limit, 1e9) <= 0.5 * limit * (1.0 + 1e-12));
    // f0 = fc: a constant rate.
    let constant = Horton { fc: HORTON.f0, ..HORTON };
    assert_eq!(horton(constant.soil::<f64>(), 0.3, 10.0), HORTON.f0 * 10.0);
}

/// A flat closed basin 1 m deep over the Horton soil for 6 h: every cell's soil has taken the
/// analytic F(t), in f64 to round-off and in f32 to its precision, and the water lost is what
/// the soil took.
#[test]
fn ponded_column_infiltrates_as_horton() {
    let mut p = Problem::new(4, 3, 400.0, 300.0);
    p.set_depth(|_, _| 1.0);
    p.forcing.soil = Some(HORTON.into());
    let t_end = 6.0 * 3600.0;
    let exact = HORTON.ponded(t_end);
    let m = run::<f64>(&p, t_end);
    let (_, f) = m.forcing_state().expect("forcing");
    let h = super::depth(&p, &m);
    for (v, h) in p.interior(f.expect("a soil")).iter().zip(&h) {
        assert!((v - exact).abs() < 1e-11 * exact, "F = {v} against {exact}");
        assert!((h - (1.0 - v)).abs() < 1e-12, "depth {h} against 1 m less what the soil took, {v}");
    }
    let m = run::<f32>(&p, t_end);
    let (_, f) = m.forcing_state().expect("forcing");
    for v in p.interior(f.expect("a soil")) {
        assert!((v as f64 - exact).abs() < 1e-4 * exact, "f32: F = {v} against {exact}");
    }
}

/// A soil that takes all the rain that falls on it (a constant capacity of 1 m/s): each cell's
/// total is then exactly the rain it received, and its water stays where it fell.
const SPONGE: Horton = Horton { f0: 1.0, fc: 1.0, k: 1.0 };

/// Rain grids on a dry 8 × 4 basin of 10 m cells: two frames, the west half and the east half
/// at different intensities (20 and 50 mm/h for 30 min, then 10 and 0 mm/h), on a soil that
/// takes all of it, with steps of 7 s that straddle the frames' change. Each half has received
/// its own rain, to round-off, and the water account's rain is their sum.
#[test]
fn a_rain_grid_in_two_halves_rains_on_each_its_own() {
    let (nx, ny) = (8, 4);
    let mut p = Problem::new(nx, ny, 80.0, 40.0);
    p.forcing.soil = Some(SPONGE.into());
    p.dt_max = 7.0;
    let mm_h = |v: f64| v * 1e-3 / 3600.0;
    let half = |west: f64, east: f64| -> Vec<f64> {
        (0..nx * ny).map(|c| if c % nx < nx / 2 { mm_h(west) } else { mm_h(east) }).collect()
    };
    let frames = [half(20.0, 50.0), half(10.0, 0.0)];
    let grid = RainGrid::on_cells("halves", vec![0.0, 1800.0, 3600.0], &frames).unwrap();
    p.forcing.rain_grid = Some(grid);
    let m = run::<f64>(&p, 3600.0);
    assert_eq!(m.time(), 3600.0);
    // The frames hold f32 intensities, as the kernels read them.
    let f32_of = |v: f64| v as f32 as f64;
    let want = [1800.0 * (f32_of(mm_h(20.0)) + f32_of(mm_h(10.0))), 1800.0 * (f32_of(mm_h(50.0)) + f32_of(mm_h(0.0)))];
    let (_, f) = m.forcing_state().expect("forcing");
    let f = p.interior(f.expect("a soil"));
    let cell_area = p.dx * p.dy;
    let mut volume = [0.0; 2];
    for (c, v) in f.iter().enumerate() {
        let side = (c % nx >= nx / 2) as usize;
        assert!((v - want[side]).abs() <= 1e-13 * want[side], "cell {c}: {v:e} m against {:e}", want[side]);
        volume[side] += v * cell_area;
    }
    let cells_a_half = (nx * ny / 2) as f64;
    for side in 0..2 {
        let exact = want[side] * cells_a_half * cell_area;
        assert!((volume[side] - exact).abs() <= 1e-13 * exact, "half {side}: {} m³ against {exact}", volume[side]);
    }
    let account = p.forcing.rain_volume(80.0 * 40.0, 3600.0);
    assert!((account - volume[0] - volume[1]).abs() <= 1e-13 * account, "account {account} against {volume:?}");
    assert!(super::depth(&p, &m).iter().all(|&h| h == 0.0), "the sponge left water on the surface");
}

/// A span straddling frame times takes each frame's intensity for the part of the span it holds,
/// exactly (the kernels and the CPU reference call this one function); nothing falls before the
/// first frame or after the end. Through the model, steps of 1 s over frames changing at 0.7 s,
/// 1.3 s and 2.5 s give each cell its exact integral after every step.
#[test]
fn a_step_straddling_frame_times_takes_each_frames_share() {
    let times = [0.0, 0.7, 1.3, 2.5, 10.0];
    let v = [1.0, 2.0, 4.0, 8.0];
    // The integral of the step function, piece by piece.
    let exact =
        |a: f64, b: f64| -> f64 { (0..4).map(|k| v[k] * (b.min(times[k + 1]) - a.max(times[k])).max(0.0)).sum() };
    for (a, b) in [(0.0, 1.0), (0.5, 2.0), (1.0, 2.0), (0.7, 1.3), (2.4, 9.0), (0.0, 10.0), (9.5, 12.0), (11.0, 12.0)] {
        let got = held_integral(&times, frame_at(&times, a), a, b, |k| v[k]);
        assert!((got - exact(a, b)).abs() <= 2.0 * f64::EPSILON * exact(a, b).max(1.0), "[{a}, {b}]: {got}");
    }
    assert_eq!(held_integral(&times, 0, -2.0, -1.0, |k| v[k]), 0.0);
    assert_eq!(frame_at(&times, 20.0), 4);

    let (nx, ny) = (3, 2);
    let mut p = Problem::new(nx, ny, 3.0, 2.0);
    p.forcing.soil = Some(SPONGE.into());
    p.dt_max = 1.0;
    // Cell c takes (c + 1)·v_k/1024 m/s (exact in f32, as the frames hold it).
    let scale = 1.0 / 1024.0;
    let frames: Vec<Vec<f64>> =
        v.iter().map(|&vk| (0..nx * ny).map(|c| (c + 1) as f64 * vk * scale).collect()).collect();
    p.forcing.rain_grid = Some(RainGrid::on_cells("frames", times.to_vec(), &frames).unwrap());
    let mut m = hydrokern::kp::cpu::CpuKp::<f64>::new(&p, super::BLOCK, false).unwrap();
    for step in 1..=4 {
        m.step(f64::INFINITY).unwrap();
        assert_eq!(m.time(), step as f64, "steps of dt_max on a dry basin");
        let (_, f) = m.forcing_state().unwrap();
        for (c, got) in p.interior(f.unwrap()).iter().enumerate() {
            let want = (c + 1) as f64 * scale * exact(0.0, step as f64);
            assert!((got - want).abs() <= 4.0 * f64::EPSILON * want, "step {step}, cell {c}: {got:e} against {want:e}");
        }
    }
}

/// Sandy loam (Rawls, Brakensiek & Miller 1983): K_s 10.9 mm/h, ψ 110.1 mm, Δθ 0.3.
const SANDY_LOAM: GreenAmpt = GreenAmpt { ks: 10.9e-3 / 3600.0, suction: 0.1101, deficit: 0.3 };

/// Two soils side by side, silt loam in the west half and sandy loam in the east, under a flat
/// basin 1 m deep for 24 h: each cell's soil takes its own analytic Green–Ampt column (the water
/// that flows between the halves as their levels part keeps every cell ponded), and the water
/// account closes.
#[test]
fn two_soils_side_by_side_infiltrate_as_their_columns() {
    let (nx, ny) = (8, 3);
    let mut p = Problem::new(nx, ny, 800.0, 300.0);
    p.set_depth(|_, _| 1.0);
    p.manning = 0.03;
    let cells = (0..nx * ny).map(|c| (c % nx >= nx / 2) as u32).collect();
    let soils = vec![Soil::from(SILT_LOAM), Soil::from(SANDY_LOAM)];
    p.forcing.soil = Some(Soils::per_cell(soils, cells).unwrap());
    let t_end = 24.0 * 3600.0;
    let m = run::<f64>(&p, t_end);
    let exact = [SILT_LOAM, SANDY_LOAM].map(|s| green_ampt_exact(s.ks, s.suction * s.deficit, t_end));
    let (_, f) = m.forcing_state().expect("forcing");
    let f = p.interior(f.expect("a soil"));
    for (c, v) in f.iter().enumerate() {
        let want = exact[(c % nx >= nx / 2) as usize];
        assert!((v - want).abs() < 1e-5 * want, "cell {c}: F = {v} against {want}");
    }
    assert!(exact[1] > 1.3 * exact[0], "the soils differ: {exact:?}");
    let storage: f64 = super::depth(&p, &m).iter().sum::<f64>() * p.dx * p.dy;
    let taken: f64 = f.iter().sum::<f64>() * p.dx * p.dy;
    let v0 = (nx * ny) as f64 * p.dx * p.dy;
    assert!((storage + taken - v0).abs() < 1e-12 * v0, "storage {storage} + infiltration {taken} against {v0}");
}

/// A soil that takes all a cell holds leaves the surface on the bed exactly, in f32 over a bed
/// far above the datum, whatever w's compensated low part holds (w + Δh would miss the bed by the
/// rounding of the depth h = (w − b) + low, below it as often as above).
#[test]
fn a_soil_that_empties_a_cell_leaves_it_dry_exactly() {
    let p = Problem::new(4, 4, 4.0, 4.0);
    let k = p.coeffs::<f32>(super::BLOCK);
    let sponge = hydrokern::forcing::Soil::from(SPONGE).infiltration::<f32>();
    let cb = 100.3f32;
    for n in 1..200 {
        let w = cb + n as f32 * 3.1e-5;
        let lo = (n as f32 * 0.37).sin() * 3.8e-6;
        for compensated in [true, false] {
            let lo = if compensated { lo } else { 0.0 };
            let ((nw, nlo), keep, _, wet) =
                kernels::kp::force_point(&k, (w, lo), cb, 1e-7, sponge, 0.0, 0.5, compensated);
            assert!(nw == cb && nlo == 0.0, "w {w}, low {lo:e}: left w − b = {:e}, low {nlo:e}", nw - cb);
            assert!(keep == 0.0 || (w - cb) + lo <= k.dry, "keep {keep}");
            assert!(!wet);
        }
    }
}

/// 1 − e^(−x) from a given e^(−x) is the same number as computed whole, on both sides of the
/// switch to the series.
#[test]
fn one_minus_given_is_one_minus_exp_neg() {
    for k in 0..4000 {
        let x = k as f64 * 1e-3 + if k % 2 == 0 { 0.0 } else { 1e-7 };
        assert_eq!(one_minus_given(x, exp_neg(x)).to_bits(), one_minus_exp_neg(x).to_bits(), "x = {x}");
    }
}
