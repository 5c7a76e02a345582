//! The ground under a water map: a hillshade of the bed, so the terrain shows through the
//! water and on land, and dry cells in a neutral land colour instead of the colour of shallow
//! water.

use crate::{Error, Result};

/// What lies under a map of a water quantity, cell by cell (x fastest, like the field).
#[derive(Clone, Copy, Debug)]
pub struct Ground<'a> {
    /// Bed elevation at each cell centre, m.
    pub bed: &'a [f64],
    /// Cells without water: drawn in [`LAND`], shaded, whatever the field holds there.
    pub dry: &'a [bool],
}

/// Dry land: a light grey-brown that is in none of the colour maps.
pub const LAND: [u8; 3] = [214, 200, 176];

/// Light from the north-west, 45° above the horizon: the cartographic convention, under which
/// hills look raised rather than sunken.
const AZIMUTH_DEG: f64 = 315.0;
const ALTITUDE_DEG: f64 = 45.0;
/// How much the hillshade darkens or lightens water colours (land takes it whole): enough to
/// see the bed's shape, little enough that the colour still reads against the colour bar.
pub const UNDER_WATER: f64 = 0.3;
/// The relief is exaggerated, when it is gentle, until the steepest 5% of slopes reach this
/// gradient (about 27°): a coastal basin falling 100 m over 25 km would otherwise shade flat.
const SHOWN_SLOPE: f64 = 0.5;

impl Ground<'_> {
    pub(super) fn check(&self, n: usize) -> Result<()> {
        if self.bed.len() != n || self.dry.len() != n {
            return Err(Error::invalid(format!(
                "a map's ground needs {n} bed values and {n} dry flags, got {} and {}",
                self.bed.len(),
                self.dry.len()
            )));
        }
        Ok(())
    }
}

/// Brightness factors of a hillshade of `bed` (mx × my cells, `dx` × `dy` m each, x fastest):
/// 1 on flat ground, above 1 on slopes facing the light, below it on slopes facing away.
pub fn hillshade(bed: &[f64], mx: usize, my: usize, dx: f64, dy: f64) -> Vec<f64> {
    let at = |i: usize, j: usize| bed[j * mx + i];
    // Central differences inside, one-sided at the edges; a non-finite bed shades flat.
    let grad = |i: usize, j: usize| {
        let (il, ir) = (i.saturating_sub(1), (i + 1).min(mx - 1));
        let (jd, ju) = (j.saturating_sub(1), (j + 1).min(my - 1));
        let gx = if ir > il { (at(ir, j) - at(il, j)) / ((ir - il) as f64 * dx) } else { 0.0 };
        let gy = if ju > jd { (at(i, ju) - at(i, jd)) / ((ju - jd) as f64 * dy) } else { 0.0 };
        if gx.is_finite() && gy.is_finite() { (gx, gy) } else { (0.0, 0.0) }
    };
    let grads: Vec<(f64, f64)> = (0..my).flat_map(|j| (0..mx).map(move |i| (i, j))).map(|(i, j)| grad(i, j)).collect();
    let mut steep: Vec<f64> = grads.iter().map(|(gx, gy)| gx.hypot(*gy)).collect();
    let k = (steep.len() * 95 / 100).min(steep.len() - 1);
    let g95 = *steep.select_nth_unstable_by(k, f64::total_cmp).1;
    let z = if g95 > 0.0 && g95 < SHOWN_SLOPE { SHOWN_SLOPE / g95 } else { 1.0 };
    let (az, alt) = (AZIMUTH_DEG.to_radians(), ALTITUDE_DEG.to_radians());
    // The unit vector towards the light, x east and y north: azimuth is clockwise from north.
    let (lx, ly, lz) = (az.sin() * alt.cos(), az.cos() * alt.cos(), alt.sin());
    grads
        .into_iter()
        .map(|(gx, gy)| {
            // The surface's normal is (−z·gx, −z·gy, 1), normalised.
            let (nx, ny) = (-z * gx, -z * gy);
            let lit = (nx * lx + ny * ly + lz) / (nx * nx + ny * ny + 1.0).sqrt();
            (lit / lz).max(0.0)
        })
        .collect()
}

/// `color` under the light `shade` (1: unchanged), darkened or lightened by `strength` of the
/// shade's departure from 1.
pub(super) fn shaded(color: [u8; 3], shade: f64, strength: f64) -> [u8; 3] {
    let f = (1.0 + strength * (shade - 1.0)).clamp(0.0, 2.0);
    color.map(|c| {
        let c = f64::from(c);
        // Lighten towards white, darken towards black, so neither clips a hue.
        let v = if f >= 1.0 { c + (255.0 - c) * (f - 1.0) } else { c * f };
        v.round().clamp(0.0, 255.0) as u8
    })
}

/// The colour of a drawn cell: dry land, shaded in full; water in the colormap's `color`,
/// shaded lightly.
pub(super) fn ground_color(color: [u8; 3], dry: bool, shade: f64) -> [u8; 3] {
    if dry { shaded(LAND, shade, 1.0) } else { shaded(color, shade, UNDER_WATER) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_ground_leaves_colours_alone_and_slopes_shade() {
        let flat = hillshade(&[2.0; 12], 4, 3, 1.0, 1.0);
        assert!(flat.iter().all(|&s| (s - 1.0).abs() < 1e-12));
        assert_eq!(ground_color([10, 20, 30], false, 1.0), [10, 20, 30]);
        assert_eq!(ground_color([10, 20, 30], true, 1.0), LAND);
        // A bed rising towards the south-east faces north-west, into the light: brighter than
        // flat ground; one rising towards the north-west faces away from it: darker.
        let (mx, my) = (5, 5);
        let rise =
            |a: f64, b: f64| -> Vec<f64> { (0..25).map(|k| a * (k % mx) as f64 + b * (k / mx) as f64).collect() };
        let towards = hillshade(&rise(1.0, -1.0), mx, my, 1.0, 1.0)[12];
        let away = hillshade(&rise(-1.0, 1.0), mx, my, 1.0, 1.0)[12];
        assert!(towards > 1.0 && away < 1.0, "towards the light {towards}, away {away}");
        assert!(shaded([100, 100, 100], 0.5, 1.0)[0] < 100 && shaded([100, 100, 100], 1.5, 1.0)[0] > 100);
    }
}
