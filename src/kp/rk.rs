//! The CPU reference's RK stage: the loop over the interior that runs `kernels::kp::rk_of` (or
//! its compensated form) on every cell, and the wet map it leaves. The unsplit schemes run it on
//! the whole state and the split schemes on each substep, so it sits below both.

use crate::Real;
use crate::field::stencil_rows;
use kernels::Level;
use kernels::kp::{Coeffs, rk_of, rk_pair};
use rayon::prelude::*;

/// w's low parts of a compensated RK stage (padded): Qⁿ's and Q¹'s, read, and the output's.
pub struct LowParts<'a, T> {
    pub q0: &'a [T],
    pub q1: &'a [T],
    pub out: &'a mut [T],
}

/// One RK stage on the interior into `out` (see `kernels::kp::rk_of`), and the wet map. Each
/// cell's g·n² is `k.g_n2`, or its value in `gn2` (padded) when the problem has a friction field.
/// The state's fields are (w, hu, hv), w a level `W` (with R_w).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn rk<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    stage: u32,
    dt: T,
    cell_bed: &[T],
    gn2: Option<&[T]>,
    q0: (&[W], &[T], &[T]),
    q1: (&[W], &[T], &[T]),
    r: (&[W], &[T], &[T]),
    out: (&mut [W], &mut [T], &mut [T]),
    wet: &mut [u8],
) {
    let at = |(w, hu, hv): (&[W], &[T], &[T]), c: usize| (w[c], hu[c], hv[c]);
    stage_cells(k, out, None, wet, |c| {
        let g_n2 = gn2.map_or(k.g_n2, |f| f[c]);
        let (q, is_wet) = rk_of(k, g_n2, stage, dt, cell_bed[c], at(q0, c), at(q1, c), at(r, c));
        (q, T::ZERO, is_wet)
    });
}

/// [`rk`] with w kept as a pair (w, low) in `T` (the compensated stage, `kernels::kp::rk_pair`):
/// w's low parts read from and written to `low`.
#[allow(clippy::too_many_arguments)]
pub fn rk_compensated<T: Real>(
    k: &Coeffs<T>,
    stage: u32,
    dt: T,
    cell_bed: &[T],
    gn2: Option<&[T]>,
    q0: [&[T]; 3],
    q1: [&[T]; 3],
    r: [&[T]; 3],
    [w, hu, hv]: [&mut [T]; 3],
    low: LowParts<'_, T>,
    wet: &mut [u8],
) {
    let LowParts { q0: l0, q1: l1, out } = low;
    let at = |q: [&[T]; 3], c: usize| (q[0][c], q[1][c], q[2][c]);
    stage_cells(k, (w, hu, hv), Some(out), wet, |c| {
        let g_n2 = gn2.map_or(k.g_n2, |f| f[c]);
        rk_pair(k, g_n2, stage, dt, cell_bed[c], (at(q0, c), l0[c]), (at(q1, c), l1[c]), at(r, c))
    });
}

/// The loop of an RK stage: each interior cell's (w, hu, hv), w's low part (into `low` where
/// given) and wetness from `point` of its padded index, rows in parallel; then the wet map.
#[allow(clippy::type_complexity)]
fn stage_cells<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    (ow, ou, ov): (&mut [W], &mut [T], &mut [T]),
    low: Option<&mut [T]>,
    wet: &mut [u8],
    point: impl Fn(usize) -> ((W, T, T), T, bool) + Sync,
) {
    let p = k.pitch as usize;
    let (nx, ny) = (k.nx as usize, k.ny as usize);
    // The output's low part row by row, or none a row on the plain path.
    let lo_rows: Vec<Option<&mut [T]>> = match low {
        Some(out) => out.chunks_mut(p).map(Some).collect(),
        None => ow.chunks(p).map(|_| None).collect(),
    };
    let row_wet: Vec<Vec<bool>> = ow
        .par_chunks_mut(p)
        .zip(ou.par_chunks_mut(p))
        .zip(ov.par_chunks_mut(p))
        .zip(lo_rows)
        .enumerate()
        .skip(2)
        .take(ny)
        .with_min_len(stencil_rows(p))
        .map(|(j, (((rw, ru), rv), mut rl))| {
            (2..nx + 2)
                .map(|i| {
                    let (q, lo, is_wet) = point(j * p + i);
                    (rw[i], ru[i], rv[i]) = q;
                    if let Some(rl) = rl.as_deref_mut() {
                        rl[i] = lo;
                    }
                    is_wet
                })
                .collect()
        })
        .collect();
    wet.fill(0);
    for (j, row) in row_wet.iter().enumerate() {
        for (i, &is_wet) in row.iter().enumerate() {
            if is_wet {
                wet[(j as u32 / k.by * k.nbx + i as u32 / k.bx) as usize] = 1;
            }
        }
    }
}
