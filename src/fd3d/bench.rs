//! `bench fd3d`: every fd3d variant at 64³, 256³ and 512³ (sizes are cube edges), f32 and
//! f64, with the CPU reference as the peer at the two smaller sizes. GB/s count one read and
//! one write per point, the fewest a derivative must move. A copy of the same bytes by the
//! 16-byte copy kernel shows what is reachable at each size.

use crate::bench::{BenchOptions, Report, rotation, time_cpu, time_gpu};
use crate::fd3d::gpu::Plan;
use crate::fd3d::{Direction, Grid3, PeriodicGrid, TestField, Variant, cpu};
use crate::foundation::gpu::BufferKernels;
use crate::runtime::{DeviceBuffer, Gpu};
use crate::{GpuReal, Result};

/// `hydrokern bench fd3d`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "fd3d",
    about: "8th-order periodic derivatives in x, y, z, every variant, f32 and f64, 64³ to 512³ (sizes: cube edges)",
    parts: &[],
    run,
};

const DEFAULT_EDGES: [usize; 3] = [64, 256, 512];
/// The CPU peer is timed up to this edge.
const CPU_MAX_EDGE: usize = 256;

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let edges = if opts.sizes.is_empty() { DEFAULT_EDGES.to_vec() } else { opts.sizes.clone() };
    for edge in edges {
        let grid = Grid3::cube(edge)?;
        precision::<f32>(gpu, opts, report, grid)?;
        precision::<f64>(gpu, opts, report, grid)?;
    }
    Ok(())
}

fn kernel_name(dir: Direction) -> String {
    format!("fd3d d/d{dir}")
}

fn precision<T: GpuReal>(gpu: &Gpu, opts: &BenchOptions, report: &mut Report, grid: Grid3) -> Result<()> {
    let bytes = grid.bytes::<T>();
    let rot = rotation(gpu, bytes);
    let what = format!("bench fd3d at {grid} in {}", T::NAME);
    // The sampled field and the CPU peer's output on the host; rotated input/output pairs on the GPU.
    if !crate::bench::fits(
        gpu,
        opts,
        &what,
        2 * bytes as u64,
        crate::bench::bytes(&what, &[2, rot as u64, bytes as u64])?,
    )? {
        return Ok(());
    }
    let field = TestField::default();
    let host = field.sample::<T>(grid)?;
    let src: Vec<DeviceBuffer<T>> = (0..rot).map(|_| gpu.upload(&host)).collect::<Result<_>>()?;
    let mut dst: Vec<DeviceBuffer<T>> = (0..rot).map(|_| gpu.alloc::<T>(grid.len())).collect::<Result<_>>()?;
    let (label, p, moved) = (grid.to_string(), T::NAME, 2.0 * bytes as f64);
    // What a kernel moving the same bytes can reach at this size: the 16-byte copy kernel.
    let k = BufferKernels::<T>::new(gpu)?;
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| k.copy(&src[i % rot], &mut dst[i % rot]))?;
    report.push("copy", "rust kernel (16 B/thread)", &label, p, m.median_ms, moved, None, String::new());
    for variant in Variant::ALL {
        let plan = Plan::<T>::new(gpu, grid, variant)?;
        let m = time_gpu(gpu, opts.warmup, opts.reps, |i| plan.run(&src[i % rot], &mut dst[i % rot]))?;
        // Not a test, but a wrong kernel should not post a fast row unnoticed: note its error.
        let last = (opts.warmup + opts.reps).saturating_sub(1) % rot;
        let err = field.errors(grid, variant.direction(), &gpu.download(&dst[last])?)?;
        let s = plan.shape();
        let note = format!("max err {:.1e}; grid {:?} block {:?}", err.max, s.grid, s.block);
        report.push(&kernel_name(variant.direction()), variant.name(), &label, p, m.median_ms, moved, None, note);
    }
    if grid.nx <= CPU_MAX_EDGE {
        let mut out = vec![T::ZERO; grid.len()];
        for dir in Direction::ALL {
            let m = time_cpu(1, opts.reps.clamp(1, 10), |_| cpu::derivative(grid, dir, &host, &mut out))?;
            let note = format!("{} CPU threads", rayon::current_num_threads());
            report.push(&kernel_name(dir), "cpu reference", &label, p, m.median_ms, moved, None, note);
        }
    }
    Ok(())
}
