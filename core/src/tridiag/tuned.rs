//! The tuning cache's choice of algorithm for a batch: the searched shape nearest to it, when
//! one is near enough (the search is [`super::tune`]).

use super::{Algorithm, Layout, Shape};
use crate::runtime::Gpu;
use crate::{Precision, tune};

/// The record's kernel name for a layout: padded rows solve like contiguous systems, padded
/// columns like interleaved ones.
pub fn layout_class(layout: Layout) -> &'static str {
    match layout {
        Layout::Contiguous | Layout::Rows { .. } => "contiguous",
        Layout::Interleaved | Layout::Columns { .. } => "interleaved",
    }
}

/// One searched shape and its winner.
#[derive(Clone, Debug, PartialEq)]
pub struct TridiagPoint {
    pub class: String,
    pub n: u64,
    pub batch: u64,
    pub best: String,
}

/// The point of `points` nearest to (`class`, `n`, `batch`) in log distance, when it is close
/// enough to stand for it: n within a factor 2 and the batch within a factor 4 (beyond that,
/// the thresholds decide).
pub fn nearest<'a>(points: &'a [TridiagPoint], class: &str, n: u64, batch: u64) -> Option<&'a TridiagPoint> {
    let d = |a: u64, b: u64| ((a.max(1) as f64) / (b.max(1) as f64)).ln().abs();
    points
        .iter()
        .filter(|p| p.class == class && d(p.n, n) <= 2f64.ln() + 1e-9 && d(p.batch, batch) <= 4f64.ln() + 1e-9)
        .min_by(|a, b| (d(a.n, n) + d(a.batch, batch)).total_cmp(&(d(b.n, n) + d(b.batch, batch))))
}

/// The algorithm the cache chose for a shape near `shape` in `precision`, if any.
pub fn tuned_algorithm(gpu: &Gpu, precision: Precision, shape: Shape) -> Option<Algorithm> {
    if tune::mode() == tune::Mode::Off {
        return None;
    }
    let entry = tune::entry(gpu)?;
    let points: Vec<TridiagPoint> = entry
        .of("tridiag", precision)
        .filter(|r| r.size.len() == 2)
        .map(|r| TridiagPoint { class: r.kernel.clone(), n: r.size[0], batch: r.size[1], best: r.best.clone() })
        .collect();
    let p = nearest(&points, layout_class(shape.layout), shape.n as u64, shape.batch as u64)?;
    let alg = Algorithm::ALL.into_iter().find(|a| a.name() == p.best);
    if alg.is_none() {
        crate::note(&format!(
            "tuning cache: tridiag algorithm '{}' unknown to this build; using the thresholds",
            p.best
        ));
    }
    alg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(class: &str, n: u64, batch: u64, best: &str) -> TridiagPoint {
        TridiagPoint { class: class.into(), n, batch, best: best.into() }
    }

    #[test]
    fn the_nearest_close_point_of_the_same_layout_decides() {
        let pts = [
            p("interleaved", 64, 262144, "thomas"),
            p("interleaved", 1024, 16384, "partition"),
            p("contiguous", 1024, 16384, "pcr-thomas"),
        ];
        assert_eq!(nearest(&pts, "interleaved", 1024, 16384).unwrap().best, "partition");
        assert_eq!(nearest(&pts, "interleaved", 700, 20000).unwrap().best, "partition");
        assert_eq!(nearest(&pts, "contiguous", 2048, 4096).unwrap().best, "pcr-thomas");
        assert_eq!(nearest(&pts, "interleaved", 80, 100000).unwrap().best, "thomas");
        // Too far in n or in batch, or another layout only: the thresholds decide.
        assert!(nearest(&pts, "interleaved", 4096, 16384).is_none());
        assert!(nearest(&pts, "interleaved", 1024, 1024).is_none());
        assert!(nearest(&pts[..2], "contiguous", 1024, 16384).is_none());
    }

    #[test]
    fn padded_layouts_take_their_unpadded_class() {
        assert_eq!(layout_class(Layout::Rows { pitch: 10 }), "contiguous");
        assert_eq!(layout_class(Layout::Columns { pitch: 10 }), "interleaved");
    }
}
