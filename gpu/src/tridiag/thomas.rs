//! The one-thread-per-system Thomas kernels: any layout, the contiguous layout staged through
//! shared memory, and twisted (two threads per system, meeting in the middle).

use super::io::{load, names, report, sync_warp};
use super::lines::{Arrays, Lines};
use super::{Dims, Eq, fail_code, pivot_ok, thomas_row, twist};
use crate::device::{DeviceReal, shared, thread};

/// Rows the contiguous Thomas kernel's back substitution loads at once.
const GROUP: u32 = 4;

// The group loops below list 0..GROUP explicitly.
const _: () = assert!(GROUP == 4);

/// Rows a one-thread-per-system sweep (Thomas) loads at once: a thread has no other work to
/// hide load latency behind, so it issues a group's loads together.
const SWEEP_GROUP: u32 = 16;

/// Rows each of twisted Thomas's two threads a system loads at once: two threads a system hide
/// half the latency already, and the larger group's registers cost f32 more occupancy than
/// its loads buy.
const TWISTED_GROUP: u32 = 8;

// The sweeps' arrays hold SWEEP_GROUP rows.
const _: () = assert!(TWISTED_GROUP <= SWEEP_GROUP);

// The sweep loops below list 0..SWEEP_GROUP explicitly.
const _: () = assert!(SWEEP_GROUP == 16);

/// Equations r..r+m of `eq` (m ≤ `SWEEP_GROUP`), loaded together; identities past m.
#[inline(always)]
fn load_rows<T: DeviceReal>(eq: &impl Fn(u32) -> Eq<T>, r: u32, m: u32) -> [Eq<T>; SWEEP_GROUP as usize] {
    let mut e = [Eq::<T>::IDENTITY; SWEEP_GROUP as usize];
    unroll!(q: u32 in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] => {
        if q < m {
            e[q as usize] = eq(r + q);
        }
    });
    e
}

/// Thomas's forward elimination of local rows r..r+m from their loaded equations `e`: (cp, dp)
/// carry the last row's c′, d′, `bad` the first row with an unusable pivot.
#[inline(always)]
fn eliminate_rows<T: DeviceReal>(
    e: &[Eq<T>; SWEEP_GROUP as usize],
    (r, m): (u32, u32),
    (cp, dp): (&mut T, &mut T),
    bad: &mut u32,
    store: &impl Fn(u32, T, T),
) {
    unroll!(q: u32 in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] => {
        if q < m {
            let (c1, d1, pivot) = thomas_row(e[q as usize], *cp, *dp);
            if !pivot_ok(pivot) && *bad == u32::MAX {
                *bad = r + q;
            }
            store(r + q, c1, d1);
            *cp = c1;
            *dp = d1;
        }
    });
}

/// (d′, c′) of local rows hi−1 down to hi−m (m ≤ `SWEEP_GROUP`), loaded together.
#[inline(always)]
fn load_back<T: DeviceReal>(get: &impl Fn(u32) -> (T, T), hi: u32, m: u32) -> Back<T> {
    let mut xs = [T::ZERO; SWEEP_GROUP as usize];
    let mut ws = [T::ZERO; SWEEP_GROUP as usize];
    unroll!(q: u32 in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] => {
        if q < m {
            (xs[q as usize], ws[q as usize]) = get(hi - 1 - q);
        }
    });
    (xs, ws)
}

/// A group's loaded d′ and c′ ([`load_back`]).
type Back<T> = ([T; SWEEP_GROUP as usize], [T; SWEEP_GROUP as usize]);

/// Back substitution of local rows hi−1 down to hi−m from their loaded (d′, c′); `xn` carries
/// x of the row above.
#[inline(always)]
fn substitute_rows<T: DeviceReal>((xs, ws): &Back<T>, (hi, m): (u32, u32), xn: &mut T, set: &impl Fn(u32, T)) {
    unroll!(q: u32 in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] => {
        if q < m {
            let xi = xs[q as usize] - ws[q as usize] * *xn;
            set(hi - 1 - q, xi);
            *xn = xi;
        }
    });
}

