//! How a step adds its increment to h, selectable by name (`numerics.accumulation`,
//! `--accumulation`): docs/f32-conservation.md says why the f32 default is compensated.

use crate::{Error, Real, Result};

/// How h' = h + Δh is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Accumulation {
    /// In f32, h is kept as a pair (high, low) of fields and each step adds its increment to
    /// the pair exactly (TwoSum): the basin's volume follows the supply to round-off of the
    /// total, however many steps. f64 runs the plain update (its round-off is 2²⁹ times
    /// smaller; the pair would cost bandwidth for nothing).
    #[default]
    Compensated,
    /// h' = h + Δh rounded to the precision: in f32, increments near h's unit round-off are
    /// partly lost, and the volume error grows with the step count.
    Plain,
}

impl Accumulation {
    pub const ALL: [Accumulation; 2] = [Accumulation::Compensated, Accumulation::Plain];
    pub fn name(self) -> &'static str {
        match self {
            Accumulation::Compensated => "compensated",
            Accumulation::Plain => "plain",
        }
    }
    /// Whether a run in precision `T` keeps the low part of h: compensated, and narrower than f64.
    pub fn compensates<T: Real>(self) -> bool {
        self == Accumulation::Compensated && std::mem::size_of::<T>() < 8
    }
    /// What a run in precision `T` does, for summaries: "compensated" or "plain".
    pub fn effective<T: Real>(self) -> &'static str {
        if self.compensates::<T>() { "compensated" } else { "plain" }
    }
}

impl std::str::FromStr for Accumulation {
    type Err = Error;
    fn from_str(name: &str) -> Result<Accumulation> {
        Accumulation::ALL.into_iter().find(|a| a.name() == name).ok_or_else(|| {
            Error::invalid(format!("unknown h accumulation '{name}' (expected compensated or plain)"))
        })
    }
}
