//! NumPy `.npy` files (format version 1.0), so fields can be loaded with `np.load` without any
//! converter. Only what results need: little-endian floats in C order.
//!
//! A 2-D field stored with x fastest (`field[j * nx + i]`) has shape `[ny, nx]`.

use crate::atomic::write_atomic_parts;
use crate::{Error, Result};
use std::borrow::Cow;
use std::path::Path;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

mod sealed {
    pub trait Sealed {}
}

/// An element type `.npy` files can hold; sealed because the reader only knows these dtypes.
pub trait NpyElem: sealed::Sealed + Copy {
    /// NumPy's dtype string.
    const DESCR: &'static str;
    /// The little-endian bytes of `data`: the values' own memory on a little-endian machine (a
    /// snapshot's fields go to the file without a copy), converted elsewhere.
    fn le_bytes(data: &[Self]) -> Cow<'_, [u8]>;
}

macro_rules! npy_elem {
    ($t:ty, $descr:literal) => {
        impl sealed::Sealed for $t {}
        impl NpyElem for $t {
            const DESCR: &'static str = $descr;
            fn le_bytes(data: &[Self]) -> Cow<'_, [u8]> {
                if cfg!(target_endian = "little") {
                    // SAFETY: a float type has no padding and every byte of it may be read as
                    // a u8; the slice covers exactly `data`'s memory and borrows it.
                    Cow::Borrowed(unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), size_of_val(data)) })
                } else {
                    Cow::Owned(data.iter().flat_map(|x| x.to_le_bytes()).collect())
                }
            }
        }
    };
}
npy_elem!(f32, "<f4");
npy_elem!(f64, "<f8");
npy_elem!(half::f16, "<f2");

/// Number of elements of `shape`, or an error when it overflows (a corrupt header, typically).
fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// The magic, version and header dict, padded with spaces so the data starts on a 64-byte
/// boundary as the format requires (it lets readers memory-map the data aligned).
fn header(descr: &str, shape: &[usize]) -> Result<Vec<u8>> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    // Python's tuple syntax: a 1-tuple needs its trailing comma.
    let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let total = (MAGIC.len() + 4 + dict.len() + 1).div_ceil(64) * 64;
    let header_len = u16::try_from(total - MAGIC.len() - 4)
        .map_err(|_| Error::invalid(format!(".npy header for shape {shape} is too long")))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    Ok(out)
}

/// Write `data` with the given `shape` (C order: last index fastest) as a `.npy` file.
pub fn write_npy<T: NpyElem>(path: &Path, data: &[T], shape: &[usize]) -> Result<()> {
    if element_count(shape) != Some(data.len()) {
        return Err(Error::invalid(format!(
            "{}: shape {shape:?} does not match {} data values",
            path.display(),
            data.len()
        )));
    }
    let header = header(T::DESCR, shape)?;
    let values = T::le_bytes(data);
    write_atomic_parts(path, &[&header, &values])
}

/// Read a `.npy` file of little-endian `f2`/`f4`/`f8` values in C order, widened to f64;
/// returns the values and the shape. Only a regular file is read, and only when it and its
/// values widened to f64 fit in half the memory available (so a device, a FIFO or a file far
/// too large is refused at once).
pub fn read_npy_f64(path: &Path) -> Result<(Vec<f64>, Vec<usize>)> {
    let bytes = read_npy_bytes(path)?;
    parse_npy_f64(path, &bytes)
}

/// The bytes of a `.npy` file to read, under [`read_npy_f64`]'s limits.
pub fn read_npy_bytes(path: &Path) -> Result<Vec<u8>> {
    let limit = crate::files::available_memory().map_or(u64::MAX, |m| m / 6);
    crate::files::read_bytes(path, limit, ".npy input small enough for this machine's memory")
}

/// [`read_npy_f64`] of the bytes of the file at `path` (named in errors).
pub fn parse_npy_f64(path: &Path, bytes: &[u8]) -> Result<(Vec<f64>, Vec<usize>)> {
    parse_npy(bytes).map_err(|msg| Error::invalid(format!("{}: {msg}", path.display())))
}

