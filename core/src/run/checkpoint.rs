//! Checkpoint files: a model's whole state ([`Checkpoint`]) with what the runner needs to go on
//! (its clock and how many checkpoints it has passed) and what a restart must match (solver,
//! precision, backend, the case as run, the hydrokern version).
//!
//! The file (`checkpoint.hkc` in the run directory, replaced at each checkpoint):
//!
//! ```text
//! MAGIC (16 bytes) | header length (u64 LE) | header (JSON) | fields | flags | records | CRC-32 (u32 LE)
//! ```
//!
//! The header lists the fields (values of the run's precision, little-endian), flags (bytes)
//! and records (f64, little-endian) in the order their data follows; numbers are kept as the hexadecimal bits of an f64, so they
//! come back bit for bit. The CRC-32 covers every byte before it: a truncated or damaged file is
//! refused before anything of it is believed. The file is written through a temporary file, an
//! fsync and a rename ([`write_atomic_synced_with`]), so a run killed while writing one leaves the
//! previous checkpoint in place (and a temporary file the next run removes).

use super::CaseInfo;
use crate::case::{CaseDoc, InputFile};
use crate::model::{Checkpoint, Clock};
use crate::output::write_atomic_synced_with;
use crate::{Error, GpuReal, Precision, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The checkpoint's file name in a run directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.hkc";
const MAGIC: &[u8; 16] = b"hydrokern-ckpt\n\0";
/// The layout this code writes and reads; another is refused. 2: records (f64 arrays: the
/// gauge records) after the flags; 3: the hashes of the files the case read, and the case as
/// written before the command's flags.
pub const FORMAT: u32 = 3;
/// Case keys that never change a run's results (where it writes, how often it reports, its
/// step limit, the GPUs of each host it uses), or that are compared on their own (precision,
/// backend): a restart may differ in them.
const FREE_KEYS: [(&str, &str); 6] = [
    ("output", "dir"),
    ("output", "progress"),
    ("run", "max_steps"),
    ("run", "gpus"),
    ("run", "precision"),
    ("run", "backend"),
];

/// An f64 as its bits in hexadecimal, so that it reads back exactly (JSON numbers need not).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Bits(f64);

impl Serialize for Bits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0.to_bits()))
    }
}

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Bits, D::Error> {
        let s = String::deserialize(d)?;
        u64::from_str_radix(&s, 16).map(|b| Bits(f64::from_bits(b))).map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Header {
    format: u32,
    hydrokern: String,
    revision: String,
    solver: String,
    precision: Precision,
    /// "cpu" or "gpu": the arrays are the backend's own.
    backend: String,
    /// The case as run.
    case: String,
    /// The case as written, before the command's flags.
    base: String,
    /// The files the case read, with their hashes.
    inputs: Vec<InputFile>,
    /// Simulated time, for people reading the header (`t` is the exact value).
    time: String,
    t: Bits,
    steps: u64,
    dt: Bits,
    /// Checkpoint times the run has passed: the next is at (checkpoints + 1) · every.
    checkpoints: u64,
    values: Vec<(String, Bits)>,
    fields: Vec<(String, u64)>,
    flags: Vec<(String, u64)>,
    records: Vec<(String, u64)>,
}

/// What a checkpoint belongs to, besides the model's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub solver: String,
    pub precision: Precision,
    /// "cpu" or "gpu".
    pub backend: &'static str,
    /// The case as run.
    pub case: String,
    /// The case as written, before the command's flags.
    pub base: String,
    /// Checkpoint times passed, this one included.
    pub checkpoints: u64,
    /// The files the case read, with their hashes.
    pub inputs: Vec<InputFile>,
}

impl Meta {
    /// What a checkpoint of a run of `info` on `backend` ("cpu" or "gpu") that has passed
    /// `checkpoints` checkpoint times belongs to.
    pub fn of(info: &CaseInfo, backend: &'static str, checkpoints: u64) -> Meta {
        Meta {
            solver: info.solver.into(),
            precision: info.run.precision,
            backend,
            case: info.text.clone(),
            base: info.base.clone(),
            checkpoints,
            inputs: info.inputs.list(),
        }
    }
}

