//! Runs decomposed over ranks as threads of the test (`ranks::threads`), and the bitwise
//! comparisons of their states and checkpoints with the whole grid's.

use hydrokern::GpuReal;
use hydrokern::grid::Layout2;
use hydrokern::model::{Checkpoint, Model, State};
use hydrokern::ranks::threads::Threads;
use hydrokern::ranks::{self, Comm, Decomposed, Slabs};
use proptest::prelude::*;
use std::rc::Rc;

/// Run `lead` on rank 0's decomposed model of a grid of padded `layout` cut into `slabs`, while
/// the other ranks serve it, each on its own thread; `slab` builds a rank's model of its slab.
/// The ranks end when `lead` returns.
pub fn on_ranks<'p, T: GpuReal, M: Model<T> + 'p, R>(
    slabs: Slabs,
    layout: Layout2,
    slab: impl Fn(Rc<dyn Comm>) -> M + Sync,
    lead: impl FnOnce(&mut dyn Model<T>) -> R,
) -> R {
    let mut group = Threads::group(slabs.ranks).into_iter();
    let zero: Rc<dyn Comm> = Rc::new(group.next().unwrap());
    let slab = &slab;
    std::thread::scope(|scope| {
        for t in group {
            scope.spawn(move || {
                let comm: Rc<dyn Comm> = Rc::new(t);
                ranks::wait_for_start(comm.as_ref()).unwrap();
                let mut m = slab(comm.clone());
                assert!(ranks::built_everywhere(comm.as_ref(), None).unwrap().is_none());
                ranks::serve(comm.as_ref(), &mut m).unwrap();
            });
        }
        let own = || Ok(Box::new(slab(zero.clone())) as Box<dyn Model<T> + 'p>);
        let mut model = Decomposed::lead(zero.clone(), slabs, layout, own).unwrap();
        let r = lead(&mut model);
        drop(model);
        ranks::finish(zero.as_ref(), false).unwrap();
        r
    })
}

fn bits<T: GpuReal>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// The same clock and fields, bit for bit.
pub fn same_state<T: GpuReal>(a: &State<T>, b: &State<T>) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.clock, b.clock);
    prop_assert_eq!(a.fields.len(), b.fields.len());
    for (f, g) in a.fields.iter().zip(&b.fields) {
        prop_assert_eq!(f.name, g.name);
        prop_assert_eq!(&f.dims, &g.dims);
        prop_assert!(bits(&f.data) == bits(&g.data), "field {} differs", f.name);
    }
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
