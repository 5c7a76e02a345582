//! Kernel launches (and the flags they clear) recorded once as a CUDA graph and launched again
//! as a whole: one call from the host for many kernels, and shorter gaps between them on the
//! device. What a graph launches is fixed when it is recorded — kernels, launch shapes,
//! parameters, and so the buffers — so a caller keeps one only while everything it recorded
//! would be launched again the same way.
//!
//! The graph is built node by node from the launches ([`Gpu::record`]), not captured from the
//! stream: no stream is ever in capture mode, so nothing another thread does on the device (a
//! copy, a synchronisation, an allocation) can break a recording or be refused because of one.

use super::DeviceBuffer;
use super::Gpu;
use super::launch_log::{launches_of, note_launch};
use crate::error::DriverContext;
use crate::{Error, Result};
use cudarc::driver::result::graph;
use cudarc::driver::sys::{self, CUgraphInstantiate_flags};
use cudarc::driver::{CudaStream, DevicePtrMut, DriverError};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// The graph this thread's launches go into while [`Gpu::record`] runs.
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

/// A graph being recorded. Each stream's work is a chain, each node after the one before on
/// its stream; a stream beside the recorded one ([`Aside`](super::Aside)) starts from what the
/// recorded one held at its `begin` and joins it where the recorded one waits for it.
struct Recording {
    graph: sys::CUgraph,
    /// What the next node on each stream follows: the recorded stream's from the start, a
    /// stream beside it from its `begin`.
    tails: Vec<(sys::CUstream, Vec<sys::CUgraphNode>)>,
    /// A stream's tail at its last `end`, what a join waits for.
    ends: Vec<(sys::CUstream, Vec<sys::CUgraphNode>)>,
}

impl Recording {
    fn tail(&mut self, stream: sys::CUstream) -> Option<&mut Vec<sys::CUgraphNode>> {
        self.tails.iter_mut().find(|(s, _)| *s == stream).map(|(_, t)| t)
    }

    fn set(
        list: &mut Vec<(sys::CUstream, Vec<sys::CUgraphNode>)>,
        stream: sys::CUstream,
        nodes: Vec<sys::CUgraphNode>,
    ) {
        match list.iter_mut().find(|(s, _)| *s == stream) {
            Some((_, t)) => *t = nodes,
            None => list.push((stream, nodes)),
        }
    }

    /// Adds a node on `stream` by `add(deps)`, after that stream's tail.
    fn add(
        &mut self,
        stream: sys::CUstream,
        add: impl FnOnce(&[sys::CUgraphNode]) -> std::result::Result<sys::CUgraphNode, DriverError>,
    ) -> std::result::Result<(), AddError> {
        let Some(deps) = self.tail(stream) else { return Err(AddError::OtherStream) };
        let node = add(deps).map_err(AddError::Driver)?;
        *deps = vec![node];
        Ok(())
    }
}

/// Runs `f` on the recording of this thread, if one is.
fn with_recording<R>(f: impl FnOnce(&mut Recording) -> R) -> Option<R> {
    RECORDING.with_borrow_mut(|r| r.as_mut().map(f))
}

/// While this thread records: `side`'s next work follows what `main` holds now. Whether it records.
pub(super) fn fork(side: &CudaStream, main: &CudaStream) -> bool {
    with_recording(|r| {
        let from = r.tail(main.cu_stream()).cloned().unwrap_or_default();
        Recording::set(&mut r.tails, side.cu_stream(), from);
    })
    .is_some()
}

/// While this thread records: what a join of `side` waits for is what it holds now. Whether it
/// records.
pub(super) fn mark_end(side: &CudaStream) -> bool {
    with_recording(|r| {
        let at = r.tail(side.cu_stream()).cloned().unwrap_or_default();
        Recording::set(&mut r.ends, side.cu_stream(), at);
    })
    .is_some()
}

