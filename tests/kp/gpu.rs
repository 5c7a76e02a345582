//! The GPU kernels against the CPU reference (and a few CPU-only checks of the early-exit
//! machinery they rely on).

use super::BLOCK;
use hydrokern::Real;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Boundary, Problem, Scheme, WetDry, setup};

use crate::common::{self, Tolerance, cases, gpu};
use hydrokern::GpuReal;
use hydrokern::accumulation::Accumulation;
use hydrokern::kp::gpu::{FluxKernel, FluxVariant, GpuKp, Launch};
use proptest::prelude::*;

/// A random smooth state with wet, dry and shoreline cells: a wavy bed, a surface that cuts
/// it (or, for `kind` 1, a column of water in a dry domain, so whole blocks are dry), smooth
/// velocities where wet, random boundary conditions (walls, outflow, normal-depth, periodic) and
/// friction: none, one n, or n per cell (the per-cell RK kernel) with cells of no friction
/// among them.
pub(super) fn random_state(nx: usize, ny: usize, seed: u64, kind: u8) -> Problem {
    let mut rng = hydrokern::Rng::new(seed);
    let mut rnd = move || rng.unit();
    let (lx, ly) = (nx as f64 * (0.5 + rnd()), ny as f64 * (0.5 + rnd()));
    let mut p = Problem::new(nx, ny, lx, ly);
    let (kx, ky, ph, amp) = (0.5 + 2.0 * rnd(), 0.5 + 2.0 * rnd(), 6.0 * rnd(), 0.8 * rnd());
    p.set_bed(|x, y| amp * (kx * x / lx * 6.0 + ph).sin() * (ky * y / ly * 6.0).cos() + 0.1 * x / lx);
    let level = 0.2 + 0.6 * rnd();
    let (cx, cy, r) = (lx * rnd(), ly * rnd(), 0.2 * lx.max(ly) + 1.0);
    p.set_surface(|x, y| match kind {
        1 => {
            if (x - cx).powi(2) + (y - cy).powi(2) < r * r {
                1.5
            } else {
                -10.0
            }
        }
        _ => level + 0.1 * (3.0 * x / lx + ph).cos(),
    });
    for c in 0..nx * ny {
        let (x, y) = p.centre(c % nx, c / nx);
        let h = p.h[c];
        p.hu[c] = h * 0.5 * (2.0 * y / ly + ph).sin();
        p.hv[c] = h * 0.4 * (3.0 * x / lx).cos();
    }
    let pairs = [Boundary::Wall, Boundary::Outflow, Boundary::Periodic];
    let (a, b) = (pairs[(rnd() * 3.0) as usize % 3], pairs[(rnd() * 3.0) as usize % 3]);
    let other = |s: Boundary, r: f64| {
        if s == Boundary::Periodic {
            s
        } else if r < 0.5 {
            Boundary::Wall
        } else {
            Boundary::Outflow
        }
    };
    p.boundary = [a, other(a, rnd()), b, other(b, rnd())];
    // Half the outflow sides normal-depth, by the seed's bits (no draw: the other draws stay).
    for s in 0..4 {
        if p.boundary[s] == Boundary::Outflow && (seed >> (8 + s)) & 1 == 1 {
            p.boundary[s] = Boundary::NormalDepth;
        }
    }
    repeat_bed(&mut p);
    let friction = rnd();
    if friction < 0.5 {
        p.manning = if friction < 0.25 { 0.0 } else { 0.03 };
    } else {
        p.manning_field = Some(
            (0..nx * ny)
                .map(|_| {
                    let r = rnd();
                    if r < 0.2 { 0.0 } else { 0.12 * r }
                })
                .collect(),
        );
    }
    p.scheme = match rnd() {
        r if r < 0.2 => Scheme::Euler,
        r if r < 0.4 => Scheme::Srk2,
        r if r < 0.5 => Scheme::Ds1,
        r if r < 0.6 => Scheme::Ds2,
        _ => Scheme::Rk2,
    };
    p
}

/// Make the bed repeat across periodic sides, as a problem with them must (`Problem::validate`):
/// the last node row (column) becomes the first.
fn repeat_bed(p: &mut Problem) {
    let (nx, ny) = (p.nx, p.ny);
    for j in 0..=ny {
        for i in 0..=nx {
            let (si, sj) = (
                if p.boundary[0] == Boundary::Periodic && i == nx { 0 } else { i },
                if p.boundary[2] == Boundary::Periodic && j == ny { 0 } else { j },
            );
            p.bed[j * (nx + 1) + i] = p.bed[sj * (nx + 1) + si];
        }
    }
}

/// Largest |x| of a field's interior, at least 1 (the scale of the absolute tolerances).
fn scale<T: Real>(p: &Problem, f: &[T]) -> f64 {
    common::magnitude(&p.interior(f))
}

/// GPU against CPU after a number of steps, per step and relative to the field's magnitude
/// ([`scale`]; for the clock, to t). Both evaluate the same point functions; the GPU contracts
/// multiply-adds and, in f32, takes the wave speeds' square roots and reciprocals from the
/// approximate instructions (≤ 2 ulp each), a few ε in each of the few hundred operations of a
/// cell's step, which a stable step carries forward: 256 ε per step (f64 ≈ 6e-14, f32 ≈ 3e-5).
pub(super) const GPU_STEP: Tolerance = Tolerance::eps(256.0);
/// The flux kernels alone against the CPU's R, relative to the field's magnitude: R divides
/// flux differences by Δx, so the GPU's contracted rounding (and in f32 its approximate square
/// roots and reciprocals of the wave speeds) shows up amplified by 1/Δx relative to the state;
/// 45 000 ε (1e-11 in f64, 5e-3 in f32) covers the cells of the test's small grids.
const FLUX: Tolerance = Tolerance::eps(45_000.0);
/// The largest rate: a max over the same speeds, each a few ε from the CPU's (4 500 ε: 1e-12 in
/// f64, 5e-4 in f32).
const RATE: Tolerance = Tolerance::eps(4_500.0);

/// Launch steps until the GPU's clock counts `steps` (a split scheme's discarded step advances
/// nothing and counts as none), poisoning the outputs before each with `poison`: at most
/// 8 launches a step, so a run that discards every step fails.
pub(super) fn gpu_steps<T: GpuReal>(
    gpu: &hydrokern::Gpu,
    m: &mut GpuKp<T>,
    kernel: FluxKernel,
    steps: u64,
    poison: bool,
) {
    let mut launched = 0;
    while m.clock(gpu).unwrap().steps < steps {
        assert!(launched < 8 * steps + 8, "{launched} launches for {steps} steps");
        if poison {
            m.poison().unwrap();
        }
        m.step(kernel).unwrap();
        launched += 1;
    }
}

/// How many RK2 steps' rounding a step of `scheme` carries: DS1's two Euler substeps, DS2's
/// four RK2 ones; SRK2's step is RK2's with R's two parts rounded apart before they are added
/// (measured on an H100: 1.82e-12 against RK2's bound of 1.74e-12 in f64 w after 20 steps of a
/// column in a dry periodic domain, `bollermann`).
fn substeps(scheme: Scheme) -> f64 {
    match scheme {
        Scheme::Srk2 | Scheme::Ds1 => 2.0,
        Scheme::Ds2 => 4.0,
        _ => 1.0,
    }
}

