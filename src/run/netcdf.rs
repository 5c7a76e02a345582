//! The runner's side of NetCDF output: the run's one file, `<case name>.nc`, created at the
//! first snapshot with the run's metadata as global attributes, a record appended at each.

use super::{RunDir, Simulation};
use crate::case::Format;
use crate::model::State;
use crate::output::netcdf::Snapshots;
use crate::output::netcdf::classic::Attr;
use crate::{Real, Result};

pub(super) struct NetcdfRun {
    file: Option<Snapshots>,
    /// The model's own line (backend, kernel variant), for the file's metadata.
    model: String,
}

/// The file's name in the run directory.
pub fn file_name(case_name: &str) -> String {
    format!("{case_name}.nc")
}

/// CF spells the sediment solver's years `year` (UDUNITS' name); seconds stay `s`.
fn time_units(unit: &str) -> &str {
    if unit == "yr" { "year" } else { unit }
}

impl NetcdfRun {
    /// For a run of `sim` whose initial state is `initial`: when the case writes NetCDF, a field
    /// the file cannot hold is refused here, before the first step rather than at the first
    /// snapshot.
    pub fn new<S: Simulation, T: Real>(sim: &S, model: String, initial: &State<T>) -> Result<NetcdfRun> {
        if sim.info().output.wants(Format::Netcdf) {
            Snapshots::check(&sim.mesh(), initial)?;
        }
        Ok(NetcdfRun { file: None, model })
    }

    /// Append `state` to the run's file (creating it at the first snapshot); the file's name.
    pub fn snapshot<S: Simulation, T: Real>(&mut self, sim: &S, dir: &mut RunDir, state: &State<T>) -> Result<String> {
        let name = file_name(&sim.info().name);
        dir.append(&name, |path| {
            if self.file.is_none() {
                let unit = time_units(sim.times().unit);
                self.file =
                    Some(Snapshots::create(path, &sim.mesh(), state, unit, globals(sim, &self.model, T::NAME))?);
            }
            self.file.as_mut().expect("created above").append(state)
        })?;
        Ok(name)
    }
}

/// The file's global attributes: CF's, then what made it (docs/netcdf.md lists them).
fn globals<S: Simulation>(sim: &S, model: &str, precision: &str) -> Vec<Attr> {
    let info = sim.info();
    let version = env!("CARGO_PKG_VERSION");
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now());
    [
        ("Conventions", "CF-1.8".to_string()),
        ("title", format!("{}: hydrokern {} run", info.name, info.solver)),
        ("source", format!("hydrokern {version} (git {})", crate::GIT_REVISION)),
        ("history", format!("{now} hydrokern {version}: run of {}", info.origin)),
        (
            "comment",
            "x and y are the cell centres in metres, y increasing northward: the variables' arrays \
             at each time are the run's NPY files (row j at y[j]); a record is appended at each \
             snapshot and counted only once its data are on disk"
                .to_string(),
        ),
        ("hydrokern_version", version.to_string()),
        ("hydrokern_revision", crate::GIT_REVISION.to_string()),
        ("solver", info.solver.to_string()),
        ("simulation", sim.describe()),
        ("model", model.to_string()),
        ("precision", precision.to_string()),
        ("case_origin", info.origin.clone()),
        ("case", info.text.clone()),
    ]
    .into_iter()
    .map(|(k, v)| Attr::text(k, v))
    .collect()
}

/// Whole runs through the runner: the file holds every snapshot the NPY files hold, bit for bit,
/// on the run's mesh. (CI reads the same runs with netCDF4-python: scripts/check-netcdf.py.)
#[cfg(test)]
mod tests {
    use crate::output::netcdf::Dataset;
    use crate::output::read_npy_f64;
    use crate::run::RunOptions;
    use crate::scenarios;

    /// Run `scenario` with `sets` on `backend` in `precision` writing NPY and NetCDF; check that
    /// every record of every field equals its NPY file; the number of records.
    fn run_and_compare(scenario: &str, sets: &[(&str, &str)], backend: &str, precision: &str) -> u64 {
        let dir = crate::output::test_dir(&format!("netcdf-run-{scenario}-{backend}-{precision}"));
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
        let case = scenarios::load(&doc).unwrap();
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
                let (want, shape) = read_npy_f64(&dir.join(format!("{f}_t{}.npy", crate::run::time_tag(t)))).unwrap();
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

    #[test]
    fn every_snapshot_of_a_cpu_run_is_in_its_file() {
        assert_eq!(run_and_compare("seiche", SEICHE, "cpu", "f32"), 2);
        assert_eq!(run_and_compare("dam-break", DAM_BREAK, "cpu", "f64"), 3);
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
}
