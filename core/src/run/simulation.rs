//! What a time-dependent solver tells the runner beyond what every case says ([`Simulation`]),
//! what its snapshots hold ([`Snapshot`]), the curves and frames kept from snapshot to snapshot
//! ([`Album`]), and how times are written in file names ([`time_tag`]).

use super::{Case, RunDir};
use crate::account::Account;
use crate::case::Times;
use crate::grid::{Layout2, Mesh};
use crate::model::{Halt, Model, State};
use crate::output::Animations;
use crate::products::{Sites, Spec};
use crate::ranks::{Halo, Slabs};
use crate::runtime::Backend;
use crate::{GpuReal, Real, Result};

/// Curves kept from snapshot to snapshot for plots that show them all (a centre-line profile),
/// and the frames of the run's animations, written when it ends.
#[derive(Clone, Debug, Default)]
pub struct Album {
    pub profiles: Vec<(f64, Vec<f64>)>,
    pub animations: Animations,
}

/// What a time-dependent solver tells the runner, beyond what every [`Case`] says.
/// `Sync`: the run's writer thread reads the case while the model steps.
pub trait Simulation: Case + Sync {
    /// One line on what is simulated: grid, constants, boundaries.
    fn describe(&self) -> String;
    fn times(&self) -> &Times;
    /// The cells the output fields live on, for naming cells in messages.
    fn mesh(&self) -> Mesh;
    /// Steps the run will take, estimated from the initial state, not counting the stops at
    /// snapshots and checkpoints ([`plan::simulation`](super::plan::simulation) adds them; a
    /// run estimated past its step limit is refused before it starts).
    fn estimate_steps(&self) -> f64;
    /// What [`estimate_steps`](Self::estimate_steps) rests on, for `check` ("from the initial
    /// wave speeds"); empty when it is exact.
    fn steps_basis(&self) -> &'static str {
        ""
    }
    /// The simulated time the run covers: `t_end`, or for a run of a number of steps an
    /// estimate of it (for the number of checkpoints).
    fn duration(&self) -> f64 {
        self.times().t_end
    }
    /// What a snapshot holds and writes, and a checkpoint's size (for the plan of the run).
    fn snapshot(&self) -> Snapshot;
    /// The bed elevation of each cell (m; row 0 south, as the fields), for a solver whose
    /// water lies over a bed that its state's depth `h` is measured from: the outputs add it
    /// (`bed`, and the surface h + bed at each snapshot) for GIS.
    fn bed(&self) -> Option<&[f64]> {
        None
    }
    /// Which cells are in the domain (row 0 south, as the fields), where some are not (a DEM's
    /// nodata): the GeoTIFFs write the others as nodata.
    fn active(&self) -> Option<&[bool]> {
        None
    }
    /// The model, on `backend`, in precision `T`.
    fn build<T: GpuReal>(&self, backend: &Backend) -> Result<Box<dyn Model<T> + '_>>;
    /// How its grid is cut over `ranks` ranks, for a solver that runs decomposed
    /// ([`crate::ranks`]); by default it does not, and such a run is refused in one line
    /// ([`not_decomposed`], which a solver that does not says why with).
    fn decomposition(&self, _ranks: usize) -> Result<Decomposition> {
        Err(not_decomposed(self.info().solver, "its grid is not cut over ranks"))
    }
    /// Rank `rank`'s part of the case in decomposition `d`, made on rank 0 (whose backend is
    /// `backend`) and handed to the rank (`ranks::handout`) before the ranks build their slabs:
    /// what a solver whose other ranks read none of the case's fields builds a slab from. By
    /// default nothing: every rank reads the whole case.
    fn slab_part(&self, _backend: &Backend, _d: &Decomposition, _rank: usize) -> Result<Vec<u8>> {
        Ok(Vec::new())
    }
    /// The model of one slab of a decomposed run (`halo`: its rank, rows and neighbours; `part`:
    /// what [`slab_part`](Self::slab_part) made for it), on `backend`, in precision `T`: it
    /// steps as the whole grid's model does, taking the ghost rows at its cuts from its
    /// neighbours, so that its slab of every state is bit for bit that of the whole grid's.
    fn build_slab<T: GpuReal>(
        &self,
        _backend: &Backend,
        _halo: Halo,
        _part: Vec<u8>,
    ) -> Result<Box<dyn Model<T> + '_>> {
        Err(not_decomposed(self.info().solver, "its grid is not cut over ranks"))
    }
    /// What a progress line shows of a state beyond clock and Δt: conserved totals against
    /// their initial values, ranges.
    fn progress<T: Real>(&self, state: &State<T>) -> String;
    /// Why a finite state is not physical (a negative depth), if it is not.
    fn check<T: Real>(&self, _state: &State<T>) -> Option<String> {
        None
    }
    /// The final summary's line on what the solver conserves, where it conserves something: the
    /// relative error of the balance in `state` (the run's last) and the precision and update
    /// that produced it, printed in every precision so that f32's and mixed's can be compared
    /// with f64's: f32's accuracy is reported, not hidden. None: nothing conserved.
    fn conservation<T: Real>(&self, _state: &State<T>) -> Option<String> {
        None
    }
    /// The water account of `state` where the solver keeps one (kp with forcing): the runner
    /// writes it into the NetCDF fields' file and `account.csv` at every snapshot. None: no
    /// account.
    fn account<T: Real>(&self, _state: &State<T>) -> Option<Account> {
        None
    }
    /// What to say of a model that halted (`halt`), given the state it kept: by default the
    /// reason alone; a solver may add where (the fastest cell, say).
    fn halted<T: Real>(&self, halt: &Halt, _state: &State<T>) -> String {
        halt.to_string()
    }
    /// The relative error of what the solver conserves in `state` (the number the conservation
    /// line gives) and what it is of, for the live view's plot. None: nothing conserved.
    fn balance<T: Real>(&self, _state: &State<T>) -> Option<(&'static str, f64)> {
        None
    }
    /// The live view's maps of a sampled state (its fields at the storage indices `cells`),
    /// drawn as the snapshot pictures draw them. None: the view draws each field on viridis
    /// over the range of its first frame.
    fn view_layers(&self, _sampled: &State<f64>, _cells: &[usize]) -> Option<Vec<crate::view::Layer>> {
        None
    }
    /// Pictures of a snapshot.
    fn pictures<T: Real>(&self, state: &State<T>, album: &mut Album, dir: &mut RunDir) -> Result<()>;
}

