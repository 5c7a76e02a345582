//! `--ranks N`: a run on N ranks. Under a launcher (mpirun -n N) the ranks exist and N must be
//! their number; otherwise, in a build with the `mpi` feature, this command starts itself again
//! under `mpiexec -n N`.

use anyhow::{Result, bail};
use std::process::Command;

/// What Debian and Ubuntu need for the `mpi` feature.
pub const INSTALL: &str = "apt-get install libopenmpi-dev openmpi-bin libclang-dev";

/// Check `--ranks n` against the ranks this process runs among, or start the run on n ranks
/// (then exit with its status).
pub fn check_or_launch(n: usize) -> Result<()> {
    let world = hydrokern::ranks::world().map_or(1, |c| c.size());
    if world > 1 {
        if n != world {
            bail!("--ranks {n}: this run was started on {world} ranks; leave --ranks out or give {world}");
        }
        return Ok(());
    }
    if n == 1 {
        return Ok(());
    }
    if !cfg!(feature = "mpi") {
        bail!(
            "--ranks {n}: this hydrokern was built without MPI; build it with `cargo build --release -p host --features mpi` (on Debian or Ubuntu first `{INSTALL}`)"
        );
    }
    // The same command without --ranks, on n processes.
    let exe = std::env::current_exe()?;
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    let mut skip = false;
    for a in std::env::args_os().skip(1) {
        if skip {
            skip = false;
            continue;
        }
        match a.to_str() {
            Some("--ranks") => skip = true,
            Some(s) if s.starts_with("--ranks=") => {}
            _ => args.push(a),
        }
    }
    let status = match Command::new("mpiexec").arg("-n").arg(n.to_string()).arg(&exe).args(&args).status() {
        Ok(s) => s,
        Err(e) => bail!("--ranks {n}: could not start mpiexec ({e}); is MPI installed (`{INSTALL}`)?"),
    };
    std::process::exit(status.code().unwrap_or(1))
}
