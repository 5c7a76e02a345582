//! The skeleton's shared pieces: grids, padded fields, and the ghost rules (`kernels::halo`)
//! checked against the rules written out plainly, for every small size, side and condition.

use hydrokern::field::{Field2, interior_of};
use hydrokern::grid::{Grid2, Grid3, Layout2, Mesh};
use kernels::halo::{
    EXTRAPOLATE, GRADIENT, PERIODIC, VALUE, WALL, cell_source, edge_ghost, ghost_value, ghosts_x, ghosts_y,
    node_source, perimeter_ghost, perimeter_len,
};
use std::collections::HashSet;

/// Cell-centred ghost `g` of an axis of `n` cells, written out: a wall mirrors about the face
/// (ghost −1 ↔ cell 0, −2 ↔ 1; n ↔ n−1, n+1 ↔ n−2), outflow copies the edge cell, periodic
/// wraps; mirrors past the far side stop at the last cell.
fn plain_cell(n: i32, g: i32, bc: u32) -> (i32, bool) {
    if (0..n).contains(&g) {
        return (g, false);
    }
    match bc {
        PERIODIC => (((g % n) + n) % n, false),
        EXTRAPOLATE => (if g < 0 { 0 } else { n - 1 }, false),
        _ => {
            let m = if g < 0 { -1 - g } else { 2 * n - 1 - g };
            (m.max(0).min(n - 1), true)
        }
    }
}

/// Node-centred ghost `g` of `n` cells (nodes 0..=n), written out: mirror about the boundary
/// node, or on a periodic axis node n + k is node k.
fn plain_node(n: i32, g: i32, bc: u32) -> i32 {
    if (0..=n).contains(&g) {
        g
    } else if bc == PERIODIC {
        ((g % n) + n) % n
    } else if g < 0 {
        (-g).min(n)
    } else {
        (2 * n - g).max(0)
    }
}

const CONDITIONS: [u32; 5] = [WALL, EXTRAPOLATE, PERIODIC, VALUE, GRADIENT];

#[test]
fn ghost_sources_match_the_rules_and_stay_inside() {
    for n in 1..9i32 {
        for bc in CONDITIONS {
            for g in -4..n + 4 {
                let (s, m) = cell_source(n as u32, g, bc);
                assert_eq!((s as i32, m), plain_cell(n, g, bc), "cell n {n} bc {bc} ghost {g}");
                assert!((s as i32) < n, "cell source outside: n {n} bc {bc} ghost {g} → {s}");
                let s = node_source(n as u32, g, bc);
                assert_eq!(s as i32, plain_node(n, g, bc), "node n {n} bc {bc} ghost {g}");
                assert!((s as i32) <= n);
            }
        }
    }
}

#[test]
fn ghost_values_follow_their_condition() {
    let (q, v, d) = (3.0f64, 0.5, 1.5);
    assert_eq!(ghost_value(WALL, q, -1.0, 0.0, 0.0), -q);
    assert_eq!(ghost_value(WALL, q, 1.0, 0.0, 0.0), q);
    assert_eq!(ghost_value(EXTRAPOLATE, q, -1.0, 0.0, 0.0), q);
    assert_eq!(ghost_value(PERIODIC, q, -1.0, 0.0, 0.0), q);
    // A prescribed value v at the face: the mean of the ghost and its mirror is v.
    assert_eq!(0.5 * (ghost_value(VALUE, q, 1.0, v, 0.0) + q), v);
    // A prescribed gradient: the difference across the distance d is g·d.
    assert_eq!(ghost_value(GRADIENT, q, 1.0, v, d) - q, v * d);
}

/// Both passes together visit every ghost of the padded field exactly once, and each pass
/// reads only interior cells or ghosts an earlier pass wrote.
#[test]
fn edge_passes_cover_every_ghost_once() {
    for (nx, ny, halo) in [(1, 1, 1), (3, 2, 2), (5, 4, 2), (2, 7, 3)] {
        for bcs in [[WALL; 4], [EXTRAPOLATE, WALL, PERIODIC, PERIODIC], [PERIODIC, PERIODIC, WALL, EXTRAPOLATE]] {
            let l = Layout2::new(nx, ny, halo);
            let mut seen = HashSet::new();
            let mut written = HashSet::new();
            for axis in 0..2 {
                let count = if axis == 0 { ghosts_x(&l) } else { ghosts_y(&l) };
                assert!(edge_ghost(&l, bcs, axis, count).is_none());
                let mut pass = HashSet::new();
                for t in 0..count {
                    let g = edge_ghost(&l, bcs, axis, t).unwrap();
                    assert!(seen.insert(g.ghost), "ghost {} twice ({nx}×{ny}, halo {halo})", g.ghost);
                    pass.insert(g.ghost);
                    let (si, sj) = (
                        (g.source % l.pitch as usize) as i32 - halo as i32,
                        (g.source / l.pitch as usize) as i32 - halo as i32,
                    );
                    assert!(l.is_interior(si, sj) || written.contains(&g.source), "pass {axis} reads an unset ghost");
                    assert!(!pass.contains(&g.source), "a ghost of the same pass is a source");
                }
                written.extend(pass);
            }
            let ghosts = l.len() - (nx * ny) as usize;
            assert_eq!(seen.len(), ghosts, "{nx}×{ny} halo {halo}: not every ghost visited");
        }
    }
}

