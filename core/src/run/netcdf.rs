//! The runner's side of NetCDF output: the run's file of fields, `<case name>.nc`, created at
//! the first snapshot with the run's metadata as global attributes, a record appended at each;
//! beside it, for a case with gauges, lines or maxima, `<case name>_gauges.nc` and
//! `<case name>_lines.nc` (a record per sample, appended at each snapshot) and
//! `<case name>_maxima.nc` (written whole at each). A run that keeps a water account has its
//! terms in the fields' file, a record at each snapshot. A
//! restarted run goes on appending to the fields' file of its directory ([`NetcdfRun::resume`]).

use super::{Console, RunDir, Simulation};
use crate::account::Account;
use crate::case::Format;
use crate::grid::Grid2;
use crate::model::State;
use crate::output::netcdf::cf;
use crate::output::netcdf::classic::Attr;
use crate::output::netcdf::{GaugeFile, LineFile, Snapshots, write_maxima};
use crate::products::Products;
use crate::{Error, GpuReal, Real, Result};

pub(super) struct NetcdfRun {
    file: Option<Snapshots>,
    gauges: Option<GaugeFile>,
    lines: Option<LineFile>,
    /// The model's own line (backend, kernel variant), for the file's metadata.
    model: String,
    /// The time coordinate's units ([`time_units`]).
    units: String,
}

/// The file's name in the run directory.
pub fn file_name(case_name: &str) -> String {
    format!("{case_name}.nc")
}

/// The gauges' file name in the run directory.
pub fn gauges_file_name(case_name: &str) -> String {
    format!("{case_name}_gauges.nc")
}

/// The discharge lines' file name in the run directory.
pub fn lines_file_name(case_name: &str) -> String {
    format!("{case_name}_lines.nc")
}

/// The maximum maps' file name in the run directory (the longest of the three).
pub fn maxima_file_name(case_name: &str) -> String {
    format!("{case_name}_maxima.nc")
}

/// What the run's files carry for GIS ([`cf::Geo`]): the case's coordinate system, the bed of
/// a solver that has one, and the cells in the domain.
fn geo<S: Simulation>(sim: &S) -> cf::Geo<'_> {
    cf::Geo { epsg: sim.info().inputs.epsg(), bed: sim.bed(), active: sim.active() }
}

/// The time coordinate's units: "seconds since <date>" where the case gives its start date
/// (`run.start`), else the solver's unit, with CF's spelling of years (`year`, UDUNITS' name).
fn time_units(unit: &str, start: Option<&str>) -> Result<String> {
    match (unit, start) {
        ("s", Some(date)) => {
            Ok(format!("seconds since {}", crate::cf_time::reference_date(date).map_err(Error::invalid)?))
        }
        (_, Some(_)) => Err(Error::invalid(format!(
            "run.start: this solver counts time in {unit}, not seconds; a start date is for runs in seconds"
        ))),
        ("yr", None) => Ok("year".into()),
        (_, None) => Ok(unit.into()),
    }
}

impl NetcdfRun {
    /// For a run of `sim` whose initial state is `initial`: when the case writes NetCDF, a field
    /// the file cannot hold is refused here, before the first step rather than at the first
    /// snapshot.
    pub fn new<S: Simulation, T: Real>(sim: &S, model: String, initial: &State<T>) -> Result<NetcdfRun> {
        let units = time_units(sim.times().unit, sim.info().run.start.as_deref())?;
        if sim.info().output.wants(Format::Netcdf) {
            Snapshots::check(&sim.mesh(), initial, sim.account(initial).as_ref(), &geo(sim))?;
        }
        Ok(NetcdfRun { file: None, gauges: None, lines: None, model, units })
    }

