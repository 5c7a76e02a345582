//! Faces that let water only out (docs/kp-forcing.md, "Outflow on a slope"): the faces of a
//! `normal-depth` side and of a normal-depth outlet. Before each flux evaluation a face whose
//! flux with its ghosts open would bring water in is closed for the stage, its two ghosts marked
//! inactive in the activity map (`kernels::kp::lets_out`; every kernel of the stage then reads a
//! wall there, `kernels::kp::walls`); and the wall faces at the ends of a normal-depth outlet,
//! whose ghosts stand on the outlet's continued bed and are no mirror of the cells inside, are
//! closed for good. The split schemes (DS1, DS2) have no activity map: their normal-depth sides
//! are outflow sides over the continued bed, and they refuse outlets.
//!
//! The CPU reference's pass is here; the GPU's launches `kernels::kp::OUT_ONLY_*` over the same
//! faces, with the same point functions.

use super::clamp::corners;
use super::{Boundary, Problem, WetDry};
use crate::Real;
use crate::ranks::perimeter;
use kernels::Level;
use kernels::kp::{
    Bollermann, Clamp, Coeffs, FACES_ALL, Kp07, STREAM_COLS, WetDryScheme, ghosts_beyond, lets_out, measured_face,
};
use std::ops::Range;

impl Problem {
    /// The faces of the perimeter held at a level or opened by an outlet.
    fn reach_faces(&self) -> Vec<bool> {
        let mut held = vec![false; 2 * (self.nx + self.ny)];
        for (_, faces) in self.reaches() {
            held[faces].fill(true);
        }
        held
    }

    /// The faces that let water only out, in the perimeter's order: a normal-depth side's but
    /// where a level holds it, and a normal-depth outlet's. None in the split schemes.
    pub fn out_only_faces(&self) -> Vec<u32> {
        if self.scheme.is_split() {
            return Vec::new();
        }
        let held = self.reach_faces();
        let mut faces: Vec<u32> = Vec::new();
        for side in 0..4 {
            if self.boundary[side] == Boundary::NormalDepth {
                faces.extend(self.side_faces(side).filter(|&f| !held[f]).map(|f| f as u32));
            }
        }
        for o in self.forcing.outlets.iter().filter(|o| o.normal_depth) {
            let start = self.side_faces(o.side).start;
            faces.extend((start + o.cells.start..start + o.cells.end).map(|f| f as u32));
        }
        faces.sort_unstable();
        faces
    }

    /// The padded activity map `map` of this problem's layout with the ghosts beyond each face
    /// of [`closed_faces`](Self::closed_faces) inactive.
    pub(super) fn close_faces(&self, map: &mut [u8]) {
        self.close(map, &self.closed_faces());
    }

    /// Whether each strip of the streamed flux kernel (`kernels::kp::STREAM_COLS` interior
    /// columns, read with the two padded columns either side) reads, in any row, no cell that is
    /// inactive or may become so: no inactive cell, no ghost beyond a face closed for good or
    /// letting water only out. A byte a strip, 1 where so; what the GPU's activity map holds
    /// after its cells (`kernels::kp::walls`). Of the whole grid: a slab keeps its grid's.
    pub fn plain_strips(&self) -> Vec<u8> {
        match self.active_map() {
            Some(map) => self.plain_strips_of(&map),
            None => vec![1; kernels::kp::stream_strips(self.nx as u32) as usize],
        }
    }

    /// [`plain_strips`](Self::plain_strips) of this problem's activity map `map`
    /// ([`active_map`](Self::active_map)), read once, not copied.
    pub(super) fn plain_strips_of(&self, map: &[u8]) -> Vec<u8> {
        let p = self.nx + 4;
        // Whether each padded column holds no cell that is inactive or may become so.
        let mut clean = vec![true; p];
        for row in map.chunks_exact(p) {
            for (c, &a) in clean.iter_mut().zip(row) {
                *c &= a != 0;
            }
        }
        for (i, _) in self.ghosts(&self.out_only_faces()) {
            clean[(i + 2) as usize] = false;
        }
        let cols = STREAM_COLS as usize;
        (0..kernels::kp::stream_strips(self.nx as u32) as usize)
            .map(|s| clean[s * cols..(s * cols + cols + 4).min(p)].iter().all(|&c| c) as u8)
            .collect()
    }

    /// `map` with the two ghosts beyond each face of the perimeter `faces` inactive.
    fn close(&self, map: &mut [u8], faces: &[u32]) {
        let l = self.layout();
        for (i, j) in self.ghosts(faces) {
            map[l.at(i, j)] = 0;
        }
    }

