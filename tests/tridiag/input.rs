//! Bad input, breakdowns naming system and row, names, and the automatic choice.

use hydrokern::tridiag::{Algorithm, Batch, Choice, Layout, Limits, Shape, cpu};
use kernels::tridiag::{cyclic_span, partition_chunks, partition_span};

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
pub fn broken(shape: Shape, k: usize, row: usize, zero_row: bool) -> Batch<f64> {
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
    assert_eq!("lu".parse::<Choice>().unwrap(), Choice::Force(Algorithm::Lu));
    let e = "gauss".parse::<Choice>().unwrap_err().to_string();
    assert!(e.contains("pcr-thomas") && e.contains("lu"), "{e}");
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
    assert_eq!(lim.max_n(Algorithm::Lu), u32::MAX as usize);
    assert_eq!(lim.max_n(Algorithm::Spike), u32::MAX as usize);
    // Pivoting: SPIKE for at most 8 systems per multiprocessor of n ≥ 256, else LU.
    assert_eq!(lim.auto_pivoting(Shape::new(100_000, 4, Layout::Contiguous)), Algorithm::Spike);
    assert_eq!(lim.auto_pivoting(Shape::new(4096, 1056, Layout::Interleaved)), Algorithm::Spike);
    assert_eq!(lim.auto_pivoting(Shape::new(4096, 1057, Layout::Contiguous)), Algorithm::Lu);
    assert_eq!(lim.auto_pivoting(Shape::new(255, 1, Layout::Interleaved)), Algorithm::Lu);
    // SPIKE's chunks: about √(n/2), at least two rows each, at most 256.
    for (n, chunks) in [(1, 1), (2, 1), (3, 1), (4, 1), (8, 2), (200, 10), (1 << 20, 256)] {
        assert_eq!(Limits::spike_chunks(n), chunks, "n = {n}");
    }
    // Multi-block levels past 1024 rows: chunks of 16 (or 15) rows, each level n/8 long.
    let none: [u32; 0] = [];
    assert_eq!(Limits::spike_levels(1024), none);
    assert_eq!(Limits::spike_levels(1025), [65]);
    assert_eq!(Limits::spike_levels(1 << 20), [65536, 8192, 1024, 128]);
    assert_eq!(Limits::spike_levels(200_000), [12500, 1563, 196]);
    // The plan: the top level of 2^20 (65 536 chunks, batch 1) gets 64 threads a block in
    // f64, 1024 blocks, ≥ 2 per multiprocessor; the last reduced system (256 rows) one block.
    let plan =
        hydrokern::tridiag::gpu::plan(Shape::new(1 << 20, 1, Layout::Contiguous), Algorithm::Spike, &lim).unwrap();
    let hydrokern::tridiag::gpu::PlanKernel::SpikeLevels(levels) = plan.kernel else { panic!("{plan:?}") };
    assert_eq!((levels.count, levels.threads[0], levels.bottom_n(), levels.bottom_chunks), (4, 64, 256, 11));
    assert_eq!(plan.launch.grid, (1024, 1, 1));
    let one = hydrokern::tridiag::gpu::plan(Shape::new(1024, 1, Layout::Contiguous), Algorithm::Spike, &lim).unwrap();
    assert!(!matches!(one.kernel, hydrokern::tridiag::gpu::PlanKernel::SpikeLevels(_)));
    // One grid row per system: more than 65 535 long systems are refused with a reason.
    let e = hydrokern::tridiag::gpu::plan(Shape::new(1025, 65_536, Layout::Interleaved), Algorithm::Spike, &lim);
    let e = e.unwrap_err().to_string();
    assert!(e.contains("65 535") && e.contains("use lu"), "{e}");
    assert_eq!(lim.max_n(Algorithm::Partition), 9536);
    assert_eq!(Limits { value_bytes: 4, ..lim }.max_n(Algorithm::Partition), 19072);
    let auto = |n, batch, layout| lim.auto(Shape::new(n, batch, layout));
    for n in [1, 64, 2048, 4096, 9376, 9536] {
        assert_eq!(auto(n, 16384, Layout::Contiguous), Algorithm::Partition, "n = {n}");
    }
    assert_eq!(auto(9537, 16, Layout::Contiguous), Algorithm::Thomas);
    assert_eq!(auto(9537, 16, Layout::Interleaved), Algorithm::Thomas);
    // Interleaved: partition while whole sectors (4 f64 systems per block) fit or the batch is
    // small; one-thread Thomas for big batches of long systems.
    assert_eq!(auto(512, 16384, Layout::Interleaved), Algorithm::Partition);
    assert_eq!(auto(4096, 16384, Layout::Interleaved), Algorithm::Thomas);
    assert_eq!(auto(4096, 1024, Layout::Interleaved), Algorithm::Partition);
    assert_eq!(auto(4096, 256, Layout::Interleaved), Algorithm::Partition);
    // Small batches of n ≥ 64 (at most 1024 unknowns per multiprocessor; 2048 with systems
    // side by side of n ≤ 1024, and in the contiguous layouts with n ≤ 256) are latency-bound:
    // CR-PCR.
    // Shorter systems stay with partition, several to a block.
    for layout in Layout::ALL {
        assert_eq!(auto(64, 256, layout), Algorithm::CrPcr, "{layout:?}");
        assert_eq!(auto(512, 256, layout), Algorithm::CrPcr, "{layout:?}");
        assert_eq!(auto(1, 1, layout), Algorithm::Partition, "{layout:?}");
        assert_eq!(auto(63, 256, layout), Algorithm::Partition, "{layout:?}");
        assert_eq!(auto(256, 1024, layout), Algorithm::CrPcr, "{layout:?}");
        assert_eq!(auto(512, 1024, layout), Algorithm::Partition, "{layout:?}");
    }
    assert_eq!(auto(1024, 256, Layout::Contiguous), Algorithm::Partition);
    // Systems of 1024 and more reduce by CR to the end in f64, by CR-PCR in f32.
    assert_eq!(auto(1024, 256, Layout::Interleaved), Algorithm::Cr);
    assert_eq!(auto(1024, 256, Layout::Columns { pitch: 288 }), Algorithm::Cr);
    assert_eq!(auto(2048, 64, Layout::Contiguous), Algorithm::Cr);
    assert_eq!(auto(1023, 256, Layout::Interleaved), Algorithm::CrPcr);
    let f32_auto = |n, batch, layout| Limits { value_bytes: 4, ..lim }.auto(Shape::new(n, batch, layout));
    assert_eq!(f32_auto(1024, 256, Layout::Interleaved), Algorithm::CrPcr);
    assert_eq!(f32_auto(2048, 64, Layout::Contiguous), Algorithm::CrPcr);
    assert_eq!(auto(64, 4096, Layout::Columns { pitch: 4128 }), Algorithm::CrPcr);
    assert_eq!(auto(64, 4096, Layout::Contiguous), Algorithm::CrPcr);
    assert_eq!(auto(64, 4300, Layout::Interleaved), Algorithm::Partition);
    assert_eq!(auto(2048, 128, Layout::Interleaved), Algorithm::Partition);
    assert_eq!(auto(8191, 33, Layout::Interleaved), Algorithm::Partition);
    assert_eq!(auto(512, 512, Layout::Contiguous), Algorithm::Partition);
    // The cyclic-reduction kernels: one system a block where systems lie in rows; side by
    // side, as many as fill a 32-byte sector of a row (4 in f64, 8 in f32) within 256 threads,
    // at least two, as far as the threads, the shared memory and the batch allow.
    let plan_of = hydrokern::tridiag::gpu::plan;
    let f32_lim = Limits { value_bytes: 4, ..lim };
    for (n, batch, layout, alg, lim, block, systems) in [
        (64, 4096, Layout::Contiguous, Algorithm::CrPcr, lim, 32, 1),
        (64, 4096, Layout::Rows { pitch: 96 }, Algorithm::Cr, lim, 32, 1),
        (64, 4096, Layout::Interleaved, Algorithm::CrPcr, lim, 32, 4),
        (64, 4096, Layout::Columns { pitch: 4128 }, Algorithm::CrPcr, f32_lim, 32, 8),
        (64, 3, Layout::Interleaved, Algorithm::Cr, f32_lim, 32, 4),
        (64, 1, Layout::Interleaved, Algorithm::Cr, f32_lim, 32, 1),
        (256, 256, Layout::Interleaved, Algorithm::CrPcr, f32_lim, 128, 2),
        (1024, 256, Layout::Interleaved, Algorithm::CrPcr, lim, 512, 2),
        (2048, 256, Layout::Interleaved, Algorithm::CrPcr, lim, 1024, 1),
        (64, 256, Layout::Interleaved, Algorithm::Pcr, lim, 64, 4),
        (1024, 256, Layout::Interleaved, Algorithm::Pcr, lim, 352, 1),
        (128, 256, Layout::Interleaved, Algorithm::PcrThomas, f32_lim, 128, 2),
        (7000, 2, Layout::Interleaved, Algorithm::Cr, lim, 1024, 1),
    ] {
        let shape = Shape::new(n, batch, layout);
        let p = plan_of(shape, alg, &lim).unwrap();
        assert_eq!(p.launch.block, (block, systems, 1), "{alg} {shape:?} f{}", 8 * lim.value_bytes);
        assert_eq!(p.launch.grid, (batch.div_ceil(systems as usize) as u32, 1, 1), "{alg} {shape:?}");
        let span = cyclic_span(n as u32, systems.trailing_zeros()) as usize;
        assert_eq!(p.launch.shared_bytes as usize, systems as usize * span * lim.value_bytes, "{alg} {shape:?}");
        assert!(p.launch.shared_bytes as usize <= lim.max_shared_bytes);
        assert_eq!(p.describe().contains("systems a block"), systems > 1, "{}", p.describe());
    }
    // Launch shapes: chunks of 16 rows at n = 4096, one system per block; 8 systems of 4
    // threads at n = 64 in a big batch; never fewer than 2 blocks per multiprocessor.
    let launch = |n, batch, layout| lim.partition_launch(Shape::new(n, batch, layout)).unwrap();
    assert_eq!(launch(4096, 16384, Layout::Contiguous), (4, 1));
    assert_eq!(launch(64, 16384, Layout::Contiguous), (3, 16));
    assert_eq!(launch(64, 256, Layout::Contiguous), (3, 1));
    assert_eq!(launch(9376, 1, Layout::Contiguous), (5, 1));
    assert_eq!(launch(9536, 1, Layout::Contiguous), (6, 1));
    assert_eq!(lim.partition_launch(Shape::new(9537, 1, Layout::Contiguous)), None);
    for n in [1usize, 2, 3, 31, 32, 100, 1000, 4096, 9376, 9536] {
        for batch in [1usize, 7, 300, 20000] {
            for layout in Layout::ALL {
                let (lg, g) = launch(n, batch, layout);
                let threads = partition_chunks(n as u32, lg) as usize * g as usize;
                let shared = g as usize * partition_span(n as u32, lg) as usize * 8;
                assert!(threads <= 1024 && shared <= lim.max_shared_bytes, "n {n} batch {batch}: {lg} {g}");
                assert!(g as usize <= batch);
            }
        }
    }
    // Long adjacent systems (interleaved, columns) for which the choice takes partition are
    // solved on a contiguous copy: the contiguous shape's launch, four arrays of workspace.
    // Nowhere else: not the contiguous layouts, not shorter systems, not Thomas's big batches,
    // not a forced algorithm.
    for (n, batch, layout, restaged) in [
        (4096, 1024, Layout::Interleaved, true),
        (2048, 256, Layout::Interleaved, true),
        (2047, 256, Layout::Interleaved, false),
        (4096, 16384, Layout::Interleaved, false),
        (4096, 1024, Layout::Contiguous, false),
        (4096, 1024, Layout::Rows { pitch: 4128 }, false),
        (4096, 1024, Layout::Columns { pitch: 1056 }, true),
        (2048, 16384, Layout::Columns { pitch: 16416 }, false),
    ] {
        let shape = Shape::new(n, batch, layout);
        let copy = Restaged { layout: Layout::Contiguous, arrays: 4, named: "a contiguous copy", lu: false };
        check_restaging(&lim, shape, lim.auto(shape), restaged.then_some(copy));
    }
    // LU, which a batch that is not diagonally dominant takes, runs on an interleaved copy where
    // a system's unknowns are consecutive (contiguous, rows), from 2¹⁸ unknowns: the interleaved shape's launch,
    // four arrays of workspace and LU's own two after them. In the adjacent layouts, and forced,
    // it runs where the batch lies.
    for (n, batch, layout, restaged) in [
        (64, 20000, Layout::Contiguous, true),
        (64, 4096, Layout::Contiguous, true),
        (64, 4095, Layout::Contiguous, false),
        (5, 3, Layout::Contiguous, false),
        (4096, 16384, Layout::Rows { pitch: 4128 }, true),
        (64, 20000, Layout::Interleaved, false),
        (4096, 16384, Layout::Columns { pitch: 16416 }, false),
    ] {
        let copy = Restaged { layout: Layout::Interleaved, arrays: 6, named: "an interleaved copy", lu: true };
        check_restaging(&lim, Shape::new(n, batch, layout), Algorithm::Lu, restaged.then_some(copy));
    }
}

