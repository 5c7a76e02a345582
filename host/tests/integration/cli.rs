//! The command line as a user meets it: bad input is a one-line error and a non-zero exit,
//! never a panic; runs write their outputs whole, into a directory that holds one run; a
//! blow-up stops, names the cell and keeps the last good state; progress never changes results.

use crate::cmd::{bin, hydrokern, refused, s, scratch, stderr, stdout};
use crate::common::raster::ascii_grid;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[test]
fn unknown_names_are_refused_with_the_list() {
    refused(&["flood-of-the-century"], "scenarios: acoustics-2d, acoustics-3d, advection, dam-break");
    let o = hydrokern(&["flood-of-the-century"]);
    for name in ["sediment", "fd3d", "tridiag", "lake-at-rest", "swe-radial", "run", "check"] {
        assert!(stderr(&o).contains(name), "{name} missing from the list: {}", stderr(&o));
    }
    refused(&["sediment", "--variant", "opt9/opt1", "--backend", "cpu"], "unknown sediment variant");
    refused(&["sediment", "--block", "0x8", "--backend", "cpu"], "gpu.block");
    refused(&["sediment", "--scheme", "upwind", "--backend", "cpu"], "unknown sediment scheme");
    refused(&["sediment", "--accumulation", "kahan", "--backend", "cpu"], "unknown accumulation");
    refused(&["flood", "--accumulation", "kahan", "--backend", "cpu"], "unknown accumulation");
    refused(&["dam-break", "--boundary", "slippery", "--backend", "cpu"], "unknown boundary condition");
    let o = hydrokern(&["--precision", "f16", "info"]);
    assert!(!o.status.success() && stderr(&o).contains("f16"));
    // The old progress-count option is gone: progress is by wall-clock time now.
    let o = hydrokern(&["dam-break", "--reports", "10"]);
    assert!(!o.status.success() && stderr(&o).contains("--reports"), "{}", stderr(&o));
}

