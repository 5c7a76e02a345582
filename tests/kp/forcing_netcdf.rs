//! Gridded rain from one NetCDF file (`[forcing.rain] netcdf`) is the rain of the same frames
//! as a list of rasters, bit for bit, however the file stores them: floats, doubles or packed
//! shorts, rows south or north first, time fixed or unlimited, undated or dated (with the run's
//! start date), frames stamped at their start or bounded by CF time bounds; only the frames a
//! run reaches are kept; a depth each frame becomes the frame's intensity. The files are
//! written by the independent `netcdf3` crate.

use super::common::netcdf_rain::{Attr, RainNc};
use super::common::raster::ascii_grid;
use hydrokern::case::{CaseDoc, Check, Origin};
use hydrokern::forcing::{Domain, ForcingSection, RainGrid};
use hydrokern::grid::Grid2;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hydrokern-kp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The model: 10 × 8 cells of 10 m from (0, 0); the rain: 5 × 4 cells of 20 m over it.
const GRID: Grid2 = Grid2 { nx: 10, ny: 8, dx: 10.0, dy: 10.0, origin: (0.0, 0.0), halo: 2 };
const RAIN_CELLS: (usize, usize) = (5, 4);

/// Frame k's rain at rain cell (i, j), mm/h: halves, exact in every type the tests store.
fn mm_h(k: usize, i: usize, j: usize) -> f64 {
    0.5 * ((k + 1) * (i + 2 * j + 1)) as f64
}

/// The rain grid `[forcing.rain]` keys `rain` give for a run to `t_end` s from the date
/// `start`, the case file in `dir`; or the one line refusing them.
fn load(dir: &Path, rain: &str, start: Option<&str>, t_end: f64) -> Result<RainGrid, String> {
    let text = format!("solver = \"kp\"\n[forcing.rain]\n{rain}");
    let doc = CaseDoc::parse(Origin::File(dir.join("case.toml")), text).unwrap();
    let section: ForcingSection = toml::from_str(&format!("[rain]\n{rain}")).unwrap();
    let f = section
        .load(&Check::new(&doc), Domain { grid: &GRID, active: None }, t_end, start)
        .map_err(|e| e.to_string())?;
    Ok(f.rain_grid.expect("gridded rain"))
}

/// The same frames as rasters, frame k from `times[k]` (s) of the run, the last to `end`.
fn from_rasters(dir: &Path, times: &[f64], end: f64, t_end: f64) -> RainGrid {
    let mut list = Vec::new();
    for (k, t) in times.iter().enumerate() {
        let (nx, ny) = RAIN_CELLS;
        std::fs::write(
            dir.join(format!("r{k}.asc")),
            ascii_grid(nx, ny, (0.0, 0.0), 20.0, |i, j| mm_h(k, i, j).to_string()),
        )
        .unwrap();
        list.push(format!("{{ time = {t}, file = \"r{k}.asc\" }}"));
    }
    load(dir, &format!("grids = [{}]\nend = {end}\n", list.join(", ")), None, t_end).unwrap()
}

/// Frames at `times` in `units`, on the rain cells, as floats from the south.
fn file(times: &[f64], units: &str) -> RainNc {
    RainNc::new(RAIN_CELLS, (0.0, 0.0), 20.0, times, units, mm_h)
}

/// Equal but for where they came from.
fn assert_same(got: &RainGrid, want: &RainGrid, what: &str) {
    let bits = |g: &RainGrid| g.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(got.times, want.times, "{what}: times");
    assert_eq!(bits(got), bits(want), "{what}: values");
    assert_eq!((got.cells, &got.index, &got.sums), (want.cells, &want.index, &want.sums), "{what}: cells");
}

