//! Batched tridiagonal solves, a building block of the ADI model and a scenario of their own
//! (the `tridiag` solver): the CPU reference ([`cpu`]), the GPU driver ([`gpu`]: Thomas,
//! twisted Thomas, CR, PCR, CR-PCR, PCR-Thomas, partition), cuSPARSE as the peer
//! ([`cusparse`]), and [`Solver`], one API over both backends; the tuner's search ([`tune`])
//! and its choice read back ([`tuned`]).
//!
//! A batch holds `batch` systems of `n` unknowns, `a_i x_{i−1} + b_i x_i + c_i x_{i+1} = d_i`;
//! `a_0` and `c_{n−1}` are ignored (read as zero). Every array holds the batch in one
//! [`Layout`]: contiguous or interleaved (`n·batch` values), or the rows or columns of a padded
//! 2-D field ([`Shape::span`] values, the padding never read or written). The fast algorithms do not pivot: they are meant for diagonally
//! dominant (or otherwise stable without pivoting) systems. LU with partial pivoting
//! ([`Algorithm::Lu`], LAPACK's gtsv; [`Algorithm::Spike`] for few long systems) solves any
//! non-singular system; the automatic choice checks dominance first (on the device) and
//! pivots when a row is not dominant
//! (docs/tridiag-pivoting.md). A breakdown (zero or non-finite pivot, non-finite coefficient
//! or result) is an error naming the system and the row where the bad value is, never a
//! silent NaN. The residual ([`residual`]) and the backward error ([`backward_error`]) are
//! computed without overflow for any finite batch.

pub mod cpu;
pub mod cusparse;
pub mod gpu;
mod residual;
mod solver;
pub mod tune;
pub mod tuned;

pub use kernels::tridiag::Dims;
pub use residual::{BACKWARD_LIMIT_EPS, BackwardError, backward_error, checked_residual, residual, sampled_residual};
pub use solver::Solver;

use crate::{Error, Real, Result};

/// Where unknown i of system k lives.
///
/// `Rows` and `Columns` are the lines of a padded 2-D field (rows of `pitch` values, `pitch`
/// at least the line length), solved where they lie, without packing copies: the x-lines of
/// a field are its rows, the y-lines its columns. `Contiguous` is `Rows { pitch: n }` and
/// `Interleaved` is `Columns { pitch: batch }`: the same maps, kept under their own names.
/// An array then holds [`Shape::span`] values; the padding between lines is never read as an
/// equation and never written (docs/tridiag-layouts.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// System after system: `k·n + i`.
    Contiguous,
    /// Unknown i of every system together: `i·batch + k` (one thread per system reads
    /// coalesced).
    Interleaved,
    /// System k is row k of a field of rows of `pitch ≥ n` values: `k·pitch + i`.
    Rows { pitch: usize },
    /// System k is column k of a field of rows of `pitch ≥ batch` values: `i·pitch + k`.
    Columns { pitch: usize },
}

impl Layout {
    /// The two unpadded layouts (the padded ones need a pitch).
    pub const ALL: [Layout; 2] = [Layout::Contiguous, Layout::Interleaved];
    pub fn name(self) -> &'static str {
        match self {
            Layout::Contiguous => "contiguous",
            Layout::Interleaved => "interleaved",
            Layout::Rows { .. } => "rows",
            Layout::Columns { .. } => "columns",
        }
    }
    /// The name, with the pitch of a padded layout: `rows (pitch 96)`.
    pub fn describe(self) -> String {
        match self.pitch() {
            Some(p) => format!("{} (pitch {p})", self.name()),
            None => self.name().to_string(),
        }
    }
    /// The pitch of `Rows` and `Columns`.
    pub fn pitch(self) -> Option<usize> {
        match self {
            Layout::Rows { pitch } | Layout::Columns { pitch } => Some(pitch),
            Layout::Contiguous | Layout::Interleaved => None,
        }
    }
    /// Whether unknown i of systems k and k + 1 are neighbours in memory (interleaved,
    /// columns): one thread per system then reads coalesced; otherwise (contiguous, rows) a
    /// system's unknowns are, and the planner stages them as for the contiguous layout.
    pub fn systems_adjacent(self) -> bool {
        matches!(self, Layout::Interleaved | Layout::Columns { .. })
    }
    /// A layout from its name and the `pitch` of a padded one (given for rows and columns
    /// only).
    pub fn parse(name: &str, pitch: Option<usize>) -> Result<Layout> {
        match (name, pitch) {
            ("rows", Some(pitch)) => Ok(Layout::Rows { pitch }),
            ("columns", Some(pitch)) => Ok(Layout::Columns { pitch }),
            ("rows" | "columns", None) => Err(Error::invalid(format!(
                "layout '{name}' needs a pitch (values from one line of the field to the next)"
            ))),
            (_, Some(_)) => match name.parse::<Layout>() {
                Ok(_) => Err(Error::invalid(format!(
                    "layout '{name}' takes no pitch (a pitch is for the padded layouts rows and columns)"
                ))),
                Err(e) => Err(e),
            },
            (_, None) => name.parse(),
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Layout> {
        Layout::ALL.into_iter().find(|l| l.name() == s).ok_or_else(|| {
            Error::invalid(format!(
                "unknown layout '{s}' (expected contiguous or interleaved, or rows or columns with a pitch)"
            ))
        })
    }
}

/// Sizes and layout of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub n: usize,
    pub batch: usize,
    pub layout: Layout,
}

