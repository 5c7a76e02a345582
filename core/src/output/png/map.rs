//! Colour maps of 2-D fields with a colour bar.

use super::colormap::{Colormap, NAN_COLOR, UNSET_COLOR};
use super::ground::{Ground, LAND, ground_color, hillshade};
use super::picture::Picture;
use super::plot::Axis;
use super::ticks::{MARGIN, TICK_LEN, finite_min_max, tick_labels};
use crate::output::canvas::{BLACK, Canvas, TEXT_H, TEXT_MID, WHITE, text_width};
use crate::{Error, Result};
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::Path;

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
    /// The field's extent in metres, (x at the west edge, x at the east edge, y at the south
    /// edge, y at the north edge): axes with ticks in metres along the bottom and the left.
    /// `None` draws the map without axes.
    pub extent: Option<[f64; 4]>,
    /// The axes' names with `extent`: horizontal, vertical.
    pub axes: (&'static str, &'static str),
    /// How values between the range's ends map to colours.
    pub scale: Scale,
    /// What a NaN cell means when it is not missing data but a value the map leaves unset by
    /// design ("never arrived"): such cells are drawn in [`UNSET_COLOR`] and keyed with this
    /// text instead of "NaN".
    pub unset: Option<&'static str>,
}

/// How a map's values map to the colormap between the ends of its range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scale {
    /// Equal steps in value are equal steps in colour.
    #[default]
    Linear,
    /// The colour follows the square root of the value's fraction of the range: a depth that
    /// spreads from a 10 m column into a 20 cm sheet still shows in colour. The colour bar's
    /// ticks stay evenly spaced and their labels say the (unevenly spaced) values.
    Sqrt,
}

impl Scale {
    /// Where `v` falls on the colormap, in [0, 1] inside the range `lo < hi`.
    pub fn fraction(self, v: f64, lo: f64, hi: f64) -> f64 {
        let f = (v - lo) / (hi - lo);
        match self {
            Scale::Linear => f,
            Scale::Sqrt => f.max(0.0).sqrt(),
        }
    }

    /// The value at colormap position `f` in [0, 1]: the inverse of [`Scale::fraction`].
    pub fn value(self, f: f64, lo: f64, hi: f64) -> f64 {
        match self {
            Scale::Linear => lo + (hi - lo) * f,
            Scale::Sqrt => lo + (hi - lo) * f * f,
        }
    }
}

impl MapOptions {
    /// Viridis over the data's own range, without axes.
    pub fn new(title: impl Into<String>, label: impl Into<String>) -> MapOptions {
        MapOptions {
            title: title.into(),
            label: label.into(),
            colormap: Colormap::viridis(),
            range: None,
            scale: Scale::Linear,
            extent: None,
            axes: PLAN_AXES,
            unset: None,
        }
    }

    /// The same, with axes in metres over `extent` (west, east, south, north edges).
    pub fn in_metres(self, extent: [f64; 4]) -> MapOptions {
        MapOptions { extent: Some(extent), ..self }
    }

    /// The same, with the axes named `horizontal` and `vertical` (a slice of a volume: "x \[m\]"
    /// and "z \[m\]", say).
    pub fn with_axes(self, horizontal: &'static str, vertical: &'static str) -> MapOptions {
        MapOptions { axes: (horizontal, vertical), ..self }
    }
}

/// The unit a map of times (in seconds) reads best in when they span up to `span` seconds, and
/// its length in seconds: seconds up to 3 minutes, minutes up to 3 hours, hours up to 3 days,
/// then days — an arrival map of a two-day flood reads "30 h", not "108000 s".
pub fn time_unit(span: f64) -> (&'static str, f64) {
    match span {
        s if s <= 180.0 => ("s", 1.0),
        s if s <= 3.0 * 3600.0 => ("min", 60.0),
        s if s <= 3.0 * 86400.0 => ("h", 3600.0),
        _ => ("d", 86400.0),
    }
}

/// The axes of a plan view: x east, y north.
const PLAN_AXES: (&str, &str) = ("x [m]", "y [m]");

