//! Every embedded PTX module assembles with `ptxas`, defines every expected entry point and
//! calls no unresolved function. Prints registers, spills and stack per kernel.
//!
//! `ptxas` comes from `$PTXAS` or `PATH` (CI installs it from the nvidia-cuda-nvcc-cu12 wheel).
//! Without it the assembly check says it was skipped, unless `HYDROKERN_REQUIRE_PTXAS=1`.

use hydrokern::ptx::{MODULES, entry_points, expected_entry_points};
use std::path::PathBuf;
use std::process::Command;

fn ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("ptxas")).find(|p| p.is_file())
}

#[test]
fn modules_define_every_expected_entry_point() {
    for m in &MODULES {
        let have = entry_points(m.source);
        for want in expected_entry_points() {
            assert!(have.contains(&want), "{}: entry point {want} missing", m.arch);
        }
        assert!(!m.source.contains(".extern .func"), "{}: unresolved .extern .func in the module", m.arch);
        assert!(m.source.contains(&format!(".target {}", m.arch)), "{}: wrong .target", m.arch);
    }
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
fn modules_assemble_with_ptxas() {
    let Some(ptxas) = ptxas() else {
        if std::env::var("HYDROKERN_REQUIRE_PTXAS").is_ok_and(|v| v == "1") {
            panic!("HYDROKERN_REQUIRE_PTXAS=1 but no ptxas in $PTXAS or PATH");
        }
        eprintln!("SKIPPED modules_assemble_with_ptxas: no ptxas in $PTXAS or PATH");
        return;
    };
    let dir = std::env::temp_dir().join(format!("hydrokern-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for m in &MODULES {
        let file = dir.join(format!("kernels_{}.ptx", m.arch));
        std::fs::write(&file, m.source).unwrap();
        let archs: &[&str] = if m.arch == "sm_90" { &["sm_90"] } else { &["sm_90", m.arch] };
        for &arch in archs {
            let out = Command::new(&ptxas)
                .args([&format!("-arch={arch}"), "-v"])
                .arg(&file)
                .args(["-o", "/dev/null"])
                .output();
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
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
