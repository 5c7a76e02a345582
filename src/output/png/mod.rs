//! PNG pictures of results: 2-D fields as colour maps with a colour bar, and x–y line plots.
//! Both are drawn on an in-memory raster and encoded once, so a picture is written whole
//! through `write_atomic` or not at all. Text uses the embedded bitmap font, so the pictures
//! need no font files and look the same on every machine; it covers printable ASCII only
//! (write `m^2`, not `m²`).

mod colormap;
mod map;
mod plot;
mod ticks;

pub use colormap::{Colormap, NAN_COLOR};
pub use map::{MapOptions, write_field_png};
pub use plot::{PlotOptions, Series, write_line_plot_png};

#[cfg(test)]
mod tests;
