//! Every built-in scenario (`examples/<name>.toml`) is a regression test: a short run with the
//! overrides stored next to it (`examples/<name>.norms.toml`), whose final output fields must
//! match the stored norms — on the CPU here, and on the GPU in the GPU suite within the
//! tolerances stated below, in f64 and f32 and, for sediment and shallow water (kp), in mixed
//! precision. The whole runner runs: case loading, the model, snapshots and the run directory.
//!
//! After a deliberate change of results, rewrite the norms with
//! `HYDROKERN_BLESS=1 cargo test -p host --test integration examples::` and say why in the commit.

use hydrokern::Precision;
use hydrokern::registry;
use hydrokern::run::{Norms, RunOptions};
use hydrokern::scenarios::{self, Scenario};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A norms file: the overrides of the short run, then per precision and field the norms.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NormsFile {
    overrides: toml::Table,
    #[serde(default)]
    f64: BTreeMap<String, Norms>,
    #[serde(default)]
    f32: BTreeMap<String, Norms>,
    /// For the examples run in mixed precision (sediment's: [`precisions`]).
    #[serde(default)]
    mixed: BTreeMap<String, Norms>,
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn norms_path(name: &str) -> PathBuf {
    examples_dir().join(format!("{name}.norms.toml"))
}

fn read_norms(name: &str) -> NormsFile {
    let path = norms_path(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; every example needs its norms file (write it with HYDROKERN_BLESS=1)", path.display())
    });
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Run scenario `sc` with the norms file's overrides on `backend` in `precision`.
fn run(sc: &Scenario, overrides: &toml::Table, backend: &str, precision: Precision) -> hydrokern::run::Outcome {
    let mut doc = sc.doc().unwrap();
    for (key, value) in overrides {
        let v: toml_edit::Value =
            value.to_string().parse().unwrap_or_else(|e| panic!("{}: override {key}: {e}", sc.name));
        doc.set(key, v, &format!("override {key}")).unwrap();
    }
    let dir = std::env::temp_dir().join(format!(
        "hydrokern-example-{}-{}-{backend}-{precision}",
        std::process::id(),
        sc.name
    ));
    let _ = std::fs::remove_dir_all(&dir);
    doc.set("run.backend", backend.into(), "test").unwrap();
    doc.set("run.precision", precision.name().into(), "test").unwrap();
    doc.set("output.dir", dir.to_string_lossy().as_ref().into(), "test").unwrap();
    doc.set("output.progress", 1e9.into(), "test").unwrap();
    let case = registry::load(&doc).unwrap_or_else(|e| panic!("{}: {e}", sc.name));
    let outcome =
        case.run(&RunOptions::default()).unwrap_or_else(|e| panic!("{} ({backend}, {precision}): {e}", sc.name));
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

/// The precisions an example runs in: f64 and f32, and mixed where its solver has it (sediment,
/// kp) and the case has no forcing (which runs f32 and f64 only).
fn precisions(sc: &Scenario) -> Vec<Precision> {
    let solver = sc.solver().unwrap_or_else(|e| panic!("{}: {e}", sc.name));
    let doc = sc.doc().unwrap_or_else(|e| panic!("{}: {e}", sc.name));
    let forced = ["forcing.rain", "forcing.infiltration", "forcing.inflow", "forcing.level", "forcing.outlet"]
        .iter()
        .any(|k| doc.has(k));
    [Precision::F64, Precision::F32].into_iter().chain((solver.mixed && !forced).then_some(Precision::Mixed)).collect()
}

/// The stored norms of `precision`.
fn stored<'a>(name: &str, f: &'a NormsFile, p: Precision) -> &'a BTreeMap<String, Norms> {
    let norms = match p {
        Precision::F32 => &f.f32,
        Precision::F64 => &f.f64,
        Precision::Mixed => &f.mixed,
    };
    assert!(!norms.is_empty(), "examples/{name}.norms.toml has no {p} norms (write them with HYDROKERN_BLESS=1)");
    norms
}

/// Compare a run's norms with the stored ones; the largest relative difference.
fn compare(name: &str, what: &str, got: &[(String, Norms)], want: &BTreeMap<String, Norms>, tol: f64) -> f64 {
    let names: Vec<&String> = got.iter().map(|(n, _)| n).collect();
    assert_eq!(names, want.keys().collect::<Vec<_>>(), "{name} ({what}): the output fields changed");
    let mut worst = 0.0f64;
    for (field, n) in got {
        let d = n.rel_diff(&want[field]);
        assert!(
            d <= tol,
            "{name} ({what}): {field} norms {n:?} differ from the stored {:?} by {d:.3e} (tolerance {tol:.1e})",
            want[field]
        );
        worst = worst.max(d);
    }
    worst
}

/// Shallow-water examples on a terrain with thin cells, and the relative error their f64 GPU
/// runs may show: ulp(w)/dry with w the surface's height above the datum and `dry` the depth
/// below which a cell is dry (1e-6 m in f64). A cell just deeper than `dry` has a velocity hu/h
/// good only to ulp(w)/h, since h = w − B loses the digits w and B share; the `clamp` scheme
/// hands that velocity to the cell's partially flooded neighbours as their bound, so the GPU's
/// rounding (contracted multiply-adds) shows in their momenta at that size instead of at a few
/// ε. (In f32 `dry` is 4ε of the largest depth and bed, and the usual tolerance covers it.)
const GPU_THIN_CELLS: &[(&str, f64, &str)] = &[(
    "valley",
    // w < 128 m: ulp(w) = 2⁻⁴⁶ m, over dry = 1e-6 m.
    1.42e-8,
    "the valley's surface lies ~114 m above the datum; measured on the H100: 1.2e-9 in hu's l1",
)];

