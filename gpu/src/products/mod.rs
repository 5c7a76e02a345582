//! Run products every step (as GeoClaw's gauges and fgmax maps; docs/products.md): the largest
//! depth and speed each cell has seen, the time water first stood deeper than a threshold in it,
//! and gauge time series sampled at chosen cells. Solver-agnostic: a model says where its level
//! (depth, surface or elevation), bed and momenta lie ([`Fields`]: a [`View`] per array, so padded
//! planes, interleaved cells and the faces of a staggered grid all fit) and hands over its clock.
//!
//! The point functions below are what the CPU reference and the kernel (`kernel.rs`, entry
//! points in `entries.rs`) both call.

use crate::Real;
use crate::grid::Layout2;

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod kernel;

/// Values a gauge records per sample, in this order.
pub const GAUGE_VALUES: usize = 4;
/// Their names (CSV columns after `t`): depth, momenta, surface elevation.
pub const GAUGE_COLUMNS: [&str; GAUGE_VALUES] = ["h", "hu", "hv", "eta"];

// What a model's level array holds ([`Fields::level_is`]), and so how depth h and surface η
// follow from it and the bed array.

/// The depth h, over a bed elevation b: η = h + b.
pub const LEVEL_DEPTH: u32 = 0;
/// The surface w over a bed elevation b (the shallow-water solver `kp`): h = w − b, η = w.
pub const LEVEL_SURFACE: u32 = 1;
/// The elevation ζ of the surface above still water, over a still-water depth d (positive
/// downwards; the ADI solver): h = d + ζ, η = ζ.
pub const LEVEL_ELEVATION: u32 = 2;
/// The depth h over a flat bed at 0 (the wave-propagation solver's shallow-water equations): η = h;
/// the bed array is not read.
pub const LEVEL_DEPTH_FLAT: u32 = 3;

/// Where one field lies in its array: the element of interior cell (i, j) is
/// `origin + j·row + i·col`. With `pair` ≠ 0 the field at the cell is the mean of that element
/// and the one `pair` further on: a flux on the two faces of a staggered grid's cell.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    pub origin: u32,
    pub row: u32,
    pub col: u32,
    pub pair: u32,
}

impl View {
    /// One value a cell in the padded arrays of `layout`.
    pub const fn padded(layout: Layout2) -> View {
        View { origin: layout.halo * layout.pitch + layout.halo, row: layout.pitch, col: 1, pair: 0 }
    }

    /// The element of interior cell (i, j).
    #[inline(always)]
    pub fn at(&self, i: u32, j: u32) -> usize {
        self.origin as usize + j as usize * self.row as usize + i as usize * self.col as usize
    }

    /// The field at interior cell (i, j), `read` giving an element of the array.
    #[inline(always)]
    pub fn value<T: Real>(&self, i: u32, j: u32, read: impl Fn(usize) -> T) -> T {
        let k = self.at(i, j);
        if self.pair == 0 { read(k) } else { T::HALF * (read(k) + read(k + self.pair as usize)) }
    }
}

/// Where a model's cell fields lie and what the products take from them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Fields<T> {
    pub nx: u32,
    pub ny: u32,
    /// The four arrays a model hands over: level, bed, x- and y-momentum.
    pub level: View,
    pub bed: View,
    pub hu: View,
    pub hv: View,
    /// [`LEVEL_DEPTH`], [`LEVEL_SURFACE`], [`LEVEL_ELEVATION`] or [`LEVEL_DEPTH_FLAT`].
    pub level_is: u32,
    /// 1 when the maps are kept.
    pub maxima: u32,
    /// Elements in one of the model's state buffers, where the device names the buffer that holds
    /// the state (the kernel's `select`): level and momenta then lie `select · buffer` elements
    /// on. Unused otherwise.
    pub buffer: u64,
    /// Depths at or below this count as dry: no speed, no depth in the maximum.
    pub dry: T,
    /// Water has arrived in a cell when its depth exceeds this.
    pub arrival_depth: T,
}

