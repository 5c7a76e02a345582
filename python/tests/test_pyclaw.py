"""hydrokern.pyclaw against stock PyClaw: PyClaw's own examples with one line changed.

PyClaw (``clawpack``) builds Fortran when installed, so these tests run where it is installed —
the long tier installs it (docs/python.md) and sets LONG=1, which makes its absence a failure.
Without it they show as skipped, except the import's refusal, which runs everywhere.
"""

import importlib
import importlib.util
import os
import sys
import warnings

import numpy as np
import pytest

import hydrokern as hk

try:
    from clawpack import pyclaw as stock_pyclaw
    from clawpack import riemann

    HAVE_PYCLAW = True
except ImportError:
    HAVE_PYCLAW = False
    assert os.environ.get("LONG") != "1", "LONG=1 but PyClaw is not installed: pip install clawpack"

needs_pyclaw = pytest.mark.skipif(not HAVE_PYCLAW, reason="PyClaw (clawpack) is not installed")

EXAMPLES = "clawpack.pyclaw.examples."


def test_the_module_without_pyclaw_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "clawpack", None)
    monkeypatch.delitem(sys.modules, "hydrokern.pyclaw", raising=False)
    with pytest.raises(ImportError, match="pip install clawpack"):
        importlib.import_module("hydrokern.pyclaw")


def changed(example: str):
    """PyClaw's example module with its one line changed: hydrokern's pyclaw for PyClaw's."""
    stock = importlib.import_module(EXAMPLES + example)
    with open(stock.__file__) as f:
        text = f.read().replace("from clawpack import pyclaw", "from hydrokern import pyclaw")
    assert "from hydrokern import pyclaw" in text
    spec = importlib.util.spec_from_loader("hydrokern_" + example.replace(".", "_"), loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(text, stock.__file__, "exec"), module.__dict__)
    return stock, module


def run(module, tweak=None, **kw):
    claw = module.setup(disable_output=True, **kw) if "disable_output" in module.setup.__code__.co_varnames else module.setup(outdir=None, **kw)
    claw.output_format = None
    if tweak:
        tweak(claw)
    claw.verbosity = 0
    claw.run()
    return claw


def split(claw):
    claw.solver.dimensional_split = True


def split_open(claw):
    """The 3D interface example split, with every side open (extrapolation). Its own sides (a
    wall opposite a periodic side) hydrokern refuses, and with periodic or wall sides PyClaw's 3D
    sweeps differ from hydrokern's near the sides (docs/python.md): they update only the first
    ghost layer across the other axes, so a later sweep reads the second from before the step."""
    s = claw.solver
    s.dimensional_split = True
    for d in range(3):
        s.bc_lower[d] = s.bc_upper[d] = s.aux_bc_lower[d] = s.aux_bc_upper[d] = stock_pyclaw.BC.extrap


def assert_frames_equal(a, b, rtol):
    assert len(a.frames) == len(b.frames)
    scale = max(np.abs(f.q).max() for f in a.frames)
    for fa, fb in zip(a.frames, b.frames):
        assert fa.t == pytest.approx(fb.t, rel=1e-14, abs=1e-14)
        np.testing.assert_allclose(fb.q, fa.q, rtol=0, atol=rtol * scale)


# PyClaw's examples whose algorithm hydrokern runs as PyClaw does: the same steps, the same
# Δt, the same state to round-off.
SAME = [
    ("acoustics_2d_homogeneous.acoustics_2d", None, {}),
    ("acoustics_2d_variable.acoustics_2d_interface", split, {}),
    ("acoustics_3d_variable.acoustics_3d_interface", None, {"problem": "homogeneous"}),
    ("acoustics_3d_variable.acoustics_3d_interface", split_open, {"problem": "heterogeneous"}),
    ("advection_2d.advection_2d", None, {}),
]


@needs_pyclaw
@pytest.mark.parametrize("example,tweak,kw", SAME, ids=[e[0].split(".")[-1] + str(e[2] or "") for e in SAME])
def test_pyclaw_examples_with_one_line_changed_equal_stock_pyclaw(example, tweak, kw):
    stock, ours = changed(example)
    a, b = run(stock, tweak, **kw), run(ours, tweak, **kw)
    assert type(b.solver).__module__ == "hydrokern.pyclaw"
    assert b.solver.status["numsteps"] == a.solver.status["numsteps"]
    assert_frames_equal(a, b, 1e-13)


