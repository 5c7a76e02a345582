//! One ADI sweep as a batch of tridiagonal systems whose rows are built inside the solving
//! kernel: `SweepLines` gathers each unknown's neighbourhood from the state in global memory,
//! asks the row providers of `mod.rs` for its row, and writes each solved unknown back into
//! the state. The tridiagonal kernels (`crate::tridiag`: Thomas, partition, PCR, CR-PCR) take
//! it in place of coefficient arrays, so a sweep reads the state once and writes it once.
//!
//! The index maps are written out here for the GPU alone (the CPU reference has its own, in
//! `src/adi/cpu.rs`), so that the GPU ≡ CPU tests check them. Their offsets are 32-bit (the host
//! refuses grids past 2³⁰ cells, so every offset fits): a load's address is then one
//! multiply-add on the array's base, where 64-bit offsets took several instructions more. A
//! row's neighbours along its line are read a step from its own cell's or face's address
//! (`CellAt`), so where lines are contiguous they cost a constant offset, not an address.

use super::Params;
#[cfg(target_arch = "nvptx64")]
use super::{Dir, MassAt, MomentumAt, Stencil};
#[cfg(target_arch = "nvptx64")]
use crate::device::DeviceReal;
#[cfg(target_arch = "nvptx64")]
use crate::tridiag::{Eq, Lines};

/// A line end's boundary kind ([`End::kind`]).
pub const LAND: u32 = 0;
pub const FLUX: u32 = 1;
pub const LEVEL: u32 = 2;

/// The boundary at one end of every line of a sweep (sides are uniform along their length).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct End<T> {
    /// [`LAND`]: zero flux; [`FLUX`]: the flux `value`; [`LEVEL`]: a water level outside,
    /// `start` at the start of the half step (the face's depth) and `value` at its end (the
    /// row's known neighbour).
    pub kind: u32,
    pub value: T,
    pub start: T,
}

/// What a sweep kernel knows besides its arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep<T> {
    pub k: Params<T>,
    /// The low (west or south) and high (east or north) ends of every line.
    pub lo: End<T>,
    pub hi: End<T>,
    /// Cells of the grid.
    pub nx: u32,
    pub ny: u32,
    /// The step this sweep belongs to (0 for the first), reported with a breakdown.
    pub step: u32,
}

/// The lines of one sweep: rows (`Y = false`, unknowns p and ζ along x) or columns (`Y = true`,
/// q and ζ along y).
///
/// `TRANS` picks the y-sweep's design (docs/adi.md, "The transposed y-sweep"). Without it
/// every array is in the normal layout of `src/adi/mod.rs` (ζ, d and wet at `k·nx + j`, p at
/// `k·(nx+1) + j`, q at `k·nx + j`), so a column's unknowns lie nx apart. With it the y-sweep
/// reads and writes transposed copies, in which its lines are contiguous (ζᵀ, dᵀ and wetᵀ at
/// `j·ny + k`, pᵀ at `j·ny + k` for face j, qᵀ at `j·(ny+1) + k` for face k); the host
/// transposes the x-sweep's outputs into those copies and the y-sweep's back (`AdiTranspose`).
/// The x-sweep is the same in both designs (`TRANS` changes nothing there), and the physics
/// depends on `Y` alone. Every output is written in the layout of the inputs, one line a
/// block in the S2 kernels, so a warp's stores are contiguous.
#[cfg(target_arch = "nvptx64")]
pub struct SweepLines<T, const Y: bool, const TRANS: bool> {
    pub s: Sweep<T>,
    pub d: *const T,
    /// ζ at the start of the half step.
    pub zeta: *const T,
    /// The along flux's old level (x-sweep pⁿ, y-sweep q^{n+½}).
    pub flux: *const T,
    /// The across flux centred in time (x-sweep q^{n+½}, y-sweep p^{n+1}) and its other level
    /// (q^{n−½}, pⁿ).
    pub cross: *const T,
    pub cross_other: *const T,
    pub wet: *const u8,
    pub zeta_out: *mut T,
    pub flux_out: *mut T,
    pub wet_out: *mut u8,
}

#[cfg(target_arch = "nvptx64")]
impl<T: DeviceReal, const Y: bool, const TRANS: bool> SweepLines<T, Y, TRANS> {
    const DIR: Dir = if Y { Dir::Y } else { Dir::X };
    /// Whether the arrays are the transposed copies (the transposed design's y-sweep).
    const INPUT_T: bool = Y && TRANS;

