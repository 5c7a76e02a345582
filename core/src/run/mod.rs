//! Running a case: the one place that resolves the backend and the precision, checks that the
//! run fits in memory and in its step limit, prepares the output directory, and — for the
//! time-dependent solvers — steps the model with progress lines, snapshots and blow-up handling
//! ([`simulate`]). A solver only says what is particular to it.

mod case;
pub mod checkpoint;
mod console;
mod dir;
pub mod interrupt;
mod live;
mod netcdf;
mod norms;
pub mod plan;
mod products;
mod ranks;
mod session;
mod simulate;
mod simulation;
mod snapshot;
mod start;
mod stepping;
mod writer;

pub use console::Console;
pub use dir::{CASE_FILE, LOCK_FILE, MANIFEST, Manifest, RunDir};
pub use netcdf::file_name as netcdf_file_name;
pub use norms::Norms;
pub use simulate::simulate;
pub use simulation::{Album, Decomposition, Simulation, Snapshot, not_decomposed, once_on_one_rank, time_tag};
pub use start::{Started, backend_note, check_report, start};
pub use stepping::{AnyCheckpoint, AnyState, Diagnostics, Session, Steppable};

pub use case::{Case, CaseInfo, Needs, Outcome, Plan, RunOptions, Volume};
