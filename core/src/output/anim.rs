//! Animated GIFs over the snapshots of a run: each snapshot's picture of a quantity is kept as a
//! frame, and the whole animation is encoded once at the end of the run, so it is written whole
//! or not at all like every other output.
//!
//! GIF rather than APNG because every viewer, browser, slide program and chat client plays it.
//! Its 256 colours are one palette for all frames (their own colours where they have no more;
//! else fitted by NeuQuant to pixels of every frame): a value keeps its colour from frame to
//! frame, as it does in the run's PNG maps.

use super::png::Picture;
use crate::{Error, Result};
use std::collections::HashMap;

/// A long run keeps at most this many frames, and no more than fit in [`MEMORY`] (at least 8):
/// past that every other frame is dropped and only every second snapshot after that kept, so
/// the frames stay evenly spaced in time.
pub const MAX_FRAMES: usize = 240;
/// Bytes of pictures an animation keeps: 240 maps of 700 × 600 pixels (300 MB) would be too
/// many, let alone a 4096² run's maps of 2100 × 2100.
pub const MEMORY: usize = 128 << 20;
/// Time each frame shows, in hundredths of a second; the last one holds longer.
const DELAY: u16 = 50;
const LAST_DELAY: u16 = 200;
/// NeuQuant's sampling factor: 1 looks at every pixel given it, 30 at one in 30.
const SAMPLE: i32 = 10;
/// Pixels of each frame given to NeuQuant, so the palette fits every frame at a bounded cost.
const TRAIN_PIXELS: usize = 40_000;

/// The frames of one animation.
#[derive(Clone, Debug, Default)]
pub struct Animation {
    frames: Vec<Picture>,
    /// Keep every `stride`-th frame pushed (1 until [`MAX_FRAMES`] is passed).
    stride: usize,
    pushed: usize,
    /// The newest frame pushed when the stride skipped it: the animation still ends on it.
    latest: Option<Picture>,
}

impl Animation {
    pub fn new() -> Animation {
        Animation { stride: 1, ..Animation::default() }
    }

    /// Frames it will encode.
    pub fn len(&self) -> usize {
        self.frames.len() + self.latest.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add the next snapshot's picture.
    pub fn push(&mut self, picture: Picture) {
        let stride = self.stride.max(1);
        if self.pushed.is_multiple_of(stride) {
            self.frames.push(picture);
            self.latest = None;
        } else {
            self.latest = Some(picture);
        }
        self.pushed += 1;
        let bytes = self.frames.last().map_or(1, |f| f.rgb().len().max(1));
        if self.frames.len() > (MEMORY / bytes).clamp(8, MAX_FRAMES) {
            let mut k = 0;
            self.frames.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            self.stride = stride * 2;
        }
    }

    /// The animation as a GIF file's bytes: frames the size of the largest one (smaller ones on
    /// white, from the top left), shown for half a second each, the last for two, looping.
    pub fn encode_gif(&self) -> Result<Vec<u8>> {
        let frames: Vec<&Picture> = self.frames.iter().chain(&self.latest).collect();
        if frames.is_empty() {
            return Err(Error::invalid("an animation needs at least one frame"));
        }
        let w = frames.iter().map(|f| f.width()).max().unwrap_or(0);
        let h = frames.iter().map(|f| f.height()).max().unwrap_or(0);
        let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
            return Err(Error::invalid(format!("a GIF frame of {w}×{h} pixels is larger than GIF allows (65535)")));
        };
        let quant = palette(&frames);
        let failed = |e: gif::EncodingError| Error::invalid(format!("GIF encoding failed: {e}"));
        let mut out = Vec::new();
        {
            let mut enc = gif::Encoder::new(&mut out, w16, h16, &quant.rgb()).map_err(failed)?;
            enc.set_repeat(gif::Repeat::Infinite).map_err(failed)?;
            let white = quant.index_of([255, 255, 255]);
            let mut cache: HashMap<[u8; 3], u8> = HashMap::new();
            for (n, f) in frames.iter().enumerate() {
                let mut buffer = vec![white; w * h];
                for (y, row) in f.rgb().chunks_exact(3 * f.width()).enumerate() {
                    for (x, p) in row.chunks_exact(3).enumerate() {
                        let rgb = [p[0], p[1], p[2]];
                        buffer[y * w + x] = *cache.entry(rgb).or_insert_with(|| quant.index_of(rgb));
                    }
                }
                let delay = if n + 1 == frames.len() { LAST_DELAY } else { DELAY };
                let frame =
                    gif::Frame { width: w16, height: h16, buffer: buffer.into(), delay, ..gif::Frame::default() };
                enc.write_frame(&frame).map_err(failed)?;
            }
        }
        Ok(out)
    }
}

/// A GIF's palette and the index of each colour.
enum Palette {
    /// Frames of at most 256 colours keep them exactly.
    Exact(Vec<[u8; 3]>),
    Fitted(color_quant::NeuQuant),
}

impl Palette {
    fn rgb(&self) -> Vec<u8> {
        match self {
            Palette::Exact(colors) => colors.concat(),
            Palette::Fitted(q) => q.color_map_rgb(),
        }
    }

    fn index_of(&self, rgb: [u8; 3]) -> u8 {
        match self {
            Palette::Exact(colors) => colors.iter().position(|&c| c == rgb).unwrap_or(0) as u8,
            Palette::Fitted(q) => q.index_of(&[rgb[0], rgb[1], rgb[2], 255]) as u8,
        }
    }
}

/// One palette for all `frames` and white: their own colours when there are at most 256,
/// else 256 fitted to an even sample of each frame's pixels.
fn palette(frames: &[&Picture]) -> Palette {
    let mut seen: HashMap<[u8; 3], ()> = HashMap::from([([255, 255, 255], ())]);
    'frames: for f in frames {
        for p in f.rgb().chunks_exact(3) {
            seen.insert([p[0], p[1], p[2]], ());
            if seen.len() > 256 {
                break 'frames;
            }
        }
    }
    if seen.len() <= 256 {
        let mut colors: Vec<[u8; 3]> = seen.into_keys().collect();
        colors.sort_unstable();
        return Palette::Exact(colors);
    }
    let mut rgba = Vec::new();
    for f in frames {
        let px = f.rgb();
        let n = px.len() / 3;
        let step = n.div_ceil(TRAIN_PIXELS).max(1);
        for k in (0..n).step_by(step) {
            rgba.extend_from_slice(&[px[3 * k], px[3 * k + 1], px[3 * k + 2], 255]);
        }
    }
    Palette::Fitted(color_quant::NeuQuant::new(SAMPLE, 256, &rgba))
}

/// The animations of a run, by file name (`depth.gif`), in the order first seen.
#[derive(Clone, Debug, Default)]
pub struct Animations(Vec<(String, Animation)>);

impl Animations {
    /// Add `picture` as the next frame of the animation written to `file`.
    pub fn push(&mut self, file: &str, picture: Picture) {
        match self.0.iter_mut().find(|(name, _)| name == file) {
            Some((_, a)) => a.push(picture),
            None => {
                let mut a = Animation::new();
                a.push(picture);
                self.0.push((file.to_string(), a));
            }
        }
    }

    /// Each animation's file name and GIF bytes.
    pub fn encode(&self) -> Result<Vec<(String, Vec<u8>)>> {
        self.0.iter().map(|(name, a)| Ok((name.clone(), a.encode_gif()?))).collect()
    }
}
