//! The systems of equations a case can name (`[equations] name`): every Riemann solver of the
//! registry (`gpu/src/claw/systems.rs`, one line per system), by `equations!` below.
//! Everything else a case needs of a solver — its name, fields, auxiliary fields, constants and
//! their defaults, what makes initial data inadmissible — the solver's file
//! (`gpu/src/claw/riemann/`) declares.

use super::clock::Clock;
use super::cpu::{Claw2, Setup};
use super::d3::cpu::{Claw3, Setup3};
use super::model::{ClawModel2, ClawModel3, ClawRun};
use super::part::SlabPart;
use super::shapes::Reshape;
use super::stepper::GpuRun;
use crate::case::initial::Values;
use crate::model::Model;
use crate::products::Spec;
use crate::ranks::Halo;
use crate::runtime::{Backend, Gpu};
use crate::tune::Found;
use crate::{GpuReal, Result};
use kernels::claw::riemann::*;
use kernels::claw::{Kernels, Kernels3, Riemann};
use std::ops::Range;

/// What a solver declares.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub name: &'static str,
    /// The state fields, then the auxiliary fields, as `[initial]` names them.
    pub fields: Vec<&'static str>,
    /// How many of `fields` are state fields (the rest are auxiliary).
    pub state: usize,
    pub constants: &'static [(&'static str, f64)],
    /// 2 or 3: the dimensions the solver's kernels sweep.
    pub dims: usize,
}

impl Info {
    fn of<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(dims: usize) -> Info {
        let mut fields: Vec<&'static str> = R::FIELDS.to_vec();
        fields.extend(R::AUX);
        Info { name: R::NAME, fields, state: M, constants: R::CONSTANTS, dims }
    }
}

/// Work on a running GPU simulation of a system of equations, whatever the system's kernels:
/// [`Equations::on_gpu_run`] builds the run and hands it over (the tuner's search of the sweeps'
/// shapes, `tune.rs`, is such work).
pub trait OnGpuRun<T: GpuReal> {
    fn run<K: Reshape<T>>(self, gpu: &Gpu, run: &mut GpuRun<T, K>) -> Result<Found>;
}

/// A case's data, solver-independent: the set-up (in 2D `nz` is 1 and the bottom and top sides
/// are not used: [`Setup3::plane`]), the constants' values (in the solver's order, defaults
/// filled in), and every field's interior values (state fields, then auxiliary fields; x
/// fastest, then y, then z), worked out where a run's start reads them.
#[derive(Clone, Debug)]
pub struct Data {
    pub setup: Setup3,
    pub constants: Vec<f64>,
    pub fields: Vec<Values>,
}

impl Data {
    /// Interior cell `c`'s state (the first M fields) in precision T.
    fn state<T: GpuReal, const M: usize>(&self, c: usize) -> [T; M] {
        std::array::from_fn(|m| T::from_f64(self.fields[m].at(c)))
    }
    /// Interior cell `c`'s auxiliary values (the fields after the first M) in precision T.
    fn aux<T: GpuReal, const M: usize, const A: usize>(&self, c: usize) -> [T; A] {
        std::array::from_fn(|a| T::from_f64(self.fields[M + a].at(c)))
    }
}

/// A system of equations' runs in two dimensions.
mod plane {
    use super::*;

    pub const DIMS: usize = 2;

    /// The CPU reference of `data` in precision T at t = 0 (which checks the data admissible),
    /// and its solver.
    fn reference<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
        data: &Data,
    ) -> Result<(R, Claw2<T, R, M, W, A>)> {
        let solver = R::with_constants(&data.constants);
        let run = Claw2::of_cells(solver, data.setup.plane(), |c| data.state(c), |c| data.aux::<T, M, A>(c))?;
        Ok((solver, run))
    }

    pub fn model<'a, T: GpuReal, R: Kernels<T, M, W, A> + 'a, const M: usize, const W: usize, const A: usize>(
        data: &Data,
        backend: &Backend,
        products: &Spec,
        cells: &[u32],
        clock: Option<Clock>,
    ) -> Result<Box<dyn ClawRun<T> + 'a>> {
        let (solver, mut run) = reference::<T, R, M, W, A>(data)?;
        if let Some(c) = clock {
            run.set_clock(c);
        }
        Ok(Box::new(ClawModel2::new(backend, solver, run)?.with_products(products, cells.to_vec())?))
    }

    /// The model of the slab of `halo` of a run of `data` decomposed over ranks, keeping the
    /// slab's share of the gauges (at its `cells`) and maps of `products`.
    pub fn slab<'a, T: GpuReal, R: Kernels<T, M, W, A> + 'a, const M: usize, const W: usize, const A: usize>(
        (setup, constants, part): (&Setup3, &[f64], &SlabPart),
        backend: &Backend,
        products: &Spec,
        cells: &[u32],
        halo: Halo,
    ) -> Result<Box<dyn ClawRun<T> + 'a>> {
        let solver = R::with_constants(constants);
        let run = Claw2::slab_of_part(solver, setup.plane(), part, halo)?;
        Ok(Box::new(ClawModel2::slab(backend, solver, run)?.with_products(products, cells.to_vec())?))
    }

    /// The first Δt of `data` (infinite for a state without waves), checking it admissible.
    pub fn first_dt<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
        data: &Data,
    ) -> Result<f64> {
        let solver = R::with_constants(&data.constants);
        Claw2::first_dt_of_cells(&solver, data.setup.plane(), |c| data.state(c), |c| data.aux::<T, M, A>(c))
    }

    /// A running simulation of `data` on `gpu`, handed to `work` (the tuner's search).
    pub fn on_gpu_run<
        T: GpuReal,
        R: Kernels<T, M, W, A>,
        F: OnGpuRun<T>,
        const M: usize,
        const W: usize,
        const A: usize,
    >(
        gpu: &Gpu,
        data: &Data,
        work: F,
    ) -> Result<Found> {
        let (solver, cpu) = reference::<T, R, M, W, A>(data)?;
        let mut run = super::super::gpu::GpuClaw2::new(gpu, solver, &cpu)?;
        drop(cpu);
        work.run(gpu, &mut run)
    }

    /// Device memory of a run on the GPU, bytes.
    pub fn device_bytes<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
        setup: &Setup3,
    ) -> u64 {
        let s: Setup = setup.plane();
        super::super::gpu::GpuClaw2::<T, R, M, W, A>::device_bytes(s.nx, s.ny)
    }
}

