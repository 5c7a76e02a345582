"""Batched tridiagonal solves on NumPy arrays or device arrays (CuPy, PyTorch, anything with
``__dlpack__`` on CUDA): the GPU's algorithms (Thomas, CR, PCR, hybrids, partition, LU and SPIKE
with partial pivoting) or the CPU reference, beside ``scipy.linalg.solve_banded`` for batches."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import _hydrokern

ALGORITHMS = ("auto", "thomas", "cr", "pcr", "cr-pcr", "pcr-thomas", "twisted", "partition", "lu", "spike")


class Solution(NamedTuple):
    """The solution ``x`` (the arrays' shape and dtype: a NumPy array, or for device arrays a
    `DeviceArray` on their device for ``cupy.from_dlpack`` or ``torch.from_dlpack``), the worst
    system's normwise backward error ``max|Ax − d| / (‖A‖·‖x‖ + ‖d‖)`` and that system's index,
    the algorithm that ran and the backend it ran on (``gpu`` or ``cpu``)."""

    x: Any
    backward_error: float
    system: int
    algorithm: str
    backend: str


def solve(
    a, b, c, d, *, axis: int = -1, algorithm: str = "auto", backend: str = "auto", backward_error: bool = True
) -> Solution:
    """Solve a_i x_{i−1} + b_i x_i + c_i x_{i+1} = d_i for every system of a batch.

    ``a``, ``b``, ``c``, ``d`` are arrays of one dtype (float32 or float64) and one shape: one
    system ``(n,)``; a batch ``(batch, n)``, systems along the last axis (``axis=-1``); or
    ``(n, batch)`` with ``axis=0`` (unknown i of every system together, the GPU's coalesced
    layout). ``a[..., 0]`` and ``c[..., n−1]`` are not read.

    ``algorithm="auto"`` picks the fastest for the shape on the GPU (Thomas on the CPU) for
    diagonally dominant batches, and LU with partial pivoting for a batch that is not; a named
    one is run as asked. ``backend`` is ``auto`` (the GPU when there is one), ``gpu`` or ``cpu``.
    A singular or non-finite system raises `CaseError` naming it. ``backward_error=False`` skips
    the backward error (NaN then), a pass over the batch on the CPU.

    Device arrays (all four on the CUDA device hydrokern runs on, one dtype, one layout) are
    solved there without a copy to the host: a, b, c are read in place, d is copied on the
    device into a buffer of hydrokern's own that the solve overwrites with x, returned as a
    `DeviceArray` (``cupy.from_dlpack(s.x)``, ``torch.from_dlpack(s.x)``; the buffer lives as
    long as it or a consumer's array of it does). Besides C order, the layouts of padded fields
    are taken: each system's unknowns 1 apart and the systems further apart (``big[:, :n]``), or
    the systems 1 apart and the unknowns further apart. Each array is taken by
    ``__dlpack__(stream=S)`` with hydrokern's stream S, so its producer's queued work comes
    first; the call returns when the solve is done, so x is ready for any stream and the
    inputs may be changed at once. Device inputs are not checked for finite values beforehand:
    a non-finite value is a breakdown naming its system and row. The backward error downloads
    the five arrays and is computed on the host: ``backward_error=False`` keeps the whole call
    on the device. Mixed devices, ``backend="cpu"``, other strides and mixed dtypes raise
    `CaseError`.
    """
    if algorithm not in ALGORITHMS:
        raise _hydrokern.CaseError(f"unknown tridiagonal algorithm '{algorithm}' (expected {', '.join(ALGORITHMS)})")
    if any(_on_device(v) for v in (a, b, c, d)):
        x, err, system, alg, where = _hydrokern.tridiag_solve_device((a, b, c, d), axis, algorithm, backend, backward_error)
        return Solution(x, err, system, alg, where)
    arrays = [np.ascontiguousarray(v) for v in (a, b, c, d)]
    x, err, system, alg, where = _hydrokern.tridiag_solve(*arrays, axis, algorithm, backend, backward_error)
    return Solution(x, err, system, alg, where)


def _on_device(v: Any) -> bool:
    """Whether `v` is a DLPack array on a device (not in host memory, DLPack's device type 1)."""
    device = getattr(v, "__dlpack_device__", None)
    return device is not None and device()[0] != 1


__all__ = ["ALGORITHMS", "Solution", "solve"]
