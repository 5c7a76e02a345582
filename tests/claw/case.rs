//! Case files of the wave-propagation solver: every kind of bad input is refused with one line
//! that names the key, before anything runs; the built-in scenarios load.

use hydrokern::{registry, scenarios};

/// Loads scenario `name` with `set` applied (key, TOML value) and `remove` removed.
fn load(name: &str, set: &[(&str, &str)], remove: &[&str]) -> Result<(), String> {
    let mut doc = scenarios::find(name).expect("a built-in scenario").doc().unwrap();
    for (key, value) in set {
        doc.set(key, value.parse().unwrap(), "test").unwrap();
    }
    for key in remove {
        doc.remove(key);
    }
    registry::load(&doc).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn the_claw_scenarios_load() {
    for name in ["swe-radial", "acoustics-2d", "acoustics-3d", "advection"] {
        load(name, &[], &[]).unwrap();
    }
}

/// A scenario, the keys set on it, the keys removed, and what the refusal must say.
type BadCase<'a> = (&'a str, Vec<(&'a str, &'a str)>, Vec<&'a str>, &'a str);

#[test]
fn bad_claw_cases_are_refused_with_one_line_naming_the_key() {
    let disc = |r: &str, outside: &str| format!("{{ disc = {{ radius = {r}, inside = 2.0, outside = {outside} }} }}");
    let (neg_radius, dry, negative) = (disc("-1.0", "1.0"), disc("1.0", "0.0"), disc("1.0", "-0.5"));
    let cases: Vec<BadCase> = vec![
        ("swe-radial", vec![("equations.name", "\"euler\"")], vec![], "unknown equations 'euler'"),
        ("swe-radial", vec![("equations.gravity", "9.81")], vec![], "no constant 'gravity'"),
        ("swe-radial", vec![("equations.g", "\"strong\"")], vec![], "equations.g"),
        ("swe-radial", vec![], vec!["equations.name"], "equations.name: missing: one of"),
        ("swe-radial", vec![("numerics.limiter", "\"koren\"")], vec![], "unknown limiter 'koren'"),
        ("swe-radial", vec![("numerics.splitting", "\"lie\"")], vec![], "numerics.splitting"),
        ("swe-radial", vec![("time.cfl", "1.5")], vec![], "(time.cfl): 1.5: must lie in (0, 1]"),
        ("swe-radial", vec![("time.cfl", "0.0")], vec![], "(time.cfl): 0: must lie in (0, 1]"),
        ("swe-radial", vec![("time.cfl_max", "1.2")], vec![], "time.cfl_max"),
        ("swe-radial", vec![("time.cfl", "0.95"), ("time.cfl_max", "0.9")], vec![], "must not exceed time.cfl_max"),
        ("swe-radial", vec![("boundary.south", "\"slippery\"")], vec![], "(boundary.south): 'slippery'"),
        ("swe-radial", vec![("boundary.west", "\"periodic\"")], vec![], "both be periodic"),
        ("swe-radial", vec![("initial.hw", "0.0")], vec![], "no field 'hw'"),
        ("swe-radial", vec![], vec!["initial.hv"], "initial.hv: missing"),
        ("swe-radial", vec![("initial.h", &neg_radius)], vec![], "radius"),
        ("swe-radial", vec![("initial.h", "{ disk = { radius = 1.0 } }")], vec![], "unknown variant"),
        ("swe-radial", vec![("initial.h", &negative)], vec![], "depth h must not be negative"),
        ("swe-radial", vec![("initial.h", &dry)], vec![], "Roe's solver needs h > 0"),
        ("swe-radial", vec![("initial.h", "{ file = \"no-such-file.npy\" }")], vec![], "no-such-file.npy"),
        ("swe-radial", vec![("grid.nx", "0")], vec![], "grid.nx"),
        ("swe-radial", vec![("grid.nx", "1000000"), ("grid.ny", "1000000")], vec![], "of host memory"),
        ("swe-radial", vec![("time.t_end", "-1.0")], vec![], "time.t_end"),
        ("acoustics-2d", vec![], vec!["initial.rho"], "initial.rho: missing"),
        ("acoustics-2d", vec![("initial.bulk", "-1.0")], vec![], "bulk modulus must be positive"),
        ("acoustics-2d", vec![("initial.rho", "0.0")], vec![], "density rho must be positive"),
        ("acoustics-2d", vec![("equations.c", "1.0")], vec![], "its constants: none"),
        ("advection", vec![("initial.q", "\"high\"")], vec![], "a number or a profile"),
        // Dimensions: a volume for 2D equations, a plane for 3D ones, keys of the other kind.
        (
            "swe-radial",
            vec![("grid.nz", "8"), ("grid.lz", "1.0")],
            vec![],
            "shallow-roe is two-dimensional; remove grid.nz",
        ),
        (
            "acoustics-2d",
            vec![("equations.name", "\"acoustics-3d\"")],
            vec![],
            "grid.nz: missing: acoustics-3d is three-dimensional",
        ),
        ("acoustics-3d", vec![], vec!["grid.nz"], "grid.nz: missing: acoustics-3d is three-dimensional"),
        ("swe-radial", vec![("grid.lz", "1.0")], vec![], "grid.lz): only with grid.nz"),
        ("acoustics-3d", vec![], vec!["grid.lz"], "grid.lz: missing: give the extent grid.lz or the cell size grid.dz"),
        ("acoustics-3d", vec![("grid.nz", "0")], vec![], "(grid.nz): 0: must be at least 1"),
        ("acoustics-3d", vec![("grid.nx", "100000"), ("grid.nz", "100000")], vec![], "of host memory"),
        ("acoustics-3d", vec![("grid.origin", "[0.0, 0.0]")], vec![], "grid.origin"),
        (
            "swe-radial",
            vec![("boundary.top", "\"wall\"")],
            vec![],
            "(boundary.top): only for three-dimensional equations",
        ),
        (
            "acoustics-3d",
            vec![("boundary.bottom", "\"periodic\"")],
            vec![],
            "bottom and top must both be periodic or neither",
        ),
        ("acoustics-3d", vec![("boundary.top", "\"open\"")], vec![], "(boundary.top): 'open'"),
        ("acoustics-3d", vec![], vec!["initial.w"], "initial.w: missing"),
        (
            "acoustics-3d",
            vec![("initial.rho", "{ halves = { axis = \"t\", at = 0.5, below = 1.0, above = 2.0 } }")],
            vec![],
            "expected x, y or z",
        ),
        (
            "acoustics-2d",
            vec![("initial.rho", "{ halves = { axis = \"z\", at = 0.5, below = 1.0, above = 2.0 } }")],
            vec![],
            "expected x or y",
        ),
        (
            "acoustics-3d",
            vec![("initial.p", "{ disc = { centre = [1.0, 1.0], radius = 0.2, inside = 1.0, outside = 0.0 } }")],
            vec![],
            "(initial.p.disc.centre): [1.0, 1.0]: must be three finite numbers",
        ),
        ("acoustics-3d", vec![("initial.bulk", "0.0")], vec![], "bulk modulus must be positive"),
        // Gauges and maps: only equations with a depth keep them, at points in the domain.
        (
            "acoustics-2d",
            vec![("output.maxima", "true")],
            vec![],
            "(output.maxima): gauges and maximum maps need a water depth",
        ),
        (
            "advection",
            vec![("output.gauges", "[{ name = \"a\", x = 0.5, y = 0.5 }]")],
            vec![],
            "(output.gauges): gauges and maximum maps need a water depth: claw keeps them for the shallow-water equations (shallow-roe, shallow-hlle), not advection",
        ),
        ("acoustics-3d", vec![("output.maxima", "true")], vec![], "not acoustics-3d"),
        (
            "swe-radial",
            vec![("output.gauges", "[{ name = \"far\", x = 10.5, y = 5.0 }]")],
            vec![],
            "(output.gauges): gauge far at (10.5, 5) m is outside the domain [0, 10] × [0, 10] m",
        ),
    ];
    for (name, set, remove, want) in cases {
        let e = load(name, &set, &remove).expect_err(&format!("{name} with {set:?} minus {remove:?} was accepted"));
        assert!(e.contains(want), "{name} with {set:?} minus {remove:?}: '{e}' should say '{want}'");
        assert_eq!(e.lines().count(), 1, "not one line: {e}");
    }
}

