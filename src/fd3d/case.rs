//! fd3d case files (`solver = "fd3d"`) and their flags: sample the known field
//! f = cos(2π kx x)·sin(2π ky y)·cos(2π kz z) on the periodic unit cube, take ∂f/∂x, ∂f/∂y, ∂f/∂z
//! with every chosen kernel variant (GPU) or the CPU reference, and report per direction and
//! variant, as Ruetsch does: RMS and max error against the exact derivative, average time and
//! bandwidth (one read and one write per point). The table is printed and written as
//! `fd3d.csv`.

use super::{Direction, Grid3, MAX_DIM, PeriodicGrid, TestField, Variant, WIDTH, cpu, gpu::Plan};
use crate::case::{CaseDoc, Check, Common, Flag, Set};
use crate::run::{Case, CaseInfo, Needs, Norms, Outcome, RunDir, RunOptions, once_on_one_rank, plan, start};
use crate::runtime::{Backend, DeviceBuffer, Gpu, Timer};
use crate::{Error, GpuReal, Precision, Result};
use serde::Deserialize;
use std::time::Instant;

/// The most timed runs per variant a case may ask for: the average of more changes little,
/// and a count past this is a slip of the keyboard (`hydrokern bench fd3d` times with care).
pub const MAX_REPS: u64 = 1000;

/// The table's file in the run directory.
pub const TABLE: &str = "fd3d.csv";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    grid: GridSection,
    #[serde(default)]
    field: FieldSection,
    #[serde(default)]
    gpu: GpuSection,
    #[serde(default)]
    timing: Timing,
}

/// `[grid]`: a cube of `size` points per direction, or any of mx, my, mz given apart.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridSection {
    size: Option<usize>,
    mx: Option<usize>,
    my: Option<usize>,
    mz: Option<usize>,
}

fn default_wavenumbers() -> Vec<u32> {
    vec![1, 1, 1]
}

/// `[field]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldSection {
    #[serde(default = "default_wavenumbers")]
    wavenumbers: Vec<u32>,
}

impl Default for FieldSection {
    fn default() -> Self {
        FieldSection { wavenumbers: default_wavenumbers() }
    }
}

fn default_variants() -> Vec<String> {
    vec!["all".into()]
}

/// `[gpu]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuSection {
    #[serde(default = "default_variants")]
    variants: Vec<String>,
}

impl Default for GpuSection {
    fn default() -> Self {
        GpuSection { variants: default_variants() }
    }
}

fn default_reps() -> u64 {
    20
}

/// `[timing]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Timing {
    #[serde(default = "default_reps")]
    reps: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing { reps: default_reps() }
    }
}

/// A validated fd3d case.
pub struct Fd3dCase {
    info: CaseInfo,
    grid: Grid3,
    field: TestField,
    variants: Vec<Variant>,
    /// Whether the variants are a choice (not every one), for the CPU's note.
    chosen: bool,
    reps: u64,
}

/// One row of the table.
struct Row {
    dir: Direction,
    variant: String,
    rms: f64,
    max: f64,
    ms: f64,
    gbs: f64,
}

