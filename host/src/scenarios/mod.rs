//! The scenarios: runnable set-ups, one subcommand each (`hydrokern <scenario> --help`).
//!
//! A scenario is a module here with `#[derive(clap::Args)] pub struct Args` and
//! `pub fn run(args: &Args, backend: &Backend, precision: Precision) -> anyhow::Result<()>`;
//! it is listed in `SCENARIOS` and gets a variant in `main.rs`'s `Command`.

use anyhow::{Result, bail};

pub mod sediment;

pub mod fd3d;

pub mod kp;
pub mod tridiag;

/// (name, one line on what it simulates).
pub const SCENARIOS: &[(&str, &str)] = &[
    ("fd3d", "8th-order periodic derivatives in x, y, z: error, time and bandwidth per variant"),
    ("tridiag", "a batch of tridiagonal systems (generated or NPY): time and residual ‖Ax − d‖/‖d‖ (seed 001)"),
    ("dam-break", "circular dam break, 40 m × 40 m, R = 2.5 m, 2.5 m inside, 0.5 m (or --dry) outside (seed 003)"),
    ("flood", "flooding dam break, 100 m × 100 m, R = 6.5 m, 10 m inside, dry outside, to t = 4 s (seed 003)"),
    ("gaussian", "a Gaussian hump of water on a lake over a sloping bed, with Manning friction (seed 003)"),
    ("sine", "a sine wave in x on a flat bed with walls, Δx = 1 m, to t = 5 s (seed 003)"),
    ("lake-at-rest", "a still lake over uneven bathymetry with dry islands: stays at rest (seed 003)"),
];

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
