//! Kernel handles and the one launch helper: grid from the domain size and block shape,
//! dynamic shared memory sized by the caller (and the 48 KiB limit raised when asked).

use super::Gpu;
use crate::{Error, Real, Result};
use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{CudaFunction, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg};

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

/// A kernel entry point of the loaded module.
pub struct Kernel<'g> {
    gpu: &'g Gpu,
    name: String,
    function: CudaFunction,
    max_threads: u32,
}

impl Gpu {
    /// The `<stem>_<f32|f64>` entry point for precision `T`.
    pub fn kernel<T: Real>(&self, stem: &str) -> Result<Kernel<'_>> {
        self.kernel_named(&format!("{stem}_{}", T::NAME))
    }
    /// An entry point by its full name.
    pub fn kernel_named(&self, name: &str) -> Result<Kernel<'_>> {
        let f = self.function(name)?;
        Ok(Kernel { gpu: self, name: name.to_string(), function: f.function, max_threads: f.max_threads })
    }
}

impl<'g> Kernel<'g> {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The most threads a block of this kernel may have: the device's limit, or less when the
    /// kernel's registers per thread would not fit a larger block in one multiprocessor.
    pub fn max_threads_per_block(&self) -> u32 {
        self.max_threads
    }

    /// Check `shape` against the device's limits (raising the shared-memory limit when the
    /// launch asks for more than 48 KiB) and start collecting arguments.
    pub fn launch(&self, shape: LaunchShape) -> Result<KernelLaunch<'_>> {
        let info = self.gpu.info();
        let bad = |why: String| Error::invalid(format!("kernel {}: launch {shape:?} {why}", self.name));
        let threads = shape.threads_per_block();
        if threads == 0 || threads > info.max_threads_per_block {
            return Err(bad(format!("has {threads} threads per block (1..={})", info.max_threads_per_block)));
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
        if shape.shared_bytes > info.max_shared_per_block {
            return Err(bad(format!(
                "needs {} B of shared memory per block; this GPU allows {} B",
                shape.shared_bytes, info.max_shared_per_block
            )));
        }
        if shape.shared_bytes > DEFAULT_SHARED_LIMIT {
            // SAFETY: the function belongs to the loaded module; the value is within the
            // device's opt-in maximum checked above.
            unsafe {
                cudarc::driver::result::function::set_function_attribute(
                    self.function.cu_function(),
                    FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shape.shared_bytes as i32,
                )
            }
            .map_err(|source| self.launch_error(&shape, source))?;
        }
        Ok(KernelLaunch { kernel: self, shape, args: self.gpu.stream().launch_builder(&self.function) })
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

/// A launch being assembled: push the arguments in the kernel's parameter order, then `run`.
pub struct KernelLaunch<'k> {
    kernel: &'k Kernel<'k>,
    shape: LaunchShape,
    args: LaunchArgs<'k>,
}

impl<'k> KernelLaunch<'k> {
    /// Push the next argument: `&CudaSlice<T>` for a pointer parameter, `&value` for a scalar
    /// or a [`ByVal`] parameter struct.
    pub fn arg<A>(&mut self, a: A) -> &mut Self
    where
        LaunchArgs<'k>: PushKernelArg<A>,
    {
        self.args.arg(a);
        self
    }

    /// Enqueue the kernel on the GPU's stream.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters in number, order and type, and every
    /// buffer must be as large as the kernel's contract (its `# Safety` section in `gpu/`)
    /// requires for this launch shape. The kernel reads and writes device memory through raw
    /// pointers; nothing else checks this.
    pub unsafe fn run(mut self) -> Result<()> {
        let cfg = LaunchConfig {
            grid_dim: self.shape.grid,
            block_dim: self.shape.block,
            shared_mem_bytes: self.shape.shared_bytes,
        };
        // SAFETY: forwarded to the caller (see above).
        unsafe { self.args.launch(cfg) }.map(|_| ()).map_err(|source| self.kernel.launch_error(&self.shape, source))
    }
}

/// A `#[repr(C)]` parameter struct from `gpu/`, passed to a kernel by value.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct ByVal<P: Copy>(pub P);

// SAFETY: `P` is a plain `#[repr(C)]` struct of scalars shared with the kernel's signature;
// the driver copies its bytes into the kernel's `.param` space.
unsafe impl<P: Copy> DeviceRepr for ByVal<P> {}