    /// The two ghosts (i, j) beyond each face of the perimeter `faces`.
    fn ghosts(&self, faces: &[u32]) -> Vec<(i32, i32)> {
        let (nx, ny) = (self.nx as i32, self.ny as i32);
        let mut ghosts = Vec::with_capacity(2 * faces.len());
        for &face in faces {
            let side = (0..4).find(|&s| self.side_faces(s).contains(&(face as usize))).unwrap_or(0);
            let c = (face as usize - self.side_faces(side).start) as i32;
            for d in 1..=2 {
                ghosts.push(match side {
                    0 => (-d, c),
                    1 => (nx - 1 + d, c),
                    2 => (c, -d),
                    _ => (c, ny - 1 + d),
                });
            }
        }
        ghosts
    }

    /// The wall faces beside each end of a normal-depth outlet (across a periodic axis the cell
    /// before the first is the last), closed for good: where the reconstruction reads cells
    /// through their corners (`bollermann`, `clamp`) water would cross them between the cell
    /// and a ghost on the outlet's continued bed. None in the split schemes.
    pub fn closed_faces(&self) -> Vec<u32> {
        if self.scheme.is_split() {
            return Vec::new();
        }
        let held = self.reach_faces();
        let mut faces = Vec::new();
        for o in self.forcing.outlets.iter().filter(|o| o.normal_depth) {
            let side = o.side;
            let n = self.side_faces(side).len();
            let around = self.boundary[if side < 2 { 2 } else { 0 }] == Boundary::Periodic;
            let before = o.cells.start.checked_sub(1).or((around && n > 1).then(|| n - 1));
            let after = if o.cells.end < n { Some(o.cells.end) } else { (around && n > 1).then_some(0) };
            for cell in [before, after].into_iter().flatten() {
                let face = self.side_faces(side).start + cell;
                if self.boundary[side] == Boundary::Wall && !held[face] {
                    faces.push(face as u32);
                }
            }
        }
        faces.sort_unstable();
        faces.dedup();
        faces
    }
}

/// The faces of `faces` (of the perimeter of a grid of `nx` × `ny` cells) on the slab of
/// interior rows `rows`, as faces of the slab's perimeter.
pub fn slab_faces(faces: &[u32], nx: usize, ny: usize, rows: &Range<usize>) -> Vec<u32> {
    (0..perimeter::faces(nx, rows.len()))
        .filter(|&f| perimeter::whole_face(nx, ny, rows, f).is_some_and(|w| faces.binary_search(&(w as u32)).is_ok()))
        .map(|f| f as u32)
        .collect()
}

/// The padded cell of face `n` of the perimeter of orientation `k`, with its side, i and j.
fn face_cell<T: Real>(k: &Coeffs<T>, n: u32) -> (usize, (u32, u32, u32)) {
    let (side, i, j, _) = measured_face(k, FACES_ALL, n);
    (k.at(i + 2, j + 2), (side, i, j))
}

/// The activity of the ghosts beyond each face of `faces` (`Problem::out_only_faces`, or a
/// slab's) for the padded state (w, hu, hv) over the corner bed `bed` in wet–dry scheme
/// `wet_dry`: what `kernels::kp::OUT_ONLY_*` write into the map.
pub fn set_out_only<T: Real, W: Level<T>>(
    wet_dry: WetDry,
    k: &Coeffs<T>,
    faces: &[u32],
    q: (&[W], &[T], &[T]),
    bed: &[T],
    active: &mut [u8],
) {
    match wet_dry {
        WetDry::Bollermann => set_out_only_of::<Bollermann, T, W>(k, faces, q, bed, active),
        WetDry::Kp07 => set_out_only_of::<Kp07, T, W>(k, faces, q, bed, active),
        WetDry::Clamp => set_out_only_of::<Clamp, T, W>(k, faces, q, bed, active),
    }
}

fn set_out_only_of<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    faces: &[u32],
    (w, hu, hv): (&[W], &[T], &[T]),
    bed: &[T],
    active: &mut [u8],
) {
    let p = k.pitch as isize;
    for &n in faces {
        let (g, face) = face_cell(k, n);
        let at = |di: i32, dj: i32| (g as isize + di as isize + dj as isize * p) as usize;
        let q = |di: i32, dj: i32| (w[at(di, dj)], hu[at(di, dj)], hv[at(di, dj)]);
        let on = |di: i32, dj: i32| active[at(di, dj)] != 0;
        let open = on(0, 0) && lets_out::<S, T, W>(k, face, q, corners(k, bed, g), on);
        let (near, far) = ghosts_beyond(k, face.0);
        active[(g as isize + near) as usize] = open as u8;
        active[(g as isize + far) as usize] = open as u8;
    }
}
