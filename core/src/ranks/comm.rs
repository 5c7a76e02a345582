//! What the ranks of a run say to each other: the few collective operations a decomposed run
//! needs, behind one trait so that the same driver runs over MPI (the command line's `mpi`
//! feature), over threads of one process (the tests) or alone.

use crate::{Error, Result};

/// A message's tag: which way it travels along the slabs, so that two messages between the
/// same pair of ranks (two ranks and a periodic axis) are never confused.
pub type Tag = u16;

/// One message of an [`Comm::exchange`]: to or from `rank`, under `tag`.
pub struct Send<'a> {
    pub rank: usize,
    pub tag: Tag,
    pub bytes: &'a [u8],
}

/// One receive of an [`Comm::exchange`], into a buffer of the exact size expected.
pub struct Recv<'a> {
    pub rank: usize,
    pub tag: Tag,
    pub bytes: &'a mut [u8],
}

/// A message for or from every rank, in rank order, one after another in one buffer: what rank
/// 0 gathers (a state's parts are read from where they arrived, the whole grid's state not
/// copied again) and what it scatters (made in place, not joined from parts).
#[derive(Default)]
pub struct Messages {
    bytes: Vec<u8>,
    /// Where each rank's bytes end.
    ends: Vec<usize>,
}

impl Messages {
    /// `bytes` holding the ranks' parts of lengths `lens`, in rank order.
    pub fn new(bytes: Vec<u8>, lens: impl IntoIterator<Item = usize>) -> Result<Messages> {
        let ends: Vec<usize> = lens
            .into_iter()
            .scan(0usize, |end, n| {
                *end += n;
                Some(*end)
            })
            .collect();
        if ends.last().copied().unwrap_or(0) != bytes.len() {
            return Err(Error::invalid(format!("ranks: {} bytes gathered for parts of {ends:?}", bytes.len())));
        }
        Ok(Messages { bytes, ends })
    }

    /// Parts that arrived on their own, joined.
    pub fn of_parts(parts: Vec<Vec<u8>>) -> Messages {
        let mut m = Messages::default();
        parts.iter().for_each(|p| m.push(p));
        m
    }

    /// Append the next rank's message.
    pub fn push(&mut self, message: &[u8]) {
        self.bytes.extend_from_slice(message);
        self.ends.push(self.bytes.len());
    }

    /// Every message, one after another.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// How many ranks' parts there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is none (never, from a gather).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Rank `r`'s bytes.
    pub fn get(&self, r: usize) -> &[u8] {
        let start = if r == 0 { 0 } else { self.ends[r - 1] };
        &self.bytes[start..self.ends[r]]
    }

    /// Every rank's bytes, in rank order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|r| self.get(r))
    }
}

/// The ranks of one run, seen from one of them. Every rank calls each collective operation
/// in the same order with compatible arguments; a rank that cannot goes through
/// [`abort`](Comm::abort), which stops them all.
pub trait Comm {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// Send every `sends` message and receive every `recvs` one, all in flight at once, and
    /// return when all are done. A received message of another length than its buffer is an
    /// error.
    fn exchange(&self, sends: &[Send<'_>], recvs: &mut [Recv<'_>]) -> Result<()>;
    /// The maximum of `x` over the ranks, on every rank; NaN where any rank's is NaN (a step
    /// that blew up on one rank stops them all).
    fn max(&self, x: f64) -> Result<f64>;
    /// Rank 0's `bytes` on every rank (`bytes` is replaced on the others).
    fn broadcast(&self, bytes: &mut Vec<u8>) -> Result<()>;
    /// Every rank's `bytes`, in rank order, on rank 0; `None` on the others.
    fn gather(&self, bytes: &[u8]) -> Result<Option<Messages>>;
    /// Rank 0's `parts` (one for each rank, in rank order; `None` on the others): each rank's own.
    fn scatter(&self, parts: Option<Messages>) -> Result<Vec<u8>>;
    /// Stop every rank: say `why` on standard error (once, from the rank that calls it) and
    /// exit with `code`.
    fn abort(&self, why: &str, code: i32) -> !;
    /// What carries the messages, for the run's description ("MPI (Open MPI 4.1.4)").
    fn describe(&self) -> String;
    /// This rank's place among the ranks on its host, which picks its GPU
    /// (`Backend::select_for`); by default its rank (every rank on one host).
    fn local_rank(&self) -> usize {
        self.rank()
    }
}

/// The one rank of a run that is not decomposed.
pub struct Solo;

impl Comm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    /// A lone rank has no neighbours ([`Slabs`](super::Slabs) gives it none, periodic or not):
    /// there is nothing to send.
    fn exchange(&self, sends: &[Send<'_>], recvs: &mut [Recv<'_>]) -> Result<()> {
        match sends.is_empty() && recvs.is_empty() {
            true => Ok(()),
            false => Err(Error::invalid("ranks: a message on a run of one rank")),
        }
    }
    fn max(&self, x: f64) -> Result<f64> {
        Ok(x)
    }
    fn broadcast(&self, _bytes: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
    fn gather(&self, bytes: &[u8]) -> Result<Option<Messages>> {
        Ok(Some(Messages::of_parts(vec![bytes.to_vec()])))
    }
    fn scatter(&self, parts: Option<Messages>) -> Result<Vec<u8>> {
        parts
            .filter(|p| !p.is_empty())
            .map(|p| p.get(0).to_vec())
            .ok_or_else(|| Error::invalid("ranks: nothing to scatter"))
    }
    fn abort(&self, why: &str, code: i32) -> ! {
        eprintln!("error: {why}");
        std::process::exit(code)
    }
    fn describe(&self) -> String {
        "one rank".into()
    }
}

/// The larger of two values, NaN if either is: [`Comm::max`]'s rule.
pub fn max_or_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }
}
