//! Files written whole or not at all: each goes to a temporary name beside its own and takes
//! its name only once complete, so a killed run or a full disk never leaves a half-written
//! result that a later script would mistake for a good one.

use crate::{Error, Result};
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees a partial file and a failed or killed run leaves the previous file in
/// place. The file is not synced to disk here: a killed process cannot lose what it wrote, and
/// a run syncs its files at checkpoints and at its end ([`crate::run::RunDir::sync`]), not at
/// every snapshot, which would bind the run to the disk's speed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// [`write_atomic`] of `parts` one after the other, large ones by several threads at once
/// ([`write_pieces_at`]): a snapshot's fields.
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<()> {
    let mut at = 0u64;
    let pieces: Vec<(u64, &[u8])> = parts
        .iter()
        .map(|p| {
            at += p.len() as u64;
            (at - p.len() as u64, *p)
        })
        .collect();
    atomic(path, false, |f| write_pieces_at(f, &pieces))
}

/// [`write_atomic`] of what `write` writes to the (buffered) temporary file: for files too
/// large to assemble in memory first.
pub fn write_atomic_with(path: &Path, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    atomic(path, false, |f| buffered(f, write))
}

/// [`write_atomic_with`], with the file synced to disk before it takes the name: for a
/// checkpoint, which must survive a crash of the machine whole if it replaces the last one.
pub fn write_atomic_synced_with(path: &Path, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    atomic(path, true, |f| buffered(f, write))
}

fn buffered(f: &File, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let mut b = std::io::BufWriter::new(f);
    write(&mut b)?;
    b.flush()
}

/// The name `path` is written under before it takes its own: `.<name>.tmp<pid>` beside it, so
/// the rename stays on one file system and a run's leftovers are known by their form.
fn temporary(path: &Path) -> Result<std::path::PathBuf> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| Error::invalid(format!("{} is not a file name", path.display())))?;
    Ok(dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id())))
}

fn atomic(path: &Path, synced: bool, write: impl FnOnce(&File) -> std::io::Result<()>) -> Result<()> {
    let io = |cause| Error::Io { path: path.display().to_string(), cause };
    let tmp = temporary(path)?;
    let result = (|| {
        let f = File::create(&tmp)?;
        write(&f)?;
        if synced {
            f.sync_all()?;
        }
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// [`write_atomic`] to a name that must not exist yet: the file is written under a temporary
/// name and then linked to `path`, which fails when something took the name meanwhile, so
/// nothing already there is ever replaced. A file system without hard links gets a rename
/// after a last look.
pub fn write_atomic_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let exists = || Error::invalid(format!("{}: already exists", path.display()));
    let tmp = temporary(path)?;
    if let Err(cause) = std::fs::write(&tmp, bytes) {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Io { path: path.display().to_string(), cause });
    }
    let linked = match std::fs::hard_link(&tmp, path) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(exists()),
        Err(_) if std::fs::symlink_metadata(path).is_ok() => Err(exists()),
        Err(_) => std::fs::rename(&tmp, path).map_err(|cause| Error::Io { path: path.display().to_string(), cause }),
        Ok(()) => Ok(()),
    };
    let _ = std::fs::remove_file(&tmp);
    linked
}

/// Bytes one thread writes of a large write at most, unless that would take more than
/// [`WRITERS`] threads. The disk the lent GPUs write to took 1.4 GiB/s from one `dd` stream,
/// 2.2 from four writing one file and 5.9 from four writing four files (docs/output.md): one
/// stream cannot keep up with a 4096² run's snapshots, and writers to one file share its
/// lock, so a snapshot's fields also go to their files side by side.
pub const WRITE_PIECE: usize = 16 << 20;
/// Threads a large write is split over at most.
pub const WRITERS: usize = 8;

/// Write each `(offset, bytes)` of `pieces` to `file` at its offset: a large one in pieces of
/// [`WRITE_PIECE`] bytes or more, written by threads of their own, the small ones here. An
/// error is returned once every thread is done; the file's other bytes are then unknown.
pub fn write_pieces_at(file: &File, pieces: &[(u64, &[u8])]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let total: usize = pieces.iter().map(|(_, b)| b.len()).sum();
    let piece = WRITE_PIECE.max(total.div_ceil(WRITERS));
    std::thread::scope(|s| {
        let mut threads = Vec::new();
        for &(at, bytes) in pieces {
            if bytes.len() < WRITE_PIECE {
                file.write_all_at(bytes, at)?;
                continue;
            }
            for (k, part) in bytes.chunks(piece).enumerate() {
                threads.push(s.spawn(move || file.write_all_at(part, at + (k * piece) as u64)));
            }
        }
        // The scope joins the threads not joined here before it returns.
        threads
            .into_iter()
            .try_for_each(|t| t.join().unwrap_or_else(|_| Err(std::io::Error::other("a writer thread panicked"))))
    })
}

/// Fail before any work when `path` cannot be written (its directory is missing or read-only).
pub fn check_writable(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let probe = dir.join(format!(".hydrokern-write-probe{}", std::process::id()));
    std::fs::File::create(&probe).map_err(|cause| Error::Io { path: dir.display().to_string(), cause })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh, empty scratch directory for one test (tests run in parallel threads of one
    /// process: the name carries the test's tag and the process id).
    fn test_dir(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("hydrokern-atomic-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create test dir");
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn write_atomic_replaces_whole_file() {
        let dir = test_dir("atomic-ok");
        let path = dir.join("a.txt");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(entries(&dir), ["a.txt"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn write_atomic_new_never_replaces_a_name() {
        let dir = test_dir("atomic-new");
        let path = dir.join("a.txt");
        write_atomic_new(&path, b"first").unwrap();
        let e = write_atomic_new(&path, b"second").unwrap_err().to_string();
        assert!(e.contains("already exists"), "{e}");
        std::os::unix::fs::symlink("nowhere", dir.join("link")).unwrap();
        assert!(write_atomic_new(&dir.join("link"), b"x").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert_eq!(entries(&dir), ["a.txt", "link"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn write_atomic_fails_cleanly() {
        let dir = test_dir("atomic-fail");
        // The directory does not exist: nothing can be created.
        let missing = dir.join("missing").join("a.txt");
        assert!(matches!(write_atomic(&missing, b"x"), Err(Error::Io { .. })));
        assert!(!dir.join("missing").exists());
        // The target is a directory: the temporary file is written, the rename fails, and the
        // temporary file must be gone afterwards.
        let target = dir.join("sub");
        std::fs::create_dir(&target).unwrap();
        assert!(matches!(write_atomic(&target, b"x"), Err(Error::Io { .. })));
        assert_eq!(entries(&dir), ["sub"]);
        assert!(entries(&target).is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn check_writable_reports_missing_dir() {
        let dir = test_dir("writable");
        assert!(check_writable(&dir.join("a.txt")).is_ok());
        assert!(check_writable(&dir.join("missing").join("a.txt")).is_err());
        assert!(entries(&dir).is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