@needs_pyclaw
@pytest.mark.parametrize("rs", ["roe", "hlle"])
def test_shallow_water_steps_equal_stock_pyclaw_and_runs_within_the_cfl_measure(rs):
    """From one state, a step equals PyClaw's to round-off. Over the whole radial dam break the
    runs part by about 1e-4 once the wave reaches the walls: PyClaw's CFL number also counts the
    y-waves of the ghost columns (the boundary column as it was before the x-sweep), so its Δt
    differs from hydrokern's there by a part in a thousand."""
    stock, ours = changed("shallow_2d.radial_dam_break")
    a = stock.setup(disable_output=True, riemann_solver=rs)
    b = ours.setup(disable_output=True, riemann_solver=rs)
    for c in (a, b):
        c.solver.setup(c.solution)
        c.solver.dt = 0.02
    for _ in range(40):
        a.solver.evolve_to_time(a.solution, a.solution.t + 0.02)
        b.solver.evolve_to_time(b.solution, a.solution.t)
        np.testing.assert_allclose(b.solution.q, a.solution.q, rtol=0, atol=1e-13)
    a, b = run(stock, riemann_solver=rs), run(ours, riemann_solver=rs)
    assert abs(b.solver.status["numsteps"] - a.solver.status["numsteps"]) <= 1
    assert_frames_equal(a, b, 1e-3)


@needs_pyclaw
def test_unsplit_settings_step_split_with_one_warning():
    stock, ours = changed("acoustics_2d_variable.acoustics_2d_interface")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        b = run(ours)
    told = [w for w in seen if issubclass(w.category, UserWarning) and "dimensional_split" in str(w.message)]
    assert len(told) == 1 and "Godunov dimensional splitting" in str(told[0].message)
    a = run(stock, split)
    assert_frames_equal(a, b, 1e-13)


def solver_2d(rs=None, **settings):
    from hydrokern import pyclaw

    s = pyclaw.ClawSolver2D(rs if rs is not None else riemann.acoustics_2D, **settings)
    for d in range(2):
        s.bc_lower[d] = s.bc_upper[d] = pyclaw.BC.extrap
    return s


def acoustics_solution(pyclaw, n=(16, 12)):
    x = pyclaw.Dimension(-1.0, 1.0, n[0], name="x")
    y = pyclaw.Dimension(-1.0, 1.0, n[1], name="y")
    domain = pyclaw.Domain([x, y])
    state = pyclaw.State(domain, 3)
    state.problem_data.update(rho=1.0, bulk=4.0, zz=2.0, cc=2.0)
    X, Y = state.grid.p_centers
    state.q[0] = np.exp(-10 * (X**2 + Y**2))
    state.q[1:] = 0
    return pyclaw.Solution(state, domain)


@needs_pyclaw
@pytest.mark.parametrize(
    "change,message",
    [
        (lambda s: setattr(s, "order", 1), "order = 1"),
        (lambda s: setattr(s, "dt_variable", False), "dt_variable"),
        (lambda s: setattr(s, "limiters", [1, 4]), "one of"),
        (lambda s: setattr(s, "limiters", 7), "limiters = 7"),
        (lambda s: s.bc_lower.__setitem__(0, stock_pyclaw.BC.custom), "bc_lower[0] = 0"),
        (lambda s: s.bc_lower.__setitem__(1, stock_pyclaw.BC.periodic), "periodic"),
        (lambda s: setattr(s, "dt_max", 1.0), "dt_max"),
        (lambda s: setattr(s, "cfl_max", 1.5) or setattr(s, "cfl_desired", 1.2), "CFL"),
    ],
)
def test_what_hydrokern_does_not_do_is_refused_in_one_line(change, message):
    from hydrokern import pyclaw

    s = solver_2d()
    change(s)
    sol = acoustics_solution(pyclaw)
    with pytest.raises(hk.CaseError, match=message.replace("[", r"\[").replace("]", r"\]")) as e:
        s.setup(sol)
        s.dt = 0.01
        s.evolve_to_time(sol, 0.1)
    assert "\n" not in str(e.value)


@needs_pyclaw
def test_unknown_riemann_solvers_and_dimensions_are_refused_in_one_line():
    from hydrokern import pyclaw

    with pytest.raises(hk.CaseError, match="'euler_4wave_2D' has no counterpart") as e:
        pyclaw.ClawSolver2D(riemann.euler_4wave_2D)
    assert "shallow_roe_with_efix_2D" in str(e.value)
    with pytest.raises(hk.CaseError, match="use ClawSolver3D"):
        pyclaw.ClawSolver2D(riemann.vc_acoustics_3D)
    with pytest.raises(hk.CaseError, match="backend 'tpu'"):
        pyclaw.ClawSolver2D(riemann.acoustics_2D, backend="tpu")
    # A Riemann solver set after construction, as PyClaw allows, is checked when it steps.
    s = solver_2d()
    s.rp = riemann.euler_4wave_2D
    with pytest.raises(hk.CaseError, match="'euler_4wave_2D' has no counterpart"):
        s.setup(acoustics_solution(pyclaw))


