//! The ADI sweep kernels: each sweep direction (x: rows, y: columns) with each of the MIKE 21
//! thesis's strategies — S1, one thread per line (Thomas; twisted Thomas, two threads per line),
//! and S2, one block per line (partition, PCR, CR-PCR) — over the row provider of `sweep.rs`.
//!
//! Every kernel takes a status of three `u64` words: the x-sweeps' and the y-sweeps'
//! breakdown codes (`fail_code(n, line, row)`, as the tridiagonal kernels report them) and the
//! first step that broke down (`red.min`, `u64::MAX` while none has). A kernel launched after
//! a breakdown does nothing, so the buffers of the state at the start of the failing step stay
//! as they were (the host rotates three ζ, q and wet buffers, see `src/adi/gpu.rs`) and the
//! host, checking the status only at report intervals, can go back to that state.

use super::Params;
use super::sweep::Sweep;
use crate::forcing::{CellForcing, Span};
use crate::tridiag::Dims;

kernels! {
    /// One sweep: read ζ, the fluxes, d and the wet map; write the new ζ, along flux and wet
    /// map in the same layout. `w`: the Thomas workspace (2·n·lines values), unused by the
    /// one-block strategies.
    pub struct AdiSweep<T> {
        p: Dims, s: Sweep<T>,
        d: *const T, zeta: *const T, flux: *const T, cross: *const T, cross_other: *const T, wet: *const u8,
        zeta_out: *mut T, flux_out: *mut T, wet_out: *mut u8, w: *mut T, status: *mut u64,
    }
    pub const X_THOMAS: AdiSweep = adi_x_thomas(sweep::<T, false, false, S1>);
    pub const Y_THOMAS: AdiSweep = adi_y_thomas(sweep::<T, true, false, S1>);
    pub const X_PARTITION: AdiSweep = adi_x_partition(sweep::<T, false, false, PARTITION>);
    pub const Y_PARTITION: AdiSweep = adi_y_partition(sweep::<T, true, false, PARTITION>);
    pub const X_PCR: AdiSweep = adi_x_pcr(sweep::<T, false, false, PCR>);
    pub const Y_PCR: AdiSweep = adi_y_pcr(sweep::<T, true, false, PCR>);
    pub const X_CR_PCR: AdiSweep = adi_x_cr_pcr(sweep::<T, false, false, CR_PCR>);
    pub const Y_CR_PCR: AdiSweep = adi_y_cr_pcr(sweep::<T, true, false, CR_PCR>);
    pub const X_TWISTED: AdiSweep = adi_x_twisted(sweep::<T, false, false, TWISTED>);
    pub const Y_TWISTED: AdiSweep = adi_y_twisted(sweep::<T, true, false, TWISTED>);
    // The transposed design's y-sweep (docs/adi.md, "The transposed y-sweep"): it reads and
    // writes transposed copies of the state, whose lines are rows.
    pub const YT_THOMAS: AdiSweep = adi_yt_thomas(sweep::<T, true, true, S1>);
    pub const YT_PARTITION: AdiSweep = adi_yt_partition(sweep::<T, true, true, PARTITION>);
    pub const YT_PCR: AdiSweep = adi_yt_pcr(sweep::<T, true, true, PCR>);
    pub const YT_CR_PCR: AdiSweep = adi_yt_cr_pcr(sweep::<T, true, true, CR_PCR>);
    pub const YT_TWISTED: AdiSweep = adi_yt_twisted(sweep::<T, true, true, TWISTED>);

    /// The transposed design's copies between its sweeps: ζ and the wet map (`rows × cols`)
    /// and the along flux (`rows × (cols + 1)`, its faces) transposed, each through a shared
    /// tile (`crate::transpose`'s launch contract over the flux's `rows × (cols + 1)`, with
    /// `TILE·(TILE+1)` `T`s of dynamic shared memory); nothing after a breakdown.
    pub struct AdiTranspose<T> {
        rows: u32, cols: u32, zeta: *const T, wet: *const u8, flux: *const T,
        zeta_t: *mut T, wet_t: *mut u8, flux_t: *mut T, status: *const u64,
    }
    pub const TRANSPOSE: AdiTranspose = adi_transpose(transpose_state::<T>);

    /// Rain and infiltration over the step that ends at ζ (`forcing.rs`), one thread a cell
    /// (a 1-D grid over nx·ny): ζ, the soil's total `f` (null without a soil) and the wet map
    /// updated in place; nothing after a breakdown.
    pub struct AdiForce<T> {
        k: Params<T>, cells: u32, cf: CellForcing<T>, span: Span, dt: T, frame_times: *const f64,
        frames: *const f32, rain_cells: *const u32, soils: *const T, soil_cells: *const u32, d: *const T,
        zeta: *mut T, f: *mut T, wet: *mut u8, status: *const u64,
    }
    pub const FORCE: AdiForce = adi_force(force::<T>);
}

/// The solver a sweep kernel runs (its const parameter).
#[cfg(target_arch = "nvptx64")]
const S1: u32 = 0;
#[cfg(target_arch = "nvptx64")]
const PARTITION: u32 = 1;
#[cfg(target_arch = "nvptx64")]
const PCR: u32 = 2;
#[cfg(target_arch = "nvptx64")]
const CR_PCR: u32 = 3;
#[cfg(target_arch = "nvptx64")]
const TWISTED: u32 = 4;

