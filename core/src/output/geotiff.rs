//! GeoTIFF maps for GIS: one band of 32-bit floats, north-up (the first row is the northern
//! one), NaN as nodata (GDAL_NODATA "nan"), georeferenced by ModelPixelScaleTag and
//! ModelTiepointTag, with GeoKeys saying a projected system in metres, PixelIsArea, and the
//! EPSG code of the case's rasters where they declare one. QGIS, GDAL and rasterio read the
//! georeferencing and the CRS from these tags; the layout is the plainest TIFF (little-endian,
//! uncompressed strips), written whole through a temporary file ([`super::write_atomic_with`]).

use crate::grid::Grid2;
use crate::{Error, Real, Result};
use std::io::Write;
use std::path::Path;

/// Where a map lies: its north-west corner, cell sizes (metres) and coordinate system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoRef {
    pub west: f64,
    pub north: f64,
    pub dx: f64,
    pub dy: f64,
    /// The EPSG code of the projected system, where the inputs declare one.
    pub epsg: Option<u16>,
}

impl GeoRef {
    /// The georeferencing of a grid's cells (its origin is the south-west corner).
    pub fn of(grid: &Grid2, epsg: Option<u16>) -> GeoRef {
        let (west, south) = grid.origin;
        GeoRef { west, north: south + grid.ny as f64 * grid.dy, dx: grid.dx, dy: grid.dy, epsg }
    }
}

// TIFF tags written, in increasing order (a TIFF directory is sorted by tag).
const IMAGE_WIDTH: u16 = 256;
const IMAGE_LENGTH: u16 = 257;
const BITS_PER_SAMPLE: u16 = 258;
const COMPRESSION: u16 = 259;
const PHOTOMETRIC: u16 = 262;
const STRIP_OFFSETS: u16 = 273;
const SAMPLES_PER_PIXEL: u16 = 277;
const ROWS_PER_STRIP: u16 = 278;
const STRIP_BYTE_COUNTS: u16 = 279;
const PLANAR_CONFIGURATION: u16 = 284;
const SAMPLE_FORMAT: u16 = 339;
const MODEL_PIXEL_SCALE: u16 = 33550;
const MODEL_TIEPOINT: u16 = 33922;
const GEO_KEY_DIRECTORY: u16 = 34735;
const GDAL_NODATA: u16 = 42113;

// TIFF field types.
const ASCII: u16 = 2;
const SHORT: u16 = 3;
const LONG: u16 = 4;
const DOUBLE: u16 = 12;

// GeoKeys (GeoTIFF 1.0 §6.2) and the values written.
const GT_MODEL_TYPE: u16 = 1024;
const MODEL_PROJECTED: u16 = 1;
const GT_RASTER_TYPE: u16 = 1025;
const PIXEL_IS_AREA: u16 = 1;
const PROJECTED_CS_TYPE: u16 = 3072;
const PROJ_LINEAR_UNITS: u16 = 3076;
const LINEAR_METER: u16 = 9001;

/// Bytes a strip holds at most (whole rows, at least one): small enough for readers that
/// take a strip at a time, few enough strips for a 4096² map (about 1000).
const STRIP_BYTES: usize = 64 << 10;

/// The largest file written: classic TIFF's offsets are 32-bit.
const MAX_BYTES: u64 = u32::MAX as u64;

/// One directory entry: tag, type, count and its values' bytes (inline when 4 or fewer).
struct Entry {
    tag: u16,
    kind: u16,
    count: u32,
    bytes: Vec<u8>,
}

fn shorts(tag: u16, v: &[u16]) -> Entry {
    Entry { tag, kind: SHORT, count: v.len() as u32, bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() }
}
fn longs(tag: u16, v: &[u32]) -> Entry {
    Entry { tag, kind: LONG, count: v.len() as u32, bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() }
}
fn doubles(tag: u16, v: &[f64]) -> Entry {
    Entry { tag, kind: DOUBLE, count: v.len() as u32, bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() }
}
fn ascii(tag: u16, s: &str) -> Entry {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    Entry { tag, kind: ASCII, count: bytes.len() as u32, bytes }
}

/// The GeoKeyDirectoryTag's shorts: a header (version 1, revision 1.0, the key count), then
/// (id, location 0 = inline, count 1, value) per key, sorted by id.
pub fn geo_keys(epsg: Option<u16>) -> Vec<u16> {
    let mut keys = vec![(GT_MODEL_TYPE, MODEL_PROJECTED), (GT_RASTER_TYPE, PIXEL_IS_AREA)];
    if let Some(code) = epsg {
        keys.push((PROJECTED_CS_TYPE, code));
    }
    keys.push((PROJ_LINEAR_UNITS, LINEAR_METER));
    let mut v = vec![1, 1, 0, keys.len() as u16];
    for (id, value) in keys {
        v.extend([id, 0, 1, value]);
    }
    v
}

