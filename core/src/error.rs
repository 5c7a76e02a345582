//! The library's errors, as values: every failure names what failed and, where it helps, what
//! to do about it.

use cudarc::driver::DriverError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No usable GPU: the driver library is missing, no device exists, or it is too old.
    #[error("no usable GPU: {0}")]
    NoGpu(String),
    /// A CUDA driver call failed.
    #[error("CUDA {call} failed: {source}")]
    Driver {
        call: &'static str,
        #[source]
        source: DriverError,
    },
    /// A kernel launch (or the kernel itself, reported at the next synchronisation) failed.
    /// The driver's error is part of the message, not a chained source, so it prints once.
    #[error("kernel {kernel} failed (grid {grid:?}, block {block:?}, {shared_bytes} B shared memory): {cause}")]
    Launch { kernel: String, grid: (u32, u32, u32), block: (u32, u32, u32), shared_bytes: u32, cause: DriverError },
    /// An allocation larger than the GPU's free memory.
    #[error(
        "{what} needs {need_mib:.1} MiB of GPU memory but only {free_mib:.1} MiB of {total_mib:.1} MiB are free; use a smaller size"
    )]
    OutOfMemory { what: String, need_mib: f64, free_mib: f64, total_mib: f64 },
    /// Bad input: sizes, lengths, parameters.
    #[error("{0}")]
    Invalid(String),
    /// A run stopped by SIGINT or SIGTERM at a step boundary, its outputs whole: the signal,
    /// and the line that says where it stopped.
    #[error("{message}")]
    Interrupted { signal: i32, message: String },
    /// A file could not be read or written. The cause is part of the message, not a chained
    /// source, so a one-line error report does not repeat it.
    #[error("{path}: {cause}")]
    Io { path: String, cause: std::io::Error },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::Invalid(message.into())
    }
}

/// Attaches the name of the driver call to a `DriverError`.
pub(crate) trait DriverContext<T> {
    fn call(self, call: &'static str) -> Result<T>;
}

impl<T> DriverContext<T> for std::result::Result<T, DriverError> {
    fn call(self, call: &'static str) -> Result<T> {
        self.map_err(|source| Error::Driver { call, source })
    }
}

/// Write `line` and a newline to standard error. A standard error that cannot be written (a
/// full disk, a closed descriptor) is ignored: what a run says there is for people, and losing it
/// must never stop the run or change how it ends.
pub fn warn(line: impl std::fmt::Display) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}").and_then(|_| err.flush());
}

/// Print `msg` as a one-line note on standard error, once per process: a fallback or a choice
/// the user should know of that is not an error (a tuning cache entry not used, a scheme chosen).
pub fn note(msg: &str) {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static SEEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    if let Ok(mut seen) = SEEN.lock()
        && seen.insert(msg.to_string())
    {
        warn(format_args!("note: {msg}"));
    }
}
