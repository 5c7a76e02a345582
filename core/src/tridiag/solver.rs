//! [`Solver`]: one API over the CPU reference and the GPU driver, for host-resident batches
//! (the scenario, tests). GPU-resident data uses [`GpuTridiag`](super::gpu::GpuTridiag).

use super::gpu::GpuTridiag;
use super::{Algorithm, Choice, Shape, cpu};
use crate::runtime::{Backend, Gpu};
use crate::{GpuReal, Result};
use std::sync::Arc;

pub enum Solver<T: GpuReal> {
    Cpu { shape: Shape },
    Gpu { gpu: Arc<Gpu>, solver: Box<GpuTridiag<T>> },
}

impl<T: GpuReal> Solver<T> {
    /// The GPU driver on a GPU backend, else the CPU reference.
    pub fn new(backend: &Backend, shape: Shape) -> Result<Solver<T>> {
        shape.validate()?;
        Ok(match backend {
            Backend::Gpu(gpu) => {
                let mut solver = GpuTridiag::new(gpu, shape)?;
                // The tuning cache's choice for dominant batches, when tuning is on.
                solver.use_tuning(gpu);
                Solver::Gpu { gpu: gpu.clone(), solver: Box::new(solver) }
            }
            Backend::Cpu { .. } => Solver::Cpu { shape },
        })
    }

    pub fn shape(&self) -> Shape {
        match self {
            Solver::Cpu { shape } => *shape,
            Solver::Gpu { solver, .. } => solver.shape(),
        }
    }

    /// The algorithm `choice` runs on a diagonally dominant batch: the forced one, or the
    /// automatic choice (Thomas on the CPU; on the GPU the fast plan for this shape and
    /// precision). On a batch with a row that is not dominant the automatic choice is LU
    /// (with partial pivoting), which [`solve`](Self::solve) returns.
    pub fn algorithm(&self, choice: Choice) -> Algorithm {
        match (self, choice) {
            (_, Choice::Force(alg)) => alg,
            (Solver::Cpu { .. }, Choice::Auto) => Algorithm::Thomas,
            (Solver::Gpu { solver, .. }, Choice::Auto) => solver.algorithm(choice),
        }
    }

    /// Solve a host batch: x (same layout; in a padded layout its padding is d's) and the
    /// algorithm that ran. On the GPU: upload, solve in place, download. A forced algorithm that cannot run here (the CPU runs thomas and lu)
    /// or at this size, mismatched lengths and breakdowns are errors.
    pub fn solve(&mut self, choice: Choice, a: &[T], b: &[T], c: &[T], d: &[T]) -> Result<(Vec<T>, Algorithm)> {
        let shape = self.shape();
        shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len())])?;
        match self {
            Solver::Cpu { shape } => {
                let alg = match choice {
                    Choice::Force(alg) => alg,
                    Choice::Auto if cpu::first_non_dominant(*shape, a, b, c).is_some() => Algorithm::Lu,
                    Choice::Auto => Algorithm::Thomas,
                };
                // x starts as d, so that its padding (padded layouts) is d's on either backend.
                let mut x = d.to_vec();
                cpu::solve_with(alg, *shape, a, b, c, d, &mut x)?;
                Ok((x, alg))
            }
            Solver::Gpu { gpu, solver } => {
                // Through page-locked staging: a batch from NumPy is hundreds of megabytes.
                let (da, db, dc) = (gpu.upload_staged(a)?, gpu.upload_staged(b)?, gpu.upload_staged(c)?);
                let mut dd = gpu.upload_staged(d)?;
                let alg = solver.solve_in_place(gpu, choice, &da, &db, &dc, &mut dd)?;
                Ok((gpu.download_with(&dd, <[T]>::to_vec)?, alg))
            }
        }
    }
}
