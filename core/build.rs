//! Builds the kernel crate (folder `gpu/`, package `hydrokern-kernels`, library `kernels`) to PTX
//! for the core to embed (see docs/toolchain.md).
//!
//! The kernels are compiled as an rlib for `nvptx64-nvidia-cuda` with `--emit=asm`: the `.s`
//! file is the PTX module, and an rlib is never linked, so no bitcode linker is needed. One
//! module per `-Ctarget-cpu` (sm_80, sm_90); the runtime picks one by compute capability.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The PTX targets built, oldest first.
const ARCHS: [&str; 2] = ["sm_80", "sm_90"];
const TARGET: &str = "nvptx64-nvidia-cuda";

fn main() {
    let core = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = core.parent().expect("core/ sits in the workspace").to_path_buf();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=../gpu/src");
    println!("cargo:rerun-if-changed=../gpu/Cargo.toml");
    println!("cargo:rerun-if-changed=../rust-toolchain.toml");
    println!("cargo:rerun-if-env-changed=HYDROKERN_GIT_REV");
    println!("cargo:rerun-if-env-changed=HYDROKERN_NVPTX_FMA");
    git_revision(&root);

    if let Err(message) = check_toolchain() {
        fail(&message);
    }
    // The nested build lives in its own target directory (the outer cargo holds its own lock),
    // shared by every profile of the outer build so each module is compiled once.
    let target_root =
        env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target")).join("nvptx");
    // The modules build side by side: each nested build ends in one codegen unit, a single
    // thread, so two of them keep two cores busy where one after the other would not.
    std::thread::scope(|s| {
        for arch in ARCHS {
            let (root, dir, out) = (&root, target_root.join(arch), &out);
            s.spawn(move || {
                let ptx = cap_registers(build_module(root, &dir, arch));
                fs::write(out.join(format!("kernels_{arch}.ptx")), ptx).unwrap();
            });
        }
    });
}

mod registers {
    include!("../gpu/src/registers.rs");
}

/// Write each of `registers::REGISTER_CAPS` as a `.maxnreg` directive between its entry
/// point's parameter list and its body. A cap naming no entry point fails the build, so the
/// table cannot outlive a renamed kernel.
fn cap_registers(mut ptx: String) -> String {
    for &(name, regs) in registers::REGISTER_CAPS {
        let head = format!(".visible .entry {name}(");
        let at = ptx.find(&head).unwrap_or_else(|| fail(&format!("register cap for {name}: no such entry point")));
        let body = ptx[at..].find("\n)\n{").unwrap_or_else(|| fail(&format!("register cap for {name}: no body")));
        ptx.insert_str(at + body + 2, &format!("\n.maxnreg {regs}"));
    }
    ptx
}

fn fail(message: &str) -> ! {
    // cargo shows a build script's stderr when it fails; keep the message first and plain.
    eprintln!("\nerror: cannot build hydrokern's GPU kernels: {message}\n");
    std::process::exit(1);
}

/// The kernels need the pinned nightly (nvptx features, -Zbuild-std) and its `rust-src`.
fn check_toolchain() -> Result<(), String> {
    let install = "install it with `rustup toolchain install nightly-2026-05-20 --component rust-src` \
                   (the channel pinned in rust-toolchain.toml)";
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version =
        Command::new(&rustc).arg("--version").output().map_err(|e| format!("cannot run {rustc}: {e}; {install}"))?;
    let version = String::from_utf8_lossy(&version.stdout).to_string();
    if !version.contains("nightly") {
        return Err(format!("{} is not a nightly toolchain; {install}", version.trim()));
    }
    let sysroot =
        Command::new(&rustc).args(["--print", "sysroot"]).output().map_err(|e| format!("cannot run {rustc}: {e}"))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if !core.exists() {
        return Err(format!("the rust-src component is missing from {}; {install}", sysroot.display()));
    }
    Ok(())
}

/// LLVM's NVPTX FMA level: 1 (contract, the default) unless `HYDROKERN_NVPTX_FMA=off`.
fn fma_level() -> u32 {
    match env::var("HYDROKERN_NVPTX_FMA").as_deref() {
        Ok("off") => 0,
        Ok("on") | Err(_) => 1,
        Ok(other) => fail(&format!("HYDROKERN_NVPTX_FMA is `{other}`: `on` or `off`")),
    }
}

fn build_module(root: &Path, target_dir: &Path, arch: &str) -> String {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["rustc", "-p", "hydrokern-kernels", "--release", "--target", TARGET, "-Zbuild-std=core"])
        .arg("--target-dir")
        .arg(target_dir)
        .args(["--", "--emit=asm"])
        .env(
            "CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS",
            // FMA contraction as nvcc does by default (--fmad=true): without the flag rustc's
            // NVPTX backend emits mul.rn/add.rn, which ptxas may not fuse either.
            // HYDROKERN_NVPTX_FMA=off builds without it (nvcc's --fmad=false), to show that
            // results do not hang on contraction (docs/toolchain.md). Warnings are errors: the
            // kernel bodies compile for nvptx64 alone, where no host build (nor clippy) sees
            // them, and this build's output is shown only when it fails (the pinned toolchain
            // keeps the set of lints fixed; the core it builds has its lints capped).
            format!(
                "-Zunstable-options -Cpanic=immediate-abort -Dwarnings -Ctarget-cpu={arch} -Cllvm-args=-nvptx-fma-level={}",
                fma_level()
            ),
        )
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false");
    // What the outer build passes to its own rustc must not reach the kernel build.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_RUSTFLAGS",
    ] {
        cmd.env_remove(var);
    }
    let output = cmd.output().unwrap_or_else(|e| fail(&format!("cannot run cargo: {e}")));
    if !output.status.success() {
        fail(&format!(
            "the nested `cargo rustc -p hydrokern-kernels --target {TARGET}` for {arch} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    // The newest deps/kernels-*.s is this build's module (stale hashes may sit beside it).
    let deps = target_dir.join(TARGET).join("release/deps");
    let newest = fs::read_dir(&deps)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", deps.display())))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "s")
                && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("kernels-"))
        })
        .max_by_key(|p| fs::metadata(p).and_then(|m| m.modified()).ok());
    let path = newest.unwrap_or_else(|| fail(&format!("no kernels-*.s in {}", deps.display())));
    fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", path.display())))
}

/// Embeds the git revision for benchmark metadata ("unknown" outside a checkout).
fn git_revision(root: &Path) {
    let git = root.join(".git");
    if git.is_dir() {
        println!("cargo:rerun-if-changed=../.git/HEAD");
        println!("cargo:rerun-if-changed=../.git/refs/heads");
    }
    let rev = env::var("HYDROKERN_GIT_REV").ok().or_else(|| {
        let out = Command::new("git").current_dir(root).args(["rev-parse", "--short=12", "HEAD"]).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    });
    println!("cargo:rustc-env=HYDROKERN_GIT_REV={}", rev.unwrap_or_else(|| "unknown".into()));
}
