//! Shallow-water cases (`solver = "kp"`) whose terrain and water come from rasters: a run on a
//! grid resampled from a raster, a run on the raster's own grid with paths relative to the case
//! file, and each refused case as one line naming the key.

use crate::common::raster::geotiff;
use hydrokern::case::CaseDoc;
use hydrokern::output::read_npy_f64;
use hydrokern::run::RunOptions;
use hydrokern::{registry, scenarios};
use std::path::{Path, PathBuf};
use tiff::encoder::colortype;

/// A fresh directory for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hydrokern-raster-case-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An Esri ASCII grid of `f` at the cell centres, `nodata` (-9999) where `hole` says.
fn asc(
    ncols: usize,
    nrows: usize,
    west: f64,
    south: f64,
    cell: f64,
    f: impl Fn(f64, f64) -> f64,
    hole: impl Fn(usize, usize) -> bool,
) -> String {
    let mut s = format!(
        "ncols {ncols}\nnrows {nrows}\nxllcorner {west}\nyllcorner {south}\ncellsize {cell}\nNODATA_value -9999\n"
    );
    for r in 0..nrows {
        let y = south + (nrows - 1 - r) as f64 * cell + 0.5 * cell;
        let row: Vec<String> = (0..ncols)
            .map(|i| if hole(i, r) { "-9999".into() } else { format!("{}", f(west + (i as f64 + 0.5) * cell, y)) })
            .collect();
        s += &row.join(" ");
        s += "\n";
    }
    s
}

