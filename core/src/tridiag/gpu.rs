//! GPU driver: plans a launch for (shape, algorithm), owns the workspace and the status word,
//! launches, and turns a breakdown reported by a kernel into an error naming system and row.
//! The automatic choice first checks diagonal dominance on the device (one pass over a, b,
//! c, the first non-dominant row reduced into the status word) and takes a pivoting solver
//! ([`Limits::auto_pivoting`]: LU, or SPIKE for few long systems) when a row is not dominant, the fast non-pivoting plan of [`Limits::auto`] when
//! every row is.

use super::{Algorithm, Choice, Dims, Layout, Limits, Shape, breakdown};
use crate::runtime::{DeviceBuffer, DeviceMemory, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::transpose::Variant;
use crate::transpose::gpu::Transposer;
use crate::{Error, GpuReal, Result};
use kernels::Entry;
use kernels::tridiag::{
    CR, CR_PCR, DOMINANCE, Dominance, LU, PARTITION, PCR, PCR_MAX_PER_THREAD, PCR_THOMAS, SPIKE, SPIKE_FILL,
    SPIKE_MAX_LEVELS, SPIKE_REDUCE, Solve, SolveWork, THOMAS, THOMAS_BLOCK, THOMAS_CONTIGUOUS, THOMAS_TWISTED,
    TWISTED_SYSTEMS, cyclic_span, decode_status, partition_chunks, partition_span, spike_span, spike_start,
};

/// The kernel a plan launches: the tridiagonal kernels take a workspace or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanKernel {
    /// With a workspace of [`Plan::workspace`] values.
    Work(Entry<SolveWork<()>>),
    /// Without one.
    Plain(Entry<Solve<()>>),
    /// The multi-block SPIKE: `tridiag_spike_reduce` level by level, the one-block
    /// `tridiag_spike` on the last reduced systems, `tridiag_spike_fill` level by level back.
    SpikeLevels(SpikeLevels),
    /// The batch on a copy in the other family of layouts ([`Limits::restages`], [`copy_shape`]):
    /// a, b, c and d transposed into the workspace's first 4 × n·batch values, solved there in
    /// place by this kernel (the plan's dims and launch are the copy's; a kernel with a
    /// workspace of its own takes the rest of the plan's), x transposed back.
    Restaged(Copied),
}

/// The kernel a [`PlanKernel::Restaged`] plan runs on its copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copied {
    Plain(Entry<Solve<()>>),
    Work(Entry<SolveWork<()>>),
}

/// The layout of the copy a restaged plan solves ([`Limits::restages`]): adjacent systems
/// (interleaved, columns) on a contiguous copy, systems whose unknowns are consecutive
/// (contiguous, rows) on an interleaved one.
pub fn copy_shape(shape: Shape) -> Shape {
    let layout = if shape.layout.systems_adjacent() { Layout::Contiguous } else { Layout::Interleaved };
    Shape::new(shape.n, shape.batch, layout)
}

/// The levels of a multi-block SPIKE plan, top first (see `Limits::spike_levels`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpikeLevels {
    /// Levels (1..=`SPIKE_MAX_LEVELS`).
    pub count: usize,
    /// Unknowns per system of each level (level 0: n).
    pub n: [u32; SPIKE_MAX_LEVELS],
    /// Chunks per system of each level.
    pub chunks: [u32; SPIKE_MAX_LEVELS],
    /// Threads (chunks) per block of each level.
    pub threads: [u32; SPIKE_MAX_LEVELS],
    /// Chunks of the one-block kernel on the last reduced systems (2·chunks of the last level).
    pub bottom_chunks: u32,
}

impl SpikeLevels {
    /// Unknowns per system of the last reduced system.
    pub fn bottom_n(&self) -> u32 {
        2 * self.chunks[self.count - 1]
    }

    /// Unknowns per system of level ℓ ≤ count (level `count`: the last reduced system).
    pub fn n_at(&self, level: usize) -> u32 {
        if level == self.count { self.bottom_n() } else { self.n[level] }
    }

    /// Offset in the workspace of the system level ℓ ≥ 1 solves (its a, b, c, d, each
    /// n_ℓ·batch values); the one-block kernel's workspace follows the last one.
    fn offset(&self, level: usize, batch: usize) -> usize {
        (1..level).map(|l| 4 * 2 * self.chunks[l - 1] as usize * batch).sum()
    }

    /// Status words: a reduction and a fill per level, and the one-block kernel's.
    pub fn status_words(&self) -> usize {
        2 * self.count + 1
    }
}

/// One planned launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub algorithm: Algorithm,
    pub dims: Dims,
    pub launch: LaunchShape,
    pub kernel: PlanKernel,
    /// Workspace values the kernel needs (0 for a [`PlanKernel::Plain`] one).
    pub workspace: usize,
}