impl Shape {
    pub fn new(n: usize, batch: usize, layout: Layout) -> Shape {
        Shape { n, batch, layout }
    }
    /// Unknowns, `n·batch`.
    pub fn len(&self) -> usize {
        self.n * self.batch
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Values an array holds: the highest offset + 1 (`n·batch` without padding; a padded
    /// layout's last line ends the array, without the padding after it). 0 for an empty
    /// shape; call after [`validate`](Self::validate) (it may overflow before).
    pub fn span(&self) -> usize {
        if self.is_empty() { 0 } else { self.at(self.batch - 1, self.n - 1) + 1 }
    }
    /// (offset between systems, offset between the unknowns of a system).
    pub fn strides(&self) -> (usize, usize) {
        match self.layout {
            Layout::Contiguous => (self.n, 1),
            Layout::Interleaved => (1, self.batch),
            Layout::Rows { pitch } => (pitch, 1),
            Layout::Columns { pitch } => (1, pitch),
        }
    }
    /// Offset of unknown i of system k.
    #[inline]
    pub fn at(&self, k: usize, i: usize) -> usize {
        match self.layout {
            Layout::Contiguous => k * self.n + i,
            Layout::Interleaved => i * self.batch + k,
            Layout::Rows { pitch } => k * pitch + i,
            Layout::Columns { pitch } => i * pitch + k,
        }
    }
    /// n ≥ 1, batch ≥ 1, both within the kernels' 32-bit sizes, n·batch addressable; a padded
    /// layout's pitch at least its line length (rows: n, columns: batch), so that no two
    /// unknowns share a place, below 2^32 (the kernels' strides), and its span addressable.
    pub fn validate(&self) -> Result<()> {
        if self.n == 0 || self.batch == 0 {
            return Err(Error::invalid(format!(
                "tridiagonal batch of {} systems of {} unknowns: n and batch must be at least 1",
                self.batch, self.n
            )));
        }
        if self.n > u32::MAX as usize || self.batch > i32::MAX as usize || self.n.checked_mul(self.batch).is_none() {
            return Err(Error::invalid(format!(
                "tridiagonal batch of {} systems of {} unknowns is too large (n < 2^32, batch < 2^31)",
                self.batch, self.n
            )));
        }
        let (line, lines, what) = match self.layout {
            Layout::Contiguous | Layout::Interleaved => return Ok(()),
            Layout::Rows { .. } => (self.n, self.batch, ("n", "a row holds a system")),
            Layout::Columns { .. } => (self.batch, self.n, ("batch", "a row holds unknown i of every system")),
        };
        let (what, why) = what;
        let pitch = self.layout.pitch().unwrap_or(line);
        if pitch < line {
            return Err(Error::invalid(format!(
                "tridiagonal batch of {} systems of {} unknowns, layout {}: pitch {pitch} is below {what} = {line} ({why})",
                self.batch,
                self.n,
                self.layout.name()
            )));
        }
        let span = (lines - 1).checked_mul(pitch).and_then(|v| v.checked_add(line));
        if pitch > u32::MAX as usize || span.is_none_or(|s| s > isize::MAX as usize / 8) {
            return Err(Error::invalid(format!(
                "tridiagonal batch of {} systems of {} unknowns, layout {}: pitch {pitch} is too large (below 2^32, and {} lines of it addressable)",
                self.batch,
                self.n,
                self.layout.name(),
                lines
            )));
        }
        Ok(())
    }
    /// Every array must hold exactly n·batch values (contiguous, interleaved), or at least
    /// [`span`](Self::span) values (rows, columns: a whole field of lines·pitch values will
    /// do, so that a padded field is solved where it lies; what lies past the span is never
    /// touched either).
    pub fn check_lengths(&self, arrays: &[(&str, usize)]) -> Result<()> {
        self.validate()?;
        for &(name, len) in arrays {
            let fits = match self.layout.pitch() {
                None => len == self.len(),
                Some(_) => len >= self.span(),
            };
            if !fits {
                let want = match self.layout.pitch() {
                    None => format!("n·batch = {}", self.len()),
                    Some(_) => format!("at least the span (lines − 1)·pitch + line length = {}", self.span()),
                };
                return Err(Error::invalid(format!(
                    "tridiagonal batch ({} systems of {} unknowns, {}): {name} has {len} values, expected {want}",
                    self.batch,
                    self.n,
                    self.layout.describe(),
                )));
            }
        }
        Ok(())
    }
    /// The kernels' view of this shape (`chunk` and `switch` zero). Call after
    /// [`validate`](Self::validate) (the strides fit 32 bits then).
    pub fn dims(&self) -> Dims {
        let (n, batch) = (self.n as u32, self.batch as u32);
        let (sys_stride, elem_stride) = self.strides();
        Dims { n, batch, sys_stride: sys_stride as u32, elem_stride: elem_stride as u32, chunk: 0, switch: 0 }
    }
}

/// The GPU algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// One thread per system (S1); the contiguous layout's kernel stages loads through shared
    /// memory so that they coalesce.
    Thomas,
    /// Cyclic reduction in shared memory, one system a block (two to eight for systems side by
    /// side, `gpu::plan`).
    Cr,
    /// Parallel cyclic reduction in shared memory, blocks as [`Cr`](Algorithm::Cr)'s.
    Pcr,
    /// CR down to a small system, PCR on it, CR back substitution.
    CrPcr,
    /// PCR steps splitting each system into independent subsystems, then Thomas on each.
    PcrThomas,
    /// Thomas from both ends, two threads per system meeting in the middle (twisted
    /// factorisation): twice the parallelism of [`Thomas`](Algorithm::Thomas), same traffic.
    Twisted,
    /// The partition method (Thomas–PCR hybrid): systems in shared memory, each thread
    /// reduces a chunk of rows to its two end unknowns, PCR on those, chunks filled in.
    Partition,
    /// LU with partial pivoting along the line (LAPACK's gtsv), one thread per system: for
    /// systems that are not diagonally dominant; the CPU reference runs it too.
    Lu,
    /// SPIKE with partial pivoting: chunks reduced by LU with partial pivoting in parallel,
    /// the reduced system of their ends solved the same way (many blocks per system, level
    /// after level) until one block per system solves it; for few long systems that are not
    /// diagonally dominant.
    Spike,
}

impl Algorithm {
    pub const ALL: [Algorithm; 9] = [
        Algorithm::Thomas,
        Algorithm::Cr,
        Algorithm::Pcr,
        Algorithm::CrPcr,
        Algorithm::PcrThomas,
        Algorithm::Twisted,
        Algorithm::Partition,
        Algorithm::Lu,
        Algorithm::Spike,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Thomas => "thomas",
            Algorithm::Cr => "cr",
            Algorithm::Pcr => "pcr",
            Algorithm::CrPcr => "cr-pcr",
            Algorithm::PcrThomas => "pcr-thomas",
            Algorithm::Twisted => "twisted",
            Algorithm::Partition => "partition",
            Algorithm::Lu => "lu",
            Algorithm::Spike => "spike",
        }
    }
    /// True for the algorithms that pivot (stable for any non-singular system).
    pub fn pivots(self) -> bool {
        matches!(self, Algorithm::Lu | Algorithm::Spike)
    }
    /// True for the algorithms the CPU reference runs.
    pub fn on_cpu(self) -> bool {
        matches!(self, Algorithm::Thomas | Algorithm::Lu)
    }
    /// True for the algorithms that hold whole systems in shared memory (limited by it).
    pub fn uses_shared_system(self) -> bool {
        !matches!(self, Algorithm::Thomas | Algorithm::Twisted | Algorithm::Lu | Algorithm::Spike)
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm, or the automatic choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Choice {
    #[default]
    Auto,
    Force(Algorithm),
}

impl std::str::FromStr for Choice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Choice> {
        if s == "auto" {
            return Ok(Choice::Auto);
        }
        Algorithm::ALL.into_iter().find(|a| a.name() == s).map(Choice::Force).ok_or_else(|| {
            let names: Vec<_> = Algorithm::ALL.iter().map(|a| a.name()).collect();
            Error::invalid(format!("unknown tridiagonal algorithm '{s}' (expected auto, {})", names.join(", ")))
        })
    }
}

/// What the automatic choice and the size checks need to know of the device and precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Dynamic shared memory a block may use (opt-in maximum), bytes.
    pub max_shared_bytes: usize,
    /// Bytes per value (4 or 8).
    pub value_bytes: usize,
    /// Multiprocessors.
    pub sm_count: usize,
    /// Most threads a block of the PCR-family kernels may have (set by their registers).
    pub pcr_threads: usize,
    /// Most threads a block of the CR and CR-PCR kernels may have.
    pub cr_threads: usize,
    /// Most threads a block of the partition kernel may have.
    pub partition_threads: usize,
}

