//! Wet–dry fronts (docs/kp-wet-dry.md): a lake at rest whose shoreline cuts through cells, and
//! Thacker's planar surface in a paraboloid, both wet–dry schemes side by side.

use super::{BLOCK, depth};
use hydrokern::Real;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Boundary, Problem, WetDry, exact, setup};

/// The depth a flat surface at `level` leaves in a cell, written out plainly: the cell's bed is
/// taken as the plane from B_lo = 2B̄ − B_hi to B_hi (B̄ the corners' mean, B_hi the highest),
/// so the wet fraction is (level − B_lo)/(B_hi − B_lo) and the water a triangle in section.
fn plain_depth(level: f64, corners: [f64; 4]) -> f64 {
    let mean = corners.iter().sum::<f64>() / 4.0;
    let hi = corners.iter().fold(f64::MIN, |a, &b| a.max(b));
    let lo = 2.0 * mean - hi;
    if level >= hi {
        level - mean
    } else if level <= lo {
        0.0
    } else {
        let wet = (level - lo) / (hi - lo);
        0.5 * wet * (level - lo)
    }
}

/// Largest |u|, |v| over cells deeper than `dry`, and the largest depth gained by a cell that
/// started dry.
fn motion<T: Real>(p: &Problem, m: &CpuKp<T>) -> (f64, f64) {
    let (hu, hv) = (p.interior(m.state()[1]), p.interior(m.state()[2]));
    let f64s = |v: Vec<T>| v.into_iter().map(Real::to_f64).collect::<Vec<f64>>();
    motion_of(p, &depth(p, m), &f64s(hu), &f64s(hv), m.coeffs().dry.to_f64())
}

/// [`motion`] from interior depths and momenta (row-major) and the dry depth.
pub fn motion_of(p: &Problem, h: &[f64], hu: &[f64], hv: &[f64], dry: f64) -> (f64, f64) {
    let (mut u, mut gained) = (0.0f64, 0.0f64);
    for c in 0..h.len() {
        if h[c] > dry {
            let uc = (hu[c].abs() / h[c]).max(hv[c].abs() / h[c]);
            u = u.max(uc);
        }
        if p.h[c] == 0.0 {
            gained = gained.max(h[c]);
        }
    }
    (u, gained)
}

/// The lake at rest of `setup::shore_lake` (24² cells, surface 0.7 m, shoreline through cells)
/// over `steps` RK2 steps; a run that collapses (Δt below the floor) moves infinitely fast.
fn shore_lake<T: Real>(wet_dry: WetDry, boundary: Boundary, steps: usize) -> (f64, f64) {
    let mut p = setup::shore_lake(24, 0.7, boundary);
    p.wet_dry = wet_dry;
    let mut m = CpuKp::<T>::new(&p, BLOCK, false).unwrap();
    for _ in 0..steps {
        if let Err(halt) = m.step(f64::INFINITY) {
            println!(
                "shore lake {} {} {}: {halt:?} after {} steps",
                wet_dry.name(),
                boundary.name(),
                T::NAME,
                m.steps()
            );
            return (f64::INFINITY, f64::INFINITY);
        }
    }
    motion(&p, &m)
}

/// A film between two wet cells flowing apart (the f32 4096² flood's south-west corner at
/// t = 3.996 s, session 2026-11-27n): with momentum slopes (`bollermann`) its faces carry ±½ of
/// the neighbours' momenta over a depth below κ^¼, which desingularization turns into about
/// 500 m/s; `clamp` carries the film's own velocity to its faces, and its fastest face is one
/// of the neighbours' waves, u + √(gh) ≤ 11 m/s. Both face momenta are the face depth times the
/// film's desingularized velocity, written out here.
#[test]
fn a_film_between_diverging_flows_keeps_its_own_velocity() {
    use kernels::kp::{Bollermann, Clamp, cell_faces, desingularize_pair};
    let p = Problem::new(4096, 4096, 100.0, 100.0);
    let k: hydrokern::kp::Coeffs<f64> = p.coeffs((32, 8));
    // (h, hu, hv) along x; the same in every row; a flat bed at 0, so w = h.
    let row = |di: i32| match di {
        ..=-1 => (0.106, -0.598, -2.74),
        0 => (8.15e-5, 9.1e-7, 5.7e-6),
        _ => (0.0448, 0.463, 2.06),
    };
    let q = |di: i32, _dj: i32| row(di);
    let speed = |rate: f64| rate / k.inv_dx.max(k.inv_dy);
    let film = cell_faces::<Clamp, f64>(&k, q, |_, _| 0.0);
    let slopes = cell_faces::<Bollermann, f64>(&k, q, |_, _| 0.0);
    let (c, b) = (speed(film.rhs::<Clamp>(&k).rate), speed(slopes.rhs::<Bollermann>(&k).rate));
    assert!(b > 300.0, "momentum slopes give {b} m/s: the test's film no longer shows the fault");
    assert!(c < 11.0, "clamp's film faces move at {c} m/s");
    let (u, v) = desingularize_pair(k.kappa, 8.15e-5, 9.1e-7, 5.7e-6);
    for face in [film.rx.m, film.rx.p] {
        assert!(face.h <= 8.15e-5 * (1.0 + 1e-12), "a face of the film is {} deep", face.h);
        assert_eq!((face.qn, face.qt), (face.h * u, face.h * v), "a face's momenta are not h·u");
    }
}

