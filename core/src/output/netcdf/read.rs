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
                return Err(bad(
                    "is a NetCDF-4 (HDF5) file; hydrokern reads the classic and 64-bit offset NetCDF files it writes"
                        .into(),
                ));
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
