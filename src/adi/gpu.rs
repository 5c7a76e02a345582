//! The ADI model on the GPU: two kernels a step, an x-sweep over every row and a y-sweep over
//! every column, each one batch of tridiagonal systems whose rows the solving kernel builds
//! from the state (`kernels::adi::sweep`), solved by the strategy chosen ([`Strategy`]).
//!
//! Nothing synchronises per step. A breakdown (zero or non-finite pivot, non-finite result) is
//! flagged on the device, and every later kernel then does nothing; [`GpuAdi::check`], called
//! at report intervals, reads the flag and goes back to the state at the start of the failing
//! step, which stays whole because ζ, q and the wet map each rotate through three buffers
//! (p through two): a step never writes the buffers its own start state is in.
//!
//! The y-sweep reaches its columns in one of two designs ([`YSweep`]): straight from the
//! normal layout (a column's unknowns nx apart), or from transposed copies of the state, so
//! that it reads and writes rows: a tiled transpose after the x-sweep makes them, and one after
//! the y-sweep writes its outputs back in the normal layout (docs/adi.md, "The transposed
//! y-sweep").

use super::cpu::Adi;
use super::gpu_forcing::GpuAdiForcing;
use super::{Boundary, Side};
use crate::runtime::{DeviceBuffer, DevicePointers, Kernel, LaunchShape};
use crate::{Error, Gpu, GpuReal, Result};
use hydrokern_core::tridiag::gpu::{plan, threads};
use hydrokern_core::tridiag::{Algorithm, Layout, Limits, Shape};
use kernels::adi::sweep::{End, FLUX, LAND, LEVEL, Sweep};
use kernels::adi::{
    AdiSweep, AdiTranspose, Params, TRANSPOSE, X_CR_PCR, X_PARTITION, X_PCR, X_THOMAS, X_TWISTED, Y_CR_PCR,
    Y_PARTITION, Y_PCR, Y_THOMAS, Y_TWISTED, YT_CR_PCR, YT_PARTITION, YT_PCR, YT_THOMAS, YT_TWISTED,
};
use kernels::launch::Entry;
use kernels::tridiag::{Dims, THOMAS_BLOCK, TWISTED_SYSTEMS, decode_status};
use std::sync::Arc;

/// How each sweep solves its lines: the MIKE 21 thesis's S1 (one thread per line) or one of its
/// S2 choices (one block per line, the line in shared memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// S1: Thomas, one thread per line, c′ and d′ through a workspace in global memory.
    Thomas,
    /// S2: the partition method (chunks of rows per thread, PCR on their ends).
    Partition,
    /// S2: parallel cyclic reduction.
    Pcr,
    /// S2: cyclic reduction down to a small system, PCR on it.
    CrPcr,
    /// S1 with two threads per line: Thomas from both ends, meeting in the middle.
    Twisted,
    /// Per sweep, the fastest that fits (see [`Strategy::resolve`]).
    Auto,
}

