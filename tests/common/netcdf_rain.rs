//! NetCDF files of rain frames the tests write through the independent `netcdf3` crate (not the
//! reader's code path): a variable over (time, y, x) with CF coordinate variables, stored as
//! float, double or packed shorts, south or north row first, time fixed or unlimited.

use std::path::Path;

/// An attribute's value.
#[derive(Clone, Debug)]
pub enum Attr {
    Text(String),
    F32(f32),
    F64(f64),
    I16(i16),
}

/// The rain's numbers as stored, (time, y, x) with x fastest.
#[derive(Clone, Debug)]
pub enum Stored {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I16(Vec<i16>),
}

/// A NetCDF file of rain; each field is written as it is.
#[derive(Clone, Debug)]
pub struct RainNc {
    pub var: String,
    /// Coordinates as stored.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub times: Vec<f64>,
    pub time_units: String,
    /// `time_bnds` (two a time) and the time coordinate's `bounds` naming it.
    pub bounds: Option<Vec<f64>>,
    /// Time the unlimited (record) dimension.
    pub record: bool,
    pub data: Stored,
    /// The rain variable's attributes.
    pub attrs: Vec<(String, Attr)>,
    /// Attributes of x and y (both), besides their `axis`.
    pub xy_attrs: Vec<(String, Attr)>,
    /// A grid mapping variable `crs` with these attributes, which the rain's `grid_mapping` names.
    pub crs: Option<Vec<(String, Attr)>>,
}

impl RainNc {
    /// Frames `value(k, i, j)` mm/h at cell (i, j) (from the south-west) of `nx × ny` cells of
    /// `cell` m from (`west`, `south`), at `times` in `time_units`: floats, y from the south,
    /// time a fixed dimension.
    pub fn new(
        (nx, ny): (usize, usize),
        (west, south): (f64, f64),
        cell: f64,
        times: &[f64],
        time_units: &str,
        value: impl Fn(usize, usize, usize) -> f64,
    ) -> RainNc {
        let mut data = Vec::new();
        for k in 0..times.len() {
            for j in 0..ny {
                for i in 0..nx {
                    data.push(value(k, i, j) as f32);
                }
            }
        }
        let centres = |start: f64, n: usize| (0..n).map(|i| start + (i as f64 + 0.5) * cell).collect::<Vec<_>>();
        RainNc {
            var: "rain".into(),
            x: centres(west, nx),
            y: centres(south, ny),
            times: times.to_vec(),
            time_units: time_units.into(),
            bounds: None,
            record: false,
            data: Stored::F32(data),
            attrs: vec![("units".into(), Attr::Text("mm/h".into()))],
            xy_attrs: vec![("units".into(), Attr::Text("m".into()))],
            crs: None,
        }
    }

    /// The rows stored north first, y decreasing.
    pub fn north_first(mut self) -> RainNc {
        let (nx, ny) = (self.x.len(), self.y.len());
        self.y.reverse();
        match &mut self.data {
            Stored::F32(v) => flip_rows(v, nx, ny),
            Stored::F64(v) => flip_rows(v, nx, ny),
            Stored::I16(v) => flip_rows(v, nx, ny),
        }
        self
    }

    /// The values stored as doubles.
    pub fn doubles(mut self) -> RainNc {
        if let Stored::F32(v) = &self.data {
            self.data = Stored::F64(v.iter().map(|&x| x as f64).collect());
        }
        self
    }

    /// The values packed as shorts, value = stored · scale + offset (each exactly so).
    pub fn packed(mut self, scale: f32, offset: f32) -> RainNc {
        if let Stored::F32(v) = &self.data {
            let stored: Vec<i16> = v.iter().map(|&x| ((x - offset) / scale).round() as i16).collect();
            self.data = Stored::I16(stored);
        }
        self.attrs.push(("scale_factor".into(), Attr::F32(scale)));
        self.attrs.push(("add_offset".into(), Attr::F32(offset)));
        self
    }

