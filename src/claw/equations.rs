//! The systems of equations a case can name (`[equations] name`): each Riemann solver with
//! core kernels, registered by one line of [`equations!`] below. Everything else a case needs
//! of a solver — its name, fields, auxiliary fields, constants and their defaults, what makes
//! initial data inadmissible — the solver's file (`gpu/src/claw/riemann/`) declares.

use super::cpu::{Claw2, Setup};
use super::model::ClawModel;
use super::{Acoustics2d, Advection, ShallowHlle, ShallowRoe};
use crate::model::Model;
use crate::runtime::Backend;
use crate::{GpuReal, Result};
use kernels::claw::{Kernels, Riemann};

/// What a solver declares.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub name: &'static str,
    /// The state fields, then the auxiliary fields, as `[initial]` names them.
    pub fields: Vec<&'static str>,
    /// How many of `fields` are state fields (the rest are auxiliary).
    pub state: usize,
    pub constants: &'static [(&'static str, f64)],
}

impl Info {
    fn of<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>() -> Info {
        let mut fields: Vec<&'static str> = R::FIELDS.to_vec();
        fields.extend(R::AUX);
        Info { name: R::NAME, fields, state: M, constants: R::CONSTANTS }
    }
}

/// A case's data, solver-independent: the set-up, the constants' values (in the solver's
/// order, defaults filled in), and every field's interior values (state fields, then
/// auxiliary fields; row-major).
#[derive(Clone, Debug)]
pub struct Data {
    pub setup: Setup,
    pub constants: Vec<f64>,
    pub fields: Vec<Vec<f64>>,
}

/// The CPU reference of `data` in precision T at t = 0 (which checks the data admissible),
/// and its solver.
fn reference<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    data: &Data,
) -> Result<(R, Claw2<T, R, M, W, A>)> {
    let solver = R::with_constants(&data.constants);
    let cells = data.setup.nx * data.setup.ny;
    let q: Vec<[T; M]> = (0..cells).map(|c| std::array::from_fn(|m| T::from_f64(data.fields[m][c]))).collect();
    let aux: Vec<[T; A]> = (0..cells).map(|c| std::array::from_fn(|a| T::from_f64(data.fields[M + a][c]))).collect();
    let run = Claw2::new(solver, data.setup, &q, &aux)?;
    Ok((solver, run))
}

fn model<'a, T: GpuReal, R: Kernels<T, M, W, A> + 'a, const M: usize, const W: usize, const A: usize>(
    data: &Data,
    backend: &Backend,
) -> Result<Box<dyn Model<T> + 'a>> {
    let (solver, run) = reference::<T, R, M, W, A>(data)?;
    Ok(Box::new(ClawModel::new(backend, solver, run)?))
}

/// The first Δt of `data` (infinite for a state without waves), checking it admissible.
fn first_dt<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    data: &Data,
) -> Result<f64> {
    Ok(reference::<T, R, M, W, A>(data)?.1.next_dt())
}

/// Device memory of a run on the GPU, bytes.
fn device_bytes<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    setup: &Setup,
) -> u64 {
    super::gpu::GpuClaw2::<T, R, M, W, A>::device_bytes(setup.nx, setup.ny)
}

/// Declares [`Equations`] from one line per solver: `Variant => type (T the precision), M, W, A;`.
macro_rules! equations {
    ($($variant:ident => $ty:ty, $m:literal, $w:literal, $a:literal;)*) => {
        /// A system of equations with its Riemann solver.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Equations { $($variant),* }

        impl Equations {
            pub const ALL: &'static [Equations] = &[$(Equations::$variant),*];

            fn info_in<T: GpuReal>(self) -> Info {
                match self { $(Equations::$variant => Info::of::<T, $ty, $m, $w, $a>()),* }
            }

            /// The model of `data` on `backend` in precision T.
            pub fn model<'a, T: GpuReal>(self, data: &Data, backend: &Backend) -> Result<Box<dyn Model<T> + 'a>> {
                match self { $(Equations::$variant => model::<T, $ty, $m, $w, $a>(data, backend)),* }
            }

            /// The GPU memory a run of `setup` takes in precision T, bytes.
            pub fn device_bytes<T: GpuReal>(self, setup: &Setup) -> u64 {
                match self { $(Equations::$variant => device_bytes::<T, $ty, $m, $w, $a>(setup)),* }
            }

            /// The first Δt of `data`; an error naming the first inadmissible cell.
            pub fn first_dt(self, data: &Data) -> Result<f64> {
                self.first_dt_in::<f64>(data)
            }

            fn first_dt_in<T: GpuReal>(self, data: &Data) -> Result<f64> {
                match self { $(Equations::$variant => first_dt::<T, $ty, $m, $w, $a>(data)),* }
            }
        }
    };
}

equations! {
    Advection => Advection<T>, 1, 1, 0;
    Acoustics2d => Acoustics2d, 3, 2, 2;
    ShallowRoe => ShallowRoe<T>, 3, 3, 0;
    ShallowHlle => ShallowHlle<T>, 3, 2, 0;
}

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
