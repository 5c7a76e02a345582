//! `sediment`: a coastal basin filled by a river (seed 000's model), on the GPU or the CPU.
//!
//! Prints progress with a mass-balance line at intervals (sediment volume gained vs volume
//! supplied through the boundary, the range of s), then writes PNG maps (h, s, deposit
//! thickness) and NPY files of h and s into `--output`. A run whose fields turn non-finite stops, naming the step, time and first
//! bad cell, and writes the last good state instead.

use anyhow::{Context, Result, bail};
use hydrokern::output::npy::write_npy;
use hydrokern::output::png::{Colormap, MapOptions, write_field_png};
use hydrokern::sediment::gpu::Launch;
use hydrokern::sediment::{Problem, Solver, StepVariant, setup};
use hydrokern::{Backend, GpuReal, Precision};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Grid points in x (the basin is 25.6 km wide at any resolution).
    #[arg(long, default_value_t = 256)]
    nx: usize,
    /// Grid points in y.
    #[arg(long, default_value_t = 256)]
    ny: usize,
    /// Simulated time in years (ignored with --steps).
    #[arg(long, default_value_t = 20_000.0)]
    t_end: f64,
    /// Run exactly this many steps instead of up to --t-end.
    #[arg(long)]
    steps: Option<u64>,
    /// Force the time step in years (refused above the stability limit); default: 90% of it.
    #[arg(long)]
    dt: Option<f64>,
    /// River inflow through the west side, m³ of sediment per metre of shore per year.
    #[arg(long, default_value_t = 5.0)]
    inflow: f64,
    /// GPU kernel variant: fused, or <h>/<s> with h in {baseline, opt1, opt2, opt3, multi} and s in {baseline, opt1, opt2, multi}.
    #[arg(long, default_value = "fused", value_parser = parse_variant)]
    variant: StepVariant,
    /// GPU block shape BXxBY (interior points per block; the fused kernel uses BY warps per block).
    #[arg(long, default_value = "64x2", value_parser = parse_block)]
    block: (u32, u32),
    /// Rows per thread of the multi-row and fused kernels.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    rows: u32,
    /// Progress and mass-balance lines over the run.
    #[arg(long, default_value_t = 10)]
    reports: u32,
    /// Initial basin height from an NPY file of shape (ny, nx), replacing the built-in basin's.
    #[arg(long)]
    h_file: Option<PathBuf>,
    /// Initial sand fraction (NPY, (ny, nx), values in [0, 1]).
    #[arg(long)]
    s_file: Option<PathBuf>,
    /// Sand diffusivity α (NPY, (ny, nx), non-negative).
    #[arg(long)]
    alpha_file: Option<PathBuf>,
    /// Mud diffusivity β (NPY, (ny, nx), non-negative).
    #[arg(long)]
    beta_file: Option<PathBuf>,
    /// Directory for h.png, s.png, deposit.png, h.npy, s.npy (created if missing).
    #[arg(long, default_value = "out/sediment")]
    output: PathBuf,
}

fn parse_variant(s: &str) -> Result<StepVariant, String> {
    s.parse().map_err(|e: hydrokern::Error| e.to_string())
}

pub fn parse_block(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("block '{s}': expected BXxBY with positive integers, e.g. 32x8");
    let (x, y) = s.split_once('x').ok_or_else(bad)?;
    let (x, y): (u32, u32) = (x.parse().map_err(|_| bad())?, y.parse().map_err(|_| bad())?);
    if x == 0 || y == 0 || x * y > 1024 {
        return Err(format!("block {x}x{y}: needs 1 to 1024 threads"));
    }
    Ok((x, y))
}

pub fn run(args: &Args, backend: &Backend, precision: Precision) -> Result<()> {
    match precision {
        Precision::F32 => run_typed::<f32>(args, backend),
        Precision::F64 => run_typed::<f64>(args, backend),
    }
}

