//! What the command-line tests share: running the binary, reading its output, scratch
//! directories, case files of scenarios, and the shape of a clean refusal.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> PathBuf {
    // `$HYDROKERN_BIN` is set by the GPU bundle's runner, where cargo's build path does not exist.
    std::env::var_os("HYDROKERN_BIN").map(PathBuf::from).unwrap_or(PathBuf::from(env!("CARGO_BIN_EXE_hydrokern")))
}

pub fn hydrokern(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run hydrokern")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hydrokern-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A clean refusal: non-zero exit, no panic or backtrace, one line naming `want`.
pub fn refused(args: &[&str], want: &str) {
    let o = hydrokern(args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded:\n{}", stdout(&o));
    assert!(!err.contains("panicked") && !err.contains("backtrace"), "{args:?} panicked:\n{err}");
    assert!(err.contains(want), "{args:?}: expected '{want}' in:\n{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "{args:?}: expected one error line:\n{err}");
}

/// The case file of scenario `name` with `flags` applied (`--write-case`), written into `dir`;
/// its output goes to `dir/out`.
pub fn case_of(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    let out = dir.join("out");
    let mut args = vec!["--backend", "cpu", name, "--output", s(&out), "--write-case", s(&path)];
    args.extend(flags);
    let o = hydrokern(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    path
}
