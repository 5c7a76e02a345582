//! The CF layout of a run's file: coordinates of the cell centres (and faces, for staggered
//! fields) in metres, the time of each record, and every output field as a variable with CF
//! attributes. docs/netcdf.md lists what is written and why.

use super::classic::{Attr, Dim, Header, Type, Value, Var};
use crate::grid::Mesh;
use crate::model::Output;
use crate::{Error, Result};

/// What the netCDF library fills unwritten `float` and `double` values with (NC_FILL_FLOAT,
/// NC_FILL_DOUBLE): stated as `_FillValue` so that GIS clients know it for "no data".
pub const FILL_F64: f64 = 9.969_209_968_386_869e36;
pub const FILL_F32: f32 = FILL_F64 as f32;

/// One axis of the mesh: its name, the cell centres along it, and its cell edges (one more).
struct Axis {
    name: &'static str,
    centres: Vec<f64>,
    edges: Vec<f64>,
}

fn axis(name: &'static str, origin: f64, d: f64, n: usize) -> Axis {
    Axis {
        name,
        centres: (0..n).map(|i| origin + (i as f64 + 0.5) * d).collect(),
        edges: (0..=n).map(|i| origin + i as f64 * d).collect(),
    }
}

/// The axes in NumPy order (slowest first): y, x on a plane; z, y, x in a volume.
fn axes(mesh: &Mesh) -> Vec<Axis> {
    match mesh {
        Mesh::Plane(g) => vec![axis("y", g.origin.1, g.dy, g.ny), axis("x", g.origin.0, g.dx, g.nx)],
        Mesh::Volume(g) => vec![
            axis("z", g.origin.2, g.dz, g.nz),
            axis("y", g.origin.1, g.dy, g.ny),
            axis("x", g.origin.0, g.dx, g.nx),
        ],
    }
}

/// A unit as UDUNITS (and so CF) spells it: `m²/s` is `m2 s-1`.
pub fn udunits(units: &str) -> String {
    let plain = |s: &str| s.trim().replace('²', "2").replace('³', "3");
    match units.split_once('/') {
        None => plain(units),
        Some((num, den)) => {
            let den = plain(den);
            let base = den.trim_end_matches(|c: char| c.is_ascii_digit());
            let power = &den[base.len()..];
            let power = if power.is_empty() { "1" } else { power };
            format!("{} {base}-{power}", plain(num))
        }
    }
}

/// The CF standard name of a field, where the CF table has one that means exactly it: the
/// depth of the water column. Other fields (momenta, sand fraction, acoustic pressure) have no
/// standard name that fits and carry their long name only.
fn standard_name(f: &FieldSpec) -> Option<&'static str> {
    let depth = f.name == "h" && (f.long_name == "water depth" || f.long_name.starts_with("total depth"));
    depth.then_some("sea_floor_depth_below_sea_surface")
}

/// The record coordinate `time` (dimension 0, the unlimited one), in the solver's unit, or in
/// `"seconds since <date>"` with the standard calendar where the case gives its start date.
pub fn time_variable(long_name: &str, time_units: &str) -> Var {
    let mut attrs = vec![
        Attr::text("standard_name", "time"),
        Attr::text("long_name", long_name),
        Attr::text("units", time_units),
        Attr::text("axis", "T"),
    ];
    if time_units.contains(" since ") {
        attrs.push(Attr::text("calendar", "standard"));
    }
    Var { name: "time".into(), dims: vec![0], attrs, ty: Type::Double, begin: 0 }
}

/// The unit a time coordinate counts in: "s" for "seconds since …" (CF's form with a reference
/// date), else the units as written.
pub fn time_unit_of(units: &str) -> &str {
    match units.split_once(" since ") {
        Some(("seconds", _)) => "s",
        Some((unit, _)) => unit,
        None => units,
    }
}

/// What the header needs of a field: its name, description and NumPy shape.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldSpec {
    pub name: String,
    pub long_name: String,
    pub units: String,
    pub dims: Vec<usize>,
}

impl FieldSpec {
    pub fn of<T>(f: &Output<T>) -> FieldSpec {
        FieldSpec { name: f.name.into(), long_name: f.long_name.into(), units: f.units.into(), dims: f.dims.clone() }
    }
}