impl Strategy {
    /// Every strategy but `Auto`.
    pub const ALL: [Strategy; 5] =
        [Strategy::Thomas, Strategy::Partition, Strategy::Pcr, Strategy::CrPcr, Strategy::Twisted];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Thomas => "thomas",
            Strategy::Partition => "partition",
            Strategy::Pcr => "pcr",
            Strategy::CrPcr => "cr-pcr",
            Strategy::Twisted => "twisted",
            Strategy::Auto => "auto",
        }
    }

    fn algorithm(self) -> Algorithm {
        match self {
            Strategy::Thomas | Strategy::Auto => Algorithm::Thomas,
            Strategy::Partition => Algorithm::Partition,
            Strategy::Pcr => Algorithm::Pcr,
            Strategy::CrPcr => Algorithm::CrPcr,
            Strategy::Twisted => Algorithm::Twisted,
        }
    }

    /// The strategy of one sweep. `Auto`: the fastest that fits, as measured by `bench adi` on
    /// an H100 (docs/adi.md): partition in both sweeps (at 2048² in f32 its x-sweep takes 0.27
    /// ms against CR-PCR's 0.54, its y-sweep 0.52 against 1.01; at 4096² 1.4 against 1.8 and
    /// 3.0 against 3.6; f64 alike), whose limit on a line is also the larger; where no line fits
    /// a block, twisted Thomas (S1 with two threads a line, a line's two ends meeting in shared
    /// memory: 32.0 ms a step at 8192² f64 against Thomas's 53.2). One exception is known and
    /// left: the 8192² f32 y-sweep over columns (not the default design), where partition's
    /// chunks of 32 rows at one block a multiprocessor take 17.2 ms against twisted Thomas's
    /// 15.3.
    pub fn resolve(self, n: usize, lim: &Limits) -> Strategy {
        if self != Strategy::Auto {
            return self;
        }
        if n <= lim.max_n(Algorithm::Partition) { Strategy::Partition } else { Strategy::Twisted }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Strategy> {
        Strategy::ALL.into_iter().chain([Strategy::Auto]).find(|v| v.name() == s).ok_or_else(|| {
            Error::invalid(format!(
                "adi: unknown strategy '{s}' (expected thomas, twisted, partition, pcr, cr-pcr or auto)"
            ))
        })
    }
}

/// How the y-sweep reaches its columns (`[gpu] y_sweep`, `--y-sweep`). Measured on the H100
/// with partition in both (`bench adi`, docs/adi.md): transposed is faster from 2048² up —
/// a step at 4096² in f64 3.9 ms against 6.4, at 8192² in f32 10.8 against 20.7; the same
/// at 2048² in f32 (0.67) — and slower at 1024² (0.19 against 0.18 ms in f32), so it is the
/// default; columns needs about a third less device memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum YSweep {
    /// Straight from the normal layout: a column's unknowns lie nx apart, and the S2 kernels'
    /// loads (one block a column) are strided.
    Columns,
    /// From transposed copies of ζ^{n+½}, the wet map, d, p and q, which the sweeps write
    /// beside their outputs, so that the y-sweep's lines are contiguous.
    #[default]
    Transposed,
}

impl YSweep {
    pub const ALL: [YSweep; 2] = [YSweep::Columns, YSweep::Transposed];

    pub fn name(self) -> &'static str {
        match self {
            YSweep::Columns => "columns",
            YSweep::Transposed => "transposed",
        }
    }
}

impl std::fmt::Display for YSweep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for YSweep {
    type Err = Error;
    fn from_str(s: &str) -> Result<YSweep> {
        YSweep::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| Error::invalid(format!("adi: unknown y-sweep '{s}' (expected columns or transposed)")))
    }
}

/// One sweep's launch.
#[derive(Debug)]
struct SweepPlan<T: GpuReal> {
    strategy: Strategy,
    dims: Dims,
    launch: LaunchShape,
    kernel: Arc<Kernel<AdiSweep<T>>>,
}

/// Which buffer of each rotation holds the state at the start of step `s`: ζ and the wet map
/// move on two buffers a step (the x-sweep writes the next, the y-sweep the one after), p one
/// (of two), q one backwards (the y-sweep writes the third, and the old level is the
/// previous step's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rotation {
    zeta: usize,
    p: usize,
    q: usize,
    q_old: usize,
}

impl Rotation {
    fn at(step: u64) -> Rotation {
        let zeta = (2 * step % 3) as usize;
        Rotation { zeta, p: (step % 2) as usize, q: zeta, q_old: (zeta + 1) % 3 }
    }
}

