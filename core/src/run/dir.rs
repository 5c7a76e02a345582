//! A run's output directory. Every file goes in whole or not at all (through
//! [`write_atomic`](crate::output::write_atomic)), and `hydrokern-run.json` lists what the run
//! wrote, with its settings and how it ended. A new run in the same directory first removes
//! what the previous run listed and the temporary files a killed run left, so a directory never
//! holds a mix of two runs; a directory holding files hydrokern did not write is refused unless
//! the user passes `--force` (those files are then left alone).
//!
//! One run at a time: a run holds `hydrokern-run.lock` in its directory (an exclusive lock on
//! the file, which holds its process id) from before it looks at the directory until it ends,
//! so a second run into the same directory is refused naming the first, instead of removing
//! that run's files while it writes them. The file goes when the run ends; a run killed without
//! removing it leaves a file no process locks, which the next run takes over (saying so).

use crate::ranks::parts;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The manifest's file name.
pub const MANIFEST: &str = "hydrokern-run.json";
/// The case as run, written into every run directory.
pub const CASE_FILE: &str = "case.toml";
/// The lock of the run that has the directory.
pub const LOCK_FILE: &str = "hydrokern-run.lock";

/// What `hydrokern-run.json` holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub hydrokern: String,
    pub revision: String,
    /// Where the case came from (a file or a built-in scenario).
    pub case: String,
    pub solver: String,
    pub backend: String,
    pub precision: String,
    /// "running", "finished", "interrupted", or why it stopped.
    pub status: String,
    /// The simulated time and the step a finished or interrupted run reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// Files of this run, relative to the directory.
    pub files: Vec<String>,
    /// The checkpoint a restarted run continued from, and its time and step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarted_from: Option<String>,
}

/// A prepared run directory.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    manifest: Manifest,
    /// Files written or grown since the last [`sync`](RunDir::sync).
    unsynced: Vec<String>,
    /// Held for as long as the run has the directory.
    _lock: Lock,
}

/// The exclusive lock on a run directory's [`LOCK_FILE`]; dropping it removes the file and
/// releases the lock.
#[derive(Debug)]
struct Lock {
    path: PathBuf,
    file: std::fs::File,
}

impl Lock {
    /// Lock `dir` for this process, or say which process has it.
    fn take(dir: &Path) -> Result<Lock> {
        use std::io::{Read, Seek, Write};
        use std::os::unix::fs::MetadataExt;
        let path = dir.join(LOCK_FILE);
        let ours = std::process::id();
        // A run that ends removes the file between another's open and its lock: that one then
        // holds a lock on a file no longer in the directory, and opens the new file again.
        for _ in 0..8 {
            let mut file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(io(&path))?;
            let mut held = String::new();
            let locked = match file.try_lock() {
                Ok(()) => true,
                Err(std::fs::TryLockError::WouldBlock) => false,
                // A file system without locks: the process id in the file decides.
                Err(std::fs::TryLockError::Error(_)) => {
                    let _ = file.read_to_string(&mut held);
                    !held.trim().parse::<u32>().is_ok_and(|pid| pid != ours && alive(pid))
                }
            };
            if held.is_empty() {
                let _ = file.read_to_string(&mut held);
            }
            let held = held.trim().to_string();
            if !locked {
                let who =
                    if held.is_empty() { String::from("another run") } else { format!("another run (pid {held})") };
                return Err(Error::invalid(format!(
                    "output directory {} is in use by {who}; wait for it to end, or choose another directory with --output",
                    dir.display()
                )));
            }
            let same = |m: &std::fs::Metadata, n: &std::fs::Metadata| m.dev() == n.dev() && m.ino() == n.ino();
            let now = std::fs::metadata(&path);
            if !now.is_ok_and(|n| file.metadata().is_ok_and(|m| same(&m, &n))) {
                continue;
            }
            if !held.is_empty() && held != ours.to_string() {
                crate::warn(format_args!(
                    "note: output directory {}: took over the lock left by run {held}, which is no longer running",
                    dir.display()
                ));
            }
            file.set_len(0)
                .and_then(|_| file.rewind())
                .and_then(|_| writeln!(file, "{ours}"))
                .and_then(|_| file.flush())
                .map_err(io(&path))?;
            return Ok(Lock { path, file });
        }
        Err(Error::invalid(format!("output directory {}: could not take its lock {LOCK_FILE}", dir.display())))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still locked, so that no other run locks the file on its way out.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Whether process `pid` exists (Linux: `/proc/<pid>`); true where that cannot be told.
fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |cause| Error::Io { path: path.display().to_string(), cause }
}

/// The time of a snapshot's file, `<name>_t<time>.<ext>` ([`time_tag`](super::time_tag)).
fn time_of(name: &str) -> Option<f64> {
    let (stem, _) = name.rsplit_once('.')?;
    stem.rsplit_once("_t")?.1.parse().ok()
}

/// A temporary file of `write_atomic`: `.<name>.tmp<pid>`.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.')
        && name.rsplit_once(".tmp").is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

impl RunDir {
    /// Make `path` ready for a new run (see the module's doc).
    pub fn prepare(path: &Path, force: bool, manifest: Manifest) -> Result<RunDir> {
        RunDir::open(path, force, manifest, None)
    }

