//! A GPU model's state arrays, and the results of the building blocks on device arrays, handed
//! to CuPy, PyTorch or JAX without a copy, by the DLPack protocol (`__dlpack__`,
//! `__dlpack_device__`): the consumer reads hydrokern's own memory. [`import`] is the other way.
//!
//! The contract, which `Simulation.device_fields` states: an array shows the state of the
//! moment it was taken, and is read-only; after the simulation advances or restores, exporting
//! it again is refused (take new ones); a simulation is not closed while arrays exported from
//! it live. A building block's result is a buffer of its own, freed when the last of the
//! `DeviceArray` and the consumers' arrays goes.

pub mod import;

use crate::errors::refuse;
use hydrokern::model::DeviceView;
use hydrokern::runtime::Gpu;
use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::cell::Cell;
use std::ffi::{CStr, c_void};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// DLPack's device types of host and CUDA memory, and its type code of IEEE floats.
const KDL_CPU: i32 = 1;
const KDL_CUDA: i32 = 2;
const KDL_FLOAT: u8 = 2;
const CAPSULE: &CStr = c"dltensor";

#[repr(C)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// What an exported tensor keeps alive: its shape and strides, the simulation, and the count of
/// the simulation's live exports.
struct Held {
    shape: Vec<i64>,
    strides: Vec<i64>,
    /// Held, not read: the simulation outlives the consumer's array.
    _owner: Py<PyAny>,
    live: Arc<AtomicUsize>,
}

/// The consumer is done with the tensor (or never took it): free it and let the simulation go.
unsafe extern "C" fn deleter(t: *mut DLManagedTensor) {
    // SAFETY: `t` and its context were made by `Box::into_raw` in `__dlpack__`, and DLPack calls
    // the deleter once.
    let (t, held) = unsafe {
        let t = Box::from_raw(t);
        let held = Box::from_raw(t.manager_ctx.cast::<Held>());
        (t, held)
    };
    held.live.fetch_sub(1, Ordering::SeqCst);
    // The simulation's reference is dropped with the interpreter's lock (a consumer may call
    // this from any thread).
    Python::attach(|_| drop((t, held)));
}

/// A capsule that no consumer renamed ("used_dltensor") still owns its tensor.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with the capsule being destroyed; the pointer is the
    // DLManagedTensor `__dlpack__` stored under the name checked here.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, CAPSULE.as_ptr()) == 1 {
            let t = ffi::PyCapsule_GetPointer(capsule, CAPSULE.as_ptr()).cast::<DLManagedTensor>();
            if let Some(d) = (*t).deleter {
                d(t);
            }
        }
    }
}

/// One state array of a simulation on the GPU, for `cupy.from_dlpack`, `torch.from_dlpack` and
/// the like.
#[pyclass(module = "hydrokern._hydrokern", unsendable)]
pub struct DeviceArray {
    view: DeviceView,
    owner: Py<PyAny>,
    /// The simulation's count of advances and restores when the view was taken, and now.
    taken: u64,
    now: Rc<Cell<u64>>,
    live: Arc<AtomicUsize>,
}

impl DeviceArray {
    pub fn new(view: DeviceView, owner: Py<PyAny>, now: Rc<Cell<u64>>, live: Arc<AtomicUsize>) -> DeviceArray {
        DeviceArray { view, owner, taken: now.get(), now, live }
    }

    /// An array of its own: `buffer`, which `view` describes, freed when the array and every
    /// consumer's array of it are gone.
    pub fn owned<B: Send + Sync + 'static>(
        py: Python<'_>,
        view: DeviceView,
        gpu: Arc<Gpu>,
        buffer: B,
    ) -> PyResult<DeviceArray> {
        let owner = Py::new(py, DeviceMemory { gpu, buffer: Some(Box::new(buffer)) })?.into_any();
        Ok(DeviceArray::new(view, owner, Rc::new(Cell::new(0)), Arc::new(AtomicUsize::new(0))))
    }
}

