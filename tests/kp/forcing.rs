//! Rain, infiltration and inflows (`hydrokern::kp::forcing`): the Green–Ampt and Horton steps
//! against the analytic ponded infiltration, gridded rain and soils per cell, the model's water
//! account in every scheme, the kinematic wave of rain on a tilted plane, and the forcing
//! kernels against the CPU reference.

use super::{BLOCK, run};
use crate::common::cases;
use hydrokern::Real;
use hydrokern::forcing::{
    DISCHARGE, GreenAmpt, Horton, Inflow, LEVEL, LevelSide, Outlet, RAIN, RainGrid, Series, Soil as SoilOf, Soils,
};
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::forcing::Layout;
use hydrokern::kp::segments::Segments;
use hydrokern::kp::{Boundary, Problem, Scheme, WetDry};
use kernels::forcing::{Soil, green_ampt};
use proptest::prelude::*;

pub(super) use crate::common::soil::{SILT_LOAM, green_ampt_exact};

#[test]
fn green_ampt_step_converges_to_the_ponded_solution() {
    let soil: Soil<f64> = SILT_LOAM.soil();
    let t_end = 24.0 * 3600.0;
    let exact = green_ampt_exact(SILT_LOAM.ks, SILT_LOAM.suction * SILT_LOAM.deficit, t_end);
    let error = |dt: f64| {
        let mut f = 0.0;
        for _ in 0..(t_end / dt).round() as usize {
            f += green_ampt(soil, f, dt);
        }
        (f - exact).abs() / exact
    };
    let errors: Vec<f64> = [600.0, 300.0, 150.0].iter().map(|&dt| error(dt)).collect();
    assert!(errors[2] < 1e-4, "24 h of silt loam at Δt = 150 s: F off by {:.2e} relative", errors[2]);
    // The midpoint rule is second order where F is smooth; F ∝ √t at the start holds the
    // global order near 1.5.
    for w in errors.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!(order > 1.35, "Green–Ampt step: order {order:.2} from errors {errors:?}");
    }
    // F = 0 at the start: the first step is finite and about √(2KψΔθΔt).
    let first = green_ampt(soil, 0.0, 1.0);
    let s = SILT_LOAM.suction * SILT_LOAM.deficit;
    assert!((first / (2.0 * SILT_LOAM.ks * s).sqrt() - 1.0).abs() < 1e-2, "first step {first}");
}

/// A flat closed basin 1 m deep over silt loam for 24 h: every cell's soil has taken the
/// analytic F, and the water lost is what the soil took.
#[test]
fn ponded_column_infiltrates_as_green_ampt() {
    let mut p = Problem::new(4, 3, 400.0, 300.0);
    p.set_depth(|_, _| 1.0);
    p.forcing.soil = Some(SILT_LOAM.into());
    let t_end = 24.0 * 3600.0;
    let m = run::<f64>(&p, t_end);
    let exact = green_ampt_exact(SILT_LOAM.ks, SILT_LOAM.suction * SILT_LOAM.deficit, t_end);
    let (_, f) = m.forcing_state().expect("forcing");
    let f = p.interior(f.expect("a soil"));
    let h = super::depth(&p, &m);
    for (v, h) in f.iter().zip(&h) {
        assert!((v - exact).abs() < 1e-5 * exact, "F = {v} against {exact}");
        assert!((h - (1.0 - v)).abs() < 1e-12, "depth {h} against 1 m less what the soil took, {v}");
    }
}

