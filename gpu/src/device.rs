//! The small device layer: indices, barriers, shared memory, read-only loads, warp shuffles and
//! block reductions. Its API follows rust-cuda's `cuda_std` (`thread::index_2d()`,
//! `sync_threads()`, shared arrays) so a later swap stays cheap.

use crate::Real;
use core::arch::asm;
use core::arch::nvptx;

/// Thread, block and grid indices (CUDA's threadIdx, blockIdx, blockDim, gridDim).
pub mod thread {
    use super::nvptx;

    #[inline(always)]
    pub fn thread_idx_x() -> u32 {
        unsafe { nvptx::_thread_idx_x() as u32 }
    }
    #[inline(always)]
    pub fn thread_idx_y() -> u32 {
        unsafe { nvptx::_thread_idx_y() as u32 }
    }
    #[inline(always)]
    pub fn thread_idx_z() -> u32 {
        unsafe { nvptx::_thread_idx_z() as u32 }
    }
    #[inline(always)]
    pub fn block_idx_x() -> u32 {
        unsafe { nvptx::_block_idx_x() as u32 }
    }
    #[inline(always)]
    pub fn block_idx_y() -> u32 {
        unsafe { nvptx::_block_idx_y() as u32 }
    }
    #[inline(always)]
    pub fn block_idx_z() -> u32 {
        unsafe { nvptx::_block_idx_z() as u32 }
    }
    #[inline(always)]
    pub fn block_dim_x() -> u32 {
        unsafe { nvptx::_block_dim_x() as u32 }
    }
    #[inline(always)]
    pub fn block_dim_y() -> u32 {
        unsafe { nvptx::_block_dim_y() as u32 }
    }
    #[inline(always)]
    pub fn block_dim_z() -> u32 {
        unsafe { nvptx::_block_dim_z() as u32 }
    }
    #[inline(always)]
    pub fn grid_dim_x() -> u32 {
        unsafe { nvptx::_grid_dim_x() as u32 }
    }
    #[inline(always)]
    pub fn grid_dim_y() -> u32 {
        unsafe { nvptx::_grid_dim_y() as u32 }
    }
    #[inline(always)]
    pub fn grid_dim_z() -> u32 {
        unsafe { nvptx::_grid_dim_z() as u32 }
    }

    /// Linear index of this thread within its block.
    #[inline(always)]
    pub fn thread_rank_in_block() -> u32 {
        (thread_idx_z() * block_dim_y() + thread_idx_y()) * block_dim_x() + thread_idx_x()
    }
    /// Threads per block.
    #[inline(always)]
    pub fn block_size() -> u32 {
        block_dim_x() * block_dim_y() * block_dim_z()
    }
    /// Global 1D index, 64-bit so that grids over 2^32 elements index correctly.
    #[inline(always)]
    pub fn index_1d() -> u64 {
        block_idx_x() as u64 * block_dim_x() as u64 + thread_idx_x() as u64
    }
    /// Total threads in a 1D grid.
    #[inline(always)]
    pub fn grid_size_1d() -> u64 {
        grid_dim_x() as u64 * block_dim_x() as u64
    }
    /// Global (x, y) index.
    #[inline(always)]
    pub fn index_2d() -> (u32, u32) {
        (block_idx_x() * block_dim_x() + thread_idx_x(), block_idx_y() * block_dim_y() + thread_idx_y())
    }
    /// Global (x, y, z) index.
    #[inline(always)]
    pub fn index_3d() -> (u32, u32, u32) {
        (
            block_idx_x() * block_dim_x() + thread_idx_x(),
            block_idx_y() * block_dim_y() + thread_idx_y(),
            block_idx_z() * block_dim_z() + thread_idx_z(),
        )
    }
    /// Block barrier (`bar.sync 0`): every thread of the block must reach it.
    #[inline(always)]
    pub fn sync_threads() {
        unsafe { nvptx::_syncthreads() }
    }
    /// Block barrier that also answers whether `p` holds in any thread of the block
    /// (`bar.red.or.pred`, CUDA's `__syncthreads_or`): the same answer in every thread, so a
    /// block can leave together on a condition its threads read at different times.
    #[inline(always)]
    pub fn sync_threads_or(p: bool) -> bool {
        let r: u32;
        unsafe {
            core::arch::asm!("{{ .reg .pred %p, %q; setp.ne.u32 %p, {v}, 0; bar.red.or.pred %q, 0, %p; selp.u32 {r}, 1, 0, %q; }}",
                r = out(reg32) r, v = in(reg32) p as u32, options(nostack));
        }
        r != 0
    }
}

