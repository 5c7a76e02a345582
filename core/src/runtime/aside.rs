//! A stream beside a GPU's own, for work that runs while the GPU's stream goes on with what does
//! not depend on it (a slab's ghost rows travelling, the water account's boundary faces).

use super::{Gpu, replay};
use crate::Result;
use crate::error::DriverContext;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};
use std::sync::Arc;

/// A stream of the GPU beside its own, of the highest priority (its blocks are scheduled before
/// the other stream's waiting ones), and the two events that order the streams: work queued
/// between [`begin`](Aside::begin) and [`end`](Aside::end) runs after everything the GPU's stream
/// held at `begin`, and the GPU's stream waits for it at [`join`](Aside::join).
pub struct Aside {
    stream: Arc<CudaStream>,
    ready: CudaEvent,
    done: CudaEvent,
}

impl Aside {
    pub fn new(gpu: &Gpu) -> Result<Aside> {
        let ctx = gpu.context();
        let (_, highest) = cudarc::driver::result::stream::get_priority_range().call("cuCtxGetStreamPriorityRange")?;
        let stream = ctx.new_stream_with_priority(highest).call("cuStreamCreateWithPriority")?;
        let event = || ctx.new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING)).call("cuEventCreate");
        Ok(Aside { stream, ready: event()?, done: event()? })
    }

    /// The stream beside the GPU's.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// What is queued on this stream from now on runs after everything queued on `main` so far.
    /// While the thread records a graph of `main`'s work (`Gpu::record`), the same order in
    /// the graph.
    pub fn begin(&self, main: &CudaStream) -> Result<()> {
        if replay::fork(&self.stream, main) {
            return Ok(());
        }
        self.ready.record(main).call("cuEventRecord")?;
        self.stream.wait(&self.ready).call("cuStreamWaitEvent")
    }

    /// Marks the end of what [`join`](Self::join) waits for: everything queued here so far.
    pub fn end(&self) -> Result<()> {
        if replay::mark_end(&self.stream) {
            return Ok(());
        }
        self.done.record(&self.stream).call("cuEventRecord")
    }

    /// `main` waits, on the device, for what this stream held at the last [`end`](Self::end)
    /// (nothing before the first). While the thread records, what this stream held at its last
    /// `end` in the recording (work before the recording is joined before the graph launches).
    pub fn join(&self, main: &CudaStream) -> Result<()> {
        if replay::join(main, &self.stream) {
            return Ok(());
        }
        main.wait(&self.done).call("cuStreamWaitEvent")
    }
}
