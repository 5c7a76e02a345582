//! Ready-made problems: the `sediment` scenario's basin and the test cases.

use super::{Accumulation, Problem, Scheme, Side};
use crate::Result;
use crate::field::Field2;
use crate::grid::{Grid2, Layout2};

/// A coastal basin fed by a river on its west side.
///
/// 25.6 km × 25.6 km (at any resolution), lengths in metres and time in years. The floor
/// deepens eastwards from 20 m to 220 m below datum, with a trough across the middle and a
/// low ridge near the river mouth. Sand diffuses fastest along the river's path (α up to
/// 2× background near the mouth) and mud everywhere more slowly with a gentle north–south
/// trend (β). The west side supplies `q` m³ per metre per year of 60% sand; the others are
/// closed. The top layer is A = 10 m thick; compaction ratios C_s = 0.7, C_m = 0.6.
pub fn basin(nx: usize, ny: usize, q: f64) -> Result<Problem> {
    const L: f64 = 25_600.0;
    basin_on(&Grid2 { nx, ny, dx: L / nx as f64, dy: L / ny as f64, origin: (0.0, 0.0), halo: 1 }, q)
}

/// The basin of [`basin`] on any grid: the same shape stretched over the grid's extent.
pub fn basin_on(grid: &Grid2, q: f64) -> Result<Problem> {
    let (nx, ny, dx, dy) = (grid.nx, grid.ny, grid.dx, grid.dy);
    let (lx, ly) = grid.extent();
    let p = nx + 2;
    let layout = Layout2::new(nx as u32, ny as u32, 1);
    let zeros = || Field2::filled(layout, 0.0);
    let (mut h, mut s, mut alpha, mut beta) = (zeros()?, zeros()?, zeros()?, zeros()?);
    for j in 0..ny + 2 {
        for i in 0..p {
            // Cell centres, ghosts just outside.
            let x = (i as f64 - 0.5) * dx / lx;
            let y = (j as f64 - 0.5) * dy / ly;
            let trough = 40.0 * (-((y - 0.5) / 0.15).powi(2)).exp() * (std::f64::consts::PI * x).sin();
            let ridge = 15.0 * (-(((x - 0.2) / 0.05).powi(2) + ((y - 0.3) / 0.1).powi(2))).exp();
            let c = j * p + i;
            h[c] = -20.0 - 200.0 * x - trough + ridge;
            s[c] = 0.3 + 0.2 * (-((y - 0.5) / 0.3).powi(2)).exp();
            alpha[c] = 50.0 * (1.0 + 1.0 * (-(x / 0.3).powi(2) - ((y - 0.5) / 0.2).powi(2)).exp());
            beta[c] = 20.0 * (1.0 + 0.5 * y);
        }
    }
    Ok(Problem {
        nx,
        ny,
        dx,
        dy,
        cs: 0.7,
        cm: 0.6,
        a: 10.0,
        sides: [Side { q, s_in: 0.6 }, Side::CLOSED, Side::CLOSED, Side::CLOSED],
        h,
        s,
        alpha,
        beta,
        scheme: Scheme::default(),
        accumulation: Accumulation::default(),
    })
}
