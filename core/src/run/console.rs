//! What a run prints. Progress goes to standard output: plain lines, one per report, or — when
//! standard output is a terminal and the run is not one of several ranks — one bar with the ETA,
//! redrawn in place (`\r`) and cleared before any other line. When printing fails (a closed pipe, a full disk) the run goes on and
//! writes its results, saying once on standard error that its progress lines are lost.
//! Printing never panics and never changes the run.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Cells of the progress bar.
const BAR: usize = 24;
/// Erase the terminal's current line and return to its start.
const CLEAR: &str = "\r\x1b[2K";

/// Standard output for progress lines.
#[derive(Debug, Default)]
pub struct Console {
    lost: AtomicBool,
    /// Draw a bar instead of printing progress lines.
    bar: bool,
    /// Whether a bar is on the screen (to clear before the next line).
    shown: AtomicBool,
}

impl Console {
    /// A bar when standard output is a terminal, plain lines otherwise (a pipe, a file, a test).
    /// On several ranks plain lines always: Open MPI gives each rank a pseudo-terminal whether
    /// or not its own output goes to one, and a job's log is a file more often than not.
    pub fn new() -> Console {
        Console::with_bar(std::io::stdout().is_terminal() && crate::ranks::world().is_none())
    }

    /// A bar (`bar`) or plain lines, whatever standard output is.
    pub fn with_bar(bar: bool) -> Console {
        Console { bar, ..Console::default() }
    }

    /// Whether progress shows as a bar.
    pub fn is_bar(&self) -> bool {
        self.bar
    }

    /// Print one line (clearing a bar first); after the first failure, print nothing more.
    pub fn say(&self, line: impl std::fmt::Display) {
        let clear = if self.shown.swap(false, Ordering::Relaxed) { CLEAR } else { "" };
        self.print(&format!("{clear}{line}\n"));
    }

    /// Report progress: `fraction` of the run done, `eta` seconds left (NaN when unknown);
    /// `short` is what the bar shows beside them, `line` the whole progress line.
    pub fn progress(&self, fraction: f64, eta: f64, short: &str, line: &str) {
        let text = self.render(fraction, eta, short, line);
        self.shown.store(self.bar, Ordering::Relaxed);
        self.print(&text);
    }

    /// End a bar's line, so that what follows starts on a line of its own.
    pub fn end_progress(&self) {
        if self.shown.swap(false, Ordering::Relaxed) {
            self.print("\n");
        }
    }

    /// What [`progress`](Self::progress) prints.
    fn render(&self, fraction: f64, eta: f64, short: &str, line: &str) -> String {
        if !self.bar {
            return format!("{line}\n");
        }
        let f = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
        let full = (f * BAR as f64).round() as usize;
        let bar: String = "█".repeat(full) + &"░".repeat(BAR - full);
        format!("{CLEAR}[{bar}] {:>3.0}%  {short}  ETA {}", 100.0 * f, eta_text(eta))
    }

    fn print(&self, text: &str) {
        if self.lost.load(Ordering::Relaxed) {
            return;
        }
        let mut out = std::io::stdout().lock();
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
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

/// Seconds left as a person reads them: "42 s", "3 min 05 s", "2 h 07 min"; "?" when unknown.
fn eta_text(secs: f64) -> String {
    if !(secs.is_finite() && secs >= 0.0) {
        return "?".into();
    }
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "[ 50%] step       10  t = 5.000000e-1 s  Δt = 5.000e-2  mass 1  0.1 s, ETA 0.1 s";

    #[test]
    fn plain_lines_unless_asked_for_a_bar() {
        // The default (tests, library callers) and a console that is not a terminal: the line
        // as it is, on a line of its own.
        for c in [Console::default(), Console::with_bar(false)] {
            assert!(!c.is_bar());
            assert_eq!(c.render(0.5, 0.1, "step 10", LINE), format!("{LINE}\n"));
        }
    }

    #[test]
    fn a_bar_redraws_in_place_with_the_eta() {
        let c = Console::with_bar(true);
        let bar = c.render(0.5, 125.0, "step 10  t = 5e-1 s", LINE);
        assert!(bar.starts_with(CLEAR) && !bar.contains('\n'), "{bar:?}");
        assert!(bar.contains(&format!("[{}{}]  50%", "█".repeat(12), "░".repeat(12))), "{bar}");
        assert!(bar.ends_with("step 10  t = 5e-1 s  ETA 2 min 05 s"), "{bar}");
        assert!(c.render(f64::NAN, f64::NAN, "", "").ends_with("ETA ?"));
        assert!(c.render(2.0, 0.0, "", "").contains(&"█".repeat(BAR)));
    }

    #[test]
    fn eta_reads_as_time() {
        assert_eq!(eta_text(0.4), "0 s");
        assert_eq!(eta_text(59.6), "1 min 00 s");
        assert_eq!(eta_text(7620.0), "2 h 07 min");
        assert_eq!(eta_text(-1.0), "?");
        assert_eq!(eta_text(f64::INFINITY), "?");
    }
}
