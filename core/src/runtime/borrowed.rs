//! Device memory that another library owns (an array handed over by DLPack), read and written
//! in place: [`Borrowed`] is its address and length, [`DeviceMemory`] what kernels and copies
//! need of it and of hydrokern's own buffers alike.

use super::DeviceBuffer;
use super::context::Gpu;
use super::launch::DevicePointers;
use crate::Result;
use crate::error::DriverContext;
use cudarc::driver::DeviceRepr;
use std::marker::PhantomData;

/// Device memory of `count()` values of `T` from `ptr()` on.
pub trait DeviceMemory<T>: DevicePointers<T> {
    fn count(&self) -> usize;
}

impl<T> DeviceMemory<T> for DeviceBuffer<T> {
    fn count(&self) -> usize {
        self.len()
    }
}

/// `count` values of `T` at a device address in this process's context, owned elsewhere.
#[derive(Debug)]
pub struct Borrowed<T> {
    address: u64,
    count: usize,
    _values: PhantomData<*const T>,
}

impl<T> Borrowed<T> {
    /// # Safety
    /// `address` holds `count` values of `T` on the GPU hydrokern runs on, readable (and
    /// writable, where a kernel writes it) from its stream, for as long as the value lives.
    pub unsafe fn new(address: u64, count: usize) -> Borrowed<T> {
        Borrowed { address, count, _values: PhantomData }
    }
    pub fn address(&self) -> u64 {
        self.address
    }
}

impl<T> DevicePointers<T> for Borrowed<T> {
    fn ptr(&self) -> *const T {
        std::ptr::without_provenance(self.address as usize)
    }
    fn ptr_mut(&mut self) -> *mut T {
        self.ptr().cast_mut()
    }
}

impl<T> DeviceMemory<T> for Borrowed<T> {
    fn count(&self) -> usize {
        self.count
    }
}

impl Gpu {
    /// A new buffer holding a copy of `src`, copied on the device (enqueued on the stream).
    pub fn copy_borrowed<T: DeviceRepr>(&self, src: &Borrowed<T>) -> Result<DeviceBuffer<T>> {
        let mut dst = self.alloc::<T>(src.count)?;
        let bytes = src.count * std::mem::size_of::<T>();
        let to = dst.ptr_mut().addr() as u64;
        // SAFETY: both hold `bytes` (`Borrowed::new`'s contract and the allocation above), in
        // this context; the copy is ordered on the stream before any later use of `dst`.
        unsafe { cudarc::driver::result::memcpy_dtod_async(to, src.address, bytes, self.stream().cu_stream()) }
            .call("cuMemcpyDtoDAsync")?;
        Ok(dst)
    }

    /// `src`'s values on the host (synchronises).
    pub fn download_borrowed<T: DeviceRepr + Default + Clone>(&self, src: &Borrowed<T>) -> Result<Vec<T>> {
        let mut host = vec![T::default(); src.count];
        // SAFETY: `host` holds src.count values, as `src` does (`Borrowed::new`'s contract); the
        // copy is finished when the stream is, which is waited for before `host` is read.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut host, src.address, self.stream().cu_stream()) }
            .call("cuMemcpyDtoHAsync")?;
        self.synchronize()?;
        Ok(host)
    }

    /// Wait for all work on every stream of the device's context (other libraries' too).
    pub fn synchronize_context(&self) -> Result<()> {
        self.context().synchronize().call("cuCtxSynchronize")
    }
}
