//! The fd3d and tridiag scenarios on the case skeleton, run through the library as the command
//! line runs them (flags as overrides of the built-in case, the CPU backend): their outputs and
//! norms, and the failures a new user met — absurd repeat counts, inputs scaled by 1e300,
//! (batch, n) arrays read as (n, batch), wavenumbers past Nyquist, sizes past memory.

use hydrokern::output::{read_npy_f64, write_npy};
use hydrokern::run::{Case, MANIFEST, Manifest, Norms, Outcome, RunOptions};
use hydrokern::tridiag::{Algorithm, Batch, Layout, Shape, checked_residual, cpu};
use hydrokern::{registry, scenarios};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hydrokern-cases-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Scenario `name` with `flags` applied as the command line applies them, on the CPU, writing
/// into `out`.
fn load(name: &str, flags: &[(&str, &str)], out: &Path) -> hydrokern::Result<Box<dyn Case>> {
    let sc = scenarios::find(name).unwrap_or_else(|| panic!("no scenario {name}"));
    let solver = sc.solver()?;
    let mut doc = sc.doc()?;
    for (flag, value) in flags {
        let f = solver.flags.iter().find(|f| f.name == *flag).unwrap_or_else(|| panic!("{name} has no --{flag}"));
        f.apply(&mut doc, value, &[])?;
    }
    doc.set("run.backend", "cpu".into(), "--backend cpu")?;
    doc.set("output.dir", out.to_string_lossy().as_ref().into(), "--output")?;
    registry::load(&doc)
}

fn run(name: &str, flags: &[(&str, &str)], out: &Path) -> hydrokern::Result<Outcome> {
    load(name, flags, out)?.run(&RunOptions::default())
}

/// The error of a refused load or run, which must be one line.
fn refusal<T>(r: hydrokern::Result<T>) -> String {
    let e = match r {
        Ok(_) => panic!("expected a refusal"),
        Err(e) => e.to_string(),
    };
    assert_eq!(e.lines().count(), 1, "not one line: {e}");
    e
}

fn manifest(dir: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(dir.join(MANIFEST)).unwrap()).unwrap()
}

fn help(name: &str, flag: &str) -> &'static str {
    let solver = scenarios::find(name).unwrap().solver().unwrap();
    solver.flags.iter().find(|f| f.name == flag).unwrap().help
}

/// Write a batch's arrays as NumPy users do: (batch, n), one system per row.
fn write_inputs(dir: &Path, b: &Batch<f64>) {
    assert_eq!(b.shape.layout, Layout::Contiguous);
    std::fs::create_dir_all(dir).unwrap();
    let dims = [b.shape.batch, b.shape.n];
    for (name, v) in [("a", &b.a), ("b", &b.b), ("c", &b.c), ("d", &b.d)] {
        write_npy(&dir.join(format!("{name}.npy")), v, &dims).unwrap();
    }
}