fn run_typed<T: GpuReal + hydrokern::output::npy::NpyElem>(args: &Args, backend: &Backend) -> Result<()> {
    // Everything that can be refused is refused before any work.
    if args.nx == 0 || args.ny == 0 {
        bail!("grid {}×{}: --nx and --ny must be positive", args.nx, args.ny);
    }
    if !(args.t_end.is_finite() && args.t_end > 0.0) && args.steps.is_none() {
        bail!("--t-end {}: must be positive", args.t_end);
    }
    if !args.inflow.is_finite() {
        bail!("--inflow {}: must be finite", args.inflow);
    }
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("creating output directory {}", args.output.display()))?;
    hydrokern::output::check_writable(&args.output.join("h.npy"))?;
    let mut problem = setup::basin(args.nx, args.ny, args.inflow);
    for (file, field) in [
        (&args.h_file, &mut problem.h),
        (&args.s_file, &mut problem.s),
        (&args.alpha_file, &mut problem.alpha),
        (&args.beta_file, &mut problem.beta),
    ] {
        if let Some(path) = file {
            load_interior(path, args.nx, args.ny, field)?;
        }
    }
    problem.validate()?;
    let limit = problem.stability(&problem.h);
    let mut dt = match args.dt {
        Some(dt) => {
            problem.check_dt(dt, &problem.h)?;
            dt
        }
        None => limit.automatic(),
    };
    let launch = Launch { block: args.block, rows: args.rows };
    let mut solver = Solver::<T>::new(backend, &problem, dt, args.variant, launch)?;
    let on = match backend {
        Backend::Gpu(_) => format!("GPU, variant {}", args.variant.name()),
        Backend::Cpu { .. } => "CPU reference".to_string(),
    };
    println!(
        "sediment: {}×{} basin, Δx = {:.1} m, {}, {}; Δt = {:.3} yr (limit {:.3}: diffusion {:.3}, sand fraction {:.3}); inflow {} m³/m/yr",
        args.nx,
        args.ny,
        problem.dx,
        T::NAME,
        on,
        dt,
        limit.limit(),
        limit.diffusion,
        limit.sand,
        args.inflow
    );

    let v0 = problem.volume(&problem.h);
    let started = Instant::now();
    let (mut t, mut step) = (0.0f64, 0u64);
    let done = |t: f64, step: u64| match args.steps {
        Some(n) => step >= n,
        None => t >= args.t_end * (1.0 - 1e-12),
    };
    let progress = |t: f64, step: u64| match args.steps {
        Some(n) => step as f64 / n.max(1) as f64,
        None => t / args.t_end,
    };
    let mut next_report = 1u32;
    let mut last_good = solver.fields()?;
    let (mut good_step, mut good_t) = (0u64, 0.0f64);
    while !done(t, step) {
        if args.steps.is_none() && t + dt > args.t_end {
            solver.set_dt(&problem, args.t_end - t);
            t = args.t_end;
        } else {
            t += dt;
        }
        solver.step()?;
        step += 1;
        let frac = progress(t, step);
        if frac >= next_report as f64 / args.reports.max(1) as f64 || done(t, step) {
            while next_report as f64 / args.reports.max(1) as f64 <= frac {
                next_report += 1;
            }
            let (h, s) = solver.fields()?;
            if let Some(bad) = first_bad(&problem, &h, &s) {
                let when = format!("last good state, step {good_step}, t = {good_t:.0} yr");
                write_outputs(&args.output, &problem, &last_good.0, &last_good.1, &when)?;
                bail!(
                    "the run blew up between step {good_step} (t = {good_t:.1} yr, fields finite) and step {step} (t = {t:.1} yr): {bad}; the state at step {good_step} is in {}",
                    args.output.display()
                );
            }
            let gained = problem.volume(&h) - v0;
            let supplied = problem.supply_rate() * t;
            let (lo, hi) = range(&problem, &s);
            let elapsed = started.elapsed().as_secs_f64();
            let eta = if frac > 0.0 { elapsed * (1.0 - frac) / frac } else { 0.0 };
            println!(
                "{} [{:>3.0}%] step {step:>7}  t = {t:>9.1} yr  Δt = {dt:.3} yr  volume gained {gained:.5e} m³, supplied {supplied:.5e} m³ (rel. diff {:.1e})  s in [{lo:.4}, {hi:.4}]  {elapsed:.1} s, ETA {eta:.1} s",
                bar(frac),
                100.0 * frac,
                if supplied != 0.0 { (gained - supplied) / supplied } else { gained },
            );
            // The sand-fraction limit depends on h: follow it unless the step was forced.
            if args.dt.is_none() && !done(t, step) {
                let hf: Vec<f64> = h.iter().map(|v| v.to_f64()).collect();
                dt = problem.stability(&hf).automatic();
                solver.set_dt(&problem, dt);
            }
            last_good = (h, s);
            (good_step, good_t) = (step, t);
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "done: {step} steps, t = {t:.1} yr in {secs:.2} s ({:.3e} point updates/s)",
        step as f64 * (args.nx * args.ny) as f64 / secs
    );
    write_outputs(&args.output, &problem, &last_good.0, &last_good.1, &format!("t = {t:.0} yr"))
}