/// Rain, a soil, a segment inflow and a point inflow on a random closed basin; with `level`, a
/// level held on a random reach of a random side and an outlet on a random reach of another.
pub(super) fn forced(p: &mut Problem, seed: u64, t_end: f64, level: bool) {
    let mut rng = hydrokern::Rng::new(seed);
    let mut rnd = move || rng.unit();
    let (nx, ny) = (p.nx, p.ny);
    let area = p.dx * p.dy;
    // Strong enough to change a state of depths near 1 m within a few steps.
    let rain: Vec<(f64, f64)> = (0..4).map(|k| (k as f64 * t_end / 3.0, 0.02 * rnd())).collect();
    p.forcing.rain = Some(Series::from_points("rain", &rain, &RAIN, "s", "m/s").unwrap());
    if rnd() < 0.5 {
        p.forcing.rain_grid = Some(random_rain_grid(nx * ny, t_end, &mut rnd));
    }
    if rnd() < 0.7 {
        let horton = rnd() < 0.5;
        let soil = |rnd: &mut dyn FnMut() -> f64| -> SoilOf {
            if horton {
                let f0 = 0.01 * rnd();
                Horton { f0, fc: f0 * rnd(), k: 0.1 + 5.0 * rnd() }.into()
            } else {
                GreenAmpt { ks: 0.01 * rnd(), suction: 0.3 * rnd(), deficit: rnd() }.into()
            }
        };
        p.forcing.soil = Some(if rnd() < 0.5 {
            Soils::from(soil(&mut rnd))
        } else {
            let soils: Vec<SoilOf> = (0..3).map(|_| soil(&mut rnd)).collect();
            let cells = (0..nx * ny).map(|_| ((rnd() * 3.0) as u32).min(2)).collect();
            Soils::per_cell(soils, cells).unwrap()
        });
    }
    let q = |scale: f64, rnd: &mut dyn FnMut() -> f64| {
        let pts: Vec<(f64, f64)> = (0..3).map(|k| (k as f64 * t_end / 2.0, scale * rnd())).collect();
        Series::from_points("q", &pts, &DISCHARGE, "s", "m3/s").unwrap()
    };
    // Down the west side over its southern half, shares per unit width.
    let rows = ny.div_ceil(2);
    let cells = (0..rows).map(|j| (j * nx, 1.0 / rows as f64)).collect();
    p.forcing.inflows.push(Inflow { name: "side".into(), series: q(0.05 * area, &mut rnd), cells });
    let c = ((rnd() * nx as f64) as usize).min(nx - 1) + nx * ((rnd() * ny as f64) as usize).min(ny - 1);
    p.forcing.inflows.push(Inflow { name: "point".into(), series: q(0.05 * area, &mut rnd), cells: vec![(c, 1.0)] });
    // Levels and outlets on sides that are not periodic: a held side's water would come back
    // at its periodic partner's faces, which the account does not measure (cases refuse them).
    let sides: Vec<usize> = (0..4).filter(|&s| p.boundary[s] != Boundary::Periodic).collect();
    if level && !sides.is_empty() {
        let side = sides[((rnd() * sides.len() as f64) as usize).min(sides.len() - 1)];
        let n = if side < 2 { ny } else { nx };
        let a = ((rnd() * n as f64) as usize).min(n - 1);
        let b = a + 1 + ((rnd() * (n - a) as f64) as usize).min(n - a - 1);
        let pts: Vec<(f64, f64)> = (0..3).map(|k| (k as f64 * t_end / 2.0, 0.2 + 0.8 * rnd())).collect();
        let series = Series::from_points("level", &pts, &LEVEL, "s", "m").unwrap();
        p.forcing.levels.push(LevelSide { name: "level".into(), side, cells: a..b, series });
        let side = sides[((rnd() * sides.len() as f64) as usize).min(sides.len() - 1)];
        let n = if side < 2 { ny } else { nx };
        let a = ((rnd() * n as f64) as usize).min(n - 1);
        let b = a + 1 + ((rnd() * (n - a) as f64) as usize).min(n - a - 1);
        // Where the level's reach overlaps, the outlet takes the rest of the side.
        let cells = match p.forcing.levels[0].cells.clone() {
            held if p.forcing.levels[0].side == side && held.start < b && a < held.end => {
                if held.start > 0 {
                    0..held.start
                } else {
                    held.end..n
                }
            }
            _ => a..b,
        };
        if !cells.is_empty() {
            p.forcing.outlets.push(Outlet { name: "outlet".into(), side, cells, normal_depth: rnd() < 0.5 });
        }
    }
}

/// Gridded rain on `cells` model cells over a run to `t_end`: frames of 1 to 4 rain cells that
/// the model cells take at random, starting at 0 and changing at random times (steps straddle
/// them), the last holding past `t_end`.
fn random_rain_grid(cells: usize, t_end: f64, rnd: &mut dyn FnMut() -> f64) -> RainGrid {
    let frames = 1 + ((rnd() * 4.0) as usize).min(3);
    let rain_cells = 1 + ((rnd() * 4.0) as usize).min(3);
    let mut times = vec![0.0];
    for _ in 1..frames {
        let last = times[times.len() - 1];
        times.push(last + (0.05 + rnd()) * t_end / frames as f64);
    }
    times.push(times[times.len() - 1].max(t_end) + 1.0);
    let values: Vec<f32> = (0..frames * rain_cells).map(|_| (0.02 * rnd()) as f32).collect();
    let index = (0..cells).map(|_| ((rnd() * rain_cells as f64) as u32).min(rain_cells as u32 - 1)).collect();
    RainGrid::new("rain grid", times, values, rain_cells, index).unwrap()
}

/// Inactive cells at random in `p`, where no inflow, level or outlet reaches (the case file
/// refuses those), rain counted on the active cells only (as the case file does).
fn holes(p: &mut Problem, seed: u64) {
    super::inactive::scatter(p, seed, 0.15);
    let (nx, ny) = (p.nx, p.ny);
    let edge = |c: usize| c.is_multiple_of(nx) || c % nx == nx - 1 || c / nx == 0 || c / nx == ny - 1;
    let fed: Vec<usize> = p.forcing.inflows.iter().flat_map(|f| f.cells.iter().map(|c| c.0)).collect();
    if let Some(a) = p.active.as_mut() {
        for c in (0..nx * ny).filter(|&c| edge(c) || fed.contains(&c)) {
            a[c] = true;
        }
    }
    if let (Some(g), Some(a)) = (p.forcing.rain_grid.as_mut(), p.active.as_ref()) {
        g.only(a);
    }
}

/// The water account of a CPU run of `p` to `t_end`.
struct Account {
    /// Storage change − rain − inflow + infiltration − boundary in + boundary out, relative to
    /// the water the run has seen (the start's, the sources' and what came in by the boundary).
    residual: f64,
    /// The water that crossed the boundary either way, and that the soil took, likewise relative.
    crossed: f64,
    infiltrated: f64,
    steps: u64,
}

