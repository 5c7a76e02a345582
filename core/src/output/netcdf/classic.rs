//! The NetCDF classic format, versions 1 (classic) and 2 (64-bit offset), as Unidata's
//! "NetCDF File Format Specification" states it: the header as a value, encoded and decoded.
//!
//! A file is the header, then the fixed-size variables one after another, then the records:
//! record r holds one slab of every record variable (those whose first dimension is the
//! unlimited one), in the order the header lists them. Every number is big-endian; every name,
//! attribute value and variable slab is padded to a multiple of 4 bytes.

use std::fmt;

const MAGIC: &[u8; 3] = b"CDF";
const TAG_DIMENSION: u32 = 0x0A;
const TAG_VARIABLE: u32 = 0x0B;
const TAG_ATTRIBUTE: u32 = 0x0C;
/// `numrecs` of a file being streamed, whose record count is not known: not what we write.
const STREAMING: u32 = u32::MAX;

/// The external types of the classic format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Byte = 1,
    Char = 2,
    Short = 3,
    Int = 4,
    Float = 5,
    Double = 6,
}

impl Type {
    fn from_code(code: u32) -> Option<Type> {
        Some(match code {
            1 => Type::Byte,
            2 => Type::Char,
            3 => Type::Short,
            4 => Type::Int,
            5 => Type::Float,
            6 => Type::Double,
            _ => return None,
        })
    }
    /// Bytes of one value.
    pub fn size(self) -> u64 {
        match self {
            Type::Byte | Type::Char => 1,
            Type::Short => 2,
            Type::Int | Type::Float => 4,
            Type::Double => 8,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Type::Byte => "byte",
            Type::Char => "char",
            Type::Short => "short",
            Type::Int => "int",
            Type::Float => "float",
            Type::Double => "double",
        };
        f.write_str(name)
    }
}

/// An attribute's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `char` values: text, UTF-8 as netCDF-C and its clients read it.
    Text(String),
    Bytes(Vec<i8>),
    Shorts(Vec<i16>),
    Ints(Vec<i32>),
    Floats(Vec<f32>),
    Doubles(Vec<f64>),
}

impl Value {
    /// The values as numbers (each exact in f64), or None for text.
    pub fn numbers(&self) -> Option<Vec<f64>> {
        match self {
            Value::Text(_) => None,
            Value::Bytes(v) => Some(v.iter().map(|&x| x as f64).collect()),
            Value::Shorts(v) => Some(v.iter().map(|&x| x as f64).collect()),
            Value::Ints(v) => Some(v.iter().map(|&x| x as f64).collect()),
            Value::Floats(v) => Some(v.iter().map(|&x| x as f64).collect()),
            Value::Doubles(v) => Some(v.clone()),
        }
    }
    fn ty(&self) -> Type {
        match self {
            Value::Text(_) => Type::Char,
            Value::Bytes(_) => Type::Byte,
            Value::Shorts(_) => Type::Short,
            Value::Ints(_) => Type::Int,
            Value::Floats(_) => Type::Float,
            Value::Doubles(_) => Type::Double,
        }
    }
    fn len(&self) -> usize {
        match self {
            Value::Text(s) => s.len(),
            Value::Bytes(v) => v.len(),
            Value::Shorts(v) => v.len(),
            Value::Ints(v) => v.len(),
            Value::Floats(v) => v.len(),
            Value::Doubles(v) => v.len(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub name: String,
    pub value: Value,
}

impl Attr {
    pub fn text(name: &str, value: impl Into<String>) -> Attr {
        Attr { name: name.into(), value: Value::Text(value.into()) }
    }
}

/// A dimension; length 0 is the unlimited (record) dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct Dim {
    pub name: String,
    pub len: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    /// Indexes into the header's dimensions, slowest first.
    pub dims: Vec<usize>,
    pub attrs: Vec<Attr>,
    pub ty: Type,
    /// Offset of its data in the file (of its slab in the first record, for a record variable).
    pub begin: u64,
}

impl Var {
    /// The text of attribute `name`, if it has one.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.attr(name).and_then(|v| match v {
            Value::Text(s) => Some(s.as_str()),
            _ => None,
        })
    }
    /// Attribute `name`'s values, if it has one.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        self.attrs.iter().find(|a| a.name == name).map(|a| &a.value)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// Version 2 (64-bit offsets) rather than 1.
    pub offset64: bool,
    /// Records written: what a reader may read.
    pub numrecs: u64,
    pub dims: Vec<Dim>,
    pub attrs: Vec<Attr>,
    pub vars: Vec<Var>,
}

fn pad4(n: u64) -> u64 {
    n.div_ceil(4) * 4
}

impl Header {
    /// Whether `v`'s first dimension is the unlimited one.
    pub fn is_record(&self, v: &Var) -> bool {
        v.dims.first().is_some_and(|&d| self.dims[d].len == 0)
    }

    /// Bytes of `v`'s data (of one record's slab, for a record variable), unpadded; `None` when
    /// that overflows (a corrupt header).
    pub fn slab_bytes(&self, v: &Var) -> Option<u64> {
        let skip = usize::from(self.is_record(v));
        v.dims[skip..].iter().try_fold(v.ty.size(), |n, &d| n.checked_mul(self.dims[d].len))
    }

