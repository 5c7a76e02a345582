//! Discharge lines from the command line: bad `[[output.lines]]` are one line naming the key and
//! a non-zero exit, before anything is written; solvers without lines refuse them; a run writes
//! `lines.csv` (and with NetCDF its lines' file) beside the gauges' files, `check` counts their
//! records, and `plot` draws them.

use crate::cmd::{case_of, hydrokern, refused, s, scratch, stderr, stdout};
use std::path::Path;

fn lines(v: &str) -> String {
    format!("output.lines={v}")
}

#[test]
fn bad_lines_are_refused_with_one_line() {
    let dir = scratch("lines-bad");
    let out = dir.join("out");
    let case = case_of(&dir, "dam-break", &["--nx", "16"]);
    // The dam break's domain: 40 m × 40 m.
    let cases = [
        (r#"[{name = "a", points = [[10.0, 0.0]]}]"#, "1 point(s)"),
        (r#"[{name = "a b", points = [[10.0, 0.0], [10.0, 40.0]]}]"#, "names a column"),
        (
            r#"[{name = "a", points = [[10.0, 0.0], [10.0, 40.0]]}, {name = "a", points = [[12.0, 0.0], [12.0, 40.0]]}]"#,
            "used twice",
        ),
        (
            r#"[{name = "a", points = [[10.0, 0.0], [10.0, 41.0]]}]"#,
            "the point (10, 41) m is outside the domain [0, 40] × [0, 40] m",
        ),
        (r#"[{name = "a", points = [[10.0, 0.0], [nan, 40.0]]}]"#, "finite"),
        (r#"[{name = "edge", points = [[0.0, 0.0], [40.0, 0.0]]}]"#, "line edge crosses no face"),
        (r#"[{name = "a", point = [[10.0, 0.0], [10.0, 40.0]]}]"#, "point"),
        (r#"[{name = "a", points = [10.0, 0.0]}]"#, "output"),
    ];
    for (v, want) in cases {
        refused(&["run", s(&case), "--set", &lines(v)], want);
        refused(&["check", s(&case), "--set", &lines(v)], want);
        assert!(!out.exists(), "{v}: the refused run wrote its directory");
    }
    // The key names itself in the message.
    refused(
        &["dam-break", "--set", &lines(r#"[{name = "a", points = [[1.0, 1.0]]}]"#), "--output", s(&out)],
        "output.lines",
    );
    // Solvers that keep no lines, with gauges and maps or without.
    let ok = lines(r#"[{name = "a", points = [[1.0, 0.0], [1.0, 2.0]]}]"#);
    for (scenario, solver) in
        [("sediment", "sediment"), ("swe-radial", "claw"), ("tidal-basin", "adi"), ("advection", "claw")]
    {
        refused(
            &[scenario, "--set", &ok, "--output", s(&out)],
            &format!("{solver} keeps no discharge lines; they are for: kp"),
        );
    }
    assert!(!out.exists());
}

#[test]
fn a_run_writes_its_lines_beside_the_gauges() {
    let dir = scratch("lines-run");
    let out = dir.join("out");
    let flags = [
        "--set",
        "grid.nx=40",
        "--set",
        "grid.ny=20",
        "--set",
        "time.t_end=1800",
        "--set",
        "output.snapshots=[600]",
        "--set",
        r#"output.formats=["npy", "netcdf"]"#,
    ];
    let case = case_of(&dir, "river-inflow", &flags);
    // The case file reads its hydrograph beside it, as the scenario's does.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/river-hydrograph.csv");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::copy(data, dir.join("data/river-hydrograph.csv")).unwrap();
    let o = hydrokern(&["check", s(&case)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // 2 lines and 4 gauges: twice as many line records as a gauge's, half as many as all gauges'.
    let plan = stdout(&o);
    let count = |what: &str| -> u64 {
        let line = plan.lines().find(|l| l.contains(what)).unwrap_or_else(|| panic!("no {what} in:\n{plan}"));
        let before = line.split(what).next().unwrap();
        before.rsplit([' ', ',']).find(|w| !w.is_empty()).unwrap().parse().unwrap()
    };
    let (gauges, lines) = (count(" gauge records"), count(" line records"));
    assert!(lines > 0 && gauges == 2 * lines, "{gauges} gauge records, {lines} line records:\n{plan}");
    let o = hydrokern(&["run", s(&case)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(out.join("lines.csv")).unwrap();
    let mut rows = text.lines();
    let comment = rows.next().unwrap();
    assert!(
        comment.starts_with("# discharge") && comment.contains("m³/s") && comment.contains("left to its right"),
        "{comment}"
    );
    assert_eq!(rows.next(), Some("t,x200,x1000"));
    let rows: Vec<Vec<f64>> = rows.map(|r| r.split(',').map(|v| v.parse().unwrap()).collect()).collect();
    // The gauges' times, row by row.
    let gauge = std::fs::read_to_string(out.join("gauge_p1.csv")).unwrap();
    let times: Vec<f64> = gauge.lines().skip(2).map(|r| r.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), times);
    assert!(rows.iter().all(|r| r.len() == 3 && r[1..].iter().all(|q| q.is_finite())));
    // The river's water crosses x = 200 m eastward (positive: the line runs south to north), and
    // no more than has entered: the hydrograph stays below 20 m³/s.
    let most = rows.iter().map(|r| r[1]).fold(f64::MIN, f64::max);
    assert!(most > 0.1 && most < 20.0, "x200: at most {most} m³/s");
    let manifest = std::fs::read_to_string(out.join("hydrokern-run.json")).unwrap();
    assert!(manifest.contains("\"lines.csv\"") && manifest.contains("\"river-inflow_lines.nc\""), "{manifest}");
    // `plot` follows the fields' file to the lines' file.
    let plots = dir.join("plots");
    let o = hydrokern(&["plot", s(&out.join("river-inflow.nc")), "--output", s(&plots)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["line_x200.png", "line_x1000.png", "gauge_p1.png"] {
        assert!(plots.join(f).exists(), "plot wrote no {f}: {}", stdout(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