/// GPU against CPU after `steps` steps, every padded cell of every field within [`GPU_STEP`]; in
/// DS1 and DS2 also the Δt estimates (as the clock) and the discarded steps; with forcing, its
/// clock and the soil's totals.
pub(super) fn check_gpu<T: GpuReal>(
    p: &Problem,
    Launch { block, flux, line }: Launch,
    early: bool,
    fused: bool,
    steps: usize,
) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let mut cpu_m = CpuKp::<T>::new(p, block, early).unwrap();
    let mut gpu_m = GpuKp::<T>::new(&gpu, p, Launch { block, flux, line }).unwrap();
    gpu_m.set_fused(fused);
    let kernel = if early { FluxKernel::EarlyExit } else { FluxKernel::Full };
    if p.scheme.is_split() {
        // As many steps as the CPU counts: none where the state is still (Δt = 0 with no stop).
        for _ in 0..steps {
            cpu_m.step(f64::INFINITY).unwrap();
        }
        gpu_steps(&gpu, &mut gpu_m, kernel, cpu_m.steps(), true);
    } else {
        for _ in 0..steps {
            gpu_m.poison().unwrap();
            gpu_m.step(kernel).unwrap();
            cpu_m.step(f64::INFINITY).unwrap();
        }
    }
    let g = gpu_m.download(&gpu).unwrap();
    let clock = gpu_m.clock(&gpu).unwrap();
    let what = format!(
        "{} {} {} {}×{} {:?} wet–dry {} friction {} block {block:?} flux {} early {early} fused {fused} after {steps} steps",
        T::NAME,
        p.scheme.name(),
        p.accumulation_of::<T>(),
        p.nx,
        p.ny,
        p.boundary,
        p.wet_dry.name(),
        if p.manning_field.is_some() { "per cell".to_string() } else { format!("n = {}", p.manning) },
        if matches!(p.scheme, Scheme::Srk2 | Scheme::Ds1 | Scheme::Ds2) {
            format!("x-line {line}")
        } else {
            flux.describe()
        }
    );
    // A still state (a dry cell, say) takes steps of Δt = 0, which neither clock counts.
    prop_assert_eq!(clock.steps, cpu_m.steps(), "{}: clock steps", what);
    prop_assert!(
        cpu_m.steps() == steps as u64 || cpu_m.time() == 0.0,
        "{}: {} steps of {}",
        what,
        cpu_m.steps(),
        steps
    );
    let tol = GPU_STEP.times(steps as f64 * substeps(p.scheme));
    // The split schemes discard the same steps. Their Δt estimates are not compared one by one:
    // each is CFL over a largest wave speed, which a thin film's velocity amplifies the rounding
    // of (measured on an H100: 1.7e-3 relative in f32 `kp07` after 20 DS1 steps, 1.1e-10 in f64
    // `bollermann` after 20 DS2 steps, every field within its bound); the Δt they set is in t.
    if let Some((_, retries)) = cpu_m.split_state() {
        let (_, g_retries) = gpu_m.split_state(&gpu).unwrap().expect("the GPU runs the split scheme");
        prop_assert_eq!(g_retries, retries, "{}: discarded steps", what);
    }
    // t is f64 on both sides, but sums Δt = CFL/rate from speeds of precision T: each Δt carries
    // its rate's rounding, and where the fastest speed is a thin film's, the rounding of its
    // velocity hu/h, up to ε·|w|/dry relative (measured on an H100: t 8.7e-4 relative from the
    // CPU's in f32 after 20 RK2 steps of a column in a dry domain, `bollermann`, and DS2's
    // estimates 1.1e-10 in f64, with every field within its bound): the larger of the two a step.
    let per = steps as f64 * substeps(p.scheme);
    let film = scale(p, cpu_m.state()[0]) / cpu_m.coeffs().dry.to_f64();
    let bound = |t: Tolerance| t.times(per).scaled(cpu_m.time()).bound::<T>();
    let t_tol = bound(RATE).max(bound(Tolerance::eps(film)));
    prop_assert!((clock.t - cpu_m.time()).abs() <= t_tol, "{what}: t GPU {} vs CPU {}", clock.t, cpu_m.time());
    for (name, gf, cf) in
        [("w", &g[0], cpu_m.state()[0]), ("hu", &g[1], cpu_m.state()[1]), ("hv", &g[2], cpu_m.state()[2])]
    {
        // Every padded cell: interior and both ghost layers.
        tol.scaled(scale(p, cf)).check(&format!("{what}: {name}"), gf, cf)?;
    }
    if let Some((forced, f)) = cpu_m.forcing_state() {
        let (g_forced, g_f) = gpu_m.forcing_state(&gpu).unwrap().expect("the GPU forces as the CPU does");
        prop_assert!((g_forced - forced).abs() <= t_tol, "{what}: forcing clock GPU {g_forced} vs CPU {forced}");
        prop_assert_eq!(g_f.is_some(), f.is_some(), "{}: a soil on one side only", what);
        if let (Some(g_f), Some(f)) = (g_f, f) {
            tol.scaled(scale(p, f).max(scale(p, cpu_m.state()[0]) * T::EPSILON.to_f64())).check(
                &format!("{what}: infiltrated"),
                &g_f,
                f,
            )?;
        }
    }
    if let Some(cpu_v) = cpu_m.boundary_volumes() {
        let gpu_v = gpu_m.boundary_volumes(&gpu).unwrap().expect("the GPU measures the boundary as the CPU does");
        check_boundary::<T>(p, &what, &gpu_v, cpu_v, cpu_m.time(), per, t_tol, cpu_m.state())?;
    }
    // The compensated path: the surfaces w + low (their low parts may round the other way).
    if let Some(cpu_low) = cpu_m.low() {
        let gpu_low = gpu_m.download_low(&gpu).unwrap().expect("the GPU keeps w's low part as the CPU does");
        let surface =
            |w: &[T], low: &[T]| -> Vec<T> { p.interior(w).iter().zip(p.interior(low)).map(|(w, l)| *w + l).collect() };
        let (gs, cs) = (surface(&g[0], &gpu_low), surface(cpu_m.state()[0], cpu_low));
        tol.scaled(scale(p, cpu_m.state()[0])).check(&format!("{what}: w + low"), &gs, &cs)?;
    }
    Ok(())
}