/// "cpu" or "gpu": the backend whose arrays a checkpoint holds.
pub fn backend_kind(backend: &crate::Backend) -> &'static str {
    match backend {
        crate::Backend::Gpu(_) => "gpu",
        crate::Backend::Cpu { .. } => "cpu",
    }
}

/// Whether the run directory `dir` is the one whose run wrote `checkpoint`: the checkpoint is
/// its [`CHECKPOINT_FILE`] and its manifest lists it.
pub fn wrote(dir: &Path, checkpoint: &Path) -> bool {
    let listed = || {
        std::fs::read(dir.join(super::MANIFEST))
            .ok()
            .and_then(|b| serde_json::from_slice::<super::Manifest>(&b).ok())
            .is_some_and(|m| m.files.iter().any(|f| f == CHECKPOINT_FILE))
    };
    same_path(&dir.join(CHECKPOINT_FILE), checkpoint) && listed()
}

/// Whether `a` and `b` name the same existing file or directory.
pub fn same_path(a: &Path, b: &Path) -> bool {
    a.canonicalize().ok().is_some_and(|a| b.canonicalize().ok() == Some(a))
}

/// Write `state` with `meta` to `path`, whole or not at all.
pub fn write<T: GpuReal>(path: &Path, meta: &Meta, state: &Checkpoint<T>) -> Result<()> {
    let header = Header {
        format: FORMAT,
        hydrokern: env!("CARGO_PKG_VERSION").into(),
        revision: crate::GIT_REVISION.into(),
        solver: meta.solver.clone(),
        precision: meta.precision,
        backend: meta.backend.into(),
        case: meta.case.clone(),
        base: meta.base.clone(),
        inputs: meta.inputs.clone(),
        time: format!("{}", state.clock.t),
        t: Bits(state.clock.t),
        steps: state.clock.steps,
        dt: Bits(state.clock.dt),
        checkpoints: meta.checkpoints,
        values: state.values.iter().map(|(n, v)| (n.clone(), Bits(*v))).collect(),
        fields: state.fields.iter().map(|(n, d)| (n.clone(), d.len() as u64)).collect(),
        flags: state.flags.iter().map(|(n, d)| (n.clone(), d.len() as u64)).collect(),
        records: state.records.iter().map(|(n, d)| (n.clone(), d.len() as u64)).collect(),
    };
    let json = serde_json::to_vec(&header).map_err(|e| Error::invalid(format!("checkpoint header: {e}")))?;
    write_atomic_synced_with(path, |f| {
        let mut out = Crc { inner: f, crc: crc32fast::Hasher::new() };
        out.write_all(MAGIC)?;
        out.write_all(&(json.len() as u64).to_le_bytes())?;
        out.write_all(&json)?;
        for (_, data) in &state.fields {
            out.write_all(&T::le_bytes(data))?;
        }
        let mut buf = Vec::with_capacity(1 << 20);
        for (_, data) in &state.flags {
            out.write_all(data)?;
        }
        for (_, data) in &state.records {
            for chunk in data.chunks(1 << 17) {
                buf.clear();
                chunk.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
                out.write_all(&buf)?;
            }
        }
        let crc = out.crc.finalize();
        out.inner.write_all(&crc.to_le_bytes())
    })
}

/// A writer that keeps the CRC-32 of what passes through it.
struct Crc<'a> {
    inner: &'a mut dyn Write,
    crc: crc32fast::Hasher,
}

impl Write for Crc<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A checkpoint read whole, checked, and found to belong to this run.
#[derive(Debug)]
pub struct Restart {
    path: PathBuf,
    header: Header,
    /// The fields', flags' and records' bytes.
    data: Vec<u8>,
}

