//! Seed 003 §3.2's verification of the schemes: the circular dam break with wet surroundings
//! (40 m × 40 m, walls, a column of radius 2.5 m and depth 2.5 m in 0.5 m of water), each scheme
//! at n² cells against RK2 at (2n)², compared along the centre line y = 20 m (CPU reference,
//! f64).

use super::cpu::CpuKp;
use super::{Problem, Scheme, setup};
use crate::output::{PlotOptions, Series, write_line_plot_png};
use crate::{Error, Result};
use std::path::Path;

/// The centre lines of one comparison.
pub struct CentreLines {
    pub n: usize,
    pub t: f64,
    /// Cell centres along x of the n-cell grid, m.
    pub x: Vec<f64>,
    /// RK2 at 2n, averaged onto the n-cell grid's cells.
    pub reference: Vec<f64>,
    /// Each scheme's surface w along the centre line and its differences from the reference:
    /// (scheme, w, mean |Δw|, max |Δw|), metres.
    pub schemes: Vec<(Scheme, Vec<f64>, f64, f64)>,
}

/// The surface w along y = 20 m, for `n` cells a side (even): the mean of the two rows of
/// cells that meet there, then of `n / out` neighbouring columns for `out` cells along x.
fn centre_line(p: &Problem, w: &[f64], out: usize) -> Vec<f64> {
    let (n, k) = (p.nx, p.nx / out);
    let row = |j: usize, i: usize| w[j * n + i];
    let rows = [n / 2 - k, n / 2 + k - 1];
    (0..out)
        .map(|c| {
            let mut sum = 0.0;
            for j in rows[0]..=rows[1] {
                for i in c * k..(c + 1) * k {
                    sum += row(j, i);
                }
            }
            sum / (2 * k * k) as f64
        })
        .collect()
}

/// `scheme` on the dam break at n² cells to `t`: w along the centre line, averaged onto `out`
/// cells.
fn run(n: usize, scheme: Scheme, t: f64, out: usize) -> Result<Vec<f64>> {
    let mut p = setup::dam_break(n, n, false);
    p.scheme = scheme;
    let mut m = CpuKp::<f64>::new(&p, (16, 8), false)?;
    while m.time() < t {
        m.step(t).map_err(|h| Error::invalid(format!("{} at {n}²: {h:?} at t = {} s", scheme.name(), m.time())))?;
    }
    Ok(centre_line(&p, &p.interior(m.state()[0]), out))
}

/// Each of `schemes` at `n`² (n even) against RK2 at (2n)², at time `t`.
pub fn compare(n: usize, t: f64, schemes: &[Scheme]) -> Result<CentreLines> {
    if n < 4 || !n.is_multiple_of(2) {
        return Err(Error::invalid(format!("centre line: {n} cells a side; give an even number, at least 4")));
    }
    let p = setup::dam_break(n, n, false);
    let x = (0..n).map(|i| p.centre(i, 0).0).collect();
    let reference = run(2 * n, Scheme::Rk2, t, n)?;
    let mut out = Vec::new();
    for &s in schemes {
        let w = run(n, s, t, n)?;
        let d: Vec<f64> = w.iter().zip(&reference).map(|(a, b)| (a - b).abs()).collect();
        let (mean, max) = (d.iter().sum::<f64>() / n as f64, d.iter().fold(0.0f64, |m, v| m.max(*v)));
        out.push((s, w, mean, max));
    }
    Ok(CentreLines { n, t, x, reference, schemes: out })
}

impl CentreLines {
    /// The centre lines as a PNG line plot: x in metres over the domain, the surface in metres;
    /// the initial surface (dashed) keeps the vertical range that of the set-up, 0.5 m to 2.5 m,
    /// from one plot to the next.
    pub fn write_png(&self, path: &Path) -> Result<()> {
        let colors = [[31, 119, 180], [214, 39, 40], [44, 160, 44], [148, 103, 189], [255, 127, 14]];
        let p = setup::dam_break(self.n, self.n, false);
        let mut series = vec![
            Series {
                name: "t = 0 s".into(),
                x: self.x.clone(),
                y: centre_line(&p, &p.h, self.n),
                color: [150, 150, 150],
                dashed: true,
            },
            Series {
                name: format!("rk2, {0}² (high res)", 2 * self.n),
                x: self.x.clone(),
                y: self.reference.clone(),
                color: [0, 0, 0],
                dashed: true,
            },
        ];
        for (k, (s, w, mean, _)) in self.schemes.iter().enumerate() {
            series.push(Series {
                name: format!("{}, {}² (mean |Δw| {mean:.1e} m)", s.name(), self.n),
                x: self.x.clone(),
                y: w.clone(),
                color: colors[k % colors.len()],
                dashed: false,
            });
        }
        let opts = PlotOptions {
            title: format!("circular dam break, surface along y = 20 m at t = {} s", self.t),
            x_label: "x [m]".into(),
            y_label: "w [m]".into(),
        };
        write_line_plot_png(path, &series, &opts)
    }
}
