//! A decomposed run's checkpoint as a set of parts (docs/restart.md, "On several ranks"):
//! every rank writes its own slab's checkpoint into a part file beside the checkpoint file,
//! which rank 0 writes last and which holds what only rank 0 keeps (the gauges' and lines'
//! records) and the set's list: each part's length and CRC-32, and the grid's padded layout the
//! parts join along. No rank gathers the grid.
//!
//! A run restarts from a set on the same ranks by each rank reading its own part, and on any
//! other number of ranks (one included) by joining the parts into the whole grid's checkpoint,
//! the one a run on one rank writes, bit for bit.

use super::join::{decode_checkpoint, encode_checkpoint, join_checkpoint};
use super::slabs::Slabs;
use crate::grid::Layout2;
use crate::model::{Checkpoint, Model};
use crate::output::write_atomic_synced_with;
use crate::{Error, Real, Result};
use std::path::Path;

/// The manifest's record of the parts: for each rank in order, its part's length in bytes and
/// CRC-32 (both exact in f64).
pub const PARTS: &str = "parts";
/// The manifest's values giving the grid's padded layout the parts join along.
const LAYOUT: [&str; 4] = ["parts_nx", "parts_ny", "parts_halo", "parts_pitch"];

const MAGIC: &[u8; 16] = b"hydrokern-part\n\0";

/// The file of rank `rank`'s part of `ranks` of the checkpoint at step `steps`. The step keeps a
/// new set's parts apart from the last set's, which stays whole until the new manifest has
/// replaced the last.
pub fn part_name(steps: u64, rank: usize, ranks: usize) -> String {
    format!("checkpoint.{steps}.{rank}of{ranks}.hkp")
}

/// Whether `name` is a part file's ([`part_name`]).
pub fn is_part(name: &str) -> bool {
    steps_of(name).is_some()
}

/// The step of the checkpoint whose part `name` is, if it is a part file's ([`part_name`]).
pub fn steps_of(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("checkpoint.")?.strip_suffix(".hkp")?;
    let (steps, which) = rest.split_once('.')?;
    let (rank, ranks) = which.split_once("of")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(rank) && digits(ranks) && digits(steps)).then(|| steps.parse().ok()).flatten()
}

/// One part as the manifest lists it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part {
    pub bytes: u64,
    pub crc: u32,
}

/// A set of parts: how many ranks wrote it, the layout they join along, and each part.
#[derive(Clone, Debug, PartialEq)]
pub struct Set {
    pub layout: Layout2,
    pub parts: Vec<Part>,
}

impl Set {
    /// The set a manifest lists, or `None` for a whole checkpoint.
    pub fn of<T: Clone>(manifest: &Checkpoint<T>) -> Result<Option<Set>> {
        let Some((_, list)) = manifest.records.iter().find(|(n, _)| n == PARTS) else { return Ok(None) };
        let bad = |why: &str| Error::invalid(format!("the checkpoint's list of parts {why}"));
        let [nx, ny, halo, pitch] = LAYOUT.map(|name| manifest.get_value(name).map(|v| v as u32));
        let layout = Layout2 { nx: nx?, ny: ny?, halo: halo?, pitch: pitch? };
        if list.is_empty() || list.len() % 2 != 0 || layout.pitch != layout.nx + 2 * layout.halo {
            return Err(bad("is damaged"));
        }
        let parts = list.chunks_exact(2).map(|p| Part { bytes: p[0] as u64, crc: p[1] as u32 }).collect();
        Ok(Some(Set { layout, parts }))
    }

    pub fn ranks(&self) -> usize {
        self.parts.len()
    }

    /// The slabs the parts hold, as the writing run cut them.
    pub fn slabs(&self) -> Result<Slabs> {
        Slabs::new(self.layout.ny as usize, self.ranks(), 1, false)
    }

    /// `manifest` listing this set.
    pub fn listed_in<T: Clone>(&self, manifest: Checkpoint<T>) -> Checkpoint<T> {
        let l = self.layout;
        let c = [l.nx, l.ny, l.halo, l.pitch].iter().zip(LAYOUT).fold(manifest, |c, (v, n)| c.value(n, *v as f64));
        let list = self.parts.iter().flat_map(|p| [p.bytes as f64, p.crc as f64]).collect();
        c.record(PARTS, list)
    }