/// `clamp`'s face of a partially flooded cell holds the mean depth of a flat surface over the face
/// (its bed linear between the end corners), against a 10 000-point midpoint sum; w = B_mid + h.
/// `bollermann` keeps the depth at the face's middle.
#[test]
fn face_depth_is_the_mean_over_the_face() {
    use kernels::kp::{Bollermann, Clamp, face_bed, flat_face};
    let mut worst = 0.0f64;
    for (b0, b1) in [(0.0, 0.02), (0.3, -0.1), (1.0, 1.0), (-0.5, -0.4999)] {
        let (mid, half) = face_bed(b0, b1);
        for k in 0..=40 {
            let ws = b0.min(b1) - 0.01 + k as f64 / 40.0 * ((b0 - b1).abs() + 0.02);
            let n = 10_000;
            let mean =
                (0..n).map(|s| (ws - (b0 + (b1 - b0) * (s as f64 + 0.5) / n as f64)).max(0.0)).sum::<f64>() / n as f64;
            let (w, h) = flat_face::<Clamp, f64>(ws, (mid, half), 1.0);
            assert!((h - mean).abs() <= 1e-8, "face {b0}..{b1}, level {ws}: depth {h}, mean {mean}");
            assert!((w - (mid + h)).abs() <= 1e-15, "face {b0}..{b1}, level {ws}: w {w} is not B + h");
            worst = worst.max((h - mean).abs());
            let (_, hb) = flat_face::<Bollermann, f64>(ws, (mid, half), 1.0);
            assert_eq!(hb, (ws - mid).max(0.0), "bollermann: the depth at the middle");
        }
    }
    println!("clamp's face depth: within {worst:.1e} m of the mean over the face");
}

/// A film in the lowest corner of a cell tilted along a diagonal (corners b, b + s, b + s,
/// b + 2s: B̄ − B_lo = B_hi − B̄ = s) reaches its two low faces at any depth in `clamp`; with the
/// depth at the faces' middles (`bollermann`) both faces are dry below h̄ = s/16: that water
/// never leaves (the 50² Thacker films, docs/kp-wet-dry.md, fifth round).
#[test]
fn a_corner_film_reaches_its_low_faces() {
    use kernels::kp::{Bollermann, Cell, Clamp, WetDryScheme, face_bed, reconstruct, surface};
    fn faces<S: WetDryScheme>(h: f64, s: f64) -> (f64, f64) {
        let k = setup::thacker(4).coeffs::<f64>(BLOCK);
        let (b, cs) = (0.2, (0.2, 0.2 + s, 0.2 + s, 0.2 + 2.0 * s));
        let (ws, cap) = surface::<S, f64>(&k, b + s + h, cs);
        assert!(cap.is_finite(), "the cell is not partially flooded");
        let c = Cell { w: ws, qn: 0.0, qt: 0.0, cap };
        // Along x: the west face runs from sw to nw, the east one from se to ne.
        let r = reconstruct::<S, f64>(&k, c, c, c, face_bed(cs.0, cs.2), face_bed(cs.1, cs.3));
        (r.m.h, r.p.h)
    }
    let s = 0.016; // Thacker 50² at (±1, ±1) m: B_hi − B̄ = 0.016 m
    for h in [1e-9, 1e-6, 1e-4, 5e-4, 9.9e-4] {
        let (west, east) = faces::<Clamp>(h, s);
        let (west_b, _) = faces::<Bollermann>(h, s);
        println!(
            "corner film h̄ {h:.1e} m, rise {s} m: clamp's west face {west:.2e} m, east {east:.1e}; bollermann's west {west_b:.1e}"
        );
        assert!(west > 0.0 && east == 0.0, "clamp, h̄ {h:e}: west face {west:e}, east {east:e}");
        assert_eq!(west_b, 0.0, "bollermann, h̄ {h:e}: the west face is wet ({west_b:e}): the test would not tell");
    }
    // Above s/16 the middle of the face is under water in both.
    assert!(faces::<Bollermann>(1.1e-3, s).0 > 0.0);
}

