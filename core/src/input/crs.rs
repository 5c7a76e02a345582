//! Coordinate systems of rasters, as far as they are read: a GeoTIFF's GeoKeys ([`Crs`]) and an
//! Esri grid's `.prj` file beside it ([`check_prj`]). hydrokern reads positions in metres on a
//! plane, so a raster in degrees is refused in one line ([`refuse_crs`]).

use crate::{Error, Result};
use std::path::Path;

const GT_MODEL_TYPE: u16 = 1024;
const MODEL_GEOGRAPHIC: u16 = 2;
const MODEL_GEOCENTRIC: u16 = 3;
const GEOGRAPHIC_TYPE: u16 = 2048;
const PROJECTED_CS_TYPE: u16 = 3072;
/// The GeoTIFF code of a user-defined system (no EPSG code).
const USER_DEFINED: u16 = 32767;

/// The coordinate system a GeoTIFF's GeoKeys declare, as far as it is read: its model type and
/// EPSG codes. Keys a file leaves out are `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Crs {
    /// GTModelTypeGeoKey: 1 projected, 2 geographic, 3 geocentric.
    pub model: Option<u16>,
    /// GeographicTypeGeoKey: the EPSG code of the geographic system (4326 for WGS 84).
    pub geographic: Option<u16>,
    /// ProjectedCSTypeGeoKey: the EPSG code of the projected system (32633 for UTM 33N).
    pub projected: Option<u16>,
}

impl Crs {
    /// From the GeoKeys' (id, inline value) pairs.
    pub fn of(keys: &[(u16, u16)]) -> Crs {
        let key = |id: u16| keys.iter().find(|k| k.0 == id).map(|k| k.1);
        Crs { model: key(GT_MODEL_TYPE), geographic: key(GEOGRAPHIC_TYPE), projected: key(PROJECTED_CS_TYPE) }
    }

    /// The EPSG code of the system positions are in: the projected one, else the geographic.
    pub fn epsg(&self) -> Option<u16> {
        match self.model {
            Some(MODEL_GEOGRAPHIC) => self.geographic,
            _ => self.projected.or(self.geographic),
        }
        .filter(|&c| c != USER_DEFINED)
    }

    /// Why positions in this system are not metres on a plane, if they are not: a geographic
    /// system (degrees of latitude and longitude) or a geocentric one.
    pub fn not_metres(&self) -> Option<String> {
        let code = self.epsg().map(|c| format!("EPSG:{c}, ")).unwrap_or_default();
        match (self.model, self.geographic, self.projected) {
            (Some(MODEL_GEOGRAPHIC), ..) | (None, Some(_), None) => {
                Some(format!("a geographic coordinate system ({code}degrees of longitude and latitude)"))
            }
            (Some(MODEL_GEOCENTRIC), ..) => Some(format!("a geocentric coordinate system ({code}GTModelTypeGeoKey 3)")),
            _ => None,
        }
    }
}

/// The one line refusing a raster whose positions are not metres (`why`, from
/// [`Crs::not_metres`] or a `.prj` file).
pub fn refuse_crs(name: &str, why: &str) -> Error {
    Error::invalid(format!(
        "{name}: {why}: hydrokern reads positions in metres; reproject the raster to a projected CRS in metres, e.g. its UTM zone (gdalwarp -t_srs EPSG:326NN IN OUT)"
    ))
}

/// The largest `.prj` file read: a coordinate system's WKT is a few kilobytes.
const MAX_PRJ_BYTES: u64 = 1 << 16;

/// The EPSG code of the projected system a grid's `.prj` beside it (`prj`; none is fine)
/// declares, where it names one ([`prj_epsg`]); a `.prj` that declares a geographic coordinate
/// system (WKT with a GEOGCS (GEOGCRS) and no PROJCS (PROJCRS), or Esri's older
/// `Projection GEOGRAPHIC`) is refused.
pub fn check_prj(name: &str, prj: &Path) -> Result<Option<u16>> {
    if !prj.is_file() {
        return Ok(None);
    }
    let text = crate::files::read_text(prj, MAX_PRJ_BYTES, "projection (.prj) file")?;
    if prj_is_geographic(&text) {
        let why = format!("{} declares a geographic coordinate system (GEOGCS without PROJCS: degrees)", prj.display());
        return Err(refuse_crs(name, &why));
    }
    Ok(prj_epsg(&text))
}

