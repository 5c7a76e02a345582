//! GeoTIFF: one band of unsigned or signed integers or floats (8 to 64 bits), in strips or
//! tiles, any compression the `tiff` crate decodes here (none, LZW, Deflate, PackBits);
//! georeferenced by ModelPixelScaleTag (33550) and ModelTiepointTag (33922), with
//! GTRasterTypeGeoKey's PixelIsPoint honoured; nodata from GDAL_NODATA (42113). Positions are
//! read as metres: a raster whose GeoKeys declare a geographic coordinate system (degrees) is
//! refused ([`Crs`]).

use super::crs::{Crs, refuse_crs};
use super::raster::{Header, Raster};
use crate::{Error, Result};
use std::io::Cursor;
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::tags::Tag;
use tiff::{ColorType, TiffError};

/// GeoKeyDirectoryTag's key for the raster type, and its value for PixelIsPoint.
const GT_RASTER_TYPE: u16 = 1025;
const PIXEL_IS_POINT: u16 = 2;
/// The raster of a GeoTIFF's bytes; `name` is the file, for messages.
pub(super) fn parse(name: &str, bytes: &[u8]) -> Result<Raster> {
    let bad = |m: String| Error::invalid(format!("{name}: {m}"));
    let tiff_err = |e| tiff_error(name, e);
    let mut d = Decoder::new(Cursor::new(bytes)).map_err(tiff_err)?;
    let (header, bits, kind) = header(name, &mut d)?;
    // The decoder's buffer of the file's samples comes on top of the raster's own values.
    header.check(u64::from(bits) / 8)?;
    let (ncols, nrows) = (header.shape.ncols, header.shape.nrows);
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::MAX;
    limits.intermediate_buffer_size = usize::MAX;
    let mut d = d.with_limits(limits);
    let image = d.read_image().map_err(tiff_err)?;
    let cells = ncols * nrows;
    let values: Box<dyn ExactSizeIterator<Item = f64>> = match image {
        DecodingResult::U8(v) => Box::new(v.into_iter().map(f64::from)),
        DecodingResult::U16(v) => Box::new(v.into_iter().map(f64::from)),
        DecodingResult::U32(v) => Box::new(v.into_iter().map(f64::from)),
        DecodingResult::U64(v) => Box::new(v.into_iter().map(|x| x as f64)),
        DecodingResult::I8(v) => Box::new(v.into_iter().map(f64::from)),
        DecodingResult::I16(v) => Box::new(v.into_iter().map(f64::from)),
        DecodingResult::I32(v) => Box::new(v.into_iter().map(f64::from)),
        DecodingResult::I64(v) => Box::new(v.into_iter().map(|x| x as f64)),
        DecodingResult::F32(v) => Box::new(v.into_iter().map(f64::from)),
        DecodingResult::F64(v) => Box::new(v.into_iter()),
        DecodingResult::F16(_) => {
            return Err(bad(format!("16-bit floats are not read (declared: {kind}, {bits} bits)")));
        }
    };
    if values.len() < cells {
        return Err(bad(format!("the image holds {} samples; {ncols}×{nrows} are needed", values.len())));
    }
    header.raster(values)
}

/// The header of the GeoTIFF `file` reads (its tags: the image is not read).
pub(super) fn read_header<R: std::io::Read + std::io::Seek>(name: &str, file: R) -> Result<Header> {
    let mut d = Decoder::new(file).map_err(|e| tiff_error(name, e))?;
    Ok(header(name, &mut d)?.0)
}

fn tiff_error(name: &str, e: TiffError) -> Error {
    let bad = |m: String| Error::invalid(format!("{name}: {m}"));
    match e {
        TiffError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            bad("truncated: the file ends inside its TIFF structure or image data".into())
        }
        other => bad(format!("cannot decode the TIFF: {other}")),
    }
}

