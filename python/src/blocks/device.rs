//! `tridiag.solve` on device arrays (CuPy, PyTorch, anything whose `__dlpack_device__` is
//! CUDA): a, b and c are read where they lie, x is solved in a buffer of hydrokern's own (a
//! copy of d made on the device) and handed back by DLPack. Nothing crosses to the host but
//! the status word, and the arrays when the backward error is asked for (it is computed on the
//! host).
//!
//! Streams: each array is taken by `__dlpack__(stream=S)`, S hydrokern's stream, so that its
//! producer orders the work it queued on the array before the solve. The call returns once the
//! solve is done (the stream is synchronised): x is then ready for any stream, and the inputs
//! may be written again at once.

use super::{Solved, backend, shape_of, with_solver};
use crate::dlpack::DeviceArray;
use crate::dlpack::import::{Imported, device_name, device_of};
use crate::errors::{IntoPy, refuse};
use hydrokern::model::DeviceView;
use hydrokern::runtime::{Backend, Borrowed, Gpu};
use hydrokern::tridiag::{self, Choice, Shape, Solver};
use hydrokern::{Error, GpuReal};
use pyo3::prelude::*;
use std::sync::Arc;

/// DLPack's device type of CUDA memory.
const CUDA: i32 = 2;

/// The GPU that runs a solve of arrays on `at` (a CUDA device), refused for the CPU backend, a
/// machine without one or another device than the arrays'.
fn gpu_for(backend_name: &str, at: (i32, i32)) -> PyResult<(Backend, Arc<Gpu>)> {
    let on = device_name(Some(at));
    if backend_name == "cpu" {
        return Err(refuse(format!(
            "backend 'cpu' but the arrays are on {on}: solve them with backend 'gpu' or 'auto', or pass NumPy arrays"
        )));
    }
    let be = backend(backend_name)?;
    let Backend::Gpu(gpu) = &be else {
        return Err(refuse(format!("the arrays are on {on}, but hydrokern found no GPU here and runs on the CPU")));
    };
    let gpu = gpu.clone();
    if gpu.ordinal() as i32 != at.1 {
        return Err(refuse(format!(
            "mixed devices: the arrays are on {on}, hydrokern's GPU is CUDA device {}",
            gpu.ordinal()
        )));
    }
    Ok((be, gpu))
}

/// Solve a batch of tridiagonal systems of the device arrays (a, b, c, d), as `tridiag_solve`
/// does NumPy arrays:
/// (x as a `DeviceArray` of its own, the worst normwise backward error (NaN unless
/// `backward_error`; computed on the host), its system, the algorithm, the backend).
#[pyfunction]
#[pyo3(signature = (arrays, axis = -1, algorithm = "auto", backend = "auto", backward_error = true))]
pub fn tridiag_solve_device<'py>(
    py: Python<'py>,
    arrays: [Bound<'py, PyAny>; 4],
    axis: isize,
    algorithm: &str,
    backend: &str,
    backward_error: bool,
) -> PyResult<Solved<'py>> {
    let [a, b, c, d] = &arrays;
    let named = [("a", a), ("b", b), ("c", c), ("d", d)];
    let devices = named.iter().map(|(_, v)| device_of(v)).collect::<PyResult<Vec<_>>>()?;
    let Some(at) = devices.iter().flatten().copied().find(|d| d.0 == CUDA) else {
        return Err(refuse("no array on a CUDA device: pass NumPy arrays, or CUDA arrays with __dlpack__"));
    };
    for ((name, _), dev) in named.iter().zip(&devices) {
        if *dev != Some(at) {
            return Err(refuse(format!(
                "mixed devices: {name} is on {}, another array on {}: give all four on one CUDA device",
                device_name(*dev),
                device_name(Some(at))
            )));
        }
    }
    let choice: Choice = algorithm.parse().py()?;
    let (be, gpu) = gpu_for(backend, at)?;
    let stream = gpu.stream().cu_stream() as usize;
    let taken = named.iter().map(|(name, v)| Imported::take(name, v, stream)).collect::<PyResult<Vec<_>>>()?;
    let first = &taken[0];
    let shape = shape_of("a", &first.dims, &first.strides, axis)?;
    for ((name, _), t) in named.iter().zip(&taken).skip(1) {
        if t.bits != first.bits {
            return Err(refuse(format!(
                "{name}: dtype float{}, but a's is float{}: every array must have a's dtype",
                t.bits, first.bits
            )));
        }
        if t.dims != first.dims {
            return Err(refuse(format!("{name}: shape {:?}, but a's is {:?}", t.dims, first.dims)));
        }
        if shape_of(name, &t.dims, &t.strides, axis)? != shape {
            return Err(refuse(format!(
                "{name}: strides {:?} (in values), but a's are {:?}: the four arrays must share one layout",
                t.strides, first.strides
            )));
        }
    }
    let bits = first.bits;
    let taken: [Imported; 4] = taken.try_into().map_err(|_| refuse("four arrays"))?;
    match bits {
        64 => solve_on::<f64>(py, &be, &gpu, shape, &taken, choice, backward_error),
        _ => solve_on::<f32>(py, &be, &gpu, shape, &taken, choice, backward_error),
    }
}

/// The solve in `T` of the arrays `taken` (a, b, c, d, each holding `shape`'s layout).
fn solve_on<'py, T: GpuReal + Send>(
    py: Python<'py>,
    be: &Backend,
    gpu: &Arc<Gpu>,
    shape: Shape,
    taken: &[Imported; 4],
    choice: Choice,
    check: bool,
) -> PyResult<Solved<'py>> {
    let span = shape.span();
    // SAFETY: each array holds `shape`'s span from its first value (its shape and strides are
    // the layout's, checked by `shape_of`), on this GPU (checked by `gpu_for`), and its
    // producer keeps it until `taken` is dropped, after the solve and its copies are done.
    let [a, b, c, d] = taken.each_ref().map(|t| unsafe { Borrowed::<T>::new(t.address, span) });
    let mut x = gpu.copy_borrowed(&d).py()?;
    let alg = with_solver::<T, _>(be, shape, |s| match s {
        Solver::Gpu { gpu, solver } => solver.solve_in_place(gpu, choice, &a, &b, &c, &mut x),
        Solver::Cpu { .. } => Err(Error::invalid("internal: a CPU solver for device arrays")),
    })?
    .py()?;
    let err = match check {
        true => {
            let host = |v: &Borrowed<T>| gpu.download_borrowed(v).py();
            let (ha, hb, hc, hd) = (host(&a)?, host(&b)?, host(&c)?, host(&d)?);
            tridiag::backward_error(shape, &ha, &hb, &hc, &hd, &gpu.download(&x).py()?).py()?
        }
        false => tridiag::BackwardError { value: f64::NAN, system: 0 },
    };
    let d = &taken[3];
    let view = DeviceView {
        name: "x",
        long_name: "solution of the tridiagonal systems",
        units: "",
        address: gpu.address(&x),
        offset: 0,
        dims: d.dims.clone(),
        // x has d's layout (a stride along an axis of one value is never taken).
        strides: d.strides.iter().map(|&s| s.max(0) as usize).collect(),
        bits: (8 * std::mem::size_of::<T>()) as u8,
        device: gpu.ordinal(),
    };
    let x = Bound::new(py, DeviceArray::owned(py, view, gpu.clone(), x)?)?.into_any();
    Ok((x, err.value, err.system, alg.name(), "gpu"))
}
