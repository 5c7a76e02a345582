//! Wind set-up in a closed basin: at steady state the surface slope balances the wind stress,
//! g h ∂ζ/∂x = τ/ρ_w, so ∂ζ/∂x = τ/(ρ_w g h).

use super::model;
use hydrokern::adi::cpu::Adi;
use hydrokern::adi::{Friction, G, Setup, Wind};

const NX: usize = 50;
const D: f64 = 5.0;
const DX: f64 = 200.0;

/// 50 × 3 cells of 200 m, depth 5 m, Chézy 30, a 20 m/s wind along x; Courant
/// √(gd)Δt/Δx = 2.1.
fn setup() -> Setup {
    let mut s = Setup::basin(NX, 3, DX, DX, 60.0, D);
    s.friction = Friction::Chezy(30.0);
    s.wind = Wind { speed: 20.0, direction: 0.0 };
    s
}

/// Least-squares slope of ζ along the middle row.
fn slope(row: &[f64]) -> f64 {
    let xs: Vec<f64> = (0..row.len()).map(|j| (j as f64 + 0.5) * DX).collect();
    let n = row.len() as f64;
    let (mx, mz) = (xs.iter().sum::<f64>() / n, row.iter().sum::<f64>() / n);
    xs.iter().zip(row).map(|(x, z)| (x - mx) * (z - mz)).sum::<f64>() / xs.iter().map(|x| (x - mx).powi(2)).sum::<f64>()
}

fn middle(m: &Adi<f64>) -> Vec<f64> {
    m.zeta[NX..2 * NX].to_vec()
}

/// From rest the wind starts a seiche (period 2L/√(gd) = 48 steps) that quadratic friction damps
/// only slowly (as 1/t); its mean over the last 21 periods is the steady set-up.
#[test]
fn mean_slope_from_rest_balances_the_wind_stress() {
    let s = setup();
    let (tau, _) = s.wind.stress();
    let mut m = model::<f64>(&s);
    m.run(2000).unwrap();
    let mut mean = vec![0.0; NX];
    let n = 1000;
    for _ in 0..n {
        m.step().unwrap();
        mean.iter_mut().zip(middle(&m)).for_each(|(a, z)| *a += z / n as f64);
    }
    let (got, expect) = (slope(&mean), tau / (G * D));
    eprintln!(
        "wind set-up from rest, W = 20 m/s, τ/ρ_w = {tau:.4e} m²/s²: mean slope {got:.5e}, τ/(ρ_w g d) = {expect:.5e} ({:+.2e}), set-up {:.4} m",
        got / expect - 1.0,
        mean[NX - 1] - mean[0]
    );
    assert!((got / expect - 1.0).abs() < 5e-3, "slope {got} against {expect}");
}
