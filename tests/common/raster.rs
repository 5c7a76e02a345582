//! Rasters the tests write: GeoTIFFs through the `tiff` crate's encoder (not the reader's code
//! path).

use std::io::Cursor;
use tiff::encoder::{TiffEncoder, TiffValue, colortype};
use tiff::tags::Tag;

/// A GeoTIFF of one band in strips of two rows: pixel scale (sx, sy), tiepoint (0, 0) → (x, y),
/// GDAL_NODATA when given, PixelIsPoint when `point`.
pub fn geotiff<C: colortype::ColorType>(
    w: u32,
    h: u32,
    data: &[C::Inner],
    scale: (f64, f64),
    tie: (f64, f64),
    nodata: Option<&str>,
    point: bool,
) -> Vec<u8>
where
    [C::Inner]: TiffValue,
{
    let mut buf = Cursor::new(Vec::new());
    {
        let mut enc = TiffEncoder::new(&mut buf).unwrap();
        let mut img = enc.new_image::<C>(w, h).unwrap();
        img.rows_per_strip(2).unwrap();
        img.encoder().write_tag(Tag::ModelPixelScaleTag, &[scale.0, scale.1, 0.0][..]).unwrap();
        img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, tie.0, tie.1, 0.0][..]).unwrap();
        if let Some(nd) = nodata {
            img.encoder().write_tag(Tag::GdalNodata, nd).unwrap();
        }
        let raster_type: u16 = if point { 2 } else { 1 };
        img.encoder().write_tag(Tag::GeoKeyDirectoryTag, &[1u16, 1, 0, 1, 1025, 0, 1, raster_type][..]).unwrap();
        img.write_data(data).unwrap();
    }
    buf.into_inner()
}

/// An Esri ASCII grid of `ncols × nrows` cells of `cell` m from (`west`, `south`) whose cell
/// (i, j) (row j from the south) holds `f(i, j)`, written north row first.
pub fn ascii_grid(
    ncols: usize,
    nrows: usize,
    (west, south): (f64, f64),
    cell: f64,
    f: impl Fn(usize, usize) -> String,
) -> String {
    let mut text = format!(
        "ncols {ncols}\nnrows {nrows}\nxllcorner {west}\nyllcorner {south}\ncellsize {cell}\nNODATA_value -9999\n"
    );
    for j in (0..nrows).rev() {
        text += &(0..ncols).map(|i| f(i, j)).collect::<Vec<_>>().join(" ");
        text += "\n";
    }
    text
}
