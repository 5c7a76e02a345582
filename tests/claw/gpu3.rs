//! The 3D core kernels against the 3D CPU reference (`Claw3`), acoustics_3d: one sweep along
//! x, y and z, every limiter, both precisions, random admissible states and media, random
//! sides, awkward sizes (around 29 and 32 cells, the x-sweep's warp and the y- and z-sweeps'
//! segments), the output buffer poisoned; the ghost fill of every axis; and the sweeps of a
//! whole Godunov and Strang trial step queued as a step queues them (ghost fills, stages,
//! buffer order, fractions of Δt, the rates of every stage); and whole steps decided on the
//! device (`GpuClaw3`), a rejection forced, against `Claw3::step`.

use crate::common::{self, Tolerance, cases, gpu};
use crate::gpu::GPU_SWEEP;
use hydrokern::claw::d3::cpu::{Claw3, Setup3};
use hydrokern::claw::d3::gpu::{GpuClaw3, GpuSweeps3, Shapes3, stages3, state_buffers};
use hydrokern::claw::gpu::planes;
use hydrokern::claw::{Acoustics3d, Cfl, Limiter, Splitting};
use hydrokern::{GpuReal, Rng};
use kernels::claw::clock::FIRST_ORDER;
use kernels::halo::{EXTRAPOLATE, PERIODIC, WALL};
use proptest::prelude::*;

type Run<T> = Claw3<T, Acoustics3d, 4, 2, 2>;
type Sweeps<T> = GpuSweeps3<T, Acoustics3d, 4, 2, 2>;

/// Random sides (periodic in pairs).
fn sides(rng: &mut Rng) -> [u32; 6] {
    let mut bc = [0; 6];
    for axis in 0..3 {
        if rng.next_u64().is_multiple_of(3) {
            (bc[2 * axis], bc[2 * axis + 1]) = (PERIODIC, PERIODIC);
        } else {
            for side in 0..2 {
                bc[2 * axis + side] = if rng.next_u64().is_multiple_of(2) { WALL } else { EXTRAPOLATE };
            }
        }
    }
    bc
}

/// A run of random admissible states and media on an n[0] × n[1] × n[2] grid.
fn run<T: GpuReal>(n: [usize; 3], limiter: Limiter, splitting: Splitting, seed: u64) -> Run<T> {
    let mut rng = Rng::new(seed);
    let cells = n[0] * n[1] * n[2];
    let setup = Setup3 {
        nx: n[0],
        ny: n[1],
        nz: n[2],
        dx: 0.5,
        dy: 0.25,
        dz: 0.4,
        bc: sides(&mut rng),
        limiter,
        splitting,
        cfl: Cfl::default(),
    };
    let mut u = |lo: f64, hi: f64| T::from_f64(lo + (hi - lo) * rng.unit());
    let q: Vec<[T; 4]> = (0..cells).map(|_| [u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0)]).collect();
    let aux: Vec<[T; 2]> = (0..cells).map(|_| [u(0.5, 3.0), u(0.5, 4.0)]).collect();
    Claw3::new(Acoustics3d, setup, &q, &aux).unwrap()
}

/// Buffer `b`'s interior cells of component m (x fastest), from the kernels' planes.
fn interior<T: GpuReal>(s: &Setup3, host: &[T], b: usize, m: usize) -> Vec<T> {
    let l = s.layout();
    let base = (b * 4 + m) * l.len();
    (0..s.nx * s.ny * s.nz)
        .map(|c| host[base + l.at((c % s.nx) as i32, ((c / s.nx) % s.ny) as i32, (c / s.nx / s.ny) as i32)])
        .collect()
}

fn what(s: &Setup3, label: &str, m: usize, name: &str) -> String {
    format!(
        "acoustics-3d {name} {} {label}, {}×{}×{}, sides {:?}, component {m}",
        s.limiter.name(),
        s.nx,
        s.ny,
        s.nz,
        s.bc
    )
}

