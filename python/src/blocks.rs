//! The building blocks as functions on NumPy arrays: batched tridiagonal solves and 8th-order
//! periodic derivatives, on the GPU when the backend asks for it, else the CPU reference.
//! Tridiagonal solves of device arrays are [`device`]'s.

pub mod device;

use crate::errors::{IntoPy, refuse};
use hydrokern::fd3d::{Direction, Grid3, PeriodicGrid, Variant};
use hydrokern::runtime::{Backend, BackendChoice};
use hydrokern::tridiag::{self, Choice, Layout, Shape};
use hydrokern::{GpuReal, Precision};
use numpy::{Element, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::any::Any;
use std::cell::RefCell;

thread_local! {
    /// The backends opened so far on this thread, by choice: a GPU's context is made once.
    static BACKENDS: RefCell<Vec<(BackendChoice, Backend)>> = const { RefCell::new(Vec::new()) };
    /// The tridiagonal solver of the last shape, precision and backend solved on this thread:
    /// its GPU plan, status words and tuning lookup are made once for a run of calls alike.
    static LAST_SOLVER: RefCell<Option<(SolverKey, Box<dyn Any>)>> = const { RefCell::new(None) };
}

/// What a tridiagonal solver is made for: the backend, the shape and the precision's bits.
type SolverKey = (&'static str, Shape, usize);

/// Run `f` with the solver for `shape` in `T` on `be`: the one kept from the last call when it
/// was made for the same, else a new one (kept for the next).
fn with_solver<T: GpuReal, R>(be: &Backend, shape: Shape, f: impl FnOnce(&mut tridiag::Solver<T>) -> R) -> PyResult<R> {
    let key: SolverKey = (backend_name(be), shape, std::mem::size_of::<T>());
    let kept = LAST_SOLVER.with(|s| s.borrow_mut().take());
    let mut solver = match kept {
        Some((k, solver)) if k == key => solver,
        _ => Box::new(tridiag::Solver::<T>::new(be, shape).py()?) as Box<dyn Any>,
    };
    let Some(typed) = solver.downcast_mut::<tridiag::Solver<T>>() else {
        return Err(refuse("internal: a kept tridiagonal solver of another precision"));
    };
    let r = f(typed);
    LAST_SOLVER.with(|s| *s.borrow_mut() = Some((key, solver)));
    Ok(r)
}

/// The backend `name` (auto, gpu, cpu), opened once per thread.
pub(crate) fn backend(name: &str) -> PyResult<Backend> {
    let choice: BackendChoice =
        name.parse().map_err(|_| refuse(format!("backend '{name}': expected auto, gpu or cpu")))?;
    if let Some(b) = BACKENDS.with(|v| v.borrow().iter().find(|(c, _)| *c == choice).map(|(_, b)| b.clone())) {
        return Ok(b);
    }
    let b = Backend::select(choice).py()?;
    BACKENDS.with(|v| v.borrow_mut().push((choice, b.clone())));
    Ok(b)
}

fn backend_name(b: &Backend) -> &'static str {
    match b {
        Backend::Gpu(_) => "gpu",
        Backend::Cpu { .. } => "cpu",
    }
}

/// The shape of four arrays of one dtype, and the arrays.
type Four<'py, T> = (Vec<usize>, [PyReadonlyArrayDyn<'py, T>; 4]);

/// The four arrays as `T`, of one shape; None where `a` is not of `T`.
fn same<'py, T: Element + Copy>(arrays: [&Bound<'py, PyAny>; 4]) -> PyResult<Option<Four<'py, T>>> {
    let Ok(a) = arrays[0].extract::<PyReadonlyArrayDyn<'py, T>>() else { return Ok(None) };
    let shape = a.shape().to_vec();
    let mut out = vec![a];
    for (name, v) in ["b", "c", "d"].iter().zip(&arrays[1..]) {
        let x = v
            .extract::<PyReadonlyArrayDyn<'py, T>>()
            .map_err(|_| refuse(format!("{name}: every array must have a's dtype ({})", std::any::type_name::<T>())))?;
        if x.shape() != shape.as_slice() {
            return Err(refuse(format!("{name}: shape {:?}, but a's is {shape:?}", x.shape())));
        }
        out.push(x);
    }
    let out: [PyReadonlyArrayDyn<'py, T>; 4] = out.try_into().map_err(|_| refuse("four arrays"))?;
    Ok(Some((shape, out)))
}

