//! Case files: a whole run written as TOML — which solver, the grid, physics constants,
//! boundaries, initial state, time and output, backend and precision. The built-in scenarios
//! are case files (`examples/*.toml`); `hydrokern run CASE.toml` runs one, `hydrokern check`
//! validates one, and a scenario's command-line flags are overrides of its keys.
//!
//! Each solver deserialises the document into its own case type with unknown keys rejected.
//! Every error is one line naming the key and where it was set: the file and line, or the flag.

mod common;
pub mod flags;
pub mod initial;
mod locate;
pub mod products;
mod write;

pub use common::{Backend as BackendSetting, Format, Grid2Section, MeshSection, OutputSection, RunSection, Times};
pub use flags::{COMMON_FLAGS, Flag, Set, four_sides};
pub use write::{Writer, Written, write_case};

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The keys every case shares, read by [`CaseDoc::parse_case`] for every solver.
const COMMON_KEYS: [&str; 4] = ["solver", "description", "run", "output"];

/// What every case file has besides its solver's own sections.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Common {
    /// Which solver reads the case (checked by the registry before the solver is called).
    #[allow(dead_code)]
    solver: String,
    /// One line on what the case simulates (shown by `hydrokern scenarios`).
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub run: RunSection,
    #[serde(default)]
    pub output: OutputSection,
}

/// Where a case's text came from.
#[derive(Clone, Debug)]
pub enum Origin {
    File(PathBuf),
    /// A built-in scenario (`examples/<name>.toml`, embedded), with the data files its keys may
    /// name (`data/valley.tif`), embedded too.
    Builtin {
        name: &'static str,
        data: DataFiles,
    },
}

/// Embedded data files by their path under `examples/`.
pub type DataFiles = &'static [(&'static str, &'static [u8])];

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File(p) => write!(f, "{}", p.display()),
            Origin::Builtin { name, .. } => write!(f, "scenario {name} (examples/{name}.toml)"),
        }
    }
}

/// A key set from the command line.
#[derive(Clone, Debug)]
struct Override {
    key: String,
    /// How the user wrote it: `--nx 512`.
    flag: String,
}

/// The largest case file read (a case is a page of settings, never data).
const MAX_CASE_BYTES: u64 = 1 << 20;

/// A file a case read (a raster, an NPY field, a series): the key that names it, the file as
/// shown in messages, and the FNV-1a hash of its bytes. A checkpoint keeps them, so that a
/// restart from other inputs is refused.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputFile {
    pub key: String,
    pub path: String,
    pub hash: String,
}

/// The files a case read, in the order it read them; shared by the copies of one document and
/// the loaded case's [`CaseInfo`](crate::run::CaseInfo).
#[derive(Clone, Debug, Default)]
pub struct Inputs(std::sync::Arc<std::sync::Mutex<Recorded>>);

#[derive(Debug, Default)]
struct Recorded {
    files: Vec<InputFile>,
    /// The EPSG code of the first raster that declared one, and that raster (for messages).
    crs: Option<(u16, String)>,
}

impl Inputs {
    pub fn list(&self) -> Vec<InputFile> {
        self.0.lock().map(|v| v.files.clone()).unwrap_or_default()
    }

    /// The EPSG code the case's rasters declare (all the same, [`CaseDoc::record_crs`]), which
    /// its georeferenced outputs carry.
    pub fn epsg(&self) -> Option<u16> {
        self.0.lock().ok().and_then(|v| v.crs.as_ref().map(|c| c.0))
    }
}

/// A case document: its text as written, the keys command-line flags changed, and the
/// resulting document every solver reads.
#[derive(Clone, Debug)]
pub struct CaseDoc {
    origin: Origin,
    original: String,
    doc: toml_edit::DocumentMut,
    overrides: Vec<Override>,
    inputs: Inputs,
}

impl CaseDoc {
    /// Read a case file (a regular file of at most 1 MiB of UTF-8 TOML).
    pub fn read(path: &Path) -> Result<CaseDoc> {
        let text = crate::files::read_text(path, MAX_CASE_BYTES, "case file")?;
        CaseDoc::parse(Origin::File(path.to_path_buf()), text)
    }