/// The water account's boundary faces: what left and what came in through each face (value
/// plus low part, `CpuKp::boundary_volumes`), GPU against CPU, after `per` RK2 steps' worth of
/// stages to time `t` (the GPU's within `t_tol`) from the state `q`. Each face's volume sums
/// weight·Δt·flux·length over the stages: its flux is the flux kernels' of states within
/// [`GPU_STEP`] a step, recomputed by contracted arithmetic (in f32 with the approximate square
/// roots and reciprocals) as the flux kernels compute R, so within [`BOUNDARY`] of the largest
/// flux, (|hu|, |hv|) + √(g·h)·|w| at most; and its Δt is the GPU's, whose sum is within `t_tol`.
#[allow(clippy::too_many_arguments)]
fn check_boundary<T: GpuReal>(
    p: &Problem,
    what: &str,
    gpu_v: &[f64],
    cpu_v: &[f64],
    t: f64,
    per: f64,
    t_tol: f64,
    q: [&[T]; 3],
) -> Result<(), TestCaseError> {
    prop_assert_eq!(gpu_v.len(), cpu_v.len(), "{}: boundary faces", what);
    let n = cpu_v.len() / 4;
    // Each face's value + low part, what left (part 0) then what came in (part 1).
    let faces = |v: &[f64], part: usize| -> Vec<f64> {
        (0..n).map(|f| v[2 * part * n + f] + v[(2 * part + 1) * n + f]).collect()
    };
    let w = p.interior(q[0]);
    let h = w.iter().enumerate().fold(0.0f64, |m, (c, w)| m.max(w.to_f64() - p.cell_bed(c % p.nx, c / p.nx)));
    let flux = scale(p, q[1]).max(scale(p, q[2])) + (p.g * h.max(0.0)).sqrt() * scale(p, q[0]);
    let flow = flux * p.dx.max(p.dy);
    let bound = (BOUNDARY.times(per).bound::<T>() * t + t_tol) * flow;
    for (part, name) in [(0, "boundary out"), (1, "boundary in")] {
        Tolerance::abs(bound).check(&format!("{what}: {name} by face"), &faces(gpu_v, part), &faces(cpu_v, part))?;
    }
    Ok(())
}

/// A boundary face's flux, GPU against CPU, relative to the largest flux (see
/// [`check_boundary`]): as [`FLUX`], whose R is the same fluxes' differences over Δx.
const BOUNDARY: Tolerance = Tolerance::eps(45_000.0);

/// Streamed shapes with bands shorter and longer than the wet-map tiles.
pub(super) fn stream_variant() -> impl Strategy<Value = FluxVariant> {
    prop_oneof![
        Just(FluxVariant::STREAM),
        (1u32..5, prop::sample::select(vec![1u32, 2, 3, 7, 8, 13, 64]))
            .prop_map(|(warps, rows)| FluxVariant::Stream { warps, rows }),
    ]
}

pub(super) fn awkward_size() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), Just(2), Just(3), Just(7), Just(31), Just(33), Just(65), 1usize..90]
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    /// Every flux entry point (tile and streamed, full and early exit, each wet–dry scheme, f32
    /// and f64) in every case, the streamed one in a random shape, and the streamed one with
    /// RK2's second stage in it (`kp_flux_stream_rk`, the default; in RK2 and Euler cases) and
    /// without; the RK entry points (one n,
    /// n per cell) by the random friction, each in half the cases, and in f32 plain or
    /// compensated (`RK_C…`, w's low part compared as w + low) by the drawn accumulation; in a
    /// fifth of the cases SRK2 (its x-line and y-block kernels in place of the flux kernel, a
    /// random line length) against the CPU's RK2, which it is; in a tenth each DS1 and DS2 (the
    /// x-line kernel in both orientations, the transposing RK stages, Δt and the discarded
    /// steps on the device) against the CPU's split schemes; in a third of the other cases with
    /// inactive cells scattered at random.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn kp_gpu_matches_cpu(
        nx in awkward_size(),
        ny in awkward_size(),
        seed: u64,
        kind in 0u8..2,
        block in prop::sample::select(vec![(32u32, 8u32), (16, 16), (8, 4), (32, 1), (16, 2)]),
        stream in stream_variant(),
        steps in prop::sample::select(vec![1usize, 20]),
        line in prop::sample::select(vec![32u32, 64, 96, 128, 256]),
        accumulation in prop::sample::select(Accumulation::ALL.to_vec()),
        holes in 0u8..3,
    ) {
        let mut p = random_state(nx, ny, seed, kind);
        p.accumulation = accumulation;
        // In a third of the cases (not DS1, DS2: they have none) inactive cells at random.
        if holes == 0 && !matches!(p.scheme, Scheme::Ds1 | Scheme::Ds2) {
            super::inactive::scatter(&mut p, seed, 0.15);
        }
        for wet_dry in WetDry::GPU {
            p.wet_dry = wet_dry;
            // `clamp` in f32 one step only: it bounds a shore cell's velocity by its neighbours',
            // and the velocity of a cell just deeper than `dry` (1e-6 m here) is good only to
            // ulp(w)/h ≈ 10% in f32, so over many steps GPU and CPU may part by more than
            // rounding carried forward (measured on an H100: 1.4e-3 against a bound of 1.3e-3 in
            // hu after 20 steps). f64 (ulp(w)/h ≈ 2e-10) runs every step count;
            // `kp_gpu_clamp_drains_and_clamps_as_the_cpu` runs f32 over 20–40 steps on its cases.
            // The column in a dry domain (`kind` 1) one step in both precisions, in every scheme:
            // the films its front spreads have such velocities, and once one sets Δt, Δt carries
            // their rounding (ε·|w|/dry relative) into every cell's update. On a 65×7 grid after
            // 20 steps an H100 gives, in f32, 1.69e-3 against a bound of 1.57e-3 in hu (`kp07`
            // SRK2) and 8.4e-4 against 6.6e-4 in hv (`bollermann` RK2); in f64, 2.03e-12 against
            // 1.87e-12 in hu (`bollermann` RK2). Its first step has no films yet. The wavy shores
            // (`kind` 0) run every step count.
            let steps = if kind == 1 { 1 } else { steps };
            let steps32 = if wet_dry == WetDry::Clamp { 1 } else { steps };
            // SRK2, DS1 and DS2 launch their own flux kernels whatever the variant; the split
            // schemes have no early exit.
            let own = matches!(p.scheme, Scheme::Srk2 | Scheme::Ds1 | Scheme::Ds2);
            // The streamed kernel with RK2's second stage in it (the default) and apart.
            let fluxes = if own { vec![(FluxVariant::Tile, false)] } else { vec![(FluxVariant::Tile, false), (stream, true), (stream, false)] };
            let earlies: &[bool] = if p.scheme.is_split() { &[false] } else { &[false, true] };
            for (flux, fused) in fluxes {
                for &early in earlies {
                    let launch = Launch { block, flux, line };
                    check_gpu::<f32>(&p, launch, early, fused, steps32)?;
                    check_gpu::<f64>(&p, launch, early, fused, steps)?;
                }
            }
        }
    }
}

/// The flux kernels alone on one state: R and the per-block rates against the CPU's, with
/// the outputs poisoned first (a cell the kernel does not write stays NaN and fails); every flux
/// entry point: tile and streamed (two shapes), SRK2's x-line and y-block pair (R the sum of
/// their parts; lines of 32 and 128 cells), full and early exit, each wet–dry scheme, f32 and
/// f64.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_flux_kernels_match_cpu() {
    let gpu = gpu();
    flux_kernels_match_cpu::<f32>(&gpu);
    flux_kernels_match_cpu::<f64>(&gpu);
}