    fn record_vars(&self) -> impl Iterator<Item = &Var> {
        self.vars.iter().filter(|v| self.is_record(v))
    }

    /// Bytes of one record. Each slab is padded to 4 bytes, except where there is exactly one
    /// record variable (the specification's special case).
    pub fn record_bytes(&self) -> Option<u64> {
        let slabs: Option<Vec<u64>> = self.record_vars().map(|v| self.slab_bytes(v)).collect();
        let slabs = slabs?;
        match slabs.as_slice() {
            [one] => Some(*one),
            all => all.iter().try_fold(0u64, |n, &s| n.checked_add(pad4(s))),
        }
    }

    /// Offset of the first record.
    pub fn records_begin(&self) -> Option<u64> {
        self.record_vars().map(|v| v.begin).min()
    }

    /// Lay the data out after the header: each variable's `begin`, fixed-size variables first in
    /// their order, then the record variables' slabs. Call after the last change to the header.
    pub fn place(&mut self) {
        let mut at = self.encoded_len();
        let fixed: Vec<bool> = self.vars.iter().map(|v| !self.is_record(v)).collect();
        let sizes: Vec<u64> = self.vars.iter().map(|v| pad4(self.slab_bytes(v).unwrap_or(0))).collect();
        for pass_fixed in [true, false] {
            for (k, v) in self.vars.iter_mut().enumerate() {
                if fixed[k] == pass_fixed {
                    v.begin = at;
                    at += sizes[k];
                }
            }
        }
    }

    /// Bytes of the encoded header.
    pub fn encoded_len(&self) -> u64 {
        self.encode().len() as u64
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.push(if self.offset64 { 2 } else { 1 });
        put_u32(&mut b, self.numrecs as u32);
        list(&mut b, TAG_DIMENSION, &self.dims, |b, d| {
            name(b, &d.name);
            put_u32(b, d.len as u32);
        });
        attrs(&mut b, &self.attrs);
        list(&mut b, TAG_VARIABLE, &self.vars, |b, v| {
            name(b, &v.name);
            put_u32(b, v.dims.len() as u32);
            for &d in &v.dims {
                put_u32(b, d as u32);
            }
            attrs(b, &v.attrs);
            put_u32(b, v.ty as u32);
            // vsize is redundant; a slab past its 32 bits is written as 2³² − 1, as the
            // specification says.
            let vsize = pad4(self.slab_bytes(v).unwrap_or(u64::MAX));
            put_u32(b, u32::try_from(vsize).unwrap_or(u32::MAX));
            if self.offset64 {
                b.extend_from_slice(&v.begin.to_be_bytes());
            } else {
                put_u32(b, v.begin as u32);
            }
        });
        b
    }

    /// The position of `numrecs` in the file: what an append rewrites once its record is in.
    pub const NUMRECS_AT: u64 = 4;

    /// Decode a header from the start of a file.
    pub fn decode(bytes: &[u8]) -> Result<Header, Decode> {
        let mut c = Cursor { b: bytes, at: 0 };
        let magic = c.take(4)?;
        if &magic[..3] != MAGIC {
            return Err(Decode::Bad("is not a NetCDF file: it does not start with the signature CDF".into()));
        }
        let offset64 = match magic[3] {
            1 => false,
            2 => true,
            5 => return Err(Decode::Bad(
                "is a NetCDF 64-bit data (CDF-5) file; hydrokern reads the classic and 64-bit offset formats: convert it with nccopy -k classic IN OUT"
                    .into(),
            )),
            v => return Err(Decode::Bad(format!("has NetCDF version byte {v}, not 1 or 2"))),
        };
        let numrecs = c.u32()?;
        if numrecs == STREAMING {
            return Err(Decode::Bad("has an indeterminate record count (a stream still being written)".into()));
        }
        let dims = c.list(TAG_DIMENSION, "dimension", 8, |c| Ok(Dim { name: c.name()?, len: c.u32()? as u64 }))?;
        let attrs = c.attrs()?;
        let vars = c.list(TAG_VARIABLE, "variable", 24, |c| {
            let name = c.name()?;
            let n = c.count(4)?;
            let mut ids = Vec::with_capacity(n);
            for _ in 0..n {
                let d = c.u32()? as usize;
                if d >= dims.len() {
                    return Err(Decode::Bad(format!("variable {name} names dimension {d} of {}", dims.len())));
                }
                ids.push(d);
            }
            let attrs = c.attrs()?;
            let code = c.u32()?;
            let ty =
                Type::from_code(code).ok_or_else(|| Decode::Bad(format!("variable {name} has unknown type {code}")))?;
            let _vsize = c.u32()?;
            let begin = if offset64 { u64::from_be_bytes(c.take(8)?.try_into().unwrap()) } else { c.u32()? as u64 };
            Ok(Var { name, dims: ids, attrs, ty, begin })
        })?;
        let h = Header { offset64, numrecs: numrecs as u64, dims, attrs, vars };
        for v in &h.vars {
            if v.dims.iter().skip(1).any(|&d| h.dims[d].len == 0) {
                return Err(Decode::Bad(format!("variable {} has the unlimited dimension other than first", v.name)));
            }
            if h.slab_bytes(v).is_none() {
                return Err(Decode::Bad(format!("variable {} is too large to address", v.name)));
            }
        }
        Ok(h)
    }
}

