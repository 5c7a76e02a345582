//! Text for the pictures: DejaVu Sans, embedded as a subset (Latin, Greek, super- and
//! subscripts, arrows and a few mathematical signs, 36 kB) and rasterised with anti-aliasing by
//! `ab_glyph`, a pure-Rust crate. Embedding the font keeps the pictures free of system fonts
//! (no fontconfig) and the same on every machine, and it draws what labels need: "m²", "θ",
//! "ζ", "Δt", "h − h₀". Characters outside the subset draw as the font's empty box, visibly.
//!
//! The subset was made with fontTools (docs/pictures.md gives the command); its licence is
//! `fonts/LICENSE-DejaVu.txt`.

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};
use std::sync::LazyLock;

static FONT_BYTES: &[u8] = include_bytes!("fonts/DejaVuSans-subset.ttf");

/// The embedded font; it is a constant of the build, and a test parses it.
static FONT: LazyLock<FontRef<'static>> =
    LazyLock::new(|| FontRef::try_from_slice(FONT_BYTES).expect("the embedded font parses (tested in font::tests)"));

/// Height of a line of text in pixels, from the top of the tallest accent to the bottom of the
/// descenders (the font's ascent − descent): about 14.6 px to the em, readable on today's screens.
pub(crate) const TEXT_H: usize = 17;
/// Distance from the top of a line of text to the middle of its capitals and digits: where a
/// label sits level with the tick it names (the font's ascent less half its cap height; a test
/// checks it against the font).
pub(crate) const TEXT_MID: usize = 8;

fn scale() -> PxScale {
    PxScale::from(TEXT_H as f32)
}

/// The glyphs of `text` and the pen position (pixels from the start) of each, kerned.
fn layout(text: &str) -> (Vec<(GlyphId, f32)>, f32) {
    let font = FONT.as_scaled(scale());
    let mut pen = 0.0f32;
    let mut prev: Option<GlyphId> = None;
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = prev {
            pen += font.kern(p, id);
        }
        out.push((id, pen));
        pen += font.h_advance(id);
        prev = Some(id);
    }
    (out, pen)
}

/// Width in pixels of `text` as [`rasterize`] draws it.
pub(crate) fn text_width(text: &str) -> usize {
    layout(text).1.ceil() as usize
}

/// Call `ink(u, v, coverage)` for every pixel the glyphs of `text` cover, `u` along the text
/// from its start and `v` down from the top of the line, with coverage in (0, 1].
pub(crate) fn rasterize(text: &str, mut ink: impl FnMut(i64, i64, f32)) {
    let font = FONT.as_scaled(scale());
    let ascent = font.ascent();
    for (id, x) in layout(text).0 {
        let glyph = id.with_scale_and_position(scale(), point(x, ascent));
        let Some(outline) = FONT.outline_glyph(glyph) else { continue };
        let b = outline.px_bounds();
        outline.draw(|gx, gy, c| {
            if c > 0.0 {
                ink(b.min.x as i64 + i64::from(gx), b.min.y as i64 + i64::from(gy), c.min(1.0));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixels inked by `text`, and their bounding box (u0, v0, u1, v1).
    fn ink(text: &str) -> (usize, (i64, i64, i64, i64)) {
        let (mut n, mut bb) = (0, (i64::MAX, i64::MAX, i64::MIN, i64::MIN));
        rasterize(text, |u, v, _| {
            n += 1;
            bb = (bb.0.min(u), bb.1.min(v), bb.2.max(u), bb.3.max(v));
        });
        (n, bb)
    }

    #[test]
    fn the_embedded_font_parses_and_has_the_labels_glyphs() {
        let font = FontRef::try_from_slice(FONT_BYTES).unwrap();
        for c in "m²s⁻¹θζηΔτρ−₀→↑°×±√≈".chars() {
            assert_ne!(font.glyph_id(c), GlyphId(0), "{c:?} is missing from the embedded subset");
        }
    }

    #[test]
    fn squared_and_theta_draw_real_glyphs() {
        // "²" is a raised, smaller digit: ink above the middle of the line, less tall than "2".
        let (n2, two) = ink("2");
        let (nsq, sq) = ink("²");
        assert!(nsq > 5 && n2 > nsq, "² inks {nsq} pixels, 2 inks {n2}");
        assert!(sq.3 < TEXT_MID as i64 + 1 && sq.3 - sq.1 < two.3 - two.1, "² at {sq:?}, 2 at {two:?}");
        // θ is a closed shape as tall as a digit, not the empty box of a missing glyph (which
        // inks only its outline: a box is far from θ's ink count).
        let (nt, theta) = ink("θ");
        let (nbox, _) = ink("\u{4e00}");
        assert!(nt > 20 && theta.3 - theta.1 >= 9, "θ inks {nt} pixels over {theta:?}");
        assert_ne!(nt, nbox);
        assert!(text_width("m²") > text_width("m") && text_width("") == 0);
    }

    #[test]
    fn line_metrics_match_the_font() {
        let font = FONT.as_scaled(scale());
        assert!((font.ascent() - font.descent() - TEXT_H as f32).abs() < 0.01);
        // The middle of a capital "H": its ink spans the cap height above the baseline.
        let (_, h) = ink("H");
        let mid = (h.1 + h.3) as f32 / 2.0;
        assert!((mid - TEXT_MID as f32).abs() <= 1.0, "H's middle at {mid}");
        assert!(h.3 < TEXT_H as i64 && h.1 >= 0);
    }
}
