//! What a solver offers the registry that lists them (the `hydrokern` crate's `registry`): one
//! value of [`Solver`] per solver, read by the runner, the command line, the tuner, the
//! benchmarks and the products.

use crate::case::products::Spec;
use crate::case::{CaseDoc, Check, Flag};
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
    /// Whether its runs keep discharge lines (`[[output.lines]]`), besides the gauges and maps
    /// `products` says: a case of a solver without them is refused (the registry's check).
    pub lines: bool,
    /// Its search of launch parameters, if it has tunable kernels.
    pub tune: Option<TuneHook>,
    /// Its benchmark suite, if it has one (`hydrokern bench <name>`).
    #[cfg(feature = "bench")]
    pub bench: Option<crate::bench::Suite>,
}

/// Which gauges and maximum maps a solver's runs keep (its registry entry says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// None: a case that asks for them is refused.
    None,
    /// Gauges and maps, but its checkpoints do not hold them: a case may not ask for both
    /// products and checkpoints (a restart would begin them afresh).
    Kept,
    /// Gauges and maps, held by its checkpoints too (its models' `checkpoint`/`restore` call
    /// the products' `checkpoint` and `restore`).
    Checkpointed,
}

impl Support {
    /// Refuse, naming the key, what a case of `solver` asks for and `solver` does not keep:
    /// `spec` and checkpoints every `checkpoint_every`.
    pub fn check(self, solver: &str, spec: &Spec, checkpoint_every: Option<f64>, c: &Check) -> Result<()> {
        if spec.is_empty() {
            return Ok(());
        }
        let key = match (spec.gauges.is_empty(), spec.maxima) {
            (false, _) => "output.gauges",
            (true, true) => "output.maxima",
            (true, false) => "output.lines",
        };
        match self {
            Support::None => c.fail(key, format!("{solver} keeps no gauges or maximum maps")),
            Support::Kept if checkpoint_every.is_some() => c.fail(
                "output.checkpoint_every",
                format!("checkpoints of {solver} do not hold gauge records and maximum maps: leave out output.gauges and output.maxima to checkpoint this case (docs/products.md)"),
            ),
            Support::Kept | Support::Checkpointed => Ok(()),
        }
    }
}