impl Restart {
    /// Read `path` and check it against the run about to start: `info` (solver and case) in
    /// `precision` on `backend` ("cpu" or "gpu"). Every refusal is one line naming the file.
    pub fn open(path: &Path, info: &CaseInfo, precision: Precision, backend: &str) -> Result<Restart> {
        let shown = path.display().to_string();
        let bad = |why: String| Error::invalid(format!("checkpoint {shown}: {why}"));
        let limit = crate::files::available_memory().map_or(u64::MAX, |m| m / 2);
        crate::files::regular_file(path, limit, "checkpoint small enough for this machine's memory")?;
        let bytes = std::fs::read(path).map_err(|cause| Error::Io { path: shown.clone(), cause })?;
        let (header, data) = parse(&bytes).map_err(|why| bad(format!("{why}; it is truncated or damaged")))?;
        let ours = env!("CARGO_PKG_VERSION");
        if header.format != FORMAT {
            return Err(bad(format!("checkpoint format {}, and this hydrokern reads format {FORMAT}", header.format)));
        }
        if header.hydrokern != ours {
            return Err(bad(format!(
                "written by hydrokern {}, and this is hydrokern {ours}; a run continues only with the version that wrote it",
                header.hydrokern
            )));
        }
        if header.solver != info.solver {
            return Err(bad(format!("a checkpoint of solver {}, not of {} (this case)", header.solver, info.solver)));
        }
        if header.precision != precision {
            return Err(bad(format!(
                "taken in {}, and this run is in {precision}; restart with --precision {}",
                header.precision, header.precision
            )));
        }
        if header.backend != backend {
            return Err(bad(format!(
                "taken on the {}, and this run is on the {backend}; a restart continues on the backend that wrote it (--backend {})",
                header.backend, header.backend
            )));
        }
        if let Some(diff) = case_difference(&header.case, &info.text, header.t.0) {
            return Err(bad(format!("taken of another case: {diff}")));
        }
        input_difference(&header.inputs, &info.inputs.list())?;
        if header.revision != crate::GIT_REVISION {
            crate::warn(format_args!(
                "note: checkpoint {shown} was written by revision {} of hydrokern {ours}, this is revision {}",
                header.revision,
                crate::GIT_REVISION
            ));
        }
        let restart = Restart { path: path.to_path_buf(), header, data: data.to_vec() };
        // A set of parts (a decomposed run's): every part there, before anything is touched.
        if let Some(list) = restart.record(crate::ranks::parts::PARTS) {
            let manifest = Checkpoint::<f64>::at(restart.clock()).record(crate::ranks::parts::PARTS, list);
            let manifest = restart.header.values.iter().fold(manifest, |c, (n, v)| c.value(n, v.0));
            let set = crate::ranks::parts::Set::of(&manifest).map_err(|e| bad(e.to_string()))?;
            if let Some(set) = set {
                set.check_present(&restart.dir(), restart.header.steps).map_err(|e| bad(e.to_string()))?;
            }
        }
        Ok(restart)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory the checkpoint file lies in, where a set's parts lie too.
    pub fn dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Whether the checkpoint is a set of parts (a decomposed run's).
    pub fn has_parts(&self) -> bool {
        self.header.records.iter().any(|(n, _)| n == crate::ranks::parts::PARTS)
    }

    /// Record `name`, if the checkpoint holds it (records are f64 whatever the precision).
    fn record(&self, name: &str) -> Option<Vec<f64>> {
        let width = self.header.precision.bytes() as usize;
        let mut at = self.header.fields.iter().map(|(_, n)| *n as usize * width).sum::<usize>()
            + self.header.flags.iter().map(|(_, n)| *n as usize).sum::<usize>();
        for (n, len) in &self.header.records {
            let bytes = *len as usize * 8;
            if n == name {
                let data = self.data.get(at..at + bytes)?;
                return Some(
                    data.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default())).collect(),
                );
            }
            at += bytes;
        }
        None
    }

    /// The clock the run continues from.
    pub fn clock(&self) -> Clock {
        Clock { t: self.header.t.0, steps: self.header.steps, dt: self.header.dt.0, halt: None }
    }

