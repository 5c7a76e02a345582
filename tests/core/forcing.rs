//! Time series of forcing: parsing (comments, separators, units), linear interpolation, the
//! exact integral a volume account uses (against a plain sum over fine steps), coverage, and
//! bad series refused in one line naming the line or point.

use hydrokern::forcing::{DISCHARGE, LEVEL, RAIN, Series};
use proptest::prelude::*;

#[test]
fn a_series_reads_two_columns_and_interpolates_linearly() {
    let s =
        Series::parse("test", "# t (s)  level (m)\n\n0, 0.0\n10\t1.0  # rising\n 30 -1.0\n", &LEVEL, "s", "m").unwrap();
    assert_eq!(s.times, [0.0, 10.0, 30.0]);
    for (t, want) in [(0.0, 0.0), (5.0, 0.5), (10.0, 1.0), (20.0, 0.0), (25.0, -0.5), (30.0, -1.0), (40.0, -1.0)] {
        assert!((s.at(t) - want).abs() < 1e-15, "at {t}: {} against {want}", s.at(t));
    }
    assert!(s.covers(0.0, 30.0).is_ok());
    assert!(s.covers(0.0, 30.5).unwrap_err().contains("ends at t = 30 s"));
    assert!(s.covers(-1.0, 30.0).unwrap_err().contains("starts at t = 0 s"));
}

#[test]
fn units_are_converted_to_seconds_and_si() {
    // 36 mm/h for half an hour, then nothing: 18 mm on every square metre.
    let rain = Series::parse("rain.csv", "0 36\n0.5 36\n0.5001 0\n2 0\n", &RAIN, "h", "mm/h").unwrap();
    assert_eq!(rain.times[1], 1800.0);
    assert!((rain.values[0] - 1e-5).abs() < 1e-20);
    let depth = rain.integral(0.0, 1800.0);
    assert!((depth - 0.018).abs() < 1e-15, "{depth}");
    let q = Series::from_points("inflow.series", &[(0.0, 0.0), (10.0, 500.0)], &DISCHARGE, "min", "l/s").unwrap();
    assert_eq!((q.times[1], q.values[1]), (600.0, 0.5));
}

/// A plain midpoint sum of the interpolant over many small steps: what the exact integral must
/// agree with, computed without its breakpoint walk.
fn plain_integral(s: &Series, a: f64, b: f64) -> f64 {
    let n = 20_000;
    let h = (b - a) / n as f64;
    (0..n).map(|k| s.at(a + (k as f64 + 0.5) * h) * h).sum()
}

proptest! {
    #![proptest_config(crate::common::config(256, file!()))]
    #[test]
    fn the_integral_is_the_area_under_the_interpolant(
        steps in prop::collection::vec((0.1f64..50.0, 0.0f64..100.0), 2..12),
        a in -20.0f64..300.0,
        len in 0.0f64..400.0,
    ) {
        let mut t = 0.0;
        let points: Vec<(f64, f64)> = steps.iter().map(|&(dt, v)| { t += dt; (t, v) }).collect();
        let s = Series::from_points("random", &points, &RAIN, "s", "m/s").unwrap();
        let b = a + len;
        let exact = s.integral(a, b);
        let plain = plain_integral(&s, a, b);
        // The midpoint sum errs only in the steps that hold a breakpoint, by at most h²/8 times
        // the change of slope there.
        let mut slopes = vec![0.0];
        slopes.extend(points.windows(2).map(|p| (p[1].1 - p[0].1) / (p[1].0 - p[0].0)));
        slopes.push(0.0);
        let kinks: f64 = slopes.windows(2).map(|w| (w[1] - w[0]).abs()).sum();
        let h = len / 20_000.0;
        let tol = 1e-9 * (1.0 + plain.abs()) + h * h * kinks / 8.0;
        prop_assert!((exact - plain).abs() <= tol, "{exact} against {plain} (tolerance {tol})");
        // Additive over a split point.
        let m = a + 0.37 * len;
        prop_assert!((s.integral(a, m) + s.integral(m, b) - exact).abs() <= 1e-9 * (1.0 + exact.abs()));
    }
}

#[test]
fn bad_series_are_one_line_naming_the_line() {
    for (text, want) in [
        ("0 0\n1 x\n", "test: line 2: '1 x': not two numbers"),
        ("time,level\nt,h\n0 0\n", "line 2: 't,h': not two numbers"),
        ("0 0\ntime,level\n1 1\n", "line 2: 'time,level': not two numbers"),
        ("0 0\n1\n", "line 2: '1': expected two columns, time (s) and water level (m)"),
        ("0 0\n1 inf\n", "line 2: '1 inf': not finite"),
        ("0 0\n0 1\n", "line 2: time 0 s does not follow 0 s"),
        ("# nothing\n", "0 point(s)"),
    ] {
        let e = Series::parse("test", text, &LEVEL, "s", "m").unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: '{e}' should say '{want}'");
        assert_eq!(e.lines().count(), 1);
    }
    // One header line of column names is read past, whatever separates them.
    for text in ["time,level\n0,1\n60,2\n", "# levels\n\u{feff}\"Time (min)\", \"Level (m)\"\n0 1\n60 2\n"] {
        let s = Series::parse("header.csv", text, &LEVEL, "s", "m").unwrap();
        assert_eq!(
            (s.times.as_slice(), s.values.as_slice()),
            ([0.0, 60.0].as_slice(), [1.0, 2.0].as_slice()),
            "{text:?}"
        );
    }
    let e = Series::parse("rain.csv", "0 1\n60 -2\n", &RAIN, "s", "mm/h").unwrap_err().to_string();
    assert!(e.contains("rain.csv: line 2: a rain intensity of -2 mm/h: it cannot be negative"), "{e}");
    let e = Series::parse("rain.csv", "0 1\n60 2\n", &RAIN, "s", "inch/h").unwrap_err().to_string();
    assert!(e.contains("unit 'inch/h' is not one of a rain intensity's: m/s, mm/h, mm/day"), "{e}");
    let e = Series::parse("q.csv", "0 1\n60 2\n", &DISCHARGE, "weeks", "m3/s").unwrap_err().to_string();
    assert!(e.contains("time unit 'weeks' is not one of s, min, h, day"), "{e}");
    let e = Series::from_points("[[forcing.inflow]] series", &[(0.0, 1.0), (0.0, 2.0)], &DISCHARGE, "s", "m3/s")
        .unwrap_err()
        .to_string();
    assert!(e.contains("series: point 2: time 0 s does not follow 0 s"), "{e}");
}