/// What the tags of the image `d` decodes say: its header, bits a sample and what they are.
fn header<R: std::io::Read + std::io::Seek>(name: &str, d: &mut Decoder<R>) -> Result<(Header, u8, &'static str)> {
    let bad = |m: String| Error::invalid(format!("{name}: {m}"));
    let tiff_err = |e| tiff_error(name, e);
    let (w, h) = d.dimensions().map_err(tiff_err)?;
    let bands = d.find_tag_unsigned::<u16>(Tag::SamplesPerPixel).map_err(tiff_err)?.unwrap_or(1);
    if bands != 1 {
        return Err(bad(format!("{bands} bands (samples per pixel); a raster input has exactly one")));
    }
    let bits = match d.colortype().map_err(tiff_err)? {
        ColorType::Gray(b) => b,
        other => return Err(bad(format!("colour type {other:?}; a raster input is one band of numbers"))),
    };
    let format = d.find_tag_unsigned::<u16>(Tag::SampleFormat).map_err(tiff_err)?.unwrap_or(1);
    let kind = match (format, bits) {
        (1, 8 | 16 | 32 | 64) => "unsigned integers",
        (2, 8 | 16 | 32 | 64) => "signed integers",
        (3, 32 | 64) => "floats",
        _ => {
            return Err(bad(format!(
                "unsupported sample type (SampleFormat {format}, {bits} bits); readable: 8 to 64-bit integers, 32 and 64-bit floats"
            )));
        }
    };

    if d.find_tag(Tag::ModelTransformationTag).map_err(tiff_err)?.is_some() {
        return Err(bad("georeferenced by ModelTransformationTag (34264), possibly rotated: only north-up rasters with ModelPixelScaleTag and ModelTiepointTag are read".into()));
    }
    let missing = || {
        bad("no georeferencing: a GeoTIFF input needs ModelPixelScaleTag (33550) and ModelTiepointTag (33922)".into())
    };
    let scale = d.find_tag(Tag::ModelPixelScaleTag).map_err(tiff_err)?.ok_or_else(missing)?;
    let scale = scale.into_f64_vec().map_err(tiff_err)?;
    let tie = d.find_tag(Tag::ModelTiepointTag).map_err(tiff_err)?.ok_or_else(missing)?;
    let tie = tie.into_f64_vec().map_err(tiff_err)?;
    if scale.len() < 2 || tie.len() < 6 {
        return Err(bad(format!(
            "ModelPixelScaleTag has {} values (3 expected), ModelTiepointTag {} (6 expected)",
            scale.len(),
            tie.len()
        )));
    }
    let (sx, sy) = (scale[0], scale[1]);
    if sy.is_nan() || sy <= 0.0 {
        return Err(bad(format!(
            "pixel scale in y {sy}: only north-up rasters (a positive scale, row 0 at the north) are read"
        )));
    }
    // The tiepoint maps raster position (i, j) — pixel corners, or pixel centres when the
    // raster type is PixelIsPoint — to model position (x, y).
    let (i, j, x, y) = (tie[0], tie[1], tie[3], tie[4]);
    let keys = geo_keys(d).map_err(tiff_err)?;
    let crs = Crs::of(&keys);
    if let Some(why) = crs.not_metres() {
        return Err(refuse_crs(name, &why));
    }
    let point = keys.contains(&(GT_RASTER_TYPE, PIXEL_IS_POINT));
    let shift = if point { 0.5 } else { 0.0 };
    let west = x - (i + shift) * sx;
    let north = y + (j + shift) * sy;
    let nodata = match d.find_tag(Tag::GdalNodata).map_err(tiff_err)? {
        Some(v) => {
            let text = v.into_string().map_err(tiff_err)?;
            let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
            Some(t.parse::<f64>().map_err(|_| bad(format!("GDAL_NODATA (42113) '{t}' is not a number")))?)
        }
        None => None,
    };
    let (ncols, nrows) = (w as usize, h as usize);
    let south = north - nrows as f64 * sy;
    let shape = Raster {
        name: name.to_string(),
        ncols,
        nrows,
        west,
        south,
        dx: sx,
        dy: sy,
        values: Vec::new(),
        valid: Vec::new(),
        epsg: crs.epsg(),
    };
    Ok((Header { shape, nodata }, bits, kind))
}

/// The GeoKeys of the GeoKeyDirectoryTag (34735) whose values are inline, as (id, value): a
/// header of four shorts, then four shorts a key (id, location, count, value), the value inline
/// when the location is 0. None without the tag.
fn geo_keys<R: std::io::Read + std::io::Seek>(d: &mut Decoder<R>) -> tiff::TiffResult<Vec<(u16, u16)>> {
    let Some(dir) = d.find_tag(Tag::GeoKeyDirectoryTag)? else { return Ok(Vec::new()) };
    let keys = dir.into_u16_vec()?;
    Ok(keys.get(4..).unwrap_or(&[]).chunks_exact(4).filter(|k| k[1] == 0).map(|k| (k[0], k[3])).collect())
}
