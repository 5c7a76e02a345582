"""PyClaw's classic solvers stepped by hydrokern, on the GPU when there is one.

A PyClaw script runs on hydrokern with one line changed: ``from clawpack import pyclaw``
becomes ``from hydrokern import pyclaw``. This module is PyClaw (``Controller``, ``Solution``,
``State``, ``Domain``, ``Dimension``, ``BC``, ``limiters``, output and plotting are PyClaw's
own) except for ``ClawSolver2D`` and ``ClawSolver3D``, whose steps hydrokern's wave-propagation
solver (``claw``) takes. They accept PyClaw's Riemann solvers by module
(``riemann.acoustics_2D``, ``riemann.shallow_roe_with_efix_2D``, ...; `RIEMANN` lists them),
boundary kinds, limiters, ``cfl_desired``/``cfl_max``, ``dt_initial``, ``max_steps`` and
auxiliary arrays, and two arguments of their own: ``backend`` (``"auto"``: the GPU when there is
one, ``"gpu"`` or ``"cpu"``) and ``precision`` (``"f64"``, PyClaw's, or ``"f32"``).

The algorithm is PyClaw's with dimensional splitting (``dimensional_split = True``, PyClaw's
default): Godunov-split x, y (and z) sweeps, every wave limited by one limiter, PyClaw's Δt
control (a step above ``cfl_max`` is rejected and redone; the next Δt is Δt·cfl_desired/CFL).
Where a setting asks for what hydrokern does not do, the solver says so in one line
(`hydrokern.CaseError`) rather than stepping something else; the one exception is
``dimensional_split = False`` (unsplit, transverse waves), which steps split with a warning.

PyClaw needs a Fortran compiler to install (``pip install clawpack``); this module needs PyClaw
installed, and hydrokern's package imports it only when asked.
"""

import math
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

try:
    from clawpack import pyclaw as _pyclaw
    from clawpack.pyclaw.classic import solver as _classic
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "hydrokern.pyclaw needs PyClaw: pip install clawpack (its build needs a Fortran compiler, e.g. gfortran)"
    ) from e

from . import _hydrokern
from ._hydrokern import CaseError

# PyClaw's public names, as `from clawpack import pyclaw` gives them (its `__all__` cannot be
# star-imported), so that the rest of a script finds what it expects here.
for _name in dir(_pyclaw):
    if not _name.startswith("_"):
        globals()[_name] = getattr(_pyclaw, _name)
del _name

BC = _pyclaw.BC
limiters = _pyclaw.limiters


class AlgorithmWarning(UserWarning):
    """A setting that hydrokern steps with a different algorithm from PyClaw's (said how)."""


# A PyClaw boundary kind's name in hydrokern.
_SIDES = {BC.extrap: "extrapolate", BC.periodic: "periodic", BC.wall: "wall"}

# PyClaw's TVD limiter numbers (Clawpack's `mthlim`; 0 is the unlimited Lax–Wendroff correction).
_LIMITERS = {0: "none", 1: "minmod", 2: "superbee", 3: "vanleer", 4: "mc"}

Medium = Tuple[Dict[str, float], Optional[np.ndarray]]
Make = Callable[[Dict[str, Any], Optional[np.ndarray], Tuple[int, ...]], Medium]


def _needs(problem_data: Dict[str, Any], rp: str, *keys: str) -> List[float]:
    missing = [k for k in keys if k not in problem_data]
    if missing:
        raise CaseError(f"{rp}: state.problem_data lacks {', '.join(repr(k) for k in missing)}")
    return [float(problem_data[k]) for k in keys]


