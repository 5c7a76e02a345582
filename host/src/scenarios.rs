//! The scenarios: runnable set-ups, one subcommand each. Later solvers add theirs here.

use anyhow::{Result, bail};
use hydrokern::{BackendChoice, Precision};
use std::ffi::OsString;

/// (name, one line on what it simulates).
pub const SCENARIOS: &[(&str, &str)] = &[];

pub fn help_text() -> String {
    let mut s = String::from("Scenarios (run as `hydrokern <scenario> [options]`):\n");
    if SCENARIOS.is_empty() {
        s += "  (none yet: the solvers add them)\n";
    }
    for (name, what) in SCENARIOS {
        s += &format!("  {name:<14} {what}\n");
    }
    s
}

pub fn run(name: &str, _args: &[OsString], _choice: BackendChoice, _precision: Precision) -> Result<()> {
    let names: Vec<&str> = SCENARIOS.iter().map(|s| s.0).collect();
    let list = if names.is_empty() { "none yet".to_string() } else { names.join(", ") };
    bail!("unknown scenario or command '{name}' (scenarios: {list}; commands: info, bench, scenarios; see --help)")
}
