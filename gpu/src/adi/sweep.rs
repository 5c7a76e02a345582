//! One ADI sweep as a batch of tridiagonal systems whose rows are built inside the solving
//! kernel: [`SweepLines`] gathers each unknown's neighbourhood from the state in global memory,
//! asks the row providers of `mod.rs` for its row, and writes each solved unknown back into
//! the state. The tridiagonal kernels (`crate::tridiag`: Thomas, partition, PCR, CR-PCR) take
//! it in place of coefficient arrays, so a sweep reads the state once and writes it once.
//!
//! The index maps are written out here for the GPU alone (the CPU reference has its own, in
//! `src/adi/cpu.rs`), so that the GPU ≡ CPU tests check them.

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
/// q and ζ along y). Layouts as `src/adi/mod.rs` states: ζ, d and wet at `k·nx + j`, p at
/// `k·(nx+1) + j`, q at `k·nx + j`.
#[cfg(target_arch = "nvptx64")]
pub struct SweepLines<T, const Y: bool> {
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
impl<T: DeviceReal, const Y: bool> SweepLines<T, Y> {
    const DIR: Dir = if Y { Dir::Y } else { Dir::X };

    /// Cells along a line.
    #[inline(always)]
    fn along(&self) -> u32 {
        if Y { self.s.ny } else { self.s.nx }
    }
    /// Line l clamped to the grid (the mirror beyond its edges).
    #[inline(always)]
    fn clamp(&self, l: i64) -> u32 {
        let lines = if Y { self.s.nx } else { self.s.ny };
        if l < 0 {
            0
        } else if l >= lines as i64 {
            lines - 1
        } else {
            l as u32
        }
    }
    /// Cell i of line l.
    #[inline(always)]
    fn cell(&self, l: u32, i: u32) -> usize {
        let nx = self.s.nx as usize;
        if Y { i as usize * nx + l as usize } else { l as usize * nx + i as usize }
    }
    /// Along face i (0..=along) of line l.
    #[inline(always)]
    fn face(&self, l: u32, i: u32) -> usize {
        let nx = self.s.nx as usize;
        if Y { i as usize * nx + l as usize } else { l as usize * (nx + 1) + i as usize }
    }
    /// The across face of cell i of line l on its low (s = 0) or high (s = 1) side.
    #[inline(always)]
    fn across(&self, l: u32, i: u32, s: u32) -> usize {
        let nx = self.s.nx as usize;
        if Y { i as usize * (nx + 1) + (l + s) as usize } else { (l + s) as usize * nx + i as usize }
    }
    #[inline(always)]
    unsafe fn at(p: *const T, o: usize) -> T {
        unsafe { T::ldg(p.add(o)) }
    }
    /// Total depth of cell o.
    #[inline(always)]
    unsafe fn h(&self, o: usize) -> T {
        unsafe { Self::at(self.d, o) + Self::at(self.zeta, o) }
    }
    #[inline(always)]
    unsafe fn wet_at(&self, o: usize) -> bool {
        unsafe { *self.wet.add(o) != 0 }
    }

    /// The across flux at along face i of line l: the mean of the four across faces of the
    /// face's two cells (one cell at an end).
    #[inline(always)]
    unsafe fn cross_mean(&self, l: u32, i: u32) -> T {
        let lo = if i == 0 { 0 } else { i - 1 };
        let hi = if i < self.along() { i } else { self.along() - 1 };
        let x = |o| unsafe { Self::at(self.cross, o) };
        let quarter = T::HALF * T::HALF;
        quarter
            * (x(self.across(l, lo, 0))
                + x(self.across(l, lo, 1))
                + x(self.across(l, hi, 0))
                + x(self.across(l, hi, 1)))
    }

    /// The row of the continuity equation of cell i.
    #[inline(always)]
    unsafe fn mass(&self, l: u32, i: u32) -> Eq<T> {
        unsafe {
            let sum = |s| Self::at(self.cross, self.across(l, i, s)) + Self::at(self.cross_other, self.across(l, i, s));
            let m = MassAt {
                zeta: Self::at(self.zeta, self.cell(l, i)),
                flux_lo: Self::at(self.flux, self.face(l, i)),
                flux_hi: Self::at(self.flux, self.face(l, i + 1)),
                cross_lo: sum(0),
                cross_hi: sum(1),
            };
            super::mass_row(&self.s.k, Self::DIR, &m)
        }
    }