/// Replace the interior of `field` (with ghosts) by an (ny, nx) NPY file's values; the ghost
/// layer is set from the boundary conditions when the run starts.
fn load_interior(path: &Path, nx: usize, ny: usize, field: &mut [f64]) -> Result<()> {
    let (data, shape) =
        hydrokern::output::npy::read_npy_f64(path).with_context(|| format!("reading {}", path.display()))?;
    if shape != [ny, nx] {
        bail!("{}: shape {shape:?} does not match the grid (--ny {ny}, --nx {nx}) ", path.display());
    }
    for j in 0..ny {
        for i in 0..nx {
            field[(j + 1) * (nx + 2) + i + 1] = data[j * nx + i];
        }
    }
    Ok(())
}

/// A 20-character progress bar.
fn bar(frac: f64) -> String {
    let n = (frac.clamp(0.0, 1.0) * 20.0).round() as usize;
    format!("[{}{}]", "#".repeat(n), ".".repeat(20 - n))
}

/// The first interior cell whose h or s is not finite.
fn first_bad<T: GpuReal>(p: &Problem, h: &[T], s: &[T]) -> Option<String> {
    for j in 1..=p.ny {
        for i in 1..=p.nx {
            let c = p.index(i, j);
            if !h[c].is_finite() || !s[c].is_finite() {
                return Some(format!("cell ({i}, {j}) has h = {}, s = {}", h[c], s[c]));
            }
        }
    }
    None
}

fn range<T: GpuReal>(p: &Problem, f: &[T]) -> (f64, f64) {
    interior(p, f).into_iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

fn interior<T: GpuReal>(p: &Problem, f: &[T]) -> Vec<f64> {
    (1..=p.ny).flat_map(|j| (1..=p.nx).map(move |i| f[p.index(i, j)].to_f64())).collect()
}

fn write_outputs<T: GpuReal + hydrokern::output::npy::NpyElem>(
    dir: &Path,
    p: &Problem,
    h: &[T],
    s: &[T],
    when: &str,
) -> Result<()> {
    let interior_t = |f: &[T]| (1..=p.ny).flat_map(|j| (1..=p.nx).map(move |i| f[p.index(i, j)])).collect::<Vec<T>>();
    write_npy(&dir.join("h.npy"), &interior_t(h), &[p.ny, p.nx])?;
    write_npy(&dir.join("s.npy"), &interior_t(s), &[p.ny, p.nx])?;
    let km = p.nx as f64 * p.dx / 1000.0;
    let h_map = MapOptions::new(format!("basin height, {when} ({km:.1} km across)"), "h [m]");
    write_field_png(&dir.join("h.png"), &interior(p, h), p.nx, p.ny, &h_map)?;
    // What was laid down (or eroded): h − h₀ shows the deposit the regional slope hides in h.
    let h0: Vec<f64> = interior(p, &p.h);
    let deposit: Vec<f64> = interior(p, h).iter().zip(&h0).map(|(a, b)| a - b).collect();
    let d_map = MapOptions::new(format!("deposit thickness h - h0, {when}"), "h-h0 [m]");
    write_field_png(&dir.join("deposit.png"), &deposit, p.nx, p.ny, &d_map)?;
    let mut s_map = MapOptions::new(format!("sand fraction, {when}"), "s (sand)");
    s_map.colormap = Colormap::diverging();
    s_map.range = Some((0.0, 1.0));
    write_field_png(&dir.join("s.png"), &interior(p, s), p.nx, p.ny, &s_map)?;
    println!(
        "wrote h.png, s.png, deposit.png, h.npy, s.npy ({} × {}, row-major y then x) to {}",
        p.ny,
        p.nx,
        dir.display()
    );
    Ok(())
}
