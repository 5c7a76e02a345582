//! The wave-propagation search: the sweeps' launch shapes (`claw::shapes`: the x-sweep's warps
//! × rows, the y- and z-sweeps' threads along x × across × cells marched), for every system of
//! equations the registry has (`claw::equations`), each timed as whole steps (ghost fills,
//! sweeps, the rates' reduction, the device's Δt control) of one running simulation whose
//! shapes change between steps.
//!
//! The axes are searched one after another, each with the others at the best found so far (x,
//! then y, then z), so that the space is the sum of the axes' and not their product; then the
//! default and the best are timed against each other, interleaved, for the record.

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

/// x-sweep blocks: warps along x × rows along y.
const X_WARPS: [u32; 4] = [1, 2, 4, 8];
const X_ROWS: [u32; 5] = [1, 2, 4, 8, 16];
/// y- and z-sweep blocks: threads along x × threads across × cells a thread marches.
const ACROSS_X: [u32; 4] = [32, 64, 128, 256];
const ACROSS_Y: [u32; 3] = [1, 2, 4];
const ACROSS_CELLS: [u32; 3] = [16, 32, 64];

/// The blocks searched along `dir`, in order.
pub fn axis_space(dir: usize) -> Vec<[u32; 3]> {
    if dir == 0 {
        X_ROWS.iter().flat_map(|&r| X_WARPS.iter().map(move |&w| [w, r, 1])).collect()
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
    let nz = if info.dims == 3 { n } else { 1 };
    let h = 1.0 / n as f64;
    let setup = Setup3::walled(n, nz);
    let hump: Vec<f64> = (0..n * n * nz)
        .into_par_iter()
        .map(|c| {
            let at = |i: usize, c: f64| (i as f64 + 0.5) * h - c;
            let (x, y, z) = (at(c % n, 0.4), at((c / n) % n, 0.55), if nz > 1 { at(c / (n * n), 0.5) } else { 0.0 });
            1.0 + 0.5 * (-40.0 * (x * x + y * y + z * z)).exp()
        })
        .collect();
    Data { setup, constants: info.constants.iter().map(|&(_, v)| v).collect(), fields: vec![hump; info.fields.len()] }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claw::d3::gpu::Shapes3;
    use crate::claw::gpu::Shapes;

    fn h100(regs: u32) -> BlockLimits {
        BlockLimits {
            device_threads: 1024,
            kernel_threads: 1024,
            regs_per_thread: regs,
            regs_per_block: 65536,
            shared_optin: 227 * 1024,
            static_shared: 0,
        }
    }

    #[test]
    fn the_spaces_hold_the_defaults_and_whole_warps() {
        let x = axis_space(0);
        assert_eq!(x.len(), 20);
        assert!(x.contains(&Shapes::default().axis(0)));
        let y = axis_space(1);
        assert_eq!(y.len(), 36);
        assert!(y.contains(&Shapes::default().axis(1)) && y.contains(&Shapes3::default().axis(2)));
        assert!(y.iter().all(|b| threads(1, *b).is_multiple_of(32) && threads(1, *b) <= 1024));
    }

    #[test]
    fn pruning_drops_what_the_driver_or_the_registers_refuse() {
        // x: 8 warps × 16 rows is 4096 threads (the drivers' check); 4 × 8 is 1024, which 72
        // registers a thread (2304 a warp, 28 warps in 65536) cannot hold either.
        let v = prune_axis(Shapes::default(), 0, &h100(72), 8);
        let verdict = |w: u32, r: u32| v.iter().find(|(s, _)| s.x == (w, r)).unwrap().1.clone();
        assert!(matches!(verdict(8, 16), Err(Pruned::Invalid(_))));
        assert!(matches!(verdict(4, 8), Err(Pruned::Registers { .. })));
        assert_eq!(verdict(2, 2), Ok(()));
        assert_eq!(verdict(1, 16), Ok(()));
        // The other axis keeps its block.
        assert!(v.iter().all(|(s, _)| s.y == Shapes::default().y));
        // At 32 registers everything within 1024 threads launches: 20 − 3 beyond 1024.
        let ok = prune_axis(Shapes::default(), 0, &h100(32), 4).iter().filter(|(_, v)| v.is_ok()).count();
        assert_eq!(ok, 17);
        // Across: shared memory counts (32 values of the block reduction besides the static).
        let tight = BlockLimits { static_shared: 227 * 1024 - 200, ..h100(32) };
        let v3 = prune_axis(Shapes3::default(), 2, &tight, 8);
        assert!(v3.iter().all(|(_, v)| matches!(v, Err(Pruned::Shared { .. }))));
        assert!(v3.iter().all(|(s, _)| s.x == Shapes3::default().x && s.y == Shapes3::default().y));
    }

    #[test]
    fn a_base_outside_the_space_is_searched_too() {
        let odd = Shapes { x: (3, 1), ..Shapes::default() };
        let v = prune_axis(odd, 0, &h100(32), 4);
        assert_eq!(v[0].0, odd);
        assert_eq!(v.len(), 21);
    }

    #[test]
    fn the_problem_is_admissible_for_every_system() {
        for &eq in Equations::ALL {
            let info = eq.info();
            let data = problem(&info, 24);
            assert_eq!(data.fields.len(), info.fields.len());
            assert_eq!(data.setup.nz, if info.dims == 3 { 24 } else { 1 });
            let dt = eq.first_dt(&data).unwrap_or_else(|e| panic!("{}: {e}", info.name));
            assert!(dt.is_finite() && dt > 0.0, "{}: {dt}", info.name);
        }
    }
}
