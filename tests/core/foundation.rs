//! Copy, fill and reductions: the GPU kernels against the CPU reference, and the CPU
//! reference against direct computations. The pattern every solver's tests follow.

use crate::common::{Tolerance, awkward_len, cases, gpu, poison};
use hydrokern::foundation::{ReduceOp, cpu, gpu as dev, gpu::Reducer};
use hydrokern::{GpuReal, Real, Rng};
use proptest::prelude::*;

/// Copy and fill move values: the same bits.
const MOVE: Tolerance = Tolerance::BITS;
/// Max |x|, max and min pick one of the values: exactly it.
const PICK: Tolerance = Tolerance::EXACT;
/// A sum in another order than the reference's: the classic bound for a summation of n terms
/// with partial sums in a tree, 2·log2(n)·ε·Σ|x| (here scaled at the call, as `sum_tolerance`).
const SUM: Tolerance = Tolerance::eps(2.0);

fn sum_tolerance<T: Real>(x: &[T]) -> Tolerance {
    let abs: f64 = x.iter().map(|v| v.abs().to_f64()).sum();
    SUM.times((x.len() as f64).log2().max(1.0)).scaled(abs)
}

fn values<T: Real>(seed: u64, n: usize) -> Vec<T> {
    Rng::new(seed).values(n, -100.0, 100.0)
}

fn check_copy<T: GpuReal>(n: usize, seed: u64) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let host = values::<T>(seed, n);
    let src = gpu.upload(&host).unwrap();
    let mut dst = gpu.upload(&vec![poison::<T>(); n]).unwrap();
    dev::copy(&gpu, &src, &mut dst).unwrap();
    let got = gpu.download(&dst).unwrap();
    let mut want = vec![T::ZERO; n];
    cpu::copy(&host, &mut want).unwrap();
    MOVE.check(&format!("copy n={n}"), &got, &want)?;
    Ok(())
}

fn check_fill<T: GpuReal>(n: usize, seed: u64) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let value = values::<T>(seed, 1)[0];
    let mut dst = gpu.upload(&vec![poison::<T>(); n]).unwrap();
    dev::fill(&gpu, &mut dst, value).unwrap();
    let got = gpu.download(&dst).unwrap();
    let mut want = vec![T::ZERO; n];
    cpu::fill(&mut want, value);
    MOVE.check(&format!("fill n={n}"), &got, &want)?;
    Ok(())
}

/// Max and min are exact; a sum is exact up to reordering ([`SUM`]).
fn check_reduce<T: GpuReal>(n: usize, seed: u64) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let host = values::<T>(seed, n);
    let x = gpu.upload(&host).unwrap();
    let mut r = Reducer::<T>::new(&gpu).unwrap();
    for op in ReduceOp::ALL {
        let got = r.reduce(&gpu, op, &x).unwrap();
        let want = cpu::reduce(op, &host);
        let tol = if op == ReduceOp::Sum { sum_tolerance(&host) } else { PICK };
        tol.check_value(&format!("{op:?} n={n}"), got, want)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(48), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn copy_matches_cpu(n in awkward_len(1 << 20), seed: u64) {
        check_copy::<f32>(n, seed)?;
        check_copy::<f64>(n, seed)?;
    }
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn fill_matches_cpu(n in awkward_len(1 << 20), seed: u64) {
        check_fill::<f32>(n, seed)?;
        check_fill::<f64>(n, seed)?;
    }
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn reductions_match_cpu(n in awkward_len(1 << 21), seed: u64) {
        check_reduce::<f32>(n, seed)?;
        check_reduce::<f64>(n, seed)?;
    }
    /// The CPU reference against plain sequential loops.
    #[test]
    fn cpu_reduce_matches_sequential(x in prop::collection::vec(-1e6f64..1e6, 0..5000)) {
        let max_abs = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let max = x.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v));
        let min = x.iter().fold(f64::INFINITY, |a, &v| a.min(v));
        let sum: f64 = x.iter().sum();
        prop_assert_eq!(cpu::reduce(ReduceOp::MaxAbs, &x), max_abs);
        prop_assert_eq!(cpu::reduce(ReduceOp::Max, &x), max);
        prop_assert_eq!(cpu::reduce(ReduceOp::Min, &x), min);
        let abs: f64 = x.iter().map(|v| v.abs()).sum();
        prop_assert!((cpu::reduce(ReduceOp::Sum, &x) - sum).abs() <= 1e-12 * abs.max(1.0));
    }
}

#[test]
fn cpu_copy_rejects_mismatched_lengths() {
    let mut dst = vec![0.0f32; 3];
    assert!(cpu::copy(&[1.0f32, 2.0], &mut dst).is_err());
}

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_copy_rejects_mismatched_lengths() {
    let gpu = gpu();
    let a = gpu.upload(&[1.0f64, 2.0]).unwrap();
    let mut b = gpu.upload(&[0.0f64; 3]).unwrap();
    assert!(dev::copy(&gpu, &a, &mut b).is_err());
}

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn oversized_allocation_is_an_error_not_a_panic() {
    let gpu = gpu();
    let total = gpu.info().total_mem;
    let err = gpu.alloc::<f64>(total / 8 * 2).unwrap_err();
    assert!(err.to_string().contains("GPU memory"), "{err}");
}
