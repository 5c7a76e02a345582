//! Typed kernel handles and the one launch path.
//!
//! A driver resolves each kernel once, from the entry constant the kernel crate declares, into
//! a [`Kernel<P>`] whose `P` is that kernel's parameter struct (`kernels!` made both from one
//! declaration, so the parameters' number, order and types cannot drift from the PTX):
//!
//! ```text
//! let flux: Kernel<kernels::kp::FluxTile<T>> = gpu.kernel::<T, _>(kernels::kp::FLUX_KP07)?;
//! let params = FluxTile { k, w: q[0].ptr(), /* … */ rate: rate.ptr_mut() };
//! // SAFETY: (the kernel's contract, field by field)
//! unsafe { flux.launch(shape, params)? };
//! ```
//!
//! Device buffers give their addresses to the raw-pointer fields through [`DevicePointers`].

use super::launch_log::note_launch;
use super::replay::{AddError, add_if_recording};
use super::{DeviceBuffer, Gpu};
use crate::{Error, GpuReal, Result};
use cudarc::driver::sys::{self, CUfunction_attribute as FnAttr};
use cudarc::driver::{CudaFunction, CudaStream, DevicePtr};
use kernels::{Entry, Family, MAX_PARAMS, Params};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Shared memory a block gets without opting in.
const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// Grid, block and dynamic shared memory of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_bytes: u32,
}

fn blocks(n: u64, per_block: u32) -> Result<u32> {
    let b = n.max(1).div_ceil(per_block.max(1) as u64);
    u32::try_from(b).map_err(|_| Error::invalid(format!("{n} elements need more than 2^32 blocks")))
}

impl LaunchShape {
    /// Blocks of `block` threads covering `n` work items in x (at least one block).
    pub fn cover_1d(n: u64, block: u32) -> Result<LaunchShape> {
        Ok(LaunchShape { grid: (blocks(n, block)?, 1, 1), block: (block, 1, 1), shared_bytes: 0 })
    }
    /// Blocks of `bx × by` threads covering an `nx × ny` domain, each block covering
    /// `(bx·px) × (by·py)` points when each thread handles `px × py` of them.
    pub fn cover_2d(nx: u64, ny: u64, block: (u32, u32), per_thread: (u32, u32)) -> Result<LaunchShape> {
        Ok(LaunchShape {
            grid: (blocks(nx, block.0 * per_thread.0)?, blocks(ny, block.1 * per_thread.1)?, 1),
            block: (block.0, block.1, 1),
            shared_bytes: 0,
        })
    }
    /// Blocks covering an `nx × ny × nz` domain, per-thread counts as in [`cover_2d`](Self::cover_2d).
    pub fn cover_3d(n: (u64, u64, u64), block: (u32, u32, u32), per_thread: (u32, u32, u32)) -> Result<LaunchShape> {
        Ok(LaunchShape {
            grid: (
                blocks(n.0, block.0 * per_thread.0)?,
                blocks(n.1, block.1 * per_thread.1)?,
                blocks(n.2, block.2 * per_thread.2)?,
            ),
            block,
            shared_bytes: 0,
        })
    }
    /// An explicit grid and block.
    pub fn fixed(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchShape {
        LaunchShape { grid, block, shared_bytes: 0 }
    }
    /// With `bytes` of dynamic shared memory per block.
    pub fn with_shared(mut self, bytes: usize) -> LaunchShape {
        self.shared_bytes = u32::try_from(bytes).unwrap_or(u32::MAX);
        self
    }
    /// With `count` elements of `T` in dynamic shared memory per block.
    pub fn with_shared_of<T>(self, count: usize) -> LaunchShape {
        self.with_shared(count.saturating_mul(std::mem::size_of::<T>()))
    }
    pub fn threads_per_block(&self) -> u32 {
        self.block.0 * self.block.1 * self.block.2
    }
}

/// One entry point of the PTX module at one precision, launched with parameters `P` (the
/// kernel crate's parameter struct of that entry point). Resolve it once ([`Gpu::kernel`]) and
/// keep it: a launch then does no look-up.
pub struct Kernel<P> {
    name: String,
    function: CudaFunction,
    stream: Arc<CudaStream>,
    /// The most threads a block may have: the device's limit, or less when the kernel's
    /// registers per thread would not fit a larger block in one multiprocessor.
    max_threads: u32,
    /// The device's limits a launch is checked against.
    device_threads: u32,
    device_shared: u32,
    /// Whether the function's dynamic shared memory limit has been raised to the most the
    /// device allows it (done once, by the first launch that needs more than 48 KiB).
    shared_raised: AtomicBool,
    params: PhantomData<fn(P)>,
}

impl Gpu {
    /// The entry point `entry` at precision `T` (`<stem>_f32` or `<stem>_f64`). Look kernels up
    /// when a driver is built, not per launch.
    pub fn kernel<T: GpuReal, F: Family>(&self, entry: Entry<F>) -> Result<Kernel<F::At<T>>> {
        let name = format!("{}_{}", entry.stem(), T::NAME);
        let (function, max_threads) = self.function(&name)?;
        let info = self.info();
        Ok(Kernel {
            name,
            function,
            stream: self.stream().clone(),
            max_threads,
            device_threads: info.max_threads_per_block,
            device_shared: info.max_shared_per_block,
            shared_raised: AtomicBool::new(false),
            params: PhantomData,
        })
    }
}

impl<P> std::fmt::Debug for Kernel<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel").field("name", &self.name).field("max_threads", &self.max_threads).finish()
    }
}

