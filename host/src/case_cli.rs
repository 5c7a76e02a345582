//! Scenarios and case files on the command line. A scenario's flags are built at run time from
//! its solver's list (`hydrokern::case::Flag`), each an override of a case key, so every
//! solver's options appear here without code of their own.

use crate::output::out;
use anyhow::{Result, bail};
use clap::{Arg, ArgAction, ArgMatches};
use hydrokern::case::{COMMON_FLAGS, CaseDoc, Flag, Origin, Writer};
use hydrokern::run::{Console, RunOptions};
use hydrokern::solver::Solver;
use hydrokern::view::ViewOptions;
use hydrokern::{registry, scenarios};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `--backend` / `--precision` given before the command.
pub struct Globals {
    pub backend: Option<&'static str>,
    pub precision: Option<&'static str>,
    /// `--tuning retune`: search the case's solver on the GPU before the run.
    pub retune: bool,
}

/// The scenario list for `hydrokern scenarios` and `--help`.
pub fn scenarios_help() -> String {
    let mut s = String::from(
        "Scenarios (`hydrokern <scenario> [flags]`; its flags: `hydrokern <scenario> --help`; \
         as a case file to edit: `hydrokern <scenario> --write-case FILE`):\n",
    );
    for sc in scenarios::all() {
        let solver = sc.doc().and_then(|d| d.solver()).unwrap_or_default();
        s += &format!("  {:<14} [{solver}] {}\n", sc.name, sc.description());
    }
    s += "Case files: `hydrokern run CASE.toml [flags]`, `hydrokern check CASE.toml`.";
    s
}

/// The live view's port when `--view` names none.
const DEFAULT_VIEW_PORT: &str = "8080";

const COMMANDS: &str = "info, scenarios, run, check, plot, tune, bench";

/// `hydrokern <scenario> [flags]`.
pub fn run_scenario(args: &[OsString], globals: &Globals) -> Result<()> {
    let name = args.first().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let Some(sc) = scenarios::find(&name) else {
        bail!(
            "unknown scenario or command '{name}' (scenarios: {}; commands: {COMMANDS}; see --help)",
            scenarios::names()
        );
    };
    let doc = sc.doc()?;
    drive(&name, doc, &args[1..], globals, false)
}

/// `hydrokern run CASE.toml [flags]` and `hydrokern check CASE.toml [flags]`.
pub fn run_file(args: &[OsString], globals: &Globals, check_only: bool) -> Result<()> {
    let path = PathBuf::from(&args[0]);
    if matches!(args[0].to_str(), Some("--help" | "-h")) {
        out("usage: hydrokern run|check CASE.toml [flags of its solver]; `hydrokern run CASE.toml --help` lists them")?;
        return Ok(());
    }
    let doc = CaseDoc::read(&path)?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    drive(&name, doc, &args[1..], globals, check_only)
}