/// Rows per thread (log2) the partition method uses for `n` when it fits: longer chunks mean
/// fewer PCR levels and less work in total, shorter ones more threads per system.
fn partition_lg_for(n: usize) -> u32 {
    match n {
        0..32 => 2,
        32..256 => 3,
        _ => 4,
    }
}

/// The largest chunk (log2 rows) the partition method turns to when a system has too many
/// chunks for a block or for shared memory.
pub const PARTITION_MAX_LG: u32 = 6;

/// Shortest systems the automatic choice solves on a contiguous copy of a batch of adjacent
/// systems ([`Limits::restages`]).
pub const RESTAGE_MIN_N: usize = 2048;

/// Fewest unknowns (n·batch) for which the automatic choice runs LU on an interleaved copy of
/// a batch whose systems' unknowns are consecutive ([`Limits::restages`]).
pub const RESTAGE_LU_MIN: usize = 1 << 18;

impl Limits {
    /// Largest n the shared-memory algorithm `alg` accepts: 4n values must fit in shared
    /// memory; PCR and PCR-Thomas also hold at most `PCR_MAX_PER_THREAD` equations per thread
    /// in registers during a step. Thomas, twisted Thomas, LU, SPIKE: no limit but 32-bit sizes.
    /// Partition: 3 values per row (chunks padded by one) in shared memory and one thread per
    /// chunk, with chunks of up to 2^`PARTITION_MAX_LG` rows: n ≤ 9536 (f64) / 19072 (f32)
    /// on an H100 (227 KiB per block).
    pub fn max_n(&self, alg: Algorithm) -> usize {
        let shared = self.max_shared_bytes / (4 * self.value_bytes);
        let staged = kernels::tridiag::PCR_MAX_PER_THREAD as usize * (self.pcr_threads / 32 * 32);
        match alg {
            Algorithm::Thomas | Algorithm::Twisted | Algorithm::Lu | Algorithm::Spike => u32::MAX as usize,
            Algorithm::Cr | Algorithm::CrPcr => shared,
            Algorithm::Pcr | Algorithm::PcrThomas => shared.min(staged),
            Algorithm::Partition => {
                let l = 1usize << PARTITION_MAX_LG;
                // 3·chunks·(l+1) values, plus one (`partition_span`).
                let chunks = (self.max_shared_bytes / self.value_bytes).saturating_sub(1) / (3 * (l + 1));
                chunks.min(self.partition_threads) * l
            }
        }
    }