/// The one-pass perimeter visits the edge ghosts (from interior sources) and the corner blocks.
#[test]
fn perimeter_covers_every_ghost_from_interior_sources() {
    for (nx, ny, halo) in [(1, 1, 1), (4, 3, 1), (3, 5, 2)] {
        let l = Layout2::new(nx, ny, halo);
        let mut seen = HashSet::new();
        for t in 0..perimeter_len(&l) {
            let g = perimeter_ghost(&l, [WALL; 4], t).unwrap();
            assert!(seen.insert(g.ghost));
            let (si, sj) = (
                (g.source % l.pitch as usize) as i32 - halo as i32,
                (g.source / l.pitch as usize) as i32 - halo as i32,
            );
            assert!(l.is_interior(si, sj), "source of ghost {} is not interior", g.ghost);
        }
        assert!(perimeter_ghost(&l, [WALL; 4], perimeter_len(&l)).is_none());
        assert_eq!(seen.len(), l.len() - (nx * ny) as usize);
    }
}

#[test]
fn fields_index_their_interior_and_ghosts() {
    let l = Layout2::new(3, 2, 2);
    let interior: Vec<f64> = (0..6).map(f64::from).collect();
    let f = Field2::from_interior(l, &interior, -1.0, |v| v).unwrap();
    assert_eq!(f.len(), 7 * 6);
    assert_eq!(f.get(0, 0), 0.0);
    assert_eq!(f.get(2, 1), 5.0);
    assert_eq!(f.get(-2, -2), -1.0);
    assert_eq!(f.get(4, 3), -1.0);
    assert_eq!(f.interior(), interior);
    assert_eq!(interior_of(&l, &f), interior);
    assert!(Field2::from_interior(l, &interior[..5], 0.0, |v| v).is_err());
    assert!(Field2::<f64>::from_stored(l, vec![0.0; 3]).is_err());
}

/// The parallel passes a writer makes over a snapshot (copying the interior out, finding the
/// first bad value, summing) against plain loops, on fields large enough to be split.
#[test]
fn large_fields_are_copied_searched_and_summed_as_plain_loops_do() {
    use hydrokern::field::{PARALLEL_GRAIN, first_where, interior_into};
    let l = Layout2::new(301, 700, 2);
    let stored: Vec<f64> = (0..l.len()).map(|k| (k as f64 * 0.37).sin()).collect();
    // Appended after what the vector holds.
    let mut out = vec![7.0];
    interior_into(&l, &stored, &mut out);
    let mut plain = vec![7.0];
    for j in 0..700 {
        for i in 0..301 {
            plain.push(stored[l.at(i, j)]);
        }
    }
    assert_eq!(out, plain);

    let n = 5 * PARALLEL_GRAIN + 17;
    for bad in
        [vec![], vec![0], vec![PARALLEL_GRAIN - 1, PARALLEL_GRAIN], vec![3 * PARALLEL_GRAIN + 5, n - 1], vec![n - 1]]
    {
        let mut v = vec![1.0f32; n];
        for &k in &bad {
            v[k] = f32::NAN;
        }
        assert_eq!(first_where(&v, |x| !x.is_finite()), bad.first().copied(), "bad at {bad:?}");
    }

    // Integers: every partial sum is exact, so the sum must be too; and the same bits whatever
    // the number of threads.
    let v: Vec<f64> = (0..n).map(|k| (k % 1000) as f64).collect();
    let exact: f64 = (0..n).map(|k| (k % 1000) as f64).sum();
    assert_eq!(hydrokern::grid::sum(&v), exact);
    let w: Vec<f32> = (0..n).map(|k| ((k as f32) * 0.001).cos()).collect();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(one.install(|| hydrokern::grid::sum(&w)).to_bits(), hydrokern::grid::sum(&w).to_bits());
}

#[test]
fn grids_place_cells_in_metres_and_refuse_bad_sizes() {
    let g = Grid2::new(4, 2, 8.0, 1.0, 2).unwrap();
    assert_eq!((g.dx, g.dy), (2.0, 0.5));
    assert_eq!(g.centre(0, 0), (1.0, 0.25));
    assert_eq!(g.node(4, 2), (8.0, 1.0));
    assert_eq!(g.layout(), Layout2::new(4, 2, 2));
    assert_eq!(g.node_layout(), Layout2::new(5, 3, 2));
    let plane = Mesh::Plane(g);
    assert_eq!((plane.dims(), plane.index(7)), (vec![2, 4], vec![1, 3]));
    assert!(
        plane.cell_note("h", 7).starts_with("h[1, 3] (NumPy row 1, column 3 of h.npy; x = 7.0000 m, y = 0.7500 m)")
    );
    assert!(Grid2::new(0, 2, 1.0, 1.0, 1).is_err());
    assert!(Grid2::new(2, 2, -1.0, 1.0, 1).is_err());
    assert!(Grid2::new(usize::MAX, 2, 1.0, 1.0, 1).is_err());
}

#[test]
fn a_volume_of_cells_indexes_x_fastest_and_integrates_by_cell_volume() {
    let g = Grid3 { nx: 4, ny: 3, nz: 2, dx: 1.0, dy: 2.0, dz: 0.5, origin: (10.0, 0.0, -1.0), halo: 2 };
    let mesh = Mesh::Volume(g);
    assert_eq!((mesh.cells(), mesh.dims()), (24, vec![2, 3, 4]));
    // Storage index 23 is the last cell: x = 3, y = 2, z = 1.
    assert_eq!(mesh.index(23), vec![1, 2, 3]);
    assert_eq!(mesh.centre(23), [13.5, 5.0, -0.25]);
    assert_eq!(mesh.index(5), vec![0, 1, 1]);
    assert_eq!(mesh.integrate(&[2.0f64; 24]), 2.0 * 24.0);
    assert!(mesh.cell_note("p", 23).starts_with("p[1, 2, 3] (NumPy index [z, y, x] of p.npy; x = 13.5000 m"));
}
