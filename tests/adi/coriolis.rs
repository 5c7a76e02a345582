//! Coriolis: a geostrophic current stays steady. A channel carries a uniform flux F₀ between two
//! flux boundaries, and its surface is tilted across so that the pressure gradient balances the
//! Coriolis force, g d ∂ζ/∂y = −Ω p (current along x), g d ∂ζ/∂x = Ω q (current along y). A wrong
//! sign or size of either Coriolis term turns the current within the first steps (by Ω F₀ t).

use super::model;
use hydrokern::adi::{Boundary, G, Setup};

const N: usize = 24;
const D: f64 = 10.0;
const DX: f64 = 500.0;
const OMEGA: f64 = 1e-4;
const F0: f64 = 1.0;

/// Largest |cross flux| and |along flux − F₀| after `steps` for a current along x (`along_y`
/// false) or y, with the geostrophic surface times `tilt` (1: balanced, 0: flat, −1: the
/// opposite tilt, twice the imbalance of a flat one).
fn run(along_y: bool, tilt: f64, steps: usize) -> (f64, f64) {
    let mut s = Setup::basin(N, N, DX, DX, 60.0, D);
    s.coriolis = OMEGA;
    let slope = tilt * OMEGA * F0 / (G * D);
    for k in 0..N {
        for j in 0..N {
            // Across the current: y for a current along x (ζ falls to the left of it, as the
            // northern hemisphere's balance has it), x for one along y.
            let (across, sign) = if along_y { (j, 1.0) } else { (k, -1.0) };
            s.zeta[k * N + j] = sign * slope * ((across as f64 + 0.5) * DX - N as f64 * DX / 2.0);
        }
    }
    let (lo, hi) = if along_y { (2, 3) } else { (0, 1) };
    s.sides[lo] = Boundary::Flux(F0);
    s.sides[hi] = Boundary::Flux(F0);
    let mut m = model::<f64>(&s);
    // Every face of the current's component carries F₀ (for q both stored levels).
    if along_y {
        m.q.iter_mut().chain(m.q_old.iter_mut()).for_each(|v| *v = F0);
    } else {
        m.p.iter_mut().for_each(|v| *v = F0);
    }
    m.run(steps).unwrap();
    let (along, cross) = if along_y { (&m.q, &m.p) } else { (&m.p, &m.q) };
    let cross_max = cross.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let along_err = along.iter().fold(0.0f64, |a, v| a.max((v - F0).abs()));
    (cross_max, along_err)
}

#[test]
fn geostrophic_current_stays_steady() {
    let steps = 100;
    for along_y in [false, true] {
        let (cross, along) = run(along_y, 1.0, steps);
        let (free, _) = run(along_y, 0.0, steps);
        let (wrong, _) = run(along_y, -1.0, steps);
        eprintln!(
            "geostrophic current along {}: after {steps} steps max cross flux {cross:.2e}, max |F − F₀| {along:.2e} m²/s; without the tilt the cross flux reaches {free:.2e}, with the opposite tilt {wrong:.2e}",
            if along_y { "y" } else { "x" }
        );
        // Without the tilt the current turns (the cross flux grows like Ω F₀ t) until the
        // gravity waves between the walls have built a tilt: ~1e-2 m²/s.
        assert!(free > 5e-3, "Coriolis must turn an unbalanced current: {free}");
        assert!(wrong > 1.5 * free, "the opposite tilt doubles the imbalance: {wrong} against {free}");
        // Balanced, only the depth's variation (ζ/d ~ 1e-3) is out of balance.
        assert!(cross < 1e-3 * free && along < 1e-3, "cross {cross}, along {along}");
    }
}