    /// A case from its text.
    pub fn parse(origin: Origin, text: String) -> Result<CaseDoc> {
        let doc = text.parse::<toml_edit::DocumentMut>().map_err(|e| {
            let line = e.span().map(|s| locate::line_of(&text, s.start));
            Error::invalid(format!("{}: {}", where_(&origin, line), first_line(e.message())))
        })?;
        Ok(CaseDoc { origin, original: text, doc, overrides: Vec::new(), inputs: Inputs::default() })
    }

    /// Record that the case read `bytes` from the file `path` named at `key`.
    pub fn record_input(&self, key: &str, path: &str, bytes: &[u8]) {
        self.record_input_hash(key, path, crate::hash::fnv1a(bytes));
    }

    /// Record that the case read the file `path` named at `key`, whose bytes (or the part of a
    /// large file that identifies it) hash to `hash` by [`fnv1a`](crate::hash::fnv1a).
    pub fn record_input_hash(&self, key: &str, path: &str, hash: String) {
        let file = InputFile { key: key.into(), path: path.into(), hash };
        if let Ok(mut v) = self.inputs.0.lock() {
            v.files.push(file);
        }
    }

    /// Record that the raster `file` declares the projected system `epsg` (if any). Every
    /// raster of a case must be in the same system, as positions in one are not positions in
    /// another: a code other than one recorded before is refused, naming both rasters. A
    /// raster that declares none is taken to be in the others' system.
    pub fn record_crs(&self, file: &str, epsg: Option<u16>) -> Result<()> {
        let Some(code) = epsg else { return Ok(()) };
        let Ok(mut v) = self.inputs.0.lock() else { return Ok(()) };
        match &v.crs {
            Some((first, by)) if *first != code => Err(Error::invalid(format!(
                "{file} is in EPSG:{code} but {by} is in EPSG:{first}: the rasters of one case must share one coordinate system; reproject one (gdalwarp -t_srs EPSG:{first} IN OUT)"
            ))),
            Some(_) => Ok(()),
            None => {
                v.crs = Some((code, file.to_string()));
                Ok(())
            }
        }
    }

    /// The files the case read so far.
    pub fn inputs(&self) -> &Inputs {
        &self.inputs
    }

