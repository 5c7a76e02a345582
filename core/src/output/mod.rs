//! Output files, written whole or not at all.
//!
//! [`npy`] stores fields for NumPy; [`png`] draws colour maps and line plots; [`anim`] makes
//! animated GIFs of a run's snapshots; [`netcdf`] keeps a run's snapshots in one NetCDF-CF file,
//! the one file that grows as the run goes (each snapshot appended whole, see its doc). Every
//! other file goes through [`write_atomic`], so a killed run or a full disk never leaves a
//! half-written result that a later script would mistake for a good one. A run syncs its files
//! to disk at checkpoints and at its end ([`crate::run::RunDir::sync`]), so a crash of the
//! machine, too, leaves everything up to the last checkpoint whole.

pub mod anim;
pub(crate) mod canvas;
mod font;
pub mod geotiff;
pub mod netcdf;
pub mod png;

pub use crate::npy::{self, NpyElem, read_npy_f64, write_npy};
pub use anim::{Animation, Animations};
pub use geotiff::{GeoRef, write_geotiff};
pub use png::{
    Colormap, Ground, MapOptions, Picture, PlotOptions, Profiles, Scale, Series, render_map, write_field_png,
    write_line_plot_png, write_profiles_png,
};

pub use crate::atomic::{
    check_writable, write_atomic, write_atomic_new, write_atomic_parts, write_atomic_synced_with, write_atomic_with,
    write_pieces_at,
};

/// A fresh, empty scratch directory for one test; tests run in parallel threads of one process,
/// so the name carries the test's own tag as well as the process id.
#[cfg(test)]
pub(crate) fn test_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hydrokern-output-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// `data` (a value a cell) as the GIS formats hold it: the cells outside the domain (`active`
/// false) set to `nodata` (NaN in a GeoTIFF, the fill value in NetCDF); `data` itself where
/// every cell is in it, or where `data` is not a value a cell.
pub fn outside_as<'a, T: crate::Real>(data: &'a [T], active: Option<&[bool]>, nodata: T) -> std::borrow::Cow<'a, [T]> {
    match active {
        Some(a) if a.len() == data.len() && a.contains(&false) => {
            data.iter().zip(a).map(|(v, &on)| if on { *v } else { nodata }).collect::<Vec<T>>().into()
        }
        _ => data.into(),
    }
}
