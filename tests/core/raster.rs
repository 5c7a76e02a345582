//! The readers and resampling: Esri ASCII grids written by hand here, GeoTIFFs written by the
//! `tiff` crate's encoder (not the reader's code path) and by examples/data's Python script;
//! georeferencing, orientation, nodata, resampling and every refused file.

use crate::common::raster::geotiff;
use hydrokern::input::{Raster, Resample};
use std::io::Cursor;
use tiff::encoder::{TiffEncoder, colortype};
use tiff::tags::Tag;

/// A float TIFF assembled tag by tag through the `tiff` crate's directory encoder, for what its
/// image encoder will not write: `bits`-bit float samples (`data` as 16-bit words) in one strip
/// of `w × h` whatever `data` holds, georeferenced when `geo`.
fn raw_tiff(w: u32, h: u32, bits: u16, data: &[u16], geo: bool) -> Vec<u8> {
    let mut buf = Cursor::new(Vec::new());
    {
        let mut enc = TiffEncoder::new(&mut buf).unwrap();
        let mut dir = enc.image_directory().unwrap();
        let at = dir.write_data(data).unwrap() as u32;
        let bytes = 2 * data.len() as u32;
        for (tag, v) in [
            (Tag::ImageWidth, w),
            (Tag::ImageLength, h),
            (Tag::RowsPerStrip, h),
            (Tag::StripOffsets, at),
            (Tag::StripByteCounts, bytes),
        ] {
            dir.write_tag(tag, v).unwrap();
        }
        for (tag, v) in [
            (Tag::BitsPerSample, bits),
            (Tag::PhotometricInterpretation, 1),
            (Tag::SamplesPerPixel, 1),
            (Tag::SampleFormat, 3),
        ] {
            dir.write_tag(tag, v).unwrap();
        }
        if geo {
            dir.write_tag(Tag::ModelPixelScaleTag, &[1.0, 1.0, 0.0][..]).unwrap();
            dir.write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0][..]).unwrap();
        }
        dir.finish().unwrap();
    }
    buf.into_inner()
}

/// The test field in the files' order (row r from the north, column i): 100 + i + 10·r.
fn field(w: usize, h: usize) -> Vec<f64> {
    (0..h).flat_map(|r| (0..w).map(move |i| 100.0 + i as f64 + 10.0 * r as f64)).collect()
}

/// The raster's value at file row r (from the north), column i: row 0 of `values` is south.
fn at(r: &Raster, row_from_north: usize, col: usize) -> f64 {
    r.values[(r.nrows - 1 - row_from_north) * r.ncols + col]
}

fn err(name: &str, bytes: &[u8]) -> String {
    match Raster::parse(name, bytes) {
        Ok(r) => panic!("{name}: read as a {}×{} raster; expected a refusal", r.ncols, r.nrows),
        Err(e) => e.to_string(),
    }
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} lacks {p:?}");
    }
    assert!(!msg.contains('\n'), "message {msg:?} is more than one line");
}

#[test]
fn asc_header_orientation_and_nodata() {
    let text =
        "NCOLS 3\nNROWS 2\nXLLCORNER 500.0\nYLLCORNER 1000.0\nCELLSIZE 10\nNODATA_VALUE -9999\n1 2 3\n4 -9999 6\n";
    let r = Raster::parse("a.asc", text.as_bytes()).unwrap();
    assert_eq!((r.ncols, r.nrows, r.west, r.south, r.dx, r.dy), (3, 2, 500.0, 1000.0, 10.0, 10.0));
    assert_eq!((r.east(), r.north()), (530.0, 1020.0));
    // The file's first row is the northern one: it becomes row 1 (row 0 is south).
    assert_eq!(r.values, vec![4.0, 0.0, 6.0, 1.0, 2.0, 3.0]);
    assert_eq!(r.valid, vec![true, false, true, true, true, true]);
    assert_eq!(r.centre(0, 0), (505.0, 1005.0));
}