    /// The case's name: the scenario's, or the case file's stem (its output directory is
    /// `out/<name>` unless `[output] dir` says otherwise).
    pub fn name(&self) -> String {
        match &self.origin {
            Origin::Builtin { name, .. } => name.to_string(),
            Origin::File(p) => p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        }
    }

    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The directory relative paths in the case are read from: the case file's own, or the
    /// working directory for a built-in scenario.
    pub fn base_dir(&self) -> PathBuf {
        match &self.origin {
            Origin::File(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
            Origin::Builtin { .. } => PathBuf::new(),
        }
    }

    /// The `solver` key: which solver reads the rest.
    pub fn solver(&self) -> Result<String> {
        match self.doc.get("solver") {
            Some(item) => item.as_str().map(str::to_string).ok_or_else(|| self.invalid("solver", "must be a string")),
            None => Err(Error::invalid(format!(
                "{}: the key `solver` is missing (which solver runs this case)",
                self.origin
            ))),
        }
    }

    /// The value at `key` (dotted path) as TOML writes it, if present.
    pub fn get(&self, key: &str) -> Option<String> {
        let mut item = self.doc.as_item();
        for part in key.split('.') {
            item = item.as_table_like()?.get(part)?;
        }
        item.as_value().map(|v| {
            let mut v = v.clone();
            v.decor_mut().clear();
            v.to_string()
        })
    }

    /// For a built-in scenario and a relative `path`: the embedded data file of `examples/` it
    /// names, as (the name to show, its bytes), or why there is none; `None` where the file is
    /// read from disk (a case file's, or an absolute path).
    pub fn embedded(&self, path: &Path) -> Option<Result<(String, &'static [u8])>> {
        let Origin::Builtin { name, data } = &self.origin else { return None };
        if !path.is_relative() {
            return None;
        }
        let rel = path.to_string_lossy().replace('\\', "/");
        let shown = format!("examples/{rel}");
        Some(match data.iter().find(|(p, _)| *p == rel) {
            Some((_, bytes)) => Ok((shown, *bytes)),
            None => Err(Error::invalid(format!("{shown}: not a data file of scenario {name}"))),
        })
    }

    /// For a built-in scenario: the embedded data files its values name (path under
    /// `examples/`, bytes), which a copy of the case written elsewhere needs beside it; none for
    /// a case file.
    pub fn named_data(&self) -> Vec<(&'static str, &'static [u8])> {
        let Origin::Builtin { data, .. } = &self.origin else { return Vec::new() };
        let mut names = Vec::new();
        strings_in(self.doc.as_item(), &mut names);
        data.iter().filter(|(p, _)| names.iter().any(|n| n == p)).copied().collect()
    }

    /// Whether the document holds `key` (dotted path), a value or a table.
    pub fn has(&self, key: &str) -> bool {
        let mut item = self.doc.as_item();
        for part in key.split('.') {
            match item.as_table_like().and_then(|t| t.get(part)) {
                Some(i) => item = i,
                None => return false,
            }
        }
        true
    }

    /// A string key at the top level (e.g. `description`), if present.
    pub fn top_str(&self, key: &str) -> Option<String> {
        self.doc.get(key).and_then(|i| i.as_str()).map(str::to_string)
    }

    /// Set `key` (dotted path, tables created as needed) to `value`, recording `flag` as where
    /// it came from.
    pub fn set(&mut self, key: &str, value: toml_edit::Value, flag: &str) -> Result<()> {
        let parts: Vec<&str> = key.split('.').collect();
        let (last, tables) = parts.split_last().expect("a key has at least one part");
        let mut table: &mut dyn toml_edit::TableLike = self.doc.as_table_mut();
        for part in tables {
            let item = table.entry(part).or_insert_with(|| {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                toml_edit::Item::Table(t)
            });
            table = item.as_table_like_mut().ok_or_else(|| {
                Error::invalid(format!("{flag}: cannot set {key}: `{part}` in {} is not a table", self.origin))
            })?;
        }
        table.insert(last, toml_edit::Item::Value(value));
        self.overrides.retain(|o| o.key != key);
        self.overrides.push(Override { key: key.to_string(), flag: flag.to_string() });
        Ok(())
    }

    /// Whether a command-line flag set `key`.
    pub fn is_overridden(&self, key: &str) -> bool {
        self.overrides.iter().any(|o| o.key == key)
    }

    /// Remove `key` (dotted path) if present.
    pub fn remove(&mut self, key: &str) {
        let parts: Vec<&str> = key.split('.').collect();
        let (last, tables) = parts.split_last().expect("a key has at least one part");
        let mut table: &mut dyn toml_edit::TableLike = self.doc.as_table_mut();
        for part in tables {
            match table.get_mut(part).and_then(|i| i.as_table_like_mut()) {
                Some(t) => table = t,
                None => return,
            }
        }
        table.remove(last);
    }

    /// The document as written, before any flag.
    pub fn written(&self) -> &str {
        &self.original
    }

    /// The document as it will run: the original text with the overrides applied (comments and
    /// layout kept). This is what `--write-case` writes and what a run directory records.
    pub fn text(&self) -> String {
        self.doc.to_string()
    }

    /// Read the case: the sections every case shares (`solver`, `description`, `[run]`,
    /// `[output]`) and the solver's own sections as `C`, which names only its own keys. Unknown
    /// keys, wrong types and missing keys are errors naming the key and its line (or flag).
    pub fn parse_case<C: serde::de::DeserializeOwned>(&self) -> Result<(Common, C)> {
        let mut own = self.clone();
        let mut shared = self.clone();
        for key in COMMON_KEYS {
            own.remove(key);
        }
        for (key, _) in self.doc.iter() {
            if !COMMON_KEYS.contains(&key) {
                shared.remove(key);
            }
        }
        let common: Common = shared.parse_as()?;
        common.run.check(&Check::new(self))?;
        common.output.check(&Check::new(self))?;
        Ok((common, own.parse_as()?))
    }

    /// Deserialise the whole document into `C`; errors name the key and its line (or flag).
    fn parse_as<C: serde::de::DeserializeOwned>(&self) -> Result<C> {
        let text = self.text();
        toml::from_str::<C>(&text).map_err(|e| {
            let key = e.span().and_then(|s| locate::key_at(&text, s.start));
            let message = first_line(e.message()).to_string();
            match key {
                Some(key) => self.invalid(&key, &message),
                None => {
                    let line = e.span().filter(|_| self.overrides.is_empty()).map(|s| locate::line_of(&text, s.start));
                    Error::invalid(format!("{}: {message}", where_(&self.origin, line)))
                }
            }
        })
    }

    /// An error about `key`: "FILE:LINE: key: message", or "--flag VALUE (key): message" when a
    /// flag set it.
    pub fn invalid(&self, key: &str, message: impl std::fmt::Display) -> Error {
        if let Some(o) = self.overrides.iter().rev().find(|o| key == o.key || key.starts_with(&format!("{}.", o.key))) {
            return Error::invalid(format!("{} ({key}): {message}", o.flag));
        }
        let line = locate::line_of_key(&self.original, key);
        Error::invalid(format!("{}: {key}: {message}", where_(&self.origin, line)))
    }
}

fn where_(origin: &Origin, line: Option<usize>) -> String {
    match line {
        Some(l) => format!("{origin}, line {l}"),
        None => origin.to_string(),
    }
}

/// TOML's messages can span several lines (a quoted source line and a caret); keep the gist.
pub fn first_line(m: &str) -> &str {
    m.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(m)
}

/// A number as a person would write it: `0.25`, `20000`, `1e300`, not 301 digits. Every number
/// a message or a summary shows goes through this (or [`count`]).
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-4..1e7).contains(&a) { format!("{v:e}") } else { format!("{v}") }
}