    /// The partition method's launch for `shape`: (log2 rows per thread, systems per block),
    /// or None when n is over [`max_n`](Self::max_n).
    ///
    /// Systems per block g: enough systems that a block has ≥ 128 threads (small n); where
    /// systems are adjacent (interleaved, columns) at least a 32-byte sector's worth of consecutive systems (8 in f32,
    /// 4 in f64) so that every sector a load touches is used whole; but never so many that
    /// the grid has fewer than two blocks per multiprocessor, that two blocks no longer fit
    /// in one multiprocessor's shared memory, or that the block exceeds its thread limit.
    pub fn partition_launch(&self, shape: Shape) -> Option<(u32, u32)> {
        let n = shape.n;
        if n == 0 || n > self.max_n(Algorithm::Partition) {
            return None;
        }
        let vb = self.value_bytes;
        let span = |lg: u32| kernels::tridiag::partition_span(n as u32, lg) as usize * vb;
        let chunks = |lg: u32| kernels::tridiag::partition_chunks(n as u32, lg) as usize;
        let mut lg = partition_lg_for(n);
        while lg < PARTITION_MAX_LG && (chunks(lg) > self.partition_threads || span(lg) > self.max_shared_bytes) {
            lg += 1;
        }
        let p = chunks(lg);
        let want =
            if shape.layout.systems_adjacent() { 128usize.div_ceil(p).max(32 / vb) } else { 128usize.div_ceil(p) };
        let fill = (shape.batch / (2 * self.sm_count.max(1))).max(1);
        let by_shared = (self.max_shared_bytes / 2 / span(lg)).max(1);
        let by_threads = (self.partition_threads / p).max(1);
        let g = want.min(fill).min(by_shared).min(by_threads).min(shape.batch).max(1);
        Some((lg, g as u32))
    }

