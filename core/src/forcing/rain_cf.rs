//! What CF says of a NetCDF variable of rain, as `rain_netcdf.rs` reads it: its unit (a rate
//! or a depth a frame), how its stored values become values (packing, fill values), which
//! dimension is which axis, the regular cell centres of a projected axis, and the coordinate
//! system its grid mapping declares.

use crate::input::Raster;
use crate::input::crs::{prj_epsg, prj_is_geographic, refuse_crs};
use crate::output::netcdf::cf::{FILL_F32, FILL_F64};
use crate::output::netcdf::classic::{Type, Var};

/// What a rain variable's values are: intensities (the factor to m/s) or depths fallen over
/// each frame (the factor to m), which become intensities over the frame's span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum RainUnit {
    Rate(f64),
    Depth(f64),
}

const MM_H: f64 = 1e-3 / 3600.0;

/// Units of rain as case files and CF files write them (lower case, UDUNITS' `.`, `^` and
/// `**` read as spaces): 1 kg m⁻² of water is 1 mm.
const UNITS: &[(&[&str], RainUnit)] = &[
    (&["mm/h", "mm/hr", "mm/hour", "mm h-1", "mm hr-1", "mm hour-1", "kg m-2 h-1", "kg/m2/h"], RainUnit::Rate(MM_H)),
    (
        &["mm/day", "mm/d", "mm day-1", "mm d-1", "kg m-2 day-1", "kg m-2 d-1", "kg/m2/day", "kg/m2/d"],
        RainUnit::Rate(1e-3 / 86400.0),
    ),
    (&["mm/min", "mm min-1", "kg m-2 min-1"], RainUnit::Rate(1e-3 / 60.0)),
    (&["mm/s", "mm s-1", "kg m-2 s-1", "kg/m2/s"], RainUnit::Rate(1e-3)),
    (&["m/s", "m s-1"], RainUnit::Rate(1.0)),
    (&["mm", "millimetres", "millimeters", "kg m-2", "kg/m2"], RainUnit::Depth(1e-3)),
    (&["m", "metres", "meters"], RainUnit::Depth(1.0)),
];

/// What [`rain_unit`] reads, for messages.
pub(super) const KNOWN_UNITS: &str =
    "mm/h, mm/day, mm/min, mm/s, m/s (kg m-2 s-1 and the like), or a depth each frame: mm, m (kg m-2)";

/// The unit `text` names, if it is one of rain's.
pub(super) fn rain_unit(text: &str) -> Option<RainUnit> {
    let t = text.trim().to_ascii_lowercase().replace("**", "").replace('^', "").replace('.', " ");
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    UNITS.iter().find(|(names, _)| names.contains(&t.as_str())).map(|&(_, u)| u)
}

/// How a variable's stored numbers become values: CF's packing (`scale_factor`, `add_offset`)
/// and the numbers that mean no value (`_FillValue`, else netCDF's default fill of the type;
/// and `missing_value`), compared as stored, before unpacking.
pub(super) struct Packing {
    scale: f64,
    offset: f64,
    fills: Vec<f64>,
}

impl Packing {
    pub fn of(v: &Var) -> Packing {
        let first = |name: &str| v.attr(name).and_then(|a| a.numbers()).and_then(|n| n.first().copied());
        let unsigned = v.text("_Unsigned").is_some_and(|u| u.eq_ignore_ascii_case("true"));
        let default_fill = match (v.ty, unsigned) {
            (Type::Byte, false) => -127.0,
            (Type::Byte, true) => 255.0,
            (Type::Short, false) => -32767.0,
            (Type::Short, true) => 65535.0,
            (Type::Int, false) => -2147483647.0,
            (Type::Int, true) => 4294967295.0,
            (Type::Float, _) => FILL_F32 as f64,
            (Type::Double | Type::Char, _) => FILL_F64,
        };
        let mut fills = vec![first("_FillValue").unwrap_or(default_fill)];
        fills.extend(v.attr("missing_value").and_then(|a| a.numbers()).unwrap_or_default());
        Packing { scale: first("scale_factor").unwrap_or(1.0), offset: first("add_offset").unwrap_or(0.0), fills }
    }

    /// The value a stored number stands for; None for a fill value.
    pub fn value(&self, stored: f64) -> Option<f64> {
        let fill = self.fills.iter().any(|&f| f == stored || (f.is_nan() && stored.is_nan()));
        (!fill).then_some(stored * self.scale + self.offset)
    }
}

