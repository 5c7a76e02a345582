//! The runtime: which backend runs (GPU or CPU), and the GPU's context, buffers, launches and
//! timers, and what a device allows a kernel's blocks. Layered as cudarc is: raw driver calls stay in cudarc; here they become `Result`s
//! and safe types, with `unsafe` only at the kernel launch.

mod aside;
mod backend;
mod borrowed;
mod context;
mod launch;
mod launch_log;
mod limits;
mod replay;
mod snapshot;
mod timing;

pub use aside::Aside;
pub use backend::{Backend, BackendChoice};
pub use borrowed::{Borrowed, DeviceMemory};
pub use context::{DeviceInfo, Gpu};
pub use cudarc::driver::CudaSlice as DeviceBuffer;
pub use launch::{DevicePointers, Kernel, LaunchShape};
pub use launch_log::launches_of;
pub use limits::{BlockLimits, Pruned, block_limits};
pub use replay::{Replay, zero_u32};
pub use snapshot::{HOST_BUFFERS, Pending, Snapshots};
pub use timing::Timer;