/// The set-up fills partially flooded cells with the plain formula's depth (so the test's lake
/// is the scheme's lake at rest, and the shoreline does cut through cells).
#[test]
fn shore_lake_is_filled_to_the_level() {
    let p = setup::shore_lake(24, 0.7, Boundary::Wall);
    let n = p.nx + 1;
    let mut partial = 0;
    for j in 0..p.ny {
        for i in 0..p.nx {
            let c = |a: usize, b: usize| p.bed[(j + b) * n + i + a];
            let corners = [c(0, 0), c(1, 0), c(0, 1), c(1, 1)];
            let want = plain_depth(0.7, corners);
            let got = p.h[j * p.nx + i];
            assert!((got - want).abs() <= 1e-15, "cell ({i}, {j}): {got} vs {want}");
            if corners.iter().any(|&b| b > 0.7) && want > 0.0 {
                partial += 1;
            }
        }
    }
    println!("shore lake 24²: {partial} partially flooded cells");
    assert!(partial >= 20, "only {partial} cells are cut by the shoreline");
}

/// The set-up rounds a lake at rest to the precision of the run by its level: in f32 every
/// fully flooded cell of `shore_lake` holds w̄ = 0.7 rounded (h and B rounded apart and then
/// summed left 119 of the 341 an ulp off, a pressure gradient of g·ulp/Δx that drove currents
/// of 1.8e-5 m/s in 10 000 steps), and each partially flooded cell the w̄ within three ulps of
/// h + B whose w* (what the reconstruction sees) is nearest 0.7; in f64 w̄ is h + B as before.
#[test]
fn shore_lake_starts_level() {
    use kernels::kp::{Bollermann, surface};
    for boundary in [Boundary::Wall, Boundary::Outflow] {
        let p = setup::shore_lake(24, 0.7, boundary);
        let m32 = CpuKp::<f32>::new(&p, BLOCK, false).unwrap();
        let m64 = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
        let (k, b32, b64) = (*m32.coeffs(), m32.bed(), p.interior(m64.cell_bed()));
        let (w32, w64) = (p.interior(m32.state()[0]), p.interior(m64.state()[0]));
        let cb32 = p.interior(m32.cell_bed());
        let (mut flooded, mut partial, mut worst) = (0, 0, 0.0f64);
        for j in 0..p.ny {
            for i in 0..p.nx {
                let c = j * p.nx + i;
                assert_eq!(w64[c].to_bits(), (p.h[c] + b64[c]).to_bits(), "f64 cell ({i}, {j}): w̄ is not h + B");
                if p.h[c] == 0.0 {
                    assert_eq!(w32[c], cb32[c], "f32 cell ({i}, {j}): a dry cell is not at its bed");
                    continue;
                }
                let cc = (j + 2) * k.cpitch as usize + i + 2;
                let cp = k.cpitch as usize;
                let corners = (b32[cc], b32[cc + 1], b32[cc + cp], b32[cc + cp + 1]);
                let level = |w: f32| surface::<Bollermann, f32>(&k, w, corners).0;
                if w32[c] >= corners.0.max(corners.1).max(corners.2.max(corners.3)) {
                    flooded += 1;
                    assert_eq!(w32[c], 0.7f32, "f32 fully flooded cell ({i}, {j}): w̄ {} is not 0.7", w32[c]);
                    continue;
                }
                partial += 1;
                // Its level no farther from 0.7 than its neighbours' in f32, within 3 ulps of h + B.
                let miss = |w: f32| (level(w) as f64 - 0.7).abs();
                let near = (p.h[c] + p.cell_bed(i, j)) as f32;
                let ulp = f32::EPSILON / 2.0;
                assert!((w32[c] - near).abs() <= 3.0 * ulp, "f32 cell ({i}, {j}): w̄ {} far from h + B {near}", w32[c]);
                for n in [w32[c].next_down(), w32[c].next_up()] {
                    if n > cb32[c] {
                        assert!(miss(w32[c]) <= miss(n), "f32 cell ({i}, {j}): w̄ {n} has a level nearer 0.7");
                    }
                }
                worst = worst.max(miss(w32[c]));
            }
        }
        println!(
            "shore lake 24², {}: f32 {flooded} fully flooded cells at 0.7, {partial} partially flooded within {worst:.1e} m",
            boundary.name()
        );
        assert!(flooded >= 100 && partial >= 20, "{flooded} fully and {partial} partially flooded cells");
    }
}

