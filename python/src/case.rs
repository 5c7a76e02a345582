//! A case document from Python: read from a file, a scenario or text; its keys read and set as
//! case files hold them, each change validated by the case's solver; checked and run as the
//! command line checks and runs it.

use crate::errors::{IntoPy, refuse};
use crate::value;
use hydrokern::case::{CaseDoc, Origin, Writer, write_case};
use hydrokern::run::{Case, Console, RunOptions, interrupt};
use pyo3::prelude::*;
use std::path::PathBuf;

/// A plane of cells as Python receives it: (nx, ny, dx, dy, x0, y0).
type Plane = (usize, usize, f64, f64, f64, f64);

#[pyclass(module = "hydrokern._hydrokern", frozen)]
pub struct NativeCase {
    pub doc: std::sync::Mutex<CaseDoc>,
}

impl NativeCase {
    fn new(doc: CaseDoc) -> PyResult<NativeCase> {
        // A case that its solver refuses is refused here, in the solver's words.
        hydrokern::registry::load(&doc).py()?;
        Ok(NativeCase { doc: std::sync::Mutex::new(doc) })
    }

    /// A copy of the document.
    pub fn doc(&self) -> CaseDoc {
        self.doc.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The case loaded by its solver.
    pub fn load(&self) -> PyResult<Box<dyn Case>> {
        hydrokern::registry::load(&self.doc()).py()
    }
}

#[pymethods]
impl NativeCase {
    #[staticmethod]
    fn read(path: PathBuf) -> PyResult<NativeCase> {
        NativeCase::new(CaseDoc::read(&path).py()?)
    }

    #[staticmethod]
    fn scenario(name: &str) -> PyResult<NativeCase> {
        let Some(sc) = hydrokern::scenarios::find(name) else {
            return Err(refuse(format!("unknown scenario '{name}' (scenarios: {})", hydrokern::scenarios::names())));
        };
        NativeCase::new(sc.doc().py()?)
    }

    /// A case from TOML text; relative paths in it are read from `base` (the working
    /// directory by default), and `name` names its output directory (`out/<name>`).
    #[staticmethod]
    #[pyo3(signature = (text, name = "case", base = None))]
    fn parse(text: String, name: &str, base: Option<PathBuf>) -> PyResult<NativeCase> {
        if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
            return Err(refuse(format!("name '{name}': a case's name is a file stem, without a directory")));
        }
        let file = base.unwrap_or_default().join(format!("{name}.toml"));
        NativeCase::new(CaseDoc::parse(Origin::File(file), text).py()?)
    }

    /// An independent copy: changes to one do not reach the other.
    fn copy(&self) -> NativeCase {
        NativeCase { doc: std::sync::Mutex::new(self.doc()) }
    }

    #[getter]
    fn solver(&self) -> PyResult<String> {
        self.doc().solver().py()
    }

    #[getter]
    fn name(&self) -> String {
        self.doc().name()
    }

    #[getter]
    fn origin(&self) -> String {
        self.doc().origin().to_string()
    }