#[test]
fn asc_centre_corner_and_separate_spacings() {
    // xllcenter/yllcenter name the centre of the lower-left cell; dx and dy as GDAL writes them.
    let text = "ncols 2\r\nnrows 2\r\nxllcenter 1.0\r\nyllcenter 2.0\r\ndx 2\r\ndy 4\r\n  5 6\r\n7 8\r\n";
    let r = Raster::parse("b.asc", text.as_bytes()).unwrap();
    assert_eq!((r.west, r.south, r.dx, r.dy), (0.0, 0.0, 2.0, 4.0));
    assert_eq!(r.values, vec![7.0, 8.0, 5.0, 6.0]);
    assert!(r.valid.iter().all(|&v| v));
}

#[test]
fn geotiff_strips_f32_georeferencing_orientation_nodata() {
    let (w, h) = (5usize, 7usize);
    let mut data: Vec<f32> = field(w, h).iter().map(|&v| v as f32).collect();
    data[2 * w + 3] = -9999.0;
    let bytes = geotiff::<colortype::Gray32Float>(
        w as u32,
        h as u32,
        &data,
        (2.0, 3.0),
        (1000.0, 5021.0),
        Some("-9999"),
        false,
    );
    let r = Raster::parse("f32.tif", &bytes).unwrap();
    assert_eq!((r.ncols, r.nrows, r.dx, r.dy), (5, 7, 2.0, 3.0));
    assert_eq!((r.west, r.north(), r.south), (1000.0, 5021.0, 5000.0));
    assert_eq!(at(&r, 0, 0), 100.0);
    assert_eq!(at(&r, 6, 4), 164.0);
    assert_eq!(r.values[0], 160.0, "row 0 of the raster is the file's last (southern) row");
    assert!(!r.valid[(h - 1 - 2) * w + 3]);
    assert_eq!(r.valid.iter().filter(|v| !**v).count(), 1);
}

#[test]
fn geotiff_f64_and_integer_sample_types() {
    let (w, h) = (4usize, 3usize);
    let f = field(w, h);
    let check = |name: &str, bytes: Vec<u8>| {
        let r = Raster::parse(name, &bytes).unwrap_or_else(|e| panic!("{e}"));
        for row in 0..h {
            for col in 0..w {
                assert_eq!(at(&r, row, col), f[row * w + col], "{name} row {row} column {col}");
            }
        }
        assert_eq!((r.west, r.south), (-50.0, -15.0), "{name}");
    };
    let (sc, tie, nd) = ((5.0, 5.0), (-50.0, 0.0), None);
    let v64: Vec<f64> = f.clone();
    check("f64.tif", geotiff::<colortype::Gray64Float>(4, 3, &v64, sc, tie, nd, false));
    let v8: Vec<u8> = f.iter().map(|&v| v as u8).collect();
    check("u8.tif", geotiff::<colortype::Gray8>(4, 3, &v8, sc, tie, nd, false));
    let v16: Vec<u16> = f.iter().map(|&v| v as u16).collect();
    check("u16.tif", geotiff::<colortype::Gray16>(4, 3, &v16, sc, tie, nd, false));
    let i16v: Vec<i16> = f.iter().map(|&v| v as i16).collect();
    check("i16.tif", geotiff::<colortype::GrayI16>(4, 3, &i16v, sc, tie, nd, false));
    let i32v: Vec<i32> = f.iter().map(|&v| v as i32).collect();
    check("i32.tif", geotiff::<colortype::GrayI32>(4, 3, &i32v, sc, tie, nd, false));
}

#[test]
fn geotiff_pixel_is_point_shifts_half_a_cell() {
    let data = vec![1.0f32; 4];
    let bytes = geotiff::<colortype::Gray32Float>(2, 2, &data, (10.0, 10.0), (100.0, 200.0), None, true);
    let r = Raster::parse("point.tif", &bytes).unwrap();
    // The tiepoint names the centre of the north-west pixel.
    assert_eq!((r.west, r.north()), (95.0, 205.0));
    assert_eq!(r.centre(0, 1), (100.0, 200.0));
}