/// A system of equations' runs in three dimensions.
mod volume {
    use super::*;

    pub const DIMS: usize = 3;

    fn reference<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
        data: &Data,
    ) -> Result<(R, Claw3<T, R, M, W, A>)> {
        let solver = R::with_constants(&data.constants);
        let run = Claw3::of_cells(solver, data.setup, |c| data.state(c), |c| data.aux::<T, M, A>(c))?;
        Ok((solver, run))
    }

    pub fn model<'a, T: GpuReal, R: Kernels3<T, M, W, A> + 'a, const M: usize, const W: usize, const A: usize>(
        data: &Data,
        backend: &Backend,
        products: &Spec,
        cells: &[u32],
        clock: Option<Clock>,
    ) -> Result<Box<dyn ClawRun<T> + 'a>> {
        let (solver, mut run) = reference::<T, R, M, W, A>(data)?;
        if let Some(c) = clock {
            run.set_clock(c);
        }
        Ok(Box::new(ClawModel3::new(backend, solver, run)?.with_products(products, cells.to_vec())?))
    }

    /// The model of the slab of `halo` (planes along z) of a run of `data` decomposed over ranks.
    pub fn slab<'a, T: GpuReal, R: Kernels3<T, M, W, A> + 'a, const M: usize, const W: usize, const A: usize>(
        (setup, constants, part): (&Setup3, &[f64], &SlabPart),
        backend: &Backend,
        products: &Spec,
        cells: &[u32],
        halo: Halo,
    ) -> Result<Box<dyn ClawRun<T> + 'a>> {
        let solver = R::with_constants(constants);
        let run = Claw3::slab_of_part(solver, *setup, part, halo)?;
        Ok(Box::new(ClawModel3::slab(backend, solver, run)?.with_products(products, cells.to_vec())?))
    }

    pub fn first_dt<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
        data: &Data,
    ) -> Result<f64> {
        let solver = R::with_constants(&data.constants);
        Claw3::first_dt_of_cells(&solver, data.setup, |c| data.state(c), |c| data.aux::<T, M, A>(c))
    }

    pub fn on_gpu_run<
        T: GpuReal,
        R: Kernels3<T, M, W, A>,
        F: OnGpuRun<T>,
        const M: usize,
        const W: usize,
        const A: usize,
    >(
        gpu: &Gpu,
        data: &Data,
        work: F,
    ) -> Result<Found> {
        let (solver, cpu) = reference::<T, R, M, W, A>(data)?;
        let mut run = super::super::d3::gpu::GpuClaw3::new(gpu, solver, &cpu)?;
        drop(cpu);
        work.run(gpu, &mut run)
    }

    pub fn device_bytes<T: GpuReal, R: Kernels3<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
        setup: &Setup3,
    ) -> u64 {
        super::super::d3::gpu::GpuClaw3::<T, R, M, W, A>::device_bytes(setup)
    }
}

