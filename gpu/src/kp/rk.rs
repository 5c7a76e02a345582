//! Time stepping on the device: one RK stage, and Δt from the largest wave speed (launch
//! contract: `entries.rs`).

use super::drain::for_listed;
use super::{
    CLOCK_DT, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Clock, Coeffs, Friction, STEP_OK, block_active, rk_of, rk_pair,
    time_step,
};
use crate::Level;
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, shared, thread};
use crate::forcing::Soil;

/// Where an RK stage's update of a cell reads and writes ([`update_cell`]): shared by the RK
/// kernel and the streamed flux kernel's second stage (`stream.rs`). `q0` is Qⁿ, read with
/// plain loads (stage 2 writes `out` over it in place), `q1` the state R was evaluated at; `gn2`
/// the friction field or null (one g·n², `Coeffs::g_n2`); `lo0`, `lo1`, `olo` w's low parts
/// (the compensated update) or nulls; `hi` each cell's highest corner B_hi in `clamp`, or null;
/// `forcing` what the step's last stage adds to and takes from each active cell as it writes it
/// ([`StageForcing`]), nothing in every other stage and run; `FORCE` its entry's kind.
#[derive(Clone, Copy)]
pub(super) struct Update<T, W, const FORCE: u32> {
    pub dt: T,
    pub bc: *const T,
    pub gn2: *const T,
    pub q0: (*const W, *const T, *const T),
    pub q1: (*const W, *const T, *const T),
    pub out: (*mut W, *mut T, *mut T),
    pub lo0: *const T,
    pub lo1: *const T,
    pub olo: *mut T,
    pub hi: *const T,
    pub forcing: StageForcing<T, FORCE>,
}

/// The stage kernels' entries by what they force ([`StageForcing::of`]): nothing, uniform rain,
/// or uniform rain and a uniform Green–Ampt soil. Each has entries of its own, so an entry holds
/// only its forcing's code and registers: in f64 the soil's square root and divisions cost the
/// streamed kernel, at its register cap, spills that slow rain alone too.
pub(super) const STAGE_PLAIN: u32 = 0;
pub(super) const STAGE_RAIN: u32 = 1;
pub(super) const STAGE_SOIL: u32 = 2;

/// The step's uniform forcing as its last RK stage applies it to each active cell it writes
/// (the host's `Layout::fused`): the uniform rain's depth over the step (0 without), and with a
/// uniform Green–Ampt soil (`f` not null) the soil, the step's span and each cell's total `f`
/// (padded) — [`force_point`](super::force_point)'s arithmetic, as the pass after the step
/// applies it to the cells it forces. `FORCE` ([`STAGE_PLAIN`], [`STAGE_RAIN`], [`STAGE_SOIL`]) is
/// the entry's: the code of what it leaves out is gone from the cell update before LLVM weighs
/// inlining the RK kernel's block (a larger block stays a function of its own, whose captures
/// pass through local memory).
#[derive(Clone, Copy)]
pub(super) struct StageForcing<T, const FORCE: u32> {
    pub rain: T,
    pub span: T,
    pub soil: Soil<T>,
    pub f: *mut T,
}

impl<T: DeviceReal, const FORCE: u32> StageForcing<T, FORCE> {
    /// Nothing: a stage that forces no cell.
    #[inline(always)]
    pub fn none() -> Self {
        StageForcing { rain: T::ZERO, span: T::ZERO, soil: Soil::NONE, f: core::ptr::null_mut() }
    }

    /// The entry's forcing: with `uniform` not null (the step's last stage) the rain's depth `uniform[0]`, and in
    /// [`STAGE_SOIL`] the span `uniform[1]`, the soil and its totals `f`; otherwise
    /// [`none`](Self::none). What an entry's `FORCE` leaves out is a constant, so the entry
    /// holds none of its code.
    ///
    /// # Safety
    /// `uniform` null or holding 2.
    #[inline(always)]
    pub unsafe fn of(uniform: *const T, soil: Soil<T>, f: *mut T) -> Self {
        if FORCE == STAGE_PLAIN || uniform.is_null() {
            return Self::none();
        }
        let rain = unsafe { T::ldg(uniform) };
        if FORCE == STAGE_RAIN {
            return StageForcing { rain, ..Self::none() };
        }
        StageForcing { rain, span: unsafe { T::ldg(uniform.add(1)) }, soil, f }
    }