/// `atom.global.add.u32`: adds `v` to `*p` and returns the value before.
///
/// # Safety
/// `p` is a valid global `u32`.
#[inline(always)]
pub unsafe fn atomic_add_u32(p: *mut u32, v: u32) -> u32 {
    let r: u32;
    unsafe {
        asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; atom.global.add.u32 {r}, [%g], {v}; }}",
            r = out(reg32) r, p = in(reg64) p, v = in(reg32) v, options(nostack));
    }
    r
}

/// Dynamic shared memory. Its size is the launch's `shared_mem_bytes`, so tile shapes are
/// run-time launch parameters; the host launch helper sizes it.
pub mod shared {
    /// Base of the block's dynamic shared memory, viewed as `T`s (aligned for `T`).
    #[inline(always)]
    pub fn dynamic<T>() -> *mut T {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
    }
}

/// Loads through the read-only (non-coherent) data cache, CUDA's `__ldg`. Only for data no
/// thread of the same launch writes.
pub trait Ldg: Sized {
    /// # Safety
    /// `p` must be a valid, aligned global-memory pointer not written during this launch.
    unsafe fn ldg(p: *const Self) -> Self;
}

impl Ldg for f64 {
    #[inline(always)]
    unsafe fn ldg(p: *const f64) -> f64 {
        let v: f64;
        unsafe {
            asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.nc.f64 {v}, [%g]; }}",
                v = out(reg64) v, p = in(reg64) p, options(pure, readonly, nostack));
        }
        v
    }
}

impl Ldg for f32 {
    #[inline(always)]
    unsafe fn ldg(p: *const f32) -> f32 {
        let v: f32;
        unsafe {
            asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.nc.f32 {v}, [%g]; }}",
                v = out(reg32) v, p = in(reg64) p, options(pure, readonly, nostack));
        }
        v
    }
}

/// Warp-level primitives. Every lane of a full warp must take part (mask 0xffffffff).
pub mod warp {
    use super::asm;

    pub const WARP_SIZE: u32 = 32;

    /// `shfl.sync.down.b32`: the value of lane `lane + delta` (own value past the warp's end).
    /// Not `pure`: a shuffle is convergent and must not be moved across control flow.
    #[inline(always)]
    pub fn shfl_down_u32(v: u32, delta: u32) -> u32 {
        let r: u32;
        unsafe {
            asm!("shfl.sync.down.b32 {r}, {v}, {d}, 31, -1;",
                r = out(reg32) r, v = in(reg32) v, d = in(reg32) delta, options(nostack));
        }
        r
    }

    /// `shfl.sync.up.b32`: the value of lane `lane - delta` (own value below lane 0).
    #[inline(always)]
    pub fn shfl_up_u32(v: u32, delta: u32) -> u32 {
        let r: u32;
        unsafe {
            asm!("shfl.sync.up.b32 {r}, {v}, {d}, 0, -1;",
                r = out(reg32) r, v = in(reg32) v, d = in(reg32) delta, options(nostack));
        }
        r
    }

    /// `vote.sync.any.pred`: whether `p` holds in any lane of the warp.
    #[inline(always)]
    pub fn any(p: bool) -> bool {
        let r: u32;
        unsafe {
            asm!("{{ .reg .pred %p, %q; setp.ne.u32 %p, {v}, 0; vote.sync.any.pred %q, %p, -1; selp.u32 {r}, 1, 0, %q; }}",
                r = out(reg32) r, v = in(reg32) p as u32, options(nostack));
        }
        r != 0
    }

    /// `vote.sync.ballot.b32`: bit `l` set where `p` holds in lane `l`.
    #[inline(always)]
    pub fn ballot(p: bool) -> u32 {
        let r: u32;
        unsafe {
            asm!("{{ .reg .pred %p; setp.ne.u32 %p, {v}, 0; vote.sync.ballot.b32 {r}, %p, -1; }}",
                r = out(reg32) r, v = in(reg32) p as u32, options(nostack));
        }
        r
    }

    /// `shfl.sync.idx.b32`: the value of lane `src`.
    #[inline(always)]
    pub fn shfl_idx_u32(v: u32, src: u32) -> u32 {
        let r: u32;
        unsafe {
            asm!("shfl.sync.idx.b32 {r}, {v}, {s}, 31, -1;",
                r = out(reg32) r, v = in(reg32) v, s = in(reg32) src, options(nostack));
        }
        r
    }

