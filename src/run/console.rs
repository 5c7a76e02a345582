//! What a run prints. Progress goes to standard output; when that fails (a closed pipe, a full
//! disk) the run goes on and writes its results, saying once on standard error that its
//! progress lines are lost. Printing never panics and never changes the run.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Standard output for progress lines.
#[derive(Debug, Default)]
pub struct Console {
    lost: AtomicBool,
}

impl Console {
    pub fn new() -> Console {
        Console::default()
    }

    /// Print one line; after the first failure, print nothing more.
    pub fn say(&self, line: impl std::fmt::Display) {
        if self.lost.load(Ordering::Relaxed) {
            return;
        }
        let mut out = std::io::stdout().lock();
        if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
            self.lost.store(true, Ordering::Relaxed);
            let _ = writeln!(
                std::io::stderr(),
                "note: standard output failed ({e}); the run goes on without progress lines"
            );
        }
    }

    /// Whether a line could not be printed.
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }
}