    /// The row of a boundary face (i = 0 or along) by its end's rule.
    #[inline(always)]
    unsafe fn end(&self, l: u32, i: u32) -> Eq<T> {
        let low = i == 0;
        let e = if low { self.s.lo } else { self.s.hi };
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
                flux: Self::at(self.flux, self.face(l, i)),
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

    /// The row of inner face i (between cells i − 1 and i): momentum if open, else closed.
    #[inline(always)]
    unsafe fn inner(&self, l: u32, i: u32) -> Eq<T> {
        let k = &self.s.k;
        let (clo, chi) = (self.cell(l, i - 1), self.cell(l, i));
        unsafe {
            let (zlo, zhi) = (Self::at(self.zeta, clo), Self::at(self.zeta, chi));
            let (dlo, dhi) = (Self::at(self.d, clo), Self::at(self.d, chi));
            if !super::face_open(k, (self.wet_at(clo), self.wet_at(chi)), (zlo, zhi), (dlo, dhi)) {
                return super::closed_row(T::ZERO);
            }
            let flux = Self::at(self.flux, self.face(l, i));
            // The explicit terms' stencil only when a term is on (uniform over the launch).
            let explicit = if k.convection != 0 || k.eddy > T::ZERO {
                let (left, right) = (self.clamp(l as i64 - 1), self.clamp(l as i64 + 1));
                let f = |o| Self::at(self.flux, o);
                let x = |c, s| Self::at(self.cross, self.across(l, c, s));
                let s = Stencil {
                    f: flux,
                    f_lo: f(self.face(l, i - 1)),
                    f_hi: f(self.face(l, i + 1)),
                    f_left: f(self.face(left, i)),
                    f_right: f(self.face(right, i)),
                    x_left_lo: x(i - 1, 0),
                    x_left_hi: x(i, 0),
                    x_right_lo: x(i - 1, 1),
                    x_right_hi: x(i, 1),
                    h_lo: dlo + zlo,
                    h_hi: dhi + zhi,
                    h_left_lo: self.h(self.cell(left, i - 1)),
                    h_left_hi: self.h(self.cell(left, i)),
                    h_right_lo: self.h(self.cell(right, i - 1)),
                    h_right_hi: self.h(self.cell(right, i)),
                };
                super::explicit(k, Self::DIR, &s)
            } else {
                T::ZERO
            };
            let m = MomentumAt {
                flux,
                cross: self.cross_mean(l, i),
                zeta_lo: zlo,
                zeta_hi: zhi,
                d_lo: dlo,
                d_hi: dhi,
                explicit,
            };
            super::momentum_row(k, Self::DIR, &m)
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl<T: DeviceReal, const Y: bool> Lines<T> for SweepLines<T, Y> {
    const ROWS_AT_ONCE: bool = false;
    const ALTERNATING: bool = true;
    /// Unknown r of line l: face r/2 for even r, cell r/2 for odd r.
    #[inline(always)]
    unsafe fn row(&self, l: u32, r: u32) -> Eq<T> {
        let i = r >> 1;
        unsafe {
            if r & 1 == 1 {
                self.mass(l, i)
            } else if i == 0 || i == self.along() {
                self.end(l, i)
            } else {
                self.inner(l, i)
            }
        }
    }

    #[inline(always)]
    unsafe fn put(&self, l: u32, r: u32, x: T) {
        let i = r >> 1;
        unsafe {
            if r & 1 == 1 {
                let o = self.cell(l, i);
                *self.zeta_out.add(o) = x;
                let wet = super::wet_next(&self.s.k, self.wet_at(o), Self::at(self.d, o) + x);
                *self.wet_out.add(o) = wet as u8;
            } else {
                *self.flux_out.add(self.face(l, i)) = x;
            }
        }
    }

    #[inline(always)]
    fn systems_fastest(&self) -> bool {
        Y
    }
}