fn parse_npy(bytes: &[u8]) -> std::result::Result<(Vec<f64>, Vec<usize>), String> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a .npy file (bad magic)".into());
    }
    // Version 1 has a 2-byte header length; versions 2 and 3 (for huge headers) have 4 bytes.
    let truncated = || "truncated .npy header".to_string();
    let (len_bytes, start) = match bytes.get(6) {
        Some(1) => (2, 10),
        Some(2 | 3) => (4, 12),
        Some(v) => return Err(format!("unsupported .npy format version {v}")),
        None => return Err(truncated()),
    };
    let len_field = bytes.get(8..8 + len_bytes).ok_or_else(truncated)?;
    let header_len = len_field.iter().rev().fold(0usize, |n, &b| (n << 8) | usize::from(b));
    let end = start + header_len;
    let header = bytes.get(start..end).ok_or_else(truncated)?;
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text".to_string())?;
    let dict = parse_header(header)?;

    let size = match dict.descr.as_str() {
        "<f2" => 2,
        "<f4" => 4,
        "<f8" => 8,
        other => return Err(format!("unsupported dtype '{other}' (only '<f2', '<f4' and '<f8' can be read)")),
    };
    if dict.fortran_order {
        return Err("Fortran-order arrays are not supported; save with np.ascontiguousarray".into());
    }
    let count = element_count(&dict.shape).ok_or_else(|| format!("shape {:?} is too large", dict.shape))?;
    let data = &bytes[end..];
    let expected = count.checked_mul(size).ok_or_else(|| format!("shape {:?} is too large", dict.shape))?;
    if data.len() != expected {
        let what = if data.len() < expected { "truncated data" } else { "trailing bytes after the data" };
        return Err(format!(
            "{what}: shape {:?} of '{}' needs {expected} bytes, the file has {}",
            dict.shape,
            dict.descr,
            data.len()
        ));
    }
    let values = data
        .chunks_exact(size)
        .map(|c| match size {
            2 => half::f16::from_le_bytes([c[0], c[1]]).to_f64(),
            4 => f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            _ => f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        })
        .collect();
    Ok((values, dict.shape))
}

struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Parse the header dict, a Python literal such as
/// `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }`. Written as a tiny parser
/// rather than string matching because writers differ in spacing, key order and quotes.
fn parse_header(text: &str) -> std::result::Result<Header, String> {
    let mut p = Parser { s: text.as_bytes(), i: 0 };
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    p.expect(b'{')?;
    while !p.eat(b'}') {
        let key = p.string()?;
        p.expect(b':')?;
        match key.as_str() {
            "descr" => descr = Some(p.string()?),
            "fortran_order" => fortran_order = Some(p.boolean()?),
            "shape" => shape = Some(p.tuple()?),
            other => return Err(format!("unexpected key '{other}' in the .npy header")),
        }
        if !p.eat(b',') {
            p.expect(b'}')?;
            break;
        }
    }
    let missing = |k: &str| format!("the .npy header has no '{k}'");
    Ok(Header {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran_order.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    /// Consume `c` (after whitespace) if it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.skip_space();
        let hit = self.s.get(self.i) == Some(&c);
        self.i += usize::from(hit);
        hit
    }

    fn expect(&mut self, c: u8) -> std::result::Result<(), String> {
        if self.eat(c) { Ok(()) } else { Err(self.error(&format!("'{}'", c as char))) }
    }

    fn error(&self, wanted: &str) -> String {
        format!("malformed .npy header: expected {wanted} at byte {}", self.i)
    }

    fn string(&mut self) -> std::result::Result<String, String> {
        self.skip_space();
        let quote = match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err(self.error("a quoted string")),
        };
        let begin = self.i + 1;
        let len = self.s[begin..].iter().position(|&c| c == quote).ok_or_else(|| self.error("a closing quote"))?;
        self.i = begin + len + 1;
        Ok(String::from_utf8_lossy(&self.s[begin..begin + len]).into_owned())
    }

    fn boolean(&mut self) -> std::result::Result<bool, String> {
        self.skip_space();
        for (word, value) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if self.s[self.i..].starts_with(word) {
                self.i += word.len();
                return Ok(value);
            }
        }
        Err(self.error("True or False"))
    }

    /// A tuple of non-negative integers; `()`, `(3,)` and `(2, 3)` all occur.
    fn tuple(&mut self) -> std::result::Result<Vec<usize>, String> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        while !self.eat(b')') {
            self.skip_space();
            let begin = self.i;
            while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
            // Python 2 era writers append `L` to longs.
            let digits = std::str::from_utf8(&self.s[begin..self.i]).unwrap_or("");
            dims.push(digits.parse().map_err(|_| self.error("a dimension"))?);
            let _ = self.eat(b'L');
            if !self.eat(b',') {
                self.expect(b')')?;
                break;
            }
        }
        Ok(dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_dir;
    use half::f16;

    fn values(n: usize) -> Vec<f64> {
        // Exactly representable in f16 so every precision round-trips bit for bit.
        (0..n).map(|k| (k as f64 - 3.0) * 0.25).collect()
    }

    fn round_trip<T: NpyElem>(dir: &Path, from: fn(f64) -> T) {
        for shape in [&[1, 1][..], &[3, 7], &[0, 5], &[4], &[2, 3, 2]] {
            let n = shape.iter().product();
            let data: Vec<T> = values(n).into_iter().map(from).collect();
            let path = dir.join(format!("{}-{shape:?}.npy", T::DESCR.trim_start_matches('<')));
            write_npy(&path, &data, shape).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let prefix = bytes.len() - n * std::mem::size_of::<T>();
            assert_eq!(prefix % 64, 0, "data must start 64-byte aligned");
            let (back, back_shape) = read_npy_f64(&path).unwrap();
            assert_eq!(back_shape, shape);
            assert_eq!(back, values(n), "{} {shape:?}", T::DESCR);
        }
    }

    #[test]
    fn round_trips_all_precisions() {
        let dir = test_dir("npy-round-trip");
        round_trip::<f64>(&dir, |x| x);
        round_trip::<f32>(&dir, |x| x as f32);
        round_trip::<f16>(&dir, f16::from_f64);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn header_bytes_match_numpy() {
        let dict = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
        let h = header("<f8", &[2, 3]).unwrap();
        assert_eq!(h.len(), 128);
        assert_eq!(&h[..10], b"\x93NUMPY\x01\x00\x76\x00"); // 118 = 128 - 10
        assert_eq!(&h[10..10 + dict.len()], dict);
        assert!(h[10 + dict.len()..127].iter().all(|&b| b == b' '));
        assert_eq!(h[127], b'\n');
        // numpy writes 1-tuples with a trailing comma and 0-d arrays as ().
        assert!(String::from_utf8_lossy(&header("<f4", &[5]).unwrap()).contains("'shape': (5,), }"));
        assert!(String::from_utf8_lossy(&header("<f4", &[]).unwrap()).contains("'shape': (), }"));
    }

    #[test]
    fn rejects_mismatched_shape() {
        let dir = test_dir("npy-shape");
        let path = dir.join("a.npy");
        assert!(matches!(write_npy(&path, &[1.0f64; 6], &[2, 2]), Err(Error::Invalid(_))));
        assert!(matches!(write_npy(&path, &[1.0f64; 6], &[usize::MAX, 3]), Err(Error::Invalid(_))));
        assert!(!path.exists());
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn parse_err(bytes: &[u8]) -> String {
        parse_npy(bytes).expect_err("should be rejected")
    }

    fn with_dict(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[1, 0]);
        b.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        b.extend_from_slice(dict.as_bytes());
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn reading_reports_bad_files() {
        assert!(parse_err(b"").contains("bad magic"));
        assert!(parse_err(b"PK\x03\x04 not numpy at all").contains("bad magic"));
        assert!(parse_err(b"\x93NUMPY\x01").contains("truncated"));
        assert!(parse_err(b"\x93NUMPY\x01\x00\xff\x00{'descr'").contains("truncated"));
        assert!(parse_err(b"\x93NUMPY\x09\x00\x00\x00").contains("version"));

        let good = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n";
        assert_eq!(parse_npy(&with_dict(good, &[0; 16])).unwrap(), (vec![0.0, 0.0], vec![2]));
        assert!(parse_err(&with_dict(good, &[0; 15])).contains("truncated data"));
        assert!(parse_err(&with_dict(good, &[0; 17])).contains("trailing"));

        let big_endian = "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }";
        assert!(parse_err(&with_dict(big_endian, &[0; 16])).contains("unsupported dtype '>f8'"));
        let ints = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
        assert!(parse_err(&with_dict(ints, &[0; 8])).contains("unsupported dtype"));
        let fortran = "{'descr': '<f8', 'fortran_order': True, 'shape': (1, 2), }";
        assert!(parse_err(&with_dict(fortran, &[0; 16])).contains("Fortran"));
        assert!(parse_err(&with_dict("{'descr': '<f8', 'shape': (2,)}", &[0; 16])).contains("fortran_order"));
        assert!(parse_err(&with_dict("{'descr': '<f8', 'shape': (x,)}", &[])).contains("malformed"));
        let huge = "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }";
        assert!(parse_err(&with_dict(huge, &[])).contains("too large"));
        // Other writers: double quotes, other key order, no trailing comma.
        let other = r#"{"shape": (1, 1), "fortran_order": False, "descr": "<f4"}"#;
        assert_eq!(parse_npy(&with_dict(other, &1.5f32.to_le_bytes())).unwrap(), (vec![1.5], vec![1, 1]));
    }
}
