//! Printing what a command exists to print (lists, reports, help): a failure to write standard
//! output (a full disk, a closed pipe) is an error and a non-zero exit, never a panic.

use anyhow::{Context, Result};
use std::io::Write;

/// Print `text` and a newline to standard output.
pub fn out(text: impl std::fmt::Display) -> Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(o, "{text}").and_then(|_| o.flush()).context("writing to standard output")
}

/// Print what clap has to say (a help or version text on standard output, a usage error on
/// standard error) and return the exit status that goes with it: clap's own, or 1 when a help
/// or version text could not be written.
pub fn clap_message(e: &clap::Error) -> u8 {
    let printed = e.print().and_then(|_| std::io::stdout().flush());
    match printed {
        Err(err) if !e.use_stderr() => {
            hydrokern::warn(format_args!("error: writing to standard output: {err}"));
            1
        }
        _ => u8::try_from(e.exit_code()).unwrap_or(1),
    }
}
