//! Values moved into [`Python::detach`]'s closure, which requires `Send`.
//!
//! [`Python::detach`]: pyo3::Python::detach

/// A value moved into `Python::detach`'s closure, which runs on the calling thread: the
/// models and cases are not `Send` (GPU handles), and they never leave this thread.
pub struct Unsent<T>(pub T);
// SAFETY: `detach` runs its closure on the thread that calls it, so the value is used on the
// thread that owns it; nothing else can reach it while the lock is released (the Python
// objects holding it are `unsendable`, or hold it behind `&mut self`).
unsafe impl<T> Send for Unsent<T> {}

impl<T> Unsent<T> {
    /// The value, taken whole (a closure that names the field would capture the field alone).
    pub fn take(self) -> T {
        self.0
    }
}
