//! The plan of a run, as `check` prints it and `run` holds to it: one check for both (the steps
//! and the memory), and numbers as people write them.

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

/// Whether `text` holds a run of `n` digits or more: a number nobody can read.
fn long_digits(text: &str, n: usize) -> bool {
    text.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() >= n)
}

/// `check` and `run` make one check: a run past its step limit (`t_end = 1e12`) is refused by
/// both with the same line, and a run `check` passes runs, in about the steps it announced.
#[test]
fn check_and_run_refuse_the_same_runs() {
    let dir = scratch("plan-agree");
    let case = case_of(&dir, "dam-break", &["--nx", "32"]);
    for (flags, want) in [
        (&["--set", "time.t_end=1e12"][..], "more than run.max_steps = 1e8"),
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
