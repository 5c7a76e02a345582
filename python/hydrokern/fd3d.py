"""8th-order periodic first derivatives of 3D fields on NumPy arrays, on the GPU's fastest
kernel for the axis or the CPU reference."""

from __future__ import annotations

import numpy as np

from . import _hydrokern


def derivative(f, axis: int, spacing: float, *, backend: str = "auto") -> np.ndarray:
    """∂f/∂(axis) of ``f``, a float32 or float64 array of shape (nz, ny, nx) periodic along
    every axis (each at least 9 points), by the 8th-order central difference on points
    ``spacing`` apart. ``axis`` is NumPy's: 2 (or −1) is x, 1 is y, 0 is z. ``backend`` is
    ``auto`` (the GPU when there is one), ``gpu`` or ``cpu``."""
    return _hydrokern.fd3d_derivative(np.ascontiguousarray(f), axis, float(spacing), backend)


__all__ = ["derivative"]
