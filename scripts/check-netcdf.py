#!/usr/bin/env python3
"""Prove hydrokern's NetCDF files with a real client (netCDF4-python, on Unidata's C library).

Runs small cases of every time-dependent solver with `--output` into a temporary folder,
writing NPY and NetCDF; opens each run's `<case>.nc` with netCDF4 and checks the CF metadata
(coordinates, units, attributes), and that every variable at every time equals the run's NPY
file of that field and time, bit for bit and in the run's precision. A case with gauges and
maximum maps (the flood) also writes `<case>_gauges.nc` (CF timeSeries) and `<case>_maxima.nc`:
every gauge's series must equal its `gauge_<name>.csv` and every map its NPY file, bit for bit.
A case with discharge lines (river-inflow) writes `<case>_lines.nc` (CF timeSeries with line
geometries): every line's discharge must equal its column of `lines.csv`, bit for bit. A case
with forcing (river-inflow, estuary-tide) keeps a water account: its terms in `<case>.nc` must
equal `account.csv`, the boundary segments' names those of the case, the residual round-off.
Any difference, missing variable, attribute or file is a failure (exit 1); nothing is skipped.

    check-netcdf.py HYDROKERN_BINARY
"""

import json
import pathlib
import subprocess
import re
import sys
import tempfile
import tomllib

import netCDF4
import numpy as np

# (scenario, overrides, the mesh's axes, time units): small and quick on the CPU. Between
# them: 2D and 3D, f32 and f64, seconds and years, centred and staggered (face) fields.
CASES = [
    ("dam-break", ["--nx", "24", "--ny", "16", "--t-end", "0.2", "--set", "output.snapshots=[0, 0.1]"], "f64", "s"),
    ("seiche", ["--set", "grid.nx=20", "--set", "grid.ny=10", "--set", "time.t_end=20",
                "--set", "output.snapshots=[10]"], "f32", "s"),
    ("sediment", ["--set", "grid.nx=16", "--set", "grid.ny=12", "--set", "time.t_end=200",
                  "--set", "output.snapshots=[100]"], "f64", "year"),
    ("acoustics-3d", ["--set", "grid.nx=8", "--set", "grid.ny=6", "--set", "grid.nz=5",
                      "--set", "time.t_end=0.002", "--set", "output.snapshots=[0.001]"], "f32", "s"),
    # Three gauges sampled every other step, and the maximum maps; a start date, so the times
    # decode to dates.
    ("flood", ["--nx", "32", "--ny", "32", "--t-end", "1", "--set", "output.snapshots=[0.5]",
               "--set", "output.gauge_every=2", "--set", 'run.start="2026-11-29T06:30:00Z"'], "f32",
     "seconds since 2026-11-29 06:30:00"),
    # Four gauges, two discharge lines and the maps, sampled every 10 steps, the river's inflow
    # under way: the lines carry water.
    ("river-inflow", ["--set", "grid.nx=40", "--set", "grid.ny=20", "--set", "time.t_end=1800",
                      "--set", "output.snapshots=[600]"], "f64", "s"),
    # A tide held at the estuary's mouth for 20 minutes: a boundary segment of the water
    # account, water coming in by it.
    ("estuary-tide", ["--set", "time.t_end=1200", "--set", "output.snapshots=[600]", "--set", "output.maxima=false"],
     "f64", "s"),
]

# The water account's terms in the fields' file, in account.csv's column order.
ACCOUNT = ["storage", "rain_volume", "inflow_volume", "infiltration_volume"]
# Each case's boundary segments (none: a closed domain).
SEGMENTS = {"river-inflow": [], "estuary-tide": ["mouth"]}

GLOBALS = ["Conventions", "title", "source", "history", "hydrokern_version", "hydrokern_revision", "solver",
           "simulation", "model", "precision", "case_origin", "case"]

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"  FAIL: {what}")
    return ok


def time_tag(t):
    """The run's file-name form of a time: Rust's shortest round-trip decimal ("0.1", "1", "200").
    Python's repr agrees for the times of CASES; it writes exponents (1e-07) where Rust does not."""
    r = repr(float(t))
    return r[:-2] if r.endswith(".0") else r


def run(binary, scenario, flags, precision, out):
    cmd = [binary, "--backend", "cpu", "--precision", precision, scenario, "--output", str(out),
           "--set", 'output.formats=["npy", "netcdf"]', *flags]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")


