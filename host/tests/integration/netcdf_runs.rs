//! Whole runs through the runner: the file holds every snapshot the NPY files hold, bit for bit,
//! on the run's mesh. (CI reads the same runs with netCDF4-python: scripts/check-netcdf.py.)
use hydrokern::output::netcdf::Dataset;
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
        .filter(|v| nc.header().is_record(v) && v.name != "time")
        .map(|v| v.name.clone())
        .collect();
    assert!(!fields.is_empty());
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
