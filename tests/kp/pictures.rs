//! The ranges of the shallow-water solver's pictures, and the bed they draw.

use hydrokern::kp::pictures::Still;
use hydrokern::kp::setup;
use hydrokern::output::outside_as;

#[test]
fn ranges_come_from_the_initial_state() {
    // A dam's column of 10 m on a dry flat bed: depth 0..10, surface from the bed to 10,
    // speed to 2√(10 g).
    let p = setup::column(32, 32, 100.0, 100.0, 20.0, 10.0, 0.0);
    let r = Still::of(&p).ranges;
    assert_eq!(r.depth, (0.0, 10.0));
    assert_eq!(r.surface, (0.0, 10.0));
    assert!((r.speed.1 - 2.0 * (10.0 * p.g).sqrt()).abs() < 1e-12);
    // 2.5 m inside 0.5 m: the surface spans the two levels.
    let r = Still::of(&setup::column(32, 32, 40.0, 40.0, 5.0, 2.5, 0.5)).ranges;
    assert_eq!(r.surface, (0.5, 2.5));
    // A column whose surface is not flat above a dry bed: the range reaches the dry bed,
    // where its water will run, not only its own levels.
    let mut p = setup::column(32, 32, 100.0, 100.0, 20.0, 10.0, 0.0);
    let k = p.h.iter().position(|&h| h > 0.0).unwrap();
    p.h[k] = 9.0;
    assert_eq!(Still::of(&p).ranges.surface, (0.0, 10.0));
}

/// Cells outside the domain have no bed in the pictures (`outside_as` with NaN, as `write` takes
/// it): NaN there and only there, so the maps' hillshade draws them flat in the key's grey and
/// the profile has a gap; a domain without such cells keeps its bed as it is.
#[test]
fn the_pictures_have_no_bed_outside_the_domain() {
    let p = setup::column(8, 6, 80.0, 60.0, 20.0, 10.0, 0.0);
    let bed = Still::of(&p).bed;
    assert!(matches!(outside_as(&bed, None, f64::NAN), std::borrow::Cow::Borrowed(_)));
    let all = vec![true; bed.len()];
    assert!(matches!(outside_as(&bed, Some(&all), f64::NAN), std::borrow::Cow::Borrowed(_)));
    let active: Vec<bool> = (0..bed.len()).map(|k| k % 5 != 0).collect();
    let drawn = outside_as(&bed, Some(&active), f64::NAN);
    for (k, (&d, &b)) in drawn.iter().zip(&bed).enumerate() {
        if active[k] {
            assert_eq!(d.to_bits(), b.to_bits(), "cell {k}");
        } else {
            assert!(d.is_nan(), "cell {k}: {d}");
        }
    }
}
