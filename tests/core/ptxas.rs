//! The embedded PTX modules: each defines exactly the entry points the kernel crate declares
//! (`kernels::ENTRY_POINTS`), calls no unresolved function, and has no `trap` (a panic path the
//! compiler kept) or local memory (`.local`: a register array or struct spilled to the stack)
//! in an entry point or what it calls, except where the allow-lists below say why. Then each
//! module assembles with `ptxas -v`, which reports registers, spills and stack per kernel.
//!
//! The assembly needs `ptxas`: built with `$PTXAS` set or `ptxas` on `PATH` (CI installs it
//! from the nvidia-cuda-nvcc-cu12 wheel), or with `HYDROKERN_REQUIRE_PTXAS=1`, it runs (and a
//! missing ptxas fails it); otherwise it is ignored, with that reason (`build.rs`).
//!
//! The runtime loads each entry point as a module of its own (`ptx::Items::module_of`): each
//! such module holds its entry point as the whole module does and everything that calls or
//! names, which the functions below check independently of the splitting, and the ones that
//! take more than their entry point assemble with ptxas to the same registers and spills.

use hydrokern::ptx::{MODULES, entry_points, expected_entry_points};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

/// Kernels (stems: both precisions) whose PTX may contain `trap`, and why. Each is a division
/// or remainder by a launch parameter, which traps on a zero divisor; the launch contract rules
/// zero out, so the trap never runs, but the compiler cannot know.
const TRAP_ALLOWED: &[(&str, &str)] = &[
    ("fd3d_x_vec", "x index of each vector: remainders by p.m (the contract has p.m ≥ 9)"),
    ("fd3d_yz_pencil", "tiles per pencil: p.m.div_ceil(p.tile) (the contract has p.tile ≥ 1)"),
    ("fd3d_yz_stream", "segments per pencil: p.m.div_ceil(p.tile) (the contract has p.tile ≥ 1)"),
    ("kp_flux_stream_kp07", KP_STREAM_TRAP),
    ("kp_flux_stream_masked_kp07", KP_STREAM_TRAP),
    ("kp_flux_stream_bollermann", KP_STREAM_TRAP),
    ("kp_flux_stream_masked_bollermann", KP_STREAM_TRAP),
    ("kp_flux_stream_early_kp07", KP_STREAM_EARLY_TRAP),
    ("kp_flux_stream_early_masked_kp07", KP_STREAM_EARLY_TRAP),
    ("kp_flux_stream_early_bollermann", KP_STREAM_EARLY_TRAP),
    ("kp_flux_stream_early_masked_bollermann", KP_STREAM_EARLY_TRAP),
    ("kp_flux_stream_clamp", KP_STREAM_TRAP),
    ("kp_flux_stream_masked_clamp", KP_STREAM_TRAP),
    ("kp_flux_stream_early_clamp", KP_STREAM_EARLY_TRAP),
    ("kp_flux_stream_early_masked_clamp", KP_STREAM_EARLY_TRAP),
    // Mixed precision's streamed kernels: the same bodies with an f64 surface.
    ("kp_m_flux_stream_kp07", KP_STREAM_TRAP),
    ("kp_m_flux_stream_masked_kp07", KP_STREAM_TRAP),
    ("kp_m_flux_stream_bollermann", KP_STREAM_TRAP),
    ("kp_m_flux_stream_masked_bollermann", KP_STREAM_TRAP),
    ("kp_m_flux_stream_clamp", KP_STREAM_TRAP),
    ("kp_m_flux_stream_masked_clamp", KP_STREAM_TRAP),
    ("kp_m_flux_stream_early_kp07", KP_STREAM_EARLY_TRAP),
    ("kp_m_flux_stream_early_masked_kp07", KP_STREAM_EARLY_TRAP),
    ("kp_m_flux_stream_early_bollermann", KP_STREAM_EARLY_TRAP),
    ("kp_m_flux_stream_early_masked_bollermann", KP_STREAM_EARLY_TRAP),
    ("kp_m_flux_stream_early_clamp", KP_STREAM_EARLY_TRAP),
    ("kp_m_flux_stream_early_masked_clamp", KP_STREAM_EARLY_TRAP),
    // RK2's second stage in the streamed kernel, plain and mixed.
    // (Each streamed kernel also as its `_masked` entry, which reads the activity map.)
    ("kp_flux_stream_rk_kp07", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_masked_kp07", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_bollermann", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_masked_bollermann", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_clamp", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_masked_clamp", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_rain_kp07", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_rain_masked_kp07", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_rain_bollermann", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_rain_masked_bollermann", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_rain_clamp", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_rain_masked_clamp", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_soil_kp07", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_soil_masked_kp07", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_soil_bollermann", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_soil_masked_bollermann", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_soil_clamp", KP_STREAM_RK_TRAP),
    ("kp_flux_stream_rk_soil_masked_clamp", KP_STREAM_RK_TRAP),
    ("kp_m_flux_stream_rk_kp07", KP_STREAM_RK_TRAP),
    ("kp_m_flux_stream_rk_masked_kp07", KP_STREAM_RK_TRAP),
    ("kp_m_flux_stream_rk_bollermann", KP_STREAM_RK_TRAP),
    ("kp_m_flux_stream_rk_masked_bollermann", KP_STREAM_RK_TRAP),
    ("kp_m_flux_stream_rk_clamp", KP_STREAM_RK_TRAP),
    ("kp_m_flux_stream_rk_masked_clamp", KP_STREAM_RK_TRAP),
];
/// The streamed shallow-water flux kernels' reasons (one entry point a wet–dry scheme).
const KP_STREAM_TRAP: &str = "wet-map tile of a column: (column − 2) / k.bx (the contract has k.bx ≥ 1)";
const KP_STREAM_EARLY_TRAP: &str =
    "wet-map tiles of the warp and of each cell: divisions by k.bx, k.by (≥ 1) and the warp's tile columns (≥ 1)";
