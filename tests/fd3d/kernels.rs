//! 3D finite differences: the CPU reference against the exact derivative (8th-order
//! convergence) and against a straightforward independent stencil; every GPU variant and
//! precision against the CPU reference on random fields and awkward sizes; bad grids rejected.

use crate::common::{Tolerance, cases, gpu, poison};
use hydrokern::fd3d::gpu::{Plan, plan_for};
use hydrokern::fd3d::{COEFFICIENTS, Direction, Grid3, PeriodicGrid, TestField, Variant, cpu};
use hydrokern::{GpuReal, Real, Rng};
use proptest::prelude::*;

/// GPU against CPU, relative to m·max|f| (a derivative of values bounded by max|f| is at most
/// 2·Σ|coefficients|·m·max|f| ≈ 2.1·m·max|f|). The kernels contract the stencil's eight
/// products into fused multiply-adds and some sum in another order; each changes the last bit
/// of a term of that size. f32: 1e-5 (about 80 ε) leaves room for the cancellation of a
/// random field; f64: 1e-12 (about 4500 ε) is looser than that needs, the bound these tests
/// have always used.
const GPU_F32: Tolerance = Tolerance::abs(1e-5);
/// See [`GPU_F32`].
const GPU_F64: Tolerance = Tolerance::abs(1e-12);

fn values<T: Real>(seed: u64, n: usize) -> Vec<T> {
    Rng::new(seed).values(n, -1.0, 1.0)
}

/// The derivative written out point by point with explicit modular indices and the
/// coefficients summed in a loop, in f64: independent of `d8` and the reference's loops.
fn straightforward(grid: Grid3, dir: Direction, f: &[f64]) -> Vec<f64> {
    let (mx, my, mz) = (grid.nx as i64, grid.ny as i64, grid.nz as i64);
    let m = [mx, my, mz][dir as usize];
    let mut out = vec![0.0; grid.len()];
    for k in 0..mz {
        for j in 0..my {
            for i in 0..mx {
                let at = |o: i64| {
                    let (mut p, mut q, mut r) = (i, j, k);
                    match dir {
                        Direction::X => p = (i + o).rem_euclid(mx),
                        Direction::Y => q = (j + o).rem_euclid(my),
                        Direction::Z => r = (k + o).rem_euclid(mz),
                    }
                    f[(p + mx * (q + my * r)) as usize]
                };
                let s: f64 = (1..=4).map(|o| COEFFICIENTS[o as usize - 1] * (at(o) - at(-o))).sum();
                out[(i + mx * (j + my * k)) as usize] = s * m as f64;
            }
        }
    }
    out
}

#[test]
fn cpu_converges_at_eighth_order() {
    let field = TestField::default();
    let sizes = [16usize, 24, 32];
    for dir in Direction::ALL {
        let errs: Vec<f64> = sizes
            .iter()
            .map(|&n| {
                let grid = Grid3::cube(n).unwrap();
                let f = field.sample::<f64>(grid).unwrap();
                let mut df = vec![0.0; grid.len()];
                cpu::derivative(grid, dir, &f, &mut df).unwrap();
                field.errors(grid, dir, &df).unwrap().max
            })
            .collect();
        for w in 0..sizes.len() - 1 {
            let order = (errs[w] / errs[w + 1]).ln() / (sizes[w + 1] as f64 / sizes[w] as f64).ln();
            println!(
                "d/d{dir}: max error {:.3e} at {}³ → {:.3e} at {}³: order {order:.2}",
                errs[w],
                sizes[w],
                errs[w + 1],
                sizes[w + 1]
            );
            assert!(order >= 7.5, "d/d{dir}: observed order {order:.2} between {} and {}", sizes[w], sizes[w + 1]);
        }
    }
}