fn flux_kernels_match_cpu<T: GpuReal>(gpu: &hydrokern::Gpu) {
    for (seed, (nx, ny), wet_dry) in [(1u64, (67usize, 45usize)), (2, (33, 97)), (3, (1, 40))]
        .into_iter()
        .flat_map(|(s, n)| WetDry::GPU.map(|w| (s, n, w)))
    {
        // (flux variant, SRK2's line length or none)
        let kernels = [
            (FluxVariant::Tile, None),
            (FluxVariant::STREAM, None),
            (FluxVariant::Stream { warps: 3, rows: 5 }, None),
            (FluxVariant::Tile, Some(32)),
            (FluxVariant::Tile, Some(128)),
        ];
        for (early, (flux, split)) in [false, true].into_iter().flat_map(|e| kernels.map(|f| (e, f))) {
            let mut p = random_state(nx, ny, seed, (seed % 2) as u8);
            p.wet_dry = wet_dry;
            p.scheme = if split.is_some() { Scheme::Srk2 } else { Scheme::Rk2 };
            let block = (16, 8);
            let line = split.unwrap_or(Launch::default().line);
            let mut m = GpuKp::<T>::new(gpu, &p, Launch { block, flux, line }).unwrap();
            m.poison().unwrap();
            m.flux(if early { FluxKernel::EarlyExit } else { FluxKernel::Full }, false).unwrap();
            let res = m.download_residual(gpu).unwrap();
            let (r, rates) = (res.r, res.rates);
            let c = CpuKp::<T>::new(&p, block, early).unwrap();
            let k = *c.coeffs();
            let n = k.cells();
            let (mut rw, mut ru, mut rv) = (vec![T::ZERO; n], vec![T::ZERO; n], vec![T::ZERO; n]);
            let [w, hu, hv] = c.state();
            let wet = if early { Some(c.wet()) } else { None };
            let rate = hydrokern::kp::cpu::rhs(&k, p.wet_dry, w, hu, hv, c.bed(), wet, None, &mut rw, &mut ru, &mut rv);
            // With early exit R is left unwritten (still NaN) where the block is inactive; the
            // CPU has 0 there. Every other cell must match.
            let c_wet = c.wet();
            let active = |c: usize| {
                let (i, j) = ((c % nx) as u32, (c / nx) as u32);
                !early || kernels::kp::block_active(&k, i / k.bx, j / k.by, |a, b| c_wet[(b * k.nbx + a) as usize] != 0)
            };
            let mut inactive = 0;
            let kernel = split.map_or(flux.describe(), |l| format!("srk2 x-line {l}"));
            let what = format!("{} {nx}×{ny}, {}, early {early}, {kernel}", T::NAME, wet_dry.name());
            for (name, g, cpu) in [("R_w", &r[0], &rw), ("R_hu", &r[1], &ru), ("R_hv", &r[2], &rv)] {
                let (mut got, want) = (p.interior(g), p.interior(cpu));
                for (idx, (a, b)) in got.iter_mut().zip(&want).enumerate() {
                    if !active(idx) {
                        assert!(*b == T::ZERO, "{name}: CPU R of an inactive cell");
                        // Unwritten (NaN) on the GPU: R of an inactive block is 0 by definition.
                        *a = T::ZERO;
                        inactive += 1;
                    }
                }
                FLUX.scaled(scale(&p, cpu)).check(&format!("{what}: {name}"), &got, &want).unwrap();
            }
            println!("{what}: {} inactive cells", inactive / 3);
            let g_rate = rates.iter().fold(T::ZERO, |a, b| a.max(*b));
            RATE.scaled(rate.to_f64()).check_value(&format!("{what}: largest rate"), g_rate, rate).unwrap();
        }
    }
}

/// 30 RK2 steps of `p` on the GPU (block 32×8, flux kernel `flux`, outputs poisoned before
/// each), the second stage fused into the streamed flux kernel or not as `fused` says (or as
/// the scheme's default), early exit or not; the padded state after them.
fn thirty_steps<T: GpuReal>(
    gpu: &hydrokern::Gpu,
    p: &Problem,
    flux: FluxVariant,
    fused: Option<bool>,
    early: bool,
) -> [Vec<T>; 3] {
    let mut m = GpuKp::<T>::new(gpu, p, Launch { block: (32, 8), flux, ..Launch::default() }).unwrap();
    if let Some(on) = fused {
        m.set_fused(on);
    }
    gpu_steps(gpu, &mut m, if early { FluxKernel::EarlyExit } else { FluxKernel::Full }, 30, true);
    m.download(gpu).unwrap()
}

/// The first (field, cell) whose bits differ between two states, if any.
fn first_difference<T: GpuReal>(a: &[Vec<T>; 3], b: &[Vec<T>; 3]) -> Option<(usize, usize)> {
    (0..3).find_map(|f| {
        let k = a[f].iter().zip(&b[f]).position(|(u, v)| u.to_f64().to_bits() != v.to_f64().to_bits());
        k.map(|k| (f, k))
    })
}

/// A friction field equal to n everywhere gives, on the GPU, the bits of the constant n (the
/// per-cell RK kernel against the uniform one, outputs poisoned before each step): the Gaussian
/// hump on a slope and the flood (dry blocks), tile and streamed flux, early exit off and on,
/// both wet–dry schemes, f32 and f64, 30 RK2 steps.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_uniform_friction_field_gives_the_constants_bits() {
    let gpu = gpu();
    fn compare<T: GpuReal>(gpu: &hydrokern::Gpu, what: &str, constant: &Problem, field: &Problem) {
        for flux in [FluxVariant::Tile, FluxVariant::STREAM] {
            for early in [false, true] {
                let a = thirty_steps::<T>(gpu, constant, flux, None, early);
                let b = thirty_steps::<T>(gpu, field, flux, None, early);
                let at = first_difference(&a, &b);
                assert!(
                    at.is_none(),
                    "{what} {} {} early {early}: (field, cell) {at:?} differs",
                    T::NAME,
                    flux.describe()
                );
            }
        }
    }
    for (name, base) in [("gaussian 70×90", setup::gaussian(70, 90)), ("flood 96×80", setup::flood(96, 80))] {
        for wet_dry in WetDry::GPU {
            let mut constant = base.clone();
            (constant.wet_dry, constant.manning) = (wet_dry, 0.035);
            let mut field = constant.clone();
            field.manning = 0.0;
            field.manning_field = Some(vec![0.035; field.nx * field.ny]);
            let what = format!("{name} {}", wet_dry.name());
            compare::<f64>(&gpu, &what, &constant, &field);
            compare::<f32>(&gpu, &what, &constant, &field);
        }
    }
}

