//! The start of a run made straight from its cells' values (`Claw2::of_cells` and
//! `slab_of_part`, in 3D `Claw3`'s) against the same written out plainly here: the state padded
//! with zero ghosts, the auxiliary fields' ghosts filled axis by axis from their sources as the
//! sweeps fill ghosts (`kernels::halo::edge_ghost`), the first Δt from every interface of the
//! state whose ghosts a sweep has filled (`sweep_input`), and every slab's padded fields, made
//! from the part of the cells rank 0 hands it (`claw::part`), the whole grid's rows (planes).
//! Random values, sizes down to one cell (thinner than the ghost layers), every side's
//! condition, f32 and f64.

use crate::common::ranks::bits;
use hydrokern::claw::cpu::{Claw2, HALO, Setup};
use hydrokern::claw::d3::cpu::{Claw3, Setup3, rows_of};
use hydrokern::claw::part::SlabPart;
use hydrokern::claw::{Acoustics2d, Acoustics3d, Cfl, Limiter, Riemann, ShallowRoe, Shape, Splitting};
use hydrokern::grid::Layout2;
use hydrokern::ranks::threads::Threads;
use hydrokern::ranks::{Comm, Halo, Slabs};
use hydrokern::{GpuReal, Rng};
use kernels::grid::Layout3;
use kernels::halo::{EXTRAPOLATE, PERIODIC, WALL, edge_ghost, edge_ghost3, ghosts_x, ghosts_y, ghosts3};
use proptest::prelude::*;
use std::ops::Range;
use std::rc::Rc;

/// Fills the ghosts `ghosts` of `v`, each with its source's value, the component `normal`
/// negated where a wall mirrors it.
fn fill<T: GpuReal, const N: usize>(
    v: &mut [[T; N]],
    normal: Option<usize>,
    ghosts: impl Iterator<Item = kernels::halo::Ghost>,
) {
    for g in ghosts {
        let mut x = v[g.source];
        if let Some(m) = normal.filter(|_| g.mirrored && g.bc == WALL) {
            x[m] = -x[m];
        }
        v[g.ghost] = x;
    }
}

/// The interior values `cells` (x fastest) at their places in a padded array of `len`, the
/// ghosts zero.
fn padded<T: GpuReal, const N: usize>(len: usize, at: impl Fn(usize) -> usize, cells: &[[T; N]]) -> Vec<[T; N]> {
    let mut out = vec![[T::ZERO; N]; len];
    for (c, v) in cells.iter().enumerate() {
        out[at(c)] = *v;
    }
    out
}

/// `cfl` over the largest wave speed at the interfaces `pairs` yields per axis (padded indices
/// of each interface's two cells in the state `q[dir]` whose ghosts across `dir` are filled).
fn first_dt<T: GpuReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    solver: &R,
    q: &[Vec<[T; M]>],
    aux: &[[T; A]],
    pairs: &[Vec<(usize, usize)>],
    spacing: &[f64],
    cfl: f64,
) -> f64 {
    let mut rate = 0.0f64;
    for (dir, pairs) in pairs.iter().enumerate() {
        let q = &q[dir];
        let speed = pairs
            .iter()
            .fold(T::ZERO, |s, &(l, r)| s.max(solver.solve(dir, &q[l], &q[r], &aux[l], &aux[r]).max_speed()));
        rate = rate.max(speed.to_f64() / spacing[dir]);
    }
    if rate > 0.0 { cfl / rate } else { f64::INFINITY }
}

/// Random interior values: `lo..hi` for each component.
fn values<T: GpuReal, const N: usize>(rng: &mut Rng, cells: usize, range: [(f64, f64); N]) -> Vec<[T; N]> {
    (0..cells)
        .map(|_| std::array::from_fn(|m| T::from_f64(range[m].0 + (range[m].1 - range[m].0) * rng.unit())))
        .collect()
}

/// A rank's halo for `slab` of `slabs`, over the slab's padded `layout` (nothing is exchanged).
fn halo(comm: Threads, slabs: &Slabs, layout: Layout2) -> Halo {
    let s = slabs.slab(comm.rank());
    Halo::new(Rc::new(comm) as Rc<dyn Comm>, s, layout)
}

/// The part of `q`, `aux` on `shape` the slab of `rows` starts from, with first Δt `dt`, as it
/// arrives (encoded and decoded); a slab of other rows refuses it.
fn part<T: GpuReal, const M: usize, const A: usize>(
    shape: &Shape,
    rows: Range<usize>,
    dt: f64,
    q: &[[T; M]],
    aux: &[[T; A]],
) -> SlabPart {
    let value = |f: usize, c: usize| if f < M { q[c][f].to_f64() } else { aux[c][f - M].to_f64() };
    let part = SlabPart::of(shape, rows.clone(), dt, M + A, value).unwrap();
    let bytes = part.encode();
    assert!(SlabPart::decode(&bytes[..bytes.len() - 1]).is_err(), "rows {rows:?}: a part cut short");
    let arrived = SlabPart::decode(&bytes).unwrap();
    assert_eq!(arrived, part);
    arrived
}

