//! Rank 0 hands each other rank its part of a case (`Simulation::slab_part`), so that only rank
//! 0 reads the case's fields whole: the others read its keys and build their slabs from what
//! rank 0 sends. Rank 0 makes and sends one part at a time, holding one beside the case, each
//! part its length and then messages of at most `chunk` bytes (MPI counts a message's bytes in
//! an `i32`: [`CHUNK`]).

use super::comm::{Comm, Recv, Send, Tag};
use crate::Result;

/// The largest message a part travels in over MPI.
pub const CHUNK: usize = 1 << 30;

const LENGTH: Tag = Tag::MAX - 5;
const BYTES: Tag = Tag::MAX - 4;

/// Whether this process is a rank other than 0 of a decomposed run: a solver that hands out
/// parts reads none of the case's fields there, and builds its slab from its part.
pub fn takes_a_part() -> bool {
    super::world().is_some_and(|c| c.rank() != 0)
}

/// Rank 0: send rank r the bytes `part(r)` makes, for each other rank in order, in messages of
/// at most `chunk` bytes, then make and return its own (`part(0)`).
pub fn hand_out(comm: &dyn Comm, chunk: usize, mut part: impl FnMut(usize) -> Result<Vec<u8>>) -> Result<Vec<u8>> {
    for r in 1..comm.size() {
        let bytes = part(r)?;
        let length = (bytes.len() as u64).to_le_bytes();
        let mut sends = vec![Send { rank: r, tag: LENGTH, bytes: &length }];
        sends.extend(bytes.chunks(chunk.max(1)).map(|c| Send { rank: r, tag: BYTES, bytes: c }));
        comm.exchange(&sends, &mut [])?;
    }
    part(0)
}

/// A rank other than 0: the part rank 0 sends it ([`hand_out`], the same `chunk`).
pub fn take_part(comm: &dyn Comm, chunk: usize) -> Result<Vec<u8>> {
    let mut length = [0u8; 8];
    comm.exchange(&[], &mut [Recv { rank: 0, tag: LENGTH, bytes: &mut length }])?;
    let n = usize::try_from(u64::from_le_bytes(length))
        .map_err(|_| crate::Error::invalid("ranks: rank 0 sent a part longer than this machine addresses"))?;
    let mut bytes = crate::alloc::try_filled(&format!("rank {}'s part of the case", comm.rank()), n, 0u8)?;
    let mut recvs: Vec<Recv> = bytes.chunks_mut(chunk.max(1)).map(|c| Recv { rank: 0, tag: BYTES, bytes: c }).collect();
    comm.exchange(&[], &mut recvs)?;
    Ok(bytes)
}
