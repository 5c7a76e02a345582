//! The GPU-or-CPU choice.

use super::Gpu;
use crate::{Error, Result};
use std::sync::Arc;

/// What the user asked for (`--backend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The GPU when the driver loads and a device exists, else the CPU (saying why); a GPU that
    /// exists but fails to start is an error.
    #[default]
    Auto,
    /// The GPU, or an error.
    Gpu,
    /// The CPU reference implementations.
    Cpu,
}

impl std::str::FromStr for BackendChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "gpu" => Ok(BackendChoice::Gpu),
            "cpu" => Ok(BackendChoice::Cpu),
            _ => Err(Error::invalid(format!("unknown backend '{s}' (expected auto, gpu or cpu)"))),
        }
    }
}

/// The backend a run uses.
#[derive(Clone)]
pub enum Backend {
    Gpu(Arc<Gpu>),
    /// The CPU, with the reason when a GPU was wanted but not available.
    Cpu {
        why: Option<String>,
    },
}

impl Backend {
    /// Resolve a choice. `Auto` takes the CPU, with the reason, when there is no usable GPU
    /// ([`Error::NoGpu`]); any other failure (a driver call, a PTX module the driver rejects)
    /// is returned, not hidden behind the CPU.
    pub fn select(choice: BackendChoice) -> Result<Backend> {
        Self::select_for(choice, 0, None)
    }

    /// [`select`](Self::select) for the rank that is `local`-th among the ranks of its host:
    /// its GPU is device `local` mod the devices it uses, so the ranks of a host spread over
    /// them (and share them where there are more ranks than GPUs). Those are the host's first
    /// `gpus` where the run asks for that many on each host (`run.gpus`: more than the host has
    /// is an error, said in one line), else all of them.
    pub fn select_for(choice: BackendChoice, local: usize, gpus: Option<usize>) -> Result<Backend> {
        let present = Gpu::count();
        if let Some(n) = gpus.filter(|&n| n > present) {
            let asked =
                format!("the run asks for {n} GPU{} on each host (run.gpus, --gpus)", if n == 1 { "" } else { "s" });
            return Err(Error::invalid(match present {
                0 => format!("{asked}, and this host has no GPU the CUDA driver sees; leave it out to run on the CPU"),
                p => format!(
                    "{asked}, and this host has {p} GPU{}; ask for at most {p}, or leave it out to use every GPU there",
                    if p == 1 { "" } else { "s" }
                ),
            }));
        }
        let ordinal = local % gpus.unwrap_or(present).max(1);
        match choice {
            BackendChoice::Cpu => Ok(Backend::Cpu { why: None }),
            BackendChoice::Gpu => Gpu::new(ordinal).map(|g| Backend::Gpu(Arc::new(g))).map_err(|e| match e {
                Error::NoGpu(why) => Error::NoGpu(format!("{why}; run with --backend cpu (or auto) to use the CPU")),
                e => e,
            }),
            BackendChoice::Auto => match Gpu::new(ordinal) {
                Ok(g) => Ok(Backend::Gpu(Arc::new(g))),
                Err(e @ Error::NoGpu(_)) => Ok(Backend::Cpu { why: Some(e.to_string()) }),
                Err(e) => Err(e),
            },
        }
    }

    /// The host memory the CUDA driver took to open the GPU; `None` on the CPU.
    pub fn driver_host_bytes(&self) -> Option<u64> {
        match self {
            Backend::Gpu(g) => g.driver_host_bytes(),
            Backend::Cpu { .. } => None,
        }
    }

    /// One line saying what runs, and why the CPU where that applies.
    pub fn describe(&self) -> String {
        match self {
            Backend::Gpu(g) => {
                let i = g.info();
                format!("gpu: {} (compute capability {}.{}, PTX {})", i.name, i.cc.0, i.cc.1, g.arch())
            }
            Backend::Cpu { why: None } => {
                format!("cpu: {} threads (asked for)", rayon::current_num_threads())
            }
            Backend::Cpu { why: Some(why) } => {
                format!("cpu: {} threads, because {why}", rayon::current_num_threads())
            }
        }
    }
}
