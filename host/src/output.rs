//! Printing what a command exists to print (lists, reports): a failure to write standard output
//! (a full disk, a closed pipe) is an error and a non-zero exit, never a panic.

use anyhow::{Context, Result};
use std::io::Write;

/// Print `text` and a newline to standard output.
pub fn out(text: impl std::fmt::Display) -> Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(o, "{text}").and_then(|_| o.flush()).context("writing to standard output")
}
