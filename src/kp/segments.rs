//! The water account's boundary segments (docs/kp-forcing.md, "The water account"): each open
//! side (`outflow`, `normal-depth`) by its name, each held level and each outlet by its own,
//! and which faces of the perimeter each holds. Walls let nothing through and a periodic side's
//! water comes back in at the other, so neither is a segment. The CPU reference and the GPU
//! driver measure the segments' faces (`perimeter.rs`, `kernels::kp::outward_flux`); the model
//! sums the faces' totals into the segments when it hands a state out.

use super::Problem;
use crate::model::BoundaryFlow;
use crate::ranks::perimeter;
use kernels::kp::{NO_SEGMENT, perimeter_faces};
use std::ops::Range;

/// The sides' names, in the order of the kernels' side codes.
pub const SIDES: [&str; 4] = ["west", "east", "south", "north"];

/// A problem's boundary segments.
#[derive(Clone, Debug, PartialEq)]
pub struct Segments {
    /// Each segment's name: the open sides (west, east, south, north), then the held levels,
    /// then the outlets, in the case's order.
    pub names: Vec<String>,
    /// Each face of the perimeter's segment (`kernels::kp::perimeter_faces`' order), or
    /// `NO_SEGMENT`.
    pub map: Vec<u32>,
}

impl Problem {
    /// The faces of side `side` (0 west, 1 east, 2 south, 3 north) in the perimeter's order
    /// (`kernels::kp::perimeter_faces`): west, east (ny each), south, north (nx each).
    pub(super) fn side_faces(&self, side: usize) -> Range<usize> {
        let (nx, ny) = (self.nx, self.ny);
        let start = [0, ny, 2 * ny, 2 * ny + nx][side];
        start..start + if side < 2 { ny } else { nx }
    }

    /// Each held level's and each outlet's name and faces of the perimeter, levels first, in
    /// the case's order.
    pub(super) fn reaches(&self) -> Vec<(&str, Range<usize>)> {
        let f = &self.forcing;
        let levels = f.levels.iter().map(|l| (l.name.as_str(), l.side, &l.cells));
        let outlets = f.outlets.iter().map(|o| (o.name.as_str(), o.side, &o.cells));
        let at = |side: usize, cells: &Range<usize>| {
            let start = self.side_faces(side).start;
            start + cells.start..start + cells.end
        };
        levels.chain(outlets).map(|(name, side, cells)| (name, at(side, cells))).collect()
    }
}

impl Segments {
    /// The segments of `problem`: with forcing only (a run without it keeps no account). An
    /// open side whose every cell a level holds has no segment of its own.
    pub fn of(problem: &Problem) -> Segments {
        let (nx, ny) = (problem.nx, problem.ny);
        if problem.forcing.is_empty() {
            return Segments { names: Vec::new(), map: Vec::new() };
        }
        let reaches = problem.reaches();
        let mut map = vec![NO_SEGMENT; perimeter_faces(nx as u32, ny as u32) as usize];
        let mut names = Vec::new();
        for (side, b) in problem.boundary.iter().enumerate() {
            let faces = problem.side_faces(side);
            let own: Vec<usize> = faces.filter(|k| reaches.iter().all(|(_, r)| !r.contains(k))).collect();
            if b.is_open() && !own.is_empty() {
                for k in own {
                    map[k] = names.len() as u32;
                }
                names.push(SIDES[side].to_string());
            }
        }
        for (name, faces) in reaches {
            map[faces].fill(names.len() as u32);
            names.push(name.to_string());
        }
        Segments { names, map }
    }

    /// The segments of the slab of interior rows `rows` of this grid of `nx` × `ny` cells, on
    /// ranks: the whole grid's names, each face of the slab's perimeter in its whole grid's
    /// face's segment, and none at the slab's cuts (which lie inside the grid).
    pub fn slab(&self, nx: usize, ny: usize, rows: &Range<usize>) -> Segments {
        if self.is_empty() {
            return self.clone();
        }
        let map = (0..perimeter::faces(nx, rows.len()))
            .map(|f| perimeter::whole_face(nx, ny, rows, f).map_or(NO_SEGMENT, |w| self.map[w]))
            .collect();
        Segments { names: self.names.clone(), map }
    }

    /// Whether there is nothing to measure: no open side, held level or outlet.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The segments' volumes from the faces' totals `totals` (four arrays of the perimeter's
    /// faces: what left, values then low parts; what came in, values then low parts), each face's
    /// pair added as value + low part and the faces summed in f64 in their order.
    pub fn flows(&self, totals: &[f64]) -> Vec<BoundaryFlow> {
        let n = self.map.len();
        let mut flows: Vec<BoundaryFlow> =
            self.names.iter().map(|name| BoundaryFlow { name: name.clone(), out: 0.0, into: 0.0 }).collect();
        if totals.len() != 4 * n {
            return flows;
        }
        for (f, &s) in self.map.iter().enumerate().filter(|(_, s)| **s != NO_SEGMENT) {
            let flow = &mut flows[s as usize];
            flow.out += totals[f] + totals[n + f];
            flow.into += totals[2 * n + f] + totals[3 * n + f];
        }
        flows
    }
}
