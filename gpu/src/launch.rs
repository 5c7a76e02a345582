//! Kernel entry points, declared once for the GPU and the host: [`kernels!`](crate::kernels).
//!
//! ```text
//! kernels! {
//!     /// Parameters of the h' kernels.
//!     pub struct StepH<T> { k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T }
//!     /// Su et al.'s baseline.
//!     pub const H_BASELINE: StepH = sediment_h_baseline(h_baseline::<T>);
//!     pub const H_OPT1: StepH = sediment_h_opt1(h_opt1::<T>);
//! }
//! ```
//!
//! declares, for the host and the GPU alike:
//! - the parameter struct `pub struct StepH<T> { pub k: Coeffs<T>, pub h: *const T, … }`
//!   (`#[repr(C)]`, `Clone`, `Copy`, `Debug`): the kernel's parameters, in order;
//! - [`Params`] for it: a pointer to each field, in order, which is what `cuLaunchKernel` takes;
//! - [`Family`] for it, so that an entry point is typed independently of the precision;
//! - one constant per entry point, `pub const H_BASELINE: Entry<StepH<()>>`, naming the PTX
//!   symbols `sediment_h_baseline_f32` and `sediment_h_baseline_f64`;
//! - `pub const ENTRY_STEMS: &[&str]`: every stem of the invocation (one invocation a module;
//!   the crate root collects them into [`ENTRY_POINTS`](crate::ENTRY_POINTS));
//!
//! and on nvptx64 only the two `extern "gpu-kernel"` entry points,
//! `sediment_h_baseline_f32(k: Coeffs<f32>, h: *const f32, …)` and the f64 one, each calling the
//! body expression with its parameters in order: `h_baseline::<T>(k, h, s, al, be, hn)` with `T`
//! the entry point's precision. The body is any expression of `T` that can be called so
//! (`wave::<T, Roe>`, a closure); its `# Safety` section is the kernel's launch contract.
//!
//! An entry constant belongs to the struct declared last before it, and says so: its type names
//! that struct (a different one does not compile). The parameters stay separate scalars,
//! pointers and by-value structs in the PTX, exactly as the struct lists them.

use crate::Real;
use core::ffi::c_void;
use core::marker::PhantomData;

/// The most parameters a kernel may have (a compile-time check in [`kernels!`](crate::kernels)).
pub const MAX_PARAMS: usize = 40;

/// A kernel's parameters as `cuLaunchKernel` takes them: one pointer to each parameter's value.
///
/// # Safety
/// [`args`](Params::args) writes, in the order of the entry points' parameters, one pointer to a
/// value of exactly each parameter's type, and returns how many it wrote (`COUNT`). `kernels!`
/// derives the entry points and this implementation from the same list.
pub unsafe trait Params {
    /// Number of parameters.
    const COUNT: usize;
    /// Write a pointer to each field of `self`, in order, to `out[..COUNT]`; returns `COUNT`.
    /// The pointers borrow `self`: they are valid while it lives and is not moved.
    fn args(&self, out: &mut [*mut c_void; MAX_PARAMS]) -> usize;
}

/// A parameter struct at any precision: `StepH<()>` names the family, `<StepH<()> as
/// Family>::At<f32>` is `StepH<f32>`, the parameters of the `_f32` entry point.
pub trait Family {
    type At<T: Real>: Params;
}

/// One kernel entry point: the PTX symbols `<stem>_f32` and `<stem>_f64`, taking the
/// parameters `F::At<f32>` and `F::At<f64>`.
pub struct Entry<F> {
    stem: &'static str,
    family: PhantomData<fn() -> F>,
}

impl<F> Entry<F> {
    /// The entry point named `stem` (`kernels!` makes these; nothing else should).
    pub const fn new(stem: &'static str) -> Entry<F> {
        Entry { stem, family: PhantomData }
    }
    /// The name of the PTX symbols without the `_f32`/`_f64` suffix.
    pub const fn stem(&self) -> &'static str {
        self.stem
    }
}

impl<F> Clone for Entry<F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for Entry<F> {}

impl<F> PartialEq for Entry<F> {
    fn eq(&self, other: &Self) -> bool {
        self.stem == other.stem
    }
}
impl<F> Eq for Entry<F> {}

impl<F> core::fmt::Debug for Entry<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Entry({})", self.stem)
    }
}

