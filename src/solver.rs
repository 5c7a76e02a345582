//! The solver registry's entry: what a solver offers the command line and the runner. Each
//! solver module has one `pub static SOLVER`, and the `solvers!` list in `lib.rs` is the one
//! place that names them all.

use crate::case::{CaseDoc, Flag};
use crate::run::Case;
use crate::{Error, Precision, Result, SOLVERS};

pub struct Solver {
    /// The name case files give as `solver = "..."`.
    pub name: &'static str,
    /// One line on what it solves.
    pub about: &'static str,
    /// The command-line flags of its scenarios, each an override of case keys.
    pub flags: &'static [Flag],
    /// Its benchmark suite, if it has one (`hydrokern bench <name>`).
    #[cfg(feature = "bench")]
    pub bench: Option<crate::bench::Suite>,
    /// Read and validate a case document of this solver.
    pub load: fn(&CaseDoc) -> Result<Box<dyn Case>>,
    /// Whether it runs [`Precision::Mixed`].
    pub mixed: bool,
}

/// Refuse a precision `solver` does not run, in one line: mixed is for the solvers that have it.
pub fn check_precision(solver: &str, precision: Precision) -> Result<()> {
    if precision != Precision::Mixed || SOLVERS.iter().any(|s| s.name == solver && s.mixed) {
        return Ok(());
    }
    let with: Vec<&str> = SOLVERS.iter().filter(|s| s.mixed).map(|s| s.name).collect();
    Err(Error::invalid(format!("precision mixed is available for: {}; {solver} runs f32 or f64", with.join(", "))))
}
