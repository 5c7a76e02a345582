//! Runs that meet each other, through the built binary: a second run into a directory in use is
//! refused naming the first, and a killed run's lock is taken over.

use crate::cmd::{bin, hydrokern, refused, s, scratch, stderr};
use hydrokern::run::{LOCK_FILE, MANIFEST};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A sediment run long enough to meet whatever the test does to it, into `out`.
fn long_run(out: &Path, extra: &[&str]) -> Child {
    let mut args = vec!["--backend", "cpu", "sediment", "--nx", "48", "--steps", "50000000", "--output", s(out)];
    args.extend(extra);
    Command::new(bin()).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Wait until `path` exists (the run has its directory), at most a minute.
fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join(MANIFEST)).unwrap()).unwrap()
}

#[test]
fn a_second_run_into_a_directory_in_use_is_refused() {
    let out = scratch("locked");
    let mut first = long_run(&out, &[]);
    wait_for(&out.join(LOCK_FILE));
    let second = ["--backend", "cpu", "sediment", "--nx", "16", "--steps", "10", "--output", s(&out)];
    refused(&second, &format!("output directory {} is in use by another run (pid {})", out.display(), first.id()));
    assert_eq!(manifest(&out)["status"], "running");
    // A run killed outright leaves its lock file; the next run takes it over and says so.
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(out.join(LOCK_FILE).exists());
    let o = hydrokern(&second);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("took over the lock left by run {}", first.id())), "{}", stderr(&o));
    assert!(!out.join(LOCK_FILE).exists());
    assert_eq!(manifest(&out)["status"], "finished");
    let _ = std::fs::remove_dir_all(&out);
}
