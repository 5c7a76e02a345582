//! The live view's frames of the sediment model: on the GPU h and s gathered on the device (on
//! the compensated path h's two parts, added as the state adds them), bit for bit its state at
//! those cells, in both precisions and accumulations.

use crate::common::frames_are_the_state;
use crate::reference_and_gpu::random_problem;
use hydrokern::GpuReal;
use hydrokern::runtime::Backend;
use hydrokern::sediment::gpu::Launch;
use hydrokern::sediment::{Accumulation, SedimentModel, StepPolicy, StepVariant};

fn check<T: GpuReal>(backend: &Backend) {
    for accumulation in [Accumulation::Plain, Accumulation::Compensated] {
        let p = hydrokern::sediment::Problem { accumulation, ..random_problem(37, 23, 5, true) };
        let mut m = SedimentModel::<T>::new(
            backend,
            &p,
            StepPolicy { forced: None, update_every: 2 },
            StepVariant::Fused,
            Launch::default(),
        )
        .unwrap();
        frames_are_the_state(&mut m, 3, 5);
    }
}

#[test]
fn cpu_frames_are_the_state_at_their_cells() {
    check::<f64>(&Backend::Cpu { why: None });
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn gpu_frames_are_the_state_at_their_cells() {
    let backend = Backend::Gpu(crate::common::gpu());
    check::<f64>(&backend);
    check::<f32>(&backend);
}