    /// Make `path`, the directory of an interrupted run, ready for that run to go on from a
    /// checkpoint at time `t`: the files it wrote up to `t` are kept and stay listed (a restart
    /// does not write the snapshots before its checkpoint again); its files of later times
    /// (`<name>_t<time>.<ext>`) and its leftover temporary files go. The continued run writes
    /// the later snapshots it still has; one continued to a later end must not keep the state
    /// at the earlier end, which it passes by.
    pub fn resume(path: &Path, force: bool, manifest: Manifest, (t, steps): (f64, u64)) -> Result<RunDir> {
        RunDir::open(path, force, manifest, Some((t, steps)))
    }

    fn open(path: &Path, force: bool, manifest: Manifest, keep_to: Option<(f64, u64)>) -> Result<RunDir> {
        if path.exists() && !path.is_dir() {
            return Err(Error::invalid(format!("output directory {}: exists and is not a directory", path.display())));
        }
        std::fs::create_dir_all(path)
            .map_err(|cause| Error::Io { path: format!("output directory {}", path.display()), cause })?;
        let lock = Lock::take(path)?;
        let previous: Option<Manifest> =
            std::fs::read(path.join(MANIFEST)).ok().and_then(|b| serde_json::from_slice(&b).ok());
        let ours: Vec<String> = previous
            .iter()
            .flat_map(|m| m.files.iter().cloned())
            .chain([CASE_FILE.to_string(), MANIFEST.to_string()])
            .collect();
        // The previous run's files (unless kept) and every leftover temporary file go; anything
        // else is foreign.
        let (mut stale, mut foreign, mut kept) = (Vec::new(), Vec::new(), Vec::new());
        for entry in std::fs::read_dir(path).map_err(io(path))? {
            let name = entry.map_err(io(path))?.file_name().to_string_lossy().into_owned();
            if name == LOCK_FILE {
                continue;
            }
            let previous_run = previous.is_some() && ours.contains(&name);
            let later = keep_to.is_some_and(|(t, steps)| {
                time_of(&name).is_some_and(|at| at > t) || parts::steps_of(&name).is_some_and(|at| at > steps)
            });
            if keep_to.is_some() && previous_run && name != MANIFEST && !later {
                kept.push(name);
            } else if is_temporary(&name) || previous_run || parts::is_part(&name) {
                stale.push(name);
            } else {
                foreign.push(name);
            }
        }
        kept.sort();
        if !foreign.is_empty() && !force {
            foreign.sort();
            let more = if foreign.len() > 3 { format!(" and {} more", foreign.len() - 3) } else { String::new() };
            return Err(Error::invalid(format!(
                "output directory {} holds files this run would not own ({}{more}); choose another directory or pass --force",
                path.display(),
                foreign[..foreign.len().min(3)].join(", ")
            )));
        }
        for name in stale {
            let p = path.join(&name);
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
        let dir = RunDir {
            path: path.to_path_buf(),
            manifest: Manifest { status: "running".into(), files: kept, ..manifest },
            unsynced: Vec::new(),
            _lock: lock,
        };
        dir.save()?;
        Ok(dir)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write file `name` with `write` (given the full path; it must write atomically, as every
    /// writer in [`crate::output`] does), listed in the manifest first, so that a rerun removes
    /// it even when this run is killed while writing it (a listed file that is not there is
    /// simply not found).
    pub fn write(&mut self, name: &str, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
        self.list(name)?;
        let written = write(&self.path.join(name));
        self.unlist_missing(written, [name])
    }

    /// [`write`](Self::write) of several files at once, each on its own thread (large fields
    /// reach the page cache faster side by side); the first error, if any, once all are done.
    pub fn write_each<I: Sync>(
        &mut self,
        items: &[(String, I)],
        write: impl Fn(&Path, &I) -> Result<()> + Sync,
    ) -> Result<()> {
        for (name, _) in items {
            self.list(name)?;
        }
        let (dir, write) = (&self.path, &write);
        let written = std::thread::scope(|s| {
            let threads: Vec<_> =
                items.iter().map(|(name, item)| s.spawn(move || write(&dir.join(name), item))).collect();
            let results: Vec<Result<()>> = threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|_| Err(Error::invalid("a file writer thread panicked"))))
                .collect();
            results.into_iter().collect()
        });
        self.unlist_missing(written, items.iter().map(|(name, _)| name.as_str()))
    }

    /// After a failed write (`written`), take the names of files that are not there out of the
    /// manifest again (saved with the run's status at its end: a full disk may have no room
    /// for it now); `written` itself.
    fn unlist_missing<'n>(&mut self, written: Result<()>, names: impl IntoIterator<Item = &'n str>) -> Result<()> {
        if written.is_err() {
            for name in names {
                if !self.path.join(name).exists() {
                    self.manifest.files.retain(|f| f != name);
                }
            }
        }
        written
    }

