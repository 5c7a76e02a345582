//! PyClaw's time-step control as both references and the GPU's host side see it: its
//! parameters ([`Cfl`]), a run's clock ([`Clock`], the slots of `kernels::claw::clock`, whose
//! point functions take the decisions here and in the device's control kernel alike) and an
//! accepted step ([`Step`]).

use crate::model::Halt;
use crate::{Error, Result};
use kernels::claw::clock::{
    self, CLOCK_CFL, CLOCK_DT, CLOCK_LAST_CFL, CLOCK_LAST_DT, CLOCK_LAST_REJECTED, CLOCK_LEN, CLOCK_NEXT,
    CLOCK_REJECTED, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Control, NON_FINITE, RUNNING,
};

/// Time-step control, PyClaw's: the CFL number of a step is the largest Δt·|s|/Δx over every
/// wave of every sweep; a step above `cfl_max` is rejected and redone, and the next Δt is
/// Δt·`cfl_desired`/CFL.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cfl {
    pub desired: f64,
    pub max: f64,
}

impl Default for Cfl {
    fn default() -> Self {
        Cfl { desired: 0.9, max: 1.0 }
    }
}

/// One accepted step: its Δt and CFL number, and the steps rejected before it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub dt: f64,
    pub cfl: f64,
    pub rejected: u32,
}

/// A run's clock (time, steps, the Δt the next step tries, rejections), in the slots of
/// `kernels::claw::clock`, whose point functions take PyClaw's decisions here and in the
/// device's control kernel alike.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    pub slots: [f64; CLOCK_LEN],
}

impl Clock {
    /// At time `t`, the first step to try `dt`.
    pub fn start(t: f64, dt: f64) -> Clock {
        Clock { slots: clock::start(t, dt) }
    }
    pub fn time(&self) -> f64 {
        self.slots[CLOCK_T]
    }
    pub fn steps(&self) -> u64 {
        self.slots[CLOCK_STEPS] as u64
    }
    /// The Δt the next step tries (before the cut to the stop time).
    pub fn next_dt(&self) -> f64 {
        self.slots[CLOCK_NEXT]
    }
    pub fn set_next_dt(&mut self, dt: f64) {
        self.slots[CLOCK_NEXT] = dt;
    }
    /// Steps rejected in all.
    pub fn rejected(&self) -> u64 {
        self.slots[CLOCK_REJECTED] as u64
    }
    /// The last accepted step.
    pub fn last(&self) -> Step {
        Step {
            dt: self.slots[CLOCK_LAST_DT],
            cfl: self.slots[CLOCK_LAST_CFL],
            rejected: self.slots[CLOCK_LAST_REJECTED] as u32,
        }
    }
    /// Why the run stopped stepping, if it did: a wave speed that is not finite, or steps
    /// rejected [`clock::MAX_REJECTS`] times in a row.
    pub fn halt(&self) -> Option<Halt> {
        match self.slots[CLOCK_STATUS] as u32 {
            RUNNING => None,
            NON_FINITE => Some(Halt::NonFinite),
            _ => Some(Halt::Rejected { times: clock::MAX_REJECTS }),
        }
    }

    /// The message for a run of solver `name` that halted.
    pub fn halt_message(&self, name: &str) -> String {
        format!(
            "claw {name}: step {} at t = {:.6e} s: {} (CFL {:e})",
            self.steps() + 1,
            self.time(),
            self.halt().map_or_else(String::new, |h| h.to_string()),
            self.slots[CLOCK_CFL]
        )
    }

    /// One accepted step towards `t_end` (the last cut to land on it): `trial(Δt)` takes a step
    /// of Δt and returns its rate, the largest max|s|/Δ over its sweeps; a step whose CFL number
    /// Δt·rate exceeds `cfl.max` is rejected and tried again with Δt·desired/CFL
    /// ([`clock::judge`]). A trial's error (a blow-up) ends it, as does a halt.
    pub fn step(
        &mut self,
        cfl: Cfl,
        t_end: f64,
        name: &str,
        mut trial: impl FnMut(f64) -> Result<f64>,
    ) -> Result<Step> {
        let c = Control { desired: cfl.desired, max: cfl.max, t_stop: t_end, sweeps: 2, judge: 1 };
        loop {
            clock::arm(&c, &mut self.slots);
            let dt = self.slots[CLOCK_DT];
            if self.halt().is_some() {
                return Err(Error::invalid(self.halt_message(name)));
            }
            if dt <= 0.0 {
                return Err(Error::invalid(format!(
                    "claw: no time left to step (t = {} s, end {t_end} s)",
                    self.time()
                )));
            }
            let rate = trial(dt)?;
            if clock::judge(&c, &mut self.slots, rate) {
                return Ok(self.last());
            }
            if self.halt().is_some() {
                return Err(Error::invalid(self.halt_message(name)));
            }
        }
    }
}