fn drive(name: &str, mut doc: CaseDoc, args: &[OsString], globals: &Globals, check_only: bool) -> Result<()> {
    let solver = registry::solver(&doc.solver()?).map_err(|e| doc.invalid("solver", e))?;
    let about = doc.top_str("description").unwrap_or_else(|| solver.about.to_string());
    let cmd = command(name, &about, solver, &doc);
    let m = match cmd.try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            // --help and clap's own errors print as clap formats them.
            match crate::output::clap_message(&e) {
                0 => return Ok(()),
                code => std::process::exit(code.into()),
            }
        }
    };
    // A restart continues the checkpoint's case: the flags of the run that wrote it are taken
    // from it, and this command's flags are the changes (a later end, say).
    if let Some(ckpt) = m.get_one::<PathBuf>("restart")
        && !check_only
        && m.get_one::<PathBuf>("write-case").is_none()
    {
        hydrokern::run::checkpoint::continue_case(&mut doc, ckpt)?;
    }
    apply(&mut doc, solver, &m, globals)?;
    if let Some(path) = m.get_one::<PathBuf>("write-case") {
        write_case(&mut doc, path, m.get_flag("force"))?;
        return out(format!("wrote {} (run it with `hydrokern run {}`)", path.display(), path.display()));
    }
    if let Some(&n) = m.get_one::<u32>("ranks")
        && !check_only
    {
        crate::ranks::check_or_launch(n as usize)?;
    }
    let case = registry::load(&doc)?;
    let restart = m.get_one::<PathBuf>("restart").cloned();
    if check_only && restart.is_some() {
        bail!("--restart: `check` runs nothing to continue; give --restart to `run` or to a scenario");
    }
    if check_only {
        // The check a run starts with: what passes here runs, what is refused here is refused.
        for line in hydrokern::run::check_report(case.as_ref())? {
            out(line)?;
        }
        return Ok(());
    }
    let info = case.info();
    // `--tuning` after the scenario or case counts as before the command.
    let retune = match m.get_one::<String>("tuning").map(String::as_str) {
        Some(mode) => {
            use hydrokern::tune::Mode;
            hydrokern::tune::set_mode(match mode {
                "off" => Mode::Off,
                "retune" => Mode::Retune,
                _ => Mode::Auto,
            });
            mode == "retune"
        }
        None => globals.retune,
    };
    if retune
        && hydrokern::registry::tunable().contains(&info.solver)
        && info.run.backend.choice() != hydrokern::BackendChoice::Cpu
    {
        crate::tune_cli::retune(info.solver, info.run.precision)?;
    }
    let port = m.get_one::<u16>("view").copied().or(info.output.view);
    if m.get_flag("paused") && port.is_none() {
        bail!("--paused: the run waits for a viewer to resume it; give --view [PORT] (or output.view) too");
    }
    let view = port.map(|port| ViewOptions { port, paused: m.get_flag("paused") });
    let opts = RunOptions { force: m.get_flag("force"), console: Console::new(), restart, catch_signals: true, view };
    case.run(&opts)?;
    Ok(())
}

/// The command of one scenario or case: its solver's flags with the case's current values in
/// their help, and the flags every run takes.
fn command(name: &str, about: &str, solver: &Solver, doc: &CaseDoc) -> clap::Command {
    let mut cmd =
        clap::Command::new(name.to_string()).about(about.to_string()).no_binary_name(true).next_line_help(false);
    for f in solver.flags.iter().chain(COMMON_FLAGS) {
        let current = f.key().and_then(|k| doc.get(k)).map(|v| format!(" [case: {v}]")).unwrap_or_default();
        let mut arg = Arg::new(f.name).long(f.name).help(format!("{}{current}", f.help));
        arg = if f.is_switch() {
            arg.action(ArgAction::SetTrue)
        } else {
            arg.value_name(f.value).allow_negative_numbers(true).action(ArgAction::Set)
        };
        cmd = cmd.arg(arg);
    }
    cmd.arg(
        Arg::new("set")
            .long("set")
            .value_name("KEY=VALUE")
            .action(ArgAction::Append)
            .help("set any case key, e.g. --set initial.column.outside=0 (VALUE in TOML: a number, true, \"text\", [1, 2]; a bare word is text)"),
    )
    .arg(
        Arg::new("write-case")
            .long("write-case")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help("write this case, with the flags applied, as a new TOML file to start from, and stop (an existing FILE only with --force); its output.dir is out/<FILE's stem> unless --output is given"),
    )
    .arg(
        Arg::new("restart")
            .long("restart")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help("continue from a checkpoint (checkpoint.hkc) a run of this same case wrote with --checkpoint-every; the flags that run was given are taken from the checkpoint, and a later --t-end (with --snapshots) extends it; refused for another case, precision, backend, version or changed input files"),
    )
    .arg(
        Arg::new("ranks")
            .long("ranks")
            .value_name("N")
            .value_parser(clap::value_parser!(u32).range(1..))
            .help("run on N ranks, the grid cut into N slabs along y (along z in 3D): sediment, kp and claw, each a process started by MPI's mpiexec: a build with the `mpi` feature only; under mpirun -n N, N is the launcher's and --ranks may be left out"),
    )
    .arg(
        Arg::new("tuning")
            .long("tuning")
            .value_name("auto|off|retune")
            .value_parser(["auto", "off", "retune"])
            .help("launch parameters on the GPU, as `hydrokern --tuning` before the command sets them"),
    )
    .arg(
        Arg::new("view")
            .long("view")
            .value_name("PORT")
            .num_args(0..=1)
            .default_missing_value(DEFAULT_VIEW_PORT)
            .value_parser(clap::value_parser!(u16))
            .help(format!("watch the run live in a browser at http://127.0.0.1:PORT/ (default {DEFAULT_VIEW_PORT}; 0: a free port, printed) with pause, resume and stop; never changes the results (output.view)")),
    )
    .arg(
        Arg::new("paused")
            .long("paused")
            .action(ArgAction::SetTrue)
            .help("with --view: start paused, until a viewer resumes the run"),
    )
    .arg(
        Arg::new("force")
            .long("force")
            .action(ArgAction::SetTrue)
            .help("run in an output directory that holds files hydrokern did not write (they are kept); with --write-case, replace an existing FILE"),
    )
}