/// The copy a restaged plan solves on: its layout, the workspace it takes in arrays of the
/// batch's size, how the plan names it, and whether it is LU's (whose kernel keeps its own
/// workspace after the copy's).
struct Restaged {
    layout: Layout,
    arrays: usize,
    named: &'static str,
    lu: bool,
}

/// `shape`'s automatic plan for `alg`: on `copy` where there is one (that layout's launch and
/// dimensions, its workspace, described as solved there), else the plan `alg` forced makes;
/// the forced plan never restages.
fn check_restaging(lim: &Limits, shape: Shape, alg: Algorithm, copy: Option<Restaged>) {
    use hydrokern::tridiag::gpu::{Copied, PlanKernel, plan, plan_auto};
    assert_eq!(lim.restages(shape, alg), copy.is_some(), "{shape:?}");
    let p = plan_auto(shape, alg, lim).unwrap();
    let forced = plan(shape, alg, lim).unwrap();
    assert!(!matches!(forced.kernel, PlanKernel::Restaged(_)));
    let Some(copy) = copy else {
        assert_eq!(p, forced, "{shape:?}");
        return;
    };
    let on_copy = plan(Shape::new(shape.n, shape.batch, copy.layout), alg, lim).unwrap();
    let kernel_ok = match p.kernel {
        PlanKernel::Restaged(c) => !copy.lu || matches!(c, Copied::Work(_)),
        _ => false,
    };
    assert!(kernel_ok, "{shape:?}: {p:?}");
    assert_eq!((p.dims, p.launch, p.workspace), (on_copy.dims, on_copy.launch, copy.arrays * shape.n * shape.batch));
    let described = format!("on {} (a, b, c, d transposed in, x out)", copy.named);
    assert!(p.describe().ends_with(&described), "{}", p.describe());
}

