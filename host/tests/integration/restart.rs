//! Checkpoint and restart through the runner, as the command line drives them: a run restarted
//! from its last checkpoint ends bit for bit where the uninterrupted run ended (the same final
//! NPY bytes, the same step count), for every time-dependent solver, across a snapshot time;
//! a restart into the interrupted run's own directory continues it; and every checkpoint that
//! does not belong to the run is refused with one line before the output directory is touched.
//!
//! The uninterrupted run writes a checkpoint at every multiple of `every`; the file keeps the
//! last, which the restarted run (in a directory of its own) continues from, across the
//! snapshot placed between that checkpoint and the end. The flood (kp), swe-radial (claw) and
//! tidal-basin (ADI) keep gauges and maximum maps, and river-inflow (kp) discharge lines too,
//! which the checkpoint holds: their CSV, NPY and NetCDF files come out bit for bit too; so does
//! a forced kp run's water account (`account.csv`, and its terms in the NetCDF fields' file).

use hydrokern::output::netcdf::{Dataset, Values};
use hydrokern::run::checkpoint::CHECKPOINT_FILE;
use hydrokern::run::{MANIFEST, Manifest, Outcome, RunOptions};
use hydrokern::{registry, scenarios};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml_edit::Value;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hydrokern-restart-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A small run of scenario `name`: NPY output only unless `set` says otherwise, the keys `set`,
/// into `out`.
fn run(name: &str, set: &[(&str, Value)], out: &Path, restart: Option<PathBuf>) -> hydrokern::Result<Outcome> {
    let mut doc = scenarios::find(name).unwrap_or_else(|| panic!("no scenario {name}")).doc()?;
    doc.set("output.formats", formats(&["npy"]), "test")?;
    for (key, value) in set {
        doc.set(key, value.clone(), key)?;
    }
    doc.set("output.dir", out.to_string_lossy().as_ref().into(), "--output")?;
    registry::load(&doc)?.run(&RunOptions { restart, ..RunOptions::default() })
}

fn floats(v: &[f64]) -> Value {
    Value::Array(v.iter().copied().collect())
}

fn formats(v: &[&str]) -> Value {
    Value::Array(v.iter().copied().collect())
}

fn manifest(dir: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(dir.join(MANIFEST)).unwrap()).unwrap()
}

/// The files of `dir` whose names end in `ext`, sorted.
fn files_ending(dir: &Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(ext))
        .collect();
    v.sort();
    v
}

fn npy_files(dir: &Path) -> Vec<String> {
    files_ending(dir, ".npy")
}

/// Every variable of a NetCDF file as our reader reads it: (the record's time or NaN for a
/// fixed-size variable, the values' bits), by name; char variables as their rows. Int variables
/// (the lines' point counts and geometry container), which our reader leaves to others, are left
/// out: [`netcdf3_variables`] reads those.
fn nc_variables(path: &Path) -> BTreeMap<String, Vec<(u64, Vec<u64>)>> {
    let mut nc = Dataset::open(path).unwrap_or_else(|e| panic!("{e}"));
    let h = nc.header().clone();
    let bits = |v: Values| v.to_f64().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut out = BTreeMap::new();
    let times: Vec<u64> = match h.vars.iter().any(|v| v.name == "time" && h.is_record(v)) {
        true => (0..nc.records()).map(|r| nc.read("time", Some(r)).unwrap().to_f64()[0].to_bits()).collect(),
        false => Vec::new(),
    };
    for v in &h.vars {
        if v.ty == hydrokern::output::netcdf::classic::Type::Int {
            continue;
        }
        let values = if v.ty == hydrokern::output::netcdf::classic::Type::Char {
            vec![(
                f64::NAN.to_bits(),
                nc.read_text(&v.name).unwrap().iter().flat_map(|n| n.bytes().map(u64::from)).collect(),
            )]
        } else if h.is_record(v) {
            times.iter().enumerate().map(|(r, &t)| (t, bits(nc.read(&v.name, Some(r as u64)).unwrap()))).collect()
        } else {
            vec![(f64::NAN.to_bits(), bits(nc.read(&v.name, None).unwrap()))]
        };
        out.insert(v.name.clone(), values);
    }
    out
}

