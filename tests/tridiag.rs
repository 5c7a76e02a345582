//! Batched tridiagonal solvers: the CPU reference against a dense LU solve, CPU emulations of
//! the partition and twisted-Thomas kernels' algebra (the `gpu::tridiag` functions the kernels
//! call, with the kernels' index mapping) against it, every GPU algorithm × layout ×
//! precision against the CPU reference, the automatic choice, and bad input (lengths, empty
//! batches, breakdowns, sizes over an algorithm's limit).
//!
//! Tolerances (the constants below). Systems are diagonally dominant with
//! |b| ≥ 2(|a| + |c|) + 0.1, so the condition numbers are small (≲ 5) and every algorithm is
//! backward stable.

mod common;

use common::{Tolerance, cases, gpu, magnitude};
use hydrokern::tridiag::gpu::{GpuTridiag, limits};
use hydrokern::tridiag::{Algorithm, Batch, Choice, Layout, Limits, Shape, cpu};
use hydrokern::{GpuReal, Real};
use proptest::prelude::*;
use std::cell::RefCell;

use kernels::tridiag::{
    Eq, Row, chunk_interior, chunk_len, chunk_reduce, normalize, partition_pitch, partition_slot, partition_span,
    pcr_row, pivot_ok, reduced_len, reduced_row, thomas_row, twist,
};

/// CPU Thomas against dense LU with partial pivoting (in f64), relative to max(1, ‖x_LU‖∞):
/// Thomas without pivoting is backward stable on these systems, a few ε per row of
/// elimination and substitution, times the small condition number: 64 ε.
const THOMAS_VS_LU: Tolerance = Tolerance::eps(64.0);
/// ‖Ax − d‖/‖d‖ of CPU Thomas: backward stability alone, 32 ε.
const RESIDUAL: f64 = 32.0;
/// GPU against CPU Thomas (and the CPU emulations of the partition and twisted algorithms),
/// relative to max(1, ‖x_CPU‖∞), per level of log2(2n): CR and PCR round in another order than
/// Thomas, log2 n levels deep, and the GPU contracts multiply-adds: 256 ε a level.
const GPU_PER_LEVEL: Tolerance = Tolerance::eps(256.0);

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
    let r = bt.residual(&x);
    prop_assert!(r <= RESIDUAL * T::EPSILON.to_f64(), "{} {shape:?}: residual {r:e}", T::NAME);
    for k in 0..shape.batch {
        // The reference solves the systems as rounded to T.
        let s = |v: &[T]| system(shape, v, k);
        let want = dense_solve(shape.n, &s(&bt.a), &s(&bt.b), &s(&bt.c), &s(&bt.d));
        let got = s(&x);
        // Compared in f64, the bound in T's ε.
        let bound = THOMAS_VS_LU.scaled(magnitude(&want)).bound::<T>();
        Tolerance::abs(bound).check(&format!("{} {shape:?} system {k}: Thomas vs LU", T::NAME), &got, &want)?;
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
    let lim = Limits {
        max_shared_bytes: 232_448,
        value_bytes: 8,
        sm_count: 132,
        pcr_threads: 384,
        cr_threads: 1024,
        partition_threads: 1024,
    };
    assert_eq!(lim.max_n(Algorithm::Cr), 7264);
    assert_eq!(lim.max_n(Algorithm::Pcr), 3072);
    assert_eq!(lim.max_n(Algorithm::Thomas), u32::MAX as usize);
    assert_eq!(lim.max_n(Algorithm::Twisted), u32::MAX as usize);
    assert_eq!(lim.max_n(Algorithm::Partition), 9376);
    assert_eq!(Limits { value_bytes: 4, ..lim }.max_n(Algorithm::Partition), 18752);
    let auto = |n, batch, layout| lim.auto(Shape::new(n, batch, layout));
    for n in [1, 64, 2048, 4096, 9376] {
        assert_eq!(auto(n, 16384, Layout::Contiguous), Algorithm::Partition, "n = {n}");
    }
    assert_eq!(auto(9377, 16, Layout::Contiguous), Algorithm::Thomas);
    assert_eq!(auto(9377, 16, Layout::Interleaved), Algorithm::Thomas);
    // Interleaved: partition while whole sectors (4 f64 systems per block) fit or the batch is
    // small; one-thread Thomas for big batches of long systems.
    assert_eq!(auto(512, 16384, Layout::Interleaved), Algorithm::Partition);
    assert_eq!(auto(4096, 16384, Layout::Interleaved), Algorithm::Thomas);
    assert_eq!(auto(4096, 1024, Layout::Interleaved), Algorithm::Partition);
    assert_eq!(auto(1, 1, Layout::Interleaved), Algorithm::Partition);
    // Launch shapes: chunks of 16 rows at n = 4096, one system per block; 8 systems of 4
    // threads at n = 64 in a big batch; never fewer than 2 blocks per multiprocessor.
    let launch = |n, batch, layout| lim.partition_launch(Shape::new(n, batch, layout)).unwrap();
    assert_eq!(launch(4096, 16384, Layout::Contiguous), (4, 1));
    assert_eq!(launch(64, 16384, Layout::Contiguous), (3, 16));
    assert_eq!(launch(64, 256, Layout::Contiguous), (3, 1));
    assert_eq!(launch(9376, 1, Layout::Contiguous), (5, 1));
    assert_eq!(lim.partition_launch(Shape::new(9377, 1, Layout::Contiguous)), None);
    for n in [1usize, 2, 3, 31, 32, 100, 1000, 4096, 9376] {
        for batch in [1usize, 7, 300, 20000] {
            for layout in Layout::ALL {
                let (lg, g) = launch(n, batch, layout);
                let threads = n.div_ceil(1 << lg) * g as usize;
                let shared = g as usize * partition_span(n as u32, lg) as usize * 8;
                assert!(threads <= 1024 && shared <= lim.max_shared_bytes, "n {n} batch {batch}: {lg} {g}");
                assert!(g as usize <= batch);
            }
        }
    }
}

