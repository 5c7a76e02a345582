use super::*;
use crate::case::Check;
use crate::grid::{Grid2, Layout2};
use proptest::prelude::*;

fn spec(gauges: &[(&str, f64, f64)]) -> Spec {
    Spec { gauges: gauges.iter().map(|&(n, x, y)| Gauge { name: n.into(), x, y }).collect(), ..Spec::default() }
}

#[test]
fn gauges_sit_in_the_cell_holding_their_point() {
    // 4 × 2 cells of 2.5 m × 5 m from (100, 200).
    let g = Grid2 { nx: 4, ny: 2, dx: 2.5, dy: 5.0, origin: (100.0, 200.0), halo: 2 };
    let s = spec(&[("sw", 100.0, 200.0), ("mid", 103.0, 206.0), ("face", 105.0, 205.0), ("ne", 110.0, 210.0)]);
    // (0, 0); (1, 1); on the face x = 105 between cells 1 and 2: cell 2, row 1; the north-east
    // corner: the last cell.
    assert_eq!(s.cells(&g).unwrap(), [0, 4 + 1, 4 + 2, 4 + 3]);
    for (x, y) in [(99.99, 205.0), (105.0, 210.01), (f64::NAN, 205.0)] {
        let e = spec(&[("out", x, y)]).cells(&g).unwrap_err().to_string();
        assert!(e.contains("gauge out") && e.contains("outside the domain"), "{e}");
    }
}

/// A state as the plain definition sees it: (t, h, hu, hv), interior cells.
type Plain = (f64, Vec<f64>, Vec<f64>, Vec<f64>);

