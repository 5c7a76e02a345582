//! The one list of solvers: what the runner, the command line, the tuner, the benchmarks and
//! the products read. Adding a solver is its folder and one line in [`SOLVERS`].

use crate::case::{CaseDoc, Check};
use crate::run::Case;
use crate::solver::Solver;
use crate::tune::{self, TuneOptions, Tuning};
use crate::{Error, Gpu, Precision, Result};

/// Every solver, by the name case files give it.
pub static SOLVERS: &[&Solver] = &[
    &crate::sediment::SOLVER,
    &crate::kp::SOLVER,
    &crate::fd3d::SOLVER,
    &crate::tridiag::SOLVER,
    &crate::claw::SOLVER,
    &crate::adi::SOLVER,
];

/// The solver called `name`.
pub fn solver(name: &str) -> Result<&'static Solver> {
    SOLVERS.iter().copied().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = SOLVERS.iter().map(|s| s.name).collect();
        Error::invalid(format!("unknown solver '{name}' (solvers: {})", known.join(", ")))
    })
}

/// Read and validate a case document with its solver: the solver's own checks, then what the
/// registry knows of every solver (the precisions it runs, the products it keeps).
pub fn load(doc: &CaseDoc) -> Result<Box<dyn Case>> {
    let name = doc.solver()?;
    let s = solver(&name).map_err(|e| doc.invalid("solver", e))?;
    let case = (s.load)(doc)?;
    let info = case.info();
    check_precision(s, info.run.precision)?;
    let spec = info.output.products();
    check_lines(s, &spec, &Check::new(doc))?;
    s.products.check(s.name, &spec, info.output.checkpoint_every, &Check::new(doc))?;
    Ok(case)
}

/// Refuse a precision `solver` does not run, in one line: mixed is for the solvers that have it.
pub fn check_precision(solver: &Solver, precision: Precision) -> Result<()> {
    if precision != Precision::Mixed || solver.mixed {
        return Ok(());
    }
    let with: Vec<&str> = SOLVERS.iter().filter(|s| s.mixed).map(|s| s.name).collect();
    Err(Error::invalid(format!(
        "precision mixed is available for: {}; {} runs f32 or f64",
        with.join(", "),
        solver.name
    )))
}

/// Refuse discharge lines for a solver that does not keep them, in one line naming the key and
/// the solvers that do.
fn check_lines(solver: &Solver, spec: &crate::products::Spec, c: &Check) -> Result<()> {
    if solver.lines || spec.lines.is_empty() {
        return Ok(());
    }
    let with: Vec<&str> = SOLVERS.iter().filter(|s| s.lines).map(|s| s.name).collect();
    c.fail("output.lines", format!("{} keeps no discharge lines; they are for: {}", solver.name, with.join(", ")))
}

/// The solvers `hydrokern tune` can search, by name.
pub fn tunable() -> Vec<&'static str> {
    SOLVERS.iter().filter(|s| s.tune.is_some()).map(|s| s.name).collect()
}

/// Run every search `opts` asks for on `gpu` (every tunable solver when `opts.only` is empty),
/// progress on standard error; the cache entry to store.
pub fn tune_all(gpu: &Gpu, opts: &TuneOptions) -> Result<Tuning> {
    tune::check_options(opts)?;
    let names = tunable();
    for s in &opts.only {
        if !names.contains(&s.as_str()) {
            return Err(Error::invalid(format!("tune: unknown solver '{s}' (tunable: {})", names.join(", "))));
        }
    }
    if let Some(dir) = &opts.pictures {
        std::fs::create_dir_all(dir).map_err(|cause| Error::Io { path: dir.display().to_string(), cause })?;
    }
    let t0 = std::time::Instant::now();
    let mut records = Vec::new();
    let mut pictures = Vec::new();
    for s in SOLVERS.iter().filter(|s| opts.only.is_empty() || opts.only.iter().any(|o| o == s.name)) {
        let Some(search) = s.tune else { continue };
        for &p in &opts.precisions {
            crate::warn(format_args!("tuning {} ({p}) ...", s.name));
            let mut found = search(gpu, opts, p)?;
            records.append(&mut found.records);
            pictures.append(&mut found.pictures);
        }
    }
    let entry =
        tune::Entry { key: tune::key(gpu), tuned_at: tune::now_utc(), elapsed_s: t0.elapsed().as_secs_f64(), records };
    Ok(Tuning { entry, pictures })
}

/// Every benchmark suite: the building blocks' (copy, transpose), then each solver's, then
/// the runs decomposed over ranks (`scaling`).
#[cfg(feature = "bench")]
pub fn suites() -> Vec<crate::bench::Suite> {
    let blocks = [crate::foundation::bench::SUITE, crate::transpose::bench::SUITE];
    let solvers = SOLVERS.iter().filter_map(|s| s.bench);
    blocks.into_iter().chain(solvers).chain([crate::scaling::SUITE]).collect()
}

/// The suite called `name`.
#[cfg(feature = "bench")]
pub fn suite(name: &str) -> Result<crate::bench::Suite> {
    suites().into_iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<_> = suites().iter().map(|s| s.name).collect();
        Error::invalid(format!("unknown benchmark suite '{name}' (suites: {})", names.join(", ")))
    })
}
