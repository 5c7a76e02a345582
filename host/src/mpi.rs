//! Ranks over MPI (the `mpi` feature): one process per rank, started by `mpirun`/`mpiexec` or
//! a cluster's launcher, each stepping its slab of the grid ([`hydrokern::ranks`]).

use hydrokern::ranks::comm::{Messages, Recv, Send};
use hydrokern::ranks::{self, Comm};
use hydrokern::{Error, Result};
use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::rc::Rc;

/// Environment variables a launcher sets in every process it starts (Open MPI, MPICH's
/// Hydra and Slurm's PMI, PMIx): a process without them was not started as a rank.
const LAUNCHED: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PMIX_MAPPING_SERV"];

/// MPI's world, when this process was started as a rank.
pub struct Mpi {
    // Finalises MPI when dropped, at the end of `main`.
    _universe: Universe,
    world: SimpleCommunicator,
    /// This rank's place among the ranks of its host (MPI's shared-memory split of the world).
    local: usize,
}

/// Start MPI when a launcher started this process, and make its world the ranks of the runs
/// this process starts; the universe returned must live until the process ends.
pub fn start() -> Result<Option<Rc<Mpi>>> {
    if !LAUNCHED.iter().any(|v| std::env::var_os(v).is_some()) {
        return Ok(None);
    }
    // Only the main thread calls MPI: the CPU references' worker threads never do.
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .ok_or_else(|| Error::invalid("MPI was already started in this process"))?;
    let world = universe.world();
    let local = world.split_shared(world.rank()).rank() as usize;
    let m = Rc::new(Mpi { _universe: universe, world, local });
    ranks::set_world(m.clone());
    Ok(Some(m))
}

fn count(n: usize) -> Result<Count> {
    Count::try_from(n).map_err(|_| Error::invalid(format!("ranks: a message of {n} bytes is over MPI's 2 GiB count")))
}

impl Comm for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }
    fn size(&self) -> usize {
        self.world.size() as usize
    }
    fn local_rank(&self) -> usize {
        self.local
    }
    fn exchange(&self, sends: &[Send<'_>], recvs: &mut [Recv<'_>]) -> Result<()> {
        let mut got = Vec::with_capacity(recvs.len());
        mpi::request::scope(|scope| {
            let mut pending = Vec::new();
            for r in recvs.iter_mut() {
                let from = self.world.process_at_rank(r.rank as i32);
                got.push((r.rank, r.bytes.len()));
                pending.push(from.immediate_receive_into_with_tag(scope, &mut *r.bytes, r.tag as i32));
            }
            let mut sent = Vec::new();
            for s in sends {
                let to = self.world.process_at_rank(s.rank as i32);
                sent.push(to.immediate_send_with_tag(scope, s.bytes, s.tag as i32));
            }
            let counts: Vec<Count> = pending.into_iter().map(|p| p.wait().count(u8::equivalent_datatype())).collect();
            sent.into_iter().for_each(|s| {
                s.wait();
            });
            for ((rank, want), n) in got.iter().zip(counts) {
                if n as usize != *want {
                    return Err(Error::invalid(format!(
                        "ranks: rank {rank} sent {n} bytes where {want} were expected"
                    )));
                }
            }
            Ok(())
        })
    }
    fn max(&self, x: f64) -> Result<f64> {
        // The maximum beside a flag that any rank's x is NaN.
        let mut out = [0.0f64; 2];
        self.world.all_reduce_into(
            &[if x.is_nan() { 0.0 } else { x }, f64::from(u8::from(x.is_nan()))][..],
            &mut out[..],
            SystemOperation::max(),
        );
        Ok(if out[1] > 0.0 { f64::NAN } else { out[0] })
    }
    fn broadcast(&self, bytes: &mut Vec<u8>) -> Result<()> {
        let root = self.world.process_at_rank(0);
        let mut n = bytes.len() as u64;
        root.broadcast_into(&mut n);
        bytes.resize(n as usize, 0);
        count(bytes.len())?;
        root.broadcast_into(&mut bytes[..]);
        Ok(())
    }
    fn gather(&self, bytes: &[u8]) -> Result<Option<Messages>> {
        let root = self.world.process_at_rank(0);
        let n = count(bytes.len())?;
        if self.world.rank() != 0 {
            root.gather_into(&n);
            root.gather_varcount_into(bytes);
            return Ok(None);
        }
        let mut counts = vec![0 as Count; self.size()];
        root.gather_into_root(&n, &mut counts[..]);
        let displs = offsets(&counts)?;
        let total = counts.iter().map(|&c| c as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(bytes, &mut part);
        }
        Ok(Some(Messages::new(all, counts.iter().map(|&c| c as usize))?))
    }
    fn scatter(&self, parts: Option<Messages>) -> Result<Vec<u8>> {
        let root = self.world.process_at_rank(0);
        let mut n: Count = 0;
        if self.world.rank() != 0 {
            root.scatter_into(&mut n);
            let mut mine = vec![0u8; n as usize];
            root.scatter_varcount_into(&mut mine[..]);
            return Ok(mine);
        }
        let parts = parts.ok_or_else(|| Error::invalid("ranks: rank 0 scatters nothing"))?;
        let counts = parts.iter().map(|p| count(p.len())).collect::<Result<Vec<_>>>()?;
        root.scatter_into_root(&counts[..], &mut n);
        let displs = offsets(&counts)?;
        let mut mine = vec![0u8; n as usize];
        root.scatter_varcount_into_root(&Partition::new(parts.bytes(), &counts[..], &displs[..]), &mut mine[..]);
        Ok(mine)
    }
    fn abort(&self, why: &str, code: i32) -> ! {
        eprintln!("error: {why}");
        self.world.abort(code)
    }
    fn describe(&self) -> String {
        let version = mpi::environment::library_version().unwrap_or_default();
        // "Open MPI v4.1.4, package: …": the name and version.
        format!("MPI ({})", version.split([',', '\n']).next().unwrap_or("").trim())
    }
}

/// Where each rank's bytes start in the gathered buffer.
fn offsets(counts: &[Count]) -> Result<Vec<Count>> {
    let mut at: usize = 0;
    let mut out = Vec::with_capacity(counts.len());
    for &c in counts {
        out.push(count(at)?);
        at += c as usize;
    }
    count(at)?;
    Ok(out)
}