/// One sweep along `dir` on both sides (the GPU's in launch shapes `shapes`): the interior
/// cells and the rates (max |s|/Δ).
fn check_sweep<T: GpuReal>(run: &Run<T>, dir: usize, shapes: Shapes3) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let s = *run.setup();
    let dt = 0.9 * run.clock().next_dt().min(1e3);
    let (input, aux) = run.sweep_input(dir);
    let mut want = input.clone();
    let rate_want = run.sweep(&mut want, dir, dt);
    let mut k = Sweeps::<T>::with_shapes(&gpu, s, shapes).unwrap();
    // The input in buffer 0, the output buffer (1) poisoned.
    let mut states = gpu.upload(&state_buffers(&input, common::poison::<T>())).unwrap();
    let aux = gpu.upload(&planes(aux)).unwrap();
    let rate = k.sweep(&gpu, Acoustics3d, dir, &mut states, &aux, dt).unwrap();
    let got = gpu.download(&states).unwrap();
    let want = planes(&want);
    for m in 0..4 {
        let w = interior(&s, &want, 0, m);
        GPU_SWEEP.scaled(common::magnitude(&w)).check(
            &what(&s, &format!("along {dir}"), m, T::NAME),
            &interior(&s, &got, 1, m),
            &w,
        )?;
    }
    prop_assert!((rate - rate_want).abs() <= 1e-5 * rate_want.max(1e-30), "rate {rate} against {rate_want}");
    Ok(())
}

/// The ghost fill across `dir` on both sides, bit for bit over the whole padded buffer.
fn check_ghosts<T: GpuReal>(run: &Run<T>, dir: usize) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let s = *run.setup();
    let (want, _) = run.sweep_input(dir);
    let (padded, _) = run.padded();
    let mut k = Sweeps::<T>::new(&gpu, s).unwrap();
    let mut states = gpu.upload(&state_buffers(padded, common::poison::<T>())).unwrap();
    k.fill(dir, 0, &mut states).unwrap();
    let got = gpu.download(&states).unwrap();
    let n = 4 * s.layout().len();
    Tolerance::BITS.check(&what(&s, &format!("ghosts across {dir}"), 0, T::NAME), &got[..n], &planes(&want))?;
    Ok(())
}

/// The sweeps of one trial step as a step queues them: for each stage the ghost fill of its
/// input and the sweep, in the first buffer order, against the CPU reference's trial (state and
/// rate), within one sweep's tolerance per sweep.
fn check_trial<T: GpuReal>(run: &Run<T>) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let s = *run.setup();
    let dt = 0.9 * run.clock().next_dt().min(1e3);
    let (want, rate_want) = run.trial(dt);
    let (padded, aux) = run.padded();
    let mut k = Sweeps::<T>::new(&gpu, s).unwrap();
    let mut states = gpu.upload(&state_buffers(padded, common::poison::<T>())).unwrap();
    let aux = gpu.upload(&planes(aux)).unwrap();
    k.set_dt(&gpu, dt).unwrap();
    let stages = stages3(s.splitting);
    for (stage, &(dir, _)) in stages.iter().enumerate() {
        k.fill(dir, stage, &mut states).unwrap();
        k.enqueue(Acoustics3d, s.splitting, stage, &mut states, &aux).unwrap();
    }
    let rate = k.step_rate(&gpu, s.splitting).unwrap();
    let got = gpu.download(&states).unwrap();
    let (last, want) = (FIRST_ORDER[stages.len()] as usize, planes(&want));
    for m in 0..4 {
        let w = interior(&s, &want, 0, m);
        let label = format!("{:?} trial step", s.splitting);
        GPU_SWEEP.times(stages.len() as f64).scaled(common::magnitude(&w)).check(
            &what(&s, &label, m, T::NAME),
            &interior(&s, &got, last, m),
            &w,
        )?;
    }
    prop_assert!((rate - rate_want).abs() <= 1e-5 * rate_want.max(1e-30), "step rate {rate} against {rate_want}");
    Ok(())
}

