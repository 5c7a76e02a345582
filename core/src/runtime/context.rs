//! `Gpu`: one device's context, stream and kernel module; typed buffers and copies.

use crate::alloc::try_filled;
use crate::error::DriverContext;
use crate::ptx::{self, PtxModule};
use crate::{Error, Result};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, PinnedHostSlice,
    ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What `info` prints and what launch helpers and benchmarks size themselves by.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceInfo {
    pub name: String,
    pub cc: (i32, i32),
    pub sm_count: u32,
    pub total_mem: usize,
    pub free_mem: usize,
    pub l2_bytes: usize,
    /// Opt-in maximum of dynamic shared memory per block.
    pub max_shared_per_block: u32,
    pub max_threads_per_block: u32,
    /// The multiprocessors' peak clock (MHz): what the issue-rate floor of a kernel is counted
    /// at (`bench::counts`).
    pub sm_clock_mhz: u32,
    /// CUDA driver version as "major.minor".
    pub driver: String,
}

/// One GPU, ready to launch hydrokern's kernels. A model's data lives on it for the whole run.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Each entry point loaded so far, as a module of its own ([`ptx::Items::module_of`]): the
    /// driver compiles the kernels a run uses, not the hundreds it does not.
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
    ptx: &'static PtxModule,
    info: DeviceInfo,
    /// Page-locked host memory that [`Gpu::download_with`] copies through, grown to the largest
    /// download asked for and kept: allocating it costs more than the copy.
    staging: Mutex<Option<PinnedHostSlice<u64>>>,
    /// The host memory the driver took to open the device (resident before and after).
    driver_host: Option<u64>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("info", &self.info).field("arch", &self.ptx.arch).finish()
    }
}

/// True when the CUDA driver library can be loaded. cudarc panics on its first call when it
/// cannot, so this is asked before any other call.
fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the driver library.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// What a process says, once, when the driver takes long to compile a kernel: on a machine's
/// first run of a build the driver turns each kernel's PTX into machine code as it is first
/// loaded (the largest take seconds), and a run that says nothing for that long looks hung.
const LOAD_NOTE: &str = "compiling hydrokern's GPU kernels for this GPU: the driver does it once per build and \
                         machine, for the kernels a run uses, and keeps them in its cache";

/// How long a module load may take before [`LOAD_NOTE`] is said (a load from the driver's cache
/// takes milliseconds).
const LOAD_NOTE_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// Whether [`LOAD_NOTE`] has been said in this process.
static LOAD_NOTE_SAID: AtomicBool = AtomicBool::new(false);

/// The entry point loaded when a device is opened: the f32 copy, a small kernel, so that a
/// driver that cannot compile the module's PTX at all is found there (the run then falls back
/// to the CPU) rather than at a model's first launch.
fn probe() -> String {
    format!("{}_f32", kernels::foundation::COPY.stem())
}

/// `work`'s result; `say` runs once, on a thread of its own, if `work` is still running `after`
/// it began.
fn said_if_slow<R>(after: std::time::Duration, say: impl FnOnce() + Send + 'static, work: impl FnOnce() -> R) -> R {
    let (done, waiting) = std::sync::mpsc::channel::<()>();
    let watch = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = waiting.recv_timeout(after) {
            say();
        }
    });
    let result = work();
    drop(done);
    // The watcher returns as soon as `done` is dropped (or once it has spoken).
    let _ = watch.join();
    result
}

/// Entry point `name` of `ptx` loaded as a module of its own, the driver compiling it unless
/// its cache holds it.
fn load_entry(ctx: &Arc<CudaContext>, ptx: &PtxModule, name: &str) -> Result<Arc<CudaModule>> {
    let not_found = || Error::Driver {
        call: "cuModuleGetFunction",
        source: cudarc::driver::DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_FOUND),
    };
    let source = ptx.items().map_err(Error::Invalid)?.module_of(name).ok_or_else(not_found)?;
    let say = || {
        if !LOAD_NOTE_SAID.swap(true, Ordering::Relaxed) {
            eprintln!("{LOAD_NOTE}");
        }
    };
    said_if_slow(LOAD_NOTE_AFTER, say, || ctx.load_module(Ptx::from_src(source))).call("cuModuleLoadData")
}