impl Plan {
    /// A short description of the launch parameters (for benchmark notes).
    pub fn describe(&self) -> String {
        if let PlanKernel::Restaged(k) = self.kernel {
            let (kernel, copy) = match k {
                Copied::Plain(e) => (PlanKernel::Plain(e), "a contiguous"),
                Copied::Work(e) => (PlanKernel::Work(e), "an interleaved"),
            };
            let inner = Plan { kernel, ..*self };
            return format!("{} on {copy} copy (a, b, c, d transposed in, x out)", inner.describe());
        }
        let d = &self.dims;
        let b = self.launch.block.0;
        match (self.algorithm, self.kernel) {
            (Algorithm::Thomas, PlanKernel::Work(e)) if e == THOMAS_CONTIGUOUS => {
                format!("{b} threads/block, staged {}-row chunks", 1 << d.chunk)
            }
            (Algorithm::Thomas | Algorithm::Lu, _) => format!("{b} threads/block"),
            (Algorithm::Spike, PlanKernel::SpikeLevels(l)) => format!(
                "{} levels of ≤ {}-row chunks ({} threads/block at the top), then {} chunks per system, one block each",
                l.count,
                kernels::tridiag::SPIKE_ROWS,
                l.threads[0],
                l.bottom_chunks
            ),
            (Algorithm::Spike, _) => format!("{} chunks per system, one block each", d.chunk),
            (Algorithm::Cr, _) => format!("{b} threads{}", self.systems()),
            (Algorithm::Pcr, _) => format!("{b} threads × {}{}", d.chunk, self.systems()),
            (Algorithm::CrPcr, _) => format!("{b} threads, PCR at ≤ {} eq.{}", d.switch, self.systems()),
            (Algorithm::PcrThomas, _) => {
                format!("{b} threads × {}, {} subsystems{}", d.chunk, 1u32 << d.switch, self.systems())
            }
            (Algorithm::Twisted, _) => format!("{b} systems × 2 threads/block"),
            (Algorithm::Partition, _) => {
                format!("{} systems × {b} threads/block, {} rows/thread", d.switch, 1u32 << d.chunk)
            }
        }
    }

    /// ", k systems a block" where a cyclic-reduction block solves more than one.
    fn systems(&self) -> String {
        match self.launch.block.1 {
            1 => String::new(),
            k => format!(", {k} systems a block"),
        }
    }
}

/// The kernels with a workspace, by entry.
type WorkKernels<T> = Vec<(Entry<SolveWork<()>>, Kernel<SolveWork<T>>)>;
/// The kernels without one, by entry.
type PlainKernels<T> = Vec<(Entry<Solve<()>>, Kernel<Solve<T>>)>;

/// Every tridiagonal kernel of precision `T`, looked up once, by family.
struct TridiagKernels<T: GpuReal> {
    work: WorkKernels<T>,
    plain: PlainKernels<T>,
    dominance: Kernel<Dominance<T>>,
}

impl<T: GpuReal> TridiagKernels<T> {
    fn new(gpu: &Gpu) -> Result<TridiagKernels<T>> {
        let work = [THOMAS, THOMAS_CONTIGUOUS, THOMAS_TWISTED, LU, SPIKE, SPIKE_REDUCE, SPIKE_FILL]
            .into_iter()
            .map(|e| Ok((e, gpu.kernel::<T, _>(e)?)));
        let plain = [PARTITION, CR, PCR, CR_PCR, PCR_THOMAS].into_iter().map(|e| Ok((e, gpu.kernel::<T, _>(e)?)));
        Ok(TridiagKernels {
            work: work.collect::<Result<_>>()?,
            plain: plain.collect::<Result<_>>()?,
            dominance: gpu.kernel::<T, _>(DOMINANCE)?,
        })
    }

    fn work(&self, e: Entry<SolveWork<()>>) -> &Kernel<SolveWork<T>> {
        &self.work.iter().find(|(w, _)| *w == e).expect("every workspace kernel is looked up in new").1
    }

    fn plain(&self, e: Entry<Solve<()>>) -> &Kernel<Solve<T>> {
        &self.plain.iter().find(|(p, _)| *p == e).expect("every tridiagonal kernel is looked up in new").1
    }

    /// The limits of `gpu` for these kernels.
    fn limits(&self, gpu: &Gpu) -> Limits {
        let max_threads = |e| threads(self.plain(e));
        let pcr = max_threads(PCR).min(max_threads(PCR_THOMAS));
        Limits::of::<T>(gpu, pcr, max_threads(CR).min(max_threads(CR_PCR)), max_threads(PARTITION))
    }
}

/// Most threads a block of `kernel` may have (its registers decide; at least a warp).
pub fn threads<P: kernels::launch::Params>(kernel: &Kernel<P>) -> usize {
    kernel.max_threads_per_block().max(32) as usize
}

impl Limits {
    /// The limits of `gpu` for kernels of precision `T` whose blocks of the PCR family, of CR
    /// and CR-PCR, and of the partition method may have at most these threads ([`threads`]):
    /// the batched kernels' here, a model's own solving kernels elsewhere (the ADI sweeps).
    pub fn of<T: GpuReal>(gpu: &Gpu, pcr_threads: usize, cr_threads: usize, partition_threads: usize) -> Limits {
        let i = gpu.info();
        Limits {
            max_shared_bytes: i.max_shared_per_block as usize,
            value_bytes: std::mem::size_of::<T>(),
            sm_count: i.sm_count as usize,
            pcr_threads,
            cr_threads,
            partition_threads,
        }
    }
}

/// The limits of this GPU for precision `T` (looks the kernels up for this one call; a
/// [`GpuTridiag`] keeps them).
pub fn limits<T: GpuReal>(gpu: &Gpu) -> Result<Limits> {
    Ok(TridiagKernels::<T>::new(gpu)?.limits(gpu))
}

fn round32(v: usize) -> usize {
    v.div_ceil(32).max(1) * 32
}