/// The [`Account`] of a CPU run of `p` to `t_end` or `max_steps` steps, whichever comes first.
fn account<T: Real>(p: &Problem, t_end: f64, max_steps: u64) -> Account {
    let mut m = CpuKp::<T>::new(p, BLOCK, false).expect("valid problem");
    let v0 = p.volume_with_low(m.state()[0], m.low(), m.cell_bed());
    // A random state's films may collapse Δt before the end (Euler, mostly): the state is then
    // the one before the step that failed, and its account must close there too. So must it
    // wherever the run stops: after `max_steps` steps, which a basin whose films hold Δt near
    // 10⁻⁵ s takes long before t_end.
    while m.time() < t_end && m.steps() < max_steps && m.step(t_end).is_ok() {}
    let f = &p.forcing;
    let t = m.time();
    let cells = (0..p.nx * p.ny).filter(|&c| p.is_active(c)).count();
    let area = cells as f64 * p.dx * p.dy;
    let storage = p.volume_with_low(m.state()[0], m.low(), m.cell_bed());
    let infiltrated = m
        .forcing_state()
        .and_then(|(_, f)| f)
        .map_or(0.0, |f| p.interior(f).iter().map(|v| v.to_f64()).sum::<f64>() * p.dx * p.dy);
    let (rain, inflow) = (f.rain_volume(area, t), f.inflow_volume(t));
    let flows = Segments::of(p).flows(m.boundary_volumes().unwrap_or(&[]));
    let (out, into) = flows.iter().fold((0.0, 0.0), |(o, i), b| (o + b.out, i + b.into));
    let scale = v0 + rain + inflow + into;
    Account {
        residual: ((storage - v0) - rain - inflow + infiltrated - into + out) / scale,
        crossed: (out + into) / scale,
        infiltrated: infiltrated / scale,
        steps: m.steps(),
    }
}

/// The most steps [`forced_basins_keep_the_water_account`] runs a basin for.
const ACCOUNT_STEPS: u64 = 2_000;

/// The f32 water account's residual, relative to the water it has seen, over the proptest's
/// 2 s runs of `steps` steps: the state's own rounding, not the account's (whose faces' volumes
/// are f64 sums of the fluxes the update used). Compensated (the unsplit schemes' default) keeps
/// w to round-off of its increments: 2e-8 at most over 40 random basins with open sides (8.4e-9
/// in a basin of 117 919 Euler steps). The split schemes update plainly (5.9e-7 at most) and so
/// does `accumulation = "plain"`: f32's plain update drops the low bits of every increment
/// (docs/f32-conservation.md), up to an ε of the surfaces a step, and the surfaces here are of
/// the water's size (beds below 1 m, depths up to 1 m). So the plain bound grows with the steps:
/// steps·ε, and 2e-4 below that (3.3e-5 at most in runs of a few thousand steps, a kp07 basin
/// that 1.3 times its water crossed; 1.8e-3 in 117 911 Euler steps, 0.13 of steps·ε).
/// A soil's cumulative infiltration adds to each cell's total every step. The compensated update
/// rounds the total down and keeps the rest in w's low part (`soil_total`), so what the soil
/// takes is what its totals gain and the bound is the update's. The plain update's total rounds
/// by up to ½ ulp a step, so the account may miss up to steps·ε/2 of the water `infiltrated`
/// on top of the update's.
fn f32_account_bound(compensated: bool, steps: u64, infiltrated: f64) -> f64 {
    let eps = f32::EPSILON as f64;
    if compensated { 1e-6 } else { (steps as f64 * eps).max(2e-4) + steps as f64 * eps / 2.0 * infiltrated }
}

/// A forced basin of `nx` × `ny` cells from `seed` with random sides (walls, outflow,
/// normal-depth, periodic), and in the unsplit schemes a held level and an outlet, in every
/// scheme with the wet–dry treatment `wet_dry`, f64 and f32 (plain and compensated), keeps its
/// water account: what the sources and the boundary's measured faces do not explain is round-off
/// (f64) or f32's level over the run.
fn forced_basins_keep_the_water_account(nx: usize, ny: usize, seed: u64, wet_dry: WetDry) -> Result<(), TestCaseError> {
    for scheme in Scheme::ALL {
        let mut p = super::gpu::random_state(nx, ny, seed, 0);
        // Half the outflow sides normal-depth (their ghost beds continue the slope).
        for s in 0..4 {
            if p.boundary[s] == Boundary::Outflow && (seed >> s) & 1 == 1 {
                p.boundary[s] = Boundary::NormalDepth;
            }
        }
        p.scheme = scheme;
        p.wet_dry = wet_dry;
        forced(&mut p, seed, 2.0, !scheme.is_split());
        // In half the unsplit cases inactive cells too (rain on the active ones only).
        if seed & 16 == 0 && !scheme.is_split() {
            holes(&mut p, seed);
        }
        let what = format!("{}×{} {} {} {:?}", nx, ny, scheme.name(), wet_dry.name(), p.boundary);
        let Account { residual: r, crossed, .. } = account::<f64>(&p, 2.0, ACCOUNT_STEPS);
        prop_assert!(r.abs() < 1e-13, "{what} f64: residual {r:.2e} ({crossed:.2e} crossed the boundary)");
        for acc in hydrokern::accumulation::Accumulation::ALL {
            p.accumulation = acc;
            let Account { residual: r, crossed, infiltrated, steps } = account::<f32>(&p, 2.0, ACCOUNT_STEPS);
            let compensated = acc.compensates_in(hydrokern::Precision::F32) && !scheme.is_split();
            let bound = f32_account_bound(compensated, steps, infiltrated);
            prop_assert!(
                r.abs() < bound,
                "{what} f32 {}: residual {r:.2e} ({crossed:.2e} crossed, {infiltrated:.2e} infiltrated) in {steps} steps",
                acc.name()
            );
        }
    }
    Ok(())
}