/// Why a header did not decode.
#[derive(Debug, PartialEq)]
pub enum Decode {
    /// The bytes end inside the header: read more of the file, or it is truncated.
    Short,
    /// Not a valid header: why.
    Bad(String),
}

fn put_u32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_be_bytes());
}

fn pad(b: &mut Vec<u8>) {
    b.resize(pad4(b.len() as u64) as usize, 0);
}

fn name(b: &mut Vec<u8>, s: &str) {
    put_u32(b, s.len() as u32);
    b.extend_from_slice(s.as_bytes());
    pad(b);
}

/// A tagged list, or ABSENT (eight zero bytes) when it is empty.
fn list<T>(b: &mut Vec<u8>, tag: u32, items: &[T], mut each: impl FnMut(&mut Vec<u8>, &T)) {
    put_u32(b, if items.is_empty() { 0 } else { tag });
    put_u32(b, items.len() as u32);
    for item in items {
        each(b, item);
    }
}

fn attrs(b: &mut Vec<u8>, list_of: &[Attr]) {
    list(b, TAG_ATTRIBUTE, list_of, |b, a| {
        name(b, &a.name);
        put_u32(b, a.value.ty() as u32);
        put_u32(b, a.value.len() as u32);
        match &a.value {
            Value::Text(s) => b.extend_from_slice(s.as_bytes()),
            Value::Bytes(v) => b.extend(v.iter().map(|x| *x as u8)),
            Value::Shorts(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_be_bytes())),
            Value::Ints(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_be_bytes())),
            Value::Floats(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_be_bytes())),
            Value::Doubles(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_be_bytes())),
        }
        pad(b);
    });
}

/// Reads a header, checking every count against the bytes left so that a corrupt count fails
/// cleanly instead of allocating gigabytes.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Decode> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len()).ok_or(Decode::Short)?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, Decode> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn skip_pad(&mut self) -> Result<(), Decode> {
        let n = pad4(self.at as u64) as usize - self.at;
        self.take(n).map(|_| ())
    }
    /// A count of items of at least `min_bytes` each: more than the bytes left could hold
    /// means the header is cut short (or corrupt, which a longer read then shows).
    fn count(&mut self, min_bytes: usize) -> Result<usize, Decode> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_bytes) > self.b.len() - self.at {
            return Err(Decode::Short);
        }
        Ok(n)
    }
    fn name(&mut self) -> Result<String, Decode> {
        let n = self.count(1)?;
        let s = self.take(n)?;
        self.skip_pad()?;
        String::from_utf8(s.to_vec()).map_err(|_| Decode::Bad("a name is not UTF-8".into()))
    }
    fn list<T>(
        &mut self,
        tag: u32,
        what: &str,
        min_bytes: usize,
        mut item: impl FnMut(&mut Self) -> Result<T, Decode>,
    ) -> Result<Vec<T>, Decode> {
        let t = self.u32()?;
        let n = self.count(min_bytes)?;
        if t == 0 && n == 0 {
            return Ok(Vec::new());
        }
        if t != tag {
            return Err(Decode::Bad(format!("the {what} list has tag {t:#x}, not {tag:#x}")));
        }
        (0..n).map(|_| item(self)).collect()
    }
    fn attrs(&mut self) -> Result<Vec<Attr>, Decode> {
        self.list(TAG_ATTRIBUTE, "attribute", 12, |c| {
            let name = c.name()?;
            let code = c.u32()?;
            let ty = Type::from_code(code)
                .ok_or_else(|| Decode::Bad(format!("attribute {name} has unknown type {code}")))?;
            let n = c.count(ty.size() as usize)?;
            let raw = c.take(n * ty.size() as usize)?;
            c.skip_pad()?;
            let mut words = raw.chunks_exact(ty.size() as usize);
            let value = match ty {
                Type::Char => Value::Text(String::from_utf8_lossy(raw).into_owned()),
                Type::Byte => Value::Bytes(raw.iter().map(|&x| x as i8).collect()),
                Type::Short => {
                    Value::Shorts(words.by_ref().map(|w| i16::from_be_bytes(w.try_into().unwrap())).collect())
                }
                Type::Int => Value::Ints(words.by_ref().map(|w| i32::from_be_bytes(w.try_into().unwrap())).collect()),
                Type::Float => {
                    Value::Floats(words.by_ref().map(|w| f32::from_be_bytes(w.try_into().unwrap())).collect())
                }
                Type::Double => {
                    Value::Doubles(words.by_ref().map(|w| f64::from_be_bytes(w.try_into().unwrap())).collect())
                }
            };
            Ok(Attr { name, value })
        })
    }
}
