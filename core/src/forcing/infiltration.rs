//! `[forcing.infiltration]` of a shallow-water case: the soils under its cells ([`Soils`]).
//!
//! ```toml
//! [forcing.infiltration]
//! model = "green-ampt"        # or "horton" (f0, fc in mm/h, k in 1/h)
//! conductivity = 6.5          # K_s, mm/h: a number, or a raster of values per cell
//! suction = "suction.asc"     # ψ, mm
//! deficit = 0.34              # Δθ
//! ```
//!
//! or each cell's soil by its class:
//!
//! ```toml
//! [forcing.infiltration]
//! classes = "soil.asc"        # an integer raster
//! [forcing.infiltration.class.1]
//! conductivity = 10.9
//! suction = 110.1
//! deficit = 0.3
//! ```
//!
//! Rasters are sampled at the cell centres by the cell each centre lies in (nearest): classes
//! cannot be interpolated, and parameters keep the values the soil map gives.

use super::{Domain, GreenAmpt, Horton, Soil, Soils};
use crate::Result;
use crate::case::{Check, num};
use crate::grid::Grid2;
use crate::input::{Raster, Resample, case_raster};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// `[forcing.infiltration]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InfiltrationKeys {
    #[serde(default = "green_ampt")]
    model: String,
    conductivity: Option<Param>,
    suction: Option<Param>,
    deficit: Option<Param>,
    f0: Option<Param>,
    fc: Option<Param>,
    k: Option<Param>,
    /// A raster of each cell's class.
    classes: Option<PathBuf>,
    /// `[forcing.infiltration.class.<id>]`: each class's parameters.
    #[serde(default)]
    class: BTreeMap<String, ClassKeys>,
}

fn green_ampt() -> String {
    "green-ampt".into()
}

/// A parameter: one value, or a raster of values per cell.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a number, or the path of a raster of values per cell")]
enum Param {
    Value(f64),
    Raster(PathBuf),
}

/// `[forcing.infiltration.class.<id>]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassKeys {
    /// What the class is, for people (not used).
    #[allow(dead_code)]
    name: Option<String>,
    conductivity: Option<f64>,
    suction: Option<f64>,
    deficit: Option<f64>,
    f0: Option<f64>,
    fc: Option<f64>,
    k: Option<f64>,
}

/// The largest conductivity or infiltration capacity accepted, mm/h: above coarse gravel's
/// (Rawls et al.'s sand is 117.8 mm/h), so a larger value is a unit mistake (m/s or mm/s given
/// as mm/h…).
const MAX_RATE: f64 = 1e4;
/// The largest suction head accepted, mm: heavy clay's is about 316 mm (Rawls et al.).
const MAX_SUCTION: f64 = 1e4;
/// The largest Horton decay constant accepted, 1/h: soils' are a few per hour.
const MAX_DECAY: f64 = 1e3;

/// One of a model's three parameters: its key, what it is (for messages), its unit in a case,
/// the factor to SI, and its range (the upper end open or not; the lower end is 0, open or not).
struct Key {
    name: &'static str,
    what: &'static str,
    unit: &'static str,
    factor: f64,
    low_open: bool,
    high: f64,
    high_open: bool,
}

/// A model: its parameters, the soil from their SI values, and a condition between them.
struct Model {
    name: &'static str,
    keys: [Key; 3],
    soil: fn([f64; 3]) -> Soil,
    /// Why three values in the case's units do not make a soil, beyond each one's range.
    relation: fn([f64; 3]) -> Option<String>,
}

const MM_H: f64 = 1e-3 / 3600.0;

