//! The build script of the solvers' package (and of the command line's, for its tests): it
//! embeds the built-in scenarios (`examples/`) and says which tests this build runs. The kernels are compiled to PTX by the core's build script
//! (`core/build.rs`; see docs/toolchain.md).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    examples(&root, &out);
    test_configuration();
}

/// Which tests this build runs rather than compiles as ignored (with the reason):
/// - `cfg(gpu_tests)`, the tests that need a GPU: with `HYDROKERN_REQUIRE_GPU=1` (then a
///   missing GPU fails them), or, when that variable is unset, on a machine with an NVIDIA
///   driver (`HYDROKERN_REQUIRE_GPU=0` turns them off). Built elsewhere they still run with
///   `--include-ignored` (the GPU bundle does that).
/// - `cfg(ptxas)`, assembling the embedded PTX: when `$PTXAS` is set, `ptxas` is on `PATH`, or
///   `HYDROKERN_REQUIRE_PTXAS=1` (then a missing ptxas fails the test instead).
/// - `cfg(browser_tests)`, the live view in a headless Chromium: when `chromium` is on `PATH`
///   or `HYDROKERN_REQUIRE_BROWSER=1` (then a missing browser fails the test instead; CI sets
///   it and installs Debian's `chromium`).
fn test_configuration() {
    println!("cargo::rustc-check-cfg=cfg(gpu_tests)");
    println!("cargo::rustc-check-cfg=cfg(ptxas)");
    println!("cargo::rustc-check-cfg=cfg(browser_tests)");
    for var in ["HYDROKERN_REQUIRE_GPU", "PTXAS", "HYDROKERN_REQUIRE_PTXAS", "HYDROKERN_REQUIRE_BROWSER", "PATH"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let gpu = match env::var("HYDROKERN_REQUIRE_GPU") {
        Ok(v) => v == "1",
        Err(_) => Path::new("/proc/driver/nvidia/version").exists() || Path::new("/dev/nvidiactl").exists(),
    };
    if gpu {
        println!("cargo::rustc-cfg=gpu_tests");
    }
    let on_path = env::var_os("PATH").is_some_and(|p| env::split_paths(&p).any(|d| d.join("ptxas").is_file()));
    let required = env::var("HYDROKERN_REQUIRE_PTXAS").is_ok_and(|v| v == "1");
    if env::var_os("PTXAS").is_some() || on_path || required {
        println!("cargo::rustc-cfg=ptxas");
    }
    let chromium = env::var_os("PATH").is_some_and(|p| env::split_paths(&p).any(|d| d.join("chromium").is_file()));
    if chromium || env::var("HYDROKERN_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
        println!("cargo::rustc-cfg=browser_tests");
    }
}

/// Embeds every `examples/*.toml` case file (but the `*.norms.toml` regression norms) as the
/// built-in scenarios: `EXAMPLES: &[(name, text)]`, name = file stem; and their data files.
fn examples(root: &Path, out: &Path) {
    let dir = root.join("examples");
    // The command line's package shares this script and has no examples/: a path that does not
    // exist would run the script, and rebuild the package, every time.
    let watch = |p: &Path| {
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    };
    watch(&dir);
    let mut entries: Vec<(String, PathBuf)> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .filter(|p| !p.to_string_lossy().ends_with(".norms.toml"))
                .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    let mut code = String::from("pub const EXAMPLES: &[(&str, &str)] = &[\n");
    for (name, path) in &entries {
        println!("cargo:rerun-if-changed={}", path.display());
        code += &format!("    ({name:?}, include_str!({:?})),\n", path.display().to_string());
    }
    code += "];\n";
    // The scenarios' rasters and series (`examples/data/*.asc`, `*.tif`, `*.csv`), by their path under `examples/`,
    // so a built-in scenario reads its terrain wherever the program runs.
    let data = dir.join("data");
    watch(&data);
    let mut files: Vec<PathBuf> = fs::read_dir(&data)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "asc" || x == "tif" || x == "tiff" || x == "csv"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    code += "pub const EXAMPLE_DATA: &[(&str, &[u8])] = &[\n";
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let rel = format!("data/{}", path.file_name().unwrap().to_string_lossy());
        code += &format!("    ({rel:?}, include_bytes!({:?})),\n", path.display().to_string());
    }
    code += "];\n";
    fs::write(out.join("examples.rs"), code).unwrap();
}
