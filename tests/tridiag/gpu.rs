//! Every GPU algorithm × layout (the padded ones with random padding) × precision against the
//! CPU reference, the padding poisoned and left alone; GPU bad input.

use super::GPU_PER_LEVEL;
use super::input::broken;
use super::strided::{Pick, padding_changed, pick};
use super::upload_bands;
use crate::common::{self, cases, gpu, magnitude};
use hydrokern::GpuReal;
use hydrokern::tridiag::gpu::{GpuTridiag, PlanKernel, limits};
use hydrokern::tridiag::{Algorithm, Batch, Choice, Layout, Shape, cpu};
use proptest::prelude::*;

/// Sizes worth testing up to `max`: 1, 2, 3, primes, powers of two and their neighbours.
fn awkward_n() -> impl Strategy<Value = usize> {
    prop_oneof![
        prop::sample::select(vec![1usize, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 61, 127, 251, 509, 1021, 2039, 4093, 8191]),
        // From p = 1: (1 << 0) - 1 would draw n = 0, which is not a system.
        (1u32..14).prop_flat_map(|p| prop::sample::select(vec![(1usize << p) - 1, 1 << p, (1 << p) + 1])),
        1usize..600,
        Just(usize::MAX), // clipped to the algorithm's limit
    ]
}

fn awkward_batch() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![1usize, 2, 3, 31, 32, 33, 63, 64, 65, 129, 1000]), 1usize..300]
}

/// Largest n tested of the algorithms without a limit of their own (the shared-memory ones are
/// tested up to their own limits).
const MAX_TEST_N: usize = 8192;

/// The unknowns of `v` in (system, row) order.
fn unknowns<T: Copy>(shape: Shape, v: &[T]) -> Vec<T> {
    (0..shape.batch).flat_map(|k| (0..shape.n).map(move |i| (k, i))).map(|(k, i)| v[shape.at(k, i)]).collect()
}

/// `alg` on the GPU against the CPU reference, n and batch clipped to the algorithm's limit
/// and a test's size, the layout picked for the clipped sizes. The padding of a padded layout
/// is NaN in a, b, c, d (a kernel that read it would break down) and must come back NaN bit
/// for bit in x (poisoned) or d (in place); with `field`, the arrays are the whole field
/// (lines·pitch values), longer than the span.
fn check_gpu<T: GpuReal>(
    n: usize,
    batch: usize,
    pick: Pick,
    alg: Algorithm,
    in_place: bool,
    seed: u64,
) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let lim = limits::<T>(&gpu).unwrap();
    let limit = lim.max_n(alg);
    let n = n.min(if limit < u32::MAX as usize { limit } else { MAX_TEST_N });
    // Keep a case under ~4 M unknowns.
    let batch = batch.min((4 << 20) / n).max(1);
    let shape = Shape::new(n, batch, pick.layout(n, batch));
    let mut host = Batch::random(shape, seed, 2.0).to::<T>();
    if let (Some(pitch), true) = (shape.layout.pitch(), seed.is_multiple_of(2)) {
        let lines = if shape.layout.systems_adjacent() { n } else { batch };
        for v in [&mut host.a, &mut host.b, &mut host.c, &mut host.d] {
            v.resize(lines * pitch, T::NAN);
        }
    }
    let mut s = GpuTridiag::<T>::new(&gpu, shape).unwrap();
    // LU against the CPU's LU (the same pivots), every other algorithm against Thomas.
    let reference = if alg.pivots() { Algorithm::Lu } else { Algorithm::Thomas };
    solve_matches_cpu(&mut s, &host, Choice::Force(alg), reference, in_place)?;
    Ok(())
}

