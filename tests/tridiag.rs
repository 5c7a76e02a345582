//! Batched tridiagonal solvers: the CPU reference against a dense LU solve, every GPU
//! algorithm × layout × precision against the CPU reference, the automatic choice, and bad
//! input (lengths, empty batches, breakdowns, sizes over an algorithm's limit).
//!
//! Tolerances. Systems are diagonally dominant with |b| ≥ 2(|a| + |c|) + 0.1, so the
//! condition numbers are small (≲ 5) and every algorithm is backward stable:
//! - CPU Thomas vs dense LU with partial pivoting (in f64): ‖x − x_LU‖∞ ≤ 64·ε·max(1, ‖x_LU‖∞)
//!   and ‖Ax − d‖/‖d‖ ≤ 32·ε, ε the precision's machine epsilon;
//! - GPU vs CPU: |x_GPU − x_CPU| ≤ tol·max(1, ‖x_CPU‖∞) with tol = 256·ε·log2(2n) (CR and PCR
//!   round in a different order than Thomas, log2 n levels deep; FMA contraction on the GPU).

mod common;

use common::{cases, gpu_or_skip};
use hydrokern::tridiag::gpu::{GpuTridiag, limits};
use hydrokern::tridiag::{Algorithm, Batch, Choice, Layout, Limits, Shape, cpu};
use hydrokern::{GpuReal, Real};
use proptest::prelude::*;

/// Dense LU with partial pivoting of one system, in f64.
fn dense_solve(n: usize, a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Vec<f64> {
    let mut m = vec![vec![0.0; n + 1]; n];
    for i in 0..n {
        if i > 0 {
            m[i][i - 1] = a[i];
        }
        m[i][i] = b[i];
        if i + 1 < n {
            m[i][i + 1] = c[i];
        }
        m[i][n] = d[i];
    }
    for col in 0..n {
        let p = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs())).unwrap();
        m.swap(col, p);
        for r in col + 1..n {
            let f = m[r][col] / m[col][col];
            let pivot_row = m[col].clone();
            for (v, p) in m[r][col..].iter_mut().zip(&pivot_row[col..]) {
                *v -= f * p;
            }
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| m[i][k] * x[k]).sum();
        x[i] = (m[i][n] - s) / m[i][i];
    }
    x
}

/// One system of a batch, in unknown order, as f64.
fn system<T: Real>(shape: Shape, v: &[T], k: usize) -> Vec<f64> {
    (0..shape.n).map(|i| v[shape.at(k, i)].to_f64()).collect()
}

