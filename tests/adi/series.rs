//! The water-level series: parsing (comments, separators), linear interpolation, coverage.

use hydrokern::adi::Series;

#[test]
fn a_series_reads_two_columns_and_interpolates_linearly() {
    let s = Series::parse("test", "# t (s)  level (m)\n\n0, 0.0\n10\t1.0  # rising\n 30 -1.0\n").unwrap();
    assert_eq!(s.times, [0.0, 10.0, 30.0]);
    for (t, want) in [(0.0, 0.0), (5.0, 0.5), (10.0, 1.0), (20.0, 0.0), (25.0, -0.5), (30.0, -1.0)] {
        assert!((s.at(t) - want).abs() < 1e-15, "at {t}: {} against {want}", s.at(t));
    }
    assert!(s.covers(30.0).is_ok());
    assert!(s.covers(30.5).unwrap_err().contains("ends at t = 30 s"));
}

#[test]
fn bad_series_are_one_line_naming_the_line() {
    for (text, want) in [
        ("0 0\n1 x\n", "test: line 2: '1 x': not two numbers"),
        ("0 0\n1\n", "line 2: '1': expected two columns"),
        ("0 0\n1 inf\n", "line 2: '1 inf': not finite"),
        ("0 0\n0 1\n", "line 2: time 0 s does not follow 0 s"),
        ("# nothing\n", "0 point(s)"),
    ] {
        let e = Series::parse("test", text).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: '{e}' should say '{want}'");
        assert_eq!(e.lines().count(), 1);
    }
}
