//! What a device and one kernel allow a block, read before any launch: the launch shapes a
//! model picks and the tuner's search spaces are pruned against it.

use super::{Gpu, Kernel};
use crate::{Error, Result};

/// What a device and one kernel allow a block. The kernel's numbers are its attributes after
/// loading (registers per thread, static shared memory, the most threads a block of it may
/// have); the device's are its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLimits {
    /// The device's most threads a block.
    pub device_threads: u32,
    /// The most threads a block of this kernel may have (the driver's figure, which counts
    /// its registers).
    pub kernel_threads: u32,
    /// Registers a thread of this kernel uses.
    pub regs_per_thread: u32,
    /// Registers a block may use (the device's).
    pub regs_per_block: u32,
    /// Shared memory a block may use when opted in, and what the kernel declares statically.
    pub shared_optin: u32,
    pub static_shared: u32,
}

/// Registers are given to warps in units of this many.
const REG_UNIT: u32 = 256;

/// Why a configuration is not launched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pruned {
    /// Threads a block not a positive multiple of 32.
    NotWarps(u32),
    TooManyThreads {
        threads: u32,
        most: u32,
    },
    Registers {
        need: u64,
        have: u32,
    },
    Shared {
        need: u64,
        have: u32,
    },
    /// Refused by the solver's own check of its launch parameters.
    Invalid(String),
}

impl std::fmt::Display for Pruned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pruned::NotWarps(t) => write!(f, "{t} threads is not a positive multiple of 32"),
            Pruned::TooManyThreads { threads, most } => write!(f, "{threads} threads a block; at most {most}"),
            Pruned::Registers { need, have } => write!(f, "needs {need} registers a block; {have} available"),
            Pruned::Shared { need, have } => write!(f, "needs {need} B of shared memory a block; {have} B available"),
            Pruned::Invalid(why) => f.write_str(why),
        }
    }
}

impl BlockLimits {
    /// Whether a block of `threads` threads with `dynamic_shared` bytes of dynamic shared
    /// memory can launch: a multiple of 32 threads, within the device's and the kernel's
    /// thread limits, registers (allocated a warp at a time, in units of 256) within the
    /// block's, and static plus dynamic shared memory within the opt-in maximum.
    pub fn check(&self, threads: u32, dynamic_shared: u64) -> std::result::Result<(), Pruned> {
        if threads == 0 || !threads.is_multiple_of(32) {
            return Err(Pruned::NotWarps(threads));
        }
        let most = self.device_threads.min(self.kernel_threads);
        if threads > most {
            return Err(Pruned::TooManyThreads { threads, most });
        }
        let per_warp = (self.regs_per_thread as u64 * 32).div_ceil(REG_UNIT as u64) * REG_UNIT as u64;
        let need = per_warp * (threads / 32) as u64;
        if need > self.regs_per_block as u64 {
            return Err(Pruned::Registers { need, have: self.regs_per_block });
        }
        let shared = self.static_shared as u64 + dynamic_shared;
        if shared > self.shared_optin as u64 {
            return Err(Pruned::Shared { need: shared, have: self.shared_optin });
        }
        Ok(())
    }
}

/// The limits a block of `kernel` has on `gpu`.
pub fn block_limits<P: kernels::Params>(gpu: &Gpu, kernel: &Kernel<P>) -> Result<BlockLimits> {
    use cudarc::driver::sys::CUdevice_attribute as Attr;
    let (regs, static_shared) = kernel.registers_and_static_shared()?;
    let regs_per_block = gpu
        .context()
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)
        .map_err(|source| Error::Driver { call: "cuDeviceGetAttribute (registers per block)", source })?;
    let i = gpu.info();
    Ok(BlockLimits {
        device_threads: i.max_threads_per_block,
        kernel_threads: kernel.max_threads_per_block(),
        regs_per_thread: regs,
        regs_per_block: regs_per_block.max(0) as u32,
        shared_optin: i.max_shared_per_block,
        static_shared,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100(regs: u32, kernel_threads: u32) -> BlockLimits {
        BlockLimits {
            device_threads: 1024,
            kernel_threads,
            regs_per_thread: regs,
            regs_per_block: 65536,
            shared_optin: 227 * 1024,
            static_shared: 0,
        }
    }

    #[test]
    fn warps_threads_registers_and_shared_memory_prune() {
        let l = h100(32, 1024);
        assert_eq!(l.check(256, 0), Ok(()));
        assert_eq!(l.check(48, 0), Err(Pruned::NotWarps(48)));
        assert_eq!(l.check(0, 0), Err(Pruned::NotWarps(0)));
        assert!(matches!(l.check(2048, 0), Err(Pruned::TooManyThreads { most: 1024, .. })));
        // 72 registers: 2304 a warp (9 units of 256); 28 warps fit in 65536, 29 do not.
        let f64_fused = h100(72, 1024);
        assert_eq!(f64_fused.check(28 * 32, 0), Ok(()));
        assert_eq!(f64_fused.check(29 * 32, 0), Err(Pruned::Registers { need: 29 * 2304, have: 65536 }));
        // The driver's own per-kernel figure is a limit too.
        assert!(matches!(h100(32, 512).check(1024, 0), Err(Pruned::TooManyThreads { most: 512, .. })));
        // Static and dynamic shared memory together.
        let s = BlockLimits { static_shared: 1024, ..l };
        assert_eq!(s.check(256, 227 * 1024 - 1024), Ok(()));
        assert!(matches!(s.check(256, 227 * 1024), Err(Pruned::Shared { .. })));
    }
}
