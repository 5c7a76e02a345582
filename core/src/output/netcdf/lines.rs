//! The discharge lines in NetCDF, beside the fields' file: CF's discrete sampling geometry for
//! time series (`featureType = "timeSeries"`, every line sampled at the same times, the
//! orthogonal multidimensional representation) whose instances are the lines, drawn as CF-1.8
//! line geometries (their points, as the case gives them), one record per sample, appended as
//! the run goes. The discharge is f64 whatever the run's precision: it is a sum the host forms
//! in f64 from the samples, and these are the values of `lines.csv`.

use super::append::Appender;
use super::cf::{FILL_F64, time_variable};
use super::classic::{Attr, Dim, Header, Type, Value, Var};
use crate::Result;
use crate::products::LineSeries;
use std::path::Path;

/// The variable holding the lines' geometry (CF's geometry container).
const GEOMETRY: &str = "line_geometry";

fn doubles(v: impl IntoIterator<Item = f64>) -> Vec<u8> {
    v.into_iter().flat_map(f64::to_be_bytes).collect()
}

/// A node coordinate of the lines' geometry.
fn node_coordinate(axis: &str) -> Var {
    let attrs = vec![
        Attr::text("standard_name", format!("projection_{axis}_coordinate")),
        Attr::text("long_name", format!("{axis} of the lines' points")),
        Attr::text("units", "m"),
        Attr::text("axis", axis.to_uppercase()),
    ];
    Var { name: format!("node_{axis}"), dims: vec![3], attrs, ty: Type::Double, begin: 0 }
}

/// The header of a lines file for `lines` and its fixed-size variables' bytes (names, node
/// counts, points); with `epsg`, a grid-mapping variable `crs` that the geometry names.
fn layout(lines: &[LineSeries], time_units: &str, globals: Vec<Attr>, epsg: Option<u16>) -> (Header, Vec<Vec<u8>>) {
    let strlen = lines.iter().map(|l| l.line.name.len()).max().unwrap_or(1).max(1);
    let nodes: usize = lines.iter().map(|l| l.line.points.len()).sum();
    let dims = vec![
        Dim { name: "time".into(), len: 0 },
        Dim { name: "line".into(), len: lines.len() as u64 },
        Dim { name: "name_strlen".into(), len: strlen as u64 },
        Dim { name: "node".into(), len: nodes as u64 },
    ];
    let mut geometry = vec![
        Attr::text("geometry_type", "line"),
        Attr::text("node_count", "node_count"),
        Attr::text("node_coordinates", "node_x node_y"),
    ];
    let mut vars = vec![
        time_variable("simulated time of the sample", time_units),
        Var {
            name: "line_name".into(),
            dims: vec![1, 2],
            attrs: vec![Attr::text("long_name", "discharge line name"), Attr::text("cf_role", "timeseries_id")],
            ty: Type::Char,
            begin: 0,
        },
        Var {
            name: "node_count".into(),
            dims: vec![1],
            attrs: vec![Attr::text("long_name", "points of each line")],
            ty: Type::Int,
            begin: 0,
        },
        node_coordinate("x"),
        node_coordinate("y"),
    ];
    let names = lines
        .iter()
        .flat_map(|l| {
            let mut b = l.line.name.as_bytes().to_vec();
            b.resize(strlen, 0);
            b
        })
        .collect();
    let mut fixed = vec![
        names,
        lines.iter().flat_map(|l| (l.line.points.len() as i32).to_be_bytes()).collect(),
        doubles(lines.iter().flat_map(|l| l.line.points.iter().map(|p| p[0]))),
        doubles(lines.iter().flat_map(|l| l.line.points.iter().map(|p| p[1]))),
    ];
    if let Some(code) = epsg {
        vars.push(super::cf::crs_variable(code));
        fixed.push(0i32.to_be_bytes().to_vec());
        geometry.push(Attr::text("grid_mapping", super::cf::CRS));
    }
    vars.push(Var { name: GEOMETRY.into(), dims: Vec::new(), attrs: geometry, ty: Type::Int, begin: 0 });
    fixed.push(0i32.to_be_bytes().to_vec());
    vars.push(Var {
        name: "discharge".into(),
        dims: vec![0, 1],
        attrs: vec![
            Attr::text("long_name", "discharge through the line"),
            Attr::text("units", "m3 s-1"),
            Attr::text(
                "comment",
                "positive from the line's left to its right, looking from its first point to its last",
            ),
            Attr::text("coordinates", "line_name"),
            Attr::text("geometry", GEOMETRY),
            Attr { name: "_FillValue".into(), value: Value::Doubles(vec![FILL_F64]) },
        ],
        ty: Type::Double,
        begin: 0,
    });
    let mut attrs = vec![Attr::text("featureType", "timeSeries")];
    attrs.extend(globals);
    let mut header = Header { offset64: true, numrecs: 0, dims, attrs, vars };
    header.place();
    (header, fixed)
}

/// A run's lines file: one record per sample time, every line's discharge in it.
pub struct LineFile {
    file: Appender,
}

impl LineFile {
    /// Create the file at `path` for `lines` with every sample they hold so far. `time_units`
    /// is the solver's unit of time.
    pub fn create(
        path: &Path,
        lines: &[LineSeries],
        time_units: &str,
        globals: Vec<Attr>,
        epsg: Option<u16>,
    ) -> Result<LineFile> {
        let (header, fixed) = layout(lines, time_units, globals, epsg);
        let mut f = LineFile { file: Appender::create(path, header, &fixed)? };
        f.append(lines)?;
        Ok(f)
    }

    /// Append the samples of `lines` past those the file holds (all at once: one sync).
    pub fn append(&mut self, lines: &[LineSeries]) -> Result<()> {
        let Some(first) = lines.first() else { return Ok(()) };
        let from = self.file.records() as usize;
        let records: Vec<[Vec<u8>; 2]> = (from..first.times.len())
            .map(|k| [first.times[k].to_be_bytes().to_vec(), doubles(lines.iter().map(|l| l.discharge[k]))])
            .collect();
        self.file.append_all(&records)
    }
}