def check_case(binary, scenario, flags, precision, time_units, root):
    print(f"{scenario} ({precision}):")
    out = root / scenario
    run(binary, scenario, flags, precision, out)
    nc_name = f"{scenario}.nc"
    manifest = json.loads((out / "hydrokern-run.json").read_text())
    check(nc_name in manifest["files"], f"{scenario}: the manifest lists {nc_name}")
    ds = netCDF4.Dataset(out / nc_name)
    ds.set_auto_mask(False)
    check(ds.file_format == "NETCDF3_64BIT_OFFSET", f"{scenario}: format {ds.file_format}")
    for g in GLOBALS:
        check(g in ds.ncattrs() and str(ds.getncattr(g)).strip() != "", f"{scenario}: global attribute {g}")
    check(ds.Conventions == "CF-1.8", f"{scenario}: Conventions = {ds.Conventions}")
    check(ds.precision == precision, f"{scenario}: precision = {ds.precision}")
    check(ds.case == (out / "case.toml").read_text(), f"{scenario}: the case attribute is case.toml")
    check(ds.dimensions["time"].isunlimited(), f"{scenario}: time is the unlimited dimension")
    time = ds["time"]
    check(time.units == time_units and time.axis == "T" and time.standard_name == "time",
          f"{scenario}: time's attributes {time.__dict__}")
    times = time[:]
    check(len(times) >= 2, f"{scenario}: {len(times)} records")
    if " since " in time_units:
        end = netCDF4.num2date(times[-1], time.units, time.calendar)
        check(end.isoformat() == "2026-11-29T06:30:01", f"{scenario}: the last time decodes to {end}")

    # The case as run gives the mesh: coordinates are cell centres in metres from the origin.
    case = tomllib.loads((out / "case.toml").read_text())
    conf = case["grid"] if "grid" in case else raster_grid(case["initial"]["raster"]["bed"])
    for axis in "xyz":
        if f"n{axis}" not in conf:
            continue
        n = conf[f"n{axis}"]
        d = conf.get(f"d{axis}") or conf[f"l{axis}"] / n
        origin = conf.get("origin", [0.0, 0.0, 0.0])["xyz".index(axis)]
        c = ds[axis]
        check(c.units == "m", f"{scenario}: {axis} units {c.units}")
        want = origin + (np.arange(n) + 0.5) * d
        check(c.dtype == np.float64 and np.allclose(c[:], want, rtol=0, atol=1e-9 * max(1.0, abs(want).max())),
              f"{scenario}: {axis} = cell centres")
        if axis == "z":
            check(c.positive == "up" and c.axis == "Z", f"{scenario}: z's positive and axis")
        else:
            check(c.standard_name == f"projection_{axis}_coordinate", f"{scenario}: {axis} standard_name")

    dtype = np.float32 if precision == "f32" else np.float64
    # The surface (h + bed, where the solver has a bed) has no NPY file: checked against h and bed.
    # Fields are the record variables over the mesh (the water account's are over time alone or
    # time and the boundary segments).
    fields = [v for v in ds.variables
              if len(ds[v].dimensions) >= 3 and ds[v].dimensions[0] == "time" and v != "surface"]
    check(len(fields) >= 1, f"{scenario}: fields {fields}")
    if "surface" in ds.variables:
        bed = ds["bed"][:]
        check(bed.dtype == np.float64 and ds["bed"].dimensions == ("y", "x"), f"{scenario}: bed is double (y, x)")
        for r in range(len(times)):
            want = (ds["h"][r].astype(np.float64) + bed).astype(dtype)
            check(np.array_equal(ds["surface"][r], want), f"{scenario}: surface = h + bed at record {r}")
    for name in fields:
        v = ds[name]
        check(v.dtype == dtype, f"{scenario}: {name} is {v.dtype}, not {dtype}")
        for a in ["units", "long_name", "_FillValue"]:
            check(a in v.ncattrs(), f"{scenario}: {name}.{a}")
        for dim in v.dimensions[1:]:
            check(dim in ds.variables, f"{scenario}: {name}'s dimension {dim} has a coordinate variable")
        for r, t in enumerate(times):
            npy = out / f"{name}_t{time_tag(t)}.npy"
            if not check(npy.exists(), f"{scenario}: {npy.name} for record {r}"):
                continue
            want = np.load(npy)
            got = v[r]
            check(got.shape == want.shape and got.dtype == want.dtype
                  and np.array_equal(got.view(np.uint8), want.view(np.uint8)),
                  f"{scenario}: {name} at t = {t} equals {npy.name} bit for bit")
    # Every NPY snapshot of the run is in the file.
    # Snapshot files end in _t<time>.npy (a map such as max_h_time.npy does not).
    npys = sorted(p.name for p in out.glob("*_t*.npy")
                  if re.fullmatch(r".+_t[0-9][0-9.e+-]*\.npy", p.name) and not p.name.startswith("last_good"))
    want_npys = sorted(f"{n}_t{time_tag(t)}.npy" for n in fields for t in times)
    check(npys == want_npys, f"{scenario}: the NPY files are the file's records ({len(npys)} against {len(want_npys)})")
    print(f"  {len(times)} records of {', '.join(fields)} at t = {[float(t) for t in times]} {time_units}: "
          f"checked against the NPY files")
    gauges, maxima = ds.__dict__.get("gauges_file"), ds.__dict__.get("maxima_file")
    lines = ds.__dict__.get("lines_file")
    if scenario in SEGMENTS:
        check_account(scenario, out, ds, SEGMENTS[scenario])
    else:
        check("storage" not in ds.variables and not (out / "account.csv").exists(),
              f"{scenario}: no water account without forcing")
    ds.close()
    if scenario == "flood":
        check(gauges == "flood_gauges.nc" and maxima == "flood_maxima.nc",
              f"{scenario}: gauges_file {gauges}, maxima_file {maxima}")
    if scenario == "river-inflow":
        check(lines == "river-inflow_lines.nc", f"{scenario}: lines_file {lines}")
    if gauges:
        check_gauges(scenario, out, out / gauges, dtype, time_units)
    if lines:
        check_lines(scenario, out, out / lines, time_units)
    if maxima:
        check_maxima(scenario, out, out / maxima, dtype)