    /// The part files of the set, in rank order, for a manifest at step `steps`.
    pub fn names(&self, steps: u64) -> Vec<String> {
        (0..self.ranks()).map(|r| part_name(steps, r, self.ranks())).collect()
    }

    /// Every part is in `dir` with the length the manifest lists (its bytes are checked as the
    /// ranks read them): a set with a part missing is refused before anything is touched.
    pub fn check_present(&self, dir: &Path, steps: u64) -> Result<()> {
        for (rank, (name, part)) in self.names(steps).iter().zip(&self.parts).enumerate() {
            let path = dir.join(name);
            match std::fs::metadata(&path) {
                Err(_) => {
                    return Err(Error::invalid(format!(
                        "rank {rank}'s part of the checkpoint, {}, is missing: a set restarts only whole",
                        path.display()
                    )));
                }
                Ok(m) if m.len() != part.bytes => return Err(other_part(&path, rank, m.len(), part.bytes)),
                Ok(_) => {}
            }
        }
        Ok(())
    }
}

fn other_part(path: &Path, rank: usize, len: u64, listed: u64) -> Error {
    Error::invalid(format!(
        "rank {rank}'s part of the checkpoint, {}, is {len} bytes where the checkpoint lists {listed}: it is damaged or belongs to another checkpoint",
        path.display()
    ))
}

/// Write rank `rank`'s part `c` of a set of `ranks` into `dir`, whole or not at all and synced
/// to disk; what the manifest lists of it.
pub fn write<T: Real>(dir: &Path, rank: usize, ranks: usize, c: &Checkpoint<T>) -> Result<Part> {
    let mut bytes = Vec::with_capacity(1 << 16);
    bytes.extend_from_slice(MAGIC);
    for v in [rank as u64, ranks as u64, std::mem::size_of::<T>() as u64] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.extend_from_slice(&encode_checkpoint(c));
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let path = dir.join(part_name(c.clock.steps, rank, ranks));
    write_atomic_synced_with(&path, |f| f.write_all(&bytes))?;
    Ok(Part { bytes: bytes.len() as u64, crc })
}

/// Rank `rank`'s part of the set `set` listed by `manifest`, read from `dir` and checked: its
/// length and CRC-32 the listed ones, its rank, precision and clock the manifest's.
pub fn read<T: Real>(dir: &Path, manifest: &Checkpoint<T>, set: &Set, rank: usize) -> Result<Checkpoint<T>> {
    let path = dir.join(part_name(manifest.clock.steps, rank, set.ranks()));
    let shown = path.display();
    let bytes = std::fs::read(&path).map_err(|cause| Error::Io { path: shown.to_string(), cause })?;
    let listed = set.parts[rank];
    if bytes.len() as u64 != listed.bytes {
        return Err(other_part(&path, rank, bytes.len() as u64, listed.bytes));
    }
    let bad = |why: &str| Error::invalid(format!("rank {rank}'s part of the checkpoint, {shown}, {why}"));
    let (body, crc) = bytes.split_at(bytes.len().saturating_sub(4));
    if body.len() < MAGIC.len() + 24 || &body[..MAGIC.len()] != MAGIC {
        return Err(bad("is not a part of a hydrokern checkpoint"));
    }
    let crc = u32::from_le_bytes(crc.try_into().map_err(|_| bad("is truncated"))?);
    if crc != crc32fast::hash(body) || crc != listed.crc {
        return Err(bad("is damaged (its CRC-32 does not match) or belongs to another checkpoint"));
    }
    let word = |k: usize| {
        let at = MAGIC.len() + 8 * k;
        u64::from_le_bytes(body[at..at + 8].try_into().unwrap_or_default())
    };
    if (word(0), word(1), word(2)) != (rank as u64, set.ranks() as u64, std::mem::size_of::<T>() as u64) {
        return Err(bad("holds another rank's part, or values of another precision"));
    }
    let c = decode_checkpoint::<T>(&body[MAGIC.len() + 24..])?;
    let (a, b) = (c.clock, manifest.clock);
    if (a.t.to_bits(), a.steps, a.dt.to_bits()) != (b.t.to_bits(), b.steps, b.dt.to_bits()) {
        return Err(bad("belongs to another checkpoint (its clock differs)"));
    }
    Ok(c)
}