#[test]
fn cpu_error_reaches_round_off_and_f32_tracks_f64() {
    // At 64³ the truncation error (~1e-10 relative) is far below f32 round-off.
    let field = TestField { k: [1, 2, 1] };
    let grid = Grid3::unit_cube(64, 40, 33).unwrap();
    for dir in Direction::ALL {
        let f = field.sample::<f32>(grid).unwrap();
        let mut df = vec![0.0f32; grid.len()];
        cpu::derivative(grid, dir, &f, &mut df).unwrap();
        let e = field.errors(grid, dir, &df).unwrap();
        assert!(e.max <= 1e-5 * e.max_exact * 10.0, "f32 d/d{dir}: {e:?}");
        assert!(e.rms <= e.max);
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    /// The reference against the straightforward stencil, f64, random fields and small sizes.
    #[test]
    fn cpu_matches_straightforward(mx in 9usize..24, my in 9usize..24, mz in 9usize..24, seed: u64) {
        let grid = Grid3::unit_cube(mx, my, mz).unwrap();
        let f = values::<f64>(seed, grid.len());
        for dir in Direction::ALL {
            let want = straightforward(grid, dir, &f);
            let mut got = vec![f64::NAN; grid.len()];
            cpu::derivative(grid, dir, &f, &mut got).unwrap();
            let tol = 1e-12 * grid.m(dir) as f64;
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                prop_assert!((g - w).abs() <= tol, "{grid} d/d{dir} at {i}: {g} vs {w}");
            }
        }
    }
}

/// Sizes worth testing: the stencil width and neighbours, tile multiples ± 1, primes.
fn awkward_dim() -> impl Strategy<Value = usize> {
    prop_oneof![
        prop::sample::select(vec![9usize, 10, 11, 12, 13, 16, 17, 31, 32, 33, 40, 63, 64, 65, 70, 97, 127, 129]),
        9usize..80,
    ]
}

/// Every variant of precision `T` against the CPU reference on `grid`, outputs poisoned, within
/// `tol` (`GPU_F32`, `GPU_F64`) of m·max|f|.
fn check_variants<T: GpuReal>(grid: Grid3, seed: u64, tol: Tolerance) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let f = values::<T>(seed, grid.len());
    let max_f = f.iter().fold(0.0f64, |a, v| a.max(v.abs().to_f64()));
    let src = gpu.upload(&f).unwrap();
    let mut dst = gpu.upload(&vec![poison::<T>(); grid.len()]).unwrap();
    for dir in Direction::ALL {
        let mut want = vec![T::ZERO; grid.len()];
        cpu::derivative(grid, dir, &f, &mut want).unwrap();
        let tol = tol.scaled(max_f * grid.m(dir) as f64);
        let at =
            |idx: usize| format!("({}, {}, {})", idx % grid.nx, idx / grid.nx % grid.ny, idx / (grid.nx * grid.ny));
        for v in Variant::along(dir) {
            gpu.write(&vec![poison::<T>(); grid.len()], &mut dst).unwrap();
            Plan::<T>::new(&gpu, grid, v).unwrap().run(&src, &mut dst).unwrap();
            let got = gpu.download(&dst).unwrap();
            tol.check_at(&format!("{v} on {grid}"), &got, &want, at)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(32), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn gpu_matches_cpu(mx in awkward_dim(), my in awkward_dim(), mz in awkward_dim(), seed: u64) {
        let grid = Grid3::unit_cube(mx, my, mz).unwrap();
        check_variants::<f32>(grid, seed, GPU_F32)?;
        check_variants::<f64>(grid, seed, GPU_F64)?;
    }
}

/// Fixed awkward grids every run sees: mixed, tiny, multi-tile and multi-segment ones.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_matches_cpu_on_fixed_awkward_grids() {
    for (mx, my, mz) in [(9, 9, 9), (9, 40, 13), (10, 17, 33), (65, 9, 11), (33, 130, 9), (9, 11, 200), (129, 65, 10)] {
        let grid = Grid3::unit_cube(mx, my, mz).unwrap();
        check_variants::<f32>(grid, 7, GPU_F32).unwrap();
        check_variants::<f64>(grid, 7, GPU_F64).unwrap();
    }
}

/// More than 65535 outer pencils: the kernels' grid-stride loops over y and z blocks.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_grid_stride_past_65535_blocks() {
    let grid = Grid3::unit_cube(9, 9, 65600).unwrap();
    check_variants::<f32>(grid, 3, GPU_F32).unwrap();
}

