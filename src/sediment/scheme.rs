//! The two discretisations, selectable by name (`numerics.scheme`, `--scheme`).

use crate::{Error, Result};

/// Which discretisation a run uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheme {
    /// Upwind-capped face mobilities (docs/sediment-bounded.md): 0 ≤ s ≤ 1 under its Δt limit.
    #[default]
    Bounded,
    /// Su et al.'s scheme as the paper has it (h then s from h'); s can leave [0, 1].
    Seed,
}

impl Scheme {
    pub const ALL: [Scheme; 2] = [Scheme::Bounded, Scheme::Seed];
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bounded => "bounded",
            Scheme::Seed => "seed",
        }
    }
    /// The kernels' code for it (`Coeffs::scheme`).
    pub fn code(self) -> u32 {
        match self {
            Scheme::Bounded => kernels::sediment::BOUNDED,
            Scheme::Seed => kernels::sediment::SEED,
        }
    }
}

impl std::str::FromStr for Scheme {
    type Err = Error;
    fn from_str(name: &str) -> Result<Scheme> {
        Scheme::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| Error::invalid(format!("unknown sediment scheme '{name}' (expected bounded or seed)")))
    }
}