/// A computed value (a cell size, the range of a field) to four significant digits, as [`num`]
/// writes numbers: `0.1562`, `0.03` rather than `0.029999999999999995`.
pub fn approx(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return num(v);
    }
    num(format!("{v:.3e}").parse().unwrap_or(v))
}

/// A count or an estimate of one (steps, files): whole below ten million (`127`), past it three
/// significant digits (`1.27e14`), since its last digits mean nothing.
pub fn count(v: f64) -> String {
    if !v.is_finite() || v.abs() < 1e7 {
        return format!("{v:.0}");
    }
    let s = format!("{v:.2e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if mantissa.contains('.') => {
            format!("{}e{exp}", mantissa.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => s,
    }
}

/// Checks every case type runs on its values after deserialising, naming the key on failure.
pub struct Check<'a> {
    doc: &'a CaseDoc,
}

impl<'a> Check<'a> {
    pub fn new(doc: &'a CaseDoc) -> Check<'a> {
        Check { doc }
    }
    pub fn doc(&self) -> &CaseDoc {
        self.doc
    }
    /// `v` finite and > 0.
    pub fn positive(&self, key: &str, v: f64) -> Result<f64> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.doc.invalid(key, format!("{}: must be positive and finite", num(v))))
        }
    }
    /// `v` finite and ≥ 0.
    pub fn non_negative(&self, key: &str, v: f64) -> Result<f64> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(self.doc.invalid(key, format!("{}: must be finite and not negative", num(v))))
        }
    }
    /// `v` in `[lo, hi]`.
    pub fn within(&self, key: &str, v: f64, lo: f64, hi: f64, why: &str) -> Result<f64> {
        if v.is_finite() && (lo..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(self.doc.invalid(key, format!("{}: must lie in [{}, {}]{why}", num(v), num(lo), num(hi))))
        }
    }
    /// Any other failed condition.
    pub fn fail<T>(&self, key: &str, message: impl std::fmt::Display) -> Result<T> {
        Err(self.doc.invalid(key, message))
    }
    /// The bytes of the input file `path` (named at `key`), a regular file of at most `max`
    /// bytes, read whole and recorded ([`CaseDoc::record_input`]).
    /// The data file a case names at `key` by `path` as written in the case: for a built-in
    /// scenario a relative path names one of its embedded data files, otherwise it is read
    /// relative to the case file ([`path`](Self::path)); recorded among the inputs. Returns the
    /// name to show in messages and the bytes.
    pub fn data_file(&self, key: &str, path: &Path, max: u64, what: &str) -> Result<(String, Vec<u8>)> {
        match self.doc.embedded(path) {
            Some(found) => {
                let (shown, bytes) = found?;
                self.doc.record_input(key, &shown, bytes);
                Ok((shown, bytes.to_vec()))
            }
            None => {
                let path = self.path(path);
                Ok((path.display().to_string(), self.input(key, &path, max, what)?))
            }
        }
    }

    pub fn input(&self, key: &str, path: &Path, max: u64, what: &str) -> Result<Vec<u8>> {
        let bytes = crate::files::read_bytes(path, max, what)?;
        self.doc.record_input(key, &path.display().to_string(), &bytes);
        Ok(bytes)
    }

    /// The `.npy` input file `path` (named at `key`), read as
    /// [`read_npy_f64`](crate::output::read_npy_f64) reads it, and recorded.
    pub fn read_npy(&self, key: &str, path: &Path) -> Result<(Vec<f64>, Vec<usize>)> {
        let bytes = crate::npy::read_npy_bytes(path)?;
        self.doc.record_input(key, &path.display().to_string(), &bytes);
        crate::npy::parse_npy_f64(path, &bytes)
    }

    /// Refuse the first value of a 2-D NPY input (`path`, `cols` columns, read for `key`) that
    /// is not finite, naming the file and its index.
    pub fn finite_npy(&self, key: &str, path: &Path, data: &[f64], cols: usize) -> Result<()> {
        match data.iter().position(|v| !v.is_finite()) {
            None => Ok(()),
            Some(k) => self.fail(
                key,
                format!(
                    "{}: {} at [{}, {}] (NumPy row, column): the values must be finite",
                    path.display(),
                    data[k],
                    k / cols.max(1),
                    k % cols.max(1)
                ),
            ),
        }
    }
    /// A path from the case, relative to the case file's directory.
    pub fn path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() { p.to_path_buf() } else { self.doc.base_dir().join(p) }
    }
}

