//! Heat maps of a search space (Amundsen's figures 4.1–4.6): one cell per configuration,
//! coloured by its time relative to the best one on a fixed scale (1 to 2, slower saturates),
//! the ratio written in the cell, pruned configurations grey, the best framed.

use crate::Result;
use crate::output::Colormap;
use crate::output::canvas::{BLACK, Canvas, TEXT_H, WHITE, text_width};
use std::path::Path;

/// The colour scale's end: configurations this many times slower than the best, or more,
/// share the last colour.
pub const WORST: f64 = 2.0;
const PRUNED: [u8; 3] = [200, 200, 200];

/// One heat map: `ms[j * xs.len() + i]` is the time of (xs\[i\], ys\[j\]), None where pruned.
pub struct HeatMap {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub xs: Vec<u32>,
    pub ys: Vec<u32>,
    pub ms: Vec<Option<f64>>,
}

/// Times relative to the fastest (None stays None; NaN times count as pruned).
pub fn relative(ms: &[Option<f64>]) -> Vec<Option<f64>> {
    let best = ms.iter().flatten().copied().filter(|t| t.is_finite() && *t > 0.0).fold(f64::INFINITY, f64::min);
    ms.iter().map(|t| t.filter(|t| t.is_finite() && *t > 0.0).map(|t| t / best)).collect()
}

/// Where on the colour scale a relative time falls, in [0, 1].
pub fn scale(rel: f64) -> f64 {
    ((rel - 1.0) / (WORST - 1.0)).clamp(0.0, 1.0)
}

/// Draw `map` as a PNG at `path` (written atomically).
pub fn write_heat_map(path: &Path, map: &HeatMap) -> Result<()> {
    let (cw, ch) = (64usize, 40usize);
    let (left, top) = (90usize, 50usize);
    let (nx, ny) = (map.xs.len(), map.ys.len());
    let bar = 24;
    // Wide enough for the grid, the colour bar and the title (a GPU's name can be long).
    let w = (left + nx * cw + 40 + bar + 60).max(20 + text_width(&map.title));
    let h = top + ny * ch + 70;
    let mut c = Canvas::new(w, h, WHITE);
    c.text(10, 12, &map.title, BLACK);
    let cmap = Colormap::viridis();
    let rel = relative(&map.ms);
    let best = rel.iter().position(|r| *r == Some(1.0));
    for j in 0..ny {
        // Larger y up, as in a plot.
        let y = top + (ny - 1 - j) * ch;
        let label = map.ys[j].to_string();
        c.text(left - 8 - text_width(&label), y + (ch - TEXT_H) / 2, &label, BLACK);
        for i in 0..nx {
            let x = left + i * cw;
            match rel[j * nx + i] {
                Some(r) => {
                    let t = scale(r);
                    c.fill(x, y, cw, ch, cmap.rgb(t));
                    let text = format!("{r:.2}");
                    let ink = if t < 0.6 { WHITE } else { BLACK };
                    c.text(x + (cw - text_width(&text)) / 2, y + (ch - TEXT_H) / 2, &text, ink);
                }
                None => {
                    c.fill(x, y, cw, ch, PRUNED);
                    c.text(x + (cw - text_width("–")) / 2, y + (ch - TEXT_H) / 2, "–", BLACK);
                }
            }
        }
    }
    for (i, v) in map.xs.iter().enumerate() {
        let label = v.to_string();
        c.text(left + i * cw + (cw - text_width(&label)) / 2, top + ny * ch + 6, &label, BLACK);
    }
    c.text(left + (nx * cw).saturating_sub(text_width(&map.x_label)) / 2, top + ny * ch + 30, &map.x_label, BLACK);
    c.text_up(10, top + (ny * ch).saturating_sub(text_width(&map.y_label)) / 2, &map.y_label, BLACK);
    c.frame(left, top, nx * cw, ny * ch, BLACK);
    if let Some(b) = best {
        let (i, j) = (b % nx, b / nx);
        let (x, y) = (left + i * cw, top + (ny - 1 - j) * ch);
        c.frame(x + 1, y + 1, cw - 2, ch - 2, [255, 0, 0]);
        c.frame(x + 2, y + 2, cw - 4, ch - 4, [255, 0, 0]);
    }
    // The colour bar: time relative to the best, 1 at the bottom, WORST (and slower) on top.
    let bx = left + nx * cw + 40;
    let bh = ny * ch;
    for k in 0..bh {
        c.fill(bx, top + k, bar, 1, cmap.rgb(1.0 - k as f64 / (bh - 1).max(1) as f64));
    }
    c.frame(bx, top, bar, bh, BLACK);
    c.text(bx + bar + 4, top, &format!("≥{WORST:.1}"), BLACK);
    c.text(bx + bar + 4, top + bh - TEXT_H, "1.0", BLACK);
    c.text(bx - 8, top + bh + 6, "time / best", BLACK);
    crate::output::write_atomic(path, &c.encode_png()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_and_the_fixed_scale() {
        let r = relative(&[Some(2.0), None, Some(1.0), Some(f64::NAN), Some(5.0)]);
        assert_eq!(r, vec![Some(2.0), None, Some(1.0), None, Some(5.0)]);
        assert_eq!(scale(1.0), 0.0);
        assert_eq!(scale(1.5), 0.5);
        assert_eq!(scale(5.0), 1.0);
    }

    #[test]
    fn a_heat_map_is_a_png_with_the_best_framed() {
        let d = std::env::temp_dir().join(format!("hydrokern-heat-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("map.png");
        let map = HeatMap {
            title: "test".into(),
            x_label: "block x".into(),
            y_label: "block y".into(),
            xs: vec![32, 64],
            ys: vec![1, 2],
            ms: vec![Some(2.0), None, Some(1.0), Some(4.0)],
        };
        write_heat_map(&path, &map).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // A title longer than the grid widens the picture (a GPU's long name is not cut off).
        let long = HeatMap { title: "x".repeat(200), ..map };
        write_heat_map(&path, &long).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let width = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]) as usize;
        assert!(width >= 20 + text_width(&long.title), "{width}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