/// Rain (50 mm/h) on a sandy Green–Ampt soil that takes all of it, over a flat basin, 5 h at
/// Δt = 0.5 s in f32 with the compensated update: every step every cell's total gains the same
/// depth, whose rounding in f32 repeats step after step as long as the total stays in one
/// binade. Totals summed plainly drift away from the water the soil took (the run checks that
/// they would, summing the same steps plainly); rounded down with the rest kept in the cells
/// (`soil_total`), the account closes at the compensated update's level.
#[test]
fn rain_a_soil_takes_whole_keeps_the_f32_account_over_many_steps() {
    let mut p = Problem::new(4, 3, 2.0, 1.5);
    p.dt_max = 0.5;
    let intensity = 50e-3 / 3600.0;
    let rain = [(0.0, intensity), (1e9, intensity)];
    p.forcing.rain = Some(Series::from_points("rain", &rain, &RAIN, "s", "m/s").unwrap());
    p.forcing.soil = Some(Soils::from(SoilOf::from(GreenAmpt { ks: 0.2 / 3600.0, suction: 0.05, deficit: 0.4 })));
    let Account { residual, infiltrated, steps, .. } = account::<f32>(&p, 5.0 * 3600.0, u64::MAX);
    let plain = (0..steps).fold(0f32, |f, _| f + (intensity * p.dt_max) as f32) as f64;
    let taken = (steps as f64 * p.dt_max * intensity) as f32 as f64;
    let drift = plain / taken - 1.0;
    assert!(steps == 36_000 && infiltrated > 0.999, "{steps} steps, {infiltrated:.4} of the rain taken");
    assert!(residual.abs() < 1e-6 && drift.abs() > 1e-5, "residual {residual:.2e} (plain totals drift by {drift:.2e})");
}

/// `x` in units of 2⁻¹¹⁰, truncated: exact for the values [`soil_total_is_exact`] draws.
fn fixed<T: Real>(x: T) -> i128 {
    (x.to_f64() * 2f64.powi(110)) as i128
}

/// [`kernels::kp::soil_total`] for a soil that has taken `f` and takes `taken`: the total is
/// f + taken rounded to nearest or the value below, never above the exact sum; the part kept
/// is ≥ 0; and total + kept is f + taken to an ulp of the total's ulp (exact where the sum
/// rounds down by itself), checked in 2⁻¹¹⁰ units, which hold both sums exactly.
fn soil_total_is_exact<T: Real + std::fmt::LowerExp>(f: T, taken: T) -> Result<(), TestCaseError> {
    let (total, kept) = kernels::kp::soil_total(f, taken);
    let nearest = f + taken;
    prop_assert!(total == nearest || total == nearest.next_down(), "{f:e} + {taken:e}: total {total:e}");
    let (exact, got) = (fixed(f) + fixed(taken), fixed(total) + fixed(kept));
    prop_assert!(kept >= T::ZERO && fixed(total) <= exact, "{f:e} + {taken:e}: total {total:e}, kept {kept:e}");
    let ulp = fixed(total) - fixed(total.next_down());
    let slack = if total == nearest { 1 } else { (ulp as f64 * T::EPSILON.to_f64()) as i128 + 1 };
    prop_assert!(
        (got - exact).abs() <= slack,
        "{f:e} + {taken:e}: total {total:e} + kept {kept:e} off by {}",
        got - exact
    );
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(256), file!()))]
    /// [`soil_total_is_exact`] for totals up to 4 m and takes from 2⁻³⁰ m to their size and
    /// beyond (a first take on a dry soil), in f32 and f64.
    #[test]
    fn a_soils_total_rounds_down_and_the_cell_keeps_the_rest(
        f in prop_oneof![Just(0.0), 0.0f64..4.0],
        e in -30i32..3,
        m in prop_oneof![Just(0.0), 0.5f64..1.0],
    ) {
        let taken = m * 2f64.powi(e);
        soil_total_is_exact(f as f32, taken as f32)?;
        soil_total_is_exact(f, taken)?;
    }
}

/// A forced basin (held levels, soil) in `kp07` where a cell dry at the step's start fills in
/// the first RK2 stage and its faces in the second are faster than Δt was taken from: without
/// the second stage's limit (`kp07_second_stage_lets_out_at_most_a_quarter_of_a_face_depth`)
/// the stage takes more than the cell holds and the clean-up's clip adds 1.2·10⁻⁴ of the water.
#[test]
fn kp07_second_stage_keeps_a_filling_cell_account() {
    forced_basins_keep_the_water_account(9, 5, 4992174290247820938, WetDry::Kp07).unwrap();
}

proptest! {
    // Three cases of grids up to 15 × 15 in every build (each case runs 5 schemes in four
    // precisions; larger grids took CI 90 s); `PROPTEST_CASES` runs more. A test a wet–dry
    // treatment, so that the three run side by side.
    #![proptest_config(crate::common::config(cases(3), file!()))]
    /// [`forced_basins_keep_the_water_account`] in `bollermann`.
    #[test]
    fn forcing_keeps_the_water_account_in_bollermann(nx in 3usize..16, ny in 3usize..16, seed: u64) {
        forced_basins_keep_the_water_account(nx, ny, seed, WetDry::Bollermann)?;
    }

    /// [`forced_basins_keep_the_water_account`] in `kp07`.
    #[test]
    fn forcing_keeps_the_water_account_in_kp07(nx in 3usize..16, ny in 3usize..16, seed: u64) {
        forced_basins_keep_the_water_account(nx, ny, seed, WetDry::Kp07)?;
    }

    /// [`forced_basins_keep_the_water_account`] in `clamp`.
    #[test]
    fn forcing_keeps_the_water_account_in_clamp(nx in 3usize..16, ny in 3usize..16, seed: u64) {
        forced_basins_keep_the_water_account(nx, ny, seed, WetDry::Clamp)?;
    }
}

