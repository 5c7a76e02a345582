//! The live view's frames of the wave-propagation model: on the GPU gathered on the device from
//! its state's planes (2D, and a 3D box's cells), bit for bit its state at those cells.

use crate::common::frames_are_the_state;
use hydrokern::GpuReal;
use hydrokern::case::CaseDoc;
use hydrokern::claw::ClawCase;
use hydrokern::run::Simulation;
use hydrokern::runtime::Backend;
use hydrokern::scenarios;

fn case(name: &str, n: i64) -> ClawCase {
    let mut doc: CaseDoc = scenarios::find(name).unwrap().doc().unwrap();
    for key in ["grid.nx", "grid.ny"].into_iter().chain((name == "acoustics-3d").then_some("grid.nz")) {
        doc.set(key, n.into(), "test").unwrap();
    }
    ClawCase::load(&doc).unwrap()
}

fn check<T: GpuReal>(backend: &Backend) {
    for (name, n) in [("swe-radial", 45), ("acoustics-2d", 33), ("acoustics-3d", 13)] {
        let c = case(name, n);
        let mut m = c.build::<T>(backend).unwrap();
        frames_are_the_state(m.as_mut(), 3, 4);
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
