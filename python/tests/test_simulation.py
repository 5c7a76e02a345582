"""Simulations stepped from Python against the command line's runs of the same cases (bit for bit
on the CPU), the state as NumPy and xarray, checkpoints, Ctrl-C, blow-ups and misuse."""

import math
import os
import pathlib
import signal
import threading

import numpy as np
import pytest

import hydrokern as hk
from devices import dlpack_reader, gpu_or_refusal

# A small case of every solver that steps in time: (scenario, changes).
SMALL = {
    "sediment": ("sediment", {"grid.nx": 32, "grid.ny": 16}),
    "kp": ("dam-break", {"grid.nx": 32}),
    "claw": ("swe-radial", {"grid.nx": 40, "grid.ny": 40}),
    "adi": ("seiche", {"grid.nx": 40}),
}


def small(solver, precision=None):
    name, changes = SMALL[solver]
    case = hk.Case.scenario(name)
    for k, v in changes.items():
        case[k] = v
    case["run.backend"] = "cpu"
    if precision:
        case["run.precision"] = precision
    return case


def last_files(directory: pathlib.Path):
    """The fields of a run's last snapshot: name -> array."""
    last = {}
    for f in directory.glob("*_t*.npy"):
        if f.name.startswith("last_good"):
            continue
        name, t = f.stem.rsplit("_t", 1)
        try:
            t = float(t)
        except ValueError:
            continue  # a product such as max_h_time
        if name not in last or t > last[name][0]:
            last[name] = (t, np.load(f))
    return {k: v for k, (_, v) in last.items()}


def test_every_stepping_solver_is_covered():
    stepping = {hk.Case.scenario(n).solver for n in hk.scenarios()} - {"tridiag", "fd3d"}
    assert stepping == set(SMALL)


@pytest.mark.parametrize("solver", sorted(SMALL))
def test_python_run_equals_the_command_line_bit_for_bit(solver, cli, tmp_path):
    case = small(solver)
    path = tmp_path / "case.toml"
    path.write_text(case.to_toml())
    cli("run", path, "--output", tmp_path / "cli")
    files = last_files(tmp_path / "cli")
    assert files, "the command line wrote no fields"

    sim = hk.Simulation(case)
    stops = list(sim.evolve())
    assert stops[-1] == sim.end or math.isinf(sim.end)
    state = sim.state()
    assert set(files) <= set(state)
    for name, want in files.items():
        got = state[name]
        assert got.dtype == want.dtype and got.shape == want.shape, name
        assert np.array_equal(got, want, equal_nan=True), f"{solver}: {name} differs from the command line's"


@pytest.mark.parametrize("precision,dtype", [("f32", np.float32), ("f64", np.float64)])
def test_state_arrays_have_the_run_precision_and_the_grid_shape(precision, dtype):
    sim = hk.Simulation(small("kp"), precision=precision)
    assert sim.precision == precision
    state = sim.state()
    coords = sim.coords()
    assert list(coords) == ["y", "x"]
    for a in state.values():
        assert a.dtype == dtype and a.shape == (coords["y"].size, coords["x"].size)
    # Copies: changing one changes nothing in the model.
    state["h"][:] = -1.0
    assert (sim.state()["h"] >= 0).all()


def test_to_xarray_matches_the_state_and_carries_units_and_coordinates():
    import xarray as xr
    sim = hk.Simulation(small("kp"))
    sim.advance(until=0.25)
    ds = sim.to_xarray()
    assert isinstance(ds, xr.Dataset)
    state = sim.state()
    for name, a in state.items():
        assert np.array_equal(ds[name].values, a)
        assert ds[name].dims == ("y", "x") and ds[name].attrs["units"]
    np.testing.assert_array_equal(ds["x"].values, sim.coords()["x"])
    assert ds["x"].attrs["units"] == "m"
    np.testing.assert_array_equal(ds["surface"].values, state["h"] + ds["bed"].values)
    assert ds.attrs["time"] == pytest.approx(0.25) and ds.attrs["step"] == sim.step > 0


def test_evolve_every_stops_at_each_multiple_and_at_the_end():
    sim = hk.Simulation(small("kp"))
    stops = list(sim.evolve(every=0.3))
    assert stops == pytest.approx([0.3, 0.6, 0.9, 1.0])
    assert sim.time == sim.end


def test_a_checkpoint_restored_repeats_the_same_steps():
    sim = hk.Simulation(small("kp"))
    sim.advance(until=0.3)
    cp = sim.checkpoint()
    sim.advance()
    first = sim.state()
    sim.restore(cp)
    assert sim.time == cp.time and sim.step == cp.step
    sim.advance()
    for name, a in sim.state().items():
        assert np.array_equal(a, first[name]), name


