//! The GPU's LU with partial pivoting against the CPU reference's, its SPIKE (one block per
//! system, and the multi-block levels past 1024 rows) against its CPU emulation, the dominance
//! check against the CPU's, the automatic choice (LU for a batch with a non-dominant row, the
//! fast plan for a dominant one), and bad values named at their row on the GPU.

use super::LU_BACKWARD;
use super::pivoting::{SpikeRun, spike_as_planned};
use super::strided::{padding_changed, pick};
use super::upload_bands;
use crate::common::{self, cases, gpu, magnitude};
use hydrokern::GpuReal;
use hydrokern::tridiag::gpu::{GpuTridiag, PlanKernel};
use hydrokern::tridiag::{Algorithm, Batch, Choice, Layout, Limits, RESTAGE_LU_MIN, Shape, backward_error, cpu};
use kernels::tridiag::spike_start;
use proptest::prelude::*;

/// GPU LU (SPIKE) against CPU LU (SPIKE's emulation), relative to ‖x_k‖∞, in units of
/// κ∞(A_k)·ε (times the reference's backward error in units of 16 ε where that is larger): both are backward
/// stable (a few ε), and the GPU contracts multiply-adds, which can also flip a pivot choice
/// between two candidates of equal size, so the two may differ by κ times their backward
/// errors: 64.
const GPU_LU: f64 = 64.0;

/// ‖A‖∞‖A⁻¹‖∞ of rows `rows` of system k (the diagonal block they span) in f64, A⁻¹ column
/// by column with the CPU's LU (one solve per row).
fn condition<T: GpuReal>(host: &Batch<T>, k: usize, rows: std::ops::Range<usize>) -> f64 {
    let (f, n) = (rows.start, rows.len());
    let one = Shape::new(n, 1, Layout::Contiguous);
    let s = |v: &[T]| (0..n).map(|i| v[host.shape.at(k, f + i)].to_f64()).collect::<Vec<f64>>();
    let (a, b, c) = (s(&host.a), s(&host.b), s(&host.c));
    let norm_a = (0..n)
        .map(|i| (if i > 0 { a[i].abs() } else { 0.0 }) + b[i].abs() + if i + 1 < n { c[i].abs() } else { 0.0 })
        .fold(0.0f64, f64::max);
    let mut row_sums = vec![0.0f64; n];
    let mut x = vec![0.0; n];
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        if cpu::solve_with(Algorithm::Lu, one, &a, &b, &c, &e, &mut x).is_err() {
            return f64::INFINITY;
        }
        for (r, v) in row_sums.iter_mut().zip(&x) {
            *r += v.abs();
        }
    }
    norm_a * row_sums.into_iter().fold(0.0, f64::max)
}

/// The largest condition number of the chunk interiors of system k of `host` cut into
/// `chunks` (the blocks each chunk solves with LU for its spikes: every row of the chunk but
/// its first and last), at least 1.
fn interior_condition<T: GpuReal>(host: &Batch<T>, chunks: u32, k: usize) -> f64 {
    let n = host.shape.n as u32;
    (0..chunks)
        .map(|j| (spike_start(n, chunks, j) as usize, spike_start(n, chunks, j + 1) as usize))
        .filter(|(f, e)| e - f > 2)
        .map(|(f, e)| condition(host, k, f + 1..e - 1))
        .fold(1.0, f64::max)
}

/// SPIKE's amplification of a stable solve's backward error in system k, as the GPU chunks
/// it: the product over its levels (the system, then each reduced system `run` holds) of the
/// level's worst chunk interior condition. Each level's spikes carry its interiors' rounding
/// errors times their condition into the reduced system, and the reduced system's own
/// backward error back up, so SPIKE is not better than this.
fn spike_interior_condition<T: GpuReal>(host: &Batch<T>, run: &SpikeRun<T>, k: usize) -> f64 {
    let levels = Limits::spike_levels(host.shape.n);
    let bottom = |b: &Batch<T>| Limits::spike_chunks(b.shape.n);
    let systems = std::iter::once(host).chain(&run.1);
    systems
        .enumerate()
        .map(|(l, b)| interior_condition(b, levels.get(l).copied().unwrap_or_else(|| bottom(b)), k))
        .product()
}

/// A pivoting algorithm (lu, spike) against its CPU reference on a batch that is not dominant.
fn check_lu<T: GpuReal>(alg: Algorithm, shape: Shape, in_place: bool, seed: u64) -> Result<(), TestCaseError> {
    check_lu_with::<T>(Choice::Force(alg), shape, in_place, seed)
}

