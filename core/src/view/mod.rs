//! The live view: a running simulation served to browsers on localhost (`hydrokern run
//! CASE.toml --view [PORT]`), showing the evolving field as the snapshot pictures draw it, the
//! clock, the balance and the gauges, with pause, resume and stop (docs/view.md).
//!
//! - [`Samples`]: the cells a frame shows; a GPU model gathers them on the device
//!   ([`GpuSampler`]), so a frame downloads the view's size, not the field's.
//! - [`Layer`] and [`layers`]: what a frame draws and how it travels (half floats and dry flags).
//! - [`Hub`]: what the run and the server share; the run only publishes and never waits on a
//!   viewer.
//! - [`Server`]: HTTP and server-sent events on the standard library; the page is static files
//!   in `page/`, built into the program.
//!
//! The run's side (when to take a frame, pausing, stopping) is `run::live`.

mod hub;
pub mod layers;
mod sample;
mod server;

pub use hub::{Command, DEFAULT_FPS, FPS_RANGE, Frame, Hub};
pub use layers::Layer;
pub use sample::{DEFAULT_SIDE, GpuSampler, MAX_SIDE, Samples, sample_views};
pub use server::Server;

/// How a run is viewed: the port (0: one the system picks) and whether it starts paused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    pub port: u16,
    pub paused: bool,
}
