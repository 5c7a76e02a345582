//! How a solver's time step adds its increment to the level it conserves (sediment's h, the
//! shallow-water surface w), selectable by name (`numerics.accumulation`, `--accumulation`):
//! docs/f32-conservation.md says why the f32 default is compensated.

use crate::case::{Flag, Set};
use crate::{Error, Precision, Real, Result};

/// How the level' = level + increment is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Accumulation {
    /// In f32, the level is kept as a pair (high, low) of fields and each step adds its
    /// increment to the pair exactly (TwoSum): the volume follows the fluxes to round-off of the
    /// total, however many steps. f64 runs the plain update (its round-off is 2²⁹ times
    /// smaller; the pair would cost bandwidth for nothing).
    #[default]
    Compensated,
    /// level' = level + increment rounded to the precision: in f32, increments near the level's
    /// unit round-off are partly lost, and the volume error grows with the step count.
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
    /// Whether a run in precision `T` keeps the low part: compensated, and narrower than f64.
    pub fn compensates<T: Real>(self) -> bool {
        self.compensates_in(if std::mem::size_of::<T>() < 8 { Precision::F32 } else { Precision::F64 })
    }
    /// [`compensates`](Self::compensates) for a precision chosen at run time.
    pub fn compensates_in(self, precision: Precision) -> bool {
        self == Accumulation::Compensated && precision.bytes() < 8
    }
    /// What a run in precision `T` does, for summaries: "compensated" or "plain".
    pub fn effective<T: Real>(self) -> &'static str {
        if self.compensates::<T>() { "compensated" } else { "plain" }
    }
    /// The default's name, for the case files' `numerics.accumulation`.
    pub fn default_name() -> String {
        Accumulation::default().name().into()
    }
    /// The command-line flag of `numerics.accumulation`, the same for every solver that has it.
    pub const FLAG: Flag = Flag::new(
        "accumulation",
        "HOW",
        Set::Text("numerics.accumulation"),
        "how f32 adds each step to the level it conserves (h, w): compensated (default; a low-part field keeps the volume to round-off) or plain (one field, faster; loses increments near the level's round-off)",
    );
}

impl std::str::FromStr for Accumulation {
    type Err = Error;
    fn from_str(name: &str) -> Result<Accumulation> {
        Accumulation::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| Error::invalid(format!("unknown accumulation '{name}' (expected compensated or plain)")))
    }
}