def _acoustics(problem_data: Dict[str, Any], aux: Optional[np.ndarray], shape: Tuple[int, ...]) -> Medium:
    # PyClaw's solver reads the impedance Z and sound speed c; ρ = Z/c and K = Zc give them.
    if "zz" in problem_data and "cc" in problem_data:
        zz, cc = _needs(problem_data, "acoustics_2D", "zz", "cc")
        rho, bulk = zz / cc, zz * cc
    else:
        rho, bulk = _needs(problem_data, "acoustics_2D", "rho", "bulk")
    return {}, np.stack([np.full(shape, rho), np.full(shape, bulk)])


def _vc_acoustics_2d(problem_data: Dict[str, Any], aux: Optional[np.ndarray], shape: Tuple[int, ...]) -> Medium:
    # PyClaw's auxiliary fields are (ρ, c); hydrokern's (ρ, K = ρc²).
    assert aux is not None
    return {}, np.stack([aux[0], aux[0] * aux[1] * aux[1]])


def _vc_acoustics_3d(problem_data: Dict[str, Any], aux: Optional[np.ndarray], shape: Tuple[int, ...]) -> Medium:
    # PyClaw's auxiliary fields are (Z, c); hydrokern's (ρ = Z/c, K = Zc).
    assert aux is not None
    return {}, np.stack([aux[0] / aux[1], aux[0] * aux[1]])


def _shallow(rp: str) -> Make:
    def medium(problem_data: Dict[str, Any], aux: Optional[np.ndarray], shape: Tuple[int, ...]) -> Medium:
        (g,) = _needs(problem_data, rp, "grav")
        return {"g": g}, None

    return medium


def _advection(problem_data: Dict[str, Any], aux: Optional[np.ndarray], shape: Tuple[int, ...]) -> Medium:
    u, v = _needs(problem_data, "advection_2D", "u", "v")
    return {"u": u, "v": v}, None


def _burgers(problem_data: Dict[str, Any], aux: Optional[np.ndarray], shape: Tuple[int, ...]) -> Medium:
    return {}, None


# PyClaw's Riemann solver (its module's name) → hydrokern's equations, the number of auxiliary
# fields PyClaw's state carries for it, and how PyClaw's problem data and auxiliary fields
# become hydrokern's constants and auxiliary fields.
RIEMANN: Dict[str, Tuple[str, int, Make]] = {
    "acoustics_2D": ("acoustics-2d", 0, _acoustics),
    "vc_acoustics_2D": ("acoustics-2d", 2, _vc_acoustics_2d),
    "vc_acoustics_3D": ("acoustics-3d", 2, _vc_acoustics_3d),
    "shallow_roe_with_efix_2D": ("shallow-roe", 0, _shallow("shallow_roe_with_efix_2D")),
    "shallow_hlle_2D": ("shallow-hlle", 0, _shallow("shallow_hlle_2D")),
    "advection_2D": ("advection", 0, _advection),
    "burgers_2D": ("burgers", 0, _burgers),
}


def _riemann_name(riemann_solver: Any) -> str:
    name = getattr(riemann_solver, "__name__", str(riemann_solver)).split(".")[-1]
    return name.replace("_ptwise", "")


def _native_layout(a: np.ndarray) -> np.ndarray:
    """PyClaw's (field, x, y[, z]) as hydrokern's (field, [z,] y, x), C order, f64."""
    return np.ascontiguousarray(a.transpose((0,) + tuple(range(a.ndim - 1, 0, -1))), dtype=np.float64)


def _pyclaw_layout(a: np.ndarray) -> np.ndarray:
    """hydrokern's (field, [z,] y, x) as PyClaw's (field, x, y[, z]), Fortran order."""
    return np.asfortranarray(a.transpose((0,) + tuple(range(a.ndim - 1, 0, -1))))


