//! The runner's side of a run decomposed over ranks ([`crate::ranks`]): rank 0 runs the case
//! as any run, with a model that leads the others; every other rank builds the model of its
//! slab and does what rank 0 orders ([`serve`]).

use super::{Decomposition, Outcome, Simulation};
use crate::grid::Layout2;
use crate::model::Model;
use crate::products::Joined;
use crate::ranks::{self, Comm, Decomposed, DeviceLink, Halo, handout};
use crate::runtime::Backend;
use crate::{Error, GpuReal, Precision, Result};
use std::path::PathBuf;
use std::rc::Rc;

/// The halo of `comm`'s rank in decomposition `d`: its slab and the slab's padded layout,
/// exchanging through `link` where the ranks' GPUs have one.
fn halo(d: &Decomposition, comm: &Rc<dyn Comm>, link: Option<DeviceLink>) -> Halo {
    let slab = d.slabs.slab(comm.rank());
    let layout = Layout2::new(d.layout.nx, slab.rows.len() as u32, d.layout.halo);
    Halo::new(comm.clone(), slab, layout).linked(link.map(Rc::new))
}

/// The model of a run: the solver's own, or with several ranks rank 0's slab leading the others.
/// Rank 0 hands each rank its part of the case (`Simulation::slab_part`), then every rank sets
/// up the GPUs' link (`DeviceLink::establish`) and builds its slab.
pub(super) fn build<'s, S: Simulation, T: GpuReal>(sim: &'s S, backend: &Backend) -> Result<Box<dyn Model<T> + 's>> {
    let Some(comm) = ranks::world() else { return sim.build(backend) };
    let d = sim.decomposition(comm.size())?;
    let rows: Vec<_> = d.slabs.all().into_iter().map(|s| s.rows).collect();
    let joined = d.products.as_ref().map(|(spec, sites)| Joined::new(spec, sites, d.layout.nx as usize, &rows));
    let build = || {
        // The other ranks wait inside the hand-out for their parts: a failure here stops them.
        let part = handout::hand_out(comm.as_ref(), handout::CHUNK, |r| sim.slab_part(backend, &d, r))
            .unwrap_or_else(|e| comm.abort(&format!("rank 0: {e}"), 1));
        let link = DeviceLink::establish(comm.as_ref(), backend)?;
        sim.build_slab::<T>(backend, halo(&d, &comm, link), part)
    };
    let lead = Decomposed::lead(comm.clone(), d.slabs, d.layout, build)?;
    Ok(Box::new(lead.with_products(joined).with_row_axes(d.row_axes)))
}

/// A rank other than 0: once rank 0 has built its model, build the model of this rank's slab
/// on the case's backend and precision and serve rank 0 until it ends the run.
pub(super) fn serve<S: Simulation>(sim: &S, comm: Rc<dyn Comm>) -> Result<Outcome> {
    let other_build = ranks::wait_for_start(comm.as_ref())?;
    let info = sim.info();
    // Rank 0 checked the same case and builds its model now: a failure from here on is this
    // rank's alone (its memory, its GPU), and stops every rank.
    let backend = Backend::select_for(info.run.backend.choice(), comm.local_rank(), info.run.gpus);
    let backend = backend.unwrap_or_else(|e| comm.abort(&format!("rank {}: {e}", comm.rank()), 1));
    match info.run.precision {
        Precision::F32 => serve_in::<S, f32>(sim, comm, &backend, other_build),
        Precision::F64 | Precision::Mixed => serve_in::<S, f64>(sim, comm, &backend, other_build),
    }
}

/// [`serve`] in precision `T`; `refused`: why this rank must not build (it is another build
/// than rank 0's), said as its build's failure once it has taken its part in the link's set-up.
fn serve_in<S: Simulation, T: GpuReal>(
    sim: &S,
    comm: Rc<dyn Comm>,
    backend: &Backend,
    refused: Option<String>,
) -> Result<Outcome> {
    // Rank 0 waits inside the hand-out until this rank has taken its part.
    let part = handout::take_part(comm.as_ref(), handout::CHUNK)
        .unwrap_or_else(|e| comm.abort(&format!("rank {}: {e}", comm.rank()), 1));
    let built = DeviceLink::establish(comm.as_ref(), backend).and_then(|link| {
        if let Some(why) = refused {
            return Err(Error::invalid(why));
        }
        let d = sim.decomposition(comm.size())?;
        sim.build_slab::<T>(backend, halo(&d, &comm, link), part)
    });
    let c = ranks::serve_built(comm.as_ref(), built)?.clock();
    Ok(Outcome { dir: PathBuf::new(), steps: c.steps, t: c.t, norms: Vec::new() })
}
