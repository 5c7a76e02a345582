//! Esri ASCII grids: a header of `key value` lines — `ncols`, `nrows`, `xllcorner` or
//! `xllcenter`, `yllcorner` or `yllcenter`, `cellsize` (or GDAL's `dx` and `dy`), optionally
//! `nodata_value`; keys in any case — then `nrows` rows of `ncols` numbers, the northern row
//! first.

use super::raster::{Header, Raster};
use crate::{Error, Result};

pub(super) fn parse(name: &str, bytes: &[u8]) -> Result<Raster> {
    let bad = |m: String| Error::invalid(format!("{name}: {m}"));
    let text = std::str::from_utf8(bytes).map_err(|_| not_text(name))?;
    let (header, offset) = header(name, text)?;
    // The values are parsed into a vector of f64 before they become the raster's.
    header.check(8)?;
    let (ncols, nrows) = (header.shape.ncols, header.shape.nrows);
    let cells = ncols * nrows;
    let mut tokens = text[offset..].split_ascii_whitespace();
    let mut values = Vec::new();
    values.try_reserve_exact(cells).map_err(|_| bad(format!("{ncols}×{nrows} values do not fit in memory")))?;
    for k in 0..cells {
        let Some(t) = tokens.next() else {
            return Err(bad(format!(
                "truncated: {k} values where ncols × nrows = {ncols} × {nrows} = {cells} are needed"
            )));
        };
        let v: f64 =
            t.parse().map_err(|_| bad(format!("row {}, column {}: '{t}' is not a number", k / ncols, k % ncols)))?;
        values.push(v);
    }
    if let Some(t) = tokens.next() {
        return Err(bad(format!("more values than ncols × nrows = {cells} (the first extra one is '{t}')")));
    }
    header.raster(values.into_iter())
}

/// The header of the grid in the file `lines` reads, read up to its first line of values.
pub(super) fn read_header(name: &str, lines: impl std::io::BufRead) -> Result<Header> {
    let mut head = String::new();
    for line in lines.split(b'\n') {
        let line = line.map_err(|cause| Error::Io { path: name.to_string(), cause })?;
        let line = std::str::from_utf8(&line).map_err(|_| not_text(name))?;
        // A byte-order mark some editors write at the start of a text file is not part of it.
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        if line.split_whitespace().next().is_some_and(|t| t.parse::<f64>().is_ok()) {
            break;
        }
        head.push_str(line);
        head.push('\n');
    }
    Ok(header(name, &head)?.0)
}

fn not_text(name: &str) -> Error {
    Error::invalid(format!("{name}: not UTF-8 text; an Esri ASCII grid is text"))
}

/// The header of the grid whose text `text` holds (the whole file, or its header's lines), and
/// where its values start.
fn header(name: &str, text: &str) -> Result<(Header, usize)> {
    let bad = |m: String| Error::invalid(format!("{name}: {m}"));
    let mut keys: Vec<(String, f64)> = Vec::new();
    // Header lines start with a key; the values start at the first line that starts with a
    // number (`nan` and `inf` included, so a file's first value may be one).
    let mut offset = 0;
    for (k, line) in text.split_inclusive('\n').enumerate() {
        let (line_no, trimmed) = (k + 1, line.trim());
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if !trimmed.is_empty() && first.parse::<f64>().is_ok() {
            break;
        }
        offset += line.len();
        if trimmed.is_empty() {
            continue;
        }
        let mut parts = trimmed.split_whitespace();
        let key = parts.next().unwrap_or("").to_ascii_lowercase();
        let value = parts.next().ok_or_else(|| bad(format!("line {line_no}: `{key}` has no value")))?;
        if parts.next().is_some() {
            return Err(bad(format!("line {line_no}: `{trimmed}`: a header line is one key and one value")));
        }
        let v: f64 = value.parse().map_err(|_| bad(format!("line {line_no}: {key} = '{value}' is not a number")))?;
        const KNOWN: [&str; 10] = [
            "ncols",
            "nrows",
            "xllcorner",
            "xllcenter",
            "yllcorner",
            "yllcenter",
            "cellsize",
            "dx",
            "dy",
            "nodata_value",
        ];
        if !KNOWN.contains(&key.as_str()) {
            return Err(bad(format!("line {line_no}: unknown header key `{key}` (known: {})", KNOWN.join(", "))));
        }
        if keys.iter().any(|(k, _)| *k == key) {
            return Err(bad(format!("line {line_no}: `{key}` given twice")));
        }
        keys.push((key, v));
    }
    let get = |k: &str| keys.iter().find(|(key, _)| key == k).map(|&(_, v)| v);
    let count = |k: &str| -> Result<usize> {
        let v = get(k).ok_or_else(|| bad(format!("the header has no `{k}`")))?;
        if v.fract() != 0.0 || !(1.0..=crate::grid::MAX_CELLS_PER_AXIS as f64).contains(&v) {
            return Err(bad(format!(
                "{k} = {v}: must be a whole number from 1 to {}",
                crate::grid::MAX_CELLS_PER_AXIS
            )));
        }
        Ok(v as usize)
    };
    let (ncols, nrows) = (count("ncols")?, count("nrows")?);
    let (dx, dy) = match (get("cellsize"), get("dx"), get("dy")) {
        (Some(c), None, None) => (c, c),
        (None, Some(dx), Some(dy)) => (dx, dy),
        _ => return Err(bad("give either `cellsize` or both `dx` and `dy`".into())),
    };
    // The lower-left corner, or the centre of the lower-left cell.
    let corner = |c: &str, m: &str, d: f64| match (get(c), get(m)) {
        (Some(v), None) => Ok(v),
        (None, Some(v)) => Ok(v - 0.5 * d),
        _ => Err(bad(format!("give exactly one of `{c}` and `{m}`"))),
    };
    let shape = Raster {
        name: name.to_string(),
        ncols,
        nrows,
        west: corner("xllcorner", "xllcenter", dx)?,
        south: corner("yllcorner", "yllcenter", dy)?,
        dx,
        dy,
        values: Vec::new(),
        valid: Vec::new(),
        epsg: None,
    };
    Ok((Header { shape, nodata: get("nodata_value") }, offset))
}
