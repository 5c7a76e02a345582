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
