"""The building blocks on NumPy arrays: tridiagonal solves against scipy.linalg.solve_banded and a
dense solve, derivatives against the exact derivative and a plain NumPy stencil."""

import math

import numpy as np
import pytest

import hydrokern as hk
from devices import dlpack_reader, gpu_or_refusal

import scipy.linalg as scipy_linalg


def batch(rng, b, n, dtype, dominant=True):
    a, c = rng.uniform(-1, 1, (b, n)), rng.uniform(-1, 1, (b, n))
    diag = rng.uniform(-1, 1, (b, n))
    if dominant:
        diag = np.sign(diag + 1e-9) * (np.abs(a) + np.abs(c) + 0.5 + np.abs(diag))
    d = rng.uniform(-1, 1, (b, n))
    return [v.astype(dtype) for v in (a, diag, c, d)]


def banded(a, b, c, d):
    """x of every system by SciPy's banded solver, one system at a time, in f64."""
    n = a.shape[-1]
    xs = []
    for k in range(a.shape[0]):
        ab = np.zeros((3, n))
        ab[0, 1:] = c[k, :-1]
        ab[1] = b[k]
        ab[2, :-1] = a[k, 1:]
        xs.append(scipy_linalg.solve_banded((1, 1), ab, d[k].astype(np.float64)))
    return np.array(xs)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000])
def test_solve_matches_scipy(dtype, tol, n):
    rng = np.random.default_rng(n)
    a, b, c, d = batch(rng, 5, n, dtype)
    s = hk.tridiag.solve(a, b, c, d, backend="cpu")
    assert s.x.dtype == dtype and s.x.shape == d.shape and s.backend == "cpu"
    want = banded(a, b, c, d)
    np.testing.assert_allclose(s.x, want, rtol=tol, atol=tol)
    assert s.backward_error < 10 * np.finfo(dtype).eps


def test_interleaved_and_single_system_layouts():
    rng = np.random.default_rng(1)
    a, b, c, d = batch(rng, 6, 33, np.float64)
    whole = hk.tridiag.solve(a, b, c, d, backend="cpu").x
    inter = hk.tridiag.solve(a.T, b.T, c.T, d.T, axis=0, backend="cpu").x
    np.testing.assert_array_equal(inter.T, whole)
    one = hk.tridiag.solve(a[2], b[2], c[2], d[2], backend="cpu").x
    np.testing.assert_array_equal(one, whole[2])


def test_a_system_that_needs_pivoting_gets_lu():
    rng = np.random.default_rng(2)
    a, b, c, d = batch(rng, 4, 50, np.float64, dominant=False)
    b[:, 10] = 0.0  # a zero pivot for Thomas
    s = hk.tridiag.solve(a, b, c, d, backend="cpu")
    assert s.algorithm == "lu" and s.backward_error < 1e-13
    # The dense solve of each system agrees.
    for k in range(4):
        m = np.diag(b[k]) + np.diag(a[k, 1:], -1) + np.diag(c[k, :-1], 1)
        np.testing.assert_allclose(s.x[k], np.linalg.solve(m, d[k]), rtol=1e-9, atol=1e-9)


def test_bad_input_is_one_line():
    rng = np.random.default_rng(3)
    a, b, c, d = batch(rng, 2, 8, np.float64)
    for args, kw, words in [
        ((a, b, c, d.astype(np.float32)), {}, "dtype"),
        ((a, b, c, d[:, :4]), {}, "shape"),
        ((a.astype(int), b, c, d), {}, "float32 or float64"),
        ((a, b, c, d), {"algorithm": "magic"}, "unknown tridiagonal algorithm"),
        ((a, b, c, d), {"axis": 3}, "axis"),
        ((a, b, c, d), {"backend": "tpu"}, "backend"),
    ]:
        with pytest.raises(hk.CaseError, match=words) as e:
            hk.tridiag.solve(*args, **kw)
        assert "\n" not in str(e.value)
    bad = d.copy()
    bad[1, 3] = np.nan
    with pytest.raises(hk.CaseError, match="not finite"):
        hk.tridiag.solve(a, b, c, bad)
    with pytest.raises(hk.CaseError, match="thomas or lu; pcr needs the GPU"):
        hk.tridiag.solve(a, b, c, d, algorithm="pcr", backend="cpu")


