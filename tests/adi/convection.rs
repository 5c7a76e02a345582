//! The explicit terms on a uniform current: a channel between two flux boundaries carrying
//! F₀ everywhere over a flat bed, convection and eddy viscosity on, no friction or Coriolis.
//! Every centred difference of a uniform field is zero, at the walls too (their neighbouring
//! line is the mirror), so the current must stay exactly as it is: no spurious acceleration
//! from the stencil's edges.

use super::model;
use hydrokern::adi::{Boundary, Setup};

#[test]
fn uniform_current_is_preserved() {
    for along_y in [false, true] {
        let n = 17;
        let mut s = Setup::basin(n, n, 100.0, 100.0, 20.0, 3.0);
        s.convection = true;
        s.eddy = 5.0;
        let (lo, hi) = if along_y { (2, 3) } else { (0, 1) };
        s.sides[lo] = Boundary::Flux(2.0);
        s.sides[hi] = Boundary::Flux(2.0);
        let mut m = model::<f64>(&s);
        if along_y {
            m.q.iter_mut().chain(m.q_old.iter_mut()).for_each(|v| *v = 2.0);
        } else {
            m.p.iter_mut().for_each(|v| *v = 2.0);
        }
        m.run(50).unwrap();
        let (along, cross) = if along_y { (&m.q, &m.p) } else { (&m.p, &m.q) };
        let dz = m.zeta.iter().fold(0.0f64, |a, z| a.max(z.abs()));
        let df = along.iter().fold(0.0f64, |a, v| a.max((v - 2.0).abs()));
        let dc = cross.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        eprintln!(
            "uniform current along {}, convection and viscosity on, 50 steps: max |ζ| {dz:.1e}, max |F − F₀| {df:.1e}, max cross {dc:.1e}",
            if along_y { "y" } else { "x" }
        );
        assert!(dz < 1e-13 && df < 1e-13 && dc < 1e-13, "{dz} {df} {dc}");
    }
}