const KP_STREAM_RK_TRAP: &str = "wet-map tile of each cell, whose flags it sets: (column − 2) / k.bx and the band's first row / k.by (the contract has k.bx, k.by ≥ 1)";

/// Kernels whose PTX may use local memory, and why. None does.
const LOCAL_ALLOWED: &[(&str, &str)] = &[];

/// The functions of a module: name → (body, names of the functions it calls).
fn functions(ptx: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in ptx.lines() {
        if let Some((name, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
            if line == "}" {
                let calls = body.lines().filter_map(called).collect();
                out.insert(std::mem::take(name), (std::mem::take(body), calls));
                current = None;
            }
        } else if let Some(name) = declared(line) {
            current = Some((name, String::new()));
        }
    }
    out
}

/// The name a line `.visible .entry name(`, `.func name(` or `.func (retval) name(` declares.
fn declared(line: &str) -> Option<String> {
    let rest = line.strip_prefix(".visible ").unwrap_or(line);
    let rest = rest.strip_prefix(".entry ").or_else(|| rest.strip_prefix(".func "))?;
    let rest = if rest.starts_with('(') { rest.split_once(") ")?.1 } else { rest };
    Some(rest.trim_end_matches('(').trim().to_string())
}

/// The function a `call` instruction calls: `call.uni name, (…)` or `call.uni (ret), name, (…)`.
fn called(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("call")?;
    let rest = rest.split_once(char::is_whitespace)?.1.trim_start();
    let rest = if rest.starts_with('(') { rest.split_once("),")?.1.trim_start() } else { rest };
    Some(rest.split([',', ';', ' ']).next()?.to_string())
}

/// `trap`s and `.local` uses in `name` and every function it calls.
fn count(funcs: &BTreeMap<String, (String, Vec<String>)>, name: &str, seen: &mut BTreeSet<String>) -> (usize, usize) {
    if !seen.insert(name.to_string()) {
        return (0, 0);
    }
    let Some((body, calls)) = funcs.get(name) else { return (0, 0) };
    let mut traps = body.matches("trap;").count();
    let mut locals = body.matches(".local").count();
    for c in calls {
        let (t, l) = count(funcs, c, seen);
        traps += t;
        locals += l;
    }
    (traps, locals)
}

fn stem(entry: &str) -> &str {
    entry.strip_suffix("_f32").or_else(|| entry.strip_suffix("_f64")).unwrap_or(entry)
}

#[test]
fn modules_define_exactly_the_kernel_crates_entry_points() {
    let want: BTreeSet<String> = expected_entry_points().into_iter().collect();
    assert_eq!(want.len(), expected_entry_points().len(), "a stem is declared twice");
    for m in &MODULES {
        let have: BTreeSet<String> = entry_points(m.source).into_iter().collect();
        let missing: Vec<_> = want.difference(&have).collect();
        let unexpected: Vec<_> = have.difference(&want).collect();
        assert!(missing.is_empty(), "{}: entry points missing: {missing:?}", m.arch);
        assert!(unexpected.is_empty(), "{}: entry points no solver module lists: {unexpected:?}", m.arch);
        assert!(!m.source.contains(".extern .func"), "{}: unresolved .extern .func in the module", m.arch);
        assert!(m.source.contains(&format!(".target {}", m.arch)), "{}: wrong .target", m.arch);
    }
}

/// The module of each entry point alone: its entry point as in the whole module, the functions
/// it calls and the shared array it names defined there, no other entry point.
#[test]
fn each_entry_point_is_a_module_of_its_own() {
    for m in &MODULES {
        let items = m.items().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(items.entries().collect::<Vec<_>>(), entry_points(m.source), "{}: entry points", m.arch);
        let whole = functions(m.source);
        for e in entry_points(m.source) {
            let piece = items.module_of(&e).unwrap();
            assert!(piece.starts_with("//\n// Generated by LLVM") && piece.contains(&format!(".target {}", m.arch)));
            assert_eq!(
                entry_points(&piece),
                std::slice::from_ref(&e),
                "{}: the module of {e} has other entry points",
                m.arch
            );
            let funcs = functions(&piece);
            assert_eq!(funcs[&e].0, whole[&e].0, "{}: {e} differs from the whole module's", m.arch);
            let mut calls: Vec<&String> = funcs[&e].1.iter().collect();
            while let Some(c) = calls.pop() {
                let (body, more) =
                    funcs.get(c).unwrap_or_else(|| panic!("{}: {e} calls {c}, not in its module", m.arch));
                assert_eq!(body, &whole[c].0, "{}: {c} in the module of {e}", m.arch);
                calls.extend(more);
            }
            let shared = "gpu_launch_sized_workgroup_mem";
            if funcs.values().any(|(body, _)| body.contains(shared)) {
                assert!(piece.contains(&format!("{shared}[];")), "{}: {e} names {shared}, not declared", m.arch);
            }
        }
    }
}

/// Every register cap (`kernels::registers`) reached its entry point in every module.
#[test]
fn register_caps_are_in_the_modules() {
    for m in &MODULES {
        let funcs = functions(m.source);
        for &(name, regs) in kernels::registers::REGISTER_CAPS {
            let (body, _) = funcs.get(name).unwrap_or_else(|| panic!("{}: no entry point {name}", m.arch));
            let directive = format!("\n)\n.maxnreg {regs}\n{{\n");
            assert!(body.contains(&directive), "{}: {name} has no .maxnreg {regs} before its body", m.arch);
        }
    }
}

#[test]
fn no_trap_or_local_memory_outside_the_allow_lists() {
    let allowed = |list: &[(&str, &str)], entry: &str| list.iter().any(|(s, _)| *s == stem(entry));
    let mut bad = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for m in &MODULES {
        let funcs = functions(m.source);
        let entries = entry_points(m.source);
        assert_eq!(entries.iter().filter(|e| funcs.contains_key(*e)).count(), entries.len(), "{}: parse", m.arch);
        println!("module {}: kernels with trap or .local (counts include the functions they call)", m.arch);
        for e in &entries {
            let (traps, locals) = count(&funcs, e, &mut BTreeSet::new());
            if traps > 0 || locals > 0 {
                println!("  {e:<40} trap {traps:>2}  .local {locals:>2}");
            }
            if traps > 0 {
                used.insert(stem(e).to_string());
                if !allowed(TRAP_ALLOWED, e) {
                    bad.push(format!("{}: {e} has {traps} trap(s)", m.arch));
                }
            }
            if locals > 0 && !allowed(LOCAL_ALLOWED, e) {
                bad.push(format!("{}: {e} uses local memory ({locals} .local)", m.arch));
            }
        }
    }
    for (s, _) in TRAP_ALLOWED {
        if !used.contains(*s) {
            bad.push(format!("{s} is on the trap allow-list but no module has a trap in it: take it off"));
        }
    }
    assert!(
        bad.is_empty(),
        "{}\n(find the panic path — an index, a division by a parameter — and remove it, or add the \
         kernel to the allow-list with the reason)",
        bad.join("\n")
    );
}

/// `ptxas`: `$PTXAS`, else on `PATH`.
fn ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("ptxas")).find(|p| p.is_file())
}