/// Every string value in `item`, however deep (tables, arrays, inline tables).
fn strings_in(item: &toml_edit::Item, out: &mut Vec<String>) {
    fn value(v: &toml_edit::Value, out: &mut Vec<String>) {
        match v {
            toml_edit::Value::String(s) => out.push(s.value().clone()),
            toml_edit::Value::Array(a) => a.iter().for_each(|v| value(v, out)),
            toml_edit::Value::InlineTable(t) => t.iter().for_each(|(_, v)| value(v, out)),
            _ => {}
        }
    }
    match item {
        toml_edit::Item::Value(v) => value(v, out),
        toml_edit::Item::Table(t) => t.iter().for_each(|(_, i)| strings_in(i, out)),
        toml_edit::Item::ArrayOfTables(a) => a.iter().for_each(|t| t.iter().for_each(|(_, i)| strings_in(i, out))),
        toml_edit::Item::None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scenario's data files are those its values name, in tables, arrays of inline tables
    /// and arrays of tables; a name that is not a data file, and the data files it does not
    /// name, are left out; a case file names none.
    #[test]
    fn a_scenario_names_the_data_files_its_values_hold() {
        const DATA: DataFiles =
            &[("data/a.asc", b"a"), ("data/b.asc", b"b"), ("data/c.csv", b"c"), ("data/d.asc", b"d")];
        let text = "solver = \"kp\"\n[initial.raster]\nbed = \"data/a.asc\"\n\
                    [forcing.rain]\nframes = [{ time = 0, file = \"data/b.asc\" }, { time = 10, file = \"data/none.asc\" }]\n\
                    [[inflow]]\nseries = \"data/c.csv\"\n";
        let doc = CaseDoc::parse(Origin::Builtin { name: "t", data: DATA }, text.into()).unwrap();
        let named: Vec<&str> = doc.named_data().iter().map(|(p, _)| *p).collect();
        assert_eq!(named, ["data/a.asc", "data/b.asc", "data/c.csv"]);
        let file = CaseDoc::parse(Origin::File(PathBuf::from("case.toml")), text.into()).unwrap();
        assert!(file.named_data().is_empty());
    }
}
