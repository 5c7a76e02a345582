//! Initial fields as case files give them (`[initial]`): each field a solver names gets either
//! a number or one profile: a disc (a ball in 3D), a Gaussian, two half-planes (half-spaces), or an NPY
//! file of shape (ny, nx), or (nz, ny, nx) in 3D. Centres are (x, y), or (x, y, z) in 3D.
//!
//! ```toml
//! [initial]
//! h = { disc = { radius = 0.25, inside = 2.0, outside = 1.0 } }
//! hu = 0.0
//! hv = 0.0
//! ```

use crate::Result;
use crate::case::Check;
use crate::grid::Mesh;
use serde::Deserialize;
use std::path::PathBuf;

/// How one field starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    Constant(f64),
    Profile(Profile),
}

/// A field's profile over the grid; centres default to the domain's.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Profile {
    /// `inside` within `radius` of `centre`, `outside` elsewhere.
    Disc { centre: Option<Vec<f64>>, radius: f64, inside: f64, outside: f64 },
    /// base + amplitude·exp(−r²/width²), r the distance from `centre`.
    Gaussian { centre: Option<Vec<f64>>, width: f64, amplitude: f64, base: f64 },
    /// `below` where the coordinate along `axis` ("x", "y", or in 3D "z") is under `at`,
    /// `above` elsewhere (two media, say).
    Halves { axis: String, at: f64, below: f64, above: f64 },
    /// The values of an NPY file of shape (ny, nx) or (nz, ny, nx), x fastest.
    File(PathBuf),
}

/// Reads `[initial]`: the value of each of `names` (the solver's fields, then its auxiliary
/// fields), failing on a missing one and on any name that is not the solver's.
pub fn read(c: &Check, table: &toml::Table, names: &[&str], solver: &str) -> Result<Vec<Field>> {
    if let Some(extra) = table.keys().find(|k| !names.contains(&k.as_str())) {
        return c.fail(
            &format!("initial.{extra}"),
            format!("{solver} has no field '{extra}' (its fields: {})", names.join(", ")),
        );
    }
    names
        .iter()
        .map(|&name| {
            let key = format!("initial.{name}");
            match table.get(name) {
                None => c.fail(&key, format!("missing: {solver} needs every one of {}", names.join(", "))),
                Some(toml::Value::Float(v)) => finite(c, &key, *v).map(Field::Constant),
                Some(toml::Value::Integer(v)) => Ok(Field::Constant(*v as f64)),
                Some(v @ toml::Value::Table(_)) => Profile::deserialize(v.clone())
                    .map(Field::Profile)
                    .or_else(|e| c.fail(&key, crate::case::first_line(&e.to_string()))),
                Some(v) => c.fail(&key, format!("{v}: a number or a profile (disc, gaussian, halves, file)")),
            }
        })
        .collect()
}

fn finite(c: &Check, key: &str, v: f64) -> Result<f64> {
    if v.is_finite() { Ok(v) } else { c.fail(key, format!("{}: must be finite", super::num(v))) }
}

/// The field's values on `mesh`, x fastest; `key` names it in messages.
pub fn values(c: &Check, key: &str, field: &Field, mesh: &Mesh) -> Result<Vec<f64>> {
    let cells = mesh.cells();
    let dims = mesh.dims().len();
    let mid = |k: usize| (mesh.centre(0)[k] + mesh.centre(cells - 1)[k]) / 2.0;
    // The centre a profile gives (as many coordinates as the mesh has axes), or the domain's.
    let centre = |name: &str, at: &Option<Vec<f64>>| -> Result<[f64; 3]> {
        match at {
            None => Ok([mid(0), mid(1), mid(2)]),
            Some(v) if v.len() == dims && v.iter().all(|x| x.is_finite()) => {
                Ok([v[0], v[1], v.get(2).copied().unwrap_or(0.0)])
            }
            Some(v) => {
                let what = if dims == 3 { "three finite numbers (x, y, z)" } else { "two finite numbers (x, y)" };
                c.fail(&format!("{key}.{name}.centre"), format!("{v:?}: must be {what}"))
            }
        }
    };
    let each = |f: &dyn Fn([f64; 3]) -> f64| -> Vec<f64> { (0..cells).map(|k| f(mesh.centre(k))).collect() };
    let distance2 = |p: [f64; 3], o: [f64; 3]| (0..3).map(|k| (p[k] - o[k]).powi(2)).sum::<f64>();
    Ok(match field {
        Field::Constant(v) => vec![*v; cells],
        Field::Profile(Profile::Disc { centre: at, radius, inside, outside }) => {
            c.positive(&format!("{key}.disc.radius"), *radius)?;
            for (k, v) in [("inside", inside), ("outside", outside)] {
                finite(c, &format!("{key}.disc.{k}"), *v)?;
            }
            let o = centre("disc", at)?;
            each(&|p| if distance2(p, o) <= radius * radius { *inside } else { *outside })
        }
        Field::Profile(Profile::Gaussian { centre: at, width, amplitude, base }) => {
            c.positive(&format!("{key}.gaussian.width"), *width)?;
            for (k, v) in [("amplitude", amplitude), ("base", base)] {
                finite(c, &format!("{key}.gaussian.{k}"), *v)?;
            }
            let o = centre("gaussian", at)?;
            each(&|p| base + amplitude * (-distance2(p, o) / (width * width)).exp())
        }
        Field::Profile(Profile::Halves { axis, at, below, above }) => {
            let along = match (axis.as_str(), dims) {
                ("x", _) => 0,
                ("y", _) => 1,
                ("z", 3) => 2,
                (other, _) => {
                    let expected = if dims == 3 { "x, y or z" } else { "x or y" };
                    return c.fail(&format!("{key}.halves.axis"), format!("'{other}': expected {expected}"));
                }
            };
            for (k, v) in [("at", at), ("below", below), ("above", above)] {
                finite(c, &format!("{key}.halves.{k}"), *v)?;
            }
            each(&|p| if p[along] < *at { *below } else { *above })
        }
        Field::Profile(Profile::File(path)) => {
            let path = c.path(path);
            let fkey = format!("{key}.file");
            let (data, shape) = c.read_npy(&fkey, &path).map_err(|e| c.doc().invalid(&fkey, e))?;
            let expected = mesh.dims();
            if shape != expected {
                let axes = if dims == 3 { "(nz, ny, nx)" } else { "(ny, nx)" };
                return c.fail(&fkey, format!("{}: shape {shape:?}; expected {expected:?} {axes}", path.display()));
            }
            if let Some(k) = data.iter().position(|v| !v.is_finite()) {
                return c.fail(&fkey, format!("{}: value {:?} is {}", path.display(), mesh.index(k), data[k]));
            }
            data
        }
    })
}
