//! A run's plan, worked out from the case before anything large is allocated or written: the
//! steps it takes, the output it writes (snapshots, checkpoints, gauge and line records; files
//! and bytes) and the host memory it needs at its peak. `hydrokern check` prints the plan and
//! every run starts only within it ([`check`]): the one check both make, so they never disagree.
//!
//! Memory is an upper bound of the peak resident size: the solver's own part ([`Case::needs`]:
//! the case's fields, the model, its scratch) and what the runner adds — the program itself,
//! the states on their way to the writer (its queue, the one it works on, the last good one, the
//! one the time loop holds), the GPU's page-locked staging buffers, the pictures being drawn and
//! the animations' frames, the products (maps, gauge and line records, the model's and the copy
//! the writer gets) and a checkpoint's copy of the model's state. docs/output.md lists the terms
//! and the peak measured against the estimate.

use super::writer::QUEUE;
use super::{Case, Needs, Plan, Simulation, Snapshot, Volume};
use crate::case::{Format, count, num};
use crate::files::bytes;
use crate::output::anim;
use crate::runtime::HOST_BUFFERS;
use crate::{Error, Precision, Result};

/// Most files a run may write, a file rewritten counting each time it is written: each
/// snapshot's NPY files and pictures, its NetCDF records, the gauge and line files (rewritten
/// at every snapshot and checkpoint), each checkpoint and the maps beside it. A run past it is
/// refused before it starts (docs/output.md).
pub const MAX_OUTPUT_FILES: u64 = 100_000;

/// Most snapshots and checkpoints together a run may stop for.
pub const MAX_OUTPUT_STOPS: u64 = 100_000;

/// Resident memory of the program itself, beyond what [`Plan`] counts: its code, the runtime's
/// threads and the allocator's arenas, which keep some of what pictures and files freed (a
/// 16 × 16 run peaks at 10 MiB without pictures and at 17 MiB with them, on the CPU).
pub const BASE_BYTES: u64 = 16 << 20;

/// The most bytes a file name may have (Linux's NAME_MAX).
pub const NAME_MAX: usize = 255;
/// What a file's temporary name adds to it: `.<name>.tmp<pid>` (`output::write_atomic`), a pid
/// of up to 7 digits. A snapshot's own names are short: [`super::time_tag`] writes at most 24
/// characters.
pub const TEMPORARY: usize = ".".len() + ".tmp".len() + 7;

