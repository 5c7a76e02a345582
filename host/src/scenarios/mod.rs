//! The scenarios: runnable set-ups, one subcommand each (`hydrokern <scenario> --help`).
//!
//! A scenario is a module here with `#[derive(clap::Args)] pub struct Args` and
//! `pub fn run(args: &Args, backend: &Backend, precision: Precision) -> anyhow::Result<()>`;
//! it is listed in `SCENARIOS` and gets a variant in `main.rs`'s `Command`.

use anyhow::{Result, bail};

pub mod sediment;

pub mod fd3d;

/// (name, one line on what it simulates).
pub const SCENARIOS: &[(&str, &str)] =
    &[("fd3d", "8th-order periodic derivatives in x, y, z: error, time and bandwidth per variant")];

pub fn help_text() -> String {
    let mut s = String::from(
        "Scenarios (run as `hydrokern <scenario> [options]`, options in `hydrokern <scenario> --help`):\n",
    );
    if SCENARIOS.is_empty() {
        s += "  (none yet: the solvers add them)\n";
    }
    for (name, what) in SCENARIOS {
        s += &format!("  {name:<14} {what}\n");
    }
    s
}

/// A name that is neither a command nor a scenario.
pub fn unknown(name: &str) -> Result<()> {
    let names: Vec<&str> = SCENARIOS.iter().map(|s| s.0).collect();
    let list = if names.is_empty() { "none yet".to_string() } else { names.join(", ") };
    bail!("unknown scenario or command '{name}' (scenarios: {list}; commands: info, bench, scenarios; see --help)")
}