/// Every variable of a NetCDF file as the independent `netcdf3` crate reads it (Debug text:
/// NaN is written "NaN", so equal maps hold the same values).
fn netcdf3_variables(path: &Path) -> String {
    let mut r = netcdf3::FileReader::open(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    let vars: BTreeMap<String, String> =
        r.read_all_vars().unwrap().into_iter().map(|(k, v)| (k, format!("{v:?}"))).collect();
    format!("{vars:?}")
}

/// Scenario `name` with `set` (its size, `time.t_end` = `end`, a snapshot at `snap` between the
/// last checkpoint and the end) on `backend` in `precision`, with a checkpoint every `every`:
/// the run restarted from its last checkpoint writes the same bytes for every snapshot after it
/// and takes as many steps. Returns the uninterrupted run's steps.
fn bit_identical(
    name: &str,
    set: &[(&str, Value)],
    end: f64,
    every: f64,
    snap: f64,
    backend: &str,
    precision: &str,
) -> u64 {
    // Another scheme of the same scenario is another run: a directory of its own.
    let scheme = set.iter().find(|(k, _)| *k == "time.scheme").and_then(|(_, v)| v.as_str()).unwrap_or("");
    let tag = format!("{name}-{backend}-{precision}{scheme}");
    let (a, b) = (scratch(&format!("{tag}-a")), scratch(&format!("{tag}-b")));
    // The last checkpoint time, k·every < end, as the runner computes it.
    let k = (1..).take_while(|&k| k as f64 * every < end).last().unwrap_or(0);
    let last = k as f64 * every;
    assert!(last > 0.0 && last < snap && snap < end, "the test's times: checkpoint {last}, snapshot {snap}, end {end}");
    let mut keys: Vec<(&str, Value)> = set.to_vec();
    keys.extend([
        ("time.t_end", end.into()),
        ("output.snapshots", floats(&[0.5 * last, snap])),
        ("output.checkpoint_every", every.into()),
        ("run.backend", backend.into()),
        ("run.precision", precision.into()),
    ]);
    let whole = run(name, &keys, &a, None).unwrap_or_else(|e| panic!("{tag}: {e}"));
    let checkpoint = a.join(CHECKPOINT_FILE);
    assert!(manifest(&a).files.contains(&CHECKPOINT_FILE.to_string()), "{tag}: no checkpoint listed");
    let resumed = run(name, &keys, &b, Some(checkpoint.clone())).unwrap_or_else(|e| panic!("{tag} restarted: {e}"));
    assert_eq!(resumed.steps, whole.steps, "{tag}: steps");
    assert_eq!(resumed.t.to_bits(), whole.t.to_bits(), "{tag}: end time");
    // The restarted run wrote the snapshot after its checkpoint and the end, nothing before.
    let written = npy_files(&b);
    let before = npy_files(&a).into_iter().filter(|f| !written.contains(f)).collect::<Vec<_>>();
    assert!(!written.is_empty() && !before.is_empty(), "{tag}: {written:?} after, {before:?} before");
    assert!(written.iter().any(|f| f.contains(&format!("_t{snap}."))), "{tag}: no snapshot at {snap}: {written:?}");
    assert!(before.iter().all(|f| f.contains(&format!("_t{}.", 0.5 * last))), "{tag}: {before:?}");
    // The gauge records and maximum maps, rewritten whole at every snapshot, come out the same.
    let csv = files_ending(&b, ".csv");
    assert_eq!(csv, files_ending(&a, ".csv"), "{tag}: gauge files");
    for f in written.iter().chain(&csv) {
        let (x, y) = (std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap());
        assert!(x == y, "{tag}: {f} differs after the restart");
    }
    // NetCDF: the gauges', lines' and maxima's files whole (read by the independent netcdf3
    // crate); the fields' file, new in this directory, holds the records after the checkpoint,
    // each as the uninterrupted run's.
    for f in files_ending(&b, ".nc") {
        let (x, y) = (a.join(&f), b.join(&f));
        if ["_gauges.nc", "_lines.nc", "_maxima.nc"].iter().any(|e| f.ends_with(e)) {
            assert_eq!(netcdf3_variables(&x), netcdf3_variables(&y), "{tag}: {f}");
            assert_eq!(nc_variables(&x), nc_variables(&y), "{tag}: {f}");
            continue;
        }
        let (whole, after) = (nc_variables(&x), nc_variables(&y));
        for (name, records) in &after {
            let all = &whole[name];
            let fixed = records.len() == 1 && f64::from_bits(records[0].0).is_nan();
            let want: Vec<_> = if fixed {
                all.clone()
            } else {
                all.iter().filter(|(t, _)| f64::from_bits(*t) > last).cloned().collect()
            };
            assert!(!fixed || !want.is_empty(), "{tag}: {f} {name}");
            assert_eq!(records, &want, "{tag}: {f} {name} after the restart");
        }
    }
    let m = manifest(&b);
    assert!(m.restarted_from.as_deref().is_some_and(|r| r.contains(&format!("t = {last}"))), "{tag}: {m:?}");
    println!("{tag}: {} steps, {} snapshot files rewritten bit for bit after t = {last}", whole.steps, written.len());
    for d in [a, b] {
        std::fs::remove_dir_all(d).unwrap();
    }
    whole.steps
}

fn grid(nx: i64, ny: i64) -> Vec<(&'static str, Value)> {
    vec![("grid.nx", nx.into()), ("grid.ny", ny.into())]
}

/// A scenario's own gauges and maximum maps (the flood's three gauges every step, swe-radial's
/// and tidal-basin's), into NPY and NetCDF.
fn flood(nx: i64, ny: i64) -> Vec<(&'static str, Value)> {
    let mut set = grid(nx, ny);
    set.push(("output.formats", formats(&["npy", "netcdf"])));
    set
}

/// tidal-basin at `nx` × `ny` with its gauges and maps at Δt = 30 s, a gauge sample every
/// `every` steps (its own 10 puts one at the checkpoint's step 40; 7 puts none there).
fn tidal(nx: i64, ny: i64, every: i64) -> Vec<(&'static str, Value)> {
    let mut set = flood(nx, ny);
    set.push(("time.dt", 30.0.into()));
    set.push(("output.gauge_every", every.into()));
    set
}

#[test]
fn kp_restarts_bit_for_bit() {
    bit_identical("dam-break", &grid(32, 32), 1.0, 0.3, 0.95, "cpu", "f64");
    // f32 runs the compensated update (the default): the checkpoint holds w's low part, without
    // which the restarted run would part from the uninterrupted one.
    bit_identical("flood", &flood(32, 32), 0.5, 0.15, 0.48, "cpu", "f32");
    // Manning's n per cell from a raster: the friction field is rebuilt from the case.
    bit_identical("valley", &[], 20.0, 6.0, 19.0, "cpu", "f64");
    // Gauges every 3 steps: the checkpoint lands between samples.
    let mut set = flood(24, 24);
    set.push(("output.gauge_every", 3i64.into()));
    bit_identical("flood", &set, 0.5, 0.15, 0.48, "cpu", "f64");
    // Forcing: the checkpoint holds the forcing clock, the soil's totals, the normal-depth
    // side's boundary volumes and the water account's rows (account.csv compared whole).
    bit_identical("valley-rain", &[], 900.0, 300.0, 800.0, "cpu", "f64");
    bit_identical("valley-rain", &[], 900.0, 300.0, 800.0, "cpu", "f32");
    // Its two discharge lines: lines.csv and the lines' NetCDF file.
    bit_identical("river-inflow", &flood(40, 20), 1800.0, 600.0, 1500.0, "cpu", "f64");
    // A tide held on the mouth: its level at the checkpoint's time sets the ghosts again; the
    // mouth's volumes go on in account.csv and in the NetCDF fields' file.
    let mut set: Vec<(&str, Value)> = vec![("output.formats", formats(&["npy", "netcdf"]))];
    set.push(("output.maxima", false.into()));
    bit_identical("estuary-tide", &set, 3600.0, 1200.0, 3000.0, "cpu", "f32");
}

/// Mixed precision (w in f64, the rest in f32): the checkpoint holds w as it is and the momenta
/// widened; the restart narrows them back exactly. The flood's gauges and maps ride along.
#[test]
fn kp_mixed_restarts_bit_for_bit() {
    bit_identical("dam-break", &grid(40, 40), 1.0, 0.3, 0.95, "cpu", "mixed");
    bit_identical("flood", &flood(28, 28), 0.5, 0.15, 0.48, "cpu", "mixed");
}

/// DS2 and DS1: the checkpoint holds the Δt estimates the next step starts from, so the
/// restarted run takes the same steps. Without them it measures its own and parts from the
/// uninterrupted run (checked once by hand: a restore that drops them fails here, DS2 and DS1
/// alike).
#[test]
fn kp_split_schemes_restart_bit_for_bit() {
    for scheme in ["ds2", "ds1"] {
        // The Gaussian hump (with Manning friction, which DS applies in X), not a scenario the
        // other kp test restarts: the two run at once and would share directories. Fine enough,
        // and 0.25 s from the last checkpoint to the snapshot after it, that steps after the
        // restart are not all cut short by output times (a cut step's Δt owes nothing to the
        // estimates, and would hide a restart that lost them).
        let mut set = grid(128, 128);
        set.push(("time.scheme", scheme.into()));
        bit_identical("gaussian", &set, 1.2, 0.3, 1.15, "cpu", "f64");
        // Rain draining by a normal-depth side: the water account's volumes of the split steps
        // (each substep's x faces, a discarded step's dropped) go on from the checkpoint.
        bit_identical("valley-rain", &[("time.scheme", scheme.into())], 900.0, 300.0, 800.0, "cpu", "f64");
    }
}

#[test]
fn sediment_restarts_bit_for_bit() {
    // The automatic Δt (about 790 years here) is recomputed every 4 steps: the restart lands
    // mid-schedule, and the schedule must go on from there.
    let mut set = grid(24, 24);
    set.push(("time.dt_update_steps", 4i64.into()));
    let steps = bit_identical("sediment", &set, 12000.0, 5000.0, 11000.0, "cpu", "f64");
    assert!(steps > 12, "{steps} steps");
    bit_identical("sediment", &grid(24, 24), 12000.0, 5000.0, 11000.0, "cpu", "f32");
    // Mixed: h in f64 and s widened in the checkpoint; the restart narrows s back exactly.
    bit_identical("sediment", &set, 12000.0, 5000.0, 11000.0, "cpu", "mixed");
}

/// A checkpoint of a mixed run is refused in one line by an f64 run (its values are f64 too),
/// and an f64 one by a mixed run.
#[test]
fn mixed_and_f64_checkpoints_are_not_taken_for_each_other() {
    for (took, runs) in [("mixed", "f64"), ("f64", "mixed")] {
        let a = scratch(&format!("mixed-refuse-{took}"));
        let mut keys = grid(16, 16);
        keys.extend([
            ("time.t_end", 12000.0.into()),
            ("output.snapshots", floats(&[])),
            ("output.checkpoint_every", 5000.0.into()),
            ("run.backend", "cpu".into()),
            ("run.precision", took.into()),
        ]);
        run("sediment", &keys, &a, None).unwrap();
        let out = scratch(&format!("mixed-refuse-{took}-b"));
        keys.push(("run.precision", runs.into()));
        let e = run("sediment", &keys, &out, Some(a.join(CHECKPOINT_FILE))).map(|_| ()).unwrap_err().to_string();
        assert_eq!(e.lines().count(), 1, "not one line: {e}");
        assert!(e.contains(&format!("taken in {took}, and this run is in {runs}")), "{e}");
        assert!(!out.exists(), "the refused run made its directory");
        std::fs::remove_dir_all(a).unwrap();
    }
}

#[test]
fn claw_restarts_bit_for_bit() {
    // Its gauges and maps, in both precisions; gauges every 2 steps: between samples too.
    bit_identical("swe-radial", &flood(24, 24), 0.5, 0.15, 0.48, "cpu", "f64");
    let mut set = flood(20, 20);
    set.push(("output.gauge_every", 2i64.into()));
    bit_identical("swe-radial", &set, 0.5, 0.15, 0.48, "cpu", "f32");
    let mut set = grid(12, 12);
    set.push(("grid.nz", 12i64.into()));
    bit_identical("acoustics-3d", &set, 0.3, 0.1, 0.25, "cpu", "f32");
}

#[test]
fn adi_restarts_bit_for_bit() {
    bit_identical("seiche", &grid(20, 10), 60.0, 20.0, 50.0, "cpu", "f64");
    // Its gauges and maps: a sample at the checkpoint's step, and none there.
    bit_identical("tidal-basin", &tidal(24, 12, 10), 1800.0, 600.0, 1500.0, "cpu", "f32");
    bit_identical("tidal-basin", &tidal(24, 12, 7), 1800.0, 600.0, 1500.0, "cpu", "f64");
    // Rain and a soil: the soil's totals in the checkpoint, the account's rows too.
    bit_identical("seiche", &adi_rain(20, 10), 60.0, 20.0, 50.0, "cpu", "f32");
}

/// The seiche on nx × ny cells under rain on a Green–Ampt soil.
fn adi_rain(nx: i64, ny: i64) -> Vec<(&'static str, Value)> {
    let mut set = grid(nx, ny);
    set.push(("forcing.rain.intensity", 36.0.into()));
    set.push(("forcing.infiltration.conductivity", 10.0.into()));
    set.push(("forcing.infiltration.suction", 110.1.into()));
    set.push(("forcing.infiltration.deficit", 0.3.into()));
    set
}

/// The same on the GPU (the lead runs these): kp with early exit on (`auto` chooses by timing,
/// which makes even an uninterrupted run unrepeatable) and off (the valley: with the per-cell
/// friction kernel), DS1 and DS2, sediment, claw 2D and 3D, ADI; the claw and ADI runs with their gauges and
/// maximum maps (on the device between checkpoints), gauges every step and every few steps.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_restarts_bit_for_bit() {
    let _ = crate::common::gpu();
    for early in ["on", "off"] {
        let mut set = flood(96, 80);
        set.push(("gpu.early_exit", early.into()));
        bit_identical("flood", &set, 0.5, 0.15, 0.48, "gpu", "f64");
        // f32: the compensated RK kernels (the default), w's low part in the checkpoint.
        bit_identical("dam-break", &set, 1.0, 0.3, 0.95, "gpu", "f32");
        let early_exit = [("gpu.early_exit", early.into())];
        bit_identical("valley", &early_exit, 20.0, 6.0, 19.0, "gpu", "f32");
        // Mixed: w (f64) and the momenta widened in the checkpoint, the flood's gauges and
        // maps (f64, on the device between checkpoints); the valley's friction field too.
        let mut set = flood(96, 80);
        set.push(("gpu.early_exit", early.into()));
        bit_identical("flood", &set, 0.5, 0.15, 0.48, "gpu", "mixed");
        let mut set = grid(96, 80);
        set.push(("gpu.early_exit", early.into()));
        bit_identical("dam-break", &set, 1.0, 0.3, 0.95, "gpu", "mixed");
        bit_identical("valley", &early_exit, 20.0, 6.0, 19.0, "gpu", "mixed");
        // Forcing: the device's forcing clock and the soil's totals in the checkpoint.
        bit_identical("valley-rain", &early_exit, 900.0, 300.0, 800.0, "gpu", "f32");
        bit_identical("river-inflow", &early_exit, 1800.0, 600.0, 1500.0, "gpu", "f64");
        bit_identical("estuary-tide", &early_exit, 3600.0, 1200.0, 3000.0, "gpu", "f64");
    }
    // DS1 and DS2 on the device (`bollermann`: `clamp` is refused there): the estimates and
    // retries come from the device clock.
    for scheme in ["ds2", "ds1"] {
        let mut set = grid(128, 128);
        set.push(("time.scheme", scheme.into()));
        set.push(("numerics.wet_dry", "bollermann".into()));
        bit_identical("gaussian", &set, 1.2, 0.3, 1.15, "gpu", "f32");
        // The water account of split steps on the device (the commit after each step's end).
        bit_identical("valley-rain", &[("time.scheme", scheme.into())], 900.0, 300.0, 800.0, "gpu", "f64");
    }
    bit_identical("sediment", &grid(100, 72), 12000.0, 5000.0, 11000.0, "gpu", "f64");
    bit_identical("sediment", &grid(100, 72), 12000.0, 5000.0, 11000.0, "gpu", "mixed");
    bit_identical("swe-radial", &flood(72, 64), 0.5, 0.15, 0.48, "gpu", "f32");
    let mut set = flood(64, 64);
    set.push(("output.gauge_every", 3i64.into()));
    bit_identical("swe-radial", &set, 0.5, 0.15, 0.48, "gpu", "f64");
    let mut set = grid(20, 24);
    set.push(("grid.nz", 18i64.into()));
    bit_identical("acoustics-3d", &set, 0.3, 0.1, 0.25, "gpu", "f64");
    bit_identical("seiche", &grid(40, 20), 60.0, 20.0, 50.0, "gpu", "f64");
    bit_identical("seiche", &adi_rain(40, 20), 60.0, 20.0, 50.0, "gpu", "f32");
    bit_identical("tidal-basin", &tidal(48, 24, 10), 1800.0, 600.0, 1500.0, "gpu", "f32");
    bit_identical("tidal-basin", &tidal(48, 24, 7), 1800.0, 600.0, 1500.0, "gpu", "f64");
}

