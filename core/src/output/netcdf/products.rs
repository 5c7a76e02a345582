//! The products in NetCDF, beside the fields' file (docs/netcdf.md says why in files of their
//! own): the gauges as CF's discrete sampling geometry for time series (`featureType =
//! "timeSeries"`, the orthogonal multidimensional representation, as every gauge is sampled at
//! the same times), one record per sample, appended as the run goes; and the maps of maximum
//! depth, maximum speed and arrival time as 2-D variables in a file written whole.

use super::append::{Appender, without_records};
use super::cf::{FILL_F32, FILL_F64, time_variable, udunits};
use super::classic::{Attr, Dim, Header, Type, Value, Var};
use super::snapshots::{be_bytes, type_of};
use crate::grid::Grid2;
use crate::model::Output;
use crate::output::write_atomic;
use crate::products::{GAUGE_COLUMNS, GAUGE_VALUES, Series};
use crate::{Real, Result};
use std::path::Path;

/// What each gauge column is: long name, units, CF standard name.
const GAUGE_VARS: [(&str, &str, Option<&str>); GAUGE_VALUES] = [
    ("water depth", "m", Some("sea_floor_depth_below_sea_surface")),
    ("x-momentum (discharge per unit width)", "m2 s-1", None),
    ("y-momentum (discharge per unit width)", "m2 s-1", None),
    ("water surface elevation", "m", None),
];

fn fill(ty: Type) -> Attr {
    let value = match ty {
        Type::Float => Value::Floats(vec![FILL_F32]),
        _ => Value::Doubles(vec![FILL_F64]),
    };
    Attr { name: "_FillValue".into(), value }
}

fn doubles(v: impl IntoIterator<Item = f64>) -> Vec<u8> {
    v.into_iter().flat_map(f64::to_be_bytes).collect()
}

/// A station coordinate: the gauge's point or its cell's centre.
fn station_coordinate(name: &str, long_name: &str, axis: &str) -> Var {
    let attrs = vec![
        Attr::text("standard_name", format!("projection_{axis}_coordinate")),
        Attr::text("long_name", long_name),
        Attr::text("units", "m"),
    ];
    Var { name: name.into(), dims: vec![1], attrs, ty: Type::Double, begin: 0 }
}

/// The header of a gauges file for `series` (values of `ty`) on `grid`, and its fixed-size
/// variables' bytes (names, positions); with `epsg`, a grid-mapping variable `crs` that the
/// gauges' values name, for the positions.
fn gauge_layout(
    series: &[Series],
    grid: &Grid2,
    ty: Type,
    time_units: &str,
    globals: Vec<Attr>,
    epsg: Option<u16>,
) -> (Header, Vec<Vec<u8>>) {
    let strlen = series.iter().map(|s| s.gauge.name.len()).max().unwrap_or(1).max(1);
    let dims = vec![
        Dim { name: "time".into(), len: 0 },
        Dim { name: "station".into(), len: series.len() as u64 },
        Dim { name: "name_strlen".into(), len: strlen as u64 },
    ];
    let mut vars = vec![
        time_variable("simulated time of the gauge sample", time_units),
        Var {
            name: "station_name".into(),
            dims: vec![1, 2],
            attrs: vec![Attr::text("long_name", "gauge name"), Attr::text("cf_role", "timeseries_id")],
            ty: Type::Char,
            begin: 0,
        },
        station_coordinate("x", "x of the gauge", "x"),
        station_coordinate("y", "y of the gauge", "y"),
        station_coordinate("cell_x", "x of the centre of the cell the gauge samples", "x"),
        station_coordinate("cell_y", "y of the centre of the cell the gauge samples", "y"),
    ];
    let mut values = Vec::new();
    for (name, (long_name, units, standard)) in GAUGE_COLUMNS.iter().zip(GAUGE_VARS) {
        let mut attrs = vec![
            Attr::text("long_name", long_name),
            Attr::text("units", units),
            Attr::text("coordinates", "x y station_name"),
            fill(ty),
        ];
        if let Some(s) = standard {
            attrs.insert(0, Attr::text("standard_name", s));
        }
        values.push(Var { name: (*name).into(), dims: vec![0, 1], attrs, ty, begin: 0 });
    }
    let names = series
        .iter()
        .flat_map(|s| {
            let mut b = s.gauge.name.as_bytes().to_vec();
            b.resize(strlen, 0);
            b
        })
        .collect();
    let centre = |s: &Series| {
        (
            grid.origin.0 + ((s.cell % grid.nx) as f64 + 0.5) * grid.dx,
            grid.origin.1 + ((s.cell / grid.nx) as f64 + 0.5) * grid.dy,
        )
    };
    let mut fixed = vec![
        names,
        doubles(series.iter().map(|s| s.gauge.x)),
        doubles(series.iter().map(|s| s.gauge.y)),
        doubles(series.iter().map(|s| centre(s).0)),
        doubles(series.iter().map(|s| centre(s).1)),
    ];
    super::cf::add_crs(epsg, &mut vars, &mut fixed, &mut values);
    vars.extend(values);
    let mut attrs = vec![Attr::text("featureType", "timeSeries")];
    attrs.extend(globals);
    let mut header = Header { offset64: true, numrecs: 0, dims, attrs, vars };
    header.place();
    (header, fixed)
}

