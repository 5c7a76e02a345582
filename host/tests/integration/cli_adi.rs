//! The ADI scenarios from the command line: `hydrokern seiche …` runs and writes its files;
//! bad flags and keys are refused with one line and a non-zero exit.

use crate::cmd::*;

#[test]
fn an_adi_scenario_runs_from_the_command_line() {
    let out = scratch("adi-seiche");
    let args = ["--backend", "cpu", "seiche", "--nx", "20", "--ny", "10", "--t-end", "20", "--snapshots", "10"];
    let o = hydrokern(&[&args[..], &["--output", s(&out)]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("volume") && text.contains("cells wet") && text.contains("[100%]"), "{text}");
    for f in [
        "zeta_t10.npy",
        "zeta_t20.npy",
        "h_t20.npy",
        "p_centre_t20.npy",
        "q_t20.npy",
        "zeta_t20.png",
        "h_t20.png",
        "centreline.png",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let (q, shape) = hydrokern::output::npy::read_npy_f64(&out.join("q_t20.npy")).unwrap();
    assert_eq!(shape, vec![11, 20]);
    assert!(q.iter().all(|v| v.is_finite()));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_adi_input_is_refused_before_any_work() {
    let out = scratch("adi-bad");
    let o = s(&out);
    refused(&["--backend", "cpu", "seiche", "--dt", "0.7", "--output", o], "does not divide");
    refused(&["--backend", "cpu", "seiche", "--dt", "-1", "--output", o], "time.dt");
    refused(&["--backend", "cpu", "seiche", "--nx", "1000000", "--output", o], "of host memory");
    refused(&["--backend", "cpu", "seiche", "--y-sweep", "diagonal", "--output", o], "unknown y-sweep 'diagonal'");
    assert!(!out.join("hydrokern-run.json").exists(), "a refused run started writing");
}
