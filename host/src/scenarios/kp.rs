//! The Kurganov–Petrova shallow-water scenarios (seed 003): `dam-break`, `flood`, `gaussian`,
//! `sine`, `lake-at-rest`, one subcommand each with shared options.
//!
//! Each prints progress (simulated time, ETA, Δt and the water volume against the initial one)
//! at intervals and writes, at every `--snapshots` time, a PNG map of the depth, a PNG plot of
//! the depth along the centre line (all snapshots so far), and NPY files of h, hu, hv into
//! `--output`. A run whose state turns non-finite or whose Δt collapses stops, naming the
//! step, time and first bad cell, and writes the last good state it held.

use anyhow::{Context, Result, bail};
use hydrokern::kp::gpu::Launch;
use hydrokern::kp::{Boundary, EarlyExit, Problem, Scheme, Solver, setup};
use hydrokern::output::npy::{NpyElem, write_npy};
use hydrokern::output::png::{MapOptions, PlotOptions, Series, write_field_png, write_line_plot_png};
use hydrokern::{Backend, GpuReal, Precision};
use std::path::PathBuf;
use std::time::Instant;

/// Options every shallow-water scenario takes.
#[derive(clap::Args, Clone, Debug)]
pub struct Common {
    /// Cells in x (default: the scenario's).
    #[arg(long)]
    nx: Option<usize>,
    /// Cells in y (default: as --nx).
    #[arg(long)]
    ny: Option<usize>,
    /// Simulated time in seconds (default: the scenario's).
    #[arg(long, allow_negative_numbers = true)]
    t_end: Option<f64>,
    /// Times (s) at which to write snapshots, comma-separated (default: 4 evenly spaced, the end included).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    snapshots: Vec<f64>,
    /// Boundary conditions: one for all sides, or four (west,east,south,north), each wall, outflow or periodic.
    #[arg(long, value_delimiter = ',')]
    boundary: Vec<String>,
    /// Manning coefficient n in s/m^(1/3) (0: no friction; default: the scenario's).
    #[arg(long, allow_negative_numbers = true)]
    manning: Option<f64>,
    /// Generalized minmod θ in [1, 2].
    #[arg(long, default_value_t = 1.3, allow_negative_numbers = true)]
    theta: f64,
    /// Courant number.
    #[arg(long, default_value_t = 0.25, allow_negative_numbers = true)]
    cfl: f64,
    /// Time integration: rk2 or euler.
    #[arg(long, default_value = "rk2", value_parser = ["rk2", "euler"])]
    scheme: String,
    /// GPU early exit of dry blocks: auto (timed every 100 steps), on or off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    early_exit: String,
    /// GPU flux kernel: stream (warps streaming up 28-column strips; stream:WxR sets W warps a
    /// block and R rows a warp) or tile (seed 003's shared-memory tile of --block).
    #[arg(long, default_value = "stream")]
    flux: String,
    /// GPU block BXxBY (cells, a multiple of 32 threads).
    #[arg(long, default_value = "32x8", value_parser = crate::scenarios::sediment::parse_block)]
    block: (u32, u32),
    /// Progress lines over the run.
    #[arg(long, default_value_t = 10)]
    reports: u32,
    /// Output directory (created if missing; default out/<scenario>).
    #[arg(long)]
    output: Option<PathBuf>,
}

/// `dam-break`: a circular dam break, 40 m × 40 m, R = 2.5 m, 2.5 m of water inside.
#[derive(clap::Args)]
pub struct DamBreakArgs {
    #[command(flatten)]
    common: Common,
    /// Dry surroundings instead of 0.5 m of water.
    #[arg(long)]
    dry: bool,
}

/// A scenario with only the shared options.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
}

/// What differs between the scenarios.
struct Spec {
    name: &'static str,
    n: usize,
    t_end: f64,
    manning: f64,
    make: Box<dyn Fn(usize, usize) -> Problem>,
}

pub fn dam_break(args: &DamBreakArgs, backend: &Backend, precision: Precision) -> Result<()> {
    let dry = args.dry;
    let spec = Spec {
        name: "dam-break",
        n: 256,
        t_end: 1.0,
        manning: 0.0,
        make: Box::new(move |nx, ny| setup::dam_break(nx, ny, dry)),
    };
    run(&args.common, spec, backend, precision)
}