// ------------------------------------------- CPU emulation of the kernels ----

/// One system's equations as the kernels load them (`a_0 = c_{n−1} = 0`).
fn equations<T: Real>(b: &Batch<T>, k: usize) -> Vec<Eq<T>> {
    let (s, n) = (b.shape, b.shape.n);
    (0..n)
        .map(|i| {
            let g = s.at(k, i);
            Eq {
                a: if i == 0 { T::ZERO } else { b.a[g] },
                b: b.b[g],
                c: if i + 1 == n { T::ZERO } else { b.c[g] },
                d: b.d[g],
            }
        })
        .collect()
}

/// `tridiag_partition` on a whole batch, block by block (g systems each) and phase by phase,
/// in its shared-memory layout and with its staging map: stage normalised rows (element e of
/// a block → (system, row), rows fastest in the contiguous layout and systems fastest in the
/// interleaved one), reduce every chunk, PCR on each reduced system (all reads of a step
/// before its writes, as between the kernel's barriers), fill in the chunks, write x with the
/// staging map. Returns x (the batch's layout) and whether every pivot was usable.
fn partition_emulated<T: Real>(host: &Batch<T>, lg: u32, g: u32) -> (Vec<T>, bool) {
    let shape = host.shape;
    let (n, batch) = (shape.n as u32, shape.batch as u32);
    let chunks = n.div_ceil(1 << lg);
    let pitch = partition_pitch(lg);
    let arr = (chunks * pitch) as usize;
    let span = partition_span(n, lg) as usize;
    assert!(3 * arr <= span && span % 2 == 1);
    let nt = chunks * g; // threads of a block
    let mut x = vec![T::NAN; shape.len()];
    let mut ok = true;
    for k0 in (0..batch).step_by(g as usize) {
        let gs = g.min(batch - k0);
        let total = n * gs;
        let split = |e: u32| match shape.layout {
            _ if gs == 1 => (0, e),
            Layout::Interleaved => (e % gs, e / gs),
            Layout::Contiguous => (e / n, e % n),
        };
        let sm = RefCell::new(vec![T::NAN; g as usize * span]);
        let get = |o: usize| {
            let s = sm.borrow();
            Row { a: s[o], c: s[o + arr], d: s[o + 2 * arr] }
        };
        let put = |o: usize, r: Row<T>| {
            let mut s = sm.borrow_mut();
            (s[o], s[o + arr], s[o + 2 * arr]) = (r.a, r.c, r.d);
        };
        for lin in 0..nt {
            for e in (lin..total).step_by(nt as usize) {
                let (s, i) = split(e);
                let q = equations(host, (k0 + s) as usize)[i as usize];
                ok &= pivot_ok(q.b);
                put(s as usize * span + partition_slot(i, lg) as usize, normalize(q));
            }
        }
        for s in 0..gs as usize {
            let base = s * span;
            for j in 0..chunks {
                let o = base + (j * pitch) as usize;
                ok &= chunk_reduce(chunk_len(n, lg, j), |r| get(o + r as usize), |r, v| put(o + r as usize, v))
                    == u32::MAX;
            }
            let m = reduced_len(n, lg);
            assert!(m <= 2 * chunks && m >= 1);
            let rslot = |q: u32| base + partition_slot(reduced_row(n, lg, q), lg) as usize;
            let mut t = 1;
            while t < m {
                let new: Vec<Row<T>> = (0..m)
                    .map(|q| {
                        let l = if q >= t { get(rslot(q - t)) } else { Row::ZERO };
                        let r = if q + t < m { get(rslot(q + t)) } else { Row::ZERO };
                        let (v, p) = pcr_row(l, get(rslot(q)), r);
                        ok &= pivot_ok(p);
                        v
                    })
                    .collect();
                for (q, v) in new.into_iter().enumerate() {
                    put(rslot(q as u32), v);
                }
                t <<= 1;
            }
            for j in 0..chunks {
                let (o, len) = (base + (j * pitch) as usize, chunk_len(n, lg, j) as usize);
                let xd = |r: usize| sm.borrow()[2 * arr + o + r];
                let (xf, xl) = (xd(0), xd(len - 1));
                for r in 1..len.saturating_sub(1) {
                    let v = chunk_interior(get(o + r), xf, xl);
                    sm.borrow_mut()[2 * arr + o + r] = v;
                }
            }
        }
        for e in 0..total {
            let (s, i) = split(e);
            x[shape.at((k0 + s) as usize, i as usize)] =
                sm.borrow()[s as usize * span + 2 * arr + partition_slot(i, lg) as usize];
        }
    }
    (x, ok)
}

