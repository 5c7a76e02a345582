//! GPU driver of the foundation's kernels.

use super::{ReduceOp, identity};
use crate::runtime::{DeviceBuffer, Gpu, LaunchShape};
use crate::{Error, GpuReal, Result};

/// Threads per block of copy and fill.
const BLOCK: u32 = 256;

/// Elements per 16-byte vector: each copy/fill thread moves one vector.
fn per_vec<T>() -> u64 {
    (16 / std::mem::size_of::<T>()) as u64
}

/// `dst = src` by the Rust copy kernel (16-byte loads and stores).
pub fn copy<T: GpuReal>(gpu: &Gpu, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::invalid(format!("copy of {} elements into {}", src.len(), dst.len())));
    }
    let n = src.len() as u64;
    let k = gpu.kernel::<T>("copy")?;
    let mut l = k.launch(LaunchShape::cover_1d(n / per_vec::<T>(), BLOCK)?)?;
    l.arg(src).arg(&*dst).arg(&n);
    // SAFETY: copy(src, dst, n): both whole allocations (16-byte aligned) of n elements; the
    // grid covers n / per_vec threads (at least one, which also covers the tail).
    unsafe { l.run() }
}

/// `dst[i] = value` by the fill kernel.
pub fn fill<T: GpuReal>(gpu: &Gpu, dst: &mut DeviceBuffer<T>, value: T) -> Result<()> {
    let n = dst.len() as u64;
    let k = gpu.kernel::<T>("fill")?;
    let mut l = k.launch(LaunchShape::cover_1d(n / per_vec::<T>(), BLOCK)?)?;
    l.arg(&*dst).arg(&n).arg(&value);
    // SAFETY: fill(dst, n, value): a whole allocation of n elements; grid as for copy.
    unsafe { l.run() }
}

/// Device-wide reductions in two passes (per-block partials, then one block over those),
/// with its scratch allocated once so solvers can reduce every step without allocating.
pub struct Reducer<T: GpuReal> {
    partials: DeviceBuffer<T>,
    result: DeviceBuffer<T>,
    max_blocks: u32,
}

impl<T: GpuReal> Reducer<T> {
    pub fn new(gpu: &Gpu) -> Result<Reducer<T>> {
        // Eight 256-thread blocks per SM fill it; each thread keeps four loads in flight.
        let max_blocks = gpu.info().sm_count.max(1) * 8;
        Ok(Reducer { partials: gpu.alloc(max_blocks as usize)?, result: gpu.alloc(1)?, max_blocks })
    }

    /// Enqueue the reduction of `x[..n]`; the result stays on the device (see [`Self::result`]).
    pub fn enqueue(&mut self, gpu: &Gpu, op: ReduceOp, x: &DeviceBuffer<T>, n: usize) -> Result<()> {
        if n > x.len() {
            return Err(Error::invalid(format!("reduction of {n} elements of a buffer of {}", x.len())));
        }
        let block = kernels::foundation::REDUCE_BLOCK;
        let n = n as u64;
        let blocks = n.div_ceil(block as u64 * 4).clamp(1, self.max_blocks as u64) as u32;
        let first = gpu.kernel::<T>(op.entry().stem())?;
        let mut l = first.launch(LaunchShape::fixed((blocks, 1, 1), (block, 1, 1)).with_shared_of::<T>(32))?;
        l.arg(x).arg(&n).arg(&self.partials);
        // SAFETY: reduce_*(x, n, out): x holds >= n elements (checked), out holds max_blocks
        // >= gridDim.x; the block is a multiple of 32 with 32 T of shared memory.
        unsafe { l.run()? };
        let second = gpu.kernel::<T>(op.combine().entry().stem())?;
        let nb = blocks as u64;
        let mut l = second.launch(LaunchShape::fixed((1, 1, 1), (block, 1, 1)).with_shared_of::<T>(32))?;
        l.arg(&self.partials).arg(&nb).arg(&self.result);
        // SAFETY: as above with x = partials (blocks <= max_blocks written) and out = result (1).
        unsafe { l.run() }
    }

    /// The device buffer holding the last enqueued result.
    pub fn result(&self) -> &DeviceBuffer<T> {
        &self.result
    }

    /// Reduce the whole of `x` and return the value (synchronises).
    pub fn reduce(&mut self, gpu: &Gpu, op: ReduceOp, x: &DeviceBuffer<T>) -> Result<T> {
        if x.is_empty() {
            return Ok(identity(op));
        }
        self.enqueue(gpu, op, x, x.len())?;
        Ok(gpu.download(&self.result)?[0])
    }
}
