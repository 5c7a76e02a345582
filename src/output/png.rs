//! PNG pictures of results: 2-D fields as colour maps with a colour bar, and x–y line plots.
//! Both are drawn on an in-memory raster and encoded once, so a picture is written whole
//! through `write_atomic` or not at all. Text uses the embedded bitmap font, so the pictures
//! need no font files and look the same on every machine; it covers printable ASCII only
//! (write `m^2`, not `m²`).

use super::canvas::{BLACK, Canvas, Pen, Rect, TEXT_H, TEXT_MID, WHITE, text_width};
use super::write_atomic;
use crate::{Error, Result};
use std::borrow::Cow;
use std::path::Path;

/// Colour of NaN: loud on purpose, and in none of the colormaps, so missing data is never
/// mistaken for a value.
pub const NAN_COLOR: [u8; 3] = [255, 0, 255];

/// A piecewise-linear colour table over [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Colormap {
    stops: Vec<[u8; 3]>,
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

/// How [`write_field_png`] draws a field.
#[derive(Clone, Debug)]
pub struct MapOptions {
    pub title: String,
    /// Quantity and unit for the colour bar, e.g. `"h [m]"`.
    pub label: String,
    pub colormap: Colormap,
    /// Values mapped to the colormap's ends; `None` takes the finite minimum and maximum of the
    /// data. Fix it to compare pictures of several time steps.
    pub range: Option<(f64, f64)>,
}

impl MapOptions {
    /// Viridis over the data's own range.
    pub fn new(title: impl Into<String>, label: impl Into<String>) -> MapOptions {
        MapOptions { title: title.into(), label: label.into(), colormap: Colormap::viridis(), range: None }
    }
}

const MARGIN: usize = 16;
/// Larger fields are averaged down to at most this many cells a side, so files stay small.
const MAX_CELLS: usize = 2048;
/// Small fields are enlarged by whole pixels until the long side has at least this many.
const MIN_LONG_SIDE: usize = 512;
const BAR_W: usize = 24;
/// The colour bar keeps this height under a flat map so its tick labels do not overlap.
const BAR_MIN_H: usize = 240;
const BAR_TICKS: usize = 5;
const TICK_LEN: usize = 5;
/// Between the colour bar's label and the bar, clear of the top tick's label.
const LABEL_GAP: usize = 14;

/// A rectangle of the picture, in pixels.
#[derive(Clone, Copy, Debug)]
struct Area {
    x: usize,
    y: usize,
    w: usize,
    h: usize,
}

/// Where each part of a field picture goes; shared by the renderer and the tests.
struct FieldLayout {
    /// Cells averaged per picture cell, per side.
    stride: usize,
    /// Size of the (averaged) grid that is drawn.
    mx: usize,
    my: usize,
    /// Pixels per drawn cell, per side.
    scale: usize,
    map: Area,
    bar: Area,
    w: usize,
    h: usize,
}

fn field_layout(nx: usize, ny: usize, opts: &MapOptions, tick_labels: &[String], has_bad: bool) -> FieldLayout {
    let stride = nx.max(ny).div_ceil(MAX_CELLS);
    let (mx, my) = (nx.div_ceil(stride), ny.div_ceil(stride));
    let scale = MIN_LONG_SIDE.div_ceil(mx.max(my)).max(1);
    // Title line, then a line for the colour bar's label, then the map and bar side by side.
    let top = MARGIN + TEXT_H + 12 + TEXT_H + LABEL_GAP;
    let map = Area { x: MARGIN, y: top, w: mx * scale, h: my * scale };
    let bar = Area { x: map.x + map.w + 24, y: top, w: BAR_W, h: map.h.max(BAR_MIN_H) };
    let ticks_w = tick_labels.iter().map(|l| text_width(l)).max().unwrap_or(0);
    let right = (bar.x + BAR_W + TICK_LEN + 4 + ticks_w)
        .max(bar.x + text_width(&opts.label))
        .max(MARGIN + text_width(&opts.title));
    // Half a text line below the bottom tick for its label, and a line for the NaN key.
    let bottom = map.h.max(bar.h) + TEXT_H - TEXT_MID + if has_bad { TEXT_H + 12 } else { 0 };
    FieldLayout { stride, mx, my, scale, map, bar, w: right + MARGIN, h: top + bottom + MARGIN }
}

