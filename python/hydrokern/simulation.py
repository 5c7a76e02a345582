"""Simulations stepped from Python: advance to chosen times, read the state as NumPy arrays or
an xarray Dataset between steps, take checkpoints and go back to them, watch them live."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union

import numpy as np

from . import _hydrokern
from .case import Case, RunResult

if TYPE_CHECKING:
    import xarray


class Checkpoint:
    """Everything a simulation needs to continue exactly from a point: restore it into the
    simulation it was taken of (or another of the same case, precision and backend)."""

    __slots__ = ("_native",)

    def __init__(self, native: _hydrokern.NativeCheckpoint) -> None:
        self._native = native

    @property
    def time(self) -> float:
        return self._native.time

    @property
    def step(self) -> int:
        return self._native.step

    def __repr__(self) -> str:
        return f"<hydrokern.Checkpoint at t = {self.time:g} (step {self.step})>"


class View:
    """A simulation's live view, served on localhost while the simulation lives: open `url` in
    a browser, or show the view in a notebook (it draws itself as the page in a frame). The
    page shows each advance's frames, its balance and gauges, and pauses, resumes and stops
    the simulation's advances (docs/view.md)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def _repr_html_(self) -> str:
        return f'<iframe src="{self.url}" width="100%" height="860" style="border: 0"></iframe>'

    def __repr__(self) -> str:
        return f"<hydrokern live view at {self.url}>"