/// A tiled GeoTIFF written through the `tiff` crate's directory encoder: 16 × 16 tiles over a
/// 20 × 18 image (the edge tiles padded), f32, with its georeferencing tags.
#[test]
fn geotiff_tiles() {
    let (w, h, t) = (20usize, 18usize, 16usize);
    let f = field(w, h);
    let mut buf = Cursor::new(Vec::new());
    {
        let mut enc = TiffEncoder::new(&mut buf).unwrap();
        let mut dir = enc.image_directory().unwrap();
        let (mut offsets, mut counts) = (Vec::new(), Vec::new());
        for ty in 0..h.div_ceil(t) {
            for tx in 0..w.div_ceil(t) {
                let mut tile = vec![0.0f32; t * t];
                for r in 0..t {
                    for c in 0..t {
                        let (row, col) = (ty * t + r, tx * t + c);
                        if row < h && col < w {
                            tile[r * t + c] = f[row * w + col] as f32;
                        }
                    }
                }
                offsets.push(dir.write_data(&tile[..]).unwrap() as u32);
                counts.push((t * t * 4) as u32);
            }
        }
        dir.write_tag(Tag::ImageWidth, w as u32).unwrap();
        dir.write_tag(Tag::ImageLength, h as u32).unwrap();
        dir.write_tag(Tag::BitsPerSample, 32u16).unwrap();
        dir.write_tag(Tag::Compression, 1u16).unwrap();
        dir.write_tag(Tag::PhotometricInterpretation, 1u16).unwrap();
        dir.write_tag(Tag::SamplesPerPixel, 1u16).unwrap();
        dir.write_tag(Tag::SampleFormat, 3u16).unwrap();
        dir.write_tag(Tag::TileWidth, t as u32).unwrap();
        dir.write_tag(Tag::TileLength, t as u32).unwrap();
        dir.write_tag(Tag::TileOffsets, &offsets[..]).unwrap();
        dir.write_tag(Tag::TileByteCounts, &counts[..]).unwrap();
        dir.write_tag(Tag::ModelPixelScaleTag, &[1.0, 1.0, 0.0][..]).unwrap();
        dir.write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, 0.0, 18.0, 0.0][..]).unwrap();
        dir.finish().unwrap();
    }
    let r = Raster::parse("tiled.tif", buf.get_ref()).unwrap();
    assert_eq!((r.ncols, r.nrows, r.west, r.south), (20, 18, 0.0, 0.0));
    for row in 0..h {
        for col in 0..w {
            assert_eq!(at(&r, row, col), f[row * w + col], "row {row} column {col}");
        }
    }
}

/// examples/data: the valley's GeoTIFF (written by make-valley.py's own TIFF writer) and its
/// ASCII grid hold the same raster.
#[test]
fn valley_geotiff_and_asc_agree() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let tif = Raster::read(&dir.join("valley.tif")).unwrap();
    let asc = Raster::read(&dir.join("valley.asc")).unwrap();
    assert_eq!((tif.ncols, tif.nrows, tif.west, tif.south, tif.dx, tif.dy), (100, 50, 10000.0, 20000.0, 20.0, 20.0));
    assert_eq!(tif.values, asc.values);
    assert_eq!(tif.valid, asc.valid);
    assert!(tif.valid.iter().all(|&v| v));
    // The valley falls to the east and rises to its sides.
    let (lo, hi) = tif.values.iter().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    assert!((95.0..101.0).contains(&lo) && hi > 150.0, "elevations {lo}..{hi}");
}

