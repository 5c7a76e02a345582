//! The solver registry's interface: what a solver offers the command line and the runner.
//! Each solver module has one `pub static SOLVER`, and the `solvers!` list in `lib.rs` is the
//! one place that names them all.

use crate::Result;
use crate::case::{CaseDoc, Flag};
use crate::run::Case;

pub trait Solver: Sync {
    /// The name case files give as `solver = "..."`.
    fn name(&self) -> &'static str;
    /// One line on what it solves.
    fn about(&self) -> &'static str;
    /// The command-line flags of its scenarios, each an override of case keys.
    fn flags(&self) -> &'static [Flag];
    /// Read and validate a case document of this solver.
    fn load(&self, doc: &CaseDoc) -> Result<Box<dyn Case>>;
}