    /// The automatic choice for a batch with a row that is not diagonally dominant: SPIKE
    /// while the batch has at most 8 systems per multiprocessor (1056 on an H100) and the
    /// systems are long (n ≥ 256), where one thread per system leaves most of the GPU idle;
    /// else LU, one thread per system. Measured on the H100 with the one-block SPIKE (n = 4096,
    /// contiguous, f32): SPIKE 0.19 ms against LU's 2.66 at batch 256, 1.68 against 2.80 at
    /// 1024, 11.5 against 2.8 at 4096 (interleaved: 0.29/3.29, 1.27/3.97, 5.6/4.3), so the
    /// crossover lies between 1024 and 4096 systems; the multi-block SPIKE (n > 1024) moves
    /// fewer words than the one-block kernel, which moves the crossover up, not down.
    pub fn auto_pivoting(&self, shape: Shape) -> Algorithm {
        if shape.batch <= 8 * self.sm_count.max(1) && shape.n >= 256 { Algorithm::Spike } else { Algorithm::Lu }
    }

    /// The multi-block SPIKE levels of a system of n: the chunks of each level, top first
    /// (level ℓ+1 solves the 2·chunks reduced equations of level ℓ), while the system is
    /// longer than `SPIKE_ONE_BLOCK_MAX`; the last reduced system (or the system itself, for
    /// no levels) is solved by the one-block kernel with [`spike_chunks`](Self::spike_chunks).
    pub fn spike_levels(n: usize) -> Vec<u32> {
        let mut levels = Vec::new();
        let mut m = n as u32;
        while m > kernels::tridiag::SPIKE_ONE_BLOCK_MAX {
            let chunks = kernels::tridiag::spike_level_chunks(m);
            levels.push(chunks);
            m = 2 * chunks;
        }
        levels
    }

    /// Chunks SPIKE cuts a system of n into: about √(n/2), balancing a chunk's rows against
    /// the reduced system's 2·chunks rows that one thread solves; at most
    /// `SPIKE_MAX_CHUNKS` and n/2 (chunks of at least two rows), at least 1.
    pub fn spike_chunks(n: usize) -> u32 {
        let target = ((n as f64 / 2.0).sqrt().round() as usize).min(n / 2);
        target.clamp(1, kernels::tridiag::SPIKE_MAX_CHUNKS as usize) as u32
    }

    /// Whether the automatic choice, having taken `alg` for `shape`, solves a contiguous copy of
    /// the batch instead of the batch where it lies: for the partition method on adjacent
    /// systems (interleaved, columns) of n ≥ [`RESTAGE_MIN_N`]. Such a block stages a few
    /// systems whose rows lie a pitch apart (two in f64 at n = 4096, where a 32-byte sector
    /// holds four), and its solve takes 2–3× the contiguous one's; transposing a, b, c and d
    /// into the workspace and x back (each at near copy rate, 10 words an unknown) costs less
    /// than the difference. Measured on an H200 (`bench tridiag`, interleaved): n = 4096 × 1024
    /// f64 0.295 ms in the layout, 0.194 on a copy; × 4096 1.149 against 0.687; n = 4096 × 256
    /// f32 0.070 against 0.044; n = 2048 × 1024 and × 4096 in f32 within 1% either way.
    /// Below n = 2048 the copy does not pay: its five transposes cost more than the solve
    /// they spare (H200, interleaved, contiguous choice on a copy against `auto` in the layout:
    /// n = 64 × 256 f32 0.024 against 0.010 ms, 256 × 1024 f64 0.035 against 0.024, 1024 × 256
    /// f64 0.036 against 0.033, 1024 × 4096 f32 0.113 against 0.079).
    ///
    /// LU on systems whose unknowns are consecutive (contiguous, rows) runs on an interleaved
    /// copy from [`RESTAGE_LU_MIN`] unknowns: one thread a system, a warp's 32 loads of a row
    /// lie n apart in the layout and in one line on the copy. Measured on an H100 (`bench
    /// tridiag`, contiguous, not dominant, the dominance check included): n = 4096 × 16384 f32
    /// 2.89 ms on the copy against 6.24 in the layout, f64 4.43 against 8.79; 256 × 4096 f32
    /// 0.129 against 0.171; 64 × 4096 f32 0.050 against 0.056. Below 2¹⁸ unknowns the copy's
    /// launches cost more than they spare (a build that copied at every size: 64 × 1024 f32
    /// 0.057 against 0.052).
    pub fn restages(&self, shape: Shape, alg: Algorithm) -> bool {
        match alg {
            Algorithm::Partition => shape.layout.systems_adjacent() && shape.n >= RESTAGE_MIN_N,
            Algorithm::Lu => !shape.layout.systems_adjacent() && shape.len() >= RESTAGE_LU_MIN,
            _ => false,
        }
    }

