//! Line plots: curves over x with axes, grid and legend.

use super::colormap::Colormap;
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
    /// The labels are in kilometres though the values are metres ([`Axis::fitted_metres`]).
    pub(super) km: bool,
}

/// Coordinates in metres from this far out are labelled in kilometres.
const KM_FROM: f64 = 1e5;

/// Pixels between neighbouring tick labels, at least.
pub(super) const LABEL_GAP: usize = 8;

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
        Axis::stepped(lo, hi, nice_floor((hi - lo) / 4.0))
    }

    /// Ticks every `step` inside [lo, hi] and their labels.
    fn stepped(lo: f64, hi: f64, step: f64) -> Axis {
        let (first, last) = ((lo / step).ceil(), (hi / step).floor());
        let ticks: Vec<f64> = if step.is_finite() && step > 0.0 && last - first < 100.0 {
            (first as i64..=last as i64).map(|k| k as f64 * step).collect()
        } else {
            // Spans beyond f64's range: label the ends only, but do not fail.
            vec![lo, hi]
        };
        let labels = tick_labels(&ticks, step, 0);
        Axis { lo, hi, ticks, labels, km: false }
    }

    /// The axis over [lo, hi] drawn `pixels` long, whose tick labels each take `room(label)`
    /// pixels along it: [`Axis::new`]'s ticks, thinned to the next round step (1, 2, 5 × 10^k)
    /// until neighbouring labels stand [`LABEL_GAP`] apart; an axis too short for two labels
    /// keeps one.
    pub(super) fn fitted(lo: f64, hi: f64, pixels: usize, room: impl Fn(&str) -> usize) -> Axis {
        let mut axis = Axis::new([lo, hi].into_iter(), 0.0);
        let per_unit = pixels as f64 / (axis.hi - axis.lo);
        let fits = |a: &Axis| {
            a.ticks
                .windows(2)
                .zip(a.labels.windows(2))
                .all(|(t, l)| (t[1] - t[0]) * per_unit >= (room(&l[0]) + room(&l[1])) as f64 / 2.0 + LABEL_GAP as f64)
        };
        let mut step = nice_floor((axis.hi - axis.lo) / 4.0);
        while !fits(&axis) {
            step = nice_floor(step * 2.5);
            let wider = Axis::stepped(axis.lo, axis.hi, step);
            if wider.ticks.len() < 2 || !step.is_finite() {
                // Not even two labels fit: the first tick alone.
                axis.ticks.truncate(1);
                axis.labels.truncate(1);
                break;
            }
            axis = wider;
        }
        axis
    }

    /// [`fitted`](Self::fitted) for coordinates in metres: where they reach 100 km from the
    /// origin (projected coordinates, UTM's 4 100 000 m northing) the labels are kilometres
    /// with the decimals the ticks need (4100.2), not 4.1002e6.
    pub(super) fn fitted_metres(lo: f64, hi: f64, pixels: usize, room: impl Fn(&str) -> usize) -> Axis {
        if lo.abs().max(hi.abs()) < KM_FROM {
            return Axis::fitted(lo, hi, pixels, room);
        }
        let a = Axis::fitted(lo / 1000.0, hi / 1000.0, pixels, room);
        Axis { lo, hi, ticks: a.ticks.iter().map(|t| t * 1000.0).collect(), labels: a.labels, km: true }
    }

    /// Map `v` to the pixel coordinate between `a` (at `lo`) and `b` (at `hi`).
    pub(super) fn to_px(&self, v: f64, a: usize, b: usize) -> f64 {
        a as f64 + (v - self.lo) / (self.hi - self.lo) * (b as f64 - a as f64)
    }
}

/// Draw `series` as lines on one pair of axes, about 800×500 pixels, with a title, axis labels,
/// ticks and a legend (at most [`LEGEND_ROWS`] rows: a longer one ends in "… n more"; for many
/// curves over time, [`write_profiles_png`] colours them by time instead). Non-finite points
/// break a line instead of ending the plot.
pub fn write_line_plot_png(path: &Path, series: &[Series], opts: &PlotOptions) -> Result<()> {
    let canvas = render_line_plot(series, opts)?;
    write_atomic(path, &canvas.encode_png()?)
}

/// Line plots (each as [`write_line_plot_png`] draws it) stacked top to bottom in one picture:
/// a gauge's depth above its surface, on the same time axis.
pub fn write_panels_png(path: &Path, panels: &[(Vec<Series>, PlotOptions)]) -> Result<()> {
    let drawn = panels.iter().map(|(s, o)| render_line_plot(s, o)).collect::<Result<Vec<Canvas>>>()?;
    let mut c = Canvas::new(PLOT_W, drawn.iter().map(|p| p.h).sum(), WHITE);
    let mut top = 0;
    for p in &drawn {
        for y in 0..p.h {
            for x in 0..p.w.min(c.w) {
                c.put(x as i64, (top + y) as i64, p.get(x, y));
            }
        }
        top += p.h;
    }
    write_atomic(path, &c.encode_png()?)
}