/// A kp case in `dir` with `grid` (a `[grid]` section or nothing) and `[initial.raster]` keys.
fn case(dir: &Path, grid: &str, raster: &str, t_end: f64) -> PathBuf {
    let out = dir.join("out");
    let text = format!(
        "solver = \"kp\"\n{grid}\n[time]\nt_end = {t_end}\n\n[initial.raster]\n{raster}\n\n[output]\ndir = {:?}\nsnapshots = [0.0]\nformats = [\"npy\"]\nprogress = 1e9\n\n[run]\nbackend = \"cpu\"\n",
        out.to_string_lossy()
    );
    let path = dir.join("case.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn load(path: &Path) -> hydrokern::Result<Box<dyn hydrokern::run::Case>> {
    registry::load(&CaseDoc::read(path)?)
}

/// A field of the run directory: values and NumPy shape.
fn npy(dir: &Path, name: &str) -> (Vec<f64>, Vec<usize>) {
    read_npy_f64(&dir.join("out").join(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn bed(x: f64, y: f64) -> f64 {
    1.0 + 0.01 * x + 0.02 * y
}

/// A lake at 10 m over a planar bed read from an ASCII grid of 12 × 8 cells of 5 m, resampled
/// bilinearly onto a 10 × 6 grid of 4 m inside it: each cell's depth is 10 m less the plane at
/// its centre (the corners are exact, their mean is the centre's value), and the lake stays at
/// rest. A nodata cell where the grid needs no value is harmless.
#[test]
fn lake_at_rest_on_a_resampled_raster() {
    let dir = scratch("lake");
    std::fs::write(dir.join("bed.asc"), asc(12, 8, 100.0, 200.0, 5.0, bed, |i, r| (i, r) == (11, 0))).unwrap();
    let grid = "[grid]\nnx = 10\nny = 6\nlx = 40.0\nly = 24.0\norigin = [105.0, 205.0]\n";
    let path = case(&dir, grid, "bed = \"bed.asc\"\nlevel = 10.0\nresample = \"bilinear\"", 2.0);
    let outcome = load(&path).unwrap().run(&RunOptions::default()).unwrap();
    assert!(outcome.steps > 10, "{} steps", outcome.steps);
    let (h0, dims) = npy(&dir, "h_t0.npy");
    assert_eq!(dims, vec![6, 10]);
    let (h, _) = npy(&dir, &format!("h_t{}.npy", outcome.t));
    let (hu, _) = npy(&dir, &format!("hu_t{}.npy", outcome.t));
    for j in 0..6 {
        for i in 0..10 {
            let (x, y) = (105.0 + (i as f64 + 0.5) * 4.0, 205.0 + (j as f64 + 0.5) * 4.0);
            let want = 10.0 - bed(x, y);
            let k = j * 10 + i;
            assert!((h0[k] - want).abs() < 1e-12, "h[{j}, {i}] = {} at t = 0, expected {want}", h0[k]);
            assert!((h[k] - want).abs() < 1e-10, "h[{j}, {i}] = {} at the end: the lake moved", h[k]);
            assert!(hu[k].abs() < 1e-10, "hu[{j}, {i}] = {}", hu[k]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// No `[grid]`: the grid is the bed raster's cells (a GeoTIFF in a subdirectory, named
/// relative to the case file), the water a surface raster (an ASCII grid). Row 0 of the NPY
/// output is the raster's southern row.
#[test]
fn grid_from_the_raster_with_relative_paths() {
    let dir = scratch("grid");
    std::fs::create_dir_all(dir.join("terrain")).unwrap();
    let (w, h, cell, west, north) = (9usize, 7usize, 2.0, 50.0, 314.0);
    let south = north - h as f64 * cell;
    // The GeoTIFF stores the northern row first.
    let data: Vec<f32> = (0..h)
        .flat_map(|r| (0..w).map(move |i| (i, r)))
        .map(|(i, r)| bed(west + (i as f64 + 0.5) * cell, north - (r as f64 + 0.5) * cell) as f32)
        .collect();
    let tif = geotiff::<colortype::Gray32Float>(w as u32, h as u32, &data, (cell, cell), (west, north), None, false);
    std::fs::write(dir.join("terrain/bed.tif"), tif).unwrap();
    std::fs::write(dir.join("terrain/surface.asc"), asc(w, h, west, south, cell, |_, _| 20.0, |_, _| false)).unwrap();
    let path = case(&dir, "", "bed = \"terrain/bed.tif\"\nsurface = \"terrain/surface.asc\"", 0.5);
    load(&path).unwrap().run(&RunOptions::default()).unwrap();
    let (h0, dims) = npy(&dir, "h_t0.npy");
    assert_eq!(dims, vec![h, w]);
    // Every cell, the edge ones too (their outer corners continue the slope between the
    // centres): the cell's bed is the plane at its centre (to f32 rounding of the stored bed).
    for j in 0..h {
        for i in 0..w {
            let want = 20.0 - bed(west + (i as f64 + 0.5) * cell, south + (j as f64 + 0.5) * cell);
            let got = h0[j * w + i];
            assert!((got - want).abs() < 1e-4, "h[{j}, {i}] = {got}, expected {want}");
        }
    }
    // The bed rises to the north, so the water is deepest in row 0 (south).
    assert!(h0[w + 4] > h0[(h - 2) * w + 4]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each bad case is refused when it is loaded, with one line naming the case file, the key
/// and (where there is one) the raster.
/// A lake at 10 m over the planar bed on a DEM whose nodata (a corner cut off and a hole
/// inside) marks cells outside the domain: the run starts and ends with the inactive cells dry,
/// the lake at rest around them; an inflow into the hole is refused in one line.
#[test]
fn nodata_in_the_bed_marks_inactive_cells() {
    let dir = scratch("inactive");
    let hole = |i: usize, r: usize| i + r < 3 || (i, r) == (6, 4) || (i, r) == (7, 4);
    std::fs::write(dir.join("bed.asc"), asc(12, 8, 100.0, 200.0, 5.0, bed, hole)).unwrap();
    let path = case(&dir, "", "bed = \"bed.asc\"\nlevel = 10.0", 2.0);
    let outcome = load(&path).unwrap().run(&RunOptions::default()).unwrap();
    assert!(outcome.steps >= 5, "{} steps", outcome.steps);
    let (h, dims) = npy(&dir, &format!("h_t{}.npy", outcome.t));
    let (hu, _) = npy(&dir, &format!("hu_t{}.npy", outcome.t));
    assert_eq!(dims, vec![8, 12]);
    for j in 0..8 {
        for i in 0..12 {
            // NPY row 0 is the south; the raster's row r from the north is j = 7 − r.
            let k = j * 12 + i;
            if hole(i, 7 - j) {
                assert!(h[k] == 0.0 && hu[k] == 0.0, "inactive h[{j}, {i}] = {}, hu = {}", h[k], hu[k]);
            } else {
                assert!(h[k] > 1.0 && hu[k].abs() < 1e-10, "h[{j}, {i}] = {}, hu = {}: the lake moved", h[k], hu[k]);
            }
        }
    }
    // An inflow at the hole's centre (x = 100 + 6.5·5, y = 200 + (7 − 4 + 0.5)·5).
    let text = std::fs::read_to_string(&path).unwrap()
        + "\n[[forcing.inflow]]\nname = \"pipe\"\nat = [132.5, 217.5]\ndischarge = 1.0\n";
    std::fs::write(&path, text).unwrap();
    let e = load(&path).err().expect("an inflow into an inactive cell is refused").to_string();
    for want in ["forcing.inflow[0]", "outside the domain", "cell (6, 3)"] {
        assert!(e.contains(want), "'{e}' lacks '{want}'");
    }
    assert_eq!(e.lines().count(), 1, "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rain and soil rasters clipped to a catchment, their nodata where the bed's is: they are read
/// at the domain's cells only, so the case runs (a soil class raster, a raster of conductivity,
/// a frame of rain), the inactive cells dry; the same rasters with nodata under one more cell,
/// an active one, are refused in one line naming the key and the raster.
#[test]
fn rain_and_soil_rasters_may_have_nodata_outside_the_domain() {
    let dir = scratch("clipped");
    let hole = |i: usize, r: usize| i + r < 3 || (i, r) == (6, 4) || (i, r) == (7, 4);
    let wider = |i: usize, r: usize| hole(i, r) || (i, r) == (9, 5);
    let write = |name: &str, f: &dyn Fn(f64, f64) -> f64, h: &dyn Fn(usize, usize) -> bool| {
        std::fs::write(dir.join(name), asc(12, 8, 100.0, 200.0, 5.0, f, h)).unwrap()
    };
    write("bed.asc", &bed, &hole);
    let class = |x: f64, _: f64| if x < 130.0 { 1.0 } else { 2.0 };
    for (name, h) in [("", &hole as &dyn Fn(usize, usize) -> bool), ("-bad", &wider)] {
        write(&format!("classes{name}.asc"), &class, h);
        write(&format!("ks{name}.asc"), &|x, _| 5.0 + 0.1 * x, h);
        write(&format!("rain{name}.asc"), &|_, _| 30.0, h);
    }
    let soils = |classes: &str, ks: &str| match (classes, ks) {
        ("", ks) => format!("conductivity = \"{ks}\"\nsuction = 100.0\ndeficit = 0.3\n"),
        (classes, _) => format!(
            "classes = \"{classes}\"\n[forcing.infiltration.class.1]\nconductivity = 5.0\nsuction = 100.0\ndeficit = 0.3\n[forcing.infiltration.class.2]\nconductivity = 20.0\nsuction = 50.0\ndeficit = 0.2\n"
        ),
    };
    let with = |rain: &str, soil: String| {
        let path = case(&dir, "", "bed = \"bed.asc\"\nlevel = 10.0", 2.0);
        let text = std::fs::read_to_string(&path).unwrap()
            + &format!(
                "\n[forcing.rain]\ngrids = [ {{ time = 0, file = \"{rain}\" }} ]\nend = 1000\n[forcing.infiltration]\nmodel = \"green-ampt\"\n{soil}"
            );
        std::fs::write(&path, text).unwrap();
        path
    };
    for soil in [soils("classes.asc", ""), soils("", "ks.asc")] {
        let path = with("rain.asc", soil.clone());
        let outcome = load(&path).unwrap_or_else(|e| panic!("{soil}: {e}")).run(&RunOptions::default()).unwrap();
        let (h, _) = npy(&dir, &format!("h_t{}.npy", outcome.t));
        for (k, &h) in h.iter().enumerate() {
            let (i, j) = (k % 12, k / 12);
            assert_eq!(h == 0.0, hole(i, 7 - j), "h[{j}, {i}] = {h}: water on the active cells only");
        }
    }
    for (rain, soil, want) in [
        ("rain-bad.asc", soils("classes.asc", ""), ["forcing.rain.grids[0].file", "rain-bad.asc", "nodata"]),
        ("rain.asc", soils("classes-bad.asc", ""), ["forcing.infiltration.classes", "classes-bad.asc", "nodata"]),
        ("rain.asc", soils("", "ks-bad.asc"), ["forcing.infiltration.conductivity", "ks-bad.asc", "nodata"]),
    ] {
        let e = load(&with(rain, soil)).err().expect("nodata under an active cell is refused").to_string();
        for w in want {
            assert!(e.contains(w), "'{e}' lacks '{w}'");
        }
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_raster_cases_are_refused() {
    let dir = scratch("bad");
    std::fs::write(dir.join("bed.asc"), asc(6, 4, 0.0, 0.0, 10.0, bed, |i, r| (i, r) == (2, 1))).unwrap();
    std::fs::write(dir.join("neg.asc"), asc(6, 4, 0.0, 0.0, 10.0, |x, _| 1.0 - 0.1 * x, |_, _| false)).unwrap();
    // Manning's n: negative, too large, NaN (not the nodata value), nodata inside the grid.
    let n_of =
        |v: &str| format!("ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 10\nnodata_value -9999\n0.03 {v}\n");
    for (name, v) in [("neg-n.asc", "-0.01"), ("big-n.asc", "1.5"), ("nan-n.asc", "nan"), ("hole-n.asc", "-9999")] {
        std::fs::write(dir.join(name), n_of(v)).unwrap();
    }
    std::fs::write(dir.join("n.asc"), n_of("0.03")).unwrap();
    let inside = "[grid]\nnx = 2\nny = 1\nlx = 20.0\nly = 10.0\n";
    let both = "[grid]\nnx = 2\nny = 1\nlx = 20.0\nly = 10.0\n[physics]\nmanning = 0.03\n";
    let cases: [(&str, &str, &[&str]); 13] = [
        ("", "bed = \"nope.tif\"\nlevel = 1.0", &["initial.raster.bed", "nope.tif", "No such file"]),
        (
            "[grid]\nnx = 4\nny = 4\nlx = 80.0\nly = 40.0\n",
            "bed = \"bed.asc\"\nlevel = 1.0",
            &["initial.raster.bed", "cell (3, 0)", "lies outside", "bed.asc"],
        ),
        (
            "[grid]\nnx = 1\nny = 1\nlx = 10.0\nly = 10.0\norigin = [20.0, 20.0]\n",
            "bed = \"bed.asc\"\nlevel = 1.0",
            &["initial.raster.bed", "bed.asc", "no cell of the grid lies on data"],
        ),
        (
            inside,
            "bed = \"bed.asc\"\nlevel = 1.0\nsurface = \"bed.asc\"",
            &["initial.raster", "exactly one of surface"],
        ),
        (
            inside,
            "bed = \"bed.asc\"\nlevel = 1.0\nresample = \"cubic\"",
            &["initial.raster.resample", "cubic", "nearest or bilinear"],
        ),
        (
            inside,
            "bed = \"bed.asc\"\ndepth = \"neg.asc\"",
            &["initial.raster.depth", "neg.asc", "must not be negative"],
        ),
        (inside, "bed = \"bed.asc\"\nlevel = nan", &["initial.raster.level", "finite"]),
        (inside, "bed = \"bed.asc\"\nlevel = 1.0\nmanning = 0.03", &["initial.raster.manning"]),
        (
            inside,
            "bed = \"bed.asc\"\nlevel = 1.0\nmanning = \"neg-n.asc\"",
            &["initial.raster.manning", "neg-n.asc", "n = -0.01", "cell (1, 0)", "[0, 1]"],
        ),
        (
            inside,
            "bed = \"bed.asc\"\nlevel = 1.0\nmanning = \"big-n.asc\"",
            &["initial.raster.manning", "big-n.asc", "n = 1.5", "[0, 1]"],
        ),
        (
            inside,
            "bed = \"bed.asc\"\nlevel = 1.0\nmanning = \"nan-n.asc\"",
            &["initial.raster.manning", "nan-n.asc", "finite"],
        ),
        (
            inside,
            "bed = \"bed.asc\"\nlevel = 1.0\nmanning = \"hole-n.asc\"",
            &["initial.raster.manning", "hole-n.asc", "nodata", "row 0 from the north, column 1"],
        ),
        (
            both,
            "bed = \"bed.asc\"\nlevel = 1.0\nmanning = \"n.asc\"",
            &["physics.manning", "initial.raster.manning", "remove physics.manning"],
        ),
    ];
    for (grid, raster, parts) in cases {
        let path = case(&dir, grid, raster, 1.0);
        let e = match load(&path) {
            Ok(_) => panic!("case with {grid:?} {raster:?} loaded; expected a refusal"),
            Err(e) => e.to_string(),
        };
        assert!(!e.contains('\n'), "{e:?} is more than one line");
        assert!(e.contains("case.toml"), "{e:?} does not name the case file");
        for p in parts {
            assert!(e.contains(p), "{e:?} lacks {p:?}");
        }
    }
    // No [grid] and no raster to take it from.
    let path = dir.join("column.toml");
    std::fs::write(
        &path,
        "solver = \"kp\"\n[time]\nt_end = 1.0\n[initial.column]\nradius = 1.0\ninside = 1.0\noutside = 0.5\n",
    )
    .unwrap();
    let e = load(&path).err().expect("refused").to_string();
    assert!(e.contains("grid") && e.contains("missing"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A raster of Manning's n equal to 0.05 everywhere runs the same bits as `physics.manning =
/// 0.05` (the per-cell friction against the constant, through the case files), and differs
/// from a run without friction.
#[test]
fn a_uniform_manning_raster_runs_as_the_constant() {
    let dir = scratch("manning");
    let slope = |x: f64, _: f64| 1.0 - 0.01 * x;
    std::fs::write(dir.join("bed.asc"), asc(12, 8, 0.0, 0.0, 5.0, slope, |_, _| false)).unwrap();
    std::fs::write(dir.join("n.asc"), asc(12, 8, 0.0, 0.0, 5.0, |_, _| 0.05, |_, _| false)).unwrap();
    let run = |physics: &str, n: &str| {
        let path = case(&dir, physics, &format!("bed = \"bed.asc\"\nsurface = \"surf.asc\"\n{n}"), 3.0);
        let outcome = load(&path).unwrap().run(&RunOptions::default()).unwrap();
        let end = format!("_t{}.npy", outcome.t);
        ["h", "hu", "hv"].map(|f| std::fs::read(dir.join("out").join(format!("{f}{end}"))).unwrap())
    };
    // A wedge of water at the west end runs down the slope.
    std::fs::write(
        dir.join("surf.asc"),
        asc(12, 8, 0.0, 0.0, 5.0, |x, _| if x < 20.0 { 1.5 } else { 0.0 }, |_, _| false),
    )
    .unwrap();
    let raster = run("", "manning = \"n.asc\"");
    let constant = run("[physics]\nmanning = 0.05\n", "");
    let none = run("", "");
    for (f, name) in ["h", "hu", "hv"].iter().enumerate() {
        assert!(raster[f] == constant[f], "{name}: the raster of n = 0.05 and the constant differ");
    }
    assert!(raster[1] != none[1], "hu: friction changed nothing");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The sediment basin's initial height from an ASCII grid: on the raster's own grid (no
/// `[grid]`) h is the raster's values, row 0 south; resampled (`nearest`) onto a coarser
/// `[grid]` inside it, each cell takes the raster cell its centre lies in. Both run.
#[test]
fn sediment_height_from_a_raster() {
    let dir = scratch("sediment");
    let (w, h, cell, west, south) = (10usize, 6usize, 100.0, 5000.0, 7000.0);
    let height = |x: f64, y: f64| -20.0 - 0.01 * (x - west) + 0.002 * (y - south) * (x - west) / 100.0;
    std::fs::write(dir.join("h.asc"), asc(w, h, west, south, cell, height, |_, _| false)).unwrap();
    let out = dir.join("out");
    let case = |grid: &str, resample: &str| {
        let text = format!(
            "solver = \"sediment\"\n{grid}\n[time]\nt_end = 100.0\n[boundary]\nwest = {{ inflow = 1.0, sand = 0.5 }}\n[initial.raster]\nh = \"h.asc\"\n{resample}\n[output]\ndir = {:?}\nsnapshots = [0.0]\nformats = [\"npy\"]\nprogress = 1e9\n[run]\nbackend = \"cpu\"\n",
            out.to_string_lossy()
        );
        let path = dir.join("sediment.toml");
        std::fs::write(&path, text).unwrap();
        load(&path).unwrap().run(&RunOptions::default()).unwrap();
        npy(&dir, "h_t0.npy")
    };
    let (h0, dims) = case("", "");
    assert_eq!(dims, vec![h, w]);
    for j in 0..h {
        for i in 0..w {
            let want = height(west + (i as f64 + 0.5) * cell, south + (j as f64 + 0.5) * cell);
            assert!(
                (h0[j * w + i] - want).abs() <= 1e-12 * want.abs(),
                "h[{j}, {i}] = {}, raster {want}",
                h0[j * w + i]
            );
        }
    }
    // 4 × 3 cells of 200 m from (5050, 7000): cell (i, j)'s centre lies in raster cell
    // (2i + 1, 2j + 1), whose value is the function at that cell's centre.
    let grid = "[grid]\nnx = 4\nny = 3\ndx = 200.0\ndy = 200.0\norigin = [5050.0, 7000.0]\n";
    let (h1, dims) = case(grid, "resample = \"nearest\"");
    assert_eq!(dims, vec![3, 4]);
    for j in 0..3 {
        for i in 0..4 {
            let want = height(west + (2.0 * i as f64 + 1.5) * cell, south + (2.0 * j as f64 + 1.5) * cell);
            assert!(
                (h1[j * 4 + i] - want).abs() <= 1e-12 * want.abs(),
                "h[{j}, {i}] = {}, raster {want}",
                h1[j * 4 + i]
            );
        }
    }
    // Both an NPY file and a raster of h, and a raster that misses the grid, are refused.
    let bad = |initial: &str, parts: &[&str]| {
        let path = dir.join("bad.toml");
        std::fs::write(&path, format!("solver = \"sediment\"\n[time]\nt_end = 100.0\n{initial}\n")).unwrap();
        let e = load(&path).err().expect("refused").to_string();
        assert!(!e.contains('\n') && parts.iter().all(|p| e.contains(p)), "{e}");
    };
    bad("[initial]\nh = \"h.npy\"\n[initial.raster]\nh = \"h.asc\"", &["initial.raster.h", "initial.h"]);
    bad(
        "[grid]\nnx = 4\nny = 4\ndx = 200.0\ndy = 200.0\norigin = [5100.0, 7050.0]\n[initial.raster]\nh = \"h.asc\"",
        &["initial.raster.h", "lies outside", "h.asc"],
    );
    bad("[initial]\n", &["grid", "missing"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The built-in scenario reads its terrain from the rasters embedded from examples/data.
#[test]
fn valley_scenario_loads_its_embedded_rasters() {
    let sc = scenarios::find("valley").expect("the valley scenario");
    let case = registry::load(&sc.doc().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    assert!(case.summary().contains("100×50 cells of 20 m × 20 m"), "{}", case.summary());
}

/// `valley --nx 50`: cells without an extent resample the raster over its own extent, the other
/// axis keeping its aspect; a case file that leaves out one axis does the same, and one with
/// neither says which it needs.
#[test]
fn cells_without_an_extent_resample_the_raster() {
    let load_with = |keys: &[(&str, i64)]| {
        let mut doc = scenarios::find("valley").unwrap().doc().unwrap();
        for &(key, n) in keys {
            doc.set(key, n.into(), &format!("--set {key}={n}")).unwrap();
        }
        registry::load(&doc).map(|c| c.summary())
    };
    // The valley is 2000 m × 1000 m from (10000, 20000).
    let s = load_with(&[("grid.nx", 50)]).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.contains("50×25 cells of 40 m × 40 m"), "{s}");
    let s = load_with(&[("grid.ny", 10)]).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.contains("20×10 cells of 100 m × 100 m"), "{s}");
    let s = load_with(&[("grid.nx", 40), ("grid.ny", 40)]).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.contains("40×40 cells of 50 m × 25 m"), "{s}");
    // Through the command line: --nx over the raster, written as a case file that runs the same.
    let dir = scratch("valley-nx");
    let out = dir.join("out");
    let o = std::process::Command::new(crate::cmd::bin())
        .args(["--backend", "cpu", "valley", "--nx", "50", "--t-end", "1", "--output"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, dims) = read_npy_f64(&out.join("h_t1.npy")).unwrap();
    assert_eq!(dims, vec![25, 50]);
    let case = dir.join("valley.toml");
    // The scenario's rasters are written beside the case, where its paths point, and only those.
    let o = crate::cmd::hydrokern(&["valley", "--nx", "50", "--write-case", case.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut written: Vec<String> = std::fs::read_dir(dir.join("data"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["valley-manning.asc", "valley-reservoir.asc", "valley.tif"]);
    for f in &written {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data").join(f);
        assert!(std::fs::read(from).unwrap() == std::fs::read(dir.join("data").join(f)).unwrap(), "{f}");
    }
    let s = load(&case).unwrap_or_else(|e| panic!("{e}")).summary();
    assert!(s.contains("50×25 cells"), "{s}");
    // Written again beside the same data: left as it is. Beside data that differs: refused,
    // nothing written.
    let again = dir.join("again.toml");
    let o = crate::cmd::hydrokern(&["valley", "--write-case", again.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(dir.join("data/valley-manning.asc"), "not the scenario's").unwrap();
    let third = dir.join("third.toml");
    let o = crate::cmd::hydrokern(&["valley", "--write-case", third.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("valley-manning.asc differs from the scenario's"), "{e}");
    assert!(!third.exists());
    // A case that cannot be written (its temporary name is too long for the file system) takes
    // the data written for it, and the directories made for that, away again.
    let fresh = dir.join("fresh");
    let long = fresh.join(format!("{}.toml", "c".repeat(248)));
    let o = crate::cmd::hydrokern(&["valley", "--write-case", long.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("--write-case") && !e.contains("--force"), "{e}");
    assert!(!fresh.exists(), "{e}");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/valley-manning.asc"),
        dir.join("data/valley-manning.asc"),
    )
    .unwrap();
    // A [grid] without cells over a raster names what it needs.
    let path = dir.join("empty-grid.toml");
    let text = std::fs::read_to_string(&case).unwrap().replace("nx = 50", "");
    std::fs::write(&path, text).unwrap();
    let e = load(&path).err().expect("refused").to_string();
    assert!(e.contains("grid.nx: missing: give the cells in x (grid.nx) or in y (grid.ny)"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A raster in degrees (EPSG:4326, cells of 0.0001°) is not read as metres: a geographic
/// coordinate system (GeoKeys, or the `.prj` beside an ASCII grid) is refused in one line
/// saying to reproject; a projected one runs.
#[test]
fn rasters_in_degrees_are_refused() {
    let dir = scratch("degrees");
    let data = vec![1.0f32; 16];
    let tif = |keys: &[u16]| {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut enc = tiff::encoder::TiffEncoder::new(&mut buf).unwrap();
            let mut img = enc.new_image::<colortype::Gray32Float>(4, 4).unwrap();
            img.encoder().write_tag(tiff::tags::Tag::ModelPixelScaleTag, &[0.0001, 0.0001, 0.0][..]).unwrap();
            img.encoder().write_tag(tiff::tags::Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, 8.5, 47.4, 0.0][..]).unwrap();
            img.encoder().write_tag(tiff::tags::Tag::GeoKeyDirectoryTag, keys).unwrap();
            img.write_data(&data).unwrap();
        }
        buf.into_inner()
    };
    let raster = "bed = \"bed.tif\"\nlevel = 2.0";
    let cases: [(&[u16], Option<&str>); 4] = [
        // GTModelTypeGeoKey 2 (geographic), GeographicTypeGeoKey 4326.
        (&[1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326], Some("EPSG:4326")),
        // Only GeographicTypeGeoKey.
        (&[1, 1, 0, 1, 2048, 0, 1, 4258], Some("EPSG:4258")),
        // Projected: UTM 32N.
        (&[1, 1, 0, 2, 1024, 0, 1, 1, 3072, 0, 1, 32632], None),
        // No coordinate system said: read as metres.
        (&[1, 1, 0, 1, 1025, 0, 1, 1], None),
    ];
    for (keys, refused) in cases {
        std::fs::write(dir.join("bed.tif"), tif(keys)).unwrap();
        let path = case(&dir, "", raster, 1.0);
        match (load(&path), refused) {
            (Err(e), Some(code)) => {
                let e = e.to_string();
                for part in ["bed.tif", "geographic", code, "reproject", "metres"] {
                    assert!(e.contains(part) && !e.contains('\n'), "{e:?} lacks {part:?}");
                }
            }
            (Ok(_), None) => {}
            (Err(e), None) => panic!("{keys:?}: refused: {e}"),
            (Ok(_), Some(_)) => panic!("{keys:?}: read a raster in degrees"),
        }
    }
    // An ASCII grid with a .prj beside it: GEOGCS alone is refused, a PROJCS is read.
    std::fs::write(dir.join("bed.asc"), asc(4, 4, 8.5, 47.4, 0.0001, |_, _| 1.0, |_, _| false)).unwrap();
    let raster = "bed = \"bed.asc\"\nlevel = 2.0";
    let geog = r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#;
    std::fs::write(dir.join("bed.prj"), geog).unwrap();
    let e = load(&case(&dir, "", raster, 1.0)).err().expect("refused").to_string();
    assert!(e.contains("bed.prj") && e.contains("geographic") && e.contains("reproject"), "{e}");
    let utm = format!(r#"PROJCS["WGS_1984_UTM_Zone_32N",{geog},PROJECTION["Transverse_Mercator"],UNIT["Meter",1.0]]"#);
    std::fs::write(dir.join("bed.prj"), utm).unwrap();
    std::fs::write(dir.join("bed.asc"), asc(4, 4, 500000.0, 5.2e6, 10.0, |_, _| 1.0, |_, _| false)).unwrap();
    load(&case(&dir, "", raster, 1.0)).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A case file written into another directory (`hydrokern run CASE --write-case OTHER/FILE`)
/// reads the files its source read: its relative paths, rasters in arrays of inline tables and
/// series included, name them from the new directory, comments kept, and its runs give the
/// source's results bit for bit. Written into its own directory, its paths stay as they are.
#[test]
fn a_case_written_elsewhere_reads_the_files_its_source_read() {
    let dir = scratch("write-elsewhere");
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&b).unwrap();
    let source = a.join("storm.toml");
    let o = crate::cmd::hydrokern(&["valley-rain", "--t-end", "120", "--write-case", source.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let moved = b.join("storm.toml");
    let o = crate::cmd::hydrokern(&["run", source.to_str().unwrap(), "--write-case", moved.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&moved).unwrap();
    for line in [
        "bed = \"../a/data/valley.tif\"",
        "{ time = 60, file = \"../a/data/valley-rain-60.asc\" },   # dry: the storm has passed",
        "classes = \"../a/data/valley-soil.asc\"",
    ] {
        assert!(text.contains(line), "{line} not in\n{text}");
    }
    assert!(!b.join("data").exists(), "data copied where the source's are read");
    let runs: Vec<Vec<u8>> = [(&source, "out-a"), (&moved, "out-b")]
        .iter()
        .map(|(case, out)| {
            let out = dir.join(out);
            let args = ["--backend", "cpu", "run", case.to_str().unwrap(), "--output", out.to_str().unwrap()];
            let o = crate::cmd::hydrokern(&args);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            std::fs::read(out.join("max_h.npy")).unwrap()
        })
        .collect();
    assert!(runs[0] == runs[1], "the moved case's run differs from its source's");
    let beside = a.join("again.toml");
    let o = crate::cmd::hydrokern(&["run", source.to_str().unwrap(), "--write-case", beside.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(&beside).unwrap().contains("bed = \"data/valley.tif\""));
    // A case too large for this machine is written all the same (to run on a larger one), with a
    // note that it did not load here.
    let large = b.join("large.toml");
    let args = ["run", source.to_str().unwrap(), "--nx", "400000", "--write-case", large.to_str().unwrap()];
    let o = crate::cmd::hydrokern(&args);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && e.contains("does not load here") && e.contains("memory"), "{e}");
    assert!(std::fs::read_to_string(&large).unwrap().contains("nx = 400000"));
}