    /// The automatic choice for a diagonally dominant batch (the solvers check dominance on
    /// the device first and take [`Algorithm::Lu`] when a row is not dominant).
    ///
    /// Measured with `bench tridiag` on an H100 (`docs/bench/tridiag-h100.json`):
    /// - contiguous: partition wherever it fits (n ≤ `max_n(Partition)`), else Thomas. It moves
    ///   the minimum 5 words per unknown: 67% (f32) and 73% (f64) of copy at n = 4096 × 16384,
    ///   4.0–4.3× cuSPARSE gtsv2StridedBatch in the largest cells.
    /// - interleaved: partition with g consecutive systems per block while the batch does not
    ///   fill the GPU by itself (< 120 systems per multiprocessor) or g reaches a whole 32-byte
    ///   sector; otherwise one-thread Thomas (16 rows of loads in flight, a group ahead), which
    ///   beats twisted Thomas in every such cell and reaches 39% (f32) / 52% (f64) of copy at
    ///   n = 4096 × 16384 (2026-12-06): it moves 9 words per unknown (c′, d′ through the
    ///   workspace), so at most ~55% counted at 5.
    /// - beyond the partition limit: Thomas in both layouts (contiguous: coalesced by staging).
    /// - small batches of systems of n ≥ 64: CR-PCR, in f64 from n = 1024 CR (each system
    ///   whole in shared memory, one launch; one system a block in the contiguous layouts, two
    ///   to eight side by side in the adjacent ones, so that a row of them is read in whole
    ///   sectors) while the batch holds at most 1024 unknowns per multiprocessor, up to 2048
    ///   per multiprocessor in the adjacent layouts for n ≤ 1024, and in the contiguous ones
    ///   for n ≤ 256. Such batches are bound by latency, not traffic. Shorter systems stay with
    ///   partition, which packs several into a block (the bench grid starts at n = 64).
    ///   Measured on an H200 (132 multiprocessors), CR-PCR beats partition in every cell of up
    ///   to 2^17 unknowns in every layout (by 3–25%), and at n = 64 × 4096, 256 × 1024 and,
    ///   side by side, 1024 × 256; partition wins again past 2^18 unknowns.
    ///
    /// For larger batches CR in shared memory is not the choice: it reaches 20–28% of copy at
    /// n = 4096 × 16384 (barrier- and shared-memory-bound over log2 n levels).
    pub fn auto(&self, shape: Shape) -> Algorithm {
        let sms = self.sm_count.max(1);
        let unknowns = shape.n.saturating_mul(shape.batch);
        let contiguous = matches!(shape.layout, Layout::Contiguous | Layout::Rows { .. });
        // Systems side by side of n ≤ 1024 take CR-PCR with several systems a block up to 2048
        // unknowns a multiprocessor (H200, interleaved, against the partition kernel: 1024 ×
        // 256 f32 20.9 against 27.2 µs, 64 × 4096 f32 13.9 against 15.6; past it 512 × 1024
        // f32 31.0 against 28.5). Longer ones are one system a block (a block's 1024 threads),
        // where partition on a contiguous copy is the choice.
        let latency_bound = shape.n >= 64
            && (unknowns <= 1024 * sms
                || (contiguous && shape.n <= 256 && unknowns <= 2048 * sms)
                || (!contiguous && shape.n <= 1024 && unknowns <= 2048 * sms));
        // In f64, systems of 1024 unknowns and more reduce by CR to the end: CR took 0.86–0.98
        // of CR-PCR's time at n = 1024 and 2048 in every layout and batch (H200, two leases),
        // and no switch to PCR (at 128, 64, 32 or 16 equations) beat it. In f32 the two lie
        // within 5% of each other, CR-PCR ahead below n = 2048.
        let cyclic = if self.value_bytes == 8 && shape.n >= 1024 { Algorithm::Cr } else { Algorithm::CrPcr };
        if latency_bound && shape.n <= self.max_n(cyclic) {
            return cyclic;
        }
        let fills = shape.batch >= 120 * sms;
        let Some((_, g)) = self.partition_launch(shape) else {
            return Algorithm::Thomas;
        };
        let whole_sectors = g as usize * self.value_bytes >= 32;
        match shape.layout {
            Layout::Contiguous | Layout::Rows { .. } => Algorithm::Partition,
            // Measured on an H100: one-thread Thomas (8-row load groups) beats the twisted
            // kernel in every such cell (n=4096 × 16384: 1.47 vs 1.62 ms f32, 2.06 vs 2.19 ms
            // f64): twice the threads do not pay for the meeting barrier.
            Layout::Interleaved | Layout::Columns { .. } if fills && !whole_sectors => Algorithm::Thomas,
            Layout::Interleaved | Layout::Columns { .. } => Algorithm::Partition,
        }
    }
}