/// The whole grid's checkpoint from the set listed by `manifest` with its parts in `dir`: the
/// parts joined (`join_checkpoint`, then `joined`, the slab model's own joining), and the
/// manifest's values and records that are not the set's list (the gauges' records) after the
/// parts'. The one a run on one rank writes, bit for bit.
pub fn join<T: Real>(
    manifest: &Checkpoint<T>,
    set: &Set,
    dir: &Path,
    joined: impl FnOnce(Checkpoint<T>) -> Result<Checkpoint<T>>,
) -> Result<Checkpoint<T>> {
    let parts = (0..set.ranks()).map(|r| read(dir, manifest, set, r)).collect::<Result<Vec<_>>>()?;
    let mut whole = joined(join_checkpoint(parts, set.layout, &set.slabs()?)?)?;
    whole.values.extend(manifest.values.iter().filter(|(n, _)| !LAYOUT.contains(&n.as_str())).cloned());
    whole.records.extend(manifest.records.iter().filter(|(n, _)| n != PARTS).cloned());
    Ok(whole)
}

/// Restore `model` from checkpoint `c`, read from the file whose directory is `dir`: a whole
/// checkpoint as it is; a set's manifest by the model's own means where it has them (a
/// decomposed model, [`Model::restore_parts`]), else from the whole grid's joined.
pub fn restore<T: Real>(model: &mut dyn Model<T>, c: &Checkpoint<T>, dir: &Path) -> Result<()> {
    let Some(set) = Set::of(c)? else { return model.restore(c) };
    if model.restore_parts(c, dir)? {
        return Ok(());
    }
    let whole = join(c, &set, dir, |j| model.joined(j))?;
    model.restore(&whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Clock;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("hydrokern-parts-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn part_names_are_recognised() {
        assert!(is_part(&part_name(120, 3, 4)));
        assert_eq!(steps_of(&part_name(120, 3, 4)), Some(120));
        for name in ["checkpoint.hkc", "checkpoint.12.3of.hkp", "checkpoint.x.1of2.hkp", "checkpoint.1.1of2.hkc"] {
            assert!(!is_part(name), "{name}");
        }
    }

    /// A part reads back bit for bit; a part of another length, damaged bytes, another rank's
    /// part, another precision or another clock are each refused, naming the file.
    #[test]
    fn parts_read_back_and_refuse_what_is_not_theirs() {
        let dir = scratch("rw");
        let clock = Clock { t: 1.25, steps: 9, dt: 0.5, halt: None };
        let c = Checkpoint::<f32>::at(clock).field("h", vec![1.0, -0.0, f32::MIN_POSITIVE]).flag("wet", vec![1, 0]);
        let parts: Vec<Part> = (0..2).map(|r| write(&dir, r, 2, &c).unwrap()).collect();
        let set = Set { layout: Layout2::new(1, 2, 1), parts };
        let manifest = set.listed_in(Checkpoint::<f32>::at(clock));
        assert_eq!(Set::of(&manifest).unwrap(), Some(set.clone()));
        set.check_present(&dir, 9).unwrap();
        assert_eq!(read(&dir, &manifest, &set, 1).unwrap(), c);
        let wrong = |e: Error, what: &str| {
            let e = e.to_string();
            assert!(e.contains(what) && e.contains("checkpoint.9.1of2.hkp"), "{e}");
        };
        // Another clock.
        let later = set.listed_in(Checkpoint::<f32>::at(Clock { steps: 9, t: 2.0, ..clock }));
        wrong(read(&dir, &later, &set, 1).unwrap_err(), "another checkpoint");
        // Another precision.
        let wide = set.listed_in(Checkpoint::<f64>::at(clock));
        assert!(read::<f64>(&dir, &wide, &set, 1).is_err());
        // Damaged: one byte flipped.
        let path = dir.join(part_name(9, 1, 2));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[40] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        wrong(read(&dir, &manifest, &set, 1).unwrap_err(), "damaged");
        // Truncated, and missing.
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        wrong(set.check_present(&dir, 9).unwrap_err(), "bytes where the checkpoint lists");
        std::fs::remove_file(&path).unwrap();
        let e = set.check_present(&dir, 9).unwrap_err().to_string();
        assert!(e.contains("rank 1's part") && e.contains("missing"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
