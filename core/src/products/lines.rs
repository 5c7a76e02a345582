//! Discharge lines (cross-sections, as TUFLOW's PO lines or HEC-RAS's profile lines): the
//! discharge in m³/s through a polyline, from the same samples the gauges take.
//!
//! A line counts the faces between two interior cells whose centres it separates: the face
//! between cells A and B is crossed where the segment joining their centres crosses the line.
//! So the faces a line crosses are the staircase of faces between the cells on its left and
//! those on its right, and a line along a face counts that face. The discharge is the sum over
//! those faces of the momentum normal to the face (the mean of the two cells' hu for a face
//! between x-neighbours, hv between y-neighbours) times the face's length, positive for water
//! crossing from the line's left to its right, looking from its first point to its last.
//!
//! Ties (a centre on the line, a line's point on the segment joining two centres) are broken
//! as if the whole line lay a hair west of where it is drawn (and, by far less, south): a
//! centre on a line running north or south counts as east of it, a centre on a line running east
//! or west as north of it. As that is one small shift of the whole line, no face is counted twice
//! and none is missed where segments meet, a line drawn the other way round crosses the same
//! faces the other way, and a line folded back on itself crosses nothing.

use crate::Result;
use crate::case::Check;
use crate::case::num;
use crate::case::products::{Spec, gauge_cell, inside, outside};
use crate::grid::Grid2;
use kernels::products::GAUGE_VALUES;

/// The momentum a face's discharge reads: hu across a face between x-neighbours, hv across one
/// between y-neighbours (the sample's columns, `kernels::products::GAUGE_COLUMNS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Axis {
    /// The face between cells (i, j) and (i + 1, j), of length Δy.
    X = 1,
    /// The face between cells (i, j) and (i, j + 1), of length Δx.
    Y = 2,
}

/// A face between two interior cells, named by the cell west (x) or south (y) of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GridFace {
    pub axis: Axis,
    pub j: usize,
    pub i: usize,
}

impl GridFace {
    /// The cells on either side (j·nx + i): west or south first.
    pub fn cells(self, nx: usize) -> [usize; 2] {
        let c = self.j * nx + self.i;
        match self.axis {
            Axis::X => [c, c + 1],
            Axis::Y => [c, c + nx],
        }
    }

    /// The face's length.
    pub fn length(self, grid: &Grid2) -> f64 {
        match self.axis {
            Axis::X => grid.dy,
            Axis::Y => grid.dx,
        }
    }
}

/// Centre of interior cell `i` along an axis from `origin` with spacing `d`: the one formula
/// every test of a line against the cells uses.
fn centre(origin: f64, d: f64, i: usize) -> f64 {
    origin + (i as f64 + 0.5) * d
}

/// Whether `c` lies left of the line through `p` towards `q` once that line is moved by
/// (−ε, −ε²), ε → 0: off the line, its side; on it, left where the line runs south (its left
/// is then east), or runs east (its left is north). A segment of no length has everything on
/// one side.
fn left_of(p: [f64; 2], q: [f64; 2], c: [f64; 2]) -> bool {
    let o = (q[0] - p[0]) * (c[1] - p[1]) - (q[1] - p[1]) * (c[0] - p[0]);
    if o != 0.0 { o > 0.0 } else { q[1] < p[1] || (q[1] == p[1] && q[0] > p[0]) }
}

/// The faces the polyline `points` (metres, in the domain) crosses, each with its net number
/// of crossings: +1 for a crossing with the west or south cell on the line's left, −1 with it
/// on the right (a line that crosses a face back and forth counts it 0, and leaves it out). In
/// the order of [`GridFace`] (x-faces row by row, then y-faces), so that sums over them run in
/// one order on every backend.
///
/// The segment from p to q crosses the face between centres a and b where a and b lie on
/// different sides of the line pq and p and q on different sides of the line ab, both once the
/// line is moved a hair as the module says (`left_of`): for an x-face, the centres' y lies in
/// [min, max) of p's and q's; for a y-face, their x does. So where a line passes through a
/// vertex on the segment ab, one of the two segments meeting there counts it.
pub fn crossings(points: &[[f64; 2]], grid: &Grid2) -> Vec<(GridFace, i32)> {
    let mut count = std::collections::BTreeMap::new();
    let (nx, ny) = (grid.nx, grid.ny);
    let (x0, y0) = grid.origin;
    for pq in points.windows(2) {
        let (p, q) = (pq[0], pq[1]);
        // x-faces: the rows whose centres' y lies in [min, max) of the segment's; in each, the
        // faces near where the segment meets that y.
        if p[1] != q[1] && nx >= 2 {
            for j in span(y0, grid.dy, ny, p[1].min(q[1]), p[1].max(q[1])) {
                let yc = centre(y0, grid.dy, j);
                if (p[1] > yc) == (q[1] > yc) {
                    continue;
                }
                let x = p[0] + (yc - p[1]) * (q[0] - p[0]) / (q[1] - p[1]);
                for i in near(x0, grid.dx, nx - 1, x) {
                    let (a, b) = ([centre(x0, grid.dx, i), yc], [centre(x0, grid.dx, i + 1), yc]);
                    let a_left = left_of(p, q, a);
                    if a_left != left_of(p, q, b) {
                        *count.entry(GridFace { axis: Axis::X, j, i }).or_insert(0) += if a_left { 1 } else { -1 };
                    }
                }
            }
        }
        if p[0] != q[0] && ny >= 2 {
            for i in span(x0, grid.dx, nx, p[0].min(q[0]), p[0].max(q[0])) {
                let xc = centre(x0, grid.dx, i);
                if (p[0] <= xc) == (q[0] <= xc) {
                    continue;
                }
                let y = p[1] + (xc - p[0]) * (q[1] - p[1]) / (q[0] - p[0]);
                for j in near(y0, grid.dy, ny - 1, y) {
                    let (a, b) = ([xc, centre(y0, grid.dy, j)], [xc, centre(y0, grid.dy, j + 1)]);
                    let a_left = left_of(p, q, a);
                    if a_left != left_of(p, q, b) {
                        *count.entry(GridFace { axis: Axis::Y, j, i }).or_insert(0) += if a_left { 1 } else { -1 };
                    }
                }
            }
        }
    }
    count.into_iter().filter(|&(_, n)| n != 0).collect()
}

