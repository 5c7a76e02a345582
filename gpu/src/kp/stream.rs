//! The streamed flux kernel: each warp walks up a strip of [`STREAM_COLS`] interior columns,
//! one row at a time, with no shared memory and no block barriers.
//!
//! Lane l holds padded column `28·strip + l` (lanes 0, 1, 30, 31 only supply neighbours). Per
//! row a lane keeps a three-row register window of (w*, n_x, n_y, drain cap) (`cell_view`: w̄
//! unless the cell is partially flooded; the momenta, or in `clamp` the velocities) and the
//! corner B of three rows (its column's and the next, loaded as pairs), and
//! - reconstructs its cell along y from the window, and gets the face between this row and the
//!   one below from the plus face it kept from the row below: the north flux of the row below,
//!   which it now finishes and writes, and the south flux of this row;
//! - reconstructs its cell along x from its neighbours' cells (shuffles), computes its west face
//!   flux from the west neighbour's plus face (a shuffle), and takes its east face flux from the
//!   east neighbour's west face (a shuffle).
//!
//! So every face flux and every reconstruction is computed once per warp (the halo lanes and
//! one extra row per band are the only repeats: 32/28 and (rows + 2)/rows), against the tile
//! kernel's recomputed neighbour reconstructions and its edge threads, which made every warp
//! pay for an east face. The next row's loads are issued before the current row's arithmetic,
//! and first used after it.
//!
//! Launch: blocks of `32·warps` threads, grid (⌈strips / warps⌉, the bands' count); block row
//! y computes band `bands.band(y)` ([`Bands`](crate::Bands): every band, or a slab's inner or
//! edge bands), and the warp's rate slot is `band · strips + strip`
//! ([`stream_slots`](super::stream_slots) in all). With
//! early exit a cell's R is computed only when its wet-map tile (`k.bx × k.by` cells, the RK
//! kernel's blocks) or one of the four next to it is wet; otherwise R is 0, left unwritten (the
//! RK kernel knows, see `kp_rk`), and the cell adds nothing to the rate. A warp with no such
//! cell returns at once. These are the tile kernel's results whatever the strip geometry.

use super::rk::{CellFlags, STAGE_PLAIN, StageForcing, Update, load_cell, update_cell};
use super::{
    Cell, Coeffs, FaceState, Flux, STREAM_COLS, WetDryScheme, block_active, cell_view, face_bed, face_flux, is_active,
    mass_part, reconstruct_on, rhs_x, rhs_y, slope_source, stream_strips,
};
use crate::device::reduce::warp_reduce;
use crate::device::warp;
use crate::device::{DeviceReal, thread};
use crate::forcing::Soil;
use crate::{Bands, Level};

/// Each lane's view of the strip.
#[derive(Clone, Copy)]
struct Lane {
    /// Padded column of this lane.
    pc: u32,
    /// Whether this lane's cell is an interior cell the warp computes.
    useful: bool,
}

/// A drain cap moved between lanes by `shift`, in a scheme that has them; KP07's are ∞ in every
/// lane, and a shuffle (not `pure`, so never removed) would stay in its code for nothing.
#[inline(always)]
fn cap_shift<S: WetDryScheme, T: DeviceReal>(cap: T, shift: impl Fn(T) -> T) -> T {
    if S::PARTIAL { shift(cap) } else { cap }
}

/// Shift a face state one lane up (the west neighbour's).
#[inline(always)]
fn face_up<S: WetDryScheme, T: DeviceReal>(f: FaceState<T>) -> FaceState<T> {
    let cap = cap_shift::<S, T>(f.cap, |c| c.shfl_up(1));
    FaceState { w: f.w.shfl_up(1), h: f.h.shfl_up(1), un: f.un.shfl_up(1), ut: f.ut.shfl_up(1), cap }
}

/// Shift a flux one lane down (the east neighbour's).
#[inline(always)]
fn flux_down<T: DeviceReal>(f: Flux<T>) -> Flux<T> {
    Flux { f0: f.f0.shfl_down(1), fn_: f.fn_.shfl_down(1), ft: f.ft.shfl_down(1), speed: f.speed.shfl_down(1) }
}

