"""PyClaw's own script stepped by stock PyClaw (its Fortran, one core) and by hydrokern.pyclaw
(the CPU reference on every core; the GPU in f64 and f32): the 2D acoustics pulse of PyClaw's
acoustics_2d_homogeneous example and its radial dam break (Roe with the entropy fix), scaled to
n × n cells, ten output times, output off. Whole Controller.run() calls, wall clock: the median
of --reps runs after one warm-up (stock PyClaw once: it is the slow one). Needs clawpack.

    python python/bench/pyclaw_speed.py [--n 512 1024] [--reps 3] [--backends cpu gpu]
        [--problems acoustics dam-break] [--no-stock]

The CPU backend uses every core; RAYON_NUM_THREADS=k limits it to k (its scaling: run once per k
with --no-stock).
"""

import argparse
import math
import time

import numpy as np
from clawpack import pyclaw as stock
from clawpack import riemann

from hydrokern import pyclaw as ours

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, nargs="+", default=[512, 1024])
parser.add_argument("--reps", type=int, default=3)
parser.add_argument("--backends", nargs="+", default=["cpu", "gpu"])
parser.add_argument("--problems", nargs="+", default=["acoustics", "dam-break"])
parser.add_argument("--no-stock", action="store_true", help="skip stock PyClaw (hydrokern's rows then give ms per step)")
args = parser.parse_args()


def acoustics(pyclaw, n, **kw):
    """PyClaw's acoustics_2d_homogeneous set-up on n × n cells."""
    solver = pyclaw.ClawSolver2D(riemann.acoustics_2D, **kw)
    solver.dimensional_split = True
    solver.cfl_max, solver.cfl_desired = 0.5, 0.45
    solver.limiters = pyclaw.limiters.tvd.MC
    for d in range(2):
        solver.bc_lower[d] = solver.bc_upper[d] = pyclaw.BC.extrap
    domain = pyclaw.Domain([pyclaw.Dimension(-1.0, 1.0, n, name="x"), pyclaw.Dimension(-1.0, 1.0, n, name="y")])
    state = pyclaw.State(domain, 3)
    rho, bulk = 1.0, 4.0
    cc = np.sqrt(bulk / rho)
    state.problem_data.update(rho=rho, bulk=bulk, zz=rho * cc, cc=cc)
    solver.dt_initial = np.min(domain.grid.delta) / cc * solver.cfl_desired
    X, Y = state.grid.p_centers
    r = np.sqrt(X**2 + Y**2)
    state.q[0] = (np.abs(r - 0.5) <= 0.2) * (1.0 + np.cos(np.pi * (r - 0.5) / 0.2))
    state.q[1:] = 0.0
    return controller(pyclaw, solver, state, domain, 0.12)


def dam_break(pyclaw, n, **kw):
    """PyClaw's shallow_2d radial dam break (Roe, entropy fix, MC) on n × n cells."""
    solver = pyclaw.ClawSolver2D(riemann.shallow_roe_with_efix_2D, **kw)
    solver.limiters = pyclaw.limiters.tvd.MC
    solver.dimensional_split = 1
    solver.bc_lower[0] = solver.bc_lower[1] = pyclaw.BC.extrap
    solver.bc_upper[0] = solver.bc_upper[1] = pyclaw.BC.wall
    domain = pyclaw.Domain([pyclaw.Dimension(-2.5, 2.5, n, name="x"), pyclaw.Dimension(-2.5, 2.5, n, name="y")])
    state = pyclaw.State(domain, 3)
    state.problem_data["grav"] = 1.0
    X, Y = state.p_centers
    state.q[0] = 2.0 * (np.sqrt(X**2 + Y**2) <= 0.5) + 1.0 * (np.sqrt(X**2 + Y**2) > 0.5)
    state.q[1:] = 0.0
    return controller(pyclaw, solver, state, domain, 1.0)


def controller(pyclaw, solver, state, domain, tfinal):
    claw = pyclaw.Controller()
    claw.solution = pyclaw.Solution(state, domain)
    claw.solver = solver
    claw.output_format = None
    claw.keep_copy = True
    claw.num_output_times = 10
    claw.tfinal = tfinal
    claw.verbosity = 0
    return claw


def timed(make, reps):
    times, claw = [], None
    for _ in range(reps):
        claw = make()
        t0 = time.perf_counter()
        claw.run()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), claw


for name, problem in [("acoustics", acoustics), ("dam-break", dam_break)]:
    if name not in args.problems:
        continue
    for n in args.n:
        if args.no_stock:
            t_stock, ref = math.nan, None
        else:
            t_stock, ref = timed(lambda: problem(stock, n), 1)
            steps = ref.solver.status["numsteps"]
            print(f"{name} {n}×{n}, {steps} steps: stock PyClaw (Fortran, 1 core) {t_stock:.3f} s, {t_stock / steps * 1e3:.2f} ms/step")
        for backend in args.backends:
            for precision in ["f64", "f32"] if backend == "gpu" else ["f64"]:
                make = lambda: problem(ours, n, backend=backend, precision=precision)  # noqa: E731
                timed(make, 1)
                t, claw = timed(make, args.reps)
                steps = claw.solver.status["numsteps"]
                diff = np.abs(claw.frames[-1].q - ref.frames[-1].q).max() if ref else math.nan
                print(
                    f"  {name} {n}×{n} hydrokern {backend} {precision}: {t:.3f} s, {t / steps * 1e3:.2f} ms/step, "
                    f"{t_stock / t:.1f}× PyClaw; {steps} steps, max |Δq| {diff:.1e}; {claw.solver.describe()}"
                )
