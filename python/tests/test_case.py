"""Cases from Python: read, changed key by key with the command line's checks, written back, checked
and run as `hydrokern check` and `hydrokern run` do."""

import json
import pathlib

import numpy as np
import pytest

import hydrokern as hk

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_scenarios_and_solvers_are_listed(cli):
    listed = hk.scenarios()
    assert "flood" in listed and listed["flood"][0] == "kp"
    assert set(hk.solvers()) >= {"kp", "claw", "adi", "sediment", "tridiag", "fd3d"}
    shown = cli("scenarios").stdout
    for name in listed:
        assert name in shown


def test_keys_read_and_set_as_case_files_hold_them():
    case = hk.Case.scenario("dam-break")
    assert case["grid.nx"] == 256 and isinstance(case["grid.nx"], int)
    case["grid.nx"] = 64
    case["boundary.west"] = "outflow"
    assert case["grid.nx"] == 64 and case["boundary.west"] == "outflow"
    assert "grid.nx" in case and "grid.nope" not in case
    assert case.get("physics.nope", 3) == 3
    with pytest.raises(KeyError):
        case["physics.nope"]
    # NumPy scalars are numbers.
    case["grid.nx"] = np.int64(48)
    assert case["grid.nx"] == 48
    # Keys that only make sense together are set together.
    with pytest.raises(hk.CaseError, match="snapshot"):
        case["time.t_end"] = 0.5
    case.update({"time.t_end": 0.5, "output.snapshots": [0.25]})
    assert case["time.t_end"] == 0.5 and case["output.snapshots"] == [0.25]
    # A copy is independent.
    other = case.copy()
    other["grid.nx"] = 32
    assert case["grid.nx"] == 48


def test_a_refused_change_is_undone_and_says_why_in_one_line():
    case = hk.Case.scenario("dam-break")
    for key, value, words in [
        ("grid.nx", 0, "grid.nx"),
        ("grid.nx", "many", "grid.nx"),
        ("boundary.west", "sideways", "sideways"),
        ("grid.nope", 1, "nope"),
        ("time.cfl", float("nan"), "NaN"),
        ("grid.nx", object(), "type"),
    ]:
        with pytest.raises(hk.CaseError, match=words) as e:
            case[key] = value
        assert "\n" not in str(e.value)
        assert isinstance(e.value, ValueError)
    assert case["grid.nx"] == 256 and case["boundary.west"] == "wall"


def test_the_messages_are_the_command_line_s(cli):
    case = hk.Case.scenario("dam-break")
    with pytest.raises(hk.CaseError) as e:
        case["boundary.west"] = "sideways"
    r = cli("dam-break", "--set", "boundary.west=sideways", check=False)
    assert r.returncode != 0
    # The same reason; only the place named differs (case["..."] against --set).
    reason = str(e.value).split(": ", 1)[-1]
    assert reason in r.stderr, (str(e.value), r.stderr)


def test_check_prints_what_the_command_line_prints(cli, tmp_path):
    case = hk.Case.load(ROOT / "examples" / "seiche.toml")
    assert case.name == "seiche" and case.solver == "adi"
    r = cli("check", ROOT / "examples" / "seiche.toml")
    assert case.check() == r.stdout.rstrip("\n")


def test_to_toml_round_trips_with_the_changes(tmp_path):
    case = hk.Case.scenario("seiche")
    case["grid.nx"] = 40
    again = hk.Case.from_toml(case.to_toml(), name="again")
    assert again["grid.nx"] == 40 and again.solver == "adi" and again.name == "again"
    # Comments are kept.
    assert "#" in case.to_toml()


def test_bad_files_and_names(tmp_path):
    with pytest.raises(OSError):
        hk.Case.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('solver = "kp"\n[grid\n')
    with pytest.raises(hk.CaseError, match="bad.toml"):
        hk.Case.load(bad)
    with pytest.raises(hk.CaseError, match="unknown scenario 'nope'"):
        hk.Case.scenario("nope")
    with pytest.raises(hk.CaseError, match="name"):
        hk.Case.from_toml('solver = "kp"', name="a/b")


