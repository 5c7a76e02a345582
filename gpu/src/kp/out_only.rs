//! The faces that let water only out (launch contract: `entries.rs`): the faces of normal-depth
//! sides and outlets, one thread each, before each flux launch. A face whose flux with its
//! ghosts open would bring water in ([`lets_out`]) is a wall for the stage: its two ghosts are
//! marked inactive in the activity map, which every kernel of the stage reads
//! (`walls.rs`), so the flux kernels compute no flux of their own for it.

use super::{Coeffs, FACES_ALL, WetDryScheme, ghosts_beyond, lets_out, measured_face};
use crate::Level;
use crate::device::{DeviceReal, thread};

/// The activity of the ghosts beyond each face of `faces` (`count` indices of the perimeter's
/// faces, `perimeter_faces`' order) of the state (w, hu, hv) over the corner bed `bed`: active
/// (1) where the face lets water out or none through and the boundary cell is active, else 0.
///
/// # Safety
/// The launch contract of `entries.rs`; a 1-D launch of at least `count` threads; `faces`
/// holds `count` distinct faces of the perimeter of `k`; `active` is the padded activity map
/// `k.active` points to (not null).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn kp_out_only<S: WetDryScheme, T: DeviceReal, W: DeviceReal + Level<T>>(
    k: Coeffs<T>,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    faces: *const u32,
    count: u32,
    active: *mut u8,
) {
    let t = thread::index_1d();
    if t >= u64::from(count) {
        return;
    }
    unsafe {
        let (side, i, j, _) = measured_face(&k, FACES_ALL, *faces.add(t as usize));
        let (p, cp) = (k.pitch as isize, k.cpitch as isize);
        let g = (j + 2) as isize * p + (i + 2) as isize;
        let cc = (j + 2) as isize * cp + (i + 2) as isize;
        let q = |di: i32, dj: i32| {
            let o = (g + di as isize + dj as isize * p) as usize;
            (W::ldg(w.add(o)), T::ldg(hu.add(o)), T::ldg(hv.add(o)))
        };
        let b = |ci: i32, cj: i32| T::ldg(bed.add((cc + ci as isize + cj as isize * cp) as usize));
        // Plain loads: this launch writes the map, only ghosts, which `lets_out` does not read.
        let on = |di: i32, dj: i32| *active.offset(g + di as isize + dj as isize * p) != 0;
        let open = on(0, 0) && lets_out::<S, T, W>(&k, (side, i, j), q, b, on);
        let (near, far) = ghosts_beyond(&k, side);
        *active.offset(g + near) = open as u8;
        *active.offset(g + far) = open as u8;
    }
}
