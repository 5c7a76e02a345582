//! `bench transpose`: every transpose variant, f32 and f64, n × n for n in 1024 … 16384
//! (`--sizes`: edge lengths). GB/s count 2 words per element (one read, one write), so
//! "% of copy" is directly the fraction of a device-to-device copy's bandwidth.

use crate::bench::{BenchOptions, Report, rotation, time_gpu};
use crate::runtime::{DeviceBuffer, Gpu};
use crate::transpose::{Variant, gpu};
use crate::{GpuReal, Result};

/// `hydrokern bench transpose`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "transpose",
    about: "naive, tiled and diagonal transposes, f32 and f64, 1024² to 16384² (sizes: edge lengths)",
    parts: &[],
    run,
};

const DEFAULT_N: [usize; 5] = [1024, 2048, 4096, 8192, 16384];

pub fn run(g: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let sizes = if opts.sizes.is_empty() { DEFAULT_N.to_vec() } else { opts.sizes.clone() };
    for n in sizes {
        precision::<f32>(g, opts, report, n)?;
        precision::<f64>(g, opts, report, n)?;
    }
    Ok(())
}

fn precision<T: GpuReal>(g: &Gpu, opts: &BenchOptions, report: &mut Report, n: usize) -> Result<()> {
    let what = format!("bench transpose at {n}² in {}", T::NAME);
    let w = std::mem::size_of::<T>() as u64;
    let bytes = crate::bench::bytes(&what, &[n as u64, n as u64, w])?;
    let (len, bytes) = (n * n, bytes as usize);
    let rot = rotation(g, 2 * bytes).min(8);
    if !crate::bench::fits(
        g,
        opts,
        &what,
        bytes as u64,
        crate::bench::bytes(&what, &[2, rot as u64, bytes as u64])? + (64 << 20),
    )? {
        return Ok(());
    }
    let host: Vec<T> = (0..len).map(|i| T::from_f64((i % 1013) as f64)).collect();
    let input: Vec<DeviceBuffer<T>> = (0..rot).map(|_| g.upload(&host)).collect::<Result<_>>()?;
    let mut out: Vec<DeviceBuffer<T>> = (0..rot).map(|_| g.alloc::<T>(len)).collect::<Result<_>>()?;
    let t = gpu::Transposer::<T>::new(g)?;
    for v in Variant::ALL {
        let m = time_gpu(g, opts.warmup, opts.reps, |i| t.run(v, n, n, &input[i % rot], &mut out[i % rot]))?;
        let note = format!("{:.1} G elements/s", len as f64 / (m.median_ms * 1e-3) / 1e9);
        report.push("transpose", v.name(), &format!("{n}²"), T::NAME, m.median_ms, 2.0 * bytes as f64, None, note);
    }
    Ok(())
}