/// The solve in `T`: x (a's shape), the worst system's backward error and its index, the
/// algorithm that ran and where.
/// The values of a C-contiguous array.
fn values<'a, T: Element>(x: &'a PyReadonlyArrayDyn<'_, T>) -> PyResult<&'a [T]> {
    x.as_slice().map_err(|_| refuse("the arrays must be C-contiguous (numpy.ascontiguousarray)"))
}

type Solved<'py> = (Bound<'py, PyAny>, f64, usize, &'static str, &'static str);

/// The batch that arrays of shape `dims` and strides `strides` (in values) hold, the unknowns
/// along `axis`: one system (n,), a batch (batch, n) with axis = -1 or (n, batch) with axis =
/// 0; each system's unknowns 1 apart and the systems at least n apart (rows of a field), or the
/// systems 1 apart and each unknown's at least batch apart (its columns). `name` is the array's
/// in messages.
fn shape_of(name: &str, dims: &[usize], strides: &[isize], axis: isize) -> PyResult<Shape> {
    // The unknowns' stride and the systems', and whether the unknowns run along the last axis.
    let (n, batch, si, sk, last) = match (dims, axis) {
        (&[n], -1 | 0) => (n, 1, strides[0], 0, true),
        (&[batch, n], -1 | 1) => (n, batch, strides[1], strides[0], true),
        (&[n, batch], 0 | -2) => (n, batch, strides[0], strides[1], false),
        _ => {
            return Err(refuse(format!(
                "axis {axis} of arrays of shape {dims:?}: give one system (n,) or a batch (batch, n) with axis = -1, or (n, batch) with axis = 0"
            )));
        }
    };
    // A stride along an axis of one value is never taken.
    let rows = ((n == 1 || si == 1) && (batch == 1 || sk >= n as isize)).then_some(if batch == 1 || sk == n as isize {
        Layout::Contiguous
    } else {
        Layout::Rows { pitch: sk as usize }
    });
    let columns =
        ((batch == 1 || sk == 1) && (n == 1 || si >= batch as isize)).then_some(if n == 1 || si == batch as isize {
            Layout::Interleaved
        } else {
            Layout::Columns { pitch: si as usize }
        });
    let layout = if last { rows.or(columns) } else { columns.or(rows) };
    let layout = layout.ok_or_else(|| {
        refuse(format!(
            "{name}: strides {strides:?} (in values) of shape {dims:?} with axis {axis}: the solver takes each system's unknowns 1 apart and the systems at least n apart, or the systems 1 apart and each unknown's at least batch apart"
        ))
    })?;
    Ok(Shape::new(n, batch, layout))
}

/// The strides (in values) of a C-contiguous array of shape `dims`.
fn compact(dims: &[usize]) -> Vec<isize> {
    (0..dims.len()).map(|k| dims[k + 1..].iter().product::<usize>() as isize).collect()
}

fn solve_in<'py, T: GpuReal + Element>(
    py: Python<'py>,
    dims: Vec<usize>,
    [a, b, c, d]: [PyReadonlyArrayDyn<'py, T>; 4],
    axis: isize,
    algorithm: &str,
    backend_name_: &str,
    check: bool,
) -> PyResult<Solved<'py>> {
    let shape = shape_of("a", &dims, &compact(&dims), axis)?;
    let choice: Choice = algorithm.parse().py()?;
    let (a, b, c, d) = (values(&a)?, values(&b)?, values(&c)?, values(&d)?);
    for (name, v) in [("a", a), ("b", b), ("c", c), ("d", d)] {
        if let Some(k) = v.par_iter().with_min_len(1 << 16).position_first(|x| !x.to_f64().is_finite()) {
            return Err(refuse(format!("{name}: value {k} (flat index) is not finite")));
        }
    }
    let be = backend(backend_name_)?;
    // The interpreter's lock is held: the arrays are read in place, and no Python thread can
    // write them meanwhile.
    let (x, alg) = with_solver::<T, _>(&be, shape, |s| s.solve(choice, a, b, c, d))?.py()?;
    let err = match check {
        true => tridiag::backward_error(shape, a, b, c, d, &x).py()?,
        false => tridiag::BackwardError { value: f64::NAN, system: 0 },
    };
    let x = numpy::PyArray1::from_vec(py, x).reshape(dims)?.into_any();
    Ok((x, err.value, err.system, alg.name(), backend_name(&be)))
}

