//! One interface over the CPU reference and the GPU driver, for the scenarios and benchmarks:
//! advance to a time, with the GPU's early-exit choice made by timing (seed 003 §4.4.2).

use super::Problem;
use super::cpu::{CpuKp, Halt};
use super::gpu::{FluxKernel, GpuKp, Launch};
use crate::runtime::{Backend, Gpu, Timer};
use crate::{Error, GpuReal, Result};
use std::sync::Arc;

/// Early exit of dry blocks in the flux kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyExit {
    /// Every cycle of [`CYCLE`] steps, time one early-exit step and one full step and use the
    /// faster for the rest of the cycle (as seed 003 does).
    Auto,
    On,
    Off,
}

impl std::str::FromStr for EarlyExit {
    type Err = Error;
    fn from_str(s: &str) -> Result<EarlyExit> {
        match s {
            "auto" => Ok(EarlyExit::Auto),
            "on" => Ok(EarlyExit::On),
            "off" => Ok(EarlyExit::Off),
            _ => Err(Error::invalid(format!("unknown early-exit mode '{s}' (expected auto, on or off)"))),
        }
    }
}

/// Steps per early-exit decision cycle.
pub const CYCLE: u64 = 100;

/// Where a run stands after [`Solver::advance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    pub t: f64,
    /// The last Δt taken.
    pub dt: f64,
    pub steps: u64,
    /// Steps so far that used the early-exit flux kernel.
    pub early_steps: u64,
    /// Why the run stopped, if it did: the state is the last one before the failing step.
    pub halt: Option<Halt>,
}

pub enum Solver<T: GpuReal> {
    Cpu(Box<CpuKp<T>>),
    Gpu(Box<GpuRun<T>>),
}

/// The GPU model with its early-exit bookkeeping.
pub struct GpuRun<T: GpuReal> {
    gpu: Arc<Gpu>,
    model: GpuKp<T>,
    mode: EarlyExit,
    current: FluxKernel,
    /// Steps the host has launched (some may be Δt = 0 steps past the stop time).
    launched: u64,
    early_steps: u64,
    last: StepReport,
}

impl<T: GpuReal> Solver<T> {
    /// The GPU driver on a GPU backend, else the CPU reference (which ignores `early_exit`).
    pub fn new(backend: &Backend, problem: &Problem, launch: Launch, early_exit: EarlyExit) -> Result<Solver<T>> {
        Ok(match backend {
            Backend::Gpu(gpu) => {
                let model = GpuKp::new(gpu, problem, launch)?;
                let current = if early_exit == EarlyExit::On { FluxKernel::EarlyExit } else { FluxKernel::Full };
                Solver::Gpu(Box::new(GpuRun {
                    gpu: gpu.clone(),
                    model,
                    mode: early_exit,
                    current,
                    launched: 0,
                    early_steps: 0,
                    last: StepReport { t: 0.0, dt: 0.0, steps: 0, early_steps: 0, halt: None },
                }))
            }
            Backend::Cpu { .. } => Solver::Cpu(Box::new(CpuKp::new(problem, launch.block, false)?)),
        })
    }

    /// Step until the time reaches `t_stop` (the last Δt is shortened to land on it) or the run
    /// halts. On the GPU steps go in batches between clock reads, sized from the last Δt.
    pub fn advance(&mut self, t_stop: f64) -> Result<StepReport> {
        match self {
            Solver::Cpu(m) => {
                let mut halt = None;
                while m.time() < t_stop {
                    if let Err(h) = m.step(t_stop) {
                        halt = Some(h);
                        break;
                    }
                }
                Ok(StepReport { t: m.time(), dt: m.last_dt(), steps: m.steps(), early_steps: 0, halt })
            }
            Solver::Gpu(run) => run.advance(t_stop),
        }
    }

    /// Padded (w, hu, hv) on the host.
    pub fn state(&self) -> Result<[Vec<T>; 3]> {
        match self {
            Solver::Cpu(m) => Ok([m.state()[0].to_vec(), m.state()[1].to_vec(), m.state()[2].to_vec()]),
            Solver::Gpu(run) => run.model.download(&run.gpu),
        }
    }

    /// Padded cell-centre bed.
    pub fn cell_bed(&self) -> Result<Vec<T>> {
        match self {
            Solver::Cpu(m) => Ok(m.cell_bed().to_vec()),
            Solver::Gpu(run) => run.model.cell_bed(&run.gpu),
        }
    }
}

impl<T: GpuReal> GpuRun<T> {
    fn step(&mut self, kernel: FluxKernel) -> Result<()> {
        self.model.step(&self.gpu, kernel)?;
        self.launched += 1;
        if kernel == FluxKernel::EarlyExit {
            self.early_steps += 1;
        }
        Ok(())
    }

    /// Time one step with `kernel` (events; synchronises).
    fn timed_step(&mut self, kernel: FluxKernel) -> Result<f64> {
        let timer = Timer::new(&self.gpu)?;
        timer.start(&self.gpu)?;
        self.step(kernel)?;
        timer.stop(&self.gpu)?;
        timer.elapsed_ms()
    }

    fn advance(&mut self, t_stop: f64) -> Result<StepReport> {
        self.model.set_stop(t_stop);
        loop {
            let clock = self.model.clock(&self.gpu)?;
            let halt = match clock.status {
                kernels::kp::STEP_OK => None,
                kernels::kp::STEP_NON_FINITE => Some(Halt::NonFinite),
                _ => Some(Halt::Collapsed),
            };
            self.last =
                StepReport { t: clock.t, dt: clock.dt, steps: clock.steps, early_steps: self.early_steps, halt };
            if halt.is_some() || clock.t >= t_stop {
                return Ok(self.last);
            }
            // Steps left at the last Δt (at least 1, at most 64 between clock reads).
            let left = if clock.dt > 0.0 { ((t_stop - clock.t) / clock.dt).ceil() } else { 1.0 };
            let batch = left.clamp(1.0, 64.0) as u64;
            for _ in 0..batch {
                if self.mode == EarlyExit::Auto && self.launched.is_multiple_of(CYCLE) {
                    // The wet map is written by every RK stage, so both kernels see a fresh one.
                    let early = self.timed_step(FluxKernel::EarlyExit)?;
                    let full = self.timed_step(FluxKernel::Full)?;
                    self.current = if early < full { FluxKernel::EarlyExit } else { FluxKernel::Full };
                    continue;
                }
                self.step(self.current)?;
            }
        }
    }
}