/// Tolerance of the CPU reference against its own stored norms: the same code on the same
/// instruction set gives the same bits; the margin covers a different summation order where
/// threads split a reduction.
fn cpu_tolerance(p: Precision) -> f64 {
    match p {
        Precision::F64 => 1e-12,
        Precision::F32 => 1e-5,
        // Sediment's h and kp's w (f64) and the rest (f32) updated point by point, no reduction
        // in f32.
        Precision::Mixed => 1e-10,
    }
}

fn bless() -> bool {
    std::env::var("HYDROKERN_BLESS").is_ok_and(|v| v == "1")
}

fn write_norms(sc: &Scenario, overrides: &toml::Table, runs: &[(Precision, Vec<(String, Norms)>)]) {
    let mut text = format!(
        "# Regression norms of examples/{}.toml: the CPU reference run with the overrides below; per\n\
         # precision and output field, the mean |value| (l1), root mean square (l2) and largest |value|\n\
         # (linf) of the final state. Rewrite with `HYDROKERN_BLESS=1 cargo test -p host --test integration examples::`.\n[overrides]\n",
        sc.name
    );
    for (k, v) in overrides {
        text += &format!("{k:?} = {v}\n");
    }
    for (p, norms) in runs {
        for (field, n) in norms {
            text += &format!("\n[{}.{field}]\nl1 = {:e}\nl2 = {:e}\nlinf = {:e}\n", p.name(), n.l1, n.l2, n.linf);
        }
    }
    std::fs::write(norms_path(sc.name), text).unwrap();
}

#[test]
fn every_example_has_a_norms_file_and_every_norms_file_an_example() {
    let names: Vec<&str> = scenarios::all().iter().map(|s| s.name).collect();
    for entry in std::fs::read_dir(examples_dir()).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(stem) = file.strip_suffix(".norms.toml") {
            assert!(names.contains(&stem), "examples/{file} has no example");
        }
    }
    for name in names {
        assert!(norms_path(name).is_file() || bless(), "examples/{name}.toml has no norms file");
    }
}

/// The examples in the order of their names, `part` (0 or 1) of every two: the two parts take
/// about as long, and their tests run side by side.
fn examples_of_part(part: usize) -> impl Iterator<Item = Scenario> {
    scenarios::all().into_iter().enumerate().filter(move |(k, _)| k % 2 == part).map(|(_, sc)| sc)
}

/// Each example of `part` ([`examples_of_part`]) run on the CPU in every precision matches the
/// norms stored for it (or writes them, with `HYDROKERN_BLESS=1`).
fn examples_match_their_norms_on_the_cpu(part: usize) {
    for sc in examples_of_part(part) {
        let file = read_norms(sc.name);
        let mut runs = Vec::new();
        for p in precisions(&sc) {
            let o = run(&sc, &file.overrides, "cpu", p);
            if !bless() {
                let want = stored(sc.name, &file, p);
                let worst = compare(sc.name, &format!("cpu {p}"), &o.norms, want, cpu_tolerance(p));
                println!("{} ({p}, CPU): {} steps, largest relative difference {worst:.1e}", sc.name, o.steps);
            }
            runs.push((p, o.norms));
        }
        if bless() {
            write_norms(&sc, &file.overrides, &runs);
            println!("{}: norms rewritten", sc.name);
        }
    }
}

#[test]
fn every_example_matches_its_norms_on_the_cpu_part_1() {
    examples_match_their_norms_on_the_cpu(0);
}

#[test]
fn every_example_matches_its_norms_on_the_cpu_part_2() {
    examples_match_their_norms_on_the_cpu(1);
}

/// The GPU against the CPU's stored norms. Both evaluate the same point functions; the GPU
/// contracts multiply-adds (FMA) and takes approximate f32 square roots in the wave speeds, and
/// those roundings grow with the steps: the tolerance is 256·ε·(steps + 1) of the field's
/// largest value, or of 1 for a field smaller than that (as the kernel tests state it), at least 1e-12 in f64 and 1e-5 in f32 for the
/// one-shot solvers. Examples in [`GPU_THIN_CELLS`] may differ by more, for the reason given.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn every_example_matches_its_norms_on_the_gpu() {
    for sc in scenarios::all() {
        let file = read_norms(sc.name);
        for p in precisions(&sc) {
            let o = run(&sc, &file.overrides, "gpu", p);
            let eps = match p {
                Precision::F64 => f64::EPSILON,
                // Mixed: s and the fluxes are f32, whose multiply-adds the GPU contracts.
                Precision::F32 | Precision::Mixed => f32::EPSILON as f64,
            };
            let thin = GPU_THIN_CELLS.iter().find(|(n, ..)| *n == sc.name && p == Precision::F64).map_or(0.0, |e| e.1);
            let tol = (256.0 * eps * (o.steps + 1) as f64).max(cpu_tolerance(p)).max(thin);
            let worst = compare(sc.name, &format!("gpu {p}"), &o.norms, stored(sc.name, &file, p), tol);
            println!(
                "{} ({p}, GPU): {} steps, largest relative difference {worst:.1e} (tolerance {tol:.1e})",
                sc.name, o.steps
            );
        }
    }
}