/// What a coordinate variable is, by its CF attributes (`standard_name`, `axis`, `units`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Axis {
    Time,
    X,
    Y,
    /// Degrees of longitude or latitude (or a rotated pole's): not metres on a plane.
    Degrees,
    /// Nothing says: taken by its place, CF's order (time, y, x).
    Unknown,
}

pub(super) fn axis_of(v: &Var) -> Axis {
    let attr = |n: &str| v.text(n).map(|s| s.trim().to_ascii_lowercase()).unwrap_or_default();
    let (name, axis, units) = (attr("standard_name"), attr("axis"), attr("units"));
    if name == "time" || axis == "t" || units.contains(" since ") {
        Axis::Time
    } else if units.starts_with("degree")
        || ["longitude", "latitude", "grid_longitude", "grid_latitude"].contains(&name.as_str())
    {
        Axis::Degrees
    } else if name == "projection_x_coordinate" || axis == "x" {
        Axis::X
    } else if name == "projection_y_coordinate" || axis == "y" {
        Axis::Y
    } else {
        Axis::Unknown
    }
}

/// The length in metres of a projected coordinate's unit (metres when it gives none).
pub(super) fn metres_of(v: &Var) -> Result<f64, String> {
    let units = v.text("units").map(|s| s.trim().to_ascii_lowercase()).unwrap_or_default();
    match units.as_str() {
        "" | "m" | "metre" | "metres" | "meter" | "meters" => Ok(1.0),
        "km" | "kilometre" | "kilometres" | "kilometer" | "kilometers" => Ok(1000.0),
        u => Err(format!("the coordinate {} is in '{u}': positions are read in m or km", v.name)),
    }
}

/// An axis of regular cells: the lower edge (m), the cells' size (m, positive) and whether
/// the file stores them from the upper end (y north to south, or x east to west).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cells {
    pub lower: f64,
    pub size: f64,
    pub reversed: bool,
}

/// The cells whose centres are `centres` (m), or why they are not regular. `single` says the
/// coordinate is stored in single precision, which its spacing is checked to.
pub(super) fn regular(name: &str, centres: &[f64], single: bool) -> Result<Cells, String> {
    let n = centres.len();
    if let Some(k) = centres.iter().position(|v| !v.is_finite()) {
        return Err(format!("{name}[{k}] is {}: coordinates must be finite", centres[k]));
    }
    if n < 2 {
        return Err(format!(
            "{n} cell along {name}: its spacing is unknown; a rain grid has at least two cells along x and y"
        ));
    }
    let d = (centres[n - 1] - centres[0]) / (n - 1) as f64;
    // A spacing is regular to a ten-thousandth of a cell beside the coordinates' own rounding.
    let eps = if single { f32::EPSILON as f64 } else { f64::EPSILON };
    let big = centres.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let slack = 1e-4 * d.abs() + 4.0 * eps * big;
    let off = (0..n).find(|&k| (centres[k] - (centres[0] + k as f64 * d)).abs() > slack);
    if let Some(k) = off {
        return Err(format!(
            "{name}[{k}] = {} m, where a constant spacing of {} m from {name}[0] = {} m puts {} m: the rain grid's cells must be regular",
            crate::case::num(centres[k]),
            crate::case::num(d),
            crate::case::num(centres[0]),
            crate::case::num(centres[0] + k as f64 * d)
        ));
    }
    if d == 0.0 {
        return Err(format!("{name} holds one position {n} times: the rain grid's cells must be regular"));
    }
    Ok(Cells { lower: centres[0].min(centres[n - 1]) - 0.5 * d.abs(), size: d.abs(), reversed: d < 0.0 })
}

/// The EPSG code of the projected system the grid mapping `gm` declares (`crs_wkt` or
/// `spatial_ref` WKT, or `epsg_code`), if it names one; a geographic system is refused as a
/// raster in degrees is, naming `file`.
pub(super) fn grid_mapping_epsg(file: &str, gm: &Var) -> crate::Result<Option<u16>> {
    let wkt = gm.text("crs_wkt").or_else(|| gm.text("spatial_ref"));
    if gm.text("grid_mapping_name").is_some_and(|n| n.trim() == "latitude_longitude") {
        let why = format!("its grid mapping {} is latitude_longitude (degrees)", gm.name);
        return Err(refuse_crs(file, &why));
    }
    if let Some(w) = wkt {
        if prj_is_geographic(w) {
            let why = format!("its grid mapping {} declares a geographic coordinate system (degrees)", gm.name);
            return Err(refuse_crs(file, &why));
        }
        if let Some(code) = prj_epsg(w) {
            return Ok(Some(code));
        }
    }
    let code = match gm.attr("epsg_code") {
        Some(crate::output::netcdf::classic::Value::Text(t)) => {
            t.trim().trim_start_matches("EPSG:").trim_start_matches("epsg:").parse::<u16>().ok()
        }
        Some(other) => other.numbers().and_then(|n| n.first().copied()).and_then(|c| u16::try_from(c as i64).ok()),
        None => None,
    };
    Ok(code)
}

