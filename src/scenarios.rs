//! The built-in scenarios: the case files in `examples/`, embedded at build time. A scenario's
//! name is its file's stem; its solver and one-line description are keys of the file itself,
//! so adding a scenario means adding a file.

use crate::case::{CaseDoc, Origin};
use crate::run::Case;
use crate::solver::Solver;
use crate::{Error, Result, SOLVERS};

// `EXAMPLES: &[(&str, &str)]`: (name, text) of every `examples/*.toml` but the norms files;
// `EXAMPLE_DATA: &[(&str, &[u8])]`: (path under `examples/`, bytes) of every raster in
// `examples/data/`.
include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// One built-in scenario.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    pub name: &'static str,
    pub text: &'static str,
}

impl Scenario {
    /// The case document.
    pub fn doc(&self) -> Result<CaseDoc> {
        CaseDoc::parse(Origin::Builtin(self.name), self.text.to_string())
    }
    /// Its `description` key.
    pub fn description(&self) -> String {
        self.doc().ok().and_then(|d| d.top_str("description")).unwrap_or_default()
    }
    /// Its solver.
    pub fn solver(&self) -> Result<&'static Solver> {
        solver(&self.doc()?.solver()?)
    }
}

/// Every built-in scenario, in name order.
pub fn all() -> Vec<Scenario> {
    let mut v: Vec<Scenario> = EXAMPLES.iter().map(|&(name, text)| Scenario { name, text }).collect();
    v.sort_by_key(|s| s.name);
    v
}

/// The scenario called `name`.
pub fn find(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}

/// The bytes of `examples/<path>`, a data file of the built-in scenarios (`data/valley.tif`).
pub fn data_file(path: &str) -> Option<&'static [u8]> {
    EXAMPLE_DATA.iter().find(|(p, _)| *p == path).map(|&(_, bytes)| bytes)
}

/// The names, comma-separated, for messages.
pub fn names() -> String {
    all().iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// The solver called `name`.
pub fn solver(name: &str) -> Result<&'static Solver> {
    SOLVERS.iter().copied().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = SOLVERS.iter().map(|s| s.name).collect();
        Error::invalid(format!("unknown solver '{name}' (solvers: {})", known.join(", ")))
    })
}

/// Load a case document with its solver.
pub fn load(doc: &CaseDoc) -> Result<Box<dyn Case>> {
    let name = doc.solver()?;
    let s = solver(&name).map_err(|e| doc.invalid("solver", e))?;
    let case = (s.load)(doc)?;
    crate::solver::check_precision(s.name, case.info().run.precision)?;
    Ok(case)
}