pub fn flood(args: &Args, backend: &Backend, precision: Precision) -> Result<()> {
    let spec = Spec { name: "flood", n: 256, t_end: 4.0, manning: 0.0, make: Box::new(setup::flood) };
    run(&args.common, spec, backend, precision)
}

pub fn gaussian(args: &Args, backend: &Backend, precision: Precision) -> Result<()> {
    let spec = Spec { name: "gaussian", n: 200, t_end: 6.0, manning: 0.02, make: Box::new(setup::gaussian) };
    run(&args.common, spec, backend, precision)
}

pub fn sine(args: &Args, backend: &Backend, precision: Precision) -> Result<()> {
    let spec = Spec { name: "sine", n: 256, t_end: 5.0, manning: 0.0, make: Box::new(setup::sine) };
    run(&args.common, spec, backend, precision)
}

pub fn lake_at_rest(args: &Args, backend: &Backend, precision: Precision) -> Result<()> {
    let spec = Spec { name: "lake-at-rest", n: 160, t_end: 5.0, manning: 0.0, make: Box::new(setup::lake_at_rest) };
    run(&args.common, spec, backend, precision)
}

/// Everything checked before any work: the problem, the output directory and the times.
struct Plan {
    problem: Problem,
    t_end: f64,
    snapshots: Vec<f64>,
    output: PathBuf,
    launch: Launch,
    early_exit: EarlyExit,
}

fn plan(c: &Common, spec: &Spec) -> Result<Plan> {
    let launch = Launch { block: c.block, flux: c.flux.parse()? };
    let early_exit = c.early_exit.parse()?;
    let nx = c.nx.unwrap_or(spec.n);
    let ny = c.ny.unwrap_or(nx);
    if nx == 0 || ny == 0 {
        bail!("grid {nx}×{ny}: --nx and --ny must be positive");
    }
    let t_end = c.t_end.unwrap_or(spec.t_end);
    if !(t_end.is_finite() && t_end > 0.0) {
        bail!("--t-end {t_end}: must be positive and finite");
    }
    let mut snapshots =
        if c.snapshots.is_empty() { (1..=4).map(|k| t_end * k as f64 / 4.0).collect() } else { c.snapshots.clone() };
    if let Some(bad) = snapshots.iter().find(|&&t| !(t.is_finite() && (0.0..=t_end).contains(&t))) {
        bail!("--snapshots {bad}: snapshot times must lie in [0, t_end = {t_end}]");
    }
    snapshots.sort_by(f64::total_cmp);
    snapshots.dedup();
    let boundary: Vec<Boundary> = c.boundary.iter().map(|s| s.parse::<Boundary>()).collect::<hydrokern::Result<_>>()?;
    let boundary = match boundary.len() {
        0 => None,
        1 => Some([boundary[0]; 4]),
        4 => Some([boundary[0], boundary[1], boundary[2], boundary[3]]),
        n => bail!("--boundary takes one condition or four (west,east,south,north), not {n}"),
    };
    let manning = c.manning.unwrap_or(spec.manning);
    if !(manning.is_finite() && manning >= 0.0) {
        bail!("--manning {manning}: must be finite and non-negative");
    }
    let output = c.output.clone().unwrap_or_else(|| PathBuf::from(format!("out/{}", spec.name)));
    std::fs::create_dir_all(&output).with_context(|| format!("creating output directory {}", output.display()))?;
    hydrokern::output::check_writable(&output.join("h.npy"))?;
    let mut problem = (spec.make)(nx, ny);
    if let Some(b) = boundary {
        problem.boundary = b;
    }
    problem.manning = manning;
    problem.theta = c.theta;
    problem.cfl = c.cfl;
    problem.scheme = if c.scheme == "euler" { Scheme::Euler } else { Scheme::Rk2 };
    problem.validate()?;
    Ok(Plan { problem, t_end, snapshots, output, launch, early_exit })
}

fn run(c: &Common, spec: Spec, backend: &Backend, precision: Precision) -> Result<()> {
    let plan = plan(c, &spec)?;
    match precision {
        Precision::F32 => run_typed::<f32>(&spec, plan, backend, c.reports),
        Precision::F64 => run_typed::<f64>(&spec, plan, backend, c.reports),
    }
}

