//! Reading a raster from a file or its bytes: an Esri ASCII grid or a GeoTIFF, told apart by
//! their first bytes.

use super::Raster;
use crate::{Error, Result};
use std::io::BufRead;
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

    /// The raster of the file at `path` as its header gives it — size, extent, cell size and
    /// coordinate system, checked — without its values (`values` and `valid` empty), read
    /// from the file's header alone: what a grid over the raster needs of it.
    pub fn read_shape(path: &Path) -> Result<Raster> {
        let name = path.display().to_string();
        crate::files::regular_file(path, u64::MAX, "raster")?;
        let io = |cause| Error::Io { path: name.clone(), cause };
        let mut file = std::io::BufReader::new(std::fs::File::open(path).map_err(io)?);
        let head = file.fill_buf().map_err(io)?;
        let header = if TIFF_MAGIC.iter().any(|m| head.starts_with(m)) {
            super::geotiff::read_header(&name, file)?
        } else if is_asc(head) {
            let epsg = super::crs::check_prj(&name, &path.with_extension("prj"))?;
            let mut h = super::asc::read_header(&name, file)?;
            h.shape.epsg = epsg;
            h
        } else {
            // Not a raster: reading it as one says what it is instead.
            return Raster::read(path);
        };
        header.check_shape()?;
        Ok(header.shape)
    }

    /// [`read_shape`](Self::read_shape) from a file's bytes; `name` is the file, for messages.
    pub fn parse_shape(name: &str, bytes: &[u8]) -> Result<Raster> {
        let header = if TIFF_MAGIC.iter().any(|m| bytes.starts_with(m)) {
            super::geotiff::read_header(name, std::io::Cursor::new(bytes))?
        } else if is_asc(bytes) {
            super::asc::read_header(name, bytes)?
        } else {
            return Raster::parse(name, bytes);
        };
        header.check_shape()?;
        Ok(header.shape)
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
        if is_asc(bytes) {
            return super::asc::parse(name, bytes);
        }
        Err(Error::invalid(format!(
            "{name}: neither an Esri ASCII grid (a text file starting with ncols) nor a GeoTIFF ({})",
            if bytes.is_empty() { "the file is empty".to_string() } else { format!("{} bytes", bytes.len()) }
        )))
    }
}

/// Whether a file starting with `bytes` is an Esri ASCII grid: text whose first key is `ncols`
/// or `nrows` (after a byte-order mark).
fn is_asc(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).trim_start().to_ascii_lowercase();
    head.starts_with("ncols") || head.starts_with("nrows")
}