    /// For a run restarted from a checkpoint whose state is `state`: go on appending to the
    /// fields' file in `dir` after its records up to the checkpoint's time, when it is this
    /// case's (its global attributes) and of this run's layout; otherwise — missing, of another
    /// case, damaged — say so in one line and start a new file at the next snapshot, holding
    /// the records from the restart on. (The gauges' and lines' files are written anew at the
    /// first snapshot from their records, which the checkpoint holds since the start.)
    pub fn resume<S: Simulation, T: Real>(
        &mut self,
        sim: &S,
        dir: &RunDir,
        state: &State<T>,
        console: &Console,
    ) -> Result<()> {
        let info = sim.info();
        if !info.output.wants(Format::Netcdf) {
            return Ok(());
        }
        let name = file_name(&info.name);
        let path = dir.path().join(&name);
        let t0 = state.clock.t;
        let unit = sim.times().unit;
        let start_anew = |why: String| {
            console
                .say(format!("  netcdf: {why}; a new {name} holds the snapshots from the restart (t = {t0} {unit}) on"))
        };
        if !path.exists() {
            start_anew(format!("no {name} in {} to continue", dir.path().display()));
            return Ok(());
        }
        if let Err(why) = belongs(sim, &path, info.run.precision.name(), t0) {
            start_anew(format!("{} is not this run's file ({why})", path.display()));
            return Ok(());
        }
        let account = sim.account(state);
        match Snapshots::resume(&path, &sim.mesh(), state, account.as_ref(), &self.units, t0, &geo(sim)) {
            Ok(file) => {
                let n = file.records();
                let records = if n == 1 { "record" } else { "records" };
                console.say(format!("  netcdf: {name} goes on after its {n} {records} up to t = {t0} {unit}"));
                self.file = Some(file);
            }
            Err(e) => start_anew(format!("{e}")),
        }
        Ok(())
    }

    /// Append `state` and its water account `account` (for a run that keeps one) to the run's
    /// file (creating it at the first snapshot); the file's name.
    pub fn snapshot<S: Simulation, T: Real>(
        &mut self,
        sim: &S,
        dir: &mut RunDir,
        state: &State<T>,
        account: Option<&Account>,
    ) -> Result<String> {
        let name = file_name(&sim.info().name);
        dir.append(&name, |path| {
            if self.file.is_none() {
                self.file = Some(Snapshots::create(
                    path,
                    &sim.mesh(),
                    state,
                    account,
                    &self.units,
                    fields_globals(sim, &self.model, sim.info().run.precision.name()),
                    &geo(sim),
                )?);
            }
            self.file.as_mut().expect("created above").append(state, account)
        })?;
        Ok(name)
    }

    /// The gauge and line samples not yet in their files (creating each with every sample so
    /// far, the first time in this process) and the maps, whole, when the case writes NetCDF;
    /// the files' names.
    pub fn products<S: Simulation, T: GpuReal>(
        &mut self,
        sim: &S,
        dir: &mut RunDir,
        p: &Products<T>,
        grid: &Grid2,
    ) -> Result<Vec<String>> {
        let info = sim.info();
        if !info.output.wants(Format::Netcdf) {
            return Ok(Vec::new());
        }
        let mut names = Vec::new();
        let fields = Attr::text("fields_file", file_name(&info.name));
        if !p.series.is_empty() {
            let name = gauges_file_name(&info.name);
            dir.append(&name, |path| match &mut self.gauges {
                Some(g) => g.append(&p.series),
                None => {
                    let mut globals = globals(sim, &self.model, info.run.precision.name(), GAUGES_COMMENT);
                    globals.push(fields.clone());
                    let epsg = info.inputs.epsg();
                    self.gauges = Some(GaugeFile::create::<T>(path, &p.series, grid, &self.units, globals, epsg)?);
                    Ok(())
                }
            })?;
            names.push(name);
        }
        if !p.lines.is_empty() {
            let name = lines_file_name(&info.name);
            dir.append(&name, |path| match &mut self.lines {
                Some(l) => l.append(&p.lines),
                None => {
                    let mut globals = globals(sim, &self.model, info.run.precision.name(), LINES_COMMENT);
                    globals.push(fields.clone());
                    let epsg = info.inputs.epsg();
                    self.lines = Some(LineFile::create(path, &p.lines, &self.units, globals, epsg)?);
                    Ok(())
                }
            })?;
            names.push(name);
        }
        if !p.maps.is_empty() {
            let name = maxima_file_name(&info.name);
            let mut globals = globals(sim, &self.model, info.run.precision.name(), MAXIMA_COMMENT);
            globals.push(fields);
            let depth = info.output.arrival_depth;
            dir.write(&name, |path| write_maxima(path, &p.maps, grid, depth, globals, &geo(sim)))?;
            names.push(name);
        }
        Ok(names)
    }
}