/// `choice` by solver `s` on `host` (of the solver's shape; arrays of the span or of the whole
/// field with NaN padding) against the CPU's `reference`, into a poisoned x or in place: d and
/// the padding come back as they were, x within the tolerance. The CPU's unknowns, in (system,
/// row) order.
fn solve_matches_cpu<T: GpuReal>(
    s: &mut GpuTridiag<T>,
    host: &Batch<T>,
    choice: Choice,
    reference: Algorithm,
    in_place: bool,
) -> Result<Vec<T>, TestCaseError> {
    let (gpu, shape) = (gpu(), s.shape());
    let len = host.a.len();
    let mut want = vec![T::ZERO; len];
    cpu::solve_with(reference, shape, &host.a, &host.b, &host.c, &host.d, &mut want).unwrap();
    let [a, b, c] = upload_bands(&gpu, host);
    let mut d = gpu.upload(&host.d).unwrap();
    let got = if in_place {
        s.solve_in_place(&gpu, choice, &a, &b, &c, &mut d).unwrap();
        gpu.download(&d).unwrap()
    } else {
        let mut x = gpu.alloc::<T>(len).unwrap();
        hydrokern::foundation::gpu::fill(&gpu, &mut x, common::poison::<T>()).unwrap();
        s.solve(&gpu, choice, &a, &b, &c, &d, &mut x).unwrap();
        let d_after = gpu.download(&d).unwrap();
        prop_assert!(padding_changed(shape, &d_after, &host.d).is_empty(), "{choice:?} {shape:?}: d's padding changed");
        prop_assert_eq!(unknowns(shape, &d_after), unknowns(shape, &host.d), "d changed by a separate-output solve");
        gpu.download(&x).unwrap()
    };
    // In place, x's padding is d's (NaN); else the poison it was filled with.
    let before = if in_place { host.d.clone() } else { vec![common::poison::<T>(); len] };
    let changed = padding_changed(shape, &got, &before);
    prop_assert!(changed.is_empty(), "{choice:?} {shape:?} in_place {in_place}: padding written at {changed:?}");
    let want = unknowns(shape, &want);
    let tol = GPU_PER_LEVEL.times((2.0 * shape.n as f64).log2()).scaled(magnitude(&want));
    tol.check(&format!("{choice:?} {shape:?} in_place {in_place}: x"), &unknowns(shape, &got), &want)?;
    Ok(want)
}

proptest! {
    #![proptest_config(crate::common::config(cases(48), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn tridiag_gpu_matches_cpu(
        n in awkward_n(),
        batch in awkward_batch(),
        pick in pick(),
        alg in prop::sample::select(Algorithm::ALL.to_vec()),
        in_place: bool,
        seed: u64,
    ) {
        check_gpu::<f32>(n, batch, pick, alg, in_place, seed)?;
        check_gpu::<f64>(n, batch, pick, alg, in_place, seed)?;
    }
}

/// Every algorithm × layout × precision at fixed awkward sizes, including each limit; the
/// padded layouts with 1 and 32 values of padding per line.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn every_algorithm_layout_and_precision_matches_cpu() {
    let picks = Layout::ALL.map(Pick::Plain).into_iter().chain([
        Pick::Rows(1),
        Pick::Rows(32),
        Pick::Columns(1),
        Pick::Columns(32),
    ]);
    for alg in Algorithm::ALL {
        for pick in picks.clone() {
            for (n, batch) in [(1, 1), (2, 3), (3, 70), (33, 65), (1000, 7), (4097, 3), (usize::MAX, 2)] {
                // Seeds 17 and 18: arrays of the span and of the whole field.
                check_gpu::<f64>(n, batch, pick, alg, n % 2 == 0, 17 + (batch % 2) as u64).unwrap();
                check_gpu::<f32>(n, batch, pick, alg, n % 2 == 1, 18 - (batch % 2) as u64).unwrap();
            }
        }
    }
}

