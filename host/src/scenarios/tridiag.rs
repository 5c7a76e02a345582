//! `tridiag`: solve a batch of tridiagonal systems (seed 001's solvers) on the GPU or the CPU
//! and report the time and the residual ‖Ax − d‖/‖d‖.
//!
//! The batch is generated (random, diagonally dominant) or read from `--input DIR`
//! (`a.npy`, `b.npy`, `c.npy`, `d.npy`: shape `[batch, n]` in the contiguous layout,
//! `[n, batch]` in the interleaved one, any float dtype). `--output DIR` writes `x.npy` in the
//! same layout, and the generated inputs when the batch was generated.

use anyhow::{Context, Result, bail};
use hydrokern::output::npy::{NpyElem, read_npy_f64, write_npy};
use hydrokern::tridiag::{Batch, Choice, Layout, Shape, Solver};
use hydrokern::{Backend, GpuReal, Precision};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Unknowns per system (ignored with --input).
    #[arg(long, default_value_t = 1024)]
    n: usize,
    /// Systems in the batch (ignored with --input).
    #[arg(long, default_value_t = 4096)]
    batch: usize,
    /// Memory layout: contiguous (system after system) or interleaved (unknown i of every system together).
    #[arg(long, default_value = "interleaved", value_parser = parse_layout)]
    layout: Layout,
    /// Algorithm: auto, thomas, cr, pcr, cr-pcr, pcr-thomas, twisted, partition (the CPU backend runs thomas).
    #[arg(long, default_value = "auto", value_parser = parse_choice)]
    algorithm: Choice,
    /// Diagonal dominance of generated systems: |b| ≥ dominance·(|a| + |c|) + margin.
    #[arg(long, default_value_t = 1.0)]
    dominance: f64,
    /// Seed of the generated systems.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Read a.npy, b.npy, c.npy, d.npy from this directory instead of generating.
    #[arg(long)]
    input: Option<PathBuf>,
    /// Write x.npy (and the generated a, b, c, d) into this directory (created if missing).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Solves to time (the median is reported).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
}

fn parse_layout(s: &str) -> Result<Layout, String> {
    s.parse().map_err(|e: hydrokern::Error| e.to_string())
}
fn parse_choice(s: &str) -> Result<Choice, String> {
    s.parse().map_err(|e: hydrokern::Error| e.to_string())
}

pub fn run(args: &Args, backend: &Backend, precision: Precision) -> Result<()> {
    match precision {
        Precision::F32 => run_typed::<f32>(args, backend),
        Precision::F64 => run_typed::<f64>(args, backend),
    }
}

/// Read one coefficient array; its shape must match the layout's.
fn read(dir: &Path, name: &str, layout: Layout) -> Result<(Vec<f64>, Shape)> {
    let path = dir.join(format!("{name}.npy"));
    let (v, dims) = read_npy_f64(&path)?;
    let shape = match (dims.as_slice(), layout) {
        (&[batch, n], Layout::Contiguous) | (&[n, batch], Layout::Interleaved) => Shape::new(n, batch, layout),
        _ => bail!(
            "{}: shape {dims:?}; expected [batch, n] for the contiguous layout or [n, batch] for the interleaved one",
            path.display()
        ),
    };
    Ok((v, shape))
}

fn load(dir: &Path, layout: Layout) -> Result<Batch<f64>> {
    let (a, shape) = read(dir, "a", layout)?;
    let mut out = Batch { shape, a, b: Vec::new(), c: Vec::new(), d: Vec::new() };
    for (name, dst) in [("b", &mut out.b), ("c", &mut out.c), ("d", &mut out.d)] {
        let (v, s) = read(dir, name, layout)?;
        if s != shape {
            bail!("{name}.npy is {} × {}, a.npy {} × {} (systems × unknowns)", s.batch, s.n, shape.batch, shape.n);
        }
        *dst = v;
    }
    shape.validate()?;
    Ok(out)
}

fn npy_shape(shape: Shape) -> [usize; 2] {
    match shape.layout {
        Layout::Contiguous => [shape.batch, shape.n],
        Layout::Interleaved => [shape.n, shape.batch],
    }
}

fn run_typed<T: GpuReal + NpyElem>(args: &Args, backend: &Backend) -> Result<()> {
    if args.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    if !(args.dominance.is_finite() && args.dominance >= 0.0) {
        bail!("--dominance {}: must be a non-negative number", args.dominance);
    }
    let host = match &args.input {
        Some(dir) => load(dir, args.layout)?,
        None => {
            let shape = Shape::new(args.n, args.batch, args.layout);
            shape.validate()?;
            Batch::random(shape, args.seed, args.dominance)
        }
    };
    let shape = host.shape;
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        hydrokern::output::check_writable(&dir.join("x.npy"))?;
    }
    let batch = host.to::<T>();
    let mut solver = Solver::<T>::new(backend, shape)?;
    println!(
        "tridiag: {} systems of {} unknowns, {} layout, {}, algorithm {}",
        shape.batch,
        shape.n,
        shape.layout.name(),
        T::NAME,
        solver.algorithm(args.algorithm)
    );
    let mut times = Vec::new();
    let mut x = Vec::new();
    for _ in 0..args.repeat {
        let t0 = Instant::now();
        let (xs, _) = solver.solve(args.algorithm, &batch.a, &batch.b, &batch.c, &batch.d)?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        x = xs;
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let ms = times[times.len() / 2];
    let r = batch.residual(&x);
    println!(
        "solved in {ms:.3} ms (median of {}, including transfers on the GPU): {:.1} M unknowns/s; residual ‖Ax − d‖/‖d‖ = {r:.3e}",
        args.repeat,
        shape.len() as f64 / (ms * 1e-3) / 1e6
    );
    if let Some(dir) = &args.output {
        let dims = npy_shape(shape);
        write_npy(&dir.join("x.npy"), &x, &dims)?;
        if args.input.is_none() {
            for (name, v) in [("a", &batch.a), ("b", &batch.b), ("c", &batch.c), ("d", &batch.d)] {
                write_npy(&dir.join(format!("{name}.npy")), v, &dims)?;
            }
        }
        println!(
            "wrote x.npy{} to {}",
            if args.input.is_none() { ", a.npy, b.npy, c.npy, d.npy" } else { "" },
            dir.display()
        );
    }
    Ok(())
}
