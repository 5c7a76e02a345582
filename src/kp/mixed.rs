//! The mixed precision's CPU reference (docs/f32-conservation.md, "Mixed precision for shallow
//! water"): the surface w stored and updated as a level `W` = f64 of the flux precision `T` =
//! f32; hu, hv, the corner bed, the reconstructions and the face fluxes in `T`. It is
//! `CpuKp<f32, f64>` (`cpu.rs`, over the state of `state.rs`): the reference's one set of loops, which run the level-generic
//! point functions: a cell's depth w̄ − B̄ is formed in `W` and rounded once
//! (`kernels::kp::surface_of`), a fully flooded cell's level is w̄ rounded once; R_w is summed
//! face by face in `W` from the `T` mass fluxes (`kernels::kp::mass_rate`), so both cells of a
//! face add the same value with opposite signs and Σ R_w telescopes to `W`'s round-off; the RK
//! stages add to w in `W` (`kernels::kp::rk_of`). With `W` = `T` those functions are the plain
//! ones bit for bit, which is how the f32 and f64 paths keep their arithmetic.
//!
//! This module holds what only a wider `W` has: its surface type, its start, and its schemes
//! (RK2 and Euler; every wet–dry scheme, friction, early exit of dry blocks as the f32 and f64
//! paths have it). The split schemes (SRK2, DS1, DS2) and the compensated update refuse it.

use super::slab::Start;
use super::state::{State, Surface, apply_boundary, clean_state};
use super::{Problem, Scheme};
use crate::field::Field2;
use crate::ranks::Slab;
use crate::{Error, Real, Result};
use kernels::kp::Coeffs;

/// The mixed precision's surface: f64 over f32, which has no `T` view.
impl Surface<f32> for f64 {
    fn plain(_: &[f64]) -> Option<&[f32]> {
        None
    }
    fn plain_mut(_: &mut [f64]) -> Option<&mut [f32]> {
        None
    }
}

/// Whether `scheme` has a mixed-precision step: RK2 and Euler (`CpuKp<f32, f64>`, `GpuKp`'s
/// mixed entry points); the split schemes refuse it in one line.
pub fn check_scheme(scheme: Scheme) -> Result<()> {
    match scheme {
        Scheme::Rk2 | Scheme::Euler => Ok(()),
        s => Err(Error::invalid(format!(
            "precision mixed runs the rk2 and euler schemes only; {} runs f32 or f64",
            s.name()
        ))),
    }
}

/// The start of a run whose surface is a wider level `W`: `q` holds the bed and momenta as
/// `CpuKp<T>` has them; a wet cell's surface becomes the f64 state's h + B̄ (so a lake at rest
/// is one level), a dry cell's stays B̄ in `T` (exactly dry, as `Problem::padded` leaves it: the
/// f64 state's B̄ is not the `T` cell bed depths are taken against, so its dry cells would hold
/// the two beds' difference, up to half an f32 ulp of B̄, as water that counts as wet); cleaned
/// against the `T` cell bed, with its ghosts. `k` and `k64`: the constants in `T` and in f64 (the
/// problem's, or the whole grid's for the rows around a slab).
pub(super) fn start<T: Real, W: Surface<T>>(
    problem: &Problem,
    (k, k64): (&Coeffs<T>, &Coeffs<f64>),
    cell_bed: &[T],
    q: &mut State<T, W>,
) -> Result<()> {
    let wide: Field2<W> = problem.padded_with(k64, k64)?.q[0].convert();
    for j in 0..problem.ny {
        for i in 0..problem.nx {
            if problem.h[j * problem.nx + i] > 0.0 {
                q.w.set(i as i32, j as i32, wide.get(i as i32, j as i32));
            }
        }
    }
    clean_state(k, &mut q.w, &mut q.hu, &mut q.hv, cell_bed);
    apply_boundary(k, &mut q.w, &mut q.hu, &mut q.hv, cell_bed, None);
    Ok(())
}

/// A slab's start in the mixed precision, as a run of the whole grid makes its start
/// ([`start`]) cut to the slab's rows with the rows beyond its cuts (`Start::slab`): made
/// from the rows about the slab (`Problem::slab_start`), or, where those reach the ends of a
/// periodic y axis, from the whole grid's.
pub(super) fn slab_start(
    whole: &Problem,
    grid: &super::slab::WholeGrid,
    block: (u32, u32),
    slab: &Slab,
) -> Result<(Start<f32>, State<f32, f64>)> {
    let window = whole.window_start::<f32>(grid, block, slab)?;
    let windowed = window.is_some();
    let (problem, start, k64, lo) = match window {
        Some(super::slab::Window { ref problem, start, k64, lo }) => (problem, start, k64, lo),
        None => (whole, whole.start::<f32>(block)?, whole.coeffs::<f64>(block), 0),
    };
    let [w, hu, hv] = &start.padded.q;
    let mut q = State { w: w.convert::<f64>(), hu: hu.clone(), hv: hv.clone() };
    self::start(problem, (&start.k, &k64), &start.padded.cell_bed, &mut q)?;
    let rows = slab.rows.start - lo..slab.rows.end - lo;
    let cut = State { w: q.w.slab(rows.clone())?, hu: q.hu.slab(rows.clone())?, hv: q.hv.slab(rows)? };
    let start = match windowed {
        true => whole.cut_window_start(grid, start, slab, lo)?,
        false => start.slab(slab)?,
    };
    Ok((start, cut))
}