/// Declares [`Equations`] from the registry of systems (`kernels::claw_systems!`, in
/// `gpu/src/claw/systems.rs`): a variant per system, named as its type, whose runs are 2D
/// (`plane`) or 3D (`volume`).
macro_rules! equations {
    (
        plane { $($pfile:ident => $pname:ident $(<$pt:ident>)?, $pm:literal, $pw:literal, $pa:literal;)* }
        volume { $($vfile:ident => $vname:ident $(<$vt:ident>)?, $vm:literal, $vw:literal, $va:literal;)* }
    ) => {
        equations!(@enum
            $($pname => $pname $(<$pt>)?, $pm, $pw, $pa in plane;)*
            $($vname => $vname $(<$vt>)?, $vm, $vw, $va in volume;)*
        );
    };
    (@enum $($variant:ident => $ty:ty, $m:literal, $w:literal, $a:literal in $dims:ident;)*) => {
        /// A system of equations with its Riemann solver.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Equations { $($variant),* }

        impl Equations {
            pub const ALL: &'static [Equations] = &[$(Equations::$variant),*];

            fn info_in<T: GpuReal>(self) -> Info {
                match self { $(Equations::$variant => Info::of::<T, $ty, $m, $w, $a>($dims::DIMS)),* }
            }

            /// The model of `data` on `backend` in precision T, keeping the gauges (at `cells`)
            /// and maps of `products`.
            pub fn model<'a, T: GpuReal>(
                self,
                data: &Data,
                backend: &Backend,
                products: &Spec,
                cells: &[u32],
            ) -> Result<Box<dyn Model<T> + 'a>> {
                let run: Box<dyn ClawRun<T> + 'a> = match self {
                    $(Equations::$variant => $dims::model::<T, $ty, $m, $w, $a>(data, backend, products, cells, None)?),*
                };
                Ok(run)
            }

            /// The model of the slab of `halo` of a run decomposed over ranks, on `backend` in
            /// precision T, from the run's set-up and constants and the rank's part of its cells
            /// ([`slab_part`](Self::slab_part)), keeping the slab's share of `products` (at
            /// `cells`).
            pub fn slab_model<'a, T: GpuReal>(
                self,
                start: (&Setup3, &[f64], &SlabPart),
                backend: &Backend,
                products: &Spec,
                cells: &[u32],
                halo: Halo,
            ) -> Result<Box<dyn Model<T> + 'a>> {
                let run: Box<dyn ClawRun<T> + 'a> = match self {
                    $(Equations::$variant => $dims::slab::<T, $ty, $m, $w, $a>(start, backend, products, cells, halo)?),*
                };
                Ok(run)
            }

            /// The part of `data` the slab of `rows` (planes in 3D) of a run decomposed over
            /// ranks starts from, with the whole grid's first Δt `first_dt` in the run's
            /// precision ([`first_dt`](Self::first_dt)).
            pub fn slab_part(self, data: &Data, rows: Range<usize>, first_dt: f64) -> Result<SlabPart> {
                let shape = match self.info().dims {
                    2 => data.setup.plane().shape(),
                    _ => data.setup.shape(),
                };
                SlabPart::of(&shape, rows, first_dt, data.fields.len(), |f, c| data.fields[f].at(c))
            }

            /// A run of `data` on `backend` in precision T from `clock` (its time and the Δt its
            /// next step tries: PyClaw's `dt`), for a program that steps arrays it holds.
            pub fn run<'a, T: GpuReal>(self, data: &Data, backend: &Backend, clock: Clock) -> Result<Box<dyn ClawRun<T> + 'a>> {
                match self { $(Equations::$variant => $dims::model::<T, $ty, $m, $w, $a>(data, backend, &Spec::default(), &[], Some(clock))),* }
            }

            /// The GPU memory a run of `setup` takes in precision T, bytes.
            pub fn device_bytes<T: GpuReal>(self, setup: &Setup3) -> u64 {
                match self { $(Equations::$variant => $dims::device_bytes::<T, $ty, $m, $w, $a>(setup)),* }
            }

            /// A running simulation of `data` on `gpu` in precision T, handed to `work` (the
            /// tuner's search of the sweeps' shapes).
            pub fn on_gpu_run<T: GpuReal, F: OnGpuRun<T>>(self, gpu: &Gpu, data: &Data, work: F) -> Result<Found> {
                match self { $(Equations::$variant => $dims::on_gpu_run::<T, $ty, F, $m, $w, $a>(gpu, data, work)),* }
            }

            /// The first Δt of `data` as a run in precision T works it out; an error naming the
            /// first inadmissible cell.
            pub fn first_dt<T: GpuReal>(self, data: &Data) -> Result<f64> {
                match self { $(Equations::$variant => $dims::first_dt::<T, $ty, $m, $w, $a>(data)),* }
            }
        }
    };
}

kernels::claw_systems!(equations);

impl Equations {
    /// What the solver declares.
    pub fn info(self) -> Info {
        self.info_in::<f64>()
    }

    /// The names, comma-separated, for messages.
    pub fn names() -> String {
        Self::ALL.iter().map(|e| e.info().name).collect::<Vec<_>>().join(", ")
    }
}

impl std::str::FromStr for Equations {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Equations> {
        Self::ALL
            .iter()
            .copied()
            .find(|e| e.info().name == s)
            .ok_or_else(|| crate::Error::invalid(format!("unknown equations '{s}' (known: {})", Self::names())))
    }
}
