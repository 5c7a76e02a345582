"""hydrokern from Python: shallow-water, wave-propagation, ADI and sediment solvers on NVIDIA GPUs,
with CPU references, driven from scripts and notebooks.

    import hydrokern as hk
    case = hk.Case.scenario("flood")
    case["grid.nx"] = 256
    sim = hk.Simulation(case)            # the GPU when there is one, else the CPU
    for t in sim.evolve():                # stops at the case's snapshot times and its end
        print(t, sim.state()["h"].max())
    ds = sim.to_xarray()                  # needs xarray

Errors: a case or argument hydrokern refuses raises `CaseError` (a `ValueError`) with the
command line's one-line message; a run that blows up raises `SimulationError` naming the step, the
time and the cell; Ctrl-C raises `KeyboardInterrupt` between steps and leaves the simulation usable.
"""

from ._hydrokern import CaseError, SimulationError, __version__, revision
from . import claw, fd3d, tridiag
from .case import Case, RunResult, scenarios, solvers
from .simulation import Checkpoint, Simulation, View

__all__ = [
    "Case",
    "CaseError",
    "Checkpoint",
    "RunResult",
    "Simulation",
    "SimulationError",
    "__version__",
    "claw",
    "fd3d",
    "revision",
    "scenarios",
    "solvers",
    "tridiag",
    "View",
]