    /// Checkpoint times the interrupted run had passed.
    pub fn checkpoints(&self) -> u64 {
        self.header.checkpoints
    }

    /// The model's state in precision `T` (the one [`open`](Self::open) checked).
    pub fn state<T: GpuReal>(&self) -> Result<Checkpoint<T>> {
        if T::NAME != self.header.precision.values() {
            return Err(Error::invalid(format!(
                "checkpoint {}: holds {} values, not {}",
                self.path.display(),
                self.header.precision,
                T::NAME
            )));
        }
        let width = std::mem::size_of::<T>();
        let mut at = 0;
        let mut take = |len: usize| {
            let part = &self.data[at..at + len];
            at += len;
            part
        };
        let mut state = Checkpoint::at(self.clock());
        for (name, len) in &self.header.fields {
            let bytes = take(*len as usize * width);
            let data = if width == 4 {
                bytes.chunks_exact(4).map(|b| T::from_f64(f32::from_le_bytes(b.try_into().unwrap()) as f64)).collect()
            } else {
                bytes.chunks_exact(8).map(|b| T::from_f64(f64::from_le_bytes(b.try_into().unwrap()))).collect()
            };
            state.fields.push((name.clone(), data));
        }
        for (name, len) in &self.header.flags {
            state.flags.push((name.clone(), take(*len as usize).to_vec()));
        }
        for (name, len) in &self.header.records {
            let data = take(*len as usize * 8).chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap()));
            state.records.push((name.clone(), data.collect()));
        }
        state.values = self.header.values.iter().map(|(n, v)| (n.clone(), v.0)).collect();
        Ok(state)
    }
}

/// The header and the data of a checkpoint file's bytes, or what is wrong with them.
fn parse(bytes: &[u8]) -> std::result::Result<(Header, &[u8]), String> {
    let len = bytes.len();
    if len < MAGIC.len() + 12 || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a hydrokern checkpoint (no magic)".into());
    }
    let (body, crc) = bytes.split_at(len - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return Err(format!("its checksum does not match its {len} bytes"));
    }
    let rest = &body[MAGIC.len()..];
    let header_len = u64::from_le_bytes(rest[..8].try_into().unwrap_or_default());
    if header_len > (rest.len() - 8) as u64 {
        return Err(format!("a header of {header_len} bytes in a file of {len}"));
    }
    let (json, data) = rest[8..].split_at(header_len as usize);
    let header: Header = serde_json::from_slice(json).map_err(|e| format!("its header does not read ({e})"))?;
    let width = header.precision.bytes() as u64;
    let want = header.fields.iter().map(|(_, n)| n.saturating_mul(width)).chain(header.flags.iter().map(|(_, n)| *n));
    let want = want.chain(header.records.iter().map(|(_, n)| n.saturating_mul(8)));
    let want = want.fold(0u64, u64::saturating_add);
    if want != data.len() as u64 {
        return Err(format!("its header lists {want} bytes of arrays and {} follow", data.len()));
    }
    Ok((header, data))
}

/// Refuse a restart whose case read other files than the checkpoint's run (`there`), or the
/// same files with other bytes: the state continues from what those files gave, and a field
/// such as the bed is rebuilt from them, not saved.
fn input_difference(there: &[InputFile], here: &[InputFile]) -> Result<()> {
    for (k, old) in there.iter().enumerate() {
        match here.get(k) {
            Some(new) if new.key == old.key => {
                if new.hash != old.hash {
                    return Err(Error::invalid(format!(
                        "--restart: {} changed since the checkpoint was written (hash {} then, {} now); restart from the same inputs",
                        new.path, old.hash, new.hash
                    )));
                }
            }
            _ => {
                return Err(Error::invalid(format!(
                    "--restart: the checkpoint's run read {} ({}), which this run does not; restart from the same inputs",
                    old.path, old.key
                )));
            }
        }
    }
    if let Some(new) = here.get(there.len()) {
        return Err(Error::invalid(format!(
            "--restart: this run reads {} ({}), which the checkpoint's run did not; restart from the same inputs",
            new.path, new.key
        )));
    }
    Ok(())
}