    /// This thread's lane in its warp (a 1-D block's threads are laid out in lanes in order).
    #[inline(always)]
    pub fn lane() -> u32 {
        super::thread::thread_rank_in_block() % WARP_SIZE
    }

    /// Append one `u32` pair (`a`, `b`) a lane where `keep` to the list at `list` (pairs), whose
    /// length is `*count`: one atomic a warp, slots in lane order within the warp.
    ///
    /// # Safety
    /// Every lane of a full warp calls it; `count` is a global `u32` and `list` has room for
    /// every pair appended.
    #[inline(always)]
    pub unsafe fn append_pair(keep: bool, a: u32, b: u32, list: *mut u32, count: *mut u32) {
        let mask = ballot(keep);
        if mask == 0 {
            return;
        }
        let leader = mask.trailing_zeros();
        let lane = lane();
        let mut base = 0;
        if lane == leader {
            base = unsafe { super::atomic_add_u32(count, mask.count_ones()) };
        }
        let base = shfl_idx_u32(base, leader);
        if keep {
            let slot = (base + (mask & ((1u32 << lane) - 1)).count_ones()) as usize;
            unsafe {
                *list.add(2 * slot) = a;
                *list.add(2 * slot + 1) = b;
            }
        }
    }

    /// Types that can be shuffled between lanes.
    pub trait Shuffle: Copy {
        fn shfl_down(self, delta: u32) -> Self;
        fn shfl_up(self, delta: u32) -> Self;
    }
    impl Shuffle for f32 {
        #[inline(always)]
        fn shfl_down(self, delta: u32) -> f32 {
            f32::from_bits(shfl_down_u32(self.to_bits(), delta))
        }
        #[inline(always)]
        fn shfl_up(self, delta: u32) -> f32 {
            f32::from_bits(shfl_up_u32(self.to_bits(), delta))
        }
    }
    impl Shuffle for f64 {
        #[inline(always)]
        fn shfl_down(self, delta: u32) -> f64 {
            let b = self.to_bits();
            let lo = shfl_down_u32(b as u32, delta) as u64;
            let hi = shfl_down_u32((b >> 32) as u32, delta) as u64;
            f64::from_bits(lo | (hi << 32))
        }
        #[inline(always)]
        fn shfl_up(self, delta: u32) -> f64 {
            let b = self.to_bits();
            let lo = shfl_up_u32(b as u32, delta) as u64;
            let hi = shfl_up_u32((b >> 32) as u32, delta) as u64;
            f64::from_bits(lo | (hi << 32))
        }
    }
}

/// A `Real` the kernels can use: f32 or f64 with read-only loads and shuffles.
pub trait DeviceReal: Real + Ldg + warp::Shuffle + crate::async_copy::Copied {}
impl DeviceReal for f32 {}
impl DeviceReal for f64 {}

/// Block-level reductions on warp shuffles plus one word per warp of shared memory.
pub mod reduce {
    use super::{DeviceReal, thread, warp};

    /// Reduce within a warp; lane 0 holds the result.
    #[inline(always)]
    pub fn warp_reduce<T: DeviceReal>(mut v: T, op: impl Fn(T, T) -> T) -> T {
        let mut d = 16;
        while d > 0 {
            v = op(v, warp::Shuffle::shfl_down(v, d));
            d >>= 1;
        }
        v
    }

    /// Reduce over the whole block; the result is valid in thread 0 of the block.
    ///
    /// Every thread of the block must call it, the block size must be a multiple of 32, and
    /// `scratch` must point to at least 32 `T`s of shared memory no other code uses meanwhile.
    /// It ends with a barrier, so `scratch` may be reused afterwards.
    #[inline(always)]
    pub fn block_reduce<T: DeviceReal>(v: T, identity: T, scratch: *mut T, op: impl Fn(T, T) -> T + Copy) -> T {
        let rank = thread::thread_rank_in_block();
        let lane = rank % warp::WARP_SIZE;
        let wid = rank / warp::WARP_SIZE;
        let nwarps = thread::block_size() / warp::WARP_SIZE;
        let v = warp_reduce(v, op);
        if lane == 0 {
            unsafe { *scratch.add(wid as usize) = v };
        }
        thread::sync_threads();
        let mut r = identity;
        if wid == 0 {
            if lane < nwarps {
                r = unsafe { *scratch.add(lane as usize) };
            }
            r = warp_reduce(r, op);
        }
        thread::sync_threads();
        r
    }