/// Bollermann's reconstruction keeps the lake at rest over 10 000 steps, with the a-priori cap
/// (`bollermann`) and with the draining time step and the velocity clamp (`clamp`) (f64:
/// |u| ≤ 1e-12; f32: ≤ 1e-5 in `clamp`, the target, ≤ 2e-5 in `bollermann`; no dry
/// cell gains water), with walls and with outflow sides; KP07's correction does not (the test
/// can fail).
#[test]
fn shore_lake_stays_at_rest() {
    for boundary in [Boundary::Wall, Boundary::Outflow] {
        for wet_dry in [WetDry::Bollermann, WetDry::Clamp] {
            let (u64_, g64) = shore_lake::<f64>(wet_dry, boundary, 10_000);
            let (u32_, g32) = shore_lake::<f32>(wet_dry, boundary, 10_000);
            println!(
                "shore lake 24², {}: {} 10 000 steps max |u| {u64_:.2e} (f64) {u32_:.2e} (f32), dry cells gain {g64:.1e} / {g32:.1e} m",
                boundary.name(),
                wet_dry.name()
            );
            let what = format!("{} {}", wet_dry.name(), boundary.name());
            assert!(u64_ <= 1e-12 && g64 <= 1e-12, "f64 {what}: |u| {u64_:e}, gain {g64:e}");
            // The issue asks 1e-5 in f32. `clamp` meets it (1.3e-6 walls, 1.6e-6 outflow: the
            // set-up rounds each cell's level, not h and B apart, `shore_lake_starts_level`).
            // `bollermann` reaches 9.1e-6 (walls) and 1.04e-5 (outflow) in cells 3 mm deep at
            // the shore: w̄ is stored in f32, so w* moves by √(rise/h̄) ulps per ulp of w̄ there,
            // and the deep water's round-off currents (not braked at outflow faces) are fast
            // in thin cells that no velocity clamp holds to their neighbours' (docs/kp-wet-dry.md).
            let tol = if wet_dry == WetDry::Clamp { 1e-5 } else { 2e-5 };
            assert!(u32_ <= tol && g32 <= 1e-6, "f32 {what}: |u| {u32_:e} (at most {tol:e}), gain {g32:e}");
        }
        let (ukp, gkp) = shore_lake::<f64>(WetDry::Kp07, boundary, 1000);
        println!("shore lake 24², {}: kp07 1000 steps max |u| {ukp:.2e}, gain {gkp:.1e} m", boundary.name());
        assert!(ukp > 1e-3, "kp07 keeps the lake at rest too ({ukp:e}): the test would not tell");
    }
}

