//! `#[repr(C)]` values shared by kernels and the host: reduction operators and the like.

/// Reductions the device-wide reduction kernels provide (`reduce_<op>_<precision>`).
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
    /// The kernel-name stem for this operator.
    pub const fn stem(self) -> &'static str {
        match self {
            ReduceOp::MaxAbs => "reduce_max_abs",
            ReduceOp::Max => "reduce_max",
            ReduceOp::Min => "reduce_min",
            ReduceOp::Sum => "reduce_sum",
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
