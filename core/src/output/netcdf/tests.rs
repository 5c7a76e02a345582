//! The writer against our reader and against an independent one (the `netcdf3` crate, itself
//! checked against netCDF4-python), our reader against files `netcdf3` writes, a run killed
//! mid-record, and bad input for `plot`. CI's scripts/check-netcdf.py reads a real run's file
//! with netCDF4-python.

use super::cf::{Geo, udunits};
use super::classic::Attr;
use super::*;
use crate::grid::{Grid2, Grid3, Mesh};
use crate::model::{Clock, Output, State};
use crate::output::test_dir;
use crate::{Real, Rng};
use std::path::Path;

fn plane() -> Mesh {
    Mesh::Plane(Grid2 { nx: 5, ny: 3, dx: 2.0, dy: 0.5, origin: (100.0, -4.0), halo: 2 })
}

fn random<T: Real>(rng: &mut Rng, n: usize) -> Vec<T> {
    rng.values(n, -1e3, 1e3)
}

/// A state of the plane: a centred field and one on the x-faces (as ADI's p), random values.
fn state<T: Real>(rng: &mut Rng, t: f64) -> State<T> {
    let f = |name, long_name, units, dims: Vec<usize>, data| Output { name, long_name, units, dims, data };
    State {
        clock: Clock { t, ..Clock::START },
        fields: vec![
            f("h", "water depth", "m", vec![3, 5], random(rng, 15)),
            f("p", "x flux density p on the x-faces", "m²/s", vec![3, 6], random(rng, 18)),
        ],
        boundary: Vec::new(),
    }
}

fn write<T: Real>(path: &Path, states: &[State<T>]) {
    let globals = vec![Attr::text("Conventions", "CF-1.8"), Attr::text("title", "test")];
    let mut nc = Snapshots::create(path, &plane(), &states[0], None, "s", globals, &Geo::default()).unwrap();
    for s in states {
        nc.append(s, None).unwrap();
    }
    assert_eq!(nc.records(), states.len() as u64);
}

fn values<T: Real>(v: Values) -> Vec<T> {
    match v {
        Values::F32(v) => v.into_iter().map(|x| T::from_f64(x as f64)).collect(),
        Values::F64(v) => v.into_iter().map(T::from_f64).collect(),
    }
}

fn bits<T: Real>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