const GREEN_AMPT: Model = Model {
    name: "green-ampt",
    keys: [
        Key {
            name: "conductivity",
            what: "saturated hydraulic conductivity",
            unit: " mm/h",
            factor: MM_H,
            low_open: false,
            high: MAX_RATE,
            high_open: false,
        },
        Key {
            name: "suction",
            what: "wetting-front suction head",
            unit: " mm",
            factor: 1e-3,
            low_open: false,
            high: MAX_SUCTION,
            high_open: false,
        },
        Key {
            name: "deficit",
            what: "moisture deficit, a fraction of the soil's volume",
            unit: "",
            factor: 1.0,
            low_open: false,
            high: 1.0,
            high_open: true,
        },
    ],
    soil: |[ks, suction, deficit]| Soil::GreenAmpt(GreenAmpt { ks, suction, deficit }),
    relation: |_| None,
};

const HORTON: Model = Model {
    name: "horton",
    keys: [
        Key {
            name: "f0",
            what: "initial infiltration capacity",
            unit: " mm/h",
            factor: MM_H,
            low_open: false,
            high: MAX_RATE,
            high_open: false,
        },
        Key {
            name: "fc",
            what: "final infiltration capacity",
            unit: " mm/h",
            factor: MM_H,
            low_open: false,
            high: MAX_RATE,
            high_open: false,
        },
        Key {
            name: "k",
            what: "decay constant",
            unit: "/h",
            factor: 1.0 / 3600.0,
            low_open: true,
            high: MAX_DECAY,
            high_open: false,
        },
    ],
    soil: |[f0, fc, k]| Soil::Horton(Horton { f0, fc, k }),
    relation: |[f0, fc, _]| {
        (fc > f0)
            .then(|| format!("fc = {} mm/h exceeds f0 = {} mm/h: the capacity decays from f0 to fc", num(fc), num(f0)))
    },
};

impl Key {
    /// Why `v` (the case's units) is out of range, if it is.
    fn out_of_range(&self, v: f64) -> Option<String> {
        let low_ok = if self.low_open { v > 0.0 } else { v >= 0.0 };
        let high_ok = if self.high_open { v < self.high } else { v <= self.high };
        if v.is_finite() && low_ok && high_ok {
            return None;
        }
        let (l, h) = (if self.low_open { "(" } else { "[" }, if self.high_open { ")" } else { "]" });
        Some(format!("{}: must lie in {l}0, {}{h}{} ({})", num(v), num(self.high), self.unit, self.what))
    }
}

const ROOT: &str = "forcing.infiltration";

/// The soils `[forcing.infiltration]` puts under the domain's cells, in SI; every value checked.
/// Rasters are read at the cells of the domain: a cell outside it takes the first soil.
pub(super) fn load(c: &Check, i: &InfiltrationKeys, domain: Domain) -> Result<Soils> {
    let model = match i.model.as_str() {
        "green-ampt" => &GREEN_AMPT,
        "horton" => &HORTON,
        m => {
            return c
                .fail(&format!("{ROOT}.model"), format!("'{m}': the infiltration models are green-ampt and horton"));
        }
    };
    let given = [
        ("conductivity", &i.conductivity),
        ("suction", &i.suction),
        ("deficit", &i.deficit),
        ("f0", &i.f0),
        ("fc", &i.fc),
        ("k", &i.k),
    ];
    for (name, p) in given {
        if p.is_some() && !model.keys.iter().any(|k| k.name == name) {
            return c.fail(
                &format!("{ROOT}.{name}"),
                format!("not a parameter of {}, whose are {}", model.name, names(model)),
            );
        }
    }
    let params: Vec<&Option<Param>> =
        model.keys.iter().map(|k| given.iter().find(|(n, _)| *n == k.name).map_or(&None, |(_, p)| *p)).collect();
    match &i.classes {
        Some(path) => classes(c, model, i, &params, path, domain),
        None => {
            if let Some(id) = i.class.keys().next() {
                return c.fail(
                    &format!("{ROOT}.class.{id}"),
                    "a class's soil without classes, the raster of each cell's class",
                );
            }
            parameters(c, model, &params, domain)
        }
    }
}

/// A model's parameter keys, for messages.
fn names(model: &Model) -> String {
    model.keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
}

