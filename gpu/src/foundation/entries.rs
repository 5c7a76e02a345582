//! The foundation's entry points.

#[cfg(target_arch = "nvptx64")]
use super::buffers::{copy, fill};
#[cfg(target_arch = "nvptx64")]
use super::reduce::{reduce_max, reduce_max_abs, reduce_min, reduce_sum};

kernels! {
    /// `dst = src`, n elements.
    pub struct CopyBuf<T> { src: *const T, dst: *mut T, n: u64 }
    pub const COPY: CopyBuf = copy(copy::<T>);

    /// `dst[..n] = value`.
    pub struct FillBuf<T> { dst: *mut T, n: u64, value: T }
    pub const FILL: FillBuf = fill(fill::<T>);

    /// One pass of a device-wide reduction: `x[..n]` to one partial per block in `out`.
    pub struct Reduce<T> { x: *const T, n: u64, out: *mut T }
    pub const REDUCE_MAX_ABS: Reduce = reduce_max_abs(reduce_max_abs::<T>);
    pub const REDUCE_MAX: Reduce = reduce_max(reduce_max::<T>);
    pub const REDUCE_MIN: Reduce = reduce_min(reduce_min::<T>);
    pub const REDUCE_SUM: Reduce = reduce_sum(reduce_sum::<T>);
}