    /// Cells along a line.
    #[inline(always)]
    fn along(&self) -> u32 {
        if Y { self.s.ny } else { self.s.nx }
    }
    /// The lines beside line l, each clamped to the grid (the mirror beyond its edges).
    #[inline(always)]
    fn beside(&self, l: u32) -> (u32, u32) {
        let lines = if Y { self.s.nx } else { self.s.ny };
        (if l == 0 { 0 } else { l - 1 }, if l + 1 >= lines { lines - 1 } else { l + 1 })
    }
    /// Whether a line's neighbours lie next to each other in every array (the x-sweep and the
    /// transposed y-sweep): then a neighbour's address is its cell's or face's and a constant
    /// offset. Along a column of the normal layout the step back is a 64-bit subtraction, which
    /// costs more than the neighbour's own multiply-add.
    const CONTIGUOUS: bool = !Y || TRANS;
    /// Cell (j, k) of the grid in the arrays' layout (normal or transposed).
    #[inline(always)]
    fn at_cell(&self, j: u32, k: u32) -> u32 {
        let (nx, ny) = (self.s.nx, self.s.ny);
        if Self::INPUT_T { j * ny + k } else { k * nx + j }
    }
    /// The x-face j of row k (p).
    #[inline(always)]
    fn at_p(&self, j: u32, k: u32) -> u32 {
        let (nx, ny) = (self.s.nx, self.s.ny);
        if Self::INPUT_T { j * ny + k } else { k * (nx + 1) + j }
    }
    /// The y-face k of column j (q).
    #[inline(always)]
    fn at_q(&self, j: u32, k: u32) -> u32 {
        let (nx, ny) = (self.s.nx, self.s.ny);
        if Self::INPUT_T { j * (ny + 1) + k } else { k * nx + j }
    }
    /// Cell i of line l.
    #[inline(always)]
    fn cell(&self, l: u32, i: u32) -> u32 {
        if Y { self.at_cell(l, i) } else { self.at_cell(i, l) }
    }
    /// Along face i (0..=along) of line l.
    #[inline(always)]
    fn face(&self, l: u32, i: u32) -> u32 {
        if Y { self.at_q(l, i) } else { self.at_p(i, l) }
    }
    /// The across face of cell i of line l on its low (s = 0) or high (s = 1) side.
    #[inline(always)]
    fn across(&self, l: u32, i: u32, s: u32) -> u32 {
        if Y { self.at_p(l + s, i) } else { self.at_q(i, l + s) }
    }
    #[inline(always)]
    unsafe fn at(p: *const T, o: u32) -> T {
        unsafe { T::ldg(p.add(o as usize)) }
    }
    #[inline(always)]
    unsafe fn wet_at(&self, o: u32) -> bool {
        unsafe { *self.wet.add(o as usize) != 0 }
    }

    /// Where cell i of line l lies in the arrays [`near`](Self::near) reads.
    #[inline(always)]
    unsafe fn cell_at(&self, l: u32, i: u32) -> CellAt<T> {
        let o = self.cell(l, i) as usize;
        let x = |s| unsafe { self.cross.add(self.across(l, i, s) as usize) };
        unsafe { CellAt { zeta: self.zeta.add(o), d: self.d.add(o), wet: self.wet.add(o), x_lo: x(0), x_hi: x(1) } }
    }

    /// Where cell i − 1 of line l lies, given cell i's `c`.
    #[inline(always)]
    unsafe fn before(&self, l: u32, i: u32, c: CellAt<T>) -> CellAt<T> {
        unsafe { if Self::CONTIGUOUS { c.back() } else { self.cell_at(l, i - 1) } }
    }

    /// The along flux's address at face i of line l.
    #[inline(always)]
    unsafe fn face_at(&self, l: u32, i: u32) -> *const T {
        unsafe { self.flux.add(self.face(l, i) as usize) }
    }

    /// The along flux's address at face i + 1 (`up`) or i − 1 of line l, given face i's `f`.
    #[inline(always)]
    unsafe fn face_beside(&self, l: u32, i: u32, f: *const T, up: bool) -> *const T {
        unsafe {
            if Self::CONTIGUOUS {
                if up { f.add(1) } else { f.sub(1) }
            } else {
                self.face_at(l, if up { i + 1 } else { i - 1 })
            }
        }
    }

    /// What the rows of a face and of its cells read of cell i of line l: its elevation,
    /// depth, wet flag and the across flux (its time-centred level) at both its sides.
    #[inline(always)]
    unsafe fn near(&self, l: u32, i: u32) -> Near<T> {
        unsafe { self.cell_at(l, i).near() }
    }

    /// The along flux's old level at face i of line l.
    #[inline(always)]
    unsafe fn flux_at(&self, l: u32, i: u32) -> T {
        unsafe { T::ldg(self.face_at(l, i)) }
    }

    /// The across flux at along face i of line l: the mean of the four across faces of the
    /// face's two cells (one cell at an end).
    #[inline(always)]
    unsafe fn cross_mean(&self, l: u32, i: u32) -> T {
        let lo = if i == 0 { 0 } else { i - 1 };
        let hi = if i < self.along() { i } else { self.along() - 1 };
        let x = |o| unsafe { Self::at(self.cross, o) };
        quarter_sum(
            x(self.across(l, lo, 0)),
            x(self.across(l, lo, 1)),
            x(self.across(l, hi, 0)),
            x(self.across(l, hi, 1)),
        )
    }

