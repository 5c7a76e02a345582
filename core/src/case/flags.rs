//! Command-line flags as overrides of case keys: `--nx 512` is `grid.nx = 512`. A solver lists
//! its flags once; the command line is built from that list and every value lands in the case
//! document, so a flag and its key are validated by the same code and `--write-case` writes
//! exactly what would run.

use super::CaseDoc;
use crate::{Error, Result};
use toml_edit::{Array, Value};

/// The flags every case takes besides its solver's: overrides of the shared `[run]` and
/// `[output]` sections, validated by the case reader like the keys themselves.
pub static COMMON_FLAGS: &[Flag] = &[
    Flag::new("output", "DIR", Set::Text("output.dir"), "output directory (output.dir)"),
    Flag::new("max-steps", "N", Set::Int("run.max_steps"), "refuse or stop a run past this many steps (run.max_steps)"),
    Flag::new(
        "progress",
        "SECONDS",
        Set::Float("output.progress"),
        "wall-clock seconds between progress lines (output.progress)",
    ),
    Flag::new(
        "checkpoint-every",
        "T",
        Set::Float("output.checkpoint_every"),
        "simulated time between checkpoints of the whole state, to continue with --restart (output.checkpoint_every)",
    ),
    Flag::new("backend", "auto|gpu|cpu", Set::Text("run.backend"), "where to run (run.backend)"),
    Flag::new(
        "gpus",
        "N",
        Set::Int("run.gpus"),
        "use the first N GPUs of each host, rank l of a host on GPU l mod N; more than a host has is an error (run.gpus; default: every GPU there)",
    ),
    Flag::new(
        "precision",
        "f32|f64|mixed",
        Set::Text("run.precision"),
        "precision of fields and kernels (run.precision; mixed: the conserved level in f64, the rest in f32: sediment's h, shallow water's w with rk2 or euler)",
    ),
];

