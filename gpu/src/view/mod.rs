//! The live view's kernel: a state array's values at chosen cells (the view's pixels and the
//! gauges), gathered on the device so that a frame costs a download of the view's size rather
//! than of the field's. The cells are element offsets into the array, worked out on the host
//! from the array's layout (padding, strides, a 3D field's slice), so one kernel serves every
//! solver's arrays.

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod kernel;

/// Threads per block of the gather.
pub const GATHER_BLOCK: u32 = 256;