/// The axes of a map in metres drawn `w × h` pixels: (x, y), as many ticks as their labels
/// leave room for (a 1000 × 1 grid's map is a line of pixels: one label up its side).
fn metre_axes(opts: &MapOptions, w: usize, h: usize) -> Option<(Axis, Axis)> {
    let [x0, x1, y0, y1] = opts.extent?;
    Some((Axis::fitted_metres(x0, x1, w, text_width), Axis::fitted_metres(y0, y1, h, |_| TEXT_H)))
}

/// Larger fields are averaged down to at most this many cells a side, so files stay small.
const MAX_CELLS: usize = 2048;
/// Small fields are enlarged by whole pixels until the long side has at least this many.
pub(super) const MIN_LONG_SIDE: usize = 512;
const BAR_W: usize = 24;
/// The colour bar keeps this height under a flat map so its tick labels do not overlap.
const BAR_MIN_H: usize = 240;
const BAR_TICKS: usize = 5;
/// Between the colour bar's label and the bar, clear of the top tick's label.
const LABEL_GAP: usize = 14;

/// A rectangle of the picture, in pixels.
#[derive(Clone, Copy, Debug)]
pub(super) struct Area {
    pub(super) x: usize,
    pub(super) y: usize,
    pub(super) w: usize,
    pub(super) h: usize,
}

/// Where each part of a field picture goes; shared by the renderer and the tests.
pub(super) struct FieldLayout {
    /// Cells averaged per picture cell, per side.
    pub(super) stride: usize,
    /// Size of the (averaged) grid that is drawn.
    pub(super) mx: usize,
    pub(super) my: usize,
    /// Pixels per drawn cell, per side.
    pub(super) scale: usize,
    pub(super) map: Area,
    pub(super) bar: Area,
    pub(super) w: usize,
    pub(super) h: usize,
    /// The axes in metres, fitted to the map, with an extent.
    pub(super) axes: Option<(Axis, Axis)>,
}

pub(super) fn field_layout(
    nx: usize,
    ny: usize,
    opts: &MapOptions,
    tick_labels: &[String],
    keys: usize,
) -> FieldLayout {
    let stride = nx.max(ny).div_ceil(MAX_CELLS);
    let (mx, my) = (nx.div_ceil(stride), ny.div_ceil(stride));
    let scale = MIN_LONG_SIDE.div_ceil(mx.max(my)).max(1);
    // Title line, then a line for the colour bar's label, then the map and bar side by side.
    let top = MARGIN + TEXT_H + 12 + TEXT_H + LABEL_GAP;
    // With axes: room on the left for the y label and tick labels, below for the x ones.
    let axes = metre_axes(opts, mx * scale, my * scale);
    let (left, below) = match &axes {
        Some((_, ya)) => {
            let ticks_w = ya.labels.iter().map(|l| text_width(l)).max().unwrap_or(0);
            (MARGIN + TEXT_H + 10 + ticks_w + 4 + TICK_LEN, TICK_LEN + 4 + TEXT_H + 10 + TEXT_H)
        }
        None => (MARGIN, 0),
    };
    let map = Area { x: left, y: top, w: mx * scale, h: my * scale };
    let bar = Area { x: map.x + map.w + 24, y: top, w: BAR_W, h: map.h.max(BAR_MIN_H) };
    let ticks_w = tick_labels.iter().map(|l| text_width(l)).max().unwrap_or(0);
    // The keys' names beside their swatches ("never arrived" is wider than a tick label).
    let keys_w = if keys > 0 { text_width(opts.unset.unwrap_or("NaN")).max(text_width("dry")) } else { 0 };
    let right = (bar.x + BAR_W + TICK_LEN + 4 + ticks_w.max(keys_w))
        .max(bar.x + text_width(&bar_label(opts)))
        .max(MARGIN + text_width(&opts.title));
    // Half a text line below the bottom tick for its label, and a line for each key (NaN, dry).
    let bottom = (map.h + below).max(bar.h + TEXT_H - TEXT_MID + keys * (TEXT_H + 12));
    FieldLayout { stride, mx, my, scale, map, bar, w: right + MARGIN, h: top + bottom + MARGIN, axes }
}

/// The pixels of a map of an `nx × ny` field with axes in metres and a colour bar, about (its
/// title may widen it): for the plan of a run's output.
pub fn map_pixels(nx: usize, ny: usize) -> u64 {
    let opts = MapOptions::new("", "h [m]").in_metres([0.0, 1e4, 0.0, 1e4]);
    let labels = vec!["-0.0000".to_string(); BAR_TICKS];
    let lay = field_layout(nx.max(1), ny.max(1), &opts, &labels, 2);
    // Room for a title wider than the map.
    (lay.w.max(720) * lay.h) as u64
}