/// The error for a breakdown of `alg` at row `row` of system `system` (`place`: where it ran).
pub fn breakdown(alg: Algorithm, place: &str, system: u64, row: u64) -> Error {
    let why = if alg.pivots() {
        "LU with partial pivoting broke down: is the matrix singular?"
    } else {
        "elimination without pivoting broke down; is the matrix singular or far from diagonally dominant? (lu pivots)"
    };
    Error::invalid(format!(
        "tridiagonal {place}, {alg}: system {system}, row {row}: zero or non-finite pivot, coefficient or result ({why})"
    ))
}

/// Coefficients of a batch: a, b, c, d in one layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch<T> {
    pub shape: Shape,
    pub a: Vec<T>,
    pub b: Vec<T>,
    pub c: Vec<T>,
    pub d: Vec<T>,
}

/// Fill a, b, c, d with the random systems of [`Batch::random`] (converted to `T`).
fn fill_random<T: Real>(shape: Shape, seed: u64, dominance: f64, a: &mut [T], b: &mut [T], c: &mut [T], d: &mut [T]) {
    let mut rng = crate::Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut rnd = move || rng.unit();
    for k in 0..shape.batch {
        for i in 0..shape.n {
            let g = shape.at(k, i);
            let ag = if i == 0 { 0.0 } else { 2.0 * rnd() - 1.0 };
            let cg = if i + 1 == shape.n { 0.0 } else { 2.0 * rnd() - 1.0 };
            let mag = dominance * (ag.abs() + cg.abs()) + 0.1 + rnd();
            let bg = if rnd() < 0.5 { -mag } else { mag };
            let dg = 2.0 * rnd() - 1.0;
            (a[g], b[g], c[g], d[g]) = (T::from_f64(ag), T::from_f64(bg), T::from_f64(cg), T::from_f64(dg));
        }
    }
}

impl Batch<f64> {
    /// Random diagonally dominant systems: a, c uniform in [−1, 1], |b| ≥ dominance·(|a|+|c|)
    /// plus a margin, random signs, d uniform in [−1, 1]; `a_0 = c_{n−1} = 0`. Reproducible
    /// from `seed`, the same systems in any layout. A padded layout's padding is NaN, so
    /// that a solver that read it would break down rather than pass.
    pub fn random(shape: Shape, seed: u64, dominance: f64) -> Batch<f64> {
        let len = shape.span();
        let nan = f64::NAN;
        let (mut a, mut b, mut c, mut d) = (vec![nan; len], vec![nan; len], vec![nan; len], vec![nan; len]);
        fill_random(shape, seed, dominance, &mut a, &mut b, &mut c, &mut d);
        Batch { shape, a, b, c, d }
    }

    /// The same batch in precision `T`.
    pub fn to<T: Real>(&self) -> Batch<T> {
        use rayon::prelude::*;
        let conv = |v: &[f64]| v.par_iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>();
        Batch { shape: self.shape, a: conv(&self.a), b: conv(&self.b), c: conv(&self.c), d: conv(&self.d) }
    }
}