    /// Whether it forces anything at all (every block is then updated: rain falls on every
    /// cell, and a soil takes the water of cells too shallow to flag their block wet).
    #[inline(always)]
    fn any(&self) -> bool {
        FORCE != STAGE_PLAIN && (self.rain > T::ZERO || !self.totals().is_null())
    }

    /// The soil's totals, null where the stage forces no soil.
    #[inline(always)]
    fn totals(&self) -> *mut T {
        if FORCE == STAGE_SOIL { self.f } else { core::ptr::null_mut() }
    }
}

/// What an updated cell says for its block's flags (`kp_rk`): wet, partially flooded, to clamp.
#[derive(Clone, Copy, Default)]
pub(super) struct CellFlags {
    pub wet: bool,
    pub partial: bool,
    pub clamp: bool,
}

impl CellFlags {
    #[inline(always)]
    pub fn or(&mut self, f: CellFlags) {
        self.wet |= f.wet;
        self.partial |= f.partial;
        self.clamp |= f.clamp;
    }
}

/// A cell's inputs to its RK stage besides R ([`load_cell`]): Qⁿ, the cell bed, B_hi (0
/// outside `clamp`), w's low parts of Qⁿ and Q¹ (0 on the plain path), g·n², and Q¹ where
/// loaded with them (else [`update_cell`] reads it). The streamed kernel loads them a row's work
/// ahead of the update, to hide their latency.
#[derive(Clone, Copy)]
pub(super) struct CellIn<T, W> {
    q0: (W, T, T),
    q1: Option<(W, T, T)>,
    cb: T,
    hi: T,
    l0: T,
    l1: T,
    g_n2: T,
    f: T,
}

/// The inputs of padded cell `g` for stage `stage` ([`CellIn`]), with the soil's total where
/// the stage forces a soil; `active`: the cell's block is active by the flux's wet map (else
/// its cells are dry with no momentum, where friction is 0 whatever g·n² is: no load for it).
/// `per_cell`: g·n² from `u.gn2`; `low`: the compensated update (only with `W` = `T`); `q1`: Q¹
/// too (`u.q1`; for a cell whose R will be given). The RK kernel passes its constants for
/// `per_cell` and `low`, the streamed kernel the null-ness of `gn2` and `lo1`.
///
/// # Safety
/// `u`'s arrays as `kp_rk` states; `g` a padded cell.
#[inline(always)]
pub(super) unsafe fn load_cell<T: DeviceReal, W: DeviceReal + Level<T>, const FORCE: u32>(
    k: &Coeffs<T>,
    u: &Update<T, W, FORCE>,
    stage: u32,
    per_cell: bool,
    low: bool,
    g: usize,
    active: bool,
    q1: bool,
) -> CellIn<T, W> {
    unsafe {
        CellIn {
            // Qⁿ through plain loads: in stage 2 the same buffers are written.
            q0: (*u.q0.0.add(g), *u.q0.1.add(g), *u.q0.2.add(g)),
            q1: if q1 { Some((W::ldg(u.q1.0.add(g)), T::ldg(u.q1.1.add(g)), T::ldg(u.q1.2.add(g)))) } else { None },
            cb: T::ldg(u.bc.add(g)),
            hi: if u.hi.is_null() { T::ZERO } else { T::ldg(u.hi.add(g)) },
            // Stage 1 does not read Qⁿ's low part (Qⁿ is the state R was evaluated at).
            l0: if low && stage == 2 { *u.lo0.add(g) } else { T::ZERO },
            l1: if low { T::ldg(u.lo1.add(g)) } else { T::ZERO },
            g_n2: if per_cell && active { T::ldg(u.gn2.add(g)) } else { k.g_n2 },
            // Plain loads: the stage writes the totals.
            f: if u.forcing.totals().is_null() { T::ZERO } else { *u.forcing.totals().add(g) },
        }
    }
}

