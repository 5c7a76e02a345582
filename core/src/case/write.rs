//! Writing a case as a new case file, with the data files it names beside it: the command
//! line's `--write-case` and Python's `Case.write`.

use super::{CaseDoc, Origin};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Who writes, for the messages: the caller's name (`--write-case`, `Case.write`), how it is
/// told to replace an existing file (`--force`, `force=True`), and the comment a scenario's
/// case starts with.
pub struct Writer<'a> {
    pub who: &'a str,
    pub force: &'a str,
    /// For a built-in scenario `name`: the first line of its written case.
    pub header: &'a dyn Fn(&str) -> String,
}

/// What [`write_case`] wrote besides the case: the run directory it gave the case (where the
/// case named none), and the data files.
#[derive(Debug, Default)]
pub struct Written {
    pub output_dir: Option<String>,
    pub data: Vec<PathBuf>,
}

/// Write `doc` to `path` as a new case file, whole or not at all, with `extra` data files
/// (paths relative to the case's directory, bytes) and a built-in scenario's data files beside
/// it, where its relative paths point. A name that is not a regular file (a symbolic link, a
/// FIFO, a device, a directory) is refused, and an existing file is replaced only with `force`.
/// A case file's relative paths to the files it read (its recorded inputs: load it first) are
/// rewritten to name the same files from the new case's directory, so the written case reads
/// what its source read wherever it is written. The written case gets a run directory of its
/// own, named after the file, unless one was set (`output.dir` changed): a case that kept its
/// source's would replace the source's results when it runs. The data come first and the case
/// last, so a case on disk always finds its data; what this call created is removed again if
/// the case cannot be written.
pub fn write_case(
    doc: &mut CaseDoc,
    path: &Path,
    force: bool,
    extra: &[(PathBuf, Vec<u8>)],
    by: &Writer,
) -> Result<Written> {
    let (who, shown) = (by.who, path.display());
    let refuse = |why: String| Error::invalid(format!("{who} {shown}: {why}"));
    let exists = match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            let t = meta.file_type();
            let kind = if t.is_symlink() {
                "a symbolic link"
            } else if t.is_dir() {
                "a directory"
            } else if !t.is_file() {
                "not a regular file (a device, FIFO or socket)"
            } else if force {
                ""
            } else {
                return Err(refuse(format!("the file exists; pass {} to replace it, or give another name", by.force)));
            };
            if !kind.is_empty() {
                return Err(refuse(format!("{kind}; a case is written only to a regular file")));
            }
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(refuse(e.to_string())),
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let scenario = doc.named_data().into_iter().map(|(rel, bytes)| (PathBuf::from(rel), bytes, "scenario's"));
    let named = extra.iter().map(|(rel, bytes)| (rel.clone(), bytes.as_slice(), "case's")).chain(scenario);
    let data = missing_data(named, base, &refuse)?;
    follow_inputs(doc, base);
    let mut written = Written::default();
    if !doc.is_overridden("output.dir") {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "case".into());
        let dir = Path::new("out").join(stem).to_string_lossy().into_owned();
        doc.set("output.dir", dir.as_str().into(), who)?;
        written.output_dir = Some(dir);
    }
    let mut text = doc.text();
    if let Origin::Builtin { name, .. } = doc.origin() {
        text = format!("{}\n{text}", (by.header)(name));
    }
    let (mut created, mut dirs) = (Vec::new(), Vec::new());
    let result = data
        .iter()
        .try_for_each(|(at, bytes)| {
            if let Some(dir) = at.parent() {
                create_dirs(dir, &mut dirs).map_err(|e| refuse(format!("{}: {e}", dir.display())))?;
            }
            crate::atomic::write_atomic_new(at, bytes).map_err(|e| refuse(e.to_string()))?;
            created.push(at.clone());
            Ok(())
        })
        .and_then(|()| {
            if exists {
                crate::atomic::write_atomic(path, text.as_bytes())
            } else {
                crate::atomic::write_atomic_new(path, text.as_bytes()).map_err(|e| match e {
                    Error::Io { .. } => Error::invalid(format!("{who} {e}")),
                    _ => Error::invalid(format!("{who} {e}; pass {} to replace it, or give another name", by.force)),
                })
            }
        });
    if let Err(e) = result {
        created.iter().for_each(|f| drop(std::fs::remove_file(f)));
        dirs.iter().rev().for_each(|d| drop(std::fs::remove_dir(d)));
        return Err(e);
    }
    written.data = created;
    Ok(written)
}

