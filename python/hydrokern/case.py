"""Cases: a case file, a built-in scenario or TOML text, its keys read and set as case files hold
them (each change checked by the case's solver), checked and run as the command line does."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

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

    __slots__ = ("_native",)

    def __init__(self, native: _hydrokern.NativeCase) -> None:
        self._native = native

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
        return Case(self._native.copy())

    def check(self) -> str:
        """What ``hydrokern check`` prints: what would run, the plan (steps, output, memory) and
        where. Raises `CaseError` for a run the command line would refuse."""
        return "\n".join(self._native.check())

    def to_toml(self) -> str:
        """The case as a case file, with the changes made (comments and layout kept)."""
        return self._native.text()

    def run(self, output: Optional[PathLike] = None, force: bool = False) -> RunResult:
        """Run the case as ``hydrokern run`` does, writing everything the command line writes
        to ``output`` (``output.dir`` of the case, else ``out/<name>``). ``force`` runs in a
        directory that holds files hydrokern did not write. Ctrl-C stops the run at a step
        boundary with its outputs whole and raises `KeyboardInterrupt`."""
        case = self
        if output is not None:
            case = self.copy()
            case["output.dir"] = os.fspath(output)
        d, steps, t = case._native.run(force)
        return RunResult(os.fspath(d), steps, t)

    def __repr__(self) -> str:
        return f"<hydrokern.Case {self.name!r} ({self.solver}) from {self.origin}>"

    def __iter__(self) -> Iterator[str]:
        raise TypeError("a Case is not iterable: read keys by name, e.g. case['grid.nx']")


__all__: List[str] = ["Case", "RunResult", "scenarios", "solvers"]