/// Apply the flags given: the solver's, then `--set`, then the common ones (`--backend` and
/// `--precision` given before the command count when not given after it). The case reader
/// validates every value, naming the flag.
fn apply(doc: &mut CaseDoc, solver: &Solver, m: &ArgMatches, globals: &Globals) -> Result<()> {
    let given = |f: &Flag| -> Option<String> {
        if f.is_switch() { m.get_flag(f.name).then(String::new) } else { m.get_one::<String>(f.name).cloned() }
    };
    let keep: Vec<&str> = solver.flags.iter().filter(|f| given(f).is_some()).filter_map(|f| f.key()).collect();
    for f in solver.flags {
        if let Some(v) = given(f) {
            f.apply(doc, &v, &keep)?;
        }
    }
    for kv in m.get_many::<String>("set").into_iter().flatten() {
        let (key, raw) = kv.split_once('=').ok_or_else(|| anyhow::anyhow!("--set {kv}: expected KEY=VALUE"))?;
        let (key, raw) = (key.trim(), raw.trim());
        if key.is_empty() || key.split('.').any(|p| p.is_empty()) {
            bail!("--set {kv}: the key must be a dotted path such as initial.column.outside");
        }
        // A TOML value, or a bare word taken as text (--set boundary.west=outflow).
        let value: toml_edit::Value = raw.parse().unwrap_or_else(|_| raw.into());
        doc.set(key, value, &format!("--set {kv}"))?;
    }
    for f in COMMON_FLAGS {
        let global = match f.name {
            "backend" => globals.backend,
            "precision" => globals.precision,
            _ => None,
        };
        if let Some(v) = given(f).or(global.map(str::to_string)) {
            f.apply(doc, &v, &[])?;
        }
    }
    Ok(())
}

/// `--write-case FILE`: the case and its data written as `hydrokern::case::write_case` writes
/// them; notes on where its runs write and which data files it wrote. A case file is loaded by
/// its solver first, as a run loads it, which records the files it reads (so that a case
/// written elsewhere names them from there). One that does not load here is written all the
/// same, with a note (it may be meant for a larger machine), its paths to files it had not read
/// when it failed as they are.
fn write_case(doc: &mut CaseDoc, path: &Path, force: bool) -> Result<()> {
    if let (Origin::File(from), Err(e)) = (doc.origin().clone(), registry::load(doc)) {
        hydrokern::warn(format_args!("note: {} does not load here ({e}); it is written all the same", from.display()));
    }
    let header =
        |name: &str| format!("# Written by `hydrokern {name} --write-case`; run it with `hydrokern run FILE`.");
    let by = Writer { who: "--write-case", force: "--force", header: &header };
    let written = hydrokern::case::write_case(doc, path, force, &[], &by)?;
    if let Some(dir) = written.output_dir {
        hydrokern::warn(format_args!("note: runs of {} write to {dir} (its output.dir)", path.display()));
    }
    if !written.data.is_empty() {
        let names: Vec<String> = written.data.iter().map(|at| at.display().to_string()).collect();
        hydrokern::warn(format_args!("note: wrote the scenario's data files beside it: {}", names.join(", ")));
    }
    Ok(())
}