/// [`sweep_forward`] with a provider's rows, `G` at once or one at a time as it says
/// ([`Lines::ROWS_AT_ONCE`]).
#[inline(always)]
fn sweep_forward_lines<T: DeviceReal, L: Lines<T>, const G: u32>(
    cnt: u32,
    eq: impl Fn(u32) -> Eq<T> + Copy,
    store: impl Fn(u32, T, T) + Copy,
    stored: impl Fn(u32) -> (T, T) + Copy,
) -> (T, T, u32) {
    if L::ROWS_AT_ONCE {
        sweep_forward::<T, G>(cnt, eq, store, stored)
    } else {
        sweep_forward::<T, 1>(cnt, eq, store, stored)
    }
}

/// Thomas's forward elimination over local rows 0..cnt: `eq(r)` loads local row r's equation
/// (a caller sweeping upwards swaps its a and c), `store(r, c', d')` keeps the results and
/// `stored(r)` reads them back (only on the breakdown path). Returns the last row's (c', d')
/// and the first local row that fails [`super::row_ok`] (`u32::MAX` if none), found as
/// [`first_bad_row`] finds it.
#[inline(always)]
fn sweep_forward<T: DeviceReal, const G: u32>(
    cnt: u32,
    eq: impl Fn(u32) -> Eq<T>,
    store: impl Fn(u32, T, T),
    stored: impl Fn(u32) -> (T, T),
) -> (T, T, u32) {
    let (mut cp, mut dp) = (T::ZERO, T::ZERO);
    let mut bad = u32::MAX; // a local row
    let mut r = 0;
    while r < cnt {
        let m = if cnt - r < G { cnt - r } else { G };
        let e = load_rows(&eq, r, m);
        eliminate_rows(&e, (r, m), (&mut cp, &mut dp), &mut bad, &store);
        r += m;
    }
    (cp, dp, first_bad_row(bad, cp, dp, cnt, stored))
}

/// [`sweep_forward`] over groups of `SWEEP_GROUP` rows with the next group's loads issued
/// before this group's rows are eliminated, so that a group's loads travel while the one
/// before is eliminated, where the plain sweep waits for a group's loads and then eliminates
/// with none in flight. The rows' arithmetic and its order are the plain sweep's. It holds
/// two groups' equations: in f32 that is the registers of one f64 group.
#[inline(always)]
fn sweep_forward_ahead<T: DeviceReal>(
    cnt: u32,
    eq: impl Fn(u32) -> Eq<T>,
    store: impl Fn(u32, T, T),
    stored: impl Fn(u32) -> (T, T),
) -> (T, T, u32) {
    let group = |r: u32| {
        let m = if cnt - r < SWEEP_GROUP { cnt - r } else { SWEEP_GROUP };
        (load_rows(&eq, r, m), m)
    };
    let (mut cp, mut dp) = (T::ZERO, T::ZERO);
    let mut bad = u32::MAX; // a local row
    let (mut e, mut m) = if cnt > 0 { group(0) } else { ([Eq::<T>::IDENTITY; SWEEP_GROUP as usize], 0) };
    let mut r = 0;
    while m > 0 {
        let next = r + m;
        let ahead = if next < cnt { group(next) } else { ([Eq::<T>::IDENTITY; SWEEP_GROUP as usize], 0) };
        eliminate_rows(&e, (r, m), (&mut cp, &mut dp), &mut bad, &store);
        (e, m) = ahead;
        r = next;
    }
    (cp, dp, first_bad_row(bad, cp, dp, cnt, stored))
}

/// The first local row that fails [`super::row_ok`] (as the CPU reference checks every row),
/// from a sweep that checked only the pivots: `bad` is the first local row with an unusable
/// pivot, (cp, dp) the last row's c', d', and `stored(r)` reads row r's stored (c', d').
///
/// Checking c' and d' of every row costs the one-thread sweeps about 8% (measured on an H100,
/// 4096 × 256 f32: 1.10 against 1.015 ms): each row's check is issued in the sweep's serial
/// chain. A row's checks are needed only where one fails, and that always shows at the end: a
/// non-finite d' stays non-finite to the last row (it enters every later d' through a·d'
/// with a finite or non-finite factor), and a non-finite c' makes the next row's pivot
/// unusable. So the stored rows before `bad` are scanned only when `bad` is set or the last
/// row's (c', d') is not finite — the breakdown path.
#[inline(always)]
pub(super) fn first_bad_row<T: DeviceReal>(bad: u32, cp: T, dp: T, cnt: u32, stored: impl Fn(u32) -> (T, T)) -> u32 {
    if bad == u32::MAX && cp.is_finite() && dp.is_finite() {
        return bad;
    }
    let end = if bad < cnt { bad } else { cnt };
    let mut r = 0;
    while r < end {
        let (c1, d1) = stored(r);
        if !(c1.is_finite() && d1.is_finite()) {
            return r;
        }
        r += 1;
    }
    bad
}