    /// List file `name` in the manifest, then hand its full path to `grow`: for the one file a
    /// run appends to rather than writes whole (the NetCDF file).
    pub fn append(&mut self, name: &str, grow: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
        self.list(name)?;
        grow(&self.path.join(name))
    }

    /// List files that others wrote into the directory (every rank its part of a checkpoint):
    /// a rerun removes them.
    pub fn list_all(&mut self, names: &[String]) -> Result<()> {
        names.iter().try_for_each(|n| self.list(n))
    }

    /// Remove the checkpoint parts in the directory of step `steps` or before but those of
    /// `keep` (the set the checkpoint at `steps` lists), and take them out of the manifest. Parts
    /// of later steps are those of checkpoints the model has taken since, which are on their
    /// way to the writer.
    pub fn remove_parts_but(&mut self, keep: &[String], steps: u64) -> Result<()> {
        let mut gone = false;
        for entry in std::fs::read_dir(&self.path).map_err(io(&self.path))? {
            let name = entry.map_err(io(&self.path))?.file_name().to_string_lossy().into_owned();
            if parts::steps_of(&name).is_some_and(|at| at <= steps) && !keep.contains(&name) {
                let p = self.path.join(&name);
                std::fs::remove_file(&p).map_err(io(&p))?;
                self.manifest.files.retain(|f| *f != name);
                gone = true;
            }
        }
        if gone { self.save() } else { Ok(()) }
    }

    /// Put `name` in the manifest (saving it when the name is new) and among the files to sync.
    fn list(&mut self, name: &str) -> Result<()> {
        if !self.unsynced.iter().any(|f| f == name) {
            self.unsynced.push(name.to_string());
        }
        if !self.manifest.files.iter().any(|f| f == name) {
            self.manifest.files.push(name.to_string());
            self.save()?;
        }
        Ok(())
    }