/// The automatic choice on the batches of adjacent systems it solves on a contiguous copy
/// (`Limits::restages`: interleaved, and columns whose padding is NaN and must come back as it
/// was), both precisions, into a poisoned x and in place, against the CPU reference; a
/// non-finite value is named by its system and row, and the solver solves again after.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn auto_on_a_contiguous_copy_matches_cpu() {
    fn check<T: GpuReal>(n: usize, batch: usize, pad: usize, in_place: bool, seed: u64) {
        let gpu = gpu();
        let layout = if pad == 0 { Layout::Interleaved } else { Layout::Columns { pitch: batch + pad } };
        let shape = Shape::new(n, batch, layout);
        let mut host = Batch::random(shape, seed, 2.0).to::<T>();
        if pad > 0 {
            for v in [&mut host.a, &mut host.b, &mut host.c, &mut host.d] {
                v.resize(n * (batch + pad), T::NAN);
            }
        }
        let mut s = GpuTridiag::<T>::new(&gpu, shape).unwrap();
        let plan = s.plan(Choice::Auto).unwrap();
        assert!(matches!(plan.kernel, PlanKernel::Restaged(_)), "{shape:?}: {plan:?}");
        let want = solve_matches_cpu(&mut s, &host, Choice::Auto, Algorithm::Thomas, in_place).unwrap();
        let [a, b, c] = upload_bands(&gpu, &host);
        // A NaN in d leaves the batch dominant (the choice stays on the copy), and the staging
        // names its row.
        let mut bad_d = host.d.clone();
        bad_d[shape.at(batch - 1, n / 3)] = T::NAN;
        let mut d = gpu.upload(&bad_d).unwrap();
        let e = s.solve_in_place(&gpu, Choice::Auto, &a, &b, &c, &mut d).unwrap_err().to_string();
        assert!(e.contains(&format!("system {}, row {}", batch - 1, n / 3)), "{shape:?}: {e}");
        assert!(e.contains("partition"), "{shape:?}: {e}");
        let mut d = gpu.upload(&host.d).unwrap();
        s.solve_in_place(&gpu, Choice::Auto, &a, &b, &c, &mut d).unwrap();
        let got = unknowns(shape, &gpu.download(&d).unwrap());
        let tol = GPU_PER_LEVEL.times((2.0 * n as f64).log2()).scaled(magnitude(&want));
        tol.check(&format!("{shape:?} after a breakdown"), &got, &want).unwrap();
    }
    // Unknowns past 1024 a multiprocessor (the latency-bound batches take CR-PCR), n from the
    // threshold up, awkward batches; interleaved (no padding) and columns with 1 and 32 values
    // of padding a line.
    for (n, batch, seed) in [(2048, 257, 1), (2049, 300, 2), (4093, 67, 3), (4096, 129, 4), (8191, 33, 5)] {
        for pad in [0, 1, 32] {
            check::<f32>(n, batch, pad, seed % 2 == 0, seed + pad as u64);
            check::<f64>(n, batch, pad, seed % 2 == 1, seed + pad as u64);
        }
    }
}