impl Fd3dCase {
    pub fn load(doc: &CaseDoc) -> Result<Fd3dCase> {
        let (common, f): (Common, File) = doc.parse_case()?;
        let c = Check::new(doc);
        if !common.output.snapshots.is_empty() {
            return c.fail("output.snapshots", "fd3d computes once; it has no snapshot times (leave the key out)");
        }
        if common.output.checkpoint_every.is_some() {
            return c.fail(
                "output.checkpoint_every",
                "fd3d computes once; it has no time loop to checkpoint (leave the key out)",
            );
        }
        common.output.refuse_netcdf(&c, "fd3d computes once")?;
        let g = &f.grid;
        let mut m = [0usize; 3];
        let mut keys = [String::new(), String::new(), String::new()];
        for (a, (name, v)) in [("mx", g.mx), ("my", g.my), ("mz", g.mz)].into_iter().enumerate() {
            let (key, value) = match (v, g.size) {
                (Some(v), _) => (format!("grid.{name}"), v),
                (None, Some(s)) => ("grid.size".to_string(), s),
                (None, None) => {
                    return c.fail(
                        &format!("grid.{name}"),
                        format!("missing: give grid.size (a cube) or grid.{name} (points along {})", &name[1..]),
                    );
                }
            };
            if value < WIDTH as usize {
                return c.fail(
                    &key,
                    format!(
                        "{value}: at least {WIDTH} points, the width of the 8th-order stencil (the grid is periodic)"
                    ),
                );
            }
            if value > MAX_DIM {
                return c.fail(&key, format!("{value}: at most {MAX_DIM} points per direction"));
            }
            m[a] = value;
            keys[a] = key;
        }
        // The largest direction's key names a grid too large for this machine.
        let largest = (0..3).max_by_key(|&a| (m[a], std::cmp::Reverse(a))).unwrap_or(0);
        let grid = Grid3::unit_cube(m[0], m[1], m[2]).map_err(|e| doc.invalid(&keys[largest], e))?;
        let precision = common.run.precision;
        crate::files::check_host_memory(&format!("fd3d on a {grid} grid in {precision}"), needs(grid, precision).host)
            .map_err(|e| doc.invalid(&keys[largest], e))?;
        let k: [u32; 3] = match f.field.wavenumbers[..] {
            [kx, ky, kz] => [kx, ky, kz],
            _ => {
                return c.fail(
                    "field.wavenumbers",
                    format!("{:?}: give three whole numbers of periods, [kx, ky, kz]", f.field.wavenumbers),
                );
            }
        };
        for (a, axis) in ["x", "y", "z"].into_iter().enumerate() {
            // At 2k ≥ m the samples no longer tell the wave from a slower one (aliasing).
            if 2 * k[a] as u64 >= m[a] as u64 {
                return c.fail(
                    "field.wavenumbers",
                    format!(
                        "k{axis} = {}: at or above the Nyquist limit of m{axis} = {} points (2·k{axis} must be below m{axis}: at most {} periods along {axis})",
                        k[a],
                        m[a],
                        (m[a] - 1) / 2
                    ),
                );
            }
        }
        if f.gpu.variants.is_empty() {
            return c.fail("gpu.variants", "empty: name at least one variant, or \"all\"");
        }
        let mut variants = Vec::new();
        for name in &f.gpu.variants {
            let these = if name == "all" {
                Variant::ALL.to_vec()
            } else {
                vec![name.parse::<Variant>().map_err(|e| doc.invalid("gpu.variants", format!("{e}, or all")))?]
            };
            for v in these {
                if !variants.contains(&v) {
                    variants.push(v);
                }
            }
        }
        let chosen = variants.len() < Variant::ALL.len();
        if f.timing.reps == 0 || f.timing.reps > MAX_REPS {
            return c.fail(
                "timing.reps",
                format!(
                    "{}: timed runs per variant must lie in 1..={MAX_REPS} (the average of more changes little; `hydrokern bench fd3d` times the kernels with care)",
                    f.timing.reps
                ),
            );
        }
        let info = CaseInfo::new(doc, "fd3d", common);
        Ok(Fd3dCase { info, grid, field: TestField { k }, variants, chosen, reps: f.timing.reps })
    }