fn check_cpu_vs_lu<T: GpuReal>(shape: Shape, seed: u64) -> Result<(), TestCaseError> {
    let b64 = Batch::random(shape, seed, 2.0);
    let bt = b64.to::<T>();
    let mut x = vec![T::ZERO; shape.len()];
    cpu::solve(shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap();
    let eps = T::EPSILON.to_f64();
    let r = bt.residual(&x);
    prop_assert!(r <= 32.0 * eps, "{} {shape:?}: residual {r:e}", T::NAME);
    for k in 0..shape.batch {
        // The reference solves the systems as rounded to T.
        let s = |v: &[T]| system(shape, v, k);
        let want = dense_solve(shape.n, &s(&bt.a), &s(&bt.b), &s(&bt.c), &s(&bt.d));
        let got = s(&x);
        let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for i in 0..shape.n {
            prop_assert!(
                (got[i] - want[i]).abs() <= 64.0 * eps * scale,
                "{} {shape:?} system {k} row {i}: Thomas {} vs LU {}",
                T::NAME,
                got[i],
                want[i]
            );
        }
    }
    Ok(())
}

fn layout() -> impl Strategy<Value = Layout> {
    prop::sample::select(Layout::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]
    #[test]
    fn cpu_thomas_matches_dense_lu(n in 1usize..48, batch in 1usize..6, layout in layout(), seed: u64) {
        let shape = Shape::new(n, batch, layout);
        check_cpu_vs_lu::<f64>(shape, seed)?;
        check_cpu_vs_lu::<f32>(shape, seed)?;
    }
}

#[test]
fn cpu_in_place_equals_separate_output_and_layouts_agree() {
    let shape = Shape::new(37, 11, Layout::Contiguous);
    let b = Batch::random(shape, 5, 2.0);
    let mut x = vec![0.0; shape.len()];
    cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap();
    let mut d = b.d.clone();
    cpu::solve_in_place(shape, &b.a, &b.b, &b.c, &mut d).unwrap();
    assert_eq!(x, d);
    let bi = b.relayout(Layout::Interleaved);
    let mut xi = vec![0.0; shape.len()];
    cpu::solve(bi.shape, &bi.a, &bi.b, &bi.c, &bi.d, &mut xi).unwrap();
    for k in 0..shape.batch {
        for i in 0..shape.n {
            assert_eq!(x[shape.at(k, i)], xi[bi.shape.at(k, i)]);
        }
    }
}

// -------------------------------------------------------------- bad input ----

#[test]
fn cpu_bad_input_is_refused() {
    let shape = Shape::new(8, 3, Layout::Interleaved);
    let b = Batch::random(shape, 1, 2.0);
    let mut x = vec![0.0; shape.len()];
    let e = cpu::solve(shape, &b.a[1..], &b.b, &b.c, &b.d, &mut x).unwrap_err().to_string();
    assert!(e.contains("a has 23 values, expected n·batch = 24"), "{e}");
    let e = cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x[..20]).unwrap_err().to_string();
    assert!(e.contains("x has 20"), "{e}");
    for (n, batch) in [(0, 3), (8, 0)] {
        let s = Shape::new(n, batch, Layout::Contiguous);
        let e = cpu::solve::<f64>(s, &[], &[], &[], &[], &mut []).unwrap_err().to_string();
        assert!(e.contains("at least 1"), "{e}");
    }
}

/// Row `row` of system `k` made all zero (singular), or b_0 = 0 of a non-singular system.
fn broken(shape: Shape, k: usize, row: usize, zero_row: bool) -> Batch<f64> {
    let mut b = Batch::random(shape, 9, 2.0);
    let g = shape.at(k, row);
    b.b[g] = 0.0;
    if zero_row {
        b.a[g] = 0.0;
        b.c[g] = 0.0;
    }
    b
}

#[test]
fn cpu_breakdown_names_system_and_row() {
    for layout in Layout::ALL {
        let shape = Shape::new(10, 6, layout);
        let b = broken(shape, 4, 7, true);
        let mut x = vec![0.0; shape.len()];
        let e = cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap_err().to_string();
        assert!(e.contains("system 4, row 7"), "{e}");
        // b_0 = 0: the matrix [[0, c], [a, b]…] is regular, but elimination without
        // pivoting breaks down at row 0.
        let b = broken(shape, 2, 0, false);
        let e = cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap_err().to_string();
        assert!(e.contains("system 2, row 0"), "{e}");
        let b32 = broken(shape, 5, 9, true).to::<f32>();
        let mut x32 = vec![0.0f32; shape.len()];
        let e = cpu::solve(shape, &b32.a, &b32.b, &b32.c, &b32.d, &mut x32).unwrap_err().to_string();
        assert!(e.contains("system 5, row 9"), "{e}");
    }
}

#[test]
fn parse_names() {
    assert_eq!("cr-pcr".parse::<Choice>().unwrap(), Choice::Force(Algorithm::CrPcr));
    assert_eq!("auto".parse::<Choice>().unwrap(), Choice::Auto);
    assert!("lu".parse::<Choice>().unwrap_err().to_string().contains("pcr-thomas"));
    assert_eq!("interleaved".parse::<Layout>().unwrap(), Layout::Interleaved);
    assert!("rows".parse::<Layout>().is_err());
}