fn run_typed<T: GpuReal + NpyElem>(spec: &Spec, plan: Plan, backend: &Backend, reports: u32) -> Result<()> {
    let p = &plan.problem;
    let mut solver = Solver::<T>::new(backend, p, plan.launch, plan.early_exit)?;
    let on = match backend {
        Backend::Gpu(_) => {
            format!(
                "GPU, block {}x{}, flux {}, early exit {:?}",
                plan.launch.block.0,
                plan.launch.block.1,
                plan.launch.flux.describe(),
                plan.early_exit
            )
        }
        Backend::Cpu { .. } => "CPU reference".to_string(),
    };
    let bcs: Vec<&str> = p.boundary.iter().map(|b| b.name()).collect();
    println!(
        "{}: {}×{} cells, Δx = {:.4} m, Δy = {:.4} m, {}, {:?}, θ = {}, CFL = {}, Manning n = {}, boundaries (W,E,S,N) {}, {}; to t = {} s",
        spec.name,
        p.nx,
        p.ny,
        p.dx,
        p.dy,
        T::NAME,
        p.scheme,
        p.theta,
        p.cfl,
        p.manning,
        bcs.join(","),
        on,
        plan.t_end
    );
    let cell_bed = solver.cell_bed()?;
    let v0 = p.initial_volume();
    let started = Instant::now();
    // Stops: report times and snapshot times, in order.
    let n_rep = reports.max(1);
    let mut stops: Vec<f64> = (1..=n_rep).map(|k| plan.t_end * k as f64 / n_rep as f64).collect();
    stops.extend(plan.snapshots.iter().copied());
    stops.sort_by(f64::total_cmp);
    stops.dedup_by(|a, b| (*a - *b).abs() <= 1e-12 * plan.t_end);
    let mut profiles: Vec<(f64, Vec<f64>)> = Vec::new();
    let mut last_good: (f64, [Vec<T>; 3]) = (0.0, solver.state()?);
    let mut steps = 0u64;
    if plan.snapshots.first() == Some(&0.0) {
        snapshot(&plan, &cell_bed, 0.0, &last_good.1, &mut profiles)?;
    }
    for &stop in stops.iter().filter(|&&t| t > 0.0) {
        let rep = solver.advance(stop)?;
        let state = solver.state()?;
        let bad = first_bad(p, &state, &cell_bed);
        if rep.halt.is_some() || bad.is_some() {
            let why = match (rep.halt, &bad) {
                (_, Some(b)) => format!("non-finite state: {b}"),
                (Some(hydrokern::kp::cpu::Halt::Collapsed), None) => {
                    format!("Δt fell below the floor {:e} s; {}", p.dt_floor, fastest(p, &state, &cell_bed))
                }
                _ => "non-finite wave speed".to_string(),
            };
            write_state(&plan, &cell_bed, "last_good", last_good.0, &last_good.1)?;
            bail!(
                "the run blew up at step {} (t = {:.6} s): {why}; the last good state (t = {:.6} s) is in {}",
                rep.steps + 1,
                rep.t,
                last_good.0,
                plan.output.display()
            );
        }
        let v = p.volume(&state[0], &cell_bed);
        let elapsed = started.elapsed().as_secs_f64();
        let frac = rep.t / plan.t_end;
        let eta = if frac > 0.0 { elapsed * (1.0 - frac) / frac } else { 0.0 };
        let early = if rep.early_steps > 0 { format!("  early-exit steps {}", rep.early_steps) } else { String::new() };
        println!(
            "[{:>3.0}%] step {:>7}  t = {:>8.4} s  mean Δt = {:.3e} s  volume {:.6e} m³ (rel. change {:+.1e})  {elapsed:.1} s, ETA {eta:.1} s{early}",
            100.0 * frac,
            rep.steps,
            rep.t,
            (rep.t - last_good.0) / (rep.steps - steps).max(1) as f64,
            v,
            if v0 > 0.0 { (v - v0) / v0 } else { v },
        );
        if plan.snapshots.iter().any(|&s| (s - stop).abs() <= 1e-12 * plan.t_end) {
            snapshot(&plan, &cell_bed, rep.t, &state, &mut profiles)?;
        }
        last_good = (rep.t, state);
        steps = rep.steps;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "done: {steps} steps to t = {:.4} s in {secs:.2} s ({:.3e} cell updates/s, output included)",
        last_good.0,
        steps as f64 * (p.nx * p.ny) as f64 / secs
    );
    Ok(())
}