/// How a solver's grid is cut over ranks ([`Simulation::decomposition`]).
#[derive(Clone, Debug)]
pub struct Decomposition {
    pub slabs: Slabs,
    /// The whole grid's padded layout, which the solver's checkpoints hold their fields in; a
    /// 3D grid cut across z as rows of padded planes.
    pub layout: Layout2,
    /// The last axes of an output field that one of the layout's rows spans: 1 for (y, x)
    /// fields cut across y, 2 for (z, y, x) fields cut across z.
    pub row_axes: usize,
    /// The products the run keeps and the sites they sample, where it keeps any: each slab
    /// keeps its share (`products::slab_spec`), rank 0 joins them (`products::Joined`).
    pub products: Option<(Spec, Sites)>,
}

/// The one line that refuses a run of `solver` on several ranks, `why` saying what stands in
/// the way.
pub fn not_decomposed(solver: &str, why: &str) -> crate::Error {
    crate::Error::invalid(format!(
        "{solver} does not run on several ranks: {why}; run it on one (no --ranks, no mpirun)"
    ))
}

/// A case that computes once, with no steps to cut over ranks (`what`: what it computes),
/// refused where a launcher started it on several. Every rank returns the error, which rank 0
/// alone says, before anything is written.
pub fn once_on_one_rank(solver: &str, what: &str) -> Result<()> {
    match crate::ranks::world() {
        Some(comm) if comm.size() > 1 => Err(not_decomposed(solver, &format!("{what} once, with no steps to cut"))),
        _ => Ok(()),
    }
}

/// A time formatted for file names and messages: the shortest decimal that reads back as the
/// same number (`0.25`, `1`, `20000`), with an exponent past ten million and below 10⁻⁴
/// (`1e300`, not 301 digits).
pub fn time_tag(t: f64) -> String {
    crate::case::num(t)
}

/// What a simulation's snapshot holds and writes, as its solver says
/// ([`Simulation::snapshot`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Output fields (an NPY file each), and their values together: a state handed to the
    /// writer holds this many.
    pub fields: u64,
    pub values: u64,
    /// Values of the page-locked buffer a GPU run's state comes down into (two are kept): the
    /// arrays as the model holds them (padded, a low part or other fields besides), in the
    /// run's precision or wider.
    pub pinned: u64,
    /// Pictures each snapshot writes (maps and plots), the animations it adds a frame to, and
    /// the pixels of one map.
    pub pictures: u64,
    pub animations: u64,
    pub pixels: u64,
    /// Host bytes the pictures of one snapshot take while they are drawn, beyond the state.
    pub drawing: u64,
    /// Maps a snapshot draws side by side on the thread pool (kp's three; 0 where the writer
    /// draws them one after another), and what a pool thread keeps of one of them after drawing
    /// it (`output::png::map_retained`): a run on more threads peaks higher.
    pub pooled_maps: u64,
    pub map_retained: u64,
    /// Values in a checkpoint of the model (its whole state, ghost cells included).
    pub checkpoint: u64,
    /// Whether the run keeps a water account ([`Simulation::account`]): `account.csv`,
    /// rewritten at every snapshot, and a row of it in the checkpoints.
    pub account: bool,
}
