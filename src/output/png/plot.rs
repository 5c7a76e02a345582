//! Line plots: curves over x with axes, grid and legend.

use super::ticks::{MARGIN, TICK_LEN, finite_min_max, tick_labels};
use crate::output::canvas::{BLACK, Canvas, Pen, Rect, TEXT_H, TEXT_MID, WHITE, text_width};
use crate::output::write_atomic;
use crate::{Error, Result};
use std::path::Path;

/// One curve of a line plot.
#[derive(Clone, Debug)]
pub struct Series {
    /// Shown in the legend.
    pub name: String,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub color: [u8; 3],
    /// Dashed lines tell a reference (an exact solution, say) from a computed curve.
    pub dashed: bool,
}

/// Text of a line plot.
#[derive(Clone, Debug, Default)]
pub struct PlotOptions {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
}

pub(super) const PLOT_W: usize = 800;
pub(super) const PLOT_H: usize = 500;
const GRID: [u8; 3] = [225, 225, 225];

/// One axis: its limits and ticks.
pub(super) struct Axis {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) ticks: Vec<f64>,
    pub(super) labels: Vec<String>,
}

/// The largest of 1, 2, 5 × 10^k that is at most `x`.
fn nice_floor(x: f64) -> f64 {
    let e = 10f64.powf(x.log10().floor());
    let m = x / e;
    e * if m >= 5.0 {
        5.0
    } else if m >= 2.0 {
        2.0
    } else {
        1.0
    }
}

impl Axis {
    /// Limits from the finite `values` widened by `pad` of their span on each side, and round
    /// ticks inside them: the step is at most a quarter of the span, so there are at least 4.
    pub(super) fn new(values: impl Iterator<Item = f64>, pad: f64) -> Axis {
        let (mut lo, mut hi) = finite_min_max(values).unwrap_or((0.0, 1.0));
        if hi <= lo {
            let d = if lo == 0.0 { 1.0 } else { 0.1 * lo.abs() };
            (lo, hi) = (lo - d, hi + d);
        }
        let span = hi - lo;
        (lo, hi) = (lo - pad * span, hi + pad * span);
        let step = nice_floor((hi - lo) / 4.0);
        let (first, last) = ((lo / step).ceil(), (hi / step).floor());
        let ticks: Vec<f64> = if step.is_finite() && step > 0.0 && last - first < 100.0 {
            (first as i64..=last as i64).map(|k| k as f64 * step).collect()
        } else {
            // Spans beyond f64's range: label the ends only, but do not fail.
            vec![lo, hi]
        };
        let labels = tick_labels(&ticks, step, 0);
        Axis { lo, hi, ticks, labels }
    }

    /// Map `v` to the pixel coordinate between `a` (at `lo`) and `b` (at `hi`).
    pub(super) fn to_px(&self, v: f64, a: usize, b: usize) -> f64 {
        a as f64 + (v - self.lo) / (self.hi - self.lo) * (b as f64 - a as f64)
    }
}

/// Draw `series` as lines on one pair of axes, about 800×500 pixels, with a title, axis labels,
/// ticks and a legend. Non-finite points break a line instead of ending the plot.
pub fn write_line_plot_png(path: &Path, series: &[Series], opts: &PlotOptions) -> Result<()> {
    let canvas = render_plot(series, opts)?;
    write_atomic(path, &canvas.encode_png()?)
}