/// One quantity along a line at successive times (a centre-line profile at every snapshot).
#[derive(Clone, Debug)]
pub struct Profiles {
    /// Positions along the line, shared by every curve.
    pub x: Vec<f64>,
    /// (time, values at `x`), in the order they were taken: coloured by time, keyed by a colour
    /// bar, so any number of them keeps the legend short.
    pub curves: Vec<(f64, Vec<f64>)>,
    /// The colour bar's range of times, fixed for a run (0 to its end) so the colours of a
    /// time do not change from one snapshot's plot to the next.
    pub times: (f64, f64),
    /// The colour bar's label, e.g. "t \[s\]".
    pub time_label: String,
    /// Curves drawn over them in the legend (the initial state, dashed, or an exact solution).
    pub references: Vec<Series>,
    /// The bed along the line, drawn as ground filled from the bottom of the plot, in the
    /// legend as "bed". The plot's range follows the curves; a bed far below them (a deep
    /// basin under a small wave) stays below the plot rather than squash the curves.
    pub bed: Option<Vec<f64>>,
}

/// The colour of the bed's fill and line in profile plots.
pub const BED: [u8; 3] = [150, 120, 90];
const BED_FILL: [u8; 3] = [222, 208, 188];
/// Colour-by-time: viridis without its last, palest part, which fades on white.
const TIME_END: f64 = 0.85;

/// Draw [`Profiles`]: curves coloured by time under a colour bar of time, the references and the
/// bed in the legend, with a title and axes as [`write_line_plot_png`] has them.
pub fn write_profiles_png(path: &Path, profiles: &Profiles, opts: &PlotOptions) -> Result<()> {
    write_atomic(path, &render_profiles(profiles, opts)?.encode_png()?)
}

pub(super) fn render_profiles(p: &Profiles, opts: &PlotOptions) -> Result<Canvas> {
    let (t0, t1) = p.times;
    if !(t0.is_finite() && t1.is_finite() && t0 <= t1) {
        return Err(Error::invalid(format!("a profile plot's times ({t0}, {t1}) must be finite and increasing")));
    }
    let viridis = Colormap::viridis();
    let color_of = |t: f64| viridis.rgb(if t1 > t0 { TIME_END * (t - t0) / (t1 - t0) } else { 0.0 });
    let mut series: Vec<Series> = p
        .curves
        .iter()
        .map(|(t, y)| Series { name: String::new(), x: p.x.clone(), y: y.clone(), color: color_of(*t), dashed: false })
        .collect();
    series.extend(p.references.iter().cloned());
    let bed =
        p.bed.as_ref().map(|b| Series { name: "bed".into(), x: p.x.clone(), y: b.clone(), color: BED, dashed: false });
    let mut legend: Vec<Series> = p.references.clone();
    legend.extend(bed.clone());
    let bar = TimeBar { colormap: viridis.clone(), times: p.times, label: &p.time_label };
    render(&series, &legend, bed.as_ref(), Some(&bar), opts)
}

/// The colour bar of a profile plot.
struct TimeBar<'a> {
    colormap: Colormap,
    times: (f64, f64),
    label: &'a str,
}

pub(super) fn render_line_plot(series: &[Series], opts: &PlotOptions) -> Result<Canvas> {
    render(series, series, None, None, opts)
}

/// Width of a profile plot's colour bar.
const BAR_W: usize = 16;