/// Each parameter a number or a raster: one soil, or a table of the distinct soils the cells
/// have.
fn parameters(c: &Check, model: &Model, params: &[&Option<Param>], domain: Domain) -> Result<Soils> {
    let (grid, active) = (domain.grid, domain.active);
    let n = grid.nx * grid.ny;
    let inside = |k: usize| domain.inside(k);
    // Each parameter's values in the case's units: one, or one a cell.
    let mut columns: Vec<Vec<f64>> = Vec::with_capacity(3);
    let mut rasters: Vec<Option<String>> = Vec::with_capacity(3);
    for (key, p) in model.keys.iter().zip(params) {
        let full = format!("{ROOT}.{}", key.name);
        match p {
            None => {
                return c.fail(&full, format!("missing: the {}{} of {}", key.what, key.unit, model.name));
            }
            Some(Param::Value(v)) => {
                if let Some(why) = key.out_of_range(*v) {
                    return c.fail(&full, why);
                }
                columns.push(vec![*v]);
                rasters.push(None);
            }
            Some(Param::Raster(path)) => {
                let r = case_raster(c.doc(), &full, path)?;
                let values =
                    r.at_active_centres(grid, Resample::Nearest, active).map_err(|e| c.doc().invalid(&full, e))?;
                if let Some(k) = (0..n).find(|&k| inside(k) && key.out_of_range(values[k]).is_some()) {
                    let why = key.out_of_range(values[k]).unwrap_or_default();
                    return c.fail(&full, format!("{}: {why} at {}", r.name, cell(grid, k)));
                }
                columns.push(values);
                rasters.push(Some(r.name));
            }
        }
    }
    let at = |col: &[f64], k: usize| if col.len() == 1 { col[0] } else { col[k] };
    let varies = columns.iter().any(|col| col.len() > 1);
    let cells = if varies { n } else { 1 };
    let mut soils: Vec<Soil> = Vec::new();
    let mut index: Vec<u32> = Vec::with_capacity(if varies { n } else { 0 });
    let mut seen: HashMap<[u64; 3], u32> = HashMap::new();
    for k in 0..cells {
        if varies && !inside(k) {
            // Outside the domain: the first soil, once there is one (fixed after the loop).
            index.push(u32::MAX);
            continue;
        }
        let v = [at(&columns[0], k), at(&columns[1], k), at(&columns[2], k)];
        if let Some(why) = (model.relation)(v) {
            // The relation concerns the second parameter (fc against f0).
            let key = format!("{ROOT}.{}", model.keys[1].name);
            let place = if varies { format!(" at {}", cell(grid, k)) } else { String::new() };
            let file = rasters.iter().flatten().next().map_or(String::new(), |f| format!("{f}: "));
            return c.fail(&key, format!("{file}{why}{place}"));
        }
        let e = *seen.entry(v.map(f64::to_bits)).or_insert_with(|| {
            soils.push(si(model, v));
            (soils.len() - 1) as u32
        });
        if varies {
            index.push(e);
        }
    }
    one_or_per_cell(c, soils, index)
}

/// One soil where the domain's cells have one, else a soil per cell (`index`, `u32::MAX` for a
/// cell outside the domain, which takes the first).
fn one_or_per_cell(c: &Check, soils: Vec<Soil>, mut index: Vec<u32>) -> Result<Soils> {
    if soils.len() == 1 {
        return Ok(Soils::from(soils[0]));
    }
    for e in index.iter_mut().filter(|e| **e == u32::MAX) {
        *e = 0;
    }
    Soils::per_cell(soils, index).map_err(|e| c.doc().invalid(ROOT, e))
}

/// The soil of three values in the case's units.
fn si(model: &Model, v: [f64; 3]) -> Soil {
    (model.soil)([v[0] * model.keys[0].factor, v[1] * model.keys[1].factor, v[2] * model.keys[2].factor])
}

/// Interior cell `k` of `grid` for messages: its (i, j) and centre.
fn cell(grid: &Grid2, k: usize) -> String {
    let (i, j) = (k % grid.nx, k / grid.nx);
    let (x, y) = grid.centre(i, j);
    format!("the grid's cell ({i}, {j}) (x = {} m, y = {} m)", num(x), num(y))
}

