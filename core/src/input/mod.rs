//! Users' terrain and fields as rasters: Esri ASCII grids (`.asc`) and GeoTIFF (`.tif`,
//! `.tiff`), read by pure-Rust code into one [`Raster`] type, and sampled onto a grid's cell
//! centres or corners ([`Resample`]). docs/raster-input.md states the formats, the
//! orientation, the nodata rules and how kp's corner bed comes from a cell-centred raster.

mod asc;
pub mod crs;
mod geotiff;
mod raster;
mod read;
mod resample;

pub use raster::Raster;
pub use resample::Resample;

use crate::Result;
use crate::case::CaseDoc;
use std::path::Path;

/// The raster a case names at `key`: a path relative to the case file's directory, or for a
/// built-in scenario a file of `examples/` embedded in the program. Errors are one line naming
/// the case, the key and the file. The coordinate system it declares is recorded, and one
/// other than the case's earlier rasters' is refused ([`CaseDoc::record_crs`]).
pub fn case_raster(doc: &CaseDoc, key: &str, path: &Path) -> Result<Raster> {
    let read = match doc.embedded(path) {
        Some(found) => found.and_then(|(shown, bytes)| {
            doc.record_input(key, &shown, bytes);
            Raster::parse(&shown, bytes).and_then(|r| doc.record_crs(&shown, r.epsg).map(|()| r))
        }),
        None => {
            let c = crate::case::Check::new(doc);
            let path = c.path(path);
            Raster::read_bytes(&path).and_then(|bytes| {
                doc.record_input(key, &path.display().to_string(), &bytes);
                let r = Raster::parse_file(&path, &bytes)?;
                doc.record_crs(&r.name, r.epsg)?;
                Ok(r)
            })
        }
    };
    read.map_err(|e| doc.invalid(key, e))
}

/// The shape of the raster at `key` ([`Raster::read_shape`]: its header alone, its values
/// empty), for a rank other than 0 of a decomposed run, which takes the grid's extent from a
/// raster and its slab's values from rank 0.
pub fn case_raster_shape(doc: &CaseDoc, key: &str, path: &Path) -> Result<Raster> {
    let read = match doc.embedded(path) {
        Some(found) => found.and_then(|(shown, bytes)| Raster::parse_shape(&shown, bytes)),
        None => Raster::read_shape(&crate::case::Check::new(doc).path(path)),
    };
    let r = read.map_err(|e| doc.invalid(key, e))?;
    doc.record_crs(&r.name, r.epsg).map_err(|e| doc.invalid(key, e))?;
    Ok(r)
}
