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