fn render_plot(series: &[Series], opts: &PlotOptions) -> Result<Canvas> {
    if series.is_empty() {
        return Err(Error::invalid("a line plot needs at least one series"));
    }
    if let Some(s) = series.iter().find(|s| s.x.len() != s.y.len()) {
        let (nx, ny) = (s.x.len(), s.y.len());
        return Err(Error::invalid(format!("series '{}' has {nx} x values but {ny} y values", s.name)));
    }
    let points = || series.iter().flat_map(|s| s.x.iter().zip(&s.y)).filter(|(x, y)| x.is_finite() && y.is_finite());
    let xa = Axis::new(points().map(|(&x, _)| x), 0.0);
    let ya = Axis::new(points().map(|(_, &y)| y), 0.05);

    // Plot area: room on the left for the y label and tick labels, below for the x ones.
    let y_ticks_w = ya.labels.iter().map(|l| text_width(l)).max().unwrap_or(0);
    let left = MARGIN + TEXT_H + 10 + y_ticks_w + 4 + TICK_LEN;
    let right = PLOT_W - MARGIN - 24;
    let top = MARGIN + TEXT_H + 16;
    let bottom = PLOT_H - MARGIN - TEXT_H - 10 - TEXT_H - 4 - TICK_LEN;
    let area = Rect::new(left, top, right - left + 1, bottom - top + 1);
    let mut c = Canvas::new(PLOT_W, PLOT_H, WHITE);

    let to_x = |v| xa.to_px(v, left, right);
    let to_y = |v| ya.to_px(v, bottom, top);
    for &t in &xa.ticks {
        let x = to_x(t).round() as usize;
        c.fill(x, top, 1, bottom - top + 1, GRID);
    }
    for &t in &ya.ticks {
        let y = to_y(t).round() as usize;
        c.fill(left, y, right - left + 1, 1, GRID);
    }

    for s in series {
        let pen = Pen { color: s.color, width: 2, dash: s.dashed.then_some((10.0, 6.0)) };
        let mut phase = 0.0;
        let mut last: Option<(f64, f64)> = None;
        for (&x, &y) in s.x.iter().zip(&s.y) {
            if !(x.is_finite() && y.is_finite()) {
                last = None;
                continue;
            }
            let p = (to_x(x), to_y(y));
            // A lone point still shows as a dot.
            c.line(last.unwrap_or(p), p, &pen, &mut phase, area);
            last = Some(p);
        }
    }

    c.frame(left, top, right - left + 1, bottom - top + 1, BLACK);
    for (&t, label) in xa.ticks.iter().zip(&xa.labels) {
        let x = to_x(t).round() as usize;
        c.fill(x, bottom + 1, 1, TICK_LEN, BLACK);
        c.text(x.saturating_sub(text_width(label) / 2), bottom + TICK_LEN + 4, label, BLACK);
    }
    for (&t, label) in ya.ticks.iter().zip(&ya.labels) {
        let y = to_y(t).round() as usize;
        c.fill(left - 1 - TICK_LEN, y, TICK_LEN, 1, BLACK);
        c.text(left - TICK_LEN - 4 - text_width(label), y.saturating_sub(TEXT_MID), label, BLACK);
    }
    let centre = (left + right) / 2;
    c.text(PLOT_W.saturating_sub(text_width(&opts.title)) / 2, MARGIN, &opts.title, BLACK);
    c.text(centre.saturating_sub(text_width(&opts.x_label) / 2), PLOT_H - MARGIN - TEXT_H, &opts.x_label, BLACK);
    let y_label_top = ((top + bottom) / 2).saturating_sub(text_width(&opts.y_label) / 2);
    c.text_up(MARGIN, y_label_top, &opts.y_label, BLACK);

    draw_legend(&mut c, series, area);
    Ok(c)
}

/// A legend box in whichever corner of the plot area covers the fewest drawn pixels, so it
/// hides as little of the curves as possible.
fn draw_legend(c: &mut Canvas, series: &[Series], area: Rect) {
    const ROW: usize = TEXT_H + 8;
    // Three whole dashes of 10 on, 6 off, so a dashed sample does not end in a stray dot.
    const SAMPLE: usize = 42;
    let names_w = series.iter().map(|s| text_width(&s.name)).max().unwrap_or(0);
    let (w, h) = (10 + SAMPLE + 8 + names_w + 10, series.len() * ROW + 8);
    let (x0, y0, x1, y1) = (area.x0 as usize + 10, area.y0 as usize + 10, area.x1 as usize - 10, area.y1 as usize - 10);
    let (xr, yb) = (x1.saturating_sub(w).max(x0), y1.saturating_sub(h).max(y0));
    let ink = |x: usize, y: usize| {
        let (xe, ye) = ((x + w).min(c.w), (y + h).min(c.h));
        (y..ye)
            .flat_map(|yy| (x..xe).map(move |xx| (xx, yy)))
            .filter(|&(xx, yy)| ![WHITE, GRID].contains(&c.get(xx, yy)))
            .count()
    };
    let corners = [(xr, y0), (x0, y0), (xr, yb), (x0, yb)];
    let (x, y) = corners.into_iter().min_by_key(|&(x, y)| ink(x, y)).unwrap_or((xr, y0));

    c.fill(x, y, w, h, WHITE);
    c.frame(x, y, w, h, [150, 150, 150]);
    let everywhere = Rect::new(0, 0, c.w, c.h);
    for (k, s) in series.iter().enumerate() {
        let row_y = y + 8 + k * ROW;
        let mid = (row_y + TEXT_MID) as f64;
        let pen = Pen { color: s.color, width: 2, dash: s.dashed.then_some((10.0, 6.0)) };
        c.line(((x + 10) as f64, mid), ((x + 10 + SAMPLE) as f64, mid), &pen, &mut 0.0, everywhere);
        c.text(x + 10 + SAMPLE + 8, row_y, &s.name, BLACK);
    }
}