fn round_trip<T: Real>(tag: &str, want: Values) {
    let dir = test_dir(tag);
    let path = dir.join("run.nc");
    let mut rng = Rng::new(7);
    let states: Vec<State<T>> = [0.0, 0.25, 1.5].iter().map(|&t| state(&mut rng, t)).collect();
    write(&path, &states);
    let mut nc = Dataset::open(&path).unwrap();
    assert_eq!(nc.records(), 3);
    assert_eq!(nc.read("x", None).unwrap(), Values::F64(vec![101.0, 103.0, 105.0, 107.0, 109.0]));
    assert_eq!(nc.read("y", None).unwrap(), Values::F64(vec![-3.75, -3.25, -2.75]));
    assert_eq!(nc.read("x_face", None).unwrap(), Values::F64(vec![100.0, 102.0, 104.0, 106.0, 108.0, 110.0]));
    for (r, s) in states.iter().enumerate() {
        assert_eq!(nc.read("time", Some(r as u64)).unwrap(), Values::F64(vec![s.clock.t]));
        for f in &s.fields {
            let got = nc.read(f.name, Some(r as u64)).unwrap();
            assert_eq!(
                std::mem::discriminant(&got),
                std::mem::discriminant(&want),
                "{} in the run's precision",
                f.name
            );
            assert_eq!(bits(&values::<T>(got)), bits(&f.data), "{} at record {r}", f.name);
        }
    }
    let h = nc.var("h").unwrap();
    assert_eq!(h.text("units"), Some("m"));
    assert_eq!(h.text("standard_name"), Some("sea_floor_depth_below_sea_surface"));
    assert_eq!(nc.var("p").unwrap().text("units"), Some("m2 s-1"));
    let dims: Vec<&str> = nc.var("p").unwrap().dims.iter().map(|&d| nc.header().dims[d].name.as_str()).collect();
    assert_eq!(dims, ["time", "y", "x_face"]);
    assert_eq!(nc.global_text("Conventions"), Some("CF-1.8"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn round_trip_is_bit_equal_in_both_precisions() {
    round_trip::<f32>("nc-f32", Values::F32(vec![]));
    round_trip::<f64>("nc-f64", Values::F64(vec![]));
}

#[test]
fn an_independent_reader_reads_our_file() {
    let dir = test_dir("nc-netcdf3-reads");
    let path = dir.join("run.nc");
    let mut rng = Rng::new(11);
    let states: Vec<State<f32>> = [0.5, 2.0].iter().map(|&t| state(&mut rng, t)).collect();
    write(&path, &states);
    let mut r = netcdf3::FileReader::open(&path).unwrap();
    assert_eq!(r.version(), netcdf3::Version::Offset64Bit);
    let ds = r.data_set();
    assert_eq!(ds.num_records(), Some(2));
    assert_eq!(ds.dim_size("x"), Some(5));
    assert_eq!(ds.dim_size("x_face"), Some(6));
    assert_eq!(ds.get_var_attr_as_string("time", "axis").as_deref(), Some("T"));
    assert_eq!(ds.get_var_attr_f32("h", "_FillValue"), Some(&[cf::FILL_F32][..]));
    assert_eq!(r.read_var_f64("y").unwrap(), vec![-3.75, -3.25, -2.75]);
    let h = r.read_var_f32("h").unwrap();
    let p = r.read_var_f32("p").unwrap();
    assert_eq!(r.read_var_f64("time").unwrap(), vec![0.5, 2.0]);
    let (h_want, p_want): (Vec<f32>, Vec<f32>) = (
        states.iter().flat_map(|s| s.fields[0].data.clone()).collect(),
        states.iter().flat_map(|s| s.fields[1].data.clone()).collect(),
    );
    assert_eq!(bits(&h), bits(&h_want));
    assert_eq!(bits(&p), bits(&p_want));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file written by `netcdf3` in our layout (time, y, x; a double field), read by ours.
fn write_with_netcdf3(path: &Path, h: &[Vec<f64>]) {
    let mut ds = netcdf3::DataSet::new();
    ds.set_unlimited_dim("time", h.len()).unwrap();
    ds.add_fixed_dim("y", 2).unwrap();
    ds.add_fixed_dim("x", 3).unwrap();
    ds.add_var_f64("time", &["time"]).unwrap();
    ds.add_var_f64("y", &["y"]).unwrap();
    ds.add_var_f64("x", &["x"]).unwrap();
    ds.add_var_f64("h", &["time", "y", "x"]).unwrap();
    ds.add_var_attr_string("h", "units", "m").unwrap();
    ds.add_var_attr_string("time", "units", "s").unwrap();
    let mut w = netcdf3::FileWriter::create_new(path).unwrap();
    w.set_def(&ds, netcdf3::Version::Classic, 0).unwrap();
    w.write_var_f64("time", &(0..h.len()).map(|k| k as f64).collect::<Vec<_>>()).unwrap();
    w.write_var_f64("y", &[0.5, 1.5]).unwrap();
    w.write_var_f64("x", &[10.0, 30.0, 50.0]).unwrap();
    w.write_var_f64("h", &h.concat()).unwrap();
    w.close().unwrap();
}

#[test]
fn our_reader_reads_an_independent_file_and_plot_draws_it() {
    let dir = test_dir("nc-netcdf3-writes");
    let path = dir.join("other.nc");
    let h = vec![vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5], vec![-1.0, 0.0, 1e-300, 7.0, 8.0, f64::MAX]];
    write_with_netcdf3(&path, &h);
    let mut nc = Dataset::open(&path).unwrap();
    assert_eq!(nc.records(), 2);
    assert_eq!(nc.read("x", None).unwrap(), Values::F64(vec![10.0, 30.0, 50.0]));
    for (r, want) in h.iter().enumerate() {
        assert_eq!(nc.read("h", Some(r as u64)).unwrap(), Values::F64(want.clone()));
    }
    let out = dir.join("maps");
    let files = plot(&path, &out).unwrap();
    let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["h_t0.png", "h_t1.png"]);
    assert!(files.iter().all(|f| std::fs::read(f).unwrap().starts_with(b"\x89PNG")));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A run killed while writing its third snapshot: the data of record 3 are partly on disk and
/// its count was never written. The file reads as the first two snapshots, bit for bit.
#[test]
fn a_run_killed_mid_record_leaves_its_whole_snapshots() {
    let dir = test_dir("nc-killed");
    let path = dir.join("run.nc");
    let mut rng = Rng::new(3);
    let states: Vec<State<f64>> = [0.0, 1.0, 2.0].iter().map(|&t| state(&mut rng, t)).collect();
    write(&path, &states);
    let whole = std::fs::read(&path).unwrap();
    let record = 8 + 8 * (15 + 18);
    // As the kill leaves it: the count still 2, record 3 cut off half-way.
    let mut killed = whole[..whole.len() - record / 2].to_vec();
    killed[4..8].copy_from_slice(&2u32.to_be_bytes());
    std::fs::write(&path, &killed).unwrap();
    let mut nc = Dataset::open(&path).unwrap();
    assert_eq!(nc.records(), 2);
    for (r, s) in states[..2].iter().enumerate() {
        assert_eq!(nc.read("time", Some(r as u64)).unwrap(), Values::F64(vec![s.clock.t]));
        for f in &s.fields {
            assert_eq!(nc.read(f.name, Some(r as u64)).unwrap(), Values::F64(f.data.clone()));
        }
    }
    let e = nc.read("h", Some(2)).unwrap_err().to_string();
    assert!(e.contains("holds 2 records"), "{e}");
    assert_eq!(plot(&path, &dir.join("maps")).unwrap().len(), 4);
    // A count the file does not hold (cut by something else than a kill) is refused.
    killed[4..8].copy_from_slice(&3u32.to_be_bytes());
    std::fs::write(&path, &killed).unwrap();
    let e = Dataset::open(&path).err().unwrap().to_string();
    assert!(e.contains("counts 3 records") && e.contains("holds 2 whole ones"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn plot_refuses_bad_files_in_one_line() {
    let dir = test_dir("nc-bad");
    let good = dir.join("good.nc");
    write(&good, &[state::<f64>(&mut Rng::new(1), 0.0)]);
    let bytes = std::fs::read(&good).unwrap();
    let cases: [(&str, Option<&[u8]>, &str); 6] = [
        ("missing.nc", None, "No such file"),
        ("empty.nc", Some(b""), "not a NetCDF file"),
        ("text.nc", Some(b"h,u,v\n1,2,3\n"), "not a NetCDF file"),
        ("hdf5.nc", Some(b"\x89HDF\r\n\x1a\n and more bytes"), "NetCDF-4 (HDF5)"),
        ("cut.nc", Some(&bytes[..40]), "header is cut short"),
        ("cdf5.nc", Some(b"CDF\x05\0\0\0\0"), "CDF-5"),
    ];
    for (name, content, want) in cases {
        let path = dir.join(name);
        if let Some(c) = content {
            std::fs::write(&path, c).unwrap();
        }
        let e = plot(&path, &dir.join("maps")).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains(name) && !e.contains('\n'), "{name}: {e}");
    }
    // A valid NetCDF file of another layout: no time coordinate.
    let mut ds = netcdf3::DataSet::new();
    ds.add_fixed_dim("n", 2).unwrap();
    ds.add_var_f64("a", &["n"]).unwrap();
    let other = dir.join("other.nc");
    let mut w = netcdf3::FileWriter::create_new(&other).unwrap();
    w.set_def(&ds, netcdf3::Version::Classic, 0).unwrap();
    w.write_var_f64("a", &[1.0, 2.0]).unwrap();
    w.close().unwrap();
    let e = plot(&other, &dir.join("maps")).unwrap_err().to_string();
    assert!(e.contains("not a NetCDF file of hydrokern's layout (no time variable)"), "{e}");
    assert!(!dir.join("maps").exists(), "nothing drawn from bad files");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_volume_has_z_and_plot_draws_its_middle_slice() {
    let dir = test_dir("nc-volume");
    let path = dir.join("box.nc");
    let mesh =
        Mesh::Volume(Grid3 { nx: 4, ny: 3, nz: 2, dx: 1.0, dy: 1.0, dz: 0.5, origin: (0.0, 0.0, -1.0), halo: 0 });
    let data: Vec<f32> = (0..24).map(|k| k as f32).collect();
    let s = State {
        clock: Clock::START,
        fields: vec![Output { name: "p", long_name: "pressure perturbation", units: "Pa", dims: vec![2, 3, 4], data }],
        boundary: Vec::new(),
    };
    let mut nc = Snapshots::create(&path, &mesh, &s, None, "s", vec![], &Geo::default()).unwrap();
    nc.append(&s, None).unwrap();
    let mut r = Dataset::open(&path).unwrap();
    assert_eq!(r.read("z", None).unwrap(), Values::F64(vec![-0.75, -0.25]));
    assert_eq!(r.var("z").unwrap().text("positive"), Some("up"));
    assert_eq!(r.read("p", Some(0)).unwrap(), Values::F32(s.fields[0].data.clone()));
    assert_eq!(plot(&path, &dir.join("maps")).unwrap().len(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fields_off_the_mesh_and_changed_fields_are_refused() {
    let dir = test_dir("nc-refused");
    let mut s = state::<f64>(&mut Rng::new(2), 0.0);
    s.fields[1].dims = vec![3, 7];
    s.fields[1].data = vec![0.0; 21];
    let e = Snapshots::create(&dir.join("a.nc"), &plane(), &s, None, "s", vec![], &Geo::default())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("field p has 7 values along x, where the mesh has 5 cells"), "{e}");
    let first = state::<f64>(&mut Rng::new(2), 0.0);
    let mut nc = Snapshots::create(&dir.join("b.nc"), &plane(), &first, None, "s", vec![], &Geo::default()).unwrap();
    let mut other = first.clone();
    other.fields.pop();
    assert!(nc.append(&other, None).is_err());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn units_are_spelled_for_udunits() {
    assert_eq!(udunits("m²/s"), "m2 s-1");
    assert_eq!(udunits("m/s"), "m s-1");
    assert_eq!(udunits("m/s²"), "m s-2");
    assert_eq!(udunits("Pa"), "Pa");
    assert_eq!(udunits("1"), "1");
}

/// Three gauges on the plane with `samples` random samples at increasing times.
fn gauge_series(rng: &mut Rng, samples: usize) -> Vec<crate::products::Series> {
    use crate::products::{Gauge, Series};
    let times: Vec<f64> = (0..samples).map(|k| k as f64 * 0.1 + 1.0 / 3.0).collect();
    [("dam", 101.0, -3.9, 0), ("east-2", 109.5, -2.5, 14), ("a_b", 104.0, -3.0, 7)]
        .into_iter()
        .map(|(name, x, y, cell)| Series {
            gauge: Gauge { name: name.into(), x, y },
            cell,
            times: times.clone(),
            // f32 values, as a run in f32 records them.
            values: (0..samples).map(|_| std::array::from_fn(|_| rng.unit() as f32 as f64 * 10.0 - 5.0)).collect(),
        })
        .collect()
}

fn grid() -> Grid2 {
    match plane() {
        Mesh::Plane(g) => g,
        Mesh::Volume(_) => unreachable!(),
    }
}

#[test]
fn gauges_are_a_cf_time_series_appended_as_they_come() {
    let dir = test_dir("nc-gauges");
    let path = dir.join("run_gauges.nc");
    let mut rng = Rng::new(5);
    let all = gauge_series(&mut rng, 9);
    let first: Vec<_> = all
        .iter()
        .map(|s| crate::products::Series { times: s.times[..4].to_vec(), values: s.values[..4].to_vec(), ..s.clone() })
        .collect();
    let globals = vec![Attr::text("Conventions", "CF-1.8")];
    let mut g = GaugeFile::create::<f32>(&path, &first, &grid(), "s", globals, None).unwrap();
    assert_eq!(g.records(), 4);
    g.append(&all).unwrap();
    g.append(&all).unwrap();
    assert_eq!(g.records(), 9);
    // Our reader.
    let mut nc = Dataset::open(&path).unwrap();
    assert_eq!(nc.records(), 9);
    assert_eq!(nc.global_text("featureType"), Some("timeSeries"));
    assert_eq!(nc.read_text("station_name").unwrap(), ["dam", "east-2", "a_b"]);
    assert_eq!(nc.read("x", None).unwrap(), Values::F64(vec![101.0, 109.5, 104.0]));
    // Cells 0, 14 (column 4, row 2) and 7 (column 2, row 1) of 5 × 3 cells of 2 × 0.5 m from (100, -4).
    assert_eq!(nc.read("cell_x", None).unwrap(), Values::F64(vec![101.0, 109.0, 105.0]));
    assert_eq!(nc.read("cell_y", None).unwrap(), Values::F64(vec![-3.75, -2.75, -3.25]));
    assert_eq!(nc.var("station_name").unwrap().text("cf_role"), Some("timeseries_id"));
    for r in 0..9u64 {
        assert_eq!(nc.read("time", Some(r)).unwrap(), Values::F64(vec![all[0].times[r as usize]]));
        for (c, name) in crate::products::GAUGE_COLUMNS.iter().enumerate() {
            let want: Vec<f32> = all.iter().map(|s| s.values[r as usize][c] as f32).collect();
            assert_eq!(nc.read(name, Some(r)).unwrap(), Values::F32(want), "{name} at sample {r}");
        }
    }
    // The independent reader: h as (time, station), row-major.
    let mut r = netcdf3::FileReader::open(&path).unwrap();
    assert_eq!(r.data_set().num_records(), Some(9));
    assert_eq!(r.data_set().dim_size("station"), Some(3));
    let h = r.read_var_f32("h").unwrap();
    let want: Vec<f32> = (0..9).flat_map(|k| all.iter().map(move |s| s.values[k][0] as f32)).collect();
    assert_eq!(bits(&h), bits(&want));
    assert_eq!(r.read_var_f64("time").unwrap(), all[0].times);
    // A file cut inside its last sample reads up to the samples before it.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    let e = Dataset::open(&path).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn maxima_are_maps_without_time_and_plot_draws_them_and_the_gauges() {
    let dir = test_dir("nc-maxima");
    let mut rng = Rng::new(9);
    let map = |name, data| Output { name, long_name: "a map", units: "m/s", dims: vec![3, 5], data };
    let mut arrival: Vec<f64> = random(&mut rng, 15);
    arrival[4] = f64::NAN;
    let maps = vec![map("max_h", random::<f64>(&mut rng, 15)), map("arrival", arrival.clone())];
    let path = dir.join("run_maxima.nc");
    write_maxima(&path, &maps, &grid(), 0.01, vec![Attr::text("title", "t")], &Geo::default()).unwrap();
    let mut nc = Dataset::open(&path).unwrap();
    assert!(nc.header().vars.iter().all(|v| !nc.header().is_record(v)));
    assert_eq!(nc.read("y", None).unwrap(), Values::F64(vec![-3.75, -3.25, -2.75]));
    assert_eq!(bits(&values::<f64>(nc.read("arrival", None).unwrap())), bits(&arrival));
    assert_eq!(nc.var("max_h").unwrap().text("cell_methods"), Some("time: maximum"));
    assert_eq!(nc.var("max_h").unwrap().text("units"), Some("m s-1"));
    let mut r = netcdf3::FileReader::open(&path).unwrap();
    assert_eq!(bits(&r.read_var_f64("max_h").unwrap()), bits(&maps[0].data));
    // plot draws a map per variable; given the gauges' file, a picture per gauge.
    let drawn = plot(&path, &dir.join("maps")).unwrap();
    assert_eq!(drawn, [dir.join("maps/max_h.png"), dir.join("maps/arrival.png")]);
    let gauges = dir.join("run_gauges.nc");
    GaugeFile::create::<f64>(&gauges, &gauge_series(&mut rng, 6), &grid(), "s", Vec::new(), None).unwrap();
    let drawn = plot(&gauges, &dir.join("maps")).unwrap();
    let names: Vec<_> = drawn.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["gauge_dam.png", "gauge_east-2.png", "gauge_a_b.png"]);
    for p in &drawn {
        let png = image_size(p);
        assert!(png.0 == 800 && png.1 == 1000, "{}: {png:?}, two panels", p.display());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Width and height of a PNG file, from its header.
fn image_size(path: &Path) -> (u32, u32) {
    let d = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let info = d.read_info().unwrap();
    (info.info().width, info.info().height)
}

#[test]
fn a_run_goes_on_after_its_records_up_to_a_time() {
    let dir = test_dir("nc-resume");
    let path = dir.join("run.nc");
    let mut rng = Rng::new(3);
    let states: Vec<State<f32>> = [0.0, 0.5, 1.0, 1.5].iter().map(|&t| state(&mut rng, t)).collect();
    write(&path, &states);
    let whole = std::fs::read(&path).unwrap();
    // A record cut short by a kill past the counted ones.
    std::fs::write(&path, [whole.as_slice(), &[1u8; 33]].concat()).unwrap();
    let mut nc = Snapshots::resume(&path, &plane(), &states[0], None, "s", 0.5, &Geo::default()).unwrap();
    assert_eq!(nc.records(), 2);
    assert_eq!(Dataset::open(&path).unwrap().records(), 2);
    for s in &states[2..] {
        nc.append(s, None).unwrap();
    }
    assert!(std::fs::read(&path).unwrap() == whole, "not byte for byte the file written at once");
    // Another layout (no field p), or times that do not increase: refused, the file untouched.
    let other = State { fields: states[0].fields[..1].to_vec(), ..states[0].clone() };
    let e = Snapshots::resume(&path, &plane(), &other, None, "s", 0.5, &Geo::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not those of this run's fields"), "{e}");
    let backwards: Vec<State<f32>> = [1.0, 0.5].iter().map(|&t| state(&mut rng, t)).collect();
    write(&path, &backwards);
    let e = Snapshots::resume(&path, &plane(), &states[0], None, "s", 0.5, &Geo::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("do not increase"), "{e}");
    assert_eq!(Dataset::open(&path).unwrap().records(), 2);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The water account of a state at `t`: two segments, one of them with a comma in its name.
fn account_at(t: f64) -> crate::account::Account {
    use crate::model::BoundaryFlow;
    crate::account::Account {
        t,
        storage: 100.0 + t,
        start: 100.0,
        rain: 2.0 * t,
        inflow: 0.5,
        infiltration: 0.25 * t,
        boundary: vec![
            BoundaryFlow { name: "east".into(), out: 0.125 * t, into: 0.0 },
            BoundaryFlow { name: "mouth, upper".into(), out: 1.0 / 3.0, into: t },
        ],
    }
}

/// A run's water account goes into the fields' file beside the fields, a record a snapshot:
/// its terms as doubles (the precision's fields keep theirs), the segments' names, read back bit
/// for bit by our reader and by the `netcdf3` crate; a snapshot with another account, or none,
/// is refused, and so is a resume against a file of another layout.
#[test]
fn the_water_account_goes_into_the_fields_file() {
    let dir = test_dir("nc-account");
    let path = dir.join("run.nc");
    let mut rng = Rng::new(5);
    let states: Vec<State<f32>> = [0.0, 1.5].iter().map(|&t| state(&mut rng, t)).collect();
    let accounts: Vec<_> = states.iter().map(|s| account_at(s.clock.t)).collect();
    let mut nc =
        Snapshots::create(&path, &plane(), &states[0], Some(&accounts[0]), "s", vec![], &Geo::default()).unwrap();
    for (s, a) in states.iter().zip(&accounts) {
        nc.append(s, Some(a)).unwrap();
    }
    assert!(nc.append(&states[1], None).is_err(), "a snapshot without the account");
    let mut other = account_at(3.0);
    other.boundary.pop();
    assert!(nc.append(&states[1], Some(&other)).is_err(), "a snapshot of other segments");
    drop(nc);
    let mut r = Dataset::open(&path).unwrap();
    assert_eq!(r.records(), 2);
    for (k, a) in accounts.iter().enumerate() {
        let mut at = |name: &str| r.read(name, Some(k as u64)).unwrap();
        assert_eq!(at("storage"), Values::F64(vec![a.storage]));
        assert_eq!(at("rain_volume"), Values::F64(vec![a.rain]));
        assert_eq!(at("inflow_volume"), Values::F64(vec![a.inflow]));
        assert_eq!(at("infiltration_volume"), Values::F64(vec![a.infiltration]));
        assert_eq!(at("outflow_volume"), Values::F64(a.boundary.iter().map(|b| b.out).collect()));
        assert_eq!(at("boundary_inflow_volume"), Values::F64(a.boundary.iter().map(|b| b.into).collect()));
        assert_eq!(at("residual"), Values::F64(vec![a.residual()]));
        assert!(matches!(at("h"), Values::F32(_)), "the fields keep the run's precision");
    }
    assert_eq!(r.var("outflow_volume").unwrap().text("units"), Some("m3"));
    assert_eq!(r.var("outflow_volume").unwrap().text("coordinates"), Some("boundary_name"));
    let mut f = netcdf3::FileReader::open(&path).unwrap();
    assert_eq!(f.data_set().dim_size("boundary"), Some(2));
    let names = f.read_var_u8("boundary_name").unwrap();
    let names: Vec<String> =
        names.chunks(12).map(|c| String::from_utf8_lossy(c).trim_end_matches('\0').to_string()).collect();
    assert_eq!(names, ["east", "mouth, upper"]);
    let out = f.read_var_f64("outflow_volume").unwrap();
    assert_eq!(out, accounts.iter().flat_map(|a| a.boundary.iter().map(|b| b.out)).collect::<Vec<_>>());
    assert_eq!(f.read_var_f32("h").unwrap().len(), 30);
    // A resume reads the layout back: with the account it goes on, without it the file is not
    // this run's.
    assert!(Snapshots::resume(&path, &plane(), &states[0], Some(&accounts[0]), "s", 0.0, &Geo::default()).is_ok());
    let e = Snapshots::resume(&path, &plane(), &states[0], None, "s", 0.0, &Geo::default()).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("not those of this run's fields"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}