/// The values at the colormap's ends; a flat field is widened around its value so it draws in
/// the colormap's middle instead of dividing by zero.
fn color_range(field: &[f64], range: Option<(f64, f64)>) -> Result<(f64, f64)> {
    let (lo, hi) = match range {
        Some((lo, hi)) if lo.is_finite() && hi.is_finite() && lo <= hi => (lo, hi),
        Some((lo, hi)) => {
            return Err(Error::invalid(format!("colour range ({lo}, {hi}) must be finite and increasing")));
        }
        None => finite_min_max(field.iter().copied()).unwrap_or((0.0, 1.0)),
    };
    if hi > lo {
        return Ok((lo, hi));
    }
    let d = if lo == 0.0 { 0.5 } else { 0.05 * lo.abs() };
    Ok((lo - d, hi + d))
}

fn finite_min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.filter(|v| v.is_finite()).fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
    })
}

/// Average `stride`×`stride` blocks, ignoring non-finite cells (a block with no finite cell is
/// NaN), so a downsampled picture keeps the field's means rather than aliasing it.
fn downsample(field: &[f64], nx: usize, ny: usize, stride: usize) -> Cow<'_, [f64]> {
    if stride == 1 {
        return Cow::Borrowed(field);
    }
    let (mx, my) = (nx.div_ceil(stride), ny.div_ceil(stride));
    let mut out = Vec::with_capacity(mx * my);
    for bj in 0..my {
        for bi in 0..mx {
            let (mut sum, mut n) = (0.0, 0usize);
            for row in field.chunks_exact(nx).skip(bj * stride).take(stride) {
                for v in row.iter().skip(bi * stride).take(stride).filter(|v| v.is_finite()) {
                    sum += v;
                    n += 1;
                }
            }
            out.push(if n > 0 { sum / n as f64 } else { f64::NAN });
        }
    }
    Cow::Owned(out)
}

/// Labels for ticks `step` apart: enough decimals to tell neighbours apart plus `extra`, one
/// more where that makes every label exact (1.125, not 1.12), and scientific notation for
/// magnitudes where fixed decimals get unreadable.
fn tick_labels(values: &[f64], step: f64, extra: i32) -> Vec<String> {
    let biggest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let step_exp = if step > 0.0 && step.is_finite() { step.log10().floor() as i32 } else { -2 };
    let sci = biggest.is_finite() && (biggest >= 1e6 || (biggest > 0.0 && biggest < 1e-3));
    let base = if sci { biggest.log10().floor() as i32 - step_exp + extra } else { extra - step_exp };
    let label = |v: f64, digits: i32| {
        let digits = digits.clamp(0, if sci { 6 } else { 9 }) as usize;
        let s = if sci { format!("{v:.digits$e}") } else { format!("{v:.digits$}") };
        // Rounding a tiny negative value must not print as "-0.00".
        match s.strip_prefix('-') {
            Some(rest) if rest.chars().take_while(|&c| c != 'e').all(|c| c == '0' || c == '.') => rest.to_string(),
            _ => s,
        }
    };
    let exact = |digits| {
        values.iter().all(|&v| label(v, digits).parse::<f64>().is_ok_and(|back| (back - v).abs() <= 1e-3 * step))
    };
    let digits = if exact(base) { base } else { base + 1 };
    values.iter().map(|&v| label(v, digits)).collect()
}

