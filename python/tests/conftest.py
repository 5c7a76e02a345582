"""What the tests share: the command-line program built from the same sources, to compare runs
with, and a scratch directory per test."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _program() -> pathlib.Path:
    given = os.environ.get("HYDROKERN_BIN")
    if given:
        return pathlib.Path(given)
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return pathlib.Path(json.loads(meta.stdout)["target_directory"]) / "debug" / "hydrokern"


@pytest.fixture(scope="session")
def program() -> pathlib.Path:
    """The `hydrokern` program (HYDROKERN_BIN, else the workspace's debug build)."""
    p = _program()
    if not p.is_file():
        pytest.fail(f"{p}: build the command line first (cargo build -p host) or set HYDROKERN_BIN")
    return p


@pytest.fixture
def cli(program, tmp_path):
    """Run the command line with the given arguments in the test's directory; its result."""

    def run(*args, check=True):
        r = subprocess.run([str(program), *map(str, args)], cwd=tmp_path, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"hydrokern {' '.join(map(str, args))} failed:\n{r.stderr}")
        return r

    return run