    /// The value at a dotted key, or None where the case does not set it.
    fn get<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.doc().get(key) {
            Some(text) => value::to_py(py, &text).map(Some),
            None => Ok(None),
        }
    }

    /// The plane of cells the case's fields live on, as (nx, ny, dx, dy, x0, y0) (x0, y0: the
    /// south-west corner), or None for a solver that steps no plane.
    fn grid(&self) -> PyResult<Option<Plane>> {
        let case = self.load()?;
        Ok(case.steppable().and_then(|s| match s.mesh() {
            hydrokern::grid::Mesh::Plane(g) => Some((g.nx, g.ny, g.dx, g.dy, g.origin.0, g.origin.1)),
            hydrokern::grid::Mesh::Volume(_) => None,
        }))
    }

    /// Whether the case holds the dotted key (a value or a table).
    fn has(&self, key: &str) -> bool {
        self.doc().has(key)
    }

    /// Set dotted keys together; the solver reads the changed case once, and changes it refuses
    /// are undone together (keys that only make sense together: an earlier end and its
    /// snapshots).
    fn set(&self, items: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<()> {
        let mut doc = self.doc();
        for (key, v) in &items {
            if key.is_empty() || key.split('.').any(str::is_empty) {
                return Err(refuse(format!("'{key}': a key is a dotted path such as grid.nx")));
            }
            let value = value::from_py(key, v)?;
            doc.set(key, value, &format!("case[\"{key}\"]")).py()?;
        }
        hydrokern::registry::load(&doc).py()?;
        *self.doc.lock().unwrap_or_else(|p| p.into_inner()) = doc;
        Ok(())
    }

    /// Remove a dotted key (the solver's default then holds); a removal it refuses is undone.
    fn remove(&self, key: &str) -> PyResult<()> {
        let mut doc = self.doc();
        doc.remove(key);
        hydrokern::registry::load(&doc).py()?;
        *self.doc.lock().unwrap_or_else(|p| p.into_inner()) = doc;
        Ok(())
    }

    /// The case as a case file holds it, with the changes made.
    fn text(&self) -> String {
        self.doc().text()
    }

    /// Write the case as a new case file at `path`, as `--write-case` does, with a built-in
    /// scenario's data files beside it; `fields` are files of the case's own to write beside
    /// it too, each (key, its name beside the case, bytes), the key naming it there. The case
    /// itself is unchanged. Returns the run directory the written case was given (where it set
    /// none) and the data files written.
    #[pyo3(signature = (path, force, fields))]
    fn write(
        &self,
        path: PathBuf,
        force: bool,
        fields: Vec<(String, String, Vec<u8>)>,
    ) -> PyResult<(Option<String>, Vec<PathBuf>)> {
        let mut doc = self.doc();
        let mut extra = Vec::with_capacity(fields.len());
        for (key, name, bytes) in fields {
            if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
                return Err(refuse(format!("Case.write: {name:?}: a file name beside the case is needed")));
            }
            doc.set(&key, name.as_str().into(), "Case.write").py()?;
            extra.push((PathBuf::from(name), bytes));
        }
        let header = |name: &str| {
            format!("# Written by hydrokern's Case.scenario({name:?}).write(); run it with `hydrokern run FILE`.")
        };
        let by = Writer { who: "Case.write", force: "force=True", header: &header };
        let written = write_case(&mut doc, &path, force, &extra, &by).py()?;
        Ok((written.output_dir, written.data))
    }

    /// What `hydrokern check` prints, a line each.
    fn check(&self) -> PyResult<Vec<String>> {
        hydrokern::run::check_report(self.load()?.as_ref()).py()
    }

    /// Run the case as `hydrokern run` does, writing its output directory (continuing from the
    /// checkpoint file `restart`, as `--restart`); Ctrl-C stops it at a step boundary with its
    /// outputs whole. Returns (directory, steps, time).
    #[pyo3(signature = (force, restart = None))]
    fn run(&self, py: Python<'_>, force: bool, restart: Option<PathBuf>) -> PyResult<(PathBuf, u64, f64)> {
        // A restart continues the checkpoint's case, as the command line's does: this case's
        // keys are the changes (a later end, say).
        let mut doc = self.doc();
        if let Some(path) = &restart {
            hydrokern::run::checkpoint::continue_case(&mut doc, path).py()?;
        }
        let case = hydrokern::registry::load(&doc).py()?;
        let opts = RunOptions { force, console: Console::new(), restart, catch_signals: false, view: None };
        let ran = crate::unsent::Unsent((case, opts));
        let outcome = py.detach(move || {
            let (case, opts) = ran.take();
            interrupt::within(|| case.run(&opts))
        });
        let outcome = outcome.py()?;
        Ok((outcome.dir, outcome.steps, outcome.t))
    }
}