def raster_grid(bed):
    """The grid of a scenario's bed raster's cells (an Esri ASCII grid under examples/), where its
    case gives no [grid]: as a [grid] table."""
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / bed
    header = {}
    for line in path.read_text().splitlines()[:6]:
        key, value = line.split()
        header[key.lower()] = float(value)
    cell = header["cellsize"]
    return {"nx": int(header["ncols"]), "ny": int(header["nrows"]), "dx": cell, "dy": cell,
            "origin": [header["xllcorner"], header["yllcorner"]]}


def check_account(scenario, out, ds, segments):
    """The water account's terms in the fields' file against the run's account.csv: doubles in
    m3 at every record, the segments' names those of the case, every value bit for bit (the CSV
    holds the shortest decimals that read back the same), the residual round-off."""
    manifest = json.loads((out / "hydrokern-run.json").read_text())
    check("account.csv" in manifest["files"], f"{scenario}: the manifest lists account.csv")
    text = (out / "account.csv").read_text().splitlines()
    check(text[0].startswith("# water account"), f"account.csv's comment: {text[0]}")
    columns = ["t", "storage", "rain", "inflow", "infiltration"]
    for name in segments:
        columns += [f"{name}_out", f"{name}_in"]
    columns.append("residual")
    check(text[1] == ",".join(columns), f"account.csv's columns {text[1]}, not {columns}")
    rows = np.array([[float(x) for x in row.split(",")] for row in text[2:]], dtype=np.float64)
    times = ds["time"][:]
    if not check(rows.shape == (len(times), len(columns)), f"{scenario}: account.csv {rows.shape}, {len(times)} records"):
        return
    check(np.array_equal(times, rows[:, 0]), f"{scenario}: the account's times are the records'")
    for k, name in enumerate(ACCOUNT, start=1):
        v = ds[name]
        check(v.dtype == np.float64 and v.dimensions == ("time",) and v.units == "m3" and "long_name" in v.ncattrs(),
              f"{scenario}: {name} is {v.dtype} of {v.dimensions}")
        check(np.array_equal(v[:], rows[:, k]), f"{scenario}: {name} equals account.csv's")
    if segments:
        names = [str(n) for n in netCDF4.chartostring(ds["boundary_name"][:])]
        check(names == segments, f"{scenario}: boundary segments {names}, not {segments}")
        for part, name in enumerate(["outflow_volume", "boundary_inflow_volume"]):
            v = ds[name]
            check(v.dtype == np.float64 and v.dimensions == ("time", "boundary") and v.units == "m3"
                  and v.coordinates == "boundary_name", f"{scenario}: {name}'s type and attributes")
            check(np.array_equal(v[:], rows[:, 5 + part:5 + 2 * len(segments):2]),
                  f"{scenario}: {name} equals account.csv's columns")
        check((ds["boundary_inflow_volume"][:][-1] > 0).all(), f"{scenario}: water comes in by the boundary")
    else:
        check("boundary" not in ds.dimensions and "outflow_volume" not in ds.variables,
              f"{scenario}: no boundary segments in a closed domain")
    residual = ds["residual"][:]
    check(np.array_equal(residual, rows[:, -1]), f"{scenario}: residual equals account.csv's")
    seen = ds["storage"][0] + ds["rain_volume"][:] + ds["inflow_volume"][:]
    check((np.abs(residual) <= 1e-12 * seen).all(), f"{scenario}: residual {residual} is round-off")
    print(f"  {scenario}.nc: the water account ({len(segments)} boundary segment(s)) x {len(times)} records: "
          f"checked against account.csv")


