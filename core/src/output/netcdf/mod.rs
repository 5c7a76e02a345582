//! NetCDF-CF output: one file per run, in the classic format's 64-bit offset variant, written
//! by hydrokern itself (no C library; docs/netcdf.md says why) and read back by `hydrokern plot`.
//!
//! [`classic`] is the file format; [`cf`] the CF layout of a run (coordinates, time, fields and
//! their attributes); [`append`] grows a file one record at a time so that a killed run leaves
//! it readable up to its last whole snapshot; [`Snapshots`] is what the runner calls; [`Dataset`]
//! reads files back; [`plot`] draws their maps and gauges. The products (gauges, discharge
//! lines, maximum maps) go into files of their own beside the fields' ([`GaugeFile`],
//! [`LineFile`], [`write_maxima`]); a run's water account goes into the fields' file, a record at
//! each snapshot (`account`).

mod account;
pub mod append;
pub mod cf;
pub use crate::cf_time;
pub mod classic;
mod lines;
mod plot;
mod products;
mod read;
mod snapshots;

pub use lines::LineFile;
pub use plot::{default_dir, plot};
pub use products::{GaugeFile, write_maxima};
pub use read::{Dataset, Values};
pub use snapshots::Snapshots;

#[cfg(test)]
mod tests;