/// Rain i on a plane of length L falling at slope S₀ to a free outlet, Manning n, in wet–dry
/// scheme `wet_dry` with `nx` cells along the plane; rain from 0 to `t_rain`. Returns the
/// outlet's discharge per unit width at `times` (s), from the water account
/// ([`account_outflow`]: the volume the outlet's faces measured, central differences over
/// ±`PLANE_DT`), so it is the flux through the outlet face whatever the scheme holds in the
/// cells next to it.
fn plane_outflow(nx: usize, wet_dry: WetDry, outlet: Boundary, t_rain: f64, times: &[f64]) -> Vec<f64> {
    let (l, s0, n, i) = (PLANE_L, PLANE_S0, PLANE_N, PLANE_I);
    let mut p = Problem::new(nx, 1, l, l / nx as f64);
    p.set_bed(|x, _| s0 * (l - x));
    p.boundary = [Boundary::Wall, outlet, Boundary::Wall, Boundary::Wall];
    p.manning = n;
    // Sheet flow a few millimetres deep: velocities desingularized only far below it.
    p.kappa_depth = 1e-4;
    p.dt_max = 1.0;
    p.wet_dry = wet_dry;
    let rain = [(0.0, i), (t_rain, i), (t_rain + 1e-9, 0.0), (1e9, 0.0)];
    p.forcing.rain = Some(Series::from_points("rain", &rain, &RAIN, "s", "m/s").unwrap());
    account_outflow(&p, times, PLANE_DT).iter().map(|q| q / p.dy).collect()
}

/// What leaves `p`'s domain (m³/s) at `times` in a CPU run: the net volume its boundary
/// segments measured (`Segments::flows`) over ±`dt`, by central differences. It must equal, to
/// round-off, what the storage says independently of the faces: the rain in less the storage's
/// change (a run whose water comes only from rain). That round-off is the state's: each step
/// rounds every cell's surface w, a few ε of |w| (which on a terrain is mostly the bed's
/// height), so the bound is 4ε·Σ|w|·ΔxΔy a step.
pub fn account_outflow(p: &Problem, times: &[f64], dt: f64) -> Vec<f64> {
    let (lx, ly) = (p.nx as f64 * p.dx, p.ny as f64 * p.dy);
    let mut m = CpuKp::<f64>::new(p, BLOCK, false).unwrap();
    let segments = Segments::of(p);
    let mut at = |t: f64| {
        while m.time() < t {
            m.step(t).expect("no blow-up");
        }
        let out: f64 =
            segments.flows(m.boundary_volumes().expect("an open boundary")).iter().map(|f| f.out - f.into).sum();
        let surface: f64 = p.interior(m.state()[0]).iter().map(|w| w.abs()).sum::<f64>() * p.dx * p.dy;
        (out, p.volume_with_low(m.state()[0], None, m.cell_bed()), surface, m.steps())
    };
    times
        .iter()
        .map(|&t| {
            let ((out0, before, _, n0), (out1, after, surface, n1)) = (at(t - dt), at(t + dt));
            let rain = p.forcing.rain_volume(lx * ly, t + dt) - p.forcing.rain_volume(lx * ly, t - dt);
            let (measured, stored) = ((out1 - out0) / (2.0 * dt), (rain - (after - before)) / (2.0 * dt));
            let bound = 4.0 * f64::EPSILON * surface * (n1 - n0).max(1) as f64 / (2.0 * dt);
            assert!(
                (measured - stored).abs() <= bound,
                "t = {t} s: the faces let out {measured:.9e} m³/s, the storage says {stored:.9e} (bound {bound:.1e})"
            );
            measured
        })
        .collect()
}

const PLANE_L: f64 = 100.0;
const PLANE_S0: f64 = 0.01;
const PLANE_N: f64 = 0.02;
/// 50 mm/h.
const PLANE_I: f64 = 50e-3 / 3600.0;
const PLANE_DT: f64 = 5.0;

/// The kinematic wave's outlet discharge per unit width at `t` of rain i on the plane from 0
/// to `t_rain` (at equilibrium by then): α(it)^{5/3} rising, iL at equilibrium, and on the
/// recession α·h^{5/3} with h the root of L = αh^{5/3}/i + (5/3)αh^{2/3}(t − t_rain) (the
/// characteristic from where the equilibrium depth was h), by bisection.
fn kinematic_outflow(t: f64, t_rain: f64) -> f64 {
    let (l, i) = (PLANE_L, PLANE_I);
    let alpha = PLANE_S0.sqrt() / PLANE_N;
    if t <= t_rain {
        return (alpha * (i * t).powf(5.0 / 3.0)).min(i * l);
    }
    let g = |h: f64| alpha * h.powf(5.0 / 3.0) / i + 5.0 / 3.0 * alpha * h.powf(2.0 / 3.0) * (t - t_rain) - l;
    let (mut lo, mut hi) = (0.0, (i * l / alpha).powf(0.6));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 { hi = mid } else { lo = mid }
    }
    alpha * (0.5 * (lo + hi)).powf(5.0 / 3.0)
}