/// How a flag's value becomes case keys.
#[derive(Clone, Copy, Debug)]
pub enum Set {
    /// A whole number at the key.
    Int(&'static str),
    /// A whole number at both keys, the second only where the case gives it: `--nx` sets the
    /// cells in x and, unless a flag after it says otherwise, in y (a grid over a raster that
    /// leaves y out keeps the raster's aspect instead).
    IntBoth(&'static str, &'static str),
    /// A number at the key.
    Float(&'static str),
    /// A string at the key.
    Text(&'static str),
    /// Comma-separated numbers as an array at the key.
    Floats(&'static str),
    /// Comma-separated whole numbers as an array at the key.
    Ints(&'static str),
    /// A switch without a value: `true` at the key.
    Switch(&'static str),
    /// A shape `AxB` (e.g. a block of 32x8 threads) as the array `[A, B]` at the key.
    Pair(&'static str),
    /// The solver's own rule, for values that set several keys (one boundary condition for all
    /// sides, or four).
    Custom(Rule),
}

/// A solver's own rule: the keys and values a flag's text sets, or why the text is wrong.
pub type Rule = fn(&str) -> std::result::Result<Vec<(&'static str, Value)>, String>;

/// One command-line flag of a solver.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// `nx` for `--nx`.
    pub name: &'static str,
    /// The value's name in the help (`N`, `SECONDS`, `LIST`); empty for a switch.
    pub value: &'static str,
    pub help: &'static str,
    pub set: Set,
    /// Keys the flag removes (an alternative it replaces: `--steps` clears `time.t_end`).
    pub clears: &'static [&'static str],
}

impl Flag {
    pub const fn new(name: &'static str, value: &'static str, set: Set, help: &'static str) -> Flag {
        Flag { name, value, help, set, clears: &[] }
    }

    /// The same flag, also removing `keys` when given.
    pub const fn clearing(self, keys: &'static [&'static str]) -> Flag {
        Flag { clears: keys, ..self }
    }

    /// Whether the flag takes no value.
    pub fn is_switch(&self) -> bool {
        matches!(self.set, Set::Switch(_))
    }

    /// The key the flag sets (its first, for a custom rule: none).
    pub fn key(&self) -> Option<&'static str> {
        match self.set {
            Set::Int(k)
            | Set::Float(k)
            | Set::Text(k)
            | Set::Floats(k)
            | Set::Ints(k)
            | Set::Switch(k)
            | Set::Pair(k) => Some(k),
            Set::IntBoth(k, _) => Some(k),
            Set::Custom(_) => None,
        }
    }

    /// Apply `raw` (the text after the flag) to `doc`. The keys it clears are kept where `keep`
    /// (the keys the command's other flags set) names them: a key set again keeps its place in
    /// the case, so that a restart, which applies the flags to the case its run recorded,
    /// records the same case text.
    pub fn apply(&self, doc: &mut CaseDoc, raw: &str, keep: &[&str]) -> Result<()> {
        let shown = if self.is_switch() { format!("--{}", self.name) } else { format!("--{} {raw}", self.name) };
        let bad = |why: String| Error::invalid(format!("{shown}: {why}"));
        let pairs: Vec<(&'static str, Value)> = match self.set {
            Set::Int(k) => vec![(k, int(raw).map_err(bad)?)],
            Set::IntBoth(a, b) => {
                let v = int(raw).map_err(bad)?;
                match doc.get(b) {
                    Some(_) => vec![(a, v.clone()), (b, v)],
                    None => vec![(a, v)],
                }
            }
            Set::Float(k) => vec![(k, float(raw).map_err(bad)?)],
            Set::Text(k) => vec![(k, Value::from(raw))],
            Set::Switch(k) => vec![(k, Value::from(true))],
            Set::Floats(k) => vec![(k, list(raw, float).map_err(bad)?)],
            Set::Ints(k) => vec![(k, list(raw, int).map_err(bad)?)],
            Set::Pair(k) => {
                let (a, b) = raw.split_once(['x', '×']).ok_or_else(|| bad("expected AxB, e.g. 32x8".into()))?;
                let mut arr = Array::new();
                arr.push(int(a).map_err(bad)?);
                arr.push(int(b).map_err(bad)?);
                vec![(k, Value::Array(arr))]
            }
            Set::Custom(f) => f(raw).map_err(bad)?,
        };
        for key in self.clears.iter().filter(|k| !keep.contains(k)) {
            doc.remove(key);
        }
        for (key, value) in pairs {
            doc.set(key, value, &shown)?;
        }
        Ok(())
    }
}

fn int(raw: &str) -> std::result::Result<Value, String> {
    raw.trim().parse::<i64>().map(Value::from).map_err(|_| format!("'{raw}' is not a whole number"))
}

fn float(raw: &str) -> std::result::Result<Value, String> {
    let v: f64 = raw.trim().parse().map_err(|_| format!("'{raw}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("'{raw}' is not a finite number"));
    }
    Ok(Value::from(v))
}

fn list(raw: &str, one: fn(&str) -> std::result::Result<Value, String>) -> std::result::Result<Value, String> {
    let mut arr = Array::new();
    for part in raw.split(',').filter(|p| !p.trim().is_empty()) {
        arr.push(one(part)?);
    }
    Ok(Value::Array(arr))
}

/// `--boundary`'s rule: one condition for all four sides, or four (west, east, south, north),
/// at the keys `boundary.west` … `boundary.north` (the solver's reader checks the names).
pub fn four_sides(raw: &str) -> std::result::Result<Vec<(&'static str, Value)>, String> {
    let parts: Vec<&str> = raw.split(',').map(str::trim).collect();
    let four = match parts.len() {
        1 => [parts[0]; 4],
        4 => [parts[0], parts[1], parts[2], parts[3]],
        n => return Err(format!("one condition or four (west,east,south,north), not {n}")),
    };
    let keys = ["boundary.west", "boundary.east", "boundary.south", "boundary.north"];
    Ok(keys.into_iter().zip(four).map(|(k, v)| (k, Value::from(v))).collect())
}

/// The flags of a 2D shallow-water-like case in seconds (`kp`, `claw`): the grid, the end
/// time and snapshots, and one boundary condition or four.
pub const NX: Flag = Flag::new(
    "nx",
    "N",
    Set::IntBoth("grid.nx", "grid.ny"),
    "cells in x (also in y unless --ny is given; a grid over a raster that leaves y out keeps its aspect)",
);
pub const NY: Flag = Flag::new("ny", "N", Set::Int("grid.ny"), "cells in y");
pub const T_END: Flag = Flag::new(
    "t-end",
    "SECONDS",
    Set::Float("time.t_end"),
    "simulated time (clears the case's snapshot times: give --snapshots for new ones)",
)
.clearing(&["output.snapshots"]);
pub const SNAPSHOTS: Flag = Flag::new(
    "snapshots",
    "T1,T2,..",
    Set::Floats("output.snapshots"),
    "times (s) to write snapshots at, besides the end",
);
pub const BOUNDARY: Flag = Flag::new(
    "boundary",
    "BC",
    Set::Custom(four_sides),
    "one condition for every side, or four (west,east,south,north): wall, outflow or periodic (shallow water also normal-depth: outflow over a bed that goes on falling)",
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Origin;

    /// A key that one flag clears and another sets again keeps its place, so that applying the
    /// same flags to the case a run recorded gives its text back; alone, the clearing flag
    /// removes it.
    #[test]
    fn a_key_set_again_keeps_its_place() {
        let text = "[time]\nt_end = 10.0\n\n[output]\nsnapshots = [5.0]\nformats = [\"npy\"]\n";
        let flags = [(&T_END, "4"), (&SNAPSHOTS, "2")];
        let keep: Vec<&str> = flags.iter().filter_map(|(f, _)| f.key()).collect();
        let applied = |text: &str| {
            let mut doc = CaseDoc::parse(Origin::File("case.toml".into()), text.to_string()).unwrap();
            for (f, v) in flags {
                f.apply(&mut doc, v, &keep).unwrap();
            }
            doc.text()
        };
        let once = applied(text);
        assert!(once.find("snapshots").unwrap() < once.find("formats").unwrap(), "{once}");
        assert_eq!(applied(&once), once);
        let mut doc = CaseDoc::parse(Origin::File("case.toml".into()), text.to_string()).unwrap();
        T_END.apply(&mut doc, "4", &[]).unwrap();
        assert_eq!(doc.get("output.snapshots"), None);
    }
}
