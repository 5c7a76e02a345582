//! SIGINT and SIGTERM as a request to stop: the handler only records the signal, and the time
//! loop looks at it between steps ([`requested`]), so that a run stops at a step boundary with
//! its outputs whole, its manifest saying how it ended and its directory's lock removed. A
//! second signal while the run is stopping ends the process at once, as a signal does by
//! default.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal received, or 0.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    // Only async-signal-safe work here: an atomic swap, and on a second signal the default
    // action restored and the signal raised again.
    if RECEIVED.swap(signal, Ordering::SeqCst) != 0 {
        // SAFETY: signal(2) and raise(3) are async-signal-safe.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

/// Catch SIGINT and SIGTERM from now on (what the command line asks for a run; a library caller
/// keeps the signals' default action unless it asks too).
pub fn catch() {
    for signal in SIGNALS {
        install(signal);
    }
}

const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// Install the handler for `signal`, returning the disposition it replaces.
fn install(signal: libc::c_int) -> libc::sigaction {
    // SAFETY: a zeroed sigaction with a handler that only touches an atomic (and, on a second
    // signal, calls async-signal-safe functions) is a valid disposition; `old` receives the
    // previous one.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, &action, &mut old);
        old
    }
}

/// Run `f` with SIGINT and SIGTERM caught as [`catch`] catches them, then give the signals back
/// the dispositions they had and forget a signal received: for a host program with handlers
/// of its own (the Python interpreter), whose run stops at a step boundary on Ctrl-C.
pub fn within<R>(f: impl FnOnce() -> R) -> R {
    RECEIVED.store(0, Ordering::SeqCst);
    let old = SIGNALS.map(install);
    let r = f();
    for (signal, action) in SIGNALS.into_iter().zip(old) {
        // SAFETY: `action` is the disposition sigaction(2) returned for this signal.
        unsafe {
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
    RECEIVED.store(0, Ordering::SeqCst);
    r
}

/// The signal (SIGINT 2, SIGTERM 15) that asked the run to stop, if one did.
pub fn requested() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The signal's name, for messages.
pub fn name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}