/// The CPU reference's solution of a contiguous batch.
fn solve(b: &Batch<f64>) -> Vec<f64> {
    let mut x = vec![0.0; b.shape.len()];
    cpu::solve(b.shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap();
    x
}

#[test]
fn absurd_repeat_and_reps_counts_are_refused_with_the_limit() {
    let out = scratch("absurd");
    let e = refusal(load("tridiag", &[("repeat", "4294967295")], &out));
    assert!(e.contains("--repeat 4294967295") && e.contains("1000"), "{e}");
    let e = refusal(load("tridiag", &[("repeat", "0")], &out));
    assert!(e.contains("timing.repeat"), "{e}");
    load("tridiag", &[("repeat", "1000")], &out).unwrap();
    let e = refusal(load("fd3d", &[("reps", "100000")], &out));
    assert!(e.contains("--reps 100000") && e.contains("1000"), "{e}");
    load("fd3d", &[("reps", "1000")], &out).unwrap();
    // The limit is in the flags' help.
    assert!(help("tridiag", "repeat").contains("1000"));
    assert!(help("fd3d", "reps").contains("1000"));
    assert!(!out.exists(), "a refused case wrote something");
}

#[test]
fn the_residual_of_inputs_scaled_by_1e300_is_that_of_the_unscaled_ones() {
    let shape = Shape::new(50, 7, Layout::Contiguous);
    let b = Batch::random(shape, 3, 1.0);
    let x = solve(&b);
    let r = checked_residual(shape, &b.a, &b.b, &b.c, &b.d, &x).unwrap();
    assert!(r < 1e-14, "{r}");
    for scale in [1e300, 1e-300] {
        let s = |v: &[f64]| v.iter().map(|x| x * scale).collect::<Vec<f64>>();
        let big = Batch { shape, a: s(&b.a), b: s(&b.b), c: s(&b.c), d: s(&b.d) };
        let xs = solve(&big);
        let rs = checked_residual(shape, &big.a, &big.b, &big.c, &big.d, &xs).unwrap();
        assert!(rs.is_finite() && rs < 1e-14, "scale {scale}: residual {rs}");
    }
    // Scaled by a power of two (exactly), the same x has exactly the same residual.
    for scale in [2f64.powi(996), 2f64.powi(-1000)] {
        let s = |v: &[f64]| v.iter().map(|x| x * scale).collect::<Vec<f64>>();
        let big = Batch { shape, a: s(&b.a), b: s(&b.b), c: s(&b.c), d: s(&b.d) };
        assert_eq!(checked_residual(shape, &big.a, &big.b, &big.c, &big.d, &x).unwrap(), r, "scale {scale}");
    }
    // And through the scenario: a finite residual, exit status success, x as unscaled.
    let dir = scratch("scaled-in");
    let s = |v: &[f64]| v.iter().map(|x| x * 1e300).collect::<Vec<f64>>();
    write_inputs(&dir, &Batch { shape, a: s(&b.a), b: s(&b.b), c: s(&b.c), d: s(&b.d) });
    let out = scratch("scaled-out");
    let o = run("tridiag", &[("input", dir.to_str().unwrap()), ("repeat", "1")], &out).unwrap();
    let want = Norms::of(&x);
    assert!(o.norms[0].1.rel_diff(&want) < 1e-12, "{:?} vs {want:?}", o.norms);
    // In f32 the coefficients are past its range: refused, naming the first and the way out.
    let doc = {
        let mut d = scenarios::find("tridiag").unwrap().doc().unwrap();
        d.set("batch.input", dir.to_str().unwrap().into(), "--input").unwrap();
        for k in ["batch.n", "batch.batch", "batch.dominance", "batch.seed"] {
            d.remove(k);
        }
        d.set("run.precision", "f32".into(), "--precision f32").unwrap();
        d.set("run.backend", "cpu".into(), "--backend cpu").unwrap();
        d.set("output.dir", out.to_str().unwrap().into(), "--output").unwrap();
        d
    };
    let e = refusal(registry::load(&doc).unwrap().run(&RunOptions::default()));
    assert!(e.contains("a.npy: system 0, row 1") && e.contains("f32") && e.contains("f64"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn a_non_finite_solution_or_residual_names_the_first_system_and_row() {
    // Straight from the residual: the interleaved position of system 2, row 3.
    let shape = Shape::new(6, 4, Layout::Interleaved);
    let b = Batch::random(Shape::new(6, 4, Layout::Contiguous), 1, 1.0).relayout(Layout::Interleaved);
    let mut x = vec![0.5; shape.len()];
    x[shape.at(2, 3)] = f64::NAN;
    x[shape.at(3, 1)] = f64::INFINITY;
    let e = checked_residual(shape, &b.a, &b.b, &b.c, &b.d, &x).unwrap_err().to_string();
    assert!(e.contains("system 2, row 3") && e.contains("not finite"), "{e}");
    // A residual past f64's range names the row of the largest one.
    let flat = |v: f64| vec![v; shape.len()];
    let (a, bb, c, d) = (flat(0.1), flat(1.0), flat(0.1), flat(1e-3));
    let mut x = vec![0.5; shape.len()];
    for i in 0..4 {
        x[shape.at(1, i)] = f64::MAX;
    }
    let e = checked_residual(shape, &a, &bb, &c, &d, &x).unwrap_err().to_string();
    assert!(e.contains("past f64's range") && e.contains("system 1, row 1"), "{e}");

    // Through the scenario: system 2's first row overflows x (d / b = 1e300 / 1e-300).
    let mut good = Batch::random(Shape::new(5, 4, Layout::Contiguous), 2, 1.0);
    let g = good.shape.at(2, 0);
    (good.b[g], good.c[g], good.d[g]) = (1e-300, 0.0, 1e300);
    let dir = scratch("overflow-in");
    write_inputs(&dir, &good);
    let out = scratch("overflow-out");
    let e = refusal(run("tridiag", &[("input", dir.to_str().unwrap())], &out));
    assert!(e.contains("system 2, row 0"), "{e}");
    assert!(!out.join("x.npy").exists(), "a failed solve wrote x.npy");
    assert!(manifest(&out).status.starts_with("stopped"), "{:?}", manifest(&out).status);
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn npy_files_are_batch_by_n_in_either_layout() {
    // Three systems of five unknowns, each different, as NumPy users write them.
    let b = Batch::random(Shape::new(5, 3, Layout::Contiguous), 11, 1.0);
    let want = solve(&b);
    let dir = scratch("layout-in");
    write_inputs(&dir, &b);
    // The padded layouts hold the systems in a field of rows of `pitch`; the files are (batch, n)
    // all the same.
    let layouts = [("interleaved", None), ("contiguous", None), ("rows", Some("9")), ("columns", Some("4"))];
    let flags = |layout: &'static str, pitch: Option<&'static str>| {
        let mut f = vec![("layout", layout)];
        f.extend(pitch.map(|p| ("pitch", p)));
        f
    };
    for (layout, pitch) in layouts {
        let out = scratch(&format!("layout-out-{layout}"));
        run("tridiag", &[flags(layout, pitch).as_slice(), &[("input", dir.to_str().unwrap())]].concat(), &out).unwrap();
        let (x, dims) = read_npy_f64(&out.join("x.npy")).unwrap();
        assert_eq!(dims, [3, 5], "{layout}: x.npy is (batch, n)");
        assert_eq!(x, want, "{layout}: row k of x.npy solves row k of the inputs");
        assert_eq!(manifest(&out).files, ["case.toml", "x.npy"], "{layout}: read inputs are not written back");
        std::fs::remove_dir_all(out).unwrap();
    }
    // Generated systems are written (batch, n) too, the same systems in every layout.
    for (layout, pitch) in layouts {
        let out = scratch(&format!("layout-gen-{layout}"));
        run(
            "tridiag",
            &[flags(layout, pitch).as_slice(), &[("n", "5"), ("batch", "3"), ("repeat", "1")]].concat(),
            &out,
        )
        .unwrap();
        let gen_ = Batch::random(Shape::new(5, 3, Layout::Contiguous), 1, 1.0);
        for (name, v) in [("a", &gen_.a), ("b", &gen_.b), ("c", &gen_.c), ("d", &gen_.d), ("x", &solve(&gen_))] {
            let (got, dims) = read_npy_f64(&out.join(format!("{name}.npy"))).unwrap();
            assert_eq!(dims, [3, 5], "{layout}: {name}.npy");
            assert_eq!(&got, v, "{layout}: {name}.npy");
        }
        std::fs::remove_dir_all(out).unwrap();
    }
    // Arrays of different shapes, or not 2-D, are refused naming the file and the shape wanted.
    write_npy(&dir.join("b.npy"), &b.b, &[5, 3]).unwrap();
    let e = refusal(load("tridiag", &[("input", dir.to_str().unwrap())], &scratch("unused")));
    assert!(e.contains("b.npy") && e.contains("(batch, n)") && e.contains("--input"), "{e}");
    write_npy(&dir.join("b.npy"), &b.b, &[15]).unwrap();
    let e = refusal(load("tridiag", &[("input", dir.to_str().unwrap())], &scratch("unused")));
    assert!(e.contains("b.npy") && e.contains("2-D"), "{e}");
    // A coefficient that is not finite is refused at load, naming system and row.
    let mut bad = b.clone();
    bad.c[bad.shape.at(1, 2)] = f64::NAN;
    write_inputs(&dir, &bad);
    let e = refusal(load("tridiag", &[("input", dir.to_str().unwrap())], &scratch("unused")));
    assert!(e.contains("c.npy") && e.contains("system 1, row 2"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn wavenumbers_at_or_above_nyquist_are_refused() {
    let out = scratch("nyquist");
    let e = refusal(load("fd3d", &[("size", "16"), ("wavenumbers", "8,1,1")], &out));
    assert!(e.contains("kx = 8") && e.contains("mx = 16") && e.contains("Nyquist"), "{e}");
    load("fd3d", &[("size", "16"), ("wavenumbers", "7,7,7")], &out).unwrap();
    let e = refusal(load("fd3d", &[("size", "16"), ("my", "20"), ("mz", "12"), ("wavenumbers", "1,10,6")], &out));
    assert!(e.contains("ky = 10") && e.contains("my = 20"), "{e}");
    let e = refusal(load("fd3d", &[("size", "16"), ("my", "20"), ("mz", "12"), ("wavenumbers", "1,9,6")], &out));
    assert!(e.contains("kz = 6") && e.contains("mz = 12") && e.contains("at most 5"), "{e}");
    assert!(!out.exists());
}

#[test]
fn sizes_past_memory_are_refused_before_allocating() {
    if hydrokern::files::available_memory().is_none() {
        eprintln!("SKIPPED sizes_past_memory_are_refused_before_allocating: no MemAvailable on this machine");
        return;
    }
    let out = scratch("memory");
    let t0 = Instant::now();
    let e = refusal(load("tridiag", &[("n", "4000000000")], &out));
    assert!(e.contains("--n 4000000000") && e.contains("memory"), "{e}");
    let e = refusal(load("tridiag", &[("n", "100000"), ("batch", "2000000000")], &out));
    assert!(e.contains("--batch 2000000000") && e.contains("memory"), "{e}");
    // A pitch whose padding does not fit, though the systems would.
    let e = refusal(load(
        "tridiag",
        &[("n", "1000"), ("batch", "1000"), ("layout", "rows"), ("pitch", "4000000000")],
        &out,
    ));
    assert!(e.contains("--pitch 4000000000") && e.contains("memory"), "{e}");
    let e = refusal(load("fd3d", &[("size", "100000")], &out));
    assert!(e.contains("--size 100000") && e.contains("memory"), "{e}");
    let e = refusal(load("fd3d", &[("mz", "1000000000")], &out));
    assert!(e.contains("--mz 1000000000") && e.contains("memory"), "{e}");
    assert!(t0.elapsed().as_secs_f64() < 5.0, "refusing took {:?}", t0.elapsed());
    assert!(!out.exists(), "a refused case wrote something");
}

#[test]
fn fd3d_writes_its_table_and_the_same_norms_every_run() {
    let out = scratch("fd3d");
    let flags = [("size", "16"), ("my", "12"), ("reps", "1")];
    let a = run("fd3d", &flags, &out).unwrap();
    let m = manifest(&out);
    assert_eq!(m.status, "finished");
    assert_eq!(m.files, ["case.toml", "fd3d.csv"]);
    let csv = std::fs::read_to_string(out.join("fd3d.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "direction,variant,rms,max,ms,GB/s");
    assert_eq!(lines.len(), 4, "{csv}");
    for (line, dir) in lines[1..].iter().zip(["x", "y", "z"]) {
        let cols: Vec<&str> = line.split(',').collect();
        assert_eq!(cols.len(), 6, "{line}");
        assert_eq!((cols[0], cols[1]), (dir, "cpu"), "{line}");
        let max: f64 = cols[3].parse().unwrap();
        assert!(max > 0.0 && max < 1e-3, "{line}");
    }
    let names: Vec<&str> = a.norms.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ddx", "ddy", "ddz"]);
    // max |∂f/∂x| = 2π on this grid (sin(2πx) and cos(2πz) reach 1 at grid points), to the
    // scheme's error.
    assert!((a.norms[0].1.linf - std::f64::consts::TAU).abs() < 1e-3, "{:?}", a.norms[0]);
    let b = run("fd3d", &flags, &out).unwrap();
    for ((n, x), (_, y)) in a.norms.iter().zip(&b.norms) {
        assert_eq!(x, y, "{n}: a second run differs");
    }
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn tridiag_reports_the_norms_of_x() {
    let out = scratch("tridiag");
    let o = run("tridiag", &[("n", "64"), ("batch", "8"), ("repeat", "2")], &out).unwrap();
    let want = Norms::of(&solve(&Batch::random(Shape::new(64, 8, Layout::Contiguous), 1, 1.0)));
    assert_eq!(o.norms.len(), 1);
    assert_eq!(o.norms[0].0, "x");
    assert_eq!(o.norms[0].1, want);
    let m = manifest(&out);
    assert_eq!(m.files, ["case.toml", "x.npy", "a.npy", "b.npy", "c.npy", "d.npy"]);
    assert_eq!(m.status, "finished");
    std::fs::remove_dir_all(out).unwrap();
}

/// A batch that is not diagonally dominant: auto pivots (LU) on the CPU, with the check on
/// (the default) or off; forcing thomas also returns, and the check warns (its lines are
/// tested in the case's unit tests).
#[test]
fn tridiag_auto_pivots_on_a_non_dominant_batch() {
    let out = scratch("tridiag-pivot");
    let flags = [("n", "40"), ("batch", "6"), ("dominance", "0"), ("repeat", "1")];
    let o = run("tridiag", &flags, &out).unwrap();
    let b = Batch::random(Shape::new(40, 6, Layout::Contiguous), 1, 0.0);
    let mut x = vec![0.0; b.shape.len()];
    cpu::solve_with(Algorithm::Lu, b.shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap();
    assert_eq!(o.norms[0].1, Norms::of(&x));
    let o = run("tridiag", &[flags.as_slice(), &[("check", "off")]].concat(), &out).unwrap();
    assert_eq!(o.norms[0].1, Norms::of(&x));
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn bad_case_keys_are_refused_naming_the_key() {
    let out = scratch("keys");
    let e = refusal(load("tridiag", &[("layout", "diagonal")], &out));
    assert!(e.contains("batch.layout") && e.contains("contiguous"), "{e}");
    // The padded layouts need a pitch of at least their line (rows: n, columns: batch), below
    // 2^32; the others take none.
    let e = refusal(load("tridiag", &[("layout", "rows")], &out));
    assert!(e.contains("batch.layout") && e.contains("needs a pitch"), "{e}");
    let e = refusal(load("tridiag", &[("layout", "contiguous"), ("pitch", "80")], &out));
    assert!(e.contains("--pitch 80") && e.contains("takes no pitch"), "{e}");
    let e = refusal(load("tridiag", &[("n", "64"), ("layout", "rows"), ("pitch", "63")], &out));
    assert!(e.contains("--pitch 63") && e.contains("below n = 64"), "{e}");
    let e = refusal(load("tridiag", &[("batch", "64"), ("layout", "columns"), ("pitch", "10")], &out));
    assert!(e.contains("--pitch 10") && e.contains("below batch = 64"), "{e}");
    let e = refusal(load("tridiag", &[("n", "64"), ("layout", "rows"), ("pitch", "5000000000")], &out));
    assert!(e.contains("--pitch 5000000000") && e.contains("too large"), "{e}");
    load("tridiag", &[("n", "64"), ("layout", "rows"), ("pitch", "64")], &out).unwrap();
    let e = refusal(load("tridiag", &[("algorithm", "gauss")], &out));
    assert!(e.contains("gpu.algorithm"), "{e}");
    // The CPU backend runs thomas and lu only.
    let e = refusal(load("tridiag", &[("algorithm", "pcr")], &out));
    assert!(e.contains("--algorithm pcr") && e.contains("thomas and lu"), "{e}");
    load("tridiag", &[("algorithm", "lu")], &out).unwrap();
    // --check takes on or off.
    let e = refusal(load("tridiag", &[("check", "yes")], &out));
    assert!(e.contains("--check yes") && e.contains("on or off"), "{e}");
    load("tridiag", &[("check", "off")], &out).unwrap();
    let e = refusal(load("tridiag", &[("n", "0")], &out));
    assert!(e.contains("batch.n"), "{e}");
    let e = refusal(load("fd3d", &[("size", "8")], &out));
    assert!(e.contains("grid.size") && e.contains("at least 9"), "{e}");
    let e = refusal(load("fd3d", &[("variants", "x-4pencil,w-pencil")], &out));
    assert!(e.contains("gpu.variants") && e.contains("w-pencil"), "{e}");

    // In a case file: unknown keys, and both input and generated sizes.
    let dir = scratch("keys-file");
    std::fs::create_dir_all(&dir).unwrap();
    let case = dir.join("t.toml");
    std::fs::write(&case, "solver = \"tridiag\"\n[batch]\nn = 8\nbatch = 2\nsize = 3\n").unwrap();
    let doc = hydrokern::case::CaseDoc::read(&case).unwrap();
    let e = refusal(registry::load(&doc));
    assert!(e.contains("batch.size") && e.contains("line 5"), "{e}");
    std::fs::write(&case, "solver = \"tridiag\"\n[batch]\nn = 8\nbatch = 2\ninput = \"here\"\n").unwrap();
    let doc = hydrokern::case::CaseDoc::read(&case).unwrap();
    let e = refusal(registry::load(&doc));
    assert!(e.contains("batch.n") && e.contains("not both"), "{e}");
    std::fs::write(&case, "solver = \"fd3d\"\n[grid]\nsize = 16\n[timing]\nreps = 5000\n").unwrap();
    let doc = hydrokern::case::CaseDoc::read(&case).unwrap();
    let e = refusal(registry::load(&doc));
    assert!(e.contains("timing.reps") && e.contains("line 5"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
    assert!(!out.exists());
}

#[test]
fn netcdf_output_is_refused_where_there_are_no_snapshots() {
    for name in ["fd3d", "tridiag"] {
        let out = scratch(&format!("netcdf-{name}"));
        let mut doc = scenarios::find(name).unwrap().doc().unwrap();
        doc.set("output.formats", r#"["npy", "netcdf"]"#.parse().unwrap(), "--set").unwrap();
        doc.set("output.dir", out.to_string_lossy().as_ref().into(), "--output").unwrap();
        let e = refusal(registry::load(&doc));
        assert!(e.contains("output.formats") && e.contains("\"netcdf\"") && e.contains(name), "{e}");
        assert!(!out.exists());
    }
}
