//! Forcing that changes in time: series of values (a boundary's water level, an inflow's
//! discharge, a rain intensity), read from a file or a case's inline points, checked as they are
//! read, and interpolated linearly. Each solver applies them; this module only holds the series.

mod series;

pub use series::{DISCHARGE, LEVEL, Quantity, RAIN, Series};