/// A restart into the interrupted run's own directory continues it: the files before the
/// checkpoint stay listed, the later ones come back with the same bytes.
#[test]
fn a_restart_in_place_continues_the_directory() {
    let d = scratch("in-place");
    let keys = [
        ("grid.nx", 24i64.into()),
        ("grid.ny", 24i64.into()),
        ("time.t_end", 0.5.into()),
        ("output.snapshots", floats(&[0.1, 0.45])),
        ("output.checkpoint_every", 0.2.into()),
        ("run.backend", "cpu".into()),
    ];
    let whole = run("dam-break", &keys, &d, None).unwrap();
    let files = npy_files(&d);
    let bytes: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(d.join(f)).unwrap()).collect();
    let again = run("dam-break", &keys, &d, Some(d.join(CHECKPOINT_FILE))).unwrap();
    assert_eq!(again.steps, whole.steps);
    assert_eq!(npy_files(&d), files);
    for (f, b) in files.iter().zip(&bytes) {
        assert!(&std::fs::read(d.join(f)).unwrap() == b, "{f} differs");
    }
    let m = manifest(&d);
    assert_eq!(m.status, "finished");
    assert!(m.restarted_from.is_some_and(|r| r.contains("t = 0.4")));
    for f in files.iter().chain([&CHECKPOINT_FILE.to_string()]) {
        assert!(m.files.contains(f), "{f} not listed: {:?}", m.files);
    }
    std::fs::remove_dir_all(d).unwrap();
}

