//! The consumer's side of DLPack: an array of another library (CuPy, PyTorch, JAX) taken by its
//! `__dlpack__`, read where it lies, and handed back to its producer when dropped.

use super::{CAPSULE, DLManagedTensor, KDL_CPU, KDL_CUDA, KDL_FLOAT};
use crate::errors::refuse;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::CStr;

/// The name a consumer gives a capsule whose tensor it took, so that the capsule does not free it.
const USED: &CStr = c"used_dltensor";

/// Where `v` lives by its `__dlpack_device__` (DLPack's device type and id); None for an object
/// without one.
pub fn device_of(v: &Bound<'_, PyAny>) -> PyResult<Option<(i32, i32)>> {
    if !v.hasattr("__dlpack_device__")? {
        return Ok(None);
    }
    Ok(Some(v.call_method0("__dlpack_device__")?.extract()?))
}

/// A device's name for messages: "CUDA device 0", "the host", "DLPack device type 8".
pub fn device_name(d: Option<(i32, i32)>) -> String {
    match d {
        Some((KDL_CUDA, id)) => format!("CUDA device {id}"),
        Some((KDL_CPU, _)) | None => "the host".to_string(),
        Some((kind, id)) => format!("DLPack device type {kind} (id {id})"),
    }
}

/// A CUDA array taken from its producer: the address of its first value, its shape and strides
/// (in values, slowest axis first), and its values' bits; the producer's memory is held until
/// this is dropped.
pub struct Imported {
    managed: *mut DLManagedTensor,
    pub address: u64,
    pub dims: Vec<usize>,
    pub strides: Vec<isize>,
    pub bits: u8,
}

impl Imported {
    /// Take `v` (named `name` in messages) by `v.__dlpack__(stream=stream)`: the producer makes
    /// the work it queued on the array visible to `stream` first. Refuses a tensor that is not
    /// a real float (32 or 64 bits, one lane) on CUDA.
    pub fn take(name: &str, v: &Bound<'_, PyAny>, stream: usize) -> PyResult<Imported> {
        let py = v.py();
        let kwargs = PyDict::new(py);
        kwargs.set_item("stream", stream)?;
        let capsule = v
            .call_method("__dlpack__", (), Some(&kwargs))
            .map_err(|e| refuse(format!("{name}: its __dlpack__(stream=...) failed: {e}")))?;
        let p = capsule.as_ptr();
        // SAFETY: `p` is a live object; a capsule named "dltensor" holds a DLManagedTensor by
        // the protocol, which the rename below makes this value's to free (once, in `drop`).
        let managed = unsafe {
            if ffi::PyCapsule_IsValid(p, CAPSULE.as_ptr()) != 1 {
                return Err(refuse(format!("{name}: __dlpack__ returned no unused \"dltensor\" capsule")));
            }
            let t = ffi::PyCapsule_GetPointer(p, CAPSULE.as_ptr()).cast::<DLManagedTensor>();
            if t.is_null() || ffi::PyCapsule_SetName(p, USED.as_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
            t
        };
        // SAFETY: the producer keeps the tensor, its shape and strides valid until its deleter
        // is called, which `drop` does.
        let t = unsafe { &(*managed).dl_tensor };
        let mut imported = Imported { managed, address: 0, dims: Vec::new(), strides: Vec::new(), bits: t.dtype.bits };
        if t.device.device_type != KDL_CUDA {
            let at = device_name(Some((t.device.device_type, t.device.device_id)));
            return Err(refuse(format!("{name}: the tensor lives on {at}, not on a CUDA device")));
        }
        if t.dtype.code != KDL_FLOAT || !matches!(t.dtype.bits, 32 | 64) || t.dtype.lanes != 1 {
            return Err(refuse(format!(
                "{name}: dtype code {} of {} bits × {} lanes; float32 or float64 is needed",
                t.dtype.code, t.dtype.bits, t.dtype.lanes
            )));
        }
        let ndim = t.ndim.max(0) as usize;
        // SAFETY: shape holds ndim values, and strides too where it is not null.
        let (dims, strides) = unsafe {
            let dims: Vec<i64> =
                if ndim == 0 { Vec::new() } else { std::slice::from_raw_parts(t.shape, ndim).to_vec() };
            let strides =
                (!t.strides.is_null() && ndim > 0).then(|| std::slice::from_raw_parts(t.strides, ndim).to_vec());
            (dims, strides)
        };
        imported.dims = dims.iter().map(|&d| d.max(0) as usize).collect();
        // No strides: compact, row-major.
        let compact = |k: usize| imported.dims[k + 1..].iter().product::<usize>() as i64;
        imported.strides = (0..ndim).map(|k| strides.as_ref().map_or(compact(k), |s| s[k]) as isize).collect();
        imported.address = (t.data as u64).wrapping_add(t.byte_offset);
        Ok(imported)
    }
}

impl Drop for Imported {
    /// Hand the tensor back: DLPack's deleter, called once, with the interpreter's lock held
    /// (the producer's deleter may need it).
    fn drop(&mut self) {
        // SAFETY: `managed` was taken from its capsule by `take` and is not used after this.
        unsafe {
            if let Some(d) = (*self.managed).deleter {
                d(self.managed);
            }
        }
    }
}
