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
            Backend::Gpu(gpu) => Solver::Gpu { gpu: gpu.clone(), solver: Box::new(GpuTridiag::new(gpu, shape)?) },
            Backend::Cpu { .. } => Solver::Cpu { shape },
        })
    }

    pub fn shape(&self) -> Shape {
        match self {
            Solver::Cpu { shape } => *shape,
            Solver::Gpu { solver, .. } => solver.shape(),
        }
    }

    /// The algorithm `choice` runs: Thomas on the CPU; on the GPU the forced one or the
    /// automatic choice for this shape and precision.
    pub fn algorithm(&self, choice: Choice) -> Algorithm {
        match self {
            Solver::Cpu { .. } => Algorithm::Thomas,
            Solver::Gpu { solver, .. } => solver.algorithm(choice),
        }
    }

    /// Solve a host batch: x (same layout). On the GPU: upload, solve, download. A forced
    /// algorithm that cannot run at this size, mismatched lengths and breakdowns are errors.
    pub fn solve(&mut self, choice: Choice, a: &[T], b: &[T], c: &[T], d: &[T]) -> Result<(Vec<T>, Algorithm)> {
        let shape = self.shape();
        shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len())])?;
        match self {
            Solver::Cpu { shape } => {
                if let Choice::Force(alg) = choice
                    && alg != Algorithm::Thomas
                {
                    return Err(crate::Error::invalid(format!(
                        "the CPU reference solves by Thomas only; {alg} needs the GPU backend"
                    )));
                }
                let mut x = vec![T::ZERO; d.len()];
                cpu::solve(*shape, a, b, c, d, &mut x)?;
                Ok((x, Algorithm::Thomas))
            }
            Solver::Gpu { gpu, solver } => {
                let (da, db, dc) = (gpu.upload(a)?, gpu.upload(b)?, gpu.upload(c)?);
                let mut dd = gpu.upload(d)?;
                let alg = solver.solve_in_place(gpu, choice, &da, &db, &dc, &mut dd)?;
                Ok((gpu.download(&dd)?, alg))
            }
        }
    }
}