/// What RK2's second stage adds to the streamed kernel ([`kp_flux_stream_rk`]): the update
/// of each cell, the maps of the output (cleared before the launch; a block's flags are set by
/// the warps that cover its cells), and the drain list's blocks or null.
#[derive(Clone, Copy)]
struct Stage2<T, W, const FORCE: u32> {
    u: Update<T, W, FORCE>,
    wet_out: *mut u32,
    partial: *mut u32,
    shore: *mut u32,
    listed: *const u32,
}

impl<T: DeviceReal, W: DeviceReal> Stage2<T, W, STAGE_PLAIN> {
    /// The flux kernel alone: nothing of the second stage.
    #[inline(always)]
    fn none() -> Self {
        use core::ptr::{null, null_mut};
        let u = Update {
            dt: T::ZERO,
            bc: null(),
            gn2: null(),
            q0: (null(), null(), null()),
            q1: (null(), null(), null()),
            out: (null_mut(), null_mut(), null_mut()),
            lo0: null(),
            lo1: null(),
            olo: null_mut(),
            hi: null(),
            forcing: StageForcing::none(),
        };
        Stage2 { u, wet_out: null_mut(), partial: null_mut(), shore: null_mut(), listed: null() }
    }
}

/// The lanes of the warp whose cells lie in the wet-map block of this lane's cell (`tile_i`
/// its block column), as a mask, and whether this lane is the lowest of them (the one that
/// writes the block's flags). Nothing for a lane without a cell.
#[inline(always)]
fn tile_lanes<T: DeviceReal>(k: &Coeffs<T>, strip: u32, lane_id: u32, tile_i: u32, useful: bool) -> (u32, bool) {
    if !useful {
        return (0, false);
    }
    // Interior column of lane 2, and the block's first and last interior columns.
    let base = strip * STREAM_COLS;
    let first = tile_i * k.bx;
    let last = if first + k.bx < k.nx { first + k.bx } else { k.nx } - 1;
    let lo = if first > base { first - base + 2 } else { 2 };
    let hi = if last - base + 2 < STREAM_COLS + 1 { last - base + 2 } else { STREAM_COLS + 1 };
    (((1u64 << (hi + 1)) - (1u64 << lo)) as u32, lane_id == lo)
}