@needs_pyclaw
def test_missing_problem_data_is_named():
    from hydrokern import pyclaw

    stock, ours = changed("shallow_2d.radial_dam_break")
    claw = ours.setup(disable_output=True)
    del claw.solution.state.problem_data["grav"]
    with pytest.raises(hk.CaseError, match="lacks 'grav'"):
        claw.run()


def both(change_between=None, source=None, hook=None):
    """The acoustics pulse stepped by PyClaw and by hydrokern alike, with the same changes."""
    from hydrokern import pyclaw

    out = []
    for mod in (stock_pyclaw, pyclaw):
        s = mod.ClawSolver2D(riemann.acoustics_2D)
        for d in range(2):
            s.bc_lower[d] = s.bc_upper[d] = mod.BC.wall
        s.limiters = mod.limiters.tvd.MC
        s.step_source = source
        s.before_step = hook
        sol = acoustics_solution(mod, (24, 20))
        s.setup(sol)
        s.dt = 0.01
        for k, t in enumerate([0.1, 0.2, 0.3]):
            s.evolve_to_time(sol, t)
            if change_between and k == 0:
                change_between(sol)
        out.append((sol.q.copy(), sol.t, s.status["numsteps"]))
    return out


@needs_pyclaw
def test_a_state_changed_between_calls_is_stepped_on():
    def bump(sol):
        sol.state.q[0] += 0.25
        sol.state.q = sol.state.q  # a script may also assign a new array

    (a, ta, na), (b, tb, nb) = both(bump)
    assert ta == tb and na == nb
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-13)


@needs_pyclaw
def test_step_source_and_before_step_run_every_step_as_pyclaws_do():
    calls = {"source": 0}

    def damp(solver, state, dt):
        calls["source"] += 1
        state.q[1:] *= np.exp(-0.5 * dt)

    def nudge(solver, state):
        state.q[0, 0, 0] += 1e-3

    (a, _, na), (b, _, nb) = both(source=damp, hook=nudge)
    assert na == nb and calls["source"] >= 2 * na
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-13)


@needs_pyclaw
def test_max_steps_raises_as_pyclaw_does():
    from hydrokern import pyclaw

    s = solver_2d()
    s.max_steps = 3
    sol = acoustics_solution(pyclaw)
    s.setup(sol)
    s.dt = 0.01
    with pytest.raises(Exception, match="Maximum number of timesteps"):
        s.evolve_to_time(sol, 10.0)
    assert s.status["numsteps"] == 3


@needs_pyclaw
@pytest.mark.parametrize("precision,tol", [("f64", 1e-11), ("f32", 2e-5)])
def test_the_gpu_steps_pyclaw_examples_as_the_cpu_does(precision, tol):
    """The GPU backend against hydrokern's CPU (hence against PyClaw): the same scheme, with the
    kernels' fused multiply-adds; None of this runs without a GPU unless HYDROKERN_REQUIRE_GPU=1
    makes the refusal a failure."""
    stock, ours = changed("acoustics_2d_homogeneous.acoustics_2d")

    def on(backend):
        def tweak(claw):
            claw.solver.backend = backend
            claw.solver.precision = precision

        return tweak

    try:
        g = run(ours, on("gpu"))
    except hk.CaseError as e:
        assert os.environ.get("HYDROKERN_REQUIRE_GPU") != "1", f"HYDROKERN_REQUIRE_GPU=1 but: {e}"
        assert "\n" not in str(e) and "GPU" in str(e)
        return
    assert "GPU" in g.solver.describe()
    c = run(stock)
    assert g.solver.status["numsteps"] == c.solver.status["numsteps"]
    assert_frames_equal(c, g, tol)


@needs_pyclaw
def test_burgers_with_transonic_rarefactions_equals_stock_pyclaw():
    """PyClaw has no 2D Burgers example: a periodic field with sonic points along both axes,
    stepped by both with the same settings."""
    from hydrokern import pyclaw

    out = []
    for mod in (stock_pyclaw, pyclaw):
        s = mod.ClawSolver2D(riemann.burgers_2D)
        s.limiters = mod.limiters.tvd.MC
        for d in range(2):
            s.bc_lower[d] = s.bc_upper[d] = mod.BC.periodic
        domain = mod.Domain([mod.Dimension(0.0, 1.0, 48, name="x"), mod.Dimension(0.0, 1.0, 40, name="y")])
        state = mod.State(domain, 1)
        X, Y = state.grid.p_centers
        state.q[0] = np.sin(2 * np.pi * X) + 0.5 * np.cos(2 * np.pi * Y)
        sol = mod.Solution(state, domain)
        s.setup(sol)
        s.dt = 0.01
        s.evolve_to_time(sol, 0.3)
        out.append((sol.q.copy(), s.status["numsteps"]))
    (a, na), (b, nb) = out
    assert na == nb
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-13)