/// The maps as the files show them at the last state, by their definition, written out
/// plainly over a sequence of states (the first at t = 0), in the order of [`MAPS`] less
/// `wet_since`: maxima of the wet depth, speed and |(hu, hv)|, the time the depth's maximum was
/// reached, the arrival time (none for cells flooded at t = 0), and the time spent flooded
/// (spell by spell: from the first state above the threshold to the first below, or the end).
fn plain_maps(dry: f64, thr: f64, states: &[Plain]) -> [Vec<f64>; SHOWN] {
    let n = states[0].1.len();
    let mut out = [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![f64::NAN; n], vec![f64::NAN; n], vec![0.0; n]];
    let end = states.last().unwrap().0;
    for c in 0..n {
        let mut start = None;
        for (k, (t, h, hu, hv)) in states.iter().enumerate() {
            if h[c] > dry {
                if h[c] > out[0][c] {
                    out[0][c] = h[c];
                    out[3][c] = *t;
                }
                out[1][c] = out[1][c].max((hu[c] * hu[c] + hv[c] * hv[c]).sqrt() / h[c]);
                out[2][c] = out[2][c].max((hu[c] * hu[c] + hv[c] * hv[c]).sqrt());
            }
            let flooded = h[c] > thr;
            if flooded && out[4][c].is_nan() && k > 0 && states[..k].iter().all(|s| s.1[c] <= thr) {
                out[4][c] = *t;
            }
            match (flooded, start) {
                (true, None) => start = Some(*t),
                (false, Some(s)) => {
                    out[5][c] += t - s;
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out[5][c] += end - s;
        }
    }
    out
}

proptest! {
    /// The CPU products over random states against their definition: maps by [`plain_maps`],
    /// gauges equal to the field at their cell at every sampled step, on padded arrays whose
    /// ghosts hold values that must not be read.
    #[test]
    fn cpu_products_follow_their_definition(
        nx in 1usize..9, ny in 1usize..7, steps in 1u64..12, every in 1u64..4, seed in any::<u64>(), surface in any::<bool>(),
        shallow_arrival in any::<bool>(),
    ) {
        let mut rng = crate::Rng::new(seed);
        let layout = Layout2::new(nx as u32, ny as u32, 2);
        // An arrival threshold above the dry depth, or below it (water arrives before it
        // counts as wet).
        let (dry, thr) = (0.05, if shallow_arrival { 0.02 } else { 0.3 });
        let f = Fields::on(layout, surface, dry, thr);
        let cells: Vec<u32> = (0..3).map(|_| (rng.unit() * (nx * ny) as f64) as u32 % (nx * ny) as u32).collect();
        let mut s = spec(&[("a", 0.0, 0.0), ("b", 0.0, 0.0), ("c", 0.0, 0.0)]);
        s.maxima = true;
        s.every = every;
        s.arrival_depth = thr;
        let mut k = CpuProducts::new(&s, f, cells.clone());
        let interior = |v: &[f64]| crate::field::interior_of(&layout, v);
        let mut states = Vec::new();
        let mut t = 0.0;
        for step in 0..=steps {
            // Ghosts hold 1e9: a product that reads one shows it.
            let mut fill = |scale: f64, lo: f64| {
                let mut v = vec![1e9; layout.len()];
                for j in 0..ny {
                    for i in 0..nx {
                        v[(j + 2) * layout.pitch as usize + i + 2] = lo + scale * rng.unit();
                    }
                }
                v
            };
            let (h, bed, hu, hv) = (fill(1.0, -0.2), fill(2.0, -1.0), fill(2.0, -1.0), fill(2.0, -1.0));
            let level: Vec<f64> = if surface { h.iter().zip(&bed).map(|(h, b)| h + b).collect() } else { h.clone() };
            k.update(&level, &bed, &hu, &hv, t, step);
            // The depth as the products see it (the surface minus the bed rounds).
            let hh: Vec<f64> = if surface { level.iter().zip(&bed).map(|(w, b)| w - b).collect() } else { h.clone() };
            states.push((t, interior(&hh), interior(&hu), interior(&hv), interior(&level), interior(&bed)));
            t += 0.25 + rng.unit();
        }
        let p = k.products(true);
        let plain: Vec<_> = states.iter().map(|(t, h, hu, hv, _, _)| (*t, h.clone(), hu.clone(), hv.clone())).collect();
        let want = plain_maps(dry, thr, &plain);
        let shown = shown(p.maps.clone(), plain.last().unwrap().0);
        prop_assert_eq!(shown.len(), want.len());
        for (m, w) in shown.iter().zip(&want) {
            for (a, b) in m.data.iter().zip(w) {
                prop_assert!(a == b || (a.is_nan() && b.is_nan()), "{}: {a} vs {b}", m.name);
            }
        }
        for (g, &c) in p.series.iter().zip(&cells) {
            let sampled: Vec<_> = states.iter().enumerate().filter(|(n, _)| (*n as u64).is_multiple_of(every)).map(|(_, s)| s).collect();
            prop_assert_eq!(g.times.len(), sampled.len());
            for ((t, v), (ts, h, hu, hv, level, bed)) in g.times.iter().zip(&g.values).zip(sampled) {
                let c = c as usize;
                let eta = if surface { level[c] } else { h[c] + bed[c] };
                prop_assert_eq!(*t, *ts);
                prop_assert_eq!(*v, [h[c], hu[c], hv[c], eta]);
            }
        }
    }
}

proptest! {
    /// A cell [`maxima_stand`] lets the GPU kernel pass over (its momenta and three maps not
    /// read) is one [`update_maxima`] leaves as it is: any momenta, any maps reachable from
    /// their start at 0, an arrival threshold on either side of the dry depth, depths down to
    /// below the bed.
    #[test]
    fn cells_the_kernel_passes_over_change_no_map(
        h in -2.0f64..0.5, hu in -5.0f64..5.0, hv in -5.0f64..5.0, m in prop::array::uniform3(0.0f64..3.0),
        zero in prop::array::uniform3(any::<bool>()), shallow_arrival in any::<bool>(),
    ) {
        let thr = if shallow_arrival { 0.02 } else { 0.3 };
        let f = Fields::on(Layout2::new(1, 1, 2), true, 0.05, thr);
        let old: [f64; 3] = std::array::from_fn(|k| if zero[k] { 0.0 } else { m[k] });
        let mut new = old;
        let arrives = kernels::products::update_maxima(&f, h, hu, hv, &mut new);
        if kernels::products::maxima_stand(&f, h) {
            prop_assert!(!arrives && new == old, "h = {h}: {old:?} became {new:?} (arrives: {arrives})");
        }
    }
}

#[test]
fn spec_checks_name_the_key() {
    let doc =
        crate::case::CaseDoc::parse(crate::case::Origin::Builtin { name: "t", data: &[] }, "solver = \"kp\"\n".into())
            .unwrap();
    let c = Check::new(&doc);
    let bad = |s: Spec, key: &str, what: &str| {
        let e = s.check(&c).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(what), "{e}");
    };
    bad(Spec { every: 0, ..Spec::default() }, "output.gauge_every", "must be 1");
    bad(Spec { arrival_depth: 0.0, ..Spec::default() }, "output.arrival_depth", "positive");
    bad(Spec { arrival_depth: f64::NAN, ..Spec::default() }, "output.arrival_depth", "positive");
    bad(spec(&[("a b", 0.0, 0.0)]), "output.gauges", "names a file");
    bad(spec(&[("", 0.0, 0.0)]), "output.gauges", "names a file");
    bad(spec(&[("a", 0.0, 0.0), ("a", 1.0, 1.0)]), "output.gauges", "used twice");
    bad(spec(&[("a", f64::INFINITY, 0.0)]), "output.gauges", "finite");
    let many: Vec<_> = (0..=MAX_GAUGES).map(|k| Gauge { name: format!("g{k}"), x: 0.0, y: 0.0 }).collect();
    bad(Spec { gauges: many, ..Spec::default() }, "output.gauges", "at most");
    assert!(spec(&[("a-1_B", 0.0, 0.0)]).check(&c).is_ok());
}

proptest! {
    /// The views other solvers hand over, against plain index arithmetic: cells of three values
    /// interleaved in one padded array (depth over a flat bed: the wave-propagation solver), and
    /// a staggered grid without ghosts whose momenta are the means of each cell's two faces over
    /// a still-water depth (ADI). Maps by [`plain_maps`], gauges equal to the plain values.
    #[test]
    fn cpu_products_read_interleaved_and_staggered_fields(
        nx in 1usize..8, ny in 1usize..6, steps in 1u64..6, seed in any::<u64>(), staggered in any::<bool>(),
    ) {
        let mut rng = crate::Rng::new(seed);
        let (dry, thr) = (0.05, 0.3);
        let n = nx * ny;
        let layout = Layout2::new(nx as u32, ny as u32, 2);
        let (x, y) = (nx as u32, ny as u32);
        let f = if staggered {
            let cells = View { origin: 0, row: x, col: 1, pair: 0 };
            let views = [cells, cells, View { origin: 0, row: x + 1, col: 1, pair: 1 }, View { origin: 0, row: x, col: 1, pair: x }];
            Fields::of(x, y, views, LEVEL_ELEVATION, dry, thr)
        } else {
            let v = View::padded(layout);
            let wide = |k: u32| View { origin: v.origin * 3 + k, row: v.row * 3, col: 3, pair: 0 };
            Fields::of(x, y, [wide(0), wide(0), wide(1), wide(2)], LEVEL_DEPTH_FLAT, dry, thr)
        };
        let cells: Vec<u32> = (0..4).map(|_| (rng.unit() * n as f64) as u32 % n as u32).collect();
        let mut s = spec(&[("a", 0.0, 0.0), ("b", 0.0, 0.0), ("c", 0.0, 0.0), ("d", 0.0, 0.0)]);
        s.maxima = true;
        s.arrival_depth = thr;
        let mut k = CpuProducts::new(&s, f, cells.clone());
        // Per step: (t, h, hu, hv, eta) of the interior cells, as written out plainly.
        let mut states: Vec<(f64, [Vec<f64>; 4])> = Vec::new();
        let mut t = 0.0;
        for step in 0..=steps {
            let mut r = |lo: f64, scale: f64| lo + scale * rng.unit();
            let mut plain: [Vec<f64>; 4] = Default::default();
            if staggered {
                let zeta: Vec<f64> = (0..n).map(|_| r(-0.5, 1.0)).collect();
                let d: Vec<f64> = (0..n).map(|_| r(-0.5, 1.5)).collect();
                let p: Vec<f64> = (0..(nx + 1) * ny).map(|_| r(-1.0, 2.0)).collect();
                let q: Vec<f64> = (0..nx * (ny + 1)).map(|_| r(-1.0, 2.0)).collect();
                k.update(&zeta, &d, &p, &q, t, step);
                for c in 0..n {
                    let (i, j) = (c % nx, c / nx);
                    plain[0].push(d[c] + zeta[c]);
                    plain[1].push(0.5 * (p[j * (nx + 1) + i] + p[j * (nx + 1) + i + 1]));
                    plain[2].push(0.5 * (q[j * nx + i] + q[(j + 1) * nx + i]));
                    plain[3].push(zeta[c]);
                }
            } else {
                // Ghost cells hold 1e9: a product that reads one shows it.
                let mut q = vec![1e9; 3 * layout.len()];
                for c in 0..n {
                    let g = (c / nx + 2) * layout.pitch as usize + c % nx + 2;
                    let v = [r(-0.2, 1.0), r(-1.0, 2.0), r(-1.0, 2.0)];
                    q[3 * g..3 * g + 3].copy_from_slice(&v);
                    plain[0].push(v[0]);
                    plain[1].push(v[1]);
                    plain[2].push(v[2]);
                    plain[3].push(v[0]);
                }
                k.update(&q, &q, &q, &q, t, step);
            }
            states.push((t, plain));
            t += 0.25 + rng.unit();
        }
        let p = k.products(true);
        let plain: Vec<Plain> = states.iter().map(|(t, [h, hu, hv, _])| (*t, h.clone(), hu.clone(), hv.clone())).collect();
        for (m, w) in shown(p.maps.clone(), plain.last().unwrap().0).iter().zip(&plain_maps(dry, thr, &plain)) {
            for (a, b) in m.data.iter().zip(w) {
                prop_assert!(a == b || (a.is_nan() && b.is_nan()), "{}: {a} vs {b}", m.name);
            }
        }
        for (g, &c) in p.series.iter().zip(&cells) {
            prop_assert_eq!(g.times.len(), states.len());
            for ((t, v), (ts, fields)) in g.times.iter().zip(&g.values).zip(&states) {
                prop_assert_eq!(*t, *ts);
                prop_assert_eq!(*v, fields.clone().map(|f| f[c as usize]));
            }
        }
    }
}

/// The files show no arrival for cells wet from the start: the map's t = 0 (which only the
/// initial state has) becomes NaN, like a cell never reached; every later time stays.
#[test]
fn cells_wet_from_the_start_have_no_arrival_in_the_files() {
    let shown = [0.0f32, 0.25, f32::NAN, 1e-30].map(super::arrival_shown);
    assert!(shown[0].is_nan() && shown[2].is_nan(), "{shown:?}");
    assert_eq!((shown[1], shown[3]), (0.25, 1e-30));
}

/// The flooding's duration is the same whether the update runs once or again at the same time
/// (a step of Δt = 0, a trial step the control rejects), and a spell going on counts up to the
/// time the files are written.
#[test]
fn flooding_spells_repeat_nothing_and_count_to_the_time_shown() {
    let layout = Layout2::new(1, 1, 0);
    let f = Fields::on(layout, false, 0.0, 0.1);
    let mut s = spec(&[]);
    s.maxima = true;
    s.arrival_depth = 0.1;
    let mut k = CpuProducts::new(&s, f, Vec::new());
    let zero = [0.0];
    // Dry, flooded from t = 1 to t = 3, dry, flooded again from t = 6 on.
    for (t, h) in [(0.0, 0.0), (1.0, 0.5), (1.0, 0.5), (2.0, 0.7), (3.0, 0.0), (3.0, 0.0), (6.0, 0.2)] {
        k.update(&[h], &zero, &zero, &zero, t, 0);
    }
    let maps = shown(k.products(true).maps, 10.0);
    let map = |name: &str| maps.iter().find(|m| m.name == name).unwrap().data[0];
    assert_eq!(map("duration"), 2.0 + 4.0);
    assert_eq!((map("arrival"), map("max_h"), map("max_h_time")), (1.0, 0.7, 2.0));
    assert!(maps.iter().all(|m| m.name != "wet_since"));
}