/// The flags of this lane's block (`tile_i`, `tile_j`) from the cells of the warp's lanes
/// `seg` (`tile_lanes`): each map set where one of them says so. Called by the whole warp.
///
/// # Safety
/// The maps of `st` hold nbx·nby flags (`partial` and `shore` null outside `clamp`).
#[inline(always)]
unsafe fn put_flags<T: DeviceReal, W, const FORCE: u32>(
    k: &Coeffs<T>,
    st: &Stage2<T, W, FORCE>,
    tile_i: u32,
    tile_j: u32,
    seg: u32,
    leader: bool,
    f: CellFlags,
) {
    let b = (tile_j * k.nbx + tile_i) as usize;
    let put = |flag: bool, map: *mut u32| {
        if warp::ballot(flag) & seg != 0 && leader {
            unsafe { *map.add(b) = 1 };
        }
    };
    put(f.wet, st.wet_out);
    if !st.partial.is_null() {
        put(f.partial, st.partial);
        put(f.clamp, st.shore);
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn stream_body<
    S: WetDryScheme,
    T: DeviceReal,
    W: DeviceReal + Level<T>,
    const EARLY: bool,
    const RK: bool,
    const MASKED: bool,
    const FORCE: u32,
>(
    k: &Coeffs<T>,
    bands: Bands,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut W,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
    wet: *const u32,
    st: Stage2<T, W, FORCE>,
) {
    let warps = thread::block_dim_x() / 32;
    let strips = stream_strips(k.nx);
    let strip = thread::block_idx_x() * warps + thread::thread_idx_x() / 32;
    let rows = bands.rows;
    if strip >= strips || rows == 0 {
        return; // the whole warp
    }
    let lane_id = thread::thread_idx_x() % 32;
    let pc = strip * STREAM_COLS + lane_id;
    let lane = Lane { pc, useful: (2..2 + STREAM_COLS).contains(&lane_id) && pc < k.nx + 2 };
    let band = bands.band(thread::block_idx_y());
    let j0 = band * rows;
    let jend = if j0 + rows < k.ny { j0 + rows } else { k.ny };
    let slot = (band * strips + strip) as usize;
    // Early exit for the whole warp: no wet-map tile its cells depend on is active.
    let wet_at = |a: u32, b: u32| unsafe { *wet.add((b * k.nbx + a) as usize) } != 0;
    if EARLY {
        let i_lo = strip * STREAM_COLS;
        let i_hi = if i_lo + STREAM_COLS < k.nx { i_lo + STREAM_COLS } else { k.nx } - 1;
        let (ti0, tj0) = (i_lo / k.bx, j0 / k.by);
        let ntx = i_hi / k.bx - ti0 + 1;
        let count = ntx * ((jend - 1) / k.by - tj0 + 1);
        let mut any = false;
        let mut t = lane_id;
        while t < count {
            any |= block_active(k, ti0 + t % ntx, tj0 + t / ntx, wet_at);
            t += 32;
        }
        if !warp::any(any) {
            if lane_id == 0 {
                unsafe { *rate.add(slot) = T::ZERO };
            }
            return;
        }
    }
    let walk = Walk { strip, lane_id, lane, j0, jend, slot };
    // A masked kernel's strip that reads no cell that is or may become inactive runs the plain
    // march, without the map's loads and selects. The choice is the strip's, the same in every
    // row, band shape and slab: the two marches need not round alike.
    if MASKED && unsafe { plain_strip(k, strip) } {
        unsafe { march::<S, T, W, EARLY, RK, false, FORCE>(k, walk, w, hu, hv, bed, rw, rhu, rhv, rate, wet, st) }
    } else {
        unsafe { march::<S, T, W, EARLY, RK, MASKED, FORCE>(k, walk, w, hu, hv, bed, rw, rhu, rhv, rate, wet, st) }
    }
}

/// A warp's place: its strip, its lane, its band's interior rows `j0..jend` and its rate slot.
#[derive(Clone, Copy)]
struct Walk {
    strip: u32,
    lane_id: u32,
    lane: Lane,
    j0: u32,
    jend: u32,
    slot: usize,
}

/// Whether strip `strip` is plain: by the byte the activity map holds for it after its cells
/// (`walls.rs`), or every cell active where there is no map.
///
/// # Safety
/// `k.active()` is null or holds the padded grid's bytes and a byte a strip.
#[inline(always)]
unsafe fn plain_strip<T: DeviceReal>(k: &Coeffs<T>, strip: u32) -> bool {
    let map = k.active();
    map.is_null() || unsafe { *map.add(k.cells() + strip as usize) } != 0
}

/// The march of one warp up its band (module comment), `MASKED` reading the activity map.
///
/// # Safety
/// As [`stream_body`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn march<
    S: WetDryScheme,
    T: DeviceReal,
    W: DeviceReal + Level<T>,
    const EARLY: bool,
    const RK: bool,
    const MASKED: bool,
    const FORCE: u32,
>(
    k: &Coeffs<T>,
    walk: Walk,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut W,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
    wet: *const u32,
    st: Stage2<T, W, FORCE>,
) {
    let Walk { strip, lane_id, lane, j0, jend, slot } = walk;
    let pc = lane.pc;
    let p = k.pitch as usize;
    let put = |pj: u32, r: (W, T, T)| {
        let g = pj as usize * p + lane.pc as usize;
        unsafe {
            *rw.add(g) = r.0;
            *rhu.add(g) = r.1;
            *rhv.add(g) = r.2;
        }
    };
    let wet_at = |a: u32, b: u32| unsafe { *wet.add((b * k.nbx + a) as usize) } != 0;
    // The second RK stage (`RK`, never with early exit): the drain list's blocks, whose cells
    // keep their R for the drain passes and the RK kernel after them.
    const { assert!(!(EARLY && RK), "the second stage runs in the full kernel only") };
    let listed_at = |a: u32, b: u32| !st.listed.is_null() && unsafe { *st.listed.add((b * k.nbx + a) as usize) } != 0;

    // A cell's column tile, for the per-cell test below (useful lanes only).
    let tile_i = if lane.useful { (lane.pc - 2) / k.bx } else { 0 };
    // Per-cell activity of the next row to finish (interior row j0 first), tracked as the
    // tile row and the row within it, so no division per row.
    let (mut tile_j, mut in_tile) = if EARLY || RK { (j0 / k.by, j0 % k.by) } else { (0, 0) };
    let mut active = !EARLY || (lane.useful && block_active(k, tile_i, tile_j, wet_at));
    // In `RK`: whether the block is listed, and the flags of its cells in this band so far.
    let mut listed = RK && lane.useful && listed_at(tile_i, tile_j);
    let mut flags = CellFlags::default();
    let (per_cell, low) = (!st.u.gn2.is_null(), !st.u.lo1.is_null());
    let (seg, leader) = if RK { tile_lanes(k, strip, lane_id, tile_i, lane.useful) } else { (0, false) };

    // Loads are clamped into the padded arrays: lanes past the east ghosts and the prefetch
    // past the north ghosts read something valid and their results are never used.
    let col = (if pc < k.nx + 3 { pc } else { k.nx + 3 }) as usize;
    let ccol = (if pc < k.nx + 4 { pc } else { k.nx + 4 }) as usize;
    let cp = k.cpitch as usize;
    // Corner B of this column and the next along a corner row (`pair`): the cell's south-west
    // and south-east corners in that row, and for the face beds both ends of its west face
    // (B's east neighbour is loaded, not shuffled: the last lane has none to take it from).
    let cc1 = (if pc + 1 < k.nx + 4 { pc + 1 } else { k.nx + 4 }) as usize;
    let pair = |pr: u32| {
        let r = (if pr < k.ny + 4 { pr } else { k.ny + 4 }) as usize * cp;
        // SAFETY: row ≤ ny + 4 and both columns ≤ nx + 4: corners of the padded grid.
        unsafe { (T::ldg(bed.add(r + ccol)), T::ldg(bed.add(r + cc1))) }
    };
    // A row's state as loaded (`fetch`), and its (w*, n_x, n_y, drain cap) from it and the
    // corner pairs of its south and north edges (`view`: `cell_view`, n the momenta, or the
    // velocities; the corners only in a scheme that needs them, `S::CORNERS`). The two are
    // apart so that a row's loads are issued a whole row's work before their first use: viewed
    // as soon as loaded, their latency stalled the warp at every row (ncu,
    // docs/kp-wet-dry-kernels.md).
    let fetch = |pr: u32| {
        let g = (if pr < k.ny + 3 { pr } else { k.ny + 3 }) as usize * p + col;
        unsafe { (W::ldg(w.add(g)), T::ldg(hu.add(g)), T::ldg(hv.add(g))) }
    };
    // A row's activity at this lane's column (`walls.rs`; without `MASKED` every cell's, the
    // constant true: no load, no select), fetched with the row.
    let map = if MASKED { k.active() } else { core::ptr::null() };
    let masked = MASKED;
    let act = |pr: u32| {
        let g = (if pr < k.ny + 3 { pr } else { k.ny + 3 }) as usize * p + col;
        unsafe { is_active(map, g) }
    };
    let view = |q: (W, T, T), (sw, se): (T, T), (nw, ne): (T, T)| {
        if S::CORNERS { cell_view::<S, T, W>(k, q, (sw, se, nw, ne)) } else { (q.0.narrow(), q.1, q.2, T::INFINITY) }
    };
    // Padded row pj runs from j0 + 1 (the row below the band, for its plus face) to jend + 2
    // (the row above, for the band's last north face). Window: rows pj − 1, pj, pj + 1, and the
    // corner pairs of rows pj to pj + 2 (the cells' south-west and south-east corners).
    let mut pj = j0 + 1;
    let km = pair(pj - 1);
    let (mut k0, mut k1, mut k2) = (pair(pj), pair(pj + 1), pair(pj + 2));
    let (mut sm, mut s0, mut sp) = (view(fetch(pj - 1), km, k0), view(fetch(pj), k0, k1), view(fetch(pj + 1), k1, k2));
    let (mut am, mut a0, mut ap) = (act(pj - 1), act(pj), act(pj + 1));
    let mut below = FaceState::ZERO; // y plus face of the row below
    let mut gs = Flux::ZERO; // south flux of the pending row
    let mut x_part = (T::ZERO, T::ZERO, T::ZERO); // R's x part of the pending row
    // R_w's x part in the level type (`mass_part`: x_part.0 itself where W = T).
    let mut x_w = W::ZERO;
    let mut sy = T::ZERO; // y source of the pending row
    let mut pending_rate = T::ZERO; // the pending row's x and south speeds
    let mut rate_max = T::ZERO;
    loop {
        let (next, k3, a3) = (fetch(pj + 2), pair(pj + 3), act(pj + 2));
        // In `RK`: the inputs of row pj − 1's update, which this pass finishes, loaded a row's
        // work ahead of it (their latency is not hidden otherwise: a warp's rows are serial).
        let todo = RK && pj > j0 + 2 && lane.useful && !listed;
        let cell = (pj - 1) as usize * p + lane.pc as usize;
        let pre = if todo { Some(unsafe { load_cell(k, &st.u, 2, per_cell, low, cell, true, true) }) } else { None };
        let ((b0, e0), (b1, e1)) = (k0, k1);
        let (bs, bn) = (T::HALF * (b0 + e0), T::HALF * (b1 + e1));
        let ycell = |s: (T, T, T, T)| Cell { w: s.0, n: s.2, t: s.1, cap: s.3 };
        let (bm, bp) = (face_bed(b0, e0), face_bed(b1, e1));
        let ry = reconstruct_on::<S, T>(k, ycell(sm), ycell(s0), ycell(sp), (am, ap), bm, bp);
        if pj > j0 + 1 {
            // The face between rows pj − 1 and pj.
            let g = face_flux::<S, T>(k, below, ry.m, (am, a0), true);
            if pj > j0 + 2 {
                // Finish row pj − 1: its north flux is g; outside the domain R = 0.
                let y = rhs_y(k, gs, g, sy);
                let r = (x_w + mass_part(gs.f0, g.f0, k.inv_dy), x_part.1 + y.1, x_part.2 + y.2);
                let r = if am { r } else { (W::ZERO, T::ZERO, T::ZERO) };
                if let Some(c) = pre {
                    flags.or(unsafe { update_cell(k, &st.u, 2, low, cell, c, Some(r)) });
                } else if lane.useful && active {
                    if !RK && am {
                        let mut cell_rate = pending_rate.max(g.speed * k.inv_dy);
                        // A NaN would lose every max: count it as an infinite speed.
                        if !cell_rate.is_finite() || !r.0.is_finite() || !r.1.is_finite() || !r.2.is_finite() {
                            cell_rate = T::INFINITY;
                        }
                        rate_max = rate_max.max(cell_rate);
                    }
                    put(pj - 1, r);
                }
                if EARLY || RK {
                    in_tile += 1;
                    if in_tile == k.by {
                        if RK {
                            unsafe { put_flags(k, &st, tile_i, tile_j, seg, leader, flags) };
                            flags = CellFlags::default();
                        }
                        in_tile = 0;
                        tile_j += 1;
                        active = !EARLY || (lane.useful && tile_j < k.nby && block_active(k, tile_i, tile_j, wet_at));
                        if RK && tile_j < k.nby {
                            listed = lane.useful && listed_at(tile_i, tile_j);
                        }
                    }
                }
            }
            gs = g;
        }
        if pj == jend + 2 {
            break;
        }
        if pj > j0 + 1 {
            // Row pj is in the band: its x part.
            let xcell = |s: (T, T, T, T)| Cell { w: s.0, n: s.1, t: s.2, cap: s.3 };
            let west = (s0.0.shfl_up(1), s0.1.shfl_up(1), s0.2.shfl_up(1), cap_shift::<S, T>(s0.3, |c| c.shfl_up(1)));
            let east =
                (s0.0.shfl_down(1), s0.1.shfl_down(1), s0.2.shfl_down(1), cap_shift::<S, T>(s0.3, |c| c.shfl_down(1)));
            let (bw, be) = (T::HALF * (b0 + b1), T::HALF * (e0 + e1));
            // The west and east neighbours' activity, from one vote of the warp.
            let (aw, ae) = if masked {
                let bits = warp::ballot(a0);
                let at = |l: u32| (bits >> (l & 31)) & 1 != 0;
                (at(lane_id.wrapping_sub(1)), at(lane_id + 1))
            } else {
                (true, true)
            };
            let (fbw, fbe) = (face_bed(b0, b1), face_bed(e0, e1));
            let rx = reconstruct_on::<S, T>(k, xcell(west), xcell(s0), xcell(east), (aw, ae), fbw, fbe);
            let fw = face_flux::<S, T>(k, face_up::<S, T>(rx.p), rx.m, (aw, a0), false);
            let fe = flux_down(fw);
            x_part = rhs_x(k, fw, fe, slope_source::<S, T>(k, bw, be, &rx, k.inv_dx));
            x_w = mass_part(fw.f0, fe.f0, k.inv_dx);
            sy = slope_source::<S, T>(k, bs, bn, &ry, k.inv_dy);
            pending_rate = (fw.speed * k.inv_dx).max(fe.speed * k.inv_dx).max(gs.speed * k.inv_dy);
        }
        below = ry.p;
        (sm, s0, sp) = (s0, sp, view(next, k2, k3));
        (am, a0, ap) = (a0, ap, a3);
        (k0, k1, k2) = (k1, k2, k3);
        pj += 1;
    }
    if RK {
        // The band ends inside a block's rows: its flags so far (the warp above adds the rest).
        if in_tile != 0 {
            unsafe { put_flags(k, &st, tile_i, tile_j, seg, leader, flags) };
        }
        return; // the second stage's rates are not used
    }
    // The warp's largest rate to its slot.
    let rate_max = warp_reduce(rate_max, |a: T, b: T| a.max(b));
    if lane_id == 0 {
        unsafe { *rate.add(slot) = rate_max };
    }
}

/// R at every interior cell and each warp's max(a_x/Δx, a_y/Δy), streamed (module comment).
/// The surface `w` and R_w are of the level type `W` (`T`, or f64 in mixed precision: read
/// through `surface_of`, R_w summed face by face by `mass_part`).
///
/// # Safety
/// The launch contract of `entries.rs` for the arrays; blocks of a multiple of 32 threads, grid
/// (⌈strips / warps⌉, `bands.count`); `rate` holds `stream_slots(nx, ny, bands.rows)`.
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_flux_stream<S: WetDryScheme, T: DeviceReal, W: DeviceReal + Level<T>, const MASKED: bool>(
    k: Coeffs<T>,
    bands: Bands,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut W,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
) {
    unsafe {
        stream_body::<S, T, W, false, false, MASKED, _>(
            &k,
            bands,
            w,
            hu,
            hv,
            bed,
            rw,
            rhu,
            rhv,
            rate,
            core::ptr::null(),
            Stage2::none(),
        )
    }
}

/// [`kp_flux_stream`] with early exit by the wet map (module comment).
///
/// # Safety
/// As [`kp_flux_stream`]; `wet` holds nbx·nby flags.
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_flux_stream_early<
    S: WetDryScheme,
    T: DeviceReal,
    W: DeviceReal + Level<T>,
    const MASKED: bool,
>(
    k: Coeffs<T>,
    bands: Bands,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut W,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
    wet: *const u32,
) {
    let st = Stage2::none();
    unsafe { stream_body::<S, T, W, true, false, MASKED, _>(&k, bands, w, hu, hv, bed, rw, rhu, rhv, rate, wet, st) }
}

/// RK2's second stage in the streamed flux kernel: R of Q¹ (`w`, `hu`, `hv`), as
/// [`kp_flux_stream`] computes it, goes straight into the update of its cell,
/// Qⁿ⁺¹ = ½(Qⁿ + E(Q¹)) over Qⁿ (`w0`, `hu0`, `hv0`, and `lo0` with the compensated update,
/// `lo1` Q¹'s low part, else both null), as `kp_rk`'s stage 2 does it with Δt `dt[0]`, friction
/// from `gn2` (null: `k.g_n2`), and the flags of the output into `wet_out` (and in `clamp`,
/// `hi` not null, `partial` and `shore`), which must be clear before the launch. R is not
/// stored, nor read back, and Q¹ is not read again: nine words a cell fewer than the flux
/// kernel and the RK kernel apart. Each cell's other inputs are loaded a row's work ahead of
/// its update (`load_cell`): a warp's rows are serial, and their latency showed otherwise. In the
/// blocks `listed` flags (`clamp`'s drain list, or null), whose R the drain passes may change,
/// R is written as the flux kernel writes it and the cells are left to the RK kernel, which
/// runs on the list after the passes (`kp_rk`). With `FORCE` (`STAGE_*`), the step's uniform
/// forcing (`uniform`, `soil`, `f`) acts on each cell it updates, as in `kp_rk`. No rates: the second stage's speeds set
/// nothing. There is no early-exit form (measured slower than the two kernels apart,
/// docs/kp-wet-dry-kernels.md).
///
/// # Safety
/// As [`kp_flux_stream`] (no rates); `w0`, `hu0`, `hv0`, `bc` (and `gn2`, `lo0`, `lo1`, `hi`
/// where not null) padded arrays, `w0`… aliasing none of the inputs but as stated; every map
/// nbx·nby flags, `wet_out` (`partial`, `shore`) distinct from `listed`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_flux_stream_rk<
    S: WetDryScheme,
    T: DeviceReal,
    W: DeviceReal + Level<T>,
    const MASKED: bool,
    const FORCE: u32,
>(
    k: Coeffs<T>,
    bands: Bands,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut W,
    rhu: *mut T,
    rhv: *mut T,
    dt: *const T,
    bc: *const T,
    gn2: *const T,
    w0: *mut W,
    hu0: *mut T,
    hv0: *mut T,
    lo0: *mut T,
    lo1: *const T,
    wet_out: *mut u32,
    hi: *const T,
    partial: *mut u32,
    shore: *mut u32,
    listed: *const u32,
    uniform: *const T,
    soil: Soil<T>,
    f: *mut T,
) {
    let u = Update {
        dt: unsafe { T::ldg(dt) },
        bc,
        gn2,
        q0: (w0.cast_const(), hu0.cast_const(), hv0.cast_const()),
        q1: (w, hu, hv),
        out: (w0, hu0, hv0),
        lo0: lo0.cast_const(),
        lo1,
        olo: lo0,
        hi,
        forcing: unsafe { StageForcing::<T, FORCE>::of(uniform, soil, f) },
    };
    let st = Stage2 { u, wet_out, partial, shore, listed };
    let (rate, wet) = (core::ptr::null_mut(), core::ptr::null());
    unsafe {
        stream_body::<S, T, W, false, true, MASKED, FORCE>(&k, bands, w, hu, hv, bed, rw, rhu, rhv, rate, wet, st)
    }
}