/// When gauges are sampled and where their records go.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    /// Cells sampled: the gauges' and those beside the discharge lines' faces.
    pub gauges: u32,
    /// A sample every `every` steps (steps counted by the clock: a step of Δt = 0 past a stop
    /// time does not count, and re-writes the same sample with the same values).
    pub every: u32,
    /// Samples the record buffers hold; sample n goes to slot n mod `capacity`.
    pub capacity: u32,
}

impl<T: Real> Fields<T> {
    /// The fields of padded arrays of `layout`, one value a cell each; `surface` says whether
    /// the level array holds the surface (else the depth, over the bed). Maxima off until the
    /// host sets them.
    pub fn on(layout: Layout2, surface: bool, dry: T, arrival_depth: T) -> Fields<T> {
        let v = View::padded(layout);
        let level_is = if surface { LEVEL_SURFACE } else { LEVEL_DEPTH };
        Fields::of(layout.nx, layout.ny, [v; 4], level_is, dry, arrival_depth)
    }

    /// The fields of `nx × ny` cells whose level, bed, hu and hv lie as `views` say; the level
    /// holds what `level_is` names. Maxima off until the host sets them.
    pub fn of(nx: u32, ny: u32, views: [View; 4], level_is: u32, dry: T, arrival_depth: T) -> Fields<T> {
        let [level, bed, hu, hv] = views;
        Fields { nx, ny, level, bed, hu, hv, level_is, maxima: 0, buffer: 0, dry, arrival_depth }
    }

    /// (depth, surface) of a cell from its level and bed value.
    #[inline(always)]
    pub fn depth_surface(&self, level: T, bed: T) -> (T, T) {
        match self.level_is {
            LEVEL_SURFACE => (level - bed, level),
            LEVEL_ELEVATION => (bed + level, level),
            LEVEL_DEPTH_FLAT => (level, level),
            _ => (level, level + bed),
        }
    }

    /// [h, hu, hv, η] of interior cell (i, j); `read(a, k)` gives element k of array a (0 the
    /// level, 1 the bed, 2 hu, 3 hv). A flat bed is not read.
    #[inline(always)]
    pub fn cell(&self, i: u32, j: u32, read: impl Fn(usize, usize) -> T) -> [T; GAUGE_VALUES] {
        let (h, eta) = self.depth_at(i, j, &read);
        let (hu, hv) = self.momenta_at(i, j, &read);
        [h, hu, hv, eta]
    }

    /// (h, η) of interior cell (i, j), read as [`cell`](Self::cell) reads them.
    #[inline(always)]
    pub fn depth_at(&self, i: u32, j: u32, read: &impl Fn(usize, usize) -> T) -> (T, T) {
        let level = self.level.value(i, j, |k| read(0, k));
        let bed = if self.level_is == LEVEL_DEPTH_FLAT { T::ZERO } else { self.bed.value(i, j, |k| read(1, k)) };
        self.depth_surface(level, bed)
    }

    /// (hu, hv) of interior cell (i, j), read as [`cell`](Self::cell) reads them.
    #[inline(always)]
    pub fn momenta_at(&self, i: u32, j: u32, read: &impl Fn(usize, usize) -> T) -> (T, T) {
        (self.hu.value(i, j, |k| read(2, k)), self.hv.value(i, j, |k| read(3, k)))
    }
}

/// Whether a cell of depth `h` leaves every map of [`update_maxima`] as it is, whatever its
/// momenta: it is dry (no depth, speed or hazard to add, all three maps starting at 0) and not
/// above the arrival threshold. The kernel then reads neither the momenta nor the three maps:
/// on a flood's dry land, most of the cells most steps.
#[inline(always)]
pub fn maxima_stand<T: Real>(f: &Fields<T>, h: T) -> bool {
    h <= f.dry && h <= f.arrival_depth
}

/// Speed of a cell: |(hu, hv)|/h where the cell is wet, else 0.
#[inline(always)]
pub fn speed<T: Real>(dry: T, h: T, hu: T, hv: T) -> T {
    if h > dry { (hu * hu + hv * hv).sqrt() / h } else { T::ZERO }
}

