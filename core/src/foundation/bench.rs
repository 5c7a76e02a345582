//! `bench copy`: the memory yardsticks. `cuMemcpyDtoD`, the Rust copy kernel and the
//! reductions over 1 MiB to 1 GiB, f32 and f64, with the CPU reference's reduction as the peer.

use crate::bench::{BenchOptions, Report, rotation, time_cpu, time_gpu};
use crate::foundation::gpu::{BufferKernels, Reducer};
use crate::foundation::{self, ReduceOp};
use crate::runtime::{DeviceBuffer, Gpu};
use crate::{GpuReal, Result};

/// `hydrokern bench copy`.
pub const SUITE: crate::bench::Suite = crate::bench::Suite {
    name: "copy",
    about: "cuMemcpyDtoD, the Rust copy kernel and the reductions (max|x|, sum), f32 and f64, 1 MiB to 1 GiB (sizes in MiB)",
    parts: &[],
    run,
};

const DEFAULT_MIB: [usize; 6] = [1, 4, 16, 64, 256, 1024];
/// The CPU peer is timed up to this size (it is slow and the point is made by then).
const CPU_MAX_MIB: usize = 256;

pub fn run(gpu: &Gpu, opts: &BenchOptions, report: &mut Report) -> Result<()> {
    let sizes = if opts.sizes.is_empty() { DEFAULT_MIB.to_vec() } else { opts.sizes.clone() };
    for mib in sizes {
        let what = format!("bench copy at {mib} MiB");
        let bytes = crate::bench::bytes(&what, &[mib as u64, 1 << 20])? as usize;
        let rot = rotation(gpu, bytes);
        // Two rotated sets (source, destination) are alive at once; the CPU peer reads a host copy.
        let host = if mib <= CPU_MAX_MIB { bytes as u64 } else { 0 };
        if !crate::bench::fits(gpu, opts, &what, host, crate::bench::bytes(&what, &[2, rot as u64, bytes as u64])?)? {
            continue;
        }
        let label = format!("{mib} MiB");
        {
            let src: Vec<DeviceBuffer<u8>> = (0..rot).map(|_| gpu.zeros::<u8>(bytes)).collect::<Result<_>>()?;
            let mut dst: Vec<DeviceBuffer<u8>> = (0..rot).map(|_| gpu.alloc::<u8>(bytes)).collect::<Result<_>>()?;
            let m = time_gpu(gpu, opts.warmup, opts.reps, |i| gpu.copy_dtod(&src[i % rot], &mut dst[i % rot]))?;
            report.push("copy", "cuMemcpyDtoD", &label, "-", m.median_ms, 2.0 * bytes as f64, None, String::new());
        }
        precision::<f32>(gpu, opts, report, bytes, rot, &label)?;
        precision::<f64>(gpu, opts, report, bytes, rot, &label)?;
    }
    Ok(())
}

fn precision<T: GpuReal>(
    gpu: &Gpu,
    opts: &BenchOptions,
    report: &mut Report,
    bytes: usize,
    rot: usize,
    label: &str,
) -> Result<()> {
    let n = bytes / std::mem::size_of::<T>();
    // Never time on zeros: a smooth non-trivial pattern.
    let host: Vec<T> = (0..n).map(|i| T::from_f64((i as f64 * 1e-3).sin())).collect();
    let src: Vec<DeviceBuffer<T>> = (0..rot).map(|_| gpu.upload(&host)).collect::<Result<_>>()?;
    let mut dst: Vec<DeviceBuffer<T>> = (0..rot).map(|_| gpu.alloc::<T>(n)).collect::<Result<_>>()?;
    let p = T::NAME;
    let b = bytes as f64;

    let k = BufferKernels::<T>::new(gpu)?;
    let m = time_gpu(gpu, opts.warmup, opts.reps, |i| k.copy(&src[i % rot], &mut dst[i % rot]))?;
    report.push("copy", "rust kernel (16 B/thread)", label, p, m.median_ms, 2.0 * b, None, String::new());

    let mut reducer = Reducer::<T>::new(gpu)?;
    for (op, name) in [(ReduceOp::MaxAbs, "reduce max|x|"), (ReduceOp::Sum, "reduce sum")] {
        let m = time_gpu(gpu, opts.warmup, opts.reps, |i| reducer.enqueue(op, &src[i % rot], n))?;
        report.push(name, "rust kernel (2 passes)", label, p, m.median_ms, b, Some(n as f64), String::new());
    }
    if bytes <= CPU_MAX_MIB << 20 {
        let m = time_cpu(1, opts.reps.clamp(1, 10), |_| {
            std::hint::black_box(foundation::cpu::reduce(ReduceOp::MaxAbs, &host));
            Ok(())
        })?;
        let note = format!("{} CPU threads", rayon::current_num_threads());
        report.push("reduce max|x|", "cpu reference", label, p, m.median_ms, b, Some(n as f64), note);
    }
    Ok(())
}