/// `solver`'s 2D start of `q`, `aux` on `setup` against the plain one, whole and cut into every
/// rank count from 1 to 4 its rows allow.
fn check2<T: GpuReal, R: Riemann<T, M, W, A> + Copy, const M: usize, const W: usize, const A: usize>(
    solver: R,
    setup: Setup,
    q: &[[T; M]],
    aux: &[[T; A]],
) -> Result<(), TestCaseError> {
    let (nx, ny) = (setup.nx, setup.ny);
    let l = Layout2::new(nx as u32, ny as u32, HALO);
    let at = |c: usize| l.at((c % nx) as i32, (c / nx) as i32);
    let run = Claw2::of_cells(solver, setup, |c| q[c], |c| aux[c]).unwrap();
    // The plain start: zero ghosts, the auxiliary ghosts filled along x then y.
    let bc = setup.bc;
    let mut want_aux = padded(l.len(), at, aux);
    fill(&mut want_aux, None, (0..ghosts_x(&l)).filter_map(|t| edge_ghost(&l, bc, 0, t)));
    fill(&mut want_aux, None, (0..ghosts_y(&l)).filter_map(|t| edge_ghost(&l, bc, 1, t)));
    let (got_q, got_aux) = run.padded();
    prop_assert_eq!(bits(got_q.as_flattened()), bits(padded(l.len(), at, q).as_flattened()));
    prop_assert_eq!(bits(got_aux.as_flattened()), bits(want_aux.as_flattened()));
    let filled = [run.sweep_input(0).0, run.sweep_input(1).0];
    let along_x = (0..ny as i32).flat_map(|j| (0..=nx as i32).map(move |c| (l.at(c - 1, j), l.at(c, j)))).collect();
    let along_y = (0..nx as i32).flat_map(|i| (0..=ny as i32).map(move |c| (l.at(i, c - 1), l.at(i, c)))).collect();
    let dt = first_dt(&solver, &filled, &want_aux, &[along_x, along_y], &[setup.dx, setup.dy], setup.cfl.desired);
    prop_assert_eq!(run.next_dt().to_bits(), dt.to_bits());
    prop_assert_eq!(Claw2::first_dt_of_cells(&solver, setup, |c| q[c], |c| aux[c]).unwrap().to_bits(), dt.to_bits());
    let pitch = l.pitch as usize;
    for ranks in 1..=4 {
        let Ok(slabs) = Slabs::new(ny, ranks, HALO as usize, bc[2] == PERIODIC) else { continue };
        for comm in Threads::group(ranks) {
            let rows = slabs.slab(comm.rank()).rows;
            let layout = Layout2::new(nx as u32, rows.len() as u32, HALO);
            let part = part(&setup.shape(), rows.clone(), dt, q, aux);
            let (slab, _) = Claw2::slab_of_part(solver, setup, &part, halo(comm, &slabs, layout)).unwrap();
            let span = rows.start * pitch..(rows.end + 2 * HALO as usize) * pitch;
            let (sq, saux) = slab.padded();
            prop_assert_eq!(
                bits(sq.as_flattened()),
                bits(got_q[span.clone()].as_flattened()),
                "rows {:?} of {}",
                rows,
                ny
            );
            prop_assert_eq!(
                bits(saux.as_flattened()),
                bits(want_aux[span].as_flattened()),
                "rows {:?} of {}",
                rows,
                ny
            );
        }
    }
    Ok(())
}

