//! The `tridiag` solver: batches of tridiagonal systems solved once per timed repetition on the
//! CPU or the GPU, reporting time, residual and backward error. The solves themselves are a
//! building block of the core (`hydrokern_core::tridiag`, re-exported here); this module adds
//! the case files ([`TridiagCase`]), the benchmark suite and the registry's entry.

#[cfg(feature = "bench")]
pub mod bench;
mod case;

pub use case::{MAX_REPEAT, TridiagCase, as_rows, check_lines};
pub use hydrokern_core::tridiag::*;

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "tridiag",
    about: "batched tridiagonal solvers (Thomas, CR, PCR, hybrids, partition; LU and SPIKE with partial pivoting): time, residual and backward error",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(TridiagCase::load(doc)?)),
    mixed: false,
    products: crate::solver::Support::None,
    lines: false,
    tune: Some(search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};

/// The registry's tuning hook: the core's search of the tridiagonal algorithm choice
/// ([`tune`]) in the precision asked for.
fn search(
    gpu: &crate::Gpu,
    opts: &crate::tune::TuneOptions,
    precision: crate::Precision,
) -> crate::Result<crate::tune::Tuned> {
    Ok(match precision {
        crate::Precision::F32 | crate::Precision::Mixed => tune::tune::<f32>(gpu, opts)?.into(),
        crate::Precision::F64 => tune::tune::<f64>(gpu, opts)?.into(),
    })
}