class _HydrokernStepping:
    """What ClawSolver2D and ClawSolver3D share: PyClaw's evolve_to_time on hydrokern's run.

    PyClaw's Solver refuses new attributes once built, so these are set before its __init__.
    """

    _dims = 2

    def _hydrokern_init(self, riemann_solver: Any, backend: str, precision: str) -> None:
        name = self._known(riemann_solver) if riemann_solver is not None else ""
        if backend not in ("auto", "gpu", "cpu"):
            raise CaseError(f"backend '{backend}': expected auto, gpu or cpu")
        if precision not in ("f32", "f64"):
            raise CaseError(f"precision '{precision}': expected f32 or f64")
        self.backend = backend
        self.precision = precision
        self._rp_name = name
        self._run: Optional[_hydrokern.NativeClawRun] = None
        # What the run was made from and the state handed back, to see a change made in Python
        # between calls; the run's steps so far; the last step's CFL number and the next Δt.
        self._made: Optional[Tuple[Any, Optional[np.ndarray]]] = None
        self._handed: Optional[np.ndarray] = None
        self._handed_copy: Optional[np.ndarray] = None
        self._run_steps = 0
        self._last_cfl: Optional[float] = None
        self._next_dt: Optional[float] = None
        self._warned_split = False

    def __del__(self) -> None:
        # A solver refused in __init__ never reached PyClaw's, whose __del__ reads its settings.
        if "kernel_language" in self.__dict__:
            super().__del__()  # type: ignore[misc]

    # PyClaw's setup builds Fortran work arrays: hydrokern needs none, and checks the settings.
    def setup(self, solution: Any) -> None:
        solution.state.set_num_ghost(self.num_ghost)
        self._settings(solution.state)
        self._is_set_up = True

    def describe(self) -> str:
        """Where the run steps, in one line (once it has started)."""
        return self._run.describe() if self._run is not None else "not started"

    def _known(self, riemann_solver: Any) -> str:
        """The Riemann solver's name, refused in one line unless `RIEMANN` has it in this
        solver's dimensions."""
        name = _riemann_name(riemann_solver)
        if name not in RIEMANN:
            raise CaseError(
                f"Riemann solver '{name}' has no counterpart in hydrokern (it steps {', '.join(sorted(RIEMANN))})"
            )
        dims = 3 if RIEMANN[name][0] == "acoustics-3d" else 2
        if dims != self._dims:
            raise CaseError(f"Riemann solver '{name}' is {dims}-dimensional: use ClawSolver{dims}D")
        return name

    def _settings(self, state: Any) -> Tuple[Any, ...]:
        """The run's settings from the solver's attributes, refusing what hydrokern lacks."""
        if self.rp is None:
            raise CaseError("no Riemann solver: pass one, e.g. ClawSolver2D(riemann.acoustics_2D)")
        # PyClaw lets a script set `rp` after construction.
        self._rp_name = self._known(self.rp)
        if self.order != 2:
            raise CaseError(f"order = {self.order}: hydrokern steps the second-order method only (order = 2)")
        if not self.dt_variable:
            raise CaseError("dt_variable = False: hydrokern always chooses Δt by the CFL number")
        if self.dt_max < 1e99:
            raise CaseError(f"dt_max = {self.dt_max}: hydrokern's step control has no Δt ceiling")
        if getattr(state, "index_capa", -1) >= 0:
            raise CaseError("a capacity function (state.index_capa) is not supported by hydrokern")
        mthlim = self.limiters if isinstance(self.limiters, list) else [self.limiters]
        if len(set(mthlim)) != 1 or mthlim[0] not in _LIMITERS:
            raise CaseError(
                f"limiters = {self.limiters}: hydrokern limits every wave with one of "
                + ", ".join(f"{k} ({v})" for k, v in _LIMITERS.items())
            )
        if not self.dimensional_split and not self._warned_split:
            self._warned_split = True
            warnings.warn(
                "hydrokern.pyclaw: dimensional_split = False (unsplit, with transverse waves) is not "
                "implemented; stepping with Godunov dimensional splitting instead",
                AlgorithmWarning,
                stacklevel=4,
            )
        if self.step_source is not None and self.source_split != 1:
            raise CaseError(
                f"source_split = {self.source_split}: hydrokern calls step_source after each whole step (source_split = 1)"
            )
        with_aux = RIEMANN[self._rp_name][1] > 0
        sides = []
        # hydrokern orders the sides west, east, south, north (bottom, top): PyClaw's lower and
        # upper along each axis in turn.
        for d in range(self._dims):
            for which, bcs, aux_bcs in (
                ("lower", self.bc_lower, self.aux_bc_lower),
                ("upper", self.bc_upper, self.aux_bc_upper),
            ):
                kind = bcs[d]
                if kind not in _SIDES:
                    raise CaseError(f"bc_{which}[{d}] = {kind}: hydrokern's sides are BC.extrap, BC.periodic and BC.wall")
                if with_aux and aux_bcs[d] != kind:
                    raise CaseError(
                        f"aux_bc_{which}[{d}] = {aux_bcs[d]} but bc_{which}[{d}] = {kind}: hydrokern fills the "
                        "auxiliary ghosts with the state's boundary kinds"
                    )
                sides.append(_SIDES[kind])
        return (
            RIEMANN[self._rp_name][0],
            tuple(sides),
            _LIMITERS[mthlim[0]],
            float(self.cfl_desired),
            float(self.cfl_max),
            tuple(float(d) for d in state.grid.delta),
            self.backend,
            self.precision,
        )

    def _start(self, solution: Any) -> _hydrokern.NativeClawRun:
        """The run: the last one, unless the state, its auxiliary fields, the time, dt or a
        setting changed since it stepped (then a new one, from PyClaw's objects as they are)."""
        state = solution.state
        settings = self._settings(state)
        aux = state.aux if RIEMANN[self._rp_name][1] else None
        key = (settings, float(solution.t), float(self.dt))
        if (
            self._run is not None
            and self._made is not None
            and self._made[0] == key
            and state.q is self._handed
            and np.array_equal(state.q, self._handed_copy)
            and (aux is None or np.array_equal(aux, self._made[1]))
        ):
            return self._run
        equations, sides, limiter, cfl, cfl_max, spacing, backend, precision = settings
        q = np.asarray(state.q, dtype=np.float64)
        grid = q.shape[1:]
        constants, medium = RIEMANN[self._rp_name][2](
            state.problem_data, None if aux is None else np.asarray(aux, dtype=np.float64), grid
        )
        if medium is None:
            medium = np.empty((0,) + grid)
        # The first Δt is PyClaw's dt (dt_initial); later, the one PyClaw's get_dt chooses from
        # the last step's CFL number: the run's own unless dt was set in between.
        if self._last_cfl is None:
            dt = float(self.dt)
        elif self._made is not None and float(self.dt) == self._made[0][2] and self._next_dt is not None:
            dt = self._next_dt
        else:
            dt = float(self.dt) * self.cfl_desired / self._last_cfl if self._last_cfl > 0 else math.inf
        self._run = _hydrokern.NativeClawRun(
            equations,
            constants,
            _native_layout(q),
            _native_layout(medium),
            list(spacing),
            list(sides),
            limiter,
            "godunov",
            cfl,
            cfl_max,
            float(solution.t),
            dt,
            backend,
            precision,
        )
        self._made = (key, None if aux is None else np.array(aux, copy=True))
        self._run_steps = 0
        return self._run

    def _advance(self, solution: Any, stop: float, steps: int) -> int:
        """At most `steps` steps of the run towards `stop`, handed back to PyClaw's objects;
        the steps taken."""
        run = self._start(solution)
        before = self._run_steps
        t, total, last_dt, last_cfl, next_dt, _ = run.advance(stop, before + steps)
        taken = total - before
        q = _pyclaw_layout(run.state())
        solution.state.q = q
        self._handed, self._handed_copy = q, q.copy()
        solution.t = t
        if taken > 0:
            # PyClaw's dt is the last step's, and its CFL object holds that step's number.
            self.dt = last_dt
            self._last_cfl = last_cfl
            self.cfl.set_global_max(0.0)
            self.cfl.update_global_max(last_cfl)
            self.status["numsteps"] += taken
            self.status["cflmax"] = max(self.status["cflmax"], last_cfl)
            self.status["dtmin"] = min(self.status["dtmin"], last_dt)
            self.status["dtmax"] = max(self.status["dtmax"], last_dt)
        self._run_steps, self._next_dt = total, next_dt
        assert self._made is not None
        self._made = ((self._made[0][0], float(t), float(self.dt)), self._made[1])
        return taken

    def _per_step(self, solution: Any) -> bool:
        """Whether Python must see every step: a before_step or step_source hook, or gauges."""
        return (
            self.before_step is not None
            or self.step_source is not None
            or bool(getattr(solution.state.grid, "gauges", None))
        )

    def evolve_to_time(self, solution: Any, tend: Optional[float] = None) -> Dict[str, Any]:
        """Evolve ``solution`` to ``tend``, or one step when ``tend`` is None (PyClaw's contract).

        Steps run in hydrokern without returning to Python, unless a ``before_step`` or
        ``step_source`` hook or gauges need every step: then the state crosses to Python and
        back after each one. ``status['cflmax']``, ``['dtmin']`` and ``['dtmax']`` count the
        last step of each call (and every step when Python sees each).
        """
        if not self._is_set_up:
            self.setup(solution)
        take_one_step = tend is None
        if self.cfl_desired > self.cfl_max:
            raise Exception("Variable time-stepping and desired CFL > maximum CFL")
        if not take_one_step and tend <= solution.t:
            return self.status
        stop = math.inf if take_one_step else float(tend)
        limit = 1 if take_one_step else int(self.max_steps)
        if not self._per_step(solution):
            taken = self._advance(solution, stop, limit)
            if not take_one_step and solution.t < stop and taken >= limit:
                raise Exception("Maximum number of timesteps have been taken")
            return self.status
        for _ in range(limit):
            if self.before_step is not None:
                self.before_step(self, solution.states[0])
            self._advance(solution, stop, 1)
            self.write_gauge_values(solution)
            if self.step_source is not None:
                self.step_source(self, solution.states[0], self.dt)
            if take_one_step or solution.t >= stop:
                return self.status
        raise Exception("Maximum number of timesteps have been taken")