/// [`check_lu`] through `choice`: a forced LU or SPIKE, or the automatic choice, which must
/// take LU for the batch (not diagonally dominant, too many systems or too short for SPIKE).
fn check_lu_with<T: GpuReal>(choice: Choice, shape: Shape, in_place: bool, seed: u64) -> Result<(), TestCaseError> {
    let alg = match choice {
        Choice::Force(alg) => alg,
        Choice::Auto => Algorithm::Lu,
    };
    let gpu = gpu();
    let mut host = Batch::random(shape, seed, 0.0);
    if choice == Choice::Auto {
        // One row surely not dominant (n ≥ 2), whatever the draw.
        let (n, i) = (shape.n, shape.n / 2);
        let g = shape.at(shape.batch / 2, i);
        let a = if i > 0 { host.a[g].abs() } else { 0.0 };
        let c = if i + 1 < n { host.c[g].abs() } else { 0.0 };
        host.b[g] = 0.25 * (a + c);
    }
    let host = host.to::<T>();
    // The CPU reference of each: LU itself; SPIKE's algebra with the kernels' chunking.
    let run = if alg == Algorithm::Spike {
        spike_as_planned(&host).unwrap()
    } else {
        let mut want = vec![T::ZERO; shape.span()];
        cpu::solve_with(Algorithm::Lu, shape, &host.a, &host.b, &host.c, &host.d, &mut want).unwrap();
        (want, Vec::new())
    };
    let want = &run.0;
    let eps = T::EPSILON.to_f64();
    // SPIKE is as stable as its chunks' interiors are well conditioned: a stable solve's
    // backward error times the interiors' condition (the GPU's rounding differs from the
    // emulation's, so the emulation's own backward error is no bound for it), and at least the
    // reference's own. The two may then differ by κ times that. On long systems some of the
    // many interiors are ill conditioned (κ up to 10⁸ among 2¹⁶ chunks) and the bound says
    // nothing, while the measured error stays a few ε (docs/tridiag-pivoting.md): there the
    // factor is capped at 64, still far below what a wrong solve gives.
    let be_ref = backward_error(shape, &host.a, &host.b, &host.c, &host.d, want).unwrap().value;
    let interior = if alg == Algorithm::Spike {
        (0..shape.batch).map(|k| spike_interior_condition(&host, &run, k)).fold(1.0, f64::max)
    } else {
        1.0
    };
    let stable = (be_ref / eps).max(LU_BACKWARD) * interior.min(64.0);
    let [a, b, c] = upload_bands(&gpu, &host);
    let mut d = gpu.upload(&host.d).unwrap();
    let mut s = GpuTridiag::<T>::new(&gpu, shape).unwrap();
    if choice == Choice::Auto {
        prop_assert_eq!(s.choose(&gpu, choice, &a, &b, &c).unwrap(), Algorithm::Lu, "{:?}", shape);
        let restaged = matches!(s.plan_of(choice, alg).unwrap().kernel, PlanKernel::Restaged(_));
        let copy = !shape.layout.systems_adjacent() && shape.len() >= RESTAGE_LU_MIN;
        prop_assert_eq!(restaged, copy, "{:?}", shape);
    }
    let got = if in_place {
        s.solve_in_place(&gpu, choice, &a, &b, &c, &mut d).unwrap();
        gpu.download(&d).unwrap()
    } else {
        let mut x = gpu.alloc::<T>(shape.span()).unwrap();
        hydrokern::foundation::gpu::fill(&gpu, &mut x, common::poison::<T>()).unwrap();
        s.solve(&gpu, choice, &a, &b, &c, &d, &mut x).unwrap();
        let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<u64>>();
        prop_assert_eq!(bits(&gpu.download(&d).unwrap()), bits(&host.d), "d changed by a separate-output solve");
        gpu.download(&x).unwrap()
    };
    // The padding of a padded layout: d's (NaN) in place, else the poison, bit for bit.
    let before = if in_place { host.d.clone() } else { vec![common::poison::<T>(); shape.span()] };
    let changed = padding_changed(shape, &got, &before);
    prop_assert!(changed.is_empty(), "{alg} {shape:?} in_place {in_place}: padding written at {changed:?}");
    let be = backward_error(shape, &host.a, &host.b, &host.c, &host.d, &got).unwrap();
    prop_assert!(
        be.value <= 2.0 * stable * eps,
        "{alg} {} {shape:?}: GPU backward error {:e} (system {})",
        T::NAME,
        be.value,
        be.system
    );
    // κ of a whole system costs n solves of n: past `FORWARD_MAX_N` the backward error alone.
    for k in (0..shape.batch).filter(|_| shape.n <= FORWARD_MAX_N) {
        let sys = |v: &[T]| (0..shape.n).map(|i| v[shape.at(k, i)]).collect::<Vec<T>>();
        let (g, w) = (sys(&got), sys(want));
        let bound = GPU_LU * condition(&host, k, 0..shape.n) * (stable / LU_BACKWARD) * eps * magnitude(&w);
        common::Tolerance::abs(bound).check(
            &format!("{alg} {} {shape:?} in_place {in_place} system {k}", T::NAME),
            &g,
            &w,
        )?;
    }
    Ok(())
}

