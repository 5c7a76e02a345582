//! Values as the bytes that travel between ranks: little-endian, each in its own precision,
//! so that what arrives is bit for bit what was sent.

use crate::{Error, Real, Result};

/// Whether `T` travels as 4 bytes (f32) or 8 (f64).
fn narrow<T: Real>() -> bool {
    T::NAME == "f32"
}

/// Append `values` to `out`.
pub fn put<T: Real>(values: &[T], out: &mut Vec<u8>) {
    if narrow::<T>() {
        out.reserve(4 * values.len());
        values.iter().for_each(|v| out.extend_from_slice(&(v.to_f64() as f32).to_le_bytes()));
    } else {
        out.reserve(8 * values.len());
        values.iter().for_each(|v| out.extend_from_slice(&v.to_f64().to_le_bytes()));
    }
}

/// Bytes a value of `T` takes.
pub fn width<T: Real>() -> usize {
    if narrow::<T>() { 4 } else { 8 }
}

/// Fill `out` from `bytes`, which must hold exactly as many values.
pub fn take<T: Real>(bytes: &[u8], out: &mut [T]) -> Result<()> {
    let w = width::<T>();
    if bytes.len() != w * out.len() {
        return Err(Error::invalid(format!(
            "ranks: {} bytes received for {} values of {}",
            bytes.len(),
            out.len(),
            T::NAME
        )));
    }
    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(w)) {
        *o = match w {
            4 => T::from_f64(f32::from_le_bytes(b.try_into().unwrap()) as f64),
            _ => T::from_f64(f64::from_le_bytes(b.try_into().unwrap())),
        };
    }
    Ok(())
}

/// `bytes` as a new vector of `T`.
pub fn values<T: Real>(bytes: &[u8]) -> Result<Vec<T>> {
    let mut v = vec![T::ZERO; bytes.len() / width::<T>()];
    take(bytes, &mut v)?;
    Ok(v)
}

/// A message under construction: numbers, names and arrays one after another.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }
    /// `v` as little-endian words, after their count.
    pub fn u32s(&mut self, v: &[u32]) -> &mut Self {
        self.u64(v.len() as u64);
        v.iter().for_each(|x| self.0.extend_from_slice(&x.to_le_bytes()));
        self
    }
    pub fn values<T: Real>(&mut self, v: &[T]) -> &mut Self {
        self.u64(v.len() as u64);
        put(v, &mut self.0);
        self
    }
}

/// A message read back in the order [`Writer`] wrote it.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }
    fn next(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| Error::invalid("ranks: a message ended early"))?;
        let b = &self.bytes[self.at..end];
        self.at = end;
        Ok(b)
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.next(8)?.try_into().unwrap()))
    }
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.next(8)?.try_into().unwrap()))
    }
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u64()? as usize;
        self.next(n)
    }
    pub fn str(&mut self) -> Result<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| Error::invalid("ranks: a name that is not UTF-8"))
    }
    pub fn u32s(&mut self) -> Result<Vec<u32>> {
        let n = self.u64()? as usize;
        let b = self.next(n.checked_mul(4).ok_or_else(|| Error::invalid("ranks: a message too long"))?)?;
        Ok(b.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect())
    }
    pub fn values<T: Real>(&mut self) -> Result<Vec<T>> {
        values(self.values_bytes::<T>()?)
    }
    /// The bytes of the values [`values`](Self::values) would read, where they lie.
    pub fn values_bytes<T: Real>(&mut self) -> Result<&'a [u8]> {
        let n = self.u64()? as usize;
        self.next(n.checked_mul(width::<T>()).ok_or_else(|| Error::invalid("ranks: a message too long"))?)
    }
    /// What is left of the message.
    pub fn rest(&mut self) -> &'a [u8] {
        let rest = &self.bytes[self.at..];
        self.at = self.bytes.len();
        rest
    }
}