/// Plan `alg` for `shape` under `lim`, or say why it cannot run.
pub fn plan(shape: Shape, alg: Algorithm, lim: &Limits) -> Result<Plan> {
    shape.validate()?;
    let n = shape.n;
    let max = lim.max_n(alg);
    if n > max {
        let why = match alg {
            Algorithm::Pcr | Algorithm::PcrThomas if max < lim.max_shared_bytes / (4 * lim.value_bytes) => {
                format!("{} equations per thread × {} threads", PCR_MAX_PER_THREAD, lim.pcr_threads / 32 * 32)
            }
            Algorithm::Partition => format!(
                "3 values per row of {} B in {} B of shared memory per block, one thread per {} rows, at most {} threads",
                lim.value_bytes,
                lim.max_shared_bytes,
                1 << super::PARTITION_MAX_LG,
                lim.partition_threads
            ),
            _ => format!("4n values of {} B in {} B of shared memory per block", lim.value_bytes, lim.max_shared_bytes),
        };
        return Err(Error::invalid(format!(
            "tridiagonal algorithm {alg}: n = {n} exceeds its limit of {max} on this GPU ({why}); use thomas or a smaller n"
        )));
    }
    let mut dims = shape.dims();
    let plan = |dims: Dims, kernel: PlanKernel, block: usize, shared: usize, workspace: usize| -> Result<Plan> {
        let launch = if matches!(alg, Algorithm::Thomas | Algorithm::Lu) {
            LaunchShape::cover_1d(shape.batch as u64, block as u32)?
        } else {
            LaunchShape::fixed((shape.batch as u32, 1, 1), (block as u32, 1, 1))
        };
        Ok(Plan { algorithm: alg, dims, launch: launch.with_shared(shared * lim.value_bytes), kernel, workspace })
    };
    // The cyclic-reduction family: `2^group` systems a block of `block` threads each.
    let cyclic = |dims: Dims, entry: Entry<Solve<()>>, block: usize, threads: usize| -> Result<Plan> {
        let group = cyclic_group(shape, block, threads, lim);
        let systems = 1usize << group;
        let grid = shape.batch.div_ceil(systems) as u32;
        let shared = systems * cyclic_span(n as u32, group) as usize;
        let launch = LaunchShape::fixed((grid, 1, 1), (block as u32, systems as u32, 1));
        Ok(Plan {
            algorithm: alg,
            dims,
            launch: launch.with_shared(shared * lim.value_bytes),
            kernel: PlanKernel::Plain(entry),
            workspace: 0,
        })
    };
    match alg {
        // Systems adjacent (interleaved, columns): one thread per system reads coalesced, c′
        // in a workspace at the positions of x. Else (contiguous, rows) staged.
        Algorithm::Thomas if shape.layout.systems_adjacent() => {
            plan(dims, PlanKernel::Work(THOMAS), THOMAS_BLOCK as usize, 0, workspace(shape, alg))
        }
        Algorithm::Thomas => {
            // 64-byte runs per system and chunk: two full sectors per system.
            let rows = 64 / lim.value_bytes;
            dims.chunk = rows.trailing_zeros();
            let warps = THOMAS_BLOCK as usize / 32;
            plan(
                dims,
                PlanKernel::Work(THOMAS_CONTIGUOUS),
                THOMAS_BLOCK as usize,
                warps * 4 * 32 * (rows + 1),
                workspace(shape, alg),
            )
        }
        Algorithm::Lu => plan(dims, PlanKernel::Work(LU), THOMAS_BLOCK as usize, 0, workspace(shape, alg)),
        Algorithm::Spike if n > kernels::tridiag::SPIKE_ONE_BLOCK_MAX as usize => {
            if shape.batch > 65_535 {
                return Err(Error::invalid(format!(
                    "tridiagonal algorithm spike: {} systems of n = {n} exceed its limit of 65 535 (one grid row per system); use lu",
                    shape.batch
                )));
            }
            let levels = spike_levels(shape, lim);
            dims.chunk = levels.chunks[0];
            dims.switch = levels.threads[0];
            Ok(Plan {
                algorithm: alg,
                dims,
                launch: spike_level_launch(shape.batch, &levels, 0, lim),
                kernel: PlanKernel::SpikeLevels(levels),
                workspace: workspace(shape, alg),
            })
        }
        Algorithm::Spike => {
            // One block per system, a thread per chunk; the reduced system (7 arrays of 2 per
            // chunk) in shared memory; the rows' vectors in the workspace.
            let chunks = Limits::spike_chunks(n);
            dims.chunk = chunks;
            let launch = LaunchShape::fixed((shape.batch as u32, 1, 1), (chunks, 1, 1));
            let launch = launch.with_shared(14 * chunks as usize * lim.value_bytes);
            Ok(Plan { algorithm: alg, dims, launch, kernel: PlanKernel::Work(SPIKE), workspace: workspace(shape, alg) })
        }
        Algorithm::Cr => {
            let block = round32(n.div_ceil(2)).min(lim.cr_threads / 32 * 32);
            cyclic(dims, CR, block, lim.cr_threads)
        }
        Algorithm::Pcr | Algorithm::PcrThomas => {
            let bmax = lim.pcr_threads / 32 * 32;
            let rpt = n.div_ceil(bmax).max(1);
            let block = round32(n.div_ceil(rpt));
            dims.chunk = rpt as u32;
            if alg == Algorithm::Pcr {
                cyclic(dims, PCR, block, lim.pcr_threads)
            } else {
                // Subsystems of about 16 rows: P = 2^steps ≤ the block.
                let target = (n / 16).clamp(1, block);
                let steps = usize::BITS - 1 - target.leading_zeros();
                dims.switch = steps;
                cyclic(dims, PCR_THOMAS, block, lim.pcr_threads)
            }
        }
        Algorithm::CrPcr => {
            let block = round32(n.div_ceil(2)).min(lim.cr_threads / 32 * 32);
            dims.chunk = 1;
            dims.switch = block.min(128) as u32;
            cyclic(dims, CR_PCR, block, lim.cr_threads)
        }
        Algorithm::Twisted => {
            let launch = LaunchShape::cover_1d(shape.batch as u64, TWISTED_SYSTEMS)?;
            let launch = LaunchShape { block: (TWISTED_SYSTEMS, 2, 1), ..launch };
            let launch = launch.with_shared(4 * TWISTED_SYSTEMS as usize * lim.value_bytes);
            let kernel = PlanKernel::Work(THOMAS_TWISTED);
            Ok(Plan { algorithm: alg, dims, launch, kernel, workspace: workspace(shape, alg) })
        }
        Algorithm::Partition => {
            // `max_n` was checked above, so the launch exists.
            let (lg, g) = lim
                .partition_launch(shape)
                .ok_or_else(|| Error::invalid(format!("tridiagonal partition: no launch for n = {n}")))?;
            dims.chunk = lg;
            dims.switch = g;
            let grid = shape.batch.div_ceil(g as usize) as u32;
            let block = (partition_chunks(n as u32, lg), g, 1);
            let shared = g as usize * partition_span(n as u32, lg) as usize;
            let launch = LaunchShape::fixed((grid, 1, 1), block).with_shared(shared * lim.value_bytes);
            Ok(Plan { algorithm: alg, dims, launch, kernel: PlanKernel::Plain(PARTITION), workspace: 0 })
        }
    }
}

