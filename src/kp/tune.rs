//! The shallow-water search: the RK kernel's block (which is also the tile flux kernel's block
//! and the early-exit tile) and the flux kernel's decomposition, timed as whole RK2 steps with
//! early exit of the flooding dam break (Amundsen §4.5) at the tuning size, half-way to its end
//! (water and dry land: the block sets the early-exit tiles, and a shape timed on a wet grid
//! makes the flood 4.5% slower on an H100), through the public `kp::gpu` API only.
//!
//! Stage 1 builds one model per block of the 2D space that survives pruning (in groups that
//! fit in GPU memory) and times, interleaved, the tile flux kernel alone (the heat map) and
//! whole steps with the tile and with the default streamed flux. Stage 2 takes the best
//! block's model and times the streamed shapes (warps a block × rows a warp: the second heat
//! map), flux alone and whole steps. The record is the fastest whole step of both stages.

use crate::kp::gpu::{FluxKernel, FluxVariant, GpuKp, Launch};
use crate::kp::{Problem, WetDry, setup};
use crate::runtime::block_limits;
use crate::runtime::{Gpu, Timer};
use crate::tune::heatmap::{HeatMap, write_heat_map};
use crate::tune::space::{self, BLOCK_X, BLOCK_Y, Pruned};
use crate::tune::stats::Summary;
use crate::tune::{Found, Record, Tunable, TuneOptions};
use crate::{Error, GpuReal, Precision, Result};
use kernels::kp::{CLAMP, CLAMP_COPY, DRAIN, DRAIN_RHS, FluxEntries, RK};
use std::path::PathBuf;

/// What the record of a run is filed under.
pub const KERNEL: &str = "rk2 step";

/// What the x-line record is filed under: SRK2's (and DS1's, DS2's) line length.
pub const LINE_KERNEL: &str = "x-line";

/// Streamed shapes: warps a block × rows a warp.
const WARPS: [u32; 5] = [1, 2, 4, 8, 16];
const ROWS: [u32; 5] = [8, 16, 32, 64, 128];

/// x-line lengths (threads a block along a row).
pub const LINES: [u32; 6] = [32, 64, 128, 256, 512, 1024];

/// A launch as the cache holds it: `BXxBY tile` or `BXxBY stream:WxR`.
pub fn label(l: Launch) -> String {
    let flux = match l.flux {
        FluxVariant::Tile => "tile".to_string(),
        FluxVariant::Stream { warps, rows } => format!("stream:{warps}x{rows}"),
    };
    format!("{}x{} {flux}", l.block.0, l.block.1)
}

/// [`label`] read back.
pub fn parse(s: &str) -> Result<Launch> {
    let bad = || Error::invalid(format!("'{s}' is not a shallow-water launch (BXxBY tile|stream:WxR)"));
    let (block, flux) = s.split_once(' ').ok_or_else(bad)?;
    let (x, y) = block.split_once('x').ok_or_else(bad)?;
    let (bx, by): (u32, u32) = (x.parse().map_err(|_| bad())?, y.parse().map_err(|_| bad())?);
    match bx.checked_mul(by) {
        Some(t) if bx > 0 && by > 0 && t % 32 == 0 && t <= 1024 => {}
        _ => return Err(bad()),
    }
    Ok(Launch { block: (bx, by), flux: flux.parse()?, ..Launch::default() })
}

/// The launch a run on `gpu` in `precision` should use when its case gives none: the cache's
/// when there is a matching entry (and tuning is on), else the built-in default.
pub fn launch_for(gpu: &Gpu, precision: Precision) -> Option<Launch> {
    crate::tune::tuned_config(gpu, "kp", KERNEL, precision, parse)
}

/// The x-line length a run on `gpu` in `precision` should use when its case gives none: the
/// cache's when there is a matching entry (and tuning is on).
pub fn line_for(gpu: &Gpu, precision: Precision) -> Option<u32> {
    crate::tune::tuned_config(gpu, "kp", LINE_KERNEL, precision, parse_line)
}

/// An x-line length as the cache holds it (`128`) read back.
pub fn parse_line(s: &str) -> Result<u32> {
    match s.parse::<u32>() {
        Ok(l) if l > 0 && l % 32 == 0 && l <= 1024 => Ok(l),
        _ => Err(Error::invalid(format!("'{s}' is not an x-line length (a multiple of 32, at most 1024)"))),
    }
}

/// Whole SRK2 steps of one model, one candidate an x-line length.
struct LineStage<'a, T: GpuReal> {
    model: &'a mut GpuKp<T>,
    lines: Vec<(u32, std::result::Result<(), Pruned>)>,
    default: usize,
}

