//! A water-level time series for a boundary: a plain text file of two columns, time (s) and
//! level (m), separated by spaces, tabs or a comma; `#` starts a comment; blank lines are
//! skipped. Between points the level is interpolated linearly. Every problem is one line that
//! names the file (and the line, for a malformed one).

use crate::{Error, Result};
use std::path::Path;

/// The largest series file read (a year of one-minute levels is about 10 MiB).
const MAX_BYTES: u64 = 64 << 20;

/// Points (t, ζ), times strictly increasing, at least two, all finite.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Where it came from, for messages.
    pub source: String,
    pub times: Vec<f64>,
    pub levels: Vec<f64>,
}

impl Series {
    /// Reads and checks a series file.
    pub fn read(path: &Path) -> Result<Series> {
        let text = crate::files::read_text(path, MAX_BYTES, "water-level series")?;
        Series::parse(&path.display().to_string(), &text)
    }

    /// [`read`](Self::read) of the file a case names at `key`, recorded among its inputs.
    pub fn read_input(c: &crate::case::Check, key: &str, path: &Path) -> Result<Series> {
        let bytes = c.input(key, path, MAX_BYTES, "water-level series")?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::invalid(format!("{}: not UTF-8 text; a water-level series is text", path.display())))?;
        Series::parse(&path.display().to_string(), &text)
    }

    /// Parses and checks the text of a series; `source` names it in messages.
    pub fn parse(source: &str, text: &str) -> Result<Series> {
        let bad = |m: String| Err(Error::invalid(format!("{source}: {m}")));
        let (mut times, mut levels) = (Vec::new(), Vec::new());
        for (k, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let cols: Vec<&str> =
                line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect();
            let (Some(t), Some(z), 2) = (cols.first(), cols.get(1), cols.len()) else {
                return bad(format!("line {}: '{line}': expected two columns, time (s) and level (m)", k + 1));
            };
            let (Ok(t), Ok(z)) = (t.parse::<f64>(), z.parse::<f64>()) else {
                return bad(format!("line {}: '{line}': not two numbers", k + 1));
            };
            if !(t.is_finite() && z.is_finite()) {
                return bad(format!("line {}: '{line}': not finite", k + 1));
            }
            if let Some(&prev) = times.last()
                && t <= prev
            {
                return bad(format!(
                    "line {}: time {t} s does not follow {prev} s: times must increase strictly",
                    k + 1
                ));
            }
            times.push(t);
            levels.push(z);
        }
        if times.len() < 2 {
            return bad(format!("{} point(s): a series needs at least two", times.len()));
        }
        Ok(Series { source: source.to_string(), times, levels })
    }

    /// The level at `t`, linear between points, the end values beyond them (a run checks
    /// [`covers`](Self::covers) first).
    pub fn at(&self, t: f64) -> f64 {
        let (ts, zs) = (&self.times, &self.levels);
        let k = ts.partition_point(|&x| x <= t);
        if k == 0 {
            return zs[0];
        }
        if k == ts.len() {
            return zs[k - 1];
        }
        let w = (t - ts[k - 1]) / (ts[k] - ts[k - 1]);
        zs[k - 1] + w * (zs[k] - zs[k - 1])
    }

    /// Why the series does not span a run from 0 to `t_end`, if it does not.
    pub fn covers(&self, t_end: f64) -> std::result::Result<(), String> {
        let (first, last) = (self.times[0], self.times[self.times.len() - 1]);
        if first > 0.0 {
            return Err(format!("{}: starts at t = {first} s, after the run's start at 0", self.source));
        }
        if last < t_end {
            return Err(format!("{}: ends at t = {last} s, before the run's end at {t_end} s", self.source));
        }
        Ok(())
    }
}
