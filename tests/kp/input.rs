//! Bad input is refused; a blow-up is reported.

use super::BLOCK;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Boundary, Problem, setup};

/// A Manning field of 0.03 with `bad` at cell `k`.
fn field(p: &Problem, k: usize, bad: f64) -> Vec<f64> {
    let mut n = vec![0.03; p.nx * p.ny];
    n[k] = bad;
    n
}

#[test]
fn bad_input_is_refused() {
    let ok = setup::dam_break(8, 8, false);
    type Breaker = Box<dyn Fn(&mut Problem)>;
    let cases: Vec<(&str, Breaker)> = vec![
        ("sizes", Box::new(|p| p.nx = 0)),
        ("positive", Box::new(|p| p.dx = -1.0)),
        ("depth", Box::new(|p| p.h[3] = -0.1)),
        ("Manning", Box::new(|p| p.manning = -0.01)),
        ("Manning", Box::new(|p| p.manning = 1.5)),
        ("Manning n[3, 0] = NaN", Box::new(|p| p.manning_field = Some(field(p, 3, f64::NAN)))),
        ("Manning n[3, 0] = -0.01", Box::new(|p| p.manning_field = Some(field(p, 3, -0.01)))),
        ("Manning n[3, 0] = 1.01", Box::new(|p| p.manning_field = Some(field(p, 3, 1.01)))),
        ("Manning field has 3 values", Box::new(|p| p.manning_field = Some(vec![0.03; 3]))),
        ("give one", Box::new(|p| (p.manning, p.manning_field) = (0.03, Some(field(p, 0, 0.03))))),
        ("finite", Box::new(|p| p.hu[5] = f64::NAN)),
        ("finite", Box::new(|p| p.bed[2] = f64::INFINITY)),
        ("periodic", Box::new(|p| p.boundary[0] = Boundary::Periodic)),
        (
            "periodic west and east sides need a bed that repeats",
            Box::new(|p| {
                (p.boundary[0], p.boundary[1]) = (Boundary::Periodic, Boundary::Periodic);
                p.bed[2 * 9 + 8] += 0.01;
            }),
        ),
        (
            "periodic south and north sides need a bed that repeats",
            Box::new(|p| {
                (p.boundary[2], p.boundary[3]) = (Boundary::Periodic, Boundary::Periodic);
                p.bed[8 * 9 + 3] -= 0.01;
            }),
        ),
        ("θ", Box::new(|p| p.theta = 2.5)),
    ];
    for (word, break_it) in cases {
        let mut p = ok.clone();
        break_it(&mut p);
        let e = CpuKp::<f64>::new(&p, BLOCK, false).err().expect("refused");
        assert!(e.to_string().contains(word), "'{e}' should mention {word}");
    }
    assert!("slippery".parse::<Boundary>().is_err());
}

/// A blown-up state stops the step with a reason instead of propagating.
#[test]
fn blow_up_is_reported() {
    let mut p = setup::dam_break(8, 8, false);
    p.dt_floor = 1e3;
    let mut m = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
    assert_eq!(m.step(1e6), Err(hydrokern::kp::cpu::Halt::Collapsed));
}
