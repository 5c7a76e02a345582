//! When a run writes what: the maximum maps only at checkpoints and at the end (each is as large
//! as a field), the gauge records with every snapshot.

use crate::cmd::*;

#[test]
fn maps_come_at_checkpoints_and_the_end_gauges_with_every_snapshot() {
    let out = scratch("maps-when");
    let o = hydrokern(&[
        "--backend",
        "cpu",
        "flood",
        "--nx",
        "32",
        "--t-end",
        "0.4",
        "--set",
        "output.snapshots=[0.1, 0.2, 0.3]",
        "--checkpoint-every",
        "0.2",
        "--set",
        "output.formats=[\"npy\"]",
        "--output",
        s(&out),
    ]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}\n{text}", stderr(&o));
    let lines = |what: &str| -> Vec<String> {
        text.lines().filter(|l| l.trim_start().starts_with(what)).map(str::to_string).collect()
    };
    let (snapshots, checkpoints) = (lines("snapshot t = "), lines("checkpoint t = "));
    // Snapshots at 0.1, 0.2, 0.3 and the end; a checkpoint at 0.2 (none at the end: the run's
    // end is no checkpoint time).
    assert_eq!(snapshots.len(), 4, "{text}");
    assert_eq!(checkpoints.len(), 1, "{text}");
    for (k, line) in snapshots.iter().enumerate() {
        assert!(line.contains("gauge_"), "snapshot {k} without gauges: {line}");
        let last = k + 1 == snapshots.len();
        assert_eq!(line.contains("max_h.npy"), last, "snapshot {k} (last: {last}): {line}");
    }
    assert!(checkpoints[0].contains("max_h.npy") && checkpoints[0].contains("t = 0.2"), "{}", checkpoints[0]);
    for f in ["max_h.npy", "max_speed.npy", "arrival.npy", "checkpoint.hkc"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let _ = std::fs::remove_dir_all(&out);
}
