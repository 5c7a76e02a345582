//! A run's final summary reports what the solver conserves, so f32's accuracy is shown, not
//! hidden: a line with the relative conservation error and the precision and update that
//! produced it, in every precision, so that f32's and mixed's read beside f64's. CPU runs on
//! small grids.

use crate::cmd::{hydrokern, s, scratch, stderr, stdout};

/// Run `args` (a CPU run writing to a scratch directory); its summary's conservation line,
/// less the prefix.
fn conservation_line(name: &str, args: &[&str]) -> String {
    let out = scratch(name);
    let o = hydrokern(&[&["--backend", "cpu"], args, &["--output", s(&out)]].concat());
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let text = stdout(&o);
    let _ = std::fs::remove_dir_all(&out);
    let done = text.find("\ndone: ").unwrap_or_else(|| panic!("{args:?}: no summary in\n{text}"));
    let line = text[done..].lines().find_map(|l| l.strip_prefix("  conservation: "));
    line.unwrap_or_else(|| panic!("{args:?}: no conservation line after the summary in\n{text}")).to_string()
}

/// The relative error right after `prefix`, and the text after the line's first ", ".
fn error_and_how<'a>(line: &'a str, prefix: &str) -> (f64, &'a str) {
    let rest = line.strip_prefix(prefix).unwrap_or_else(|| panic!("'{line}' does not start with '{prefix}'"));
    let number = rest.split([' ', ',']).next().unwrap_or_default();
    let (_, how) = rest.split_once(", ").unwrap_or_else(|| panic!("'{line}': no precision after the error"));
    (number.parse().unwrap_or_else(|e| panic!("'{line}': the error '{number}' is not a number: {e}")), how)
}

#[test]
fn the_sediment_summary_reports_its_mass_balance_in_every_precision() {
    // (precision, accumulation, what the line names, the largest error that precision keeps
    // after 40 steps on a 16² basin: f32's compensated update ~1e-8, plain f32 worse).
    for (precision, accumulation, how, bound) in [
        ("f64", "compensated", "f64 plain", 1e-12),
        ("mixed", "compensated", "mixed (h in f64)", 1e-12),
        ("f32", "compensated", "f32 compensated", 1e-6),
        ("f32", "plain", "f32 plain", 1e-2),
    ] {
        let args =
            ["sediment", "--nx", "16", "--steps", "40", "--precision", precision, "--accumulation", accumulation];
        let line = conservation_line(&format!("sediment-{precision}-{accumulation}"), &args);
        let (err, named) = error_and_how(&line, "mass balance (gained − supplied)/supplied ");
        assert_eq!(named, how, "{line}");
        assert!(err.is_finite() && err.abs() <= bound, "{precision} {accumulation}: {line}");
    }
}

#[test]
fn the_shallow_water_summary_reports_its_volume_change_in_every_precision() {
    // The dam break has walls all round: the whole change is error.
    for (precision, how, bound) in
        [("f64", "f64 plain", 1e-12), ("mixed", "mixed (w in f64)", 1e-12), ("f32", "f32 compensated", 1e-6)]
    {
        let args = ["dam-break", "--nx", "24", "--t-end", "0.2", "--precision", precision];
        let line = conservation_line(&format!("dam-break-{precision}"), &args);
        let (err, rest) = error_and_how(&line, "volume change ");
        let rest = rest.strip_prefix(how).unwrap_or_else(|| panic!("{precision}: '{line}' does not name {how}"));
        assert_eq!(rest, " (no outflow side: all of it is error)", "{line}");
        assert!(err.is_finite() && err.abs() <= bound, "{precision}: {line}");
    }
}

#[test]
fn the_adi_summary_reports_its_volume_change_in_both_precisions() {
    // The hump spreads in a closed basin: land all round.
    for (precision, bound) in [("f64", 1e-10), ("f32", 1e-4)] {
        let args = ["hump", "--nx", "32", "--t-end", "20", "--precision", precision];
        let line = conservation_line(&format!("hump-{precision}"), &args);
        let (err, rest) = error_and_how(&line, "volume change ");
        assert_eq!(rest, format!("{precision} (land all round: all of it is error)"), "{line}");
        assert!(err.is_finite() && err.abs() <= bound, "{precision}: {line}");
    }
}
