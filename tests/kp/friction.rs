//! Manning's n per cell (a friction field, from a raster of n): a field equal to n everywhere
//! gives the constant's bits, and in a two-zone field each zone's momentum decays as the
//! implicit friction update computed plainly here says.

use super::BLOCK;
use hydrokern::Real;
use hydrokern::input::{Raster, Resample};
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Boundary, Problem, Scheme, WetDry, setup};

/// `steps` steps of `p` on the CPU in precision `T`, early exit as given.
fn steps<T: Real>(p: &Problem, early: bool, steps: usize) -> CpuKp<T> {
    let mut m = CpuKp::<T>::new(p, BLOCK, early).unwrap();
    for _ in 0..steps {
        m.step(f64::INFINITY).unwrap();
    }
    m
}

fn same_bits<T: Real>(what: &str, a: &CpuKp<T>, b: &CpuKp<T>) {
    assert_eq!(a.steps(), b.steps(), "{what}: steps");
    assert_eq!(a.time().to_bits(), b.time().to_bits(), "{what}: t");
    for (f, (x, y)) in a.state().iter().zip(b.state()).enumerate() {
        let k = x.iter().zip(y.iter()).position(|(u, v)| u.to_f64().to_bits() != v.to_f64().to_bits());
        assert!(k.is_none(), "{what}: field {f} differs at padded cell {k:?}");
    }
}

/// A field of n = 0.035 everywhere gives the bits of `manning = 0.035`: the Gaussian hump on a
/// sloping bed (dry cells, a shoreline) and the flood (dry blocks, early exit), every wet–dry
/// schemes, Euler and RK2, f32 and f64.
#[test]
fn a_uniform_field_gives_the_constants_bits() {
    for (name, base) in [("gaussian", setup::gaussian(37, 29)), ("flood", setup::flood(40, 33))] {
        for wet_dry in WetDry::ALL {
            for scheme in [Scheme::Euler, Scheme::Rk2] {
                let mut constant = base.clone();
                (constant.wet_dry, constant.scheme, constant.manning) = (wet_dry, scheme, 0.035);
                let mut field = constant.clone();
                field.manning = 0.0;
                field.manning_field = Some(vec![0.035; field.nx * field.ny]);
                let what = format!("{name} {} {scheme:?}", wet_dry.name());
                let early = name == "flood";
                same_bits(
                    &format!("{what} f64"),
                    &steps::<f64>(&constant, early, 40),
                    &steps::<f64>(&field, early, 40),
                );
                same_bits(
                    &format!("{what} f32"),
                    &steps::<f32>(&constant, early, 40),
                    &steps::<f32>(&field, early, 40),
                );
            }
        }
        // And the friction acted: without it the bits differ.
        let mut none = base.clone();
        none.manning = 0.0;
        let mut with = base.clone();
        with.manning_field = Some(vec![0.035; with.nx * with.ny]);
        assert!(steps::<f64>(&none, false, 40).state()[1] != steps::<f64>(&with, false, 40).state()[1], "{name}");
    }
}

