//! A time series: points (t, value), from a plain text file of two columns (time, value)
//! separated by spaces, tabs or a comma, `#` starting a comment and blank lines skipped, or from
//! a case's inline points. Times and values are converted to seconds and SI units as they are
//! read; between points the value is linear, and a run checks that the series covers it. Every
//! problem is one line that names the source (and the line, for a malformed one).

use crate::{Error, Result};
use std::path::Path;

/// The largest series file read (a year of one-minute values is about 10 MiB).
const MAX_BYTES: u64 = 64 << 20;

/// Units of time a series may be given in, with their length in seconds.
const TIME_UNITS: &[(&str, f64)] = &[("s", 1.0), ("min", 60.0), ("h", 3600.0), ("day", 86400.0)];

/// What a series holds: its name in messages, the units its values may be given in with the
/// factor to the SI unit (the first is the SI unit itself), and whether it may be negative.
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    pub name: &'static str,
    pub units: &'static [(&'static str, f64)],
    pub signed: bool,
}

/// A water level (m above the datum), as a water-level boundary takes it.
pub const LEVEL: Quantity = Quantity { name: "water level", units: &[("m", 1.0)], signed: true };
/// A discharge (m³/s), positive into the domain.
pub const DISCHARGE: Quantity =
    Quantity { name: "discharge", units: &[("m3/s", 1.0), ("m³/s", 1.0), ("l/s", 1e-3)], signed: true };
/// A rain intensity, never negative; in m/s inside, in mm/h as hydrologists give it.
pub const RAIN: Quantity = Quantity {
    name: "rain intensity",
    units: &[("m/s", 1.0), ("mm/h", 1e-3 / 3600.0), ("mm/day", 1e-3 / 86400.0)],
    signed: false,
};

impl Quantity {
    /// The factor from `unit` to SI, or why `unit` is not one of this quantity's.
    pub fn factor(&self, unit: &str) -> std::result::Result<f64, String> {
        self.units.iter().find(|(u, _)| *u == unit).map(|&(_, f)| f).ok_or_else(|| {
            let known: Vec<&str> = self.units.iter().map(|(u, _)| *u).collect();
            format!("unit '{unit}' is not one of a {}'s: {}", self.name, known.join(", "))
        })
    }
}

/// The length of a time unit in seconds, or why it is not one.
pub fn time_factor(unit: &str) -> std::result::Result<f64, String> {
    TIME_UNITS.iter().find(|(u, _)| *u == unit).map(|&(_, f)| f).ok_or_else(|| {
        let known: Vec<&str> = TIME_UNITS.iter().map(|(u, _)| *u).collect();
        format!("time unit '{unit}' is not one of {}", known.join(", "))
    })
}

/// Points (t, value) in seconds and SI units: times strictly increasing, at least two, all
/// finite, and no value below zero for a quantity that cannot be negative.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Where it came from, for messages.
    pub source: String,
    /// What it holds, for messages.
    pub quantity: &'static str,
    pub times: Vec<f64>,
    pub values: Vec<f64>,
}