    fn run_t<T: GpuReal>(&self, opts: &RunOptions, backend: &Backend, dir: &mut RunDir) -> Result<Outcome> {
        let say = |line: String| opts.console.say(line);
        let (grid, field) = (self.grid, self.field);
        let bytes = grid.bytes::<T>();
        say(format!(
            "fd3d: {grid} periodic grid on [0,1)³, f = {} with k = {:?}, {}, {:.1} MiB per field",
            TestField::FORMULA,
            field.k,
            T::NAME,
            bytes as f64 / (1 << 20) as f64
        ));
        let f = field.sample::<T>(grid)?;
        say(format!(
            "{:<11} {:<11} {:>12} {:>12} {:>16} {:>10}  how",
            "derivative", "variant", "RMS error", "max error", "avg time (ms)", "GB/s"
        ));
        let mut rows: Vec<Row> = Vec::new();
        // The norms of the first derivative computed along each direction.
        let mut norms: Vec<(Direction, Norms)> = Vec::new();
        let mut row = |dir: Direction, variant: &str, ms: f64, got: &[T], how: &str| -> Result<()> {
            let e = field.errors(grid, dir, got)?;
            let gbs = 2.0 * bytes as f64 / (ms * 1e-3) / 1e9;
            say(format!(
                "{:<11} {variant:<11} {:>12.4e} {:>12.4e} {ms:>16.4} {gbs:>10.1}  {how}",
                format!("d/d{dir}"),
                e.rms,
                e.max
            ));
            if !norms.iter().any(|(d, _)| *d == dir) {
                norms.push((dir, Norms::of(got)));
            }
            rows.push(Row { dir, variant: variant.into(), rms: e.rms, max: e.max, ms, gbs });
            Ok(())
        };
        let reps = self.reps as usize;
        match backend {
            Backend::Gpu(gpu) => {
                let src = gpu.upload(&f)?;
                drop(f);
                let mut dst = gpu.alloc::<T>(grid.len())?;
                for &v in &self.variants {
                    let (ms, got) = time_variant(gpu, grid, v, &src, &mut dst, reps)
                        .map_err(|e| Error::invalid(format!("fd3d variant {v} on a {grid} grid: {e}")))?;
                    row(v.direction(), v.name(), ms, &got, v.describe())?;
                }
            }
            Backend::Cpu { .. } => {
                let mut df = crate::alloc::try_filled("the fd3d derivative", grid.len(), T::ZERO)?;
                let threads = rayon::current_num_threads();
                let how = format!("cpu reference, {threads} threads");
                for dir in Direction::ALL {
                    cpu::derivative(grid, dir, &f, &mut df)?;
                    let t0 = Instant::now();
                    for _ in 0..reps {
                        cpu::derivative(grid, dir, &f, &mut df)?;
                    }
                    let ms = t0.elapsed().as_secs_f64() * 1e3 / reps as f64;
                    row(dir, "cpu", ms, &df, &how)?;
                }
                if self.chosen {
                    say("(gpu.variants selects GPU kernels; the CPU backend runs its reference once per direction)"
                        .into());
                }
            }
        }
        dir.write(TABLE, |p| crate::output::write_atomic(p, table_csv(&rows).as_bytes()))?;
        let bad: Vec<&str> = rows.iter().filter(|r| !r.max.is_finite()).map(|r| r.variant.as_str()).collect();
        if !bad.is_empty() {
            return Err(Error::invalid(format!(
                "non-finite derivative from {}: some points were not written or the field blew up (the table is in {})",
                bad.join(", "),
                dir.path().join(TABLE).display()
            )));
        }
        say(format!("wrote {TABLE} to {}", dir.path().display()));
        norms.sort_by_key(|(d, _)| d.axis());
        Ok(Outcome {
            dir: dir.path().to_path_buf(),
            steps: 1,
            t: 0.0,
            norms: norms.into_iter().map(|(d, n)| (format!("dd{d}"), n)).collect(),
        })
    }
}

/// Memory of a run on `grid`: on the host the field and a derivative (computed, or downloaded
/// from the GPU); on the GPU the field and the derivative.
fn needs(grid: Grid3, precision: Precision) -> Needs {
    let field = (grid.len() as u64).saturating_mul(precision.bytes());
    Needs { host: field.saturating_mul(2), gpu: field.saturating_mul(2) }
}

/// The table as CSV: a header, then one line per row: the direction (x, y, z), the variant
/// (`cpu` for the reference), RMS and max error, average milliseconds and GB/s, in full
/// precision.
fn table_csv(rows: &[Row]) -> String {
    let mut s = String::from("direction,variant,rms,max,ms,GB/s\n");
    for r in rows {
        s += &format!("{},{},{:e},{:e},{:e},{:e}\n", r.dir, r.variant, r.rms, r.max, r.ms, r.gbs);
    }
    s
}

