//! The tuning cache: one JSON file in the user's cache directory holding, per GPU, the
//! configurations a search found. An entry is used only when its key — GPU name, compute
//! capability, multiprocessors, driver, hydrokern's version and a hash of the PTX the library
//! loads — matches the running one exactly; anything else is ignored with a one-line note, and
//! a file that cannot be read is treated as empty.

use crate::{Error, Precision, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file's format; a file of another format is ignored (and replaced by the next `tune`).
pub const FORMAT: u32 = 1;
/// The file in the cache directory.
pub const FILE_NAME: &str = "tuning.json";
/// A cache file larger than this is not read (it is a few KiB).
const MAX_BYTES: u64 = 4 << 20;

/// What an entry is valid for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    pub gpu: String,
    pub cc: (i32, i32),
    pub sm_count: u32,
    pub driver: String,
    pub version: String,
    /// FNV-1a 64 of the PTX module's text, hex.
    pub ptx: String,
}

impl Key {
    /// Whether `self` names the same device (name, compute capability, multiprocessors).
    pub fn same_gpu(&self, other: &Key) -> bool {
        self.gpu == other.gpu && self.cc == other.cc && self.sm_count == other.sm_count
    }
    /// What differs from `want`, for the note.
    fn difference(&self, want: &Key) -> String {
        let mut d = Vec::new();
        if self.ptx != want.ptx {
            d.push(format!("other PTX ({} ≠ {})", self.ptx, want.ptx));
        }
        if self.version != want.version {
            d.push(format!("hydrokern {} (this is {})", self.version, want.version));
        }
        if self.driver != want.driver {
            d.push(format!("driver {} (this is {})", self.driver, want.driver));
        }
        d.join(", ")
    }
}

/// One configuration a search chose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The solver ("kp", "sediment", "fd3d", "tridiag").
    pub solver: String,
    /// What was timed ("rk2 step", "fused step", a variant, a layout).
    pub kernel: String,
    pub precision: Precision,
    /// The problem size it was timed on (points per dimension; tridiag: n, batch).
    pub size: Vec<u64>,
    /// The configurations as the solver writes them, and their median times.
    pub default: String,
    pub best: String,
    pub default_ms: f64,
    pub best_ms: f64,
}

impl Record {
    /// Default time over best time (≥ 1 when the search found something at least as fast).
    pub fn gain(&self) -> f64 {
        self.default_ms / self.best_ms
    }
}

/// Everything one search stored for one GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub key: Key,
    /// When the search ran (RFC 3339, UTC), and how long it took.
    pub tuned_at: String,
    pub elapsed_s: f64,
    pub records: Vec<Record>,
}

impl Entry {
    /// The record of `solver`'s `kernel` in `precision`.
    pub fn find(&self, solver: &str, kernel: &str, precision: Precision) -> Option<&Record> {
        self.records.iter().find(|r| r.solver == solver && r.kernel == kernel && r.precision == precision)
    }
    /// Every record of `solver` in `precision`.
    pub fn of<'a>(&'a self, solver: &'a str, precision: Precision) -> impl Iterator<Item = &'a Record> + 'a {
        self.records.iter().filter(move |r| r.solver == solver && r.precision == precision)
    }
    /// The geometric mean of the records' gains (1 when there are none).
    pub fn mean_gain(&self) -> f64 {
        let g: Vec<f64> = self.records.iter().map(Record::gain).filter(|g| g.is_finite() && *g > 0.0).collect();
        if g.is_empty() { 1.0 } else { (g.iter().map(|g| g.ln()).sum::<f64>() / g.len() as f64).exp() }
    }
}

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheFile {
    pub format: u32,
    pub entries: Vec<Entry>,
}

/// The cache directory: `$HYDROKERN_CACHE_DIR`, else `$XDG_CACHE_HOME/hydrokern` (an absolute
/// path, as the XDG specification asks), else `$HOME/.cache/hydrokern`; None when none is set.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    cache_dir_from(var("HYDROKERN_CACHE_DIR"), var("XDG_CACHE_HOME"), var("HOME"))
}

