//! The command line as a user meets it: bad input is a one-line error and a non-zero exit,
//! never a panic; a scenario writes its outputs whole; a blow-up stops, names the cell and
//! keeps the last good state.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The binary under test: `$HYDROKERN_BIN` (set by the GPU bundle's runner, where cargo's
/// build path does not exist), else the one cargo built.
fn hydrokern(args: &[&str]) -> Output {
    let bin =
        std::env::var_os("HYDROKERN_BIN").map(PathBuf::from).unwrap_or(PathBuf::from(env!("CARGO_BIN_EXE_hydrokern")));
    Command::new(bin).args(args).output().expect("run hydrokern")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hydrokern-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A clean refusal: non-zero exit, no panic or backtrace, the message contains `want`.
fn refused(args: &[&str], want: &str) {
    let o = hydrokern(args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(!err.contains("panicked") && !err.contains("backtrace"), "{args:?} panicked:\n{err}");
    assert!(err.contains(want), "{args:?}: expected '{want}' in:\n{err}");
}

#[test]
fn unknown_names_are_refused_with_the_list() {
    refused(&["flood-of-the-century"], "scenarios: ");
    refused(&["bench", "nope"], "possible values");
    refused(&["sediment", "--variant", "opt9/opt1"], "unknown sediment variant");
    refused(&["sediment", "--block", "0x8"], "block");
    refused(&["--precision", "f16", "info"], "f16");
}

#[test]
fn bad_sediment_input_is_refused_before_any_work() {
    let out = scratch("bad");
    let o = out.to_str().unwrap();
    refused(&["sediment", "--nx", "0", "--output", o], "must be positive");
    refused(&["sediment", "--nx", "16", "--ny", "16", "--dt", "1e9", "--output", o], "stability limit");
    refused(
        &["sediment", "--nx", "16", "--ny", "16", "--s-file", "/nonexistent.npy", "--output", o],
        "/nonexistent.npy",
    );
    refused(&["sediment", "--output", "/proc/hydrokern-cannot-write-here"], "output directory");
    assert!(!out.join("h.npy").exists(), "a refused run wrote output");
}

#[test]
fn sediment_writes_every_output_file() {
    let out = scratch("ok");
    let o = hydrokern(&[
        "--backend",
        "cpu",
        "sediment",
        "--nx",
        "24",
        "--ny",
        "16",
        "--steps",
        "50",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("volume gained") && text.contains("[100%]"), "{text}");
    for f in ["h.png", "s.png", "deposit.png", "h.npy", "s.npy"] {
        let len = std::fs::metadata(out.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{f} missing or empty");
    }
    let (h, shape) = hydrokern::output::npy::read_npy_f64(&out.join("h.npy")).unwrap();
    assert_eq!(shape, vec![16, 24]);
    assert!(h.iter().all(|v| v.is_finite()));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_blow_up_stops_names_the_cell_and_keeps_the_last_good_state() {
    let out = scratch("blowup");
    // An inflow no f32 can hold overflows h at the river mouth within a few steps.
    let args = ["--backend", "cpu", "--precision", "f32", "sediment", "--nx", "16", "--ny", "16", "--inflow", "1e36"];
    let o = hydrokern(&[&args[..], &["--output", out.to_str().unwrap()]].concat());
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("blew up") && err.contains("cell ("), "{err}");
    let (h, _) = hydrokern::output::npy::read_npy_f64(&out.join("h.npy")).unwrap();
    assert!(h.iter().all(|v| v.is_finite()), "the kept state is not the last good one");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn info_and_gpu_choice_never_panic() {
    let o = hydrokern(&["info"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("backend: "));
    // Without a GPU, asking for one is a clear error; with one, it works.
    let o = hydrokern(&["--backend", "gpu", "info"]);
    let err = stderr(&o);
    assert!(o.status.success() || err.contains("no usable GPU"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
