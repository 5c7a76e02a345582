//! The auto-tuner on a GPU: a small search writes the cache, the entry reads back, runs use
//! it with tuning on and not with it off, and an entry for other PTX is ignored. Without a
//! GPU: the claw and ADI records through the cache file. (The pure parts — statistics,
//! pruning, the cache file, the scheme choice, the search spaces — have unit tests in
//! `src/tune/`.)

use crate::common::gpu;
use hydrokern::claw::d3::gpu::Shapes3;
use hydrokern::claw::gpu::Shapes;
use hydrokern::claw::shapes;
use hydrokern::kp::gpu::Launch as KpLaunch;
use hydrokern::sediment::gpu::Launch as SedimentLaunch;
use hydrokern::tune::{self, Entry, Key, Mode, Record, TuneOptions, cache};
use hydrokern::{Backend, Precision, adi, claw, fd3d, kp, sediment};

/// One test, so that the cache directory variable and the process-wide mode are not raced.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn a_small_tune_is_stored_read_back_used_and_ignored_for_other_ptx() {
    let gpu = gpu();
    let dir = std::env::temp_dir().join(format!("hydrokern-tune-gpu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: this test binary's only test; nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("HYDROKERN_CACHE_DIR", &dir) };
    let path = cache::cache_path().unwrap();
    assert!(path.starts_with(&dir));

    // A small budget: 512², two rounds, both precisions, every solver.
    let opts = TuneOptions { size: 512, rounds: 2, pictures: Some(dir.join("maps")), ..TuneOptions::default() };
    let t0 = std::time::Instant::now();
    let found = hydrokern::registry::tune_all(&gpu, &opts).unwrap();
    eprintln!("small tune: {:.1} s", t0.elapsed().as_secs_f64());
    let e = &found.entry;
    for solver in hydrokern::registry::tunable() {
        for p in Precision::ALL {
            assert!(e.of(solver, p).count() > 0, "no record for {solver} {p}");
        }
    }
    for r in &e.records {
        assert!(r.default_ms > 0.0 && r.best_ms > 0.0 && r.best_ms <= r.default_ms * 1.0001, "{r:?}");
    }
    // Four heat maps (tile and streamed flux, two precisions), each a PNG.
    assert_eq!(found.pictures.len(), 4);
    for p in &found.pictures {
        assert_eq!(&std::fs::read(p).unwrap()[1..4], b"PNG");
    }
    cache::store(&path, found.entry.clone()).unwrap();

    // Read back: the same entry, found by this GPU's key.
    let (file, note) = cache::read(&path);
    assert!(note.is_none());
    let (got, note) = cache::lookup(&file, &tune::key(&gpu));
    assert!(note.is_none());
    assert_eq!(got.unwrap(), &found.entry);

    // Used with tuning on, not with it off.
    let kp_best = kp::tune::parse(&e.find("kp", "rk2 step", Precision::F32).unwrap().best).unwrap();
    let sed_best = sediment::tune::parse(&e.find("sediment", "fused step", Precision::F64).unwrap().best).unwrap();
    let backend = Backend::Gpu(gpu.clone());
    // What a kp case that leaves its launch to the defaults runs with.
    let kp_case = || {
        tune::case_launch(
            &backend,
            true,
            KpLaunch::default(),
            |g| kp::tune::launch_for(g, Precision::F32),
            kp::tune::label,
            "kp",
        )
    };
    tune::set_mode(Mode::Off);
    assert_eq!(kp::tune::launch_for(&gpu, Precision::F32), None);
    assert_eq!(claw::tune::tuned_shapes::<Shapes>(&gpu, Precision::F32, "shallow-roe"), None);
    assert_eq!(adi::tune::launch_for(&gpu, Precision::F32), None);
    let l = kp_case();
    assert_eq!(l, KpLaunch::default());
    tune::set_mode(Mode::Auto);
    assert_eq!(kp::tune::launch_for(&gpu, Precision::F32), Some(kp_best));
    assert_eq!(sediment::tune::launch_for(&gpu, Precision::F64), Some(sed_best));
    let l = kp_case();
    assert_eq!(l, kp_best);
    // SRK2's x-line length (DS1's, DS2's): its own record, used where a case leaves it.
    for p in Precision::ALL {
        let line = kp::tune::parse_line(&e.find("kp", kp::tune::LINE_KERNEL, p).unwrap().best).unwrap();
        assert_eq!(kp::tune::line_for(&gpu, p), Some(line));
    }
    let line32 = kp::tune::line_for(&gpu, Precision::F32).unwrap();
    // The cases run in f32, the precision whose records the run takes (the scenario says f64).
    let f32_case = |scheme: &str| {
        let mut doc = hydrokern::scenarios::find("dam-break").unwrap().doc().unwrap();
        doc.set("time.scheme", scheme.into(), "--scheme").unwrap();
        doc.set("run.precision", "f32".into(), "--precision").unwrap();
        doc
    };
    let doc = f32_case("srk2");
    let case = hydrokern::kp::KpCase::load(&doc).unwrap();
    let line = hydrokern::run::Simulation::build::<f32>(&case, &backend).unwrap().describe();
    assert!(line.contains(&format!("srk2 x-line {line32}")), "{line}");
    tune::set_mode(Mode::Off);
    assert_eq!(kp::tune::line_for(&gpu, Precision::F32), None);
    tune::set_mode(Mode::Auto);
    // `--scheme auto` takes the scheme record (RK2 with tuning off), and a GPU run says which.
    for p in Precision::ALL {
        let best = kp::scheme_choice::parse(&e.find("kp", kp::scheme_choice::KERNEL, p).unwrap().best).unwrap();
        assert_eq!(kp::scheme_choice::auto_scheme(&backend, p), best);
    }
    let best32 = kp::scheme_choice::auto_scheme(&backend, Precision::F32);
    let doc = f32_case("auto");
    let case = hydrokern::kp::KpCase::load(&doc).unwrap();
    let line = hydrokern::run::Simulation::build::<f32>(&case, &backend).unwrap().describe();
    assert_eq!(line.contains("srk2 x-line"), best32 == hydrokern::kp::Scheme::Srk2, "{line}");
    tune::set_mode(Mode::Off);
    assert_eq!(kp::scheme_choice::auto_scheme(&backend, Precision::F32), hydrokern::kp::Scheme::Rk2);
    tune::set_mode(Mode::Auto);
    // A case that set its launch keeps it.
    let mine = SedimentLaunch { block: (32, 4), rows: 2 };
    let l = tune::case_launch(
        &backend,
        false,
        mine,
        |g| sediment::tune::launch_for(g, Precision::F64),
        sediment::tune::label,
        "sediment",
    );
    assert_eq!(l, mine);
    // The fd3d plans and the tridiagonal choice read their records too.
    let xvec = e.find("fd3d", "x-vec", Precision::F32).unwrap();
    assert_eq!(
        fd3d::tune::tuned_block(&gpu, Precision::F32, hydrokern::fd3d::Variant::XVec),
        Some(xvec.best.parse().unwrap())
    );
    let tr = e.of("tridiag", Precision::F64).next().unwrap();
    let shape = hydrokern::tridiag::Shape::new(
        tr.size[0] as usize,
        tr.size[1] as usize,
        if tr.kernel == "interleaved" {
            hydrokern::tridiag::Layout::Interleaved
        } else {
            hydrokern::tridiag::Layout::Contiguous
        },
    );
    let mut solver = hydrokern::tridiag::gpu::GpuTridiag::<f64>::new(&gpu, shape).unwrap();
    assert_eq!(solver.use_tuning(&gpu).map(|a| a.name().to_string()), Some(tr.best.clone()));
    // The claw runs take their equations' shapes, 2D and 3D; the ADI cases their configuration.
    let roe = e.find("claw", "shallow-roe", Precision::F32).unwrap();
    assert_eq!(
        claw::tune::tuned_shapes::<Shapes>(&gpu, Precision::F32, "shallow-roe"),
        Some(shapes::parse(&roe.best).unwrap())
    );
    let a3 = e.find("claw", "acoustics-3d", Precision::F64).unwrap();
    assert_eq!(a3.size, vec![TuneOptions { size: 512, ..TuneOptions::default() }.cube_side() as u64; 3]);
    assert_eq!(
        claw::tune::tuned_shapes::<Shapes3>(&gpu, Precision::F64, "acoustics-3d"),
        Some(shapes::parse(&a3.best).unwrap())
    );
    // A claw scenario's GPU run says the shapes it runs with.
    let doc = hydrokern::scenarios::find("swe-radial").unwrap().doc().unwrap();
    let case = hydrokern::claw::ClawCase::load(&doc).unwrap();
    let model = hydrokern::run::Simulation::build::<f32>(&case, &backend).unwrap();
    assert!(model.describe().contains(&format!("(sweeps {})", roe.best)), "{}", model.describe());
    drop(model);
    let adi = e.find("adi", "step", Precision::F32).unwrap();
    assert_eq!(adi.default, "auto/transposed");
    assert_eq!(adi::tune::launch_for(&gpu, Precision::F32), Some(adi::tune::parse(&adi.best).unwrap()));
    // An ADI scenario that sets neither key runs the tuned pair (the seiche's lines are short
    // enough for every strategy).
    let (strategy, y) = adi::tune::parse(&adi.best).unwrap();
    let doc = hydrokern::scenarios::find("seiche").unwrap().doc().unwrap();
    let case = hydrokern::adi::case::AdiCase::load(&doc).unwrap();
    let line = hydrokern::run::Simulation::build::<f32>(&case, &backend).unwrap().describe();
    assert!(line.contains(&format!("over {y}")), "{line}");
    assert!(
        strategy == hydrokern::adi::gpu::Strategy::Auto || line.contains(&format!("x-sweep {strategy} (")),
        "{line}"
    );

    // An entry for other PTX: ignored (the note is printed once), the defaults are used.
    let mut stale = found.entry.clone();
    stale.key.ptx = "0000000000000000".into();
    cache::store(&path, stale).unwrap();
    assert_eq!(kp::tune::launch_for(&gpu, Precision::F32), None);
    assert_eq!(claw::tune::tuned_shapes::<Shapes>(&gpu, Precision::F32, "shallow-roe"), None);
    assert_eq!(adi::tune::launch_for(&gpu, Precision::F32), None);
    assert!(cache::lookup(&cache::read(&path).0, &tune::key(&gpu)).1.unwrap().contains("other PTX"));

    // A corrupt file: no entry, no panic.
    std::fs::write(&path, "{\"format\": 1, \"entries\": [").unwrap();
    assert_eq!(kp::tune::launch_for(&gpu, Precision::F32), None);
    tune::set_mode(Mode::Off);
    let _ = std::fs::remove_dir_all(&dir);
}

fn key(version: &str) -> Key {
    Key {
        gpu: "NVIDIA H100 80GB HBM3".into(),
        cc: (9, 0),
        sm_count: 132,
        driver: "13.0".into(),
        version: version.into(),
        ptx: "0123456789abcdef".into(),
    }
}

fn record(solver: &str, kernel: &str, size: Vec<u64>, default: String, best: String) -> Record {
    Record {
        solver: solver.into(),
        kernel: kernel.into(),
        precision: Precision::F64,
        size,
        default,
        best,
        default_ms: 1.5,
        best_ms: 1.25,
    }
}

/// The claw and ADI records go through the cache file and read back as the configurations the
/// runs take; an entry of another hydrokern version is ignored with one line naming it.
#[test]
fn claw_and_adi_records_round_trip_and_another_version_is_ignored() {
    let dir = std::env::temp_dir().join(format!("hydrokern-tune-cpu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join(cache::FILE_NAME);
    let s2 = Shapes { x: (4, 2, 4), y: (128, 1, 16) };
    let s3 = Shapes3 { x: (1, 8, 16), y: (32, 4, 64), z: (256, 2, 16) };
    let adi = (hydrokern::adi::gpu::Strategy::Twisted, hydrokern::adi::gpu::YSweep::Columns);
    let entry = Entry {
        key: key(env!("CARGO_PKG_VERSION")),
        tuned_at: "2026-11-24T01:00:00Z".into(),
        elapsed_s: 20.0,
        records: vec![
            record("claw", "shallow-roe", vec![4096, 4096], shapes::label(Shapes::default()), shapes::label(s2)),
            record("claw", "acoustics-3d", vec![256; 3], shapes::label(Shapes3::default()), shapes::label(s3)),
            record("adi", "step", vec![4096, 4096], "auto/transposed".into(), adi::tune::label(adi)),
        ],
    };
    cache::store(&path, entry.clone()).unwrap();
    let (file, note) = cache::read(&path);
    assert!(note.is_none());
    let (got, note) = cache::lookup(&file, &entry.key);
    assert!(note.is_none());
    let got = got.unwrap();
    assert_eq!(got, &entry);
    let best = |solver: &str, kernel: &str| got.find(solver, kernel, Precision::F64).unwrap().best.clone();
    assert_eq!(shapes::parse::<Shapes>(&best("claw", "shallow-roe")).unwrap(), s2);
    assert_eq!(shapes::parse::<Shapes3>(&best("claw", "acoustics-3d")).unwrap(), s3);
    assert_eq!(adi::tune::parse(&best("adi", "step")).unwrap(), adi);
    // A 3D record does not parse as 2D shapes (a record of another build is ignored).
    assert!(shapes::parse::<Shapes>(&best("claw", "acoustics-3d")).is_err());
    assert!(got.find("claw", "shallow-roe", Precision::F32).is_none());

    // Written by another version: no entry, and the note says why.
    let mut old = entry.clone();
    old.key.version = "0.0.9".into();
    cache::store(&path, old).unwrap();
    let (file, _) = cache::read(&path);
    let (got, note) = cache::lookup(&file, &entry.key);
    assert!(got.is_none());
    let note = note.unwrap();
    assert!(note.contains("hydrokern 0.0.9") && note.contains("ignored") && !note.contains('\n'), "{note}");
    let _ = std::fs::remove_dir_all(&dir);
}