/// `clamp` drains and clamps only partially flooded cells, and a flat bed has none: with κ^¼
/// below the dry depth (no films either), Ritter's dam break (a strip, dry downstream) and the
/// dry circular dam break give `bollermann`'s bits. With the default κ their fronts spread
/// films, whose momenta `clamp` scales (it counts the cells it changed), and the bits differ.
/// On Thacker's bowl the schemes differ whatever κ (the test can fail both ways).
#[test]
fn clamp_leaves_flat_beds_alone_but_their_films() {
    let cases = [
        ("Ritter strip 400", setup::dam_break_strip(400, 1.0, 0.0), 4.0),
        ("dry dam break 64²", setup::dam_break(64, 64, true), 1.0),
        ("Thacker 25²", setup::thacker(25), 0.5),
    ];
    for (case, p, t_end) in cases {
        for films in [false, true] {
            let run = |wet_dry: WetDry| {
                let mut p = p.clone();
                p.wet_dry = wet_dry;
                if !films {
                    p.kappa_depth = 1e-6 / p.dx.min(p.dy) / 2.0; // κ^¼ = 5e-7 m, below dry (1e-6 m)
                }
                super::run::<f64>(&p, t_end)
            };
            let (a, b) = (run(WetDry::Bollermann), run(WetDry::Clamp));
            let same = a.steps() == b.steps()
                && (0..3).all(|f| a.state()[f].iter().zip(b.state()[f]).all(|(x, y)| x.to_bits() == y.to_bits()));
            let (_, clamped) = b.clamp_counts().unwrap();
            println!(
                "{case}, films {films}: {} steps (bollermann), {} (clamp, {clamped} cells clamped), the same bits: {same}",
                a.steps(),
                b.steps()
            );
            let flat = !case.starts_with("Thacker");
            assert_eq!(same, flat && !films, "{case}, films {films}: clamp and bollermann the same bits: {same}");
            if flat {
                assert_eq!(clamped > 0, films, "{case}, films {films}: {clamped} cells clamped");
            }
        }
    }
}

/// A Thacker run to t = T: L1 error of h (m³, over the domain, against the exact cell means),
/// the relative volume change, how far (in cells) the farthest cell deeper than [`FILM`] lies
/// from the exact wet region, and the steps taken.
pub struct Thacker {
    pub l1: f64,
    pub volume: f64,
    pub shore: f64,
    pub steps: u64,
}

/// Depth below which a cell counts as dry for the shoreline: 1% of h₀.
const FILM: f64 = 1e-3;

pub fn thacker_run(n: usize, wet_dry: WetDry) -> Thacker {
    let mut p = setup::thacker(n);
    p.wet_dry = wet_dry;
    let t = exact::thacker_period(p.g);
    let mut m = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
    while m.time() < t {
        m.step(t).unwrap();
    }
    let v = p.volume(m.state()[0], m.cell_bed());
    thacker_measure(&p, t, &depth(&p, &m), v, m.steps())
}

/// The exact depth's mean over cell (i, j) at time `t` (from 4×4 points).
pub fn thacker_mean(p: &Problem, t: f64, i: usize, j: usize) -> f64 {
    let mut want = 0.0;
    for (a, b) in (0..4).flat_map(|a| (0..4).map(move |b| (a, b))) {
        let (x, y) = ((i as f64 + (a as f64 + 0.5) / 4.0) * p.dx, (j as f64 + (b as f64 + 0.5) / 4.0) * p.dy);
        want += exact::thacker(p.g, x, y, t).0 / 16.0;
    }
    want
}

/// A Thacker run's [`Thacker`] figures from its interior depths `h` (row-major) at time `t`,
/// its water volume `v` and its step count.
pub fn thacker_measure(p: &Problem, t: f64, h: &[f64], v: f64, steps: u64) -> Thacker {
    let n = p.nx;
    let v0 = p.initial_volume();
    let exact_h = |x: f64, y: f64| exact::thacker(p.g, x, y, t).0;
    let (mut l1, mut shore) = (0.0f64, 0.0f64);
    for j in 0..n {
        for i in 0..n {
            let want = thacker_mean(p, t, i, j);
            let got = h[j * n + i];
            l1 += (got - want).abs() * p.dx * p.dy;
            if got > FILM {
                // Distance from the cell centre to the exact wet region, in cells, by rings of
                // 64 directions a tenth of a cell apart.
                let (x, y) = p.centre(i, j);
                let near = (0..=10 * n).find(|&r| {
                    let d = r as f64 * 0.1 * p.dx;
                    (0..64).any(|k| {
                        let a = k as f64 * std::f64::consts::TAU / 64.0;
                        exact_h(x + d * a.cos(), y + d * a.sin()) > 0.0
                    })
                });
                shore = shore.max(near.map_or(f64::INFINITY, |r| r as f64 * 0.1));
            }
        }
    }
    Thacker { l1, volume: (v - v0).abs() / v0, shore, steps }
}