/// With friction, the step's kernels give a cell the same bits whichever of them updates it:
/// RK2's second stage inside the streamed flux kernel, apart from it, and the early-exit step
/// (its own stage kernel). The decomposed runs rely on it: a slab's cuts put a cell in other
/// blocks (`clamp`'s listed ones) than the whole grid does, and `auto`'s choice of the early-exit
/// kernel is timed per run. The Gaussian hump on a slope and the flood (dry blocks), every
/// wet–dry scheme, n constant and per cell, f32 and f64, 30 RK2 steps, outputs poisoned.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_friction_gives_the_same_bits_in_every_kernel() {
    let gpu = gpu();
    fn compare<T: GpuReal>(gpu: &hydrokern::Gpu, what: &str, p: &Problem) {
        let stream = FluxVariant::STREAM;
        let fused = thirty_steps::<T>(gpu, p, stream, Some(true), false);
        for (name, early) in [("apart", false), ("early exit", true)] {
            let at = first_difference(&fused, &thirty_steps::<T>(gpu, p, stream, Some(false), early));
            assert!(at.is_none(), "{what} {}: {name} differs from fused at (field, cell) {at:?}", T::NAME);
        }
    }
    for (name, base) in [("gaussian 70×90", setup::gaussian(70, 90)), ("flood 96×80", setup::flood(96, 80))] {
        for wet_dry in WetDry::GPU {
            let mut p = base.clone();
            (p.wet_dry, p.manning) = (wet_dry, 0.035);
            let what = format!("{name} {} n = 0.035", wet_dry.name());
            compare::<f64>(&gpu, &what, &p);
            compare::<f32>(&gpu, &what, &p);
            p.manning = 0.0;
            p.manning_field = Some((0..p.nx * p.ny).map(|c| 0.01 + 0.1 * (c % 7) as f64 / 7.0).collect());
            let what = format!("{name} {} n per cell", wet_dry.name());
            compare::<f64>(&gpu, &what, &p);
            compare::<f32>(&gpu, &what, &p);
        }
    }
}

/// Tiny and odd grids with every boundary condition step without trouble and stay finite.
#[test]
fn tiny_grids_with_every_boundary_run() {
    for (nx, ny) in [(1, 1), (1, 5), (2, 3), (3, 2), (5, 1)] {
        for bc in Boundary::ALL {
            for kind in 0..2 {
                let mut p = random_state(nx, ny, 7 + nx as u64, kind);
                p.boundary = [bc; 4];
                repeat_bed(&mut p);
                let mut m = CpuKp::<f64>::new(&p, BLOCK, kind == 1).unwrap();
                for _ in 0..5 {
                    m.step(f64::INFINITY).unwrap();
                }
                assert!(m.state().iter().all(|f| f.iter().all(|v| v.is_finite())), "{nx}×{ny} {bc:?}");
            }
        }
    }
}

#[test]
fn early_exit_matches_full_on_the_cpu() {
    let p = setup::flood(64, 64);
    let block = (8, 4);
    let mut full = CpuKp::<f64>::new(&p, block, false).unwrap();
    let mut early = CpuKp::<f64>::new(&p, block, true).unwrap();
    let dry_blocks = early.wet().iter().filter(|&&w| w == 0).count();
    assert!(dry_blocks > early.wet().len() / 2, "{dry_blocks} of {} blocks dry", early.wet().len());
    for _ in 0..60 {
        full.step(f64::INFINITY).unwrap();
        early.step(f64::INFINITY).unwrap();
    }
    let worst = (0..3)
        .flat_map(|f| full.state()[f].iter().zip(early.state()[f]).map(|(a, b)| (a - b).abs()))
        .fold(0.0f64, f64::max);
    println!("early exit vs full after 60 steps: max difference {worst:.2e} ({dry_blocks} dry blocks at the start)");
    assert!(worst <= 1e-9, "{worst}");
    // Shore cells of the wet–dry scheme (Thacker's bowl): any water flags a block, so the blocks
    // left out have R = 0 exactly and early exit gives the full update's bits.
    let p = setup::thacker(48);
    let mut full = CpuKp::<f64>::new(&p, block, false).unwrap();
    let mut early = CpuKp::<f64>::new(&p, block, true).unwrap();
    let dry_blocks = early.wet().iter().filter(|&&w| w == 0).count();
    assert!(dry_blocks > 0, "no dry block");
    for _ in 0..60 {
        full.step(f64::INFINITY).unwrap();
        early.step(f64::INFINITY).unwrap();
    }
    for f in 0..3 {
        assert!(full.state()[f] == early.state()[f], "Thacker: field {f} differs with early exit");
    }
}

/// The flood at 48² (the example's short run: its fronts spread films, κ^¼ = 2 cm) to t = 0.25 s
/// on the GPU and the CPU in every scheme, `clamp`, f64, early exit off and on: the same step
/// count and every field within [`GPU_STEP`] a step; then launches past `t_stop` (Δt = 0, as the
/// runner's batches of launches make) change no bit and count no step. `clamp`'s pass scales a
/// film's momenta whatever the stage did, so a launch of Δt = 0 that ran it would change the
/// state (the GPU's flood example once parted from the CPU's so). The CPU counts the cells its
/// pass changed, so the films are there (the test can fail).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_films_and_launches_past_t_stop() {
    let gpu = gpu();
    let t = 0.25;
    for scheme in [Scheme::Rk2, Scheme::Euler, Scheme::Srk2, Scheme::Ds1, Scheme::Ds2] {
        let earlies: &[bool] = if scheme.is_split() { &[false] } else { &[false, true] };
        for &early in earlies {
            let mut p = setup::flood(48, 48);
            (p.wet_dry, p.scheme) = (WetDry::Clamp, scheme);
            let what = format!("flood 48² {} early {early}", scheme.name());
            let mut c = CpuKp::<f64>::new(&p, BLOCK, early).unwrap();
            while c.time() < t {
                c.step(t).unwrap();
            }
            let (_, clamped) = c.clamp_counts().unwrap();
            assert!(clamped > 0, "{what}: the CPU's pass changed no cell");
            let mut g = GpuKp::<f64>::new(&gpu, &p, Launch { block: BLOCK, ..Launch::default() }).unwrap();
            g.set_stop(t);
            let kernel = if early { FluxKernel::EarlyExit } else { FluxKernel::Full };
            let mut launched = 0;
            while g.clock(&gpu).unwrap().t < t {
                assert!(launched < 8 * c.steps() + 8, "{what}: {launched} launches");
                g.step(kernel).unwrap();
                launched += 1;
            }
            let (at_stop, steps) = (g.download(&gpu).unwrap(), g.clock(&gpu).unwrap().steps);
            assert_eq!(steps, c.steps(), "{what}: steps");
            for _ in 0..10 {
                g.step(kernel).unwrap();
            }
            assert_eq!(g.clock(&gpu).unwrap().steps, steps, "{what}: launches past t_stop counted steps");
            let after = g.download(&gpu).unwrap();
            let tol = GPU_STEP.times(steps as f64 * substeps(scheme));
            for (f, field) in ["w", "hu", "hv"].into_iter().enumerate() {
                let same = at_stop[f].iter().zip(&after[f]).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{what}: {field} changed in launches past t_stop");
                tol.scaled(scale(&p, c.state()[f]))
                    .check(&format!("{what}: {field}"), &at_stop[f], c.state()[f])
                    .unwrap();
            }
            println!(
                "GPU {what}: {steps} steps to t = {t} s as the CPU's ({clamped} cells clamped), 10 launches past t_stop changed nothing"
            );
        }
    }
}