/// Longest system whose GPU solution is also compared with the reference's (κ∞ by n solves).
const FORWARD_MAX_N: usize = 5000;

/// Sizes past `SPIKE_ONE_BLOCK_MAX`, where SPIKE runs multi-block levels (one past 1024, two
/// past 8192): the threshold ± 1, primes, block multiples ± 1.
fn long_n() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![1025usize, 1031, 2047, 2048, 2049, 4097, 8191, 8193, 16411]), 1025usize..5000]
}

fn awkward_n() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![1usize, 2, 3, 5, 7, 31, 33, 127, 255, 257]), 1usize..300]
}

fn awkward_batch() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![1usize, 2, 3, 31, 33, 63, 65, 129]), 1usize..200]
}

proptest! {
    #![proptest_config(crate::common::config(cases(48), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn tridiag_gpu_lu_matches_cpu(
        n in awkward_n(),
        batch in awkward_batch(),
        pick in pick(),
        alg in prop::sample::select(vec![Algorithm::Lu, Algorithm::Spike]),
        in_place: bool,
        seed: u64,
    ) {
        let shape = Shape::new(n, batch, pick.layout(n, batch));
        check_lu::<f32>(alg, shape, in_place, seed)?;
        check_lu::<f64>(alg, shape, in_place, seed)?;
    }

    /// The multi-block SPIKE (one or two levels, then the one-block kernel) against its CPU
    /// emulation, with awkward lengths and few systems.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn tridiag_gpu_spike_levels_match_cpu(
        n in long_n(),
        batch in prop_oneof![prop::sample::select(vec![1usize, 2, 3]), 1usize..9],
        pick in pick(),
        in_place: bool,
        seed: u64,
    ) {
        let shape = Shape::new(n, batch, pick.layout(n, batch));
        check_lu::<f32>(Algorithm::Spike, shape, in_place, seed)?;
        check_lu::<f64>(Algorithm::Spike, shape, in_place, seed)?;
    }

    /// The device's dominance check finds the CPU's first non-dominant (system, row).
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn tridiag_gpu_dominance_check_matches_cpu(
        n in awkward_n(),
        batch in awkward_batch(),
        pick in pick(),
        spoil in prop::option::of((0usize..200, 0usize..300)),
        seed: u64,
    ) {
        let gpu = gpu();
        let shape = Shape::new(n, batch, pick.layout(n, batch));
        let mut host = Batch::random(shape, seed, 1.0);
        if let Some((k, i)) = spoil {
            let g = shape.at(k % batch, i % n);
            host.b[g] *= 0.25;
            if n == 1 {
                host.b[g] = 0.0; // a_0 and c_0 are never read: only b = 0 spoils it
            }
        }
        let want = cpu::first_non_dominant(shape, &host.a, &host.b, &host.c).map(|(k, i)| (k as u64, i as u64));
        let [a, b, c] = upload_bands(&gpu, &host);
        let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
        prop_assert_eq!(s.first_non_dominant(&gpu, &a, &b, &c).unwrap(), want);
        let h32 = host.to::<f32>();
        let want32 = cpu::first_non_dominant(shape, &h32.a, &h32.b, &h32.c).map(|(k, i)| (k as u64, i as u64));
        let [a, b, c] = upload_bands(&gpu, &h32);
        let mut s = GpuTridiag::<f32>::new(&gpu, shape).unwrap();
        prop_assert_eq!(s.first_non_dominant(&gpu, &a, &b, &c).unwrap(), want32);
    }
}