/// Average milliseconds of `reps` back-to-back launches (events around the loop, as Ruetsch
/// times), after one untimed launch into an output poisoned with NaN; and the result.
fn time_variant<T: GpuReal>(
    gpu: &Gpu,
    grid: Grid3,
    variant: Variant,
    src: &DeviceBuffer<T>,
    dst: &mut DeviceBuffer<T>,
    reps: usize,
) -> Result<(f64, Vec<T>)> {
    let plan = Plan::<T>::new(gpu, grid, variant)?;
    crate::foundation::gpu::fill(gpu, dst, T::NAN)?;
    plan.run(src, dst)?;
    let got = gpu.download(dst)?;
    let timer = Timer::new(gpu)?;
    timer.start(gpu)?;
    for _ in 0..reps {
        plan.run(src, dst)?;
    }
    timer.stop(gpu)?;
    Ok((timer.elapsed_ms()? / reps as f64, got))
}

impl Case for Fd3dCase {
    fn info(&self) -> &CaseInfo {
        &self.info
    }
    fn summary(&self) -> String {
        let names: Vec<&str> = self.variants.iter().map(|v| v.name()).collect();
        format!(
            "fd3d: {} periodic grid, f = {} with k = {:?}; GPU variants {}; {} timed runs each (the CPU runs its reference per direction)",
            self.grid,
            TestField::FORMULA,
            self.field.k,
            names.join(", "),
            self.reps
        )
    }
    fn needs(&self, precision: Precision) -> Needs {
        needs(self.grid, precision)
    }
    fn plan(&self) -> crate::run::Plan {
        // The table of errors and timings: a row per direction and variant.
        plan::once(self, 1, 200 * 3 * (self.variants.len() as u64 + 1))
    }
    fn run(&self, opts: &RunOptions) -> Result<Outcome> {
        once_on_one_rank("fd3d", "it computes the derivatives of one field")?;
        let mut s = start(self, opts)?;
        let result = match s.precision {
            Precision::F32 => self.run_t::<f32>(opts, &s.backend, &mut s.dir),
            // `start` refused mixed: this solver has none.
            Precision::F64 | Precision::Mixed => self.run_t::<f64>(opts, &s.backend, &mut s.dir),
        };
        s.finish_once(opts, result)
    }
}

pub(super) static FLAGS: &[Flag] = &[
    Flag::new(
        "size",
        "N",
        Set::Int("grid.size"),
        "points per direction of a cubic grid (at least 9; replaces mx, my, mz)",
    )
    .clearing(&["grid.mx", "grid.my", "grid.mz"]),
    Flag::new("mx", "N", Set::Int("grid.mx"), "points along x (over --size)"),
    Flag::new("my", "N", Set::Int("grid.my"), "points along y (over --size)"),
    Flag::new("mz", "N", Set::Int("grid.mz"), "points along z (over --size)"),
    Flag::new(
        "variants",
        "LIST",
        Set::Custom(variants),
        "GPU variants to run, comma-separated, or all: x-4pencil, x-tile, x-vec, y-4pencil, y-32pencil, y-stream, z-4pencil, z-32pencil, z-stream",
    ),
    Flag::new("reps", "N", Set::Int("timing.reps"), "timed runs per variant, 1 to 1000 (the average is reported)"),
    Flag::new(
        "wavenumbers",
        "KX,KY,KZ",
        Set::Custom(wavenumbers),
        "whole periods of the field across the domain in x, y and z; each below half the points in its direction (Nyquist)",
    ),
];

fn variants(raw: &str) -> std::result::Result<Vec<(&'static str, toml_edit::Value)>, String> {
    let mut arr = toml_edit::Array::new();
    for name in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        arr.push(name);
    }
    if arr.is_empty() {
        return Err("expected variant names, comma-separated, or all".into());
    }
    Ok(vec![("gpu.variants", toml_edit::Value::Array(arr))])
}

/// Three whole numbers, separated by commas or spaces.
fn wavenumbers(raw: &str) -> std::result::Result<Vec<(&'static str, toml_edit::Value)>, String> {
    let mut arr = toml_edit::Array::new();
    for part in raw.split([',', ' ']).filter(|p| !p.trim().is_empty()) {
        let k: i64 = part.trim().parse().map_err(|_| format!("'{part}' is not a whole number"))?;
        arr.push(k);
    }
    if arr.len() != 3 {
        return Err(format!("expected three whole numbers KX,KY,KZ, got {}", arr.len()));
    }
    Ok(vec![("field.wavenumbers", toml_edit::Value::Array(arr))])
}