proptest::proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(200), file!()))]
    /// The memory a run counts for the solver's workspace (`gpu::workspace_bound`) is at least
    /// what every plan takes: each algorithm forced (where it plans), and the automatic
    /// choice's plans for a dominant and a non-dominant batch (a restaged copy included), in
    /// every layout, both precisions, and multiprocessor counts from 1 to 200.
    #[test]
    fn the_workspace_bound_covers_every_plan(
        n in 1usize..300_000,
        batch in 1usize..3000,
        kind in 0u8..4,
        pad in 0usize..9,
        value_bytes in proptest::sample::select(vec![4usize, 8]),
        sm_count in 1usize..200,
    ) {
        use hydrokern::tridiag::gpu::{plan, plan_auto, workspace_bound};
        let layout = match kind {
            0 => Layout::Contiguous,
            1 => Layout::Interleaved,
            2 => Layout::Rows { pitch: n + pad },
            _ => Layout::Columns { pitch: batch + pad },
        };
        let shape = Shape::new(n, batch, layout);
        let lim = Limits {
            max_shared_bytes: 232_448,
            value_bytes,
            sm_count,
            pcr_threads: 384,
            cr_threads: 1024,
            partition_threads: 1024,
        };
        for alg in Algorithm::ALL {
            if let Ok(p) = plan(shape, alg, &lim) {
                let bound = workspace_bound(shape, Choice::Force(alg));
                proptest::prop_assert!(p.workspace <= bound, "{alg} {shape:?}: plans {} > {bound}", p.workspace);
            }
        }
        let bound = workspace_bound(shape, Choice::Auto);
        for alg in [lim.auto(shape), lim.auto_pivoting(shape)] {
            if let Ok(p) = plan_auto(shape, alg, &lim) {
                proptest::prop_assert!(p.workspace <= bound, "auto {alg} {shape:?}: plans {} > {bound}", p.workspace);
            }
        }
    }
}
