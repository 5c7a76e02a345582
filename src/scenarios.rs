//! The built-in scenarios: the case files in `examples/`, embedded at build time. A scenario's
//! name is its file's stem; its solver and one-line description are keys of the file itself,
//! so adding a scenario means adding a file.

use crate::case::{CaseDoc, Origin};
use crate::solver::Solver;
use crate::{Result, registry};

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
        CaseDoc::parse(Origin::Builtin { name: self.name, data: EXAMPLE_DATA }, self.text.to_string())
    }
    /// Its `description` key.
    pub fn description(&self) -> String {
        self.doc().ok().and_then(|d| d.top_str("description")).unwrap_or_default()
    }
    /// Its solver.
    pub fn solver(&self) -> Result<&'static Solver> {
        registry::solver(&self.doc()?.solver()?)
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

/// The names, comma-separated, for messages.
pub fn names() -> String {
    all().iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// The scenarios of `solver`.
pub fn of(solver: &str) -> Vec<Scenario> {
    all().into_iter().filter(|s| s.doc().and_then(|d| d.solver()).is_ok_and(|n| n == solver)).collect()
}
