//! Output files, written whole or not at all.

use crate::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees a partial file and a failed run leaves the previous file in place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |source| Error::Io { path: path.display().to_string(), source };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| Error::invalid(format!("{} is not a file name", path.display())))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Fail before any work when `path` cannot be written (its directory is missing or read-only).
pub fn check_writable(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let probe = dir.join(format!(".hydrokern-write-probe{}", std::process::id()));
    std::fs::File::create(&probe).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