/// The header of the checkpoint at `path`, read without its arrays and not yet checked (that
/// is [`Restart::open`]'s work); None where it does not read.
fn peek(path: &Path) -> Option<Header> {
    use std::io::Read;
    // Only a regular file: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut head = [0u8; MAGIC.len() + 8];
    file.read_exact(&mut head).ok()?;
    if &head[..MAGIC.len()] != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(head[MAGIC.len()..].try_into().ok()?);
    let mut json = Vec::new();
    file.take(len.min(64 << 20)).read_to_end(&mut json).ok()?;
    serde_json::from_slice(&json).ok()
}

/// Make `doc` — the case a `--restart` command names, before its flags — the case the
/// checkpoint at `path` continues: every key the checkpoint's run set by a flag (where its case
/// differs from the case as written then) is set so again, unless the case as written changed
/// that key since. The restart command's own flags, applied after this, are then the only
/// other changes, and [`Restart::open`] refuses those that may not change. A checkpoint that
/// does not read, or is of another solver, leaves `doc` as it is: the restart refuses it.
pub fn continue_case(doc: &mut CaseDoc, path: &Path) -> Result<()> {
    let Some(header) = peek(path) else { return Ok(()) };
    if doc.solver().ok().as_deref() != Some(header.solver.as_str()) {
        return Ok(());
    }
    let (Ok(base), Ok(case), Ok(named)) = (leaves(&header.base), leaves(&header.case), leaves(&doc.text())) else {
        return Ok(());
    };
    let from = format!("--restart {} (the checkpoint's case)", path.display());
    let keys: std::collections::BTreeSet<&String> = base.keys().chain(case.keys()).collect();
    for key in keys {
        let (then, ran, now) = (base.get(key), case.get(key), named.get(key));
        if ran == then || now != then {
            continue;
        }
        match ran {
            Some(v) => {
                let value = v.to_string().parse::<toml_edit::Value>().map_err(|e| {
                    Error::invalid(format!("checkpoint {}: its case's {key} does not read ({e})", path.display()))
                })?;
                doc.set(key, value, &from)?;
            }
            None => doc.remove(key),
        }
    }
    Ok(())
}

/// Every value of a TOML document that is not a table, by its dotted key.
fn leaves(text: &str) -> std::result::Result<std::collections::BTreeMap<String, toml::Value>, String> {
    fn walk(t: &toml::Table, prefix: &str, out: &mut std::collections::BTreeMap<String, toml::Value>) {
        for (k, v) in t {
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match v {
                toml::Value::Table(inner) => walk(inner, &key, out),
                v => {
                    out.insert(key, v.clone());
                }
            }
        }
    }
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut out = std::collections::BTreeMap::new();
    walk(&table, "", &mut out);
    Ok(out)
}

/// Where the case `there` (a checkpoint's, taken at time `t`) differs from `here` in a key that
/// may change the results (all but [`FREE_KEYS`]): "grid.nx is 64 there and 128 here". The one
/// change a continued run may make is to go further: a later `time.t_end` (or more
/// `time.steps`), and other snapshot times, which only shape what comes after `t` (`--t-end`
/// clears the snapshot list).
pub(crate) fn case_difference(there: &str, here: &str, t: f64) -> Option<String> {
    let table = |text: &str| -> std::result::Result<toml::Table, String> {
        let mut t: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        for (section, key) in FREE_KEYS {
            if let Some(toml::Value::Table(s)) = t.get_mut(section) {
                s.remove(key);
                // A section left empty says what an absent one says.
                if s.is_empty() {
                    t.remove(section);
                }
            }
        }
        Ok(t)
    };
    match (table(there), table(here)) {
        (Ok(mut a), Ok(mut b)) => {
            continued(&mut a, &mut b, t);
            first_difference(&a, &b, "")
        }
        (Err(e), _) => Some(format!("its case does not read ({e})")),
        (_, Err(e)) => Some(format!("this case does not read ({e})")),
    }
}