def test_ctrl_c_raises_between_steps_and_the_run_goes_on_to_the_same_bits():
    case = small("kp")
    case["grid.nx"] = 128
    whole = hk.Simulation(case)
    whole.advance()
    want = whole.state()

    sim = hk.Simulation(case)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.advance()
    finally:
        timer.cancel()
    assert 0 < sim.time < sim.end, "the interrupt came after the run ended: make the case longer"
    sim.advance()
    for name, a in sim.state().items():
        assert np.array_equal(a, want[name]), name


def test_a_blow_up_names_the_step_and_the_cell_and_stays_refused():
    case = small("sediment", precision="f32")
    case["grid.nx"] = 16
    # An inflow no f32 can hold overflows the river mouth within a few steps.
    case["boundary.west.inflow"] = 1e36
    sim = hk.Simulation(case)
    with pytest.raises(hk.SimulationError, match=r"blew up|not valid") as e:
        sim.advance()
        sim.state()
    assert "step" in str(e.value)
    with pytest.raises(hk.SimulationError):
        sim.advance()


def test_misuse_is_an_exception_with_one_line():
    sim = hk.Simulation(small("kp"))
    with pytest.raises(hk.CaseError, match="until: NaN"):
        sim.advance(until=float("nan"))
    with pytest.raises(hk.CaseError, match="every"):
        list(sim.evolve(every=-1.0))
    with pytest.raises(hk.CaseError, match="steps"):
        sim.advance(steps=-1)
    with pytest.raises(KeyError, match="the fields are"):
        sim.field("nope")
    sim.close()
    for use in (sim.advance, sim.state, sim.checkpoint, lambda: sim.time):
        with pytest.raises(hk.CaseError, match="closed"):
            use()
    with pytest.raises(TypeError):
        hk.Simulation("dam-break")


def test_a_solver_that_computes_once_is_run_not_stepped(tmp_path):
    case = hk.Case.scenario("tridiag")
    with pytest.raises(hk.CaseError, match="computes once"):
        hk.Simulation(case)


def test_advance_by_steps():
    sim = hk.Simulation(small("kp"))
    sim.advance(steps=5)
    assert sim.step == 5 and sim.dt > 0
    sim.advance(steps=3)
    assert sim.step == 8


def on_gpu(case):
    """The case's simulation on the GPU; None on a machine without one."""
    return gpu_or_refusal(lambda: hk.Simulation(case, backend="gpu"))


def test_the_gpu_backend_matches_the_cpu_or_is_refused_in_one_line():
    case = small("kp")
    gpu = on_gpu(case)
    if gpu is None:
        return
    assert "GPU" in gpu.describe()
    cpu = hk.Simulation(case)
    for t in gpu.evolve():
        assert cpu.advance(until=t) == t
        g, c = gpu.state(), cpu.state()
        for name in c:
            # The same scheme; the kernels' fused multiply-adds round differently.
            np.testing.assert_allclose(g[name], c[name], rtol=0, atol=1e-9, err_msg=f"{name} at t = {t}")


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_gpu_state_reaches_dlpack_consumers_without_a_copy(precision):
    case = small("kp", precision=precision)
    sim = on_gpu(case)
    if sim is None:
        cpu = hk.Simulation(case)
        with pytest.raises(hk.CaseError, match="no device arrays"):
            cpu.device_fields()
        return
    r = dlpack_reader()
    from_dlpack, to_numpy = r.from_dlpack, r.to_numpy
    sim.advance(until=0.25)
    fields = sim.device_fields()
    assert sorted(fields) == ["hu", "hv", "w"]
    assert fields["w"].__dlpack_device__()[0] == 2
    state, bed = sim.state(), sim.bed()
    w = from_dlpack(fields["w"])
    got = {name: to_numpy(from_dlpack(fields[name])) for name in ("hu", "hv")}
    assert tuple(w.shape) == state["hu"].shape
    for name in ("hu", "hv"):
        assert got[name].dtype == state[name].dtype
        np.testing.assert_array_equal(got[name], state[name])
    scale = float(np.abs(bed).max() + state["h"].max())
    np.testing.assert_allclose(to_numpy(w).astype(np.float64) - bed, state["h"], rtol=0, atol=4 * scale * np.finfo(state["h"].dtype).eps)
    # Stale after a step; the simulation is not closed under a live array.
    sim.advance(until=0.5)
    with pytest.raises(hk.CaseError, match="take it again"):
        from_dlpack(fields["w"])
    with pytest.raises(hk.CaseError, match="still read"):
        sim.close()
    del w, got
    import gc

    gc.collect()
    sim.close()


