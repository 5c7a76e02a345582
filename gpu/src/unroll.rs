//! `unroll!`: a loop over a list of constants, unrolled by hand.

/// `unroll!(u: u32 in [0, 1, 2, 3] => { body })`: the body once per listed constant, with `u`
/// bound to it (of the stated type); `unroll!(u: usize in [0, 1, 2, 3] if u < n => { body })`
/// runs each copy only when the condition holds (`n` may be a run-time value).
///
/// LLVM's unroller leaves some loops rolled (16 trips, or a bound known only at run time), and a
/// rolled loop that indexes a register array (a window, a group of loads) moves the array to
/// local memory; with the copies written out every index is a constant.
macro_rules! unroll {
    ($u:ident : $t:ident in [$($k:literal),* $(,)?] => $body:block) => {{
        $( { let $u: $t = $k; $body } )*
    }};
    ($u:ident : $t:ident in [$($k:literal),* $(,)?] if $cond:expr => $body:block) => {{
        $( { let $u: $t = $k; if $cond $body } )*
    }};
}