/// The first interior cell whose state is not finite, or whose depth is negative.
fn first_bad<T: GpuReal>(p: &Problem, q: &[Vec<T>; 3], cell_bed: &[T]) -> Option<String> {
    let pitch = p.nx + 4;
    for j in 0..p.ny {
        for i in 0..p.nx {
            let c = (j + 2) * pitch + i + 2;
            let (w, hu, hv) = (q[0][c], q[1][c], q[2][c]);
            if !(w.is_finite() && hu.is_finite() && hv.is_finite()) || w < cell_bed[c] {
                return Some(format!(
                    "cell ({i}, {j}) has w = {w}, hu = {hu}, hv = {hv} over a bed at {}",
                    cell_bed[c]
                ));
            }
        }
    }
    None
}

/// The interior cell with the largest wave speed |u| + |v| + √(gh) (what drives Δt down).
fn fastest<T: GpuReal>(p: &Problem, q: &[Vec<T>; 3], cell_bed: &[T]) -> String {
    let pitch = p.nx + 4;
    let mut best = (0.0f64, 0, 0);
    for j in 0..p.ny {
        for i in 0..p.nx {
            let c = (j + 2) * pitch + i + 2;
            let h = (q[0][c] - cell_bed[c]).to_f64();
            if h > 0.0 {
                let s = (q[1][c].to_f64().abs() + q[2][c].to_f64().abs()) / h + (p.g * h).sqrt();
                if s > best.0 {
                    best = (s, i, j);
                }
            }
        }
    }
    format!("fastest cell ({}, {}) moves at {:.3e} m/s", best.1, best.2, best.0)
}

fn depth<T: GpuReal>(p: &Problem, w: &[T], cell_bed: &[T]) -> Vec<f64> {
    p.interior(w).iter().zip(p.interior(cell_bed)).map(|(w, b)| (*w - b).to_f64()).collect()
}

/// h, hu, hv as NPY (ny × nx, row-major) named with `tag` and the time.
fn write_state<T: GpuReal + NpyElem>(plan: &Plan, cell_bed: &[T], tag: &str, t: f64, q: &[Vec<T>; 3]) -> Result<()> {
    let p = &plan.problem;
    let h: Vec<T> = p.interior(&q[0]).iter().zip(p.interior(cell_bed)).map(|(w, b)| *w - b).collect();
    for (name, f) in [("h", h), ("hu", p.interior(&q[1])), ("hv", p.interior(&q[2]))] {
        write_npy(&plan.output.join(format!("{tag}_{name}_t{t:.3}.npy")), &f, &[p.ny, p.nx])?;
    }
    Ok(())
}

fn snapshot<T: GpuReal + NpyElem>(
    plan: &Plan,
    cell_bed: &[T],
    t: f64,
    q: &[Vec<T>; 3],
    profiles: &mut Vec<(f64, Vec<f64>)>,
) -> Result<()> {
    let p = &plan.problem;
    let dir = &plan.output;
    write_state(plan, cell_bed, "state", t, q)?;
    let h = depth(p, &q[0], cell_bed);
    let mut map = MapOptions::new(format!("water depth at t = {t:.3} s ({}x{} cells)", p.nx, p.ny), "h [m]");
    map.range = Some((0.0, h.iter().fold(0.0f64, |a, b| a.max(*b)).max(1e-12)));
    let name = format!("depth_t{t:.3}.png");
    write_field_png(&dir.join(&name), &h, p.nx, p.ny, &map)?;
    // Centre line (the middle row), every snapshot so far.
    let row = p.ny / 2;
    profiles.push((t, h[row * p.nx..(row + 1) * p.nx].to_vec()));
    let x: Vec<f64> = (0..p.nx).map(|i| p.centre(i, row).0).collect();
    const COLORS: [[u8; 3]; 6] =
        [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189], [140, 86, 75]];
    let series: Vec<Series> = profiles
        .iter()
        .enumerate()
        .map(|(k, (t, y))| Series {
            name: format!("t = {t:.2} s"),
            x: x.clone(),
            y: y.clone(),
            color: COLORS[k % COLORS.len()],
            dashed: false,
        })
        .collect();
    let opts = PlotOptions {
        title: format!("depth along y = {:.2} m", p.centre(0, row).1),
        x_label: "x [m]".into(),
        y_label: "h [m]".into(),
    };
    write_line_plot_png(&dir.join("centreline.png"), &series, &opts)?;
    println!(
        "  snapshot t = {t:.3} s: {name}, centreline.png, state_{{h,hu,hv}}_t{t:.3}.npy ({} × {}) in {}",
        p.ny,
        p.nx,
        dir.display()
    );
    Ok(())
}
