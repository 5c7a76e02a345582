//! The names of the kernels a stretch of host code launches, in order: what a benchmark row adds
//! up its kernels' measured counts from (`bench::counts`).

use std::cell::RefCell;

thread_local! {
    /// The kernels launched on this thread while [`launches_of`] records, in order.
    static LOG: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Run `f` and return, with its result, the names of the kernels it launched on this thread
/// in order. A recording inside another holds its own launches only. Each launch costs one
/// thread-local look-up, recorded or not.
pub fn launches_of<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    let outer = LOG.with_borrow_mut(|l| l.replace(Vec::new()));
    let r = f();
    let log = LOG.with_borrow_mut(|l| std::mem::replace(l, outer)).unwrap_or_default();
    (r, log)
}

/// Notes the launch of `kernels` (a kernel, or a graph's kernels) where [`launches_of`] records.
pub(super) fn note_launch(kernels: &[String]) {
    LOG.with_borrow_mut(|l| {
        if let Some(l) = l {
            l.extend(kernels.iter().cloned())
        }
    });
}