    pub fn block_max<T: DeviceReal>(v: T, scratch: *mut T) -> T {
        block_reduce(v, -T::INFINITY, scratch, |a: T, b: T| a.max(b))
    }
    /// The largest of `x[0..n]` over the whole block, valid in thread 0 (−∞ for n = 0): the
    /// block's threads stride over `x` with four loads in flight each, then [`block_max`]. For
    /// a kernel of one block that needs a maximum of a few thousand values before its own work,
    /// without a reduction kernel before it.
    ///
    /// # Safety
    /// `x` holds `n` elements not written during the launch; as [`block_reduce`] otherwise.
    #[inline(always)]
    pub unsafe fn block_max_of<T: DeviceReal>(x: *const T, n: u64, scratch: *mut T) -> T {
        let stride = u64::from(thread::block_size());
        let mut i = u64::from(thread::thread_rank_in_block());
        let mut acc = [-T::INFINITY; 4];
        unsafe {
            while i + 3 * stride < n {
                let mut k = 0;
                while k < 4 {
                    acc[k] = acc[k].max(T::ldg(x.add((i + k as u64 * stride) as usize)));
                    k += 1;
                }
                i += 4 * stride;
            }
            while i < n {
                acc[0] = acc[0].max(T::ldg(x.add(i as usize)));
                i += stride;
            }
        }
        block_max(acc[0].max(acc[1]).max(acc[2].max(acc[3])), scratch)
    }
    pub fn block_min<T: DeviceReal>(v: T, scratch: *mut T) -> T {
        block_reduce(v, T::INFINITY, scratch, |a: T, b: T| a.min(b))
    }
    pub fn block_sum<T: DeviceReal>(v: T, scratch: *mut T) -> T {
        block_reduce(v, T::ZERO, scratch, |a: T, b: T| a + b)
    }
}

/// 16-byte global loads and stores (`ld.global.v4.b32`), which rustc does not emit for a plain
/// 16-byte aligned struct copy (it splits it into two 8-byte accesses).
pub mod vec {
    use super::asm;

    /// Four 32-bit words, as moved by one vector access.
    pub type W4 = [u32; 4];

    /// Read-only 16-byte load through the non-coherent cache.
    ///
    /// # Safety
    /// `p` is a 16-byte aligned global pointer to data not written during this launch.
    #[inline(always)]
    pub unsafe fn ldg_v4(p: *const W4) -> W4 {
        let (a, b, c, d): (u32, u32, u32, u32);
        unsafe {
            asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.nc.v4.b32 {{{a}, {b}, {c}, {d}}}, [%g]; }}",
                a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
                p = in(reg64) p, options(pure, readonly, nostack));
        }
        [a, b, c, d]
    }

    /// 16-byte store.
    ///
    /// # Safety
    /// `p` is a 16-byte aligned global pointer.
    #[inline(always)]
    pub unsafe fn st_v4(p: *mut W4, v: W4) {
        unsafe {
            asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.global.v4.b32 [%g], {{{a}, {b}, {c}, {d}}}; }}",
                a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
                p = in(reg64) p, options(nostack));
        }
    }
}

/// The low parts of a compensated (hi, lo) field (`ON`; docs/f32-conservation.md): `lo` read,
/// `lon` written; the sediment kernels' h, the kp RK kernel's w. The plain path's kernels (`ON`
/// false) are compiled without them, so their code is the one-field update's, registers included.
#[derive(Clone, Copy)]
pub struct Low<T, const ON: bool> {
    pub lo: *const T,
    pub lon: *mut T,
}

impl<T: DeviceReal, const ON: bool> Low<T, ON> {
    #[inline(always)]
    pub fn new(lo: *const T, lon: *mut T) -> Low<T, ON> {
        Low { lo, lon }
    }
    /// The low part at `c` on the compensated path, none on the plain one.
    ///
    /// # Safety
    /// With `ON`, `lo` a whole array.
    #[inline(always)]
    pub unsafe fn at(self, c: usize) -> Option<T> {
        if ON { Some(unsafe { T::ldg(self.lo.add(c)) }) } else { None }
    }
    /// Store the new low part at `c` on the compensated path.
    ///
    /// # Safety
    /// With `ON`, `lon` a whole array.
    #[inline(always)]
    pub unsafe fn put(self, c: usize, v: T) {
        if ON {
            unsafe { *self.lon.add(c) = v }
        }
    }
}