/// Back substitution `x_r = d'_r − c'_r·x_{r+1}` over local rows cnt−2 down to 0, from `xn`
/// = x of local row cnt−1: `get(r)` reads row r's (d', c'), `set(r, x)` writes its x. Returns
/// x of local row 0 (`xn` for cnt ≤ 1).
///
/// Non-finiteness carries down (x_r takes x_{r+1} times c'_r, and 0·∞ is NaN), so the rows
/// are not checked as they are written, which would lengthen the sweep's serial chain: only
/// a non-finite x at local row 0 sends the caller back up the system to find the first
/// ([`first_bad_x`]).
#[inline(always)]
fn sweep_back<T: DeviceReal, const G: u32>(
    cnt: u32,
    mut xn: T,
    get: impl Fn(u32) -> (T, T),
    set: impl Fn(u32, T),
) -> T {
    let mut hi = cnt.saturating_sub(1);
    while hi > 0 {
        let m = if hi < G { hi } else { G };
        let v = load_back(&get, hi, m);
        substitute_rows(&v, (hi, m), &mut xn, &set);
        hi -= m;
    }
    xn
}

/// [`sweep_back`] with the next group's (d′, c′) loaded before this group's unknowns are
/// computed, so that a group's loads travel while the one before is substituted; the same
/// arithmetic in the same order.
#[inline(always)]
fn sweep_back_ahead<T: DeviceReal>(cnt: u32, mut xn: T, get: impl Fn(u32) -> (T, T), set: impl Fn(u32, T)) -> T {
    // Rows hi−1 down to hi−m of the group below row hi (m = 0 at row 0).
    let group = |hi: u32| {
        let m = if hi < SWEEP_GROUP { hi } else { SWEEP_GROUP };
        (load_back(&get, hi, m), m)
    };
    let mut hi = cnt.saturating_sub(1);
    let (mut v, mut m) = group(hi);
    while m > 0 {
        let ahead = group(hi - m);
        substitute_rows(&v, (hi, m), &mut xn, &set);
        hi -= m;
        (v, m) = ahead;
    }
    xn
}

/// After [`sweep_back`] returned `x0`: the highest local row whose x is not finite (the one
/// nearest local row cnt−1: a bad value travels towards local row 0 from where it arose), or
/// `u32::MAX`; `x(r)` gives local row r's x (only read when `x0` is not finite).
#[inline(always)]
fn first_bad_x<T: DeviceReal>(cnt: u32, x0: T, x: impl Fn(u32) -> T) -> u32 {
    if cnt == 0 || x0.is_finite() {
        return u32::MAX;
    }
    let mut r = cnt;
    while r > 0 {
        r -= 1;
        if !x(r).is_finite() {
            return r;
        }
    }
    u32::MAX
}

/// [`first_bad_x`] for a sweep whose x went to a provider, which keeps none to search: the
/// back substitution again from `xn` (x of local row cnt−1) on the stored (d′, c′) of
/// `get`, to the first non-finite x (`u32::MAX` if none).
#[inline(always)]
fn first_bad_again<T: DeviceReal>(cnt: u32, xn: T, get: impl Fn(u32) -> (T, T)) -> u32 {
    let mut xr = xn;
    let mut r = cnt;
    while r > 0 {
        r -= 1;
        if r + 1 < cnt {
            let (dp, cp) = get(r);
            xr = dp - cp * xr;
        }
        if !xr.is_finite() {
            return r;
        }
    }
    u32::MAX
}