/// The file's bytes before and after the image: the header with the directory's offset, and
/// the directory with its out-of-line values. The image (`nx·ny` f32, north row first) lies
/// between, from byte 8.
fn frame(nx: usize, ny: usize, geo: &GeoRef) -> Result<([u8; 8], Vec<u8>)> {
    let row = nx * 4;
    let image = row as u64 * ny as u64;
    // The directory and its values are a few hundred bytes and 8 a strip.
    let rows_per_strip = (STRIP_BYTES / row.max(1)).clamp(1, ny.max(1));
    let strips = ny.div_ceil(rows_per_strip);
    if nx == 0 || ny == 0 || nx > u32::MAX as usize || ny > u32::MAX as usize {
        return Err(Error::invalid(format!("a GeoTIFF of {nx}×{ny} cells: sizes must be positive")));
    }
    if image + 4096 + 8 * strips as u64 > MAX_BYTES {
        return Err(Error::invalid(format!(
            "a {nx}×{ny} map does not fit a classic GeoTIFF (4 GiB at most); write NPY or NetCDF for it"
        )));
    }
    let offsets: Vec<u32> = (0..strips).map(|s| (8 + s * rows_per_strip * row) as u32).collect();
    let counts: Vec<u32> = (0..strips).map(|s| ((ny - s * rows_per_strip).min(rows_per_strip) * row) as u32).collect();
    let entries = vec![
        longs(IMAGE_WIDTH, &[nx as u32]),
        longs(IMAGE_LENGTH, &[ny as u32]),
        shorts(BITS_PER_SAMPLE, &[32]),
        shorts(COMPRESSION, &[1]),
        // BlackIsZero: one band of values, not colours.
        shorts(PHOTOMETRIC, &[1]),
        longs(STRIP_OFFSETS, &offsets),
        shorts(SAMPLES_PER_PIXEL, &[1]),
        longs(ROWS_PER_STRIP, &[rows_per_strip as u32]),
        longs(STRIP_BYTE_COUNTS, &counts),
        // Chunky: the only layout with one band that every reader takes.
        shorts(PLANAR_CONFIGURATION, &[1]),
        // IEEE floating point.
        shorts(SAMPLE_FORMAT, &[3]),
        doubles(MODEL_PIXEL_SCALE, &[geo.dx, geo.dy, 0.0]),
        // Raster point (0, 0), the north-west corner of the first pixel under PixelIsArea, is
        // the model point (west, north).
        doubles(MODEL_TIEPOINT, &[0.0, 0.0, 0.0, geo.west, geo.north, 0.0]),
        shorts(GEO_KEY_DIRECTORY, &geo_keys(geo.epsg)),
        ascii(GDAL_NODATA, "nan"),
    ];
    let ifd_at = 8 + image;
    let ifd_len = 2 + 12 * entries.len() as u64 + 4;
    let mut extra_at = ifd_at + ifd_len;
    let mut ifd = Vec::with_capacity(ifd_len as usize);
    let mut extra = Vec::new();
    ifd.extend((entries.len() as u16).to_le_bytes());
    for e in &entries {
        ifd.extend(e.tag.to_le_bytes());
        ifd.extend(e.kind.to_le_bytes());
        ifd.extend(e.count.to_le_bytes());
        if e.bytes.len() <= 4 {
            let mut inline = [0u8; 4];
            inline[..e.bytes.len()].copy_from_slice(&e.bytes);
            ifd.extend(inline);
        } else {
            ifd.extend((extra_at as u32).to_le_bytes());
            extra.extend(&e.bytes);
            // Values start on a word boundary, as TIFF asks.
            if extra.len() % 2 == 1 {
                extra.push(0);
            }
            extra_at = ifd_at + ifd_len + extra.len() as u64;
        }
    }
    // No next directory: one image.
    ifd.extend(0u32.to_le_bytes());
    ifd.extend(extra);
    let mut header = [0u8; 8];
    header[..4].copy_from_slice(b"II*\0");
    header[4..].copy_from_slice(&(ifd_at as u32).to_le_bytes());
    Ok((header, ifd))
}

/// Write the map `data` (`nx × ny` values, row 0 the southern one, as hydrokern stores
/// fields) to `path` as a float32 GeoTIFF whose first row is the northern one; values are
/// rounded to f32 (NaN stays NaN, the nodata value). Whole or not at all.
pub fn write_geotiff<T: Real>(path: &Path, data: &[T], nx: usize, ny: usize, geo: &GeoRef) -> Result<()> {
    if data.len() != nx * ny {
        return Err(Error::invalid(format!("{}: {} values for a {nx}×{ny} map", path.display(), data.len())));
    }
    let (header, ifd) = frame(nx, ny, geo).map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
    super::write_atomic_with(path, |w: &mut dyn Write| {
        w.write_all(&header)?;
        let mut row = Vec::with_capacity(nx * 4);
        for j in (0..ny).rev() {
            row.clear();
            row.extend(data[j * nx..(j + 1) * nx].iter().flat_map(|v| (v.to_f64() as f32).to_le_bytes()));
            w.write_all(&row)?;
        }
        w.write_all(&ifd)
    })
}

#[cfg(test)]
mod tests;