#[cfg(target_arch = "nvptx64")]
use {
    super::force_cell_adi,
    super::sweep::SweepLines,
    crate::device::{DeviceReal, thread},
    crate::forcing::cell_gain,
    crate::transpose::tiles::tile_of,
    crate::tridiag::{
        cr_pcr_lines, partition_lines, pcr_lines, read_status, report_min, thomas_lines, thomas_twisted_lines,
    },
};

/// One sweep in direction `Y` of design `TRANS` by solver `S` (see the module comment; the
/// launch contract is the solver's, with p.n = 2·along + 1 unknowns per line and p.batch =
/// lines).
///
/// # Safety
/// The arrays hold the grid of `s` in the layouts `SweepLines<T, Y, TRANS>` states; the inputs
/// are not written by the launch and the outputs overlap nothing; `status` holds three words; the launch is the one the solver `S`
/// states for `p`.
#[cfg(target_arch = "nvptx64")]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn sweep<T: DeviceReal, const Y: bool, const TRANS: bool, const S: u32>(
    p: Dims,
    s: Sweep<T>,
    d: *const T,
    zeta: *const T,
    flux: *const T,
    cross: *const T,
    cross_other: *const T,
    wet: *const u8,
    zeta_out: *mut T,
    flux_out: *mut T,
    wet_out: *mut u8,
    w: *mut T,
    status: *mut u64,
) {
    let lines = SweepLines::<T, Y, TRANS> { s, d, zeta, flux, cross, cross_other, wet, zeta_out, flux_out, wet_out };
    let mine = unsafe { status.add(Y as usize) };
    unsafe {
        let halted = read_status(status) | read_status(status.add(1)) != 0;
        if S == S1 {
            // No barriers: each thread may leave on its own.
            if halted {
                return;
            }
            thomas_lines(p, &lines, w, mine);
        } else {
            // The block's threads may read the status at different times: leave together.
            if thread::sync_threads_or(halted) {
                return;
            }
            match S {
                PARTITION => partition_lines(p, &lines, mine),
                PCR => pcr_lines(p, &lines, mine),
                TWISTED => thomas_twisted_lines(p, &lines, w, mine),
                _ => cr_pcr_lines(p, &lines, mine),
            }
        }
        // A thread that reported sees its own report.
        if read_status(mine) != 0 {
            report_min(status.add(2), s.step as u64);
        }
    }
}

/// Tile `blockIdx` of the state's transposes (see [`AdiTranspose`]).
///
/// # Safety
/// `zeta`, `wet` hold `rows·cols` values and `flux` `rows·(cols+1)`, the outputs as many,
/// overlapping nothing; `status` three words; the launch is `AdiTranspose`'s.
#[cfg(target_arch = "nvptx64")]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn transpose_state<T: DeviceReal>(
    rows: u32,
    cols: u32,
    zeta: *const T,
    wet: *const u8,
    flux: *const T,
    zeta_t: *mut T,
    wet_t: *mut u8,
    flux_t: *mut T,
    status: *const u64,
) {
    let tile = (thread::block_idx_x(), thread::block_idx_y());
    unsafe {
        // The sweep before this launch wrote the status, and nothing writes it during it: every
        // thread reads the same words.
        if read_status(status) | read_status(status.add(1)) != 0 {
            return;
        }
        tile_of(|o| T::ldg(flux.add(o)), flux_t, (rows, cols + 1), (cols + 1, rows), tile);
        // Each transpose fills the shared tile the one before it read.
        thread::sync_threads();
        tile_of(|o| T::ldg(zeta.add(o)), zeta_t, (rows, cols), (cols, rows), tile);
        thread::sync_threads();
        tile_of(|o| *wet.add(o), wet_t, (rows, cols), (cols, rows), tile);
    }
}

/// Rain and infiltration of cell `n` = the thread's index (see [`AdiForce`]): what it receives
/// over `span` ([`cell_gain`]), then [`force_cell_adi`].
///
/// # Safety
/// `d`, `zeta`, `wet` and `f` (when not null) hold `cells` values; `status` three words; the
/// rain grid's and soils' arrays as [`cell_gain`] says.
#[cfg(target_arch = "nvptx64")]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn force<T: DeviceReal>(
    k: Params<T>,
    cells: u32,
    cf: CellForcing<T>,
    span: Span,
    dt: T,
    frame_times: *const f64,
    frames: *const f32,
    rain_cells: *const u32,
    soils: *const T,
    soil_cells: *const u32,
    d: *const T,
    zeta: *mut T,
    f: *mut T,
    wet: *mut u8,
    status: *const u64,
) {
    let n = thread::index_1d();
    if n >= cells as u64 {
        return;
    }
    let n = n as usize;
    unsafe {
        // The cell's loads are issued before the status is needed, so their latencies overlap.
        // The status is a plain load: the sweeps before this kernel wrote it, and nothing
        // writes it while this kernel runs.
        let (dn, zn, wn) = (*d.add(n), *zeta.add(n), *wet.add(n) != 0);
        let f0 = if f.is_null() { T::ZERO } else { *f.add(n) };
        let (add, soil) = cell_gain(&cf, n, &span, frame_times, frames, rain_cells, soils, soil_cells);
        // After a breakdown the step's ζ is not the model's: leave everything as it is.
        if (*status | *status.add(1)) != 0 {
            return;
        }
        let (z, nf, w) = force_cell_adi(&k, dn, zn, wn, add, soil, f0, dt);
        *zeta.add(n) = z;
        if !f.is_null() {
            *f.add(n) = nf;
        }
        *wet.add(n) = w as u8;
    }
}