/// Declares kernel parameter structs and their entry points (see the [module](self) comment).
#[macro_export]
macro_rules! kernels {
    // The end: every stem of the invocation.
    (@go [$($stems:tt)*] [$($last:tt)*]) => {
        /// Every entry-point stem this module declares (`<stem>_f32` and `<stem>_f64` in the PTX).
        pub const ENTRY_STEMS: &[&str] = &[$($stems)*];
    };
    // A parameter struct.
    (@go [$($stems:tt)*] [$($last:tt)*]
        $(#[$meta:meta])* pub struct $name:ident<T> { $($field:ident : $ty:ty),* $(,)? }
        $($rest:tt)*
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        pub struct $name<T> {
            $(pub $field: $ty),*
        }

        // SAFETY: one pointer per field, in declaration order, which is the order of the entry
        // points' parameters (`@entry` below spreads the same list).
        unsafe impl<T> $crate::launch::Params for $name<T> {
            const COUNT: usize = [$(stringify!($field)),*].len();
            #[inline]
            fn args(&self, out: &mut [*mut ::core::ffi::c_void; $crate::launch::MAX_PARAMS]) -> usize {
                let mut n = 0;
                $(
                    out[n] = &self.$field as *const _ as *mut ::core::ffi::c_void;
                    n += 1;
                )*
                n
            }
        }

        const _: () = assert!(
            <$name<()> as $crate::launch::Params>::COUNT <= $crate::launch::MAX_PARAMS,
            concat!(stringify!($name), " has more parameters than a launch passes"),
        );

        impl<X> $crate::launch::Family for $name<X> {
            type At<T: $crate::Real> = $name<T>;
        }

        $crate::kernels!(@go [$($stems)*] [$name { $($field : $ty),* }] $($rest)*);
    };
    // An entry point of the last struct's parameters.
    (@go [$($stems:tt)*] [$last:ident { $($field:ident : $ty:ty),* }]
        $(#[$meta:meta])* pub const $entry:ident : $family:ident = $stem:ident ( $body:expr ) ;
        $($rest:tt)*
    ) => {
        $(#[$meta])*
        pub const $entry: $crate::launch::Entry<$family<()>> =
            $crate::launch::Entry::<$last<()>>::new(stringify!($stem));
        $crate::kernels!(@entry ${concat($stem, _f32)}, f32, $body, ($($field : $ty),*));
        $crate::kernels!(@entry ${concat($stem, _f64)}, f64, $body, ($($field : $ty),*));
        $crate::kernels!(@go [$($stems)* stringify!($stem),] [$last { $($field : $ty),* }] $($rest)*);
    };
    // One `extern "gpu-kernel"` entry point. It lives in a module of its own where `T` is the
    // precision (item names are not hygienic, so the caller's `T` resolves there).
    (@entry $name:ident, $prec:ty, $body:expr, ($($field:ident : $ty:ty),*)) => {
        #[cfg(target_arch = "nvptx64")]
        #[allow(non_snake_case, unused_imports, clippy::missing_safety_doc)]
        pub mod $name {
            use super::*;
            type T = $prec;
            /// Kernel entry point (see its body's `# Safety` section for the launch contract).
            // `#[repr(C)]` parameter structs passed by value become `.param .b8 [N]` byval
            // parameters; rustc warns, and docs/toolchain.md records them verified exact.
            #[allow(improper_gpu_kernel_arg)]
            #[unsafe(no_mangle)]
            pub unsafe extern "gpu-kernel" fn $name($($field: $ty),*) {
                #[allow(unused_unsafe)]
                unsafe {
                    ($body)($($field),*)
                }
            }
        }
    };
    // The invocation.
    ($($input:tt)*) => {
        $crate::kernels!(@go [] [] $($input)*);
    };
}

#[cfg(test)]
mod tests {
    use super::{Entry, Family, MAX_PARAMS, Params};
    use core::ffi::c_void;

    kernels! {
        /// Parameters of a kernel that is never compiled (the test runs on the host).
        pub struct Probe<T> { n: u32, src: *const T, value: T, dst: *mut T, len: u64 }
        pub const PROBE: Probe = probe(unused::<T>);
        pub const PROBE_TOO: Probe = probe_too(unused::<T>);
    }

    /// The parameters the `_f32` entry point of a family takes.
    fn at_f32<F: Family>(_: Entry<F>, p: F::At<f32>) -> F::At<f32> {
        p
    }

    #[test]
    fn params_point_at_each_field_in_order() {
        let p = Probe { n: 7u32, src: core::ptr::null::<f64>(), value: 2.5, dst: core::ptr::null_mut(), len: 9 };
        let mut args = [core::ptr::null_mut(); MAX_PARAMS];
        assert_eq!(p.args(&mut args), 5);
        assert_eq!(<Probe<f64> as Params>::COUNT, 5);
        let field = |r: *const c_void| r as *mut c_void;
        assert_eq!(args[0], field(&p.n as *const u32 as *const c_void));
        assert_eq!(args[1], field(&p.src as *const *const f64 as *const c_void));
        assert_eq!(args[2], field(&p.value as *const f64 as *const c_void));
        assert_eq!(args[3], field(&p.dst as *const *mut f64 as *const c_void));
        assert_eq!(args[4], field(&p.len as *const u64 as *const c_void));
        assert!(args[5..].iter().all(|a| a.is_null()));
        // SAFETY: args[2] points at `p.value`, an f64.
        assert_eq!(unsafe { *(args[2] as *const f64) }, 2.5);
    }

    #[test]
    fn entries_name_their_stems_and_type_their_parameters() {
        assert_eq!(PROBE.stem(), "probe");
        assert_eq!(ENTRY_STEMS, &["probe", "probe_too"]);
        assert_ne!(PROBE, PROBE_TOO);
        let p =
            at_f32(PROBE, Probe { n: 1, src: core::ptr::null(), value: 1.0f32, dst: core::ptr::null_mut(), len: 0 });
        assert_eq!(p.value, 1.0f32);
    }
}