/// While this thread records: `main`'s next work follows `side`'s last end in the recording
/// (none: work queued before the recording, which a caller joins before launching the graph).
/// Whether it records.
pub(super) fn join(main: &CudaStream, side: &CudaStream) -> bool {
    with_recording(|r| {
        let ended = r.ends.iter().find(|(s, _)| *s == side.cu_stream()).map(|(_, e)| e.clone()).unwrap_or_default();
        if let Some(t) = r.tail(main.cu_stream()) {
            t.extend(ended);
        }
    })
    .is_some()
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
    /// Records the work `queue` queues on the GPU's stream as a graph, running none of it.
    /// `queue` may launch kernels ([`Kernel::launch`](super::Kernel::launch)), zero flags
    /// ([`zero_u32`]) and order a stream beside this one ([`Aside`](super::Aside)'s `begin`,
    /// `end`, `join`): a launch onto a stream not begun from this one is an error, and anything
    /// else it queues (a copy, an event of its own) would run now, not in the graph.
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
                let main = stream.cu_stream();
                *r = Some(Recording { graph: handle, tails: vec![(main, Vec::new())], ends: Vec::new() });
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
        note_launch(&self.launches);
        self.stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the exec and the stream belong to one context and are alive.
        unsafe { graph::launch(self.exec, self.stream.cu_stream()) }.call("cuGraphLaunch")
    }

    /// Kernels one launch runs.
    pub fn kernels(&self) -> usize {
        self.launches.len()
    }
}

/// Adds the launch `params()` on `stream` to the graph being recorded on this thread, if one is:
/// `Some` with the result, `None` when nothing records (the caller launches).
///
/// # Safety
/// As a launch of `params().func` with its `kernelParams` on `stream`: the parameters are copied
/// into the node now, the kernel runs whenever the graph is launched.
pub(super) unsafe fn add_if_recording(
    stream: &CudaStream,
    params: impl FnOnce() -> sys::CUDA_KERNEL_NODE_PARAMS,
) -> Option<std::result::Result<(), AddError>> {
    with_recording(|r| {
        let (graph, params) = (r.graph, params());
        r.add(stream.cu_stream(), |deps| {
            let mut node = std::ptr::null_mut();
            // SAFETY: the graph is alive while it records; `deps` are its nodes; the parameters
            // are the caller's contract.
            unsafe { sys::cuGraphAddKernelNode_v2(&mut node, graph, deps.as_ptr(), deps.len(), &params) }.result()?;
            Ok(node)
        })
    })
}

/// Zeroes `b` on `stream`, or adds the zeroing to the graph this thread records (after the
/// stream's work so far in it).
pub fn zero_u32(stream: &Arc<CudaStream>, b: &mut DeviceBuffer<u32>) -> Result<()> {
    let ctx = stream.context().cu_ctx();
    let len = b.len();
    let added = with_recording(|r| {
        let (dst, _guard) = b.device_ptr_mut(stream);
        let params = sys::CUDA_MEMSET_NODE_PARAMS { dst, pitch: 0, value: 0, elementSize: 4, width: len, height: 1 };
        let graph = r.graph;
        r.add(stream.cu_stream(), |deps| {
            let mut node = std::ptr::null_mut();
            // SAFETY: the graph is alive while it records; `deps` are its nodes; the memset
            // covers the buffer's own `len` words, alive while the graph may run (the caller's
            // contract, as for a launch).
            unsafe { sys::cuGraphAddMemsetNode(&mut node, graph, deps.as_ptr(), deps.len(), &params, ctx) }.result()?;
            Ok(node)
        })
    });
    match added {
        None => stream.memset_zeros(b).call("cuMemsetD8"),
        Some(Ok(())) => Ok(()),
        Some(Err(AddError::Driver(source))) => Err(Error::Driver { call: "cuGraphAddMemsetNode", source }),
        Some(Err(AddError::OtherStream)) => {
            Err(Error::invalid("a zeroing queued on a stream the recorded one did not begin"))
        }
    }
}

/// Why a launch could not join the graph being recorded.
pub(super) enum AddError {
    /// A stream neither the recorded one nor begun from it while it records.
    OtherStream,
    Driver(DriverError),
}