/// LU and SPIKE at fixed awkward sizes, both layouts and precisions (SPIKE up to its most
/// chunks and past them: n = 200 000 is 256 chunks of 781 or 782 rows).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_lu_and_spike_at_awkward_sizes_match_cpu() {
    for alg in [Algorithm::Lu, Algorithm::Spike] {
        for layout in Layout::ALL {
            for (n, batch) in [(1, 1), (2, 3), (3, 70), (4, 2), (33, 65), (1000, 7), (4097, 3)] {
                let shape = Shape::new(n, batch, layout);
                check_lu::<f64>(alg, shape, n % 2 == 0, 17).unwrap();
                check_lu::<f32>(alg, shape, n % 2 == 1, 17).unwrap();
            }
        }
    }
    // A case the proptest drew whose GPU backward error (1.4e-14) was more than twice the
    // emulation's: an ill-conditioned chunk interior (see `spike_interior_condition`).
    for in_place in [false, true] {
        check_lu::<f64>(Algorithm::Spike, Shape::new(33, 153, Layout::Contiguous), in_place, 16692971496131913540)
            .unwrap();
    }
}

/// The automatic choice on a batch that is not diagonally dominant takes LU, and where a
/// system's unknowns are consecutive (contiguous, rows) runs it on an interleaved copy from
/// `RESTAGE_LU_MIN` unknowns, in the layout below: against
/// the CPU's LU in both precisions, in place and not, the padding of rows untouched, at
/// awkward sizes (batches past SPIKE's, or systems too short for it; one row made not
/// dominant), and a bad value named at its system and row through the copy.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_auto_lu_on_an_interleaved_copy_matches_cpu() {
    let sizes = [(2, 3, 0), (3, 5, 1), (255, 7, 3), (64, 4095, 0), (64, 4099, 1), (2, 131_073, 0), (300, 1500, 32)];
    for (n, batch, pad) in sizes {
        let layouts = [Layout::Contiguous, Layout::Rows { pitch: n + pad.max(1) }, Layout::Interleaved];
        for (i, layout) in layouts.into_iter().enumerate() {
            let shape = Shape::new(n, batch, layout);
            check_lu_with::<f64>(Choice::Auto, shape, i % 2 == 0, 5 + n as u64).unwrap();
            check_lu_with::<f32>(Choice::Auto, shape, i % 2 == 1, 5 + n as u64).unwrap();
        }
    }
    let gpu = gpu();
    for layout in [Layout::Contiguous, Layout::Rows { pitch: 45 }] {
        let shape = Shape::new(40, 6600, layout);
        for array in 0..4 {
            let mut host = Batch::random(shape, 3, 0.0);
            [&mut host.a, &mut host.b, &mut host.c, &mut host.d][array][shape.at(2, 7)] = f64::NAN;
            let [a, b, c] = upload_bands(&gpu, &host);
            let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
            let mut d = gpu.upload(&host.d).unwrap();
            let e = s.solve_in_place(&gpu, Choice::Auto, &a, &b, &c, &mut d).unwrap_err().to_string();
            let name = ["a", "b", "c", "d"][array];
            assert!(e.contains("system 2, row 7") && e.contains("lu"), "{layout:?} {name}: {e}");
        }
    }
}

/// SPIKE on few long systems, as `auto` takes it (n = 2²⁰ is four multi-block levels, then
/// one block per system on 256 rows): against its emulation, in both layouts and precisions,
/// within the backward error of a stable solve times the chunk interiors' condition (κ of the
/// whole system is not computed at this size: n solves of n).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_spike_solves_few_long_systems() {
    let lim = hydrokern::tridiag::gpu::limits::<f64>(&gpu()).unwrap();
    for (n, batch) in [(1 << 20, 1), (200_000, 3)] {
        for layout in Layout::ALL {
            let shape = Shape::new(n, batch, layout);
            assert_eq!(lim.auto_pivoting(shape), Algorithm::Spike, "{shape:?}");
            check_lu::<f64>(Algorithm::Spike, shape, layout == Layout::Contiguous, 4).unwrap();
            check_lu::<f32>(Algorithm::Spike, shape, layout == Layout::Interleaved, 4).unwrap();
        }
    }
}

