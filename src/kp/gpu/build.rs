//! A run's construction: the whole grid's or a slab's start uploaded, its kernels looked up,
//! its fields checked against the device's memory and the block against the kernels' registers.

use super::*;

/// A slab's problem runs on several ranks, and its start was cut for its launch's blocks.
pub(super) fn check_slab<T: GpuReal>(problem: &Problem, start: &Start<T>, launch: Launch) -> Result<()> {
    if let Some(why) = problem.refuses_ranks() {
        return Err(Error::invalid(why));
    }
    if (start.k.bx, start.k.by) != launch.block {
        return Err(Error::invalid("kp: a slab's start for another block than its launch's"));
    }
    Ok(())
}

impl<T: GpuReal> GpuKp<T> {
    /// Validate, check that the fields fit, upload, set the ghosts and the wet map.
    pub fn new(gpu: &Gpu, problem: &Problem, launch: Launch) -> Result<GpuKp<T>> {
        problem.validate()?;
        Self::build(gpu, problem, launch, None, None)
    }

    /// The driver of one rank's slab of a grid decomposed over ranks (docs/ranks.md): `problem`
    /// is the slab's (`Problem::slab`), `start` the slab's of the whole grid's for
    /// `launch.block` (`Problem::slab_start`), `halo` exchanges the ghost rows at its cuts (through NCCL where the
    /// ranks have the link, else through the host). Refused
    /// where the problem does not run on several ranks (`Problem::refuses_ranks`). In `clamp`
    /// the draining factors and the stage's velocities cross the cuts too (`drain_on`, `clamp`).
    pub fn slab(gpu: &Arc<Gpu>, problem: &Problem, start: Start<T>, halo: Halo, launch: Launch) -> Result<GpuKp<T>> {
        check_slab(problem, &start, launch)?;
        let ranks = Some(Box::new(GpuRanks { halo, gpu: gpu.clone() }));
        Self::build(gpu, problem, launch, None, Some((start, ranks)))
    }