/// Device bytes of a run on nx × ny cells of `value_bytes` a value: d, three ζ, two p, three q
/// and three wet maps (a byte a cell), the S1 workspace (2·(2n+1) values a line of the larger
/// sweep, the most any strategy takes) and the status words; with the transposed y-sweep also
/// dᵀ, ζᵀ and wetᵀ, two pᵀ and two qᵀ (the y-sweep's ζ and wet outputs take the buffers the
/// x-sweep wrote ζ^{n+½} in, which the transpose has read).
pub fn device_bytes(nx: usize, ny: usize, value_bytes: usize, y: YSweep) -> u64 {
    let v = value_bytes as u64;
    let (nx, ny) = (nx as u64, ny as u64);
    let cells = nx * ny;
    let state = v * (4 * cells + 2 * (nx + 1) * ny + 3 * nx * (ny + 1)) + 3 * cells;
    let work = v * 2 * ((2 * nx + 1) * ny).max((2 * ny + 1) * nx);
    let copies = match y {
        YSweep::Columns => 0,
        YSweep::Transposed => v * (2 * cells + 2 * (nx + 1) * ny + 2 * nx * (ny + 1)) + cells,
    };
    state + work + copies + 24
}

/// The transposed design's copies (layouts in `kernels::adi::sweep::SweepLines`): dᵀ;
/// ζ^{n+½}ᵀ and its wet map; p and q transposed, each in two buffers that alternate by step
/// (the start state's in `step % 2`, the one the step writes in the other); and the kernel
/// that transposes between the sweeps with its launches after the x- and the y-sweep.
struct Transposed<T: GpuReal> {
    d: DeviceBuffer<T>,
    zeta: DeviceBuffer<T>,
    wet: DeviceBuffer<u8>,
    p: [DeviceBuffer<T>; 2],
    q: [DeviceBuffer<T>; 2],
    kernel: Arc<Kernel<AdiTranspose<T>>>,
    after: [LaunchShape; 2],
}

/// `v` (rows of `cols` values, the normal layout) transposed: element (r, c) to c·rows + r.
fn transpose<T: GpuReal>(v: &[T], cols: usize) -> Result<Vec<T>> {
    let mut out = vec![T::ZERO; v.len()];
    crate::transpose::cpu::transpose(v.len() / cols, cols, v, &mut out)?;
    Ok(out)
}

/// The launch of `AdiTranspose` over a `rows × cols` state: the tiled transpose's over its flux,
/// `rows × (cols + 1)`.
fn transpose_shape<T>(rows: usize, cols: usize) -> Result<LaunchShape> {
    hydrokern_core::transpose::gpu::shape::<T>(rows, cols + 1, hydrokern_core::transpose::Variant::Tile)
}

/// The ADI model's state and kernels on one GPU.
pub struct GpuAdi<T: GpuReal> {
    nx: usize,
    ny: usize,
    params: Params<T>,
    sides: [Boundary; 4],
    d: DeviceBuffer<T>,
    zeta: [DeviceBuffer<T>; 3],
    p: [DeviceBuffer<T>; 2],
    q: [DeviceBuffer<T>; 3],
    wet: [DeviceBuffer<u8>; 3],
    /// The S1 workspace (2·n·lines of the larger Thomas or twisted sweep; one value if none).
    work: DeviceBuffer<T>,
    /// The transposed y-sweep's copies; `None` for the columns design.
    t: Option<Transposed<T>>,
    /// x-sweep code, y-sweep code, first failing step (see `kernels::adi` entries).
    status: DeviceBuffer<u64>,
    x: SweepPlan<T>,
    y: SweepPlan<T>,
    steps: u64,
    /// The step a breakdown was found at, once it was.
    failed: Option<u64>,
    /// Rain and soils, after each step's y-sweep.
    forcing: Option<GpuAdiForcing<T>>,
}

impl<T: GpuReal> GpuAdi<T> {
    /// The model `cpu` (its state and clock) on `gpu`, solving by `strategy`, the y-sweep in
    /// the default design.
    pub fn new(gpu: &Gpu, cpu: &Adi<T>, strategy: Strategy) -> Result<GpuAdi<T>> {
        GpuAdi::with_y_sweep(gpu, cpu, strategy, YSweep::default())
    }