/// log2 of the systems a block of the cyclic-reduction kernels solves, each with `block`
/// threads of the kernel's `threads` at most. One system a block reads a row of a system
/// adjacent to the next (interleaved, columns) as one value of a 32-byte sector, a sector a
/// thread; so there a block takes at least two systems, and up to as many as one row of them
/// fills a sector (8 in f32, 4 in f64) while the block stays within 256 threads, as far as the
/// threads, the shared memory and the batch allow. Systems that lie in rows (contiguous, rows)
/// are read whole sectors at a time already: one a block.
///
/// Measured on an H200 (`bench tridiag`, CR-PCR, interleaved, 1, 2, 4 and 8 systems a block):
/// n = 256 × 1024 f32 21.7, 17.2, 17.5, 16.8 µs; 512 × 256 f32 16.3, 14.4, 18.0, 17.5 µs;
/// 1024 × 256 f64 29.4, 26.8 µs (4 and 8 do not fit 1024 threads); 64 × 4096 f32 19.6, 16.3,
/// 14.1, 13.9 µs: blocks past 256 threads leave too few blocks to fill the GPU.
fn cyclic_group(shape: Shape, block: usize, threads: usize, lim: &Limits) -> u32 {
    if !shape.layout.systems_adjacent() {
        return 0;
    }
    let fits = |g: u32| {
        block << g <= threads
            && (cyclic_span(shape.n as u32, g) as usize) << g <= lim.max_shared_bytes / lim.value_bytes
            && 1 << g <= shape.batch.next_power_of_two()
    };
    let sector = (32 / lim.value_bytes).trailing_zeros();
    let mut g = (256 / block.max(1)).max(2).ilog2().min(sector);
    while g > 0 && !fits(g) {
        g -= 1;
    }
    g
}

/// The plan of the automatic choice, which took `alg` for `shape`: [`plan`], or where the
/// choice restages the batch ([`Limits::restages`]) the contiguous shape's plan launched on a
/// copy.
pub fn plan_auto(shape: Shape, alg: Algorithm, lim: &Limits) -> Result<Plan> {
    if lim.restages(shape, alg) {
        let inner = plan(copy_shape(shape), alg, lim)?;
        let copied = match inner.kernel {
            PlanKernel::Plain(e) => Some(Copied::Plain(e)),
            PlanKernel::Work(e) => Some(Copied::Work(e)),
            _ => None,
        };
        if let Some(k) = copied {
            let workspace = 4 * shape.len() + inner.workspace;
            return Ok(Plan { kernel: PlanKernel::Restaged(k), workspace, ..inner });
        }
    }
    plan(shape, alg, lim)
}

/// Workspace values a plan of `alg` for `shape` takes where the batch lies ([`plan`]'s; the
/// shape alone sets it, whatever the GPU).
pub fn workspace(shape: Shape, alg: Algorithm) -> usize {
    let len = shape.len();
    match alg {
        // c′ at the positions of x; staged (contiguous, rows): c′ and d′.
        Algorithm::Thomas if shape.layout.systems_adjacent() => shape.span(),
        Algorithm::Thomas => 2 * len,
        // U's two superdiagonals, each at the positions of x (y in x).
        Algorithm::Lu => 2 * shape.span(),
        Algorithm::Spike if shape.n > kernels::tridiag::SPIKE_ONE_BLOCK_MAX as usize => {
            // The reduced systems of every level (a, b, c, d of 2·chunks rows), then the
            // one-block kernel's 5 arrays of the last one, contiguous.
            let chunks = Limits::spike_levels(shape.n);
            let levels: usize = chunks.iter().map(|&p| 8 * p as usize).sum();
            let bottom = 5 * 2 * chunks.last().map_or(0, |&p| p as usize);
            (levels + bottom).saturating_mul(shape.batch)
        }
        // u1, u2 and three right-hand sides per row, each at the positions of x.
        Algorithm::Spike => 5 * shape.span(),
        // c′ and d′, each interleaved (coalesced whatever the layout).
        Algorithm::Twisted => 2 * len,
        Algorithm::Cr | Algorithm::Pcr | Algorithm::PcrThomas | Algorithm::CrPcr | Algorithm::Partition => 0,
    }
}