/// Solve a batch of tridiagonal systems a_i x_{i−1} + b_i x_i + c_i x_{i+1} = d_i (a_0 and
/// c_{n−1} are not read): (x, the worst normwise backward error (NaN unless
/// `backward_error`), its system, the algorithm, the backend).
#[pyfunction]
#[pyo3(signature = (a, b, c, d, axis = -1, algorithm = "auto", backend = "auto", backward_error = true))]
#[allow(clippy::too_many_arguments)] // Python's signature: the four arrays and three options.
pub fn tridiag_solve<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    c: &Bound<'py, PyAny>,
    d: &Bound<'py, PyAny>,
    axis: isize,
    algorithm: &str,
    backend: &str,
    backward_error: bool,
) -> PyResult<Solved<'py>> {
    if let Some((dims, arrays)) = same::<f64>([a, b, c, d])? {
        return solve_in(py, dims, arrays, axis, algorithm, backend, backward_error);
    }
    if let Some((dims, arrays)) = same::<f32>([a, b, c, d])? {
        return solve_in(py, dims, arrays, axis, algorithm, backend, backward_error);
    }
    Err(refuse("a: a NumPy array of float32 or float64 is needed"))
}

/// The kernel variant a derivative along `dir` runs in precision `p`: the fastest on the H200
/// in `hydrokern bench fd3d`.
fn variant(dir: Direction, p: Precision) -> Variant {
    match (dir, p) {
        (Direction::X, _) => Variant::XVec,
        (Direction::Y, Precision::F32) => Variant::YStream,
        (Direction::Z, Precision::F32) => Variant::ZStream,
        (Direction::Y, _) => Variant::Y32Pencil,
        (Direction::Z, _) => Variant::Z32Pencil,
    }
}

fn derivative_in<'py, T: GpuReal + Element>(
    py: Python<'py>,
    f: PyReadonlyArrayDyn<'py, T>,
    axis: isize,
    spacing: f64,
    be: Backend,
    precision: Precision,
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    let dims = f.shape().to_vec();
    let &[nz, ny, nx] = dims.as_slice() else {
        return Err(refuse(format!("f: shape {dims:?}; a 3D array (nz, ny, nx) is needed")));
    };
    let dir = match axis {
        2 | -1 => Direction::X,
        1 | -2 => Direction::Y,
        0 | -3 => Direction::Z,
        _ => return Err(refuse(format!("axis {axis}: 0 (z), 1 (y) or 2 (x), or -3 to -1"))),
    };
    if !(spacing.is_finite() && spacing > 0.0) {
        return Err(refuse(format!("spacing {spacing}: must be positive and finite")));
    }
    let data = f.as_slice().map_err(|_| refuse("f must be C-contiguous (numpy.ascontiguousarray)"))?;
    let grid = Grid3 { nx, ny, nz, dx: spacing, dy: spacing, dz: spacing, origin: (0.0, 0.0, 0.0), halo: 0 };
    // The lock is held: the array is read in place, and no Python thread can write it meanwhile.
    let df = match &be {
        Backend::Cpu { .. } => {
            let mut df = vec![T::ZERO; data.len()];
            hydrokern::fd3d::cpu::derivative(grid, dir, data, &mut df).map(|()| df)
        }
        Backend::Gpu(gpu) => (|| {
            grid.validate_periodic()?;
            let fd = gpu.upload(data)?;
            // Every point is written.
            let mut dfd = gpu.alloc::<T>(data.len())?;
            hydrokern::fd3d::gpu::derivative(gpu, grid, variant(dir, precision), &fd, &mut dfd)?;
            gpu.download(&dfd)
        })(),
    };
    let df: Vec<T> = df.py()?;
    numpy::PyArray1::from_vec(py, df).reshape(dims)
}

/// ∂f/∂axis of a field periodic on its grid, by the 8th-order central stencil; `axis` in
/// NumPy's order of (nz, ny, nx).
#[pyfunction]
#[pyo3(signature = (f, axis, spacing, backend = "auto"))]
pub fn fd3d_derivative<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    axis: isize,
    spacing: f64,
    backend: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let be = self::backend(backend)?;
    if let Ok(a) = f.extract::<PyReadonlyArrayDyn<'py, f64>>() {
        return Ok(derivative_in(py, a, axis, spacing, be, Precision::F64)?.into_any());
    }
    if let Ok(a) = f.extract::<PyReadonlyArrayDyn<'py, f32>>() {
        return Ok(derivative_in(py, a, axis, spacing, be, Precision::F32)?.into_any());
    }
    Err(refuse("f: a NumPy array of float32 or float64 is needed"))
}