/// A run's gauges file: one record per sample time, every gauge's values in it.
pub struct GaugeFile {
    file: Appender,
    ty: Type,
}

impl GaugeFile {
    /// Create the file at `path` for `series` on `grid` with every sample they hold so far,
    /// values written as `T`'s type (they are `T` values, so exactly). `time_units` is the
    /// solver's unit of time.
    pub fn create<T: Real>(
        path: &Path,
        series: &[Series],
        grid: &Grid2,
        time_units: &str,
        globals: Vec<Attr>,
        epsg: Option<u16>,
    ) -> Result<GaugeFile> {
        let ty = type_of::<T>();
        let (header, fixed) = gauge_layout(series, grid, ty, time_units, globals, epsg);
        let mut g = GaugeFile { file: Appender::create(path, header, &fixed)?, ty };
        g.append(series)?;
        Ok(g)
    }

    /// Append the samples of `series` past those the file holds (all at once: one sync).
    pub fn append(&mut self, series: &[Series]) -> Result<()> {
        let Some(first) = series.first() else { return Ok(()) };
        let from = self.file.records() as usize;
        let records: Vec<Vec<Vec<u8>>> = (from..first.times.len())
            .map(|k| {
                let mut slabs = vec![first.times[k].to_be_bytes().to_vec()];
                for c in 0..GAUGE_VALUES {
                    let column = series.iter().map(|s| s.values[k][c]);
                    slabs.push(match self.ty {
                        Type::Float => column.flat_map(|v| (v as f32).to_be_bytes()).collect(),
                        _ => doubles(column),
                    });
                }
                slabs
            })
            .collect();
        self.file.append_all(&records)
    }

    /// Samples in the file.
    pub fn records(&self) -> u64 {
        self.file.records()
    }
}

/// Write the maps `maps` (each of shape (ny, nx) on `grid`) to `path` whole: coordinates `x`
/// and `y` as the fields' file has them, one 2-D variable per map. `arrival_depth` is the
/// threshold the arrival map was kept with; the maps are as the files show them
/// (`crate::products::shown`). With `geo`'s EPSG code, a grid-mapping variable `crs` that every
/// map names; cells outside its domain hold the fill value (its bed is not written here).
pub fn write_maxima<T: Real>(
    path: &Path,
    maps: &[Output<T>],
    grid: &Grid2,
    arrival_depth: f64,
    globals: Vec<Attr>,
    geo: &super::cf::Geo,
) -> Result<()> {
    let ty = type_of::<T>();
    let dims = vec![Dim { name: "y".into(), len: grid.ny as u64 }, Dim { name: "x".into(), len: grid.nx as u64 }];
    let coordinate = |axis: &str, d: usize| Var {
        name: axis.into(),
        dims: vec![d],
        attrs: vec![
            Attr::text("standard_name", format!("projection_{axis}_coordinate")),
            Attr::text("long_name", format!("{axis} of the cell centres")),
            Attr::text("units", "m"),
        ],
        ty: Type::Double,
        begin: 0,
    };
    let mut vars = vec![coordinate("x", 1), coordinate("y", 0)];
    let centres = |o: f64, d: f64, n: usize| doubles((0..n).map(|i| o + (i as f64 + 0.5) * d));
    let mut fixed = vec![centres(grid.origin.0, grid.dx, grid.nx), centres(grid.origin.1, grid.dy, grid.ny)];
    let (mut maps_vars, mut map_bytes) = (Vec::new(), Vec::new());
    for m in maps {
        let mut attrs = vec![Attr::text("long_name", m.long_name), Attr::text("units", udunits(m.units))];
        match m.name {
            "max_h" => {
                attrs.insert(0, Attr::text("standard_name", "sea_floor_depth_below_sea_surface"));
                attrs.push(Attr::text("cell_methods", "time: maximum"));
            }
            "max_speed" | "max_hazard" => attrs.push(Attr::text("cell_methods", "time: maximum")),
            "max_h_time" => attrs.push(Attr::text("comment", "NaN where the cell was never wet")),
            "duration" => {
                attrs.push(Attr::text("comment", "time the depth was above arrival_depth, up to the file's time"));
                attrs.push(Attr { name: "arrival_depth".into(), value: Value::Doubles(vec![arrival_depth]) });
            }
            "arrival" => {
                attrs.push(Attr::text(
                    "comment",
                    "NaN where the depth never exceeded arrival_depth after the start: cells that deep at t = 0 and cells never reached",
                ));
                attrs.push(Attr { name: "arrival_depth".into(), value: Value::Doubles(vec![arrival_depth]) });
            }
            _ => {}
        }
        attrs.push(fill(ty));
        maps_vars.push(Var { name: m.name.into(), dims: vec![0, 1], attrs, ty, begin: 0 });
        map_bytes.push(be_bytes(&crate::output::outside_as(&m.data, geo.active, T::from_f64(super::cf::FILL_F64))));
    }
    super::cf::add_crs(geo.epsg, &mut vars, &mut fixed, &mut maps_vars);
    vars.extend(maps_vars);
    fixed.extend(map_bytes);
    let mut header = Header { offset64: true, numrecs: 0, dims, attrs: globals, vars };
    header.place();
    write_atomic(path, &without_records(&header, &fixed))
}
