//! Ranks as threads of one process, over channels: the transport the tests decompose runs
//! with, so that the decomposition is checked by `cargo test` on any machine. Runs across
//! processes and hosts use MPI (the command line's `mpi` feature).

use super::comm::{Comm, Messages, Recv, Send, Tag};
use crate::{Error, Result};
use std::cell::RefCell;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

/// Tags of the collective operations, above any an exchange uses.
const SCATTER: Tag = Tag::MAX - 3;
const MAX: Tag = Tag::MAX - 2;
const BROADCAST: Tag = Tag::MAX - 1;
const GATHER: Tag = Tag::MAX;

/// How long a rank waits for a message before it calls the run stuck: a test must fail, not
/// hang, when a rank stops taking part.
const PATIENCE: Duration = Duration::from_secs(120);

struct Message {
    from: usize,
    tag: Tag,
    bytes: Vec<u8>,
}

/// One rank of a group made by [`Threads::group`].
pub struct Threads {
    rank: usize,
    to: Vec<Sender<Message>>,
    inbox: Receiver<Message>,
    /// Messages that arrived before they were asked for.
    early: RefCell<Vec<Message>>,
}

impl Threads {
    /// `n` ranks, one for each thread that will run one.
    pub fn group(n: usize) -> Vec<Threads> {
        let (to, inboxes): (Vec<_>, Vec<_>) = (0..n).map(|_| channel()).unzip();
        inboxes
            .into_iter()
            .enumerate()
            .map(|(rank, inbox)| Threads { rank, to: to.clone(), inbox, early: RefCell::new(Vec::new()) })
            .collect()
    }

    fn send(&self, rank: usize, tag: Tag, bytes: Vec<u8>) -> Result<()> {
        self.to[rank]
            .send(Message { from: self.rank, tag, bytes })
            .map_err(|_| Error::invalid(format!("ranks: rank {rank} has stopped")))
    }

    fn receive(&self, from: usize, tag: Tag) -> Result<Vec<u8>> {
        let mut early = self.early.borrow_mut();
        if let Some(i) = early.iter().position(|m| m.from == from && m.tag == tag) {
            return Ok(early.remove(i).bytes);
        }
        loop {
            match self.inbox.recv_timeout(PATIENCE) {
                Ok(m) if m.from == from && m.tag == tag => return Ok(m.bytes),
                Ok(m) => early.push(m),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Error::invalid(format!(
                        "ranks: rank {} waited {} s for rank {from} (tag {tag})",
                        self.rank,
                        PATIENCE.as_secs()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Error::invalid("ranks: every other rank has stopped"));
                }
            }
        }
    }

    fn reduce(&self, x: f64, tag: Tag, pick: fn(f64, f64) -> f64) -> Result<f64> {
        let mut bytes = x.to_le_bytes().to_vec();
        if let Some(all) = self.gather_tagged(&bytes, tag)? {
            let r = all.iter().map(|b| f64::from_le_bytes(b[..8].try_into().unwrap())).reduce(pick).unwrap_or(x);
            bytes = r.to_le_bytes().to_vec();
        }
        self.broadcast_tagged(&mut bytes, tag)?;
        Ok(f64::from_le_bytes(bytes[..8].try_into().unwrap()))
    }

    fn gather_tagged(&self, bytes: &[u8], tag: Tag) -> Result<Option<Vec<Vec<u8>>>> {
        if self.rank != 0 {
            self.send(0, tag, bytes.to_vec())?;
            return Ok(None);
        }
        let mut all = vec![bytes.to_vec()];
        for r in 1..self.size() {
            all.push(self.receive(r, tag)?);
        }
        Ok(Some(all))
    }

    fn broadcast_tagged(&self, bytes: &mut Vec<u8>, tag: Tag) -> Result<()> {
        if self.rank == 0 {
            for r in 1..self.size() {
                self.send(r, tag, bytes.clone())?;
            }
        } else {
            *bytes = self.receive(0, tag)?;
        }
        Ok(())
    }
}

