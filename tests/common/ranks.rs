//! Runs decomposed over ranks as threads of the test (`ranks::threads`), and the bitwise
//! comparisons of their states and checkpoints with the whole grid's.

use hydrokern::GpuReal;
use hydrokern::grid::Layout2;
use hydrokern::model::{Checkpoint, Model, Products, State};
use hydrokern::products::{GAUGE_VALUES, Joined};
use hydrokern::ranks::parts::{self, Set};
use hydrokern::ranks::threads::lead_on_threads;
use hydrokern::ranks::{Comm, DeviceLink, Halo, Slab, Slabs};
use hydrokern::runtime::{Backend, BackendChoice, Gpu};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Run `lead` on rank 0's decomposed model of a grid of padded `layout` cut across y into
/// `slabs` (its products joined by `joined`), the ranks on threads
/// (`ranks::threads::lead_on_threads`); `slab` builds a rank's model of its slab.
pub fn on_ranks<'p, T: GpuReal, M: Model<T> + 'p, R>(
    slabs: Slabs,
    layout: Layout2,
    joined: Option<Joined>,
    slab: impl Fn(Rc<dyn Comm>) -> M + Sync,
    lead: impl FnOnce(&mut dyn Model<T>) -> R,
) -> R {
    let slab = |comm| Ok(Box::new(slab(comm)) as Box<dyn Model<T> + 'p>);
    lead_on_threads(slabs, (layout, 1), joined, slab, lead).unwrap()
}

/// Ranks each on its own GPU (rank r on GPU r mod their count, as `Backend::select_for` gives a
/// run's ranks), linked GPU to GPU through NCCL where `nccl` asks for it and the ranks can set
/// it up; counting the ranks linked.
pub struct OwnGpus {
    nccl: bool,
    linked: AtomicUsize,
}

impl OwnGpus {
    pub fn new(nccl: bool) -> OwnGpus {
        OwnGpus { nccl, linked: AtomicUsize::new(0) }
    }

    /// `comm`'s rank's GPU and, where asked for and possible, the ranks' link (every rank
    /// calls this together, as a run's ranks set the link up).
    pub fn rank(&self, comm: &dyn Comm) -> (Backend, Option<Rc<DeviceLink>>) {
        let own = Backend::select_for(BackendChoice::Gpu, comm.rank(), None).unwrap();
        let link = match self.nccl {
            true => DeviceLink::establish(comm, &own).unwrap().map(Rc::new),
            false => None,
        };
        self.linked.fetch_add(link.is_some() as usize, Ordering::Relaxed);
        (own, link)
    }

    /// How many of the `ranks` ranks were linked (then counted again from 0): all or none, and
    /// all where NCCL was asked for, `HYDROKERN_REQUIRE_NCCL=1` requires it and the machine
    /// has a GPU for each rank.
    pub fn linked(&self, ranks: usize) -> usize {
        let linked = self.linked.swap(0, Ordering::Relaxed);
        assert!(linked == 0 || linked == ranks, "{linked} of {ranks} ranks linked");
        let require = std::env::var("HYDROKERN_REQUIRE_NCCL").is_ok_and(|v| v == "1");
        if self.nccl && require && ranks <= Gpu::count() {
            assert_eq!(linked, ranks, "NCCL was required on {ranks} GPUs");
        }
        linked
    }
}

/// A directory of its own for the parts of a decomposed run's checkpoints, removed with it.
pub struct PartsDir(PathBuf);

impl PartsDir {
    pub fn new() -> PartsDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let k = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("hydrokern-parts-{}-{k}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        PartsDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PartsDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The halo of one rank whose slab, the `rows` rows of `layout`, is its own neighbour below and
/// above, its ghost rows passing to itself through NCCL on `gpu`'s device: beside the kernels
/// that can take them so, or (`in_order`) before the kernels that read them. It needs NCCL
/// (`libnccl.so.2` on the loader's path).
pub fn own_neighbour_halo(comm: Rc<dyn Comm>, gpu: &Backend, rows: usize, layout: Layout2, in_order: bool) -> Halo {
    let link = DeviceLink::establish(comm.as_ref(), gpu).unwrap().map(Rc::new);
    assert!(link.is_some(), "this test needs NCCL: put its lib directory on LD_LIBRARY_PATH");
    let own = Slab { rank: 0, rows: 0..rows, below: Some(0), above: Some(0) };
    let halo = Halo::new(comm, own, layout).linked(link);
    assert!(halo.overlaps(), "the link overlaps unless asked not to");
    if in_order { halo.in_order() } else { halo }
}

/// Decomposed model `d`'s checkpoint as a set of parts in `dir`: every rank's part written
/// there, and the manifest.
pub fn checkpoint_parts<T: GpuReal>(d: &mut dyn Model<T>, dir: &Path) -> Checkpoint<T> {
    d.checkpoint_in_parts(dir);
    let manifest = d.checkpoint().unwrap();
    assert!(Set::of(&manifest).unwrap().is_some(), "a decomposed checkpoint in parts lists none");
    manifest
}

/// The whole grid's checkpoint joined from the set `manifest` lists in `dir`, as a run on one
/// rank (`whole`, the one-rank model) joins it.
pub fn joined_parts<T: GpuReal>(manifest: &Checkpoint<T>, dir: &Path, whole: &dyn Model<T>) -> Checkpoint<T> {
    let set = Set::of(manifest).unwrap().expect("a set of parts");
    parts::join(manifest, &set, dir, |j| whole.joined(j)).unwrap()
}

/// The bits of every value, to compare exactly.
pub fn bits<T: GpuReal>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// The same clock, fields and flows through the boundary, bit for bit.
pub fn same_state<T: GpuReal>(a: &State<T>, b: &State<T>) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.clock, b.clock);
    prop_assert_eq!(a.fields.len(), b.fields.len());
    for (f, g) in a.fields.iter().zip(&b.fields) {
        prop_assert_eq!(f.name, g.name);
        prop_assert_eq!(&f.dims, &g.dims);
        prop_assert!(bits(&f.data) == bits(&g.data), "field {} differs", f.name);
    }
    // The water account's flows through the boundary, bit for bit.
    let flows = |s: &State<T>| {
        s.boundary.iter().map(|b| (b.name.clone(), b.out.to_bits(), b.into.to_bits())).collect::<Vec<_>>()
    };
    prop_assert_eq!(flows(a), flows(b));
    Ok(())
}

/// The same clock, fields (bit for bit), flags, values and records.
pub fn same_checkpoint<T: GpuReal>(a: &Checkpoint<T>, b: &Checkpoint<T>) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.clock, b.clock);
    prop_assert_eq!(a.fields.len(), b.fields.len());
    for ((n, f), (m, g)) in a.fields.iter().zip(&b.fields) {
        prop_assert_eq!(n, m);
        prop_assert!(bits(f) == bits(g), "checkpoint field {} differs", n);
    }
    prop_assert_eq!(&a.flags, &b.flags);
    prop_assert_eq!(&a.values, &b.values);
    prop_assert_eq!(&a.records, &b.records);
    Ok(())
}

