//! The water account's kernels (docs/kp-forcing.md, "The water account"; launch contract:
//! `entries.rs`): after a stage's ghosts and draining factors are set, one thread a boundary
//! face recomputes the face's mass flux with the flux kernels' point functions
//! ([`outward_flux`]) and adds the stage's share of it to the face's pending volume; the step's
//! last stage (or, in DS1 and DS2, a launch after the step's end) commits it to the face's
//! totals. About 2(nx + ny) threads: nothing a step would notice.

use super::early_exit::map_flags;
use super::{
    CLOCK_DS_STATE, Coeffs, Measure, NO_SEGMENT, SPLIT_GOING, WetDryScheme, add_pending, block_active, commit_face,
    face_volume, is_active, measured_face, measured_faces, outward_flux, perimeter_faces,
};
use crate::device::{DeviceReal, thread};

/// One stage's share of each boundary face's flux: for the faces `m` names (`m.faces`) of the
/// state (w, hu, hv) in orientation `k`, weight `m.scale`, Δt `dt[0]` and the faces' lengths
/// `len_x`, `len_y` ([`face_lengths`](super::face_lengths)), added to `pending`
/// at the face's index in the problem's perimeter; nothing where the face belongs to no
/// segment (`segment`), where Δt is 0, where `clock` is not null and the split step is not
/// going (`CLOCK_DS_STATE`), or with `wet` not null (early exit) where the boundary cell's
/// block is inactive (the flux kernel left its R at 0). In `clamp` (`drained` not null) a face
/// drains by its cell's factor in `phi` where `drained` flags the cell's block. With
/// `m.commit` ≠ 0 each face's pending volume then goes to its totals ([`commit_face`]).
///
/// # Safety
/// The launch contract of `entries.rs` for orientation `k`; a 1-D launch of at least
/// `measured_faces(k, m.faces)` threads; `dt` holds 1, `clock` null or `CLOCK_LEN_SPLIT`;
/// `wet` null or nbx·nby flags of `k`; `phi` padded and `drained` nbx·nby flags, or both null;
/// `segment` and `pending` hold `perimeter_faces(nx, ny)` entries of the problem, `totals` four
/// times that.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_account<S: WetDryScheme, T: DeviceReal>(
    k: Coeffs<T>,
    m: Measure,
    len_x: f64,
    len_y: f64,
    dt: *const T,
    clock: *const f64,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    wet: *const u32,
    phi: *const T,
    drained: *const u32,
    segment: *const u32,
    pending: *mut f64,
    totals: *mut f64,
) {
    let n = thread::index_1d();
    if n >= u64::from(measured_faces(&k, m.faces)) {
        return;
    }
    let (side, i, j, f) = measured_face(&k, m.faces, n as u32);
    let f = f as usize;
    unsafe {
        if *segment.add(f) == NO_SEGMENT {
            return;
        }
        let going = clock.is_null() || *clock.add(CLOCK_DS_STATE) == SPLIT_GOING as f64;
        let d = *dt;
        // `checked_div`: a plain division by a launch parameter would be a trap.
        let (bi, bj) = (i.checked_div(k.bx).unwrap_or(0), j.checked_div(k.by).unwrap_or(0));
        let active = wet.is_null() || block_active(&k, bi, bj, map_flags(&k, wet));
        if going && d > T::ZERO && active {
            let (p, cp) = (k.pitch as isize, k.cpitch as isize);
            let g = (j + 2) as isize * p + (i + 2) as isize;
            let cc = (j + 2) as isize * cp + (i + 2) as isize;
            let drains = !drained.is_null() && *drained.add((bj * k.nbx + bi) as usize) != 0;
            let phi_c = if drains { *phi.add(g as usize) } else { T::ONE };
            let q = |di: i32, dj: i32| {
                let o = (g + di as isize + dj as isize * p) as usize;
                (T::ldg(w.add(o)), T::ldg(hu.add(o)), T::ldg(hv.add(o)))
            };
            let b = |ci: i32, cj: i32| T::ldg(bed.add((cc + ci as isize + cj as isize * cp) as usize));
            let on = |di: i32, dj: i32| is_active(k.active(), (g + di as isize + dj as isize * p) as usize);
            let flux = outward_flux::<S, T>(&k, side, q, b, on, phi_c);
            let length = if side < 2 { len_x } else { len_y };
            let v = face_volume(m.scale, d.to_f64(), flux.to_f64(), length);
            *pending.add(f) = add_pending(*pending.add(f), v);
        }
        if m.commit != 0 {
            commit_face(totals, pending, f, perimeter_faces(k.nx, k.ny) as usize);
        }
    }
}

/// The end of a split step (DS1, DS2) for the account: each face's pending volume committed to
/// its totals where the step went through (`clock`'s `CLOCK_DS_STATE`), dropped where it was
/// discarded or idle ([`commit_face`] of nothing then). One thread a face of the perimeter.
///
/// # Safety
/// A 1-D launch of at least `perimeter_faces(k.nx, k.ny)` threads; `clock` holds
/// `CLOCK_LEN_SPLIT`, `pending` the faces, `totals` four times as many.
pub(super) unsafe fn kp_account_commit<T: DeviceReal>(
    k: Coeffs<T>,
    clock: *const f64,
    pending: *mut f64,
    totals: *mut f64,
) {
    let f = thread::index_1d();
    let count = perimeter_faces(k.nx, k.ny);
    if f >= u64::from(count) {
        return;
    }
    let f = f as usize;
    unsafe {
        if *clock.add(CLOCK_DS_STATE) != SPLIT_GOING as f64 {
            *pending.add(f) = 0.0;
        }
        commit_face(totals, pending, f, count as usize);
    }
}