def plain_d8(f, axis, h):
    """The 8th-order central first derivative by np.roll (Fornberg's weights)."""
    w = [4 / 5, -1 / 5, 4 / 105, -1 / 280]
    out = np.zeros_like(f, dtype=np.float64)
    for k, wk in enumerate(w, start=1):
        out += wk * (np.roll(f, -k, axis=axis) - np.roll(f, k, axis=axis))
    return out / h


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-4)])
def test_derivative_against_the_exact_one_and_a_plain_stencil(dtype, tol):
    nz, ny, nx = 12, 16, 20
    z, y, x = np.meshgrid(*(np.arange(m) / m for m in (nz, ny, nx)), indexing="ij")
    f = (np.cos(2 * np.pi * x) * np.sin(2 * np.pi * y) * np.cos(2 * np.pi * z)).astype(dtype)
    for axis, exact in [
        (2, -2 * np.pi * np.sin(2 * np.pi * x) * np.sin(2 * np.pi * y) * np.cos(2 * np.pi * z)),
        (1, 2 * np.pi * np.cos(2 * np.pi * x) * np.cos(2 * np.pi * y) * np.cos(2 * np.pi * z)),
        (0, -2 * np.pi * np.cos(2 * np.pi * x) * np.sin(2 * np.pi * y) * np.sin(2 * np.pi * z)),
    ]:
        h = 1.0 / f.shape[axis]
        got = hk.fd3d.derivative(f, axis, h, backend="cpu")
        assert got.dtype == dtype and got.shape == f.shape
        np.testing.assert_allclose(got, plain_d8(f.astype(np.float64), axis, h), rtol=0, atol=tol * 2 * np.pi)
        # 8th order on 12 to 20 points a period: within 1e-4 of the exact derivative.
        assert np.abs(got - exact).max() < 1e-4 * 2 * np.pi + tol * 2 * np.pi


def test_derivative_bad_input():
    f = np.zeros((8, 16, 16))
    with pytest.raises(hk.CaseError, match="9"):
        hk.fd3d.derivative(f, 0, 1.0)
    with pytest.raises(hk.CaseError, match="3D"):
        hk.fd3d.derivative(np.zeros((16, 16)), 0, 1.0)
    with pytest.raises(hk.CaseError, match="spacing"):
        hk.fd3d.derivative(np.zeros((16, 16, 16)), 0, 0.0)
    with pytest.raises(hk.CaseError, match="axis"):
        hk.fd3d.derivative(np.zeros((16, 16, 16)), 3, 1.0)


def test_the_gpu_agrees_with_the_cpu_where_there_is_one():
    rng = np.random.default_rng(4)
    a, b, c, d = batch(rng, 64, 256, np.float64)
    g = gpu_or_refusal(lambda: hk.tridiag.solve(a, b, c, d, backend="gpu"))
    if g is None:
        return
    cpu = hk.tridiag.solve(a, b, c, d, backend="cpu")
    assert g.backend == "gpu" and g.backward_error < 10 * np.finfo(np.float64).eps
    np.testing.assert_allclose(g.x, cpu.x, rtol=1e-12, atol=1e-12)
    for alg in ["thomas", "cr", "pcr", "cr-pcr", "pcr-thomas", "twisted", "partition", "lu", "spike"]:
        s = hk.tridiag.solve(a, b, c, d, algorithm=alg, backend="gpu")
        assert s.algorithm == alg and s.backward_error < 100 * np.finfo(np.float64).eps, alg
    f = rng.uniform(-1, 1, (16, 24, 32))
    for axis in range(3):
        np.testing.assert_allclose(
            hk.fd3d.derivative(f, axis, 0.1, backend="gpu"), hk.fd3d.derivative(f, axis, 0.1, backend="cpu"), rtol=1e-12, atol=1e-10
        )