/// Whether the NetCDF file at `path` was written by a run of `sim`'s case (continued from time
/// `t0`) in `precision` by this version of hydrokern (its global attributes); what differs if not.
fn belongs<S: Simulation>(
    sim: &S,
    path: &std::path::Path,
    precision: &str,
    t0: f64,
) -> std::result::Result<(), String> {
    let info = sim.info();
    let nc = crate::output::netcdf::Dataset::open(path).map_err(|e| e.to_string())?;
    let text = |k: &str| nc.global_text(k).unwrap_or("not set").to_string();
    for (key, want) in
        [("solver", info.solver), ("precision", precision), ("hydrokern_version", env!("CARGO_PKG_VERSION"))]
    {
        if text(key) != want {
            return Err(format!("its {key} is {}, not {want}", text(key)));
        }
    }
    match super::checkpoint::case_difference(&text("case"), &info.text, t0) {
        Some(diff) => Err(format!("another case: {diff}")),
        None => Ok(()),
    }
}

/// What the fields' file says of itself in its global attribute `comment`.
const FIELDS_COMMENT: &str = "x and y are the cell centres in metres, y increasing northward: the variables' arrays \
    at each time are the run's NPY files (row j at y[j]); a record is appended at each snapshot and counted only \
    once its data are on disk; a run with forcing has its water account's terms beside the fields, those of \
    account.csv";
const GAUGES_COMMENT: &str = "every gauge is sampled at the same times (CF's orthogonal multidimensional \
    representation); its values are those of gauge_<name>.csv; samples are appended at each snapshot and counted \
    only once their data are on disk";
const LINES_COMMENT: &str = "every line is sampled at the gauges' times (CF's orthogonal multidimensional \
    representation); its discharges are those of lines.csv; samples are appended at each snapshot and counted \
    only once their data are on disk";
const MAXIMA_COMMENT: &str = "the maps of max_h.npy, max_speed.npy, max_hazard.npy, max_h_time.npy, arrival.npy \
    and duration.npy over the run so far, \
    x and y the cell centres in metres, y increasing northward; written whole at each snapshot";

/// A file's global attributes: CF's, then what made it (docs/netcdf.md lists them), `comment`
/// saying what the file holds. `precision` is the run's by its command-line name (`f32`, `f64`,
/// `mixed`: a mixed run's values are f64, as its NPY files').
fn globals<S: Simulation>(sim: &S, model: &str, precision: &str, comment: &str) -> Vec<Attr> {
    let info = sim.info();
    let version = env!("CARGO_PKG_VERSION");
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now());
    [
        ("Conventions", "CF-1.8".to_string()),
        ("title", format!("{}: hydrokern {} run", info.name, info.solver)),
        ("source", format!("hydrokern {version} (git {})", crate::GIT_REVISION)),
        ("history", format!("{now} hydrokern {version}: run of {}", info.origin)),
        ("comment", comment.to_string()),
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

/// The fields' file's global attributes: [`globals`], and the names of the products' files
/// beside it when the case keeps gauges, lines or maxima (`hydrokern plot` draws the gauges
/// and maps too).
fn fields_globals<S: Simulation>(sim: &S, model: &str, precision: &str) -> Vec<Attr> {
    let info = sim.info();
    let spec = info.output.products();
    let mut attrs = globals(sim, model, precision, FIELDS_COMMENT);
    if !spec.gauges.is_empty() {
        attrs.push(Attr::text("gauges_file", gauges_file_name(&info.name)));
    }
    if !spec.lines.is_empty() {
        attrs.push(Attr::text("lines_file", lines_file_name(&info.name)));
    }
    if spec.maxima {
        attrs.push(Attr::text("maxima_file", maxima_file_name(&info.name)));
    }
    attrs
}