/// `v` (laid out by `from`) in `layout` (its span), converted by `conv`, with `pad` in the
/// padding of a padded `layout` (the padding of `from` is not read); an error rather than an
/// abort when memory is short.
pub fn relayout_values<S: Copy + Sync, T: Copy + Send + Sync>(
    from: Shape,
    layout: Layout,
    v: &[S],
    conv: impl Fn(S) -> T + Sync,
    pad: T,
) -> Result<Vec<T>> {
    use rayon::prelude::*;
    from.check_lengths(&[("the array", v.len())])?;
    let to = Shape { layout, ..from };
    to.validate()?;
    let mut out = crate::alloc::try_filled("a tridiagonal batch array", to.span(), pad)?;
    if layout == from.layout && layout.pitch().is_none() {
        out.par_iter_mut().zip(v.par_iter()).for_each(|(o, &x)| *o = conv(x));
    } else {
        // Each line of the output (a system where systems are contiguous, a row of unknowns
        // where they are interleaved) is written by one task: a batch is hundreds of megabytes.
        // The layout says which (with one system or n = 1 both strides are 1).
        let (system, row) = to.strides();
        let by_rows = layout.systems_adjacent();
        let (line, lines, across) = if by_rows { (row, from.n, from.batch) } else { (system, from.batch, from.n) };
        out.par_chunks_mut(line).take(lines).enumerate().for_each(|(l, chunk)| {
            for (m, o) in chunk[..across].iter_mut().enumerate() {
                let (k, i) = if by_rows { (m, l) } else { (l, m) };
                *o = conv(v[from.at(k, i)]);
            }
        });
    }
    Ok(out)
}

impl<T: Real> Batch<T> {
    /// The same systems in another layout (or this one); a padded layout's padding is NaN
    /// (see [`Batch::random`]). Panics on a layout [`Shape::validate`] refuses.
    pub fn relayout(&self, layout: Layout) -> Batch<T> {
        let mv =
            |v: &[T]| relayout_values(self.shape, layout, v, |x| x, T::NAN).expect("a valid layout to relayout to");
        Batch { shape: Shape { layout, ..self.shape }, a: mv(&self.a), b: mv(&self.b), c: mv(&self.c), d: mv(&self.d) }
    }
    /// ‖Ax − d‖₂ / ‖d‖₂ for a solution `x` of this batch (NaN where not finite).
    pub fn residual(&self, x: &[T]) -> f64 {
        residual(self.shape, &self.a, &self.b, &self.c, &self.d, x)
    }
    /// [`residual`](Self::residual) over at most `most` systems spread evenly over the batch.
    pub fn sampled_residual(&self, x: &[T], most: usize) -> f64 {
        sampled_residual(self.shape, &self.a, &self.b, &self.c, &self.d, x, most)
    }
    /// [`residual`](Self::residual), or an error naming the first system and row where `x` or
    /// the residual is not finite.
    pub fn checked_residual(&self, x: &[T]) -> Result<f64> {
        checked_residual(self.shape, &self.a, &self.b, &self.c, &self.d, x)
    }
    /// [`Batch::random`] in precision `T`, allocated fallibly (an error, not an abort, when
    /// memory is short); the same values as `Batch::random(..).to::<T>()`.
    pub fn try_random(shape: Shape, seed: u64, dominance: f64) -> Result<Batch<T>> {
        shape.validate()?;
        let len = shape.span();
        let what = "a generated tridiagonal batch";
        let (mut a, mut b) =
            (crate::alloc::try_filled(what, len, T::NAN)?, crate::alloc::try_filled(what, len, T::NAN)?);
        let (mut c, mut d) =
            (crate::alloc::try_filled(what, len, T::NAN)?, crate::alloc::try_filled(what, len, T::NAN)?);
        fill_random(shape, seed, dominance, &mut a, &mut b, &mut c, &mut d);
        Ok(Batch { shape, a, b, c, d })
    }
    /// The same systems in `layout` and precision `U`, allocated fallibly.
    pub fn try_to_layout<U: Real + Default>(&self, layout: Layout) -> Result<Batch<U>> {
        let mv = |v: &[T]| relayout_values(self.shape, layout, v, |x: T| U::from_f64(x.to_f64()), U::NAN);
        Ok(Batch {
            shape: Shape { layout, ..self.shape },
            a: mv(&self.a)?,
            b: mv(&self.b)?,
            c: mv(&self.c)?,
            d: mv(&self.d)?,
        })
    }
}
