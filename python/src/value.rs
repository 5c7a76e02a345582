//! Case values between TOML and Python: what `case["grid.nx"]` reads and what
//! `case["grid.nx"] = 512` writes.

use crate::errors::refuse;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The TOML value `text` (as a case file writes it) as a Python object.
pub fn to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let table: toml::Table =
        toml::from_str(&format!("v = {text}")).map_err(|e| refuse(format!("{text}: not a TOML value ({e})")))?;
    let value = table.get("v").ok_or_else(|| refuse(format!("{text}: not a TOML value")))?;
    convert(py, value)
}

fn convert<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => PyString::new(py, s).into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => PyFloat::new(py, *f).into_any(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        toml::Value::Datetime(d) => PyString::new(py, &d.to_string()).into_any(),
        toml::Value::Array(a) => {
            let items = a.iter().map(|x| convert(py, x)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        toml::Value::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, convert(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A Python value as the TOML value a case file would hold at `key`: a bool, an integer, a
/// finite float, a string, a list or tuple of these, or a dict (an inline table).
pub fn from_py(key: &str, v: &Bound<'_, PyAny>) -> PyResult<toml_edit::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(v.extract::<bool>()?.into());
    }
    if v.is_instance_of::<PyInt>() {
        let i: i64 = v.extract().map_err(|_| refuse(format!("{key}: {v} does not fit in a 64-bit integer")))?;
        return Ok(i.into());
    }
    if v.is_instance_of::<PyString>() {
        return Ok(v.extract::<String>()?.into());
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut a = toml_edit::Array::new();
        for item in v.try_iter()? {
            a.push(from_py(key, &item?)?);
        }
        return Ok(toml_edit::Value::Array(a));
    }
    if let Ok(d) = v.downcast::<PyDict>() {
        let mut t = toml_edit::InlineTable::new();
        for (k, x) in d.iter() {
            let k: String = k.extract().map_err(|_| refuse(format!("{key}: table keys must be strings")))?;
            t.insert(&k, from_py(&format!("{key}.{k}"), &x)?);
        }
        return Ok(toml_edit::Value::InlineTable(t));
    }
    // Floats, and NumPy's scalars (which convert to a float or an integer).
    if let Ok(f) = v.extract::<f64>() {
        if v.is_instance_of::<PyFloat>() || f.fract() != 0.0 || !f.is_finite() {
            if f.is_nan() {
                return Err(refuse(format!("{key}: NaN is not a value a case takes")));
            }
            return Ok(f.into());
        }
        if let Ok(i) = v.extract::<i64>() {
            return Ok(i.into());
        }
        return Ok(f.into());
    }
    let kind = v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    Err(refuse(format!(
        "{key}: a value of type {kind} is not one a case takes (a number, a string, a bool, a list or a dict)"
    )))
}