/// Host bytes one map of an `nx × ny` field takes at most while it is drawn and encoded, beyond
/// the values given it: with `ground`, the water's copy (dry cells left out) and the dry flags
/// as numbers; the averaged cells, bed and flags and the hillshade; the canvas (3 bytes a
/// pixel) and the PNG's bytes (a map compresses to well under a byte a pixel). For the plan of
/// a run's memory.
pub fn map_drawing(nx: usize, ny: usize, ground: bool) -> u64 {
    map_scratch(nx, ny, ground) + 4 * map_pixels(nx, ny)
}

/// What a pool thread that drew a map of an `nx × ny` field keeps of it afterwards, about: the
/// allocator (glibc's) keeps freed blocks smaller than its largest mmap threshold, 32 MiB, in
/// the thread's own arena — the map's field-sized scratch where a block is smaller than that,
/// and its canvas. For the plan of a run's memory.
pub fn map_retained(nx: usize, ny: usize, ground: bool) -> u64 {
    const MMAP_MAX: u64 = 32 << 20;
    let kept = |b: u64| if b < MMAP_MAX { b } else { 0 };
    let cells = (nx as u64).saturating_mul(ny as u64);
    let stride = nx.max(ny).div_ceil(MAX_CELLS).max(1);
    let drawn = (nx.div_ceil(stride) * ny.div_ceil(stride)) as u64;
    let mut k = kept(3 * map_pixels(nx, ny));
    if ground {
        k += 2 * kept(8 * cells) + kept(8 * drawn) + kept(drawn);
    }
    if stride > 1 {
        k += kept(8 * drawn);
    }
    k
}

/// The part of [`map_drawing`] as large as the field or its averaged cells.
fn map_scratch(nx: usize, ny: usize, ground: bool) -> u64 {
    let cells = (nx as u64).saturating_mul(ny as u64);
    let stride = nx.max(ny).div_ceil(MAX_CELLS).max(1);
    let drawn = (nx.div_ceil(stride) * ny.div_ceil(stride)) as u64;
    let averaged = if stride > 1 { drawn * 8 } else { 0 };
    let ground = match ground {
        true => 2 * 8 * cells + 2 * averaged + drawn * (8 + 1),
        false => 0,
    };
    ground + averaged
}

/// An axis's title with the unit its labels are in: "x [km]" where they are kilometres.
pub(super) fn axis_title(title: &str, axis: &Axis) -> String {
    if axis.km { title.replace("[m]", "[km]") } else { title.to_string() }
}

/// The colour bar's label, with its scale where that is not linear.
pub(super) fn bar_label(opts: &MapOptions) -> String {
    match opts.scale {
        Scale::Linear => opts.label.clone(),
        Scale::Sqrt => format!("{} (√ scale)", opts.label),
    }
}

/// Where each tick label of a map's axes goes: (x, y) of its top-left corner, and the text.
pub(super) fn tick_texts(lay: &FieldLayout) -> Vec<(usize, usize, &str)> {
    let Some((xa, ya)) = &lay.axes else { return Vec::new() };
    let map = lay.map;
    let (right, bottom) = (map.x + map.w - 1, map.y + map.h - 1);
    let mut texts = Vec::new();
    for (&t, label) in xa.ticks.iter().zip(&xa.labels) {
        let x = xa.to_px(t, map.x, right).round() as usize;
        texts.push((x.saturating_sub(text_width(label) / 2), bottom + TICK_LEN + 4, label.as_str()));
    }
    for (&t, label) in ya.ticks.iter().zip(&ya.labels) {
        let y = ya.to_px(t, bottom, map.y).round() as usize;
        texts.push((map.x - TICK_LEN - 4 - text_width(label), y.saturating_sub(TEXT_MID), label.as_str()));
    }
    texts
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

/// Average `stride`×`stride` blocks, ignoring non-finite cells (a block with no finite cell is
/// NaN), so a downsampled picture keeps the field's means rather than aliasing it.
pub(super) fn downsample(field: &[f64], nx: usize, ny: usize, stride: usize) -> Cow<'_, [f64]> {
    if stride == 1 {
        return Cow::Borrowed(field);
    }
    let (mx, my) = (nx.div_ceil(stride), ny.div_ceil(stride));
    let mut out = vec![0.0; mx * my];
    // Rows of blocks in parallel: a 4096² field's maps are drawn while the model runs.
    out.par_chunks_mut(mx).enumerate().for_each(|(bj, blocks)| {
        let rows = &field[bj * stride * nx..((bj + 1) * stride).min(ny) * nx];
        for (bi, block) in blocks.iter_mut().enumerate() {
            let (mut sum, mut n) = (0.0, 0usize);
            for row in rows.chunks_exact(nx) {
                for v in row[bi * stride..((bi + 1) * stride).min(nx)].iter().filter(|v| v.is_finite()) {
                    sum += v;
                    n += 1;
                }
            }
            *block = if n > 0 { sum / n as f64 } else { f64::NAN };
        }
    });
    Cow::Owned(out)
}