def test_claw_gpu_planes_reach_dlpack_consumers():
    sim = on_gpu(small("claw"))
    if sim is None:
        return
    r = dlpack_reader()
    from_dlpack, to_numpy = r.from_dlpack, r.to_numpy
    sim.advance(until=0.5)
    state = sim.state()
    fields = sim.device_fields()
    assert sorted(fields) == sorted(state)
    for name, a in fields.items():
        got = to_numpy(from_dlpack(a))
        assert got.dtype == state[name].dtype and got.shape == state[name].shape
        np.testing.assert_array_equal(got, state[name])
    del got
    import gc

    gc.collect()
    sim.close()


def stepped_on_gpu(case, steps):
    """(the simulation, CuPy or PyTorch, its state, its device arrays, those read as NumPy)
    after `steps` steps of `case` on the GPU; None on a machine without one."""
    sim = on_gpu(case)
    if sim is None:
        return None
    r = dlpack_reader()
    sim.advance(steps=steps)
    fields = sim.device_fields()
    return sim, r, sim.state(), fields, {name: r.to_numpy(r.from_dlpack(a)) for name, a in fields.items()}


@pytest.mark.parametrize(
    "scenario,changes", [("seiche", {"grid.nx": 40}), ("wetland-storm", {})], ids=["seiche", "soil"]
)
def test_adi_gpu_fields_reach_dlpack_consumers(scenario, changes):
    case = hk.Case.scenario(scenario)
    for k, v in changes.items():
        case[k] = v
    run = stepped_on_gpu(case, 7)
    if run is None:
        return
    sim, r, state, fields, got = run
    # h and the centred fluxes are the host's arithmetic; the soil's totals come with a soil.
    want = ["p", "q", "zeta"] + (["infiltration"] if "infiltration" in state else [])
    assert sorted(fields) == sorted(want)
    for name in want:
        assert got[name].dtype == state[name].dtype and got[name].shape == state[name].shape, name
        np.testing.assert_array_equal(got[name], state[name], err_msg=name)
    # Stale after a step; the new arrays show the new state.
    sim.advance(steps=1)
    with pytest.raises(hk.CaseError, match="take it again"):
        r.from_dlpack(fields["zeta"])
    np.testing.assert_array_equal(r.to_numpy(r.from_dlpack(sim.device_fields()["zeta"])), sim.state()["zeta"])
    del got
    import gc

    gc.collect()
    sim.close()


@pytest.mark.parametrize("precision", ["f32", "f64", "mixed"])
@pytest.mark.parametrize("accumulation", ["compensated", "plain"])
def test_sediment_gpu_fields_reach_dlpack_consumers(precision, accumulation):
    case = small("sediment", precision=precision)
    case["numerics.accumulation"] = accumulation
    run = stepped_on_gpu(case, 5)
    if run is None:
        return
    sim, r, state, fields, got = run
    # Each is the interior of a padded field: a strided view of the model's memory.
    assert all(a.shape == list(state["s"].shape) for a in fields.values())
    if precision == "f32" and accumulation == "compensated":
        # h as its two parts: their sum rounded once is the state's h.
        assert sorted(fields) == ["h", "h_low", "s"]
        h = got["h"] + got["h_low"]
    else:
        assert sorted(fields) == ["h", "s"]
        h = got["h"]
    # Mixed precision holds s in f32, which the state widens (exactly).
    s_dtype = np.float32 if precision != "f64" else np.float64
    assert got["s"].dtype == s_dtype and fields["s"].dtype == np.dtype(s_dtype).name
    assert h.dtype == state["h"].dtype
    np.testing.assert_array_equal(h, state["h"])
    np.testing.assert_array_equal(got["s"].astype(state["s"].dtype), state["s"])
    sim.advance(steps=1)
    with pytest.raises(hk.CaseError, match="take it again"):
        r.from_dlpack(fields["s"])
    del got, h
    import gc

    gc.collect()
    sim.close()