    /// [`new`](Self::new) of a validated problem, with `mixed` (its f64 surfaces, set from the
    /// host) the mixed precision's kernels; with `slab` from a slab's start, exchanging its
    /// ghost rows and Δt's rate with the other ranks.
    #[allow(clippy::type_complexity)]
    pub(super) fn build(
        gpu: &Gpu,
        problem: &Problem,
        launch: Launch,
        mixed: Option<Box<MixedLevel>>,
        slab: Option<(Start<T>, Option<Box<GpuRanks>>)>,
    ) -> Result<GpuKp<T>> {
        let (bx, by) = launch.block;
        if bx == 0 || by == 0 || (bx * by) % 32 != 0 || bx * by > 1024 {
            return Err(Error::invalid(format!(
                "block {bx}×{by}: the flux and RK kernels need a multiple of 32 threads, at most 1024"
            )));
        }
        launch.flux.check(problem.ny)?;
        let split = problem.scheme == Scheme::Srk2;
        let ds = problem.scheme.is_split();
        if split || ds {
            check_line(launch.line)?;
        }
        let n = problem.padded_cells();
        let w = std::mem::size_of::<T>();
        // State, stage state, R, two beds (and g·n²); with `clamp` B_hi, the draining factors
        // and the scratch momenta; compensated, w's low parts of the state and the stage state;
        // in SRK2 R's y part; in DS1 and DS2 three working states, the transposed cell bed (and
        // B_hi) and corner bed.
        // Mixed precision's surfaces are f64 (`MixedLevel`): no low parts, whatever the problem's
        // accumulation says for f32.
        let compensated = problem.compensates::<T>() && mixed.is_none();
        let clamp = problem.wet_dry == WetDry::Clamp;
        let fields = 11
            + problem.manning_field.is_some() as usize
            + 4 * clamp as usize
            + 2 * compensated as usize
            + 3 * split as usize
            + (10 + clamp as usize) * ds as usize
            // Mixed: the f64 surfaces and R_w (`MixedLevel`), two f32 fields' worth each.
            + 6 * mixed.is_some() as usize;
        let corner_arrays = 1 + ds as usize;
        let forcing = Layout::of(problem);
        if forcing.is_some() && mixed.is_some() {
            return Err(Error::invalid(super::super::cpu::MIXED_FORCING));
        }
        if ds && !problem.forcing.boundary_is_plain() {
            return Err(Error::invalid(super::super::cpu::SPLIT_LEVELS));
        }
        // The activity map with the streamed kernel's strips after its cells (`kernels::kp::walls`).
        let active = match &slab {
            Some((start, _)) => {
                start.active.as_ref().map(|a| [a, start.plain_strips.as_deref().unwrap_or_default()].concat())
            }
            None => problem.active_map().map(|a| {
                let strips = problem.plain_strips_of(&a);
                [a, strips].concat()
            }),
        };
        if ds && active.is_some() {
            return Err(Error::invalid(super::super::cpu::SPLIT_INACTIVE));
        }
        if let Some(l) = &forcing {
            GpuForcing::<T>::check_frames(gpu, l)?;
        }
        gpu.check_fits(
            &format!("a {}×{} shallow-water grid ({fields} fields of {})", problem.nx, problem.ny, T::NAME),
            fields * n * w
                + corner_arrays * (problem.nx + 5) * (problem.ny + 5) * w
                + forcing.as_ref().map_or(0, |l| GpuForcing::<T>::bytes(l, n))
                + active.as_ref().map_or(0, Vec::len),
        )?;
        // Every kernel finds the map through `k`.
        let active = active.map(|a| gpu.upload(&a)).transpose()?;
        let (start, ranks) = match slab {
            Some((start, ranks)) => (start, ranks),
            None => (problem.start::<T>(launch.block)?, None),
        };
        let Start { mut k, padded: Padded { bed, cell_bed, q }, friction, segments, out_only, .. } = start;
        k.active = active.as_ref().map_or(0, |a| a.ptr() as usize as u64);
        let wet: Vec<u32> = super::super::cpu::wet_map(&k, &q[0], &cell_bed).into_iter().map(u32::from).collect();
        let up = |f: &Field2<T>| DeviceField2::upload(gpu, f);
        let zeros = || DeviceField2::zeros(gpu, problem.layout());
        let slots = if ds {
            GpuSplit::slots(&k, launch.line)
        } else {
            flux_slots(&k, launch.flux, split.then_some(launch.line))
        };
        let clamp = (problem.wet_dry == WetDry::Clamp)
            .then(|| ClampPasses::new(gpu, &k, &bed, problem.layout(), mixed.is_some()))
            .transpose()?;
        let ds = match ds {
            true => Some(Box::new(GpuSplit::new(
                gpu,
                problem.scheme,
                problem.cfl,
                problem.ds_safety,
                (problem.dt_floor, problem.dt_max),
                &k,
                [&bed, &cell_bed],
                clamp.as_ref().map(|c| &c.hi_host[..]),
                problem.manning_field.is_some(),
            )?)),
            false => None,
        };
        let out_only = GpuOutOnly::new(gpu, problem.wet_dry, mixed.is_some(), &out_only)?;
        let mut g = GpuKp {
            k,
            flux_variant: launch.flux,
            line: launch.line,
            slots,
            scheme: problem.scheme,
            clock_params: Clock {
                cfl: problem.cfl,
                t_stop: f64::INFINITY,
                dt_floor: problem.dt_floor,
                dt_max: problem.dt_max,
            },
            bed: up(&bed)?,
            cell_bed: up(&cell_bed)?,
            friction: friction.map(|f| up(&f)).transpose()?,
            q1: [up(&q[0])?, up(&q[1])?, up(&q[2])?],
            q: [up(&q[0])?, up(&q[1])?, up(&q[2])?],
            low: compensated.then(|| Ok::<_, Error>([zeros()?, zeros()?])).transpose()?,
            r: [zeros()?, zeros()?, zeros()?],
            ry: split.then(|| gpu.zeros(3 * n)).transpose()?,
            rate: gpu.zeros(slots)?,
            wet: [gpu.upload(&wet)?, gpu.upload(&wet)?, gpu.upload(&wet)?],
            cur: 0,
            early: false,
            fused: fuses_by_default::<T>(problem.wet_dry),
            dt: gpu.zeros(1)?,
            clock: gpu.zeros(if ds.is_some() { CLOCK_LEN_SPLIT } else { CLOCK_LEN })?,
            reducer: Reducer::new(gpu)?,
            kernels: KpKernels::new(
                gpu,
                problem.wet_dry,
                problem.manning_field.is_some(),
                compensated,
                mixed.is_some(),
                active.is_some(),
                forcing.as_ref().filter(|l| l.fused).map(|l| match l.stage_soil::<T>() {
                    Some(_) => InStage::Soil,
                    None => InStage::Rain,
                }),
            )?,
            clamp,
            split: ds,
            mixed,
            forcing: forcing.map(|l| GpuForcing::new(gpu, &l, n).map(Box::new)).transpose()?,
            out_only,
            active,
            account: GpuAccount::new(gpu, problem, &segments)?.map(Box::new),
            stream: gpu.stream().clone(),
            ranks,
            ghosts_aside: None,
        };
        g.check_block()?;
        g.set_shore(gpu, &q[0])?;
        g.resume_split(gpu, None, 0)?;
        if g.forcing.as_ref().is_some_and(|f| f.sets_ghosts()) {
            g.boundary(false)?;
        }
        Ok(g)
    }

    /// Every kernel launched on the block (the tile flux kernel, the RK stage and `clamp`'s
    /// passes) can take its threads: their registers may allow fewer than 1024.
    pub(super) fn check_block(&self) -> Result<()> {
        let (bx, by) = (self.k.bx, self.k.by);
        let ks = &self.kernels;
        let mut limits =
            vec![(ks.flux.name(), ks.flux.max_threads_per_block()), (ks.rk.name(), ks.rk.max_threads_per_block())];
        if let Some(r) = &ks.forced {
            limits.push((r.rk.name(), r.rk.max_threads_per_block()));
        }
        if let Some(s) = &self.split {
            limits.extend(s.limits());
        }
        if self.ry.is_some() {
            limits.push((ks.y_block.name(), ks.y_block.max_threads_per_block()));
        }
        if self.ry.is_some() || self.split.is_some() {
            let max = ks.x_line.max_threads_per_block();
            if self.line > max {
                return Err(Error::invalid(format!(
                    "SRK2 x-line kernel of {} cells: kernel {}'s registers allow at most {max} threads",
                    self.line,
                    ks.x_line.name()
                )));
            }
        }
        if let Some(c) = &self.clamp {
            limits.push((c.drain.name(), c.drain.max_threads_per_block()));
            limits.push((c.drain_rhs.name(), c.drain_rhs.max_threads_per_block()));
            limits.push((c.clamp.name(), c.clamp.max_threads_per_block()));
            limits.push((c.copy.name(), c.copy.max_threads_per_block()));
        }
        match limits.into_iter().find(|&(_, max)| bx * by > max) {
            Some((name, max)) => Err(Error::invalid(format!(
                "block {bx}×{by}: {} threads, but kernel {name}'s registers allow at most {max}: use a smaller block",
                bx * by
            ))),
            None => Ok(()),
        }
    }
}
