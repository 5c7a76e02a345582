//! Every bad parameter is an Err with one clear line, never a panic; a failing step leaves the
//! model as it was.

use hydrokern::adi::cpu::Adi;
use hydrokern::adi::{Boundary, Friction, Setup, Tide};

fn error(s: &Setup) -> String {
    let e = Adi::<f64>::new(s).expect_err("a bad setup must be refused").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    assert!(Adi::<f32>::new(s).is_err());
    e
}

/// One way to spoil a good setup.
type Change = Box<dyn Fn(&mut Setup)>;

fn ok() -> Setup {
    Setup::basin(4, 3, 10.0, 10.0, 1.0, 2.0)
}

#[test]
fn bad_parameters_are_errors() {
    let cases: Vec<(&str, Change)> = vec![
        ("zero nx", Box::new(|s| s.nx = 0)),
        ("zero ny", Box::new(|s| s.ny = 0)),
        ("dx 0", Box::new(|s| s.dx = 0.0)),
        ("dt negative", Box::new(|s| s.dt = -1.0)),
        ("dy NaN", Box::new(|s| s.dy = f64::NAN)),
        ("g infinite", Box::new(|s| s.g = f64::INFINITY)),
        ("depth zero everywhere", Box::new(|s| s.depth.iter_mut().for_each(|d| *d = 0.0))),
        ("depth negative everywhere", Box::new(|s| s.depth.iter_mut().for_each(|d| *d = -1.0))),
        ("one dry cell without drying", Box::new(|s| s.depth[5] = 0.0)),
        ("depth NaN", Box::new(|s| s.depth[3] = f64::NAN)),
        ("zeta infinite", Box::new(|s| s.zeta[0] = f64::INFINITY)),
        ("depth too short", Box::new(|s| s.depth.truncate(3))),
        ("Chezy 0", Box::new(|s| s.friction = Friction::Chezy(0.0))),
        ("Chezy negative", Box::new(|s| s.friction = Friction::Chezy(-30.0))),
        ("Manning NaN", Box::new(|s| s.friction = Friction::Manning(f64::NAN))),
        ("drying above flooding", Box::new(|s| s.drying = Some((0.3, 0.2)))),
        ("drying 0", Box::new(|s| s.drying = Some((0.0, 0.2)))),
        ("coriolis NaN", Box::new(|s| s.coriolis = f64::NAN)),
        ("wind negative", Box::new(|s| s.wind.speed = -1.0)),
        ("eddy negative", Box::new(|s| s.eddy = -1.0)),
        ("flux boundary infinite", Box::new(|s| s.sides[0] = Boundary::Flux(f64::INFINITY))),
        (
            "tide period 0",
            Box::new(|s| {
                s.sides[1] = Boundary::Level(Tide { mean: 0.0, amplitude: 0.1, period: 0.0, phase: 0.0 }.into())
            }),
        ),
    ];
    assert!(Adi::<f64>::new(&ok()).is_ok());
    for (what, change) in cases {
        let mut s = ok();
        change(&mut s);
        let e = error(&s);
        eprintln!("{what}: {e}");
        assert!(e.starts_with("adi: "), "{what}: {e}");
    }
}

/// A step that fails in its y-sweep (a flux no f32 can carry) leaves the model as it was: ζ, p,
/// q, q^{n−½}, the wet map and the clock, bit for bit (the runner keeps no copy of its own).
#[test]
fn a_failing_step_leaves_the_model_as_it_was() {
    let mut s = Setup::basin(16, 8, 10.0, 10.0, 1.0, 10.0);
    s.sides[0] = Boundary::Flux(1e36);
    let mut m = super::model::<f32>(&s);
    let before = m.clone();
    let e = m.step().expect_err("a flux of 1e36 in f32 must fail").to_string();
    assert!(e.contains("Y-sweep"), "the failure this test means is the y-sweep's: {e}");
    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(same(&m.zeta, &before.zeta) && same(&m.p, &before.p), "ζ or p changed");
    assert!(same(&m.q, &before.q) && same(&m.q_old, &before.q_old), "q changed");
    assert_eq!((m.wet.clone(), m.steps, m.time), (before.wet.clone(), before.steps, before.time));
}