/// The automatic choice on H100-like limits (f64, 227 KiB of shared memory, 132 SMs).
#[test]
fn automatic_choice_follows_the_stated_rule() {
    let lim = Limits { max_shared_bytes: 232_448, value_bytes: 8, sm_count: 132, pcr_threads: 384, cr_threads: 1024 };
    assert_eq!(lim.max_n(Algorithm::Cr), 7264);
    assert_eq!(lim.max_n(Algorithm::Pcr), 3072);
    assert_eq!(lim.max_n(Algorithm::Thomas), u32::MAX as usize);
    let auto = |n, batch, layout| lim.auto(Shape::new(n, batch, layout));
    assert_eq!(auto(512, 16384, Layout::Contiguous), Algorithm::Cr);
    assert_eq!(auto(512, 16384, Layout::Interleaved), Algorithm::Thomas);
    assert_eq!(auto(512, 1024, Layout::Interleaved), Algorithm::Cr);
    assert_eq!(auto(7264, 16, Layout::Contiguous), Algorithm::Cr);
    assert_eq!(auto(7265, 16, Layout::Contiguous), Algorithm::Thomas);
    assert_eq!(auto(1, 1, Layout::Contiguous), Algorithm::Cr);
}

// ------------------------------------------------------------- GPU vs CPU ----

/// Sizes worth testing up to `max`: 1, 2, 3, primes, powers of two and their neighbours.
fn awkward_n() -> impl Strategy<Value = usize> {
    prop_oneof![
        prop::sample::select(vec![1usize, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 61, 127, 251, 509, 1021, 2039, 4093, 8191]),
        (0u32..14).prop_flat_map(|p| prop::sample::select(vec![(1usize << p) - 1, 1 << p, (1 << p) + 1])),
        1usize..600,
        Just(usize::MAX), // clipped to the algorithm's limit
    ]
}

fn awkward_batch() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![1usize, 2, 3, 31, 32, 33, 63, 64, 65, 129, 1000]), 1usize..300]
}

/// Largest n tested (the shared-memory algorithms are clipped to their own limits).
const MAX_TEST_N: usize = 8192;

fn check_gpu<T: GpuReal>(shape0: Shape, alg: Algorithm, in_place: bool, seed: u64) -> Result<(), TestCaseError> {
    let Some(gpu) = gpu_or_skip("tridiag_gpu_matches_cpu") else { return Ok(()) };
    let lim = limits::<T>(&gpu).unwrap();
    let n = shape0.n.min(lim.max_n(alg)).min(MAX_TEST_N);
    // Keep a case under ~4 M unknowns.
    let batch = shape0.batch.min((4 << 20) / n).max(1);
    let shape = Shape::new(n, batch, shape0.layout);
    let host = Batch::random(shape, seed, 2.0).to::<T>();
    let mut want = vec![T::ZERO; shape.len()];
    cpu::solve(shape, &host.a, &host.b, &host.c, &host.d, &mut want).unwrap();
    let (a, b, c) = (gpu.upload(&host.a).unwrap(), gpu.upload(&host.b).unwrap(), gpu.upload(&host.c).unwrap());
    let mut d = gpu.upload(&host.d).unwrap();
    let mut s = GpuTridiag::<T>::new(&gpu, shape).unwrap();
    let got = if in_place {
        s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap();
        gpu.download(&d).unwrap()
    } else {
        let mut x = gpu.alloc::<T>(shape.len()).unwrap();
        hydrokern::foundation::gpu::fill(&gpu, &mut x, common::poison::<T>()).unwrap();
        s.solve(&gpu, Choice::Force(alg), &a, &b, &c, &d, &mut x).unwrap();
        prop_assert_eq!(gpu.download(&d).unwrap(), host.d.clone(), "d changed by a separate-output solve");
        gpu.download(&x).unwrap()
    };
    let eps = T::EPSILON.to_f64();
    let tol = 256.0 * eps * (2.0 * n as f64).log2();
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.to_f64().abs()));
    for (idx, (g, w)) in got.iter().zip(&want).enumerate() {
        let (g, w) = (g.to_f64(), w.to_f64());
        prop_assert!(
            (g - w).abs() <= tol * scale,
            "{alg} {} {shape:?} in_place {in_place}: x[{idx}] GPU {g} vs CPU {w} (tol {:e})",
            T::NAME,
            tol * scale
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]
    #[test]
    fn tridiag_gpu_matches_cpu(
        n in awkward_n(),
        batch in awkward_batch(),
        layout in layout(),
        alg in prop::sample::select(Algorithm::ALL.to_vec()),
        in_place: bool,
        seed: u64,
    ) {
        let shape = Shape::new(n, batch, layout);
        check_gpu::<f32>(shape, alg, in_place, seed)?;
        check_gpu::<f64>(shape, alg, in_place, seed)?;
    }
}