    /// Sync to disk every file written or grown since the last sync, the manifest and the
    /// directory (its names): after this, a crash of the machine loses nothing written so far.
    /// Files are not synced one by one as they are written, which would bind a run to the
    /// disk's speed.
    pub fn sync(&mut self) -> Result<()> {
        for name in std::mem::take(&mut self.unsynced).into_iter().chain([MANIFEST.to_string()]) {
            let p = self.path.join(&name);
            match std::fs::File::open(&p) {
                Ok(f) => f.sync_all().map_err(io(&p))?,
                // Listed, then not written (the write failed and said so).
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&p)(e)),
            }
        }
        std::fs::File::open(&self.path).and_then(|d| d.sync_all()).map_err(io(&self.path))
    }

    /// Record the simulated time and the step the run reached, with how it ends.
    pub fn reached(&mut self, t: f64, step: u64) {
        self.manifest.t = Some(t);
        self.manifest.step = Some(step);
    }

    /// Record how the run ended, and sync what it wrote.
    pub fn finish(&mut self, status: &str) -> Result<()> {
        self.manifest.status = status.to_string();
        self.save()?;
        self.sync()
    }

    fn save(&self) -> Result<()> {
        let json = serde_json::to_vec_pretty(&self.manifest).map_err(|e| Error::invalid(format!("manifest: {e}")))?;
        crate::output::write_atomic(&self.path.join(MANIFEST), &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hydrokern-rundir-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_rerun_replaces_the_previous_run_and_its_leftovers() {
        let d = scratch("rerun");
        let mut a = RunDir::prepare(&d, false, Manifest::default()).unwrap();
        a.write("h_t1.npy", |p| crate::output::write_atomic(p, b"one")).unwrap();
        a.write("old.png", |p| crate::output::write_atomic(p, b"two")).unwrap();
        // A run killed while writing leaves a temporary file.
        std::fs::write(d.join(".h_t2.npy.tmp12345"), b"partial").unwrap();
        drop(a);
        let mut b = RunDir::prepare(&d, false, Manifest::default()).unwrap();
        assert_eq!(names(&d), [MANIFEST, LOCK_FILE]);
        b.write("h_t1.npy", |p| crate::output::write_atomic(p, b"new")).unwrap();
        b.finish("finished").unwrap();
        drop(b);
        assert_eq!(names(&d), ["h_t1.npy", MANIFEST]);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn foreign_files_need_force_and_are_kept() {
        let d = scratch("foreign");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("notes.txt"), b"mine").unwrap();
        let e = RunDir::prepare(&d, false, Manifest::default()).unwrap_err().to_string();
        assert!(e.contains("notes.txt") && e.contains("--force"), "{e}");
        drop(RunDir::prepare(&d, true, Manifest::default()).unwrap());
        assert_eq!(names(&d), [MANIFEST, "notes.txt"]);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_resumed_run_keeps_what_the_interrupted_run_wrote() {
        let d = scratch("resume");
        let mut a = RunDir::prepare(&d, false, Manifest::default()).unwrap();
        a.write("h_t1.npy", |p| crate::output::write_atomic(p, b"one")).unwrap();
        a.write("checkpoint.hkc", |p| crate::output::write_atomic(p, b"state")).unwrap();
        // Written after the checkpoint's time (1): the continued run writes it again, if at all.
        a.write("h_t1.5.npy", |p| crate::output::write_atomic(p, b"later")).unwrap();
        std::fs::write(d.join(".h_t2.npy.tmp12345"), b"partial").unwrap();
        drop(a);
        let mut b = RunDir::resume(&d, false, Manifest::default(), (1.0, 1)).unwrap();
        assert_eq!(names(&d), ["checkpoint.hkc", "h_t1.npy", MANIFEST, LOCK_FILE]);
        b.write("h_t2.npy", |p| crate::output::write_atomic(p, b"two")).unwrap();
        let m: Manifest = serde_json::from_slice(&std::fs::read(d.join(MANIFEST)).unwrap()).unwrap();
        assert_eq!(m.files, ["checkpoint.hkc", "h_t1.npy", "h_t2.npy"]);
        assert_eq!(m.status, "running");
        drop(b);
        // Files no run of hydrokern wrote are still refused without --force.
        std::fs::write(d.join("notes.txt"), b"mine").unwrap();
        assert!(RunDir::resume(&d, false, Manifest::default(), (1.0, 1)).is_err());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_appended_file_is_listed_before_it_grows() {
        let d = scratch("append");
        let mut a = RunDir::prepare(&d, false, Manifest::default()).unwrap();
        // The run dies while the file grows: it is listed all the same, so a rerun removes it.
        let killed = a.append("run.nc", |p| {
            std::fs::write(p, b"CDF\x02partial").unwrap();
            Err(Error::invalid("killed"))
        });
        assert!(killed.is_err());
        drop(a);
        drop(RunDir::prepare(&d, false, Manifest::default()).unwrap());
        assert_eq!(names(&d), [MANIFEST]);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn files_written_side_by_side_are_all_listed_and_synced() {
        let d = scratch("each");
        let mut a = RunDir::prepare(&d, false, Manifest::default()).unwrap();
        let items: Vec<(String, u8)> = (0..4).map(|k| (format!("f{k}.bin"), k)).collect();
        a.write_each(&items, |p, &k| crate::output::write_atomic(p, &[k; 3])).unwrap();
        for (name, k) in &items {
            assert_eq!(std::fs::read(d.join(name)).unwrap(), [*k; 3]);
        }
        // One writer fails: the others still land, the error comes back, and syncing skips
        // the file that was listed but never written.
        let failing = [("g0.bin".to_string(), 0u8), ("g1.bin".to_string(), 1)];
        let r = a.write_each(&failing, |p, &k| {
            if k == 1 { Err(Error::invalid("no room")) } else { crate::output::write_atomic(p, b"ok") }
        });
        assert!(r.unwrap_err().to_string().contains("no room"));
        a.finish("finished").unwrap();
        let m: Manifest = serde_json::from_slice(&std::fs::read(d.join(MANIFEST)).unwrap()).unwrap();
        assert_eq!(m.files, ["f0.bin", "f1.bin", "f2.bin", "f3.bin", "g0.bin"], "the file not written is unlisted");
        assert!(a.unsynced.is_empty());
        drop(a);
        assert_eq!(names(&d), ["f0.bin", "f1.bin", "f2.bin", "f3.bin", "g0.bin", MANIFEST]);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn one_run_at_a_time_and_a_dead_run_s_lock_is_taken_over() {
        let d = scratch("lock");
        let a = RunDir::prepare(&d, false, Manifest::default()).unwrap();
        let pid = std::process::id();
        assert_eq!(std::fs::read_to_string(d.join(LOCK_FILE)).unwrap().trim(), pid.to_string());
        for second in
            [RunDir::prepare(&d, false, Manifest::default()), RunDir::resume(&d, true, Manifest::default(), (1.0, 1))]
        {
            let e = second.unwrap_err().to_string();
            assert!(
                e.contains(&d.display().to_string()) && e.contains(&format!("in use by another run (pid {pid})")),
                "{e}"
            );
        }
        drop(a);
        assert!(!d.join(LOCK_FILE).exists());
        // What a killed run leaves: the file, unlocked, naming a process that is gone.
        std::fs::write(d.join(LOCK_FILE), b"4194304999\n").unwrap();
        let b = RunDir::resume(&d, false, Manifest::default(), (1.0, 1)).unwrap();
        assert_eq!(std::fs::read_to_string(d.join(LOCK_FILE)).unwrap().trim(), pid.to_string());
        drop(b);
        assert_eq!(names(&d), [MANIFEST]);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn times_of_snapshot_files() {
        assert_eq!(time_of("h_t0.25.npy"), Some(0.25));
        assert_eq!(time_of("last_good_h_t30.npy"), Some(30.0));
        assert_eq!(time_of("deposit_t26992.418014816285.png"), Some(26992.418014816285));
        assert_eq!(time_of("gauge_tide.csv"), None);
        assert_eq!(time_of("deposit.gif"), None);
        assert_eq!(time_of(CHECKPOINT), None);
    }

    const CHECKPOINT: &str = "checkpoint.hkc";

    #[test]
    fn temporary_names() {
        assert!(is_temporary(".h.npy.tmp42"));
        assert!(!is_temporary(".h.npy.tmp"));
        assert!(!is_temporary("h.npy.tmp42"));
        assert!(!is_temporary(".tmpfoo"));
    }
}
