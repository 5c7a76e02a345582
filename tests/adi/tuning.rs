//! The ADI solver's launch labels and the candidates its tuner times.

use hydrokern::adi::gpu::{Strategy, YSweep};
use hydrokern::adi::tune::{candidates, label, parse};

#[test]
fn labels_read_back() {
    for s in Strategy::ALL.into_iter().chain([Strategy::Auto]) {
        for y in YSweep::ALL {
            assert_eq!(parse(&label((s, y))).unwrap(), (s, y));
        }
    }
    assert_eq!(label((Strategy::Auto, YSweep::default())), "auto/transposed");
    for bad in ["", "auto", "auto/rows", "fast/columns", "auto/transposed/x"] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_default_comes_first_and_auto_s_twin_is_not_timed_twice() {
    let c = candidates(Some(Strategy::Partition));
    assert_eq!(c[0], (Strategy::Auto, YSweep::Transposed));
    assert_eq!(c.len(), 2 * 5);
    assert!(c.iter().all(|&(s, _)| s != Strategy::Partition));
    assert!(c.contains(&(Strategy::Auto, YSweep::Columns)) && c.contains(&(Strategy::Twisted, YSweep::Columns)));
    // Sweeps resolving differently (nx ≠ ny): every strategy is a candidate.
    assert_eq!(candidates(None).len(), 12);
    let uniq: std::collections::HashSet<(Strategy, YSweep)> = candidates(None).into_iter().collect();
    assert_eq!(uniq.len(), 12);
}