class Simulation:
    """A case's model on a backend, stepped from Python.

    ``backend`` is ``"auto"`` (the GPU when one is usable, else the CPU), ``"gpu"`` or
    ``"cpu"``; ``precision`` is ``"f32"``, ``"f64"`` or ``"mixed"`` (for the solvers that have
    it). Left as None, the case's ``run.backend`` and ``run.precision`` hold. The case is
    copied: changing it later does not change the simulation.

    The steps are the command line's: advancing to the case's snapshot times (``evolve()``)
    gives the states the command line writes, bit for bit on the same backend.
    """

    def __init__(self, case: Case, backend: Optional[str] = None, precision: Optional[str] = None) -> None:
        if not isinstance(case, Case):
            raise TypeError(f"Simulation(case): a hydrokern.Case, not {type(case).__name__}")
        case = case.copy()
        if backend is not None:
            case["run.backend"] = backend
        if precision is not None:
            case["run.precision"] = precision
        self._case = case
        self._native = _hydrokern.NativeSimulation(case._native)
        end, steps, snapshots, unit = self._native.times()
        self._end, self._steps, self._snapshots, self._unit = end, steps, list(snapshots), unit

    # Fields set before the run.
    FIELDS = {
        "kp": {
            "bed": "initial.raster.bed",
            "depth": "initial.raster.depth",
            "surface": "initial.raster.surface",
            "manning": "initial.raster.manning",
        },
        "sediment": {"h": "initial.h", "s": "initial.s", "alpha": "initial.alpha", "beta": "initial.beta"},
    }

    def set(self, name: str, data: Any, *, x: Any = None, y: Any = None) -> None:
        """Set an input field of the simulation before it steps: ``data`` is a path, a NumPy
        array or an ``xarray.DataArray``, as for `Case.set_field` (coordinates checked against the
        grid). ``name`` is a key of the case (``initial.raster.bed``) or its short name: for kp
        ``bed``, ``depth``, ``surface`` and ``manning`` (the ``[initial.raster]`` files, so the
        case's initial state must come from rasters); for sediment ``h``, ``s``, ``alpha`` and
        ``beta``. The model is built again from the changed case (on the GPU, its memory again):
        the solvers read these fields when they set up, so once the simulation has stepped
        `set` is refused — start a new one from a changed `Case` instead. A refused field
        raises `CaseError` and the simulation keeps the old one."""
        if self.step != 0:
            raise _hydrokern.CaseError(
                f"set('{name}'): the simulation has stepped ({self.step} steps); the solvers read their "
                "fields when they set up: set it on a Case and start a new Simulation"
            )
        aliases = self.FIELDS.get(self.solver, {})
        key = aliases.get(name, name)
        if "." not in key:
            known = ", ".join(aliases) or "none"
            raise _hydrokern.CaseError(f"set('{name}'): not a field of {self.solver} (its short names: {known}; or a case key)")
        case = self._case.copy()
        case.set_field(key, data, x=x, y=y)
        native = _hydrokern.NativeSimulation(case._native)
        self._native.close()
        self._case, self._native = case, native

    # What is simulated.
    @property
    def case(self) -> Case:
        """A copy of the case the simulation runs."""
        return self._case.copy()

    @property
    def solver(self) -> str:
        return self._native.solver

    @property
    def precision(self) -> str:
        """``f32``, ``f64`` or ``mixed`` (whose states come as f64)."""
        return self._native.precision

    def describe(self) -> str:
        """Where it runs and with which kernels, in one line."""
        return self._native.describe()

    @property
    def end(self) -> float:
        """The case's end time (infinite for a case that runs a number of steps)."""
        return self._end

    @property
    def snapshots(self) -> List[float]:
        """The case's snapshot times before its end."""
        return list(self._snapshots)

    @property
    def unit(self) -> str:
        """The unit of simulated time: ``s``, or ``yr`` for sediment."""
        return self._unit

    # Where it stands.
    @property
    def time(self) -> float:
        return self._native.clock()[0]

    @property
    def step(self) -> int:
        return self._native.clock()[1]

    @property
    def dt(self) -> float:
        """The last time step taken (0 before the first)."""
        return self._native.clock()[2]

    # Stepping.
    def advance(self, until: Optional[float] = None, steps: Optional[int] = None) -> float:
        """Step to the time ``until`` (the last step shortened to land on it; the case's end by
        default) or, with ``steps``, at most that many more steps; returns the time reached.
        Raises `SimulationError` naming the step, the time and why if the model blows up."""
        if until is None:
            until = self._end  # infinite for a case that runs a number of steps
        limit = None
        if steps is not None:
            if steps < 0:
                raise _hydrokern.CaseError(f"steps = {steps}: must be at least 0")
            limit = self.step + int(steps)
        if self._steps is not None:
            limit = self._steps if limit is None else min(limit, self._steps)
        return self._native.advance(float(until), limit)

    def evolve(self, every: Optional[float] = None, until: Optional[float] = None) -> Iterator[float]:
        """Advance and yield the time at each stop: with ``every``, every that much simulated
        time from now; otherwise at the case's snapshot times after now. The last stop is
        ``until`` (the case's end by default). Read the state between stops.

            for t in sim.evolve(every=60.0):
                depth = sim.state()["h"]
        """
        end = self._end if until is None else float(until)
        if self._steps is not None and until is None:
            # A case that runs a number of steps stops once, after them.
            yield self.advance(until=math.inf)
            return
        if every is not None and not (every > 0 and math.isfinite(every)):
            raise _hydrokern.CaseError(f"every = {every}: must be a positive, finite time")
        t0 = self.time
        if every is None:
            stops = [t for t in self._snapshots if t0 < t < end] + [end]
        else:
            n = math.ceil((end - t0) / every - 1e-12)
            stops = [min(t0 + k * every, end) for k in range(1, n + 1)]
        for t in stops:
            if t > self.time:
                yield self.advance(until=t)

    def view(self, port: int = 8080, paused: bool = False) -> View:
        """Serve a live view of this simulation at ``http://127.0.0.1:port/`` (0: a free port)
        until it is closed, and return it; in a notebook, ``sim.view()`` shows the page. Frames
        are taken while `advance` steps (at the rate the viewers ask, and where each advance
        stops). A viewer's pause holds `advance` between steps, a stop raises
        `KeyboardInterrupt` there, as Ctrl-C does; with ``paused`` the next advance waits for a
        viewer to resume it. The view never changes the results."""
        if not isinstance(port, int) or not 0 <= port <= 65535:
            raise _hydrokern.CaseError(f"port = {port!r}: a port number from 0 to 65535")
        return View(self._native.view(port, bool(paused)))

    # The state.
    def state(self) -> Dict[str, np.ndarray]:
        """The state now, a NumPy array per field (copies; NumPy's (row, column) order, row 0
        the south edge, as the NPY files), in the precision of the run."""
        return {name: a for name, _, _, a in self._native.state()}

    def field(self, name: str) -> np.ndarray:
        """One field of `state()`."""
        fields = self.state()
        if name not in fields:
            raise KeyError(f"{name}: the fields are {', '.join(fields)}")
        return fields[name]

    def coords(self) -> Dict[str, np.ndarray]:
        """Cell centres (metres) along each axis: ``{"y": ..., "x": ...}`` (and ``"z"`` in 3D)."""
        axes = self._native.coords()
        names = ["z", "y", "x"][3 - len(axes):]
        return dict(zip(names, axes))

    def device_fields(self) -> Dict[str, Any]:
        """The state arrays on the GPU where they lie, without a copy, for any DLPack consumer::

            w = cupy.from_dlpack(sim.device_fields()["w"])    # or torch.from_dlpack(...)

        Every stepping solver offers them on the GPU: kp (f32 or f64) its surface ``w`` (m;
        the depth is ``w − bed``) and momenta ``hu``, ``hv``; claw its state fields (those of
        `state()`), 2D or 3D; adi ``zeta``, ``p`` and ``q`` (and ``infiltration`` with a soil)
        as `state()` has them; sediment ``h`` and ``s`` (in f32 with compensated accumulation
        ``h`` and ``h_low``, whose sum rounded once is `state()`'s h; in mixed precision ``h``
        in f64 and ``s`` in f32). kp, claw and sediment give the interior of a padded field, a
        strided view; adi's arrays are whole. The contract: an
        array shows the state of the moment it was taken and is read-only (writing it changes
        the model's state under it); after the simulation advances or restores, exporting one
        taken before is refused (take new ones); `close` is refused while exported arrays live.
        On the CPU this raises `CaseError`: read `state()` instead."""
        return {a.name: a for a in self._native.device_fields()}

    def bed(self) -> Optional[np.ndarray]:
        """The bed elevation (metres, the fields' shape) for solvers whose water has one."""
        return self._native.bed()

    def to_xarray(self) -> "xarray.Dataset":
        """The state now as an ``xarray.Dataset``: each field with its long name and units, the
        cell centres as coordinates, the bed and surface (h + bed) where there is a bed; as
        attributes the clock (time, step, dt), the case, and the diagnostics the command line
        prints (`diagnostics`): ``progress`` (volumes and their change), ``conservation``
        where the solver conserves something, and ``account_volume``, ``account_rain``, ... (m³)
        where it keeps a water account."""
        import xarray as xr

        coords = self.coords()
        dims = tuple(coords)
        data: Dict[str, Any] = {}
        faces: Dict[str, np.ndarray] = {}
        for name, long_name, units, a in self._native.state():
            # A field on the faces across an axis (adi's fluxes) has one more value along it:
            # its own dimension, `<axis>_face`, at the faces' positions.
            own = []
            for axis, n in zip(dims, a.shape):
                centres = coords[axis]
                if n == len(centres) + 1:
                    half = (centres[1] - centres[0]) / 2 if len(centres) > 1 else 0.5
                    faces[f"{axis}_face"] = np.append(centres - half, centres[-1] + half)
                    own.append(f"{axis}_face")
                else:
                    own.append(axis)
            data[name] = (tuple(own), a, {"long_name": long_name, "units": units})
        bed = self.bed()
        if bed is not None:
            data["bed"] = (dims, bed, {"long_name": "bed elevation", "units": "m"})
            if "h" in data:
                h = data["h"][1]
                data["surface"] = (dims, h + bed.astype(h.dtype), {"long_name": "water surface elevation", "units": "m"})
        axis_names = {"x": "projection_x_coordinate", "y": "projection_y_coordinate", "z": "height"}
        xr_coords = {
            k: (k, v, {"units": "m", "standard_name": axis_names[k], "long_name": f"{k} of the cell centre"})
            for k, v in coords.items()
        }
        for k, v in faces.items():
            axis = k[: -len("_face")]
            xr_coords[k] = (k, v, {"units": "m", "long_name": f"{axis} of the cell faces across {axis}"})
        t, step, dt = self._native.clock()
        progress, conservation, account = self._native.diagnostics()
        attrs = {
            "time": t,
            "time_units": self._unit,
            "step": step,
            "dt": dt,
            "solver": self.solver,
            "precision": self.precision,
            "case": self._case.name,
            "hydrokern_version": _hydrokern.__version__,
            "progress": progress,
        }
        if conservation is not None:
            attrs["conservation"] = conservation
        for name, value in (account or {}).items():
            attrs[f"account_{name}"] = value
        return xr.Dataset(data, coords=xr_coords, attrs=attrs)

    def diagnostics(self) -> Dict[str, Any]:
        """What the command line reports of the state now: ``progress``, its progress line's
        totals (volumes and their change since the start); ``conservation``, its summary's
        line on what the solver conserves (None where nothing is); ``account``, the water
        account in m³ (volume, volume_start, rain, inflow, infiltration, boundary_in,
        boundary_out, residual) where the solver keeps one (kp with forcing), else None."""
        progress, conservation, account = self._native.diagnostics()
        return {"progress": progress, "conservation": conservation, "account": account}

    # Checkpoints.
    def checkpoint(self, path: "Optional[Union[str, os.PathLike[str]]]" = None) -> Checkpoint:
        """Everything needed to continue exactly from now, in memory; with ``path``, also written
        to that file (whole or not at all) as a run of the case writes its checkpoints, so that
        ``hydrokern run CASE --restart PATH``, `Case.run` with ``restart=PATH`` and
        `restore` (PATH) go on from here taking the steps this simulation would."""
        if path is not None:
            self._native.write_checkpoint(os.fspath(path))
        return Checkpoint(self._native.checkpoint())

    def restore(self, checkpoint: "Union[Checkpoint, str, os.PathLike[str]]") -> None:
        """Go back (or forward) to ``checkpoint``: every later step is the one the simulation it
        was taken of took. A path is a checkpoint file that a run of this case wrote
        (``output.checkpoint_every``; the command line's or `Case.run`'s), in this simulation's
        precision on its backend: the simulation goes on from it as that run would have."""
        if isinstance(checkpoint, Checkpoint):
            self._native.restore(checkpoint._native)
        elif isinstance(checkpoint, (str, os.PathLike)):
            self._native.restore_file(os.fspath(checkpoint))
        else:
            raise TypeError(f"restore: a Checkpoint or a path, not {type(checkpoint).__name__}")

    # Whole runs and the end.
    def run(self, output: Optional[str] = None, force: bool = False) -> RunResult:
        """Run the simulation's case from its start as ``hydrokern run`` does, writing what the
        command line writes (see `Case.run`); this simulation's own state is not touched."""
        return self._case.run(output=output, force=force)

    def close(self) -> None:
        """Free the model and its GPU memory; any later use raises `CaseError`. Refused while
        arrays exported by `device_fields` still read its memory."""
        self._native.close()

    @property
    def closed(self) -> bool:
        return self._native.closed

    def __enter__(self) -> "Simulation":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return f"<hydrokern.Simulation of {self._case.name!r} (closed)>"
        return f"<hydrokern.Simulation of {self._case.name!r} at t = {self.time:g} {self._unit} (step {self.step}), {self.precision}>"


__all__ = ["Checkpoint", "Simulation"]