/// `tridiag_thomas_twisted` for one system: each side runs Thomas in its local order (the
/// lower side with a and c swapped), the twist joins them, each side back-substitutes.
fn twisted_emulated<T: Real>(e: &[Eq<T>]) -> (Vec<T>, bool) {
    let n = e.len();
    let half = n / 2;
    let mut x = vec![T::NAN; n];
    let mut ok = true;
    // (rows in local order, c' per local row, d' per local row) per side.
    let sides: Vec<(Vec<usize>, Vec<T>, Vec<T>)> = [(0..half).collect::<Vec<_>>(), (half..n).rev().collect()]
        .into_iter()
        .enumerate()
        .map(|(side, rows)| {
            let (mut cs, mut ds) = (vec![], vec![]);
            let (mut cp, mut dp) = (T::ZERO, T::ZERO);
            for &i in &rows {
                let q = if side == 0 { e[i] } else { Eq { a: e[i].c, b: e[i].b, c: e[i].a, d: e[i].d } };
                let (c1, d1, p) = thomas_row(q, cp, dp);
                ok &= pivot_ok(p);
                (cp, dp) = (c1, d1);
                cs.push(c1);
                ds.push(d1);
            }
            (rows, cs, ds)
        })
        .collect();
    for me in 0..2 {
        let (rows, cs, ds) = &sides[me];
        let Some(&last) = rows.last() else { continue };
        let other = &sides[1 - me];
        let (co, dq) = (other.1.last().copied().unwrap_or(T::ZERO), other.2.last().copied().unwrap_or(T::ZERO));
        let (mut xn, p) = twist(cs[rows.len() - 1], ds[rows.len() - 1], co, dq);
        ok &= pivot_ok(p);
        x[last] = xn;
        for r in (0..rows.len() - 1).rev() {
            xn = ds[r] - cs[r] * xn;
            x[rows[r]] = xn;
        }
    }
    (x, ok)
}

/// An emulated batch solve against CPU Thomas, with the GPU tolerance.
fn check_emulated<T: GpuReal>(shape: Shape, seed: u64, solve: impl Fn(&Batch<T>) -> (Vec<T>, bool), what: &str) {
    let host = Batch::random(shape, seed, 2.0).to::<T>();
    let mut want = vec![T::ZERO; shape.len()];
    cpu::solve(shape, &host.a, &host.b, &host.c, &host.d, &mut want).unwrap();
    let (got, ok) = solve(&host);
    assert!(ok, "{what} {} {shape:?}: a pivot failed", T::NAME);
    let tol = GPU_PER_LEVEL.times((2.0 * shape.n as f64).log2().max(1.0)).scaled(magnitude(&want));
    tol.check(&format!("{what} {shape:?}: x against Thomas"), &got, &want).unwrap();
}

/// Twisted Thomas system by system.
fn twisted_batch<T: Real>(host: &Batch<T>) -> (Vec<T>, bool) {
    let shape = host.shape;
    let mut x = vec![T::NAN; shape.len()];
    let mut ok = true;
    for k in 0..shape.batch {
        let (xk, okk) = twisted_emulated(&equations(host, k));
        ok &= okk;
        for (i, v) in xk.into_iter().enumerate() {
            x[shape.at(k, i)] = v;
        }
    }
    (x, ok)
}

