//! Kernel launches recorded once as a CUDA graph and launched again as a whole: one call from
//! the host for many kernels, and shorter gaps between them on the device. What a graph
//! launches is fixed when it is recorded — kernels, launch shapes, parameters, and so the
//! buffers — so a caller keeps one only while everything it recorded would be launched again
//! the same way.
//!
//! The graph is built node by node from the launches ([`Gpu::record`]), not captured from the
//! stream: no stream is ever in capture mode, so nothing another thread does on the device (a
//! copy, a synchronisation, an allocation) can break a recording or be refused because of one.

use super::Gpu;
use super::launch::{LOG, launches_of};
use crate::error::DriverContext;
use crate::{Error, Result};
use cudarc::driver::result::graph;
use cudarc::driver::sys::{self, CUgraphInstantiate_flags};
use cudarc::driver::{CudaStream, DriverError};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// The graph this thread's launches go into while [`Gpu::record`] runs.
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

/// A graph being recorded: its launches in a chain, each after the one before.
struct Recording {
    graph: sys::CUgraph,
    /// The stream the graph will be launched on: a launch onto another is refused.
    stream: sys::CUstream,
    last: Option<sys::CUgraphNode>,
}

/// A graph, destroyed with its owner.
struct Graph(sys::CUgraph);

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: created by cuGraphCreate and destroyed once, here. An error (the context gone)
        // leaves nothing to free.
        let _ = unsafe { graph::destroy(self.0) };
    }
}

/// Recorded launches ([`Gpu::record`]), ready to be launched again.
pub struct Replay {
    exec: sys::CUgraphExec,
    _graph: Graph,
    stream: Arc<CudaStream>,
    /// The kernels it launches, in order, for [`launches_of`].
    launches: Vec<String>,
}

// SAFETY: the handles are the driver's, usable from any thread bound to the context (each use
// binds it); a Replay is used through `&self` or `&mut self` of its one owner, never from two
// threads at once (it is not Sync), as the driver asks of graph objects.
unsafe impl Send for Replay {}

impl Drop for Replay {
    fn drop(&mut self) {
        // SAFETY: instantiated once, destroyed once, here; the graph outlives it (field order).
        let _ = unsafe { graph::exec_destroy(self.exec) };
    }
}

impl Gpu {
    /// Records the kernel launches of `queue` onto the GPU's stream as a graph, running none
    /// of them. `queue` must do nothing but launch kernels ([`Kernel::launch`](super::Kernel::launch)):
    /// a launch onto another stream is an error, and anything else it queues (a copy, an event)
    /// would run now, not in the graph.
    pub fn record(&self, queue: impl FnOnce() -> Result<()>) -> Result<Replay> {
        let stream = self.stream().clone();
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: the out-pointer is valid; flags must be 0.
        unsafe { sys::cuGraphCreate(&mut handle, 0).result() }.call("cuGraphCreate")?;
        let owned = Graph(handle);
        let started = RECORDING.with_borrow_mut(|r| match r {
            Some(_) => Err(Error::invalid("a graph is already being recorded on this thread")),
            None => {
                *r = Some(Recording { graph: handle, stream: stream.cu_stream(), last: None });
                Ok(())
            }
        });
        started?;
        let (queued, launches) = launches_of(queue);
        RECORDING.with_borrow_mut(|r| r.take());
        queued?;
        if launches.is_empty() {
            return Err(Error::invalid("a graph recorded no launch"));
        }
        // SAFETY: a whole graph of kernel nodes, alive until `owned` drops after the exec.
        let exec = unsafe { graph::instantiate(handle, CUgraphInstantiate_flags(0)) }.call("cuGraphInstantiate")?;
        Ok(Replay { exec, _graph: owned, stream, launches })
    }
}

impl Replay {
    /// Queues the recorded launches on the GPU's stream.
    pub fn launch(&self) -> Result<()> {
        LOG.with_borrow_mut(|l| {
            if let Some(l) = l {
                l.extend(self.launches.iter().cloned())
            }
        });
        self.stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the exec and the stream belong to one context and are alive.
        unsafe { graph::launch(self.exec, self.stream.cu_stream()) }.call("cuGraphLaunch")
    }

    /// Kernels one launch runs.
    pub fn kernels(&self) -> usize {
        self.launches.len()
    }
}

/// Adds the launch `params` to the graph being recorded on this thread, after its last node,
/// if one is: `Some` with the result, `None` when nothing records (the caller launches).
///
/// # Safety
/// As a launch of `params.func` with `params.kernelParams` on `stream`: the parameters are
/// copied into the node now, the kernel runs whenever the graph is launched.
pub(super) unsafe fn add_if_recording(
    stream: &CudaStream,
    params: &sys::CUDA_KERNEL_NODE_PARAMS,
) -> Option<std::result::Result<(), AddError>> {
    RECORDING.with_borrow_mut(|r| {
        let r = r.as_mut()?;
        if r.stream != stream.cu_stream() {
            return Some(Err(AddError::OtherStream));
        }
        let deps: Vec<sys::CUgraphNode> = r.last.into_iter().collect();
        let mut node = std::ptr::null_mut();
        // SAFETY: the graph is alive while it records; `deps` holds its last node, if any; the
        // parameters are the caller's contract.
        let added = unsafe { sys::cuGraphAddKernelNode_v2(&mut node, r.graph, deps.as_ptr(), deps.len(), params) };
        Some(match added.result() {
            Ok(()) => {
                r.last = Some(node);
                Ok(())
            }
            Err(e) => Err(AddError::Driver(e)),
        })
    })
}

/// Why a launch could not join the graph being recorded.
pub(super) enum AddError {
    OtherStream,
    Driver(DriverError),
}