/// Draw a 2-D field stored with x fastest (`field[j * nx + i]`) as a colour map with y
/// increasing upward (row j = 0 at the bottom), a title and a colour bar labelled with the
/// quantity. Non-finite cells are drawn in [`NAN_COLOR`] (in [`UNSET_COLOR`] with
/// [`MapOptions::unset`]) and keyed under the bar.
pub fn write_field_png(path: &Path, field: &[f64], nx: usize, ny: usize, opts: &MapOptions) -> Result<()> {
    render_map(field, nx, ny, opts, None)?.write_png(path)
}

#[cfg(test)]
pub(super) fn render_field(field: &[f64], nx: usize, ny: usize, opts: &MapOptions) -> Result<Canvas> {
    render_canvas(field, nx, ny, opts, None)
}

/// The picture [`write_field_png`] writes, kept in memory (for an animation's frame, say). With
/// `ground`, its dry cells are drawn as land (the field's values there are not shown) and the
/// bed's hillshade shows through the water and on land; both are keyed under the colour bar.
pub fn render_map(field: &[f64], nx: usize, ny: usize, opts: &MapOptions, ground: Option<&Ground>) -> Result<Picture> {
    Ok(Picture(render_canvas(field, nx, ny, opts, ground)?))
}

/// Average flags as 0 and 1 over blocks, as [`downsample`] does values: a drawn cell is dry
/// where most of its cells are.
fn downsample_dry(dry: &[bool], nx: usize, ny: usize, stride: usize) -> Vec<bool> {
    let ones: Vec<f64> = dry.iter().map(|&d| if d { 1.0 } else { 0.0 }).collect();
    downsample(&ones, nx, ny, stride).iter().map(|&f| f > 0.5).collect()
}

