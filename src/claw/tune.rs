//! The wave-propagation search: the sweeps' launch shapes (`claw::shapes`: the x-sweep's warps
//! along x × along y × rows a warp takes, the y- and z-sweeps' threads along x × across × cells
//! marched), for every system of equations the registry has (`claw::equations`), each timed as whole steps (ghost fills,
//! sweeps, the rates' reduction, the device's Δt control) of one running simulation whose
//! shapes change between steps.
//!
//! The axes are searched one after another, each with the others at the best found so far (x,
//! then y, then z), so that the space is the sum of the axes' and not their product; then the
//! default and the best are timed against each other, interleaved, for the record.

use crate::case::initial::Values;
use crate::claw::d3::cpu::Setup3;
use crate::claw::equations::{Data, Equations, Info, OnGpuRun};
use crate::claw::shapes::{Reshape, SweepShapes, label, threads};
use crate::claw::stepper::GpuRun;
use crate::runtime::{BlockLimits, Pruned};
use crate::runtime::{Gpu, Timer};
use crate::tune::{Found, Record, Tunable, TuneOptions};
use crate::{Error, GpuReal, Precision, Result};
use rayon::prelude::*;

pub use crate::claw::shapes::tuned_shapes;

/// x-sweep blocks: warps along x × warps along y × rows a warp takes.
const X_WARPS: [u32; 4] = [1, 2, 4, 8];
const X_ACROSS: [u32; 3] = [1, 2, 4];
const X_ROWS: [u32; 3] = [1, 8, 32];
/// y- and z-sweep blocks: threads along x × threads across × cells a thread marches.
const ACROSS_X: [u32; 4] = [32, 64, 128, 256];
const ACROSS_Y: [u32; 3] = [1, 2, 4];
const ACROSS_CELLS: [u32; 3] = [16, 32, 64];

/// The blocks searched along `dir`, in order.
pub fn axis_space(dir: usize) -> Vec<[u32; 3]> {
    if dir == 0 {
        let mut v = Vec::new();
        for &r in &X_ROWS {
            for &by in &X_ACROSS {
                for &w in &X_WARPS {
                    v.push([w, by, r]);
                }
            }
        }
        v
    } else {
        let mut v = Vec::new();
        for &c in &ACROSS_CELLS {
            for &by in &ACROSS_Y {
                for &bx in &ACROSS_X {
                    v.push([bx, by, c]);
                }
            }
        }
        v
    }
}

/// `base` with each block of [`axis_space`] along `dir`, and the verdict of pruning: the
/// drivers' check of the shapes, then what `limits` (the sweep kernel's and the device's) allow
/// a block of that many threads with the `word`-byte values of the block reduction's 32 in
/// shared memory. `base`'s own block comes first when the space lacks it.
pub fn prune_axis<S: SweepShapes>(
    base: S,
    dir: usize,
    limits: &BlockLimits,
    word: u64,
) -> Vec<(S, std::result::Result<(), Pruned>)> {
    let mut blocks = axis_space(dir);
    if !blocks.contains(&base.axis(dir)) {
        blocks.insert(0, base.axis(dir));
    }
    blocks
        .into_iter()
        .map(|b| {
            let s = base.with_axis(dir, b);
            let verdict = s
                .check()
                .map_err(|e| Pruned::Invalid(e.to_string()))
                .and_then(|_| limits.check(threads(dir, b), 32 * word));
            (s, verdict)
        })
        .collect()
}

/// Candidate shapes of one running simulation.
struct Steps<'a, T: GpuReal, K: Reshape<T>> {
    run: &'a mut GpuRun<T, K>,
    cands: Vec<(K::Shapes, std::result::Result<(), Pruned>)>,
    default: usize,
}

impl<T: GpuReal, K: Reshape<T>> Tunable for Steps<'_, T, K> {
    fn space(&self) -> Vec<(String, std::result::Result<(), Pruned>)> {
        self.cands.iter().map(|(s, v)| (label(*s), v.clone())).collect()
    }
    fn default_index(&self) -> usize {
        self.default
    }
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()> {
        self.run.set_shapes(gpu, self.cands[k].0)?;
        timer.start(gpu)?;
        self.run.queue_step()?;
        timer.stop(gpu)
    }
}

