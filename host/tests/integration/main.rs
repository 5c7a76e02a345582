//! Whole runs, as a user makes them: the command line (`cli*.rs`: every command, flag and
//! refusal, through the built binary; `cli_plan.rs`: the plan `check` prints and `run` keeps;
//! `cli_rain_netcdf.rs`: gridded rain from NetCDF files),
//! every built-in scenario against its stored norms (`examples.rs`), restarts (`restart.rs`),
//! NetCDF files of whole runs (`netcdf_runs.rs`), pictures (`pictures.rs`), cases with rasters
//! (`raster_cases.rs`), the fd3d and tridiag scenarios (`fd3d_tridiag_cases.rs`) and a full disk
//! (`full_disk.rs`).

mod cli;
mod cli_adi;
mod cli_conservation;
mod cli_fd3d_tridiag;
mod cli_lines;
mod cli_output;
mod cli_plan;
mod cli_rain_netcdf;
mod cli_runs;
mod cli_tune;
mod cmd;
#[path = "../../../tests/common/mod.rs"]
mod common;
mod examples;
mod fd3d_tridiag_cases;
mod full_disk;
mod gis;
mod netcdf_runs;
mod pictures;
mod raster_cases;
mod restart;
mod view;
