//! One interface over the CPU reference and the GPU driver, for the scenario and benchmarks.

use super::cpu::CpuSediment;
use super::gpu::{GpuSediment, Launch};
use super::{Problem, StepVariant};
use crate::runtime::{Backend, Gpu};
use crate::{GpuReal, Result};
use std::sync::Arc;

pub enum Solver<T: GpuReal> {
    Cpu(CpuSediment<T>),
    // Boxed: the device state is larger than the CPU one and a solver is made once per run.
    Gpu { gpu: Arc<Gpu>, model: Box<GpuSediment<T>>, variant: StepVariant },
}

impl<T: GpuReal> Solver<T> {
    /// The GPU driver on a GPU backend (with `variant` and `launch`), else the CPU reference.
    pub fn new(
        backend: &Backend,
        problem: &Problem,
        dt: f64,
        variant: StepVariant,
        launch: Launch,
    ) -> Result<Solver<T>> {
        Ok(match backend {
            Backend::Gpu(gpu) => {
                Solver::Gpu { gpu: gpu.clone(), model: Box::new(GpuSediment::new(gpu, problem, dt, launch)?), variant }
            }
            Backend::Cpu { .. } => Solver::Cpu(CpuSediment::new(problem, dt)?),
        })
    }

    pub fn step(&mut self) -> Result<()> {
        match self {
            Solver::Cpu(m) => {
                m.step();
                Ok(())
            }
            Solver::Gpu { gpu, model, variant } => model.step(gpu, *variant),
        }
    }

    pub fn set_dt(&mut self, problem: &Problem, dt: f64) {
        match self {
            Solver::Cpu(m) => m.set_dt(problem, dt),
            Solver::Gpu { model, .. } => model.set_dt(problem, dt),
        }
    }

    /// h and s with ghosts, on the host (a download on the GPU; waits for the steps).
    pub fn fields(&self) -> Result<(Vec<T>, Vec<T>)> {
        match self {
            Solver::Cpu(m) => Ok((m.h().to_vec(), m.s().to_vec())),
            Solver::Gpu { gpu, model, .. } => model.download(gpu),
        }
    }
}