/// (kernel, registers, spill bytes, stack bytes) from `ptxas -v` output.
fn resources(log: &str) -> Vec<(String, u32, u32, u32)> {
    let mut out = Vec::new();
    let mut current: Option<(String, u32, u32)> = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some((rest.trim().to_string(), 0, 0));
        } else if line.contains("bytes stack frame") {
            if let Some(c) = current.as_mut() {
                let n: Vec<u32> = line.split(|ch: char| !ch.is_ascii_digit()).filter_map(|t| t.parse().ok()).collect();
                c.1 = n.first().copied().unwrap_or(0);
                c.2 = n.get(1).copied().unwrap_or(0) + n.get(2).copied().unwrap_or(0);
            }
        } else if let Some(rest) = line.split("Used ").nth(1)
            && let Some((name, stack, spill)) = current.take()
        {
            let regs = rest.split_whitespace().next().and_then(|t| t.parse().ok()).unwrap_or(0);
            out.push((name, regs, spill, stack));
        }
    }
    out
}

#[test]
#[cfg_attr(not(ptxas), ignore = "no ptxas when this was built (set PTXAS or put ptxas on PATH, then rebuild)")]
fn modules_assemble_with_ptxas() {
    let ptxas = ptxas().unwrap_or_else(|| panic!("no ptxas in $PTXAS or PATH (this build expected one)"));
    let dir = std::env::temp_dir().join(format!("hydrokern-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The assemblies run side by side, one thread each: on CI's two cores that keeps both busy,
    // where splitting each over the machine's threads (`--split-compile 0`) costs a fifth more
    // processor time for the same report. Each module for its own target: the loader gives a
    // device the first module its compute capability reaches (`ptx::module_for`), so the sm_80
    // module never runs on sm_90.
    let mut jobs = Vec::new();
    for m in &MODULES {
        let file = dir.join(format!("kernels_{}.ptx", m.arch));
        std::fs::write(&file, m.source).unwrap();
        let (ptxas, arch) = (ptxas.clone(), m.arch);
        let run = std::thread::spawn(move || {
            Command::new(&ptxas).args([&format!("-arch={arch}"), "-v"]).arg(&file).args(["-o", "/dev/null"]).output()
        });
        jobs.push((m, arch, run));
    }
    for (m, arch, run) in jobs {
        let out = run.join().unwrap();
        let out = out.unwrap_or_else(|e| panic!("cannot run {}: {e}", ptxas.display()));
        let log = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "ptxas -arch={arch} rejected the {} module:\n{log}", m.arch);
        let res = resources(&log);
        assert_eq!(res.len(), entry_points(m.source).len(), "ptxas reported a different number of kernels");
        if arch == "sm_90" {
            println!("module {} assembled for {arch}: kernel, registers, spill bytes, stack bytes", m.arch);
            for (name, regs, spill, stack) in &res {
                println!("  {name:<40} {regs:>4} {spill:>6} {stack:>6}");
            }
        }
        // The entry points loaded with more than themselves: those calling a function, and the
        // smallest that names the shared array.
        let items = m.items().unwrap();
        let pieces: Vec<(String, String)> = entry_points(m.source)
            .into_iter()
            .map(|e| {
                let piece = items.module_of(&e).unwrap();
                (e, piece)
            })
            .collect();
        let mut chosen: Vec<&(String, String)> = pieces.iter().filter(|(_, p)| p.contains("\n.func ")).collect();
        chosen.extend(pieces.iter().filter(|(_, p)| p.contains(".extern .shared")).min_by_key(|(_, p)| p.len()));
        assert!(chosen.len() >= 2, "{arch}: no entry point calls a function or names the shared array");
        for (e, piece) in chosen {
            let file = dir.join(format!("{e}_{arch}.ptx"));
            std::fs::write(&file, piece).unwrap();
            let out = Command::new(&ptxas)
                .args([&format!("-arch={arch}"), "-v"])
                .arg(&file)
                .args(["-o", "/dev/null"])
                .output()
                .unwrap();
            let log = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "ptxas -arch={arch} rejected the module of {e}:\n{log}");
            let alone = resources(&log);
            let whole: Vec<_> = res.iter().filter(|r| &r.0 == e).cloned().collect();
            assert_eq!(alone, whole, "{arch}: {e} alone assembles to other resources than in the whole module");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sediment's mixed precision forms the `seed` scheme's face conductance K by operations each
/// rounded on its own (`kernels::sediment::face_k`, docs/f32-conservation.md, "Mixed precision
/// for sediment: h in f64, the rest in f32"), so that the ghost kernel's K and the fused
/// kernel's are the same bits: both use `mul.rn.f32` and `add.rn.f32`, and the ghost kernel,
/// whose f32 multiply-adds would all be K's (12, contracted), has none. The plain and
/// compensated kernels keep the plain expression (no `.rn` product or sum), free to contract.
#[test]
fn mixed_sediment_kernels_form_k_without_contraction() {
    for m in &MODULES {
        let funcs = functions(m.source);
        let body = |e: &str| &funcs.get(e).unwrap_or_else(|| panic!("{}: no entry point {e}", m.arch)).0;
        for e in ["sediment_m_ghosts_f32", "sediment_m_fused_f32"] {
            assert!(body(e).contains("mul.rn.f32") && body(e).contains("add.rn.f32"), "{}: {e} does not pin K", m.arch);
        }
        assert!(!body("sediment_m_ghosts_f32").contains("fma.rn.f32"), "{}: the mixed ghost kernel contracts", m.arch);
        for e in ["sediment_ghosts_f32", "sediment_fused_f32", "sediment_c_fused_f32", "sediment_ghosts_f64"] {
            let pinned = body(e).contains("mul.rn.f") || body(e).contains("add.rn.f");
            assert!(!pinned, "{}: {e} has pinned operations (only the mixed path pins)", m.arch);
        }
    }
}
