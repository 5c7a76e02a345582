//! CUDA-event timing on the GPU's stream.

use super::Gpu;
use crate::Result;
use crate::error::DriverContext;
use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;

/// A pair of timing events. (cudarc's default events have timing disabled, so they are
/// created with `CU_EVENT_DEFAULT`.)
pub struct Timer {
    start: CudaEvent,
    stop: CudaEvent,
}

impl Timer {
    pub fn new(gpu: &Gpu) -> Result<Timer> {
        let ev = || gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).call("cuEventCreate");
        Ok(Timer { start: ev()?, stop: ev()? })
    }
    pub fn start(&self, gpu: &Gpu) -> Result<()> {
        self.start.record(gpu.stream()).call("cuEventRecord")
    }
    pub fn stop(&self, gpu: &Gpu) -> Result<()> {
        self.stop.record(gpu.stream()).call("cuEventRecord")
    }
    /// Milliseconds between start and stop (waits for stop).
    pub fn elapsed_ms(&self) -> Result<f64> {
        self.stop.synchronize().call("cuEventSynchronize (a kernel may have faulted)")?;
        self.start.elapsed_ms(&self.stop).map(|t| t as f64).call("cuEventElapsedTime")
    }
}
