//! Criterion benches of the foundation's kernels at 256 MiB, timed with CUDA events.
//! Without a GPU they print that they were skipped; any other failure to start the GPU fails.
//! `hydrokern bench copy` is the fuller table.

use criterion::{Criterion, criterion_group, criterion_main};
use hydrokern::foundation::ReduceOp;
use hydrokern::foundation::gpu::{BufferKernels, Reducer};
use hydrokern::runtime::Timer;
use hydrokern::{Gpu, GpuReal};
use std::time::Duration;

const BYTES: usize = 256 << 20;

/// Time `iters` calls of `f` between two events.
fn events(gpu: &Gpu, iters: u64, mut f: impl FnMut()) -> Duration {
    let t = Timer::new(gpu).unwrap();
    t.start(gpu).unwrap();
    for _ in 0..iters {
        f();
    }
    t.stop(gpu).unwrap();
    Duration::from_secs_f64(t.elapsed_ms().unwrap() * 1e-3)
}

fn precision<T: GpuReal>(c: &mut Criterion, gpu: &Gpu) {
    let n = BYTES / std::mem::size_of::<T>();
    let host: Vec<T> = (0..n).map(|i| T::from_f64((i as f64 * 1e-3).sin())).collect();
    let src = gpu.upload(&host).unwrap();
    let mut dst = gpu.alloc::<T>(n).unwrap();
    let kernels = BufferKernels::<T>::new(gpu).unwrap();
    let mut reducer = Reducer::<T>::new(gpu).unwrap();
    let mut g = c.benchmark_group(format!("foundation_{}_256MiB", T::NAME));
    g.bench_function("cuMemcpyDtoD", |b| {
        b.iter_custom(|it| events(gpu, it, || gpu.copy_dtod(&src, &mut dst).unwrap()))
    });
    g.bench_function("copy kernel", |b| b.iter_custom(|it| events(gpu, it, || kernels.copy(&src, &mut dst).unwrap())));
    g.bench_function("reduce max|x|", |b| {
        b.iter_custom(|it| events(gpu, it, || reducer.enqueue(ReduceOp::MaxAbs, &src, n).unwrap()))
    });
    g.finish();
}

fn foundation(c: &mut Criterion) {
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e @ hydrokern::Error::NoGpu(_)) => {
            println!("SKIPPED benches/copy: {e}");
            return;
        }
        Err(e) => panic!("benches/copy: the GPU did not start: {e}"),
    };
    precision::<f32>(c, &gpu);
    precision::<f64>(c, &gpu);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = foundation
}
criterion_main!(benches);