/// A restart into the interrupted run's own directory appends to its NetCDF file: the records
/// after the checkpoint (and the bytes of a record a kill cut short) are dropped and written
/// again, so the file comes out byte for byte the uninterrupted run's; the gauges' and maxima's
/// files hold the same values. A fields' file that is not the run's is replaced by one holding
/// the snapshots from the restart on.
#[test]
fn a_restart_in_place_appends_to_the_netcdf_file() {
    let d = scratch("in-place-nc");
    let mut keys = flood(24, 24);
    keys.extend([
        ("time.t_end", 0.5.into()),
        ("output.snapshots", floats(&[0.1, 0.45])),
        ("output.checkpoint_every", 0.2.into()),
        ("run.backend", "cpu".into()),
        ("run.precision", "f32".into()),
    ]);
    run("flood", &keys, &d, None).unwrap();
    let (fields, gauges, maxima) = (d.join("flood.nc"), d.join("flood_gauges.nc"), d.join("flood_maxima.nc"));
    let whole = std::fs::read(&fields).unwrap();
    // The uninterrupted run's file, kept outside the run directory.
    let copy = scratch("in-place-nc-whole.nc");
    std::fs::write(&copy, &whole).unwrap();
    let (gauge_vars, maxima_vars) = (nc_variables(&gauges), nc_variables(&maxima));
    assert_eq!(Dataset::open(&fields).unwrap().records(), 3);
    assert!(gauge_vars["time"].len() > 5, "{} gauge samples", gauge_vars["time"].len());
    // A kill while appending a record leaves bytes past the counted ones.
    std::fs::write(&fields, [whole.as_slice(), &[7u8; 100]].concat()).unwrap();
    run("flood", &keys, &d, Some(d.join(CHECKPOINT_FILE))).unwrap();
    assert!(std::fs::read(&fields).unwrap() == whole, "flood.nc differs from the uninterrupted run's");
    assert_eq!(nc_variables(&gauges), gauge_vars);
    assert_eq!(nc_variables(&maxima), maxima_vars);
    assert_eq!(netcdf3_variables(&fields), netcdf3_variables(&copy));
    // Not the run's file: a new one, from the checkpoint (t = 0.4) on.
    std::fs::write(&fields, b"not a NetCDF file").unwrap();
    run("flood", &keys, &d, Some(d.join(CHECKPOINT_FILE))).unwrap();
    let after = nc_variables(&fields);
    let uninterrupted: Vec<_> =
        nc_variables(&copy)["h"].iter().filter(|(t, _)| f64::from_bits(*t) > 0.4).cloned().collect();
    assert_eq!(after["h"].len(), 2);
    assert_eq!(after["h"], uninterrupted);
    std::fs::remove_dir_all(d).unwrap();
    std::fs::remove_file(copy).unwrap();
}

