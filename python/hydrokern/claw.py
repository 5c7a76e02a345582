"""The wave-propagation solver on NumPy arrays, with any of its systems of equations by name.

    import hydrokern as hk
    run = hk.claw.Run("shallow-roe", q, spacing=(dx, dy), boundary="wall", constants={"g": 9.81})
    run.advance(2.0)
    h, hu, hv = run.state()

``q`` holds the state fields in NumPy's order, (fields, ny, nx) or (fields, nz, ny, nx), x
fastest; ``aux`` the auxiliary fields alike. `equations()` lists each system's fields,
auxiliary fields, constants and dimensions. LeVeque's algorithm with dimensional splitting,
wave limiters and PyClaw's Δt control (docs/claw.md); `hydrokern.pyclaw` runs PyClaw scripts on
the same solver.
"""

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _hydrokern
from ._hydrokern import CaseError


class System(NamedTuple):
    """A system of equations: its state fields, auxiliary fields, constants (with their
    defaults) and dimensions."""

    fields: List[str]
    aux: List[str]
    constants: Dict[str, float]
    dims: int


def equations() -> Dict[str, System]:
    """Every system the solver steps, by name."""
    return {n: System(f, a, dict(c), d) for n, f, a, c, d in _hydrokern.claw_equations()}


# `Run`'s first parameter is named `equations` too, as its callers spell it.
_systems = equations


class Run:
    """A wave-propagation run of ``equations`` on the state ``q`` (and auxiliary fields ``aux``).

    ``spacing`` is the cell size along each axis, x first (metres); ``boundary`` one condition
    for every side (``wall``, ``extrapolate`` or ``periodic``) or one per side (west, east, south,
    north[, bottom, top]); ``limiter`` one of none, minmod, superbee, vanleer, mc; ``splitting``
    godunov or strang; each Δt aims at CFL ``cfl`` and a step above ``cfl_max`` is redone; the
    first step tries ``dt`` (by default ``cfl`` over the fastest initial wave). ``backend`` is
    auto (the GPU when there is one), gpu or cpu; ``precision`` f64 or f32.
    """

    def __init__(
        self,
        equations: str,
        q: np.ndarray,
        *,
        spacing: Sequence[float],
        aux: Optional[np.ndarray] = None,
        constants: Optional[Dict[str, float]] = None,
        boundary: Union[str, Sequence[str]] = "wall",
        limiter: str = "mc",
        splitting: str = "godunov",
        cfl: float = 0.9,
        cfl_max: float = 1.0,
        dt: Optional[float] = None,
        t: float = 0.0,
        backend: str = "auto",
        precision: str = "f64",
    ) -> None:
        systems = _systems()
        if equations not in systems:
            raise CaseError(f"unknown equations '{equations}' (known: {', '.join(systems)})")
        system = systems[equations]
        q = np.asarray(q, dtype=np.float64)
        if q.ndim != system.dims + 1:
            raise CaseError(f"q: {q.ndim} axes, but {equations} takes (fields, {'nz, ' if system.dims == 3 else ''}ny, nx)")
        if aux is None:
            if system.aux:
                raise CaseError(f"aux: {equations} needs its auxiliary fields {', '.join(system.aux)}")
            aux = np.empty((0,) + q.shape[1:])
        sides = [boundary] * (2 * system.dims) if isinstance(boundary, str) else list(boundary)
        self.equations = equations
        self._native = _hydrokern.NativeClawRun(
            equations,
            dict(constants or {}),
            np.ascontiguousarray(q),
            np.ascontiguousarray(aux, dtype=np.float64),
            [float(d) for d in spacing],
            sides,
            limiter,
            splitting,
            float(cfl),
            float(cfl_max),
            float(t),
            None if dt is None else float(dt),
            backend,
            precision,
        )
        self.time, self.steps, self.dt = float(t), 0, 0.0

    def describe(self) -> str:
        """Where the run steps, in one line."""
        return self._native.describe()

    def advance(self, until: float, steps: Optional[int] = None) -> float:
        """Step to time ``until`` (the last step cut to land on it), or ``steps`` steps in all;
        returns the time reached."""
        self.time, self.steps, self.dt, self.cfl, _, self.rejected = self._native.advance(until, steps)
        return self.time

    def state(self) -> np.ndarray:
        """The state now, f64, of ``q``'s shape."""
        return self._native.state()


__all__ = ["Run", "System", "equations"]