def test_run_writes_what_the_command_line_writes(cli, tmp_path):
    case = hk.Case.scenario("dam-break")
    case["grid.nx"] = 32
    case["run.backend"] = "cpu"
    result = case.run(output=tmp_path / "py")
    assert result.steps > 0 and result.time == 1.0
    path = tmp_path / "case.toml"
    path.write_text(case.to_toml())
    cli("run", path, "--output", tmp_path / "cli")
    py_files = sorted(p.name for p in (tmp_path / "py").iterdir())
    cli_files = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert py_files == cli_files
    for name in py_files:
        if name.endswith(".npy"):
            assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    manifest = json.loads((tmp_path / "py" / "hydrokern-run.json").read_text())
    assert manifest["status"] == "finished"
    # A second run into a directory of foreign files needs force.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "mine.txt").write_text("keep")
    with pytest.raises(hk.CaseError):
        case.run(output=tmp_path / "other")
    case.run(output=tmp_path / "other", force=True)
    assert (tmp_path / "other" / "mine.txt").read_text() == "keep"


def read_asc(path):
    """An Esri ASCII grid as (values with row 0 south, x centres, y centres)."""
    header = {}
    with open(path) as f:
        for _ in range(6):
            k, v = f.readline().split()
            header[k.lower()] = float(v)
        values = np.loadtxt(f)
    n, m, c = int(header["ncols"]), int(header["nrows"]), header["cellsize"]
    x = header["xllcorner"] + c * (np.arange(n) + 0.5)
    y = header["yllcorner"] + c * (np.arange(m) + 0.5)
    return values[::-1], x, y


def final_state(case, steps=20):
    sim = hk.Simulation(case)
    sim.advance(steps=steps)
    return sim.state()


def test_fields_from_arrays_equal_the_same_fields_from_files():
    import xarray as xr
    data = ROOT / "examples" / "data"
    base = hk.Case.scenario("valley")
    base["run.backend"] = "cpu"
    want = final_state(base)
    surface, x, y = read_asc(data / "valley-reservoir.asc")
    manning, _, _ = read_asc(data / "valley-manning.asc")
    # With coordinates (here as a DataArray, y decreasing as a raster holds it), and on the
    # case's grid without them.
    case = base.copy()
    case.set_field("initial.raster.surface", xr.DataArray(surface[::-1], coords={"y": y[::-1], "x": x}, dims=("y", "x")))
    case.set_field("initial.raster.manning", manning)
    assert case["initial.raster.manning"].endswith(".asc")
    got = final_state(case)
    for name in want:
        assert np.array_equal(got[name], want[name]), name
    # A copy keeps the files.
    again = case.copy()
    del case
    assert final_state(again)["h"].shape == want["h"].shape


def test_write_gives_a_case_that_runs_where_it_is_written(cli, tmp_path):
    # A scenario's data files go beside the case, and the fields set from arrays too, so the
    # written case runs from its own directory as the case in memory does.
    data = ROOT / "examples" / "data"
    case = hk.Case.scenario("valley")
    case.update({"output.snapshots": [], "time.t_end": 20.0, "run.backend": "cpu"})
    manning, _, _ = read_asc(data / "valley-manning.asc")
    case.set_field("initial.raster.manning", manning)
    before = case.to_toml()
    written = case.write(tmp_path / "cases" / "mine.toml")
    assert case.to_toml() == before, "write changed the case"
    names = sorted(pathlib.Path(p).relative_to(tmp_path).as_posix() for p in written)
    assert names == [
        "cases/data/valley-reservoir.asc",
        "cases/data/valley.tif",
        "cases/mine-initial-raster-manning.asc",
        "cases/mine.toml",
    ], names
    assert written[0] == str(tmp_path / "cases" / "mine.toml")
    assert (tmp_path / "cases" / "data" / "valley.tif").read_bytes() == (data / "valley.tif").read_bytes()
    text = (tmp_path / "cases" / "mine.toml").read_text()
    assert text.startswith("# Written by hydrokern's Case.scenario(\"valley\").write()")
    again = hk.Case.load(tmp_path / "cases" / "mine.toml")
    assert again["initial.raster.manning"] == "mine-initial-raster-manning.asc"
    assert again["output.dir"] == "out/mine"
    sim = hk.Simulation(again)
    sim.advance(steps=5)
    want = hk.Simulation(case)
    want.advance(steps=5)
    for name, field in want.state().items():
        assert np.array_equal(sim.state()[name], field), name
    cli("run", tmp_path / "cases" / "mine.toml")
    # An existing case is replaced only with force; a data file that differs is never replaced,
    # and a refused write leaves nothing behind.
    with pytest.raises(hk.CaseError, match="the file exists; pass force=True"):
        case.write(tmp_path / "cases" / "mine.toml")
    case.write(tmp_path / "cases" / "mine.toml", force=True)
    (tmp_path / "other" / "data").mkdir(parents=True)
    (tmp_path / "other" / "data" / "valley.tif").write_bytes(b"mine")
    with pytest.raises(hk.CaseError, match="valley.tif differs from the scenario's data/valley.tif"):
        case.write(tmp_path / "other" / "mine.toml")
    assert sorted(p.name for p in (tmp_path / "other").rglob("*")) == ["data", "valley.tif"]


