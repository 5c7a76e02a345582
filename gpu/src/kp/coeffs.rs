//! The scheme's constants, precomputed on the host and passed to every kernel by value.

use crate::Real;
use crate::grid::Layout2;
use core::marker::PhantomData;

/// Boundary condition codes of one side: the shared halo codes this scheme supports.
pub use crate::halo::{EXTRAPOLATE as BC_OUTFLOW, PERIODIC as BC_PERIODIC, WALL as BC_WALL};

/// Constants of the scheme, precomputed on the host.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Coeffs<T> {
    /// Interior cells; `pitch = nx + 4` (cells), `cpitch = nx + 5` (corners).
    pub nx: u32,
    pub ny: u32,
    pub pitch: u32,
    pub cpitch: u32,
    /// Boundary conditions west, east, south, north (`BC_*`).
    pub bc: [u32; 4],
    /// Cells per block in x and y of the flux and RK kernels (the wet map has one flag a block).
    pub bx: u32,
    pub by: u32,
    /// Blocks in x and y.
    pub nbx: u32,
    pub nby: u32,
    pub g: T,
    pub half_g: T,
    /// Generalized minmod parameter θ ∈ [1, 2].
    pub theta: T,
    pub inv_dx: T,
    pub inv_dy: T,
    /// Desingularization constant κ (a length to the fourth power).
    pub kappa: T,
    /// Depth at or below which a cell is dry (momentum zeroed, not wet in the wet map).
    pub dry: T,
    /// g·n² of Manning's law (0: no friction), the same in every cell; with a friction field
    /// (`friction.rs`, [`PerCell`](super::PerCell)) 0 and unused: each cell's is in the field.
    pub g_n2: T,
    /// Depth above which a cell counts as wet in the wet map (early exit): the scheme's
    /// [`WetDryScheme::wet_above`](super::WetDryScheme::wet_above) of `dry`.
    pub wet_above: T,
    /// 1/(4·CFL): a partially flooded cell lets at most `drain·a·h̄` out through a face of speed
    /// a (`wetdry.rs`, the draining cap), a no faster than [`cap_speed`](Self::cap_speed).
    pub drain: T,
    /// On one rank's slab of a grid cut over ranks: bit 0 where the rows south of the interior
    /// are cells of the grid (a cut inside it, not a side), bit 1 likewise north; bit 2 where
    /// the rows south come from another rank (a cut, or a periodic side wrapped to another
    /// rank's slab), bit 3 likewise north; 0 on a whole grid. `clamp`'s passes drain by and
    /// clamp to the cells of bits 0 and 1; early exit computes the blocks along bits 2 and 3.
    pub cut: u32,
    /// The device address of the padded activity map (one byte a cell, `walls.rs`), 0 where
    /// every cell is active. Kernels read it through [`active`](Self::active); the CPU
    /// reference keeps 0 and passes its map apart.
    pub active: u64,
    /// Where a stage that runs after the step's Δt is known reads it (RK2's second stage: its
    /// fluxes, draining and measured faces); [`DtAt::NONE`] in the stage whose speeds set Δt.
    /// Set by [`after_dt`](Self::after_dt).
    pub dt_at: DtAt<T>,
}

/// The address of the step's Δt, one `T` (device memory on the GPU, host memory in the CPU
/// reference), or none. Only [`Coeffs::after_dt`] makes one that is not [`NONE`](Self::NONE),
/// so whatever holds one may read it.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DtAt<T>(u64, PhantomData<T>);

impl<T> DtAt<T> {
    /// No Δt: the stage whose speeds set it.
    pub const NONE: DtAt<T> = DtAt(0, PhantomData);
}