/// The same gauge and line records (bit for bit) and maps.
pub fn same_products<T: GpuReal>(a: &Products<T>, b: &Products<T>) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.series.len(), b.series.len());
    for (s, t) in a.series.iter().zip(&b.series) {
        prop_assert_eq!(&s.gauge, &t.gauge);
        prop_assert_eq!(&s.times, &t.times);
        let v = |x: &[[f64; GAUGE_VALUES]]| x.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>();
        prop_assert!(v(&s.values) == v(&t.values), "gauge {} differs", s.gauge.name);
    }
    prop_assert_eq!(a.lines.len(), b.lines.len());
    for (l, m) in a.lines.iter().zip(&b.lines) {
        prop_assert_eq!(&l.line, &m.line);
        prop_assert_eq!(&l.times, &m.times);
        let d = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        prop_assert!(d(&l.discharge) == d(&m.discharge), "line {} differs", l.line.name);
    }
    prop_assert_eq!(a.maps.len(), b.maps.len());
    for (f, g) in a.maps.iter().zip(&b.maps) {
        prop_assert_eq!(f.name, g.name);
        prop_assert_eq!(&f.dims, &g.dims);
        prop_assert!(bits(&f.data) == bits(&g.data), "map {} differs", f.name);
    }
    Ok(())
}