/// The GPU on the validation cases, RK2, SRK2, DS1 and DS2: the lake at rest stays at rest for 1000
/// steps, and the largest GPU−CPU differences after 20 steps of a flood and a Gaussian hump
/// (printed).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_validation_cases() {
    let gpu = gpu();
    fn lake<T: GpuReal>(gpu: &hydrokern::Gpu, scheme: Scheme, tol: f64) {
        let mut p = setup::lake_at_rest(40, 40);
        p.scheme = scheme;
        let mut m = GpuKp::<T>::new(gpu, &p, Launch::default()).unwrap();
        for _ in 0..1000 {
            m.step(FluxKernel::EarlyExit).unwrap();
        }
        let q = m.download(gpu).unwrap();
        let (w, hu, hv) = (p.interior(&q[0]), p.interior(&q[1]), p.interior(&q[2]));
        let mut worst = 0.0f64;
        for c in 0..w.len() {
            if p.h[c] > 0.0 {
                worst = worst.max((w[c].to_f64() - 1.0).abs());
            }
            worst = worst.max(hu[c].to_f64().abs()).max(hv[c].to_f64().abs());
        }
        println!("GPU lake at rest ({} {}): 1000 steps, max deviation {worst:.2e}", T::NAME, scheme.name());
        assert!(worst <= tol, "{} {}: {worst}", T::NAME, scheme.name());
    }
    for scheme in [Scheme::Rk2, Scheme::Srk2, Scheme::Ds1, Scheme::Ds2] {
        lake::<f64>(&gpu, scheme, 1e-12);
        lake::<f32>(&gpu, scheme, 1e-5);
    }
    /// 20 steps on the GPU and the CPU, every field within [`GPU_STEP`]; prints the largest
    /// difference relative to the field's magnitude.
    fn diff<T: GpuReal>(gpu: &hydrokern::Gpu, name: &str, p: &Problem, early: bool) {
        let (block, steps) = ((32, 8), 20);
        let mut c = CpuKp::<T>::new(p, block, early).unwrap();
        let mut g = GpuKp::<T>::new(gpu, p, Launch { block, ..Launch::default() }).unwrap();
        for _ in 0..steps {
            c.step(f64::INFINITY).unwrap();
        }
        gpu_steps(gpu, &mut g, if early { FluxKernel::EarlyExit } else { FluxKernel::Full }, steps as u64, false);
        let q = g.download(gpu).unwrap();
        let mut worst = 0.0f64;
        for (f, field) in ["w", "hu", "hv"].into_iter().enumerate() {
            let s = scale(p, c.state()[f]);
            let d = q[f].iter().zip(c.state()[f]).map(|(a, b)| (a.to_f64() - b.to_f64()).abs() / s);
            worst = worst.max(d.fold(0.0f64, f64::max));
            let what = format!("{name} early {early}, {steps} steps: {field}");
            GPU_STEP.times(steps as f64 * substeps(p.scheme)).scaled(s).check(&what, &q[f], c.state()[f]).unwrap();
        }
        println!("GPU vs CPU, {name} {} early {early}: {steps} steps, max |difference| / scale = {worst:.2e}", T::NAME);
    }
    for (name, p) in [("flood 96×80", setup::flood(96, 80)), ("gaussian 70×90", setup::gaussian(70, 90))]
        .into_iter()
        .flat_map(|(n, p)| [Scheme::Rk2, Scheme::Srk2, Scheme::Ds1, Scheme::Ds2].map(|s| (n, p.clone(), s)))
        .map(|(n, mut p, s)| {
            p.scheme = s;
            (format!("{n} {}", s.name()), p)
        })
    {
        for early in [false, true] {
            diff::<f64>(&gpu, &name, &p, early);
            diff::<f32>(&gpu, &name, &p, early);
        }
    }
}

/// The lake at rest whose shoreline cuts through cells (`setup::shore_lake`, 24², surface
/// 0.7 m), walls and outflow, on every flux kernel (tile, streamed, SRK2's pair, DS1's and DS2's
/// transposing steps; full and early exit, which the split schemes ignore) in
/// both precisions: 10 000 steps keep it at rest as on the CPU (`wetdry::shore_lake_stays_at_rest`;
/// here max |u| ≤ 1e-12 in f64, ≤ 3e-5 in f32), and GPU and CPU agree after 100 steps.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_shore_lake_stays_at_rest() {
    let gpu = gpu();
    fn lake<T: GpuReal>(
        gpu: &hydrokern::Gpu,
        wet_dry: WetDry,
        boundary: Boundary,
        (flux, scheme): (FluxVariant, Scheme),
        early: bool,
        tol: f64,
    ) {
        let mut p = setup::shore_lake(24, 0.7, boundary);
        p.wet_dry = wet_dry;
        p.scheme = scheme;
        let block = (16, 8);
        let mut g = GpuKp::<T>::new(gpu, &p, Launch { block, flux, ..Launch::default() }).unwrap();
        let mut c = CpuKp::<T>::new(&p, block, early).unwrap();
        let kernel = if early { FluxKernel::EarlyExit } else { FluxKernel::Full };
        let name = if scheme == Scheme::Rk2 { flux.describe() } else { scheme.name().to_string() };
        let what = format!("{} {} {} {name} early {early}", T::NAME, wet_dry.name(), boundary.name());
        gpu_steps(gpu, &mut g, kernel, 100, false);
        for _ in 0..100 {
            c.step(f64::INFINITY).unwrap();
        }
        let q = g.download(gpu).unwrap();
        for (f, (gf, cf)) in q.iter().zip(c.state()).enumerate() {
            let s = scale(&p, cf);
            let tol = GPU_STEP.times(100.0 * substeps(scheme)).scaled(s);
            tol.check(&format!("{what}: field {f} after 100 steps"), gf, cf).unwrap();
        }
        for _ in 100..10_000 {
            g.step(kernel).unwrap();
        }
        let q = g.download(gpu).unwrap();
        let (w, hu, hv, b) = (p.interior(&q[0]), p.interior(&q[1]), p.interior(&q[2]), p.interior(c.cell_bed()));
        let dry = c.coeffs().dry.to_f64();
        let mut u = 0.0f64;
        for k in 0..w.len() {
            let h = (w[k] - b[k]).to_f64();
            if h > dry {
                u = u.max(hu[k].to_f64().abs() / h).max(hv[k].to_f64().abs() / h);
            }
            assert!(p.h[k] > 0.0 || h <= 1e-12, "{what}: dry cell {k} gained {h:e} m");
        }
        println!("GPU shore lake 24², {what}: 10 000 steps, max |u| {u:.2e}");
        assert!(u <= tol, "{what}: max |u| {u:e}");
    }
    for (wet_dry, boundary) in [WetDry::Bollermann, WetDry::Clamp]
        .into_iter()
        .flat_map(|s| [Boundary::Wall, Boundary::Outflow].map(|b| (s, b)))
    {
        for flux in [
            (FluxVariant::Tile, Scheme::Rk2),
            (FluxVariant::STREAM, Scheme::Rk2),
            (FluxVariant::Tile, Scheme::Srk2),
            (FluxVariant::Tile, Scheme::Ds1),
            (FluxVariant::Tile, Scheme::Ds2),
        ] {
            for early in [false, true] {
                lake::<f64>(&gpu, wet_dry, boundary, flux, early, 1e-12);
                // `bollermann`: 3e-5, not the target 1e-5: its f32 velocities are the round-off of
                // the hydrostatic balance, with w* computed from an f32 mean surface (the CPU
                // reference: 9.1e-6 with walls, 1.04e-5 with outflow sides; docs/kp-wet-dry.md,
                // "What it reaches"). `clamp` holds the shore cells to their neighbours: the
                // target 1e-5.
                let tol32 = if wet_dry == WetDry::Clamp { 1e-5 } else { 3e-5 };
                lake::<f32>(&gpu, wet_dry, boundary, flux, early, tol32);
            }
        }
    }
}

