//! A NetCDF file that grows by one record at a time and is readable after every record.
//!
//! The file is created whole (header and fixed-size variables) through
//! [`write_atomic`](crate::output::write_atomic), with no records. Each append writes the
//! record's bytes past the last counted record, syncs them to disk, and only then rewrites the
//! record count in the header and syncs again. A reader trusts the count, so a run killed at
//! any point leaves a file whose records are exactly those whose count was written: bytes of a
//! half-written record lie past them and are never read.

use super::classic::Header;
use crate::output::write_atomic;
use crate::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The classic format's record count is a signed 32-bit number.
const MAX_RECORDS: u64 = i32::MAX as u64;

pub struct Appender {
    path: PathBuf,
    file: File,
    header: Header,
    record_bytes: u64,
    records_begin: u64,
}

impl Appender {
    /// Write `header` (placed, with no records) and the fixed-size variables' bytes, `fixed`, in
    /// the header's order of variables; then open the file for appending records.
    pub fn create(path: &Path, header: Header, fixed: &[Vec<u8>]) -> Result<Appender> {
        let mut bytes = header.encode();
        for (v, data) in header.vars.iter().filter(|v| !header.is_record(v)).zip(fixed) {
            debug_assert_eq!(bytes.len() as u64, v.begin, "variable {} is not where the header places it", v.name);
            bytes.extend_from_slice(data);
            bytes.resize(bytes.len().next_multiple_of(4), 0);
        }
        write_atomic(path, &bytes)?;
        let io = |cause| Error::Io { path: path.display().to_string(), cause };
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        let record_bytes = header.record_bytes().unwrap_or(0);
        let records_begin = header.records_begin().unwrap_or(bytes.len() as u64);
        Ok(Appender { path: path.to_path_buf(), file, header, record_bytes, records_begin })
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.header.numrecs
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Append one record: `slabs` are the record variables' bytes, big-endian, in the header's
    /// order. Data first and synced, then the count (see the module's doc).
    pub fn append(&mut self, slabs: &[Vec<u8>]) -> Result<()> {
        let n = self.header.numrecs;
        if n >= MAX_RECORDS {
            return Err(Error::invalid(format!(
                "{}: a classic NetCDF file holds at most {MAX_RECORDS} records",
                self.path.display()
            )));
        }
        let mut record = Vec::with_capacity(self.record_bytes as usize);
        for s in slabs {
            record.extend_from_slice(s);
            if slabs.len() > 1 {
                record.resize(record.len().next_multiple_of(4), 0);
            }
        }
        if record.len() as u64 != self.record_bytes {
            return Err(Error::invalid(format!(
                "{}: a record of {} bytes where the header lays out {}",
                self.path.display(),
                record.len(),
                self.record_bytes
            )));
        }
        let at = self.records_begin + n * self.record_bytes;
        let count = u32::try_from(n + 1).expect("below MAX_RECORDS").to_be_bytes();
        let io = |cause| Error::Io { path: self.path.display().to_string(), cause };
        (|| {
            self.file.seek(SeekFrom::Start(at))?;
            self.file.write_all(&record)?;
            self.file.sync_data()?;
            self.file.seek(SeekFrom::Start(Header::NUMRECS_AT))?;
            self.file.write_all(&count)?;
            self.file.sync_data()
        })()
        .map_err(io)?;
        self.header.numrecs = n + 1;
        Ok(())
    }
}
