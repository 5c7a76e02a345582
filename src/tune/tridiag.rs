//! The tridiagonal search: which non-pivoting algorithm the automatic choice takes, per layout
//! and shape, in place of the thresholds written from one H100 run (`Limits::auto`, which stays
//! the default). Each shape holds as many unknowns as the tuning size's square, from a few long
//! systems to many short ones, contiguous and interleaved.

use super::space::Pruned;
use super::{Record, Tunable, TuneOptions, precision_of};
use crate::runtime::{DeviceBuffer, Gpu, Timer};
use crate::tridiag::gpu::{GpuTridiag, Plan};
use crate::tridiag::{Algorithm, Batch, Choice, Layout, Shape};
use crate::{GpuReal, Precision, Result};

/// System lengths searched (the batch fills the tuning size's square).
const LENGTHS: [usize; 4] = [64, 256, 1024, 4096];

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
    if super::mode() == super::Mode::Off {
        return None;
    }
    let entry = super::entry(gpu)?;
    let points: Vec<TridiagPoint> = entry
        .of("tridiag", precision)
        .filter(|r| r.size.len() == 2)
        .map(|r| TridiagPoint { class: r.kernel.clone(), n: r.size[0], batch: r.size[1], best: r.best.clone() })
        .collect();
    let p = nearest(&points, layout_class(shape.layout), shape.n as u64, shape.batch as u64)?;
    let alg = Algorithm::ALL.into_iter().find(|a| a.name() == p.best);
    if alg.is_none() {
        super::note(&format!(
            "tuning cache: tridiag algorithm '{}' unknown to this build; using the thresholds",
            p.best
        ));
    }
    alg
}

struct Algorithms<'a, T: GpuReal> {
    solver: GpuTridiag<T>,
    algs: Vec<Algorithm>,
    plans: Vec<std::result::Result<Plan, Pruned>>,
    default: usize,
    abcd: &'a [DeviceBuffer<T>; 4],
    x: &'a mut DeviceBuffer<T>,
}

impl<T: GpuReal> Tunable for Algorithms<'_, T> {
    fn space(&self) -> Vec<(String, std::result::Result<(), Pruned>)> {
        self.algs
            .iter()
            .zip(&self.plans)
            .map(|(a, p)| (a.name().to_string(), p.as_ref().map(|_| ()).map_err(Clone::clone)))
            .collect()
    }
    fn default_index(&self) -> usize {
        self.default
    }
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()> {
        let Ok(plan) = &self.plans[k] else { return Err(crate::Error::invalid("tridiag: a pruned plan ran")) };
        let [a, b, c, d] = self.abcd;
        timer.start(gpu)?;
        self.solver.enqueue(gpu, plan, a, b, c, d, self.x)?;
        timer.stop(gpu)
    }
}

pub fn tune<T: GpuReal>(gpu: &Gpu, opts: &TuneOptions) -> Result<Vec<Record>> {
    let unknowns = opts.size * opts.size;
    let mut records = Vec::new();
    for layout in [Layout::Contiguous, Layout::Interleaved] {
        for n in LENGTHS.into_iter().filter(|&n| n * 4 <= unknowns) {
            let shape = Shape::new(n, unknowns / n, layout);
            gpu.check_fits("tridiagonal tuning", 6 * shape.len() * std::mem::size_of::<T>())?;
            let host = Batch::random(shape, 3, 2.0);
            let up = |v: &[f64]| gpu.upload(&v.iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>());
            let abcd = [up(&host.a)?, up(&host.b)?, up(&host.c)?, up(&host.d)?];
            drop(host);
            let mut x = gpu.alloc::<T>(shape.len())?;
            let solver = GpuTridiag::<T>::new(gpu, shape)?;
            let algs: Vec<Algorithm> = Algorithm::ALL.into_iter().filter(|a| !a.pivots()).collect();
            let plans: Vec<_> = algs
                .iter()
                .map(|&a| solver.plan(Choice::Force(a)).map_err(|e| Pruned::Invalid(e.to_string())))
                .collect();
            let auto = solver.limits().auto(shape);
            let default = algs.iter().position(|&a| a == auto).unwrap_or(0);
            let mut t = Algorithms { solver, algs, plans, default, abcd: &abcd, x: &mut x };
            let found = super::search(gpu, &mut t, opts.rounds)?;
            let best_plan = *t.plans[found.best].as_ref().map_err(|e| crate::Error::invalid(e.to_string()))?;
            // The timed solves must have solved: a breakdown fails the search.
            t.solver.check_status(gpu, &best_plan)?;
            records.push(found.record(
                "tridiag",
                layout_class(layout),
                precision_of::<T>(),
                vec![n as u64, (unknowns / n) as u64],
            ));
        }
    }
    Ok(records)
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
