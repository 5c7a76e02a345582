//! A water account: where a run's water came from and where it went, in m³ since the start, at
//! a state's time (kp with forcing: docs/kp-forcing.md, "The water account"). The solver
//! assembles it from a state ([`Simulation::account`](crate::run::Simulation::account)); the
//! runner shows it in the progress lines and the summary, writes it into the NetCDF fields' file
//! at every snapshot and keeps its rows in [`ACCOUNT_FILE`], which checkpoints carry
//! ([`ACCOUNT_RECORD`]) so that a restarted run writes the whole file again.

use crate::model::BoundaryFlow;
use crate::{Error, Result};
use std::fmt::Write as _;

/// The account's CSV file in the run directory, rewritten whole at every snapshot.
pub const ACCOUNT_FILE: &str = "account.csv";
/// The checkpoint record holding the account's rows so far ([`rows_record`]).
pub const ACCOUNT_RECORD: &str = "account";

/// The water account at time `t` (m³).
#[derive(Clone, Debug, PartialEq)]
pub struct Account {
    pub t: f64,
    /// Water in the domain now, and at the start.
    pub storage: f64,
    pub start: f64,
    /// What the rain, the inflows and the soil brought or took since the start.
    pub rain: f64,
    pub inflow: f64,
    pub infiltration: f64,
    /// What left through and came in by each segment of the boundary since the start.
    pub boundary: Vec<BoundaryFlow>,
}

impl Account {
    /// Water that left through the boundary, every segment's summed in order (from +0: an
    /// empty `sum` of floats is −0).
    pub fn boundary_out(&self) -> f64 {
        self.boundary.iter().fold(0.0, |v, b| v + b.out)
    }
    /// Water that came in by the boundary.
    pub fn boundary_in(&self) -> f64 {
        self.boundary.iter().fold(0.0, |v, b| v + b.into)
    }
    /// What the sources and the boundary do not explain, the error: storage change − rain −
    /// inflow + infiltration − boundary in + boundary out.
    pub fn residual(&self) -> f64 {
        (self.storage - self.start) - self.rain - self.inflow + self.infiltration - self.boundary_in()
            + self.boundary_out()
    }
    /// [`residual`](Self::residual) relative to the water the account has seen: the start's and
    /// all that came in (the residual itself where that is none).
    pub fn relative(&self) -> f64 {
        let scale = self.start + self.rain + self.inflow + self.boundary_in();
        let r = self.residual();
        if scale > 0.0 { r / scale } else { r }
    }
}

/// A name as a CSV column: quoted (quotes doubled) where it holds a comma, a quote or a line
/// break.
fn column(name: &str) -> String {
    if name.contains([',', '"', '\n', '\r']) { format!("\"{}\"", name.replace('"', "\"\"")) } else { name.to_string() }
}

/// The rows as [`ACCOUNT_FILE`] holds them: a comment line saying what the columns are, the
/// columns (`t`, `storage`, `rain`, `inflow`, `infiltration`, `<segment>_out` and
/// `<segment>_in` for each boundary segment, `residual`), then a row a time, every number the
/// shortest decimal that reads back as the same f64 (the volumes with an exponent). Empty
/// without rows.
pub fn csv(rows: &[Account]) -> String {
    let Some(first) = rows.first() else { return String::new() };
    let mut text = String::from(
        "# water account since the start in m³, t in s: storage is the water in the domain; rain, inflow and \
         infiltration what they brought or took; <segment>_out and <segment>_in what left through and came in by \
         each boundary segment; residual = storage change − rain − inflow + infiltration − Σ in + Σ out, the error\n",
    );
    text.push_str("t,storage,rain,inflow,infiltration");
    for b in &first.boundary {
        let _ = write!(text, ",{},{}", column(&format!("{}_out", b.name)), column(&format!("{}_in", b.name)));
    }
    text.push_str(",residual\n");
    // Volumes in exponent form (the shortest that reads back, as plain decimals are): a
    // residual of 1e-13 m³ is not thirteen zeros.
    for a in rows {
        let _ = write!(text, "{},{:e},{:e},{:e},{:e}", a.t, a.storage, a.rain, a.inflow, a.infiltration);
        for b in &a.boundary {
            let _ = write!(text, ",{:e},{:e}", b.out, b.into);
        }
        let _ = writeln!(text, ",{:e}", a.residual());
    }
    text
}

