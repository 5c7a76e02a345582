//! A finished picture in memory: written as a PNG, or kept as a frame of an animation.

use crate::Result;
use crate::output::canvas::Canvas;
use crate::output::write_atomic;
use std::path::Path;

/// An RGB picture, rows top to bottom.
#[derive(Clone)]
pub struct Picture(pub(crate) Canvas);

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Picture({}×{})", self.0.w, self.0.h)
    }
}

impl Picture {
    pub fn width(&self) -> usize {
        self.0.w
    }

    pub fn height(&self) -> usize {
        self.0.h
    }

    /// The pixels, 3 bytes (R, G, B) each, row by row from the top.
    pub fn rgb(&self) -> &[u8] {
        self.0.pixels()
    }

    /// The colour at (x, y), x from the left and y from the top.
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        self.0.get(x, y)
    }

    /// Write it as a PNG file, whole or not at all.
    pub fn write_png(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.0.encode_png()?)
    }
}