fn render(
    series: &[Series],
    legend: &[Series],
    bed: Option<&Series>,
    bar: Option<&TimeBar>,
    opts: &PlotOptions,
) -> Result<Canvas> {
    if series.is_empty() && bed.is_none() {
        return Err(Error::invalid("a line plot needs at least one series"));
    }
    if let Some(s) = series.iter().chain(bed).find(|s| s.x.len() != s.y.len()) {
        let (nx, ny) = (s.x.len(), s.y.len());
        return Err(Error::invalid(format!("series '{}' has {nx} x values but {ny} y values", s.name)));
    }
    let finite = |s: &Series| -> Vec<(f64, f64)> {
        s.x.iter().zip(&s.y).map(|(&x, &y)| (x, y)).filter(|(x, y)| x.is_finite() && y.is_finite()).collect()
    };
    let points: Vec<(f64, f64)> = series.iter().flat_map(finite).collect();
    // The bed joins the range down to a span of the curves below them (or whole, without curves).
    let bed_points = bed.map(finite).unwrap_or_default();
    let floor = finite_min_max(points.iter().map(|p| p.1)).map(|(lo, hi)| lo - (hi - lo).max(0.1 * lo.abs()).max(1e-9));
    let shown_bed = bed_points.iter().filter(|p| floor.is_none_or(|f| p.1 >= f));
    let xa = Axis::new(points.iter().chain(&bed_points).map(|p| p.0), 0.0);
    let ya = Axis::new(points.iter().chain(shown_bed).map(|p| p.1), 0.05);

    // Plot area: room on the left for the y label and tick labels, below for the x ones, and on
    // the right for a colour bar of time with its labels.
    let bar_ticks = bar.map(|b| {
        let (t0, t1) = b.times;
        let step = (t1 - t0) / 4.0;
        let ticks: Vec<f64> = (0..5).map(|k| t0 + step * k as f64).collect();
        let labels =
            if step > 0.0 { tick_labels(&ticks, step, 0) } else { vec![tick_labels(&[t0], 1.0, 0)[0].clone()] };
        (ticks, labels)
    });
    let bar_room = match (&bar, &bar_ticks) {
        (Some(b), Some((_, labels))) => {
            let w = labels.iter().map(|l| text_width(l)).max().unwrap_or(0);
            16 + BAR_W + TICK_LEN + 4 + w.max(text_width(b.label).saturating_sub(BAR_W))
        }
        _ => 0,
    };
    let y_ticks_w = ya.labels.iter().map(|l| text_width(l)).max().unwrap_or(0);
    let left = MARGIN + TEXT_H + 10 + y_ticks_w + 4 + TICK_LEN;
    let right = PLOT_W - MARGIN - 24 - bar_room;
    let top = MARGIN + TEXT_H + 16 + if bar.is_some() { TEXT_H + 8 } else { 0 };
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

    if let Some(b) = bed {
        fill_below(&mut c, b, &|v| to_x(v), &|v| to_y(v), area);
    }
    for s in series.iter().chain(bed) {
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

    if let (Some(b), Some((ticks, labels))) = (bar, &bar_ticks) {
        let x = right + 16 + 24;
        let (t0, t1) = b.times;
        c.text(x, top - TEXT_H - 8, b.label, BLACK);
        let h = bottom - top + 1;
        for r in 0..h {
            let f = 1.0 - r as f64 / (h - 1) as f64;
            c.fill(x, top + r, BAR_W, 1, b.colormap.rgb(TIME_END * f));
        }
        c.frame(x, top, BAR_W, h, BLACK);
        for (&t, label) in ticks.iter().zip(labels) {
            let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
            let y = bottom - (f * (h - 1) as f64).round() as usize;
            c.fill(x + BAR_W, y, TICK_LEN + 1, 1, BLACK);
            c.text(x + BAR_W + TICK_LEN + 4, y.saturating_sub(TEXT_MID), label, BLACK);
            if t1 <= t0 {
                break;
            }
        }
    }
    if !legend.is_empty() {
        draw_legend(&mut c, legend, area);
    }
    Ok(c)
}

/// Fill from the bottom of `area` up to the curve of `s` (the bed under the water), column by
/// column between its finite points.
fn fill_below(c: &mut Canvas, s: &Series, to_x: &dyn Fn(f64) -> f64, to_y: &dyn Fn(f64) -> f64, area: Rect) {
    let pts: Vec<(f64, f64)> =
        s.x.iter()
            .zip(&s.y)
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|(&x, &y)| (to_x(x), to_y(y)))
            .collect();
    for w in pts.windows(2) {
        let ((xa, ya), (xb, yb)) = (w[0], w[1]);
        let (x0, x1) = (xa.min(xb).round() as i64, xa.max(xb).round() as i64);
        for x in x0.max(area.x0)..=x1.min(area.x1 - 1) {
            let f = if xb != xa { ((x as f64 - xa) / (xb - xa)).clamp(0.0, 1.0) } else { 0.0 };
            let y = (ya + f * (yb - ya)).round() as i64;
            for yy in y.max(area.y0)..area.y1 {
                c.put(x, yy, BED_FILL);
            }
        }
    }
}

/// The most rows a legend has: a plot of more curves lists the first ones and "… n more".
pub const LEGEND_ROWS: usize = 12;

/// A legend box in whichever corner of the plot area covers the fewest drawn pixels, so it
/// hides as little of the curves as possible.
fn draw_legend(c: &mut Canvas, series: &[Series], area: Rect) {
    const ROW: usize = TEXT_H + 8;
    // Three whole dashes of 10 on, 6 off, so a dashed sample does not end in a stray dot.
    const SAMPLE: usize = 42;
    let more = series.len().saturating_sub(LEGEND_ROWS);
    let series = if more > 0 { &series[..LEGEND_ROWS - 1] } else { series };
    let more_line = (more > 0).then(|| format!("… {} more", more + 1));
    let names_w =
        series.iter().map(|s| text_width(&s.name)).chain(more_line.iter().map(|l| text_width(l))).max().unwrap_or(0);
    let rows = series.len() + more_line.is_some() as usize;
    let (w, h) = (10 + SAMPLE + 8 + names_w + 10, rows * ROW + 8);
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
    if let Some(line) = more_line {
        c.text(x + 10 + SAMPLE + 8, y + 8 + series.len() * ROW, &line, BLACK);
    }
}