#[test]
fn a_netcdf_file_rains_as_its_list_of_rasters() {
    let dir = scratch("nc-rain-same");
    let want = from_rasters(&dir, &[0.0, 900.0, 1800.0], 2700.0, 2700.0);
    let june = Some("2020-06-01T06:00:00Z");
    let variants: Vec<(&str, RainNc, &str, Option<&str>)> = vec![
        ("floats, from the south, in seconds", file(&[0.0, 900.0, 1800.0], "seconds"), "", None),
        (
            "doubles, north first, a record dimension, hours since a date",
            RainNc {
                record: true,
                ..file(&[6.0, 6.25, 6.5], "hours since 2020-06-01 00:00:00").north_first().doubles()
            },
            "",
            june,
        ),
        (
            "shorts packed by halves, minutes since a date in another form",
            file(&[15.0, 30.0, 45.0], "minutes since 2020-6-1 5:45").packed(0.5, 0.0).attr("_FillValue", Attr::I16(-1)),
            "",
            june,
        ),
        (
            "stamped at the frames' ends, with time bounds",
            RainNc { bounds: Some(vec![0.0, 15.0, 15.0, 30.0, 30.0, 45.0]), ..file(&[15.0, 30.0, 45.0], "minutes") },
            "",
            None,
        ),
        (
            "the unit given as the attribute says it, the variable named",
            file(&[0.0, 900.0, 1800.0], "s").attr("units", Attr::Text("mm h-1".into())),
            "unit = \"mm/h\"\nvariable = \"rain\"\n",
            None,
        ),
        (
            "a UTM zone's grid mapping",
            RainNc {
                crs: Some(vec![("epsg_code".into(), Attr::Text("EPSG:32633".into()))]),
                ..file(&[0.0, 900.0, 1800.0], "s")
            },
            "",
            None,
        ),
    ];
    for (k, (what, nc, keys, start)) in variants.into_iter().enumerate() {
        nc.write(&dir.join(format!("v{k}.nc")));
        let got = load(&dir, &format!("netcdf = \"v{k}.nc\"\n{keys}"), start, 2700.0)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_same(&got, &want, what);
        assert!(got.source.ends_with(&format!("v{k}.nc")), "{}", got.source);
    }
    // `end` holds the last frame as long as asked (in time_unit).
    let want = from_rasters(&dir, &[0.0, 900.0, 1800.0], 3600.0, 3000.0);
    let got = load(&dir, "netcdf = \"v0.nc\"\nend = 1\ntime_unit = \"h\"\n", None, 3000.0).unwrap();
    assert_same(&got, &want, "end = 1 h");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Of a long file only the frames a run reaches are kept: the one holding at t = 0 (which may
/// start before it) and those starting before the run's end.
#[test]
fn only_the_frames_a_run_reaches_are_kept() {
    let dir = scratch("nc-rain-window");
    // Frames every 15 min from 2 h before the start to 10 h after it.
    let minutes: Vec<f64> = (0..48).map(|k| -120.0 - 7.0 + 15.0 * k as f64).collect();
    RainNc::new(RAIN_CELLS, (0.0, 0.0), 20.0, &minutes, "minutes", |k, i, j| mm_h(k % 3, i, j))
        .write(&dir.join("long.nc"));
    // t_end 1000 s: frames from -7 min (420 s before 0) and 8 min, ending at 23 min.
    let got = load(&dir, "netcdf = \"long.nc\"\n", None, 1000.0).unwrap();
    assert_eq!(got.times, [-420.0, 480.0, 1380.0]);
    let want = from_rasters(&dir, &[0.0, 1.0, 2.0], 3.0, 3.0);
    // Frames 8 and 9 of the file are frames 2 and 0 of the cycle of three.
    let (cells, values) = (want.cells, &want.values);
    assert_eq!(&got.values[..cells], &values[2 * cells..]);
    assert_eq!(&got.values[cells..], &values[..cells]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Depths each frame (mm, as accumulations are given) are the frames' intensities over their
/// spans: 2 mm in 15 minutes is 8 mm/h; and CF's kg m-2 s-1 is mm/s.
#[test]
fn depths_each_frame_and_cf_units_become_intensities() {
    let dir = scratch("nc-rain-units");
    let nc = RainNc::new(RAIN_CELLS, (0.0, 0.0), 20.0, &[0.0, 15.0, 45.0], "minutes", |k, _, _| [2.0, 1.0, 3.0][k]);
    nc.clone().attr("units", Attr::Text("mm".into())).write(&dir.join("depth.nc"));
    let g = load(&dir, "netcdf = \"depth.nc\"\n", None, 3600.0).unwrap();
    // 2 mm in 15 min, 1 mm in 30 min, 3 mm in the last 30 (one spacing of the frames).
    for (k, want_mm_h) in [8.0, 2.0, 6.0].into_iter().enumerate() {
        let v = g.values[k * g.cells] as f64;
        let want = want_mm_h * 1e-3 / 3600.0;
        assert!((v - want).abs() <= 1e-7 * want, "frame {k}: {v:e} m/s against {want:e}");
    }
    nc.attr("units", Attr::Text("kg m-2 s-1".into())).write(&dir.join("flux.nc"));
    let g = load(&dir, "netcdf = \"flux.nc\"\n", None, 3600.0).unwrap();
    assert_eq!(g.values[0], (2.0 * 1e-3) as f32);
    let _ = std::fs::remove_dir_all(&dir);
}