fn render_canvas(field: &[f64], nx: usize, ny: usize, opts: &MapOptions, ground: Option<&Ground>) -> Result<Canvas> {
    if nx == 0 || ny == 0 || nx.checked_mul(ny) != Some(field.len()) {
        return Err(Error::invalid(format!("a {nx}×{ny} field needs {nx}×{ny} values, got {}", field.len())));
    }
    if let Some(g) = ground {
        g.check(field.len())?;
    }
    // Only water is drawn in the colour map: dry cells are left out of the range and the NaN key.
    let water: Cow<[f64]> = match ground {
        Some(g) => Cow::Owned(field.iter().zip(g.dry).map(|(&v, &d)| if d { f64::NAN } else { v }).collect()),
        None => Cow::Borrowed(field),
    };
    let is_dry = |k: usize| ground.is_some_and(|g| g.dry[k]);
    let (lo, hi) = color_range(&water, opts.range)?;
    let ticks: Vec<f64> = (0..BAR_TICKS).map(|k| opts.scale.value(k as f64 / (BAR_TICKS - 1) as f64, lo, hi)).collect();
    // Decimals for the closest two ticks, the first two on a square-root scale.
    let mut labels = tick_labels(&ticks, ticks[1] - ticks[0], 1);
    // Values beyond a fixed range are drawn in the end colours: the end labels say so.
    let (below, above) =
        water.iter().filter(|v| v.is_finite()).fold((false, false), |(b, a), &v| (b || v < lo, a || v > hi));
    if below {
        labels[0] = format!("≤ {}", labels[0]);
    }
    if above {
        labels[BAR_TICKS - 1] = format!("≥ {}", labels[BAR_TICKS - 1]);
    }
    let has_bad = field.iter().enumerate().any(|(k, v)| !v.is_finite() && !is_dry(k));
    let has_dry = ground.is_some_and(|g| g.dry.iter().any(|&d| d));
    let lay = field_layout(nx, ny, opts, &labels, has_bad as usize + has_dry as usize);
    let (map, bar, s) = (lay.map, lay.bar, lay.scale);
    let mut c = Canvas::new(lay.w, lay.h, WHITE);

    c.text(lay.w.saturating_sub(text_width(&opts.title)) / 2, MARGIN, &opts.title, BLACK);
    c.text(bar.x, bar.y - LABEL_GAP - TEXT_H, &bar_label(opts), BLACK);

    let cells = downsample(&water, nx, ny, lay.stride);
    let (dry, shade) = match ground {
        Some(g) => {
            let bed = downsample(g.bed, nx, ny, lay.stride);
            let [x0, x1, y0, y1] = opts.extent.unwrap_or([0.0, nx as f64, 0.0, ny as f64]);
            let (dx, dy) = ((x1 - x0) / lay.mx as f64, (y1 - y0) / lay.my as f64);
            (downsample_dry(g.dry, nx, ny, lay.stride), hillshade(&bed, lay.mx, lay.my, dx, dy))
        }
        None => (Vec::new(), Vec::new()),
    };
    for (j, row) in cells.chunks_exact(lay.mx).enumerate() {
        for (i, &v) in row.iter().enumerate() {
            let t = if v.is_finite() { opts.scale.fraction(v, lo, hi) } else { f64::NAN };
            let k = j * lay.mx + i;
            let water = if t.is_nan() && opts.unset.is_some() { UNSET_COLOR } else { opts.colormap.rgb(t) };
            let color = match ground {
                Some(_) => ground_color(water, dry[k], shade[k]),
                None => water,
            };
            c.fill(map.x + i * s, map.y + (lay.my - 1 - j) * s, s, s, color);
        }
    }
    c.frame(map.x, map.y, map.w, map.h, BLACK);
    if let Some((xa, ya)) = &lay.axes {
        let (right, bottom) = (map.x + map.w - 1, map.y + map.h - 1);
        for &t in &xa.ticks {
            let x = xa.to_px(t, map.x, right).round() as usize;
            c.fill(x, bottom + 1, 1, TICK_LEN, BLACK);
        }
        for &t in &ya.ticks {
            let y = ya.to_px(t, bottom, map.y).round() as usize;
            c.fill(map.x - 1 - TICK_LEN, y, TICK_LEN, 1, BLACK);
        }
        for (x, y, label) in tick_texts(&lay) {
            c.text(x, y, label, BLACK);
        }
        let x_label_y = bottom + TICK_LEN + 4 + TEXT_H + 10;
        let plan = opts.axes == PLAN_AXES;
        let (across, up) = (axis_title(opts.axes.0, xa), axis_title(opts.axes.1, ya));
        c.text((map.x + map.w / 2).saturating_sub(text_width(&across) / 2), x_label_y, &across, BLACK);
        c.text_up(MARGIN, (map.y + map.h / 2).saturating_sub(text_width(&up) / 2), &up, BLACK);
        // A plan view (x east, y north) says so; a vertical slice (x and z) has no north.
        if plan {
            let note = "north ↑";
            c.text((map.x + map.w).saturating_sub(text_width(note)), map.y - LABEL_GAP - TEXT_H, note, BLACK);
        }
    }

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
    let bad_key = match opts.unset {
        Some(name) => (has_bad, UNSET_COLOR, name),
        None => (has_bad, NAN_COLOR, "NaN"),
    };
    let keys = [bad_key, (has_dry, LAND, "dry")];
    for (n, (_, color, name)) in keys.into_iter().filter(|k| k.0).enumerate() {
        let y = bar.y + bar.h + TEXT_H - TEXT_MID + 12 + n * (TEXT_H + 12);
        c.fill(bar.x, y, bar.w, TEXT_H, color);
        c.frame(bar.x, y, bar.w, TEXT_H, BLACK);
        c.text(bar.x + bar.w + TICK_LEN + 4, y, name, BLACK);
    }
    Ok(c)
}