/// Every checkpoint that does not belong to the run: one line naming the file and what differs,
/// and the new run's directory never made.
#[test]
fn foreign_checkpoints_are_refused_before_the_directory_is_touched() {
    let a = scratch("refuse-a");
    let base = [
        ("grid.nx", Value::from(24i64)),
        ("grid.ny", 24i64.into()),
        ("time.t_end", 0.3.into()),
        ("output.snapshots", floats(&[])),
        ("output.checkpoint_every", 0.1.into()),
        ("run.backend", "cpu".into()),
    ];
    run("dam-break", &base, &a, None).unwrap();
    let ckpt = a.join(CHECKPOINT_FILE);
    let out = scratch("refuse-b");
    let refuse = |name: &str, extra: &[(&str, Value)], file: &Path| -> String {
        let mut keys = base.to_vec();
        keys.extend(extra.iter().cloned());
        let e = run(name, &keys, &out, Some(file.to_path_buf())).map(|_| ()).unwrap_err().to_string();
        assert_eq!(e.lines().count(), 1, "not one line: {e}");
        assert!(e.contains(&file.display().to_string()), "{e}");
        assert!(!out.exists(), "{name}: the refused run made its directory");
        e
    };
    let e = refuse("dam-break", &[("grid.nx", 32i64.into())], &ckpt);
    assert!(e.contains("another case: grid.nx is 24 there and 32 here"), "{e}");
    let e = refuse("dam-break", &[("output.checkpoint_every", 0.05.into())], &ckpt);
    assert!(e.contains("output.checkpoint_every is 0.1 there and 0.05 here"), "{e}");
    let e = refuse("dam-break", &[("run.precision", "f32".into())], &ckpt);
    assert!(e.contains("taken in f64"), "{e}");
    let e = refuse("gaussian", &[], &ckpt);
    assert!(e.contains("another case"), "{e}");
    let e = refuse("flood", &[("time.t_end", 1.0.into())], &ckpt);
    assert!(e.contains("another case"), "{e}");
    let e = refuse("swe-radial", &[], &ckpt);
    assert!(e.contains("solver kp, not of claw"), "{e}");
    // Truncated (as a copy cut short would be) or damaged in one byte.
    let bytes = std::fs::read(&ckpt).unwrap();
    let cut = a.join("cut.hkc");
    for len in [bytes.len() - 1, bytes.len() / 2, 40] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        let e = refuse("dam-break", &[], &cut);
        assert!(e.contains("truncated or damaged"), "{e}");
    }
    let mut flipped = bytes.clone();
    let at = bytes.len() - 100;
    flipped[at] ^= 1;
    std::fs::write(&cut, &flipped).unwrap();
    assert!(refuse("dam-break", &[], &cut).contains("checksum"));
    let e = refuse("dam-break", &[], &a.join("missing.hkc"));
    assert!(e.contains("missing.hkc"), "{e}");
    // Only the keys that cannot change the results may differ: the directory, progress, limit.
    let mut keys = base.to_vec();
    keys.extend([("output.progress", 5.0.into()), ("run.max_steps", 1_000_000i64.into())]);
    run("dam-break", &keys, &out, Some(ckpt)).unwrap();
    for d in [a, out] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// A run killed while writing its checkpoint leaves the previous one whole; the next run in the