#[test]
fn partition_algebra_matches_thomas_on_the_cpu() {
    let mut sizes: Vec<usize> = (1..=70).collect();
    sizes.extend([95, 96, 97, 127, 128, 129, 255, 256, 257, 509, 1021, 1024, 4093, 4096]);
    for lg in 1..=5 {
        for &n in &sizes {
            let shape = Shape::new(n, 1, Layout::Contiguous);
            let what = format!("partition lg {lg}");
            check_emulated::<f64>(shape, n as u64 * 7 + lg as u64, |b| partition_emulated(b, lg, 1), &what);
            check_emulated::<f32>(shape, n as u64 * 7 + lg as u64, |b| partition_emulated(b, lg, 1), &what);
        }
    }
    // Several systems per block, a last block with fewer, both staging maps.
    for layout in Layout::ALL {
        for (n, batch, lg, g) in
            [(1, 5, 2, 4), (2, 7, 2, 3), (13, 9, 2, 8), (40, 11, 3, 4), (100, 6, 4, 5), (257, 5, 4, 2)]
        {
            let shape = Shape::new(n, batch, layout);
            let what = format!("partition lg {lg} g {g}");
            check_emulated::<f64>(shape, 3, |b| partition_emulated(b, lg, g), &what);
            check_emulated::<f32>(shape, 3, |b| partition_emulated(b, lg, g), &what);
        }
    }
}

#[test]
fn twisted_algebra_matches_thomas_on_the_cpu() {
    for n in (1..=70).chain([127, 128, 1000, 4097]) {
        for layout in Layout::ALL {
            let shape = Shape::new(n, 3, layout);
            check_emulated::<f64>(shape, n as u64, twisted_batch, "twisted");
            check_emulated::<f32>(shape, n as u64, twisted_batch, "twisted");
        }
    }
}

#[test]
fn partition_and_twisted_emulations_see_a_breakdown() {
    let shape = Shape::new(40, 1, Layout::Contiguous);
    for row in [0, 1, 15, 16, 21, 39] {
        let b = broken(shape, 0, row, true);
        assert!(!twisted_emulated(&equations(&b, 0)).1, "twisted, zero row {row}");
        for lg in 1..=5 {
            let (x, ok) = partition_emulated(&b, lg, 1);
            assert!(!ok || x.iter().any(|v| !v.is_finite()), "partition lg {lg}, zero row {row}");
        }
    }
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
    let gpu = gpu();
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
    let tol = GPU_PER_LEVEL.times((2.0 * n as f64).log2()).scaled(magnitude(&want));
    tol.check(&format!("{alg} {shape:?} in_place {in_place}: x"), &got, &want)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
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
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn every_algorithm_layout_and_precision_matches_cpu() {
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
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_bad_input_is_refused() {
    let gpu = gpu();
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
    for alg in [Algorithm::Cr, Algorithm::Pcr, Algorithm::CrPcr, Algorithm::PcrThomas, Algorithm::Partition] {
        let big = Shape::new(lim.max_n(alg) + 1, 1, Layout::Contiguous);
        let s = GpuTridiag::<f64>::new(&gpu, big).unwrap();
        let e = s.plan(Choice::Force(alg)).unwrap_err().to_string();
        assert!(e.contains("exceeds its limit"), "{alg}: {e}");
    }
}

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_breakdown_names_the_system() {
    let gpu = gpu();
    for layout in Layout::ALL {
        for alg in Algorithm::ALL {
            let shape = Shape::new(40, 9, layout);
            let host = broken(shape, 6, 21, true);
            let (a, b, c) = (gpu.upload(&host.a).unwrap(), gpu.upload(&host.b).unwrap(), gpu.upload(&host.c).unwrap());
            let mut d = gpu.upload(&host.d).unwrap();
            let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
            let e = s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap_err().to_string();
            assert!(e.contains("system 6, row"), "{alg} {layout:?}: {e}");
            if matches!(alg, Algorithm::Thomas | Algorithm::Partition) {
                // Thomas meets the zero pivot at row 21; partition refuses b = 0 as it stages
                // the row (the smallest failing row wins).
                assert!(e.contains("system 6, row 21"), "{alg}: {e}");
            }
            if alg == Algorithm::Twisted {
                // The upper thread meets the zero pivot at row 21, but the lower half's back
                // substitution then turns non-finite below it and the smallest row wins: the
                // report names a row at most two before the zero one (row 19 on the H100).
                assert!((19..=21).any(|r| e.contains(&format!("system 6, row {r}"))), "{alg}: {e}");
            }
            // The solver stays usable: a good batch solves afterwards.
            let good = Batch::random(shape, 3, 2.0);
            let mut d = gpu.upload(&good.d).unwrap();
            let (a, b, c) = (gpu.upload(&good.a).unwrap(), gpu.upload(&good.b).unwrap(), gpu.upload(&good.c).unwrap());
            s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap();
        }
    }
}