/// RK stage `stage` (`rk_of`, or `rk_pair` with `low`) at padded cell `g` from its inputs `c`
/// ([`load_cell`]) with R = `r`; `None` for a cell of a block inactive by the flux's wet map
/// (its R is 0). The output into `u.out` (and `u.olo`), and what the cell says for its block's
/// flags.
///
/// # Safety
/// `u`'s arrays as `kp_rk` states; `g` a padded cell.
#[inline(always)]
pub(super) unsafe fn update_cell<T: DeviceReal, W: DeviceReal + Level<T>, const FORCE: u32>(
    k: &Coeffs<T>,
    u: &Update<T, W, FORCE>,
    stage: u32,
    low: bool,
    g: usize,
    c: CellIn<T, W>,
    r: Option<(W, T, T)>,
) -> CellFlags {
    unsafe {
        let d = u.dt;
        let ldg_q1 = || c.q1.unwrap_or_else(|| (W::ldg(u.q1.0.add(g)), T::ldg(u.q1.1.add(g)), T::ldg(u.q1.2.add(g))));
        let (q1, r) = match r {
            None => (if stage == 1 { c.q0 } else { ldg_q1() }, (W::ZERO, T::ZERO, T::ZERO)),
            Some(r) => (ldg_q1(), r),
        };
        // The forcing acts after the stage's update and before its flags, which see its water.
        // Without it (`u.forcing` a constant none in the entries without) this is the update alone.
        let fc = u.forcing;
        let forced = fc.any() && super::is_active(k.active(), g);
        let soil = if forced && !fc.totals().is_null() { Some((fc.soil, fc.span, c.f)) } else { None };
        let acts = forced && (soil.is_some() || fc.rain > T::ZERO);
        // The forced state, low part and wetness of the stage's output `q`, `lo`, `wet`; the soil's
        // total written where it took water.
        let force = |q: (T, T, T), lo: T, wet: bool| {
            if !acts {
                return (q, lo, wet);
            }
            let ((q, lo), f, is_wet) = super::force_stage_cell(k, (q, lo), c.cb, fc.rain, soil, low);
            if soil.is_some() && f != c.f {
                *fc.f.add(g) = f;
            }
            (q, lo, wet | is_wet)
        };
        // `W` = `T` wherever the stage forces (mixed precision has no forcing): there, and with
        // `low`, narrow and widen are the identity.
        let t = |q: (W, T, T)| (q.0.narrow(), q.1, q.2);
        let w = |q: (T, T, T)| (W::widen(q.0), q.1, q.2);
        let ((a, hu, hv), wet) = if low {
            let (q, lo, wet) = rk_pair(k, c.g_n2, stage, d, c.cb, (t(c.q0), c.l0), (t(q1), c.l1), t(r));
            let (q, lo, wet) = force(q, lo, wet);
            *u.olo.add(g) = lo;
            (w(q), wet)
        } else {
            let (q, wet) = rk_of(k, c.g_n2, stage, d, c.cb, c.q0, q1, r);
            if acts {
                let (q, _, wet) = force(t(q), T::ZERO, wet);
                (w(q), wet)
            } else {
                (q, wet)
            }
        };
        *u.out.0.add(g) = a;
        *u.out.1.add(g) = hu;
        *u.out.2.add(g) = hv;
        let mut f = CellFlags { wet, ..CellFlags::default() };
        if !u.hi.is_null() {
            f.partial = a < W::widen(c.hi);
            // A stage of Δt = 0 (the clock at `t_stop`: the host's batches of launches run
            // such steps) changes no state, so the pass, which can move films and shore
            // cells whatever the stage did, must not run either: the CPU reference takes no such step.
            f.clamp = d > T::ZERO && super::to_clamp(k, f.partial, a.minus(W::widen(c.cb)));
        }
        f
    }
}