/// directory removes the temporary file.
#[test]
fn a_half_written_checkpoint_is_never_taken_for_one() {
    let d = scratch("killed");
    let keys = [
        ("grid.nx", Value::from(16i64)),
        ("grid.ny", 16i64.into()),
        ("time.t_end", 0.3.into()),
        ("output.snapshots", floats(&[])),
        ("output.checkpoint_every", 0.1.into()),
        ("run.backend", "cpu".into()),
    ];
    run("dam-break", &keys, &d, None).unwrap();
    let good = std::fs::read(d.join(CHECKPOINT_FILE)).unwrap();
    // What a kill -9 during the next checkpoint leaves: its temporary file, cut short.
    let tmp = d.join(format!(".{CHECKPOINT_FILE}.tmp4242"));
    std::fs::write(&tmp, &good[..good.len() / 3]).unwrap();
    assert_eq!(std::fs::read(d.join(CHECKPOINT_FILE)).unwrap(), good);
    run("dam-break", &keys, &d, Some(d.join(CHECKPOINT_FILE))).unwrap();
    assert!(!tmp.exists(), "the temporary file was left");
    std::fs::remove_dir_all(d).unwrap();
}

/// fd3d and tridiag compute once: a checkpoint interval there is a mistake, said so.
#[test]
fn solvers_without_a_time_loop_refuse_checkpoint_times() {
    for name in ["fd3d", "tridiag"] {
        let mut doc = scenarios::find(name).unwrap().doc().unwrap();
        doc.set("output.checkpoint_every", 1.0.into(), "--checkpoint-every 1").unwrap();
        let e = registry::load(&doc).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("output.checkpoint_every") && e.contains("no time loop"), "{e}");
    }
}

