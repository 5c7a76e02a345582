//! A run's plan, worked out from the case before it starts: the steps it takes and the memory
//! its solver needs. `hydrokern check` prints the plan and every run starts only within it
//! ([`check`]): the one check both make, so they never disagree.

use super::{Case, Needs, Simulation};
use crate::case::count;
use crate::{Error, Result};

/// What a run will do, before it starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Steps to the end; `None` for a solver that computes once.
    pub steps: Option<f64>,
    /// What the estimate of `steps` rests on, for `check` ("from the initial wave speeds").
    pub basis: &'static str,
    /// The solver's host and GPU memory.
    pub needs: Needs,
}

/// The plan of a simulation: steps from the solver's estimate (exact for a run of a number of
/// steps).
pub fn simulation<S: Simulation>(sim: &S) -> Plan {
    let info = sim.info();
    let steps = match sim.times().steps {
        Some(n) => n as f64,
        None => sim.estimate_steps(),
    };
    Plan { steps: Some(steps), basis: sim.steps_basis(), needs: sim.needs(info.run.precision) }
}

/// The plan of a solver that computes once: no steps.
pub fn once(case: &dyn Case) -> Plan {
    Plan { steps: None, basis: "", needs: case.needs(case.info().run.precision) }
}

/// The plan of `case`, refused in one line when the run would pass a limit: more steps than
/// `run.max_steps`, more host memory than this machine has available. `check` prints what this
/// returns; `run` starts with it.
pub fn check(case: &dyn Case) -> Result<Plan> {
    let plan = case.plan();
    let info = case.info();
    let name = &info.name;
    if let Some(steps) = plan.steps
        && steps > info.run.max_steps as f64
    {
        let basis = if plan.basis.is_empty() { String::new() } else { format!(" ({})", plan.basis) };
        return Err(Error::invalid(format!(
            "{name}: this run needs about {} steps{basis}, more than run.max_steps = {}; raise the limit with --max-steps (or run.max_steps) if that is what you want",
            count(steps),
            count(info.run.max_steps as f64),
        )));
    }
    crate::files::check_host_memory(&format!("{name} in {}", info.run.precision), plan.needs.host)?;
    Ok(plan)
}

impl Plan {
    /// The plan in `check`'s words: the steps (nothing for a solver that computes once).
    pub fn describe(&self) -> String {
        match self.steps {
            Some(n) if self.basis.is_empty() => format!("about {} steps", count(n)),
            Some(n) => format!("about {} steps ({})", count(n), self.basis),
            None => String::new(),
        }
    }
}