impl<T: GpuReal> Tunable for LineStage<'_, T> {
    fn space(&self) -> Vec<(String, std::result::Result<(), Pruned>)> {
        self.lines.iter().map(|(l, v)| (l.to_string(), v.clone())).collect()
    }
    fn default_index(&self) -> usize {
        self.default
    }
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()> {
        self.model.set_line(gpu, self.lines[k].0)?;
        timer.start(gpu)?;
        self.model.step(FluxKernel::EarlyExit)?;
        timer.stop(gpu)
    }
}

/// Stage 3: SRK2's x-line length, timed as whole SRK2 steps of `problem` on `launch` (DS1 and
/// DS2 run the same kernel in both orientations and take the same length). Lengths the
/// kernel's register or shared-memory limits refuse are pruned.
fn tune_line<T: GpuReal>(
    gpu: &Gpu,
    opts: &TuneOptions,
    problem: &Problem,
    launch: Launch,
    entries: &FluxEntries,
) -> Result<Record> {
    let limits = block_limits(gpu, &gpu.kernel::<T, _>(entries.x_line)?)?;
    let w = std::mem::size_of::<T>() as u64;
    let lines: Vec<(u32, std::result::Result<(), Pruned>)> =
        LINES.iter().map(|&l| (l, limits.check(l, (entries.line_shared)(l) as u64 * w))).collect();
    let default = LINES.iter().position(|&l| l == Launch::default().line).unwrap_or(0);
    let p = Problem { scheme: crate::kp::Scheme::Srk2, ..problem.clone() };
    let mut model = GpuKp::<T>::new(gpu, &p, Launch { line: Launch::default().line, ..launch })?;
    let found = crate::tune::search(gpu, &mut LineStage { model: &mut model, lines, default }, opts.rounds)?;
    Ok(found.record("kp", LINE_KERNEL, Precision::of::<T>(), vec![opts.size as u64, opts.size as u64]))
}

/// What one timed run does.
#[derive(Clone, Copy)]
enum Work {
    /// The flux kernel alone (for the heat maps).
    Flux,
    /// A whole RK2 step (what the record compares).
    Step,
}

/// Candidates over a set of models: (model, flux variant, work).
struct Stage<'a, T: GpuReal> {
    models: &'a mut [GpuKp<T>],
    cands: Vec<(usize, FluxVariant, Work)>,
    labels: Vec<String>,
    default: usize,
}

impl<T: GpuReal> Tunable for Stage<'_, T> {
    fn space(&self) -> Vec<(String, std::result::Result<(), Pruned>)> {
        self.labels.iter().map(|l| (l.clone(), Ok(()))).collect()
    }
    fn default_index(&self) -> usize {
        self.default
    }
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()> {
        let (m, flux, work) = self.cands[k];
        let model = &mut self.models[m];
        model.set_flux(gpu, flux)?;
        timer.start(gpu)?;
        match work {
            Work::Flux => model.flux(FluxKernel::EarlyExit, false)?,
            Work::Step => model.step(FluxKernel::EarlyExit)?,
        }
        timer.stop(gpu)
    }
}

/// Bytes one model of `problem` takes on the device (as `GpuKp::new` counts them, plus slack
/// for the rates and maps).
fn model_bytes<T: GpuReal>(problem: &Problem) -> usize {
    let fields = 11 + 4 * (problem.wet_dry == WetDry::Clamp) as usize + 2;
    fields * problem.padded_cells() * std::mem::size_of::<T>()
}

/// Time `cands` on freshly built models of `blocks` (one model a block; groups that fit in
/// memory one after another, each starting from the initial state): summaries by candidate.
fn time_blocks<T: GpuReal>(
    gpu: &Gpu,
    problem: &Problem,
    blocks: &[(u32, u32)],
    rounds: usize,
    cands: &[(usize, FluxVariant, Work)],
) -> Result<Vec<Summary>> {
    let (free, _) = gpu.memory()?;
    let per_group = ((free as f64 * 0.8) as usize / model_bytes::<T>(problem)).max(1);
    let mut out = vec![None; cands.len()];
    for group in (0..blocks.len()).collect::<Vec<_>>().chunks(per_group) {
        let mut models = Vec::with_capacity(group.len());
        for &b in group {
            models.push(GpuKp::<T>::new(
                gpu,
                problem,
                Launch { block: blocks[b], ..Launch::default_for(problem.nx, problem.ny) },
            )?);
        }
        let picked: Vec<usize> = (0..cands.len()).filter(|&c| group.contains(&cands[c].0)).collect();
        let mut stage = Stage {
            models: &mut models,
            cands: picked.iter().map(|&c| (cands[c].0 - group[0], cands[c].1, cands[c].2)).collect(),
            labels: picked.iter().map(|c| c.to_string()).collect(),
            default: 0,
        };
        let found = crate::tune::search(gpu, &mut stage, rounds)?;
        for (i, &c) in picked.iter().enumerate() {
            out[c] = found.summaries[i];
        }
    }
    out.into_iter().map(|s| s.ok_or_else(|| Error::invalid("tuning kp: a candidate was not timed"))).collect()
}

