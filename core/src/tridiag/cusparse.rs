//! cuSPARSE's tridiagonal solvers, the peers in `bench tridiag`: without pivoting,
//! `gtsv2StridedBatch` (contiguous layout or the rows of a padded field, CR + PCR inside
//! cuSPARSE) and
//! `gtsvInterleavedBatch` with algorithm 0 (interleaved layout, Thomas); with pivoting,
//! `gtsvInterleavedBatch` with algorithm 1 (LU with partial pivoting) and `gtsv2` (one system,
//! any number of right-hand sides; Chang et al.'s diagonal pivoting). `gtsvInterleavedBatch`
//! overwrites the coefficient arrays.
//!
//! The types come from cudarc's `cusparse` bindings. The library is opened here rather than by
//! cudarc's loader, because cudarc 0.19 built for CUDA 12 looks only for
//! `libcusparse.so{,.12,.11,...}` and panics when none loads; CUDA 13 ships
//! `libcusparse.so.13`. [`Cusparse::load`] tries cudarc's names, the CUDA 13 name, and the
//! usual install directories (`$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda`), and returns an
//! error saying what it tried instead of panicking.

use crate::runtime::{DeviceBuffer, Gpu};
use crate::{Error, GpuReal, Result};
use cudarc::cusparse::sys::{cudaStream_t, cusparseHandle_t, cusparseStatus_t};
use cudarc::driver::{DevicePtr, DevicePtrMut};
use std::ffi::{CStr, CString, c_char, c_int, c_void};

unsafe extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
const RTLD_NOW: c_int = 2;

type Create = unsafe extern "C" fn(*mut cusparseHandle_t) -> cusparseStatus_t;
type Destroy = unsafe extern "C" fn(cusparseHandle_t) -> cusparseStatus_t;
type SetStream = unsafe extern "C" fn(cusparseHandle_t, cudaStream_t) -> cusparseStatus_t;
type StridedSize<T> = unsafe extern "C" fn(
    cusparseHandle_t,
    c_int,
    *const T,
    *const T,
    *const T,
    *const T,
    c_int,
    c_int,
    *mut usize,
) -> cusparseStatus_t;
type Strided<T> = unsafe extern "C" fn(
    cusparseHandle_t,
    c_int,
    *const T,
    *const T,
    *const T,
    *mut T,
    c_int,
    c_int,
    *mut c_void,
) -> cusparseStatus_t;
type InterleavedSize<T> = unsafe extern "C" fn(
    cusparseHandle_t,
    c_int,
    c_int,
    *const T,
    *const T,
    *const T,
    *const T,
    c_int,
    *mut usize,
) -> cusparseStatus_t;
type Interleaved<T> = unsafe extern "C" fn(
    cusparseHandle_t,
    c_int,
    c_int,
    *mut T,
    *mut T,
    *mut T,
    *mut T,
    c_int,
    *mut c_void,
) -> cusparseStatus_t;

/// `gtsv2_bufferSizeExt(handle, m, n, dl, d, du, B, ldb, &bytes)`: m unknowns, n right-hand
/// sides in B (leading dimension ldb).
type Gtsv2Size<T> = unsafe extern "C" fn(
    cusparseHandle_t,
    c_int,
    c_int,
    *const T,
    *const T,
    *const T,
    *const T,
    c_int,
    *mut usize,
) -> cusparseStatus_t;
/// `gtsv2(handle, m, n, dl, d, du, B, ldb, buffer)`: X over B.
type Gtsv2<T> = unsafe extern "C" fn(
    cusparseHandle_t,
    c_int,
    c_int,
    *const T,
    *const T,
    *const T,
    *mut T,
    c_int,
    *mut c_void,
) -> cusparseStatus_t;

/// `gtsvInterleavedBatch`'s algorithms: 0 Thomas (no pivoting), 1 LU with partial pivoting,
/// 2 QR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterleavedAlgo {
    Thomas = 0,
    Lu = 1,
}