/// The cells (of `n` along an axis from `origin`, spacing `d`) whose centres may lie in
/// [lo, hi]: one more on each side than the division says, which the exact test then decides.
fn span(origin: f64, d: f64, n: usize, lo: f64, hi: f64) -> std::ops::Range<usize> {
    let first = ((lo - origin) / d - 0.5).floor() - 1.0;
    let last = ((hi - origin) / d - 0.5).ceil() + 1.0;
    (first.max(0.0) as usize)..((last + 1.0).clamp(0.0, n as f64) as usize)
}

/// The faces (of `faces` along an axis, face k between centres k and k + 1) whose centres may
/// straddle `at`: the one the division says and its neighbours.
fn near(origin: f64, d: f64, faces: usize, at: f64) -> std::ops::Range<usize> {
    let k = ((at - origin) / d - 0.5).floor();
    ((k - 1.0).max(0.0) as usize)..((k + 2.0).clamp(0.0, faces as f64) as usize)
}

/// A face a line reads in the samples of [`Sites`]: the samples of its west (or south) and
/// east (or north) cells, the momentum ([`Axis`] as the sample's column) and its weight, the
/// face's length times its net crossings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Face {
    pub from: u32,
    pub to: u32,
    pub axis: Axis,
    pub weight: f64,
}

/// Where a run's products sample the state: the interior cells (j·nx + i) sampled every
/// `gauge_every` steps — the gauges' in their order, then the cells beside the lines' faces
/// that no gauge samples — and each line's faces as samples of those cells. CPU and GPU take
/// the same samples; the lines' discharges follow from them on the host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sites {
    pub cells: Vec<u32>,
    pub lines: Vec<Vec<Face>>,
}

/// The gauges' cells alone: no lines.
impl From<Vec<u32>> for Sites {
    fn from(cells: Vec<u32>) -> Sites {
        Sites { cells, lines: Vec::new() }
    }
}

impl Sites {
    /// Where the products of `spec` sample on `grid`: the gauges' cells ([`Spec::cells`]) and the
    /// faces each line crosses ([`crossings`]). A gauge or a line's point outside
    /// the domain, and a line that crosses no face between two cells, are refused naming the key.
    pub fn of(spec: &Spec, grid: &Grid2, c: &Check) -> Result<Sites> {
        let cells = spec
            .gauges
            .iter()
            .map(|g| gauge_cell(g, grid).or_else(|e| c.fail("output.gauges", e)))
            .collect::<Result<Vec<u32>>>()?;
        let mut lines = Vec::with_capacity(spec.lines.len());
        for l in &spec.lines {
            if let Some(p) = l.points.iter().find(|p| !inside(p[0], p[1], grid)) {
                return c.fail(
                    "output.lines",
                    format!("line {}: the point ({}, {}) m is {}", l.name, num(p[0]), num(p[1]), outside(grid)),
                );
            }
            let faces = crossings(&l.points, grid);
            if faces.is_empty() {
                let (nx, ny, dx, dy) = (grid.nx, grid.ny, num(grid.dx), num(grid.dy));
                return c.fail(
                    "output.lines",
                    format!(
                        "line {} crosses no face between two cells of the {nx}×{ny} grid ({dx} m × {dy} m cells): \
                         draw it across the flow, through the domain's interior",
                        l.name
                    ),
                );
            }
            lines.push(faces);
        }
        Ok(Sites::new(grid, cells, &lines))
    }

    /// The gauges at `cells` and lines crossing `lines` (from [`crossings`]) on `grid`: every
    /// cell beside a line's face sampled once.
    pub fn new(grid: &Grid2, cells: Vec<u32>, lines: &[Vec<(GridFace, i32)>]) -> Sites {
        let mut index: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for (k, &c) in cells.iter().enumerate().rev() {
            index.insert(c, k as u32);
        }
        let mut sites = Sites { cells, lines: Vec::with_capacity(lines.len()) };
        for crossed in lines {
            let mut faces = Vec::with_capacity(crossed.len());
            for &(face, n) in crossed {
                let [from, to] = face.cells(grid.nx).map(|c| {
                    let next = sites.cells.len() as u32;
                    *index.entry(c as u32).or_insert_with(|| {
                        sites.cells.push(c as u32);
                        next
                    })
                });
                faces.push(Face { from, to, axis: face.axis, weight: face.length(grid) * n as f64 });
            }
            sites.lines.push(faces);
        }
        sites
    }
}

/// The discharge (m³/s) through a line's `faces` from one `sample` of every site's cell
/// ([h, hu, hv, η] each): Σ weight · (momentum west + momentum east) / 2, in the faces' order.
pub fn discharge(faces: &[Face], sample: &[[f64; GAUGE_VALUES]]) -> f64 {
    faces
        .iter()
        .map(|f| {
            let m = f.axis as usize;
            f.weight * (0.5 * (sample[f.from as usize][m] + sample[f.to as usize][m]))
        })
        .sum()
}

#[cfg(test)]
mod tests;
