"""The Python examples users copy (examples/python), run as users run them: the ensemble script
and the notebook, executed cell by cell by a Jupyter kernel."""

import os
import pathlib
import subprocess
import sys

import nbformat
from nbclient import NotebookClient

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def test_the_ensemble_script_runs_and_compares_three_members():
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "ensemble.py"), "--backend", "cpu", "--t-end", "120"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sum("flooded deeper than 0.1 m" in line for line in lines) == 3, r.stdout
    assert sum("mean difference" in line for line in lines) == 3, r.stdout


def test_the_notebook_runs_every_cell(monkeypatch):
    monkeypatch.setenv("VALLEY_T_END", "120")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(EXAMPLES / "valley.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "RunResult" in text and "EPSG" in text