/// The entry points of one precision.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Fns<T> {
    strided_size: StridedSize<T>,
    strided: Strided<T>,
    interleaved_size: InterleavedSize<T>,
    interleaved: Interleaved<T>,
    gtsv2_size: Gtsv2Size<T>,
    gtsv2: Gtsv2<T>,
}

/// A precision cuSPARSE solves in.
pub trait CusparseReal: GpuReal {
    /// cuSPARSE's letter: S or D.
    const LETTER: &'static str;
    #[doc(hidden)]
    fn pick(lib: &Cusparse) -> Fns<Self>;
}
impl CusparseReal for f32 {
    const LETTER: &'static str = "S";
    fn pick(lib: &Cusparse) -> Fns<f32> {
        lib.s
    }
}
impl CusparseReal for f64 {
    const LETTER: &'static str = "D";
    fn pick(lib: &Cusparse) -> Fns<f64> {
        lib.d
    }
}

/// An open cuSPARSE with a handle bound to the GPU's stream.
pub struct Cusparse {
    /// Which file was opened.
    pub library: String,
    handle: cusparseHandle_t,
    destroy: Destroy,
    s: Fns<f32>,
    d: Fns<f64>,
    work: Option<DeviceBuffer<u8>>,
}

fn candidates() -> Vec<String> {
    let mut names = cudarc::get_lib_name_candidates("cusparse");
    for v in ["13", "12"] {
        names.push(format!("libcusparse.so.{v}"));
    }
    let mut dirs: Vec<String> = ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .map(|d| format!("{d}/lib64"))
        .collect();
    dirs.extend(
        ["/usr/local/cuda/lib64", "/usr/local/cuda-13/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]
            .map(String::from),
    );
    for d in dirs {
        for v in ["so.13", "so.12", "so"] {
            names.push(format!("{d}/libcusparse.{v}"));
        }
    }
    names
}

fn last_dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string owned by libc.
    unsafe {
        let e = dlerror();
        if e.is_null() { "unknown error".into() } else { CStr::from_ptr(e).to_string_lossy().into_owned() }
    }
}

