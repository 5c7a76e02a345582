"""What stepping from Python costs against the command line: the flood scenario at N² to t = 4 s
with no snapshots, run by `hydrokern run` (which writes the final NPY files) and by a Python loop
that advances 100 steps at a time and reads the final state. Both final depths must be equal bit
for bit; the figures are each run's model time and wall time.

    python python/bench/loop_overhead.py PATH/TO/hydrokern [--n 2048] [--reps 2] [--backend gpu]
"""

import argparse
import pathlib
import subprocess
import tempfile
import time

import numpy as np

import hydrokern as hk

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("program", help="the hydrokern program (release build)")
parser.add_argument("--n", type=int, default=2048, help="cells per side")
parser.add_argument("--reps", type=int, default=2)
parser.add_argument("--every", type=int, default=100, help="steps per Python advance")
parser.add_argument("--backend", default="gpu")
args = parser.parse_args()

out = pathlib.Path(tempfile.mkdtemp()) / "cli"
for precision in ["f32", "f64"]:
    case = hk.Case.scenario("flood")
    case.update({"grid.nx": args.n, "grid.ny": args.n, "output.snapshots": [], "output.formats": ["npy"]})
    case.update({"output.maxima": False, "run.precision": precision, "run.backend": args.backend})
    case.update({"output.dir": str(out)})
    del case["output.gauges"]
    toml = out.parent / "case.toml"
    toml.write_text(case.to_toml())
    for rep in range(args.reps):
        t0 = time.perf_counter()
        r = subprocess.run([args.program, "run", str(toml), "--force", "--tuning", "off"], capture_output=True, text=True)
        cli = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        done = next(line for line in (r.stderr + r.stdout).splitlines() if line.startswith("done:"))
        t0 = time.perf_counter()
        sim = hk.Simulation(case)
        built = time.perf_counter() - t0
        while sim.time < sim.end:
            sim.advance(steps=args.every)
        h = sim.state()["h"]
        py = time.perf_counter() - t0
        same = np.array_equal(h, np.load(out / "h_t4.npy"))
        print(
            f"{precision} rep {rep}: command line {cli:.3f} s wall ({done}); Python {py:.3f} s wall "
            f"(model built in {built:.3f} s, steps and last state {py - built:.3f} s), {sim.step} steps; "
            f"equal to the command line's: {same}; {sim.describe()}",
            flush=True,
        )
        sim.close()
