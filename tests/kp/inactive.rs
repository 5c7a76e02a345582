//! Inactive cells (a DEM's nodata): a frame of them around a domain is the domain's wall
//! sides, bit for bit, in every scheme that has them; a lake at rest among irregular inactive
//! cells stays at rest; water stays out of them and the volume is kept.

use super::run;
use hydrokern::Real;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Boundary, Problem, Scheme, WetDry};

/// `p` (walls all round) inside a frame of `m` inactive cells on a grid `m` cells larger on
/// every side, with `outer` sides; the frame's corners at the lowest bed of `p` (so the
/// scheme's dry threshold, which scales with the largest |B|, is the same).
fn framed(p: &Problem, m: usize, outer: [Boundary; 4]) -> Problem {
    let (nx, ny) = (p.nx + 2 * m, p.ny + 2 * m);
    let mut q = Problem::new(nx, ny, nx as f64 * p.dx, ny as f64 * p.dy);
    (q.dx, q.dy) = (p.dx, p.dy);
    let low = p.bed.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    q.bed.fill(low);
    for j in 0..=p.ny {
        for i in 0..=p.nx {
            q.bed[(j + m) * (nx + 1) + i + m] = p.bed[j * (p.nx + 1) + i];
        }
    }
    let mut active = vec![false; nx * ny];
    for j in 0..p.ny {
        for i in 0..p.nx {
            let (s, d) = (j * p.nx + i, (j + m) * nx + i + m);
            (q.h[d], q.hu[d], q.hv[d]) = (p.h[s], p.hu[s], p.hv[s]);
            active[d] = true;
        }
    }
    q.active = Some(active);
    (q.scheme, q.wet_dry, q.manning, q.theta, q.cfl) = (p.scheme, p.wet_dry, p.manning, p.theta, p.cfl);
    q.boundary = outer;
    q
}

/// The interior fields of `m`'s run of `q` on the cells of `p` (the frame cut off).
fn inside<T: Real>(p: &Problem, q: &Problem, run: &CpuKp<T>, m: usize) -> Vec<Vec<T>> {
    (0..3)
        .map(|f| {
            let all = q.interior(run.state()[f]);
            (0..p.ny).flat_map(|j| (0..p.nx).map(move |i| (j + m) * q.nx + i + m)).map(|d| all[d]).collect()
        })
        .collect()
}

/// Cells of `p` made inactive at random, a fraction `share` of them (dry and still).
pub fn scatter(p: &mut Problem, seed: u64, share: f64) {
    let mut rng = hydrokern::Rng::new(seed ^ 0x5ca7);
    let active: Vec<bool> = (0..p.nx * p.ny).map(|_| rng.unit() >= share).collect();
    for c in (0..p.nx * p.ny).filter(|&c| !active[c]) {
        (p.h[c], p.hu[c], p.hv[c]) = (0.0, 0.0, 0.0);
    }
    p.active = Some(active);
}

fn same_as_walls<T: Real>() {
    let outers = [[Boundary::Outflow; 4], [Boundary::Wall; 4], [Boundary::Periodic; 4]];
    for (n, scheme) in [Scheme::Euler, Scheme::Rk2, Scheme::Srk2].into_iter().enumerate() {
        for wet_dry in WetDry::ALL {
            for (m, kind) in [(1, 0), (2, 1), (3, 0)] {
                let mut p = super::gpu::random_state(11, 7, 40 + n as u64 * 7 + m as u64, kind);
                (p.boundary, p.scheme, p.wet_dry, p.manning_field) = ([Boundary::Wall; 4], scheme, wet_dry, None);
                let q = framed(&p, m, outers[(n + m) % 3]);
                let (a, b) = (run::<T>(&p, 0.4), run::<T>(&q, 0.4));
                let what = format!("{} {} {} frame {m}", T::NAME, scheme.name(), wet_dry.name());
                assert!(a.time() == b.time() && a.steps() == b.steps(), "{what}: the clocks differ");
                let cut = inside(&p, &q, &b, m);
                for (f, cut) in cut.iter().enumerate() {
                    assert!(&p.interior(a.state()[f]) == cut, "{what}: field {f} differs from the walled domain's");
                }
                // The frame holds no water and no momentum.
                let h: Vec<f64> = super::depth(&q, &b);
                let (hu, hv) = (q.interior(b.state()[1]), q.interior(b.state()[2]));
                for c in (0..q.nx * q.ny).filter(|&c| !q.is_active(c)) {
                    assert!(h[c] == 0.0 && hu[c] == T::ZERO && hv[c] == T::ZERO, "{what}: water in inactive cell {c}");
                }
            }
        }
    }
}

#[test]
fn a_frame_of_inactive_cells_is_a_wall_in_f64() {
    same_as_walls::<f64>();
}

#[test]
fn a_frame_of_inactive_cells_is_a_wall_in_f32() {
    same_as_walls::<f32>();
}

/// The lake at rest of the scenario (a wavy bed, two dry islands, the shoreline through cells),
/// among inactive cells scattered at random (single cells, one-cell corridors, corners): every
/// wet–dry scheme keeps it at rest.
#[test]
fn a_lake_among_inactive_cells_stays_at_rest() {
    for wet_dry in WetDry::ALL {
        for seed in 0..3u64 {
            let mut p = hydrokern::kp::setup::lake_at_rest(40, 40);
            p.wet_dry = wet_dry;
            scatter(&mut p, seed, 0.2);
            let m = run::<f64>(&p, 1.0);
            let speed = (1..3).flat_map(|f| p.interior(m.state()[f])).fold(0.0f64, |a, v| a.max(v.abs()));
            assert!(speed < 1e-12, "{} seed {seed}: momentum {speed:.2e} in a lake at rest", wet_dry.name());
        }
    }
}

