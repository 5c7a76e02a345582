//! What a keeper records at every sample, on either backend: each gauge's values and each
//! line's discharge, both from one sample of every site's cell.

use super::lines::{Face, discharge};
use super::{GAUGE_VALUES, LineSeries, Series, Sites, Spec};

/// The gauges' and lines' records so far, and the faces the lines read.
#[derive(Clone)]
pub(super) struct Records {
    pub series: Vec<Series>,
    pub lines: Vec<LineSeries>,
    faces: Vec<Vec<Face>>,
}

impl Records {
    /// Empty records of `spec`'s gauges and lines sampled at `sites` (from [`Sites::of`], or
    /// the gauges' cells alone for a case without lines).
    pub fn new(spec: &Spec, sites: &Sites) -> Records {
        assert_eq!(spec.lines.len(), sites.lines.len(), "the sites' lines are the spec's (Sites::of)");
        assert!(sites.cells.len() >= spec.gauges.len(), "the sites sample every gauge (Sites::of)");
        let series = spec
            .gauges
            .iter()
            .zip(&sites.cells)
            .map(|(g, &c)| Series { gauge: g.clone(), cell: c as usize, times: Vec::new(), values: Vec::new() })
            .collect();
        let lines = spec
            .lines
            .iter()
            .zip(&sites.lines)
            .map(|(l, f)| LineSeries { line: l.clone(), faces: f.len(), times: Vec::new(), discharge: Vec::new() })
            .collect();
        Records { series, lines, faces: sites.lines.clone() }
    }

    /// Forget every record: the samples start again (a slab's, after a restart: rank 0 keeps
    /// the records up to it, `joined.rs`).
    pub fn clear(&mut self) {
        for s in &mut self.series {
            (s.times, s.values) = (Vec::new(), Vec::new());
        }
        for l in &mut self.lines {
            (l.times, l.discharge) = (Vec::new(), Vec::new());
        }
    }

    /// Whether there is nothing to record: no gauges, no lines.
    pub fn is_empty(&self) -> bool {
        self.series.is_empty() && self.lines.is_empty()
    }

    /// Record the sample taken at time `t`: the values of every site's cell, in their order
    /// (the gauges' first).
    pub fn push(&mut self, t: f64, sample: &[[f64; GAUGE_VALUES]]) {
        for (s, v) in self.series.iter_mut().zip(sample) {
            s.times.push(t);
            s.values.push(*v);
        }
        for (l, faces) in self.lines.iter_mut().zip(&self.faces) {
            l.times.push(t);
            l.discharge.push(discharge(faces, sample));
        }
    }
}