/// Draw a 2-D field stored with x fastest (`field[j * nx + i]`) as a colour map with y
/// increasing upward (row j = 0 at the bottom), a title and a colour bar labelled with the
/// quantity. Non-finite cells are drawn in [`NAN_COLOR`] and keyed under the bar.
pub fn write_field_png(path: &Path, field: &[f64], nx: usize, ny: usize, opts: &MapOptions) -> Result<()> {
    let canvas = render_field(field, nx, ny, opts)?;
    write_atomic(path, &canvas.encode_png()?)
}

fn render_field(field: &[f64], nx: usize, ny: usize, opts: &MapOptions) -> Result<Canvas> {
    if nx == 0 || ny == 0 || nx.checked_mul(ny) != Some(field.len()) {
        return Err(Error::invalid(format!("a {nx}×{ny} field needs {nx}×{ny} values, got {}", field.len())));
    }
    let (lo, hi) = color_range(field, opts.range)?;
    let step = (hi - lo) / (BAR_TICKS - 1) as f64;
    let ticks: Vec<f64> = (0..BAR_TICKS).map(|k| lo + step * k as f64).collect();
    let labels = tick_labels(&ticks, step, 1);
    let has_bad = field.iter().any(|v| !v.is_finite());
    let lay = field_layout(nx, ny, opts, &labels, has_bad);
    let (map, bar, s) = (lay.map, lay.bar, lay.scale);
    let mut c = Canvas::new(lay.w, lay.h, WHITE);

    c.text(lay.w.saturating_sub(text_width(&opts.title)) / 2, MARGIN, &opts.title, BLACK);
    c.text(bar.x, bar.y - LABEL_GAP - TEXT_H, &opts.label, BLACK);

    let cells = downsample(field, nx, ny, lay.stride);
    for (j, row) in cells.chunks_exact(lay.mx).enumerate() {
        for (i, &v) in row.iter().enumerate() {
            let t = if v.is_finite() { (v - lo) / (hi - lo) } else { f64::NAN };
            c.fill(map.x + i * s, map.y + (lay.my - 1 - j) * s, s, s, opts.colormap.rgb(t));
        }
    }
    c.frame(map.x, map.y, map.w, map.h, BLACK);

    // The bar's top row is exactly the colormap's top colour and its bottom row the bottom one.
    for r in 0..bar.h {
        c.fill(bar.x, bar.y + r, bar.w, 1, opts.colormap.rgb(1.0 - r as f64 / (bar.h - 1) as f64));
    }
    c.frame(bar.x, bar.y, bar.w, bar.h, BLACK);
    for (k, label) in labels.iter().enumerate() {
        let y = bar.y + bar.h - 1 - ((bar.h - 1) as f64 * k as f64 / (BAR_TICKS - 1) as f64).round() as usize;
        c.fill(bar.x + bar.w, y, TICK_LEN + 1, 1, BLACK);
        c.text(bar.x + bar.w + TICK_LEN + 4, y - TEXT_MID, label, BLACK);
    }
    if has_bad {
        let y = bar.y + bar.h + TEXT_H - TEXT_MID + 12;
        c.fill(bar.x, y, bar.w, TEXT_H, NAN_COLOR);
        c.text(bar.x + bar.w + TICK_LEN + 4, y, "NaN", BLACK);
    }
    Ok(c)
}

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

const PLOT_W: usize = 800;
const PLOT_H: usize = 500;
const GRID: [u8; 3] = [225, 225, 225];