#[test]
fn bilinear_reproduces_a_linear_field_and_nearest_picks_the_cell() {
    let (w, h) = (6usize, 5usize);
    let lin = |x: f64, y: f64| 3.0 + 0.25 * x - 0.5 * y;
    let mut text = format!("ncols {w}\nnrows {h}\nxllcorner 10\nyllcorner 20\ncellsize 2\n");
    for r in 0..h {
        let y = 20.0 + (h - 1 - r) as f64 * 2.0 + 1.0;
        text += &(0..w).map(|i| format!("{}", lin(10.0 + i as f64 * 2.0 + 1.0, y))).collect::<Vec<_>>().join(" ");
        text += "\n";
    }
    let r = Raster::parse("lin.asc", text.as_bytes()).unwrap();
    // Anywhere between the outer cell centres (x ∈ [11, 21], y ∈ [21, 29]).
    for k in 0..=40 {
        for m in 0..=32 {
            let (x, y) = (11.0 + k as f64 * 0.25, 21.0 + m as f64 * 0.25);
            let v = r.sample(x, y, Resample::Bilinear).unwrap();
            assert!((v - lin(x, y)).abs() < 1e-12, "bilinear at ({x}, {y}): {v} vs {}", lin(x, y));
        }
    }
    // Nearest: the value of the cell the point lies in.
    assert_eq!(r.sample(10.1, 29.9, Resample::Nearest).unwrap(), lin(11.0, 29.0));
    assert_eq!(r.sample(13.9, 20.0, Resample::Nearest).unwrap(), lin(13.0, 21.0));
    // Within the outer half cell the edge value is held: the corner of the raster.
    assert_eq!(r.sample(10.0, 20.0, Resample::Bilinear).unwrap(), lin(11.0, 21.0));
    // The bed continues the slope there instead: the plane to the raster's edges and corners.
    for k in 0..=48 {
        for m in 0..=40 {
            let (x, y) = (10.0 + k as f64 * 0.25, 20.0 + m as f64 * 0.25);
            let v = r.sample_bed(x, y, Resample::Bilinear).unwrap().unwrap();
            assert!((v - lin(x, y)).abs() < 1e-12, "the bed at ({x}, {y}): {v} vs {}", lin(x, y));
            let inside = (11.0..=21.0).contains(&x) && (21.0..=29.0).contains(&y);
            if inside {
                assert_eq!(v, r.sample(x, y, Resample::Bilinear).unwrap(), "({x}, {y}) between the centres");
            }
        }
    }
    assert_eq!(r.sample_bed(10.1, 29.9, Resample::Nearest).unwrap(), Some(lin(11.0, 29.0)));
    // Outside: refused with the extent.
    let e = r.sample(9.0, 25.0, Resample::Bilinear).unwrap_err();
    assert_has(&e, &["lies outside lin.asc", "x ∈ [10, 22] m"]);
}

#[test]
fn nodata_is_refused_only_where_a_value_is_needed() {
    let text = "ncols 3\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nnodata_value -1\n5 7 -1\n";
    let r = Raster::parse("nd.asc", text.as_bytes()).unwrap();
    // Between the first two centres, the nodata cell has no weight.
    assert_eq!(r.sample(1.0, 0.5, Resample::Bilinear).unwrap(), 6.0);
    assert_eq!(r.sample(1.5, 0.5, Resample::Bilinear).unwrap(), 7.0);
    let e = r.sample(2.0, 0.5, Resample::Bilinear).unwrap_err();
    assert_has(&e, &["nd.asc", "row 0 from the north, column 2", "nodata"]);
    assert!(r.sample(2.5, 0.5, Resample::Nearest).is_err());
    // The bed leaves the nodata cell out: continued from the first two cells at the west edge,
    // held at the second's value beside the nodata cell, none inside the nodata cell's half.
    assert_eq!(r.sample_bed(0.0, 0.5, Resample::Bilinear).unwrap(), Some(4.0));
    assert_eq!(r.sample_bed(2.0, 0.5, Resample::Bilinear).unwrap(), Some(7.0));
    assert_eq!(r.sample_bed(3.0, 0.5, Resample::Bilinear).unwrap(), None);
}