/// What a run's files carry for GIS beyond its fields: the EPSG code of the coordinate system
/// its rasters declare, the bed elevation of each cell for a solver whose depth lies over a
/// bed (then each record holds the surface h + bed too), and which cells are in the domain
/// where some are not (the others hold the fill value in every map: no data).
#[derive(Clone, Copy, Debug, Default)]
pub struct Geo<'a> {
    pub epsg: Option<u16>,
    pub bed: Option<&'a [f64]>,
    pub active: Option<&'a [bool]>,
}

/// The grid-mapping variable's name, which every map's `grid_mapping` names.
pub const CRS: &str = "crs";

/// The grid-mapping variable of the system EPSG:`epsg` (a scalar int whose attributes are the
/// point): `epsg_code` always; for the WGS 84 UTM zones (EPSG 32601–32660, 32701–32760) CF's
/// `transverse_mercator` parameters and the WKT as `crs_wkt` (CF) and `spatial_ref` (what
/// GDAL reads). Other codes get the code alone: their definitions are not carried here.
pub fn crs_variable(epsg: u16) -> Var {
    use crate::input::crs::{utm_parameters, utm_wkt, utm_zone};
    let num = |name: &str, v: f64| Attr { name: name.into(), value: Value::Doubles(vec![v]) };
    let mut attrs = Vec::new();
    if let (Some((zone, north)), Some(wkt)) = (utm_zone(epsg), utm_wkt(epsg)) {
        let (meridian, k, fe, fn_) = utm_parameters(zone, north);
        let hemisphere = if north { 'N' } else { 'S' };
        attrs.extend([
            Attr::text("grid_mapping_name", "transverse_mercator"),
            num("longitude_of_central_meridian", meridian),
            num("latitude_of_projection_origin", 0.0),
            num("scale_factor_at_central_meridian", k),
            num("false_easting", fe),
            num("false_northing", fn_),
            num("semi_major_axis", 6_378_137.0),
            num("inverse_flattening", 298.257_223_563),
            num("longitude_of_prime_meridian", 0.0),
            Attr::text("projected_crs_name", format!("WGS 84 / UTM zone {zone}{hemisphere}")),
            Attr::text("geographic_crs_name", "WGS 84"),
            Attr::text("crs_wkt", wkt.clone()),
            Attr::text("spatial_ref", wkt),
        ]);
    } else {
        attrs.push(Attr::text("long_name", format!("coordinate reference system EPSG:{epsg}")));
    }
    attrs.push(Attr::text("epsg_code", format!("EPSG:{epsg}")));
    Var { name: CRS.into(), dims: Vec::new(), attrs, ty: Type::Int, begin: 0 }
}

/// Add the grid-mapping variable of `epsg` (if any) to `vars` (its value, 0, to `fixed`) and
/// name it in each of `maps`' `grid_mapping`.
pub fn add_crs(epsg: Option<u16>, vars: &mut Vec<Var>, fixed: &mut Vec<Vec<u8>>, maps: &mut [Var]) {
    let Some(code) = epsg else { return };
    vars.push(crs_variable(code));
    fixed.push(0i32.to_be_bytes().to_vec());
    for m in maps {
        m.attrs.push(Attr::text("grid_mapping", CRS));
    }
}