/// Rain on a tilted plane (L = 100 m, S₀ = 0.01, n = 0.02, 50 mm/h) drains to a normal-depth
/// outlet as the kinematic wave says: the rising limb, the equilibrium iL and the recession, at
/// every resolution, in `kp07` (the partially flooded cells of the other schemes hold sheet
/// flow thinner than their bed's relief, docs/kp-forcing.md). A free outflow over the mirrored
/// ghost bed reaches the equilibrium too.
#[test]
fn rain_on_a_tilted_plane_is_a_kinematic_wave() {
    let alpha = PLANE_S0.sqrt() / PLANE_N;
    // Time to equilibrium: (nL / (√S₀ i^{2/3}))^{3/5}, 529 s here.
    let t_c = (PLANE_L / (alpha * PLANE_I.powf(2.0 / 3.0))).powf(0.6);
    let t_rain = 3.0 * t_c;
    let times = [0.25 * t_c, 0.5 * t_c, 0.75 * t_c, t_rain - 2.0 * PLANE_DT, t_rain + 0.25 * t_c, t_rain + 0.5 * t_c];
    // The shallow-water model against the kinematic wave: the rising limb within 3%, the
    // equilibrium within 0.5%, the recession within 5% (the kinematic wave drops inertia and
    // the surface's slope, which matter most where the sheet is thinnest).
    let tolerances = [0.03, 0.03, 0.03, 0.005, 0.05, 0.05];
    for nx in [25, 50, 100] {
        let q = plane_outflow(nx, WetDry::Kp07, Boundary::NormalDepth, t_rain, &times);
        for ((&t, &q), tol) in times.iter().zip(&q).zip(tolerances) {
            let want = kinematic_outflow(t, t_rain);
            assert!((q / want - 1.0).abs() < tol, "nx {nx}, t = {t:.0} s: outflow {q:.4e} m²/s against {want:.4e}");
        }
    }
    let q = plane_outflow(50, WetDry::Kp07, Boundary::Outflow, t_rain, &times[3..4]);
    assert!((q[0] / (PLANE_I * PLANE_L) - 1.0).abs() < 0.05, "free outflow: {:.4e} at equilibrium", q[0]);
}

/// `steps` CPU steps of `p` in `T` (early exit where `early`): the padded (w, hu, hv), w's low
/// part and the soil's totals, as bits.
fn bits_after<T: Real>(p: &Problem, early: bool, steps: usize) -> Vec<u64> {
    let mut m = CpuKp::<T>::new(p, BLOCK, early).expect("valid problem");
    for _ in 0..steps {
        m.step(f64::INFINITY).expect("no blow-up");
    }
    let (w, hu, hv) = m.fields();
    let low = m.low().unwrap_or(&[]);
    let totals = m.forcing_state().and_then(|(_, f)| f).unwrap_or(&[]);
    [w, hu, hv, low, totals].iter().flat_map(|f| f.iter().map(|v| v.to_f64().to_bits())).collect()
}

proptest! {
    #![proptest_config(crate::common::config(cases(12), file!()))]
    /// The step's uniform forcing — uniform rain, a uniform Green–Ampt soil, or both — acts
    /// inside its last RK stage (`Layout::fused`) with the arithmetic of the pass after the
    /// step, which a rain grid of zeros brings back (it adds exactly 0 to every cell's depth):
    /// where no clamp pass and no inflow come between the stage and the pass (kp07,
    /// bollermann), the two give the same bits, the soil's totals too, in Euler, RK2 and SRK2,
    /// f32 plain and compensated and f64, with and without early exit and inactive cells.
    #[test]
    fn uniform_forcing_in_the_last_stage_is_the_pass_after_it(
        nx in 2usize..40,
        ny in 2usize..30,
        seed: u64,
        scheme in prop::sample::select(vec![Scheme::Euler, Scheme::Rk2, Scheme::Srk2]),
        wet_dry in prop::sample::select(vec![WetDry::Kp07, WetDry::Bollermann]),
        kind in 0u8..2,
        holes: bool,
        forcing in prop::sample::select(vec!["rain", "rain and soil", "soil"]),
    ) {
        let mut p = super::gpu::random_state(nx, ny, seed, kind);
        p.scheme = scheme;
        p.wet_dry = wet_dry;
        forced(&mut p, seed, 2.0, false);
        p.forcing.rain_grid = None;
        p.forcing.soil = (forcing != "rain").then(|| uniform_green_ampt(seed).into());
        if forcing == "soil" {
            p.forcing.rain = None;
        }
        p.forcing.inflows.clear();
        if holes {
            self::holes(&mut p, seed);
        }
        let mut pass = p.clone();
        let zeros = RainGrid::new("zeros", vec![0.0, 1e9], vec![0.0], 1, vec![0; nx * ny]).unwrap();
        pass.forcing.rain_grid = Some(zeros);
        let fused = |p: &Problem| Layout::of(p).is_some_and(|l| l.fused);
        prop_assert!(fused(&p) && !fused(&pass), "{} in the stage, the zero grid's in the pass", forcing);
        for early in [false, true] {
            for accumulation in hydrokern::accumulation::Accumulation::ALL {
                (p.accumulation, pass.accumulation) = (accumulation, accumulation);
                let what = format!("{forcing}: {scheme:?} {wet_dry:?} {accumulation:?} early exit {early}");
                prop_assert!(bits_after::<f32>(&p, early, 6) == bits_after::<f32>(&pass, early, 6), "f32 {}", what);
            }
            let what = format!("{forcing}: {scheme:?} {wet_dry:?} early exit {early}");
            prop_assert!(bits_after::<f64>(&p, early, 6) == bits_after::<f64>(&pass, early, 6), "f64 {}", what);
        }
    }
}

/// A Green–Ampt soil of random parameters from `seed`, strong enough to take a good part of the
/// random states' water within a few steps.
fn uniform_green_ampt(seed: u64) -> GreenAmpt {
    let mut rng = hydrokern::Rng::new(seed ^ 0x5011);
    GreenAmpt { ks: 0.01 * rng.unit(), suction: 0.3 * rng.unit(), deficit: rng.unit() }
}