/// For a case file written into another directory than its own: each relative path by which it
/// read a file (among its recorded inputs) named again from `dir`, by a relative path between
/// the two directories' canonical forms (absolute where they share no root). Nothing changes
/// where either directory cannot be resolved (the write then fails on it) or they are one.
fn follow_inputs(doc: &mut CaseDoc, dir: &Path) {
    if !matches!(doc.origin, Origin::File(_)) {
        return;
    }
    let read: std::collections::HashSet<String> = doc.inputs.list().into_iter().map(|f| f.path).collect();
    let from = doc.base_dir();
    let resolve = |d: &Path| std::fs::canonicalize(if d.as_os_str().is_empty() { Path::new(".") } else { d }).ok();
    let (Some(old), Some(new)) = (resolve(&from), resolve(dir)) else { return };
    if read.is_empty() || old == new {
        return;
    }
    let mut moved = |s: &str| {
        let rel = Path::new(s);
        let at = from.join(rel);
        if !rel.is_relative() || !read.contains(&at.display().to_string()) {
            return None;
        }
        let file = std::fs::canonicalize(&at).ok()?;
        Some(relative(&file, &new).to_string_lossy().into_owned())
    };
    rewrite_strings(doc.doc.as_item_mut(), &mut moved);
}

/// `file` from the directory `dir`, both absolute and canonical: `..` for each of `dir`'s
/// components past their common start, then the rest of `file`'s.
fn relative(file: &Path, dir: &Path) -> PathBuf {
    let (f, d): (Vec<_>, Vec<_>) = (file.components().collect(), dir.components().collect());
    let common = f.iter().zip(&d).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return file.to_path_buf();
    }
    let mut r: PathBuf = d[common..].iter().map(|_| "..").collect();
    f[common..].iter().for_each(|c| r.push(c));
    r
}

/// Replace each string value in `item`, however deep, that `f` gives a new value, its
/// comments and layout kept.
fn rewrite_strings(item: &mut toml_edit::Item, f: &mut dyn FnMut(&str) -> Option<String>) {
    fn value(v: &mut toml_edit::Value, f: &mut dyn FnMut(&str) -> Option<String>) {
        match v {
            toml_edit::Value::String(s) => {
                if let Some(new) = f(s.value()) {
                    let decor = s.decor().clone();
                    let mut s2 = toml_edit::Formatted::new(new);
                    *s2.decor_mut() = decor;
                    *s = s2;
                }
            }
            toml_edit::Value::Array(a) => a.iter_mut().for_each(|v| value(v, f)),
            toml_edit::Value::InlineTable(t) => t.iter_mut().for_each(|(_, v)| value(v, f)),
            _ => {}
        }
    }
    match item {
        toml_edit::Item::Value(v) => value(v, f),
        toml_edit::Item::Table(t) => t.iter_mut().for_each(|(_, i)| rewrite_strings(i, f)),
        toml_edit::Item::ArrayOfTables(a) => {
            a.iter_mut().for_each(|t| t.iter_mut().for_each(|(_, i)| rewrite_strings(i, f)))
        }
        toml_edit::Item::None => {}
    }
}

/// Creates `dir` and its missing parents, appending each directory created to `created`
/// (outermost first), so that a failed write can remove them again.
fn create_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.as_os_str().is_empty() && !d.exists()).collect();
    for d in missing.into_iter().rev() {
        match std::fs::create_dir(d) {
            Ok(()) => created.push(d.to_path_buf()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The data files (relative path, bytes, whose: the scenario's or the case's) a case written
/// into `base` needs beside it that are not there yet, as (where, bytes). One already there
/// with the same bytes is left alone; one that differs is refused (the case would read it
/// instead), never replaced.
fn missing_data<'a>(
    named: impl Iterator<Item = (PathBuf, &'a [u8], &'static str)>,
    base: &Path,
    refuse: &dyn Fn(String) -> Error,
) -> Result<Vec<(PathBuf, &'a [u8])>> {
    let mut missing = Vec::new();
    for (rel, bytes, whose) in named {
        let at = base.join(&rel);
        match std::fs::read(&at) {
            Ok(there) if there == bytes => {}
            Ok(_) => {
                return Err(refuse(format!(
                    "{} differs from the {whose} {}, and the case would read it; move it away or write the case elsewhere",
                    at.display(),
                    rel.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing.push((at, bytes)),
            Err(e) => return Err(refuse(format!("{}: {e}", at.display()))),
        }
    }
    Ok(missing)
}