/// The most workspace (values) a solve of `shape` by `choice` plans on any GPU: that of the
/// algorithm forced, or the largest of those the automatic choice may take, a restaged batch's
/// copy included ([`plan_auto`]). A run's memory check counts it before anything is allocated.
pub fn workspace_bound(shape: Shape, choice: Choice) -> usize {
    match choice {
        Choice::Force(alg) => workspace(shape, alg),
        Choice::Auto => {
            // A restaged batch: the copy of a, b, c, d and what runs on it, the partition method
            // (systems side by side) or LU (the others).
            let copied = if shape.layout.systems_adjacent() { Algorithm::Partition } else { Algorithm::Lu };
            let copy = 4 * shape.len() + workspace(copy_shape(shape), copied);
            [Algorithm::Thomas, Algorithm::Lu, Algorithm::Spike]
                .map(|a| workspace(shape, a))
                .into_iter()
                .fold(copy, usize::max)
        }
    }
}

/// A batched solver for one shape on one GPU: the workspace, the status word and the kernels
/// (looked up once, in [`GpuTridiag::new`]) live with it.
pub struct GpuTridiag<T: GpuReal> {
    shape: Shape,
    limits: Limits,
    /// The automatic choice for a dominant batch from the tuning cache ([`use_tuning`](Self::use_tuning)),
    /// in place of [`Limits::auto`]'s thresholds.
    tuned: Option<Algorithm>,
    status: DeviceBuffer<u64>,
    work: DeviceBuffer<T>,
    kernels: TridiagKernels<T>,
    transposer: Transposer<T>,
}

impl<T: GpuReal> GpuTridiag<T> {
    pub fn new(gpu: &Gpu, shape: Shape) -> Result<GpuTridiag<T>> {
        shape.validate()?;
        let kernels = TridiagKernels::new(gpu)?;
        Ok(GpuTridiag {
            shape,
            limits: kernels.limits(gpu),
            tuned: None,
            status: gpu.zeros(1)?,
            work: gpu.alloc(1)?,
            kernels,
            transposer: Transposer::new(gpu)?,
        })
    }
    pub fn shape(&self) -> Shape {
        self.shape
    }
    /// Take the automatic choice for dominant batches from the tuning cache's entry for this
    /// GPU ([`super::tuned`]), when it has a shape near this one and that algorithm can run it;
    /// else keep [`Limits::auto`]'s thresholds. What it chose, if anything.
    pub fn use_tuning(&mut self, gpu: &Gpu) -> Option<Algorithm> {
        let precision = crate::Precision::of::<T>();
        self.tuned = super::tuned::tuned_algorithm(gpu, precision, self.shape)
            .filter(|&a| plan(self.shape, a, &self.limits).is_ok());
        self.tuned
    }
    /// The automatic choice for a dominant batch: the tuned one, else the thresholds'.
    fn auto(&self) -> Algorithm {
        self.tuned.unwrap_or_else(|| self.limits.auto(self.shape))
    }
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// The algorithm `choice` resolves to for this shape when the batch is diagonally
    /// dominant (the automatic choice of a solve checks, see [`choose`](Self::choose)).
    pub fn algorithm(&self, choice: Choice) -> Algorithm {
        match choice {
            Choice::Auto => self.auto(),
            Choice::Force(a) => a,
        }
    }
    /// The launch `choice` resolves to (for the automatic choice, on a diagonally dominant
    /// batch), or why it cannot run.
    pub fn plan(&self, choice: Choice) -> Result<Plan> {
        self.plan_of(choice, self.algorithm(choice))
    }

    /// The launch of `alg`, which `choice` resolved to: the automatic choice's
    /// ([`plan_auto`]), or a forced algorithm's in the layout given ([`plan`]).
    pub fn plan_of(&self, choice: Choice, alg: Algorithm) -> Result<Plan> {
        match choice {
            Choice::Auto => plan_auto(self.shape, alg, &self.limits),
            Choice::Force(_) => plan(self.shape, alg, &self.limits),
        }
    }

    /// The first (system, row) of a, b, c that is not diagonally dominant, found on the device
    /// (one pass, reduced into the status word; synchronises), or None.
    pub fn first_non_dominant(
        &mut self,
        gpu: &Gpu,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
    ) -> Result<Option<(u64, u64)>> {
        self.enqueue_dominance(gpu, a, b, c)?;
        let s = gpu.download(&self.status)?;
        Ok(decode_status(self.shape.n as u32, s[0]))
    }

    /// Reset the status word and enqueue the dominance check (for timing; the result is in
    /// the status word).
    pub fn enqueue_dominance(
        &mut self,
        gpu: &Gpu,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
    ) -> Result<()> {
        let len = self.shape.len();
        self.shape.check_lengths(&[("a", a.count()), ("b", b.count()), ("c", c.count())])?;
        self.reset_status(gpu)?;
        // A grid-stride loop: enough blocks to fill the GPU, one atomic per warp at most.
        let blocks = (len.div_ceil(256) as u64).min(16 * self.limits.sm_count.max(1) as u64);
        let launch = LaunchShape::cover_1d(blocks * 256, 256)?;
        let p = Dominance { p: self.shape.dims(), a: a.ptr(), b: b.ptr(), c: c.ptr(), status: self.status.ptr_mut() };
        // SAFETY: a, b, c hold the span of `shape.dims()` (checked above; the kernel walks
        // (system, row), never the padding);
        // status is one u64; blocks of 256 threads are whole warps, every lane in the grid.
        unsafe { self.kernels.dominance.launch(launch, p) }
    }