/// Every check of one draw at precision T.
fn check_all<T: GpuReal>(n: [usize; 3], limiter: Limiter, dir: usize, seed: u64) -> Result<(), TestCaseError> {
    let r = run::<T>(n, limiter, Splitting::Godunov, seed);
    check_ghosts(&r, dir)?;
    check_sweep(&r, dir, Shapes3::default())
}

fn awkward() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![1usize, 2, 3, 28, 29, 30, 31, 32, 33, 58, 59, 64, 65]), 1usize..70]
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn claw3_sweeps_match_cpu(nx in awkward(), ny in awkward(), nz in awkward(), limiter in prop::sample::select(Limiter::ALL.to_vec()), dir in 0usize..3, seed: u64) {
        check_all::<f64>([nx, ny, nz], limiter, dir, seed)?;
        check_all::<f32>([nx, ny, nz], limiter, dir, seed)?;
    }
}

/// Sizes past one warp and segment along every axis, every limiter and axis, both precisions.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn claw3_sweeps_match_cpu_at_fixed_sizes() {
    for n in [[1, 1, 1], [29, 33, 32], [59, 31, 65], [30, 64, 33]] {
        for limiter in Limiter::ALL {
            for dir in 0..3 {
                check_all::<f64>(n, limiter, dir, 7).unwrap();
                check_all::<f32>(n, limiter, dir, 7).unwrap();
            }
        }
    }
}

