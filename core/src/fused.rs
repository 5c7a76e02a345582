//! The CPU references' multiply-adds on the FMA unit. `Real::mul_add` is a fused multiply-add
//! (one rounding), as on the GPU; in a build for the baseline x86-64 CPU it is a call to the
//! software `fma`, dozens of instructions for one. [`fused!`](crate::fused!) compiles a hot
//! function twice, for the baseline and with FMA and AVX2, and runs the second where the CPU
//! has them ([`has_fma`]). A fused multiply-add rounds once whichever unit computes it, so both
//! variants give the same bits: the choice changes the speed, never a result.

/// Whether this CPU runs the FMA variants: x86-64 with FMA and AVX2 (detected once per process
/// by the standard library). Elsewhere there is one variant.
#[inline]
pub fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("fma") && std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Declares a function whose body is compiled for the baseline CPU and, on x86-64, again with
/// FMA and AVX2, the second run where [`has_fma`] says the CPU has them. The generic
/// parameters go in brackets, then their names in brackets again (no `where` clause); the
/// arguments are plain names. Everything the body calls in its hot loop
/// must be `#[inline(always)]` (the kernels' point functions are) or a closure written in it,
/// so that it is compiled into the FMA variant too.
///
/// ```ignore
/// fused! {
///     /// Docs.
///     pub fn axpy[T: Real][T](a: T, x: &[T], y: &mut [T]) -> () { ... }
/// }
/// ```
#[macro_export]
macro_rules! fused {
    ($(#[$meta:meta])* $vis:vis fn $name:ident [$($generics:tt)*] [$($param:tt),*] ($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        $(#[$meta])*
        $vis fn $name<$($generics)*>($($arg: $ty),*) -> $ret {
            // The body twice, rather than one function called from both: closures inherit the
            // target features of the function they are written in, not of one they are
            // inlined into.
            fn baseline<$($generics)*>($($arg: $ty),*) -> $ret $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "fma,avx2")]
            fn with_fma<$($generics)*>($($arg: $ty),*) -> $ret $body
            #[cfg(target_arch = "x86_64")]
            if $crate::fused::has_fma() {
                // SAFETY: the CPU has FMA and AVX2, the only features `with_fma` adds.
                return unsafe { with_fma::<$($param),*>($($arg),*) };
            }
            baseline::<$($param),*>($($arg),*)
        }
    };
}
