//! The plan of a run, as `check` prints it and `run` holds to it: one check for both (steps, the
//! output's snapshots, checkpoints and files), numbers as people write them, and the output that
//! `check` announces against what a run writes.

use crate::cmd::*;
use std::path::{Path, PathBuf};

/// The case file of scenario `name` with `flags` applied, written into `dir`.
fn case_of(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    let out = dir.join("out");
    let mut args = vec!["--backend", "cpu", name, "--output", s(&out), "--write-case", s(&path)];
    args.extend(flags);
    let o = hydrokern(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    path
}

/// A size as `files::bytes` writes it ("53.1 MiB"), in bytes.
fn parse_bytes(text: &str) -> f64 {
    let mut parts = text.split_whitespace();
    let v: f64 = parts.next().unwrap().parse().unwrap();
    let unit = match parts.next().unwrap() {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        u => panic!("unit {u}"),
    };
    v * unit
}

/// Whether `text` holds a run of `n` digits or more: a number nobody can read.
fn long_digits(text: &str, n: usize) -> bool {
    text.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() >= n)
}

/// `check` and `run` make one check: a run past its step limit (`t_end = 1e12`, a checkpoint
/// every 1e-9 s) is refused by both with the same line, and a run `check` passes runs, in about
/// the steps it announced.
#[test]
fn check_and_run_refuse_the_same_runs() {
    let dir = scratch("plan-agree");
    let case = case_of(&dir, "dam-break", &["--nx", "32"]);
    for (flags, want) in [
        (&["--set", "time.t_end=1e12"][..], "more than run.max_steps = 1e8"),
        (&["--set", "output.checkpoint_every=1e-9"][..], "output.checkpoint_every"),
        (&["--max-steps", "5"][..], "more than run.max_steps = 5"),
    ] {
        let mut check = vec!["check", s(&case)];
        check.extend(flags);
        let mut run = vec!["run", s(&case)];
        run.extend(flags);
        refused(&check, want);
        refused(&run, want);
        assert_eq!(stderr(&hydrokern(&check)), stderr(&hydrokern(&run)), "check and run say different things");
    }
    assert!(!dir.join("out").exists(), "a refused run wrote its directory");
    // What check passes, run runs; the steps check announces bound the run's.
    let o = hydrokern(&["check", s(&case)]);
    let text = stdout(&o);
    let announced: f64 = text.split("about ").nth(1).and_then(|t| t.split(' ').next()).unwrap().parse().unwrap();
    let o = hydrokern(&["run", s(&case)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let done = stdout(&o).lines().find(|l| l.starts_with("done: ")).unwrap().to_string();
    let steps: f64 = done["done: ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert!(steps <= announced * 1.5, "check announced about {announced} steps, the run took {steps}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Numbers show as people write them, 1e300 rather than 301 digits: the step estimate, a
/// refused snapshot time or value, the summary.
#[test]
fn numbers_read_as_people_write_them() {
    let dir = scratch("plan-numbers");
    let case = case_of(&dir, "dam-break", &["--nx", "32"]);
    let o = hydrokern(&["check", s(&case), "--set", "time.t_end=1e300"]);
    let err = stderr(&o);
    assert!(err.contains("about 1.58e301 steps") && !long_digits(&err, 12), "{err}");
    refused(
        &["check", s(&case), "--set", "output.snapshots=[2e300]"],
        "2e300: snapshot times must lie in [0, time.t_end = 1]",
    );
    refused(&["check", s(&case), "--set", "physics.theta=1e300"], "1e300: must lie in [1, 2]");
    let o = hydrokern(&["check", s(&case), "--set", "grid.lx=1e300", "--set", "grid.ly=1e300"]);
    let text = stdout(&o) + &stderr(&o);
    assert!(text.contains("cells of 3.125e298 m × 3.125e298 m") && !long_digits(&text, 12), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The plan counts the output: 99 000 snapshots (700 000 files) and a checkpoint every 1e-9 s
/// are refused past the documented limits, and the files and bytes `check` announces bound what
/// a run writes.
#[test]
fn output_is_counted_announced_and_limited() {
    let dir = scratch("plan-output");
    let case = case_of(&dir, "dam-break", &["--nx", "32"]);
    let many: Vec<String> = (1..=99_000).map(|k| format!("{k}.0")).collect();
    let text = std::fs::read_to_string(&case).unwrap().replace("t_end = 1.0", "t_end = 100000.0");
    let text = text.replace("snapshots = [0.25, 0.5, 0.75]", &format!("snapshots = [{}]", many.join(",")));
    let crowded = dir.join("crowded.toml");
    std::fs::write(&crowded, text).unwrap();
    refused(&["check", s(&crowded)], "a run writes at most 100000");
    refused(&["run", s(&crowded)], "a run writes at most 100000");
    refused(&["check", s(&case), "--checkpoint-every", "1e-9"], "1e9 checkpoints");
    // With NPY and PNG, the flood's gauges, maps and a checkpoint: check's count of files and
    // bytes against the run directory.
    let flood = case_of(
        &dir,
        "flood",
        &["--nx", "32", "--t-end", "0.4", "--snapshots", "0.1,0.2,0.3", "--checkpoint-every", "0.2"],
    );
    let o = hydrokern(&["check", s(&flood)]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = text.lines().find(|l| l.contains("files written")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("4 snapshots, 1 checkpoint, "), "{line}");
    let files: u64 = line.split("output: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    let bytes = parse_bytes(line.split("about ").last().unwrap());
    let o = hydrokern(&["run", s(&flood)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.join("out");
    let written: Vec<std::fs::DirEntry> = std::fs::read_dir(&out).unwrap().map(Result::unwrap).collect();
    let on_disk: u64 = written.iter().map(|e| e.metadata().unwrap().len()).sum();
    assert!(written.len() as u64 <= files, "{} files in the directory, {files} announced", written.len());
    assert!(
        on_disk as f64 <= bytes && bytes <= 4.0 * on_disk as f64,
        "{on_disk} bytes written, about {bytes} announced"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