/// A device buffer that a [`DeviceArray`] of its own, and the consumers' arrays of it, keep alive.
#[pyclass(module = "hydrokern._hydrokern")]
pub struct DeviceMemory {
    gpu: Arc<Gpu>,
    buffer: Option<Box<dyn Send + Sync>>,
}

impl Drop for DeviceMemory {
    /// A consumer may still read the buffer on a stream of its own when it lets the array go:
    /// the whole device is waited for before the buffer is freed on hydrokern's stream.
    fn drop(&mut self) {
        // A failed wait (a faulted context) leaves nothing better to do than free.
        let _ = self.gpu.synchronize_context();
        drop(self.buffer.take());
    }
}

#[pymethods]
impl DeviceArray {
    #[getter]
    fn name(&self) -> &'static str {
        self.view.name
    }
    #[getter]
    fn long_name(&self) -> &'static str {
        self.view.long_name
    }
    #[getter]
    fn units(&self) -> &'static str {
        self.view.units
    }
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.view.dims.clone()
    }
    #[getter]
    fn dtype(&self) -> &'static str {
        if self.view.bits == 32 { "float32" } else { "float64" }
    }

    fn __dlpack_device__(&self) -> (i32, i32) {
        (KDL_CUDA, self.view.device as i32)
    }

    /// The DLPack capsule. The arrays are ready when they are taken (the model's stream is
    /// synchronised), so any consumer stream may read them.
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<Bound<'_, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let _ = (stream, max_version);
        if self.now.get() != self.taken {
            return Err(refuse(format!(
                "{}: the simulation has advanced or restored since this array was taken: take it again (Simulation.device_fields)",
                self.view.name
            )));
        }
        if copy == Some(true) {
            return Err(PyBufferError::new_err("hydrokern's device arrays are exported in place, never copied"));
        }
        if let Some(d) = dl_device
            && d != self.__dlpack_device__()
        {
            return Err(PyBufferError::new_err(format!("{d:?}: the array lives on CUDA device {}", self.view.device)));
        }
        let held = Box::new(Held {
            shape: self.view.dims.iter().map(|&d| d as i64).collect(),
            strides: self.view.strides.iter().map(|&s| s as i64).collect(),
            _owner: self.owner.clone_ref(py),
            live: self.live.clone(),
        });
        let held = Box::into_raw(held);
        // SAFETY: `held` is a live allocation until the deleter frees it; its vectors are not
        // changed after this point, so the pointers into them stay valid.
        let (shape, strides) = unsafe { ((*held).shape.as_mut_ptr(), (*held).strides.as_mut_ptr()) };
        let tensor = Box::into_raw(Box::new(DLManagedTensor {
            dl_tensor: DLTensor {
                data: self.view.address as *mut c_void,
                device: DLDevice { device_type: KDL_CUDA, device_id: self.view.device as i32 },
                ndim: self.view.dims.len() as i32,
                dtype: DLDataType { code: KDL_FLOAT, bits: self.view.bits, lanes: 1 },
                shape,
                strides,
                byte_offset: self.view.offset,
            },
            manager_ctx: held.cast(),
            deleter: Some(deleter),
        }));
        self.live.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the capsule owns `tensor` until a consumer renames it; its destructor frees an
        // unconsumed one.
        let capsule = unsafe { ffi::PyCapsule_New(tensor.cast(), CAPSULE.as_ptr(), Some(capsule_destructor)) };
        if capsule.is_null() {
            // SAFETY: nobody else holds `tensor`.
            unsafe { deleter(tensor) };
            return Err(PyErr::fetch(py));
        }
        // SAFETY: a new reference, checked above.
        Ok(unsafe { Py::from_owned_ptr(py, capsule) })
    }

    fn __repr__(&self) -> String {
        format!(
            "<hydrokern.DeviceArray {} {:?} {} on CUDA device {}>",
            self.view.name,
            self.view.dims,
            self.dtype(),
            self.view.device
        )
    }
}
