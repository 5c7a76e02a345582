//! GPU driver: plans a launch for (shape, algorithm), owns the workspace and the status word,
//! launches, and turns a breakdown reported by a kernel into an error naming system and row.
//! The automatic choice first checks diagonal dominance on the device (one pass over a, b,
//! c, the first non-dominant row reduced into the status word) and takes a pivoting solver
//! ([`Limits::auto_pivoting`]: LU, or SPIKE for few long systems) when a row is not dominant, the fast non-pivoting plan of [`Limits::auto`] when
//! every row is.

use super::{Algorithm, Choice, Dims, Layout, Limits, Shape, breakdown};
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{Error, GpuReal, Result};
use kernels::Entry;
use kernels::tridiag::{
    CR, CR_PCR, DOMINANCE, Dominance, LU, PARTITION, SPIKE, PCR, PCR_MAX_PER_THREAD, PCR_THOMAS, Solve, SolveWork, THOMAS,
    THOMAS_BLOCK, THOMAS_CONTIGUOUS, THOMAS_TWISTED, TWISTED_SYSTEMS, decode_status, partition_span,
};

/// The kernel a plan launches: the tridiagonal kernels take a workspace or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanKernel {
    /// With a workspace of [`Plan::workspace`] values.
    Work(Entry<SolveWork<()>>),
    /// Without one.
    Plain(Entry<Solve<()>>),
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
        let d = &self.dims;
        let b = self.launch.block.0;
        match (self.algorithm, self.kernel) {
            (Algorithm::Thomas, PlanKernel::Work(e)) if e == THOMAS_CONTIGUOUS => {
                format!("{b} threads/block, staged {}-row chunks", 1 << d.chunk)
            }
            (Algorithm::Thomas | Algorithm::Lu, _) => format!("{b} threads/block"),
            (Algorithm::Spike, _) => format!("{} chunks per system, one block each", d.chunk),
            (Algorithm::Cr, _) => format!("{b} threads"),
            (Algorithm::Pcr, _) => format!("{b} threads × {}", d.chunk),
            (Algorithm::CrPcr, _) => format!("{b} threads, PCR at ≤ {} eq.", d.switch),
            (Algorithm::PcrThomas, _) => format!("{b} threads × {}, {} subsystems", d.chunk, 1u32 << d.switch),
            (Algorithm::Twisted, _) => format!("{b} systems × 2 threads/block"),
            (Algorithm::Partition, _) => {
                format!("{} systems × {b} threads/block, {} rows/thread", d.switch, 1u32 << d.chunk)
            }
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
        let work =
            [THOMAS, THOMAS_CONTIGUOUS, THOMAS_TWISTED, LU, SPIKE].into_iter().map(|e| Ok((e, gpu.kernel::<T, _>(e)?)));
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
        let i = gpu.info();
        // Most threads a block may have (the kernel's registers decide; at least a warp).
        let max_threads = |e| self.plain(e).max_threads_per_block().max(32) as usize;
        Limits {
            max_shared_bytes: i.max_shared_per_block as usize,
            value_bytes: std::mem::size_of::<T>(),
            sm_count: i.sm_count as usize,
            pcr_threads: max_threads(PCR).min(max_threads(PCR_THOMAS)),
            cr_threads: max_threads(CR).min(max_threads(CR_PCR)),
            partition_threads: max_threads(PARTITION),
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
    let shared_system = 4 * n;
    let plan = |dims: Dims, kernel: PlanKernel, block: usize, shared: usize, workspace: usize| -> Result<Plan> {
        let launch = if matches!(alg, Algorithm::Thomas | Algorithm::Lu) {
            LaunchShape::cover_1d(shape.batch as u64, block as u32)?
        } else {
            LaunchShape::fixed((shape.batch as u32, 1, 1), (block as u32, 1, 1))
        };
        Ok(Plan { algorithm: alg, dims, launch: launch.with_shared(shared * lim.value_bytes), kernel, workspace })
    };
    match alg {
        Algorithm::Thomas => match shape.layout {
            Layout::Interleaved => plan(dims, PlanKernel::Work(THOMAS), THOMAS_BLOCK as usize, 0, shape.len()),
            Layout::Contiguous => {
                // 64-byte runs per system and chunk: two full sectors per system.
                let rows = 64 / lim.value_bytes;
                dims.chunk = rows.trailing_zeros();
                let warps = THOMAS_BLOCK as usize / 32;
                plan(
                    dims,
                    PlanKernel::Work(THOMAS_CONTIGUOUS),
                    THOMAS_BLOCK as usize,
                    warps * 4 * 32 * (rows + 1),
                    2 * shape.len(),
                )
            }
        },
        // U's two superdiagonals in the workspace, y in x.
        Algorithm::Lu => plan(dims, PlanKernel::Work(LU), THOMAS_BLOCK as usize, 0, 2 * shape.len()),
        Algorithm::Spike => {
            // One block per system, a thread per chunk; the reduced system (7 arrays of 2 per
            // chunk) in shared memory; u1, u2 and three right-hand sides per row in the workspace.
            let chunks = Limits::spike_chunks(n);
            dims.chunk = chunks;
            let launch = LaunchShape::fixed((shape.batch as u32, 1, 1), (chunks, 1, 1));
            let launch = launch.with_shared(14 * chunks as usize * lim.value_bytes);
            Ok(Plan { algorithm: alg, dims, launch, kernel: PlanKernel::Work(SPIKE), workspace: 5 * shape.len() })
        }
        Algorithm::Cr => {
            let block = round32(n.div_ceil(2)).min(lim.cr_threads / 32 * 32);
            plan(dims, PlanKernel::Plain(CR), block, shared_system, 0)
        }
        Algorithm::Pcr | Algorithm::PcrThomas => {
            let bmax = lim.pcr_threads / 32 * 32;
            let rpt = n.div_ceil(bmax).max(1);
            let block = round32(n.div_ceil(rpt));
            dims.chunk = rpt as u32;
            if alg == Algorithm::Pcr {
                plan(dims, PlanKernel::Plain(PCR), block, shared_system, 0)
            } else {
                // Subsystems of about 16 rows: P = 2^steps ≤ the block.
                let target = (n / 16).clamp(1, block);
                let steps = usize::BITS - 1 - target.leading_zeros();
                dims.switch = steps;
                plan(dims, PlanKernel::Plain(PCR_THOMAS), block, shared_system, 0)
            }
        }
        Algorithm::CrPcr => {
            let block = round32(n.div_ceil(2)).min(lim.cr_threads / 32 * 32);
            dims.chunk = 1;
            dims.switch = block.min(128) as u32;
            plan(dims, PlanKernel::Plain(CR_PCR), block, shared_system, 0)
        }
        Algorithm::Twisted => {
            let launch = LaunchShape::cover_1d(shape.batch as u64, TWISTED_SYSTEMS)?;
            let launch = LaunchShape { block: (TWISTED_SYSTEMS, 2, 1), ..launch };
            let launch = launch.with_shared(4 * TWISTED_SYSTEMS as usize * lim.value_bytes);
            let kernel = PlanKernel::Work(THOMAS_TWISTED);
            Ok(Plan { algorithm: alg, dims, launch, kernel, workspace: shape.len() })
        }
        Algorithm::Partition => {
            // `max_n` was checked above, so the launch exists.
            let (lg, g) = lim
                .partition_launch(shape)
                .ok_or_else(|| Error::invalid(format!("tridiagonal partition: no launch for n = {n}")))?;
            dims.chunk = lg;
            dims.switch = g;
            let grid = shape.batch.div_ceil(g as usize) as u32;
            let block = (n.div_ceil(1 << lg) as u32, g, 1);
            let shared = g as usize * partition_span(n as u32, lg) as usize;
            let launch = LaunchShape::fixed((grid, 1, 1), block).with_shared(shared * lim.value_bytes);
            Ok(Plan { algorithm: alg, dims, launch, kernel: PlanKernel::Plain(PARTITION), workspace: 0 })
        }
    }
}

/// A batched solver for one shape on one GPU: the workspace, the status word and the kernels
/// (looked up once, in [`GpuTridiag::new`]) live with it.
pub struct GpuTridiag<T: GpuReal> {
    shape: Shape,
    limits: Limits,
    status: DeviceBuffer<u64>,
    work: DeviceBuffer<T>,
    kernels: TridiagKernels<T>,
}

impl<T: GpuReal> GpuTridiag<T> {
    pub fn new(gpu: &Gpu, shape: Shape) -> Result<GpuTridiag<T>> {
        shape.validate()?;
        let kernels = TridiagKernels::new(gpu)?;
        Ok(GpuTridiag { shape, limits: kernels.limits(gpu), status: gpu.zeros(1)?, work: gpu.alloc(1)?, kernels })
    }
    pub fn shape(&self) -> Shape {
        self.shape
    }
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// The algorithm `choice` resolves to for this shape when the batch is diagonally
    /// dominant (the automatic choice of a solve checks, see [`choose`](Self::choose)).
    pub fn algorithm(&self, choice: Choice) -> Algorithm {
        match choice {
            Choice::Auto => self.limits.auto(self.shape),
            Choice::Force(a) => a,
        }
    }
    /// The launch `choice` resolves to, or why it cannot run.
    pub fn plan(&self, choice: Choice) -> Result<Plan> {
        plan(self.shape, self.algorithm(choice), &self.limits)
    }

    /// The first (system, row) of a, b, c that is not diagonally dominant, found on the device
    /// (one pass, reduced into the status word; synchronises), or None.
    pub fn first_non_dominant(
        &mut self,
        gpu: &Gpu,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
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
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
    ) -> Result<()> {
        let len = self.shape.len();
        self.shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len())])?;
        self.reset_status(gpu)?;
        // A grid-stride loop: enough blocks to fill the GPU, one atomic per warp at most.
        let blocks = (len.div_ceil(256) as u64).min(16 * self.limits.sm_count.max(1) as u64);
        let launch = LaunchShape::cover_1d(blocks * 256, 256)?;
        let p = Dominance { p: self.shape.dims(), a: a.ptr(), b: b.ptr(), c: c.ptr(), status: self.status.ptr_mut() };
        // SAFETY: a, b, c hold n·batch values in the layout of `shape.dims()` (checked above);
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
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
    ) -> Result<Algorithm> {
        Ok(match choice {
            Choice::Force(alg) => alg,
            Choice::Auto if self.first_non_dominant(gpu, a, b, c)?.is_some() => self.limits.auto_pivoting(self.shape),
            Choice::Auto => self.limits.auto(self.shape),
        })
    }

    /// The launch for this batch: [`choose`](Self::choose), then [`plan`].
    fn plan_for(
        &mut self,
        gpu: &Gpu,
        choice: Choice,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
    ) -> Result<Plan> {
        let alg = self.choose(gpu, choice, a, b, c)?;
        plan(self.shape, alg, &self.limits)
    }

    fn check(&self, a: &DeviceBuffer<T>, b: &DeviceBuffer<T>, c: &DeviceBuffer<T>, d: usize, x: usize) -> Result<()> {
        self.shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d), ("x", x)])
    }

    /// Solve into `x` (a, b, c, d unchanged); checks the status word (synchronises).
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        gpu: &Gpu,
        choice: Choice,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
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
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
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
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
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
    pub fn check_status(&self, gpu: &Gpu, plan: &Plan) -> Result<()> {
        let s = gpu.download(&self.status)?;
        match decode_status(self.shape.n as u32, s[0]) {
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
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        d: *const T,
        x: *mut T,
    ) -> Result<()> {
        if plan.dims != plan_dims_for(self.shape, plan) {
            return Err(Error::invalid("tridiagonal plan was made for another shape"));
        }
        if plan.workspace > self.work.len() {
            self.work = gpu.alloc(plan.workspace)?;
        }
        let (p, a, b, c, status) = (plan.dims, a.ptr(), b.ptr(), c.ptr(), self.status.ptr_mut());
        // SAFETY: a, b, c, d, x hold n·batch values each in the layout `p` describes (checked
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
            }
        }
    }
}

/// The shape part of a plan's dims, for checking that a plan matches a solver.
fn plan_dims_for(shape: Shape, plan: &Plan) -> Dims {
    Dims { chunk: plan.dims.chunk, switch: plan.dims.switch, ..shape.dims() }
}