def test_device_fields_on_the_cpu_are_refused_for_every_solver():
    for solver in SMALL:
        with pytest.raises(hk.CaseError, match="no device arrays") as e:
            hk.Simulation(small(solver)).device_fields()
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("solver", sorted(SMALL))
def test_a_checkpoint_file_written_from_python_restarts_runs_as_the_command_line_s(solver, tmp_path):
    """A checkpoint file written at a snapshot time: the run restarted from it (as `--restart`)
    and a new simulation restored from it end where the straight run ends, bit for bit."""
    case = small(solver)
    end = hk.Simulation(case).end
    case["output.snapshots"] = [end / 2]
    sim = hk.Simulation(case)
    sim.advance(until=end / 2)
    path = tmp_path / "python.hkc"
    cp = sim.checkpoint(path)
    assert path.is_file() and cp.time == end / 2
    straight = case.run(output=tmp_path / "straight")
    cont = case.run(output=tmp_path / "cont", restart=path)
    assert (cont.time, cont.steps) == (straight.time, straight.steps)
    want = last_files(tmp_path / "straight")
    got = last_files(tmp_path / "cont")
    assert want.keys() == got.keys() and want
    for name in want:
        assert np.array_equal(got[name], want[name]), name
    again = hk.Simulation(case)
    again.restore(path)
    assert again.time == end / 2
    again.advance()
    state = again.state()
    for name in set(state) & set(want):
        assert np.array_equal(state[name], want[name]), name


def test_a_checkpoint_file_to_a_missing_folder_is_an_os_error(tmp_path):
    sim = hk.Simulation(small("kp"))
    with pytest.raises(OSError):
        sim.checkpoint(tmp_path / "no-such-folder" / "x.hkc")
    assert not (tmp_path / "no-such-folder").exists()


def test_set_changes_an_input_field_before_the_first_step():
    """The valley's bed raised by 1 m through sim.set: the bed and the depths are those of the
    case whose bed raster was raised, and the case given to the simulation is not changed."""
    case = hk.Case.scenario("valley")
    case.update({"grid.nx": 48, "grid.ny": 40, "run.backend": "cpu"})
    bed = hk.Simulation(case).bed()
    raised = case.copy()
    raised.set_field("initial.raster.bed", bed + 1.0)
    sim = hk.Simulation(case)
    sim.set("bed", bed + 1.0)
    want = hk.Simulation(raised)
    # The bed is resampled from the raster as the case's own, so compare with that case's.
    np.testing.assert_array_equal(sim.bed(), want.bed())
    assert abs(np.mean(sim.bed() - bed) - 1.0) < 0.1
    assert case["initial.raster.bed"] == hk.Case.scenario("valley")["initial.raster.bed"]
    for s in (sim, want):
        s.advance(steps=20)
    for name, a in want.state().items():
        assert np.array_equal(sim.state()[name], a), name


def test_set_is_refused_in_one_line_once_stepped_or_for_an_unknown_name():
    sim = hk.Simulation(small("kp"))
    with pytest.raises(hk.CaseError, match="not a field of kp"):
        sim.set("porosity", np.zeros((1, 32)))
    sim.advance(steps=1)
    with pytest.raises(hk.CaseError, match="has stepped") as e:
        sim.set("bed", np.zeros((1, 32)))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("solver", sorted(SMALL))
def test_diagnostics_are_the_command_line_s_totals(solver):
    sim = hk.Simulation(small(solver))
    sim.advance(steps=3)
    d = sim.diagnostics()
    assert d["progress"] and "\n" not in d["progress"]
    assert d["account"] is None
    ds = sim.to_xarray()
    assert ds.attrs["progress"] == d["progress"]
    assert ds.attrs.get("conservation") == d["conservation"]


def test_a_water_account_reaches_the_dataset_as_numbers():
    case = hk.Case.scenario("valley-rain")
    case.update({"grid.nx": 40, "grid.ny": 32, "run.backend": "cpu"})
    sim = hk.Simulation(case)
    sim.advance(steps=5)
    a = sim.diagnostics()["account"]
    assert a["rain"] > 0 and a["infiltration"] > 0
    # storage change = rain + inflow − infiltration + in − out + residual, as the account says.
    change = a["rain"] + a["inflow"] - a["infiltration"] + a["boundary_in"] - a["boundary_out"] + a["residual"]
    assert a["volume"] - a["volume_start"] == pytest.approx(change, rel=1e-12, abs=1e-9)
    assert abs(a["residual"]) < 1e-9 * a["rain"]
    ds = sim.to_xarray()
    assert ds.attrs["account_volume"] == a["volume"] and ds.attrs["account_rain"] == a["rain"]


def test_fields_on_faces_get_face_coordinates_in_xarray():
    sim = hk.Simulation(small("adi"))
    sim.advance(steps=2)
    ds, state = sim.to_xarray(), sim.state()
    assert ds["p"].dims == ("y", "x_face") and ds["q"].dims == ("y_face", "x")
    np.testing.assert_array_equal(ds["p"].values, state["p"])
    x, xf = ds["x"].values, ds["x_face"].values
    assert len(xf) == len(x) + 1
    np.testing.assert_allclose((xf[:-1] + xf[1:]) / 2, x)