/// The EPSG code a projected system's WKT names: the last `AUTHORITY["EPSG","n"]` (WKT 1) or
/// `ID["EPSG",n]` (WKT 2), which is the outermost node's, as each node closes with its own;
/// or, for Esri's WKT without authorities, a UTM zone on WGS 84 by its name
/// (`WGS_1984_UTM_Zone_33N` is 32633). None where neither is there.
pub fn prj_epsg(text: &str) -> Option<u16> {
    let t: String = text.to_ascii_uppercase().chars().filter(|c| !c.is_whitespace()).collect();
    if !(t.contains("PROJCS[") || t.contains("PROJCRS[")) {
        return None;
    }
    let last_code = |open: &str| {
        let at = t.rfind(open)? + open.len();
        let digits: String = t[at..].chars().skip_while(|c| *c == '"').take_while(char::is_ascii_digit).collect();
        digits.parse::<u16>().ok()
    };
    let coded = match (t.rfind("AUTHORITY[\"EPSG\","), t.rfind("ID[\"EPSG\",")) {
        (Some(a), Some(i)) if i > a => last_code("ID[\"EPSG\","),
        (Some(_), _) => last_code("AUTHORITY[\"EPSG\","),
        (None, Some(_)) => last_code("ID[\"EPSG\","),
        (None, None) => None,
    };
    coded.or_else(|| {
        let at = t.find("WGS_1984_UTM_ZONE_")? + "WGS_1984_UTM_ZONE_".len();
        let zone: String = t[at..].chars().take_while(char::is_ascii_digit).collect();
        let zone: u16 = zone.parse().ok().filter(|z| (1..=60).contains(z))?;
        match t[at..].chars().find(|c| !c.is_ascii_digit()) {
            Some('N') => Some(32600 + zone),
            Some('S') => Some(32700 + zone),
            _ => None,
        }
    })
}

/// The UTM zone (1 to 60) and hemisphere (true north) of a WGS 84 UTM code (EPSG 32601–32660
/// north, 32701–32760 south).
pub fn utm_zone(epsg: u16) -> Option<(u16, bool)> {
    match epsg {
        32601..=32660 => Some((epsg - 32600, true)),
        32701..=32760 => Some((epsg - 32700, false)),
        _ => None,
    }
}

/// The projection parameters of a UTM zone: central meridian (degrees), scale factor at it,
/// false easting and false northing (metres).
pub fn utm_parameters(zone: u16, north: bool) -> (f64, f64, f64, f64) {
    (f64::from(zone) * 6.0 - 183.0, 0.9996, 500_000.0, if north { 0.0 } else { 10_000_000.0 })
}

/// The OGC WKT 1 of a WGS 84 UTM code, as GDAL writes it (its `crs_wkt` / `spatial_ref`);
/// None for any other code, whose definition hydrokern does not carry.
pub fn utm_wkt(epsg: u16) -> Option<String> {
    let (zone, north) = utm_zone(epsg)?;
    let (meridian, k, fe, fn_) = utm_parameters(zone, north);
    let hemisphere = if north { 'N' } else { 'S' };
    Some(format!(
        "PROJCS[\"WGS 84 / UTM zone {zone}{hemisphere}\",GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563,AUTHORITY[\"EPSG\",\"7030\"]],AUTHORITY[\"EPSG\",\"6326\"]],PRIMEM[\"Greenwich\",0,AUTHORITY[\"EPSG\",\"8901\"]],UNIT[\"degree\",0.0174532925199433,AUTHORITY[\"EPSG\",\"9122\"]],AUTHORITY[\"EPSG\",\"4326\"]],PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"latitude_of_origin\",0],PARAMETER[\"central_meridian\",{meridian}],PARAMETER[\"scale_factor\",{k}],PARAMETER[\"false_easting\",{fe}],PARAMETER[\"false_northing\",{fn_}],UNIT[\"metre\",1,AUTHORITY[\"EPSG\",\"9001\"]],AXIS[\"Easting\",EAST],AXIS[\"Northing\",NORTH],AUTHORITY[\"EPSG\",\"{epsg}\"]]"
    ))
}

/// Whether a `.prj` file's text declares a geographic coordinate system.
pub fn prj_is_geographic(text: &str) -> bool {
    let t = text.to_ascii_uppercase();
    let has = |k: &str| t.contains(&format!("{k}["));
    let wkt_geographic = (has("GEOGCS") || has("GEOGCRS") || has("GEODCRS")) && !(has("PROJCS") || has("PROJCRS"));
    let esri_geographic = t.lines().any(|l| {
        let mut w = l.split_whitespace();
        w.next() == Some("PROJECTION") && w.next() == Some("GEOGRAPHIC")
    });
    wkt_geographic || esri_geographic
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prj_codes() {
        let gdal = utm_wkt(32633).unwrap();
        assert_eq!(prj_epsg(&gdal), Some(32633));
        assert!(gdal.contains("PARAMETER[\"central_meridian\",15]"), "{gdal}");
        assert!(utm_wkt(32733).unwrap().contains("PARAMETER[\"false_northing\",10000000]"));
        let esri = r#"PROJCS["WGS_1984_UTM_Zone_17S",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],UNIT["Meter",1.0]]"#;
        assert_eq!(prj_epsg(esri), Some(32717));
        let wkt2 =
            r#"PROJCRS["ETRS89 / LV95", BASEGEOGCRS["ETRS89", ID["EPSG",4258]], CONVERSION["x"], ID["EPSG",2056]]"#;
        assert_eq!(prj_epsg(wkt2), Some(2056));
        assert_eq!(prj_epsg(r#"PROJCS["local",UNIT["metre",1]]"#), None);
        assert_eq!(prj_epsg(r#"GEOGCS["WGS 84",AUTHORITY["EPSG","4326"]]"#), None);
        assert_eq!((utm_zone(32601), utm_zone(32760), utm_zone(32661)), (Some((1, true)), Some((60, false)), None));
    }
}