/// The longest name of a file the case names: the NetCDF files named after the case, the
/// gauges' files.
fn longest_name(name: &str, out: &crate::case::OutputSection) -> (String, &'static str) {
    let mut names: Vec<(String, &'static str)> = Vec::new();
    if out.wants(Format::Netcdf) {
        names.push((super::netcdf::maxima_file_name(name), "the case's name (its file's name)"));
    }
    for g in &out.gauges {
        names.push((format!("gauge_{}.csv", g.name), "the gauge's name (output.gauges)"));
    }
    names.into_iter().max_by_key(|(n, _)| n.len()).unwrap_or_default()
}

/// The plan of a simulation: steps from the solver's estimate and the stops, output and memory
/// from what its snapshots hold ([`Simulation::snapshot`]).
pub fn simulation<S: Simulation>(sim: &S) -> Plan {
    let info = sim.info();
    let (times, out) = (sim.times(), &info.output);
    let snap = sim.snapshot();
    // States reach the writer in f64 for mixed (the f64 model's type).
    let w = match info.run.precision {
        Precision::F32 => 4,
        Precision::F64 | Precision::Mixed => 8,
    };
    let snapshots = times.snapshots.len() as u64 + 1;
    let checkpoints = out.checkpoint_every.map_or(0.0, |e| ((sim.duration() / e).ceil() - 1.0).max(0.0));
    let steps = match times.steps {
        Some(n) => n as f64,
        None => sim.estimate_steps() + snapshots as f64 + checkpoints,
    };
    // A checkpoint is a stop that takes a step to reach.
    let checkpoints = checkpoints.min(steps) as u64;
    let cells = sim.mesh().cells() as u64;
    let spec = out.products();
    let gauges = spec.gauges.len() as u64;
    let lines = spec.lines.len() as u64;
    let samples = (steps / spec.every as f64 + 1.0) as u64;
    let gauge_records = gauges.saturating_mul(samples);
    let line_records = lines.saturating_mul(samples);
    let (npy, png, netcdf) = (out.wants(Format::Npy), out.wants(Format::Png), out.wants(Format::Netcdf));
    // GeoTIFF maps are of a plane's cells only.
    let plane = matches!(sim.mesh(), crate::grid::Mesh::Plane(_));
    let tif = out.wants(Format::Geotiff) && plane;
    let bed = sim.bed().is_some() as u64;

    // Files: each snapshot's (with a water account, `account.csv` too); each checkpoint and
    // what it writes beside it; the gauges' and lines' files at every snapshot and checkpoint;
    // the maps at the end and at checkpoints; the case and the manifest, the animations.
    let maps = crate::products::SHOWN as u64 * spec.maxima as u64;
    let map_files = maps * (npy as u64 + png as u64 + tif as u64) + (netcdf && spec.maxima) as u64;
    let record_files = gauges + (netcdf && gauges > 0) as u64 + (lines > 0) as u64 * (1 + netcdf as u64);
    let per_snapshot = snap.fields * npy as u64
        + snap.pictures * png as u64
        + netcdf as u64
        + record_files
        + (snap.fields + bed) * tif as u64
        + snap.account as u64;
    let per_checkpoint = 1 + record_files + map_files;
    let files = snapshots
        .saturating_mul(per_snapshot)
        .saturating_add(checkpoints.saturating_mul(per_checkpoint))
        .saturating_add(map_files + 2 + snap.animations * png as u64 + bed * tif as u64);

    // Bytes at the end: the fields (NPY and NetCDF), the pictures, the gauges' rows, the lines'
    // values (and a time a row), the maps, the checkpoint, the water account's rows.
    let state = snap.values * w;
    let frames = snapshots.min(frames_kept(snap.pixels));
    let picture = snap.pixels / PIXELS_PER_BYTE;
    let mut disk = snapshots.saturating_mul(
        (state + 128 * snap.fields) * npy as u64
            + snap.pictures * picture * png as u64
            + (state + bed * cells * w) * netcdf as u64
            + (snap.values + bed * cells) * 4 * tif as u64,
    );
    disk = disk
        .saturating_add(frames * picture * snap.animations * png as u64)
        .saturating_add(gauge_records.saturating_mul(GAUGE_ROW + 40 * netcdf as u64))
        .saturating_add(line_records.saturating_mul(NUMBER + 8 * netcdf as u64))
        .saturating_add(if lines > 0 { samples.saturating_mul(NUMBER + 8 * netcdf as u64) } else { 0 })
        .saturating_add(
            maps * (cells * w * (npy as u64 + netcdf as u64) + picture * png as u64 + cells * 4 * tif as u64),
        )
        .saturating_add(bed * cells * (4 * tif as u64 + w * netcdf as u64))
        .saturating_add(snapshots.saturating_mul(ACCOUNT_ROW * (NUMBER + 8 * netcdf as u64)) * snap.account as u64)
        .saturating_add(if checkpoints > 0 { snap.checkpoint * w } else { 0 });
    let output = Volume { snapshots, checkpoints, gauge_records, line_records, files, bytes: disk };

    let precision = info.run.precision;
    let solver = sim.needs(precision);
    let records = (gauge_records, line_records, samples * (lines > 0) as u64);
    let host = runner_bytes(sim, &snap, w, frames, records, checkpoints > 0).saturating_add(solver.host);
    Plan {
        steps: Some(steps),
        basis: sim.steps_basis(),
        unit: times.unit,
        output,
        needs: Needs { host, gpu: solver.gpu },
        longest_name: longest_name(&info.name, out),
    }
}

/// Pixels of a map or a frame of an animation a byte of its file holds, about: the colours of
/// a field change slowly, and PNG and GIF compress them well.
const PIXELS_PER_BYTE: u64 = 4;

/// Bytes of a number in a CSV file, at most: the shortest decimal of an f64 and a separator.
const NUMBER: u64 = 24;

/// Bytes of one gauge row of its CSV file: five numbers.
const GAUGE_ROW: u64 = 5 * NUMBER;

/// Numbers in a row of the water account (`account.csv`, and its terms in the NetCDF fields'
/// file), with two boundary segments: the case's segments are not counted one by one.
const ACCOUNT_ROW: u64 = 10;

/// Frames an animation keeps of maps of `pixels` (`anim::Animation::push`), one more while it
/// halves them and the newest one past the stride.
fn frames_kept(pixels: u64) -> u64 {
    (anim::MEMORY as u64 / (3 * pixels).max(1)).clamp(8, anim::MAX_FRAMES as u64) + 2
}

/// Host memory the runner adds to the solver's: see the module's documentation.
fn runner_bytes<S: Simulation>(
    sim: &S,
    snap: &Snapshot,
    w: u64,
    frames: u64,
    (gauge_records, line_records, line_times): (u64, u64, u64),
    checkpoints: bool,
) -> u64 {
    let info = sim.info();
    let out = &info.output;
    let state = snap.values * w;
    // The writer's queue, the state it works on, the last good one and the one the time loop
    // waits to hand over; on a GPU, the page-locked buffers the states come down into.
    let gpu = info.run.backend.choice() != crate::BackendChoice::Cpu;
    let mut host = state * (QUEUE as u64 + 3) + snap.pinned * w * HOST_BUFFERS as u64 * gpu as u64;
    if out.wants(Format::Png) {
        // Every animation's frames (3 bytes a pixel), and at the end its GIF being encoded.
        host += snap.drawing + snap.animations * frames * snap.pixels * 4;
        if snap.pooled_maps > 0 {
            let threads = rayon::current_num_threads() as u64;
            host += threads.saturating_sub(snap.pooled_maps) * snap.map_retained;
        }
    }
    if out.wants(Format::Netcdf) {
        // A record is converted to big-endian bytes before it is appended; the surface is
        // formed from the depth and the bed.
        host += state + sim.bed().map_or(0, |b| b.len() as u64 * (w + 8));
    }
    let spec = out.products();
    if let (true, crate::grid::Mesh::Plane(g)) = (spec.maxima, sim.mesh()) {
        // The model's maps and the copy the writer gets, the maps as shown, and their pictures
        // drawn side by side from f64 copies.
        let cells = (g.nx * g.ny) as u64;
        let (kept, shown) = (crate::products::MAPS.len() as u64, crate::products::SHOWN as u64);
        host += (2 * kept + shown) * cells * w;
        if out.wants(Format::Png) {
            host += shown * (cells * 8 + crate::output::png::map_drawing(g.nx, g.ny, false));
            // The maps are drawn on the thread pool: each thread that drew one keeps its f64
            // copy below the allocator's largest mmap threshold (a solver whose snapshots draw
            // there too has counted that already).
            if snap.pooled_maps == 0 && cells * 8 < 32 << 20 {
                host += (rayon::current_num_threads() as u64).saturating_sub(shown) * cells * 8;
            }
        }
    }
    // Every record, in the model and in the copy the writer gets, and one gauge's CSV text; the
    // lines' (a time and a discharge each) and their CSV text.
    let series = gauge_records.saturating_mul(2 * 8 * (1 + crate::products::GAUGE_VALUES as u64));
    host = host.saturating_add(series).saturating_add(gauge_records.saturating_mul(GAUGE_ROW));
    let lines = line_records.saturating_mul(2 * 2 * 8 + NUMBER).saturating_add(line_times.saturating_mul(NUMBER));
    host = host.saturating_add(lines);
    if checkpoints {
        host += snap.checkpoint * w;
    }
    host.saturating_add(BASE_BYTES)
}

/// The plan of a solver that computes once: no steps, the files it names.
pub fn once(case: &dyn Case, files: u64, disk: u64) -> Plan {
    let needs = case.needs(case.info().run.precision);
    let output =
        Volume { snapshots: 0, checkpoints: 0, gauge_records: 0, line_records: 0, files: files + 2, bytes: disk };
    Plan {
        steps: None,
        basis: "",
        unit: "",
        output,
        needs: Needs { host: needs.host.saturating_add(BASE_BYTES), ..needs },
        longest_name: longest_name(&case.info().name, &case.info().output),
    }
}
/// The plan of `case`, refused in one line when the run would pass a limit: a file name longer
/// than [`NAME_MAX`] (with its temporary name), more snapshots and
/// checkpoints than [`MAX_OUTPUT_STOPS`], more steps than `run.max_steps`, more files than
/// [`MAX_OUTPUT_FILES`], more host memory than this process can have
/// ([`crate::files::memory_limit`]). `check` prints what this returns; `run` starts with it.
pub fn check(case: &dyn Case) -> Result<Plan> {
    let plan = case.plan();
    let info = case.info();
    let name = &info.name;
    let out = &info.output;
    let v = &plan.output;
    let (longest, why) = &plan.longest_name;
    if longest.len() + TEMPORARY > NAME_MAX {
        let shown: String = longest.chars().take(40).collect();
        return Err(Error::invalid(format!(
            "{name}: the output file {shown}… would have a name of {} bytes ({} with its temporary name's), more than the {NAME_MAX} a file name may have: shorten {why}",
            longest.len(),
            longest.len() + TEMPORARY
        )));
    }
    if v.snapshots.saturating_add(v.checkpoints) > MAX_OUTPUT_STOPS {
        let (key, what) = match v.checkpoints > v.snapshots {
            true => (
                "output.checkpoint_every",
                format!(
                    "a checkpoint every {} {} makes {} checkpoints",
                    num(out.checkpoint_every.unwrap_or(0.0)),
                    plan.unit,
                    count(v.checkpoints as f64)
                ),
            ),
            false => ("output.snapshots", format!("{} snapshots", count(v.snapshots as f64))),
        };
        return Err(Error::invalid(format!(
            "{name}: {key}: {what}; a run stops for at most {} snapshots and checkpoints together (docs/output.md)",
            count(MAX_OUTPUT_STOPS as f64)
        )));
    }
    if let Some(steps) = plan.steps
        && steps > info.run.max_steps as f64
    {
        let basis = if plan.basis.is_empty() { String::new() } else { format!(" ({})", plan.basis) };
        return Err(Error::invalid(format!(
            "{name}: this run needs about {} steps{basis}, more than run.max_steps = {}; raise the limit with --max-steps (or run.max_steps) if that is what you want",
            count(steps),
            count(info.run.max_steps as f64),
        )));
    }
    if v.files > MAX_OUTPUT_FILES {
        return Err(Error::invalid(format!(
            "{name}: output.snapshots: the run would write {} files ({} snapshots{}); a run writes at most {} (docs/output.md): write fewer snapshots, or fewer formats (output.formats)",
            count(v.files as f64),
            count(v.snapshots as f64),
            match v.checkpoints {
                0 => String::new(),
                n => format!(", {} checkpoints", count(n as f64)),
            },
            count(MAX_OUTPUT_FILES as f64)
        )));
    }
    crate::files::check_host_memory(&format!("{name} in {}", info.run.precision), plan.needs.host)?;
    Ok(plan)
}

/// The run's last line on memory: its peak beside the plan's `estimate` and, on the GPU, what
/// the CUDA driver took when it opened the device (`driver`: its context and first kernel,
/// which no plan can size before the driver runs).
pub fn peak_line(estimate: u64, driver: Option<u64>) -> Option<String> {
    let peak = crate::files::peak_memory()?;
    let driver = driver.map_or(String::new(), |d| format!(" and {} the CUDA driver took to open the GPU", bytes(d)));
    Some(format!("  memory: peak {} of host memory, of {} estimated{driver}", bytes(peak), bytes(estimate)))
}