def read_csv(path):
    """A gauge CSV: the comment line and the rows (t, h, hu, hv, eta) as float64."""
    lines = path.read_text().splitlines()
    rows = [[float(x) for x in line.split(",")] for line in lines[2:]]
    return lines[0], lines[1], np.array(rows, dtype=np.float64).reshape(-1, 5)


def open_time_series(scenario, out, path, feature, time_units):
    """A CF timeSeries file of the run in `out`, listed in its manifest, its header checked: the
    format and conventions, the global attributes, an unlimited time and a fixed `feature`
    dimension whose `<feature>_name` is the series' id, time's units and axis."""
    name = path.name
    manifest = json.loads((out / "hydrokern-run.json").read_text())
    check(name in manifest["files"], f"{scenario}: the manifest lists {name}")
    ds = netCDF4.Dataset(path)
    ds.set_auto_mask(False)
    check(ds.file_format == "NETCDF3_64BIT_OFFSET", f"{name}: format {ds.file_format}")
    check(ds.featureType == "timeSeries" and ds.Conventions == "CF-1.8", f"{name}: featureType and Conventions")
    for g in GLOBALS:
        check(g in ds.ncattrs(), f"{name}: global attribute {g}")
    check(ds.dimensions["time"].isunlimited() and not ds.dimensions[feature].isunlimited(),
          f"{name}: time unlimited, {feature} fixed")
    check(ds[f"{feature}_name"].cf_role == "timeseries_id", f"{name}: {feature}_name's cf_role")
    check(ds["time"].units == time_units and ds["time"].axis == "T", f"{name}: time's attributes")
    return name, manifest, ds


def check_gauges(scenario, out, path, dtype, time_units):
    """The gauges' file against the run's CSV files: CF timeSeries, every value bit for bit."""
    name, _, ds = open_time_series(scenario, out, path, "station", time_units)
    stations = [str(n) for n in netCDF4.chartostring(ds["station_name"][:])]
    csvs = sorted(p.name for p in out.glob("gauge_*.csv"))
    check(csvs == sorted(f"gauge_{s}.csv" for s in stations), f"{name}: stations {stations} against {csvs}")
    times = ds["time"][:]
    for k, station in enumerate(stations):
        comment, header, rows = read_csv(out / f"gauge_{station}.csv")
        check(header == "t,h,hu,hv,eta", f"{name}: gauge_{station}.csv columns {header}")
        check(f"x = {ds['x'][k]:g} m, y = {ds['y'][k]:g} m" in comment, f"{name}: {station}'s position against {comment}")
        check(len(rows) == len(times) and len(rows) > 2, f"{name}: {station}: {len(times)} samples, CSV {len(rows)}")
        if len(rows) != len(times):
            continue
        check(np.array_equal(times, rows[:, 0]), f"{name}: {station}'s times equal its CSV's")
        for c, var in enumerate(["h", "hu", "hv", "eta"], start=1):
            v = ds[var]
            check(v.dtype == dtype and v.dimensions == ("time", "station") and "units" in v.ncattrs(),
                  f"{name}: {var} is {v.dtype} of {v.dimensions}")
            # The CSV holds the shortest decimal of each value: it reads back as the same number.
            check(np.array_equal(v[:, k].astype(np.float64), rows[:, c]), f"{name}: {station}'s {var} equals its CSV's")
    print(f"  {name}: {len(stations)} gauges x {len(times)} samples: checked against {', '.join(csvs)}")
    ds.close()