impl Cusparse {
    /// Open cuSPARSE and create a handle on `gpu`'s stream, or say why not (never panics).
    pub fn load(gpu: &Gpu) -> std::result::Result<Cusparse, String> {
        let mut lib = std::ptr::null_mut();
        let mut path = String::new();
        let mut last = String::new();
        for name in candidates() {
            let c = CString::new(name.clone()).map_err(|e| e.to_string())?;
            // SAFETY: dlopen with a valid C string; the handle is kept for the process's life.
            let h = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
            if !h.is_null() {
                lib = h;
                path = name;
                break;
            }
            last = last_dl_error();
        }
        if lib.is_null() {
            return Err(format!(
                "no libcusparse could be opened (tried cudarc's names, libcusparse.so.13 and /usr/local/cuda/lib64; last error: {last})"
            ));
        }
        /// # Safety: `F` must be the symbol's true signature.
        unsafe fn sym<F: Copy>(lib: *mut c_void, name: &str) -> std::result::Result<F, String> {
            let c = CString::new(name).map_err(|e| e.to_string())?;
            // SAFETY: lib is an open handle; a non-null result is the function `name`.
            let p = unsafe { dlsym(lib, c.as_ptr()) };
            if p.is_null() {
                return Err(format!("symbol {name} missing: {}", last_dl_error()));
            }
            // SAFETY: F is a function pointer type of the same size as *mut c_void.
            Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
        }
        // SAFETY: each type is the signature cuSPARSE's header declares (as in cudarc's bindings).
        unsafe {
            let create: Create = sym(lib, "cusparseCreate")?;
            let destroy: Destroy = sym(lib, "cusparseDestroy")?;
            let set_stream: SetStream = sym(lib, "cusparseSetStream")?;
            let s = Fns::<f32> {
                strided_size: sym(lib, "cusparseSgtsv2StridedBatch_bufferSizeExt")?,
                strided: sym(lib, "cusparseSgtsv2StridedBatch")?,
                interleaved_size: sym(lib, "cusparseSgtsvInterleavedBatch_bufferSizeExt")?,
                interleaved: sym(lib, "cusparseSgtsvInterleavedBatch")?,
                gtsv2_size: sym(lib, "cusparseSgtsv2_bufferSizeExt")?,
                gtsv2: sym(lib, "cusparseSgtsv2")?,
            };
            let d = Fns::<f64> {
                strided_size: sym(lib, "cusparseDgtsv2StridedBatch_bufferSizeExt")?,
                strided: sym(lib, "cusparseDgtsv2StridedBatch")?,
                interleaved_size: sym(lib, "cusparseDgtsvInterleavedBatch_bufferSizeExt")?,
                interleaved: sym(lib, "cusparseDgtsvInterleavedBatch")?,
                gtsv2_size: sym(lib, "cusparseDgtsv2_bufferSizeExt")?,
                gtsv2: sym(lib, "cusparseDgtsv2")?,
            };
            // The handle uses the current context, which the GPU's stream belongs to.
            gpu.context().bind_to_thread().map_err(|e| format!("binding the CUDA context: {e}"))?;
            let mut handle: cusparseHandle_t = std::ptr::null_mut();
            let st = create(&mut handle);
            if st != cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
                return Err(format!("cusparseCreate failed: {st:?}"));
            }
            let st = set_stream(handle, gpu.stream().cu_stream() as cudaStream_t);
            if st != cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
                destroy(handle);
                return Err(format!("cusparseSetStream failed: {st:?}"));
            }
            Ok(Cusparse { library: path, handle, destroy, s, d, work: None })
        }
    }

    fn workspace(&mut self, gpu: &Gpu, bytes: usize) -> Result<*mut c_void> {
        if self.work.as_ref().is_none_or(|w| w.len() < bytes.max(1)) {
            self.work = Some(gpu.alloc::<u8>(bytes.max(1))?);
        }
        let w = self.work.as_mut().expect("allocated above");
        let (p, _sync) = w.device_ptr_mut(gpu.stream());
        Ok(p as *mut c_void)
    }

    fn status(call: &str, st: cusparseStatus_t) -> Result<()> {
        if st == cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(Error::invalid(format!("cuSPARSE {call} failed: {st:?}")))
        }
    }

    /// `gtsv2StridedBatch`: systems of n, system k from offset k·`stride` (n for the
    /// contiguous layout, the pitch ≥ n for the rows of a padded field), x over `x` (which
    /// holds d on entry). Every buffer holds `stride·batch` values (a whole field: cuSPARSE
    /// does not say that it stays within the last system's n).
    #[allow(clippy::too_many_arguments)]
    pub fn strided<T: CusparseReal>(
        &mut self,
        gpu: &Gpu,
        n: usize,
        batch: usize,
        stride: usize,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        if stride < n || stride > i32::MAX as usize {
            return Err(Error::invalid(format!("cuSPARSE gtsv2StridedBatch: stride {stride} for systems of {n}")));
        }
        check(stride, batch, &[a.len(), b.len(), c.len(), x.len()])?;
        let f = T::pick(self);
        let (pa, _s1) = a.device_ptr(gpu.stream());
        let (pb, _s2) = b.device_ptr(gpu.stream());
        let (pc, _s3) = c.device_ptr(gpu.stream());
        let (px, _s4) = x.device_ptr_mut(gpu.stream());
        let (pa, pb, pc, px) = (pa as *const T, pb as *const T, pc as *const T, px as *mut T);
        let (m, bc, st) = (n as c_int, batch as c_int, stride as c_int);
        let mut bytes = 0usize;
        // SAFETY: device pointers to stride·batch values each, on the handle's stream.
        Self::status("gtsv2StridedBatch_bufferSizeExt", unsafe {
            (f.strided_size)(self.handle, m, pa, pb, pc, px, bc, st, &mut bytes)
        })?;
        let w = self.workspace(gpu, bytes)?;
        // SAFETY: as above, with a workspace of the size cuSPARSE asked for.
        Self::status("gtsv2StridedBatch", unsafe { (f.strided)(self.handle, m, pa, pb, pc, px, bc, st, w) })
    }

    /// `gtsv2` (pivoting): one system of n unknowns, the first n values of a, b, c; x over the
    /// first n values of `x` (which hold d on entry).
    pub fn gtsv2<T: CusparseReal>(
        &mut self,
        gpu: &Gpu,
        n: usize,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        if n == 0 || n > i32::MAX as usize || [a.len(), b.len(), c.len(), x.len()].iter().any(|&l| l < n) {
            return Err(Error::invalid(format!("cuSPARSE gtsv2: a system of {n} unknowns does not fit the buffers")));
        }
        let f = T::pick(self);
        let (pa, _s1) = a.device_ptr(gpu.stream());
        let (pb, _s2) = b.device_ptr(gpu.stream());
        let (pc, _s3) = c.device_ptr(gpu.stream());
        let (px, _s4) = x.device_ptr_mut(gpu.stream());
        let (pa, pb, pc, px) = (pa as *const T, pb as *const T, pc as *const T, px as *mut T);
        let m = n as c_int;
        let mut bytes = 0usize;
        // SAFETY: device pointers to at least n values each, on the handle's stream; one
        // right-hand side of leading dimension n.
        Self::status("gtsv2_bufferSizeExt", unsafe {
            (f.gtsv2_size)(self.handle, m, 1, pa, pb, pc, px, m, &mut bytes)
        })?;
        let w = self.workspace(gpu, bytes)?;
        // SAFETY: as above, with a workspace of the size cuSPARSE asked for.
        Self::status("gtsv2", unsafe { (f.gtsv2)(self.handle, m, 1, pa, pb, pc, px, m, w) })
    }

    /// `gtsvInterleavedBatch` with `algo`: interleaved systems; overwrites a, b, c and writes
    /// x over `x` (which holds d on entry).
    #[allow(clippy::too_many_arguments)]
    pub fn interleaved<T: CusparseReal>(
        &mut self,
        gpu: &Gpu,
        algo: InterleavedAlgo,
        n: usize,
        batch: usize,
        a: &mut DeviceBuffer<T>,
        b: &mut DeviceBuffer<T>,
        c: &mut DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        check(n, batch, &[a.len(), b.len(), c.len(), x.len()])?;
        let f = T::pick(self);
        let (pa, _s1) = a.device_ptr_mut(gpu.stream());
        let (pb, _s2) = b.device_ptr_mut(gpu.stream());
        let (pc, _s3) = c.device_ptr_mut(gpu.stream());
        let (px, _s4) = x.device_ptr_mut(gpu.stream());
        let (pa, pb, pc, px) = (pa as *mut T, pb as *mut T, pc as *mut T, px as *mut T);
        let (m, bc) = (n as c_int, batch as c_int);
        let mut bytes = 0usize;
        // SAFETY: device pointers to n·batch values each, on the handle's stream.
        Self::status("gtsvInterleavedBatch_bufferSizeExt", unsafe {
            (f.interleaved_size)(self.handle, algo as c_int, m, pa, pb, pc, px, bc, &mut bytes)
        })?;
        let w = self.workspace(gpu, bytes)?;
        // SAFETY: as above, with a workspace of the size cuSPARSE asked for.
        Self::status("gtsvInterleavedBatch", unsafe {
            (f.interleaved)(self.handle, algo as c_int, m, pa, pb, pc, px, bc, w)
        })
    }
}

fn check(n: usize, batch: usize, lens: &[usize]) -> Result<()> {
    if n == 0 || batch == 0 || n > i32::MAX as usize || batch > i32::MAX as usize {
        return Err(Error::invalid(format!("cuSPARSE batch of {batch} systems of {n}: sizes out of range")));
    }
    if lens.iter().any(|&l| l != n * batch) {
        return Err(Error::invalid(format!("cuSPARSE batch of {batch} systems of {n}: buffer lengths {lens:?}")));
    }
    Ok(())
}

impl Drop for Cusparse {
    fn drop(&mut self) {
        // SAFETY: the handle was created by cusparseCreate and is destroyed once.
        unsafe { (self.destroy)(self.handle) };
    }
}