/// The cyclic-reduction kernels take several systems a block where the systems lie side by
/// side (interleaved, columns): each system's arithmetic is the one-system block's, so the bits
/// are too, the last block's systems past the batch included, and a non-finite value is named
/// by its own system and row.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn cyclic_blocks_of_several_systems_give_one_systems_bits() {
    /// The systems a block of the plan took.
    fn check<T: GpuReal>(n: usize, batch: usize, layout: Layout, alg: Algorithm, seed: u64) -> usize {
        let gpu = gpu();
        let shape = Shape::new(n, batch, layout);
        let host = Batch::random(shape, seed, 2.0).to::<T>();
        let mut s = GpuTridiag::<T>::new(&gpu, shape).unwrap();
        let grouped = s.plan(Choice::Force(alg)).unwrap();
        let systems = grouped.launch.block.1 as usize;
        assert_eq!(grouped.launch.grid.0 as usize, batch.div_ceil(systems), "{alg} {shape:?}");
        let single = hydrokern::tridiag::gpu::Plan {
            launch: hydrokern::runtime::LaunchShape::fixed((batch as u32, 1, 1), (grouped.launch.block.0, 1, 1))
                .with_shared_of::<T>(4 * n),
            ..grouped
        };
        let [a, b, c] = upload_bands(&gpu, &host);
        let d = gpu.upload(&host.d).unwrap();
        let solved = |s: &mut GpuTridiag<T>, plan| {
            let mut x = gpu.alloc::<T>(host.a.len()).unwrap();
            hydrokern::foundation::gpu::fill(&gpu, &mut x, common::poison::<T>()).unwrap();
            s.reset_status(&gpu).unwrap();
            s.enqueue(&gpu, plan, &a, &b, &c, &d, &mut x).unwrap();
            s.check_status(&gpu, plan).unwrap();
            gpu.download(&x).unwrap().iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>()
        };
        let (got, want) = (solved(&mut s, &grouped), solved(&mut s, &single));
        let differ = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        assert_eq!(differ, 0, "{alg} {} {shape:?}: {differ} values differ from one system a block", T::NAME);
        // A NaN in the last system's d is named there.
        let mut bad = host.d.clone();
        bad[shape.at(batch - 1, n / 2)] = T::NAN;
        let mut d = gpu.upload(&bad).unwrap();
        let e = s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap_err().to_string();
        assert!(e.contains(&format!("system {}, row", batch - 1)), "{alg} {shape:?}: {e}");
        systems
    }
    for alg in [Algorithm::Cr, Algorithm::Pcr, Algorithm::CrPcr, Algorithm::PcrThomas] {
        let mut most = (0, 0);
        for (n, batch, pad) in [(64, 259, 0), (257, 37, 1), (1000, 9, 32), (3, 70, 0), (512, 256, 32)] {
            let layout = if pad == 0 { Layout::Interleaved } else { Layout::Columns { pitch: batch + pad } };
            most.0 = most.0.max(check::<f32>(n, batch, layout, alg, n as u64));
            most.1 = most.1.max(check::<f64>(n, batch, layout, alg, batch as u64));
        }
        assert_eq!(most, (8, 4), "{alg}: the most systems a block, f32 and f64");
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
    // Padded layouts: a pitch below the line, an array shorter than the span (3·20 + 16 = 76).
    assert!(GpuTridiag::<f64>::new(&gpu, Shape::new(16, 4, Layout::Rows { pitch: 15 })).is_err());
    assert!(GpuTridiag::<f64>::new(&gpu, Shape::new(16, 4, Layout::Columns { pitch: 3 })).is_err());
    let mut s = GpuTridiag::<f64>::new(&gpu, Shape::new(16, 4, Layout::Rows { pitch: 20 })).unwrap();
    let (ok, short) = (gpu.zeros::<f64>(80).unwrap(), gpu.zeros::<f64>(75).unwrap());
    let mut x = gpu.zeros::<f64>(76).unwrap();
    let e = s.solve(&gpu, Choice::Auto, &ok, &ok, &short, &ok, &mut x).unwrap_err().to_string();
    assert!(e.contains("c has 75 values, expected at least the span") && e.contains("= 76"), "{e}");
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
    for layout in Layout::ALL.into_iter().chain([Layout::Rows { pitch: 43 }, Layout::Columns { pitch: 12 }]) {
        for alg in Algorithm::ALL {
            let shape = Shape::new(40, 9, layout);
            let host = broken(shape, 6, 21, true);
            let [a, b, c] = upload_bands(&gpu, &host);
            let mut d = gpu.upload(&host.d).unwrap();
            let mut s = GpuTridiag::<f64>::new(&gpu, shape).unwrap();
            let e = s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap_err().to_string();
            assert!(e.contains("system 6, row"), "{alg} {layout:?}: {e}");
            if alg == Algorithm::Lu {
                // A zero row is singular; LU meets the zero pivot where the elimination runs
                // out of rows to swap in, at or after the zero row.
                assert!(e.contains("singular"), "{alg}: {e}");
            }
            if matches!(alg, Algorithm::Thomas | Algorithm::Partition) {
                // Thomas meets the zero pivot at row 21; partition refuses b = 0 as it stages
                // the row (the smallest failing row wins).
                assert!(e.contains("system 6, row 21"), "{alg}: {e}");
            }
            if alg == Algorithm::Twisted {
                // The upper thread meets the zero pivot at row 21, but the lower half's back
                // substitution then turns non-finite below it and the smallest row wins: the
                // report names a row at most two before the zero one (row 19 on an H100).
                assert!((19..=21).any(|r| e.contains(&format!("system 6, row {r}"))), "{alg}: {e}");
            }
            // The solver stays usable: a good batch solves afterwards.
            let good = Batch::random(shape, 3, 2.0);
            let mut d = gpu.upload(&good.d).unwrap();
            let [a, b, c] = upload_bands(&gpu, &good);
            s.solve_in_place(&gpu, Choice::Force(alg), &a, &b, &c, &mut d).unwrap();
        }
    }
}