    /// The algorithm `choice` runs on this batch: the forced one, or for the automatic choice
    /// LU when a row is not diagonally dominant (checked on the device) and the fast plan of
    /// [`Limits::auto`] when every row is.
    pub fn choose(
        &mut self,
        gpu: &Gpu,
        choice: Choice,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
    ) -> Result<Algorithm> {
        Ok(match choice {
            Choice::Force(alg) => alg,
            Choice::Auto if self.first_non_dominant(gpu, a, b, c)?.is_some() => self.limits.auto_pivoting(self.shape),
            Choice::Auto => self.auto(),
        })
    }

    /// The launch for this batch: [`choose`](Self::choose), then its plan.
    fn plan_for(
        &mut self,
        gpu: &Gpu,
        choice: Choice,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
    ) -> Result<Plan> {
        let alg = self.choose(gpu, choice, a, b, c)?;
        let p = self.plan_of(choice, alg)?;
        // The copy is for speed: where its workspace does not fit, the batch is solved where it
        // lies.
        if let PlanKernel::Restaged(_) = p.kernel {
            let more = p.workspace.saturating_sub(self.work.len()).saturating_mul(size_of::<T>());
            if gpu.check_fits("the tridiagonal solver's copy of the batch", more).is_err() {
                return plan(self.shape, alg, &self.limits);
            }
        }
        Ok(p)
    }

    fn check(
        &self,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
        d: usize,
        x: usize,
    ) -> Result<()> {
        self.shape.check_lengths(&[("a", a.count()), ("b", b.count()), ("c", c.count()), ("d", d), ("x", x)])
    }

