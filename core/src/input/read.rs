//! Reading a raster from a file or its bytes: an Esri ASCII grid or a GeoTIFF, told apart by
//! their first bytes.

use super::Raster;
use crate::{Error, Result};
use std::path::Path;

const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// The first bytes of an HDF5 file, which a NetCDF-4 file is.
const HDF5_MAGIC: &[u8] = b"\x89HDF\r\n\x1a\n";

/// The first bytes of a little- and a big-endian TIFF, and of a BigTIFF.
const TIFF_MAGIC: [&[u8]; 4] = [b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"];

impl Raster {
    /// Read an Esri ASCII grid or a GeoTIFF (told apart by their first bytes).
    pub fn read(path: &Path) -> Result<Raster> {
        Raster::parse_file(path, &Raster::read_bytes(path)?)
    }

    /// The bytes of a raster file to read: the file is read whole, and a quarter of the free
    /// memory leaves room for its values.
    pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
        let limit = crate::files::available_memory().map_or(u64::MAX, |m| m / 4);
        crate::files::read_bytes(path, limit, "raster small enough for this machine's memory")
    }

    /// A raster from the bytes of the file at `path`; an Esri grid's `.prj` beside it is read
    /// too, so that a grid in degrees is refused and a projected system's EPSG code is known.
    pub fn parse_file(path: &Path, bytes: &[u8]) -> Result<Raster> {
        let name = path.display().to_string();
        if TIFF_MAGIC.iter().any(|m| bytes.starts_with(m)) {
            return Raster::parse(&name, bytes);
        }
        let epsg = super::crs::check_prj(&name, &path.with_extension("prj"))?;
        Ok(Raster { epsg, ..Raster::parse(&name, bytes)? })
    }

    /// A raster from a file's bytes; `name` is the file, for messages.
    pub fn parse(name: &str, bytes: &[u8]) -> Result<Raster> {
        if TIFF_MAGIC.iter().any(|m| bytes.starts_with(m)) {
            return super::geotiff::parse(name, bytes);
        }
        // A NetCDF file (a radar product, say) is a stack of rasters, which gridded rain reads
        // through its own key: say so, and how to write a band out, rather than that it is not
        // a grid.
        let netcdf = if bytes.starts_with(b"CDF") {
            Some("a NetCDF-3 file")
        } else if bytes.starts_with(HDF5_MAGIC) {
            Some("a NetCDF-4 (HDF5) file")
        } else {
            None
        };
        if let Some(what) = netcdf {
            return Err(Error::invalid(format!(
                "{name}: {what}: rasters are read from Esri ASCII grids and GeoTIFFs; gridded rain reads a NetCDF file whole as [forcing.rain] netcdf = FILE, or write a time step out as a raster, e.g. gdal_translate -b K NETCDF:\"{name}\":VARIABLE step-K.tif"
            )));
        }
        // A byte-order mark some editors write at the start of a text file is not part of it.
        let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).trim_start().to_ascii_lowercase();
        if head.starts_with("ncols") || head.starts_with("nrows") {
            return super::asc::parse(name, bytes);
        }
        Err(Error::invalid(format!(
            "{name}: neither an Esri ASCII grid (a text file starting with ncols) nor a GeoTIFF ({})",
            if bytes.is_empty() { "the file is empty".to_string() } else { format!("{} bytes", bytes.len()) }
        )))
    }
}