/// One thread per system, any layout. `w` holds `p.span()` values (c'), at the positions of x.
///
/// # Safety
/// `a`, `b`, `c`, `d`, `x`, `w` hold every position `p.at(k, i)` for k < batch, i < n, n ≥ 1;
/// `x` may equal `d` but overlaps nothing else; `status` is one `u64`; the grid covers
/// `batch` threads.
pub(super) unsafe fn thomas<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let k = thread::index_1d();
    if k >= p.batch as u64 {
        return;
    }
    let k = k as u32;
    let n = p.n;
    let at = |r: u32| p.at(k, r);
    unsafe {
        let eq = |r| load(a, b, c, d, at(r), r, n);
        let store = |r, c1, d1| {
            *w.add(at(r)) = c1;
            *x.add(at(r)) = d1;
        };
        let stored = |r| (*w.add(at(r)), *x.add(at(r)));
        // Two f64 groups take more registers than a thread has (the f64 sweep keeps one).
        let (_, xn, mut bad) = if size_of::<T>() == 4 {
            sweep_forward_ahead(n, eq, store, stored)
        } else {
            sweep_forward::<T, SWEEP_GROUP>(n, eq, store, stored)
        };
        // x_{n−1} = d'_{n−1} (c'_{n−1} = 0), already in x.
        let x0 = sweep_back_ahead(n, xn, |r| (*x.add(at(r)), *w.add(at(r))), |r, v| *x.add(at(r)) = v);
        // The first failing pivot names the row; else the first non-finite x.
        if bad == u32::MAX {
            bad = first_bad_x(n, x0, |r| *x.add(at(r)));
        }
        if bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
}

