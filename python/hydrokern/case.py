"""Cases: a case file, a built-in scenario or TOML text, its keys read and set as case files hold
them (each change checked by the case's solver), checked and run as the command line does."""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _hydrokern

PathLike = Union[str, "os.PathLike[str]"]


class RunResult(NamedTuple):
    """What a finished run wrote: its output directory, the steps taken and the time reached (in
    the solver's unit: seconds, years for sediment)."""

    dir: str
    steps: int
    time: float


def scenarios() -> Dict[str, Tuple[str, str]]:
    """Every built-in scenario: name -> (solver, description)."""
    return {name: (solver, about) for name, solver, about in _hydrokern.scenarios()}


def solvers() -> Dict[str, str]:
    """Every solver: name -> one line on what it solves."""
    return dict(_hydrokern.solvers())


class Case:
    """A validated case of one solver.

    Keys are dotted paths as in case files: ``case["grid.nx"] = 512``,
    ``case["boundary.west"] = "outflow"``, ``case["physics.manning"]``. Setting a key has the
    case's solver read the changed case: a value it refuses raises `CaseError` with the command
    line's message, and the case keeps its previous value.
    """

    __slots__ = ("_native", "_files")

    def __init__(self, native: _hydrokern.NativeCase, files: Optional[List[Any]] = None) -> None:
        self._native = native
        # The files `set_field` wrote, (key, folder), shared with copies: each folder kept
        # while any case that names it lives.
        self._files = files if files is not None else []

    @classmethod
    def load(cls, path: PathLike) -> "Case":
        """Read a case file (TOML). Relative paths in it are read from the file's directory."""
        return cls(_hydrokern.NativeCase.read(os.fspath(path)))

    @classmethod
    def scenario(cls, name: str) -> "Case":
        """A built-in scenario by name (see `scenarios()`)."""
        return cls(_hydrokern.NativeCase.scenario(name))

    @classmethod
    def from_toml(cls, text: str, name: str = "case", base: Optional[PathLike] = None) -> "Case":
        """A case from TOML text. ``name`` names its output directory (``out/<name>``); relative
        paths in it are read from ``base`` (the working directory by default)."""
        return cls(_hydrokern.NativeCase.parse(text, name, None if base is None else os.fspath(base)))

    @property
    def solver(self) -> str:
        """The solver that reads the case (``kp``, ``claw``, ``adi``, ``sediment``, ...)."""
        return self._native.solver

    @property
    def name(self) -> str:
        """The scenario's name or the case file's stem: its output directory is ``out/<name>``
        unless ``output.dir`` says otherwise."""
        return self._native.name

    @property
    def origin(self) -> str:
        """Where the case came from: a file's path or a scenario."""
        return self._native.origin

    def __getitem__(self, key: str) -> Any:
        value = self._native.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        """The value at ``key``, or ``default`` where the case does not set it (the solver's
        default then holds)."""
        value = self._native.get(key)
        return default if value is None else value

    def __setitem__(self, key: str, value: Any) -> None:
        self._native.set([(key, value)])

    def update(self, changes: Dict[str, Any]) -> None:
        """Set several keys at once, checked together: for changes that only make sense
        together, such as an earlier end and its snapshot times::

            case.update({"time.t_end": 60.0, "output.snapshots": [30.0]})
        """
        self._native.set(list(changes.items()))

    def __delitem__(self, key: str) -> None:
        if not self._native.has(key):
            raise KeyError(key)
        self._native.remove(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._native.has(key)

    def copy(self) -> "Case":
        """An independent copy."""
        return Case(self._native.copy(), self._files)

    def set_field(self, key: str, data: Any, *, x: Any = None, y: Any = None) -> None:
        """Set a key that takes a field from a file (a raster of ``[initial.raster]``, or a
        sediment field's NPY file) from a path, a NumPy array or an ``xarray.DataArray``.

        An array is written to a file this case keeps (an Esri ASCII grid for a raster key,
        NaN as nodata, where kp marks cells outside the domain; an NPY file otherwise), in
        NumPy's (row, column) order with row 0 the south edge, as hydrokern's outputs. A
        raster's cell centres are ``x`` and ``y`` (metres, evenly spaced; a DataArray's ``x``
        and ``y`` coordinates by default), or else the case's grid, whose shape the array must
        then have. The solver reads the changed case as for any key: a field it refuses
        (wrong shape, not finite, not covering the domain) raises `CaseError` and the case
        keeps its previous value.

            case.set_field("initial.raster.bed", dem)          # dem: (ny, nx) over the case's grid
            case.set_field("initial.raster.manning", n_map)    # a DataArray with x and y
        """
        if isinstance(data, (str, os.PathLike)):
            self[key] = os.fspath(data)
            return
        if hasattr(data, "dims") and hasattr(data, "coords"):
            if x is None and "x" in data.coords:
                x = np.asarray(data.coords["x"])
            if y is None and "y" in data.coords:
                y = np.asarray(data.coords["y"])
            if tuple(data.dims[-2:]) == ("x", "y"):
                data = data.transpose(..., "y", "x")
            data = data.values
        a = np.asarray(data)
        if a.ndim != 2 or a.dtype.kind not in "fiu":
            raise _hydrokern.CaseError(f"{key}: a 2D array of numbers is needed, not shape {a.shape} of {a.dtype}")
        a = a.astype(np.float64)
        folder = tempfile.TemporaryDirectory(prefix="hydrokern-case-")
        stem = key.replace(".", "-")
        if key.startswith("initial.raster."):
            path = os.path.join(folder.name, stem + ".asc")
            _write_asc(path, key, a, x, y, self._native.grid())
        else:
            path = os.path.join(folder.name, stem + ".npy")
            np.save(path, a)
        self[key] = path
        self._files.append((key, folder))


    def check(self) -> str:
        """What ``hydrokern check`` prints: what would run, the plan (steps, output, memory) and
        where. Raises `CaseError` for a run the command line would refuse."""
        return "\n".join(self._native.check())

    def to_toml(self) -> str:
        """The case as a case file, with the changes made (comments and layout kept)."""
        return self._native.text()

    def write(self, path: PathLike, force: bool = False) -> List[str]:
        """Write the case as a new case file at ``path``, as ``hydrokern <scenario> --write-case
        FILE`` does, to edit or to run with ``hydrokern run``: a built-in scenario's data files
        (rasters, time series) go beside it where its relative paths point, and so do the
        fields `set_field` gave it (``<stem>-<key>.asc`` or ``.npy``, the keys naming them
        there). Where the case sets no ``output.dir`` the written one runs in ``out/<stem>``.
        Everything is written whole or not at all; an existing file is replaced only with
        ``force``. The case itself is unchanged. Returns the files written, the case first."""
        path = os.fspath(path)
        stem = os.path.splitext(os.path.basename(path))[0] or "case"
        fields = []
        for key, folder in self._files:
            value = self.get(key)
            if isinstance(value, str) and os.path.dirname(value) == folder.name and key not in [f[0] for f in fields]:
                with open(value, "rb") as f:
                    fields.append((key, f"{stem}-{os.path.basename(value)}", f.read()))
        _, data = self._native.write(path, force, fields)
        return [path] + [os.fspath(d) for d in data]

    def run(self, output: Optional[PathLike] = None, force: bool = False, restart: Optional[PathLike] = None) -> RunResult:
        """Run the case as ``hydrokern run`` does, writing everything the command line writes
        to ``output`` (``output.dir`` of the case, else ``out/<name>``). ``force`` runs in a
        directory that holds files hydrokern did not write. ``restart`` continues from a
        checkpoint file, as ``--restart``: its case, with this case's changes (a later end).
        Ctrl-C stops the run at a step boundary with its outputs whole and raises
        `KeyboardInterrupt`."""
        case = self
        if output is not None:
            case = self.copy()
            case["output.dir"] = os.fspath(output)
        d, steps, t = case._native.run(force, None if restart is None else os.fspath(restart))
        return RunResult(os.fspath(d), steps, t)

    def __repr__(self) -> str:
        return f"<hydrokern.Case {self.name!r} ({self.solver}) from {self.origin}>"

    def __iter__(self) -> Iterator[str]:
        raise TypeError("a Case is not iterable: read keys by name, e.g. case['grid.nx']")


def _spacing(name: str, v: np.ndarray) -> float:
    d = np.diff(v)
    if v.ndim != 1 or v.size < 2 or not np.all(np.isfinite(v)) or not np.allclose(d, d[0], rtol=1e-9, atol=0) or d[0] == 0:
        raise _hydrokern.CaseError(f"{name}: cell centres must be at least two finite, evenly spaced values")
    return float(d[0])


def _write_asc(path: str, key: str, a: np.ndarray, x: Any, y: Any, grid: Any) -> None:
    """An Esri ASCII grid of ``a`` (row 0 south) with cell centres ``x``, ``y`` or the case's
    grid; NaN written as nodata."""
    ny, nx = a.shape
    if (x is None) != (y is None):
        raise _hydrokern.CaseError(f"{key}: give both x and y, or neither (the case's grid)")
    if x is None:
        if grid is None:
            raise _hydrokern.CaseError(f"{key}: the case has no plane of cells: give x and y")
        gnx, gny, dx, dy, x0, y0 = grid
        if (ny, nx) != (gny, gnx):
            raise _hydrokern.CaseError(
                f"{key}: shape {a.shape}, but the case's grid is ({gny}, {gnx}): give x and y (cell centres) for another grid"
            )
    else:
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if x.shape != (nx,) or y.shape != (ny,):
            raise _hydrokern.CaseError(f"{key}: x has {x.size} and y {y.size} values for an array of shape {a.shape}")
        dx, dy = _spacing(f"{key}: x", x), _spacing(f"{key}: y", y)
        if dy < 0:  # rows north first, as rasters hold them: NumPy's order is row 0 south
            a, y, dy = a[::-1], y[::-1], -dy
        if dx < 0:
            raise _hydrokern.CaseError(f"{key}: x must increase")
        x0, y0 = x[0] - dx / 2, y[0] - dy / 2
    nodata = -9999.0
    if np.any(a == nodata):
        raise _hydrokern.CaseError(f"{key}: the value -9999 marks nodata in the file written; use NaN for cells outside the domain")
    rows = np.where(np.isnan(a), nodata, a)[::-1]
    with open(path, "w") as f:
        f.write(f"ncols {nx}\nnrows {ny}\nxllcorner {float(x0)!r}\nyllcorner {float(y0)!r}\n")
        f.write(f"dx {float(dx)!r}\ndy {float(dy)!r}\nNODATA_value {nodata!r}\n")
        for row in rows:
            f.write(" ".join(repr(float(v)) for v in row))
            f.write("\n")


__all__: List[str] = ["Case", "RunResult", "scenarios", "solvers"]
