//! Reading users' files safely: only regular files, never more than a stated size, so that a
//! device (`/dev/zero`), a FIFO or a huge file given by mistake is refused at once instead of
//! reading until memory or patience runs out.

use crate::{Error, Result};
use std::io::Read;
use std::path::Path;

/// The size of `path` when it is a regular file of at most `max` bytes.
pub fn regular_file(path: &Path, max: u64, what: &str) -> Result<u64> {
    let io = |cause| Error::Io { path: path.display().to_string(), cause };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file (a device, FIFO or socket)" };
        return Err(Error::invalid(format!("{}: {kind}; a {what} must be a regular file", path.display())));
    }
    if meta.len() > max {
        return Err(Error::invalid(format!(
            "{}: {} bytes is more than a {what} may hold ({max} bytes)",
            path.display(),
            meta.len()
        )));
    }
    Ok(meta.len())
}

/// Read a UTF-8 text file of at most `max` bytes.
pub fn read_text(path: &Path, max: u64, what: &str) -> Result<String> {
    let len = regular_file(path, max, what)?;
    let io = |cause| Error::Io { path: path.display().to_string(), cause };
    let mut bytes = Vec::with_capacity(len as usize);
    // `take` guards against a file that grows while it is read.
    std::fs::File::open(path).map_err(io)?.take(max + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(Error::invalid(format!("{}: grew past {max} bytes while being read", path.display())));
    }
    String::from_utf8(bytes)
        .map_err(|_| Error::invalid(format!("{}: not UTF-8 text; a {what} is TOML text", path.display())))
}

/// Bytes of memory this machine can still give a new allocation (Linux: `MemAvailable`), or
/// `None` where that cannot be read.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A size in bytes as a person reads it: `512 B`, `3.4 MiB`, `2.76 GiB`.
pub fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let digits = if v < 10.0 {
        2
    } else if v < 100.0 {
        1
    } else {
        0
    };
    format!("{v:.digits$} {}", UNITS[unit])
}

/// Fail with one line when `bytes` of host memory for `what` would not fit in what this
/// machine has available.
pub fn check_host_memory(what: &str, bytes: u64) -> Result<()> {
    if let Some(avail) = available_memory()
        && bytes > avail
    {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        return Err(Error::invalid(format!(
            "{what} needs {:.1} GiB of host memory but only {:.1} GiB are available; use a smaller size",
            gib(bytes),
            gib(avail)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 << 20), "3.00 MiB");
        assert_eq!(bytes(468 << 20), "468 MiB");
        assert_eq!(bytes((2.76 * (1u64 << 30) as f64) as u64), "2.76 GiB");
    }
}