def check_lines(scenario, out, path, time_units):
    """The lines' file against the run's lines.csv: CF timeSeries of line geometries, every
    discharge bit for bit (f64 whatever the run's precision), the lines' points as the case's."""
    name, manifest, ds = open_time_series(scenario, out, path, "line", time_units)
    check("lines.csv" in manifest["files"], f"{scenario}: the manifest lists lines.csv")
    q = ds["discharge"]
    check(q.dtype == np.float64 and q.dimensions == ("time", "line") and q.units == "m3 s-1"
          and q.geometry == "line_geometry" and "long_name" in q.ncattrs(), f"{name}: discharge's type and attributes")
    geometry = ds["line_geometry"]
    check(geometry.geometry_type == "line" and geometry.node_count == "node_count"
          and geometry.node_coordinates == "node_x node_y", f"{name}: the geometry container")
    names = [str(n) for n in netCDF4.chartostring(ds["line_name"][:])]
    conf = tomllib.loads((out / "case.toml").read_text())["output"]["lines"]
    check(names == [l["name"] for l in conf], f"{name}: lines {names} against the case's")
    counts = ds["node_count"][:]
    xs, ys = ds["node_x"][:], ds["node_y"][:]
    points = [[list(p) for p in zip(xs[a:a + n], ys[a:a + n])] for a, n in zip(np.cumsum(counts) - counts, counts)]
    check(points == [[[float(x) for x in p] for p in l["points"]] for l in conf], f"{name}: the lines' points")
    text = (out / "lines.csv").read_text().splitlines()
    check(text[0].startswith("# discharge") and "m³/s" in text[0], f"lines.csv's comment: {text[0]}")
    check(text[1] == ",".join(["t"] + names), f"lines.csv's columns {text[1]}")
    rows = np.array([[float(x) for x in row.split(",")] for row in text[2:]], dtype=np.float64)
    times = ds["time"][:]
    check(rows.shape == (len(times), 1 + len(names)) and len(times) > 2, f"{name}: {len(times)} samples, CSV {rows.shape}")
    if rows.shape == (len(times), 1 + len(names)):
        check(np.array_equal(times, rows[:, 0]), f"{name}: times equal lines.csv's")
        # The CSV holds the shortest decimal of each value: it reads back as the same number.
        check(np.array_equal(q[:], rows[:, 1:]), f"{name}: discharge equals lines.csv's")
        check((np.abs(rows[:, 1:]) > 0).any(), f"{name}: water crosses a line")
    print(f"  {name}: {len(names)} lines x {len(times)} samples: checked against lines.csv")
    ds.close()


def check_maxima(scenario, out, path, dtype):
    """The maxima's file against the run's NPY maps (max_h.npy, …, duration.npy), bit for bit."""
    name = path.name
    ds = netCDF4.Dataset(path)
    ds.set_auto_mask(False)
    check(ds.file_format == "NETCDF3_64BIT_OFFSET", f"{name}: format {ds.file_format}")
    check("time" not in ds.dimensions, f"{name}: maps have no time")
    with netCDF4.Dataset(out / f"{scenario}.nc") as fields:
        for axis in "xy":
            check(np.array_equal(ds[axis][:], fields[axis][:]), f"{name}: {axis} as in the fields' file")
    maps = ["max_h", "max_speed", "max_hazard", "max_h_time", "arrival", "duration"]
    for m in maps:
        want = np.load(out / f"{m}.npy")
        v = ds[m]
        got = v[:]
        check(v.dimensions == ("y", "x") and v.dtype == dtype, f"{name}: {m} is {v.dtype} of {v.dimensions}")
        check(got.shape == want.shape and got.dtype == want.dtype
              and np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"{name}: {m} equals {m}.npy bit for bit")
    arrived = np.isfinite(ds["arrival"][:])
    check(arrived.any() and not arrived.all(), f"{name}: water arrived in some cells and not in all")
    check((ds["arrival"][:][arrived] > 0).all(), f"{name}: no cell arrives at t = 0 (wet from the start is NaN)")
    print(f"  {name}: {', '.join(maps)} checked against their NPY files")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = str(pathlib.Path(sys.argv[1]).resolve())
    print(f"netCDF4 {netCDF4.__version__} (netCDF-C {netCDF4.__netcdf4libversion__})")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="hydrokern-netcdf-") as tmp:
        for scenario, flags, precision, units in CASES:
            before = len(failures)
            check_case(binary, scenario, flags, precision, units, pathlib.Path(tmp))
            failed += len(failures) > before
    print(f"netcdf: {len(CASES) - failed} passed, {failed} failed")
    if failed:
        sys.exit(1)


main()