/// Every algorithm × layout × precision at fixed awkward sizes, including each limit.
#[test]
fn every_algorithm_layout_and_precision_matches_cpu() {
    if gpu_or_skip("every_algorithm_layout_and_precision_matches_cpu").is_none() {
        return;
    }
    for alg in Algorithm::ALL {
        for layout in Layout::ALL {
            for (n, batch) in [(1, 1), (2, 3), (3, 70), (33, 65), (1000, 7), (4097, 3), (usize::MAX, 2)] {
                let shape = Shape::new(n, batch, layout);
                check_gpu::<f64>(shape, alg, n % 2 == 0, 17).unwrap();
                check_gpu::<f32>(shape, alg, n % 2 == 1, 17).unwrap();
            }
        }
    }
}

#[test]
fn gpu_bad_input_is_refused() {
    let Some(gpu) = gpu_or_skip("gpu_bad_input_is_refused") else { return };
    assert!(GpuTridiag::<f64>::new(&gpu, Shape::new(0, 4, Layout::Contiguous)).is_err());
    assert!(GpuTridiag::<f64>::new(&gpu, Shape::new(4, 0, Layout::Contiguous)).is_err());
    let shape = Shape::new(16, 4, Layout::Contiguous);
    let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
    let ok = gpu.zeros::<f64>(64).unwrap();
    let short = gpu.zeros::<f64>(63).unwrap();
    let mut x = gpu.zeros::<f64>(64).unwrap();
    let e = s.solve(&gpu, Choice::Auto, &ok, &short, &ok, &ok, &mut x).unwrap_err().to_string();
    assert!(e.contains("b has 63 values"), "{e}");
    // Over a shared-memory algorithm's limit, when forced.
    let lim = limits::<f64>(&gpu).unwrap();
    for alg in [Algorithm::Cr, Algorithm::Pcr, Algorithm::CrPcr, Algorithm::PcrThomas] {
        let big = Shape::new(lim.max_n(alg) + 1, 1, Layout::Contiguous);
        let s = GpuTridiag::<f64>::new(&gpu, big).unwrap();
        let e = s.plan(Choice::Force(alg)).unwrap_err().to_string();
        assert!(e.contains("exceeds its limit"), "{alg}: {e}");
    }
}

#[test]
fn gpu_breakdown_names_the_system() {
    let Some(gpu) = gpu_or_skip("gpu_breakdown_names_the_system") else { return };
    for layout in Layout::ALL {
        for alg in Algorithm::ALL {
            let shape = Shape::new(40, 9, layout);
            let host = broken(shape, 6, 21, true);
            let (a, b, c) = (gpu.upload(&host.a).unwrap(), gpu.upload(&host.b).unwrap(), gpu.upload(&host.c).unwrap());
            let mut d = gpu.upload(&host.d).unwrap();
            let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
            let e = s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap_err().to_string();
            assert!(e.contains("system 6, row"), "{alg} {layout:?}: {e}");
            if alg == Algorithm::Thomas {
                assert!(e.contains("system 6, row 21"), "{e}");
            }
            // The solver stays usable: a good batch solves afterwards.
            let good = Batch::random(shape, 3, 2.0);
            let mut d = gpu.upload(&good.d).unwrap();
            let (a, b, c) = (gpu.upload(&good.a).unwrap(), gpu.upload(&good.b).unwrap(), gpu.upload(&good.c).unwrap());
            s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap();
        }
    }
}
