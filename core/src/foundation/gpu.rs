//! GPU driver of the foundation's kernels.

use super::{ReduceOp, identity};
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{Error, GpuReal, Result};
use kernels::foundation::{COPY, CopyBuf, FILL, FillBuf, REDUCE_BLOCK, Reduce};

/// Threads per block of copy and fill.
const BLOCK: u32 = 256;

/// Elements per 16-byte vector: each copy/fill thread moves one vector.
fn per_vec<T>() -> u64 {
    (16 / std::mem::size_of::<T>()) as u64
}

/// The copy and fill kernels of precision `T`, looked up once: what a driver that copies or
/// fills repeatedly (poisoned outputs in tests, timing loops) keeps.
pub struct BufferKernels<T: GpuReal> {
    copy: Kernel<CopyBuf<T>>,
    fill: Kernel<FillBuf<T>>,
}

impl<T: GpuReal> BufferKernels<T> {
    pub fn new(gpu: &Gpu) -> Result<BufferKernels<T>> {
        Ok(BufferKernels { copy: gpu.kernel::<T, _>(COPY)?, fill: gpu.kernel::<T, _>(FILL)? })
    }

    /// `dst = src` by the Rust copy kernel (16-byte loads and stores).
    pub fn copy(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        copy_with(&self.copy, src, dst)
    }

    /// `dst[i] = value` by the fill kernel.
    pub fn fill(&self, dst: &mut DeviceBuffer<T>, value: T) -> Result<()> {
        fill_with(&self.fill, dst, value)
    }
}

fn copy_with<T: GpuReal>(k: &Kernel<CopyBuf<T>>, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::invalid(format!("copy of {} elements into {}", src.len(), dst.len())));
    }
    let n = src.len() as u64;
    let shape = LaunchShape::cover_1d(n / per_vec::<T>(), BLOCK)?;
    // SAFETY: src and dst are distinct whole allocations (16-byte aligned) of n elements; the
    // grid covers n / per_vec threads (at least one, which also covers the tail).
    unsafe { k.launch(shape, CopyBuf { src: src.ptr(), dst: dst.ptr_mut(), n }) }
}

fn fill_with<T: GpuReal>(k: &Kernel<FillBuf<T>>, dst: &mut DeviceBuffer<T>, value: T) -> Result<()> {
    let n = dst.len() as u64;
    let shape = LaunchShape::cover_1d(n / per_vec::<T>(), BLOCK)?;
    // SAFETY: dst is a whole allocation of n elements; grid as for copy.
    unsafe { k.launch(shape, FillBuf { dst: dst.ptr_mut(), n, value }) }
}

/// `dst = src` by the copy kernel, looked up for this one call (keep a [`BufferKernels`] to copy
/// repeatedly).
pub fn copy<T: GpuReal>(gpu: &Gpu, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
    copy_with(&gpu.kernel::<T, _>(COPY)?, src, dst)
}

/// `dst[i] = value` by the fill kernel, looked up for this one call (keep a [`BufferKernels`] to
/// fill repeatedly).
pub fn fill<T: GpuReal>(gpu: &Gpu, dst: &mut DeviceBuffer<T>, value: T) -> Result<()> {
    fill_with(&gpu.kernel::<T, _>(FILL)?, dst, value)
}

/// Threads of a kernel of one block that reduces what [`Reducer::enqueue_for_block`] gives it.
pub const ONE_BLOCK_THREADS: u32 = 1024;
/// The most values such a block reduces itself: two rounds of four loads a thread, about as long
/// as the reduction's first pass, which it saves.
pub const ONE_BLOCK_MOST: usize = 8 * ONE_BLOCK_THREADS as usize;

/// Device-wide reductions in two passes (per-block partials, then one block over those),
/// with its kernels and scratch set up once so solvers can reduce every step without looking
/// anything up or allocating.
pub struct Reducer<T: GpuReal> {
    partials: DeviceBuffer<T>,
    result: DeviceBuffer<T>,
    max_blocks: u32,
    /// One kernel per operator, in the order of `ReduceOp::ALL`.
    kernels: Vec<Kernel<Reduce<T>>>,
}

