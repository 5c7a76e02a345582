//! A NetCDF file that grows by one record at a time and is readable after every record.
//!
//! The file is created whole (header and fixed-size variables) through
//! [`crate::output::write_atomic`], with no records. Each append writes the
//! record's bytes past the last counted record and only then rewrites the record count in the
//! header. A reader trusts the count, so a run killed at any point leaves a file whose records
//! are exactly those whose count was written: bytes of a half-written record lie past them and
//! are never read. The appends are not synced to disk one by one (a run syncs its files at
//! checkpoints and at its end, [`crate::run::RunDir::sync`]): the kernel keeps a killed
//! process's writes, in order, and only a crash of the machine could lose the records since
//! the last sync.

use super::classic::Header;
use crate::output::write_atomic;
use crate::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
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
        let bytes = without_records(&header, fixed);
        write_atomic(path, &bytes)?;
        let io = |cause| Error::Io { path: path.display().to_string(), cause };
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        let record_bytes = header.record_bytes().unwrap_or(0);
        let records_begin = header.records_begin().unwrap_or(bytes.len() as u64);
        Ok(Appender { path: path.to_path_buf(), file, header, record_bytes, records_begin })
    }

    /// Open the file at `path` (whose header is `header`, read from it) to go on after its
    /// first `keep` records: the count goes back to `keep` and is synced before the bytes past
    /// them are cut off, so a run killed in between leaves a file readable up to `keep`.
    pub fn reopen(path: &Path, mut header: Header, keep: u64) -> Result<Appender> {
        let shown = path.display().to_string();
        if keep > header.numrecs {
            return Err(Error::invalid(format!("{shown}: cannot keep {keep} of its {} records", header.numrecs)));
        }
        let record_bytes = header.record_bytes().unwrap_or(0);
        let records_begin = header
            .records_begin()
            .ok_or_else(|| Error::invalid(format!("{shown}: has no record variables to append to")))?;
        let io = |cause| Error::Io { path: shown.clone(), cause };
        let mut file = OpenOptions::new().write(true).open(path).map_err(io)?;
        let count = u32::try_from(keep).expect("at most the header's count").to_be_bytes();
        (|| {
            file.seek(SeekFrom::Start(Header::NUMRECS_AT))?;
            file.write_all(&count)?;
            file.sync_data()?;
            file.set_len(records_begin + keep * record_bytes)?;
            file.sync_data()
        })()
        .map_err(io)?;
        header.numrecs = keep;
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
    /// order. Data first, then the count (see the module's doc).
    pub fn append(&mut self, slabs: &[Vec<u8>]) -> Result<()> {
        self.append_all(&[slabs])
    }

    /// Append several records at once, as [`append`](Self::append) does one: their data, then
    /// the count (many small records, gauge samples, cost one header write, not one each). The
    /// slabs are written where they belong, side by side on threads when there are several
    /// large ones (a snapshot's fields).
    pub fn append_all<R: AsRef<[Vec<u8>]>>(&mut self, records: &[R]) -> Result<()> {
        let n = self.header.numrecs;
        let added = records.len() as u64;
        if n + added > MAX_RECORDS {
            return Err(Error::invalid(format!(
                "{}: a classic NetCDF file holds at most {MAX_RECORDS} records",
                self.path.display()
            )));
        }
        if added == 0 {
            return Ok(());
        }
        // Where each slab goes: records one after the other, each slab padded to 4 bytes
        // when the record has several variables (the classic format's record layout).
        let mut at = self.records_begin + n * self.record_bytes;
        let mut placed: Vec<(u64, &[u8])> = Vec::new();
        for slabs in records {
            let slabs = slabs.as_ref();
            let start = at;
            for s in slabs {
                placed.push((at, s));
                at += s.len() as u64;
                if slabs.len() > 1 {
                    at = at.next_multiple_of(4);
                }
            }
            if at - start != self.record_bytes {
                return Err(Error::invalid(format!(
                    "{}: a record of {} bytes where the header lays out {}",
                    self.path.display(),
                    at - start,
                    self.record_bytes
                )));
            }
        }
        let count = u32::try_from(n + added).expect("at most MAX_RECORDS").to_be_bytes();
        let io = |cause| Error::Io { path: self.path.display().to_string(), cause };
        let file = &self.file;
        let start = self.records_begin + n * self.record_bytes;
        // The padding between slabs is never written: the file's length, set first, makes it
        // read as zeros, as the format asks.
        let written: std::io::Result<()> = file
            .metadata()
            .and_then(|m| file.set_len(at.max(m.len())))
            .and_then(|()| crate::output::write_pieces_at(file, &placed));
        if let Err(e) = written {
            // The count was not touched: cut the uncounted bytes off, so a full disk gets back
            // the room they took (for the run's manifest) and the file ends at its last record.
            let _ = file.set_len(start);
            return Err(io(e));
        }
        file.write_all_at(&count, Header::NUMRECS_AT).map_err(io)?;
        self.header.numrecs = n + added;
        Ok(())
    }
}

/// The bytes of a file of `header` with no records: the header, then the fixed-size
/// variables' bytes `fixed` (big-endian, in the header's order), each padded to 4 bytes.
pub fn without_records(header: &Header, fixed: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = header.encode();
    for (v, data) in header.vars.iter().filter(|v| !header.is_record(v)).zip(fixed) {
        debug_assert_eq!(bytes.len() as u64, v.begin, "variable {} is not where the header places it", v.name);
        bytes.extend_from_slice(data);
        bytes.resize(bytes.len().next_multiple_of(4), 0);
    }
    bytes
}
