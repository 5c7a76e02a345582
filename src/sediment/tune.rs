//! The sediment search: the fused step's warps a block and rows a warp (its whole launch:
//! `Launch::block.1` warps of 32, `Launch::rows` rows), timed as steps of the basin at the
//! tuning size on one running model whose launch changes between steps.

use crate::runtime::block_limits;
use crate::runtime::{Gpu, Timer};
use crate::sediment::gpu::{GpuSediment, Launch};
use crate::sediment::{Problem, StepVariant, setup};
use crate::tune::space::{self, Pruned};
use crate::tune::{Record, Tunable, TuneOptions};
use crate::{Error, GpuReal, Precision, Result};

/// What the record of a fused run is filed under.
pub const KERNEL: &str = "fused step";

const WARPS: [u32; 6] = [1, 2, 4, 8, 16, 32];
const ROWS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// A launch as the cache holds it: `BXxBY/ROWS`.
pub fn label(l: Launch) -> String {
    format!("{}x{}/{}", l.block.0, l.block.1, l.rows)
}

/// [`label`] read back.
pub fn parse(s: &str) -> Result<Launch> {
    let bad = || Error::invalid(format!("'{s}' is not a sediment launch (BXxBY/ROWS)"));
    let (block, rows) = s.split_once('/').ok_or_else(bad)?;
    let (x, y) = block.split_once('x').ok_or_else(bad)?;
    let n = |v: &str| v.parse::<u32>().ok().filter(|&v| (1..=1024).contains(&v)).ok_or_else(bad);
    let (bx, by, rows) = (n(x)?, n(y)?, n(rows)?);
    if (bx + 2) * (by + 2) > 1024 || by > 32 {
        return Err(bad());
    }
    Ok(Launch { block: (bx, by), rows })
}

/// The fused step's launch for a run on `gpu` in `precision`, from the cache (None: defaults).
pub fn launch_for(gpu: &Gpu, precision: Precision) -> Option<Launch> {
    crate::tune::tuned_config(gpu, "sediment", KERNEL, precision, parse)
}

struct Fused<'a, T: GpuReal> {
    model: GpuSediment<T>,
    problem: &'a Problem,
    dt: f64,
    launches: Vec<Launch>,
    verdicts: Vec<std::result::Result<(), Pruned>>,
    default: usize,
}

impl<T: GpuReal> Tunable for Fused<'_, T> {
    fn space(&self) -> Vec<(String, std::result::Result<(), Pruned>)> {
        self.launches.iter().zip(&self.verdicts).map(|(l, v)| (label(*l), v.clone())).collect()
    }
    fn default_index(&self) -> usize {
        self.default
    }
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()> {
        self.model.set_launch(self.problem, self.dt, self.launches[k])?;
        timer.start(gpu)?;
        self.model.step(StepVariant::Fused)?;
        timer.stop(gpu)
    }
}

pub fn tune<T: GpuReal>(gpu: &Gpu, opts: &TuneOptions) -> Result<Vec<Record>> {
    let n = opts.size;
    let problem = setup::basin(n, n, 10.0)?;
    let dt = problem.stability(&problem.h).automatic();
    let precision = Precision::of::<T>();
    let default = Launch::default();
    let model = GpuSediment::<T>::new(gpu, &problem, dt, default)?;
    let compensated = problem.accumulation.compensates::<T>();
    let entry = match (problem.scheme, compensated) {
        (crate::sediment::Scheme::Bounded, false) => kernels::sediment::B_FUSED,
        (crate::sediment::Scheme::Bounded, true) => kernels::sediment::BC_FUSED,
        (_, false) => kernels::sediment::FUSED,
        (_, true) => kernels::sediment::C_FUSED,
    };
    let limits = block_limits(gpu, &gpu.kernel::<T, _>(entry)?)?;
    let points = space::grid_2d(&WARPS, &ROWS);
    // The fused kernel ignores BX; the case's check of a launch ((BX + 2)(BY + 2) ≤ 1024, for
    // the halo-thread variants) keeps the default's BX where it can and takes 16 for more warps.
    let bx = |w: u32| if (default.block.0 + 2) * (w + 2) <= 1024 { default.block.0 } else { 16 };
    let launches: Vec<Launch> = points.iter().map(|&(w, r)| Launch { block: (bx(w), w), rows: r }).collect();
    // The fused kernel runs BY warps of 32 (fewer when registers refuse: then the shape is
    // the same as a smaller one, so it is pruned here instead).
    let verdicts: Vec<_> = points
        .iter()
        .map(|&(w, _)| {
            limits.check(32 * w, 0)?;
            let l = Launch { block: (bx(w), w), rows: 1 };
            parse(&label(l)).map(|_| ()).map_err(|e| Pruned::Invalid(e.to_string()))
        })
        .collect();
    let d = launches
        .iter()
        .position(|&l| l == default)
        .ok_or_else(|| Error::invalid("sediment default not in the space"))?;
    let mut t = Fused { model, problem: &problem, dt, launches, verdicts, default: d };
    let found = crate::tune::search(gpu, &mut t, opts.rounds)?;
    Ok(vec![found.record("sediment", KERNEL, precision, vec![n as u64, n as u64])])
}

/// The registry's tuning hook: this search in `precision`.
pub fn search(gpu: &Gpu, opts: &TuneOptions, precision: Precision) -> Result<crate::tune::Tuned> {
    Ok(match precision {
        Precision::F32 | Precision::Mixed => tune::<f32>(gpu, opts)?.into(),
        Precision::F64 => tune::<f64>(gpu, opts)?.into(),
    })
}