def test_claw_lists_every_system_with_its_fields():
    systems = hk.claw.equations()
    assert systems["shallow-roe"] == hk.claw.System(["h", "hu", "hv"], [], {"g": 9.81}, 2)
    assert systems["acoustics-3d"].aux == ["rho", "bulk"] and systems["acoustics-3d"].dims == 3
    assert {"advection", "burgers", "shallow-hlle", "acoustics-2d"} <= set(systems)


def test_claw_run_on_arrays_equals_the_case_run_bit_for_bit():
    """The radial dam break's initial state handed over as arrays, stepped by hk.claw.Run with the
    case's settings: the same state as the case's simulation, bit for bit."""
    case = hk.Case.scenario("swe-radial")
    case.update({"grid.nx": 48, "grid.ny": 40, "output.maxima": False, "output.snapshots": []})
    del case["output.gauges"]
    sim = hk.Simulation(case, backend="cpu")
    q = np.stack([sim.state()[f] for f in ("h", "hu", "hv")])
    run = hk.claw.Run(
        "shallow-roe",
        q,
        spacing=(10 / 48, 10 / 40),
        boundary=["wall", "wall", "extrapolate", "wall"],
        constants={"g": 9.81},
        backend="cpu",
    )
    assert run.advance(0.4) == sim.advance(until=0.4) == 0.4
    assert run.steps == sim.step
    state = sim.state()
    for k, f in enumerate(("h", "hu", "hv")):
        np.testing.assert_array_equal(run.state()[k], state[f])


def test_claw_run_refuses_bad_input_in_one_line():
    q = np.ones((3, 8, 8))
    for kwargs, message in [
        (dict(equations="euler"), "unknown equations 'euler'"),
        (dict(q=np.ones((3, 8))), "q: 2 axes"),
        (dict(boundary="sticky"), "boundary 'sticky'"),
        (dict(limiter="koren"), "unknown limiter 'koren'"),
        (dict(constants={"gravity": 9.8}), "no constant 'gravity'"),
        (dict(q=np.zeros((3, 8, 8))), "h > 0"),
        (dict(equations="acoustics-2d"), "auxiliary fields rho, bulk"),
        (dict(spacing=(1.0,)), "2 cell sizes"),
        (dict(dt=-1.0), "positive"),
    ]:
        args = dict(equations="shallow-roe", q=q, spacing=(1.0, 1.0), backend="cpu")
        args.update(kwargs)
        with pytest.raises(hk.CaseError, match=message) as e:
            hk.claw.Run(args.pop("equations"), args.pop("q"), **args)


def device_batch(seed, b, n, dtype, dominant=True):
    """(CuPy or PyTorch, a random batch on the host) where hydrokern has a GPU; None on a
    machine without one."""
    probe = np.ones((1, 2))
    if gpu_or_refusal(lambda: hk.tridiag.solve(probe, 4 * probe, probe, probe, backend="gpu")) is None:
        return None
    return dlpack_reader(), batch(np.random.default_rng(seed), b, n, dtype, dominant)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
@pytest.mark.parametrize("n,b", [(1, 3), (7, 5), (256, 64), (1000, 3)])
def test_device_arrays_solve_on_the_device(dtype, tol, n, b):
    got = device_batch(n, b, n, dtype)
    if got is None:
        return
    r, host = got
    dev = [r.to_device(v) for v in host]
    s = hk.tridiag.solve(*dev)
    assert s.backend == "gpu" and s.x.name == "x" and s.x.shape == [b, n] and s.x.dtype == np.dtype(dtype).name
    x = r.to_numpy(r.from_dlpack(s.x))
    assert x.dtype == dtype and x.shape == (b, n)
    np.testing.assert_allclose(x, banded(*host), rtol=tol, atol=tol)
    on_host = hk.tridiag.solve(*host, backend="gpu")
    assert s.algorithm == on_host.algorithm
    np.testing.assert_array_equal(x, on_host.x)
    assert s.backward_error == on_host.backward_error and s.system == on_host.system
    # The inputs are left as they were; without the backward error nothing leaves the device.
    np.testing.assert_array_equal(r.to_numpy(dev[3]), host[3])
    quick = hk.tridiag.solve(*dev, backward_error=False)
    assert math.isnan(quick.backward_error)
    np.testing.assert_array_equal(r.to_numpy(r.from_dlpack(quick.x)), x)


