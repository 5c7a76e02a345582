//! Runs that meet each other or a signal, through the built binary: a second run into a
//! directory in use is refused naming the first, a killed run's lock is taken over, and SIGINT
//! or SIGTERM stop a run at a step boundary with its outputs whole and its manifest saying so.

use crate::cmd::{bin, hydrokern, refused, s, scratch, stderr, stdout};
use hydrokern::run::{LOCK_FILE, MANIFEST};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A sediment run long enough to meet whatever the test does to it, into `out`: five million
/// steps, so a checkpoint every 20 000 years (56 steps) stays under the limit on output events.
fn long_run(out: &Path, extra: &[&str]) -> Child {
    let mut args = vec!["--backend", "cpu", "sediment", "--nx", "48", "--steps", "5000000", "--output", s(out)];
    args.extend(extra);
    Command::new(bin()).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Wait until `path` exists (the run has its directory), at most a minute; a run that ends
/// first fails the test with what it said.
fn wait_for(path: &Path, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("the run ended ({status}) before {} appeared: {err}", path.display());
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    assert!(Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap().success());
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join(MANIFEST)).unwrap()).unwrap()
}

#[test]
fn a_second_run_into_a_directory_in_use_is_refused() {
    let out = scratch("locked");
    let mut first = long_run(&out, &[]);
    wait_for(&out.join(LOCK_FILE), &mut first);
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

/// SIGINT and SIGTERM stop the run at a step boundary: one line saying where, the status a shell
/// gives the signal (130, 143), a manifest that says "interrupted" with the time and step, every
/// file listed there whole, and the directory's lock gone.
#[test]
fn a_signal_stops_the_run_cleanly() {
    for (sig, code) in [("-INT", 130), ("-TERM", 143)] {
        let out = scratch(&format!("signal{sig}"));
        let mut child = long_run(&out, &["--checkpoint-every", "20000"]);
        wait_for(&out.join(LOCK_FILE), &mut child);
        // Past the first checkpoint (56 steps), so the line names it.
        std::thread::sleep(Duration::from_millis(1500));
        signal(&child, sig);
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{sig}: {err}{}", stdout(&o));
        assert!(!err.contains("panicked") && !err.contains("error"), "{err}");
        let line = err.lines().find(|l| l.starts_with("interrupted at t = ")).unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains(", step ") && line.contains("outputs up to t = 0 yr are complete"), "{line}");
        assert!(line.contains("--restart") && line.contains("checkpoint.hkc"), "{line}");
        let m = manifest(&out);
        assert_eq!(m["status"], "interrupted", "{m}");
        assert!(m["t"].as_f64().unwrap() > 0.0 && m["step"].as_u64().unwrap() > 0, "{m}");
        assert!(line.contains(&format!("step {}", m["step"])), "{line} {m}");
        assert!(!out.join(LOCK_FILE).exists());
        for f in m["files"].as_array().unwrap() {
            let f = out.join(f.as_str().unwrap());
            assert!(std::fs::metadata(&f).is_ok_and(|m| m.len() > 0), "{} listed, not there", f.display());
        }
        let left: Vec<_> = outputs(&out).into_iter().filter(|p| p.to_string_lossy().contains(".tmp")).collect();
        assert!(left.is_empty(), "{left:?}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// The directory's entries.
fn outputs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

/// `--ranks` in a build without MPI: one line that says how to build with it; `--ranks 1` runs
/// as any run; no rank count of 0.
#[test]
fn ranks_need_a_build_with_mpi() {
    let out = scratch("ranks");
    let base = ["--backend", "cpu", "sediment", "--nx", "8", "--steps", "2", "--output", s(&out)];
    refused(
        &[&base[..], &["--ranks", "2"]].concat(),
        "built without MPI; build it with `cargo build --release -p host --features mpi`",
    );
    assert!(!out.exists(), "a refused run wrote {}", out.display());
    let o = hydrokern(&[&base[..], &["--ranks", "1"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    refused(&[&base[..], &["--ranks", "0"]].concat(), "--ranks");
    let _ = std::fs::remove_dir_all(&out);
}