#[test]
fn scenarios_lists_every_example() {
    let o = hydrokern(&["scenarios"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let examples = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")).unwrap();
    for e in examples {
        let f = e.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(name) = f.strip_suffix(".toml").filter(|n| !n.ends_with(".norms")) {
            assert!(text.contains(&format!("  {name} ")), "{name} missing from `scenarios`:\n{text}");
        }
    }
}

#[test]
fn output_that_cannot_be_written_is_an_error_not_a_panic() {
    let f = std::fs::File::create("/dev/full");
    if let Ok(full) = f {
        let o = Command::new(bin()).arg("scenarios").stdout(full).output().unwrap();
        assert!(!o.status.success(), "writing to a full device succeeded");
        let err = stderr(&o);
        assert!(err.contains("standard output") && !err.contains("panicked"), "{err}");
    }
}

/// A standard error that cannot be written (a full device, a closed descriptor) loses what the
/// run says there and nothing else: the run goes on and ends with its usual status. A help text
/// that cannot be written is a failure.
#[test]
fn a_standard_error_that_cannot_be_written_changes_nothing() {
    let Ok(full) = std::fs::File::create("/dev/full") else { return };
    let run = |tag: &str| {
        let out = scratch(tag);
        let args =
            ["--backend", "cpu", "sediment", "--nx", "16", "--steps", "20", "--output", s(&out)].map(str::to_string);
        (out, args)
    };
    let (out, args) = run("stderr-full");
    let o = Command::new(bin()).args(&args).stderr(full.try_clone().unwrap()).output().unwrap();
    assert!(o.status.success(), "exit {:?}: {}", o.status, stdout(&o));
    let has_h =
        |d: &Path| std::fs::read_dir(d).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with("h_t"));
    assert!(stdout(&o).contains("done:") && has_h(&out), "{}", stdout(&o));
    // A bad flag still fails, with its usual status.
    let o = Command::new(bin()).args(["sediment", "--nx", "many"]).stderr(full.try_clone().unwrap()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let (closed, args) = run("stderr-closed");
    let o = Command::new("sh").arg("-c").arg("exec \"$0\" \"$@\" 2>&-").arg(bin()).args(&args).output().unwrap();
    assert!(o.status.success(), "exit {:?}: {}", o.status, stdout(&o));
    assert!(has_h(&closed));
    for help in [&["--help"][..], &["sediment", "--help"]] {
        let o = Command::new(bin()).args(help).stdout(full.try_clone().unwrap()).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{help:?}: {err}");
        assert!(err.contains("standard output") && !err.contains("panicked"), "{help:?}: {err}");
    }
    for d in [out, closed] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn a_closed_pipe_does_not_lose_the_results() {
    let out = scratch("pipe");
    let mut child = Command::new(bin())
        .args([
            "--backend",
            "cpu",
            "sediment",
            "--nx",
            "24",
            "--steps",
            "400",
            "--progress",
            "0.05",
            "--output",
            s(&out),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close the pipe, as `| head -1` does.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "exit {:?}: {err}", o.status);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        out.join("h_t").exists()
            || std::fs::read_dir(&out).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with("h_t"))
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_sediment_input_is_refused_before_any_work() {
    let out = scratch("bad");
    let o = s(&out);
    refused(&["sediment", "--nx", "0", "--output", o], "grid.nx");
    refused(&["sediment", "--nx", "16", "--dt", "1e9", "--output", o], "stability limit");
    refused(&["sediment", "--nx", "16", "--s-file", "/nonexistent.npy", "--output", o], "/nonexistent.npy");
    refused(&["sediment", "--nx", "16", "--inflow", "-1", "--output", o], "inflow");
    refused(&["sediment", "--output", "/proc/hydrokern-cannot-write-here"], "output directory");
    // Files that are not regular files are refused at once, not read forever.
    refused(&["sediment", "--nx", "16", "--h-file", "/dev/zero", "--output", o], "not a regular file");
    assert!(!out.join("hydrokern-run.json").exists(), "a refused run started writing");
}

#[test]
fn meaningless_sediment_fields_are_refused() {
    let dir = scratch("fields");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, v: f64| {
        let p = dir.join(name);
        hydrokern::output::write_npy(&p, &vec![v; 16 * 16], &[16, 16]).unwrap();
        p
    };
    let (zero_a, zero_b, huge) = (write("a0.npy", 0.0), write("b0.npy", 0.0), write("a_huge.npy", 1e300));
    let out = dir.join("out");
    let o = s(&out);
    // No diffusion anywhere: the river cannot enter and nothing moves.
    refused(
        &["sediment", "--nx", "16", "--alpha-file", s(&zero_a), "--beta-file", s(&zero_b), "--output", o],
        "cannot enter",
    );
    // A diffusivity of 1e300 makes the stable step vanish: the run would never end.
    refused(&["sediment", "--nx", "16", "--alpha-file", s(&huge), "--output", o], "max_steps");
    // A FIFO given as a field is refused at once rather than read until it closes.
    let fifo = dir.join("fifo.npy");
    if Command::new("mkfifo").arg(&fifo).status().is_ok_and(|st| st.success()) {
        refused(&["sediment", "--nx", "16", "--h-file", s(&fifo), "--output", o], "not a regular file");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn absurd_runs_are_refused_before_they_start() {
    let out = scratch("absurd");
    let o = s(&out);
    refused(&["dam-break", "--t-end", "1e300", "--output", o], "max_steps");
    refused(&["sediment", "--steps", "1000000000000", "--output", o], "max_steps");
    refused(&["sediment", "--nx", "16", "--dt", "1e-300", "--output", o], "max_steps");
    refused(&["sediment", "--steps", "1e12", "--output", o], "whole number");
    refused(&["sediment", "--nx", "100000", "--output", o], "memory");
    refused(&["dam-break", "--nx", "60000", "--output", o], "memory");
    refused(&["dam-break", "--cfl", "0.9", "--output", o], "time.cfl");
    refused(&["dam-break", "--cfl", "0", "--output", o], "time.cfl");
    refused(&["dam-break", "--theta", "2.5", "--output", o], "physics.theta");
    refused(&["dam-break", "--wet-dry", "kp08", "--output", o], "numerics.wet_dry");
    refused(&["dam-break", "--scheme", "rk3", "--output", o], "time.scheme");
    refused(&["dam-break", "--scheme", "fastest", "--output", o], "expected rk2, euler, srk2, ds1, ds2 or auto");
    refused(&["dam-break", "--line", "100", "--output", o], "gpu.line");
    refused(&["dam-break", "--scheme", "ds2", "--ds-safety", "1.5", "--output", o], "numerics.ds_safety");
    refused(&["dam-break", "--scheme", "ds2", "--ds-safety", "0", "--output", o], "numerics.ds_safety");
    refused(&["dam-break", "--ds-safety", "nan", "--output", o], "--ds-safety nan");
    refused(&["dam-break", "--block", "7x3", "--output", o], "multiple of 32");
    refused(&["dam-break", "--block", "65536x65536", "--output", o], "gpu.block");
    refused(&["dam-break", "--snapshots", "0.5,0.2", "--output", o], "increase");
    refused(&["dam-break", "--snapshots", "2", "--output", o], "output.snapshots");
}

#[test]
fn the_common_flags_are_checked_like_their_keys() {
    let out = scratch("common");
    let o = s(&out);
    // A wait between progress lines that no clock can hold, or none at all.
    refused(&["dam-break", "--nx", "16", "--progress", "1e300", "--output", o], "output.progress");
    refused(&["dam-break", "--nx", "16", "--progress", "0", "--output", o], "output.progress");
    refused(&["dam-break", "--nx", "16", "--set", "output.progress=inf", "--output", o], "output.progress");
    refused(&["dam-break", "--nx", "16", "--max-steps", "-5", "--output", o], "run.max_steps");
    refused(&["dam-break", "--nx", "16", "--backend", "tpu", "--output", o], "run.backend");
    // More GPUs than any host has, none, or GPUs for the CPU backend.
    refused(
        &["dam-break", "--nx", "16", "--gpus", "100000", "--output", o],
        "the run asks for 100000 GPUs on each host",
    );
    refused(&["dam-break", "--nx", "16", "--gpus", "0", "--output", o], "run.gpus");
    refused(&["dam-break", "--nx", "16", "--gpus", "1", "--backend", "cpu", "--output", o], "run.backend = cpu");
    refused(&["dam-break", "--nx", "16", "--precision", "f16", "--output", o], "run.precision");
    // Mixed precision is sediment's and kp's: another solver refuses it in one line, and so do
    // a sediment variant without a mixed kernel and a kp scheme without a mixed step.
    refused(
        &["swe-radial", "--nx", "16", "--precision", "mixed", "--output", o],
        "precision mixed is available for: sediment, kp; claw runs f32 or f64",
    );
    refused(
        &["dam-break", "--nx", "16", "--precision", "mixed", "--scheme", "srk2", "--output", o],
        "precision mixed runs the rk2 and euler schemes only; srk2 runs f32 or f64",
    );
    refused(
        &["dam-break", "--nx", "16", "--precision", "mixed", "--scheme", "auto", "--output", o],
        "auto may pick srk2",
    );
    refused(
        &["sediment", "--nx", "16", "--precision", "mixed", "--variant", "opt1/opt1", "--output", o],
        "precision mixed runs the fused kernel only",
    );
    assert!(!out.join("hydrokern-run.json").exists(), "a refused run started writing");
}

#[test]
fn sediment_writes_its_outputs_and_a_manifest() {
    let out = scratch("ok");
    let o =
        hydrokern(&["--backend", "cpu", "sediment", "--nx", "24", "--ny", "16", "--steps", "50", "--output", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("volume gained") && text.contains("[100%]"), "{text}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("hydrokern-run.json")).unwrap()).unwrap();
    assert_eq!(manifest["status"], "finished");
    let files: Vec<String> =
        manifest["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_string()).collect();
    assert!(files.contains(&"case.toml".to_string()), "{files:?}");
    for f in &files {
        let len = std::fs::metadata(out.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{f} missing or empty");
    }
    let h = files.iter().find(|f| f.starts_with("h_t") && f.ends_with(".npy")).expect("an h snapshot");
    let (h, shape) = hydrokern::output::npy::read_npy_f64(&out.join(h)).unwrap();
    assert_eq!(shape, vec![16, 24]);
    assert!(h.iter().all(|v| v.is_finite()));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_rerun_replaces_the_previous_run_and_refuses_foreign_files() {
    let out = scratch("rerun");
    fn args(t: &str) -> Vec<&str> {
        vec!["--backend", "cpu", "sediment", "--nx", "16", "--t-end", t]
    }
    let o = hydrokern(&[&args("2000")[..], &["--output", s(&out)]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("h_t2000.npy").exists());
    // A killed run's temporary file, then a rerun to another end time.
    std::fs::write(out.join(".h_t1.npy.tmp999"), b"partial").unwrap();
    let o = hydrokern(&[&args("1000")[..], &["--output", s(&out)]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("h_t1000.npy").exists());
    assert!(!out.join("h_t2000.npy").exists(), "the previous run's file is still there");
    assert!(!out.join(".h_t1.npy.tmp999").exists(), "a killed run's temporary file is still there");
    // A file hydrokern did not write: refused without --force, kept with it.
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    refused(&[&args("1000")[..], &["--output", s(&out)]].concat(), "--force");
    let o = hydrokern(&[&args("1000")[..], &["--output", s(&out), "--force"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("notes.txt").exists());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn progress_output_never_changes_the_results() {
    let (a, b) = (scratch("progress-a"), scratch("progress-b"));
    for (dir, every) in [(&a, "1000"), (&b, "0.05")] {
        let o = hydrokern(&[
            "--backend",
            "cpu",
            "dam-break",
            "--nx",
            "40",
            "--t-end",
            "0.3",
            "--snapshots",
            "0.1",
            "--progress",
            every,
            "--output",
            s(dir),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for f in ["h_t0.3.npy", "hu_t0.3.npy", "hv_t0.3.npy"] {
        assert_eq!(std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap(), "{f} differs");
    }
    let _ = (std::fs::remove_dir_all(&a), std::fs::remove_dir_all(&b));
}

#[test]
fn a_blow_up_stops_names_the_cell_and_keeps_the_last_good_state() {
    let out = scratch("blowup");
    // An inflow no f32 can hold overflows h at the river mouth within a few steps.
    let args =
        ["--backend", "cpu", "--precision", "f32", "sediment", "--nx", "16", "--inflow", "1e36", "--progress", "0.05"];
    let o = hydrokern(&[&args[..], &["--output", s(&out)]].concat());
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("blew up") && err.contains("NumPy row"), "{err}");
    let kept: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("last_good_h"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let (h, _) = hydrokern::output::npy::read_npy_f64(&kept[0]).unwrap();
    assert!(h.iter().all(|v| v.is_finite()), "the kept state is not the last good one");
    let _ = std::fs::remove_dir_all(&out);
}

/// `--write-case` writes a new regular file whole: a symbolic link, a FIFO or a directory at the
/// name is refused always, an existing file without `--force`. The written case runs into a
/// directory named after it, not into its scenario's.
#[test]
fn write_case_replaces_nothing_and_gets_its_own_run_directory() {
    let dir = scratch("write-case");
    std::fs::create_dir_all(&dir).unwrap();
    let notes = dir.join("notes.toml");
    std::fs::write(&notes, b"mine").unwrap();
    let target = dir.join("target.txt");
    std::fs::write(&target, b"kept").unwrap();
    let link = dir.join("link.toml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = dir.join("fifo.toml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    refused(&["dam-break", "--write-case", s(&notes)], "the file exists; pass --force");
    assert_eq!(std::fs::read(&notes).unwrap(), b"mine");
    refused(&["dam-break", "--write-case", s(&link)], "a symbolic link");
    refused(&["dam-break", "--write-case", s(&link), "--force"], "a symbolic link");
    assert_eq!(std::fs::read(&target).unwrap(), b"kept");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    refused(&["dam-break", "--write-case", s(&fifo), "--force"], "not a regular file");
    refused(&["dam-break", "--write-case", s(&dir)], "a directory");
    // With --force an existing file is replaced, whole.
    let o = hydrokern(&["dam-break", "--write-case", s(&notes), "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&notes).unwrap().contains("solver = \"kp\""));
    // The scenario's output.dir gives way to one named after the file, said on stderr.
    let mine = dir.join("my-dam.toml");
    let o = hydrokern(&["dam-break", "--write-case", s(&mine)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("out/my-dam"), "{}", stderr(&o));
    let o = hydrokern(&["check", s(&mine)]);
    assert!(stdout(&o).contains("output to out/my-dam"), "{}{}", stdout(&o), stderr(&o));
    // A directory given on the command line stays.
    let given = dir.join("given.toml");
    let o = hydrokern(&["dam-break", "--output", "elsewhere", "--write-case", s(&given)]);
    assert!(o.status.success() && !stderr(&o).contains("out/given"), "{}", stderr(&o));
    assert!(stdout(&hydrokern(&["check", s(&given)])).contains("output to elsewhere"));
    let left: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(left.iter().all(|n| !n.contains(".tmp")), "temporary files left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn case_files_round_trip_and_errors_name_key_and_line() {
    let dir = scratch("case");
    std::fs::create_dir_all(&dir).unwrap();
    let case = dir.join("my-flood.toml");
    let o = hydrokern(&["flood", "--nx", "32", "--t-end", "0.2", "--snapshots", "0.1", "--write-case", s(&case)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = hydrokern(&["check", s(&case)]);
    assert!(o.status.success() && stdout(&o).contains("ok"), "{}{}", stdout(&o), stderr(&o));
    // The GPUs a run asks for are said, not looked for: the host that runs it may be another.
    let o = hydrokern(&["check", s(&case), "--gpus", "3"]);
    assert!(stdout(&o).contains("the first 3 GPUs of each host (an error on a host with fewer)"), "{}", stdout(&o));
    let out = dir.join("out");
    let o = hydrokern(&["--backend", "cpu", "run", s(&case), "--output", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("h_t0.2.npy").exists() && out.join("h_t0.1.npy").exists());
    // The case as run is kept with the results, and runs again to the same bits.
    let o = hydrokern(&["--backend", "cpu", "run", s(&out.join("case.toml")), "--output", s(&dir.join("again"))]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("h_t0.2.npy")).unwrap(), std::fs::read(dir.join("again/h_t0.2.npy")).unwrap());

    let text = std::fs::read_to_string(&case).unwrap();
    let line_of = |needle: &str| text.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    let bad = |name: &str, edit: &dyn Fn(&str) -> String, want: &str| {
        let p = dir.join(name);
        std::fs::write(&p, edit(&text)).unwrap();
        refused(&["check", s(&p)], want);
    };
    let nx_line = line_of("nx = ");
    bad("unknown.toml", &|t| t.replacen("nx = 32", "nxx = 32", 1), &format!("line {nx_line}"));
    bad("unknown2.toml", &|t| t.replacen("nx = 32", "nxx = 32", 1), "unknown field `nxx`");
    bad("type.toml", &|t| t.replacen("nx = 32", "nx = \"many\"", 1), "grid.nx");
    bad("missing.toml", &|t| t.replacen("t_end = 0.2", "", 1), "t_end");
    bad(
        "range.toml",
        &|t| t.replacen("theta = 1.3", "theta = 0.5", 1),
        &format!("line {}: physics.theta", line_of("theta")),
    );
    bad("cfl.toml", &|t| t.replacen("cfl = 0.25", "cfl = -1", 1), "time.cfl");
    bad("snap.toml", &|t| t.replacen("snapshots = [0.1]", "snapshots = [0.3]", 1), "output.snapshots");
    bad("zero.toml", &|t| t.replacen("nx = 32", "nx = 0", 1), "grid.nx");
    bad("solver.toml", &|t| t.replacen("solver = \"kp\"", "solver = \"kpp\"", 1), "unknown solver 'kpp'");
    refused(&["check", "/dev/zero"], "not a regular file");
    refused(&["check", s(&dir.join("nope.toml"))], "nope.toml");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_says_it_needs_a_gpu_without_contradicting_itself() {
    let o = hydrokern(&["--backend", "cpu", "bench", "copy"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cannot run with --backend cpu"), "{}", stderr(&o));
    let o = hydrokern(&["bench", "copy", "--reps", "1"]);
    let err = stderr(&o);
    assert!(o.status.success() || err.contains("needs a GPU"), "{err}");
    assert!(!err.contains("--backend cpu"), "{err}");
}

#[test]
fn info_and_gpu_choice_never_panic() {
    let o = hydrokern(&["info"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("backend: "));
    // Without a GPU, asking for one is a clear error; with one, it works.
    let o = hydrokern(&["--backend", "gpu", "info"]);
    let err = stderr(&o);
    assert!(o.status.success() || err.contains("no usable GPU"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// An empty output directory is refused naming the key, by `check` too.
#[test]
fn an_empty_output_directory_is_refused() {
    refused(&["dam-break", "--nx", "16", "--set", "output.dir=\"\""], "(output.dir): empty");
    let dir = scratch("empty-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let case = dir.join("case.toml");
    let text = "solver = \"kp\"\n[grid]\nnx = 8\nny = 8\nlx = 1.0\nly = 1.0\n[time]\nt_end = 0.1\n\
                [initial.lake-at-rest]\nlevel = 1.0\n[output]\ndir = \"\"\n";
    std::fs::write(&case, text).unwrap();
    refused(&["check", s(&case)], "line 12: output.dir: empty");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An origin has as many numbers as the grid has dimensions: three on a plane, or two on a
/// volume, are refused naming the key.
#[test]
fn an_origin_of_the_wrong_size_is_refused() {
    let out = scratch("origin");
    let o = s(&out);
    refused(&["dam-break", "--nx", "16", "--set", "grid.origin=[0, 0, 0]", "--output", o], "grid.origin");
    refused(&["seiche", "--set", "grid.origin=[0, 0, 0]", "--output", o], "grid.origin");
    refused(&["acoustics-3d", "--nx", "8", "--set", "grid.origin=[0, 0]", "--output", o], "grid.origin");
    refused(&["acoustics-2d", "--nx", "8", "--set", "grid.origin=[0, 0, 0]", "--output", o], "grid.origin");
    assert!(!out.exists());
}

/// `formats = []` writes no NPY, PNG or NetCDF file, the maximum maps' included (the gauges' CSV
/// files are the gauges' own).
#[test]
fn no_formats_write_no_pictures_or_arrays() {
    let out = scratch("no-formats");
    let o = hydrokern(&[
        "--backend",
        "cpu",
        "flood",
        "--nx",
        "16",
        "--t-end",
        "0.2",
        "--set",
        "output.formats=[]",
        "--output",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    for n in &names {
        assert!(!n.ends_with(".png") && !n.ends_with(".npy") && !n.ends_with(".gif") && !n.ends_with(".nc"), "{n}");
    }
    assert!(names.iter().any(|n| n.starts_with("gauge_")), "{names:?}");
    let _ = std::fs::remove_dir_all(&out);
}

/// A lone periodic side is refused naming the side's own key, not `initial`.
#[test]
fn a_lone_periodic_side_names_its_key() {
    let out = scratch("periodic");
    let o = s(&out);
    refused(
        &["dam-break", "--nx", "16", "--set", "boundary.west=periodic", "--output", o],
        "(boundary.west): periodic, but boundary.east is wall",
    );
    refused(
        &["dam-break", "--nx", "16", "--set", "boundary.north=periodic", "--output", o],
        "(boundary.north): periodic",
    );
    refused(
        &["acoustics-2d", "--nx", "16", "--set", "boundary.east=periodic", "--output", o],
        "(boundary.east): periodic",
    );
    let err = stderr(&hydrokern(&["dam-break", "--nx", "16", "--set", "boundary.west=periodic", "--output", o]));
    assert!(!err.contains("initial"), "{err}");
}

/// A non-finite value in an NPY input is refused naming the file and the first bad index, not
/// the case's `initial` key.
#[test]
fn a_non_finite_value_in_an_npy_input_names_the_file_and_the_index() {
    let dir = scratch("npy-nan");
    std::fs::create_dir_all(&dir).unwrap();
    let mut h = vec![10.0; 16 * 16];
    h[3 * 16 + 7] = f64::NAN;
    let path = dir.join("h.npy");
    hydrokern::output::write_npy(&path, &h, &[16, 16]).unwrap();
    let out = dir.join("out");
    refused(&["sediment", "--nx", "16", "--h-file", s(&path), "--output", s(&out)], "h.npy: NaN at [3, 7]");
    let _ = std::fs::remove_dir_all(&dir);
}

/// File names longer than a file system takes (a case named with 240 characters, its NetCDF
/// files' temporary names) are refused at `check`, not mid-run.
#[test]
fn file_names_past_the_file_system_limit_are_refused_at_check() {
    let dir = scratch("long-name");
    std::fs::create_dir_all(&dir).unwrap();
    // 240 bytes: its temporary name (`.<name>.tmp<pid>`) fits 255 with any pid, the NetCDF
    // file named after it (`<stem>_maxima.nc`, and its temporary name) does not.
    let long = dir.join(format!("{}.toml", "c".repeat(235)));
    let out = dir.join("out");
    let o = hydrokern(&["--backend", "cpu", "dam-break", "--nx", "16", "--output", s(&out), "--write-case", s(&long)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let netcdf = ["--set", "output.formats=[\"netcdf\"]"];
    refused(&[&["check", s(&long)][..], &netcdf].concat(), "more than the 255 a file name may have");
    refused(&[&["run", s(&long)][..], &netcdf].concat(), "the case's name");
    assert!(!out.exists());
    // Without NetCDF no file is named after the case.
    assert!(hydrokern(&["check", s(&long)]).status.success());
    let gauge = format!("output.gauges=[{{name = \"{}\", x = 20.0, y = 20.0}}]", "g".repeat(240));
    refused(&["flood", "--nx", "16", "--set", &gauge, "--output", s(&out)], "the gauge's name");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `hydrokern flood --tuning off`: the global options are taken after a scenario's name, and
/// after a case file's.
#[test]
fn global_options_after_the_scenario_are_taken() {
    let dir = scratch("tuning-after");
    let out = dir.join("out");
    let o = hydrokern(&[
        "flood",
        "--nx",
        "16",
        "--t-end",
        "0.05",
        "--tuning",
        "off",
        "--backend",
        "cpu",
        "--output",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let case = dir.join("flood.toml");
    let o = hydrokern(&["flood", "--nx", "16", "--t-end", "0.05", "--output", s(&out), "--write-case", s(&case)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for cmd in ["run", "check"] {
        let o = hydrokern(&[cmd, s(&case), "--tuning", "off", "--backend", "cpu", "--force"]);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
    }
    let o = hydrokern(&["flood", "--tuning", "sometimes"]);
    assert!(!o.status.success() && stderr(&o).contains("--tuning"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A forced shallow-water case with `forcing` as its `[forcing]` tables, in `dir`.
pub(crate) fn forced_case(dir: &std::path::Path, name: &str, forcing: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    // A `dt_max = …` line of the forcing text belongs to [time].
    let (time, forcing) = match forcing.strip_prefix("dt_max") {
        Some(rest) => rest.split_once('\n').map(|(v, f)| (format!("dt_max{v}\n"), f)).unwrap(),
        None => (String::new(), forcing),
    };
    let text = format!(
        "solver = \"kp\"\n[grid]\nnx = 10\nny = 8\nlx = 100.0\nly = 80.0\n[time]\nt_end = 60.0\n{time}\
         [initial.lake-at-rest]\nlevel = 0.0\n[output]\ndir = \"{}\"\nformats = [\"npy\"]\n[run]\nbackend = \"cpu\"\n{forcing}",
        dir.join(format!("out-{name}")).display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn bad_forcing_is_refused_with_one_line() {
    let dir = scratch("forcing");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("backwards.csv"), "0, 1\n30, 2\n20, 3\n70, 1\n").unwrap();
    std::fs::write(dir.join("short.csv"), "0, 1\n30, 2\n").unwrap();
    std::fs::write(dir.join("nan.csv"), "0, 1\n30, nan\n70, 1\n").unwrap();
    let cases: &[(&str, &str)] = &[
        ("[forcing.rain]\nseries = \"missing.csv\"\n", "missing.csv"),
        ("[forcing.rain]\nseries = \"backwards.csv\"\n", "times must increase"),
        ("[forcing.rain]\nseries = \"short.csv\"\n", "before the run's end"),
        ("[forcing.rain]\nseries = \"nan.csv\"\n", "nan.csv"),
        ("[forcing.rain]\nintensity = -5.0\n", "forcing.rain"),
        ("[forcing.rain]\nintensity = 5.0\nunit = \"in/h\"\n", "in/h"),
        ("[forcing.rain]\nintensity = 5.0\npoints = [[0, 1], [60, 1]]\n", "exactly one of"),
        (
            "[forcing.infiltration]\nconductivity = -1.0\nsuction = 100.0\ndeficit = 0.3\n",
            "forcing.infiltration.conductivity",
        ),
        (
            "[forcing.infiltration]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 1.5\n",
            "forcing.infiltration.deficit",
        ),
        (
            "[forcing.infiltration]\nmodel = \"philip\"\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n",
            "green-ampt",
        ),
        ("[[forcing.inflow]]\nside = \"west\"\nfrom = 70.0\nto = 90.0\ndischarge = 1.0\n", "within the west side"),
        ("[[forcing.inflow]]\nside = \"up\"\nfrom = 10.0\nto = 20.0\ndischarge = 1.0\n", "forcing.inflow[0].side"),
        ("[[forcing.inflow]]\nat = [150.0, 10.0]\ndischarge = 1.0\n", "outside the grid"),
        ("[[forcing.inflow]]\ndischarge = 1.0\n", "where the inflow enters"),
        ("[[forcing.inflow]]\nat = [50.0, 10.0]\ndischarge = -1.0\n", "must not be negative"),
        ("dt_max = 0.0\n[forcing.rain]\nintensity = 5.0\n", "time.dt_max"),
        ("[[forcing.level]]\nside = \"down\"\nlevel = 1.0\n", "forcing.level[0].side"),
        ("[[forcing.level]]\nside = \"west\"\nfrom = 50.0\nto = 95.0\nlevel = 1.0\n", "within the west side"),
        (
            "[[forcing.level]]\nside = \"west\"\nlevel = 1.0\ntide = { amplitude = 1.0, period = 600.0 }\n",
            "exactly one of",
        ),
        (
            "[[forcing.level]]\nside = \"west\"\ntide = { amplitude = 1.0, period = 0.0 }\n",
            "forcing.level[0].tide.period",
        ),
        // 1.5e34 samples of the tide over the run: more than a usize counts.
        (
            "[[forcing.level]]\nside = \"west\"\ntide = { amplitude = 1.0, period = 1e-30 }\n",
            "points of the tide (256 a period), more than 10⁷",
        ),
        (
            "[[forcing.level]]\nside = \"west\"\nlevel = 1.0\n[[forcing.level]]\nside = \"west\"\nfrom = 0.0\nto = 30.0\nlevel = 2.0\n",
            "overlaps",
        ),
        (
            "[boundary]\neast = \"outflow\"\n[[forcing.outlet]]\nside = \"east\"\nfrom = 0.0\nto = 30.0\n",
            "an outlet opens a reach of a wall side",
        ),
        ("[[forcing.outlet]]\nside = \"east\"\nkind = \"weir\"\n", "forcing.outlet[0].kind"),
        (
            "[[forcing.level]]\nside = \"west\"\nfrom = 0.0\nto = 30.0\nlevel = 1.0\n[[forcing.outlet]]\nside = \"west\"\nfrom = 20.0\nto = 40.0\n",
            "a cell holds one level or outlet",
        ),
        ("[[forcing.outlet]]\nside = \"south\"\nfrom = 90.0\nto = 120.0\n", "within the south side"),
        (
            "[boundary]\nwest = \"periodic\"\neast = \"periodic\"\n[[forcing.level]]\nside = \"west\"\nlevel = 1.0\n",
            "forcing.level[0]: boundary.west is periodic",
        ),
        (
            "[boundary]\neast = \"outflow\"\n[[forcing.outlet]]\nname = \"east\"\nside = \"south\"\n",
            "forcing.outlet[0].name: 'east' names the open side boundary.east too",
        ),
        (
            "[[forcing.level]]\nname = \"mouth\"\nside = \"west\"\nlevel = 1.0\n[[forcing.outlet]]\nname = \"mouth\"\nside = \"south\"\n",
            "forcing.outlet[0].name: 'mouth' names forcing.level[0] too",
        ),
    ];
    for (k, (forcing, want)) in cases.iter().enumerate() {
        let case = forced_case(&dir, &format!("bad{k}"), forcing);
        refused(&["run", s(&case)], want);
        assert!(!dir.join(format!("out-bad{k}")).exists(), "{forcing}: the refused run wrote its directory");
    }
    let case = forced_case(&dir, "mixed", "[[forcing.inflow]]\nat = [50.0, 10.0]\ndischarge = 1.0\n");
    refused(&["run", s(&case), "--precision", "mixed"], "precision mixed");
    let case = forced_case(&dir, "split", "[[forcing.level]]\nside = \"west\"\nlevel = 1.0\n");
    refused(&["run", s(&case), "--scheme", "ds2"], "ds1 and ds2");
    let case = forced_case(&dir, "split-outlet", "[[forcing.outlet]]\nside = \"south\"\n");
    refused(&["run", s(&case), "--scheme", "ds1"], "ds1 and ds2");
}

/// A `.prj` of UTM zone `zone` north on WGS 84 (EPSG 326zz).
pub(crate) fn utm_prj(zone: u16) -> String {
    format!(
        "PROJCS[\"WGS 84 / UTM zone {zone}N\",GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563]],PRIMEM[\"Greenwich\",0],UNIT[\"degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],UNIT[\"metre\",1],AUTHORITY[\"EPSG\",\"326{zone}\"]]"
    )
}

/// Gridded rain and soil rasters that cannot be used are refused in one line naming the key or
/// the file, before anything is written. The case's grid is 10 × 8 cells of 10 m from (0, 0).
#[test]
fn bad_rain_grids_and_soil_rasters_are_refused_with_one_line() {
    let dir = scratch("forcing-rasters");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    // Rain: 5 × 4 cells of 20 m cover the grid.
    let rain = |v: &str| ascii_grid(5, 4, (0.0, 0.0), 20.0, |_, _| v.to_string());
    write("r1.asc", rain("10"));
    write("r2.asc", rain("20"));
    write(
        "negative.asc",
        ascii_grid(5, 4, (0.0, 0.0), 20.0, |i, j| if (i, j) == (3, 1) { "-2".into() } else { "5".into() }),
    );
    write("nan.asc", ascii_grid(5, 4, (0.0, 0.0), 20.0, |i, _| if i == 4 { "nan".into() } else { "5".into() }));
    write(
        "hole.asc",
        ascii_grid(5, 4, (0.0, 0.0), 20.0, |i, j| if (i, j) == (2, 2) { "-9999".into() } else { "5".into() }),
    );
    write("narrow.asc", ascii_grid(3, 4, (0.0, 0.0), 20.0, |_, _| "5".into()));
    write("finer.asc", ascii_grid(10, 8, (0.0, 0.0), 10.0, |_, _| "5".into()));
    std::fs::write(dir.join("radar.nc"), b"CDF\x02\0\0\0\0").unwrap();
    std::fs::write(dir.join("radar4.nc"), b"\x89HDF\r\n\x1a\n\0\0").unwrap();
    write("zone33.asc", rain("5"));
    write("zone33.prj", utm_prj(33));
    write("zone34.asc", rain("5"));
    write("zone34.prj", utm_prj(34));
    // Soils: classes 1 and 2 in halves; a class 3; a fraction; a negative conductivity.
    write("classes.asc", ascii_grid(10, 8, (0.0, 0.0), 10.0, |i, _| if i < 5 { "1".into() } else { "2".into() }));
    write(
        "class3.asc",
        ascii_grid(10, 8, (0.0, 0.0), 10.0, |i, j| if (i, j) == (7, 6) { "3".into() } else { "1".into() }),
    );
    write("fraction.asc", ascii_grid(10, 8, (0.0, 0.0), 10.0, |i, _| if i == 9 { "1.5".into() } else { "1".into() }));
    write(
        "ks.asc",
        ascii_grid(10, 8, (0.0, 0.0), 10.0, |i, j| if (i, j) == (4, 5) { "-1".into() } else { "3".into() }),
    );
    let grids = |frames: &[(f64, &str)], end: f64| {
        let list: Vec<String> = frames.iter().map(|(t, f)| format!("{{ time = {t}, file = \"{f}\" }}")).collect();
        format!("[forcing.rain]\ngrids = [{}]\nend = {end}\n", list.join(", "))
    };
    let classes = "[forcing.infiltration]\nclasses = \"classes.asc\"\n\
                   [forcing.infiltration.class.1]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n";
    let cases: Vec<(String, &str)> = vec![
        (grids(&[(0.0, "missing.asc")], 60.0), "missing.asc"),
        (grids(&[(0.0, "r1.asc"), (30.0, "r2.asc"), (20.0, "r1.asc")], 60.0), "frame times must increase strictly"),
        (grids(&[(0.0, "negative.asc")], 60.0), "rain must not be negative"),
        (grids(&[(0.0, "nan.asc")], 60.0), "nan.asc"),
        (grids(&[(0.0, "hole.asc")], 60.0), "nodata"),
        (grids(&[(0.0, "narrow.asc")], 60.0), "lies outside"),
        (grids(&[(0.0, "r1.asc"), (30.0, "finer.asc")], 60.0), "share one grid"),
        (grids(&[(0.0, "radar.nc")], 60.0), "a NetCDF-3 file"),
        (grids(&[(0.0, "radar4.nc")], 60.0), "a NetCDF-4 (HDF5) file"),
        (grids(&[(0.0, "zone33.asc"), (30.0, "zone34.asc")], 60.0), "EPSG:32634"),
        (grids(&[(10.0, "r1.asc")], 60.0), "after the run's start"),
        (grids(&[(0.0, "r1.asc")], 30.0), "before the run's end"),
        (grids(&[(0.0, "r1.asc"), (30.0, "r2.asc")], 20.0), "forcing.rain.end"),
        (grids(&[], 60.0), "forcing.rain.grids"),
        ("[forcing.rain]\ngrids = [{ time = 0, file = \"r1.asc\" }]\n".into(), "forcing.rain.end"),
        ("[forcing.rain]\nintensity = 5.0\nend = 60.0\n".into(), "given without grids"),
        ("[forcing.rain]\nintensity = 5.0\ngrids = [{ time = 0, file = \"r1.asc\" }]\nend = 60.0\n".into(), "exactly one of"),
        (classes.into(), "[forcing.infiltration.class.2]"),
        (
            "[forcing.infiltration]\nclasses = \"class3.asc\"\n\
             [forcing.infiltration.class.1]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n"
                .into(),
            "class 3",
        ),
        (
            "[forcing.infiltration]\nclasses = \"fraction.asc\"\n\
             [forcing.infiltration.class.1]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n"
                .into(),
            "a class is an integer",
        ),
        (format!("{classes}[forcing.infiltration.class.2]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 1.0\n"), "forcing.infiltration.class.2.deficit"),
        (format!("{classes}[forcing.infiltration.class.2]\nconductivity = 5.0\nsuction = 100.0\n"), "forcing.infiltration.class.2.deficit"),
        (format!("{classes}[forcing.infiltration.class.2]\nconductivity = 5.0\nsuction = -1.0\ndeficit = 0.1\n"), "forcing.infiltration.class.2.suction"),
        ("[forcing.infiltration]\nconductivity = \"ks.asc\"\nsuction = 100.0\ndeficit = 0.3\n".into(), "forcing.infiltration.conductivity"),
        ("[forcing.infiltration]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 1.0\n".into(), "forcing.infiltration.deficit"),
        ("[forcing.infiltration]\nconductivity = 5.0\nsuction = \"nothing.asc\"\ndeficit = 0.3\n".into(), "nothing.asc"),
        ("[forcing.infiltration]\nmodel = \"horton\"\nf0 = 20.0\nfc = 50.0\nk = 2.0\n".into(), "exceeds f0"),
        ("[forcing.infiltration]\nmodel = \"horton\"\nf0 = 60.0\nfc = 5.0\n".into(), "forcing.infiltration.k"),
        ("[forcing.infiltration]\nmodel = \"horton\"\nf0 = 60.0\nfc = 5.0\nk = 0.0\n".into(), "forcing.infiltration.k"),
        ("[forcing.infiltration]\nf0 = 60.0\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n".into(), "not a parameter of green-ampt"),
        (
            "[forcing.infiltration]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n[forcing.infiltration.class.1]\nconductivity = 5.0\n".into(),
            "without classes",
        ),
        (classes.replace("classes.asc\"\n", "classes.asc\"\nsuction = 3.0\n"), "given with classes"),
    ];
    for (k, (forcing, want)) in cases.iter().enumerate() {
        let case = forced_case(&dir, &format!("bad{k}"), forcing);
        refused(&["run", s(&case)], want);
        assert!(!dir.join(format!("out-bad{k}")).exists(), "{forcing}: the refused run wrote its directory");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run with gridded rain (two halves at 36 and 72 mm/h) on two soil classes closes its water
/// account, the rain the frames' exact integral over the grid.
#[test]
fn a_run_with_rain_grids_and_soil_classes_closes_its_account() {
    let dir = scratch("forcing-grids-account");
    std::fs::create_dir_all(&dir).unwrap();
    // Rain cells of 50 m: two columns, two rows (the northern reaching past the grid's 80 m).
    let halves = |west: &str, east: &str| {
        ascii_grid(2, 2, (0.0, 0.0), 50.0, |i, _| if i == 0 { west.to_string() } else { east.to_string() })
    };
    std::fs::write(dir.join("a.asc"), halves("36", "72")).unwrap();
    std::fs::write(dir.join("b.asc"), halves("72", "0")).unwrap();
    std::fs::write(
        dir.join("soil.asc"),
        ascii_grid(10, 8, (0.0, 0.0), 10.0, |i, _| if i < 5 { "1".into() } else { "2".into() }),
    )
    .unwrap();
    let forcing = "[forcing.rain]\ngrids = [{ time = 0, file = \"a.asc\" }, { time = 0.5, file = \"b.asc\" }]\n\
                   end = 1\ntime_unit = \"min\"\n\
                   [forcing.infiltration]\nclasses = \"soil.asc\"\n\
                   [forcing.infiltration.class.1]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n\
                   [forcing.infiltration.class.2]\nconductivity = 20.0\nsuction = 50.0\ndeficit = 0.2\n";
    let case = forced_case(&dir, "ok", forcing);
    let o = hydrokern(&["run", s(&case)]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}\n{}", out, stderr(&o));
    let line = out.lines().find(|l| l.contains("water account")).unwrap_or_else(|| panic!("no account in:\n{out}"));
    // West half 36 then 72 mm/h, east half 72 then 0, 30 s each, halves of 4000 m²:
    // (36 + 72 + 72) mm/h × 30 s × 4000 m² = 6 m³.
    assert!(line.contains("rain 6.000000e0") && line.contains("inflow 0.000000e0"), "{line}");
    let rel: f64 = line.split(" of the water").next().unwrap().rsplit('(').next().unwrap().parse().unwrap();
    assert!(rel.abs() < 1e-13, "{line}");
    assert!(out.contains("gridded rain of 2 frame(s) of 4 cell(s)"), "{out}");
    assert!(out.contains("Green–Ampt soils per cell (2 kinds)"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The estuary's tide comes in by its mouth, the one boundary segment: the summary names it
/// with the water that came in and left, the residual is round-off, the progress lines say what
/// left, and `account.csv` and the NetCDF fields' file hold the account at every snapshot, the
/// same values.
#[test]
fn the_estuary_accounts_for_its_mouth() {
    use hydrokern::output::netcdf::{Dataset, Values};
    let dir = scratch("estuary-account");
    let out = dir.join("out");
    let o = hydrokern(&[
        "--backend",
        "cpu",
        "estuary-tide",
        "--set",
        "time.t_end=1200",
        "--set",
        "output.snapshots=[600]",
        "--set",
        "output.formats=[\"npy\", \"netcdf\"]",
        "--set",
        "output.maxima=false",
        "--output",
        s(&out),
    ]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}\n{}", text, stderr(&o));
    let line = text.lines().find(|l| l.contains("water account")).unwrap_or_else(|| panic!("no account in:\n{text}"));
    let rel: f64 = line.split(" of the water").next().unwrap().rsplit('(').next().unwrap().parse().unwrap();
    assert!(rel.abs() < 1e-13, "{line}");
    let into: f64 =
        line.split("mouth out ").nth(1).unwrap().split(" in ").nth(1).unwrap().trim_end_matches(')').parse().unwrap();
    assert!(into > 1e5, "the flood tide comes in by the mouth: {line}");
    assert!(
        text.lines().any(|l| l.contains("step") && l.contains(", out ")),
        "no outflow in the progress lines:\n{text}"
    );
    let csv = std::fs::read_to_string(out.join("account.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[1], "t,storage,rain,inflow,infiltration,mouth_out,mouth_in,residual");
    assert_eq!(rows.len(), 4, "a row a snapshot (600 s and the end):\n{csv}");
    let last: Vec<f64> = rows[3].split(',').map(|v| v.parse().unwrap()).collect();
    // The summary's seven digits of the last row's mouth_in.
    assert!((last[6] / into - 1.0).abs() < 1e-6, "{line}\n{csv}");
    let mut nc = Dataset::open(&out.join("estuary-tide.nc")).unwrap();
    assert_eq!(nc.read_text("boundary_name").unwrap(), ["mouth"]);
    for (k, row) in rows[2..].iter().enumerate() {
        let row: Vec<f64> = row.split(',').map(|v| v.parse().unwrap()).collect();
        let mut at = |name: &str| nc.read(name, Some(k as u64)).unwrap();
        assert_eq!(at("time"), Values::F64(vec![row[0]]));
        assert_eq!(at("storage"), Values::F64(vec![row[1]]));
        assert_eq!(at("outflow_volume"), Values::F64(vec![row[5]]));
        assert_eq!(at("boundary_inflow_volume"), Values::F64(vec![row[6]]));
        assert_eq!(at("residual"), Values::F64(vec![row[7]]));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A forced run closes its water account: the summary's residual is round-off in f64.
#[test]
fn a_forced_run_reports_its_water_account() {
    let dir = scratch("forcing-account");
    let forcing = "[forcing.rain]\npoints = [[0, 0], [30, 40], [60, 0]]\nunit = \"mm/h\"\n\
                   [forcing.infiltration]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n\
                   [[forcing.inflow]]\nside = \"south\"\nfrom = 20.0\nto = 45.0\ndischarge = 0.5\n";
    let case = forced_case(&dir, "ok", forcing);
    let o = hydrokern(&["run", s(&case)]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}\n{}", out, stderr(&o));
    let line = out.lines().find(|l| l.contains("water account")).unwrap_or_else(|| panic!("no account in:\n{out}"));
    // rain: 20 mm/h on average for 60 s over 100 m × 80 m; inflow 0.5 m³/s for 60 s.
    assert!(line.contains("rain 2.666667e0") && line.contains("inflow 3.000000e1"), "{line}");
    let rel: f64 = line.split(" of the water").next().unwrap().rsplit('(').next().unwrap().parse().unwrap();
    assert!(rel.abs() < 1e-13, "{line}");
    assert!(dir.join("out-ok").join("infiltration_t60.npy").exists(), "no infiltration field written");
}
