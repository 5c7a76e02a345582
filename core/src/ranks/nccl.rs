//! Ghost rows and Δt's rate passed between the ranks' GPUs directly, through NCCL: the messages
//! go on each rank's stream, in order with its kernels, so a step neither waits for its GPU nor
//! copies through the host. The library is loaded when a run asks for it (`libnccl.so.2`, as
//! NVIDIA's packages and the `nvidia-nccl` wheels install it), so building hydrokern needs
//! nothing of it; where it is missing, or where two ranks share a GPU (which NCCL refuses), the
//! ranks exchange through the host as before ([`Halo`](super::Halo)).

use super::comm::Comm;
use crate::runtime::{Aside, Backend, Gpu};
use crate::{Error, GpuReal, Result};
use cudarc::driver::{CudaSlice, CudaStream};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::{Arc, OnceLock};

/// The environment variable that turns the direct exchange off (`0`): the ranks then exchange
/// through the host even where NCCL would run.
pub const NCCL_ENV: &str = "HYDROKERN_NCCL";

/// NCCL's opaque communicator and its unique id (128 bytes, `ncclUniqueId`).
type RawComm = *mut c_void;
#[repr(C)]
#[derive(Clone, Copy)]
struct UniqueId {
    internal: [c_char; 128],
}

/// `ncclUint8`, `ncclFloat32`, `ncclFloat64`; `ncclMax`.
const NCCL_UINT8: c_int = 1;
const NCCL_FLOAT32: c_int = 7;
const NCCL_FLOAT64: c_int = 8;
const NCCL_MAX: c_int = 2;

/// The few NCCL functions a decomposed run calls, loaded from the shared library.
struct Nccl {
    _lib: libloading::Library,
    version: c_int,
    get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> c_int,
    comm_init_rank: unsafe extern "C" fn(*mut RawComm, c_int, UniqueId, c_int) -> c_int,
    comm_destroy: unsafe extern "C" fn(RawComm) -> c_int,
    group_start: unsafe extern "C" fn() -> c_int,
    group_end: unsafe extern "C" fn() -> c_int,
    send: unsafe extern "C" fn(*const c_void, usize, c_int, c_int, RawComm, *mut c_void) -> c_int,
    recv: unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, *mut c_void) -> c_int,
    all_reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, RawComm, *mut c_void) -> c_int,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
}

/// The library names tried, in order: the runtime package's soname first.
const LIBRARIES: [&str; 2] = ["libnccl.so.2", "libnccl.so"];

impl Nccl {
    /// The library, loaded once per process; why not where it cannot be.
    fn get() -> std::result::Result<&'static Nccl, String> {
        static LOADED: OnceLock<std::result::Result<Nccl, String>> = OnceLock::new();
        LOADED.get_or_init(Nccl::load).as_ref().map_err(Clone::clone)
    }

    fn load() -> std::result::Result<Nccl, String> {
        // SAFETY: loading NCCL runs its initialisers, which only set up the library.
        let lib = LIBRARIES
            .iter()
            .find_map(|name| unsafe { libloading::Library::new(*name) }.ok())
            .ok_or_else(|| format!("NCCL is not installed ({} not found)", LIBRARIES.join(" or ")))?;
        // SAFETY: each symbol is NCCL's function of that name with the signature of NCCL 2's
        // nccl.h, which the field's type states.
        unsafe {
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get($name).map_err(|e| format!("NCCL lacks {}: {e}", String::from_utf8_lossy($name)))?
                };
            }
            let get_version: unsafe extern "C" fn(*mut c_int) -> c_int = sym!(b"ncclGetVersion");
            let mut version = 0;
            if get_version(&mut version) != 0 {
                return Err("ncclGetVersion failed".into());
            }
            Ok(Nccl {
                version,
                get_unique_id: sym!(b"ncclGetUniqueId"),
                comm_init_rank: sym!(b"ncclCommInitRank"),
                comm_destroy: sym!(b"ncclCommDestroy"),
                group_start: sym!(b"ncclGroupStart"),
                group_end: sym!(b"ncclGroupEnd"),
                send: sym!(b"ncclSend"),
                recv: sym!(b"ncclRecv"),
                all_reduce: sym!(b"ncclAllReduce"),
                error_string: sym!(b"ncclGetErrorString"),
                _lib: lib,
            })
        }
    }

    /// `code` as a result: NCCL's own words for a failure of `what`.
    fn check(&self, code: c_int, what: &str) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: ncclGetErrorString returns a static NUL-terminated string for any code.
        let why = unsafe { CStr::from_ptr((self.error_string)(code)) }.to_string_lossy();
        Err(Error::invalid(format!("ranks: {what} failed: {why} (NCCL error {code})")))
    }

    /// "2.27.3" from NCCL's version code (major × 10000 + minor × 100 + patch since 2.9).
    fn version(&self) -> String {
        let v = self.version;
        format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
    }
}

