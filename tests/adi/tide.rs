//! A long basin open at its west end to a sine tide: the tide runs in, the boundary cell
//! follows it, and the volume changes only through the open side.

use super::model;
use hydrokern::adi::{Boundary, Friction, Setup, Tide};

#[test]
fn tide_enters_through_the_open_side() {
    let (nx, ny, d, dx) = (80, 2, 6.0, 250.0);
    let mut s = Setup::basin(nx, ny, dx, dx, 30.0, d);
    let tide = Tide { mean: 0.0, amplitude: 0.5, period: 12.42 * 3600.0, phase: 0.0 };
    s.sides[0] = Boundary::Level(tide.into());
    s.friction = Friction::Chezy(50.0);
    s.convection = true;
    let mut m = model::<f64>(&s);
    let (mut inflow, mut worst_follow, mut far) = (0.0f64, 0.0f64, 0.0f64);
    let v0 = m.volume();
    let steps = (tide.period / s.dt) as usize;
    let west = |m: &hydrokern::adi::cpu::Adi<f64>| (0..ny).map(|k| m.p[k * (nx + 1)]).sum::<f64>() * dx;
    for _ in 0..steps {
        let before = west(&m);
        m.step().unwrap();
        // The continuity rows centre p in time: (pⁿ + p^{n+1})/2 over Δt.
        inflow += 0.5 * (before + west(&m)) * s.dt;
        worst_follow = worst_follow.max((m.zeta[0] - tide.at(m.time)).abs());
        far = far.max(m.zeta[nx - 1].abs());
    }
    let dv = m.volume() - v0;
    eprintln!(
        "tide 0.5 m, 12.42 h into a 20 km basin: boundary cell off the tide by at most {worst_follow:.3} m, far end reaches {far:.3} m, ΔV {dv:.4e} m³ against the inflow {inflow:.4e} m³ ({:.1e})",
        (dv - inflow).abs() / inflow.abs().max(1.0)
    );
    assert!(far > 0.3, "the tide did not reach the far end: {far}");
    assert!(worst_follow < 0.05, "boundary cell off the tide by {worst_follow}");
    assert!(
        (dv - inflow).abs() < 1e-9 * m.zeta.iter().map(|z| z.abs()).sum::<f64>() * dx * dx + 1e-6,
        "ΔV {dv} against inflow {inflow}"
    );
}