impl<T: Real> Coeffs<T> {
    /// Boundary condition of side 0..4 (west, east, south, north). A `match`, not `[side]`:
    /// indexing the by-value parameter at run time would force it into local memory.
    #[inline(always)]
    pub fn side(&self, side: u32) -> u32 {
        match side {
            0 => self.bc[0],
            1 => self.bc[1],
            2 => self.bc[2],
            _ => self.bc[3],
        }
    }
    /// The activity map [`is_active`](super::is_active) reads (null: every cell active).
    #[inline(always)]
    pub fn active(&self) -> *const u8 {
        self.active as usize as *const u8
    }
    /// Whether row `j` of the interior's neighbourhood (−1 or `ny`, or an interior row) is a row
    /// of the grid's cells: an interior row, or a row beyond a cut ([`cut`](Self::cut)).
    #[inline(always)]
    pub fn is_grid_row(&self, j: i32) -> bool {
        (j >= 0 || self.cut & 1 != 0) && (j < self.ny as i32 || self.cut & 2 != 0)
    }
    /// Whether block row `bj` touches a cut: its blocks' faces drain by, and clamp to, cells of
    /// another rank's slab.
    #[inline(always)]
    pub fn touches_cut(&self, bj: u32) -> bool {
        (bj == 0 && self.cut & 1 != 0) || (bj + 1 == self.nby && self.cut & 2 != 0)
    }
    /// Whether block row `bj` lies along rows that come from another rank: its neighbours'
    /// wet flags are that rank's, so early exit computes its blocks.
    #[inline(always)]
    pub fn from_another_rank(&self, bj: u32) -> bool {
        (bj == 0 && self.cut & 4 != 0) || (bj + 1 == self.nby && self.cut & 8 != 0)
    }
    /// These constants for a stage that reads the step's Δt at `dt` ([`dt_at`](Self::dt_at)).
    ///
    /// # Safety
    /// `dt` is readable as one `T` wherever and for as long as kernels or point functions use
    /// the result (the GPU's Δt buffer for its launches, a host value for the CPU reference's).
    pub unsafe fn after_dt(self, dt: *const T) -> Coeffs<T> {
        Coeffs { dt_at: DtAt(dt as usize as u64, PhantomData), ..self }
    }
    /// Whether these constants are a stage's that reads the step's Δt ([`after_dt`](Self::after_dt)):
    /// RK2's second, whose faces may be faster than the speeds Δt was taken from.
    #[inline(always)]
    pub fn reads_dt(&self) -> bool {
        self.dt_at != DtAt::NONE
    }
    /// The fastest face speed the drain cap counts on an x face (`y` false) or a y face:
    /// CFL·Δ/Δt = 1/(4·drain·Δt/Δ), the speed at which a stage of the step's Δt moves a quarter
    /// of a cell's water through one face; ∞ in the stage whose own speeds set Δt (every face
    /// is at most that fast there) and where Δt is 0.
    #[inline(always)]
    pub fn cap_speed(&self, y: bool) -> T {
        let Some(dt) = self.stage_dt() else { return T::INFINITY };
        let inv = if y { self.inv_dy } else { self.inv_dx };
        // 1/0 = ∞ where Δt is 0; a division rounded once, as on both backends.
        T::ONE / (T::from_f64(4.0) * self.drain * dt * inv)
    }
    /// 4·Δt/Δ on an x face (`y` false) or a y face: a mass flux F through the face takes
    /// Δt·F/Δ of depth in a stage of the step's Δt, a quarter of F·4Δt/Δ, which `kp07`'s
    /// second-stage limit holds to the face's depth; 0 where no Δt is read.
    #[inline(always)]
    pub fn quarter_take(&self, y: bool) -> T {
        let Some(dt) = self.stage_dt() else { return T::ZERO };
        let inv = if y { self.inv_dy } else { self.inv_dx };
        T::from_f64(4.0) * dt * inv
    }
    /// The step's Δt where these constants read it.
    #[inline(always)]
    fn stage_dt(&self) -> Option<T> {
        if !self.reads_dt() {
            return None;
        }
        // SAFETY: a `DtAt` other than NONE comes from `after_dt`, whose caller keeps it readable.
        Some(unsafe { core::ptr::read(self.dt_at.0 as usize as *const T) })
    }
    /// Whether row `j` beyond the interior (−2, −1, or ny and above) comes from another rank: a
    /// cut, or a periodic side wrapped to another rank's slab ([`cut`](Self::cut) bits 2, 3).
    /// The halo exchange fills such rows.
    #[inline(always)]
    pub fn is_exchanged_row(&self, j: i32) -> bool {
        (j < 0 && self.cut & 4 != 0) || (j >= self.ny as i32 && self.cut & 8 != 0)
    }
    /// The interior cell that cell (i, j) next to the interior (interior indices, −1 to n) is
    /// the image of across a periodic side of this grid or slab: i wrapped by nx across
    /// periodic x sides, j by ny across periodic y sides whose rows no other slab supplies (a
    /// cut's rows, [`is_grid_row`](Self::is_grid_row), and rows from another rank,
    /// [`is_exchanged_row`](Self::is_exchanged_row), are filled by the halo exchange). None
    /// beyond any other side, and for an interior cell.
    #[inline(always)]
    pub fn periodic_image(&self, i: i32, j: i32) -> Option<(u32, u32)> {
        let (nx, ny) = (self.nx as i32, self.ny as i32);
        let wrap = |t: i32, n: i32, below: u32, above: u32| {
            if t < 0 {
                (below == BC_PERIODIC).then_some(t + n)
            } else if t >= n {
                (above == BC_PERIODIC).then_some(t - n)
            } else {
                Some(t)
            }
        };
        let inside = (0..nx).contains(&i) && (0..ny).contains(&j);
        let exchanged = !(0..ny).contains(&j) && (self.is_grid_row(j) || self.is_exchanged_row(j));
        if inside || exchanged {
            return None;
        }
        let a = wrap(i, nx, self.bc[0], self.bc[1])?;
        let b = wrap(j, ny, self.bc[2], self.bc[3])?;
        Some((a as u32, b as u32))
    }
    /// Index of cell (i, j) in the padded arrays.
    #[inline(always)]
    pub fn at(&self, i: u32, j: u32) -> usize {
        j as usize * self.pitch as usize + i as usize
    }
    /// Cells of the padded arrays.
    #[inline(always)]
    pub fn cells(&self) -> usize {
        self.pitch as usize * (self.ny as usize + 4)
    }
    /// The layout of the padded state: two ghost layers.
    #[inline(always)]
    pub fn layout(&self) -> Layout2 {
        Layout2 { nx: self.nx, ny: self.ny, halo: 2, pitch: self.pitch }
    }
    /// The constants of the transposed grid the split schemes' Y operator works in: sizes,
    /// spacings, blocks and sides swapped (the transposed west is the south), and no friction
    /// (X carries it: docs/kp-schemes.md, "Friction").
    pub fn transposed(&self) -> Coeffs<T> {
        let [w, e, s, n] = self.bc;
        Coeffs {
            nx: self.ny,
            ny: self.nx,
            pitch: self.ny + 4,
            cpitch: self.ny + 5,
            bc: [s, n, w, e],
            bx: self.by,
            by: self.bx,
            nbx: self.nby,
            nby: self.nbx,
            inv_dx: self.inv_dy,
            inv_dy: self.inv_dx,
            g_n2: T::ZERO,
            ..*self
        }
    }
}