impl<T: GpuReal> Reducer<T> {
    pub fn new(gpu: &Gpu) -> Result<Reducer<T>> {
        // Eight 256-thread blocks per SM fill it; each thread keeps four loads in flight.
        let max_blocks = gpu.info().sm_count.max(1) * 8;
        let kernels = ReduceOp::ALL.iter().map(|op| gpu.kernel::<T, _>(op.entry())).collect::<Result<_>>()?;
        Ok(Reducer { partials: gpu.alloc(max_blocks as usize)?, result: gpu.alloc(1)?, max_blocks, kernels })
    }

    fn kernel(&self, op: ReduceOp) -> &Kernel<Reduce<T>> {
        &self.kernels[op as usize]
    }

    /// Enqueue the reduction of `x[..n]`; the result stays on the device (see [`Self::result`]).
    pub fn enqueue(&mut self, op: ReduceOp, x: &DeviceBuffer<T>, n: usize) -> Result<()> {
        let blocks = self.enqueue_partials(op, x, n)?;
        let block = REDUCE_BLOCK;
        let shape = LaunchShape::fixed((1, 1, 1), (block, 1, 1)).with_shared_of::<T>(32);
        let second = Reduce { x: self.partials.ptr(), n: blocks as u64, out: self.result.ptr_mut() };
        // SAFETY: x = partials (blocks <= max_blocks written), out = result (1); the block is a
        // multiple of 32 with 32 T of shared memory.
        unsafe { self.kernel(op.combine()).launch(shape, second) }
    }

    /// The first pass of [`enqueue`](Self::enqueue) alone, for a kernel that combines the
    /// partials itself: per-block partials of `x[..n]` in [`partials`](Self::partials); returns
    /// how many.
    pub fn enqueue_partials(&mut self, op: ReduceOp, x: &DeviceBuffer<T>, n: usize) -> Result<usize> {
        if n > x.len() {
            return Err(Error::invalid(format!("reduction of {n} elements of a buffer of {}", x.len())));
        }
        let block = REDUCE_BLOCK;
        let n = n as u64;
        let blocks = n.div_ceil(block as u64 * 4).clamp(1, self.max_blocks as u64) as u32;
        let shape = LaunchShape::fixed((blocks, 1, 1), (block, 1, 1)).with_shared_of::<T>(32);
        let first = Reduce { x: x.ptr(), n, out: self.partials.ptr_mut() };
        // SAFETY: x holds >= n elements (checked), out (partials) holds max_blocks >= gridDim.x;
        // the block is a multiple of 32 with 32 T of shared memory.
        unsafe { self.kernel(op).launch(shape, first)? };
        Ok(blocks as usize)
    }

    /// What a kernel of one block of [`ONE_BLOCK_THREADS`] reduces itself to combine `x[..n]`
    /// (`block_max_of` in the kernels): `x` itself where n is at most [`ONE_BLOCK_MOST`], else
    /// the per-block partials of a first pass, enqueued here. Returns where they are and how
    /// many. A step's Δt so takes one launch on a small grid and two on a large one, where the
    /// whole reduction and a one-thread kernel took three.
    pub fn enqueue_for_block(&mut self, op: ReduceOp, x: &DeviceBuffer<T>, n: usize) -> Result<(*const T, usize)> {
        if n <= ONE_BLOCK_MOST && n <= x.len() {
            return Ok((x.ptr(), n));
        }
        let blocks = self.enqueue_partials(op, x, n)?;
        Ok((self.partials.ptr(), blocks))
    }

    /// The device buffer holding the last enqueued result.
    pub fn result(&self) -> &DeviceBuffer<T> {
        &self.result
    }

    /// The result's buffer, for a reduction that goes on elsewhere (over ranks) to put the
    /// final value back where the kernels read it.
    pub fn result_mut(&mut self) -> &mut DeviceBuffer<T> {
        &mut self.result
    }

    /// Reduce the whole of `x` and return the value (synchronises).
    pub fn reduce(&mut self, gpu: &Gpu, op: ReduceOp, x: &DeviceBuffer<T>) -> Result<T> {
        if x.is_empty() {
            return Ok(identity(op));
        }
        self.enqueue(op, x, x.len())?;
        Ok(gpu.download(&self.result)?[0])
    }
}