/// A raster of `nx × ny` cells over `x` and `y` with no values yet, for the cells' positions:
/// what a rain frame of the file fills.
pub(super) fn shape(name: &str, x: Cells, y: Cells, nx: usize, ny: usize, epsg: Option<u16>) -> Raster {
    Raster {
        name: name.to_string(),
        ncols: nx,
        nrows: ny,
        west: x.lower,
        south: y.lower,
        dx: x.size,
        dy: y.size,
        values: Vec::new(),
        valid: Vec::new(),
        epsg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::netcdf::classic::{Attr, Value};

    #[test]
    fn units_of_rain_as_files_write_them() {
        for mm_h in ["mm/h", "mm h-1", "mm.h-1", "mm h^-1", "mm h**-1", " MM/HR ", "kg m-2 h-1"] {
            assert_eq!(rain_unit(mm_h), Some(RainUnit::Rate(MM_H)), "{mm_h}");
        }
        assert_eq!(rain_unit("kg m-2 s-1"), Some(RainUnit::Rate(1e-3)));
        assert_eq!(rain_unit("mm/day"), Some(RainUnit::Rate(1e-3 / 86400.0)));
        assert_eq!(rain_unit("kg m-2"), Some(RainUnit::Depth(1e-3)));
        assert_eq!(rain_unit("m"), Some(RainUnit::Depth(1.0)));
        for not in ["dBZ", "in/h", "mm/month", ""] {
            assert_eq!(rain_unit(not), None, "{not}");
        }
    }

    #[test]
    fn regular_cells_either_way_to_their_stored_precision() {
        let up = regular("x", &[5.0, 15.0, 25.0], false).unwrap();
        assert_eq!(up, Cells { lower: 0.0, size: 10.0, reversed: false });
        let down = regular("y", &[25.0, 15.0, 5.0], false).unwrap();
        assert_eq!(down, Cells { lower: 0.0, size: 10.0, reversed: true });
        // UTM northings in single precision: rounded to half a metre at 5e6 m.
        let north: Vec<f64> = (0..50).map(|k| (5_000_000.0 + 100.0 * k as f64 + 50.0) as f32 as f64).collect();
        assert!(regular("y", &north, true).is_ok());
        assert!(regular("y", &north.iter().map(|v| v + 0.3).collect::<Vec<_>>(), false).is_ok());
        let mut bent = north.clone();
        bent[7] += 20.0;
        assert!(regular("y", &bent, true).unwrap_err().contains("y[7]"));
        assert!(regular("x", &[5.0], false).unwrap_err().contains("at least two"));
        assert!(regular("x", &[5.0, 5.0], false).unwrap_err().contains("regular"));
        assert!(regular("x", &[5.0, f64::NAN], false).unwrap_err().contains("finite"));
    }

    #[test]
    fn packing_and_fill_values_as_stored() {
        let var = |ty: Type, attrs: Vec<Attr>| Var { name: "rain".into(), dims: vec![], attrs, ty, begin: 0 };
        let shorts = var(
            Type::Short,
            vec![
                Attr { name: "scale_factor".into(), value: Value::Floats(vec![0.5]) },
                Attr { name: "add_offset".into(), value: Value::Floats(vec![1.0]) },
                Attr { name: "_FillValue".into(), value: Value::Shorts(vec![-1]) },
                Attr { name: "missing_value".into(), value: Value::Shorts(vec![-2, -3]) },
            ],
        );
        let p = Packing::of(&shorts);
        assert_eq!(
            [4.0, -1.0, -2.0, -3.0, -32767.0].map(|s| p.value(s)),
            [Some(3.0), None, None, None, Some(-16382.5)]
        );
        // Without _FillValue, netCDF's default fill of the type.
        let floats = Packing::of(&var(Type::Float, vec![]));
        assert_eq!(floats.value(FILL_F32 as f64), None);
        assert_eq!(floats.value(2.5), Some(2.5));
        assert_eq!(Packing::of(&var(Type::Short, vec![])).value(-32767.0), None);
    }
}