    /// Solve into `x` (a, b, c, d unchanged); checks the status word (synchronises).
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        gpu: &Gpu,
        choice: Choice,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
        d: &DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
    ) -> Result<Algorithm> {
        self.check(a, b, c, d.len(), x.len())?;
        let plan = self.plan_for(gpu, choice, a, b, c)?;
        self.reset_status(gpu)?;
        self.launch(gpu, &plan, a, b, c, d.ptr(), x.ptr_mut())?;
        self.check_status(gpu, &plan)?;
        Ok(plan.algorithm)
    }

    /// Solve with x written over d; checks the status word (synchronises).
    pub fn solve_in_place(
        &mut self,
        gpu: &Gpu,
        choice: Choice,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
        d: &mut DeviceBuffer<T>,
    ) -> Result<Algorithm> {
        self.check(a, b, c, d.len(), d.len())?;
        let plan = self.plan_for(gpu, choice, a, b, c)?;
        self.reset_status(gpu)?;
        self.launch(gpu, &plan, a, b, c, d.ptr(), d.ptr_mut())?;
        self.check_status(gpu, &plan)?;
        Ok(plan.algorithm)
    }

    /// Enqueue a planned solve into `x` without resetting or reading the status word (for
    /// timing: call [`check_status`](Self::check_status) afterwards).
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue(
        &mut self,
        gpu: &Gpu,
        plan: &Plan,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
        d: &DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.check(a, b, c, d.len(), x.len())?;
        self.launch(gpu, plan, a, b, c, d.ptr(), x.ptr_mut())
    }

    /// Zero the status word.
    pub fn reset_status(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.stream().memset_zeros(&mut self.status).map_err(|source| Error::Driver { call: "cuMemsetD8", source })
    }

    /// Read the status word (synchronises): an error naming the first failing system and row.
    /// The multi-block SPIKE has a word per kernel: a failure in a reduced system is named at
    /// the row of the original system it stands for, and of the failures of one system the
    /// one arising first (reductions top down, the last reduced system, fills bottom up) is
    /// named, since what follows it only spreads it.
    pub fn check_status(&self, gpu: &Gpu, plan: &Plan) -> Result<()> {
        let s = gpu.download(&self.status)?;
        let found = match plan.kernel {
            PlanKernel::SpikeLevels(levels) => {
                let l = levels.count;
                let order = (0..l).map(|i| (2 * i, i)).chain([(2 * l, l)]).chain((0..l).rev().map(|i| (2 * i + 1, i)));
                let mut best: Option<(u64, u64)> = None;
                for (word, level) in order {
                    if let Some((k, i)) = decode_status(levels.n_at(level), s.get(word).copied().unwrap_or(0))
                        && best.is_none_or(|(bk, _)| k < bk)
                    {
                        best = Some((k, spike_row_at_top(&levels, level, i as u32) as u64));
                    }
                }
                best
            }
            _ => decode_status(self.shape.n as u32, s[0]),
        };
        match found {
            Some((k, i)) => Err(breakdown(plan.algorithm, "solve (GPU)", k, i)),
            None => Ok(()),
        }
    }

    /// Launch `plan` on a, b, c and the addresses of d and x (which may be equal; the caller
    /// checked every length against the shape).
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &mut self,
        gpu: &Gpu,
        plan: &Plan,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &impl DeviceMemory<T>,
        d: *const T,
        x: *mut T,
    ) -> Result<()> {
        let solved = match plan.kernel {
            PlanKernel::Restaged(_) => copy_shape(self.shape),
            _ => self.shape,
        };
        if plan.dims != plan_dims_for(solved, plan) {
            return Err(Error::invalid("tridiagonal plan was made for another shape"));
        }
        if plan.workspace > self.work.len() {
            self.work = gpu.alloc(plan.workspace)?;
        }
        if status_words(plan) > self.status.len() {
            self.status = gpu.zeros(status_words(plan))?;
        }
        let (p, a, b, c, status) = (plan.dims, a.ptr(), b.ptr(), c.ptr(), self.status.ptr_mut());
        // SAFETY: a, b, c, d, x hold the span of the layout `p` describes each (checked
        // against the shape the plan was made for); x may be d, as every kernel allows; w holds
        // the plan's workspace; status is one u64. Grid, block and shared memory come from
        // `plan`, which sized them per the kernel's contract (`gpu/src/tridiag/`).
        unsafe {
            match plan.kernel {
                PlanKernel::Work(e) => {
                    let w = self.work.ptr_mut();
                    self.kernels.work(e).launch(plan.launch, SolveWork { p, a, b, c, d, x, w, status })
                }
                PlanKernel::Plain(e) => self.kernels.plain(e).launch(plan.launch, Solve { p, a, b, c, d, x, status }),
                PlanKernel::SpikeLevels(levels) => self.launch_levels(&levels, a, b, c, d, x),
                PlanKernel::Restaged(k) => self.launch_restaged(k, plan, [a, b, c, d], x),
            }
        }
    }

    /// A batch on a copy in the other family of layouts ([`copy_shape`]): a, b, c, d transposed
    /// into the workspace's first four parts of n·batch values each — adjacent systems (n lines
    /// of batch values, `pitch` apart) into batch lines of n, systems whose unknowns are
    /// consecutive (batch lines of n, `pitch` apart) into n lines of batch — solved there with x
    /// over the copy of d (a kernel with a workspace takes the rest of the plan's), and x
    /// transposed back into its lines, the padding between them neither read nor written. The
    /// copy's solve names a failure by (system, row) as the in-layout one does.
    ///
    /// # Safety
    /// As [`launch`](Self::launch)'s: a, b, c, d, x hold the span of the shape's layout (x may
    /// be d, which is read before x is written); the workspace holds the plan's, 4·n·batch and
    /// the kernel's own.
    unsafe fn launch_restaged(&mut self, k: Copied, plan: &Plan, abcd: [*const T; 4], x: *mut T) -> Result<()> {
        let (n, batch, len) = (self.shape.n, self.shape.batch, self.shape.len());
        // The caller's lines (n of batch, or batch of n), `pitch` apart; the copy's are the others.
        let (lines, along) = if self.shape.layout.systems_adjacent() { (n, batch) } else { (batch, n) };
        let pitch = self.shape.layout.pitch().unwrap_or(along);
        let w = self.work.ptr_mut();
        let [wa, wb, wc, wd] = [0, 1, 2, 3].map(|i| w.wrapping_add(i * len));
        for (src, dst) in abcd.into_iter().zip([wa, wb, wc, wd]) {
            // SAFETY: src holds `lines` lines `pitch` apart (the caller's), dst a part of n·batch
            // values of the workspace, disjoint from the caller's arrays and from the other parts.
            unsafe { self.transposer.launch(Variant::Tile, lines, along, (src, pitch), (dst, lines))? };
        }
        let (p, status) = (plan.dims, self.status.ptr_mut());
        // SAFETY: the copies hold the layout of `p` (the copy's dims, checked in `launch`); x
        // over d, which every kernel allows; the kernel's own workspace follows the copies, as
        // much as its plan asked; grid, block and shared memory from the copy's plan.
        unsafe {
            match k {
                Copied::Plain(e) => {
                    self.kernels.plain(e).launch(plan.launch, Solve { p, a: wa, b: wb, c: wc, d: wd, x: wd, status })?
                }
                Copied::Work(e) => {
                    let solve = SolveWork { p, a: wa, b: wb, c: wc, d: wd, x: wd, w: w.wrapping_add(4 * len), status };
                    self.kernels.work(e).launch(plan.launch, solve)?
                }
            }
        };
        // SAFETY: the solved copy holds `along` lines of `lines` values; x holds `lines` lines
        // `pitch` apart, not in the workspace.
        unsafe { self.transposer.launch(Variant::Tile, along, lines, (wd, lines), (x, pitch)) }
    }

    /// The multi-block SPIKE: reduce level by level into the workspace, solve the last
    /// reduced systems with the one-block kernel in place, fill in level by level back up.
    ///
    /// # Safety
    /// As [`launch`](Self::launch)'s: a, b, c, d, x hold the span of the shape's layout
    /// (x may be d), the workspace holds the plan's, the status buffer the plan's words.
    unsafe fn launch_levels(
        &mut self,
        levels: &SpikeLevels,
        a: *const T,
        b: *const T,
        c: *const T,
        d: *const T,
        x: *mut T,
    ) -> Result<()> {
        let batch = self.shape.batch;
        let w = self.work.ptr_mut();
        let status = self.status.ptr_mut();
        // Level ℓ's system (ℓ ≤ count): the caller's arrays for ℓ = 0, else the reduced one
        // in the workspace.
        let system = |l: usize| -> [*mut T; 4] {
            if l == 0 {
                return [a.cast_mut(), b.cast_mut(), c.cast_mut(), d.cast_mut()];
            }
            let (o, m) = (levels.offset(l, batch), levels.n_at(l) as usize * batch);
            [0, 1, 2, 3].map(|i| w.wrapping_add(o + i * m))
        };
        // Level ℓ's dims (ℓ < count).
        let dims = |l: usize| Dims {
            chunk: levels.chunks[l],
            switch: levels.threads[l],
            ..level_shape(self.shape, levels, l).dims()
        };
        let next = |l: usize| w.wrapping_add(levels.offset(l + 1, batch));
        for l in 0..levels.count {
            let (p, [a, b, c, d]) = (dims(l), system(l));
            let launch = spike_level_launch(batch, levels, l, &self.limits);
            let k = SolveWork { p, a, b, c, d, x: d, w: next(l), status: status.wrapping_add(2 * l) };
            // SAFETY: level ℓ's a, b, c, d hold n_ℓ·batch values in its layout; `next(ℓ)` holds
            // 4·2·chunks_ℓ·batch values of the workspace, disjoint from them; chunks of at least
            // SPIKE_ROWS − 1 rows (n_ℓ > SPIKE_ONE_BLOCK_MAX); grid, block and shared memory
            // from `spike_level_launch`; one status word.
            unsafe { self.kernels.work(SPIKE_REDUCE).launch(launch, k)? };
        }
        let bottom =
            plan(Shape::new(levels.bottom_n() as usize, batch, Layout::Contiguous), Algorithm::Spike, &self.limits)?;
        let [ba, bb, bc, bd] = system(levels.count);
        let k = SolveWork {
            p: bottom.dims,
            a: ba,
            b: bb,
            c: bc,
            d: bd,
            x: bd,
            w: next(levels.count),
            status: status.wrapping_add(2 * levels.count),
        };
        // SAFETY: the last reduced system holds bottom_n·batch values per array (contiguous), solved
        // in place; its workspace (5·bottom_n·batch) follows it; the launch is the one-block plan.
        unsafe { self.kernels.work(SPIKE).launch(bottom.launch, k)? };
        for l in (0..levels.count).rev() {
            let (p, [a, b, c, d]) = (dims(l), system(l));
            let x = if l == 0 { x } else { d };
            let launch = spike_level_launch(batch, levels, l, &self.limits);
            let k = SolveWork { p, a, b, c, d, x, w: next(l), status: status.wrapping_add(2 * l + 1) };
            // SAFETY: as for the reduction; x is level ℓ's d (or the caller's x, which may be d);
            // `next(ℓ)`'s d holds the solved ends.
            unsafe { self.kernels.work(SPIKE_FILL).launch(launch, k)? };
        }
        Ok(())
    }
}