proptest! {
    #![proptest_config(crate::common::config(cases(12), file!()))]
    /// The forcing kernels (the series' clock, the inflow cells, every cell's rain and soil, and
    /// in three cases in four uniform rain, a uniform Green–Ampt soil or both inside the last RK
    /// stage) against the CPU
    /// reference after whole steps, poisoned outputs first: random states and
    /// sides, random rain, soil and inflows, a random Δt cap, in every scheme (the split ones
    /// force after their double step), every wet–dry treatment, f32 plain and compensated and
    /// f64, with and without early exit.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn kp_gpu_forcing_matches_cpu(
        nx in super::gpu::awkward_size(),
        ny in super::gpu::awkward_size(),
        seed: u64,
        steps in prop::sample::select(vec![1usize, 6]),
        scheme in prop::sample::select(Scheme::ALL.to_vec()),
        accumulation in prop::sample::select(hydrokern::accumulation::Accumulation::ALL.to_vec()),
        dt_max in prop::sample::select(vec![f64::INFINITY, 0.05]),
        holes in 0u8..2,
        in_stage in prop::sample::select(vec!["as drawn", "rain", "rain and soil", "soil"]),
    ) {
        let mut p = super::gpu::random_state(nx, ny, seed, 0);
        p.scheme = scheme;
        p.accumulation = accumulation;
        p.dt_max = dt_max;
        // Levels held on the sides and outlets run in the unsplit schemes.
        forced(&mut p, seed, 2.0, !scheme.is_split());
        // Uniform rain and a uniform Green–Ampt soil, with no rain grid, act inside the last RK
        // stage (in the unsplit schemes): three cases in four run them.
        if in_stage != "as drawn" {
            p.forcing.rain_grid = None;
            p.forcing.soil = (in_stage != "rain").then(|| uniform_green_ampt(seed).into());
        }
        if in_stage == "soil" {
            p.forcing.rain = None;
        }
        // In half the unsplit cases inactive cells at random.
        if holes == 0 && !scheme.is_split() {
            self::holes(&mut p, seed);
        }
        for wet_dry in WetDry::GPU {
            p.wet_dry = wet_dry;
            // As `kp_gpu_matches_cpu`: `clamp` in f32 one step (its shore velocities).
            let steps32 = if wet_dry == WetDry::Clamp { 1 } else { steps };
            let earlies: &[bool] = if scheme.is_split() { &[false] } else { &[false, true] };
            // The streamed flux with RK2's second stage in it (the default) and apart.
            for (&early, fused) in earlies.iter().flat_map(|e| [(e, true), (e, false)]) {
                let launch = hydrokern::kp::gpu::Launch { block: (16, 8), ..Default::default() };
                super::gpu::check_gpu::<f32>(&p, launch, early, fused, steps32)?;
                super::gpu::check_gpu::<f64>(&p, launch, early, fused, steps)?;
            }
        }
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(8), file!()))]
    /// A GPU run with forcing, held levels and outlets restored from its checkpoint continues
    /// bit for bit: the levels' values at the forcing clock come from the device's arithmetic,
    /// as the run that wrote the checkpoint had them. Random states and sides, rain, soils and
    /// inflows, inactive cells in half the cases, f32 and f64.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn kp_gpu_forced_run_resumes_bit_for_bit(
        nx in 2usize..60,
        ny in 2usize..40,
        seed: u64,
        wet_dry in prop::sample::select(WetDry::GPU.to_vec()),
        holes: bool,
    ) {
        let mut p = super::gpu::random_state(nx, ny, seed, 1);
        p.scheme = Scheme::Rk2;
        p.wet_dry = wet_dry;
        // A side that is not periodic, to hold the level.
        if p.boundary[0] == Boundary::Periodic {
            (p.boundary[0], p.boundary[1]) = (Boundary::Wall, Boundary::Wall);
        }
        forced(&mut p, seed, 2.0, true);
        if holes {
            self::holes(&mut p, seed);
        }
        // The level above every bed, so that its ghosts hold water at it, changing between
        // points that no sum of binary fractions hits.
        let top = p.bed.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let pts: Vec<(f64, f64)> = (0..5).map(|k| (k as f64 * 0.37, top + 0.1 + 0.3 * ((k * 7) % 5) as f64 / 3.0)).collect();
        p.forcing.levels[0].series = Series::from_points("level", &pts, &LEVEL, "s", "m").unwrap();
        resumes::<f32>(&p)?;
        resumes::<f64>(&p)?;
    }
}

/// 4 steps, a checkpoint, 5 more, against a second GPU model restored from the checkpoint and
/// stepped to the same step: the same state, bit for bit.
fn resumes<T: hydrokern::GpuReal>(p: &Problem) -> Result<(), TestCaseError> {
    use hydrokern::kp::{EarlyExit, KpModel};
    use hydrokern::model::{Model, Until};
    let gpu = hydrokern::runtime::Backend::Gpu(crate::common::gpu());
    let launch = hydrokern::kp::gpu::Launch::default();
    let until = |steps| Until { t: f64::INFINITY, steps, deadline: None };
    let mut a = KpModel::<T>::new(&gpu, p, launch, EarlyExit::Off).unwrap();
    a.advance(until(4)).unwrap();
    let c = a.checkpoint().unwrap();
    a.advance(until(9)).unwrap();
    let mut b = KpModel::<T>::new(&gpu, p, launch, EarlyExit::Off).unwrap();
    b.restore(&c).unwrap();
    b.advance(until(9)).unwrap();
    crate::common::ranks::same_state(&b.state().unwrap(), &a.state().unwrap())
}

/// A level held on a whole side: `name`'s constant `level` on side `side` of `p`.
fn hold(p: &mut Problem, side: usize, level: f64, t_end: f64) {
    let n = if side < 2 { p.ny } else { p.nx };
    let series = Series::from_points("level", &[(0.0, level), (t_end, level)], &LEVEL, "s", "m").unwrap();
    p.forcing.levels.push(LevelSide { name: "held".into(), side, cells: 0..n, series });
}

