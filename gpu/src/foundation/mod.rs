//! The foundation's kernels: copy, fill and the device-wide reductions (max |x| is what CFL
//! time steps need).

use crate::Entry;

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod buffers;
#[cfg(target_arch = "nvptx64")]
mod reduce;

/// Reductions the device-wide reduction kernels provide.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// max |x|: what CFL time steps need.
    MaxAbs,
    Max,
    Min,
    Sum,
}

impl ReduceOp {
    /// The kernel of this operator.
    pub const fn entry(self) -> Entry<Reduce<()>> {
        match self {
            ReduceOp::MaxAbs => REDUCE_MAX_ABS,
            ReduceOp::Max => REDUCE_MAX,
            ReduceOp::Min => REDUCE_MIN,
            ReduceOp::Sum => REDUCE_SUM,
        }
    }
    /// The operator that combines per-block partial results of this one.
    pub const fn combine(self) -> ReduceOp {
        match self {
            ReduceOp::MaxAbs => ReduceOp::Max,
            op => op,
        }
    }
    pub const ALL: [ReduceOp; 4] = [ReduceOp::MaxAbs, ReduceOp::Max, ReduceOp::Min, ReduceOp::Sum];
}

/// Threads per block of the reduction kernels (a multiple of the warp size).
pub const REDUCE_BLOCK: u32 = 256;