    /// The model `cpu` on `gpu`, solving by `strategy`, the y-sweep in design `y_sweep`.
    pub fn with_y_sweep(gpu: &Gpu, cpu: &Adi<T>, strategy: Strategy, y_sweep: YSweep) -> Result<GpuAdi<T>> {
        let (nx, ny) = (cpu.nx, cpu.ny);
        if 2 * nx.max(ny) + 1 > u32::MAX as usize || nx * ny > u32::MAX as usize / 4 {
            return Err(Error::invalid(format!("adi: grid of {nx} × {ny} cells is too large for the GPU kernels")));
        }
        let forcing = cpu.forcing.as_ref().map_or(0, |f| GpuAdiForcing::<T>::bytes(f, nx * ny));
        gpu.check_fits("adi state", device_bytes(nx, ny, std::mem::size_of::<T>(), y_sweep) as usize + forcing)?;
        let kernels = |e: [Entry<AdiSweep<()>>; 5]| -> Result<[Arc<Kernel<AdiSweep<T>>>; 5]> {
            let k = |e| -> Result<Arc<Kernel<AdiSweep<T>>>> { Ok(Arc::new(gpu.kernel::<T, _>(e)?)) };
            Ok([k(e[0])?, k(e[1])?, k(e[2])?, k(e[3])?, k(e[4])?])
        };
        let trans = y_sweep == YSweep::Transposed;
        let x_entries = [X_THOMAS, X_PARTITION, X_PCR, X_CR_PCR, X_TWISTED];
        let y_entries = if trans {
            [YT_THOMAS, YT_PARTITION, YT_PCR, YT_CR_PCR, YT_TWISTED]
        } else {
            [Y_THOMAS, Y_PARTITION, Y_PCR, Y_CR_PCR, Y_TWISTED]
        };
        let y_layout = if trans { Layout::Contiguous } else { Layout::Interleaved };
        let x = sweep_plan(
            gpu,
            strategy,
            Side::West,
            Shape::new(2 * nx + 1, ny, Layout::Contiguous),
            &kernels(x_entries)?,
        )?;
        let y = sweep_plan(gpu, strategy, Side::South, Shape::new(2 * ny + 1, nx, y_layout), &kernels(y_entries)?)?;
        let work = [&x, &y]
            .iter()
            .filter(|s| matches!(s.strategy, Strategy::Thomas | Strategy::Twisted))
            .map(|s| 2 * s.dims.n as usize * s.dims.batch as usize)
            .max()
            .unwrap_or(1);
        let wet: Vec<u8> = cpu.wet.iter().map(|&w| w as u8).collect();
        let rot = Rotation::at(cpu.steps);
        let three = |v: &[T], at: usize| -> Result<[DeviceBuffer<T>; 3]> {
            let mut b = [gpu.alloc::<T>(v.len())?, gpu.alloc::<T>(v.len())?, gpu.alloc::<T>(v.len())?];
            gpu.write(v, &mut b[at])?;
            Ok(b)
        };
        let mut zeta = three(&cpu.zeta, rot.zeta)?;
        let mut q = three(&cpu.q, rot.q)?;
        gpu.write(&cpu.q_old, &mut q[rot.q_old])?;
        let mut p = [gpu.alloc::<T>(cpu.p.len())?, gpu.alloc::<T>(cpu.p.len())?];
        gpu.write(&cpu.p, &mut p[rot.p])?;
        let mut wets = [gpu.alloc::<u8>(wet.len())?, gpu.alloc::<u8>(wet.len())?, gpu.alloc::<u8>(wet.len())?];
        gpu.write(&wet, &mut wets[rot.zeta])?;
        // The buffers a step writes before reading are poisoned, so that a kernel reading one
        // it should not shows as NaN in the tests.
        let nan = |len| vec![T::from_f64(f64::NAN); len];
        for i in [(rot.zeta + 1) % 3, (rot.zeta + 2) % 3] {
            gpu.write(&nan(nx * ny), &mut zeta[i])?;
        }
        gpu.write(&nan(cpu.p.len()), &mut p[1 - rot.p])?;
        gpu.write(&nan(cpu.q.len()), &mut q[(rot.q + 2) % 3])?;
        let t = if trans {
            // The start state's copies in buffer `steps % 2`, the other poisoned.
            let at = (cpu.steps % 2) as usize;
            let two = |v: Vec<T>| -> Result<[DeviceBuffer<T>; 2]> {
                let mut b = [gpu.alloc::<T>(v.len())?, gpu.alloc::<T>(v.len())?];
                gpu.write(&v, &mut b[at])?;
                gpu.write(&nan(v.len()), &mut b[1 - at])?;
                Ok(b)
            };
            let mut zeta = gpu.alloc::<T>(nx * ny)?;
            gpu.write(&nan(nx * ny), &mut zeta)?;
            Some(Transposed {
                d: gpu.upload(&transpose(&cpu.d, nx)?)?,
                zeta,
                wet: gpu.alloc::<u8>(nx * ny)?,
                p: two(transpose(&cpu.p, nx + 1)?)?,
                q: two(transpose(&cpu.q, nx)?)?,
                kernel: Arc::new(gpu.kernel::<T, _>(TRANSPOSE)?),
                after: [transpose_shape::<T>(ny, nx)?, transpose_shape::<T>(nx, ny)?],
            })
        } else {
            None
        };
        let mut status = gpu.zeros::<u64>(3)?;
        gpu.write(&[0, 0, u64::MAX], &mut status)?;
        Ok(GpuAdi {
            nx,
            ny,
            params: cpu.params,
            sides: cpu.sides.clone(),
            d: gpu.upload(&cpu.d)?,
            zeta,
            p,
            q,
            wet: wets,
            work: gpu.alloc::<T>(work)?,
            t,
            status,
            x,
            y,
            steps: cpu.steps,
            failed: None,
            forcing: cpu.forcing.clone().map(|f| GpuAdiForcing::new(gpu, f, &cpu.infiltrated)).transpose()?,
        })
    }