/// Each cell's soil by its class in the raster at `path`, from the `class` tables.
fn classes(
    c: &Check,
    model: &Model,
    i: &InfiltrationKeys,
    params: &[&Option<Param>],
    path: &std::path::Path,
    domain: Domain,
) -> Result<Soils> {
    let (grid, active) = (domain.grid, domain.active);
    if let Some(key) = model.keys.iter().zip(params).find(|(_, p)| p.is_some()).map(|(k, _)| k.name) {
        return c.fail(
            &format!("{ROOT}.{key}"),
            "given with classes: each class's parameters come from its [forcing.infiltration.class.<id>] table",
        );
    }
    if i.class.is_empty() {
        return c.fail(
            &format!("{ROOT}.class"),
            "missing: a [forcing.infiltration.class.<id>] table of parameters for each class of the raster",
        );
    }
    // The table: each class id's soil.
    let mut soils: Vec<Soil> = Vec::with_capacity(i.class.len());
    let mut ids: HashMap<i64, u32> = HashMap::new();
    for (id, keys) in &i.class {
        let at = format!("{ROOT}.class.{id}");
        let Ok(number) = id.parse::<i64>() else {
            return c.fail(&at, format!("'{id}': a class is the integer the raster holds"));
        };
        let given = [
            ("conductivity", keys.conductivity),
            ("suction", keys.suction),
            ("deficit", keys.deficit),
            ("f0", keys.f0),
            ("fc", keys.fc),
            ("k", keys.k),
        ];
        let mut v = [0.0; 3];
        for (name, value) in given {
            let Some(value) = value else { continue };
            match model.keys.iter().position(|k| k.name == name) {
                Some(p) => v[p] = value,
                None => {
                    return c.fail(
                        &format!("{at}.{name}"),
                        format!("not a parameter of {}, whose are {}", model.name, names(model)),
                    );
                }
            }
        }
        for (p, key) in model.keys.iter().enumerate() {
            let full = format!("{at}.{}", key.name);
            let Some(value) = given.iter().find(|(n, _)| *n == key.name).and_then(|(_, v)| *v) else {
                return c.fail(&full, format!("missing: the {}{} of class {id}", key.what, key.unit));
            };
            if let Some(why) = key.out_of_range(value) {
                return c.fail(&full, why);
            }
            v[p] = value;
        }
        if let Some(why) = (model.relation)(v) {
            return c.fail(&format!("{at}.{}", model.keys[1].name), why);
        }
        if ids.insert(number, soils.len() as u32).is_some() {
            return c.fail(&at, format!("class {number} given twice"));
        }
        soils.push(si(model, v));
    }
    let key = format!("{ROOT}.classes");
    let r: Raster = case_raster(c.doc(), &key, path)?;
    let values = r.at_active_centres(grid, Resample::Nearest, active).map_err(|e| c.doc().invalid(&key, e))?;
    let mut index = Vec::with_capacity(values.len());
    for (k, &v) in values.iter().enumerate() {
        if !domain.inside(k) {
            index.push(u32::MAX);
            continue;
        }
        if v.fract() != 0.0 || v.abs() > 1e15 {
            return c.fail(&key, format!("{}: {} at {}: a class is an integer", r.name, num(v), cell(grid, k)));
        }
        match ids.get(&(v as i64)) {
            Some(&e) => index.push(e),
            None => {
                return c.fail(
                    &key,
                    format!(
                        "{}: class {} at {} has no [forcing.infiltration.class.{}] table",
                        r.name,
                        v as i64,
                        cell(grid, k),
                        v as i64
                    ),
                );
            }
        }
    }
    // One class in the domain is one soil: the cheap path without a soil per cell.
    let mut inside = index.iter().copied().filter(|&e| e != u32::MAX);
    if let Some(first) = inside.next()
        && inside.all(|e| e == first)
    {
        return Ok(Soils::from(soils[first as usize]));
    }
    one_or_per_cell(c, soils, index)
}