/// [`cache_dir`] from the three variables' values.
fn cache_dir_from(own: Option<PathBuf>, xdg: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    own.or_else(|| xdg.filter(|p| p.is_absolute()).map(|p| p.join("hydrokern")))
        .or_else(|| home.map(|h| h.join(".cache").join("hydrokern")))
}

/// The cache file's path.
pub fn cache_path() -> Option<PathBuf> {
    cache_dir().map(|d| d.join(FILE_NAME))
}

/// Parse a cache file's text: Err with the reason when it is not a cache file of this format.
pub fn parse(text: &str) -> std::result::Result<CacheFile, String> {
    let file: CacheFile = serde_json::from_str(text).map_err(|e| format!("not a tuning cache ({e})"))?;
    if file.format != FORMAT {
        return Err(format!("format {} (this hydrokern reads {FORMAT})", file.format));
    }
    Ok(file)
}

/// Read the cache at `path`: a missing file is empty; an unreadable, corrupt or truncated one
/// is empty with a note saying so (never an error: a run goes on with the defaults).
pub fn read(path: &Path) -> (CacheFile, Option<String>) {
    let empty = CacheFile { format: FORMAT, entries: Vec::new() };
    if !path.exists() {
        return (empty, None);
    }
    let note = |why: String| Some(format!("tuning cache {}: {why}; using the defaults", path.display()));
    match crate::files::read_text(path, MAX_BYTES, "tuning cache") {
        Err(e) => (empty, note(e.to_string())),
        Ok(text) => match parse(&text) {
            Ok(f) => (f, None),
            Err(why) => (empty, note(why)),
        },
    }
}

/// The entry of `file` for `want`, or None with the note when an entry for this GPU exists but
/// was made for other PTX, another version or driver (entries of other GPUs are left alone
/// silently: one cache may serve several machines).
pub fn lookup<'a>(file: &'a CacheFile, want: &Key) -> (Option<&'a Entry>, Option<String>) {
    if let Some(e) = file.entries.iter().find(|e| &e.key == want) {
        return (Some(e), None);
    }
    let stale = file.entries.iter().find(|e| e.key.same_gpu(want)).map(|e| {
        format!(
            "the tuning cache's entry for {} was made for {}: ignored, using the defaults (run `hydrokern tune`)",
            want.gpu,
            e.key.difference(want)
        )
    });
    (None, stale)
}

/// `file` with `entry` in place of any entry for the same GPU.
pub fn with_entry(mut file: CacheFile, entry: Entry) -> CacheFile {
    file.format = FORMAT;
    file.entries.retain(|e| !e.key.same_gpu(&entry.key));
    file.entries.push(entry);
    file
}