impl Series {
    /// Reads and checks the series file a case names at `key` (its path as the case writes it:
    /// [`Check::data_file`](crate::case::Check::data_file)), whose columns are in `time_unit`
    /// and `unit`, recording it among the case's inputs.
    pub fn read_input(
        c: &crate::case::Check,
        key: &str,
        path: &Path,
        q: &Quantity,
        time_unit: &str,
        unit: &str,
    ) -> Result<Series> {
        let (shown, bytes) = c.data_file(key, path, MAX_BYTES, q.name)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::invalid(format!("{shown}: not UTF-8 text; a {} series is text", q.name)))?;
        Series::parse(&shown, &text, q, time_unit, unit)
    }

    /// Parses and checks the text of a series; `source` names it in messages.
    pub fn parse(source: &str, text: &str, q: &Quantity, time_unit: &str, unit: &str) -> Result<Series> {
        let bad = |m: String| Error::invalid(format!("{source}: {m}"));
        let mut points = Vec::new();
        let mut header = false;
        for (k, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim().trim_start_matches('\u{feff}');
            if line.is_empty() {
                continue;
            }
            let cols: Vec<&str> =
                line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect();
            // A spreadsheet's column names (`time,discharge`): the first line, where its first
            // field is not a number; a later line that is not numbers is an error.
            if points.is_empty() && !header && cols.first().is_some_and(|t| t.parse::<f64>().is_err()) {
                header = true;
                continue;
            }
            let (Some(t), Some(v), 2) = (cols.first(), cols.get(1), cols.len()) else {
                return Err(bad(format!(
                    "line {}: '{line}': expected two columns, time ({time_unit}) and {} ({unit})",
                    k + 1,
                    q.name
                )));
            };
            let (Ok(t), Ok(v)) = (t.parse::<f64>(), v.parse::<f64>()) else {
                return Err(bad(format!("line {}: '{line}': not two numbers", k + 1)));
            };
            if !(t.is_finite() && v.is_finite()) {
                return Err(bad(format!("line {}: '{line}': not finite", k + 1)));
            }
            points.push((k + 1, t, v));
        }
        Series::checked(source, q, time_unit, unit, "line", &points)
    }

    /// A series from a case's inline points `[[t, value], …]`; `source` names the key.
    pub fn from_points(
        source: &str,
        points: &[(f64, f64)],
        q: &Quantity,
        time_unit: &str,
        unit: &str,
    ) -> Result<Series> {
        let numbered: Vec<(usize, f64, f64)> = points.iter().enumerate().map(|(k, &(t, v))| (k + 1, t, v)).collect();
        Series::checked(source, q, time_unit, unit, "point", &numbered)
    }

    /// Converts and checks numbered points: (number, time, value), the number of a `what` (a
    /// file's line, a case's point) for messages.
    fn checked(
        source: &str,
        q: &Quantity,
        time_unit: &str,
        unit: &str,
        what: &str,
        points: &[(usize, f64, f64)],
    ) -> Result<Series> {
        let bad = |m: String| Error::invalid(format!("{source}: {m}"));
        let ts = time_factor(time_unit).map_err(bad)?;
        let vs = q.factor(unit).map_err(bad)?;
        let (mut times, mut values) = (Vec::with_capacity(points.len()), Vec::with_capacity(points.len()));
        for &(line, t, v) in points {
            if !(t.is_finite() && v.is_finite()) {
                return Err(bad(format!("{what} {line}: ({t}, {v}): not finite")));
            }
            if !q.signed && v < 0.0 {
                return Err(bad(format!("{what} {line}: a {} of {v} {unit}: it cannot be negative", q.name)));
            }
            let (t, v) = (t * ts, v * vs);
            if let Some(&prev) = times.last()
                && t <= prev
            {
                return Err(bad(format!(
                    "{what} {line}: time {t} s does not follow {prev} s: times must increase strictly"
                )));
            }
            times.push(t);
            values.push(v);
        }
        if times.len() < 2 {
            return Err(bad(format!("{} point(s): a series needs at least two", times.len())));
        }
        Ok(Series { source: source.to_string(), quantity: q.name, times, values })
    }

    /// The value at `t`, linear between points, the end values beyond them (a run checks
    /// [`covers`](Self::covers) first).
    pub fn at(&self, t: f64) -> f64 {
        kernels::forcing::series_at(&self.times, &self.values, t)
    }

    /// ∫ value dt from `a` to `b` (a ≤ b) of the linear interpolant, exactly: what a uniform
    /// rain puts on a square metre over a step, so a run's volume account is not a quadrature.
    /// The kernels integrate with the same function.
    pub fn integral(&self, a: f64, b: f64) -> f64 {
        kernels::forcing::series_integral(&self.times, &self.values, a, b)
    }

    /// Why the series does not span a run from `start` to `end` (s), if it does not.
    pub fn covers(&self, start: f64, end: f64) -> std::result::Result<(), String> {
        let (first, last) = (self.times[0], self.times[self.times.len() - 1]);
        if first > start {
            return Err(format!("{}: starts at t = {first} s, after the run's start at {start} s", self.source));
        }
        if last < end {
            return Err(format!("{}: ends at t = {last} s, before the run's end at {end} s", self.source));
        }
        Ok(())
    }

    /// The largest absolute value (SI), for the scales of pictures.
    pub fn max_abs(&self) -> f64 {
        self.values.iter().fold(0.0, |a, v| a.max(v.abs()))
    }
}
