//! Where a rank's time goes besides its own cells: the ghost-row exchanges and the reductions
//! of global decisions (Δt), summed per thread (each rank is one thread of its process), for
//! `bench scaling` to split a step's time.

use std::cell::Cell;
use std::time::Instant;

/// Seconds this rank has spent exchanging ghost rows and reducing over the ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spent {
    pub exchange: f64,
    pub reduce: f64,
}

thread_local! {
    static SPENT: Cell<Spent> = const { Cell::new(Spent { exchange: 0.0, reduce: 0.0 }) };
}

/// The time spent since the last call, which starts the count again.
pub fn take() -> Spent {
    SPENT.with(|s| s.replace(Spent::default()))
}

/// `f`, its time counted as exchanging ghost rows.
pub fn exchanging<R>(f: impl FnOnce() -> R) -> R {
    let t = Instant::now();
    let r = f();
    SPENT.with(|s| s.set(Spent { exchange: s.get().exchange + t.elapsed().as_secs_f64(), ..s.get() }));
    r
}

/// `f`, its time counted as reducing over the ranks.
pub fn reducing<R>(f: impl FnOnce() -> R) -> R {
    let t = Instant::now();
    let r = f();
    SPENT.with(|s| s.set(Spent { reduce: s.get().reduce + t.elapsed().as_secs_f64(), ..s.get() }));
    r
}
