//! fd3d and tridiag on the command line: bad input is one error line and a non-zero exit,
//! before any work; good runs write their outputs and exit 0.

use crate::cmd::{hydrokern, refused, s, scratch, stderr};

#[test]
fn absurd_and_oversized_runs_are_refused_before_they_start() {
    let out = scratch("absurd");
    let o = s(&out);
    refused(&["tridiag", "--repeat", "4294967295", "--output", o], "1000");
    refused(&["tridiag", "--repeat", "0", "--output", o], "timing.repeat");
    refused(&["fd3d", "--reps", "100000", "--output", o], "1000");
    refused(&["tridiag", "--n", "4000000000", "--output", o], "memory");
    refused(&["fd3d", "--size", "100000", "--output", o], "memory");
    refused(&["fd3d", "--size", "16", "--wavenumbers", "8,1,1", "--output", o], "Nyquist");
    refused(&["fd3d", "--size", "8", "--output", o], "at least 9");
    refused(&["tridiag", "--layout", "diagonal", "--output", o], "batch.layout");
    refused(&["--backend", "cpu", "tridiag", "--algorithm", "pcr", "--output", o], "thomas and lu");
    refused(&["tridiag", "--input", "/nonexistent-hydrokern-dir", "--output", o], "not a directory");
    assert!(!out.exists(), "a refused run wrote something");
}

#[test]
fn the_help_states_the_limits_and_the_npy_shape() {
    let o = hydrokern(&["tridiag", "--help"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1 to 1000") && text.contains("(batch, n)"), "{text}");
    let o = hydrokern(&["fd3d", "--help"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1 to 1000") && text.contains("Nyquist"), "{text}");
}

#[test]
fn small_runs_write_their_outputs() {
    let out = scratch("fd3d");
    let o = hydrokern(&["--backend", "cpu", "fd3d", "--size", "12", "--reps", "1", "--output", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("d/dz") && text.contains("cpu reference"), "{text}");
    assert!(out.join("fd3d.csv").is_file() && out.join("hydrokern-run.json").is_file());
    let _ = std::fs::remove_dir_all(&out);

    let out = scratch("tridiag");
    let o = hydrokern(&["--backend", "cpu", "tridiag", "--n", "16", "--batch", "4", "--output", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("residual"));
    for f in ["x.npy", "a.npy", "b.npy", "c.npy", "d.npy", "case.toml"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let _ = std::fs::remove_dir_all(&out);
}
