//! Gridded rain from a NetCDF file through the command line: a run with it equals the run with
//! the same frames as rasters, bit for bit, and closes its water account; a file that cannot be
//! used is refused in one line naming the file or the key, before anything is written. The
//! files are written by the independent `netcdf3` crate (tests/common/netcdf_rain.rs).

use crate::cli::{forced_case, utm_prj};
use crate::cmd::{hydrokern, refused, s, scratch, stderr, stdout};
use crate::common::netcdf_rain::{Attr, RainNc};
use crate::common::raster::ascii_grid;
use std::path::Path;

/// The `.npy` files of a run directory, by name.
fn npy_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "npy"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// A run of `case`: its summary's water account line, after checking that it ran.
fn account(case: &Path) -> (String, String) {
    let o = hydrokern(&["run", s(case)]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}\n{}", out, stderr(&o));
    let line = out.lines().find(|l| l.contains("water account")).unwrap_or_else(|| panic!("no account in:\n{out}"));
    (line.to_string(), out)
}

/// A case of 10 × 8 cells of 10 m on a Green–Ampt soil, rained on for 60 s by two frames of
/// 2 × 2 rain cells of 50 m (west and east halves at 36 and 72 mm/h, then 72 and 0), once as
/// two rasters and once as a NetCDF file of doubles stored north row first, its times in
/// minutes since a date with the run's start date: the runs' fields are the same bytes and
/// their water accounts the same line, which closes to round-off.
#[test]
fn a_netcdf_rain_file_runs_as_its_rasters_and_closes_its_account() {
    let dir = scratch("rain-netcdf-run");
    std::fs::create_dir_all(&dir).unwrap();
    let mm_h = |k: usize, i: usize| [[36.0, 72.0], [72.0, 0.0]][k][i];
    for (k, name) in ["a.asc", "b.asc"].into_iter().enumerate() {
        std::fs::write(dir.join(name), ascii_grid(2, 2, (0.0, 0.0), 50.0, |i, _| mm_h(k, i).to_string())).unwrap();
    }
    RainNc::new((2, 2), (0.0, 0.0), 50.0, &[0.0, 0.5], "minutes since 2020-06-01 12:00:00", |k, i, _| mm_h(k, i))
        .north_first()
        .doubles()
        .write(&dir.join("radar.nc"));
    let soil = "[forcing.infiltration]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n";
    let rasters = forced_case(
        &dir,
        "rasters",
        &format!(
            "[forcing.rain]\ngrids = [{{ time = 0, file = \"a.asc\" }}, {{ time = 30, file = \"b.asc\" }}]\nend = 60\n{soil}"
        ),
    );
    let netcdf = forced_case(
        &dir,
        "netcdf",
        &format!("start = \"2020-06-01T12:00:00Z\"\n[forcing.rain]\nnetcdf = \"radar.nc\"\n{soil}"),
    );
    let (want, _) = account(&rasters);
    let (line, out) = account(&netcdf);
    assert_eq!(line, want);
    // (36 + 72 + 72) mm/h × 30 s × 4000 m² = 6 m³.
    assert!(line.contains("rain 6.000000e0") && line.contains("inflow 0.000000e0"), "{line}");
    let rel: f64 = line.split(" of the water").next().unwrap().rsplit('(').next().unwrap().parse().unwrap();
    assert!(rel.abs() < 1e-13, "{line}");
    assert!(out.contains("gridded rain of 2 frame(s) of 4 cell(s)"), "{out}");
    let (got, want) = (npy_files(&dir.join("out-netcdf")), npy_files(&dir.join("out-rasters")));
    assert!(got.iter().any(|(n, _)| n.starts_with("infiltration")), "{got:?}");
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every NetCDF file of rain that cannot be used, and every key that does not fit it, is
/// refused in one line naming the file or the key, before the run writes anything. The case's
/// grid is 10 × 8 cells of 10 m from (0, 0), run for 60 s; the good file is 5 × 4 rain cells
/// of 20 m at 0 and 30 s.
#[test]
fn bad_netcdf_rain_is_refused_with_one_line() {
    let dir = scratch("rain-netcdf-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let good = |times: &[f64], units: &str| RainNc::new((5, 4), (0.0, 0.0), 20.0, times, units, |_, _, _| 5.0);
    let at = |k: usize, i: usize, j: usize, v: f64| {
        move |kk: usize, ii: usize, jj: usize| if (kk, ii, jj) == (k, i, j) { v } else { 5.0 }
    };
    let write = |name: &str, nc: RainNc| nc.write(&dir.join(name));
    write("good.nc", good(&[0.0, 30.0], "s"));
    std::fs::write(dir.join("hdf5.nc"), b"\x89HDF\r\n\x1a\n\0\0\0\0").unwrap();
    write("dated.nc", good(&[0.0, 0.5], "minutes since 2020-06-01 00:00:00"));
    write("backwards.nc", good(&[0.0, 30.0, 20.0], "s"));
    write("narrow.nc", RainNc::new((3, 4), (0.0, 0.0), 20.0, &[0.0, 30.0], "s", |_, _, _| 5.0));
    write("late.nc", good(&[10.0, 40.0], "s"));
    write("short.nc", good(&[0.0, 20.0], "s"));
    write("one.nc", good(&[0.0], "s"));
    write("negative.nc", RainNc::new((5, 4), (0.0, 0.0), 20.0, &[0.0, 30.0], "s", at(1, 3, 1, -2.0)));
    write("nan.nc", RainNc::new((5, 4), (0.0, 0.0), 20.0, &[0.0, 30.0], "s", at(0, 4, 0, f64::NAN)));
    write(
        "fill.nc",
        RainNc::new((5, 4), (0.0, 0.0), 20.0, &[0.0, 30.0], "s", at(1, 2, 2, -9999.0))
            .attr("_FillValue", Attr::F32(-9999.0)),
    );
    let mut irregular = good(&[0.0, 30.0], "s");
    irregular.x[3] += 3.0;
    write("irregular.nc", irregular);
    write(
        "lonlat.nc",
        RainNc { xy_attrs: vec![("units".into(), Attr::Text("degrees_east".into()))], ..good(&[0.0, 30.0], "s") },
    );
    let geographic = "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563]],AUTHORITY[\"EPSG\",\"4326\"]]";
    write(
        "geographic.nc",
        RainNc { crs: Some(vec![("crs_wkt".into(), Attr::Text(geographic.into()))]), ..good(&[0.0, 30.0], "s") },
    );
    write(
        "zone33.nc",
        RainNc { crs: Some(vec![("spatial_ref".into(), Attr::Text(utm_prj(33)))]), ..good(&[0.0, 30.0], "s") },
    );
    std::fs::write(dir.join("zone34.asc"), ascii_grid(10, 8, (0.0, 0.0), 10.0, |_, _| "5".into())).unwrap();
    std::fs::write(dir.join("zone34.prj"), utm_prj(34)).unwrap();
    write("unitless.nc", RainNc { attrs: vec![], ..good(&[0.0, 30.0], "s") });
    write("dbz.nc", good(&[0.0, 30.0], "s").attr("units", Attr::Text("dBZ".into())));
    let nc = |file: &str| format!("[forcing.rain]\nnetcdf = \"{file}\"\n");
    let cases: Vec<(String, &str)> = vec![
        (nc("missing.nc"), "missing.nc"),
        (nc("hdf5.nc"), "nccopy -k classic"),
        (nc("dated.nc"), "run.start"),
        (nc("backwards.nc"), "must increase strictly"),
        (nc("narrow.nc"), "lies outside"),
        (nc("late.nc"), "after the run's start"),
        (nc("short.nc"), "before the run's end"),
        (nc("one.nc"), "forcing.rain.end"),
        (nc("negative.nc"), "rain must not be negative"),
        (nc("nan.nc"), "rain must be finite"),
        (nc("fill.nc"), "is a fill value"),
        (nc("irregular.nc"), "must be regular"),
        (nc("lonlat.nc"), "degrees of longitude and latitude"),
        (nc("geographic.nc"), "geographic coordinate system"),
        (
            format!(
                "{}[forcing.infiltration]\nconductivity = \"zone34.asc\"\nsuction = 100.0\ndeficit = 0.3\n",
                nc("zone33.nc")
            ),
            "EPSG:32633",
        ),
        (nc("unitless.nc"), "forcing.rain.unit"),
        (nc("dbz.nc"), "'dBZ'"),
        (format!("{}unit = \"mm/day\"\n", nc("good.nc")), "forcing.rain.unit"),
        (format!("{}unit = \"in/h\"\n", nc("good.nc")), "not a unit of rain"),
        (format!("{}variable = \"precip\"\n", nc("good.nc")), "forcing.rain.variable"),
        (format!("{}time_unit = \"min\"\n", nc("good.nc")), "forcing.rain.time_unit"),
        (format!("{}end = 20\n", nc("good.nc")), "forcing.rain.end"),
        (format!("{}intensity = 5.0\n", nc("good.nc")), "exactly one of"),
        ("[forcing.rain]\nintensity = 5.0\nvariable = \"rain\"\n".into(), "given without netcdf"),
    ];
    for (k, (forcing, want)) in cases.iter().enumerate() {
        let case = forced_case(&dir, &format!("bad{k}"), forcing);
        refused(&["run", s(&case)], want);
        assert!(!dir.join(format!("out-bad{k}")).exists(), "{forcing}: the refused run wrote its directory");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