/// Runs `ns`, prints the table (errors, orders, step ratios) and checks: volume exact, cells
/// deeper than 1 mm within `shore` cells of the exact shoreline at every size, L1 order ≥
/// `order` per halving of Δx, steps growing at most `growth`× per halving.
fn thacker_study(wet_dry: WetDry, ns: &[usize], order: f64, growth: f64, shore: f64) {
    let runs: Vec<Thacker> = ns
        .iter()
        .map(|&n| {
            let r = thacker_run(n, wet_dry);
            println!(
                "Thacker {n}² ({}) to t = T: L1 {:.3e} m³, volume change {:.1e}, farthest cell deeper than 1 mm {:.1} cells from the exact shore, {} steps",
                wet_dry.name(),
                r.l1,
                r.volume,
                r.shore,
                r.steps
            );
            r
        })
        .collect();
    let orders: Vec<f64> = runs.windows(2).map(|r| (r[0].l1 / r[1].l1).log2()).collect();
    let ratios: Vec<f64> = runs.windows(2).map(|r| r[1].steps as f64 / r[0].steps as f64).collect();
    println!("Thacker {ns:?} ({}): L1 orders {orders:.2?}, step ratios {ratios:.2?}", wet_dry.name());
    for (n, r) in ns.iter().zip(&runs) {
        assert!(r.volume < 1e-13, "{n}²: volume changed by {:e}", r.volume);
        assert!(r.shore <= shore, "{n}²: water {:.1} cells beyond the exact shoreline", r.shore);
    }
    for (k, (o, g)) in orders.iter().zip(&ratios).enumerate() {
        assert!(*o >= order, "{} → {}: L1 order {o:.2} < {order}", ns[k], ns[k + 1]);
        assert!(*g <= growth, "{} → {}: steps grew {g:.2}×", ns[k], ns[k + 1]);
    }
}

/// Thacker at 25², 50², 100² (CI size): see [`thacker_study`]. The issue asks for order ≥ 0.9,
/// steps growing ≤ 2.2× per halving and the shoreline within one cell. `clamp` reaches them
/// (orders 1.51, 1.38, step ratios 2.03, 2.04, water deeper than 1 mm 0.6, 0.5, 0.4 cells from
/// the exact shore); `bollermann` reaches orders 1.26, 0.59, step ratios 2.14, 2.96 and leaves
/// films 6.0, 10.9, 1.0 cells out (docs/kp-wet-dry.md says why), so the test holds it to what
/// it reaches: order ≥ 0.5, growth ≤ 3.2×, 12 cells (KP07: 6.0× from 25² to 50², 7.4× from 50²
/// to 100²).
#[test]
fn thacker_converges() {
    thacker_study(WetDry::Clamp, &[25, 50, 100], 0.9, 2.2, 1.0);
    thacker_study(WetDry::Bollermann, &[25, 50, 100], 0.5, 3.2, 12.0);
    // KP07's correction at 25², for comparison (printed only).
    let r = thacker_run(25, WetDry::Kp07);
    println!("Thacker 25² (kp07): L1 {:.3e} m³, {:.1} cells beyond the shore, {} steps", r.l1, r.shore, r.steps);
}

/// The study, 50² to 400². `clamp` reaches the targets (order ≥ 0.9, steps ≤
/// 2.2× per halving, the shoreline within one cell): orders 1.38, 1.14, 1.00, step ratios 2.04,
/// 2.08, 2.12, water deeper than 1 mm 0.5, 0.4, 0.1, 0.1 cells from the exact shore. `bollermann` does not (docs/kp-wet-dry.md): measured orders 0.59,
/// 0.31, 0.82, step ratios 2.96, 3.19, 2.95, water 5.5 and 11.1 cells beyond the shoreline at
/// 200² and 400²; the test holds it to what it reaches, so that a change for the worse fails.
/// Long: `cargo test --release --test kp -- --ignored --nocapture thacker_converges_to_400`
/// prints each size as it finishes (`clamp`'s four sizes took 3 minutes on two cores,
/// `bollermann`'s about 10).
#[test]
#[ignore = "long: 50² to 400² takes 15 minutes or more, even in release"]
fn thacker_converges_to_400() {
    thacker_study(WetDry::Clamp, &[50, 100, 200, 400], 0.9, 2.2, 1.0);
    thacker_study(WetDry::Bollermann, &[50, 100, 200, 400], 0.3, 3.25, 12.0);
}
