//! Initial data of a wave-propagation case: every state and auxiliary field named by the
//! solver (`Riemann::FIELDS`, `Riemann::AUX`) gets a value in `[initial]`, either a number or
//! one profile: a disc, a Gaussian, two half-planes, or an NPY file of shape (ny, nx).
//!
//! ```toml
//! [initial]
//! h = { disc = { radius = 0.25, inside = 2.0, outside = 1.0 } }
//! hu = 0.0
//! hv = 0.0
//! ```

use crate::Result;
use crate::case::Check;
use crate::grid::Grid2;
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
    Disc { centre: Option<[f64; 2]>, radius: f64, inside: f64, outside: f64 },
    /// base + amplitude·exp(−r²/width²), r the distance from `centre`.
    Gaussian { centre: Option<[f64; 2]>, width: f64, amplitude: f64, base: f64 },
    /// `below` where the coordinate along `axis` ("x" or "y") is under `at`, `above` elsewhere
    /// (two media, say).
    Halves { axis: String, at: f64, below: f64, above: f64 },
    /// The values of an NPY file of shape (ny, nx), row-major with x fastest.
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
    if v.is_finite() { Ok(v) } else { c.fail(key, format!("{v}: must be finite")) }
}

/// The field's values on `grid`, row-major; `key` names it in messages.
pub fn values(c: &Check, key: &str, field: &Field, grid: &Grid2) -> Result<Vec<f64>> {
    let (nx, ny) = (grid.nx, grid.ny);
    let (lx, ly) = grid.extent();
    let centre = |at: Option<[f64; 2]>| at.unwrap_or([grid.origin.0 + 0.5 * lx, grid.origin.1 + 0.5 * ly]);
    let each = |f: &dyn Fn(f64, f64) -> f64| -> Vec<f64> {
        (0..nx * ny)
            .map(|k| {
                let (x, y) = grid.centre(k % nx, k / nx);
                f(x, y)
            })
            .collect()
    };
    Ok(match field {
        Field::Constant(v) => vec![*v; nx * ny],
        Field::Profile(Profile::Disc { centre: at, radius, inside, outside }) => {
            c.positive(&format!("{key}.disc.radius"), *radius)?;
            for (k, v) in [("inside", inside), ("outside", outside)] {
                finite(c, &format!("{key}.disc.{k}"), *v)?;
            }
            let [cx, cy] = centre(*at);
            each(&|x, y| if (x - cx).hypot(y - cy) <= *radius { *inside } else { *outside })
        }
        Field::Profile(Profile::Gaussian { centre: at, width, amplitude, base }) => {
            c.positive(&format!("{key}.gaussian.width"), *width)?;
            for (k, v) in [("amplitude", amplitude), ("base", base)] {
                finite(c, &format!("{key}.gaussian.{k}"), *v)?;
            }
            let [cx, cy] = centre(*at);
            each(&|x, y| base + amplitude * (-((x - cx).powi(2) + (y - cy).powi(2)) / (width * width)).exp())
        }
        Field::Profile(Profile::Halves { axis, at, below, above }) => {
            let along_x = match axis.as_str() {
                "x" => true,
                "y" => false,
                other => return c.fail(&format!("{key}.halves.axis"), format!("'{other}': expected x or y")),
            };
            for (k, v) in [("at", at), ("below", below), ("above", above)] {
                finite(c, &format!("{key}.halves.{k}"), *v)?;
            }
            each(&|x, y| if (if along_x { x } else { y }) < *at { *below } else { *above })
        }
        Field::Profile(Profile::File(path)) => {
            let path = c.path(path);
            let fkey = format!("{key}.file");
            let (data, dims) = crate::output::read_npy_f64(&path).map_err(|e| c.doc().invalid(&fkey, e))?;
            if dims != [ny, nx] {
                return c.fail(&fkey, format!("{}: shape {dims:?}; expected [{ny}, {nx}] (ny, nx)", path.display()));
            }
            if let Some(k) = data.iter().position(|v| !v.is_finite()) {
                return c.fail(&fkey, format!("{}: value [{}, {}] is {}", path.display(), k / nx, k % nx, data[k]));
            }
            data
        }
    })
}
