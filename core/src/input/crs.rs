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

/// Refuse a grid whose `.prj` beside it (`prj`; none is fine) declares a geographic coordinate
/// system: WKT with a GEOGCS (GEOGCRS) and no PROJCS (PROJCRS), or Esri's older
/// `Projection GEOGRAPHIC`.
pub fn check_prj(name: &str, prj: &Path) -> Result<()> {
    if !prj.is_file() {
        return Ok(());
    }
    let text = crate::files::read_text(prj, MAX_PRJ_BYTES, "projection (.prj) file")?;
    if prj_is_geographic(&text) {
        let why = format!("{} declares a geographic coordinate system (GEOGCS without PROJCS: degrees)", prj.display());
        return Err(refuse_crs(name, &why));
    }
    Ok(())
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