/// A 3D case reads an initial field from an NPY file of shape (nz, ny, nx), and refuses one of
/// a plane's shape.
#[test]
fn a_volume_takes_initial_fields_from_npy_files_of_its_shape() {
    let dir = std::env::temp_dir().join(format!("hydrokern-claw3d-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (volume, plane) = (dir.join("p3.npy"), dir.join("p2.npy"));
    hydrokern::output::write_npy(&volume, &vec![0.5f64; 4 * 5 * 6], &[4, 5, 6]).unwrap();
    hydrokern::output::write_npy(&plane, &vec![0.5f64; 5 * 6], &[5, 6]).unwrap();
    let sizes = [("grid.nx", "6"), ("grid.ny", "5"), ("grid.nz", "4")];
    let with = |path: &std::path::Path| {
        let file = format!("{{ file = \"{}\" }}", path.display());
        let mut set = sizes.to_vec();
        set.push(("initial.p", file.as_str()));
        load("acoustics-3d", &set, &[])
    };
    with(&volume).unwrap();
    let e = with(&plane).unwrap_err();
    assert!(e.contains("shape [5, 6]; expected [4, 5, 6] (nz, ny, nx)"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The README's walk-through of a new system is the registered `burgers.rs`, verbatim.
#[test]
fn the_readme_walks_through_the_registered_burgers_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let file = std::fs::read_to_string(root.join("gpu/src/claw/riemann/burgers.rs")).unwrap();
    let uses = "use crate::claw::{Riemann, Solution};\n\n";
    let body = &file[file.find(uses).expect("burgers.rs imports Riemann and Solution") + uses.len()..];
    assert!(body.contains("impl<T: Real> Riemann<T, 1, 1, 0> for Burgers"));
    assert!(readme.contains(body), "README.md's walk-through differs from gpu/src/claw/riemann/burgers.rs");
    let registry = std::fs::read_to_string(root.join("gpu/src/claw/systems.rs")).unwrap();
    assert!(registry.contains("burgers => Burgers, 1, 1, 0;") && readme.contains("`burgers => Burgers, 1, 1, 0;`"));
}

/// A system registered by its one line runs from a case file through the whole runner, and the
/// run is the CPU reference's own: a sine wave steepening into a shock in a periodic box keeps
/// its total (zero) and ends with the norms of `Claw2` stepped directly.
#[test]
fn a_registered_system_runs_from_a_case_file() {
    use hydrokern::case::{CaseDoc, Origin};
    use hydrokern::claw::cpu::{Claw2, Setup};
    use hydrokern::claw::{Burgers, Cfl, Limiter, Splitting};
    use hydrokern::run::{Norms, RunOptions};
    let dir = std::env::temp_dir().join(format!("hydrokern-burgers-{}", std::process::id()));
    let text = format!(
        r#"solver = "claw"
[grid]
nx = 40
ny = 24
lx = 1.0
ly = 1.0
[equations]
name = "burgers"
[time]
t_end = 0.3
[boundary]
west = "periodic"
east = "periodic"
south = "periodic"
north = "periodic"
[initial]
q = {{ file = "{}" }}
[run]
backend = "cpu"
precision = "f64"
[output]
dir = "{}"
formats = ["npy"]
progress = 1e9
"#,
        dir.join("q.npy").display(),
        dir.join("out").display()
    );
    std::fs::create_dir_all(&dir).unwrap();
    let (nx, ny) = (40, 24);
    let q0: Vec<f64> =
        (0..nx * ny).map(|c| (std::f64::consts::TAU * ((c % nx) as f64 + 0.5) / nx as f64).sin()).collect();
    hydrokern::output::write_npy(&dir.join("q.npy"), &q0, &[ny, nx]).unwrap();
    let doc = CaseDoc::parse(Origin::File(dir.join("burgers.toml")), text).unwrap();
    let outcome = registry::load(&doc).unwrap().run(&RunOptions::default()).unwrap();

    let (h, bc) = (1.0 / nx as f64, [kernels::halo::PERIODIC; 4]);
    let setup = Setup {
        nx,
        ny,
        dx: h,
        dy: 1.0 / ny as f64,
        bc,
        limiter: Limiter::Mc,
        splitting: Splitting::Godunov,
        cfl: Cfl::default(),
    };
    let q: Vec<[f64; 1]> = q0.iter().map(|&v| [v]).collect();
    let mut run = Claw2::new(Burgers, setup, &q, &vec![[]; nx * ny]).unwrap();
    run.advance_to(0.3).unwrap();
    let state: Vec<f64> = run.state().iter().map(|c| c[0]).collect();
    assert_eq!(outcome.steps, run.clock().steps());
    assert_eq!(outcome.norms, vec![("q".to_string(), Norms::of(&state))]);
    assert!(state.iter().sum::<f64>().abs() < 1e-11);
    // Steepened: the largest jump between neighbours is far above the smooth start's 2π/40.
    let jump = (0..nx - 1).map(|i| (state[i + 1] - state[i]).abs()).fold(0.0, f64::max);
    assert!(jump > 0.5, "largest jump {jump}");
    std::fs::remove_dir_all(&dir).unwrap();
}