/// Two zones of n read from an ASCII grid (south half n = 0.02, north half 0.08, across a flow
/// in x) on a flat periodic bed of uniform depth: away from the zones' edge the flow stays
/// uniform, R = 0, and each step is exactly the semi-implicit friction update, here computed
/// plainly for each zone from the model's Δt. Cells a zone's edge can reach (two rows a stage)
/// are left out.
#[test]
fn two_zones_decay_as_the_implicit_update_says() {
    let (nx, ny, depth, u0, v0) = (8usize, 128usize, 0.8f64, 1.5f64, -0.5f64);
    let (n_south, n_north) = (0.02, 0.08);
    let mut text = format!("ncols {nx}\nnrows {ny}\nxllcorner 0\nyllcorner 0\ncellsize 1\n");
    for r in 0..ny {
        let n = if r < ny / 2 { n_north } else { n_south }; // the file's first row is the north
        text += &vec![format!("{n}"); nx].join(" ");
        text += "\n";
    }
    let raster = Raster::parse("zones.asc", text.as_bytes()).unwrap();
    for scheme in Scheme::ALL {
        let mut p = Problem::new(nx, ny, nx as f64, ny as f64);
        p.boundary = [Boundary::Periodic; 4];
        p.scheme = scheme;
        p.set_depth(|_, _| depth);
        p.hu.fill(depth * u0);
        p.hv.fill(depth * v0);
        p.manning_field = Some(raster.at_centres(&raster.grid(2).unwrap(), Resample::Nearest).unwrap());
        let mut m = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
        // Plainly: Manning's C_f = g n² |u| / h^{4/3}; hu ← hu / (1 + Δt C_f) per Euler stage,
        // RK2 the mean of Qⁿ and two such stages. The split schemes apply friction in their X
        // substeps only (docs/kp-schemes.md): DS1's step is one Euler update, DS2's double step
        // of 2Δt two RK2 updates of Δt.
        let euler = |n: f64, dt: f64, (hu, hv): (f64, f64)| {
            let cf = 9.81 * n * n * (hu * hu + hv * hv).sqrt() / depth / depth.powf(4.0 / 3.0);
            (hu / (1.0 + dt * cf), hv / (1.0 + dt * cf))
        };
        let mut zone = [(depth * u0, depth * v0); 2];
        // Stages that reach across rows (y): DS2's four Y stages, DS1's one.
        let stages_per_step = match scheme {
            Scheme::Euler | Scheme::Ds1 => 1,
            Scheme::Rk2 | Scheme::Srk2 => 2,
            Scheme::Ds2 => 4,
        };
        // DS2's four Y stages a step reach across 8 rows: fewer steps leave rows to check.
        let n_steps = if scheme == Scheme::Ds2 { 3 } else { 6 };
        for _ in 0..n_steps {
            let dt = m.step(f64::INFINITY).unwrap();
            let rk2 = |n: f64, dt: f64, z: (f64, f64)| {
                let e2 = euler(n, dt, euler(n, dt, z));
                (0.5 * (z.0 + e2.0), 0.5 * (z.1 + e2.1))
            };
            for (z, n) in zone.iter_mut().zip([n_south, n_north]) {
                *z = match scheme {
                    Scheme::Euler | Scheme::Ds1 => euler(n, dt, *z),
                    Scheme::Rk2 | Scheme::Srk2 => rk2(n, dt, *z),
                    Scheme::Ds2 => rk2(n, 0.5 * dt, rk2(n, 0.5 * dt, *z)),
                };
            }
        }
        // The zones' edges lie between rows ny/2 − 1 and ny/2, and (periodic) ny − 1 and 0; R at
        // a cell reads two rows each way, so each stage carries an edge's effect two rows on.
        let reach = 2 * stages_per_step * n_steps;
        let [w, hu, hv] = m.state();
        let mut checked = [0; 2];
        for j in 0..ny {
            // Rows from j to the nearest row of the other zone.
            let to_other = if j < ny / 2 { (ny / 2 - j).min(j + 1) } else { (j + 1 - ny / 2).min(ny - j) };
            if to_other <= reach {
                continue;
            }
            let south = j < ny / 2;
            let (want_u, want_v) = zone[if south { 0 } else { 1 }];
            for i in 0..nx {
                let c = m.coeffs().at(i as u32 + 2, j as u32 + 2);
                let what = format!("{scheme:?} cell ({i}, {j})");
                assert!((w[c] - depth).abs() < 1e-14, "{what}: depth changed: {}", w[c]);
                assert!((hu[c] - want_u).abs() <= 1e-13 * want_u.abs(), "{what}: hu {} against {want_u}", hu[c]);
                assert!((hv[c] - want_v).abs() <= 1e-13 * want_v.abs(), "{what}: hv {} against {want_v}", hv[c]);
            }
            checked[if south { 0 } else { 1 }] += 1;
        }
        assert!(checked[0] >= 4 && checked[1] >= 4, "{scheme:?}: rows checked {checked:?}");
        // The zones decayed by clearly different amounts (the test tells them apart).
        let lost = |z: (f64, f64)| 1.0 - z.0 / (depth * u0);
        assert!(lost(zone[1]) > 3.0 * lost(zone[0]) && lost(zone[0]) > 0.0, "{scheme:?}: {zone:?}");
        println!(
            "{scheme:?}: after {n_steps} steps hu lost {:.3}% (n = {n_south}) and {:.3}% (n = {n_north}); {checked:?} rows checked",
            100.0 * lost(zone[0]),
            100.0 * lost(zone[1])
        );
    }
}