impl Comm for Threads {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.to.len()
    }
    fn exchange(&self, sends: &[Send<'_>], recvs: &mut [Recv<'_>]) -> Result<()> {
        for s in sends {
            self.send(s.rank, s.tag, s.bytes.to_vec())?;
        }
        for r in recvs.iter_mut() {
            let got = self.receive(r.rank, r.tag)?;
            if got.len() != r.bytes.len() {
                return Err(Error::invalid(format!(
                    "ranks: rank {} sent {} bytes where rank {} expected {}",
                    r.rank,
                    got.len(),
                    self.rank,
                    r.bytes.len()
                )));
            }
            r.bytes.copy_from_slice(&got);
        }
        Ok(())
    }
    fn max(&self, x: f64) -> Result<f64> {
        self.reduce(x, MAX, super::comm::max_or_nan)
    }
    fn broadcast(&self, bytes: &mut Vec<u8>) -> Result<()> {
        self.broadcast_tagged(bytes, BROADCAST)
    }
    fn gather(&self, bytes: &[u8]) -> Result<Option<Messages>> {
        Ok(self.gather_tagged(bytes, GATHER)?.map(Messages::of_parts))
    }
    fn scatter(&self, parts: Option<Messages>) -> Result<Vec<u8>> {
        if self.rank != 0 {
            return self.receive(0, SCATTER);
        }
        let parts = parts.ok_or_else(|| Error::invalid("ranks: rank 0 scatters nothing"))?;
        for r in 1..self.size().min(parts.len()) {
            self.send(r, SCATTER, parts.get(r).to_vec())?;
        }
        Ok(if parts.is_empty() { Vec::new() } else { parts.get(0).to_vec() })
    }
    /// A thread cannot stop the others: it panics, and they fail when they next wait for it.
    fn abort(&self, why: &str, _code: i32) -> ! {
        panic!("rank {}: {why}", self.rank)
    }
    fn describe(&self) -> String {
        format!("{} threads", self.size())
    }
}

/// Run `lead` on rank 0's model of a grid of padded `layout` cut into `slabs` (a row of the
/// layout spanning the last `row_axes` axes of a state's fields; its products joined by
/// `joined`), the ranks being threads of this process: `slab` builds each rank's model of its
/// slab (on its own thread, with its rank's transport), the others serve rank 0 until `lead`
/// returns. What the tests and `bench scaling` run decomposed runs with.
pub fn lead_on_threads<'p, T: crate::GpuReal, R>(
    slabs: super::Slabs,
    (layout, row_axes): (crate::grid::Layout2, usize),
    joined: Option<crate::products::Joined>,
    slab: impl Fn(std::rc::Rc<dyn Comm>) -> Result<Box<dyn crate::model::Model<T> + 'p>> + Sync,
    lead: impl FnOnce(&mut dyn crate::model::Model<T>) -> R,
) -> Result<R> {
    use std::rc::Rc;
    let mut group = Threads::group(slabs.ranks).into_iter();
    let zero: Rc<dyn Comm> = Rc::new(group.next().ok_or_else(|| Error::invalid("ranks: no ranks"))?);
    let slab = &slab;
    std::thread::scope(|scope| {
        let others: Vec<_> = group
            .map(|t| {
                scope.spawn(move || -> Result<()> {
                    let comm: Rc<dyn Comm> = Rc::new(t);
                    // The ranks are threads of one build.
                    super::wait_for_start(comm.as_ref())?;
                    super::serve_built(comm.as_ref(), slab(comm.clone())).map(drop)
                })
            })
            .collect();
        let model = super::Decomposed::lead(zero.clone(), slabs, layout, || slab(zero.clone()));
        let result = model.map(|m| {
            let mut m = m.with_products(joined).with_row_axes(row_axes);
            let r = lead(&mut m);
            drop(m);
            r
        });
        super::finish(zero.as_ref(), result.is_err())?;
        for t in others {
            let served = t.join().map_err(|_| Error::invalid("ranks: a rank's thread panicked"))?;
            if result.is_ok() {
                served?;
            }
        }
        result
    })
}
