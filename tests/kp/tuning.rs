//! The launch choices of the shallow-water solver: the scheme `--scheme auto` picks among and
//! how it picks, and the launch labels `--launch` and the tuner's records read back.

use hydrokern::kp::Scheme;
use hydrokern::kp::gpu::{FluxVariant, Launch};
use hydrokern::kp::scheme_choice::{candidates, choose_scheme, parse};
use hydrokern::kp::tune::{self, LINES, label, parse_line};
use hydrokern::{Error, Precision};

#[test]
fn auto_chooses_among_the_second_order_schemes() {
    assert_eq!(parse("rk2").unwrap(), Scheme::Rk2);
    assert_eq!(parse("srk2").unwrap(), Scheme::Srk2);
    assert_eq!(parse("ds2").unwrap(), Scheme::Ds2);
    for bad in ["euler", "ds1", "auto", ""] {
        assert!(parse(bad).is_err(), "{bad}");
    }
    assert_eq!(candidates(Precision::F64), &[Scheme::Rk2, Scheme::Srk2, Scheme::Ds2]);
    // f32 keeps its compensated update: no split scheme.
    assert_eq!(candidates(Precision::F32), &[Scheme::Rk2, Scheme::Srk2]);
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fake {
    Rk2,
    Srk2,
    Ds2,
}

#[test]
fn the_fastest_median_wins_and_every_scheme_runs_interleaved() {
    let mut log = Vec::new();
    let t = choose_scheme(&[Fake::Rk2, Fake::Srk2, Fake::Ds2], 3, |s| {
        log.push(s);
        // Srk2 has one very slow run; its median is still the best.
        let slow = s == Fake::Srk2 && log.iter().filter(|&&x| x == s).count() == 1;
        Ok(match s {
            Fake::Rk2 => 100.0,
            Fake::Srk2 if slow => 500.0,
            Fake::Srk2 => 80.0,
            Fake::Ds2 => 90.0,
        })
    })
    .unwrap();
    assert_eq!(t.best, Fake::Srk2);
    assert_eq!(t.times, vec![(Fake::Rk2, 100.0), (Fake::Srk2, 80.0), (Fake::Ds2, 90.0)]);
    assert_eq!(&log[..6], &[Fake::Rk2, Fake::Srk2, Fake::Ds2, Fake::Srk2, Fake::Ds2, Fake::Rk2]);
}

#[test]
fn a_failing_scheme_drops_out_and_ties_go_to_the_first() {
    let t = choose_scheme(&[Fake::Rk2, Fake::Ds2, Fake::Srk2], 3, |s| match s {
        Fake::Ds2 => Err(Error::invalid("restart loop")),
        _ => Ok(50.0),
    })
    .unwrap();
    assert_eq!(t.best, Fake::Rk2);
    assert!(t.times[1].1.is_nan());
    let e = choose_scheme(&[Fake::Rk2], 2, |_| Err(Error::invalid("no kernel"))).unwrap_err();
    assert!(e.to_string().contains("no kernel"));
    assert!(choose_scheme::<Fake>(&[], 2, |_| Ok(1.0)).is_err());
}

#[test]
fn labels_read_back() {
    for l in [
        Launch::default(),
        Launch { block: (64, 4), flux: FluxVariant::Tile, ..Launch::default() },
        Launch { block: (16, 2), flux: FluxVariant::Stream { warps: 8, rows: 64 }, ..Launch::default() },
    ] {
        assert_eq!(tune::parse(&label(l)).unwrap(), l);
    }
    assert_eq!(label(Launch::default()), "32x8 stream:4x32");
    for bad in ["", "32x8", "30x1 tile", "32x8 stream:0x4", "64x64 tile", "axb tile"] {
        assert!(tune::parse(bad).is_err(), "{bad}");
    }
    for l in LINES {
        assert_eq!(parse_line(&l.to_string()).unwrap(), l);
    }
    for bad in ["", "0", "48", "2048", "x", "-32"] {
        assert!(parse_line(bad).is_err(), "{bad}");
    }
}
