//! Reading a classic or 64-bit offset NetCDF file: its header, and any float or double
//! variable whole or one record of it. Everything the header says is checked against the
//! file's length, so a truncated or corrupt file is one clear error, never a panic.

use super::classic::{Decode, Header, Type, Var};
use crate::{Error, Result};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The values of a variable, in their stored precision.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Values {
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            Values::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Values::F64(v) => v.clone(),
        }
    }
}

pub struct Dataset {
    path: PathBuf,
    file: File,
    header: Header,
}

/// The first bytes read for a header; a larger header is read in doublings up to the file.
const FIRST_READ: u64 = 64 * 1024;

impl Dataset {
    pub fn open(path: &Path) -> Result<Dataset> {
        let name = path.display().to_string();
        let io = |cause| Error::Io { path: name.clone(), cause };
        let mut file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let bad = |why: String| Error::invalid(format!("{name}: {why}"));
        let mut want = FIRST_READ.min(len);
        let header = loop {
            let mut bytes = vec![0; want as usize];
            file.seek(SeekFrom::Start(0)).and_then(|_| file.read_exact(&mut bytes)).map_err(io)?;
            if bytes.starts_with(b"\x89HDF") {
                return Err(bad(format!(
                    "is a NetCDF-4 (HDF5) file; hydrokern reads the classic and 64-bit offset formats: convert it with nccopy -k classic {name} OUT.nc"
                )));
            }
            match Header::decode(&bytes) {
                Ok(h) => break h,
                Err(Decode::Bad(why)) => return Err(bad(why)),
                Err(Decode::Short) if want < len => want = (want * 2).min(len),
                Err(Decode::Short) if bytes.starts_with(b"CDF") => {
                    return Err(bad(format!("the NetCDF header is cut short: the file ends at byte {len}")));
                }
                Err(Decode::Short) => return Err(bad("is not a NetCDF file (too short for a header)".into())),
            }
        };
        let d = Dataset { path: path.to_path_buf(), file, header };
        d.check_extent(len)?;
        Ok(d)
    }