/// The shape of level ℓ's system: the caller's for ℓ = 0, the reduced one (contiguous) after.
fn level_shape(shape: Shape, levels: &SpikeLevels, l: usize) -> Shape {
    if l == 0 { shape } else { Shape::new(levels.n[l] as usize, shape.batch, Layout::Contiguous) }
}

/// The levels of the multi-block SPIKE for `shape` (n > `SPIKE_ONE_BLOCK_MAX`) on `lim`'s GPU:
/// [`Limits::spike_levels`]' chunks, and per level the threads per block that give the grid
/// at least two blocks per multiprocessor, between 32 and 128 (64 in f64, which keeps a
/// block's staged rows near 35 KB).
fn spike_levels(shape: Shape, lim: &Limits) -> SpikeLevels {
    let chunks = Limits::spike_levels(shape.n);
    let mut l = SpikeLevels {
        count: chunks.len(),
        n: [0; SPIKE_MAX_LEVELS],
        chunks: [0; SPIKE_MAX_LEVELS],
        threads: [0; SPIKE_MAX_LEVELS],
        bottom_chunks: 0,
    };
    let most = if lim.value_bytes > 4 { 64 } else { 128 };
    let mut m = shape.n as u32;
    for (i, &p) in chunks.iter().enumerate() {
        let per_block = (p as usize * shape.batch / (2 * lim.sm_count.max(1))).max(1);
        let threads = (1usize << per_block.ilog2()).clamp(32, most);
        (l.n[i], l.chunks[i], l.threads[i]) = (m, p, threads as u32);
        m = 2 * p;
    }
    l.bottom_chunks = Limits::spike_chunks(m as usize);
    l
}

/// The launch of level ℓ: (⌈chunks / threads⌉, batch) blocks, four staged arrays of shared memory.
fn spike_level_launch(batch: usize, levels: &SpikeLevels, l: usize, lim: &Limits) -> LaunchShape {
    let (n, p, t) = (levels.n[l], levels.chunks[l], levels.threads[l]);
    LaunchShape::fixed((p.div_ceil(t), batch as u32, 1), (t, 1, 1))
        .with_shared(4 * spike_span(n, p, t) as usize * lim.value_bytes)
}

/// Status words `plan`'s kernels report into.
fn status_words(plan: &Plan) -> usize {
    match plan.kernel {
        PlanKernel::SpikeLevels(levels) => levels.status_words(),
        _ => 1,
    }
}

/// The row of the original system that row `i` of level `level`'s system stands for:
/// reduced equation q is the first (even q) or last row of chunk q/2 of the level above.
pub fn spike_row_at_top(levels: &SpikeLevels, level: usize, i: u32) -> u32 {
    let mut i = i;
    for l in (0..level).rev() {
        let (n, p) = (levels.n[l], levels.chunks[l]);
        let j = i / 2;
        i = if i.is_multiple_of(2) { spike_start(n, p, j) } else { spike_start(n, p, j + 1) - 1 };
    }
    i
}

/// The shape part of a plan's dims, for checking that a plan matches a solver.
fn plan_dims_for(shape: Shape, plan: &Plan) -> Dims {
    Dims { chunk: plan.dims.chunk, switch: plan.dims.switch, ..shape.dims() }
}