/// One thread per system of a row provider (`Arrays` or a model's), any layout: the
/// thesis's S1. `w` holds 2·n·batch values, c' then d', each interleaved (`i·batch + k`), so
/// that a warp's workspace traffic coalesces whatever the provider's layout. p.n and p.batch
/// are read.
///
/// # Safety
/// `lines` answers for every k < batch, i < n, n ≥ 1; `w` holds 2·n·batch values; `status` is
/// one `u64`; the grid covers `batch` threads.
pub(crate) unsafe fn thomas_lines<T: DeviceReal, L: Lines<T>>(p: Dims, lines: &L, w: *mut T, status: *mut u64) {
    let k = thread::index_1d();
    if k >= p.batch as u64 {
        return;
    }
    let k = k as u32;
    let n = p.n;
    let nb = n as usize * p.batch as usize;
    let at = |r: u32| r as usize * p.batch as usize + k as usize;
    unsafe {
        let (wc, wd) = (w, w.add(nb));
        let (_, xn, mut bad) = sweep_forward_lines::<T, L, SWEEP_GROUP>(
            n,
            |r| lines.row(k, r),
            |r, c1, d1| {
                *wc.add(at(r)) = c1;
                *wd.add(at(r)) = d1;
            },
            |r| (*wc.add(at(r)), *wd.add(at(r))),
        );
        lines.put(k, n - 1, xn);
        let get = |r: u32| (*wd.add(at(r)), *wc.add(at(r)));
        let x0 = sweep_back::<T, SWEEP_GROUP>(n, xn, get, |r, v| lines.put(k, r, v));
        if bad == u32::MAX && !x0.is_finite() {
            bad = first_bad_again(n, xn, get);
        }
        if bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
}

/// One thread per system whose unknowns are consecutive (contiguous layout, or the rows of a
/// padded field: `elem_stride = 1`), loads and stores coalesced through a per-warp shared tile
/// (see the comment of `entries.rs`). `w` holds 2·n·batch values: c' then d', each
/// interleaved (`i·batch + k`).
///
/// # Safety
/// `p.elem_stride = 1`: `a`, `b`, `c`, `d`, `x` hold every position `p.at(k, i)` for k < batch,
/// i < n, n ≥ 1; `x` may equal `d`;
/// `w` holds 2·n·batch; `status` one `u64`. The block is a multiple of 32 threads, the grid
/// covers `batch` threads, and the launch gives 4·32·(2^chunk + 1) `T`s of dynamic shared
/// memory per warp of the block.
pub(super) unsafe fn thomas_contiguous<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let tid = thread::thread_idx_x();
    let lane = tid % 32;
    let warp = tid / 32;
    let sys0 = thread::block_idx_x() * thread::block_dim_x() + warp * 32;
    if sys0 >= p.batch {
        return; // the whole warp: no lane of it has a system
    }
    let k = sys0 + lane;
    let active = k < p.batch;
    let (n, batch) = (p.n, p.batch);
    let shift = p.chunk;
    let cw = 1u32 << shift;
    let pitch = cw + 1;
    let tile = 32 * pitch as usize;
    let nb = n as usize * batch as usize;
    unsafe {
        let ta = shared::dynamic::<T>().add(warp as usize * 4 * tile);
        let (tb, tc, td) = (ta.add(tile), ta.add(2 * tile), ta.add(3 * tile));
        let (wc, wd) = (w, w.add(nb));
        let (mut cp, mut dp) = (T::ZERO, T::ZERO);
        let mut bad = u32::MAX;
        let mut r0 = 0;
        while r0 < n {
            // Stage rows r0.. of the warp's 32 systems: element e of the chunk is row e % cw of
            // system e / cw, so a warp's 32 loads cover 32/cw whole runs of cw words.
            let mut e = lane;
            while e < 32 * cw {
                let (s, r) = (e >> shift, e & (cw - 1));
                let (ks, i) = (sys0 + s, r0 + r);
                if ks < batch && i < n {
                    let g = p.at(ks, i);
                    let t = (s * pitch + r) as usize;
                    let eq = load(a, b, c, d, g, i, n);
                    *ta.add(t) = eq.a;
                    *tb.add(t) = eq.b;
                    *tc.add(t) = eq.c;
                    *td.add(t) = eq.d;
                }
                e += 32;
            }
            sync_warp();
            if active {
                let rows = if n - r0 < cw { n - r0 } else { cw };
                let mut r = 0;
                while r < rows {
                    let t = (lane * pitch + r) as usize;
                    let eq = Eq { a: *ta.add(t), b: *tb.add(t), c: *tc.add(t), d: *td.add(t) };
                    let (c1, d1, pivot) = thomas_row(eq, cp, dp);
                    if !pivot_ok(pivot) && bad == u32::MAX {
                        bad = r0 + r;
                    }
                    let o = (r0 + r) as usize * batch as usize + k as usize;
                    *wc.add(o) = c1;
                    *wd.add(o) = d1;
                    cp = c1;
                    dp = d1;
                    r += 1;
                }
            }
            sync_warp();
            r0 += cw;
        }
        if active {
            let o = |r: u32| r as usize * batch as usize + k as usize;
            bad = first_bad_row(bad, cp, dp, n, |r| (*wc.add(o(r)), *wd.add(o(r))));
        }
        // Back substitution, chunk by chunk from the end (c'_{n−1} = 0, so x_{n−1} = d'_{n−1}).
        let mut xn = T::ZERO;
        let mut chunk = (n + cw - 1) >> shift;
        while chunk > 0 {
            chunk -= 1;
            let r0 = chunk << shift;
            if active {
                let rows = if n - r0 < cw { n - r0 } else { cw };
                let o = |r: u32| (r0 + r) as usize * batch as usize + k as usize;
                // Rows hi−1, hi−2, … in groups whose loads are issued together.
                let mut hi = rows;
                while hi > 0 {
                    let cnt = if hi < GROUP { hi } else { GROUP };
                    let mut cs = [T::ZERO; GROUP as usize];
                    let mut ds = [T::ZERO; GROUP as usize];
                    unroll!(q: u32 in [0, 1, 2, 3] => {
                        if q < cnt {
                            cs[q as usize] = *wc.add(o(hi - 1 - q));
                            ds[q as usize] = *wd.add(o(hi - 1 - q));
                        }
                    });
                    unroll!(q: u32 in [0, 1, 2, 3] => {
                        if q < cnt {
                            let r = hi - 1 - q;
                            let xi = ds[q as usize] - cs[q as usize] * xn;
                            *ta.add((lane * pitch + r) as usize) = xi;
                            xn = xi;
                        }
                    });
                    hi -= cnt;
                }
            }
            sync_warp();
            let mut e = lane;
            while e < 32 * cw {
                let (s, r) = (e >> shift, e & (cw - 1));
                let (ks, i) = (sys0 + s, r0 + r);
                if ks < batch && i < n {
                    *x.add(p.at(ks, i)) = *ta.add((s * pitch + r) as usize);
                }
                e += 32;
            }
            sync_warp();
        }
        // As in `sweep_back`: a non-finite x carries down to row 0, and only then is the
        // system's x (written whole: the warp's last barrier is above) searched from the top.
        if active && bad == u32::MAX && !xn.is_finite() {
            let mut i = n;
            while i > 0 {
                i -= 1;
                if !(*x.add(p.at(k, i))).is_finite() {
                    bad = i;
                    break;
                }
            }
        }
        if active && bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
}

/// Thomas from both ends, two threads per system (see the comment of `entries.rs`), on
/// coefficient arrays: [`thomas_twisted_lines`] over [`Arrays`].
///
/// # Safety
/// `a`, `b`, `c`, `d`, `x` hold every position `p.at(k, i)` for k < batch, i < n, n ≥ 1; `x`
/// may equal `d`; `w` holds 2·n·batch values; otherwise as [`thomas_twisted_lines`].
pub(super) unsafe fn thomas_twisted<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    unsafe { thomas_twisted_lines(p, &Arrays { p, a, b, c, d, x }, w, status) }
}