/// [`check2`] in 3D, the slabs cut across z.
fn check3<T: GpuReal, R: Riemann<T, M, W, A> + Copy, const M: usize, const W: usize, const A: usize>(
    solver: R,
    setup: Setup3,
    q: &[[T; M]],
    aux: &[[T; A]],
) -> Result<(), TestCaseError> {
    let [nx, ny, nz] = [setup.nx, setup.ny, setup.nz];
    let l: Layout3 = setup.layout();
    let at = |c: usize| l.at((c % nx) as i32, ((c / nx) % ny) as i32, (c / nx / ny) as i32);
    let run = Claw3::of_cells(solver, setup, |c| q[c], |c| aux[c]).unwrap();
    let mut want_aux = padded(l.len(), at, aux);
    for axis in 0..3 {
        fill(&mut want_aux, None, (0..ghosts3(&l, axis)).filter_map(|t| edge_ghost3(&l, setup.bc, axis, t)));
    }
    let (got_q, got_aux) = run.padded();
    prop_assert_eq!(bits(got_q.as_flattened()), bits(padded(l.len(), at, q).as_flattened()));
    prop_assert_eq!(bits(got_aux.as_flattened()), bits(want_aux.as_flattened()));
    let filled = [run.sweep_input(0).0, run.sweep_input(1).0, run.sweep_input(2).0];
    let n = [nx as i32, ny as i32, nz as i32];
    // Every interface along each axis of every interior line.
    let pairs: Vec<Vec<(usize, usize)>> = (0..3)
        .map(|dir| {
            let mut p = Vec::new();
            for k in 0..n[2] {
                for j in 0..n[1] {
                    for i in 0..n[0] {
                        let mut ijk = [i, j, k];
                        if ijk[dir] != 0 {
                            continue;
                        }
                        for c in 0..=n[dir] {
                            ijk[dir] = c - 1;
                            let left = l.at(ijk[0], ijk[1], ijk[2]);
                            ijk[dir] = c;
                            p.push((left, l.at(ijk[0], ijk[1], ijk[2])));
                        }
                    }
                }
            }
            p
        })
        .collect();
    let dt = first_dt(&solver, &filled, &want_aux, &pairs, &[setup.dx, setup.dy, setup.dz], setup.cfl.desired);
    prop_assert_eq!(run.clock().next_dt().to_bits(), dt.to_bits());
    let plane = l.plane_len();
    for ranks in 1..=4 {
        let Ok(slabs) = Slabs::new(nz, ranks, HALO as usize, setup.bc[4] == PERIODIC) else { continue };
        for comm in Threads::group(ranks) {
            let planes = slabs.slab(comm.rank()).rows;
            let layout = rows_of(&Setup3 { nz: planes.len(), ..setup }.layout());
            let part = part(&setup.shape(), planes.clone(), dt, q, aux);
            let (slab, _) = Claw3::slab_of_part(solver, setup, &part, halo(comm, &slabs, layout)).unwrap();
            let span = planes.start * plane..(planes.end + 2 * HALO as usize) * plane;
            let (sq, saux) = slab.padded();
            prop_assert_eq!(
                bits(sq.as_flattened()),
                bits(got_q[span.clone()].as_flattened()),
                "planes {:?} of {}",
                planes,
                nz
            );
            prop_assert_eq!(
                bits(saux.as_flattened()),
                bits(want_aux[span].as_flattened()),
                "planes {:?} of {}",
                planes,
                nz
            );
        }
    }
    Ok(())
}

const SIDES: [u32; 3] = [WALL, EXTRAPOLATE, PERIODIC];

/// Each axis's pair of sides: periodic both or neither.
fn sides(axes: usize) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec((0..3usize, 0..2usize), axes).prop_map(|pairs| {
        pairs
            .into_iter()
            .flat_map(|(a, b)| if SIDES[a] == PERIODIC { [PERIODIC; 2] } else { [SIDES[a], SIDES[b]] })
            .collect()
    })
}

fn starts2<T: GpuReal>(n: [usize; 2], bc: &[u32], seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let cells = n[0] * n[1];
    let setup = Setup {
        nx: n[0],
        ny: n[1],
        dx: 0.7,
        dy: 1.3,
        bc: [bc[0], bc[1], bc[2], bc[3]],
        limiter: Limiter::Mc,
        splitting: Splitting::Godunov,
        cfl: Cfl::default(),
    };
    let q = values::<T, 3>(&mut rng, cells, [(-1.0, 1.0); 3]);
    let aux = values::<T, 2>(&mut rng, cells, [(0.5, 3.0); 2]);
    check2(Acoustics2d, setup, &q, &aux)?;
    let q = values::<T, 3>(&mut rng, cells, [(0.2, 2.0), (-1.0, 1.0), (-1.0, 1.0)]);
    check2(ShallowRoe { g: T::from_f64(9.81) }, setup, &q, &vec![[]; cells])
}

fn starts3<T: GpuReal>(n: [usize; 3], bc: &[u32], seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let cells = n.iter().product();
    let setup = Setup3 {
        nx: n[0],
        ny: n[1],
        nz: n[2],
        dx: 0.7,
        dy: 1.3,
        dz: 0.9,
        bc: std::array::from_fn(|k| bc[k]),
        limiter: Limiter::Mc,
        splitting: Splitting::Strang,
        cfl: Cfl::default(),
    };
    let q = values::<T, 4>(&mut rng, cells, [(-1.0, 1.0); 4]);
    let aux = values::<T, 2>(&mut rng, cells, [(0.5, 3.0); 2]);
    check3(Acoustics3d, setup, &q, &aux)
}

proptest! {
    #![proptest_config(crate::common::config(64, file!()))]

    #[test]
    fn a_2d_start_made_from_its_cells_is_the_padded_grids(
        nx in 1usize..10, ny in 1usize..12, bc in sides(2), seed in any::<u64>()
    ) {
        starts2::<f32>([nx, ny], &bc, seed)?;
        starts2::<f64>([nx, ny], &bc, seed)?;
    }

    #[test]
    fn a_3d_start_made_from_its_cells_is_the_padded_grids(
        nx in 1usize..6, ny in 1usize..6, nz in 1usize..10, bc in sides(3), seed in any::<u64>()
    ) {
        starts3::<f32>([nx, ny, nz], &bc, seed)?;
        starts3::<f64>([nx, ny, nz], &bc, seed)?;
    }
}