/// The launch shapes are run-time parameters: the same cells in any valid shape.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn claw3_sweeps_match_cpu_in_any_launch_shape() {
    let shapes = [
        Shapes3 { x: (1, 1, 1), y: (32, 1, 1), z: (32, 1, 1) },
        Shapes3 { x: (4, 2, 5), y: (32, 4, 7), z: (64, 4, 9) },
        Shapes3 { x: (1, 8, 32), y: (128, 2, 40), z: (32, 8, 3) },
    ];
    for s in shapes {
        for dir in 0..3 {
            check_sweep(&run::<f64>([45, 37, 70], Limiter::Mc, Splitting::Godunov, 5), dir, s).unwrap();
            check_sweep(&run::<f32>([70, 33, 41], Limiter::Superbee, Splitting::Godunov, 6), dir, s).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(12), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn claw3_trial_steps_match_cpu(nx in awkward(), ny in awkward(), nz in awkward(), limiter in prop::sample::select(Limiter::ALL.to_vec()), seed: u64) {
        for splitting in [Splitting::Godunov, Splitting::Strang] {
            check_trial(&run::<f64>([nx, ny, nz], limiter, splitting, seed))?;
            check_trial(&run::<f32>([nx, ny, nz], limiter, splitting, seed))?;
        }
    }
}

/// Whole steps on the device against `Claw3::step`, from the same state and clock, the first
/// forced to be rejected (a Δt twice too long): the same rejections, Δt and CFL within the 2D
/// test's bound, states within [`GPU_SWEEP`] a sweep; then a one-call advance to a time that
/// must land on it with the same steps.
fn check_steps3<T: GpuReal>(mut cpu: Run<T>, steps: usize) -> Result<(), TestCaseError> {
    let gpu = gpu();
    cpu.set_next_dt(2.0 * cpu.clock().next_dt().min(1e3) / 0.9);
    let mut dev = GpuClaw3::new(&gpu, Acoustics3d, &cpu).unwrap();
    let tol = 20.0 * 256.0 * T::EPSILON.to_f64();
    for k in 0..steps {
        let (a, b) = (cpu.step(1e9).unwrap(), dev.step(&gpu, 1e9).unwrap());
        prop_assert_eq!(a.rejected, b.rejected, "step {}: rejections", k);
        prop_assert!(k > 0 || a.rejected >= 1, "the forced rejection did not happen");
        prop_assert!((a.dt - b.dt).abs() <= tol * a.dt, "step {}: Δt {} against {}", k, b.dt, a.dt);
        prop_assert!((a.cfl - b.cfl).abs() <= tol, "step {}: CFL {} against {}", k, b.cfl, a.cfl);
    }
    // Half way between step counts, as the 2D test's advance.
    let t = cpu.clock().time() + 2.5 * cpu.clock().next_dt();
    cpu.advance_to(t).unwrap();
    let c = dev.advance(&gpu, t, u64::MAX, None).unwrap();
    prop_assert!(c.halt().is_none() && c.time() == t, "the GPU stopped at t = {} of {t}", c.time());
    prop_assert_eq!(c.steps(), cpu.clock().steps());
    let s = *cpu.setup();
    let sweeps = stages3(s.splitting).len() * cpu.clock().steps() as usize;
    let (want, got) = (cpu.state(), dev.state(&gpu).unwrap());
    for m in 0..4 {
        let w: Vec<T> = want.iter().map(|c| c[m]).collect();
        let g: Vec<T> = got.iter().map(|c| c[m]).collect();
        GPU_SWEEP.times(sweeps as f64).scaled(common::magnitude(&w)).check(
            &what(&s, "whole steps", m, T::NAME),
            &g,
            &w,
        )?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(8), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn claw3_steps_match_cpu(nx in awkward(), ny in awkward(), nz in awkward(), limiter in prop::sample::select(Limiter::ALL.to_vec()), seed: u64) {
        for splitting in [Splitting::Godunov, Splitting::Strang] {
            check_steps3(run::<f64>([nx, ny, nz], limiter, splitting, seed), 6)?;
            check_steps3(run::<f32>([nx, ny, nz], limiter, splitting, seed), 6)?;
        }
    }
}

/// As the 2D test of the same name: shapes changed between steps of a running 3D simulation
/// (the tuner's way) leave it exactly as under one shape.
fn shapes_changed_between_steps3<T: GpuReal>() {
    let gpu = gpu();
    let cpu = run::<T>([45, 37, 33], Limiter::Mc, Splitting::Strang, 9);
    let same = GpuClaw3::new(&gpu, Acoustics3d, &cpu).unwrap();
    let changing = GpuClaw3::new(&gpu, Acoustics3d, &cpu).unwrap();
    let cycle = [
        Shapes3 { x: (1, 1, 1), y: (32, 1, 1), z: (32, 1, 1) },
        Shapes3 { x: (8, 1, 16), y: (128, 2, 64), z: (32, 8, 16) },
        Shapes3 { x: (1, 8, 3), y: (32, 4, 16), z: (256, 1, 64) },
        Shapes3::default(),
    ];
    crate::gpu::same_steps_in_changing_shapes(&gpu, same, changing, &cycle, 16);
}

#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn shapes_changed_between_steps_change_nothing() {
    shapes_changed_between_steps3::<f64>();
    shapes_changed_between_steps3::<f32>();
}

/// As the 2D test of the same name: batches queued as graphs step a 3D run exactly as launches
/// one by one.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn steps_in_graphs_are_the_steps_launched_one_by_one() {
    fn check<T: GpuReal>() {
        let gpu = gpu();
        let cpu = run::<T>([45, 37, 33], Limiter::Mc, Splitting::Strang, 10);
        let plain = GpuClaw3::new(&gpu, Acoustics3d, &cpu).unwrap();
        let graphed = GpuClaw3::new(&gpu, Acoustics3d, &cpu).unwrap();
        let shapes = Shapes3 { x: (1, 8, 3), y: (32, 4, 16), z: (256, 1, 64) };
        crate::gpu::same_steps_in_graphs(&gpu, plain, graphed, shapes);
    }
    check::<f64>();
    check::<f32>();
}