/// Search `run`'s shapes axis by axis, then time the default against the best: that last
/// search (whose best is the record's). An error when the simulation halted meanwhile (its
/// steps would have timed idle launches).
pub fn search_shapes<T: GpuReal, K: Reshape<T>>(gpu: &Gpu, run: &mut GpuRun<T, K>, rounds: usize) -> Result<Found> {
    run.set_stop(f64::MAX)?;
    let default = K::Shapes::default();
    let word = std::mem::size_of::<T>() as u64;
    let mut best = default;
    for dir in 0..K::Shapes::AXES {
        let limits = run.sweep_limits(gpu, dir)?;
        let cands = prune_axis(best, dir, &limits, word);
        let at = cands.iter().position(|(s, _)| *s == best).unwrap_or(0);
        let mut t = Steps { run: &mut *run, cands, default: at };
        let found = crate::tune::search(gpu, &mut t, rounds)?;
        best = t.cands[found.best].0;
    }
    let cands = if best == default { vec![(default, Ok(()))] } else { vec![(default, Ok(())), (best, Ok(()))] };
    let mut t = Steps { run: &mut *run, cands, default: 0 };
    let found = crate::tune::search(gpu, &mut t, rounds)?;
    let clock = run.read_clock(gpu)?;
    if let Some(halt) = clock.halt() {
        return Err(Error::invalid(format!(
            "tuning claw: the simulation halted after {} steps: {halt}",
            clock.steps()
        )));
    }
    Ok(found)
}

/// [`search_shapes`] with `rounds` timed steps a candidate, as each system's running simulation
/// is handed to it ([`Equations::on_gpu_run`]).
struct Search {
    rounds: usize,
}

impl<T: GpuReal> OnGpuRun<T> for Search {
    fn run<K: Reshape<T>>(self, gpu: &Gpu, run: &mut GpuRun<T, K>) -> Result<Found> {
        search_shapes(gpu, run, self.rounds)
    }
}

/// The tuning problem of equations `info` on `n` cells a side (`n`² in 2D, `n`³ in 3D): the
/// unit square (cube) with walls all round, the MC limiter, Godunov splitting, the constants'
/// defaults, and every field a hump of height ½ on 1 (admissible for every system: depths,
/// densities and moduli positive), so that waves run in every direction.
pub fn problem(info: &Info, n: usize) -> Data {
    problem_on(info, Setup3::walled(n, if info.dims == 3 { n } else { 1 }))
}

/// [`problem`]'s hump on the grid of `setup` (cells of side `setup.dx` along every axis).
pub fn problem_on(info: &Info, setup: Setup3) -> Data {
    let (nx, ny, nz, h) = (setup.nx, setup.ny, setup.nz, setup.dx);
    let hump: Vec<f64> = (0..nx * ny * nz)
        .into_par_iter()
        .map(|c| {
            let at = |i: usize, c: f64| (i as f64 + 0.5) * h - c;
            let z = if nz > 1 { at(c / (nx * ny), 0.5) } else { 0.0 };
            let (x, y) = (at(c % nx, 0.4), at((c / nx) % ny, 0.55));
            1.0 + 0.5 * (-40.0 * (x * x + y * y + z * z)).exp()
        })
        .collect();
    Data {
        setup,
        constants: info.constants.iter().map(|&(_, v)| v).collect(),
        fields: vec![Values::stored(hump); info.fields.len()],
    }
}

/// The search in precision `T`: one record for each system of equations (filed under its name).
pub fn tune<T: GpuReal>(gpu: &Gpu, opts: &TuneOptions) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    for &eq in Equations::ALL {
        let info = eq.info();
        let n = if info.dims == 3 { opts.cube_side() } else { opts.size };
        let data = problem(&info, n);
        let found = eq.on_gpu_run::<T, _>(gpu, &data, Search { rounds: opts.rounds })?;
        records.push(found.record("claw", info.name, Precision::of::<T>(), vec![n as u64; info.dims]));
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
