//! A wave-propagation run behind [`Model`]: the CPU reference or the GPU driver over any
//! Riemann solver with core kernels. On the GPU the device decides every step (Δt, reject and
//! redo); the host reads the clock between batches.

use super::cpu::{Claw2, Clock as ClawClock};
use super::gpu::GpuClaw2;
use crate::model::{Clock, Halt, Model, Output, State, Until};
use crate::runtime::{Backend, Gpu};
use crate::{GpuReal, Result};
use kernels::claw::Kernels;
use std::sync::Arc;
use std::time::Instant;

/// A run of solver `R` on either backend.
pub struct ClawModel<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    on: On<T, R, M, W, A>,
    dims: Vec<usize>,
    halt: Option<Halt>,
}

enum On<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    Cpu(Box<Claw2<T, R, M, W, A>>),
    Gpu(Arc<Gpu>, Box<GpuClaw2<T, R, M, W, A>>),
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> ClawModel<T, R, M, W, A> {
    /// The run of `cpu` (the CPU reference, set up and at its start) on `backend`.
    pub fn new(backend: &Backend, solver: R, cpu: Claw2<T, R, M, W, A>) -> Result<Self> {
        let s = cpu.setup();
        let dims = vec![s.ny, s.nx];
        let on = match backend {
            Backend::Gpu(gpu) => On::Gpu(gpu.clone(), Box::new(GpuClaw2::new(gpu, solver, &cpu)?)),
            Backend::Cpu { .. } => On::Cpu(Box::new(cpu)),
        };
        Ok(ClawModel { on, dims, halt: None })
    }

    fn claw_clock(&self) -> ClawClock {
        match &self.on {
            On::Cpu(m) => *m.clock(),
            On::Gpu(_, m) => m.clock(),
        }
    }
}

/// The model's clock of a run's.
fn clock(c: &ClawClock, halt: Option<Halt>) -> Clock {
    Clock { t: c.time(), steps: c.steps(), dt: c.last().dt, halt: halt.or(c.halt()) }
}

/// What a state field is, for pictures and metadata: (long name, units).
pub fn describe_field(name: &str) -> (&'static str, &'static str) {
    match name {
        "h" => ("water depth", "m"),
        "hu" => ("x-momentum (discharge per unit width)", "m²/s"),
        "hv" => ("y-momentum (discharge per unit width)", "m²/s"),
        "p" => ("pressure perturbation", "Pa"),
        "u" => ("x-velocity", "m/s"),
        "v" => ("y-velocity", "m/s"),
        "w" => ("z-velocity", "m/s"),
        _ => ("advected quantity", "1"),
    }
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> Model<T>
    for ClawModel<T, R, M, W, A>
{
    fn describe(&self) -> String {
        match &self.on {
            On::Cpu(_) => format!("CPU reference ({} threads)", rayon::current_num_threads()),
            On::Gpu(..) => "GPU, Δt and reject-and-redo decided on the device".into(),
        }
    }

    fn clock(&self) -> Clock {
        clock(&self.claw_clock(), self.halt)
    }

    fn advance(&mut self, until: Until) -> Result<Clock> {
        if self.halt.is_some() {
            return Ok(self.clock());
        }
        match &mut self.on {
            On::Cpu(m) => {
                while m.time() < until.t && m.steps() < until.steps {
                    if until.deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    if m.step(until.t).is_err() {
                        // The clock says why when it halted; otherwise the step's new state was
                        // not finite, and the run keeps the one before it.
                        self.halt = Some(m.clock().halt().unwrap_or(Halt::NonFinite));
                        break;
                    }
                }
            }
            On::Gpu(gpu, m) => {
                m.advance(gpu, until.t, until.steps, until.deadline)?;
            }
        }
        Ok(self.clock())
    }

    fn state(&mut self) -> Result<State<T>> {
        let cells = match &self.on {
            On::Cpu(m) => m.state(),
            On::Gpu(gpu, m) => m.state(gpu)?,
        };
        let fields = R::FIELDS
            .iter()
            .enumerate()
            .map(|(k, &name)| {
                let (long_name, units) = describe_field(name);
                Output { name, long_name, units, dims: self.dims.clone(), data: cells.iter().map(|c| c[k]).collect() }
            })
            .collect();
        Ok(State { clock: self.clock(), fields })
    }
}