/// Values a row takes in [`rows_record`]: t, storage, start, rain, inflow, infiltration, then
/// (out, in) per segment.
fn row_len(segments: usize) -> usize {
    6 + 2 * segments
}

/// The rows as one f64 array, row after row, for a checkpoint ([`ACCOUNT_RECORD`]).
pub fn rows_record(rows: &[Account]) -> Vec<f64> {
    let mut out = Vec::new();
    for a in rows {
        out.extend([a.t, a.storage, a.start, a.rain, a.inflow, a.infiltration]);
        for b in &a.boundary {
            out.extend([b.out, b.into]);
        }
    }
    out
}

/// The rows [`rows_record`] wrote, of an account whose segments are `names`.
pub fn rows_of(record: &[f64], names: &[String]) -> Result<Vec<Account>> {
    let n = row_len(names.len());
    if !record.len().is_multiple_of(n) {
        return Err(Error::invalid(format!(
            "the checkpoint's record '{ACCOUNT_RECORD}' holds {} values, not rows of {n} (this run's {} boundary segments)",
            record.len(),
            names.len()
        )));
    }
    Ok(record
        .chunks_exact(n)
        .map(|r| Account {
            t: r[0],
            storage: r[1],
            start: r[2],
            rain: r[3],
            inflow: r[4],
            infiltration: r[5],
            boundary: names
                .iter()
                .zip(r[6..].chunks_exact(2))
                .map(|(name, v)| BoundaryFlow { name: name.clone(), out: v[0], into: v[1] })
                .collect(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(t: f64) -> Account {
        Account {
            t,
            storage: 10.0 + t,
            start: 10.0,
            rain: 3.0 * t,
            inflow: 0.5 * t,
            infiltration: 0.25 * t,
            boundary: vec![
                BoundaryFlow { name: "east".into(), out: 2.0 * t, into: 0.0 },
                BoundaryFlow { name: "mouth, upper".into(), out: 0.125 * t, into: 0.375 * t },
            ],
        }
    }

    #[test]
    fn the_residual_is_what_the_terms_leave() {
        let a = account(2.0);
        // storage change 2 = rain 6 + inflow 1 − infiltration 0.5 + in 0.75 − out 4.25 + residual −1.
        assert_eq!(a.residual(), -1.0);
        assert_eq!(a.relative(), -1.0 / (10.0 + 6.0 + 1.0 + 0.75));
        let closed = Account { boundary: Vec::new(), ..account(0.0) };
        assert_eq!(closed.residual(), 0.0);
    }

    #[test]
    fn rows_go_through_a_checkpoint_record_and_into_the_csv() {
        let rows = vec![account(0.0), account(1.5), account(0.1)];
        let names: Vec<String> = rows[0].boundary.iter().map(|b| b.name.clone()).collect();
        assert_eq!(rows_of(&rows_record(&rows), &names).unwrap(), rows);
        assert!(rows_of(&rows_record(&rows)[1..], &names).is_err());
        let text = csv(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("# water account"));
        assert_eq!(
            lines[1],
            "t,storage,rain,inflow,infiltration,east_out,east_in,\"mouth, upper_out\",\"mouth, upper_in\",residual"
        );
        assert_eq!(
            lines[3],
            format!("1.5,1.15e1,4.5e0,7.5e-1,3.75e-1,3e0,0e0,1.875e-1,5.625e-1,{:e}", rows[1].residual())
        );
        // Shortest decimals read back as the same numbers.
        assert_eq!(lines[4].split(',').nth(2).unwrap().parse::<f64>().unwrap(), 3.0 * 0.1);
        assert_eq!(csv(&[]), "");
    }
}
