//! What the live view draws of a frame ([`Layer`]: a map as the snapshot pictures draw it, at
//! the view's size), what the page is told once ([`setup`]) and how a frame travels
//! ([`encode`]).

use super::Samples;
use crate::output::png::{LAND, MapOptions, NAN_COLOR, Scale, UNSET_COLOR, hillshade};
use serde_json::json;

/// One map the view offers: its values at the view's pixels, drawn with `opts` (colour map,
/// range, scale, label) and, where `dry` is given, over the ground as the snapshot pictures
/// draw it: dry cells as land, hillshaded by `relief` (the pictures' `Ground::bed` at the
/// pixels), or where that is None by the case's bed, which the page has once.
#[derive(Clone, Debug)]
pub struct Layer {
    /// Short name, what the page's menu lists (`depth`, `speed`).
    pub name: &'static str,
    pub opts: MapOptions,
    pub values: Vec<f64>,
    pub dry: Option<Vec<bool>>,
    pub relief: Option<Vec<f64>>,
}

/// The layers of a state of a model that draws nothing of its own: each field on viridis over
/// `range` (the range of its first frame, fixed for the run, as the pictures' are).
pub fn plain(fields: &[(&'static str, String, Vec<f64>)], ranges: &[(f64, f64)]) -> Vec<Layer> {
    fields
        .iter()
        .zip(ranges)
        .map(|((name, label, values), &range)| {
            let mut opts = MapOptions::new(*name, label.clone());
            opts.range = Some(range);
            Layer { name, opts, values: values.clone(), dry: None, relief: None }
        })
        .collect()
}

/// A value range fixed for the run from a first frame: its finite minimum and maximum (a flat
/// field widened about its value).
pub fn first_range(values: &[f64]) -> (f64, f64) {
    let (lo, hi) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    match (lo.is_finite(), hi > lo) {
        (true, true) => (lo, hi),
        (true, false) => (lo - 0.5 * lo.abs().max(1.0), hi + 0.5 * hi.abs().max(1.0)),
        _ => (0.0, 1.0),
    }
}

/// The page's description of the run and its layers, sent once: what it needs to draw a frame
/// as the pictures would (colour stops, ranges, scales, land and NaN colours, how strongly the
/// hillshade tints water) and to label the axes and plots.
/// The gauges plot the first layer's values.
pub fn setup(run: &str, unit: &str, samples: &Samples, layers: &[Layer], gauges: &[String]) -> String {
    let described: Vec<_> = layers
        .iter()
        .map(|l| {
            let (lo, hi) = l.opts.range.unwrap_or((0.0, 1.0));
            json!({
                "name": l.name,
                "title": l.opts.title,
                "label": l.opts.label,
                "colormap": l.opts.colormap.stops(),
                "scale": match l.opts.scale { Scale::Linear => "linear", Scale::Sqrt => "sqrt" },
                "range": [lo, hi],
                "ground": l.dry.is_some(),
                // What NaN means where it is not missing data (`MapOptions::unset`): drawn grey.
                "unset": l.opts.unset,
            })
        })
        .collect();
    json!({
        "run": run,
        "unit": unit,
        "w": samples.w,
        "h": samples.h,
        "extent": samples.extent,
        "layers": described,
        "land": LAND,
        "nan": NAN_COLOR,
        "unset": UNSET_COLOR,
        "under_water": crate::output::png::UNDER_WATER,
        "gauges": gauges,
        "gauge_label": layers.first().map(|l| l.opts.label.clone()),
    })
    .to_string()
}

/// The hillshade of the bed at the view's pixels `bed` (1 where flat), as little-endian f32: what
/// the page shades the ground layers with. None without a bed.
pub fn shade(samples: &Samples, bed: Option<&[f64]>) -> Option<Vec<u8>> {
    let s = hillshade(bed?, samples.w, samples.h, samples.spacing.0, samples.spacing.1);
    Some(s.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect())
}

/// Bytes before a frame's values: magic, width, height, frame number, time and step.
pub const FRAME_HEADER: usize = 32;

/// A layer's frame as it travels: [`FRAME_HEADER`] bytes (`HKV1`, w and h as u32, the frame
/// number as u32, t as f64, the step as u64, little-endian), the values as IEEE half floats
/// (the colour map resolves no finer than 1/256 of a range: half's 11 bits leave a margin), then
/// a byte a pixel: 1 where the cell is dry; then, for a layer with a relief of its own, its
/// hillshade (`shade`, spaced as the view's pixels) as half floats.
pub fn encode(layer: &Layer, w: usize, h: usize, seq: u64, t: f64, step: u64, shade: Option<&[f64]>) -> Vec<u8> {
    let n = w * h;
    let mut out = Vec::with_capacity(FRAME_HEADER + 3 * n);
    out.extend_from_slice(b"HKV1");
    out.extend_from_slice(&(w as u32).to_le_bytes());
    out.extend_from_slice(&(h as u32).to_le_bytes());
    out.extend_from_slice(&(seq as u32).to_le_bytes());
    out.extend_from_slice(&t.to_le_bytes());
    out.extend_from_slice(&step.to_le_bytes());
    out.extend(layer.values[..n].iter().flat_map(|&v| half::f16::from_f64(v).to_le_bytes()));
    match &layer.dry {
        Some(d) => out.extend(d[..n].iter().map(|&d| d as u8)),
        None => out.resize(out.len() + n, 0),
    }
    if let Some(shade) = shade {
        out.extend(shade[..n].iter().flat_map(|&v| half::f16::from_f64(v).to_le_bytes()));
    }
    out
}

/// The hillshade of a layer's own relief at the view's pixels, where it has one.
pub fn relief_shade(layer: &Layer, samples: &Samples) -> Option<Vec<f64>> {
    let relief = layer.relief.as_ref()?;
    Some(hillshade(relief, samples.w, samples.h, samples.spacing.0, samples.spacing.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_holds_its_header_halves_and_flags() {
        let layer = Layer {
            name: "depth",
            opts: MapOptions::new("d", "h [m]"),
            values: vec![0.0, 1.5, -2.0, f64::NAN, 65504.0, 1e-3],
            dry: Some(vec![true, false, false, false, false, true]),
            relief: None,
        };
        let b = encode(&layer, 3, 2, 7, 2.5, 11, None);
        assert_eq!(&b[..4], b"HKV1");
        assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), 2);
        assert_eq!(u32::from_le_bytes(b[12..16].try_into().unwrap()), 7);
        assert_eq!(f64::from_le_bytes(b[16..24].try_into().unwrap()), 2.5);
        assert_eq!(u64::from_le_bytes(b[24..32].try_into().unwrap()), 11);
        let halves: Vec<f64> =
            b[32..44].chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64()).collect();
        assert_eq!(&halves[..3], &[0.0, 1.5, -2.0]);
        assert!(halves[3].is_nan());
        assert_eq!(halves[4], 65504.0);
        assert!((halves[5] - 1e-3).abs() < 1e-6);
        assert_eq!(&b[44..], &[1, 0, 0, 0, 0, 1]);
        // With a shade of its own: two bytes more a pixel, after the flags.
        let shade = [1.0, 0.5, 1.25, 1.0, 0.0, 2.0];
        let b = encode(&layer, 3, 2, 7, 2.5, 11, Some(&shade));
        assert_eq!(b.len(), 32 + 5 * 6);
        let back: Vec<f64> = b[50..].chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64()).collect();
        assert_eq!(back, shade);
    }

    #[test]
    fn first_ranges_are_finite_and_increasing() {
        assert_eq!(first_range(&[1.0, f64::NAN, 3.0]), (1.0, 3.0));
        assert_eq!(first_range(&[2.0, 2.0]), (1.0, 3.0));
        assert_eq!(first_range(&[f64::NAN]), (0.0, 1.0));
        assert_eq!(first_range(&[]), (0.0, 1.0));
    }
}