    pub fn attr(mut self, name: &str, value: Attr) -> RainNc {
        self.attrs.retain(|(n, _)| n != name);
        self.attrs.push((name.into(), value));
        self
    }

    pub fn write(&self, path: &Path) {
        use netcdf3::{DataSet, FileWriter, Version};
        let mut ds = DataSet::new();
        let nt = self.times.len();
        if self.record {
            ds.set_unlimited_dim("time", nt).unwrap();
        } else {
            ds.add_fixed_dim("time", nt).unwrap();
        }
        ds.add_fixed_dim("y", self.y.len()).unwrap();
        ds.add_fixed_dim("x", self.x.len()).unwrap();
        ds.add_var_f64("time", &["time"]).unwrap();
        ds.add_var_attr_string("time", "units", &self.time_units).unwrap();
        ds.add_var_attr_string("time", "standard_name", "time").unwrap();
        if self.bounds.is_some() {
            ds.add_fixed_dim("nv", 2).unwrap();
            ds.add_var_f64("time_bnds", &["time", "nv"]).unwrap();
            ds.add_var_attr_string("time", "bounds", "time_bnds").unwrap();
        }
        for (name, axis, standard) in [("y", "Y", "projection_y_coordinate"), ("x", "X", "projection_x_coordinate")] {
            ds.add_var_f64(name, &[name]).unwrap();
            ds.add_var_attr_string(name, "axis", axis).unwrap();
            ds.add_var_attr_string(name, "standard_name", standard).unwrap();
            for (a, v) in &self.xy_attrs {
                put(&mut ds, name, a, v);
            }
        }
        let dims = ["time", "y", "x"];
        match &self.data {
            Stored::F32(_) => ds.add_var_f32(&self.var, &dims).unwrap(),
            Stored::F64(_) => ds.add_var_f64(&self.var, &dims).unwrap(),
            Stored::I16(_) => ds.add_var_i16(&self.var, &dims).unwrap(),
        }
        for (a, v) in &self.attrs {
            put(&mut ds, &self.var, a, v);
        }
        if let Some(crs) = &self.crs {
            ds.add_var_i32::<&str>("crs", &[]).unwrap();
            for (a, v) in crs {
                put(&mut ds, "crs", a, v);
            }
            ds.add_var_attr_string(&self.var, "grid_mapping", "crs").unwrap();
        }
        let _ = std::fs::remove_file(path);
        let mut w = FileWriter::create_new(path).unwrap();
        w.set_def(&ds, Version::Offset64Bit, 0).unwrap();
        w.write_var_f64("time", &self.times).unwrap();
        if let Some(b) = &self.bounds {
            w.write_var_f64("time_bnds", b).unwrap();
        }
        w.write_var_f64("y", &self.y).unwrap();
        w.write_var_f64("x", &self.x).unwrap();
        if self.crs.is_some() {
            w.write_var_i32("crs", &[0]).unwrap();
        }
        match &self.data {
            Stored::F32(v) => w.write_var_f32(&self.var, v).unwrap(),
            Stored::F64(v) => w.write_var_f64(&self.var, v).unwrap(),
            Stored::I16(v) => w.write_var_i16(&self.var, v).unwrap(),
        }
        w.close().unwrap();
    }
}

/// Each frame of `ny` rows of `nx` values with its rows in reverse order.
fn flip_rows<T: Clone>(v: &mut Vec<T>, nx: usize, ny: usize) {
    let rows: Vec<&[T]> = v.chunks(nx).collect();
    *v = rows.chunks(ny).flat_map(|frame| frame.iter().rev().flat_map(|r| r.iter().cloned())).collect();
}

fn put(ds: &mut netcdf3::DataSet, var: &str, name: &str, value: &Attr) {
    match value {
        Attr::Text(t) => ds.add_var_attr_string(var, name, t),
        Attr::F32(v) => ds.add_var_attr_f32(var, name, vec![*v]),
        Attr::F64(v) => ds.add_var_attr_f64(var, name, vec![*v]),
        Attr::I16(v) => ds.add_var_attr_i16(var, name, vec![*v]),
    }
    .unwrap();
}
