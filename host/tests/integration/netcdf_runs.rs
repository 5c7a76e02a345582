//! Whole runs through the runner: the file holds every snapshot the NPY files hold, bit for bit,
//! on the run's mesh. (CI reads the same runs with netCDF4-python: scripts/check-netcdf.py.)
use hydrokern::output::netcdf::{Dataset, Values};
use hydrokern::output::read_npy_f64;
use hydrokern::run::RunOptions;
use hydrokern::{registry, scenarios};

/// A fresh, empty scratch directory for one test.
fn test_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hydrokern-output-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// Run `scenario` with `sets` on `backend` in `precision` writing NPY and NetCDF; check that
/// every record of every field equals its NPY file; the number of records.
fn run_and_compare(scenario: &str, sets: &[(&str, &str)], backend: &str, precision: &str) -> u64 {
    let dir = test_dir(&format!("netcdf-run-{scenario}-{backend}-{precision}"));
    let mut doc = scenarios::find(scenario).unwrap().doc().unwrap();
    let mut set = |k: &str, v: &str| doc.set(k, v.parse().unwrap(), "test").unwrap();
    for (k, v) in sets {
        set(k, v);
    }
    set("output.formats", r#"["npy", "netcdf"]"#);
    set("output.progress", "1e9");
    set("output.dir", &format!("{:?}", dir.display().to_string()));
    set("run.backend", &format!("{backend:?}"));
    set("run.precision", &format!("{precision:?}"));
    let case = registry::load(&doc).unwrap();
    case.run(&RunOptions { force: true, ..RunOptions::default() }).unwrap();
    let mut nc = Dataset::open(&dir.join(format!("{scenario}.nc"))).unwrap();
    assert_eq!(nc.global_text("precision"), Some(precision));
    let fields: Vec<String> = nc
        .header()
        .vars
        .iter()
        .filter(|v| nc.header().is_record(v) && v.name != "time" && v.name != "surface")
        .map(|v| v.name.clone())
        .collect();
    assert!(!fields.is_empty());
    // The surface (a solver with a bed) has no NPY file: it is h + bed, formed in f64 and
    // rounded once to the run's precision.
    if nc.var("surface").is_ok() {
        let bed = nc.read("bed", None).unwrap().to_f64();
        for r in 0..nc.records() {
            let (w, h) = (nc.read("surface", Some(r)).unwrap(), nc.read("h", Some(r)).unwrap().to_f64());
            let want: Vec<f64> = h.iter().zip(&bed).map(|(h, b)| h + b).collect();
            let want = match w {
                Values::F32(_) => want.iter().map(|&x| f64::from(x as f32)).collect(),
                Values::F64(_) => want,
            };
            assert_eq!(w.to_f64(), want, "{scenario}: surface at record {r}");
        }
    }
    for r in 0..nc.records() {
        let t = nc.read("time", Some(r)).unwrap().to_f64()[0];
        for f in &fields {
            let (want, shape) = read_npy_f64(&dir.join(format!("{f}_t{}.npy", hydrokern::run::time_tag(t)))).unwrap();
            let v = nc.var(f).unwrap().clone();
            assert_eq!(nc.shape(&v), shape, "{scenario}: {f}'s shape");
            let got = nc.read(f, Some(r)).unwrap().to_f64();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert!(bits(&got) == bits(&want), "{scenario}: {f} at t = {t} differs from its NPY file");
        }
    }
    let records = nc.records();
    std::fs::remove_dir_all(dir).unwrap();
    records
}

/// ADI: fields on the x- and y-faces beside centred ones; f32.
const SEICHE: &[(&str, &str)] =
    &[("grid.nx", "20"), ("grid.ny", "10"), ("time.t_end", "20.0"), ("output.snapshots", "[10.0]")];
/// Kurganov–Petrova with a snapshot at t = 0; f64.
const DAM_BREAK: &[(&str, &str)] =
    &[("grid.nx", "24"), ("grid.ny", "16"), ("time.t_end", "0.2"), ("output.snapshots", "[0.0, 0.1]")];

/// The sediment basin; its precision is given, mixed among them.
const SEDIMENT: &[(&str, &str)] =
    &[("grid.nx", "12"), ("grid.ny", "10"), ("time.t_end", "2000.0"), ("output.snapshots", "[1000.0]")];

#[test]
fn every_snapshot_of_a_cpu_run_is_in_its_file() {
    assert_eq!(run_and_compare("seiche", SEICHE, "cpu", "f32"), 2);
    assert_eq!(run_and_compare("dam-break", DAM_BREAK, "cpu", "f64"), 3);
}

/// A mixed run's file says `precision = "mixed"` (the command line's name; its values are
/// f64, as its NPY files'), and holds its snapshots as every run's does.
#[test]
fn a_mixed_run_names_its_precision_mixed() {
    assert_eq!(run_and_compare("sediment", SEDIMENT, "cpu", "mixed"), 2);
}

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn every_snapshot_of_a_gpu_run_is_in_its_file() {
    for precision in ["f32", "f64"] {
        assert_eq!(run_and_compare("seiche", SEICHE, "gpu", precision), 2);
        assert_eq!(run_and_compare("dam-break", DAM_BREAK, "gpu", precision), 3);
    }
}

/// With `run.start` the time coordinate counts "seconds since" that date (UTC) on the standard
/// calendar, as CF readers turn into dates, in the fields' file and the gauges' alike; the
/// values stay the run's seconds, and `plot` still reads them as seconds. A solver counting in
/// years refuses a start date, and a date that is not one is refused naming the key.
#[test]
fn a_start_date_makes_cf_time_units() {
    let dir = test_dir("netcdf-start");
    let mut doc = scenarios::find("dam-break").unwrap().doc().unwrap();
    for (k, v) in [
        ("grid.nx", "16"),
        ("time.t_end", "0.1"),
        ("output.snapshots", "[0.05]"),
        ("output.formats", r#"["netcdf"]"#),
        ("output.gauges", r#"[{name = "g", x = 20.0, y = 20.0}]"#),
        ("output.progress", "1e9"),
        ("output.dir", &format!("{:?}", dir.display().to_string())),
        ("run.backend", "\"cpu\""),
        ("run.start", "\"2026-11-29T06:30Z\""),
    ] {
        doc.set(k, v.parse().unwrap(), "test").unwrap();
    }
    registry::load(&doc).unwrap().run(&RunOptions { force: true, ..RunOptions::default() }).unwrap();
    for file in ["dam-break.nc", "dam-break_gauges.nc"] {
        let mut nc = Dataset::open(&dir.join(file)).unwrap();
        let time = nc.var("time").unwrap().clone();
        assert_eq!(time.text("units"), Some("seconds since 2026-11-29 06:30:00"), "{file}");
        assert_eq!(time.text("calendar"), Some("standard"), "{file}");
        let last = nc.read("time", Some(nc.records() - 1)).unwrap().to_f64()[0];
        assert!((last - 0.1).abs() < 1e-12, "{file}: {last}");
    }
    let pictures = hydrokern::output::netcdf::plot(&dir.join("dam-break.nc"), &dir.join("plots")).unwrap();
    assert!(pictures.iter().any(|p| p.to_string_lossy().contains("0.1")), "{pictures:?}");

    let mut sediment = scenarios::find("sediment").unwrap().doc().unwrap();
    sediment.set("run.start", "\"2026-01-01\"".parse().unwrap(), "test").unwrap();
    sediment
        .set("output.dir", format!("{:?}", dir.join("sed").display().to_string()).parse().unwrap(), "test")
        .unwrap();
    let e = registry::load(&sediment).unwrap().run(&RunOptions::default()).unwrap_err().to_string();
    assert!(e.contains("run.start: this solver counts time in yr, not seconds"), "{e}");
    for bad in ["2026-02-30", "2026-13-01", "2026-11-29T24:00", "29/11/2026", "2026-11-29T06:30:00+01:00"] {
        let mut d = scenarios::find("dam-break").unwrap().doc().unwrap();
        d.set("run.start", format!("{bad:?}").parse().unwrap(), "test").unwrap();
        let e = registry::load(&d).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("run.start") && e.contains(bad) && e.lines().count() == 1, "{bad}: {e}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