/// The running maxima a cell keeps ([`update_maxima`]), in this order: depth (wet depths
/// only), speed, and depth × speed (|(hu, hv)|, the hazard of flood-risk maps).
pub const MAXIMA: usize = 3;

/// One cell's maps after a step: `m` = [max depth, max speed, max depth × speed], the running
/// maxima over wet depths. Returns whether the cell may arrive at this step: its depth
/// exceeds the arrival threshold and its old maximum did not. Only such a cell's arrival time
/// need be read ([`arrival`]): a maximum above the threshold means the cell arrived when it
/// was reached, so the kernel reads the arrival map only there, and writes a map only where
/// it changes. The time of the maximum depth is the step's where `m[0]` rose.
#[inline(always)]
pub fn update_maxima<T: Real>(f: &Fields<T>, h: T, hu: T, hv: T, m: &mut [T; MAXIMA]) -> bool {
    let may_arrive = h > f.arrival_depth && m[0] <= f.arrival_depth;
    let wet = if h > f.dry { h } else { T::ZERO };
    if wet > m[0] {
        m[0] = wet;
    }
    let s = speed(f.dry, h, hu, hv);
    if s > m[1] {
        m[1] = s;
    }
    // h·|u| is |(hu, hv)| itself: no division, so no round-off from h.
    let q = if h > f.dry { (hu * hu + hv * hv).sqrt() } else { T::ZERO };
    if q > m[2] {
        m[2] = q;
    }
    may_arrive
}

/// The arrival time of a cell that may arrive at time `t` ([`update_maxima`]), given its
/// arrival map's value: NaN (not arrived yet) becomes `t`; a time stays.
#[inline(always)]
pub fn arrival<T: Real>(t: f64, old: T) -> T {
    // NaN is the only value not equal to itself: not arrived yet.
    #[allow(clippy::eq_op)]
    let unset = old != old;
    if unset { T::from_f64(t) } else { old }
}

/// One cell's flooding after a step at time `t`: `spell` = [the length of its spells above the
/// arrival threshold that ended, the time the current one began (NaN when the cell is not
/// flooded)]. A spell begins at the first step the depth exceeds the threshold and ends at the
/// first step it does not, so its length counts every step that began flooded (Δt each). The
/// update depends only on the state and its time: repeated at the same time (a step of Δt = 0,
/// a trial step the control rejects) it changes nothing. Returns whether `spell` changed; the
/// kernel reads the duration only then. The duration up to time t adds t − start for a spell
/// still going ([`flood_duration`]).
#[inline(always)]
pub fn update_spell<T: Real>(f: &Fields<T>, h: T, t: f64, spell: &mut [T; 2]) -> bool {
    let flooded = h > f.arrival_depth;
    let open = spell_open(spell[1]);
    if flooded && !open {
        spell[1] = T::from_f64(t);
        true
    } else if !flooded && open {
        spell[0] += T::from_f64(t) - spell[1];
        spell[1] = T::from_f64(f64::NAN);
        true
    } else {
        false
    }
}

/// Whether a spell's start time says one is going on (it is not NaN).
#[inline(always)]
pub fn spell_open<T: Real>(start: T) -> bool {
    // NaN is the only value not equal to itself.
    #[allow(clippy::eq_op)]
    let open = start == start;
    open
}

/// A cell's time above the arrival threshold up to time `t`: its ended spells' `closed` and, when
/// one is going on since `start` (not NaN), t − start.
#[inline(always)]
pub fn flood_duration<T: Real>(closed: T, start: T, t: f64) -> T {
    if spell_open(start) { closed + (T::from_f64(t) - start) } else { closed }
}

/// The slot sample `steps / every` goes to, if `steps` is a sampling step.
#[inline(always)]
pub fn sample_slot(s: &Sampling, steps: u64) -> Option<usize> {
    let every = s.every.max(1) as u64;
    if steps.is_multiple_of(every) { Some(((steps / every) % s.capacity.max(1) as u64) as usize) } else { None }
}