/// Twisted Thomas over a row provider: two threads per system (`threadIdx.y` 0 eliminates
/// rows 0..n/2 downwards, 1 rows n−1..n/2 upwards), meeting in the middle through shared
/// memory — twice the threads of [`thomas_lines`], so twice the loads in flight, for the same
/// traffic. `w` holds 2·n·batch values, c′ then d′, each interleaved (`i·batch + k`):
/// coalesced whatever the provider's layout.
///
/// # Safety
/// `lines` answers for every k < batch, i < n, n ≥ 1; `w` holds 2·n·batch values; `status` is
/// one `u64`. `blockDim.y = 2`, the grid's x covers `batch` systems at `blockDim.x` per block,
/// and the launch gives 4·blockDim.x `T`s of dynamic shared memory.
pub(crate) unsafe fn thomas_twisted_lines<T: DeviceReal, L: Lines<T>>(p: Dims, lines: &L, w: *mut T, status: *mut u64) {
    let lane = thread::thread_idx_x();
    let side = thread::thread_idx_y();
    let bdx = thread::block_dim_x();
    let k = thread::block_idx_x() * bdx + lane;
    let active = k < p.batch;
    let n = p.n;
    let half = n / 2;
    let cnt = if side == 0 { half } else { n - half };
    let row = |r: u32| if side == 0 { r } else { n - 1 - r };
    let nb = n as usize * p.batch as usize;
    let at = |r: u32| row(r) as usize * p.batch as usize + k as usize;
    unsafe {
        let (wc, wd) = (w, w.add(nb));
        let (mut cp, mut dp, mut bad) = (T::ZERO, T::ZERO, u32::MAX);
        if active {
            let eq = |r: u32| {
                let e = lines.row(k, row(r));
                if side == 1 { Eq { a: e.c, b: e.b, c: e.a, d: e.d } } else { e }
            };
            let store = |r: u32, c1, d1| {
                *wc.add(at(r)) = c1;
                *wd.add(at(r)) = d1;
            };
            (cp, dp, bad) =
                sweep_forward_lines::<T, L, TWISTED_GROUP>(cnt, eq, store, |r| (*wc.add(at(r)), *wd.add(at(r))));
            if bad != u32::MAX {
                bad = row(bad);
                report(status, fail_code(n, k, bad));
            }
        }
        // Each side's last row: x_me + cp·x_other = dp (0 = 0 for a side without rows).
        let sh = shared::dynamic::<T>();
        let slot = |s: u32, v: u32| ((2 * s + v) * bdx + lane) as usize;
        *sh.add(slot(side, 0)) = cp;
        *sh.add(slot(side, 1)) = dp;
        thread::sync_threads();
        let (co, dq) = (*sh.add(slot(1 - side, 0)), *sh.add(slot(1 - side, 1)));
        if !active || cnt == 0 {
            return;
        }
        let (xn, pivot) = twist(cp, dp, co, dq);
        if !pivot_ok(pivot) && bad == u32::MAX {
            bad = row(cnt - 1);
            report(status, fail_code(n, k, bad));
        }
        lines.put(k, row(cnt - 1), xn);
        let get = |r: u32| (*wd.add(at(r)), *wc.add(at(r)));
        let x0 = sweep_back::<T, TWISTED_GROUP>(cnt, xn, get, |r, v| lines.put(k, row(r), v));
        if bad == u32::MAX && !x0.is_finite() && !names(status, n, k) {
            let xbad = first_bad_again(cnt, xn, get);
            if xbad != u32::MAX {
                report(status, fail_code(n, k, row(xbad)));
            }
        }
    }
}
