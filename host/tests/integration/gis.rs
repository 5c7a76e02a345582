//! GIS outputs of a shallow-water case on rasters: the maps and snapshots as GeoTIFFs in the
//! rasters' coordinate system, NetCDF files with the `crs` grid mapping, the bed and the surface;
//! and a case whose rasters are in different systems refused in one line, nothing written.

use crate::cmd::*;
use hydrokern::input::Raster;
use hydrokern::output::netcdf::Dataset;
use hydrokern::output::{GeoRef, read_npy_f64, write_geotiff};
use std::path::Path;

/// A bed sloping down to the east and a reservoir in the western third, as GeoTIFFs in
/// EPSG:`epsg`, 16 × 6 cells of 10 m from (500 000, 4 200 000) (UTM-like coordinates); and
/// the case file running them for 2 s with every map and `formats`.
fn valley(dir: &Path, epsg: u16, formats: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let (nx, ny) = (16, 6);
    let geo = GeoRef { west: 500_000.0, north: 4_200_060.0, dx: 10.0, dy: 10.0, epsg: Some(epsg) };
    let bed: Vec<f64> = (0..nx * ny).map(|k| 2.0 - 0.1 * (k % nx) as f64).collect();
    let surface: Vec<f64> = (0..nx * ny).map(|k| if k % nx < 5 { 3.0 } else { 0.0 }).collect();
    write_geotiff(&dir.join("bed.tif"), &bed, nx, ny, &geo).unwrap();
    write_geotiff(&dir.join("surface.tif"), &surface, nx, ny, &GeoRef { epsg: Some(32633), ..geo }).unwrap();
    let case = format!(
        "solver = \"kp\"\n[time]\nt_end = 2.0\n\n[initial.raster]\nbed = \"bed.tif\"\nsurface = \"surface.tif\"\n\n\
         [output]\nsnapshots = [1.0]\nformats = {formats}\nmaxima = true\nprogress = 1e9\n"
    );
    let path = dir.join("valley.toml");
    std::fs::write(&path, case).unwrap();
    path
}

