//! The index layout of padded 2D fields: the interior points of a grid plus `halo` ghost layers on
//! every side, stored row-major with x fastest. Kernels and the host index fields through these,
//! so a field's ghosts and pitch are described in one place.
//!
//! Coordinates are interior-relative: point (0, 0) is the first interior point, ghosts have
//! negative indices or indices at and past the interior size.

/// A 2D layout: `nx × ny` interior points, `halo` ghost layers on each side.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout2 {
    pub nx: u32,
    pub ny: u32,
    pub halo: u32,
    /// Points per stored row, `nx + 2·halo`.
    pub pitch: u32,
}

impl Layout2 {
    /// The layout of `nx × ny` points with `halo` ghost layers.
    pub const fn new(nx: u32, ny: u32, halo: u32) -> Layout2 {
        Layout2 { nx, ny, halo, pitch: nx + 2 * halo }
    }
    /// Stored rows, `ny + 2·halo`.
    #[inline(always)]
    pub const fn rows(&self) -> u32 {
        self.ny + 2 * self.halo
    }
    /// Stored points.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.pitch as usize * self.rows() as usize
    }
    /// Never true for a layout with a stored point (kept for clippy's `len_without_is_empty`).
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Index of point (i, j), interior-relative: i in −halo..nx+halo, j in −halo..ny+halo.
    #[inline(always)]
    pub const fn at(&self, i: i32, j: i32) -> usize {
        let h = self.halo as i32;
        ((j + h) as usize) * self.pitch as usize + (i + h) as usize
    }
    /// Whether (i, j) is an interior point.
    #[inline(always)]
    pub const fn is_interior(&self, i: i32, j: i32) -> bool {
        i >= 0 && j >= 0 && (i as u32) < self.nx && (j as u32) < self.ny
    }
}

/// A 3D layout: `nx × ny × nz` interior points, `halo` ghost layers on each side, stored with x
/// fastest, then y, then z (a stack of [`Layout2`] planes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout3 {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub halo: u32,
    /// Points per stored row, `nx + 2·halo`.
    pub pitch: u32,
}

impl Layout3 {
    /// The layout of `nx × ny × nz` points with `halo` ghost layers.
    pub const fn new(nx: u32, ny: u32, nz: u32, halo: u32) -> Layout3 {
        Layout3 { nx, ny, nz, halo, pitch: nx + 2 * halo }
    }
    /// Stored rows of one z-plane, `ny + 2·halo`.
    #[inline(always)]
    pub const fn rows(&self) -> u32 {
        self.ny + 2 * self.halo
    }
    /// Stored z-planes, `nz + 2·halo`.
    #[inline(always)]
    pub const fn planes(&self) -> u32 {
        self.nz + 2 * self.halo
    }
    /// Stored points of one z-plane: the index distance between (i, j, k) and (i, j, k + 1).
    #[inline(always)]
    pub const fn plane_len(&self) -> usize {
        self.pitch as usize * self.rows() as usize
    }
    /// Stored points.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.plane_len() * self.planes() as usize
    }
    /// Never true for a layout with a stored point (kept for clippy's `len_without_is_empty`).
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Index of point (i, j, k), interior-relative: each in −halo..n+halo.
    #[inline(always)]
    pub const fn at(&self, i: i32, j: i32, k: i32) -> usize {
        let h = self.halo as i32;
        ((k + h) as usize * self.rows() as usize + (j + h) as usize) * self.pitch as usize + (i + h) as usize
    }
}
