//! Kernel variants, selectable by name; each exists for both schemes.

use crate::{Error, Result};
use kernels::Entry;
use kernels::sediment::{
    B_H_BASELINE, B_H_MULTI, B_H_OPT1, B_H_OPT2, B_H_OPT3, B_S_BASELINE, B_S_MULTI, B_S_OPT1, B_S_OPT2, BC_H_BASELINE,
    BC_H_MULTI, BC_H_OPT1, BC_H_OPT2, BC_H_OPT3, H_BASELINE, H_MULTI, H_OPT1, H_OPT2, H_OPT3, HC_BASELINE, HC_MULTI,
    HC_OPT1, HC_OPT2, HC_OPT3, S_BASELINE, S_MULTI, S_OPT1, S_OPT2, StepBounded, StepH, StepS,
};

/// h-kernel variants (Su et al.'s baseline and OPT-1..3, and several rows per thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HVariant {
    Baseline,
    Opt1,
    Opt2,
    Opt3,
    Multi,
}

/// s-kernel variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SVariant {
    Baseline,
    Opt1,
    Opt2,
    Multi,
}

impl HVariant {
    pub const ALL: [HVariant; 5] =
        [HVariant::Baseline, HVariant::Opt1, HVariant::Opt2, HVariant::Opt3, HVariant::Multi];
    pub fn name(self) -> &'static str {
        match self {
            HVariant::Baseline => "baseline",
            HVariant::Opt1 => "opt1",
            HVariant::Opt2 => "opt2",
            HVariant::Opt3 => "opt3",
            HVariant::Multi => "multi",
        }
    }
    /// The kernel of this variant.
    pub fn entry(self) -> Entry<StepH<()>> {
        match self {
            HVariant::Baseline => H_BASELINE,
            HVariant::Opt1 => H_OPT1,
            HVariant::Opt2 => H_OPT2,
            HVariant::Opt3 => H_OPT3,
            HVariant::Multi => H_MULTI,
        }
    }
    /// The bounded scheme's kernel of this variant.
    pub fn bounded_entry(self) -> Entry<StepBounded<()>> {
        match self {
            HVariant::Baseline => B_H_BASELINE,
            HVariant::Opt1 => B_H_OPT1,
            HVariant::Opt2 => B_H_OPT2,
            HVariant::Opt3 => B_H_OPT3,
            HVariant::Multi => B_H_MULTI,
        }
    }
    /// The kernel of this variant with the compensated h update.
    pub fn compensated_entry(self) -> Entry<StepH<()>> {
        match self {
            HVariant::Baseline => HC_BASELINE,
            HVariant::Opt1 => HC_OPT1,
            HVariant::Opt2 => HC_OPT2,
            HVariant::Opt3 => HC_OPT3,
            HVariant::Multi => HC_MULTI,
        }
    }
    /// The bounded scheme's kernel of this variant with the compensated h update.
    pub fn bounded_compensated_entry(self) -> Entry<StepBounded<()>> {
        match self {
            HVariant::Baseline => BC_H_BASELINE,
            HVariant::Opt1 => BC_H_OPT1,
            HVariant::Opt2 => BC_H_OPT2,
            HVariant::Opt3 => BC_H_OPT3,
            HVariant::Multi => BC_H_MULTI,
        }
    }
}

impl SVariant {
    pub const ALL: [SVariant; 4] = [SVariant::Baseline, SVariant::Opt1, SVariant::Opt2, SVariant::Multi];
    pub fn name(self) -> &'static str {
        match self {
            SVariant::Baseline => "baseline",
            SVariant::Opt1 => "opt1",
            SVariant::Opt2 => "opt2",
            SVariant::Multi => "multi",
        }
    }
    /// The kernel of this variant.
    pub fn entry(self) -> Entry<StepS<()>> {
        match self {
            SVariant::Baseline => S_BASELINE,
            SVariant::Opt1 => S_OPT1,
            SVariant::Opt2 => S_OPT2,
            SVariant::Multi => S_MULTI,
        }
    }
    /// The bounded scheme's kernel of this variant.
    pub fn bounded_entry(self) -> Entry<StepBounded<()>> {
        match self {
            SVariant::Baseline => B_S_BASELINE,
            SVariant::Opt1 => B_S_OPT1,
            SVariant::Opt2 => B_S_OPT2,
            SVariant::Multi => B_S_MULTI,
        }
    }
}

/// How a whole step runs: an h-kernel then an s-kernel, or one fused pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepVariant {
    Split(HVariant, SVariant),
    /// Streamed by warps down the rows, h' in registers, x-neighbours by shuffle.
    Fused,
    /// h' on a haloed shared-memory tile (halo threads), then s'.
    FusedTile,
}

impl StepVariant {
    /// Every h variant (with s-opt1), every s variant (with h-opt1), and fused: each kernel
    /// at least once.
    pub fn covering() -> Vec<StepVariant> {
        let mut v: Vec<_> = HVariant::ALL.iter().map(|&h| StepVariant::Split(h, SVariant::Opt1)).collect();
        v.extend(
            SVariant::ALL.iter().filter(|&&s| s != SVariant::Opt1).map(|&s| StepVariant::Split(HVariant::Opt1, s)),
        );
        v.push(StepVariant::Fused);
        v.push(StepVariant::FusedTile);
        v
    }

    /// `"fused"` or `"<h>/<s>"`, e.g. `"opt3/opt1"`.
    pub fn name(self) -> String {
        match self {
            StepVariant::Fused => "fused".into(),
            StepVariant::FusedTile => "fused-tile".into(),
            StepVariant::Split(h, s) => format!("{}/{}", h.name(), s.name()),
        }
    }

    /// What `--variant` accepts, for help texts and errors.
    pub fn help() -> String {
        let h: Vec<_> = HVariant::ALL.iter().map(|v| v.name()).collect();
        let s: Vec<_> = SVariant::ALL.iter().map(|v| v.name()).collect();
        format!("fused, fused-tile, or <h>/<s> with h in {{{}}} and s in {{{}}}", h.join(", "), s.join(", "))
    }
}

impl std::str::FromStr for StepVariant {
    type Err = Error;
    fn from_str(name: &str) -> Result<StepVariant> {
        match name {
            "fused" => return Ok(StepVariant::Fused),
            "fused-tile" => return Ok(StepVariant::FusedTile),
            _ => {}
        }
        let bad = || Error::invalid(format!("unknown sediment variant '{name}' (expected {})", StepVariant::help()));
        let (h, s) = name.split_once('/').ok_or_else(bad)?;
        let h = HVariant::ALL.into_iter().find(|v| v.name() == h).ok_or_else(bad)?;
        let s = SVariant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(bad)?;
        Ok(StepVariant::Split(h, s))
    }
}
