"""Batched tridiagonal solves on NumPy arrays: the GPU's algorithms (Thomas, CR, PCR, hybrids,
partition, LU and SPIKE with partial pivoting) or the CPU reference, beside
``scipy.linalg.solve_banded`` for batches."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _hydrokern

ALGORITHMS = ("auto", "thomas", "cr", "pcr", "cr-pcr", "pcr-thomas", "twisted", "partition", "lu", "spike")


class Solution(NamedTuple):
    """The solution ``x`` (the arrays' shape and dtype), the worst system's normwise backward
    error ``max|Ax − d| / (‖A‖·‖x‖ + ‖d‖)`` and that system's index, the algorithm that ran and
    the backend it ran on (``gpu`` or ``cpu``)."""

    x: np.ndarray
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
    """
    if algorithm not in ALGORITHMS:
        raise _hydrokern.CaseError(f"unknown tridiagonal algorithm '{algorithm}' (expected {', '.join(ALGORITHMS)})")
    arrays = [np.ascontiguousarray(v) for v in (a, b, c, d)]
    x, err, system, alg, where = _hydrokern.tridiag_solve(*arrays, axis, algorithm, backend, backward_error)
    return Solution(x, err, system, alg, where)


__all__ = ["ALGORITHMS", "Solution", "solve"]
