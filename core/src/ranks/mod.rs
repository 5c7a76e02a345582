//! Runs decomposed over ranks: the grid cut into slabs along y ([`slabs`]), one per rank, each
//! rank stepping its slab with ghost rows taken from its neighbours ([`halo`]), and rank 0
//! joining states and checkpoints so that the runner sees the whole grid ([`decomposed`]), or
//! each rank writing its part of a checkpoint ([`parts`]); rank 0 hands each rank its part of
//! the case where the solver's other ranks read none of its fields ([`handout`]). The
//! ranks talk through [`Comm`]: MPI across processes and hosts (the command line's `mpi`
//! feature), [`threads::Threads`] within one process (the tests), [`Solo`] alone.
//!
//! The rank's transport is this thread's *world* ([`set_world`]): the command line sets it
//! once at start, a test on each thread it runs a rank on.

pub mod comm;
pub mod decomposed;
pub mod halo;
pub mod handout;
mod join;
pub mod nccl;
pub mod parts;
pub mod perimeter;
pub mod slabs;
pub mod spent;
pub mod threads;
pub mod wire;

pub use comm::{Comm, Solo};
pub use decomposed::{Decomposed, finish, serve, serve_built, wait_for_start};
pub use halo::Halo;
pub use nccl::DeviceLink;
pub use slabs::{Slab, Slabs};

use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    static WORLD: RefCell<Option<Rc<dyn Comm>>> = const { RefCell::new(None) };
}

/// Make `comm` the ranks of the runs this thread starts.
pub fn set_world(comm: Rc<dyn Comm>) {
    WORLD.with(|w| *w.borrow_mut() = Some(comm));
}

/// The ranks of the runs this thread starts, if it has more than one.
pub fn world() -> Option<Rc<dyn Comm>> {
    WORLD.with(|w| w.borrow().clone()).filter(|c| c.size() > 1)
}
