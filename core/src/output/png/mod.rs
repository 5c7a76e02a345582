//! PNG pictures of results: 2-D fields as colour maps with a colour bar (over the hillshaded
//! ground, dry cells as land, for water), x–y line plots, and profiles coloured by time. All are
//! drawn on an in-memory raster and encoded once, so a picture is written whole through
//! `write_atomic` or not at all. Text is anti-aliased DejaVu Sans embedded in the binary
//! (`super::font`), so the pictures need no font files, look the same on every machine, and
//! can say "m²", "θ" or "ζ".

mod colormap;
mod ground;
mod map;
mod picture;
mod plot;
mod ticks;

pub use colormap::{Colormap, NAN_COLOR, NEVER_ARRIVED, NEVER_WET, OUTSIDE, UNSET_COLOR};
pub use ground::{Ground, LAND, UNDER_WATER, hillshade};
pub use map::{MapOptions, Scale, map_drawing, map_pixels, map_retained, render_map, time_unit, write_field_png};
pub use picture::Picture;
pub use plot::{
    BED, LEGEND_ROWS, PlotOptions, Profiles, Series, write_line_plot_png, write_panels_png, write_profiles_png,
};

#[cfg(test)]
mod tests;