/// One RK stage (`stage` 1 or 2, see `rk_point`) on the interior: out = stage(q0, q1, R) with
/// Δt from `dt[0]`, plus the wet map of the result (`wet_out`, one flag a block). Each cell's
/// g·n² is `k.g_n2` ([`Uniform`](super::Uniform): `gn2` is not read) or `gn2` at the cell
/// ([`PerCell`](super::PerCell)). With `list` null the grid is the nbx × nby blocks; otherwise
/// any 1-D grid steps through the blocks of the list (`list`, `count`: pairs, as the passes of
/// `drain.rs` do), which is how the second stage runs after the streamed kernel's (`stream.rs`)
/// in the blocks it leaves to the drain passes.
///
/// After an early-exit flux (`early` ≠ 0) R was not written for blocks that are inactive by
/// `wet_in` (dry with their four neighbours, see `block_active`): their R is 0 and their cells
/// are dry with no momentum, so E(q) = q exactly. Stage 1 then writes clean(q0) without reading
/// R; stage 2, when the block was also inactive in stage 1 (by `wet_m0`, the map stage 1 read),
/// has q1 = q0 and ½(q0 + q1) = q0, so it leaves the block alone unless forcing acts on
/// it (`uniform`, below). Results are bit for bit those of the full update.
///
/// With `FORCE` ≠ [`STAGE_PLAIN`] and `uniform` not null (the step's last stage with the host's
/// `Layout::fused`), the step's uniform rain (`uniform[0]`) and in [`STAGE_SOIL`] its soil
/// (`soil`, each cell's total in `f`) act on every active cell as its update is written
/// ([`StageForcing`]), and the flags are those of the state after them. Other entries hold none
/// of that code: the stage kernels run at register caps, where a few more live values spill.
///
/// In SRK2 (`ry` not null) R is the x part in `r*` plus the y part in `ry` (`split_flux.rs`),
/// added as `assemble` adds them.
///
/// In `clamp` (`hi`, each cell's highest corner B_hi, not null) it also flags the blocks of the
/// result that hold a partially flooded cell (w̄ < B_hi: `partial`) and a cell the clamp pass
/// changes (`to_clamp`: a partially flooded cell deeper than `dry`, or a film: `shore`), for the
/// lists of the passes (`drain.rs`); nothing to clamp in a stage of Δt = 0. A block left alone
/// gets `partial` set (it was not read; the drain pass looks at its cells if it is listed) and
/// `shore` clear (its cells are dry).
///
/// # Safety
/// The launch contract of `entries.rs`; 32 T of shared memory. `out*` may alias `q0*` (stage 2 updates Qⁿ in
/// place: each thread reads its own cell before writing it); they alias nothing else. The three
/// wet maps hold nbx·nby flags; `wet_out` is neither of the others. `ry` is null or holds three
/// padded arrays of `k.cells()` one after the other. With `F` = `PerCell`, `gn2`
/// is a padded array of `k.cells()`. `hi` is null or a padded array, and then `partial` and
/// `shore` hold nbx·nby flags. `list` is null, or holds `count[0]` pairs of blocks.
///
/// With `LOW` (the compensated update, `rk_pair`), w's low parts: `lo0` of Qⁿ (plain loads:
/// stage 2 writes it in place through `olo`; stage 1 does not read it), `lo1` of the state R was
/// evaluated at, the output's into `olo`, each a padded array aliasing as the w it goes with. A
/// block left alone keeps its low parts (Qⁿ's, in place). Without `LOW` they are not read (nulls
/// will do) and the code is the one-field update's.
///
/// The surfaces `w0`, `w1`, `ow` and R_w `rw` are of the level type `W`: `T`, or f64 in mixed
/// precision (`rk_of`: the stages add to w in f64); `LOW` only with `W` = `T`, and only in f32:
/// compensation keeps f32's low part (`Accumulation::compensates`), so no run takes the `LOW`
/// entries in f64, which are the plain ones.
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_rk<F: Friction, T: DeviceReal, W: DeviceReal + Level<T>, const LOW: bool, const FORCE: u32>(
    k: Coeffs<T>,
    stage: u32,
    early: u32,
    dt: *const T,
    bc: *const T,
    gn2: *const T,
    w0: *const W,
    hu0: *const T,
    hv0: *const T,
    w1: *const W,
    hu1: *const T,
    hv1: *const T,
    rw: *const W,
    rhu: *const T,
    rhv: *const T,
    ry: *const T,
    ow: *mut W,
    ohu: *mut T,
    ohv: *mut T,
    wet_m0: *const u32,
    wet_in: *const u32,
    wet_out: *mut u32,
    hi: *const T,
    partial: *mut u32,
    shore: *mut u32,
    lo0: *const T,
    lo1: *const T,
    olo: *mut T,
    list: *const u32,
    count: *const u32,
    uniform: *const T,
    soil: Soil<T>,
    f: *mut T,
) {
    let u = Update {
        dt: unsafe { T::ldg(dt) },
        bc,
        gn2,
        q0: (w0, hu0, hv0),
        q1: (w1, hu1, hv1),
        out: (ow, ohu, ohv),
        lo0,
        lo1,
        olo,
        hi,
        forcing: unsafe { StageForcing::<T, FORCE>::of(uniform, soil, f) },
    };
    let block = |bi: u32, bj: u32| {
        let first = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
        let flags = |map: *const u32| move |a: u32, b: u32| unsafe { *map.add((b * k.nbx + a) as usize) } != 0;
        // Uniform over the block (so are the barriers below).
        let inactive = early != 0 && !block_active(&k, bi, bj, flags(wet_in));
        let b = (bj * k.nbx + bi) as usize;
        let flags_shore = !hi.is_null();
        // Forcing reaches every block, so a block it acts on is updated, as the full update would.
        if inactive && stage == 2 && !u.forcing.any() && !block_active(&k, bi, bj, flags(wet_m0)) {
            if first {
                unsafe { *wet_out.add(b) = 0 };
                if flags_shore {
                    unsafe {
                        *partial.add(b) = 1;
                        *shore.add(b) = 0;
                    }
                }
            }
            return;
        }
        let (i, j) = (bi * k.bx + thread::thread_idx_x(), bj * k.by + thread::thread_idx_y());
        let mut f = CellFlags::default();
        unsafe {
            if i < k.nx && j < k.ny {
                let g = (j + 2) as usize * k.pitch as usize + (i + 2) as usize;
                let r = if inactive {
                    None
                } else {
                    let mut r = (W::ldg(rw.add(g)), T::ldg(rhu.add(g)), T::ldg(rhv.add(g)));
                    if !ry.is_null() {
                        // SRK2: x part + y part, in `assemble`'s order.
                        let n = k.cells();
                        let y = (T::ldg(ry.add(g)), T::ldg(ry.add(n + g)), T::ldg(ry.add(2 * n + g)));
                        r = (r.0 + W::widen(y.0), r.1 + y.1, r.2 + y.2);
                    }
                    Some(r)
                };
                let low = LOW && core::mem::size_of::<T>() < 8;
                let c = load_cell(&k, &u, stage, F::PER_CELL, low, g, !inactive, false);
                f = update_cell(&k, &u, stage, low, g, c, r);
            }
            let m = block_max(if f.wet { T::ONE } else { T::ZERO }, shared::dynamic::<T>());
            if first {
                *wet_out.add(b) = if m > T::ZERO { 1 } else { 0 };
            }
            if flags_shore {
                let (any_partial, any_clamp) = (thread::sync_threads_or(f.partial), thread::sync_threads_or(f.clamp));
                if first {
                    *partial.add(b) = any_partial as u32;
                    *shore.add(b) = any_clamp as u32;
                }
            }
        }
    };
    if list.is_null() {
        block(thread::block_idx_x(), thread::block_idx_y());
    } else {
        unsafe { for_listed(list, count, block) };
    }
}

/// Δt from the device-wide largest rate `rate[0]`: writes Δt (as T) to `dt[0]` and advances
/// the clock (f64: t, Δt, status, steps). Once the status is not OK it stays so and Δt is 0.
///
/// # Safety
/// One thread; `rate` and `dt` hold 1, `clock` holds `CLOCK_LEN`.
pub(super) unsafe fn kp_dt<T: DeviceReal>(c: Clock, rate: *const T, dt: *mut T, clock: *mut f64) {
    if thread::index_1d() != 0 {
        return;
    }
    unsafe {
        let t = *clock.add(CLOCK_T);
        let (mut d, mut status) = time_step(c.cfl, (*rate).to_f64(), t, c.t_stop, c.dt_floor, c.dt_max);
        if *clock.add(CLOCK_STATUS) != STEP_OK as f64 {
            d = 0.0;
            status = *clock.add(CLOCK_STATUS) as u32;
        }
        *dt = T::from_f64(d);
        *clock.add(CLOCK_DT) = d;
        *clock.add(CLOCK_STATUS) = status as f64;
        if d > 0.0 {
            *clock.add(CLOCK_T) = t + d;
            *clock.add(CLOCK_STEPS) += 1.0;
        }
    }
}