/// One rank's NCCL communicator over all the ranks, on its GPU's stream, and a second stream
/// beside it, on which ghost rows travel and the work that reads them runs while the GPU's
/// stream computes what does not ([`exchange_aside`](DeviceLink::exchange_aside)).
pub struct DeviceLink {
    nccl: &'static Nccl,
    comm: RawComm,
    gpu: Arc<Gpu>,
    aside: Aside,
}

/// A message of [`DeviceLink::exchange`]: `bytes` bytes at device address `at`, to or from rank
/// `peer`.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    pub peer: usize,
    pub at: u64,
    pub bytes: usize,
}

impl DeviceLink {
    /// The ranks' link, set up by every rank together (each calls this at the same point of the
    /// run): `Some` on every rank when each has a GPU of its own (no two ranks on one device),
    /// NCCL loads on each, and [`NCCL_ENV`] is not `0`; else `None` on every rank, with the
    /// reason. Rank 0 says which on standard error.
    pub fn establish(comm: &dyn Comm, backend: &Backend) -> Result<Option<DeviceLink>> {
        let gpu = match backend {
            Backend::Gpu(g) => Some(g.clone()),
            Backend::Cpu { .. } => None,
        };
        let wanted = std::env::var(NCCL_ENV).map_or(true, |v| v != "0");
        let claim = match (&gpu, wanted) {
            (None, _) => Claim::Cannot("a rank runs on the CPU".into()),
            (Some(_), false) => Claim::Cannot(format!("{NCCL_ENV}=0")),
            (Some(g), true) => match Nccl::get() {
                Ok(_) => g.uuid().map_or_else(|e| Claim::Cannot(e.to_string()), Claim::Device),
                Err(why) => Claim::Cannot(why),
            },
        };
        // Rank 0 decides for all from every rank's claim, and hands out NCCL's id with it.
        let claims = comm.gather(&claim.encode())?;
        let mut said = match claims {
            Some(all) => {
                let all: Vec<Claim> = all.iter().map(Claim::decode).collect::<Result<_>>()?;
                match agree(&all) {
                    Ok(()) => {
                        let nccl = Nccl::get().map_err(Error::invalid)?;
                        let mut id = UniqueId { internal: [0; 128] };
                        // SAFETY: writes the 128-byte id.
                        nccl.check(unsafe { (nccl.get_unique_id)(&mut id) }, "ncclGetUniqueId")?;
                        let mut b = vec![1u8];
                        b.extend(id.internal.iter().map(|&c| c as u8));
                        b
                    }
                    Err(why) => [&[0u8][..], why.as_bytes()].concat(),
                }
            }
            None => Vec::new(),
        };
        comm.broadcast(&mut said)?;
        let (route, rest) = said.split_first().ok_or_else(|| Error::invalid("ranks: no word on the GPU link"))?;
        if *route == 0 {
            // Ranks on the CPU have nothing to say about GPUs.
            if comm.rank() == 0 && gpu.is_some() {
                crate::warn(format_args!(
                    "ranks: ghost rows through the host, because {}",
                    String::from_utf8_lossy(rest)
                ));
            }
            return Ok(None);
        }
        let (Some(gpu), Ok(nccl)) = (gpu, Nccl::get()) else {
            return Err(Error::invalid("ranks: rank 0 chose NCCL for a rank that cannot run it"));
        };
        let mut id = UniqueId { internal: [0; 128] };
        for (d, s) in id.internal.iter_mut().zip(rest) {
            *d = *s as c_char;
        }
        bind(&gpu)?;
        let mut raw: RawComm = std::ptr::null_mut();
        let (size, rank) = (comm.size() as c_int, comm.rank() as c_int);
        // SAFETY: every rank calls ncclCommInitRank with the same id and size and its own rank,
        // its GPU's context current; `raw` receives the communicator.
        nccl.check(unsafe { (nccl.comm_init_rank)(&mut raw, size, id, rank) }, "ncclCommInitRank")?;
        if comm.rank() == 0 {
            crate::warn(format_args!("ranks: ghost rows and Δt GPU to GPU through NCCL {}", nccl.version()));
        }
        let aside = Aside::new(&gpu)?;
        Ok(Some(DeviceLink { nccl, comm: raw, gpu, aside }))
    }

