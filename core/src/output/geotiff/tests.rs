//! The GeoTIFF writer against the project's own reader (values, georeferencing, EPSG code
//! read back identical) and against the `tiff` crate's decoder reading the tags themselves.

use super::*;
use crate::input::Raster;
use tiff::decoder::{Decoder, DecodingResult};
use tiff::tags::Tag;

/// A map whose every value differs, with NaN holes, rows south first.
fn map(nx: usize, ny: usize) -> Vec<f32> {
    (0..nx * ny).map(|k| if k % 7 == 3 { f32::NAN } else { k as f32 * 0.25 - 3.0 }).collect()
}

fn same(a: f64, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a == f64::from(b)
}

#[test]
fn reads_back_with_the_raster_reader() {
    let dir = crate::output::test_dir("geotiff-read-back");
    // Sizes across one strip and several (a strip holds 64 KiB of rows).
    for (nx, ny, epsg) in [(1, 1, Some(32633)), (5, 3, None), (3000, 23, Some(32760)), (7, 2, Some(2056))] {
        let geo = GeoRef { west: 412_345.5, north: 5_300_020.25, dx: 2.5, dy: 1.25, epsg };
        let data = map(nx, ny);
        let path = dir.join(format!("m{nx}x{ny}.tif"));
        write_geotiff(&path, &data, nx, ny, &geo).unwrap();
        let r = Raster::read(&path).unwrap();
        assert_eq!((r.ncols, r.nrows), (nx, ny));
        assert_eq!((r.west, r.north(), r.dx, r.dy), (geo.west, geo.north, geo.dx, geo.dy));
        assert_eq!(r.south, geo.north - ny as f64 * geo.dy);
        assert_eq!(r.epsg, epsg);
        // NaN is the file's nodata: the reader marks those cells invalid, with 0 as value.
        for (k, &v) in data.iter().enumerate() {
            assert_eq!(r.valid[k], !v.is_nan(), "cell {k}");
            if !v.is_nan() {
                assert_eq!(r.values[k], f64::from(v), "cell {k}");
            }
        }
    }
}

#[test]
fn tags_read_by_the_tiff_crate() {
    let dir = crate::output::test_dir("geotiff-tags");
    let (nx, ny) = (4, 3);
    let geo = GeoRef { west: 100.0, north: 260.0, dx: 10.0, dy: 20.0, epsg: Some(32632) };
    let data: Vec<f64> = (0..nx * ny).map(|k| if k == 5 { f64::NAN } else { k as f64 + 0.5 }).collect();
    let path = dir.join("tags.tif");
    write_geotiff(&path, &data, nx, ny, &geo).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..4], b"II*\0");
    let mut d = Decoder::new(std::io::Cursor::new(bytes)).unwrap();
    assert_eq!(d.dimensions().unwrap(), (nx as u32, ny as u32));
    assert_eq!(d.find_tag_unsigned::<u16>(Tag::SampleFormat).unwrap(), Some(3));
    assert_eq!(d.find_tag_unsigned::<u16>(Tag::BitsPerSample).unwrap(), Some(32));
    let scale = d.find_tag(Tag::ModelPixelScaleTag).unwrap().unwrap().into_f64_vec().unwrap();
    assert_eq!(scale, vec![10.0, 20.0, 0.0]);
    let tie = d.find_tag(Tag::ModelTiepointTag).unwrap().unwrap().into_f64_vec().unwrap();
    assert_eq!(tie, vec![0.0, 0.0, 0.0, 100.0, 260.0, 0.0]);
    let keys = d.find_tag(Tag::GeoKeyDirectoryTag).unwrap().unwrap().into_u16_vec().unwrap();
    // Projected model, PixelIsArea, EPSG:32632, metres.
    assert_eq!(keys, vec![1, 1, 0, 4, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32632, 3076, 0, 1, 9001]);
    let nodata = d.find_tag(Tag::GdalNodata).unwrap().unwrap().into_string().unwrap();
    assert_eq!(nodata.trim_end_matches('\0'), "nan");
    let DecodingResult::F32(v) = d.read_image().unwrap() else { panic!("not f32") };
    // The file's first row is the northern one: the map's last.
    for (k, &x) in v.iter().enumerate() {
        let (row, col) = (k / nx, k % nx);
        assert!(same(data[(ny - 1 - row) * nx + col], x), "file row {row}, column {col}");
    }
}

#[test]
fn no_code_leaves_the_system_unnamed() {
    assert_eq!(geo_keys(None), vec![1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3076, 0, 1, 9001]);
}

#[test]
fn refuses_a_mismatch_and_leaves_nothing() {
    let dir = crate::output::test_dir("geotiff-refuse");
    let geo = GeoRef { west: 0.0, north: 1.0, dx: 1.0, dy: 1.0, epsg: None };
    let path = dir.join("bad.tif");
    let e = write_geotiff(&path, &[1.0f32; 5], 2, 3, &geo).unwrap_err().to_string();
    assert!(e.contains("5 values for a 2×3 map"), "{e}");
    assert!(std::fs::read_dir(&dir).unwrap().next().is_none(), "a file was left");
}