def test_device_arrays_in_every_layout_and_algorithm():
    got = device_batch(5, 48, 96, np.float64)
    if got is None:
        return
    r, host = got
    want = banded(*host)
    dev = [r.to_device(v) for v in host]
    # Unknown i of every system together (axis=0), and the rows of wider fields (a pitch).
    inter = hk.tridiag.solve(*[r.to_device(np.ascontiguousarray(v.T)) for v in host], axis=0)
    np.testing.assert_allclose(r.to_numpy(r.from_dlpack(inter.x)).T, want, rtol=1e-12, atol=1e-12)
    wide = [r.to_device(np.pad(v, ((0, 0), (0, 32)), constant_values=np.nan)) for v in host]
    rows = hk.tridiag.solve(*[v[:, :96] for v in wide])
    np.testing.assert_allclose(r.to_numpy(r.from_dlpack(rows.x)), want, rtol=1e-12, atol=1e-12)
    tall = [r.to_device(np.pad(v.T, ((0, 0), (0, 16)), constant_values=np.nan)) for v in host]
    columns = hk.tridiag.solve(*[v[:, :48] for v in tall], axis=0)
    np.testing.assert_allclose(r.to_numpy(r.from_dlpack(columns.x)).T, want, rtol=1e-12, atol=1e-12)
    for alg in ["thomas", "cr", "pcr", "cr-pcr", "pcr-thomas", "twisted", "partition", "lu", "spike"]:
        s = hk.tridiag.solve(*dev, algorithm=alg)
        assert s.algorithm == alg and s.backward_error < 100 * np.finfo(np.float64).eps, alg
        np.testing.assert_allclose(r.to_numpy(r.from_dlpack(s.x)), want, rtol=1e-10, atol=1e-10, err_msg=alg)


def test_device_solution_outlives_its_solution_object():
    got = device_batch(6, 8, 33, np.float32)
    if got is None:
        return
    r, host = got
    x = r.from_dlpack(hk.tridiag.solve(*[r.to_device(v) for v in host]).x)
    import gc

    gc.collect()
    np.testing.assert_allclose(r.to_numpy(x), banded(*host), rtol=1e-4, atol=1e-4)


def test_device_arrays_needing_pivoting_get_lu_on_the_device():
    got = device_batch(2, 4, 50, np.float64, dominant=False)
    if got is None:
        return
    r, host = got
    host[1][:, 10] = 0.0
    s = hk.tridiag.solve(*[r.to_device(v) for v in host])
    assert s.algorithm in ("lu", "spike") and s.backward_error < 1e-13
    np.testing.assert_allclose(r.to_numpy(r.from_dlpack(s.x)), banded(*host), rtol=1e-9, atol=1e-9)


def test_device_arrays_bad_input_is_one_line():
    got = device_batch(3, 4, 16, np.float64)
    if got is None:
        return
    r, (a, b, c, d) = got
    da, db, dc, dd = (r.to_device(v) for v in (a, b, c, d))
    wide = r.to_device(np.zeros((4, 32)))
    for args, kw, words in [
        ((da, db, dc, d), {}, "mixed devices"),
        ((a, db, dc, dd), {}, "mixed devices"),
        ((da, db, dc, dd), {"backend": "cpu"}, "backend 'cpu'"),
        ((da, db, dc, r.to_device(d.astype(np.float32))), {}, "dtype"),
        ((da, db, dc, wide[:, ::2]), {}, "strides"),
        ((da, db, dc, wide[:, :16]), {}, "one layout"),
        ((da, db, dc, dd[:, :8]), {}, "shape"),
        ((r.to_device(a.astype(np.int64)), db, dc, dd), {}, "float32 or float64"),
    ]:
        with pytest.raises(hk.CaseError, match=words) as e:
            hk.tridiag.solve(*args, **kw)
        assert "\n" not in str(e.value)
