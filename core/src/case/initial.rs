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

impl Field {
    /// Whether its values come from a file (and are held whole).
    pub fn is_file(&self) -> bool {
        matches!(self, Field::Profile(Profile::File(_)))
    }
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
    let v = cells(c, key, field, mesh)?;
    Ok((0..mesh.cells()).map(|k| v.at(k)).collect())
}

/// A field's values on a mesh: each cell's worked out when it is asked for (a number or a
/// profile), or read from a file whole. A solver that reads them once, where it builds its
/// own arrays, holds no copy of a field given by a number or a profile.
#[derive(Clone, Debug)]
pub struct Values(How);

#[derive(Clone, Debug)]
enum How {
    Constant(f64),
    /// A profile over the cells of `mesh`.
    Profile(Mesh, Shape),
    Stored(Vec<f64>),
}

/// A profile, its centre and axis worked out.
#[derive(Clone, Debug)]
enum Shape {
    Disc { centre: [f64; 3], radius: f64, inside: f64, outside: f64 },
    Gaussian { centre: [f64; 3], width: f64, amplitude: f64, base: f64 },
    Halves { along: usize, at: f64, below: f64, above: f64 },
}

impl Values {
    /// The values `v` of every cell (x fastest), held.
    pub fn stored(v: Vec<f64>) -> Values {
        Values(How::Stored(v))
    }

    /// Whether the values are held (read from a file, or given whole), not worked out.
    pub fn is_stored(&self) -> bool {
        matches!(self.0, How::Stored(_))
    }

    /// The value of cell `k` (x fastest).
    #[inline]
    pub fn at(&self, k: usize) -> f64 {
        let distance2 = |p: [f64; 3], o: [f64; 3]| (0..3).map(|k| (p[k] - o[k]).powi(2)).sum::<f64>();
        match &self.0 {
            How::Constant(v) => *v,
            How::Stored(v) => v[k],
            How::Profile(mesh, shape) => {
                let p = mesh.centre(k);
                match *shape {
                    Shape::Disc { centre, radius, inside, outside } => {
                        if distance2(p, centre) <= radius * radius {
                            inside
                        } else {
                            outside
                        }
                    }
                    Shape::Gaussian { centre, width, amplitude, base } => {
                        base + amplitude * (-distance2(p, centre) / (width * width)).exp()
                    }
                    Shape::Halves { along, at, below, above } => {
                        if p[along] < at {
                            below
                        } else {
                            above
                        }
                    }
                }
            }
        }
    }
}

/// The field's [`Values`] on `mesh`, checked; `key` names it in messages.
pub fn cells(c: &Check, key: &str, field: &Field, mesh: &Mesh) -> Result<Values> {
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
    let profile = |shape| How::Profile(*mesh, shape);
    let how = match field {
        Field::Constant(v) => How::Constant(*v),
        Field::Profile(Profile::Disc { centre: at, radius, inside, outside }) => {
            c.positive(&format!("{key}.disc.radius"), *radius)?;
            for (k, v) in [("inside", inside), ("outside", outside)] {
                finite(c, &format!("{key}.disc.{k}"), *v)?;
            }
            profile(Shape::Disc { centre: centre("disc", at)?, radius: *radius, inside: *inside, outside: *outside })
        }
        Field::Profile(Profile::Gaussian { centre: at, width, amplitude, base }) => {
            c.positive(&format!("{key}.gaussian.width"), *width)?;
            for (k, v) in [("amplitude", amplitude), ("base", base)] {
                finite(c, &format!("{key}.gaussian.{k}"), *v)?;
            }
            profile(Shape::Gaussian {
                centre: centre("gaussian", at)?,
                width: *width,
                amplitude: *amplitude,
                base: *base,
            })
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
            profile(Shape::Halves { along, at: *at, below: *below, above: *above })
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
            How::Stored(data)
        }
    };
    Ok(Values(how))
}