/// Thacker's planar surface in a paraboloid on the GPU, `clamp`, to t = T (the Thacker study,
/// as `wetdry::thacker_converges_to_400` on the CPU): in f64 at 50²–400² the L1 order is ≥ 0.9
/// per halving of Δx, the step count grows ≤ 2.2× per halving, the volume is exact and water
/// deeper than 1 mm lies within one cell of the exact shoreline at every size (50² too, as the
/// faces of partially flooded cells hold their mean depth, docs/kp-wet-dry.md, "The
/// reconstruction");
/// each size's L1 and step count are within 1% of the CPU reference's (8.854e-4 m³ and 1553
/// steps at 200²). In f32 at 50²–200²: the same order and growth, and the volume to 1e-4:
/// the f32 state w = h + B loses the low bits of increments (on an H100: 7.3e-7 at 50², 4.7e-6
/// at 100²; f32 conservation: docs/f32-conservation.md). Early exit on, streamed flux kernel (the
/// defaults).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_thacker_converges() {
    use super::wetdry::{Thacker, thacker_measure};
    use hydrokern::kp::exact;
    fn run<T: GpuReal>(gpu: &hydrokern::Gpu, n: usize) -> Thacker {
        let mut p = setup::thacker(n);
        p.wet_dry = WetDry::Clamp;
        let t = exact::thacker_period(p.g);
        let mut g = GpuKp::<T>::new(gpu, &p, Launch::default()).unwrap();
        g.set_stop(t);
        // Steps past t_stop take Δt = 0 and are not counted; a halted clock stops too (status).
        let mut clock = g.clock(gpu).unwrap();
        while clock.t < t && clock.status == 0 {
            for _ in 0..64 {
                g.step(FluxKernel::EarlyExit).unwrap();
            }
            clock = g.clock(gpu).unwrap();
        }
        assert_eq!(clock.status, 0, "{} {n}²: the run halted (status {})", T::NAME, clock.status);
        let q = g.download(gpu).unwrap();
        let bed = g.cell_bed(gpu).unwrap();
        let h: Vec<f64> = p.interior(&q[0]).iter().zip(p.interior(&bed)).map(|(w, b)| (*w - b).to_f64()).collect();
        thacker_measure(&p, t, &h, p.volume(&q[0], &bed), clock.steps)
    }
    fn study<T: GpuReal>(gpu: &hydrokern::Gpu, ns: &[usize], volume: f64, cpu: &[(usize, f64, u64)]) {
        let runs: Vec<Thacker> = ns.iter().map(|&n| run::<T>(gpu, n)).collect();
        for (n, r) in ns.iter().zip(&runs) {
            println!(
                "GPU Thacker {n}² ({}, clamp) to t = T: L1 {:.4e} m³, volume change {:.1e}, farthest cell deeper than 1 mm {:.1} cells from the exact shore, {} steps",
                T::NAME,
                r.l1,
                r.volume,
                r.shore,
                r.steps
            );
            assert!(r.volume < volume, "{} {n}²: volume changed by {:e}", T::NAME, r.volume);
            assert!(r.shore <= 1.0, "{} {n}²: water {:.1} cells beyond the exact shoreline", T::NAME, r.shore);
            if let Some(&(_, l1, steps)) = cpu.iter().find(|c| c.0 == *n) {
                assert!((r.l1 / l1 - 1.0).abs() < 0.01, "{} {n}²: L1 {:e}, the CPU's {l1:e}", T::NAME, r.l1);
                let ratio = r.steps as f64 / steps as f64;
                assert!((ratio - 1.0).abs() < 0.01, "{} {n}²: {} steps, the CPU's {steps}", T::NAME, r.steps);
            }
        }
        for (k, r) in runs.windows(2).enumerate() {
            let (order, growth) = ((r[0].l1 / r[1].l1).log2(), r[1].steps as f64 / r[0].steps as f64);
            println!("GPU Thacker {} → {} ({}): L1 order {order:.2}, steps ×{growth:.2}", ns[k], ns[k + 1], T::NAME);
            assert!(order >= 0.9, "{} {} → {}: L1 order {order:.2}", T::NAME, ns[k], ns[k + 1]);
            assert!(growth <= 2.2, "{} {} → {}: steps grew {growth:.2}×", T::NAME, ns[k], ns[k + 1]);
        }
    }
    let gpu = gpu();
    // The CPU reference's figures (f64, `wetdry::thacker_converges_to_400`, docs/kp-wet-dry.md).
    let cpu = [(50, 4.115e-3, 363), (100, 1.287e-3, 727), (200, 4.775e-4, 1454), (400, 1.949e-4, 2909)];
    study::<f64>(&gpu, &[50, 100, 200, 400], 1e-13, &cpu);
    study::<f32>(&gpu, &[50, 100, 200], 1e-4, &[]);
}