    /// The row of the continuity equation of cell i (`c` read by [`near`](Self::near)), whose
    /// faces' old fluxes are `flux_lo` and `flux_hi`.
    #[inline(always)]
    unsafe fn mass(&self, l: u32, i: u32, c: &Near<T>, flux_lo: T, flux_hi: T) -> Eq<T> {
        unsafe {
            let other = |s| Self::at(self.cross_other, self.across(l, i, s));
            let m = MassAt { zeta: c.zeta, flux_lo, flux_hi, cross_lo: c.x_lo + other(0), cross_hi: c.x_hi + other(1) };
            super::mass_row(&self.s.k, Self::DIR, &m)
        }
    }

    /// The row of a boundary face (i = 0 or along) by its end's rule.
    #[inline(always)]
    unsafe fn end(&self, l: u32, i: u32) -> Eq<T> {
        // Each branch takes its end by value: a select between the two ends would be a select
        // between their addresses, which puts the kernel's parameters in local memory.
        unsafe { if i == 0 { self.end_of(l, i, self.s.lo, true) } else { self.end_of(l, i, self.s.hi, false) } }
    }

    /// The row of boundary face i of line l by the rule of its end `e` (`low`: i = 0).
    #[inline(always)]
    unsafe fn end_of(&self, l: u32, i: u32, e: End<T>, low: bool) -> Eq<T> {
        let inner = self.cell(l, if low { 0 } else { self.along() - 1 });
        unsafe {
            if e.kind == LAND || (e.kind == LEVEL && !self.wet_at(inner)) {
                return super::closed_row(T::ZERO);
            }
            if e.kind == FLUX {
                return super::closed_row(e.value);
            }
            let (z, d) = (Self::at(self.zeta, inner), Self::at(self.d, inner));
            let mut m = MomentumAt {
                flux: self.flux_at(l, i),
                cross: self.cross_mean(l, i),
                zeta_lo: z,
                zeta_hi: z,
                d_lo: d,
                d_hi: d,
                explicit: T::ZERO,
            };
            if low {
                m.zeta_lo = e.start;
                super::known_lo(super::momentum_row(&self.s.k, Self::DIR, &m), e.value)
            } else {
                m.zeta_hi = e.start;
                super::known_hi(super::momentum_row(&self.s.k, Self::DIR, &m), e.value)
            }
        }
    }

    /// The row of inner face i (between cells i − 1 and i, `lo` and `hi` read by
    /// [`near`](Self::near)), whose old flux `f` points at and is `flux`; `flux_hi` gives the
    /// next face's: momentum if open, else closed.
    #[inline(always)]
    unsafe fn inner(
        &self,
        l: u32,
        i: u32,
        lo: &Near<T>,
        hi: &Near<T>,
        f: *const T,
        flux: T,
        flux_hi: impl FnOnce() -> T,
    ) -> Eq<T> {
        let k = &self.s.k;
        if !super::face_open(k, (lo.wet, hi.wet), (lo.zeta, hi.zeta), (lo.d, hi.d)) {
            return super::closed_row(T::ZERO);
        }
        unsafe {
            // The explicit terms' stencil only when a term is on (uniform over the launch).
            let explicit = if k.convection != 0 || k.eddy > T::ZERO {
                let (left, right) = self.beside(l);
                // Total depths of cells i − 1 and i of a line beside.
                let h_of = |line: u32| {
                    let c = self.cell_at(line, i);
                    let b = self.before(line, i, c);
                    (T::ldg(b.d) + T::ldg(b.zeta), T::ldg(c.d) + T::ldg(c.zeta))
                };
                let ((h_left_lo, h_left_hi), (h_right_lo, h_right_hi)) = (h_of(left), h_of(right));
                let s = Stencil {
                    f: flux,
                    f_lo: T::ldg(self.face_beside(l, i, f, false)),
                    f_hi: flux_hi(),
                    f_left: self.flux_at(left, i),
                    f_right: self.flux_at(right, i),
                    x_left_lo: lo.x_lo,
                    x_left_hi: hi.x_lo,
                    x_right_lo: lo.x_hi,
                    x_right_hi: hi.x_hi,
                    h_lo: lo.d + lo.zeta,
                    h_hi: hi.d + hi.zeta,
                    h_left_lo,
                    h_left_hi,
                    h_right_lo,
                    h_right_hi,
                };
                super::explicit(k, Self::DIR, &s)
            } else {
                T::ZERO
            };
            let m = MomentumAt {
                flux,
                cross: quarter_sum(lo.x_lo, lo.x_hi, hi.x_lo, hi.x_hi),
                zeta_lo: lo.zeta,
                zeta_hi: hi.zeta,
                d_lo: lo.d,
                d_hi: hi.d,
                explicit,
            };
            super::momentum_row(k, Self::DIR, &m)
        }
    }
}

