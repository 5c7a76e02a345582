//! The fd3d search: threads a block of the variants whose block is a run-time choice (x-vec,
//! y-stream, z-stream; `fd3d::gpu::block_tunable`), timed as derivatives of the test field on
//! a cube with as many points as the tuning size's square.

use crate::fd3d::gpu::{Plan, block_tunable, plan_with};
use crate::fd3d::{Grid3, PeriodicGrid, TestField, Variant};
use crate::runtime::block_limits;
use crate::runtime::{DeviceBuffer, Gpu, Timer};
use crate::tune::space::Pruned;
use crate::tune::{Record, Tunable, TuneOptions};
use crate::{Error, GpuReal, Precision, Result};

pub use crate::fd3d::gpu::tuned_block;

const BLOCKS: [u32; 6] = [32, 64, 128, 256, 512, 1024];

struct Blocks<'a, T: GpuReal> {
    plans: Vec<Option<Plan<T>>>,
    verdicts: Vec<std::result::Result<(), Pruned>>,
    default: usize,
    f: &'a DeviceBuffer<T>,
    df: &'a mut DeviceBuffer<T>,
}

impl<T: GpuReal> Tunable for Blocks<'_, T> {
    fn space(&self) -> Vec<(String, std::result::Result<(), Pruned>)> {
        BLOCKS.iter().zip(&self.verdicts).map(|(b, v)| (b.to_string(), v.clone())).collect()
    }
    fn default_index(&self) -> usize {
        self.default
    }
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()> {
        let plan = self.plans[k].as_ref().ok_or_else(|| Error::invalid("fd3d: a pruned block ran"))?;
        timer.start(gpu)?;
        plan.run(self.f, self.df)?;
        timer.stop(gpu)
    }
}

pub fn tune<T: GpuReal>(gpu: &Gpu, opts: &TuneOptions) -> Result<Vec<Record>> {
    let m = opts.cube_side();
    let grid = Grid3::cube(m)?;
    gpu.check_fits(&format!("fd3d tuning on a {grid} grid"), 2 * grid.len() * std::mem::size_of::<T>())?;
    let host: Vec<T> = TestField { k: [1, 1, 1] }.sample::<T>(grid)?;
    let f = gpu.upload(&host)?;
    let mut df = gpu.alloc::<T>(grid.len())?;
    let mut records = Vec::new();
    for variant in Variant::ALL.into_iter().filter(|&v| block_tunable(v)) {
        let limits = block_limits(gpu, &gpu.kernel::<T, _>(variant.entry())?)?;
        let (default_shape, _) = plan_with::<T>(grid, variant, gpu.info().sm_count, None)?;
        let default_block = default_shape.block.0;
        // The streaming kernels' blocks span a row at most (wider ones launch as the row).
        let row = (m as u32).next_multiple_of(32);
        let verdicts: Vec<_> = BLOCKS
            .iter()
            .map(|&b| match variant {
                Variant::YStream | Variant::ZStream if b > row => {
                    Err(Pruned::Invalid(format!("{b} threads is wider than a row of {m}")))
                }
                _ => limits.check(b, 0),
            })
            .collect();
        let plans = BLOCKS
            .iter()
            .zip(&verdicts)
            .map(|(&b, v)| v.is_ok().then(|| Plan::<T>::with_block(gpu, grid, variant, Some(b))).transpose())
            .collect::<Result<Vec<_>>>()?;
        let default = BLOCKS
            .iter()
            .position(|&b| b == default_block)
            .ok_or_else(|| Error::invalid(format!("fd3d {variant}: default block {default_block} not in the space")))?;
        let mut t = Blocks { plans, verdicts, default, f: &f, df: &mut df };
        let found = crate::tune::search(gpu, &mut t, opts.rounds)?;
        records.push(found.record("fd3d", variant.name(), Precision::of::<T>(), vec![m as u64; 3]));
    }
    Ok(records)
}

/// The registry's tuning hook: this search in `precision`.
pub fn search(gpu: &Gpu, opts: &TuneOptions, precision: Precision) -> Result<crate::tune::Tuned> {
    Ok(match precision {
        Precision::F32 | Precision::Mixed => tune::<f32>(gpu, opts)?.into(),
        Precision::F64 => tune::<f64>(gpu, opts)?.into(),
    })
}