/// A dam break among random inactive cells inside walls: the volume is kept to round-off, the
/// inactive cells stay dry, and water reaches past them.
#[test]
fn water_flows_around_inactive_cells_and_keeps_its_volume() {
    for wet_dry in WetDry::ALL {
        for scheme in [Scheme::Euler, Scheme::Rk2, Scheme::Srk2] {
            let (nx, ny) = (30, 20);
            let mut p = Problem::new(nx, ny, 30.0, 20.0);
            (p.wet_dry, p.scheme) = (wet_dry, scheme);
            p.set_bed(|x, _| 0.01 * x);
            p.set_surface(|x, _| if x < 8.0 { 1.0 } else { -1.0 });
            let mut rng = hydrokern::Rng::new(7);
            let active: Vec<bool> = (0..nx * ny).map(|c| c % nx < 10 || rng.unit() > 0.25).collect();
            for c in (0..nx * ny).filter(|&c| !active[c]) {
                p.h[c] = 0.0;
            }
            p.active = Some(active);
            let v0: f64 = p.h.iter().sum();
            let m = run::<f64>(&p, 6.0);
            let h = super::depth(&p, &m);
            let what = format!("{} {}", scheme.name(), wet_dry.name());
            let v: f64 = h.iter().sum();
            assert!(((v - v0) / v0).abs() < 1e-13, "{what}: volume changed by {:.2e}", (v - v0) / v0);
            assert!(
                (0..nx * ny).filter(|&c| !p.is_active(c)).all(|c| h[c] == 0.0),
                "{what}: water in an inactive cell"
            );
            let far = (0..ny).map(|j| h[j * nx + nx - 2]).fold(0.0f64, f64::max);
            assert!(far > 1e-3, "{what}: the water did not get past the inactive cells ({far:.2e} m at the far side)");
        }
    }
}

/// The streamed flux kernel's plain strips (its 28 interior columns and the two padded columns
/// either side: padded columns 28s..28s + 32) are those in which no cell, in any row, is
/// inactive or may become so: a ghost beyond a face that lets water only out, or is closed.
#[test]
fn plain_strips_hold_no_cell_that_is_or_may_become_inactive() {
    use hydrokern::forcing::Outlet;
    let (nx, ny) = (100, 10);
    let mut p = Problem::new(nx, ny, nx as f64, ny as f64);
    assert_eq!(p.plain_strips(), [1, 1, 1, 1], "no map");
    let at = |cells: &[(usize, usize)]| Some((0..nx * ny).map(|c| !cells.contains(&(c % nx, c / nx))).collect());
    // Interior column 30 is padded column 32, past strip 0's; 27 (29) is read by strips 0 and 1.
    for (cells, strips) in [(vec![(30, 5)], [1, 0, 1, 1]), (vec![(27, 2)], [0, 0, 1, 1]), (vec![(99, 9)], [1, 1, 1, 0])]
    {
        p.active = at(&cells);
        assert_eq!(p.plain_strips(), strips, "inactive {cells:?}");
    }
    // Across a periodic x axis the west ghosts copy the east cells.
    (p.boundary[0], p.boundary[1]) = (Boundary::Periodic, Boundary::Periodic);
    assert_eq!(p.plain_strips(), [0, 1, 1, 0], "periodic");
    p.active = None;
    p.boundary = [Boundary::Wall, Boundary::NormalDepth, Boundary::Wall, Boundary::Wall];
    assert_eq!(p.plain_strips(), [1, 1, 1, 0], "normal-depth east side");
    p.boundary = [Boundary::Wall, Boundary::Wall, Boundary::NormalDepth, Boundary::Wall];
    assert_eq!(p.plain_strips(), [0, 0, 0, 0], "normal-depth south side");
    // A normal-depth outlet on interior columns 40..50 of the north side, its end faces closed
    // (padded columns 41 to 52): strip 1 alone.
    p.boundary = [Boundary::Wall; 4];
    p.forcing.outlets.push(Outlet { name: "outlet".into(), side: 3, cells: 40..50, normal_depth: true });
    assert_eq!(p.plain_strips(), [1, 0, 1, 1], "normal-depth outlet");
}

/// A slab keeps the whole grid's plain strips, not those of its own rows: the masked kernels
/// choose a strip's march the same way on every rank as on one, which keeps the ranks' results
/// the one-rank run's bit for bit (the two marches need not round alike).
#[test]
fn a_slab_keeps_the_whole_grids_plain_strips() {
    use hydrokern::ranks::Slabs;
    let (nx, ny) = (100, 12);
    let mut p = Problem::new(nx, ny, nx as f64, ny as f64);
    // One inactive cell in the top row, read by strip 1 only.
    p.active = Some((0..nx * ny).map(|c| c != (ny - 1) * nx + 40).collect());
    p.validate().unwrap();
    let start = p.start::<f64>((16, 8)).unwrap();
    assert_eq!(start.plain_strips.as_deref(), Some(&[1u8, 0, 1, 1][..]));
    let bottom = Slabs::new(ny, 2, 2, false).unwrap().slab(0);
    assert_eq!(p.slab(bottom.rows.clone()).unwrap().plain_strips(), [1, 1, 1, 1], "the bottom rows alone");
    let slab = start.slab(&bottom).unwrap();
    assert_eq!(slab.plain_strips, start.plain_strips, "the slab's strips are the whole grid's");
}