/// Where one cell lies in the arrays its rows read (ζ, d, wet, and the across flux on its low
/// and high side): a cell's neighbours along its line are a step from these.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
struct CellAt<T> {
    zeta: *const T,
    d: *const T,
    wet: *const u8,
    x_lo: *const T,
    x_hi: *const T,
}

#[cfg(target_arch = "nvptx64")]
impl<T: DeviceReal> CellAt<T> {
    /// The cell before along a contiguous line.
    #[inline(always)]
    unsafe fn back(self) -> Self {
        unsafe {
            CellAt {
                zeta: self.zeta.sub(1),
                d: self.d.sub(1),
                wet: self.wet.sub(1),
                x_lo: self.x_lo.sub(1),
                x_hi: self.x_hi.sub(1),
            }
        }
    }

    #[inline(always)]
    unsafe fn near(self) -> Near<T> {
        unsafe {
            Near {
                zeta: T::ldg(self.zeta),
                d: T::ldg(self.d),
                wet: *self.wet != 0,
                x_lo: T::ldg(self.x_lo),
                x_hi: T::ldg(self.x_hi),
            }
        }
    }
}

/// What [`SweepLines`] reads of one cell for the rows of its faces and of itself.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
struct Near<T> {
    zeta: T,
    d: T,
    wet: bool,
    /// The across flux (time-centred level) on the cell's low and high side.
    x_lo: T,
    x_hi: T,
}

/// The across flux at an along face, from the four across faces of its two cells: their mean,
/// summed in this order on every path.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn quarter_sum<T: DeviceReal>(lo_0: T, lo_1: T, hi_0: T, hi_1: T) -> T {
    T::HALF * T::HALF * (lo_0 + lo_1 + hi_0 + hi_1)
}

#[cfg(target_arch = "nvptx64")]
impl<T: DeviceReal, const Y: bool, const TRANS: bool> Lines<T> for SweepLines<T, Y, TRANS> {
    const ROWS_AT_ONCE: bool = false;
    const ALTERNATING: bool = true;
    const PAIRED: bool = true;
    /// Unknown r of line l: face r/2 for even r, cell r/2 for odd r.
    #[inline(always)]
    unsafe fn row(&self, l: u32, r: u32) -> Eq<T> {
        let i = r >> 1;
        unsafe {
            if r & 1 == 1 {
                self.mass(l, i, &self.near(l, i), self.flux_at(l, i), self.flux_at(l, i + 1))
            } else if i == 0 || i == self.along() {
                self.end(l, i)
            } else {
                let c = self.cell_at(l, i);
                let f = self.face_at(l, i);
                let hi = || T::ldg(self.face_beside(l, i, f, true));
                self.inner(l, i, &self.before(l, i, c).near(), &c.near(), f, T::ldg(f), hi)
            }
        }
    }

    /// Face j and cell j of line l (n = 2·along + 1): the cell's values and its faces' fluxes
    /// are read once for both rows.
    #[inline(always)]
    unsafe fn pair(&self, l: u32, j: u32, _n: u32) -> (Eq<T>, Eq<T>) {
        let along = self.along();
        unsafe {
            if j == 0 || j == along {
                let cell = if j < along {
                    self.mass(l, j, &self.near(l, j), self.flux_at(l, j), self.flux_at(l, j + 1))
                } else {
                    Eq::IDENTITY
                };
                return (self.end(l, j), cell);
            }
            let c = self.cell_at(l, j);
            let (lo, hi) = (self.before(l, j, c).near(), c.near());
            let f = self.face_at(l, j);
            let (flux_lo, flux_hi) = (T::ldg(f), T::ldg(self.face_beside(l, j, f, true)));
            (self.inner(l, j, &lo, &hi, f, flux_lo, || flux_hi), self.mass(l, j, &hi, flux_lo, flux_hi))
        }
    }

    /// ζ, its wet flag and the along flux, in the inputs' layout.
    #[inline(always)]
    unsafe fn put(&self, l: u32, r: u32, x: T) {
        let i = r >> 1;
        unsafe {
            if r & 1 == 1 {
                let o = self.cell(l, i);
                *self.zeta_out.add(o as usize) = x;
                let wet = super::wet_next(&self.s.k, self.wet_at(o), Self::at(self.d, o) + x);
                *self.wet_out.add(o as usize) = wet as u8;
            } else {
                *self.flux_out.add(self.face(l, i) as usize) = x;
            }
        }
    }

    #[inline(always)]
    fn systems_fastest(&self) -> bool {
        Y && !TRANS
    }
}