    /// The GPU whose stream the link's messages go on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The GPU's stream, its context bound to this thread (NCCL queues on the current device).
    fn stream(&self) -> Result<*mut c_void> {
        bind(&self.gpu)?;
        Ok(self.gpu.stream().cu_stream() as *mut c_void)
    }

    /// Send every `sends` message and receive every `recvs` one, queued on the GPU's stream as
    /// one group (nothing waits here). Messages between two ranks are matched in the order
    /// each rank lists them, so each pair must list theirs in the same order.
    pub fn exchange(&self, sends: &[Message], recvs: &[Message]) -> Result<()> {
        let stream = self.stream()?;
        self.exchange_on(stream, sends, recvs)
    }

    /// [`exchange`](Self::exchange) on the stream beside the GPU's, after everything queued on
    /// the GPU's stream so far, followed there by `then` (given that stream: the work that
    /// reads what arrives). The GPU's stream goes on at once with what does not; `join`
    /// (Self::join) makes it wait for all of this. NCCL runs the link's calls in the order they
    /// are queued on every rank, and each `exchange_aside` is joined before the link's next
    /// call, so the order is the one the ranks agree on.
    pub fn exchange_aside(
        &self,
        sends: &[Message],
        recvs: &[Message],
        then: impl FnOnce(&Arc<CudaStream>) -> Result<()>,
    ) -> Result<()> {
        let a = &self.aside;
        a.begin(self.gpu.stream())?;
        bind(&self.gpu)?;
        self.exchange_on(a.stream().cu_stream() as *mut c_void, sends, recvs)?;
        then(a.stream())?;
        a.end()
    }

    /// The GPU's stream waits, on the device, for the last [`exchange_aside`](Self::exchange_aside)
    /// and what followed it there.
    pub fn join(&self) -> Result<()> {
        self.aside.join(self.gpu.stream())
    }

    fn exchange_on(&self, stream: *mut c_void, sends: &[Message], recvs: &[Message]) -> Result<()> {
        let n = self.nccl;
        // SAFETY: the group's calls only queue work; every address is a device allocation of
        // this GPU holding `bytes` bytes from it, which the stream's order keeps alive and
        // unwritten by this rank's kernels until the group is done.
        unsafe {
            n.check((n.group_start)(), "ncclGroupStart")?;
            let mut queued = Ok(());
            for m in sends {
                queued = queued.and(n.check(
                    (n.send)(m.at as *const c_void, m.bytes, NCCL_UINT8, m.peer as c_int, self.comm, stream),
                    "ncclSend",
                ));
            }
            for m in recvs {
                queued = queued.and(n.check(
                    (n.recv)(m.at as *mut c_void, m.bytes, NCCL_UINT8, m.peer as c_int, self.comm, stream),
                    "ncclRecv",
                ));
            }
            // The group is closed whatever happened in it.
            let ended = n.check((n.group_end)(), "ncclGroupEnd");
            queued.and(ended)
        }
    }