    /// Every fixed-size variable and every counted record must lie inside the file.
    fn check_extent(&self, len: u64) -> Result<()> {
        let h = &self.header;
        let bad = |why: String| Err(Error::invalid(format!("{}: {why}", self.path.display())));
        for v in h.vars.iter().filter(|v| !h.is_record(v)) {
            let end = h.slab_bytes(v).and_then(|n| n.checked_add(v.begin));
            if end.is_none_or(|e| e > len) {
                return bad(format!(
                    "variable {} lies past the end of the file ({len} bytes): it is truncated",
                    v.name
                ));
            }
        }
        if let (Some(begin), Some(rec)) = (h.records_begin(), h.record_bytes()) {
            let end = rec.checked_mul(h.numrecs).and_then(|n| n.checked_add(begin));
            if end.is_none_or(|e| e > len) {
                let whole = len.saturating_sub(begin).checked_div(rec).unwrap_or(0);
                return bad(format!(
                    "the header counts {} records but the file ({len} bytes) holds {whole} whole ones: it is truncated",
                    h.numrecs
                ));
            }
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Records in the file (complete ones: the count is written after the data).
    pub fn records(&self) -> u64 {
        self.header.numrecs
    }

    pub fn var(&self, name: &str) -> Result<&Var> {
        self.header
            .vars
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| Error::invalid(format!("{}: no variable {name}", self.path.display())))
    }

    /// A global attribute's text.
    pub fn global_text(&self, name: &str) -> Option<&str> {
        self.header.attrs.iter().find(|a| a.name == name).and_then(|a| match &a.value {
            super::classic::Value::Text(s) => Some(s.as_str()),
            _ => None,
        })
    }

    /// The lengths of `v`'s dimensions other than the record dimension.
    pub fn shape(&self, v: &Var) -> Vec<usize> {
        let skip = usize::from(self.header.is_record(v));
        v.dims[skip..].iter().map(|&d| self.header.dims[d].len as usize).collect()
    }

    /// The rows of fixed-size `char` variable `name` of two dimensions (names, one a row) as
    /// text, without the NUL bytes that pad them.
    pub fn read_text(&mut self, name: &str) -> Result<Vec<String>> {
        let v = self.var(name)?.clone();
        let shape = self.shape(&v);
        if v.ty != Type::Char || shape.len() != 2 || self.header.is_record(&v) {
            return Err(Error::invalid(format!(
                "{}: {name} is not a fixed-size char variable of two dimensions",
                self.path.display()
            )));
        }
        let mut bytes = vec![0; shape[0] * shape[1]];
        let path = self.path.display().to_string();
        self.file
            .seek(SeekFrom::Start(v.begin))
            .and_then(|_| self.file.read_exact(&mut bytes))
            .map_err(|cause| Error::Io { path, cause })?;
        Ok(bytes
            .chunks(shape[1].max(1))
            .map(|row| String::from_utf8_lossy(row).trim_end_matches('\0').to_string())
            .collect())
    }

    /// Where slice `k` of `v` along its first dimension starts (record `k` of a record
    /// variable), and its bytes; `k` beyond the dimension is refused.
    fn slice(&self, v: &Var, k: u64) -> Result<(u64, u64)> {
        let h = &self.header;
        let bad = |n: u64| {
            Err(Error::invalid(format!(
                "{}: index {k} of {} along its first dimension, which holds {n}",
                self.path.display(),
                v.name
            )))
        };
        if h.is_record(v) {
            if k >= h.numrecs {
                return bad(h.numrecs);
            }
            let rec = h.record_bytes().unwrap_or(0);
            return Ok((v.begin + k * rec, h.slab_bytes(v).unwrap_or(0)));
        }
        let Some(&first) = v.dims.first() else { return bad(0) };
        let n = h.dims[first].len;
        if k >= n {
            return bad(n);
        }
        let bytes = h.slab_bytes(v).unwrap_or(0) / n;
        Ok((v.begin + k * bytes, bytes))
    }

    /// Variable `name` of any numeric type as numbers, each exact in f64 (a byte, short or int
    /// variable with `_Unsigned = "true"` read unsigned, as netCDF-C's clients read it), as
    /// stored: neither unpacked nor masked. All of it, or with `slice`, its slice along the
    /// first dimension (the record, for a record variable). Memory is checked before reading.
    pub fn read_numbers(&mut self, name: &str, slice: Option<u64>) -> Result<Vec<f64>> {
        let v = self.var(name)?.clone();
        let h = &self.header;
        // The pieces of the file to read: a slice; every record's slab; or the whole variable.
        let pieces: Vec<(u64, u64)> = match slice {
            Some(k) => vec![self.slice(&v, k)?],
            None if h.is_record(&v) => {
                let (slab, rec) = (h.slab_bytes(&v).unwrap_or(0), h.record_bytes().unwrap_or(0));
                (0..h.numrecs).map(|r| (v.begin + r * rec, slab)).collect()
            }
            None => vec![(v.begin, h.slab_bytes(&v).unwrap_or(0))],
        };
        let what = format!("{}: variable {name}", self.path.display());
        if v.ty == Type::Char {
            return Err(Error::invalid(format!("{what} is text (char), not numbers")));
        }
        let n: u64 = pieces.iter().map(|p| p.1).sum();
        let size = v.ty.size();
        crate::files::check_host_memory(&what, n.saturating_add(n / size * 8))?;
        let mut bytes = vec![0; n as usize];
        let path = self.path.display().to_string();
        let mut at = 0;
        for (start, len) in pieces {
            let into = &mut bytes[at..at + len as usize];
            self.file
                .seek(SeekFrom::Start(start))
                .and_then(|_| self.file.read_exact(into))
                .map_err(|cause| Error::Io { path: path.clone(), cause })?;
            at += len as usize;
        }
        let unsigned = v.text("_Unsigned").is_some_and(|u| u.eq_ignore_ascii_case("true"));
        let words = bytes.chunks_exact(size as usize);
        Ok(match (v.ty, unsigned) {
            (Type::Byte, false) => bytes.iter().map(|&b| b as i8 as f64).collect(),
            (Type::Byte, true) | (Type::Char, _) => bytes.iter().map(|&b| b as f64).collect(),
            (Type::Short, false) => words.map(|w| i16::from_be_bytes([w[0], w[1]]) as f64).collect(),
            (Type::Short, true) => words.map(|w| u16::from_be_bytes([w[0], w[1]]) as f64).collect(),
            (Type::Int, false) => words.map(|w| i32::from_be_bytes([w[0], w[1], w[2], w[3]]) as f64).collect(),
            (Type::Int, true) => words.map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]) as f64).collect(),
            (Type::Float, _) => words.map(|w| f32::from_be_bytes([w[0], w[1], w[2], w[3]]) as f64).collect(),
            (Type::Double, _) => words.map(|w| f64::from_be_bytes(w.try_into().unwrap_or([0; 8]))).collect(),
        })
    }

    /// All of fixed-size variable `name`, or record `record` of record variable `name`.
    pub fn read(&mut self, name: &str, record: Option<u64>) -> Result<Values> {
        let v = self.var(name)?.clone();
        let h = &self.header;
        let at = match (h.is_record(&v), record) {
            (false, None) => v.begin,
            (true, Some(r)) if r < h.numrecs => v.begin + r * h.record_bytes().unwrap_or(0),
            (true, Some(r)) => {
                return Err(Error::invalid(format!(
                    "{}: record {r} of {name}: the file holds {} records",
                    self.path.display(),
                    h.numrecs
                )));
            }
            (true, None) | (false, Some(_)) => {
                return Err(Error::invalid(format!(
                    "{}: {name} is {}a record variable",
                    self.path.display(),
                    if record.is_some() { "not " } else { "" }
                )));
            }
        };
        let n = h.slab_bytes(&v).unwrap_or(0);
        let mut bytes = vec![0; n as usize];
        let path = self.path.display().to_string();
        self.file
            .seek(SeekFrom::Start(at))
            .and_then(|_| self.file.read_exact(&mut bytes))
            .map_err(|cause| Error::Io { path, cause })?;
        match v.ty {
            Type::Float => {
                Ok(Values::F32(bytes.chunks_exact(4).map(|w| f32::from_be_bytes(w.try_into().unwrap())).collect()))
            }
            Type::Double => {
                Ok(Values::F64(bytes.chunks_exact(8).map(|w| f64::from_be_bytes(w.try_into().unwrap())).collect()))
            }
            ty => Err(Error::invalid(format!(
                "{}: variable {name} is of type {ty}; hydrokern reads float and double variables",
                self.path.display()
            ))),
        }
    }
}
