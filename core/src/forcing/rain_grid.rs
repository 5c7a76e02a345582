//! Gridded rain on a model's cells: frames of intensities, each held from its time to the next
//! frame's (`kernels::forcing::held_integral`), kept at the rain grid's own resolution with
//! each model cell's rain cell, so a coarse radar product on a fine model costs little memory.

use crate::{Error, Result};
use kernels::forcing::held_integral;
use std::sync::Arc;

/// Frames of rain intensity (m/s) held between their times, and the rain cell each model cell
/// takes its rain from.
#[derive(Clone, Debug, PartialEq)]
pub struct RainGrid {
    /// Where the frames came from, for messages.
    pub source: String,
    /// The frames' start times and then the end of the last (s): frame k holds over
    /// \[times\[k\], times\[k + 1\]). Strictly increasing, at least two.
    pub times: Vec<f64>,
    /// Frame k's intensity at rain cell r is `values[k·cells + r]` (m/s, finite, ≥ 0): f32, as
    /// the kernels read it, on every side of the run.
    pub values: Arc<[f32]>,
    /// Rain cells a frame holds (only those some model cell takes).
    pub cells: usize,
    /// Each interior model cell's rain cell (x fastest).
    pub index: Arc<[u32]>,
    /// Per frame, the sum of the intensities the model's active cells take (m/s): the rain's
    /// volume rate over a cell's area.
    pub sums: Vec<f64>,
    /// The model cells `sums` counts: all of them, or the active ones ([`only`](Self::only)).
    pub counted: usize,
}

impl RainGrid {
    /// Frames given on the model's cells: `frames[k]` the intensities (m/s) of frame k at each
    /// interior cell (x fastest), `times` the frames' start times and the end of the last.
    pub fn on_cells(source: &str, times: Vec<f64>, frames: &[Vec<f64>]) -> Result<RainGrid> {
        let cells = frames.first().map_or(0, Vec::len);
        let mut values = Vec::with_capacity(frames.len() * cells);
        for f in frames {
            if f.len() != cells {
                return Err(Error::invalid(format!("{source}: frames of {} and {cells} cells", f.len())));
            }
            values.extend(f.iter().map(|&v| v as f32));
        }
        RainGrid::new(source, times, values, cells, (0..cells as u32).collect())
    }

    /// Frames of `cells` rain cells each (`values`, frame after frame) and each model cell's
    /// rain cell; checked: times strictly increasing and finite, one more than the frames,
    /// values finite and not negative, every index a rain cell.
    pub fn new(source: &str, times: Vec<f64>, values: Vec<f32>, cells: usize, index: Vec<u32>) -> Result<RainGrid> {
        let bad = |m: String| Err(Error::invalid(format!("{source}: {m}")));
        let frames = times.len().saturating_sub(1);
        if frames == 0 || cells == 0 || values.len() != frames * cells {
            return bad(format!(
                "{} values for {frames} frame(s) of {cells} cells: gridded rain needs a frame and its end",
                values.len()
            ));
        }
        if let Some(w) = times.windows(2).find(|w| !(w[0].is_finite() && w[1].is_finite() && w[1] > w[0])) {
            return bad(format!("time {} s does not follow {} s: times must increase strictly", w[1], w[0]));
        }
        if let Some(k) = values.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return bad(format!(
                "{} m/s in frame {}: intensities must be finite and not negative",
                values[k],
                k / cells
            ));
        }
        if index.iter().any(|&r| r as usize >= cells) {
            return bad(format!("a model cell takes a rain cell beyond the {cells} of a frame"));
        }
        let sums = (0..frames).map(|k| index.iter().map(|&r| values[k * cells + r as usize] as f64).sum()).collect();
        let counted = index.len();
        Ok(RainGrid {
            source: source.to_string(),
            times,
            values: values.into(),
            cells,
            index: index.into(),
            sums,
            counted,
        })
    }

    /// Count only the model cells `active` marks (x fastest) in the volume: rain falls on no
    /// other.
    pub fn only(&mut self, active: &[bool]) {
        let (cells, values) = (self.cells, &self.values);
        let taken = || self.index.iter().zip(active).filter(|(_, a)| **a).map(|(r, _)| *r as usize);
        self.sums = (0..self.frames()).map(|k| taken().map(|r| values[k * cells + r] as f64).sum()).collect();
        self.counted = taken().count();
    }

    pub fn frames(&self) -> usize {
        self.times.len() - 1
    }

    /// Water the frames bring from 0 to `t` to model cells of `cell_area` m² (m³), by the rule
    /// the kernels integrate each cell's rain with.
    pub fn volume(&self, cell_area: f64, t: f64) -> f64 {
        held_integral(&self.times, 0, 0.0, t, |k| self.sums[k]) * cell_area
    }

    /// The largest intensity a model cell takes (m/s).
    pub fn max(&self) -> f64 {
        let used = self.used();
        (0..self.frames())
            .flat_map(|k| used.iter().map(move |&r| (k, r)))
            .fold(0.0f64, |m, (k, r)| m.max(self.values[k * self.cells + r] as f64))
    }

    /// The rain cells some model cell takes.
    fn used(&self) -> Vec<usize> {
        let mut seen = vec![false; self.cells];
        for &r in self.index.iter() {
            seen[r as usize] = true;
        }
        (0..self.cells).filter(|&r| seen[r]).collect()
    }

    /// Why the frames do not span a run from `start` to `end` (s), if they do not.
    pub fn covers(&self, start: f64, end: f64) -> std::result::Result<(), String> {
        let (first, last) = (self.times[0], self.times[self.times.len() - 1]);
        if first > start {
            return Err(format!(
                "{}: the first frame starts at t = {first} s, after the run's start at {start} s",
                self.source
            ));
        }
        if last < end {
            return Err(format!(
                "{}: the last frame ends at t = {last} s, before the run's end at {end} s",
                self.source
            ));
        }
        Ok(())
    }

    /// Bytes the frames and the cells' map take.
    pub fn bytes(&self) -> usize {
        4 * (self.values.len() + self.index.len()) + 8 * self.times.len()
    }
}
