//! Copies of a model's device buffers taken between two of its steps and brought to the host on
//! a second stream while the model steps on: a snapshot costs the model one device-to-device
//! copy (at device bandwidth, ~0.1 ms for 200 MB on an H100) instead of a download over the bus
//! and the host's work on it.
//!
//! On the model's stream: copy each buffer into a device copy, record an event. On the copy
//! stream: wait for that event, download the copies into page-locked host memory, record a
//! second event. Whoever reads the snapshot ([`Pending::read`], on the run's writer thread)
//! waits for the second event only. The next snapshot's device-to-device copies wait on the
//! model's stream for the previous download to be done with the device copies.

use super::Gpu;
use crate::error::DriverContext;
use crate::{Error, Result};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr, DeviceRepr, PinnedHostSlice, ValidAsZeroBits};
use std::sync::{Arc, Mutex};

/// The device copies and host buffers for snapshots of buffers of fixed lengths.
pub struct Snapshots<T> {
    copy: Arc<CudaStream>,
    device: Vec<CudaSlice<T>>,
    /// Done with `device`: the last snapshot's download (the next copies wait for it).
    downloaded: Option<Arc<CudaEvent>>,
    /// Page-locked host buffers not in use, each holding every buffer one after the other;
    /// a snapshot takes one (or allocates one) and hands it back when it is read.
    free: Arc<Mutex<Vec<PinnedHostSlice<T>>>>,
    lens: Vec<usize>,
}

/// A snapshot on its way to the host.
pub struct Pending<T> {
    host: Option<PinnedHostSlice<T>>,
    done: Arc<CudaEvent>,
    free: Arc<Mutex<Vec<PinnedHostSlice<T>>>>,
    lens: Vec<usize>,
}

impl<T: DeviceRepr + ValidAsZeroBits> Snapshots<T> {
    /// Device copies for buffers of `lens` elements (checked against free memory), a copy
    /// stream and [`HOST_BUFFERS`] page-locked host buffers (allocating one takes longer than
    /// many steps; more are allocated should the writer fall further behind).
    pub fn new(gpu: &Gpu, lens: &[usize]) -> Result<Snapshots<T>> {
        let device = lens.iter().map(|&n| gpu.alloc(n)).collect::<Result<Vec<_>>>()?;
        let copy = gpu.context().new_stream().call("cuStreamCreate (snapshot copies)")?;
        let total: usize = lens.iter().sum();
        crate::files::check_host_memory(
            "page-locked snapshot buffers",
            (HOST_BUFFERS * total * size_of::<T>()) as u64,
        )?;
        let free = (0..HOST_BUFFERS).map(|_| host_buffer(gpu, total)).collect::<Result<Vec<_>>>()?;
        Ok(Snapshots { copy, device, downloaded: None, free: Arc::new(Mutex::new(free)), lens: lens.to_vec() })
    }

    /// Enqueue the snapshot of `srcs` (of the lengths given to [`new`](Self::new)) as they
    /// stand after the work enqueued on the model's stream so far; returns at once.
    pub fn take(&mut self, gpu: &Gpu, srcs: &[&CudaSlice<T>]) -> Result<Pending<T>> {
        if srcs.len() != self.lens.len() || srcs.iter().zip(&self.lens).any(|(s, &n)| s.len() != n) {
            return Err(Error::invalid("a snapshot of buffers other than the ones it was made for"));
        }
        let total: usize = self.lens.iter().sum();
        let reuse = self.free.lock().map_err(|_| Error::invalid("the snapshot buffers' lock is poisoned"))?.pop();
        let mut host = match reuse {
            Some(h) => h,
            None => host_buffer(gpu, total)?,
        };
        let stream = gpu.stream();
        if let Some(e) = &self.downloaded {
            stream.wait(e).call("cuStreamWaitEvent (snapshot copies free)")?;
        }
        for (src, dst) in srcs.iter().zip(&mut self.device) {
            stream.memcpy_dtod(*src, dst).call("cuMemcpyDtoDAsync (snapshot)")?;
        }
        let copied = stream.record_event(None).call("cuEventRecord (snapshot copied)")?;
        self.copy.wait(&copied).call("cuStreamWaitEvent (snapshot copied)")?;
        // The buffer's own event is never recorded: this only returns the pointer.
        let base = host.as_mut_ptr().call("cuEventSynchronize (snapshot buffer)")?;
        let mut at = 0;
        for (dst, n) in self.device.iter().zip(&self.lens) {
            // SAFETY: `host` holds `total` elements, so [at, at + n) is inside it; it stays
            // allocated until the download is done (`Pending` waits for `done` before reading,
            // and synchronises the copy stream before handing the buffer back when dropped).
            let slice = unsafe { std::slice::from_raw_parts_mut(base.add(at), *n) };
            let (address, _guard) = dst.device_ptr(&self.copy);
            // SAFETY: `slice` holds n elements of the device copy's n.
            unsafe { cudarc::driver::result::memcpy_dtoh_async(slice, address, self.copy.cu_stream()) }
                .call("cuMemcpyDtoHAsync (snapshot)")?;
            at += n;
        }
        let done = Arc::new(
            self.copy.record_event(Some(CUevent_flags::CU_EVENT_BLOCKING_SYNC)).call("cuEventRecord (snapshot)")?,
        );
        self.downloaded = Some(done.clone());
        Ok(Pending { host: Some(host), done, free: self.free.clone(), lens: self.lens.clone() })
    }
}

/// Page-locked host buffers a snapshot store starts with: one being written while the next
/// snapshot downloads.
pub const HOST_BUFFERS: usize = 2;

/// A page-locked host buffer of `n` elements, its contents unset.
fn host_buffer<T: DeviceRepr + ValidAsZeroBits>(gpu: &Gpu, n: usize) -> Result<PinnedHostSlice<T>> {
    // SAFETY: every snapshot's downloads write the buffer whole before anyone reads it. Flags
    // 0: cached memory (write-combined memory is slow for the host to read).
    unsafe { gpu.context().alloc_pinned_with_flags::<T>(n, 0) }.call("cuMemHostAlloc (snapshot)")
}

impl<T: DeviceRepr + ValidAsZeroBits> Pending<T> {
    /// Wait until the snapshot is on the host and hand `read` the buffers, in the order taken.
    pub fn read<R>(self, read: impl FnOnce(&[&[T]]) -> R) -> Result<R> {
        self.done.synchronize().call("cuEventSynchronize (snapshot download)")?;
        let host = self.host.as_ref().ok_or_else(|| Error::invalid("a snapshot read twice"))?;
        let all = host.as_slice().call("cuEventSynchronize (snapshot buffer)")?;
        let mut parts = Vec::with_capacity(self.lens.len());
        let mut at = 0;
        for &n in &self.lens {
            parts.push(&all[at..at + n]);
            at += n;
        }
        Ok(read(&parts))
    }
}

impl<T> Drop for Pending<T> {
    /// The host buffer back to the free list, once no download writes it any more.
    fn drop(&mut self) {
        if let Some(host) = self.host.take() {
            // A failed wait means the context is broken; the buffer is then freed, not reused.
            if self.done.synchronize().is_ok()
                && let Ok(mut free) = self.free.lock()
            {
                free.push(host);
            }
        }
    }
}