/// The flood (`setup::flood`) at n², run with the default launch to t = 2 s (half its 4 s) in
/// precision `T`, as a problem to start every candidate's model from.
fn half_way_flood<T: GpuReal>(gpu: &Gpu, n: usize) -> Result<Problem> {
    let mut p = setup::flood(n, n);
    let mut m = GpuKp::<T>::new(gpu, &p, Launch::default_for(n, n))?;
    m.set_stop(2.0);
    let mut clock = m.clock(gpu)?;
    while clock.t < 2.0 && clock.status == 0 {
        for _ in 0..100 {
            m.step(FluxKernel::EarlyExit)?;
        }
        clock = m.clock(gpu)?;
    }
    if clock.status != 0 {
        return Err(Error::invalid(format!(
            "tuning kp: the flood stopped at t = {} s (status {})",
            clock.t, clock.status
        )));
    }
    let [w, hu, hv] = m.interiors(gpu)?;
    let bed = p.interior(&m.cell_bed(gpu)?);
    p.h = w.iter().zip(&bed).map(|(w, b)| (*w - *b).to_f64().max(0.0)).collect();
    p.hu = hu.iter().map(|v| v.to_f64()).collect();
    p.hv = hv.iter().map(|v| v.to_f64()).collect();
    Ok(p)
}

