//! A minimal RGB raster with only the drawing the pictures need: filled rectangles, thick
//! (optionally dashed) lines and anti-aliased text in the embedded font ([`super::font`]), so
//! the pictures look the same on every machine.

pub(crate) use super::font::{TEXT_H, TEXT_MID, text_width};
use crate::{Error, Result};

pub(crate) const WHITE: [u8; 3] = [255, 255, 255];
pub(crate) const BLACK: [u8; 3] = [0, 0, 0];

/// A pixel rectangle, `x0..x1` × `y0..y1`; lines are clipped to one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rect {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

impl Rect {
    pub fn new(x: usize, y: usize, w: usize, h: usize) -> Rect {
        Rect { x0: x as i64, y0: y as i64, x1: (x + w) as i64, y1: (y + h) as i64 }
    }

    fn contains(&self, x: i64, y: i64) -> bool {
        (self.x0..self.x1).contains(&x) && (self.y0..self.y1).contains(&y)
    }
}

/// How a line is drawn: `dash` is (on, off) lengths in pixels.
pub(crate) struct Pen {
    pub color: [u8; 3],
    pub width: usize,
    pub dash: Option<(f64, f64)>,
}

#[derive(Clone)]
pub(crate) struct Canvas {
    pub w: usize,
    pub h: usize,
    px: Vec<u8>,
}

impl Canvas {
    pub fn new(w: usize, h: usize, background: [u8; 3]) -> Canvas {
        Canvas { w, h, px: background.repeat(w * h) }
    }

    pub fn pixels(&self) -> &[u8] {
        &self.px
    }

    pub fn get(&self, x: usize, y: usize) -> [u8; 3] {
        let k = 3 * (y * self.w + x);
        [self.px[k], self.px[k + 1], self.px[k + 2]]
    }

    /// Set one pixel; anything outside the canvas is silently dropped, which keeps callers free
    /// of bounds arithmetic near the edges.
    pub fn put(&mut self, x: i64, y: i64, color: [u8; 3]) {
        if (0..self.w as i64).contains(&x) && (0..self.h as i64).contains(&y) {
            let k = 3 * (y as usize * self.w + x as usize);
            self.px[k..k + 3].copy_from_slice(&color);
        }
    }

    pub fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, color: [u8; 3]) {
        for yy in y..(y + h).min(self.h) {
            for xx in x..(x + w).min(self.w) {
                self.put(xx as i64, yy as i64, color);
            }
        }
    }

    /// A 1-pixel outline just outside the rectangle `x..x+w` × `y..y+h`, so it never covers
    /// what was drawn inside.
    pub fn frame(&mut self, x: usize, y: usize, w: usize, h: usize, color: [u8; 3]) {
        let (x0, y0, x1, y1) = (x as i64 - 1, y as i64 - 1, (x + w) as i64, (y + h) as i64);
        for xx in x0..=x1 {
            self.put(xx, y0, color);
            self.put(xx, y1, color);
        }
        for yy in y0..=y1 {
            self.put(x0, yy, color);
            self.put(x1, yy, color);
        }
    }

    /// Draw `text` with its top-left corner at (x, y).
    pub fn text(&mut self, x: usize, y: usize, text: &str, color: [u8; 3]) {
        self.glyphs(text, color, |u, v| (x as i64 + u, y as i64 + v));
    }

    /// Draw `text` turned 90° anticlockwise, reading bottom to top (for a y-axis label), inside
    /// the box with top-left corner (x, y), `TEXT_H` wide and `text_width(text)` high.
    pub fn text_up(&mut self, x: usize, y: usize, text: &str, color: [u8; 3]) {
        let bottom = (y + text_width(text)) as i64 - 1;
        self.glyphs(text, color, |u, v| (x as i64 + v, bottom - u));
    }

    /// Draw the glyphs of `text`, mapping a pixel at (u along the text, v down) through `at`;
    /// partly covered pixels are blended with what is below them.
    fn glyphs(&mut self, text: &str, color: [u8; 3], at: impl Fn(i64, i64) -> (i64, i64)) {
        super::font::rasterize(text, |u, v, coverage| {
            let (x, y) = at(u, v);
            self.blend(x, y, color, coverage);
        });
    }

    /// Mix `color` into one pixel with weight `alpha` in [0, 1]; outside the canvas, nothing.
    pub fn blend(&mut self, x: i64, y: i64, color: [u8; 3], alpha: f32) {
        if (0..self.w as i64).contains(&x) && (0..self.h as i64).contains(&y) {
            let k = 3 * (y as usize * self.w + x as usize);
            for (p, c) in self.px[k..k + 3].iter_mut().zip(color) {
                *p = (f32::from(*p) + (f32::from(c) - f32::from(*p)) * alpha).round() as u8;
            }
        }
    }

    /// A straight line from `a` to `b` (pixel coordinates), clipped to `clip`. `phase` carries
    /// the dash pattern across the segments of a polyline so dashes do not restart at each data
    /// point.
    pub fn line(&mut self, a: (f64, f64), b: (f64, f64), pen: &Pen, phase: &mut f64, clip: Rect) {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let steps = dx.abs().max(dy.abs()).ceil();
        // Callers map data into the picture, so a longer line means bad input; skip it rather
        // than loop for ever.
        if !steps.is_finite() || steps > 1e5 {
            return;
        }
        let steps = steps.max(1.0) as usize;
        let length = dx.hypot(dy);
        let lo = (pen.width as i64 - 1) / 2;
        for k in 0..=steps {
            let f = k as f64 / steps as f64;
            if let Some((on, off)) = pen.dash
                && (*phase + f * length) % (on + off) >= on
            {
                continue;
            }
            let (x, y) = ((a.0 + f * dx).round() as i64, (a.1 + f * dy).round() as i64);
            for (ox, oy) in (0..pen.width * pen.width).map(|k| ((k % pen.width) as i64, (k / pen.width) as i64)) {
                let (px, py) = (x - lo + ox, y - lo + oy);
                if clip.contains(px, py) {
                    self.put(px, py, pen.color);
                }
            }
        }
        *phase += length;
    }

    pub fn encode_png(&self) -> Result<Vec<u8>> {
        let failed = |e: ::png::EncodingError| Error::invalid(format!("PNG encoding failed: {e}"));
        let (w, h) = (u32::try_from(self.w), u32::try_from(self.h));
        let (Ok(w), Ok(h)) = (w, h) else {
            return Err(Error::invalid(format!("picture of {}×{} pixels is too large", self.w, self.h)));
        };
        let mut out = Vec::new();
        let mut encoder = ::png::Encoder::new(&mut out, w, h);
        encoder.set_color(::png::ColorType::Rgb);
        encoder.set_depth(::png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(failed)?;
        writer.write_image_data(&self.px).map_err(failed)?;
        writer.finish().map_err(failed)?;
        Ok(out)
    }
}
