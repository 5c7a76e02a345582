//! The GPU kernel variants: which kernel each launches, along which direction, and their names
//! on the command line.

use super::direction::Direction;
use crate::{Error, Result};
use std::str::FromStr;

/// The GPU kernel variants: Ruetsch's three tiles, and what goes past them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// x with a shared tile of 4 x-pencils, 64-point chunks plus halo (Ruetsch's x kernel).
    X4Pencil,
    /// x with a shared tile of 16 (or more) x-pencils, 8 points per thread.
    XTile,
    /// x with 16-byte loads and stores, no shared memory.
    XVec,
    /// y with a shared tile of 4 y-pencils, one point per thread (Ruetsch's first y kernel).
    Y4Pencil,
    /// y with a shared tile of 32 y-pencils, 8 points per thread (Ruetsch's lPencils kernel).
    Y32Pencil,
    /// y from registers: a thread marches along y with a sliding register window.
    YStream,
    /// z with a shared tile of 4 z-pencils.
    Z4Pencil,
    /// z with a shared tile of 32 z-pencils, 8 points per thread.
    Z32Pencil,
    /// z from registers, as y-stream.
    ZStream,
}

impl Variant {
    pub const ALL: [Variant; 9] = [
        Variant::X4Pencil,
        Variant::XTile,
        Variant::XVec,
        Variant::Y4Pencil,
        Variant::Y32Pencil,
        Variant::YStream,
        Variant::Z4Pencil,
        Variant::Z32Pencil,
        Variant::ZStream,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::X4Pencil => "x-4pencil",
            Variant::XTile => "x-tile",
            Variant::XVec => "x-vec",
            Variant::Y4Pencil => "y-4pencil",
            Variant::Y32Pencil => "y-32pencil",
            Variant::YStream => "y-stream",
            Variant::Z4Pencil => "z-4pencil",
            Variant::Z32Pencil => "z-32pencil",
            Variant::ZStream => "z-stream",
        }
    }

    pub fn direction(self) -> Direction {
        match self {
            Variant::X4Pencil | Variant::XTile | Variant::XVec => Direction::X,
            Variant::Y4Pencil | Variant::Y32Pencil | Variant::YStream => Direction::Y,
            Variant::Z4Pencil | Variant::Z32Pencil | Variant::ZStream => Direction::Z,
        }
    }

    /// The kernel it launches.
    pub fn entry(self) -> kernels::Entry<kernels::fd3d::Derivative<()>> {
        use kernels::fd3d::{X_PENCIL, X_TILE, X_VEC, YZ_PENCIL, YZ_STREAM};
        match self {
            Variant::X4Pencil => X_PENCIL,
            Variant::XTile => X_TILE,
            Variant::XVec => X_VEC,
            Variant::Y4Pencil | Variant::Y32Pencil | Variant::Z4Pencil | Variant::Z32Pencil => YZ_PENCIL,
            Variant::YStream | Variant::ZStream => YZ_STREAM,
        }
    }

    /// One line on how it works.
    pub fn describe(self) -> &'static str {
        match self {
            Variant::X4Pencil => "shared tile of 4 x-pencils × 64-point chunks (+4 halo), 1 point/thread (Ruetsch's)",
            Variant::XTile => "shared tile of 16 x-pencils × 128-point chunks (+4 halo), 8 points/thread",
            Variant::XVec => "16-byte loads and stores, 2 vectors/thread, no shared memory",
            Variant::Y4Pencil | Variant::Z4Pencil => {
                "shared tile of 4 pencils × 64-point chunks, 1 point/thread (Ruetsch's)"
            }
            Variant::Y32Pencil | Variant::Z32Pencil => {
                "shared tile of 32 pencils × 64-point chunks, 8 points/thread (Ruetsch's lPencils)"
            }
            Variant::YStream | Variant::ZStream => {
                "register window along the pencil (steps of 16 f32 / 8 f64 points), no shared memory"
            }
        }
    }

    /// The variants along `dir`.
    pub fn along(dir: Direction) -> impl Iterator<Item = Variant> {
        Variant::ALL.into_iter().filter(move |v| v.direction() == dir)
    }

    fn names() -> String {
        Variant::ALL.map(|v| v.name()).join(", ")
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Variant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| Error::invalid(format!("unknown fd3d variant '{s}' (variants: {})", Variant::names())))
    }
}
