//! The tridiagonal search: which non-pivoting algorithm the automatic choice takes, per layout
//! and shape, in place of the thresholds of `Limits::auto` (which stay the default); the
//! registry's `tridiag` entry runs it for `hydrokern tune`, and [`super::tuned`] reads it back. Each shape holds as many unknowns as the tuning size's square, from a few long
//! systems to many short ones, contiguous and interleaved.

use super::gpu::{GpuTridiag, Plan};
use super::tuned::layout_class;
use super::{Algorithm, Batch, Choice, Layout, Shape};
use crate::runtime::{DeviceBuffer, Gpu, Pruned, Timer};
use crate::tune::{Record, Tunable, TuneOptions, search};
use crate::{GpuReal, Precision, Result};

/// System lengths searched (the batch fills the tuning size's square).
const LENGTHS: [usize; 4] = [64, 256, 1024, 4096];

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
            let found = search(gpu, &mut t, opts.rounds)?;
            let best_plan = *t.plans[found.best].as_ref().map_err(|e| crate::Error::invalid(e.to_string()))?;
            // The timed solves must have solved: a breakdown fails the search.
            t.solver.check_status(gpu, &best_plan)?;
            records.push(found.record(
                "tridiag",
                layout_class(layout),
                Precision::of::<T>(),
                vec![n as u64, (unknowns / n) as u64],
            ));
        }
    }
    Ok(records)
}
