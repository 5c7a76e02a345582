//! Case files of the wave-propagation solver: every kind of bad input is refused with one line
//! that names the key, before anything runs; the built-in scenarios load.

use hydrokern::scenarios;

/// Loads scenario `name` with `set` applied (key, TOML value) and `remove` removed.
fn load(name: &str, set: &[(&str, &str)], remove: &[&str]) -> Result<(), String> {
    let mut doc = scenarios::find(name).expect("a built-in scenario").doc().unwrap();
    for (key, value) in set {
        doc.set(key, value.parse().unwrap(), "test").unwrap();
    }
    for key in remove {
        doc.remove(key);
    }
    scenarios::load(&doc).map(|_| ()).map_err(|e| e.to_string())
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
        ("swe-radial", vec![("equations.name", "\"burgers\"")], vec![], "unknown equations 'burgers'"),
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
        ("swe-radial", vec![("grid.nx", "1000000"), ("grid.ny", "1000000")], vec![], "GiB of host memory"),
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
        ("acoustics-3d", vec![("grid.nx", "100000"), ("grid.nz", "100000")], vec![], "GiB of host memory"),
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