/// The largest momentum after 5 s of a lake at rest at 0.5 m over a wavy bed, in `wet_dry`, with
/// what `side` adds on its sides.
fn lake_speed(wet_dry: WetDry, side: impl FnOnce(&mut Problem)) -> f64 {
    let mut p = Problem::new(12, 8, 12.0, 8.0);
    p.set_bed(|x, y| 0.3 * (x * 0.7).sin() * (y * 0.5).cos());
    p.set_level(0.5);
    p.wet_dry = wet_dry;
    side(&mut p);
    let m = run::<f64>(&p, 5.0);
    p.interior(m.state()[1]).iter().chain(&p.interior(m.state()[2])).fold(0.0f64, |a, v| a.max(v.abs()))
}

/// A lake at rest over a wavy bed with its west side held at the lake's own level stays at
/// rest: the held ghosts balance the lake as walls do, in every wet–dry scheme.
#[test]
fn a_level_held_at_the_lakes_own_keeps_it_at_rest() {
    for wet_dry in WetDry::ALL {
        let speed = lake_speed(wet_dry, |p| hold(p, 0, 0.5, 5.0));
        assert!(speed < 1e-12, "{}: momentum {speed:.2e} in a lake held at its own level", wet_dry.name());
    }
}

/// A dry basin whose west side is held at 0.5 m fills until its surface is level with it, as a
/// lake held by a tide's slack water does.
#[test]
fn a_dry_basin_fills_to_its_held_level() {
    let mut p = Problem::new(20, 3, 200.0, 30.0);
    p.manning = 0.03;
    hold(&mut p, 0, 0.5, 3000.0);
    p.dt_max = 10.0;
    let m = run::<f64>(&p, 3000.0);
    let h = super::depth(&p, &m);
    // Still rising by then, as the friction slows the last of the filling.
    assert!(h.iter().all(|h| (h - 0.5).abs() < 5e-3), "depths {h:?} against the held 0.5 m");
}

/// An outlet on the whole of a wall side is that side made an outflow (or normal-depth) side:
/// the same run, bit for bit, in every unsplit scheme and wet–dry treatment; and a lake at rest
/// behind an outlet on part of a side stays at rest.
#[test]
fn an_outlet_over_a_whole_side_is_an_outflow_side() {
    let kinds = [(false, Boundary::Outflow), (true, Boundary::NormalDepth)];
    for ((normal_depth, side), scheme) in
        kinds.into_iter().flat_map(|k| [Scheme::Euler, Scheme::Rk2, Scheme::Srk2].map(|s| (k, s)))
    {
        for wet_dry in WetDry::ALL {
            let mut open = super::gpu::random_state(13, 9, 7, 0);
            open.boundary = [Boundary::Wall; 4];
            open.scheme = scheme;
            open.wet_dry = wet_dry;
            let mut outflow = open.clone();
            open.forcing.outlets.push(Outlet { name: "outlet".into(), side: 2, cells: 0..13, normal_depth });
            outflow.boundary[2] = side;
            let (a, b) = (run::<f64>(&open, 0.5), run::<f64>(&outflow, 0.5));
            for f in 0..3 {
                let (a, b) = (open.interior(a.state()[f]), outflow.interior(b.state()[f]));
                assert!(a == b, "{} {}: field {f} differs", scheme.name(), wet_dry.name());
            }
            assert!(a.time() == b.time(), "{} {}: clocks differ", scheme.name(), wet_dry.name());
        }
    }
    for wet_dry in WetDry::ALL {
        let outlet = Outlet { name: "outlet".into(), side: 1, cells: 2..5, normal_depth: false };
        let speed = lake_speed(wet_dry, |p| p.forcing.outlets.push(outlet.clone()));
        assert!(speed < 1e-12, "{}: momentum {speed:.2e} in a lake at rest behind an outlet", wet_dry.name());
    }
}

/// Water running south in a tilted basin leaves through an outlet on part of the south side:
/// southwards through the outlet's cells, and less of it than with the whole side open.
#[test]
fn a_basin_drains_through_its_outlet_only() {
    let mut p = Problem::new(10, 20, 10.0, 20.0);
    p.set_bed(|_, y| 0.05 * y);
    p.set_level(0.6);
    for k in 0..p.h.len() {
        p.hv[k] = -0.5 * p.h[k];
    }
    p.manning = 0.03;
    p.dt_max = 0.5;
    p.forcing.outlets.push(Outlet { name: "outlet".into(), side: 2, cells: 4..6, normal_depth: false });
    let mut whole = p.clone();
    whole.boundary[2] = Boundary::Outflow;
    whole.forcing.outlets.clear();
    let v = |p: &Problem, t: f64| {
        let m = run::<f64>(p, t);
        super::depth(p, &m).iter().sum::<f64>() * p.dx * p.dy
    };
    let (v0, part, all) = (v(&p, 0.0), v(&p, 20.0), v(&whole, 20.0));
    assert!(part < v0 - 0.5, "the outlet let out {:.3} m³", v0 - part);
    assert!(all < part - 0.5, "the whole side let out {:.3} m³, the outlet {:.3} m³", v0 - all, v0 - part);
    let m = run::<f64>(&p, 20.0);
    let hv = p.interior(m.state()[2]);
    let outlet_flow: f64 = (4..6).map(|i| hv[i].to_f64()).sum();
    assert!(outlet_flow < 0.0, "water leaves southwards through the outlet: hv {outlet_flow:.3e}");
}