/// A grid that skipped the checks, as a caller could build one by hand.
fn unchecked(mx: usize, my: usize, mz: usize) -> Grid3 {
    let d = |m: usize| 1.0 / m.max(1) as f64;
    Grid3 { nx: mx, ny: my, nz: mz, dx: d(mx), dy: d(my), dz: d(mz), origin: (0.0, 0.0, 0.0), halo: 0 }
}

#[test]
fn cpu_rejects_dimensions_below_the_stencil() {
    for (mx, my, mz) in [(0, 9, 9), (1, 9, 9), (9, 5, 9), (9, 9, 8), (8, 8, 8)] {
        let err = Grid3::unit_cube(mx, my, mz).unwrap_err().to_string();
        assert!(err.contains("below 9"), "{err}");
        let grid = unchecked(mx, my, mz);
        let n = grid.len();
        for dir in Direction::ALL {
            let mut df = vec![0.0f64; n];
            assert!(cpu::derivative(grid, dir, &vec![0.0; n], &mut df).is_err());
        }
        assert!(TestField::default().sample::<f32>(grid).is_err());
    }
}

#[test]
fn cpu_rejects_wrong_lengths_and_huge_grids() {
    let grid = Grid3::cube(9).unwrap();
    let mut df = vec![0.0f32; grid.len() - 1];
    assert!(cpu::derivative(grid, Direction::X, &vec![0.0; grid.len()], &mut df).is_err());
    assert!(Grid3::unit_cube(1 << 31, 9, 9).is_err());
    assert!(Grid3::unit_cube(1 << 30, 1 << 30, 1 << 30).is_err());
}

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn gpu_rejects_dimensions_below_the_stencil_and_wrong_lengths() {
    let gpu = gpu();
    let bad = unchecked(8, 9, 9);
    let f = gpu.upload(&vec![0.0f64; bad.len()]).unwrap();
    let mut df = gpu.upload(&vec![0.0f64; bad.len()]).unwrap();
    for v in Variant::ALL {
        let err = hydrokern::fd3d::gpu::derivative(&gpu, bad, v, &f, &mut df).unwrap_err();
        assert!(err.to_string().contains("below 9"), "{v}: {err}");
    }
    let good = Grid3::cube(9).unwrap();
    for v in Variant::ALL {
        assert!(hydrokern::fd3d::gpu::derivative(&gpu, good, v, &f, &mut df).is_err(), "{v}: wrong length accepted");
    }
}

#[test]
fn variant_names_round_trip() {
    for v in Variant::ALL {
        assert_eq!(v.name().parse::<Variant>().unwrap(), v);
        assert!(v.name().starts_with(v.direction().name()));
    }
    let err = "y-8pencil".parse::<Variant>().unwrap_err().to_string();
    assert!(err.contains("y-8pencil") && err.contains("x-4pencil") && err.contains("z-stream"), "{err}");
}

/// Launch shapes stay within every GPU's defaults (48 KiB shared, 1024 threads, y/z grid
/// dimensions ≤ 65535) for any grid, so no variant needs the shared-memory opt-in.
#[test]
fn launch_shapes_fit_default_limits() {
    let dims = [9usize, 10, 64, 65, 511, 512, 4097, 70000];
    for &mx in &dims {
        for &my in &dims {
            for &mz in &dims {
                let Ok(grid) = Grid3::unit_cube(mx, my, mz) else { continue };
                if grid.len() > 1 << 36 {
                    continue; // beyond any GPU's memory
                }
                for v in Variant::ALL {
                    for (shape, tile) in [
                        plan_for::<f32>(grid, v, 132).map(|(s, p)| (s, p.tile)).unwrap(),
                        plan_for::<f64>(grid, v, 132).map(|(s, p)| (s, p.tile)).unwrap(),
                    ] {
                        assert!(shape.shared_bytes <= 48 * 1024, "{v} {grid}: {shape:?}");
                        assert!(shape.threads_per_block() <= 1024, "{v} {grid}: {shape:?}");
                        assert!(shape.grid.1 <= 65535 && shape.grid.2 <= 65535, "{v} {grid}: {shape:?}");
                        assert!(tile >= 1, "{v} {grid}: tile {tile}");
                    }
                }
            }
        }
    }
}
