use crate::{Error, Result};

/// Colour of NaN: loud on purpose, and in none of the colormaps, so missing data is never
/// mistaken for a value.
pub const NAN_COLOR: [u8; 3] = [255, 0, 255];

/// Colour of cells a map has no value for by its definition (water never arrived there): a
/// neutral grey in none of the colormaps, apart from land's colour and from NaN's, and keyed
/// under the colour bar with what it means ([`super::MapOptions::unset`]).
pub const UNSET_COLOR: [u8; 3] = [190, 190, 190];

/// The arrival map's key for its unset cells, drawn in [`UNSET_COLOR`].
pub const NEVER_ARRIVED: &str = "none (wet at t = 0 or never reached)";
/// The time of the maximum depth's key for its unset cells: never wet.
pub const NEVER_WET: &str = "none (never wet)";
/// The key of cells outside the domain (a bed raster's nodata), which hold no data.
pub const OUTSIDE: &str = "no data (outside the domain)";

/// A piecewise-linear colour table over [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Colormap {
    pub(super) stops: Vec<[u8; 3]>,
}

impl Colormap {
    /// matplotlib's viridis, sampled at 11 points: perceptually uniform, so equal steps in
    /// height or depth look equal, and readable in grey and by colour-blind readers.
    pub fn viridis() -> Colormap {
        let hex: [u32; 11] = [
            0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c, 0x22a884, 0x44bf70, 0x7ad151, 0xbddf26,
            0xfde725,
        ];
        Colormap { stops: hex.iter().map(|&c| [(c >> 16) as u8, (c >> 8) as u8, c as u8]).collect() }
    }

    /// Blue (low) through white to red (high), after ColorBrewer's RdBu: for signed quantities
    /// such as velocities or bed change, with a range symmetric about zero.
    pub fn diverging() -> Colormap {
        Colormap {
            stops: vec![
                [33, 102, 172],
                [67, 147, 195],
                [146, 197, 222],
                [209, 229, 240],
                [255, 255, 255],
                [253, 219, 199],
                [244, 165, 130],
                [214, 96, 77],
                [178, 24, 43],
            ],
        }
    }

    /// A colormap through `stops`, evenly spaced; at least two are needed.
    pub fn from_stops(stops: Vec<[u8; 3]>) -> Result<Colormap> {
        if stops.len() < 2 {
            return Err(Error::invalid(format!("a colormap needs at least 2 colours, got {}", stops.len())));
        }
        Ok(Colormap { stops })
    }

    /// Its colours, evenly spaced over [0, 1] (what a page that draws with it needs).
    pub fn stops(&self) -> &[[u8; 3]] {
        &self.stops
    }

    /// The colour at `t`, clamped to [0, 1]; NaN gives [`NAN_COLOR`].
    pub fn rgb(&self, t: f64) -> [u8; 3] {
        if t.is_nan() {
            return NAN_COLOR;
        }
        let n = self.stops.len() - 1;
        let x = t.clamp(0.0, 1.0) * n as f64;
        let k = (x.floor() as usize).min(n - 1);
        let (a, b, f) = (self.stops[k], self.stops[k + 1], x - k as f64);
        std::array::from_fn(|c| (f64::from(a[c]) + (f64::from(b[c]) - f64::from(a[c])) * f).round() as u8)
    }
}