impl<P: Params> Kernel<P> {
    /// The PTX symbol, `<stem>_<f32|f64>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The stream [`launch`](Self::launch) queues on: its GPU's.
    pub fn stream(&self) -> &CudaStream {
        &self.stream
    }

    /// The most threads a block of this kernel may have: the device's limit, or less when the
    /// kernel's registers per thread would not fit a larger block in one multiprocessor.
    pub fn max_threads_per_block(&self) -> u32 {
        self.max_threads
    }

    /// The function's registers per thread and static shared memory (bytes), as the driver
    /// reports them after loading: what the tuner prunes launch configurations by.
    pub fn registers_and_static_shared(&self) -> Result<(u32, u32)> {
        let get = |a: FnAttr, what: &'static str| {
            self.function
                .get_attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(|source| Error::Driver { call: what, source })
        };
        Ok((
            get(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute (registers)")?,
            get(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "cuFuncGetAttribute (static shared memory)")?,
        ))
    }

    /// Check `shape` against the device's and the kernel's limits, raising the function's
    /// shared-memory limit the first time a launch asks for more than 48 KiB.
    fn check(&self, shape: &LaunchShape) -> Result<()> {
        let bad = |why: String| Error::invalid(format!("kernel {}: launch {shape:?} {why}", self.name));
        let threads = shape.threads_per_block();
        if threads == 0 || threads > self.device_threads {
            return Err(bad(format!("has {threads} threads per block (1..={})", self.device_threads)));
        }
        let fits = self.max_threads;
        if threads > fits {
            return Err(bad(format!(
                "has {threads} threads per block; this kernel's registers allow at most {fits}: use a smaller block"
            )));
        }
        if shape.grid.0 == 0 || shape.grid.1 == 0 || shape.grid.2 == 0 || shape.grid.1 > 65535 || shape.grid.2 > 65535 {
            return Err(bad("has an empty grid or a y/z grid dimension over 65535".into()));
        }
        if shape.shared_bytes > self.device_shared {
            return Err(bad(format!(
                "needs {} B of shared memory per block; this GPU allows {} B",
                shape.shared_bytes, self.device_shared
            )));
        }
        if shape.shared_bytes > DEFAULT_SHARED_LIMIT && !self.shared_raised.load(Ordering::Relaxed) {
            // The most dynamic shared memory the function can have: the device's opt-in
            // maximum less its static shared memory (none in hydrokern's kernels today).
            let fixed = self
                .function
                .get_attribute(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
                .map_err(|source| self.launch_error(shape, source))?;
            let most = self.device_shared.saturating_sub(fixed.max(0) as u32);
            // SAFETY: the function belongs to the loaded module; the value is within the
            // device's opt-in maximum. Every handle of this function raises to the same value,
            // so a second handle never lowers what another relies on.
            unsafe {
                cudarc::driver::result::function::set_function_attribute(
                    self.function.cu_function(),
                    FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    most as i32,
                )
            }
            .map_err(|source| self.launch_error(shape, source))?;
            self.shared_raised.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Enqueue the kernel on the GPU's stream with `params`, after checking `shape`.
    ///
    /// # Safety
    /// Every pointer field of `params` is the device address of an allocation as large as the
    /// kernel's contract (the `# Safety` section of its body in `gpu/src/<solver>/`) requires for
    /// this launch shape, with only the aliasing it allows, and stays allocated until the kernel
    /// has run. The kernel reads and writes device memory through them; nothing else checks
    /// this. (The parameters' number, order and types are right by construction.)
    pub unsafe fn launch(&self, shape: LaunchShape, params: P) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { self.launch_on(&self.stream, shape, params) }
    }

    /// [`launch`](Self::launch) on `stream`, a stream of the GPU's context other than its own
    /// (work that runs beside the stream's, such as a slab's edge bands while its inner ones
    /// run, or the water account's stages: [`Aside`](super::Aside)).
    ///
    /// # Safety
    /// As [`launch`](Self::launch), and nothing on another stream writes what the kernel reads
    /// or touches what it writes while it may run, unless ordered by events.
    pub unsafe fn launch_on(&self, stream: &CudaStream, shape: LaunchShape, params: P) -> Result<()> {
        self.check(&shape)?;
        note_launch(std::slice::from_ref(&self.name));
        let mut args = [std::ptr::null_mut(); MAX_PARAMS];
        let n = params.args(&mut args);
        stream.context().bind_to_thread().map_err(|source| self.launch_error(&shape, source))?;
        let node = || sys::CUDA_KERNEL_NODE_PARAMS {
            func: self.function.cu_function(),
            gridDimX: shape.grid.0,
            gridDimY: shape.grid.1,
            gridDimZ: shape.grid.2,
            blockDimX: shape.block.0,
            blockDimY: shape.block.1,
            blockDimZ: shape.block.2,
            sharedMemBytes: shape.shared_bytes,
            kernelParams: args.as_mut_ptr(),
            extra: std::ptr::null_mut(),
            kern: std::ptr::null_mut(),
            ctx: std::ptr::null_mut(),
        };
        // SAFETY: `args[..n]` points at the fields of `params`, which the node copies now; the
        // rest is the caller's contract, for whenever the graph runs. The node's parameters are
        // formed only while a graph records.
        match unsafe { add_if_recording(stream, node) } {
            None => {}
            Some(Ok(())) => return Ok(()),
            Some(Err(AddError::Driver(source))) => return Err(self.launch_error(&shape, source)),
            Some(Err(AddError::OtherStream)) => {
                return Err(Error::invalid(format!(
                    "kernel {}: launched on another stream while its stream's launches are recorded",
                    self.name
                )));
            }
        }
        // SAFETY: `args[..n]` points at the fields of `params`, alive for this call
        // (cuLaunchKernel copies the values); the function and the stream belong to one
        // context (cuLaunchKernel refuses another's); the rest is the caller's contract above.
        unsafe {
            cudarc::driver::result::launch_kernel(
                self.function.cu_function(),
                shape.grid,
                shape.block,
                shape.shared_bytes,
                stream.cu_stream(),
                &mut args[..n],
            )
        }
        .map_err(|source| self.launch_error(&shape, source))
    }

    fn launch_error(&self, shape: &LaunchShape, source: cudarc::driver::DriverError) -> Error {
        Error::Launch {
            kernel: self.name.clone(),
            grid: shape.grid,
            block: shape.block,
            shared_bytes: shape.shared_bytes,
            cause: source,
        }
    }
}

/// The device address of a buffer, for the raw-pointer fields of kernel parameter structs. The
/// pointers are device addresses: never dereferenced on the host.
pub trait DevicePointers<T> {
    /// The address of element 0, for a field the kernel reads.
    fn ptr(&self) -> *const T;
    /// The address of element 0, for a field the kernel writes.
    fn ptr_mut(&mut self) -> *mut T;
}

impl<T> DevicePointers<T> for DeviceBuffer<T> {
    fn ptr(&self) -> *const T {
        // `device_ptr` also returns a guard that records a read event on drop when the context
        // tracks events; `Gpu::new` disables tracking (one ordered stream), so it does nothing.
        let (address, _guard) = self.device_ptr(self.stream());
        std::ptr::without_provenance(address as usize)
    }
    fn ptr_mut(&mut self) -> *mut T {
        self.ptr().cast_mut()
    }
}
