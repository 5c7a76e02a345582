//! What a solver offers the registry that lists them (the `hydrokern` crate's `registry`): one
//! value of [`Solver`] per solver, read by the runner, the command line, the tuner, the
//! benchmarks and the products.

use crate::case::{CaseDoc, Flag};
use crate::products::Support;
use crate::run::Case;
use crate::tune::{TuneOptions, Tuned};
use crate::{Gpu, Precision, Result};

/// A solver's search of its tunable kernels on `gpu` in one precision (`hydrokern tune`).
pub type TuneHook = fn(&Gpu, &TuneOptions, Precision) -> Result<Tuned>;

pub struct Solver {
    /// The name case files give as `solver = "..."`.
    pub name: &'static str,
    /// One line on what it solves.
    pub about: &'static str,
    /// The command-line flags of its scenarios, each an override of case keys.
    pub flags: &'static [Flag],
    /// Read and validate a case document of this solver.
    pub load: fn(&CaseDoc) -> Result<Box<dyn Case>>,
    /// Whether it runs [`Precision::Mixed`].
    pub mixed: bool,
    /// Which gauges and maximum maps its runs keep.
    pub products: Support,
    /// Its search of launch parameters, if it has tunable kernels.
    pub tune: Option<TuneHook>,
    /// Its benchmark suite, if it has one (`hydrokern bench <name>`).
    #[cfg(feature = "bench")]
    pub bench: Option<crate::bench::Suite>,
}