/// `clamp`'s own passes (draining factors, R of drained faces, the velocity clamp) against the
/// CPU reference on cases where they act: Thacker's bowl at 25² (where draining binds) and the
/// random shoreline states, every flux kernel (SRK2's pair and the split substeps too), full and
/// early exit, f32 and f64, with the outputs and the passes' scratch poisoned before every step.
/// The CPU's counts show that the cases drained and clamped cells; the GPU must then agree
/// within [`GPU_STEP`] a step.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_clamp_drains_and_clamps_as_the_cpu() {
    // (name, problem, steps, whether the films of a column in a dry domain set Δt)
    let mut cases = vec![("thacker 25²".to_string(), setup::thacker(25), 40, false)];
    for seed in 0..4u64 {
        let mut p = random_state(37 + seed as usize, 29, 11 + seed, (seed % 2) as u8);
        p.scheme = Scheme::Rk2;
        cases.push((format!("random {}×{} seed {}", p.nx, p.ny, 11 + seed), p, 20, seed % 2 == 1));
    }
    let (mut drained, mut clamped) = (0, 0);
    for (name, mut p, steps, films) in cases {
        p.wet_dry = WetDry::Clamp;
        // The flux kernels of RK2, SRK2's pair (its drain pass writes R's two parts), and the
        // split substeps (the drain passes on the x faces, the clamp in the output's orientation).
        // The streamed kernel with RK2's second stage in it (the default) and apart.
        let kernels = [
            (FluxVariant::Tile, Scheme::Rk2, false),
            (FluxVariant::STREAM, Scheme::Rk2, true),
            (FluxVariant::STREAM, Scheme::Rk2, false),
            (FluxVariant::Stream { warps: 3, rows: 5 }, Scheme::Rk2, true),
            (FluxVariant::Tile, Scheme::Srk2, false),
            (FluxVariant::Tile, Scheme::Ds1, false),
            (FluxVariant::Tile, Scheme::Ds2, false),
        ];
        for (flux, scheme, fused) in kernels {
            p.scheme = scheme;
            // The split schemes on the column in a dry domain one step, as in `kp_gpu_matches_cpu`:
            // once films set Δt, their velocities' rounding (ε·|w|/dry) reaches every cell, through
            // four substeps a DS2 step (measured on an H100: 1.20e-11 against a bound of 9.35e-12 in
            // hu after 20 f64 DS2 steps on 38×29; RK2 and SRK2 stay within theirs).
            let steps = if films && scheme.is_split() { 1 } else { steps };
            for early in [false, true] {
                for block in [(16, 8), (32, 1)] {
                    let launch = Launch { block, flux, line: 32 };
                    check_gpu::<f64>(&p, launch, early, fused, steps).unwrap();
                    check_gpu::<f32>(&p, launch, early, fused, steps).unwrap();
                }
            }
        }
        p.scheme = Scheme::Rk2;
        let mut c = CpuKp::<f64>::new(&p, (16, 8), false).unwrap();
        for _ in 0..steps {
            c.step(f64::INFINITY).unwrap();
        }
        let (d, k) = c.clamp_counts().unwrap();
        println!("{name}, {steps} steps (f64 CPU): {d} cells drained, {k} clamped");
        (drained, clamped) = (drained + d, clamped + k);
    }
    assert!(drained > 0 && clamped > 0, "the cases never drained ({drained}) or clamped ({clamped}) a cell");
}

/// The compensated RK kernels keep f32 Thacker 40² (`clamp`, walls) to its volume over 10⁵
/// steps as the CPU reference does (`compensated.rs`, bound 1e-5 relative), with early exit
/// off and on; the plain kernels' drift is printed beside it.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_compensated_f32_keeps_the_volume() {
    const STEPS: u64 = 100_000;
    let gpu = gpu();
    let volume_error = |accumulation: Accumulation, kernel: FluxKernel| {
        let mut p = setup::thacker(40);
        (p.wet_dry, p.accumulation) = (WetDry::Clamp, accumulation);
        let mut m = GpuKp::<f32>::new(&gpu, &p, Launch::default()).unwrap();
        let bed = m.cell_bed(&gpu).unwrap();
        let volume = |m: &GpuKp<f32>| {
            let low = m.download_low(&gpu).unwrap();
            p.volume_with_low(&m.download(&gpu).unwrap()[0], low.as_deref(), &bed)
        };
        let v0 = volume(&m);
        for _ in 0..STEPS {
            m.step(kernel).unwrap();
        }
        assert_eq!(m.clock(&gpu).unwrap().steps, STEPS);
        (volume(&m) - v0) / v0
    };
    for kernel in [FluxKernel::Full, FluxKernel::EarlyExit] {
        let err = volume_error(Accumulation::Compensated, kernel);
        let plain = volume_error(Accumulation::Plain, kernel);
        println!("thacker 40², clamp, {STEPS} steps, {kernel:?}: f32 compensated {err:+.2e}, plain {plain:+.2e}");
        assert!(err.abs() <= 1e-5, "{kernel:?}: relative volume change {err:.3e} after {STEPS} steps");
    }
}

/// A block of 1024 threads is refused in one line where a kernel launched on it (here `clamp`'s
/// passes in f64, ~150 registers a thread) cannot take so many, before any step.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn kp_gpu_refuses_a_block_its_kernels_cannot_take() {
    let gpu = gpu();
    let mut p = setup::thacker(64);
    p.wet_dry = WetDry::Clamp;
    let err = GpuKp::<f64>::new(&gpu, &p, Launch { block: (256, 4), ..Launch::default() })
        .err()
        .expect("a 1024-thread block for the f64 clamp passes")
        .to_string();
    assert!(err.contains("registers allow at most") && !err.contains('\n'), "{err}");
    GpuKp::<f64>::new(&gpu, &p, Launch { block: (32, 8), ..Launch::default() }).unwrap();
}

/// The default streamed shape keeps its 32 rows a warp on grids of at least 4096 warps that way,
/// and halves them (not below 4) on smaller ones: the EA Test 4's 200 × 400 cells (8 strips)
/// take 4 rows (800 warps), 1024² 8 (4 736 warps); a tuned shape is cut the same way, the
/// tile kernel and shapes of few rows are left alone.
#[test]
fn streamed_rows_fall_on_small_grids() {
    let rows = |f: FluxVariant| match f {
        FluxVariant::Stream { rows, .. } => rows,
        FluxVariant::Tile => 0,
    };
    for (nx, ny, want) in [(4096, 4096, 32), (2048, 2048, 32), (1024, 1024, 8), (512, 512, 4), (200, 400, 4), (7, 3, 4)]
    {
        let f = FluxVariant::STREAM.for_grid(nx, ny);
        assert_eq!(rows(f), want, "{nx}×{ny}");
        assert_eq!(Launch::default_for(nx, ny).flux, f);
    }
    assert_eq!(
        FluxVariant::Stream { warps: 8, rows: 64 }.for_grid(1024, 1024),
        FluxVariant::Stream { warps: 8, rows: 8 }
    );
    assert_eq!(FluxVariant::Stream { warps: 2, rows: 3 }.for_grid(64, 64), FluxVariant::Stream { warps: 2, rows: 3 });
    assert_eq!(FluxVariant::Tile.for_grid(64, 64), FluxVariant::Tile);
}

/// The flux variant option: tile, stream, stream:WxR; anything else is refused.
#[test]
fn flux_variant_parses_and_refuses() {
    assert_eq!("tile".parse::<FluxVariant>().unwrap(), FluxVariant::Tile);
    assert_eq!("stream".parse::<FluxVariant>().unwrap(), FluxVariant::STREAM);
    assert_eq!("stream:2x16".parse::<FluxVariant>().unwrap(), FluxVariant::Stream { warps: 2, rows: 16 });
    for bad in ["", "tiles", "stream:", "stream:0x8", "stream:33x8", "stream:4x0", "stream:4", "stream:ax8"] {
        let e = bad.parse::<FluxVariant>().unwrap_err().to_string();
        assert!(e.contains("unknown flux kernel"), "{bad}: {e}");
    }
}