#[test]
fn refuses_missing_truncated_and_malformed_files() {
    let dir = std::env::temp_dir().join(format!("hydrokern-raster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = Raster::read(&dir.join("nope.asc")).unwrap_err().to_string();
    assert_has(&missing, &["nope.asc", "No such file"]);
    let _ = std::fs::remove_dir_all(&dir);

    let head = "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";
    assert_has(&err("t.asc", format!("{head}1 2 3\n4 5\n").as_bytes()), &["t.asc", "truncated: 5 values", "3 × 2 = 6"]);
    assert_has(&err("x.asc", format!("{head}1 2 3\n4 5 6 7\n").as_bytes()), &["x.asc", "more values", "'7'"]);
    assert_has(&err("n.asc", format!("{head}1 2 3\n4 five 6\n").as_bytes()), &["n.asc", "row 1, column 1", "'five'"]);
    assert_has(&err("h.asc", b"ncols 3\nnrows 2\nxllcorner 0\ncellsize 1\n1 2 3\n4 5 6\n"), &["h.asc", "yllcorner"]);
    assert_has(
        &err("k.asc", format!("{head}bogus 3\n1 2 3\n4 5 6\n").as_bytes()),
        &["k.asc", "unknown header key `bogus`"],
    );
    assert_has(
        &err("c.asc", b"ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -1\n1 2 3\n4 5 6\n"),
        &["c.asc", "cell size", "positive"],
    );
    assert_has(&err("e.asc", b""), &["e.asc", "empty"]);
    assert_has(&err("p.png", b"\x89PNG\r\n\x1a\n...."), &["p.png", "neither an Esri ASCII grid"]);

    // A GeoTIFF cut short: inside its image data, and inside its header.
    let data = vec![1.0f32; 64 * 64];
    let tif = geotiff::<colortype::Gray32Float>(64, 64, &data, (1.0, 1.0), (0.0, 64.0), None, false);
    assert_has(&err("cut.tif", &tif[..tif.len() / 2]), &["cut.tif", "truncated"]);
    assert_has(&err("cut8.tif", &tif[..6]), &["cut8.tif"]);
}

#[test]
fn refuses_unsupported_bands_types_and_georeferencing() {
    // Three bands (RGB).
    let mut buf = Cursor::new(Vec::new());
    TiffEncoder::new(&mut buf).unwrap().write_image::<colortype::RGB8>(2, 2, &[0u8; 12]).unwrap();
    assert_has(&err("rgb.tif", buf.get_ref()), &["rgb.tif", "3 bands", "exactly one"]);
    // 16-bit floats: an unsupported sample type.
    let f16 = raw_tiff(2, 2, 16, &[0u16; 4], false);
    assert_has(&err("f16.tif", &f16), &["f16.tif", "unsupported sample type", "16 bits"]);
    // No georeferencing.
    let mut buf = Cursor::new(Vec::new());
    TiffEncoder::new(&mut buf).unwrap().write_image::<colortype::Gray32Float>(2, 2, &[0.0f32; 4]).unwrap();
    assert_has(&err("plain.tif", buf.get_ref()), &["plain.tif", "no georeferencing", "33550"]);
    // South-up (a negative y scale).
    let tif = geotiff::<colortype::Gray32Float>(2, 2, &[0.0; 4], (1.0, -1.0), (0.0, 0.0), None, false);
    assert_has(&err("south.tif", &tif), &["south.tif", "north-up"]);
}

#[test]
fn refuses_nodata_everywhere_nan_and_sizes_that_do_not_fit() {
    let all = "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nnodata_value -9999\n-9999 -9999\n";
    assert_has(&err("all.asc", all.as_bytes()), &["all.asc", "every one of the 2×1 cells is nodata"]);
    let tif = geotiff::<colortype::Gray32Float>(2, 1, &[-32768.0; 2], (1.0, 1.0), (0.0, 1.0), Some("-32768"), false);
    assert_has(&err("all.tif", &tif), &["all.tif", "every one", "nodata"]);

    let nan = "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nnodata_value -9999\n1 nan\n";
    assert_has(&err("nan.asc", nan.as_bytes()), &["nan.asc", "NaN at row 0, column 1", "finite"]);
    let tif = geotiff::<colortype::Gray32Float>(2, 2, &[1.0, 2.0, f32::NAN, 4.0], (1.0, 1.0), (0.0, 2.0), None, false);
    assert_has(&err("nan.tif", &tif), &["nan.tif", "NaN at row 1, column 0", "declares none"]);
    // A NaN nodata value (GDAL writes "nan") makes NaN cells nodata.
    let tif =
        geotiff::<colortype::Gray32Float>(2, 2, &[1.0, 2.0, f32::NAN, 4.0], (1.0, 1.0), (0.0, 2.0), Some("nan"), false);
    let r = Raster::parse("nan-nodata.tif", &tif).unwrap();
    assert_eq!(r.valid, vec![false, true, true, true]);

    // Headers promising more cells than memory holds are refused before allocating.
    let big = "ncols 2000000\nnrows 2000000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n";
    assert_has(&err("big.asc", big.as_bytes()), &["big.asc", "2000000×2000000 raster needs", "of host memory"]);
    // A header of 10⁶ × 10⁶ float32 samples over a few bytes of data.
    let big = raw_tiff(1_000_000, 1_000_000, 32, &[0u16; 8], true);
    assert_has(&err("big.tif", &big), &["big.tif", "1000000×1000000 raster needs", "of host memory"]);
}

/// An ASCII grid saved with a UTF-8 byte-order mark (as some editors write it) is read: the
/// mark is skipped.
#[test]
fn asc_with_a_byte_order_mark() {
    let text = "\u{feff}ncols 2\r\nnrows 1\r\nxllcorner 0\r\nyllcorner 0\r\ncellsize 5\r\n1 2\r\n";
    let r = Raster::parse("bom.asc", text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((r.ncols, r.nrows, r.dx), (2, 1, 5.0));
    assert_eq!(r.values, vec![1.0, 2.0]);
}

/// GeoKeys that put positions in degrees (GTModelTypeGeoKey 2, or GeographicTypeGeoKey without
/// a projected system) are refused in one line naming the EPSG code; a projected system is read.
#[test]
fn geotiff_in_a_geographic_crs_is_refused() {
    let tif = |keys: &[u16]| {
        let mut buf = Cursor::new(Vec::new());
        {
            let mut enc = TiffEncoder::new(&mut buf).unwrap();
            let mut img = enc.new_image::<colortype::Gray32Float>(2, 2).unwrap();
            img.encoder().write_tag(Tag::ModelPixelScaleTag, &[0.0001, 0.0001, 0.0][..]).unwrap();
            img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, 8.5, 47.4, 0.0][..]).unwrap();
            img.encoder().write_tag(Tag::GeoKeyDirectoryTag, keys).unwrap();
            img.write_data(&[1.0f32; 4]).unwrap();
        }
        buf.into_inner()
    };
    let wgs84 = tif(&[1, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 4326]);
    assert_has(&err("wgs84.tif", &wgs84), &["wgs84.tif", "geographic", "EPSG:4326", "reproject", "UTM"]);
    let geocentric = tif(&[1, 1, 0, 1, 1024, 0, 1, 3]);
    assert_has(&err("ecef.tif", &geocentric), &["ecef.tif", "geocentric", "reproject"]);
    let utm = tif(&[1, 1, 0, 2, 1024, 0, 1, 1, 3072, 0, 1, 32632]);
    Raster::parse("utm.tif", &utm).unwrap_or_else(|e| panic!("{e}"));
}

/// The raster's size, extent, cell size and coordinate system: what a grid over it takes.
fn shape_of(r: &Raster) -> (usize, usize, f64, f64, f64, f64, Option<u16>) {
    (r.ncols, r.nrows, r.west, r.south, r.dx, r.dy, r.epsg)
}

/// A raster's header alone (`Raster::parse_shape`, `read_shape`) gives the shape the whole file
/// gives, without a value; it needs nothing past the header, refuses what the whole read
/// refuses in the header, and reads the header of a file from disk (a GeoTIFF, an ASCII grid
/// and its `.prj`, a byte-order mark) without reading its values.
#[test]
fn a_rasters_header_alone_gives_its_shape() {
    let f: Vec<f32> = field(5, 7).iter().map(|&v| v as f32).collect();
    let f64s: Vec<f64> = field(4, 3);
    let utm = {
        let mut buf = Cursor::new(Vec::new());
        {
            let mut enc = TiffEncoder::new(&mut buf).unwrap();
            let mut img = enc.new_image::<colortype::Gray32Float>(2, 2).unwrap();
            img.encoder().write_tag(Tag::ModelPixelScaleTag, &[2.0, 3.0, 0.0][..]).unwrap();
            img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, 500.0, 900.0, 0.0][..]).unwrap();
            img.encoder()
                .write_tag(Tag::GeoKeyDirectoryTag, &[1u16, 1, 0, 2, 1024, 0, 1, 1, 3072, 0, 1, 32632][..])
                .unwrap();
            img.write_data(&[1.0f32; 4]).unwrap();
        }
        buf.into_inner()
    };
    let files: Vec<(&str, Vec<u8>)> = vec![
        (
            "a.asc",
            b"NCOLS 3\nNROWS 2\nXLLCORNER 500.0\nYLLCORNER 1000.0\nCELLSIZE 10\nNODATA_VALUE -9999\n1 2 3\n4 -9999 6\n"
                .to_vec(),
        ),
        ("b.asc", b"ncols 2\r\nnrows 2\r\nxllcenter 1.0\r\nyllcenter 2.0\r\ndx 2\r\ndy 4\r\n  5 6\r\n7 8\r\n".to_vec()),
        ("bom.asc", "\u{feff}ncols 2\r\nnrows 1\r\nxllcorner 0\r\nyllcorner 0\r\ncellsize 5\r\n1 2\r\n".into()),
        ("f32.tif", geotiff::<colortype::Gray32Float>(5, 7, &f, (2.0, 3.0), (1000.0, 5021.0), Some("-9999"), false)),
        ("f64.tif", geotiff::<colortype::Gray64Float>(4, 3, &f64s, (0.5, 0.25), (10.0, 20.0), None, false)),
        ("point.tif", geotiff::<colortype::Gray32Float>(2, 2, &[1.0; 4], (10.0, 10.0), (100.0, 200.0), None, true)),
        ("utm.tif", utm),
    ];
    for (name, bytes) in &files {
        let whole = Raster::parse(name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let head = Raster::parse_shape(name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(shape_of(&head), shape_of(&whole), "{name}");
        assert!(head.values.is_empty() && head.valid.is_empty(), "{name}: values read");
    }
    // An ASCII grid whose values are cut short, or which promises more cells than memory
    // holds: its header is whole.
    let cut = "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5\n";
    assert!(Raster::parse("cut.asc", cut.as_bytes()).is_err());
    assert_eq!(shape_of(&Raster::parse_shape("cut.asc", cut.as_bytes()).unwrap()), (3, 2, 0.0, 0.0, 1.0, 1.0, None));
    let big = "ncols 2000000\nnrows 2000000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n";
    assert_eq!(shape_of(&Raster::parse_shape("big.asc", big.as_bytes()).unwrap()).0, 2_000_000);
    // Refused in the header: the same line as the whole read's.
    let wgs84 = {
        let mut buf = Cursor::new(Vec::new());
        TiffEncoder::new(&mut buf).unwrap().write_image::<colortype::Gray32Float>(2, 2, &[0.0f32; 4]).unwrap();
        buf.into_inner()
    };
    for (name, bytes) in [
        ("plain.tif", wgs84),
        ("c.asc", b"ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -1\n1 2 3\n4 5 6\n".to_vec()),
        ("k.asc", b"ncols 3\nnrows 2\nbogus 1\n1 2 3\n".to_vec()),
        ("p.png", b"\x89PNG\r\n\x1a\n....".to_vec()),
    ] {
        let (e, head) = (err(name, &bytes), Raster::parse_shape(name, &bytes).unwrap_err().to_string());
        assert_eq!(head, e, "{name}");
    }
    // From disk: the valley's GeoTIFF and ASCII grid, and an ASCII grid beside a `.prj` of a
    // projected system.
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    for file in ["valley.tif", "valley.asc"] {
        let (whole, head) = (Raster::read(&data.join(file)).unwrap(), Raster::read_shape(&data.join(file)).unwrap());
        assert_eq!(shape_of(&head), shape_of(&whole), "{file}");
        assert!(head.values.is_empty(), "{file}: values read");
    }
    let dir = std::env::temp_dir().join(format!("hydrokern-raster-shape-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let asc = dir.join("dem.asc");
    std::fs::write(&asc, &files[0].1).unwrap();
    let utm33 = r#"PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],UNIT["metre",1],AUTHORITY["EPSG","32633"]]"#;
    std::fs::write(dir.join("dem.prj"), utm33).unwrap();
    let (whole, head) = (Raster::read(&asc).unwrap(), Raster::read_shape(&asc).unwrap());
    assert_eq!(shape_of(&head), shape_of(&whole));
    assert_eq!(head.epsg, Some(32633));
    let missing = Raster::read_shape(&dir.join("nope.asc")).unwrap_err().to_string();
    assert_has(&missing, &["nope.asc", "No such file"]);
    let _ = std::fs::remove_dir_all(&dir);
}
