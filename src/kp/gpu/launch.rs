//! A run's launch parameters (`Launch`: the flux kernel's decomposition and block, SRK2's
//! x-line) and the shapes and rate slots of the flux launches.

use super::super::WetDry;
use crate::runtime::LaunchShape;
use crate::{Error, GpuReal, Result};
use kernels::Bands;
use kernels::kp::{Coeffs, line_slots, stream_slots, stream_strips};

/// Whether RK2's second stage runs inside the streamed flux kernel unless `set_fused` says
/// otherwise: in every wet–dry scheme and precision but `bollermann` in f64, whose fused kernel
/// (176 registers, capped at 128 with 216 bytes spilled) made the step slower than the two
/// kernels apart on an H200: 2.503 against 2.437 ms at 4096², 0.763 against 0.715 at 2048².
/// Mixed precision runs f32's kernels (`T` = f32): fused.
pub(super) fn fuses_by_default<T: GpuReal>(wet_dry: WetDry) -> bool {
    !(wet_dry == WetDry::Bollermann && crate::Precision::of::<T>() == crate::Precision::F64)
}

/// Launch parameters (run-time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The RK kernel's block in cells (threads), a multiple of 32 threads; also the tile of the
    /// wet map (one flag a block) and the tile flux kernel's block.
    pub block: (u32, u32),
    /// How the flux kernel divides the grid (RK2 and Euler).
    pub flux: FluxVariant,
    /// SRK2's x-line kernel: cells (threads) a block along a row, a multiple of 32 (its y-block
    /// kernel runs on `block`); DS1 and DS2 run it in both orientations.
    pub line: u32,
}

impl Default for Launch {
    fn default() -> Self {
        Launch { block: (32, 8), flux: FluxVariant::STREAM, line: 128 }
    }
}

impl Launch {
    /// The built-in launch of an `nx × ny` grid: the default, its streamed warps taking fewer
    /// rows on a small grid ([`FluxVariant::for_grid`]).
    pub fn default_for(nx: usize, ny: usize) -> Launch {
        let d = Launch::default();
        Launch { flux: d.flux.for_grid(nx, ny), ..d }
    }
}

/// The flux kernel's decomposition; both give the same R, rates aside (per block or per warp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluxVariant {
    /// Amundsen's kernel: one thread a cell on a 2D shared-memory tile of `Launch::block`.
    Tile,
    /// Warps streaming up strips of 28 columns, `rows` rows each, `warps` warps a block
    /// (`gpu/src/kp/stream.rs`).
    Stream { warps: u32, rows: u32 },
}

/// The warps a streamed flux launch keeps, at least, before its warps take several rows each:
/// about two waves of the fused second stage's warps on the largest GPUs (132 multiprocessors ×
/// 16 warps at its register cap). On an H100 a 1024² flood ran 5% (f32) and 7% (f64) faster at
/// 8 rows a warp (4 736 warps) than at 16 (2 368), and 1–2% faster than at 4.
const STREAM_MIN_WARPS: u64 = 4096;
/// The fewest rows a streamed warp takes on a small grid: a band repeats the work of the rows
/// at its edges ((rows + 2)/rows of its rows' work, `gpu/src/kp/stream.rs`), half as much again
/// at 4 rows.
const STREAM_MIN_ROWS: u32 = 4;

impl FluxVariant {
    /// The default streamed shape (on a large grid: [`FluxVariant::for_grid`]).
    pub const STREAM: FluxVariant = FluxVariant::Stream { warps: 4, rows: 32 };

    /// `self` on an `nx × ny` grid: a streamed shape's rows a warp halved (down to
    /// `STREAM_MIN_ROWS`) while the grid's strips and bands give fewer than `STREAM_MIN_WARPS`
    /// warps, where idle multiprocessors cost more than the rows' shared set-up. Any shape gives
    /// the same results bit for bit (`gpu/src/kp/stream.rs`).
    pub fn for_grid(self, nx: usize, ny: usize) -> FluxVariant {
        match self {
            FluxVariant::Stream { warps, rows } => {
                let strips = u64::from(stream_strips(u32::try_from(nx).unwrap_or(u32::MAX)));
                let mut rows = rows;
                while rows > STREAM_MIN_ROWS && strips * (ny as u64).div_ceil(u64::from(rows)) < STREAM_MIN_WARPS {
                    rows = (rows / 2).max(STREAM_MIN_ROWS);
                }
                FluxVariant::Stream { warps, rows }
            }
            FluxVariant::Tile => FluxVariant::Tile,
        }
    }