/// Take out of the cases `there` and `here` what a run continued from time `t` may change: a
/// later end, and the snapshot times (those up to `t` are past, those after it are the
/// continued run's own).
fn continued(there: &mut toml::Table, here: &mut toml::Table, t: f64) {
    let number = |v: Option<&toml::Value>| v.and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)));
    let section = |doc: &mut toml::Table, name: &str| -> Option<toml::Table> {
        doc.get(name).and_then(|s| s.as_table()).cloned()
    };
    for key in ["t_end", "steps"] {
        let (a, b) = (section(there, "time"), section(here, "time"));
        let (Some(old), Some(new)) =
            (number(a.as_ref().and_then(|s| s.get(key))), number(b.as_ref().and_then(|s| s.get(key))))
        else {
            continue;
        };
        if new > old && new > t {
            for doc in [&mut *there, &mut *here] {
                if let Some(toml::Value::Table(s)) = doc.get_mut("time") {
                    s.remove(key);
                }
            }
        }
    }
    for doc in [there, here] {
        if let Some(toml::Value::Table(s)) = doc.get_mut("output") {
            s.remove("snapshots");
            if s.is_empty() {
                doc.remove("output");
            }
        }
    }
}

fn first_difference(a: &toml::Table, b: &toml::Table, prefix: &str) -> Option<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let shown = |v: Option<&toml::Value>| v.map_or("not set".to_string(), |v| v.to_string());
    for k in keys {
        let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match (a.get(k), b.get(k)) {
            (Some(toml::Value::Table(x)), Some(toml::Value::Table(y))) => {
                if let Some(d) = first_difference(x, y, &path) {
                    return Some(d);
                }
            }
            (x, y) if x != y => return Some(format!("{path} is {} there and {} here", shown(x), shown(y))),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::write_atomic_with;

    fn info(text: &str) -> CaseInfo {
        info_reading(text, b"dem")
    }

    /// A case that read `dem` from dem.asc.
    fn info_reading(text: &str, dem: &[u8]) -> CaseInfo {
        let doc = crate::case::CaseDoc::parse(crate::case::Origin::File("t.toml".into()), String::new()).unwrap();
        doc.record_input("initial.raster.bed", "dem.asc", dem);
        CaseInfo {
            name: "t".into(),
            solver: "kp",
            origin: "test".into(),
            text: text.into(),
            base: text.into(),
            run: Default::default(),
            output: Default::default(),
            inputs: doc.inputs().clone(),
        }
    }

    const CASE: &str = "solver = \"kp\"\n[grid]\nnx = 4\n[output]\ndir = \"a\"\nprogress = 2.0\n";

    fn sample() -> Checkpoint<f32> {
        let clock = Clock { t: 0.1 + 0.2, steps: 7, dt: 1.0 / 3.0, halt: None };
        Checkpoint::at(clock)
            .field("w", vec![1.5, -0.0, f32::MIN_POSITIVE, 3.0e38])
            .field("empty", vec![])
            .flag("wet", vec![0, 1, 1])
            .value("rate", std::f64::consts::PI)
            // f64 whatever the precision: 0.1 + 0.2 would not survive f32.
            .record("times", vec![0.0, 0.1 + 0.2, f64::MAX])
            .record("none", vec![])
    }

    fn meta() -> Meta {
        Meta {
            solver: "kp".into(),
            precision: Precision::F32,
            backend: "cpu",
            case: CASE.into(),
            base: CASE.into(),
            checkpoints: 3,
            inputs: vec![InputFile {
                key: "initial.raster.bed".into(),
                path: "dem.asc".into(),
                hash: crate::hash::fnv1a(b"dem"),
            }],
        }
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = crate::output::test_dir(&format!("checkpoint-{tag}"));
        d.join(CHECKPOINT_FILE)
    }

    #[test]
    fn round_trip_is_bit_for_bit() {
        let path = scratch("round");
        write(&path, &meta(), &sample()).unwrap();
        // The same case but another directory, progress interval, step limit and GPUs.
        let other = "solver = \"kp\"\n[grid]\nnx = 4\n[output]\ndir = \"b\"\n[run]\nmax_steps = 9\ngpus = 2\n";
        let r = Restart::open(&path, &info(other), Precision::F32, "cpu").unwrap();
        assert_eq!(r.checkpoints(), 3);
        let back = r.state::<f32>().unwrap();
        let want = sample();
        assert_eq!(back.clock.t.to_bits(), want.clock.t.to_bits());
        assert_eq!(back.clock.dt.to_bits(), want.clock.dt.to_bits());
        let bits = |c: &Checkpoint<f32>| -> Vec<Vec<u32>> {
            c.fields.iter().map(|(_, d)| d.iter().map(|v| v.to_bits()).collect()).collect()
        };
        assert_eq!(bits(&back), bits(&want));
        assert_eq!(back, want);
        assert!(r.state::<f64>().is_err());
    }

    #[test]
    fn refusals_name_what_differs() {
        let path = scratch("refuse");
        write(&path, &meta(), &sample()).unwrap();
        let refuse = |i: CaseInfo, p, b| Restart::open(&path, &i, p, b).unwrap_err().to_string();
        let e = refuse(info(&CASE.replace("nx = 4", "nx = 5")), Precision::F32, "cpu");
        assert!(e.contains("another case") && e.contains("grid.nx is 4 there and 5 here"), "{e}");
        let e = refuse(info(&format!("{CASE}[time]\nt_end = 2\n")), Precision::F32, "cpu");
        assert!(e.contains("time is not set there"), "{e}");
        let e = refuse(info(CASE), Precision::F64, "cpu");
        assert!(e.contains("taken in f32") && e.contains("--precision f32"), "{e}");
        let e = refuse(info(CASE), Precision::F32, "gpu");
        assert!(e.contains("on the cpu") && e.contains("--backend cpu"), "{e}");
        let e = refuse(CaseInfo { solver: "claw", ..info(CASE) }, Precision::F32, "cpu");
        assert!(e.contains("solver kp, not of claw"), "{e}");
        assert!(e.starts_with(&format!("checkpoint {}", path.display())), "{e}");
        let e = refuse(info_reading(CASE, b"dem raised"), Precision::F32, "cpu");
        assert!(e.starts_with("--restart: dem.asc changed since the checkpoint was written (hash "), "{e}");
        assert!(e.ends_with("restart from the same inputs"), "{e}");
        let mut none = info(CASE);
        none.inputs = Default::default();
        let e = refuse(none, Precision::F32, "cpu");
        assert!(e.contains("read dem.asc (initial.raster.bed), which this run does not"), "{e}");
    }

    #[test]
    fn a_restart_takes_the_flags_of_the_run_it_continues() {
        let path = scratch("continue");
        let base = "solver = \"kp\"\n[grid]\nnx = 4\n[time]\nt_end = 30.0\n[output]\nsnapshots = [5.0]\n";
        // The run was given --checkpoint-every 10 and --t-end 40 (which clears the snapshots).
        let case = "solver = \"kp\"\n[grid]\nnx = 4\n[time]\nt_end = 40.0\n[output]\ncheckpoint_every = 10.0\n";
        let m = Meta { case: case.into(), base: base.into(), ..meta() };
        write(&path, &m, &sample()).unwrap();
        let named = |text: &str| crate::case::CaseDoc::parse(crate::case::Origin::File("t.toml".into()), text.into());
        let mut doc = named(base).unwrap();
        continue_case(&mut doc, &path).unwrap();
        assert_eq!(doc.get("output.checkpoint_every").as_deref(), Some("10.0"));
        assert_eq!(doc.get("time.t_end").as_deref(), Some("40.0"));
        assert_eq!(doc.get("output.snapshots"), None);
        assert_eq!(case_difference(case, &doc.text(), 0.3), None);
        // A key the case file changed since stays as it is now (and the restart refuses it).
        let mut doc = named(&base.replace("nx = 4", "nx = 5")).unwrap();
        continue_case(&mut doc, &path).unwrap();
        assert_eq!(doc.get("grid.nx").as_deref(), Some("5"));
        let e = case_difference(case, &doc.text(), 0.3).unwrap();
        assert_eq!(e, "grid.nx is 4 there and 5 here");
        // Another solver's case is left alone.
        let mut doc = named("solver = \"claw\"\n").unwrap();
        continue_case(&mut doc, &path).unwrap();
        assert_eq!(doc.get("output.checkpoint_every"), None);
    }

    #[test]
    fn a_continued_run_may_end_later_and_change_its_snapshots() {
        let there = "[time]\nt_end = 30.0\n[output]\nsnapshots = [10.0, 25.0]\ncheckpoint_every = 10.0\n";
        let here = |t: &str, snaps: &str| format!("[time]\nt_end = {t}\n[output]\n{snaps}checkpoint_every = 10.0\n");
        assert_eq!(case_difference(there, &here("40", ""), 20.0), None);
        assert_eq!(case_difference(there, &here("40.0", "snapshots = [35.0]\n"), 20.0), None);
        assert_eq!(case_difference(there, &here("30.0", "snapshots = [22.0]\n"), 20.0), None);
        let e = case_difference(there, &here("25.0", ""), 20.0).unwrap();
        assert_eq!(e, "time.t_end is 30.0 there and 25.0 here");
        let e = case_difference(there, &here("40", "").replace("10.0\n", "5.0\n"), 20.0).unwrap();
        assert_eq!(e, "output.checkpoint_every is 10.0 there and 5.0 here");
    }

    #[test]
    fn truncated_damaged_and_foreign_files_are_refused() {
        let path = scratch("damage");
        write(&path, &meta(), &sample()).unwrap();
        let good = std::fs::read(&path).unwrap();
        let open = || Restart::open(&path, &info(CASE), Precision::F32, "cpu").map(|_| ()).unwrap_err().to_string();
        for cut in [0, 10, 30, good.len() / 2, good.len() - 1] {
            std::fs::write(&path, &good[..cut]).unwrap();
            let e = open();
            assert!(e.contains("truncated or damaged"), "cut at {cut}: {e}");
        }
        for at in [20, good.len() - 20, good.len() - 2] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            assert!(open().contains("checksum does not match"), "flip at {at}");
        }
        std::fs::write(&path, b"solver = \"kp\"\n").unwrap();
        assert!(open().contains("not a hydrokern checkpoint"));
        std::fs::remove_file(&path).unwrap();
        assert!(open().contains(&path.display().to_string()));
    }

    #[test]
    fn another_version_or_format_is_refused() {
        let path = scratch("version");
        write(&path, &meta(), &sample()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        // Rewrite the header's version with a valid checksum: only the version check can refuse.
        let (header, data) = parse(&bytes).unwrap();
        for (field, want) in [("hydrokern", "written by hydrokern 0.0.0-old"), ("format", "checkpoint format 99")] {
            let mut h = header.clone();
            if field == "format" {
                h.format = 99;
            } else {
                h.hydrokern = "0.0.0-old".into();
            }
            let json = serde_json::to_vec(&h).unwrap();
            let mut body = MAGIC.to_vec();
            body.extend((json.len() as u64).to_le_bytes());
            body.extend(&json);
            body.extend(data);
            body.extend(crc32fast::hash(&body).to_le_bytes());
            std::fs::write(&path, &body).unwrap();
            let e = Restart::open(&path, &info(CASE), Precision::F32, "cpu").unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn a_failed_write_leaves_the_previous_checkpoint() {
        let path = scratch("atomic");
        write(&path, &meta(), &sample()).unwrap();
        let before = std::fs::read(&path).unwrap();
        // A write that fails part-way (a full disk, say).
        let r = write_atomic_with(&path, |f| {
            f.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1, "a temporary file was left");
    }
}
