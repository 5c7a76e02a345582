//! `stamp!`: one `extern "gpu-kernel"` entry point per precision from one generic body.
//!
//! ```ignore
//! stamp! {
//!     copy => copy_f32, copy_f64 (src: *const T, dst: *mut T, n: u64);
//! }
//! ```
//! expands to `copy_f32(src: *const f32, ...)` calling `copy::<f32>(...)` and the same for f64.
//! `T` in the argument types names the precision: each entry point lives in its own module
//! where `type T` is that precision (item names are not hygienic, so the caller's `T` resolves
//! there). `#[no_mangle]` keeps the PTX symbol name equal to the entry-point name.

macro_rules! stamp {
    ($( $body:ident => $n32:ident, $n64:ident ( $($arg:ident : $ty:ty),* $(,)? ); )*) => { $(
        stamp!(@one $body, $n32, f32, ($($arg: $ty),*));
        stamp!(@one $body, $n64, f64, ($($arg: $ty),*));
    )* };
    (@one $body:ident, $name:ident, $prec:ty, ($($arg:ident : $ty:ty),*)) => {
        #[allow(non_snake_case, unused_imports, clippy::missing_safety_doc)]
        pub mod $name {
            use super::*;
            type T = $prec;
            /// Kernel entry point (see the generic body of the same stem for the contract).
            // `#[repr(C)]` parameter structs passed by value become `.param .b8 [N]` byval
            // parameters; rustc warns, and TOOLCHAIN.md records them verified exact.
            #[allow(improper_gpu_kernel_arg)]
            #[unsafe(no_mangle)]
            pub unsafe extern "gpu-kernel" fn $name($($arg: $ty),*) {
                unsafe { super::$body::<T>($($arg),*) }
            }
        }
    };
}

/// `unroll!(r in [0, 1, 2] => { body })`: the body once per listed constant, with `r: u32`
/// bound to it. Arrays indexed by `r` then see compile-time indices and stay in registers (a
/// run-time index would move them to local memory).
macro_rules! unroll {
    ($r:ident in [$($k:literal),* $(,)?] => $body:block) => {{
        $( { let $r: u32 = $k; $body } )*
    }};
}