    /// The strategies the two sweeps run, and their launches, in one line.
    pub fn describe(&self) -> String {
        let one = |s: &SweepPlan<T>| {
            let b = s.launch.block;
            format!("{} ({} × {} × {} threads/block)", s.strategy, b.0, b.1, b.2)
        };
        format!("x-sweep {}, y-sweep {} over {}", one(&self.x), one(&self.y), self.y_sweep())
    }

    /// The y-sweep's design.
    pub fn y_sweep(&self) -> YSweep {
        if self.t.is_some() { YSweep::Transposed } else { YSweep::Columns }
    }

    /// The strategies of the x- and y-sweep.
    pub fn strategies(&self) -> (Strategy, Strategy) {
        (self.x.strategy, self.y.strategy)
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Enqueue `steps` steps (nothing waits for them; a breakdown shows at [`check`](Self::check)).
    pub fn advance(&mut self, steps: u64) -> Result<()> {
        if self.failed.is_some() {
            return Ok(());
        }
        for _ in 0..steps {
            self.step()?;
        }
        Ok(())
    }

    fn step(&mut self) -> Result<()> {
        self.enqueue_sweep(false)?;
        self.enqueue_sweep(true)?;
        if let Some(f) = &mut self.forcing {
            let dt = self.params.dt.to_f64();
            let t = self.steps as f64 * dt;
            let z = (Rotation::at(self.steps).zeta + 2) % 3;
            let cells = self.nx * self.ny;
            let (d, zeta, wet) = (self.d.ptr(), self.zeta[z].ptr_mut(), self.wet[z].ptr_mut());
            f.apply(self.params, cells, (t, t + dt), d, zeta, wet, self.status.ptr())?;
        }
        self.steps += 1;
        Ok(())
    }

    /// The x-sweep (`y` false) or the y-sweep of the current step, each with the transposed
    /// design's transpose after it; alone (benchmarks), it reads and writes the same buffers
    /// each time (the clock does not move).
    pub fn enqueue_sweep(&mut self, y: bool) -> Result<()> {
        let (px, py, t) = self.step_params()?;
        // SAFETY: every array holds the grid's values in the layouts `kernels::adi::sweep`
        // states (allocated in `new` from the CPU model's arrays); each sweep's outputs are
        // buffers of the rotations other than its inputs; the workspace holds 2·n·lines for a
        // Thomas sweep; the status holds three words; the launches are the solvers' own plans;
        // a transpose reads what the sweep before it wrote and writes what the next one reads
        // (`AdiTranspose`'s arrays and launch).
        unsafe {
            if y {
                self.y.kernel.launch(self.y.launch, py)?;
            } else {
                self.x.kernel.launch(self.x.launch, px)?;
            }
            if let (Some(c), Some((after_x, after_y))) = (&self.t, t) {
                c.kernel.launch(c.after[y as usize], if y { after_y } else { after_x })?;
            }
        }
        Ok(())
    }

    /// The parameters of the current step's x- and y-sweep and, in the transposed design, of
    /// the transposes after each. There the x-sweep writes as over columns; the transpose
    /// after it writes ζ^{n+½}ᵀ, its wet map and p^{n+1}ᵀ; the y-sweep reads those, dᵀ, pⁿᵀ
    /// and q^{n+½}ᵀ and writes ζ^{n+1}ᵀ and its wet map into the buffers ζ^{n+½} was in and
    /// q^{n+3/2}ᵀ; the transpose after it writes ζ^{n+1}, its wet map and q^{n+3/2}.
    #[allow(clippy::type_complexity)]
    fn step_params(&mut self) -> Result<(AdiSweep<T>, AdiSweep<T>, Option<(AdiTranspose<T>, AdiTranspose<T>)>)> {
        let s = self.steps;
        if s > u32::MAX as u64 {
            return Err(Error::invalid("adi: more than 2^32 steps on the GPU"));
        }
        let r = Rotation::at(s);
        let dt = self.params.dt.to_f64();
        let t = s as f64 * dt;
        let (z0, z1, z2) = (r.zeta, (r.zeta + 1) % 3, (r.zeta + 2) % 3);
        let (p0, p1) = (r.p, 1 - r.p);
        let q_new = (r.q + 2) % 3;
        let d = self.d.ptr();
        let x_in = [d, self.zeta[z0].ptr(), self.p[p0].ptr(), self.q[r.q].ptr(), self.q[r.q_old].ptr()];
        let x_out = (self.zeta[z1].ptr_mut(), self.p[p1].ptr_mut(), self.wet[z1].ptr_mut());
        let status = self.status.ptr();
        let (y_in, y_wet, y_out, transposes) = match &mut self.t {
            None => {
                let y_in = [d, self.zeta[z1].ptr(), self.q[r.q].ptr(), self.p[p1].ptr(), self.p[p0].ptr()];
                let y_out = (self.zeta[z2].ptr_mut(), self.q[q_new].ptr_mut(), self.wet[z2].ptr_mut());
                (y_in, self.wet[z1].ptr(), y_out, None)
            }
            Some(c) => {
                // The copies alternate by step: the start state's pᵀ and qᵀ in `s % 2`.
                let (c0, c1) = ((s % 2) as usize, 1 - (s % 2) as usize);
                let (nx, ny) = (self.nx as u32, self.ny as u32);
                let after_x = AdiTranspose {
                    rows: ny,
                    cols: nx,
                    zeta: self.zeta[z1].ptr(),
                    wet: self.wet[z1].ptr(),
                    flux: self.p[p1].ptr(),
                    zeta_t: c.zeta.ptr_mut(),
                    wet_t: c.wet.ptr_mut(),
                    flux_t: c.p[c1].ptr_mut(),
                    status,
                };
                let after_y = AdiTranspose {
                    rows: nx,
                    cols: ny,
                    zeta: self.zeta[z1].ptr(),
                    wet: self.wet[z1].ptr(),
                    flux: c.q[c1].ptr(),
                    zeta_t: self.zeta[z2].ptr_mut(),
                    wet_t: self.wet[z2].ptr_mut(),
                    flux_t: self.q[q_new].ptr_mut(),
                    status,
                };
                let y_in = [c.d.ptr(), c.zeta.ptr(), c.q[c0].ptr(), c.p[c1].ptr(), c.p[c0].ptr()];
                let y_out = (self.zeta[z1].ptr_mut(), c.q[c1].ptr_mut(), self.wet[z1].ptr_mut());
                (y_in, c.wet.ptr(), y_out, Some((after_x, after_y)))
            }
        };
        let x = self.sweep_params(Side::West, (t, t + 0.5 * dt), s, x_in, self.wet[z0].ptr(), x_out);
        let y = self.sweep_params(Side::South, (t + 0.5 * dt, t + dt), s, y_in, y_wet, y_out);
        Ok((x, y, transposes))
    }

    /// The parameters of one sweep: `times` its half step's start and end, `inputs` (d, ζ,
    /// along flux, across flux centred, its other level), `outputs` (ζ, along flux, wet map).
    fn sweep_params(
        &mut self,
        dir: Side,
        times: (f64, f64),
        step: u64,
        inputs: [*const T; 5],
        wet: *const u8,
        outputs: (*mut T, *mut T, *mut u8),
    ) -> AdiSweep<T> {
        let (plan, lo, hi) = match dir {
            Side::West => (&self.x, Side::West, Side::East),
            _ => (&self.y, Side::South, Side::North),
        };
        let end = |side: Side| {
            let t = T::from_f64;
            match &self.sides[side as usize] {
                Boundary::Land => End { kind: LAND, value: T::ZERO, start: T::ZERO },
                Boundary::Flux(f) => End { kind: FLUX, value: t(*f), start: T::ZERO },
                Boundary::Level(l) => End { kind: LEVEL, value: t(l.at(times.1)), start: t(l.at(times.0)) },
            }
        };
        let s = Sweep {
            k: self.params,
            lo: end(lo),
            hi: end(hi),
            nx: self.nx as u32,
            ny: self.ny as u32,
            step: step as u32,
        };
        let [d, zeta, flux, cross, cross_other] = inputs;
        AdiSweep {
            p: plan.dims,
            s,
            d,
            zeta,
            flux,
            cross,
            cross_other,
            wet,
            zeta_out: outputs.0,
            flux_out: outputs.1,
            wet_out: outputs.2,
            w: self.work.ptr_mut(),
            status: self.status.ptr_mut(),
        }
    }

    /// Wait for the steps enqueued and read the breakdown flag: on a breakdown, go back to the
    /// state at the start of the failing step and say where it failed (once; the model stays
    /// there).
    pub fn check(&mut self, gpu: &Gpu) -> Result<()> {
        let s = gpu.download(&self.status)?;
        if s[0] == 0 && s[1] == 0 {
            return Ok(());
        }
        let step = s[2].min(self.steps);
        self.failed = Some(step);
        self.steps = step;
        let (sweep, n, code, lines) =
            if s[0] != 0 { ("x", self.x.dims.n, s[0], "row") } else { ("y", self.y.dims.n, s[1], "column") };
        let (line, row) = decode_status(n, code).unwrap_or((0, 0));
        let what =
            if row % 2 == 1 { format!("ζ of cell {}", row / 2) } else { format!("the flux at face {}", row / 2) };
        let t = step as f64 * self.params.dt.to_f64();
        Err(Error::invalid(format!(
            "adi: step {} (t = {t} s), {sweep}-sweep ({}): breakdown on {lines} {line} at {what} along it \
             (zero or non-finite pivot, coefficient or result); the state kept is the one before that step",
            step + 1,
            if sweep == "x" { self.x.strategy } else { self.y.strategy },
        )))
    }

    /// What the products kernel reads of the current step's state: ζ, d, p and q (the layouts
    /// of `adi::model::product_fields`).
    pub fn product_inputs(&self) -> [*const T; 4] {
        let r = Rotation::at(self.steps);
        [self.zeta[r.zeta].ptr(), self.d.ptr(), self.p[r.p].ptr(), self.q[r.q].ptr()]
    }

    /// The buffers of ζ, p and q at the current step, and the soil's totals (with a soil).
    pub fn state_buffers(&self) -> ([&DeviceBuffer<T>; 3], Option<&DeviceBuffer<T>>) {
        let r = Rotation::at(self.steps);
        let soil = self.forcing.as_ref().and_then(|f| f.infiltrated_buffer());
        ([&self.zeta[r.zeta], &self.p[r.p], &self.q[r.q]], soil)
    }

    /// The state at the current step into `into` (synchronises), clock included.
    pub fn download(&self, gpu: &Gpu, into: &mut Adi<T>) -> Result<()> {
        let r = Rotation::at(self.steps);
        let g = gpu;
        into.zeta = g.download(&self.zeta[r.zeta])?;
        into.p = g.download(&self.p[r.p])?;
        into.q = g.download(&self.q[r.q])?;
        into.q_old = g.download(&self.q[r.q_old])?;
        into.wet = g.download(&self.wet[r.zeta])?.into_iter().map(|w| w != 0).collect();
        if let Some(f) = &self.forcing {
            into.infiltrated = f.infiltrated(g)?;
        }
        into.steps = self.steps;
        into.time = self.steps as f64 * self.params.dt.to_f64();
        Ok(())
    }
}

/// The launch of one sweep (`dir`: West for the x-sweep, South for the y-sweep) over `shape`
/// with `strategy`; `kernels` in the order of [`Strategy::ALL`].
fn sweep_plan<T: GpuReal>(
    gpu: &Gpu,
    strategy: Strategy,
    dir: Side,
    shape: Shape,
    kernels: &[Arc<Kernel<AdiSweep<T>>>; 5],
) -> Result<SweepPlan<T>> {
    let most = |s: Strategy| threads(&kernels[s as usize]);
    let lim = Limits::of::<T>(gpu, most(Strategy::Pcr), most(Strategy::CrPcr), most(Strategy::Partition));
    let strategy = strategy.resolve(shape.n, &lim);
    let kernel = kernels[strategy as usize].clone();
    let sweep = if dir == Side::West { "x" } else { "y" };
    if strategy == Strategy::Thomas {
        let launch = LaunchShape::cover_1d(shape.batch as u64, THOMAS_BLOCK)?;
        return Ok(SweepPlan { strategy, dims: shape.dims(), launch, kernel });
    }
    if strategy == Strategy::Twisted {
        // Lines across x, the two ends across y; each side's (c′, d′) through shared memory.
        let launch = LaunchShape::cover_1d(shape.batch as u64, TWISTED_SYSTEMS)?;
        let launch = LaunchShape { block: (TWISTED_SYSTEMS, 2, 1), ..launch }
            .with_shared(4 * TWISTED_SYSTEMS as usize * lim.value_bytes);
        return Ok(SweepPlan { strategy, dims: shape.dims(), launch, kernel });
    }
    let p = plan(shape, strategy.algorithm(), &lim)
        .map_err(|e| Error::invalid(format!("adi: {sweep}-sweep with strategy {strategy}: {e}")))?;
    Ok(SweepPlan { strategy, dims: p.dims, launch: p.launch, kernel })
}
