//! The axis a derivative is taken along.

/// The direction of a derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    X,
    Y,
    Z,
}

impl Direction {
    pub const ALL: [Direction; 3] = [Direction::X, Direction::Y, Direction::Z];
    pub fn name(self) -> &'static str {
        match self {
            Direction::X => "x",
            Direction::Y => "y",
            Direction::Z => "z",
        }
    }
    /// 0, 1, 2 for x, y, z.
    pub fn axis(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