impl Gpu {
    /// The devices the CUDA driver sees: 0 without a driver.
    pub fn count() -> usize {
        if !driver_present() {
            return 0;
        }
        CudaContext::device_count().map_or(0, |n| n.max(0) as usize)
    }

    /// Open device `ordinal`, load the PTX module its compute capability can run.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        let resident = crate::files::resident_memory();
        if !driver_present() {
            return Err(Error::NoGpu(
                "the CUDA driver library (libcuda.so) could not be loaded: no NVIDIA driver on this machine".into(),
            ));
        }
        let count = CudaContext::device_count().map_err(|e| Error::NoGpu(format!("the CUDA driver reports {e}")))?;
        if count as usize <= ordinal {
            return Err(Error::NoGpu(format!("the CUDA driver sees {count} device(s), none with ordinal {ordinal}")));
        }
        let ctx = CudaContext::new(ordinal).call("cuCtx (primary context)")?;
        // One stream, ordered: per-buffer event tracking would only add work to every launch.
        // SAFETY: every buffer is used on `stream` only.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().call("cuStreamCreate")?;
        let cc = ctx.compute_capability().call("cuDeviceGetAttribute (compute capability)")?;
        let ptx = ptx::module_for(cc).ok_or_else(|| {
            Error::NoGpu(format!("compute capability {}.{} is below 8.0, the oldest hydrokern builds for", cc.0, cc.1))
        })?;
        let probe = (probe(), load_entry(&ctx, ptx, &probe())?);
        let attr = |a: Attr| ctx.attribute(a).call("cuDeviceGetAttribute");
        let (free_mem, total_mem) = ctx.mem_get_info().call("cuMemGetInfo")?;
        let mut driver = 0;
        // SAFETY: writes one int.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) }.result().call("cuDriverGetVersion")?;
        let info = DeviceInfo {
            name: ctx.name().call("cuDeviceGetName")?,
            cc,
            sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            total_mem,
            free_mem,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
            max_shared_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u32,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32,
            sm_clock_mhz: (attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)? / 1000) as u32,
            driver: format!("{}.{}", driver / 1000, (driver % 1000) / 10),
        };
        let driver_host = resident.zip(crate::files::resident_memory()).map(|(a, b)| b.saturating_sub(a));
        let modules = Mutex::new(HashMap::from([probe]));
        Ok(Gpu { ctx, stream, modules, ptx, info, staging: Mutex::new(None), driver_host })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }
    /// The host memory the driver took to open the device (its context and the first kernel),
    /// bytes, where the process's resident memory could be read.
    pub fn driver_host_bytes(&self) -> Option<u64> {
        self.driver_host
    }
    /// The PTX target of the module its kernels are loaded from.
    pub fn arch(&self) -> &'static str {
        self.ptx.arch
    }
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The loaded function `name` and the most threads a block of it may have: the device's
    /// limit, or less when its registers per thread would not fit a larger block in one
    /// multiprocessor (read once here; launches check it every time).
    pub(crate) fn function(&self, name: &str) -> Result<(CudaFunction, u32)> {
        let module = {
            // A poisoned map only lost an insertion: what it holds is whole.
            let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
            match modules.get(name) {
                Some(m) => m.clone(),
                None => {
                    let m = load_entry(&self.ctx, self.ptx, name)?;
                    modules.insert(name.to_string(), m.clone());
                    m
                }
            }
        };
        let function =
            module.load_function(name).map_err(|source| Error::Driver { call: "cuModuleGetFunction", source })?;
        let max_threads = function
            .get_attribute(cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .call("cuFuncGetAttribute (max threads per block)")?;
        Ok((function, (max_threads.max(1) as u32).min(self.info.max_threads_per_block)))
    }

    /// Free and total device memory now, in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.ctx.mem_get_info().call("cuMemGetInfo")
    }

    /// Free device memory once every stream of the context is done and the memory pool that
    /// allocations come from has handed back what it keeps of freed buffers: what a new
    /// allocation is measured against (`bench scaling`'s bytes a cell).
    pub fn memory_settled(&self) -> Result<usize> {
        self.ctx.synchronize().call("cuCtxSynchronize")?;
        let mut pool: cudarc::driver::sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: the context is current (synchronize bound it); the pool is the device's
        // default, which trimming to 0 only releases unused reserved memory of.
        unsafe {
            cudarc::driver::sys::cuDeviceGetDefaultMemPool(&mut pool, self.ctx.cu_device())
                .result()
                .call("cuDeviceGetDefaultMemPool")?;
            cudarc::driver::sys::cuMemPoolTrimTo(pool, 0).result().call("cuMemPoolTrimTo")?;
        }
        Ok(self.memory()?.0)
    }

    /// Fail with a clear message when `bytes` more would not fit in free GPU memory.
    pub fn check_fits(&self, what: &str, bytes: usize) -> Result<()> {
        let (free, total) = self.memory()?;
        if bytes > free {
            let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
            return Err(Error::OutOfMemory {
                what: what.into(),
                need_mib: mib(bytes),
                free_mib: mib(free),
                total_mib: mib(total),
            });
        }
        Ok(())
    }

    /// A buffer of `len` elements whose contents are unspecified (kernels write it before use).
    pub fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| Error::invalid("buffer size overflows"))?;
        self.check_fits(&format!("a buffer of {len} elements"), bytes)?;
        // SAFETY: the contents are unspecified; callers write before reading.
        unsafe { self.stream.alloc::<T>(len) }.call("cuMemAlloc")
    }

    /// A zeroed buffer.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>> {
        let mut b = self.alloc(len)?;
        self.stream.memset_zeros(&mut b).call("cuMemsetD8")?;
        Ok(b)
    }

    /// Copy host data to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        let mut b = self.alloc(host.len())?;
        self.stream.memcpy_htod(host, &mut b).call("cuMemcpyHtoD")?;
        Ok(b)
    }

    /// [`upload`](Self::upload) through the page-locked staging memory `download_with` uses
    /// (synchronises): `host` copied into it on every core, then one transfer at the bus's
    /// speed, where a pageable upload goes through the driver's small staging buffers. For large
    /// host arrays handed over once (a batch from NumPy); the models upload once at set-up.
    pub fn upload_staged<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync>(
        &self,
        host: &[T],
    ) -> Result<CudaSlice<T>> {
        use rayon::prelude::*;
        let mut b = self.alloc(host.len())?;
        if host.is_empty() {
            return Ok(b);
        }
        let staged = self.with_staging(std::mem::size_of_val(host), |base| {
            // SAFETY: the staging memory holds at least size_of_val(host) bytes, aligned for u64
            // and so for T (f32, f64, u32), and is this call's until it returns.
            let stage = unsafe { std::slice::from_raw_parts_mut(base.cast::<T>(), host.len()) };
            stage.par_chunks_mut(1 << 18).zip(host.par_chunks(1 << 18)).for_each(|(s, h)| s.copy_from_slice(h));
            let (address, _guard) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut b, &self.stream);
            // SAFETY: `stage` holds host.len() elements, and `b` as many; `with_staging` waits
            // for the stream before it lets the staging memory go.
            unsafe { cudarc::driver::result::memcpy_htod_async(address, stage, self.stream.cu_stream()) }
                .call("cuMemcpyHtoDAsync")
        })?;
        if staged.is_err() {
            // No page-locked memory that large: the plain upload, slower but whole.
            self.write(host, &mut b)?;
        }
        Ok(b)
    }

    /// Runs `work` on the page-locked staging memory (at least `bytes`, kept for the next call
    /// and grown when too small; its address in u64 words) with its lock held, then waits for
    /// the stream, so that a copy `work` queued from or into it is done before the memory is
    /// used again. The inner error: the driver could not allocate that much page-locked memory.
    fn with_staging<R>(
        &self,
        bytes: usize,
        work: impl FnOnce(*mut u64) -> Result<R>,
    ) -> Result<std::result::Result<R, cudarc::driver::DriverError>> {
        let words = bytes.div_ceil(size_of::<u64>());
        let mut staging = self.staging.lock().map_err(|_| Error::invalid("the staging buffer's lock is poisoned"))?;
        let mut buffer = match staging.take() {
            Some(b) if b.len() >= words => b,
            // SAFETY: `work` writes it (a copy into it, or from the host) before it is read.
            // Flags 0: cached memory (the write-combined kind is slow for the host to read).
            _ => match unsafe { self.ctx.alloc_pinned_with_flags::<u64>(words, 0) } {
                Ok(b) => b,
                Err(e) => return Ok(Err(e)),
            },
        };
        let base = buffer.as_mut_ptr().call("cuEventSynchronize (staging buffer)")?;
        let result = work(base);
        let synced = self.synchronize();
        *staging = Some(buffer);
        let result = result?;
        synced?;
        Ok(Ok(result))
    }

    /// [`upload`](Self::upload), or one default element where `host` is empty: a kernel takes a
    /// valid pointer to an array it does not read (a device buffer is never empty).
    pub fn upload_or_zero<T: DeviceRepr + Default + Copy>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        if host.is_empty() { self.upload(&[T::default()]) } else { self.upload(host) }
    }

    /// Overwrite a device buffer with host data of the same length.
    pub fn write<T: DeviceRepr>(&self, host: &[T], dst: &mut CudaSlice<T>) -> Result<()> {
        if host.len() != dst.len() {
            return Err(Error::invalid(format!("write of {} elements into a buffer of {}", host.len(), dst.len())));
        }
        self.stream.memcpy_htod(host, dst).call("cuMemcpyHtoD")
    }

    /// Overwrite `dst[offset..offset + host.len()]` with host data.
    pub fn write_at<T: DeviceRepr>(&self, host: &[T], dst: &mut CudaSlice<T>, offset: usize) -> Result<()> {
        let end = offset.checked_add(host.len()).filter(|&e| e <= dst.len());
        let Some(end) = end else {
            return Err(Error::invalid(format!(
                "write of {} elements at {offset} into a buffer of {}",
                host.len(),
                dst.len()
            )));
        };
        self.stream.memcpy_htod(host, &mut dst.slice_mut(offset..end)).call("cuMemcpyHtoD")
    }

    /// Copy a device buffer to a new host vector (synchronises). The vector is filled first,
    /// on every core when it is large ([`try_filled`]): the copy into pageable memory would
    /// otherwise take each fresh page's first-touch fault one after another (110–190 ms for a
    /// 64 MB vector on the lent H200's host).
    pub fn download<T: DeviceRepr + Default + Clone + Send + Sync>(&self, src: &CudaSlice<T>) -> Result<Vec<T>> {
        let mut host = try_filled("a download from the GPU", src.len(), T::default())?;
        self.stream.memcpy_dtoh(src, &mut host).call("cuMemcpyDtoH")?;
        self.synchronize()?;
        Ok(host)
    }

    /// Copy a device buffer into page-locked staging memory and hand it to `read` (synchronises).
    /// A download into pageable memory goes through the driver's own small staging buffers at
    /// a fraction of the bus's bandwidth; this one runs at the bus's speed, and `read` takes
    /// only what it needs (a field's interior) without another copy of the whole buffer.
    pub fn download_with<T: DeviceRepr + ValidAsZeroBits, R>(
        &self,
        src: &CudaSlice<T>,
        read: impl FnOnce(&[T]) -> R,
    ) -> Result<R> {
        let copied = self.with_staging(src.len() * size_of::<T>(), |base| {
            // SAFETY: the staging memory holds at least src.len() values of T, aligned for u64
            // and so for T (f32, f64, u32), and is this call's until it returns.
            let host = unsafe { std::slice::from_raw_parts_mut(base.cast::<T>(), src.len()) };
            let (address, _guard) = src.device_ptr(&self.stream);
            // SAFETY: `host` holds src.len() elements; the copy is finished when the stream is.
            unsafe { cudarc::driver::result::memcpy_dtoh_async(host, address, self.stream.cu_stream()) }
                .call("cuMemcpyDtoHAsync")?;
            self.synchronize()?;
            Ok(read(host))
        })?;
        copied.call("cuMemHostAlloc")
    }

    /// Copy `src[range]` to a new host vector (synchronises).
    pub fn download_range<T: DeviceRepr + Default + Clone + Send + Sync>(
        &self,
        src: &CudaSlice<T>,
        range: std::ops::Range<usize>,
    ) -> Result<Vec<T>> {
        if range.start > range.end || range.end > src.len() {
            return Err(Error::invalid(format!("download of {range:?} from a buffer of {}", src.len())));
        }
        let mut host = try_filled("a download from the GPU", range.len(), T::default())?;
        self.stream.memcpy_dtoh(&src.slice(range), &mut host).call("cuMemcpyDtoH")?;
        self.synchronize()?;
        Ok(host)
    }

    /// The ranges `parts` of device buffers, one after the other in one host vector: the copies
    /// queued together into the page-locked staging memory and waited for once (synchronises),
    /// where one [`download_range`](Self::download_range) each would wait for each.
    pub fn download_ranges<T: DeviceRepr + ValidAsZeroBits + Copy>(
        &self,
        parts: &[(&CudaSlice<T>, std::ops::Range<usize>)],
    ) -> Result<Vec<T>> {
        let total: usize = parts.iter().map(|(_, r)| r.len()).sum();
        if let Some((b, r)) = parts.iter().find(|(b, r)| r.start > r.end || r.end > b.len()) {
            return Err(Error::invalid(format!("download of {r:?} from a buffer of {}", b.len())));
        }
        let copied = self.with_staging(total * size_of::<T>(), |base| {
            // SAFETY: the staging memory holds at least `total` values of T, aligned for u64 and
            // so for T, and is this call's until it returns (after the stream is done).
            let host = unsafe { std::slice::from_raw_parts_mut(base.cast::<T>(), total) };
            let mut at = 0;
            for (b, r) in parts {
                let view = b.slice(r.clone());
                let (address, _guard) = view.device_ptr(&self.stream);
                let part = &mut host[at..at + r.len()];
                // SAFETY: `part` holds r.len() elements, the slice of `b` as many.
                unsafe { cudarc::driver::result::memcpy_dtoh_async(part, address, self.stream.cu_stream()) }
                    .call("cuMemcpyDtoHAsync")?;
                at += r.len();
            }
            self.synchronize()?;
            Ok(host.to_vec())
        })?;
        copied.call("cuMemHostAlloc")
    }

    /// `host`, cut in turn into `pieces` (the buffer of `buffers` each goes into, its offset
    /// there and its length), written through the page-locked staging memory: the copies queued
    /// together and waited for once (synchronises).
    pub fn write_ranges<T: DeviceRepr + ValidAsZeroBits + Copy>(
        &self,
        host: &[T],
        buffers: &mut [&mut CudaSlice<T>],
        pieces: &[(usize, usize, usize)],
    ) -> Result<()> {
        let total: usize = pieces.iter().map(|p| p.2).sum();
        let fits = |&(b, at, n): &(usize, usize, usize)| buffers.get(b).is_some_and(|buf| at + n <= buf.len());
        if total != host.len() || !pieces.iter().all(fits) {
            return Err(Error::invalid(format!("a write of {} values into pieces of {total}", host.len())));
        }
        let copied = self.with_staging(std::mem::size_of_val(host), |base| {
            // SAFETY: as in `download_ranges`: the staging memory is this call's and holds
            // host.len() values of T.
            let stage = unsafe { std::slice::from_raw_parts_mut(base.cast::<T>(), host.len()) };
            stage.copy_from_slice(host);
            let mut from = 0;
            for &(b, at, n) in pieces {
                let mut piece = buffers[b].slice_mut(at..at + n);
                let (address, _guard) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut piece, &self.stream);
                // SAFETY: the stage's piece holds n values and the slice of the buffer as many;
                // `with_staging` waits for the stream before it lets the staging memory go.
                unsafe {
                    cudarc::driver::result::memcpy_htod_async(address, &stage[from..from + n], self.stream.cu_stream())
                }
                .call("cuMemcpyHtoDAsync")?;
                from += n;
            }
            Ok(())
        })?;
        copied.call("cuMemHostAlloc")
    }

    /// `cuMemcpyDtoDAsync` of a whole buffer into one of the same length.
    pub fn copy_dtod<T>(&self, src: &CudaSlice<T>, dst: &mut CudaSlice<T>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::invalid(format!("copy of {} elements into a buffer of {}", src.len(), dst.len())));
        }
        self.stream.memcpy_dtod(src, dst).call("cuMemcpyDtoD")
    }

    /// `cuMemcpyDtoDAsync` of `src` (whole) into `dst[at..at + src.len()]`.
    pub fn copy_dtod_at<T>(&self, src: &CudaSlice<T>, dst: &mut CudaSlice<T>, at: usize) -> Result<()> {
        if at.checked_add(src.len()).is_none_or(|end| end > dst.len()) {
            return Err(Error::invalid(format!(
                "copy of {} elements at {at} into a buffer of {}",
                src.len(),
                dst.len()
            )));
        }
        self.stream.memcpy_dtod(src, &mut dst.slice_mut(at..at + src.len())).call("cuMemcpyDtoD")
    }

    /// The device address of `buf`'s first element, for a program that reads it in place
    /// (DLPack); valid while `buf` lives.
    pub fn address<T>(&self, buf: &CudaSlice<T>) -> u64 {
        let (address, _guard) = buf.device_ptr(&self.stream);
        address
    }

    /// The device's UUID: which GPU this is among those of every host (two ranks on one GPU
    /// have the same).
    pub fn uuid(&self) -> Result<[u8; 16]> {
        let id = self.ctx.uuid().call("cuDeviceGetUuid")?;
        Ok(id.bytes.map(|b| b as u8))
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// Wait for all work on the stream; reports a kernel fault as a driver error.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().call("cuStreamSynchronize (a kernel may have faulted)")
    }
}

#[cfg(test)]
mod tests {
    use super::said_if_slow;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// The note comes for work that outlasts its delay and not for work done well before it; the
    /// result comes back either way.
    #[test]
    fn slow_work_is_said_and_quick_work_is_not() {
        for (after_ms, work_ms, said) in [(5000, 0, false), (20, 500, true)] {
            let flag = Arc::new(AtomicBool::new(false));
            let spoke = flag.clone();
            let result = said_if_slow(
                Duration::from_millis(after_ms),
                move || spoke.store(true, Ordering::SeqCst),
                || {
                    std::thread::sleep(Duration::from_millis(work_ms));
                    7
                },
            );
            assert_eq!(result, 7);
            assert_eq!(flag.load(Ordering::SeqCst), said, "work of {work_ms} ms, note after {after_ms} ms");
        }
    }
}