#[test]
fn geotiff_and_netcdf_outputs_carry_the_rasters_crs() {
    let dir = scratch("gis-outputs");
    let case = valley(&dir, 32633, "[\"npy\", \"geotiff\", \"netcdf\"]");
    let out = dir.join("out");
    let o = hydrokern(&["--backend", "cpu", "run", s(&case), "--output", s(&out)]);
    assert!(o.status.success(), "{}\n{}", stderr(&o), stdout(&o));
    // Every map as a GeoTIFF equal to its NPY file (rounded to f32), NaN where the map has no
    // value, in the bed raster's place and system.
    for map in ["max_h", "max_speed", "max_hazard", "max_h_time", "arrival", "duration"] {
        let r = Raster::read(&out.join(format!("{map}.tif"))).unwrap();
        assert_eq!(r.epsg, Some(32633), "{map}");
        assert_eq!((r.west, r.south, r.dx, r.dy, r.ncols, r.nrows), (500_000.0, 4_200_000.0, 10.0, 10.0, 16, 6));
        let (npy, _) = read_npy_f64(&out.join(format!("{map}.npy"))).unwrap();
        for (k, v) in npy.iter().enumerate() {
            assert_eq!(r.valid[k], !v.is_nan(), "{map} at {k}");
            if !v.is_nan() {
                assert_eq!(r.values[k], f64::from(*v as f32), "{map} at {k}");
            }
        }
    }
    // Water reached the dry east after the start; the reservoir has no arrival; the hazard is
    // the depth times the speed's maximum or less.
    let arrival = read_npy_f64(&out.join("arrival.npy")).unwrap().0;
    assert!(arrival[0].is_nan() && arrival.iter().any(|a| *a > 0.0), "{arrival:?}");
    let duration = read_npy_f64(&out.join("duration.npy")).unwrap().0;
    assert_eq!(duration[0], 2.0, "the reservoir is flooded the whole run");
    for f in ["bed.tif", "h_t1.tif", "h_t2.tif", "surface_t1.tif", "surface_t2.tif"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let h = read_npy_f64(&out.join("h_t2.npy")).unwrap().0;
    // The NetCDF files name the system: a transverse Mercator grid mapping with the WKT.
    let mut nc = Dataset::open(&out.join("valley.nc")).unwrap();
    let crs = nc.var("crs").unwrap().clone();
    assert_eq!(crs.text("epsg_code"), Some("EPSG:32633"));
    assert_eq!(crs.text("grid_mapping_name"), Some("transverse_mercator"));
    assert!(crs.text("crs_wkt").unwrap().contains("UTM zone 33N"), "{:?}", crs.text("crs_wkt"));
    for v in ["h", "hu", "hv", "surface", "bed"] {
        assert_eq!(nc.var(v).unwrap().text("grid_mapping"), Some("crs"), "{v}");
    }
    // The bed once, the surface h + bed at every record (f64: exactly).
    let nc_bed = nc.read("bed", None).unwrap().to_f64();
    let (w, depth) = (nc.read("surface", Some(1)).unwrap().to_f64(), nc.read("h", Some(1)).unwrap().to_f64());
    assert_eq!(depth, h);
    for k in 0..h.len() {
        assert_eq!(w[k], h[k] + nc_bed[k], "surface at {k}");
    }
    // The GeoTIFFs hold the same bed and surface, rounded to f32.
    let (bed, surface) =
        (Raster::read(&out.join("bed.tif")).unwrap(), Raster::read(&out.join("surface_t2.tif")).unwrap());
    for k in 0..h.len() {
        assert_eq!(bed.values[k], f64::from(nc_bed[k] as f32), "bed at {k}");
        assert_eq!(surface.values[k], f64::from(w[k] as f32), "surface at {k}");
    }
    let maxima = Dataset::open(&out.join("valley_maxima.nc")).unwrap();
    assert_eq!(maxima.var("duration").unwrap().text("grid_mapping"), Some("crs"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Cells outside the domain (nodata in the bed raster) are no data in every GIS output: NaN
/// (the GeoTIFFs' nodata) in the snapshots', bed's and maps' GeoTIFFs, the fill value in the
/// NetCDF fields, bed and maps; the NPY files hold what the model holds there (no water).
#[test]
fn cells_outside_the_domain_are_no_data_in_the_gis_outputs() {
    let dir = scratch("gis-outside");
    let case = valley(&dir, 32633, "[\"npy\", \"geotiff\", \"netcdf\"]");
    // The north-east corner, 4 × 2 cells, off the DEM (row 0 south).
    let (nx, ny) = (16, 6);
    let outside = |k: usize| k % nx >= 12 && k / nx >= 4;
    let geo = GeoRef { west: 500_000.0, north: 4_200_060.0, dx: 10.0, dy: 10.0, epsg: Some(32633) };
    let bed: Vec<f64> = (0..nx * ny).map(|k| if outside(k) { f64::NAN } else { 2.0 - 0.1 * (k % nx) as f64 }).collect();
    write_geotiff(&dir.join("bed.tif"), &bed, nx, ny, &geo).unwrap();
    let out = dir.join("out");
    let o = hydrokern(&["--backend", "cpu", "run", s(&case), "--output", s(&out)]);
    assert!(o.status.success(), "{}\n{}", stderr(&o), stdout(&o));
    let h = read_npy_f64(&out.join("h_t2.npy")).unwrap().0;
    assert!((0..h.len()).filter(|&k| outside(k)).all(|k| h[k] == 0.0), "{h:?}");
    let maps = ["max_h", "max_speed", "max_hazard", "max_h_time", "arrival", "duration"];
    for f in maps
        .iter()
        .map(|m| format!("{m}.tif"))
        .chain(["h_t2.tif", "hu_t1.tif", "surface_t2.tif", "bed.tif"].map(String::from))
    {
        let r = Raster::read(&out.join(&f)).unwrap();
        for k in 0..nx * ny {
            assert!(!outside(k) || !r.valid[k], "{f}: cell {k} outside the domain has data");
        }
        assert!(r.valid.iter().filter(|v| **v).count() > 0, "{f}: no data at all");
    }
    for (file, vars, record) in [
        ("valley.nc", &["h", "hu", "hv", "surface"][..], Some(1)),
        ("valley.nc", &["bed"], None),
        ("valley_maxima.nc", &maps[..], None),
    ] {
        let mut nc = Dataset::open(&out.join(file)).unwrap();
        for v in vars {
            let fill = nc.var(v).unwrap().attr("_FillValue").and_then(|a| a.numbers()).unwrap()[0];
            let data = nc.read(v, record).unwrap().to_f64();
            for (k, x) in data.iter().enumerate() {
                assert_eq!(outside(k), *x == fill, "{file} {v} at {k}: {x}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rasters_in_different_systems_are_refused_and_nothing_is_written() {
    let dir = scratch("gis-crs-mismatch");
    // The bed in UTM 32N, the surface (written by `valley`) in 33N.
    let case = valley(&dir, 32632, "[\"npy\"]");
    let out = dir.join("out");
    refused(&["--backend", "cpu", "run", s(&case), "--output", s(&out)], "EPSG:32632");
    let o = hydrokern(&["--backend", "cpu", "run", s(&case), "--output", s(&out)]);
    let err = stderr(&o);
    assert!(err.contains("bed.tif") && err.contains("surface.tif") && err.contains("EPSG:32633"), "{err}");
    assert!(!out.exists(), "the refused run wrote {}", out.display());
    let _ = std::fs::remove_dir_all(&dir);
}