/// The search in precision `T`: the record and the two heat maps.
pub fn tune<T: GpuReal>(gpu: &Gpu, opts: &TuneOptions) -> Result<(Vec<Record>, Vec<PathBuf>)> {
    let n = opts.size;
    let problem = half_way_flood::<T>(gpu, n)?;
    let precision = Precision::of::<T>();
    let entries = match problem.wet_dry {
        WetDry::Bollermann => FluxEntries::BOLLERMANN,
        WetDry::Kp07 => FluxEntries::KP07,
        WetDry::Clamp => FluxEntries::CLAMP,
    };
    let tile = block_limits(gpu, &gpu.kernel::<T, _>(entries.tile)?)?;
    let rk = block_limits(gpu, &gpu.kernel::<T, _>(RK)?)?;
    // `clamp`'s passes run on the RK kernel's block and hold more registers than it.
    let passes = if problem.wet_dry == WetDry::Clamp {
        vec![
            block_limits(gpu, &gpu.kernel::<T, _>(DRAIN)?)?,
            block_limits(gpu, &gpu.kernel::<T, _>(DRAIN_RHS)?)?,
            block_limits(gpu, &gpu.kernel::<T, _>(CLAMP)?)?,
            block_limits(gpu, &gpu.kernel::<T, _>(CLAMP_COPY)?)?,
        ]
    } else {
        Vec::new()
    };
    let stream = block_limits(gpu, &gpu.kernel::<T, _>(entries.stream)?)?;
    let w = std::mem::size_of::<T>() as u64;

    // Stage 1: blocks.
    let points = space::grid_2d(&BLOCK_X, &BLOCK_Y);
    let verdicts = space::prune(&points, |(x, y)| {
        tile.check(x * y, (entries.tile_shared)(x, y) as u64 * w)?;
        passes.iter().try_for_each(|pass| pass.check(x * y, 0))?;
        rk.check(x * y, 32 * w)
    });
    let mut blocks = space::allowed(&verdicts);
    // The launch a run at this size takes without a record: its streamed rows fit the grid.
    let default = Launch::default_for(n, n);
    if !blocks.contains(&default.block) {
        blocks.push(default.block);
    }
    let mut cands = Vec::new();
    for b in 0..blocks.len() {
        cands.push((b, FluxVariant::Tile, Work::Flux));
        cands.push((b, FluxVariant::Tile, Work::Step));
        cands.push((b, default.flux, Work::Step));
    }
    let s1 = time_blocks::<T>(gpu, &problem, &blocks, opts.rounds, &cands)?;
    let at = |b: usize, k: usize| s1[3 * b + k].median_ms;
    let best_block = (0..blocks.len()).min_by(|&a, &b| at(a, 2).total_cmp(&at(b, 2))).unwrap_or(0);
    let d = blocks.iter().position(|&b| b == default.block).unwrap_or(0);

    // Stage 2: streamed shapes on the best block for the streamed step; the default's among
    // them where the grid cut its rows below the searched ones.
    let grid = space::grid_2d(&WARPS, &ROWS);
    let mut shapes = grid.clone();
    if let FluxVariant::Stream { warps, rows } = default.flux
        && !shapes.contains(&(warps, rows))
    {
        shapes.push((warps, rows));
    }
    let sv = space::prune(&shapes, |(warps, rows)| {
        stream.check(32 * warps, 0)?;
        FluxVariant::Stream { warps, rows }.check(n).map_err(|e| Pruned::Invalid(e.to_string()))
    });
    let live = space::allowed(&sv);
    let mut models = vec![GpuKp::<T>::new(gpu, &problem, Launch { block: blocks[best_block], ..default })?];
    let mut stage = Stage { models: &mut models, cands: Vec::new(), labels: Vec::new(), default: 0 };
    for &(warps, rows) in &live {
        let f = FluxVariant::Stream { warps, rows };
        for work in [Work::Flux, Work::Step] {
            stage.cands.push((0, f, work));
            stage.labels.push(format!("{warps}x{rows}"));
        }
    }
    let s2: Found = crate::tune::search(gpu, &mut stage, opts.rounds)?;

    // Every whole step of both stages; the default's time from stage 1.
    let mut steps: Vec<(f64, Launch)> = Vec::new();
    for (b, &block) in blocks.iter().enumerate() {
        steps.push((at(b, 1), Launch { block, flux: FluxVariant::Tile, ..default }));
        steps.push((at(b, 2), Launch { block, ..default }));
    }
    let step2 = |i: usize| s2.ms(2 * i + 1);
    // Stage 2's default shape on the same model scales stage 2's times to stage 1's.
    let base2 = live.iter().position(|&(w, r)| FluxVariant::Stream { warps: w, rows: r } == default.flux).map(step2);
    for (i, &(warps, rows)) in live.iter().enumerate() {
        let scaled = match base2 {
            Some(b) if b > 0.0 => step2(i) / b * at(best_block, 2),
            _ => step2(i),
        };
        steps
            .push((scaled, Launch { block: blocks[best_block], flux: FluxVariant::Stream { warps, rows }, ..default }));
    }
    let fastest = steps.iter().filter(|s| s.0.is_finite()).min_by(|a, b| a.0.total_cmp(&b.0)).copied();
    // As in `search`: the default stays unless something is 0.5% faster.
    let best = match fastest {
        Some(f) if f.0 < 0.995 * at(d, 2) => f,
        _ => (at(d, 2), default),
    };
    let record = Record {
        solver: "kp".into(),
        kernel: KERNEL.into(),
        precision,
        size: vec![n as u64, n as u64],
        default: label(default),
        best: label(best.1),
        default_ms: at(d, 2),
        best_ms: best.0,
    };

    // Then SRK2's line length and the scheme, on the launch just found (Amundsen §4.4.1).
    let line = tune_line::<T>(gpu, opts, &problem, best.1, &entries)?;
    let launch = Launch { line: parse_line(&line.best)?, ..best.1 };
    let scheme = super::scheme_choice::tune_kp::<T>(gpu, opts, launch)?;

    let mut pictures = Vec::new();
    if let Some(dir) = &opts.pictures {
        let tile_ms: Vec<Option<f64>> =
            points.iter().map(|p| blocks.iter().position(|b| b == p).map(|b| at(b, 0))).collect();
        let stream_ms: Vec<Option<f64>> =
            grid.iter().map(|p| live.iter().position(|q| q == p).map(|i| s2.ms(2 * i))).collect();
        let maps = [
            ("tile", "block x (threads)", "block y (threads)", BLOCK_X.to_vec(), BLOCK_Y.to_vec(), tile_ms),
            ("stream", "warps a block", "rows a warp", WARPS.to_vec(), ROWS.to_vec(), stream_ms),
        ];
        for (kind, x_label, y_label, xs, ys, ms) in maps {
            let path = dir.join(format!("kp-flux-{kind}-{}.png", T::NAME));
            let title = format!("kp {kind} flux kernel, {n}² flood at t = 2 s, {} ({})", T::NAME, gpu.info().name);
            write_heat_map(&path, &HeatMap { title, x_label: x_label.into(), y_label: y_label.into(), xs, ys, ms })?;
            pictures.push(path);
        }
    }
    Ok((vec![record, line, scheme], pictures))
}

/// The registry's tuning hook: this search in `precision`, with its heat maps.
pub fn search(gpu: &Gpu, opts: &TuneOptions, precision: Precision) -> Result<crate::tune::Tuned> {
    let (records, pictures) = match precision {
        Precision::F32 | Precision::Mixed => tune::<f32>(gpu, opts)?,
        Precision::F64 => tune::<f64>(gpu, opts)?,
    };
    Ok(crate::tune::Tuned { records, pictures })
}