    /// The maximum over the ranks of `value[0]`, in place, queued on the GPU's stream. An
    /// infinite value stays infinite; a NaN may be lost (NCCL takes the larger number), so what
    /// is reduced must not be NaN.
    pub fn max_in_place<T: GpuReal>(&self, value: &CudaSlice<T>) -> Result<()> {
        let kind = if std::mem::size_of::<T>() == 4 { NCCL_FLOAT32 } else { NCCL_FLOAT64 };
        if value.is_empty() {
            return Err(Error::invalid("ranks: an all-reduce of no value"));
        }
        let (n, stream) = (self.nccl, self.stream()?);
        let at = self.gpu.address(value) as *mut c_void;
        // SAFETY: `at` holds at least one T on this GPU, read and written in order on its stream.
        n.check(unsafe { (n.all_reduce)(at, at, 1, kind, NCCL_MAX, self.comm, stream) }, "ncclAllReduce")
    }
}

impl Drop for DeviceLink {
    fn drop(&mut self) {
        // The streams' messages are done before the communicator goes; a failure at the end of
        // a run has no one to tell.
        let _ = self.gpu.synchronize();
        let _ = self.aside.stream().synchronize();
        // SAFETY: the communicator is this link's, used by nothing after this.
        unsafe { (self.nccl.comm_destroy)(self.comm) };
    }
}

/// Make `gpu`'s context this thread's current one: NCCL works on the current device.
fn bind(gpu: &Gpu) -> Result<()> {
    gpu.context().bind_to_thread().map_err(|e| Error::invalid(format!("ranks: binding the GPU: {e}")))
}

/// What one rank says it can do: run NCCL on the device of this UUID, or not, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Claim {
    Device([u8; 16]),
    Cannot(String),
}

impl Claim {
    fn encode(&self) -> Vec<u8> {
        match self {
            Claim::Device(uuid) => [&[1u8][..], uuid].concat(),
            Claim::Cannot(why) => [&[0u8][..], why.as_bytes()].concat(),
        }
    }

    fn decode(b: &[u8]) -> Result<Claim> {
        match b.split_first() {
            Some((1, uuid)) if uuid.len() == 16 => Ok(Claim::Device(uuid.try_into().expect("16 bytes"))),
            Some((0, why)) => Ok(Claim::Cannot(String::from_utf8_lossy(why).into_owned())),
            _ => Err(Error::invalid("ranks: a garbled word on the GPU link")),
        }
    }
}

/// Whether every rank may use NCCL: each can, on a device no other rank has; else why not.
fn agree(claims: &[Claim]) -> std::result::Result<(), String> {
    let mut seen: Vec<([u8; 16], usize)> = Vec::new();
    for (rank, c) in claims.iter().enumerate() {
        match c {
            Claim::Cannot(why) => return Err(format!("rank {rank}: {why}")),
            Claim::Device(uuid) => {
                if let Some((_, first)) = seen.iter().find(|(u, _)| u == uuid) {
                    return Err(format!("ranks {first} and {rank} share a GPU"));
                }
                seen.push((*uuid, rank));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranks::threads::Threads;
    use std::rc::Rc;

    #[test]
    fn ranks_agree_only_on_a_gpu_each() {
        let dev = |b: u8| Claim::Device([b; 16]);
        assert_eq!(agree(&[dev(1), dev(2), dev(3)]), Ok(()));
        assert_eq!(agree(&[dev(1), dev(2), dev(1)]), Err("ranks 0 and 2 share a GPU".into()));
        let cpu = Claim::Cannot("a rank runs on the CPU".into());
        assert_eq!(agree(&[dev(1), cpu]), Err("rank 1: a rank runs on the CPU".into()));
        for c in [dev(7), Claim::Cannot("why".into()), Claim::Cannot(String::new())] {
            assert_eq!(Claim::decode(&c.encode()).unwrap(), c);
        }
        assert!(Claim::decode(&[1, 2, 3]).is_err() && Claim::decode(&[]).is_err());
    }

    /// Ranks on the CPU all get no link, together, and go on talking afterwards.
    #[test]
    fn ranks_on_the_cpu_exchange_through_the_host() {
        std::thread::scope(|scope| {
            for t in Threads::group(3) {
                scope.spawn(move || {
                    let comm: Rc<dyn Comm> = Rc::new(t);
                    let link = DeviceLink::establish(comm.as_ref(), &Backend::Cpu { why: None }).unwrap();
                    assert!(link.is_none());
                    assert_eq!(comm.max(comm.rank() as f64).unwrap(), 2.0);
                });
            }
        });
    }
}
