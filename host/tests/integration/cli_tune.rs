//! `hydrokern tune`, `--tuning` and the tuning line of `info` on the command line (the
//! searches themselves need a GPU: tests/core/tune.rs).

use crate::cmd::{hydrokern, refused, stderr, stdout};

#[test]
fn tune_refuses_the_cpu_backend_unknown_solvers_and_tiny_sizes() {
    refused(&["tune", "--backend", "cpu"], "tune times GPU kernels");
    refused(&["tune", "--only", "swe"], "invalid value 'swe'");
    refused(&["tune", "--size", "8"], "--size");
    refused(&["tune", "--rounds", "0"], "--rounds");
}

#[test]
fn both_precisions_and_unknown_tuning_modes_are_refused_for_runs() {
    refused(&["--precision", "both", "dam-break", "--nx", "8", "--t-end", "0.01"], "only `tune` runs both precisions");
    refused(&["--tuning", "sometimes", "info"], "invalid value 'sometimes'");
}

#[test]
fn info_has_a_tuning_line_and_off_runs_on_the_cpu() {
    let o = hydrokern(&["info"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert_eq!(text.lines().filter(|l| l.trim_start().starts_with("tuning:")).count(), 1, "{text}");
    let dir = crate::cmd::scratch("tuning-off");
    let o = hydrokern(&[
        "--tuning",
        "off",
        "--backend",
        "cpu",
        "dam-break",
        "--nx",
        "16",
        "--t-end",
        "0.01",
        "--output",
        crate::cmd::s(&dir),
    ]);
    assert!(o.status.success(), "{}", crate::cmd::stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An option a command does not use is refused, before or after the command; one it uses is
/// taken in either place.
#[test]
fn options_a_command_does_not_use_are_refused() {
    refused(&["--precision", "f32", "plot", "x.nc"], "--precision does not apply to `plot`");
    refused(&["--backend", "cpu", "scenarios"], "--backend does not apply to `scenarios`");
    refused(&["--tuning", "off", "info"], "--tuning does not apply to `info`");
    refused(&["--precision", "f64", "bench", "kp"], "--precision does not apply to `bench`");
    refused(&["plot", "--precision", "f32", "x.nc"], "unexpected argument '--precision'");
    refused(&["tune", "--precision", "f32", "--backend", "cpu"], "tune times GPU kernels");
    let o = hydrokern(&["info", "--backend", "cpu"]);
    assert!(o.status.success() && stdout(&o).contains("backend: cpu"), "{}", stderr(&o));
}
