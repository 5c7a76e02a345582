//! Named places on a run's grid, as a case names them and the records of what was sampled
//! there keep them: gauges (points) and discharge lines (polylines), in metres.

use serde::Deserialize;

/// One `[[output.gauges]]` entry: a named point, in metres.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gauge {
    pub name: String,
    pub x: f64,
    pub y: f64,
}

/// One `[[output.lines]]` entry: a named polyline, its points in metres, through which the
/// discharge is recorded (`crate::products::lines`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub name: String,
    pub points: Vec<[f64; 2]>,
}