/// A restart whose case reads an input file that changed since the checkpoint (here the
/// raster of Manning's n) is refused, naming the file: the model would go on from a state the
/// new file did not give, and fields such as the bed are rebuilt from the files, not saved.
#[test]
fn a_restart_from_changed_inputs_is_refused() {
    use crate::cmd::{hydrokern, refused, s};
    let dir = scratch("changed-input");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    for f in ["valley.tif", "valley-reservoir.asc", "valley-manning.asc"] {
        std::fs::copy(examples.join("data").join(f), dir.join("data").join(f)).unwrap();
    }
    let case = dir.join("valley.toml");
    std::fs::copy(examples.join("valley.toml"), &case).unwrap();
    let (a, b) = (dir.join("a"), dir.join("b"));
    let args = |out: &Path| -> Vec<String> {
        ["--backend", "cpu", "run", s(&case), "--t-end", "2", "--checkpoint-every", "1", "--output", s(out)]
            .map(str::to_string)
            .to_vec()
    };
    let o = hydrokern(&args(&a).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", crate::cmd::stderr(&o));
    let ckpt = a.join(CHECKPOINT_FILE);
    let manning = dir.join("data/valley-manning.asc");
    let text = std::fs::read_to_string(&manning).unwrap();
    std::fs::write(&manning, text.replacen("0.06", "0.07", 1)).unwrap();
    let mut again = args(&b);
    again.extend(["--restart".into(), s(&ckpt).into()]);
    let again: Vec<&str> = again.iter().map(String::as_str).collect();
    refused(&again, &format!("--restart: {} changed since the checkpoint was written (hash ", manning.display()));
    assert!(!b.exists(), "the refused run made its directory");
    // The same bytes again: the restart goes on.
    std::fs::write(&manning, &text).unwrap();
    let o = hydrokern(&again);
    assert!(o.status.success(), "{}", crate::cmd::stderr(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--restart` on the command line continues the checkpoint's case: the flags of the run that
/// wrote it need not be given again, a later `--t-end` extends the run (its later snapshots
/// written, the earlier end's state gone), and any other change is refused as before.
#[test]
fn a_restart_needs_only_the_changes() {
    use crate::cmd::{hydrokern, refused, s, stderr, stdout};
    let a = scratch("changes");
    let o = hydrokern(&[
        "--backend",
        "cpu",
        "dam-break",
        "--nx",
        "24",
        "--t-end",
        "0.3",
        "--checkpoint-every",
        "0.1",
        "--output",
        s(&a),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let steps = |o: &std::process::Output| -> String {
        let text = stdout(o);
        let done = text.lines().find(|l| l.starts_with("done: ")).unwrap_or_else(|| panic!("{text}"));
        done.split_whitespace().nth(1).unwrap().to_string()
    };
    let whole = steps(&o);
    let ckpt = a.join(CHECKPOINT_FILE);
    // Nothing but --restart: the grid, the end, the checkpoints, the backend and the directory
    // are the checkpoint's.
    let o = hydrokern(&["dam-break", "--restart", s(&ckpt)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(steps(&o), whole);
    assert!(stdout(&o).contains("restarted from") && a.join("h_t0.3.npy").exists(), "{}", stdout(&o));
    assert_eq!(manifest(&a).status, "finished");
    // Other changes are refused with one line, as before.
    refused(&["dam-break", "--restart", s(&ckpt), "--t-end", "0.25"], "time.t_end is 0.3 there and 0.25 here");
    refused(&["dam-break", "--restart", s(&ckpt), "--nx", "32"], "grid.nx is 24 there and 32 here");
    refused(&["dam-break", "--restart", s(&ckpt), "--checkpoint-every", "0.05"], "output.checkpoint_every is 0.1");
    // A later end, with a snapshot after the checkpoint's time.
    let o = hydrokern(&["dam-break", "--restart", s(&ckpt), "--t-end", "0.5", "--snapshots", "0.45"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(a.join("h_t0.45.npy").exists() && a.join("h_t0.5.npy").exists());
    assert!(!a.join("h_t0.3.npy").exists(), "the earlier end's state is still there");
    let m = manifest(&a);
    assert_eq!((m.status.as_str(), m.t), ("finished", Some(0.5)));
    assert!(m.files.iter().all(|f| a.join(f).exists()), "{:?}", m.files);
    std::fs::remove_dir_all(a).unwrap();
}
