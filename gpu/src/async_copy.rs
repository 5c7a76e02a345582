//! Copies from global into shared memory that the copying thread waits for later (`cp.async`,
//! sm_80 and up). A march down rows keeps several rows in flight this way without holding them
//! in registers: registers, not bandwidth, bound how far ahead a streamed kernel can load.
//!
//! Each thread copies, waits for and reads back only its own words, so no barrier is needed
//! between a copy and its read: `cp.async.wait_group` makes a thread's own copies visible to it.

use core::arch::asm;

/// The shared-memory address (in the `.shared` window, as `cp.async` takes it) of `p`, a
/// pointer into the launch's shared memory.
#[inline(always)]
pub fn shared_address<T>(p: *mut T) -> u32 {
    let a: u32;
    unsafe {
        asm!("{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; cvt.u32.u64 {a}, %s; }}", a = out(reg32) a, p = in(reg64) p,
            options(pure, nomem, nostack))
    };
    a
}

/// A value `cp.async` copies whole: 4 or 8 bytes.
pub trait Copied: Copy {
    /// Start copying `*src` (global memory) to `dst`, a [`shared_address`].
    ///
    /// # Safety
    /// `src` points into global memory at an aligned value that no thread of the launch writes;
    /// `dst` is the address of an aligned value of the launch's shared memory, read by this
    /// thread only after a [`wait`] that covers the copy's group, and neither read nor written
    /// by another thread.
    unsafe fn start_copy(dst: u32, src: *const Self);
}

macro_rules! copied {
    ($t:ty, $bytes:literal) => {
        impl Copied for $t {
            #[inline(always)]
            unsafe fn start_copy(dst: u32, src: *const $t) {
                // A generic address of global memory is its global address (as CUDA's own
                // `cp.async` wrappers take it).
                unsafe {
                    asm!(concat!("cp.async.ca.shared.global [{dst}], [{src}], ", $bytes, ";"),
                        dst = in(reg32) dst, src = in(reg64) src, options(nostack));
                }
            }
        }
    };
}
copied!(f32, "4");
copied!(f64, "8");

/// Close the group of this thread's copies started since the last commit (an empty group if
/// none), so that [`wait`] can count it.
#[inline(always)]
pub fn commit() {
    unsafe { asm!("cp.async.commit_group;", options(nostack)) }
}

/// Wait until at most `PENDING` of this thread's committed groups are still in flight (the
/// newest ones): every older group's copies are then in shared memory and visible to the thread.
#[inline(always)]
pub fn wait<const PENDING: u32>() {
    unsafe { asm!("cp.async.wait_group {n};", n = const PENDING, options(nostack)) }
}