/// Store `entry` in the cache at `path` (atomically: a reader sees the old file or the new one,
/// never half of one), keeping the other GPUs' entries of a readable file.
pub fn store(path: &Path, entry: Entry) -> Result<()> {
    let (file, _) = read(path);
    let file = with_entry(file, entry);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|cause| Error::Io { path: dir.display().to_string(), cause })?;
    }
    let text = serde_json::to_string_pretty(&file).map_err(|e| Error::invalid(format!("tuning cache: {e}")))?;
    crate::output::write_atomic(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(gpu: &str, ptx: &str) -> Key {
        Key {
            gpu: gpu.into(),
            cc: (9, 0),
            sm_count: 132,
            driver: "12.8".into(),
            version: "0.1.0".into(),
            ptx: ptx.into(),
        }
    }

    fn entry(k: Key, best: &str) -> Entry {
        Entry {
            key: k,
            tuned_at: "2026-11-23T22:00:00Z".into(),
            elapsed_s: 100.0,
            records: vec![Record {
                solver: "kp".into(),
                kernel: "rk2 step".into(),
                precision: Precision::F32,
                size: vec![4096, 4096],
                default: "32x8 stream:4x32".into(),
                best: best.into(),
                // Times as CUDA events give them: read back bit for bit (serde_json's
                // `float_roundtrip`; without it 0.013631999958306553 comes back as …551).
                default_ms: 1.2,
                best_ms: 0.013631999958306553,
            }],
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hydrokern-tune-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn the_directory_follows_the_variables() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(cache_dir_from(p("/own"), p("/xdg"), p("/home/u")), p("/own"));
        assert_eq!(cache_dir_from(None, p("/xdg"), p("/home/u")), p("/xdg/hydrokern"));
        // A relative XDG_CACHE_HOME is invalid by the specification: ignored.
        assert_eq!(cache_dir_from(None, p("rel"), p("/home/u")), p("/home/u/.cache/hydrokern"));
        assert_eq!(cache_dir_from(None, None, None), None);
    }

    #[test]
    fn stored_entries_read_back_and_replace_their_gpus_only() {
        let d = dir("roundtrip");
        let path = d.join(FILE_NAME);
        store(&path, entry(key("H100", "aa"), "64x4 tile")).unwrap();
        store(&path, entry(key("H200", "aa"), "32x8 tile")).unwrap();
        store(&path, entry(key("H100", "bb"), "128x2 tile")).unwrap();
        let (f, note) = read(&path);
        assert_eq!(note, None);
        assert_eq!(f.entries.len(), 2);
        let (e, note) = lookup(&f, &key("H100", "bb"));
        assert_eq!(note, None);
        let e = e.unwrap();
        assert_eq!(e, &entry(key("H100", "bb"), "128x2 tile"));
        assert_eq!(e.find("kp", "rk2 step", Precision::F32).unwrap().best, "128x2 tile");
        assert!(e.find("kp", "rk2 step", Precision::F64).is_none());
        assert!((e.mean_gain() - 1.2 / 0.013631999958306553).abs() < 1e-9);
        // No temporary file left behind.
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_entry_for_other_ptx_is_ignored_with_a_note_and_other_gpus_silently() {
        let f = with_entry(CacheFile::default(), entry(key("H100", "aa"), "64x4 tile"));
        let (e, note) = lookup(&f, &key("H100", "bb"));
        assert!(e.is_none());
        let note = note.unwrap();
        assert!(note.contains("other PTX (aa ≠ bb)") && !note.contains('\n'), "{note}");
        let (e, note) = lookup(&f, &key("A100", "aa"));
        assert!(e.is_none() && note.is_none());
        let mut other_version = key("H100", "aa");
        other_version.version = "0.2.0".into();
        assert!(lookup(&f, &other_version).1.unwrap().contains("hydrokern 0.1.0"));
    }

    #[test]
    fn corrupt_truncated_or_foreign_files_read_as_empty_with_one_line() {
        let d = dir("corrupt");
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join(FILE_NAME);
        store(&path, entry(key("H100", "aa"), "64x4 tile")).unwrap();
        let whole = std::fs::read_to_string(&path).unwrap();
        for (what, text) in [
            ("truncated", whole[..whole.len() / 2].to_string()),
            ("garbage", "\u{0}\u{1}not json".to_string()),
            ("other format", whole.replace("\"format\": 1", "\"format\": 99")),
            ("wrong shape", "[1, 2, 3]".to_string()),
        ] {
            std::fs::write(&path, &text).unwrap();
            let (f, note) = read(&path);
            assert!(f.entries.is_empty(), "{what}");
            let note = note.unwrap_or_else(|| panic!("{what}: no note"));
            assert!(!note.contains('\n') && note.contains("using the defaults"), "{what}: {note}");
        }
        // A corrupt file is replaced by the next store.
        store(&path, entry(key("H100", "aa"), "64x4 tile")).unwrap();
        assert_eq!(read(&path).0.entries.len(), 1);
        // A directory where the file should be: a note, not a panic.
        let as_dir = d.join("dir.json");
        std::fs::create_dir_all(&as_dir).unwrap();
        assert!(read(&as_dir).1.is_some());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_file_is_empty_without_a_note() {
        let (f, note) = read(Path::new("/nonexistent/hydrokern/tuning.json"));
        assert!(f.entries.is_empty() && note.is_none());
    }
}