class ClawSolver2D(_HydrokernStepping, _classic.ClawSolver2D):
    """PyClaw's ClawSolver2D, stepped by hydrokern (see the module's documentation).

    ``ClawSolver2D(riemann_solver, backend="auto", precision="f64")``: ``riemann_solver`` is a
    module of ``clawpack.riemann`` that `RIEMANN` lists; ``backend`` is ``auto`` (the GPU when
    there is one), ``gpu`` or ``cpu``; ``precision`` is ``f64`` or ``f32``.
    """

    def __init__(
        self, riemann_solver: Any = None, claw_package: Optional[str] = None, *, backend: str = "auto", precision: str = "f64"
    ) -> None:
        self._hydrokern_init(riemann_solver, backend, precision)
        _classic.ClawSolver2D.__init__(self, riemann_solver, claw_package or "clawpack.pyclaw")


class ClawSolver3D(_HydrokernStepping, _classic.ClawSolver3D):
    """PyClaw's ClawSolver3D, stepped by hydrokern (see the module's documentation).

    ``ClawSolver3D(riemann_solver, backend="auto", precision="f64")``, as `ClawSolver2D`.
    """

    _dims = 3

    def __init__(
        self, riemann_solver: Any = None, claw_package: Optional[str] = None, *, backend: str = "auto", precision: str = "f64"
    ) -> None:
        self._hydrokern_init(riemann_solver, backend, precision)
        _classic.ClawSolver3D.__init__(self, riemann_solver, claw_package or "clawpack.pyclaw")