/// One axis: its limits and ticks.
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    labels: Vec<String>,
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
    fn new(values: impl Iterator<Item = f64>, pad: f64) -> Axis {
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
    fn to_px(&self, v: f64, a: usize, b: usize) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_dir;

    /// Decode a PNG written by this module into (width, height, RGB bytes).
    fn decode(path: &Path) -> (usize, usize, Vec<u8>) {
        let decoder = ::png::Decoder::new(std::fs::File::open(path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, ::png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        (info.width as usize, info.height as usize, buf)
    }

    fn pixel(img: &(usize, usize, Vec<u8>), x: usize, y: usize) -> [u8; 3] {
        let k = 3 * (y * img.0 + x);
        [img.2[k], img.2[k + 1], img.2[k + 2]]
    }

    #[test]
    fn colormaps_interpolate_and_clamp() {
        for cm in [Colormap::viridis(), Colormap::diverging()] {
            assert_eq!(cm.rgb(0.0), cm.stops[0]);
            assert_eq!(cm.rgb(1.0), *cm.stops.last().unwrap());
            assert_eq!(cm.rgb(-3.0), cm.rgb(0.0));
            assert_eq!(cm.rgb(7.0), cm.rgb(1.0));
            assert_eq!(cm.rgb(f64::INFINITY), cm.rgb(1.0));
            assert_eq!(cm.rgb(f64::NAN), NAN_COLOR);
        }
        assert_eq!(Colormap::viridis().rgb(0.0), [0x44, 0x01, 0x54]);
        assert_eq!(Colormap::diverging().rgb(0.5), [255, 255, 255]);
        let grey = Colormap::from_stops(vec![[0, 0, 0], [200, 100, 0]]).unwrap();
        assert_eq!(grey.rgb(0.5), [100, 50, 0]);
        assert!(Colormap::from_stops(vec![[0, 0, 0]]).is_err());
    }

    #[test]
    fn tick_labels_are_short_and_distinct() {
        assert_eq!(tick_labels(&[0.0, 0.25, 0.5, 0.75, 1.0], 0.25, 1), ["0.00", "0.25", "0.50", "0.75", "1.00"]);
        assert_eq!(tick_labels(&[-0.0001, 10.0], 10.0, 1), ["0", "10"]);
        assert_eq!(tick_labels(&[-0.001, 2.499], 2.5, 1), ["0.0", "2.5"]);
        assert_eq!(tick_labels(&[0.0, 20.0, 40.0], 20.0, 0), ["0", "20", "40"]);
        assert_eq!(tick_labels(&[2e6, 4e6], 2e6, 0), ["2e6", "4e6"]);
        assert_eq!(tick_labels(&[1e-5, 2e-5], 1e-5, 0), ["1e-5", "2e-5"]);
        assert_eq!(tick_labels(&[1.0, 1.125, 1.25], 0.125, 1), ["1.000", "1.125", "1.250"]);
        assert_eq!(tick_labels(&[0.0, 0.2183, 0.4366], 0.2183, 1), ["0.000", "0.218", "0.437"]);
    }

    #[test]
    fn axes_have_at_least_four_ticks() {
        for (lo, hi) in [(0.0, 1.0), (0.0, 0.87), (-3.2, 17.0), (5.0, 5.0), (0.0, 0.0), (1e-9, 2e-9), (1e6, 1.3e6)] {
            let axis = Axis::new([lo, hi].into_iter(), 0.05);
            assert!(axis.ticks.len() >= 4, "{lo}..{hi}: {:?}", axis.ticks);
            assert!(axis.ticks.iter().all(|t| (axis.lo..=axis.hi).contains(t)));
            let mut labels = axis.labels.clone();
            labels.dedup();
            assert_eq!(labels.len(), axis.ticks.len(), "{:?}", axis.labels);
        }
        let axis = Axis::new([-1e308, 1e308, f64::NAN].into_iter(), 0.05);
        assert_eq!(axis.ticks.len(), 2);
    }

    #[test]
    fn field_png_layout_colours_and_orientation() {
        let dir = test_dir("png-field");
        let (nx, ny) = (37, 23);
        // Row j = 0 holds the maximum: it must be drawn at the bottom of the map.
        let field: Vec<f64> = (0..nx * ny).map(|k| if k < nx { 10.0 } else { (k % nx) as f64 * 0.1 }).collect();
        let opts = MapOptions::new("Test field", "h [m]");
        let path = dir.join("field.png");
        write_field_png(&path, &field, nx, ny, &opts).unwrap();
        let img = decode(&path);

        let canvas = render_field(&field, nx, ny, &opts).unwrap();
        let lay = field_layout(nx, ny, &opts, &tick_labels(&[0.0, 2.5, 5.0, 7.5, 10.0], 2.5, 1), false);
        assert_eq!((img.0, img.1), (lay.w, lay.h));
        assert_eq!((img.0, img.1), (canvas.w, canvas.h));
        assert!(lay.map.w.max(lay.map.h) >= MIN_LONG_SIDE);
        assert_eq!((lay.map.w / lay.scale, lay.map.h / lay.scale), (nx, ny));

        let (bar, map) = (lay.bar, lay.map);
        let cm = &opts.colormap;
        assert_eq!(pixel(&img, bar.x + bar.w / 2, bar.y), cm.rgb(1.0));
        assert_eq!(pixel(&img, bar.x + bar.w / 2, bar.y + bar.h - 1), cm.rgb(0.0));
        assert_eq!(pixel(&img, map.x + map.w / 2, map.y + map.h - 1), cm.rgb(1.0), "row 0 at the bottom");
        assert_eq!(pixel(&img, map.x, map.y), cm.rgb(0.0), "x = 0 on the left");
        assert_eq!(pixel(&img, map.x + map.w - 1, map.y), cm.rgb(3.6 / 10.0), "x = nx - 1 on the right");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn field_png_survives_odd_data() {
        let dir = test_dir("png-odd");
        let path = dir.join("f.png");
        let opts = MapOptions::new("odd", "q");
        let mut bad = vec![1.0; 37 * 23];
        bad[5] = f64::NAN;
        bad[6] = f64::INFINITY;
        bad[7] = f64::NEG_INFINITY;
        for field in [vec![3.0; 37 * 23], vec![0.0; 37 * 23], bad.clone(), vec![f64::NAN; 37 * 23]] {
            write_field_png(&path, &field, 37, 23, &opts).unwrap();
            decode(&path);
        }
        // NaN cells are magenta in the map.
        let lay_canvas = render_field(&bad, 37, 23, &opts).unwrap();
        assert!((0..lay_canvas.h).any(|y| (0..lay_canvas.w).any(|x| lay_canvas.get(x, y) == NAN_COLOR)));
        // A single cell, a strip, and a field big enough to be averaged down.
        write_field_png(&path, &[1.0], 1, 1, &opts).unwrap();
        write_field_png(&path, &vec![1.0; 3000], 3000, 1, &opts).unwrap();
        let big: Vec<f64> = (0..4100 * 3).map(|k| k as f64).collect();
        write_field_png(&path, &big, 4100, 3, &opts).unwrap();
        assert!(decode(&path).0 < 2400);
        let ranged = MapOptions { range: Some((0.0, 0.0)), colormap: Colormap::diverging(), ..opts.clone() };
        write_field_png(&path, &bad, 37, 23, &ranged).unwrap();

        let err = |r| matches!(r, Err(Error::Invalid(_)));
        assert!(err(write_field_png(&path, &[1.0; 5], 2, 3, &opts)));
        assert!(err(write_field_png(&path, &[], 0, 5, &opts)));
        assert!(err(write_field_png(&path, &[1.0; 4], 2, 2, &MapOptions { range: Some((1.0, 0.0)), ..opts.clone() })));
        assert!(err(write_field_png(&path, &[1.0; 4], 2, 2, &MapOptions { range: Some((0.0, f64::NAN)), ..opts })));
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn sample_series() -> Vec<Series> {
        let x: Vec<f64> = (0..=100).map(|k| k as f64 * 0.1).collect();
        let exact: Vec<f64> = x.iter().map(|&x| if x < 5.0 { 2.0 } else { 0.5 }).collect();
        let mut computed: Vec<f64> = x.iter().map(|&x| 1.25 - 0.75 * ((x - 5.0) * 3.0).tanh()).collect();
        computed[40] = f64::NAN;
        vec![
            Series { name: "exact".into(), x: x.clone(), y: exact, color: [0, 0, 0], dashed: true },
            Series { name: "computed".into(), x, y: computed, color: [31, 119, 180], dashed: false },
        ]
    }

    #[test]
    fn line_plot_png() {
        let dir = test_dir("png-plot");
        let path = dir.join("plot.png");
        let opts = PlotOptions { title: "Dam break".into(), x_label: "x [m]".into(), y_label: "h [m]".into() };
        write_line_plot_png(&path, &sample_series(), &opts).unwrap();
        let img = decode(&path);
        assert_eq!((img.0, img.1), (PLOT_W, PLOT_H));
        let count = |c: [u8; 3]| {
            (0..img.1).flat_map(|y| (0..img.0).map(move |x| (x, y))).filter(|&(x, y)| pixel(&img, x, y) == c).count()
        };
        assert!(count([31, 119, 180]) > 500, "the computed curve is drawn");

        // Degenerate input draws without panicking.
        let flat =
            Series { name: "flat".into(), x: vec![1.0, 1.0], y: vec![3.0, 3.0], color: [255, 0, 0], dashed: false };
        let empty = Series { name: "empty".into(), x: vec![], y: vec![], color: [0, 255, 0], dashed: true };
        let nan = Series { name: "nan".into(), x: vec![f64::NAN], y: vec![1.0], color: [0, 0, 255], dashed: false };
        write_line_plot_png(&path, &[flat, empty.clone(), nan], &PlotOptions::default()).unwrap();
        write_line_plot_png(&path, std::slice::from_ref(&empty), &opts).unwrap();

        assert!(write_line_plot_png(&path, &[], &opts).is_err());
        let uneven = Series { x: vec![1.0], ..empty };
        assert!(write_line_plot_png(&path, &[uneven], &opts).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Pictures to look at: `cargo test -p hydrokern --lib output::png::tests::demo -- --ignored`
    /// writes them to /tmp/output-demo.
    #[test]
    #[ignore = "writes demo PNGs to /tmp/output-demo for a person to look at; run with --ignored"]
    fn demo() {
        let dir = Path::new("/tmp/output-demo");
        std::fs::create_dir_all(dir).unwrap();
        let (nx, ny) = (300, 200);
        let bump: Vec<f64> = (0..nx * ny)
            .map(|k| {
                let (x, y) = ((k % nx) as f64 / nx as f64 * 3.0, (k / nx) as f64 / ny as f64 * 2.0);
                1.0 + 0.5 * (-((x - 1.0).powi(2) + (y - 0.5).powi(2)) / 0.1).exp()
            })
            .collect();
        let opts = MapOptions::new("Gaussian bump at (1.0, 0.5), t = 0 s", "h [m]");
        write_field_png(&dir.join("gaussian_map.png"), &bump, nx, ny, &opts).unwrap();
        // A rise and a mirrored dip, with a hole of missing data in the dip.
        let signed: Vec<f64> = (0..nx * ny)
            .map(|k| {
                let (i, j) = (k % nx, k / nx);
                let hole = (i as i64 - 240).abs() < 8 && (j as i64 - 150).abs() < 8;
                if hole { f64::NAN } else { bump[k] - bump[(ny - 1 - j) * nx + (nx - 1 - i)] }
            })
            .collect();
        let opts = MapOptions {
            colormap: Colormap::diverging(),
            range: Some((-0.5, 0.5)),
            ..MapOptions::new("Signed field with missing data", "u [m/s]")
        };
        write_field_png(&dir.join("diverging_map.png"), &signed, nx, ny, &opts).unwrap();
        let opts = PlotOptions {
            title: "Dam break, centre line, t = 1 s".into(),
            x_label: "x [m]".into(),
            y_label: "h [m]".into(),
        };
        write_line_plot_png(&dir.join("line_plot.png"), &sample_series(), &opts).unwrap();
        let font: String = (32u8..127).map(char::from).collect();
        let opts = MapOptions::new(&font[..48], &font[48..]);
        write_field_png(&dir.join("font.png"), &[0.0, 1.0], 2, 1, &opts).unwrap();
    }
}