/// `auto` takes LU for a batch with one non-dominant row and the fast plan (bit for bit what
/// forcing it gives) for a dominant batch.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_auto_pivots_only_where_dominance_fails() {
    let gpu = gpu();
    for layout in Layout::ALL {
        for (n, batch) in [(64, 1000), (1000, 33), (5, 3)] {
            let shape = Shape::new(n, batch, layout);
            let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
            let easy = Batch::random(shape, 8, 1.0);
            let up = |h: &Batch<f64>| {
                let [a, b, c] = upload_bands(&gpu, h);
                (a, b, c, gpu.upload(&h.d).unwrap())
            };
            let (a, b, c, d) = up(&easy);
            let fast = s.algorithm(Choice::Auto);
            assert!(!fast.pivots());
            let mut x = gpu.alloc::<f64>(shape.len()).unwrap();
            assert_eq!(s.solve(&gpu, Choice::Auto, &a, &b, &c, &d, &mut x).unwrap(), fast, "{shape:?}");
            let auto_x = gpu.download(&x).unwrap();
            s.solve(&gpu, Choice::Force(fast), &a, &b, &c, &d, &mut x).unwrap();
            assert_eq!(auto_x, gpu.download(&x).unwrap(), "{shape:?}: auto is not the fast path");
            // One row not dominant: a pivoting solver (LU, or SPIKE for few long systems),
            // agreeing with the CPU's LU.
            let mut hard = easy.clone();
            let g = shape.at(batch / 2, n / 2);
            hard.b[g] = 0.25 * (hard.a[g].abs() + hard.c[g].abs());
            let (a, b, c, d) = up(&hard);
            let pivoting = s.limits().auto_pivoting(shape);
            assert!(pivoting.pivots());
            assert_eq!(s.solve(&gpu, Choice::Auto, &a, &b, &c, &d, &mut x).unwrap(), pivoting, "{shape:?}");
            let mut want = vec![0.0; shape.len()];
            cpu::solve_with(Algorithm::Lu, shape, &hard.a, &hard.b, &hard.c, &hard.d, &mut want).unwrap();
            let got = gpu.download(&x).unwrap();
            let tol = common::Tolerance::eps(1e4).scaled(magnitude(&want));
            tol.check(&format!("auto {shape:?}"), &got, &want).unwrap();
        }
    }
}

/// A NaN in a, b, c or d at row 7 is named at row 7 by the GPU's one-thread solvers (Thomas
/// in both layouts, LU), by SPIKE and by partition (which checks each row as it stages it); the other
/// block algorithms name the system.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_bad_value_is_named_at_its_row() {
    let gpu = gpu();
    for layout in Layout::ALL {
        let shape = Shape::new(40, 9, layout);
        for array in 0..4 {
            let mut host = Batch::random(shape, 3, 2.0);
            [&mut host.a, &mut host.b, &mut host.c, &mut host.d][array][shape.at(2, 7)] = f64::NAN;
            let [a, b, c] = upload_bands(&gpu, &host);
            let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
            for alg in Algorithm::ALL {
                let mut d = gpu.upload(&host.d).unwrap();
                let e = s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap_err().to_string();
                let name = ["a", "b", "c", "d"][array];
                assert!(e.contains("system 2, row"), "{alg} {layout:?} {name}: {e}");
                if matches!(alg, Algorithm::Thomas | Algorithm::Lu | Algorithm::Spike | Algorithm::Partition) {
                    assert!(e.contains("system 2, row 7"), "{alg} {layout:?} {name}: {e}");
                }
            }
        }
    }
}

/// The multi-block SPIKE (one level at n = 5000, two at 20 000) names a NaN in a, b, c or d at
/// its row: inside a chunk, at a chunk's first row and at the last row of the chunk before.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_spike_levels_name_a_bad_value_at_its_row() {
    let gpu = gpu();
    for (n, layout) in [(5000, Layout::Contiguous), (20_000, Layout::Interleaved)] {
        let shape = Shape::new(n, 3, layout);
        let chunks = Limits::spike_levels(n)[0];
        let start = spike_start(n as u32, chunks, 100) as usize;
        let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
        for row in [7, start, start - 1] {
            for array in 0..4 {
                let mut host = Batch::random(shape, 3, 2.0);
                [&mut host.a, &mut host.b, &mut host.c, &mut host.d][array][shape.at(1, row)] = f64::NAN;
                let [a, b, c] = upload_bands(&gpu, &host);
                let mut d = gpu.upload(&host.d).unwrap();
                let e = s
                    .solve_in_place(&gpu, Choice::Force(Algorithm::Spike), &a, &b, &c, &mut d)
                    .unwrap_err()
                    .to_string();
                let name = ["a", "b", "c", "d"][array];
                assert!(e.contains(&format!("system 1, row {row}:")), "n {n} {layout:?} {name}[{row}]: {e}");
            }
        }
    }
}