def test_a_case_file_written_elsewhere_reads_its_source_s_files(tmp_path):
    source = hk.Case.scenario("river-inflow")
    source.write(tmp_path / "a" / "river.toml")
    (tmp_path / "b").mkdir()
    loaded = hk.Case.load(tmp_path / "a" / "river.toml")
    loaded.write(tmp_path / "b" / "river.toml")
    again = hk.Case.load(tmp_path / "b" / "river.toml")
    assert 'series = "../a/data/river-hydrograph.csv"' in again.to_toml()
    assert not (tmp_path / "b" / "data").exists()
    again.check()


def test_sediment_fields_from_arrays():
    case = hk.Case.scenario("sediment")
    case.update({"grid.nx": 16, "grid.ny": 8, "run.backend": "cpu"})
    sim = hk.Simulation(case)
    h0 = sim.state()["h"]
    other = case.copy()
    other.set_field("initial.h", h0 + 1.0)
    assert np.array_equal(hk.Simulation(other).state()["h"], h0 + 1.0)


def test_bad_fields_are_refused_in_one_line():
    case = hk.Case.scenario("valley")
    for kw, data, words in [
        ({}, np.zeros((3, 4)), "shape"),
        ({"x": np.arange(4.0)}, np.zeros((3, 4)), "both x and y"),
        ({"x": np.array([0.0, 1.0, 3.0, 4.0]), "y": np.arange(3.0)}, np.zeros((3, 4)), "evenly spaced"),
        ({}, np.zeros((2, 3, 4)), "2D"),
    ]:
        with pytest.raises(hk.CaseError, match=words) as e:
            case.set_field("initial.raster.manning", data, **kw)
        assert "\n" not in str(e.value)
    # A raster that does not cover the domain: the solver's own message, the case unchanged.
    with pytest.raises(hk.CaseError, match="initial.raster.manning"):
        case.set_field("initial.raster.manning", np.full((4, 4), 0.03), x=np.arange(4.0), y=np.arange(4.0))
    assert case["initial.raster.manning"] == "data/valley-manning.asc"


def test_a_run_restarts_from_its_checkpoint(tmp_path):
    case = hk.Case.scenario("dam-break")
    case.update({"grid.nx": 32, "run.backend": "cpu", "output.checkpoint_every": 0.5})
    whole = case.run(output=tmp_path / "whole")
    checkpoint = tmp_path / "whole" / "checkpoint.hkc"
    assert checkpoint.is_file()
    # Continue from the last checkpoint to t = 1.5, with the same snapshot times (the steps
    # depend on where a run stops) as a run straight to 1.5.
    later = case.copy()
    later["time.t_end"] = 1.5
    cont = later.run(output=tmp_path / "cont", restart=checkpoint)
    assert cont.time == 1.5 and cont.steps > whole.steps
    straight = case.copy()
    straight["time.t_end"] = 1.5
    straight.run(output=tmp_path / "straight")
    a = np.load(tmp_path / "cont" / "h_t1.5.npy")
    b = np.load(tmp_path / "straight" / "h_t1.5.npy")
    assert np.array_equal(a, b)


def test_a_simulation_goes_on_from_a_run_s_checkpoint_file(tmp_path):
    case = hk.Case.scenario("dam-break")
    case.update({"grid.nx": 32, "run.backend": "cpu", "output.checkpoint_every": 0.4})
    case.run(output=tmp_path / "run")
    sim = hk.Simulation(case)
    sim.restore(tmp_path / "run" / "checkpoint.hkc")
    assert sim.time > 0 and sim.step > 0
    list(sim.evolve())
    assert np.array_equal(sim.state()["h"], np.load(tmp_path / "run" / "h_t1.npy"))
    with pytest.raises(hk.CaseError, match="f32"):
        hk.Simulation(case, precision="f32").restore(tmp_path / "run" / "checkpoint.hkc")
    with pytest.raises(OSError):
        sim.restore(tmp_path / "missing.hkc")