    /// Rate slots the kernel writes on an nx×ny grid with RK blocks of `block`.
    pub fn slots(&self, nx: u32, ny: u32, block: (u32, u32)) -> usize {
        match *self {
            FluxVariant::Tile => nx.div_ceil(block.0) as usize * ny.div_ceil(block.1) as usize,
            FluxVariant::Stream { rows, .. } => stream_slots(nx, ny, rows),
        }
    }

    /// A streamed shape needs 1–32 warps a block and rows ≥ 1 with at most 65535 bands.
    pub fn check(&self, ny: usize) -> Result<()> {
        match *self {
            FluxVariant::Stream { warps, rows }
                if !(1..=32).contains(&warps) || rows == 0 || ny.div_ceil(rows as usize) > 65535 =>
            {
                Err(Error::invalid(format!(
                    "streamed flux kernel {warps}×{rows}: needs 1–32 warps a block and 1 ≤ rows with ⌈ny/rows⌉ ≤ 65535"
                )))
            }
            _ => Ok(()),
        }
    }

    pub fn describe(&self) -> String {
        match *self {
            FluxVariant::Tile => "tile".into(),
            FluxVariant::Stream { warps, rows } => format!("stream {warps}×{rows}"),
        }
    }
}

impl std::str::FromStr for FluxVariant {
    type Err = Error;
    /// `tile`, `stream` (the default shape) or `stream:WARPSxROWS`.
    fn from_str(s: &str) -> Result<FluxVariant> {
        let bad = || {
            Error::invalid(format!(
                "unknown flux kernel '{s}' (expected tile, stream or stream:WxR with 1–32 warps a block and R ≥ 1 rows)"
            ))
        };
        match s {
            "tile" => Ok(FluxVariant::Tile),
            "stream" => Ok(FluxVariant::STREAM),
            _ => {
                let shape = s.strip_prefix("stream:").ok_or_else(bad)?;
                let (w, r) = shape.split_once(['x', '×']).ok_or_else(bad)?;
                let (warps, rows) = (w.parse::<u32>().map_err(|_| bad())?, r.parse::<u32>().map_err(|_| bad())?);
                if !(1..=32).contains(&warps) || rows == 0 {
                    return Err(bad());
                }
                Ok(FluxVariant::Stream { warps, rows })
            }
        }
    }
}

/// The streamed flux kernels' launch (`gpu/src/kp/stream.rs`) of `bands`: blocks of `warps`
/// warps, grid (⌈strips / warps⌉, the bands' count).
pub(super) fn stream_shape<T: GpuReal>(k: &Coeffs<T>, warps: u32, bands: Bands) -> LaunchShape {
    LaunchShape::fixed((stream_strips(k.nx).div_ceil(warps), bands.count, 1), (32 * warps, 1, 1))
}

/// SRK2's x-line kernel takes blocks of whole warps, at most 1024 threads.
pub(super) fn check_line(line: u32) -> Result<()> {
    if line == 0 || !line.is_multiple_of(32) || line > 1024 {
        return Err(Error::invalid(format!(
            "SRK2 x-line kernel of {line} cells: needs a multiple of 32 threads, at most 1024"
        )));
    }
    Ok(())
}

/// Rate slots a step's flux launches write: the flux kernel's of `flux`, or in SRK2 (`line`) the
/// x-line kernel's followed by the y-block kernel's.
pub(super) fn flux_slots<T: GpuReal>(k: &Coeffs<T>, flux: FluxVariant, line: Option<u32>) -> usize {
    match line {
        Some(l) => line_slots(k.nx, k.ny, l) + (k.nbx * k.nby) as usize,
        None => flux.slots(k.nx, k.ny, (k.bx, k.by)),
    }
}