/// The header of a run's file (placed, no records) and the bytes of its fixed-size variables
/// (the coordinates, the bed), for fields `fields` of values of `ty` (float or double) on
/// `mesh`. `time_units` is the solver's unit of time; `globals` the global attributes; `geo`
/// the coordinate system and the bed ([`Geo`]; the caller lists the surface among `fields`);
/// `more` adds what follows the fields (dimensions, variables and fixed variables' bytes: a
/// run's water account, `account.rs`).
pub fn layout(
    mesh: &Mesh,
    fields: &[FieldSpec],
    ty: Type,
    time_units: &str,
    globals: Vec<Attr>,
    geo: &Geo,
    more: impl FnOnce(&mut Vec<Dim>, &mut Vec<Var>, &mut Vec<Vec<u8>>),
) -> Result<(Header, Vec<Vec<u8>>)> {
    let axes = axes(mesh);
    let mut dims = vec![Dim { name: "time".into(), len: 0 }];
    let mut vars = Vec::new();
    let mut fixed = Vec::new();
    vars.push(time_variable("simulated time since the start of the run", time_units));
    // A coordinate variable for each axis a field uses, centres or faces, made on first use.
    let mut coordinate = |name: String, values: &[f64], long_name: String, axis: &str| -> usize {
        if let Some(k) = dims.iter().position(|d| d.name == name) {
            return k;
        }
        dims.push(Dim { name: name.clone(), len: values.len() as u64 });
        let mut attrs = vec![Attr::text("long_name", long_name), Attr::text("units", "m")];
        match axis {
            "x" | "y" => attrs.insert(0, Attr::text("standard_name", format!("projection_{axis}_coordinate"))),
            _ => attrs.extend([Attr::text("axis", "Z"), Attr::text("positive", "up")]),
        }
        vars.push(Var { name, dims: vec![dims.len() - 1], attrs, ty: Type::Double, begin: 0 });
        fixed.push(values.iter().flat_map(|v| v.to_be_bytes()).collect());
        dims.len() - 1
    };
    // The centres first, so that x, y (and z) come first whatever the fields are.
    for a in axes.iter().rev() {
        coordinate(a.name.into(), &a.centres, format!("{} of the cell centres", a.name), a.name);
    }
    let mut data = Vec::new();
    for f in fields {
        if f.dims.len() != axes.len() {
            return Err(Error::invalid(format!(
                "netcdf: field {} has shape {:?}, not one of the mesh's {} axes",
                f.name,
                f.dims,
                axes.len()
            )));
        }
        let mut ids = vec![0];
        for (a, &n) in axes.iter().zip(&f.dims) {
            let id = if n == a.centres.len() {
                coordinate(a.name.into(), &a.centres, format!("{} of the cell centres", a.name), a.name)
            } else if n == a.edges.len() {
                let long = format!("{} of the cell faces normal to {}", a.name, a.name);
                coordinate(format!("{}_face", a.name), &a.edges, long, a.name)
            } else {
                return Err(Error::invalid(format!(
                    "netcdf: field {} has {n} values along {}, where the mesh has {} cells",
                    f.name,
                    a.name,
                    a.centres.len()
                )));
            };
            ids.push(id);
        }
        let mut attrs = vec![Attr::text("long_name", f.long_name.clone()), Attr::text("units", udunits(&f.units))];
        if let Some(s) = standard_name(f) {
            attrs.insert(0, Attr::text("standard_name", s));
        }
        attrs.push(Attr {
            name: "_FillValue".into(),
            value: match ty {
                Type::Float => Value::Floats(vec![FILL_F32]),
                _ => Value::Doubles(vec![FILL_F64]),
            },
        });
        data.push(Var { name: f.name.clone(), dims: ids, attrs, ty, begin: 0 });
    }
    if let (Some(bed), Mesh::Plane(g)) = (geo.bed, mesh) {
        let at = |name: &str| dims.iter().position(|d| d.name == name).expect("the centres are made first");
        if bed.len() != g.nx * g.ny {
            return Err(Error::invalid(format!("netcdf: a bed of {} values on {}×{} cells", bed.len(), g.nx, g.ny)));
        }
        let attrs = vec![
            Attr::text("long_name", "bed elevation (the depth h lies over it; surface = h + bed)"),
            Attr::text("units", "m"),
            Attr::text("positive", "up"),
            Attr { name: "_FillValue".into(), value: Value::Doubles(vec![FILL_F64]) },
        ];
        vars.push(Var { name: "bed".into(), dims: vec![at("y"), at("x")], attrs, ty: Type::Double, begin: 0 });
        fixed.push(crate::output::outside_as(bed, geo.active, FILL_F64).iter().flat_map(|v| v.to_be_bytes()).collect());
    }
    let planes = vars.len();
    add_crs(geo.epsg, &mut vars, &mut fixed, &mut data);
    if let (Some(_), Some(bed)) = (geo.epsg, vars[..planes].iter_mut().find(|v| v.name == "bed")) {
        bed.attrs.push(Attr::text("grid_mapping", CRS));
    }
    vars.extend(data);
    more(&mut dims, &mut vars, &mut fixed);
    let mut header = Header { offset64: true, numrecs: 0, dims, attrs: globals, vars };
    header.place();
    // The classic format states a slab's size in 32 bits.
    for v in &header.vars {
        let bytes = header.slab_bytes(v).unwrap_or(u64::MAX);
        if bytes > u64::from(u32::MAX - 3) {
            return Err(Error::invalid(format!(
                "netcdf: field {} takes {bytes} bytes a snapshot, more than the 4 GiB a variable of a 64-bit offset NetCDF file can hold; write npy instead",
                v.name
            )));
        }
    }
    Ok((header, fixed))
}
