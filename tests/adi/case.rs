//! ADI case files through the runner: every kind of bad input is refused with one line that
//! names the key (or the series file and its line), before anything runs; each scenario loads
//! and runs a few steps on the CPU; a series boundary sampled from a tide runs as the tide; a
//! run that blows up names step, sweep and position and keeps its last good state, on the CPU
//! and (a GPU test) on the GPU by every strategy.

use hydrokern::case::CaseDoc;
use hydrokern::run::{Outcome, RunOptions};
use hydrokern::{registry, scenarios};
use std::path::{Path, PathBuf};

const SCENARIOS: [&str; 5] = ["seiche", "tidal-basin", "wind-setup", "hump", "wetland-storm"];

/// Scenario `name` with `set` applied (key, TOML value) and `remove` removed.
fn doc(name: &str, set: &[(&str, &str)], remove: &[&str]) -> CaseDoc {
    let mut doc = scenarios::find(name).expect("a built-in scenario").doc().unwrap();
    for (key, value) in set {
        doc.set(key, value.parse().unwrap(), "test").unwrap();
    }
    for key in remove {
        doc.remove(key);
    }
    doc
}

fn load(name: &str, set: &[(&str, &str)], remove: &[&str]) -> Result<(), String> {
    registry::load(&doc(name, set, remove)).map(|_| ()).map_err(|e| e.to_string())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hydrokern-adi-case-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small run of scenario `name` on the CPU in `dir` (snapshots cleared).
fn run(name: &str, set: &[(&str, &str)], precision: &str, dir: &Path) -> hydrokern::Result<Outcome> {
    run_on("\"cpu\"", name, set, precision, dir)
}

/// As [`run`], on `backend` (a TOML string).
fn run_on(backend: &str, name: &str, set: &[(&str, &str)], precision: &str, dir: &Path) -> hydrokern::Result<Outcome> {
    let mut d = doc(name, set, &["output.snapshots"]);
    let out = format!("\"{}\"", dir.join("out").display());
    for (key, value) in [("run.backend", backend), ("output.progress", "1e9"), ("output.dir", out.as_str())]
        .into_iter()
        .chain([("run.precision", precision)])
    {
        d.set(key, value.parse().unwrap(), "test").unwrap();
    }
    registry::load(&d)?.run(&RunOptions::default())
}

/// ζ of the one `last_good_zeta*.npy` a run that blew up left in `dir/out`.
fn last_good_zeta(dir: &Path) -> Vec<f64> {
    let kept: Vec<PathBuf> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("last_good_zeta"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    hydrokern::output::npy::read_npy_f64(&kept[0]).unwrap().0
}

/// A series file in `dir` with `text`; its path as a TOML boundary value.
fn series(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    format!("{{ series = \"{}\" }}", path.display())
}

/// A scenario, the keys set on it, the keys removed, and what the refusal must say.
type BadCase<'a> = (&'a str, Vec<(&'a str, &'a str)>, Vec<&'a str>, &'a str);

#[test]
fn bad_adi_cases_are_refused_with_one_line() {
    let dir = scratch("bad");
    // The tidal basin runs to 89424 s.
    let s = |name: &str, text: &str| series(&dir, name, text);
    let (malformed, one, backwards, short, late, nan) = (
        s("malformed.txt", "# t ζ\n0 0.0\n100 0.1 7\n"),
        s("one.txt", "0 0.0\n"),
        s("backwards.txt", "0 0.0\n50000 0.1\n40000 0.2\n100000 0.0\n"),
        s("short.txt", "0 0.0\n50000 0.1\n"),
        s("late.txt", "10 0.0\n100000 0.1\n"),
        s("nan.txt", "0 0.0\n50000 nan\n100000 0.0\n"),
    );
    let missing = format!("{{ series = \"{}\" }}", dir.join("no-such-series.txt").display());
    let unreadable = format!("{{ series = \"{}\" }}", dir.display());
    let cases: Vec<BadCase> = vec![
        // Unknown keys and names.
        ("seiche", vec![("physics.gravity", "9.81")], vec![], "unknown field `gravity`"),
        ("seiche", vec![("bathymetry.bed", "1.0")], vec![], "unknown field `bed`"),
        ("tidal-basin", vec![("drying.wet", "0.1")], vec![], "unknown field `wet`"),
        ("seiche", vec![("physics.friction", "\"darcy\"")], vec![], "unknown variant `darcy`"),
        ("seiche", vec![("boundary.west", "\"wall\"")], vec![], "unknown variant `wall`"),
        (
            "seiche",
            vec![("gpu.y_sweep", "\"diagonal\"")],
            vec![],
            "(gpu.y_sweep): adi: unknown y-sweep 'diagonal' (expected columns or transposed)",
        ),
        (
            "seiche",
            vec![("boundary.west", "{ tide = { amplitude = 1.0, period = 10.0, shift = 0.0 } }")],
            vec![],
            "unknown field `shift`",
        ),
        ("seiche", vec![("initial.zeta", "{ wave = { amplitude = 0.1 } }")], vec![], "unknown variant `wave`"),
        (
            "seiche",
            vec![("initial.zeta", "{ seiche = { axis = \"z\", amplitude = 0.1, mode = 1 } }")],
            vec![],
            "(initial.zeta.seiche.axis): 'z': expected x or y",
        ),
        (
            "seiche",
            vec![("initial.zeta", "{ seiche = { axis = \"x\", amplitude = 0.1, mode = 0 } }")],
            vec![],
            "initial.zeta.seiche.mode",
        ),
        ("seiche", vec![("initial.zeta", "\"high\"")], vec![], "a number or a profile"),
        ("seiche", vec![], vec!["bathymetry.depth"], "missing field `depth`"),
        // Depths.
        ("wind-setup", vec![("bathymetry.depth", "0.0")], vec![], "zero or negative everywhere"),
        ("wind-setup", vec![("bathymetry.depth", "-5.0")], vec![], "zero or negative everywhere"),
        ("tidal-basin", vec![("bathymetry.depth", "-1.0")], vec![], "zero or negative everywhere"),
        ("tidal-basin", vec![], vec!["drying"], "without drying: give drying and flooding depths"),
        ("seiche", vec![("bathymetry.depth", "{ file = \"no-such-depth.npy\" }")], vec![], "no-such-depth.npy"),
        (
            "tidal-basin",
            vec![("bathymetry.depth", "{ slope = { axis = \"x\", at = [3000.0, 2000.0], depth = [5.0, -2.0] } }")],
            vec![],
            "the slope must end after it starts",
        ),
        // Friction, drying, physics.
        (
            "wind-setup",
            vec![("physics.friction", "{ chezy = 0.0 }")],
            vec![],
            "(physics.friction.chezy): 0: must be positive",
        ),
        ("wind-setup", vec![("physics.friction", "{ chezy = -30.0 }")], vec![], "physics.friction.chezy"),
        (
            "tidal-basin",
            vec![("physics.friction", "{ manning = 0.0 }")],
            vec![],
            "(physics.friction.manning): 0: must be positive",
        ),
        ("tidal-basin", vec![("drying.drying", "0.4")], vec![], "0.4 m is above the flooding depth 0.3 m"),
        ("tidal-basin", vec![("drying.drying", "0.0")], vec![], "drying.drying"),
        ("wind-setup", vec![("physics.wind", "{ speed = -20.0 }")], vec![], "physics.wind.speed"),
        ("seiche", vec![("physics.eddy_viscosity", "-1.0")], vec![], "physics.eddy_viscosity"),
        ("seiche", vec![("physics.g", "0.0")], vec![], "physics.g"),
        (
            "tidal-basin",
            vec![("boundary.west", "{ tide = { amplitude = 1.0, period = 0.0 } }")],
            vec![],
            "boundary.west.tide.period",
        ),
        // Time series boundaries.
        ("tidal-basin", vec![("boundary.west", &missing)], vec![], "no-such-series.txt"),
        ("tidal-basin", vec![("boundary.west", &unreadable)], vec![], "boundary.west"),
        (
            "tidal-basin",
            vec![("boundary.west", &malformed)],
            vec![],
            "malformed.txt: line 3: '100 0.1 7': expected two columns",
        ),
        ("tidal-basin", vec![("boundary.west", &one)], vec![], "1 point(s): a series needs at least two"),
        ("tidal-basin", vec![("boundary.west", &backwards)], vec![], "line 3: time 40000 s does not follow 50000 s"),
        (
            "tidal-basin",
            vec![("boundary.west", &short)],
            vec![],
            "ends at t = 50000 s, before the run's end at 89424 s",
        ),
        ("tidal-basin", vec![("boundary.west", &late)], vec![], "starts at t = 10 s, after the run's start at 0"),
        ("tidal-basin", vec![("boundary.west", &nan)], vec![], "nan.txt: line 2: '50000 nan': not finite"),
        // Time.
        ("seiche", vec![("time.dt", "0.7")], vec![], "(time.dt): 0.7 s does not divide the snapshot or end time 50 s"),
        ("seiche", vec![("time.dt", "0.0")], vec![], "time.dt"),
        ("seiche", vec![("time.t_end", "-1.0")], vec![], "time.t_end"),
        // Grids that do not fit.
        ("seiche", vec![("grid.nx", "0")], vec![], "(grid.nx): 0: must be at least 1"),
        ("seiche", vec![("grid.nx", "1000000000")], vec![], "cells per axis"),
        ("seiche", vec![("grid.nx", "1000000"), ("grid.ny", "1000000")], vec![], "of host memory"),
        ("seiche", vec![("grid.lx", "-1.0")], vec![], "grid.lx"),
        // Rain and infiltration: the ADI's other forcing comes through its sides.
        (
            "seiche",
            vec![("forcing.inflow", "[{ name = \"river\", at = [10.0, 10.0], discharge = 1.0 }]")],
            vec![],
            "(forcing.inflow): the ADI model takes rain and infiltration from [forcing]; a discharge enters through a flux side",
        ),
        (
            "seiche",
            vec![("forcing.level", "[{ name = \"sea\", side = \"west\", level = 1.0 }]")],
            vec![],
            "(forcing.level): the ADI model takes rain and infiltration from [forcing]; a water level is held by a level, tide or series side",
        ),
        ("seiche", vec![("forcing.rain", "{ intensity = -1.0 }")], vec![], "forcing.rain"),
        ("seiche", vec![("forcing.rain", "{ intensity = 1.0, series = \"r.csv\" }")], vec![], "give exactly one of"),
        (
            "seiche",
            vec![("forcing.infiltration", "{ conductivity = -1.0, suction = 100.0, deficit = 0.3 }")],
            vec![],
            "forcing.infiltration",
        ),
        // Gauges at points in the domain.
        (
            "seiche",
            vec![("output.gauges", "[{ name = \"out\", x = 500.0, y = -1.0 }]")],
            vec![],
            "output.gauges: gauge out at (500, -1) m is outside the domain [0, 1000] × [0, 500] m",
        ),
    ];
    for (name, set, remove, want) in cases {
        let e = load(name, &set, &remove).expect_err(&format!("{name} with {set:?} minus {remove:?} was accepted"));
        assert!(e.contains(want), "{name} with {set:?} minus {remove:?}: '{e}' should say '{want}'");
        assert_eq!(e.lines().count(), 1, "not one line: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_scenario_loads_and_runs_a_few_steps_on_the_cpu() {
    for name in SCENARIOS {
        load(name, &[], &[]).unwrap();
        let dir = scratch(name);
        let dt = doc(name, &[], &[]).get("time.dt").unwrap();
        let t_end = format!("{}", 3.0 * dt.parse::<f64>().unwrap());
        let o = run(name, &[("grid.nx", "24"), ("grid.ny", "12"), ("time.t_end", &t_end)], "\"f64\"", &dir).unwrap();
        assert_eq!(o.steps, 3, "{name}");
        let fields: Vec<&str> = o.norms.iter().map(|(n, _)| n.as_str()).collect();
        // A soil adds its totals (the wetland's loam).
        let soil = doc(name, &[], &[]).get("forcing.infiltration.conductivity").is_some();
        let want: &[&str] = if soil {
            &["h", "infiltration", "p", "p_centre", "q", "q_centre", "zeta"]
        } else {
            &["h", "p", "p_centre", "q", "q_centre", "zeta"]
        };
        assert_eq!(fields, want, "{name}");
        assert!(o.norms.iter().all(|(_, n)| n.linf.is_finite()), "{name}: {:?}", o.norms);
        let t = hydrokern::run::time_tag(o.t);
        for file in [
            format!("zeta_t{t}.npy"),
            format!("p_t{t}.npy"),
            format!("zeta_t{t}.png"),
            format!("h_t{t}.png"),
            "centreline.png".into(),
            "zeta.gif".into(),
        ] {
            assert!(o.dir.join(&file).is_file(), "{name}: no {file}");
        }
        let (p, shape) = hydrokern::output::npy::read_npy_f64(&o.dir.join(format!("p_t{t}.npy"))).unwrap();
        assert_eq!(shape, [12, 25], "{name}: p lives on the (nx+1) × ny x-faces");
        assert!(p.iter().all(|v| v.is_finite()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A series boundary sampled from the sine tide at every half step gives the tide's run, to
/// rounding in the sample times.
#[test]
fn a_series_boundary_sampled_from_a_tide_runs_as_the_tide() {
    let dir = scratch("series");
    let (dt, period, steps) = (31.05, 44712.0, 40);
    let mut text = String::from("# time (s), level (m): the scenario's tide, sampled\n");
    for k in 0..=2 * steps {
        let t = k as f64 * dt / 2.0;
        text += &format!("{t:?}, {:?}\n", (std::f64::consts::TAU * t / period).sin());
    }
    let boundary = series(&dir, "tide.txt", &text);
    let t_end = format!("{:?}", steps as f64 * dt);
    let small = [("grid.nx", "20"), ("grid.ny", "10"), ("time.t_end", t_end.as_str())];
    let tide = run("tidal-basin", &small, "\"f64\"", &dir.join("tide")).unwrap();
    let with = [&small[..], &[("boundary.west", boundary.as_str())]].concat();
    let sampled = run("tidal-basin", &with, "\"f64\"", &dir.join("sampled")).unwrap();
    assert_eq!(tide.steps, steps);
    for ((name, a), (_, b)) in tide.norms.iter().zip(&sampled.norms) {
        let d = a.rel_diff(b);
        assert!(d < 1e-10, "{name}: {a:?} against {b:?} ({d:e})");
    }
    // And the tide did move the water: the open side's level reached 1·sin(2π·t_end/T).
    let zeta = &tide.norms.iter().find(|(n, _)| n == "zeta").unwrap().1;
    assert!(zeta.linf > 0.1, "{zeta:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A flux no f32 can carry breaks the first step down: the run stops naming the step, the
/// sweep and the place, and keeps the last good state, finite.
#[test]
fn a_blow_up_names_step_and_position_and_keeps_the_last_good_state() {
    let dir = scratch("blowup");
    let set = [("grid.nx", "16"), ("grid.ny", "8"), ("boundary.west", "{ flux = 1e36 }"), ("time.t_end", "60.0")];
    let e = run("seiche", &set, "\"f32\"", &dir).unwrap_err().to_string();
    // The sweep's own message: a breakdown names the system (the line) and the row; a
    // non-finite result the line and the position.
    let names_place = (e.contains("system") && e.contains("row")) || (e.contains("line") && e.contains("position"));
    assert!(e.contains("blew up") && e.contains("adi: step") && e.contains("-sweep") && names_place, "{e}");
    // The fixed Δt and its Courant number, which a user can change; 0.16 is no reason to, 1.6 is.
    assert!(e.contains("Δt = 1 s, Courant number") && !e.contains("--dt"), "{e}");
    let coarse = [("time.dt", "10.0"), ("output.snapshots", "[]")];
    let e10 = run("seiche", &[&set[..], &coarse].concat(), "\"f32\"", &dir).unwrap_err().to_string();
    assert!(e10.contains("Δt = 10 s, Courant number") && e10.contains("a smaller --dt"), "{e10}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(last_good_zeta(&dir).iter().all(|v| v.is_finite()), "the kept state is not the last good one");
    eprintln!("{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same blow-up on the GPU, by each strategy and both designs of the y-sweep: the breakdown
/// flagged on the device is found at the model's check, the run stops naming step, sweep,
/// strategy and line, and the state kept is the one before the failing step, finite.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn a_blow_up_on_the_gpu_names_step_and_line_and_keeps_the_last_good_state() {
    let designs = ["thomas", "twisted", "partition", "pcr", "cr-pcr"]
        .into_iter()
        .flat_map(|s| [(s, "columns"), (s, "transposed")]);
    for (strategy, y_sweep) in designs {
        let dir = scratch(&format!("blowup-gpu-{strategy}-{y_sweep}"));
        let (quoted, y_quoted) = (format!("\"{strategy}\""), format!("\"{y_sweep}\""));
        let set = [
            ("grid.nx", "16"),
            ("grid.ny", "8"),
            ("boundary.west", "{ flux = 1e36 }"),
            ("time.t_end", "60.0"),
            ("gpu.strategy", quoted.as_str()),
            ("gpu.y_sweep", y_quoted.as_str()),
        ];
        let e = run_on("\"gpu\"", "seiche", &set, "\"f32\"", &dir).unwrap_err().to_string();
        let line = e.contains("breakdown on row") || e.contains("breakdown on column");
        assert!(e.contains("blew up") && e.contains("adi: step") && e.contains(strategy) && line, "{strategy}: {e}");
        let z = last_good_zeta(&dir);
        assert!(z.iter().all(|v| v.is_finite()), "{strategy}: the kept state is not the last good one");
        eprintln!("{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// `[drying]` given without values takes MIKE 21's depths; the wind's direction is where it
/// blows towards, in degrees from +x: at 90° it piles the water up at the north side.
#[test]
fn drying_defaults_and_the_wind_convention() {
    let mut d = doc("tidal-basin", &[], &["drying.drying", "drying.flooding"]);
    d.set("output.progress", "1e9".parse().unwrap(), "test").unwrap();
    let summary = registry::load(&d).unwrap().summary();
    assert!(summary.contains("drying 0.2 m / flooding 0.3 m"), "{summary}");

    let dir = scratch("wind");
    let set = [("grid.nx", "10"), ("grid.ny", "10"), ("grid.ly", "5000.0"), ("time.t_end", "600.0")];
    let mut rise = Vec::new();
    for direction in ["0.0", "90.0"] {
        let wind = format!("{{ speed = 20.0, direction = {direction} }}");
        let o = run("wind-setup", &[&set[..], &[("physics.wind", wind.as_str())]].concat(), "\"f64\"", &dir).unwrap();
        let t = hydrokern::run::time_tag(o.t);
        let (z, _) = hydrokern::output::npy::read_npy_f64(&o.dir.join(format!("zeta_t{t}.npy"))).unwrap();
        let mean = |cells: &mut dyn Iterator<Item = usize>| {
            let v: Vec<f64> = cells.map(|c| z[c]).collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        // (east − west, north − south) of the edge cells' mean elevation.
        let east_west = mean(&mut (0..10).map(|k| k * 10 + 9)) - mean(&mut (0..10).map(|k| k * 10));
        let north_south = mean(&mut (90..100)) - mean(&mut (0..10));
        rise.push((east_west, north_south));
    }
    eprintln!("wind towards 0° and 90°: (east − west, north − south) = {rise:?}");
    let ((ew0, ns0), (ew90, ns90)) = (rise[0], rise[1]);
    assert!(ew0 > 1e-3 && ns0.abs() < 1e-9 * ew0.abs().max(1.0), "towards 0°: {:?}", rise[0]);
    assert!(ns90 > 1e-3 && ew90.abs() < 1e-9 * ns90.abs().max(1.0), "towards 90°: {:?}", rise[1]);
    std::fs::remove_dir_all(&dir).unwrap();
}
