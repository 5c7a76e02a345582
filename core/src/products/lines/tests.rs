use super::*;
use crate::case::products::{Gauge, Line, Spec};
use crate::case::{CaseDoc, Check, Origin};
use proptest::prelude::*;

fn grid(nx: usize, ny: usize, dx: f64, dy: f64, origin: (f64, f64)) -> Grid2 {
    Grid2 { nx, ny, dx, dy, origin, halo: 2 }
}

fn x(j: usize, i: usize) -> GridFace {
    GridFace { axis: Axis::X, j, i }
}

fn y(j: usize, i: usize) -> GridFace {
    GridFace { axis: Axis::Y, j, i }
}

/// The definition written out over every pair of neighbouring interior cells and every
/// segment, with the general orientation test for all four sides, each point of the line moved
/// by (−ε, −ε²) (so a zero orientation is decided by the ε terms): the faces and their net
/// crossings, zeros left out.
fn plain_crossings(points: &[[f64; 2]], g: &Grid2) -> Vec<(GridFace, i32)> {
    // The side of a point is the sign of the first non-zero term of its orientation's series
    // in ε.
    let side = |terms: [f64; 3]| terms.into_iter().find(|&t| t != 0.0).is_some_and(|t| t > 0.0);
    let orient = |p: [f64; 2], q: [f64; 2], c: [f64; 2]| (q[0] - p[0]) * (c[1] - p[1]) - (q[1] - p[1]) * (c[0] - p[0]);
    // A centre c against the moved segment: orient(p + d, q + d, c) = orient(p, q, c − d)
    // = o + ε·(py − qy) + ε²·(qx − px), with d = (−ε, −ε²).
    let centre_left = |p: [f64; 2], q: [f64; 2], c: [f64; 2]| side([orient(p, q, c), p[1] - q[1], q[0] - p[0]]);
    // A moved point of the line against the centres a → b: orient(a, b, p + d)
    // = o + ε·(by − ay) + ε²·(ax − bx).
    let point_left = |a: [f64; 2], b: [f64; 2], p: [f64; 2]| side([orient(a, b, p), b[1] - a[1], a[0] - b[0]]);
    let at = |i: usize, j: usize| [g.origin.0 + (i as f64 + 0.5) * g.dx, g.origin.1 + (j as f64 + 0.5) * g.dy];
    let mut out = Vec::new();
    let mut faces = Vec::new();
    for j in 0..g.ny {
        for i in 0..g.nx.saturating_sub(1) {
            faces.push((x(j, i), at(i, j), at(i + 1, j)));
        }
    }
    for j in 0..g.ny.saturating_sub(1) {
        for i in 0..g.nx {
            faces.push((y(j, i), at(i, j), at(i, j + 1)));
        }
    }
    for (face, a, b) in faces {
        let mut n = 0;
        for pq in points.windows(2) {
            let (p, q) = (pq[0], pq[1]);
            let (a_left, b_left) = (centre_left(p, q, a), centre_left(p, q, b));
            let (p_left, q_left) = (point_left(a, b, p), point_left(a, b, q));
            if a_left != b_left && p_left != q_left {
                n += if a_left { 1 } else { -1 };
            }
        }
        if n != 0 {
            out.push((face, n));
        }
    }
    out.sort();
    out
}

/// Winding number of the closed polygon `ring` (last point = first) around `c`.
fn winding(ring: &[[f64; 2]], c: [f64; 2]) -> i32 {
    let mut w = 0;
    for e in ring.windows(2) {
        let (p, q) = (e[0], e[1]);
        let side = (q[0] - p[0]) * (c[1] - p[1]) - (q[1] - p[1]) * (c[0] - p[0]);
        if p[1] <= c[1] && q[1] > c[1] && side > 0.0 {
            w += 1;
        } else if p[1] > c[1] && q[1] <= c[1] && side < 0.0 {
            w -= 1;
        }
    }
    w
}

#[test]
fn a_line_across_rows_or_columns_crosses_one_face_each() {
    // 4 × 3 cells of 1 m from (10, 20). Drawn east at y = 21.7 (between the centres of rows 1
    // and 2): every column's face between them, the south cell on the line's right.
    let g = grid(4, 3, 1.0, 1.0, (10.0, 20.0));
    assert_eq!(crossings(&[[10.0, 21.7], [14.0, 21.7]], &g), (0..4).map(|i| (y(1, i), -1)).collect::<Vec<_>>());
    // Drawn west: the south cell on its left.
    assert_eq!(crossings(&[[14.0, 21.7], [10.0, 21.7]], &g), (0..4).map(|i| (y(1, i), 1)).collect::<Vec<_>>());
    // Drawn north at x = 12.3 (between the centres of columns 1 and 2): the west cell on the left.
    assert_eq!(crossings(&[[12.3, 20.0], [12.3, 23.0]], &g), (0..3).map(|j| (x(j, 1), 1)).collect::<Vec<_>>());
    // Part of the way: the rows whose centres it spans.
    assert_eq!(crossings(&[[12.3, 20.2], [12.3, 21.6]], &g), vec![(x(0, 1), 1), (x(1, 1), 1)]);
    // From a row of centres to the next (the line a hair south of where it is drawn): the row it
    // starts on is crossed, the one it ends on is not; from a column of centres to the next (a
    // hair west): the same.
    assert_eq!(crossings(&[[12.3, 20.5], [12.3, 21.5]], &g), vec![(x(0, 1), 1)]);
    assert_eq!(crossings(&[[12.3, 21.5], [12.3, 20.5]], &g), vec![(x(0, 1), -1)]);
    assert_eq!(crossings(&[[10.5, 21.7], [11.5, 21.7]], &g), vec![(y(1, 0), -1)]);
    assert_eq!(crossings(&[[11.5, 21.7], [10.5, 21.7]], &g), vec![(y(1, 0), 1)]);
    // Between two centres of a row, along it: no face.
    assert_eq!(crossings(&[[10.6, 20.5], [11.4, 20.5]], &g), vec![]);
}

#[test]
fn a_line_along_a_face_counts_that_face() {
    let g = grid(4, 3, 1.0, 1.0, (0.0, 0.0));
    // x = 2: the faces between columns 1 and 2; drawn north, then south.
    assert_eq!(crossings(&[[2.0, 0.0], [2.0, 3.0]], &g), (0..3).map(|j| (x(j, 1), 1)).collect::<Vec<_>>());
    assert_eq!(crossings(&[[2.0, 3.0], [2.0, 0.0]], &g), (0..3).map(|j| (x(j, 1), -1)).collect::<Vec<_>>());
    // y = 1: the faces between rows 0 and 1.
    assert_eq!(crossings(&[[0.0, 1.0], [4.0, 1.0]], &g), (0..4).map(|i| (y(0, i), -1)).collect::<Vec<_>>());
    // Along the domain's edge: no face between two interior cells.
    assert_eq!(crossings(&[[0.0, 0.0], [4.0, 0.0], [4.0, 3.0]], &g), vec![]);
}

#[test]
fn a_diagonal_through_the_centres_is_a_staircase() {
    // The centres (k + ½, k + ½) lie on the line and count as east of it: the faces between
    // them and their west neighbours, and between them and their north neighbours.
    let g = grid(4, 4, 1.0, 1.0, (0.0, 0.0));
    let want = vec![(x(1, 0), 1), (x(2, 1), 1), (x(3, 2), 1), (y(0, 0), -1), (y(1, 1), -1), (y(2, 2), -1)];
    assert_eq!(crossings(&[[0.0, 0.0], [4.0, 4.0]], &g), want);
    // Drawn the other way: the same faces, the other way.
    let back: Vec<_> = want.iter().map(|&(f, n)| (f, -n)).collect();
    assert_eq!(crossings(&[[4.0, 4.0], [0.0, 0.0]], &g), back);
    // Along a row of centres: those cells count as north of it, both ways.
    let row = crossings(&[[0.0, 1.5], [4.0, 1.5]], &g);
    assert_eq!(row, (0..4).map(|i| (y(0, i), -1)).collect::<Vec<_>>());
    assert_eq!(crossings(&[[4.0, 1.5], [0.0, 1.5]], &g), (0..4).map(|i| (y(0, i), 1)).collect::<Vec<_>>());
    assert_eq!(crossings(&[[0.0, 1.5], [4.0, 1.5], [0.0, 1.5]], &g), vec![]);
    // A line folding back on itself crosses nothing net.
    assert_eq!(crossings(&[[0.3, 0.2], [3.7, 3.9], [0.3, 0.2]], &g), vec![]);
    // A vertex at (1, 1.5), on the segment between the centres of cells (0, 1) and (1, 1): the
    // face between them counted once, whether the line goes straight on or turns there.
    assert_eq!(crossings(&[[1.0, 0.2], [1.0, 1.5], [1.0, 2.8]], &g), crossings(&[[1.0, 0.2], [1.0, 2.8]], &g));
    let turning = crossings(&[[0.2, 0.9], [1.0, 1.5], [1.6, 2.6]], &g);
    assert!(turning.contains(&(x(1, 0), 1)), "{turning:?}");
    // Touching that segment from below and going back: row 1's faces not crossed.
    let touching = crossings(&[[0.4, 1.0], [1.0, 1.5], [1.6, 1.0]], &g);
    assert!(!touching.iter().any(|(f, _)| f.axis == Axis::X && f.j == 1), "{touching:?}");
}

#[test]
fn awkward_grids() {
    // One column: no x-faces; one row: no y-faces.
    let col = grid(1, 5, 0.1, 0.3, (500_000.0, 4_200_000.0));
    assert_eq!(
        crossings(&[[500_000.0, 4_200_000.0], [500_000.1, 4_200_001.5]], &col),
        plain_crossings(&[[500_000.0, 4_200_000.0], [500_000.1, 4_200_001.5]], &col)
    );
    assert!(crossings(&[[500_000.05, 4_200_000.0], [500_000.05, 4_200_001.5]], &col).is_empty());
    let row = grid(5, 1, 0.3, 0.1, (-3.7, 12.1));
    assert!(crossings(&[[-3.7, 12.15], [-2.2, 12.15]], &row).is_empty());
    assert_eq!(crossings(&[[-3.0, 12.1], [-3.0, 12.2]], &row), vec![(x(0, 1), 1)]);
    // One cell: nothing to cross.
    assert!(crossings(&[[0.0, 0.0], [1.0, 1.0]], &grid(1, 1, 1.0, 1.0, (0.0, 0.0))).is_empty());
}

proptest! {
    /// The faces found near each segment's crossings equal the definition tried on every face,
    /// on grids of awkward spacings (inexact in binary) and origins (UTM-sized coordinates).
    #[test]
    fn crossings_follow_their_definition(
        nx in 1usize..13, ny in 1usize..13,
        dx in prop::sample::select(vec![1.0, 0.1, 0.3, 7.5, 1e-3]),
        dy in prop::sample::select(vec![1.0, 0.1, 0.3, 7.5, 1e-3]),
        origin in prop::sample::select(vec![(0.0, 0.0), (500_000.0, 4_200_000.0), (-3.7, 12.1)]),
        fractions in prop::collection::vec((0.0f64..=1.0, 0.0f64..=1.0), 2..7),
    ) {
        let g = grid(nx, ny, dx, dy, origin);
        let [x0, x1, y0, y1] = g.edges();
        let points: Vec<[f64; 2]> = fractions.iter().map(|&(a, b)| [x0 + a * (x1 - x0), y0 + b * (y1 - y0)]).collect();
        prop_assert_eq!(crossings(&points, &g), plain_crossings(&points, &g));
    }

    /// A closed polygon crosses each face as often, net, as the polygon winds around the
    /// centres on its two sides differ: the faces are the boundary between the cells it
    /// encloses and the rest, signed outward for an anticlockwise polygon.
    #[test]
    fn a_closed_line_bounds_the_cells_it_encloses(
        nx in 2usize..14, ny in 2usize..14,
        fractions in prop::collection::vec((0.0f64..=1.0, 0.0f64..=1.0), 3..8),
    ) {
        let g = grid(nx, ny, 0.7, 1.3, (100.0, -20.0));
        let [x0, x1, y0, y1] = g.edges();
        let mut ring: Vec<[f64; 2]> = fractions.iter().map(|&(a, b)| [x0 + a * (x1 - x0), y0 + b * (y1 - y0)]).collect();
        ring.push(ring[0]);
        let at = |c: usize| [x0 + ((c % nx) as f64 + 0.5) * g.dx, y0 + ((c / nx) as f64 + 0.5) * g.dy];
        let found: std::collections::BTreeMap<GridFace, i32> = crossings(&ring, &g).into_iter().collect();
        let every = (0..ny).flat_map(|j| (0..nx - 1).map(move |i| x(j, i)));
        let every = every.chain((0..ny - 1).flat_map(|j| (0..nx).map(move |i| y(j, i))));
        for face in every {
            let [a, b] = face.cells(nx);
            let want = winding(&ring, at(a)) - winding(&ring, at(b));
            prop_assert_eq!(found.get(&face).copied().unwrap_or(0), want, "{:?}", face);
        }
    }

    /// Through a uniform flow (hu, hv) = (a, b), a polyline between cell corners at least a cell
    /// inside the domain carries what the continuous line does: a·Δy − b·Δx over its segments
    /// (the flow to its right), whatever staircase the faces take.
    #[test]
    fn a_uniform_flow_through_a_line_between_corners(
        nx in 3usize..20, ny in 3usize..20, a in -2.0f64..2.0, b in -2.0f64..2.0,
        corners in prop::collection::vec((0.0f64..1.0, 0.0f64..1.0), 2..6),
    ) {
        let g = grid(nx, ny, 0.5, 2.0, (-10.0, 30.0));
        let points: Vec<[f64; 2]> = corners
            .iter()
            .map(|&(u, v)| {
                let i = 1 + (u * (nx - 1) as f64) as usize;
                let j = 1 + (v * (ny - 1) as f64) as usize;
                [g.origin.0 + i.min(nx - 1) as f64 * g.dx, g.origin.1 + j.min(ny - 1) as f64 * g.dy]
            })
            .collect();
        let sites = Sites::new(&g, Vec::new(), &[crossings(&points, &g)]);
        let sample = vec![[1.0, a, b, 1.0]; sites.cells.len()];
        let got = discharge(&sites.lines[0], &sample);
        let want: f64 = points.windows(2).map(|s| a * (s[1][1] - s[0][1]) - b * (s[1][0] - s[0][0])).sum();
        prop_assert!((got - want).abs() <= 1e-12 * (1.0 + want.abs()) * (nx + ny) as f64, "{} against {}", got, want);
    }
}

#[test]
fn sites_sample_each_cell_once_gauges_first() {
    let g = grid(4, 3, 1.0, 1.0, (0.0, 0.0));
    // Two gauges in one cell (5), one in cell 6; a line along x = 2 (faces between columns 1 and
    // 2: cells 1|2, 5|6, 9|10) and one along y = 2 (cells 4|8, 5|9, 6|10, 7|11).
    let lines = [crossings(&[[2.0, 0.0], [2.0, 3.0]], &g), crossings(&[[4.0, 2.0], [0.0, 2.0]], &g)];
    let s = Sites::new(&g, vec![5, 5, 6], &lines);
    assert_eq!(s.cells, [5, 5, 6, 1, 2, 9, 10, 4, 8, 7, 11]);
    let f = |from, to, axis, weight| Face { from, to, axis, weight };
    assert_eq!(s.lines[0], [f(3, 4, Axis::X, 1.0), f(0, 2, Axis::X, 1.0), f(5, 6, Axis::X, 1.0)]);
    assert_eq!(
        s.lines[1],
        [f(7, 8, Axis::Y, 1.0), f(0, 5, Axis::Y, 1.0), f(2, 6, Axis::Y, 1.0), f(9, 10, Axis::Y, 1.0)]
    );
    // The discharge reads the faces' two cells: hu through the first line, hv through the
    // second, each cell's own value (the sample's cell number, times 10 for hv).
    let sample: Vec<[f64; 4]> = s.cells.iter().map(|&c| [0.0, c as f64, 10.0 * c as f64, 0.0]).collect();
    assert_eq!(discharge(&s.lines[0], &sample), (1.5 + 5.5 + 9.5) * 1.0);
    assert_eq!(discharge(&s.lines[1], &sample), (60.0 + 70.0 + 80.0 + 90.0) * 1.0);
}

fn doc() -> CaseDoc {
    CaseDoc::parse(Origin::Builtin { name: "t", data: &[] }, "solver = \"kp\"\n".into()).unwrap()
}

fn line(name: &str, points: &[[f64; 2]]) -> Line {
    Line { name: name.into(), points: points.to_vec() }
}

#[test]
fn bad_lines_are_refused_naming_the_key() {
    let doc = doc();
    let c = Check::new(&doc);
    let g = grid(4, 3, 1.0, 1.0, (0.0, 0.0));
    let with = |lines: Vec<Line>| Spec { lines, ..Spec::default() };
    let bad = |s: Spec, what: &str| {
        let e = s.check(&c).and_then(|_| Sites::of(&s, &g, &c).map(|_| ())).unwrap_err().to_string();
        assert!(e.contains("output.lines") && e.contains(what), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    };
    let ok = [[1.5, 0.0], [1.5, 3.0]];
    bad(with(vec![line("a b", &ok)]), "names a column");
    bad(with(vec![line("", &ok)]), "names a column");
    bad(with(vec![line("a", &ok), line("a", &ok)]), "used twice");
    bad(with(vec![line("t", &ok)]), "time column");
    bad(with(vec![line("a", &[[0.5, 0.0]])]), "1 point(s)");
    bad(with(vec![line("a", &[])]), "0 point(s)");
    bad(with(vec![line("a", &[[0.5, 0.0], [f64::NAN, 3.0]])]), "finite");
    bad(with(vec![line("a", &[[0.5, 0.0], [0.5, 3.01]])]), "outside the domain [0, 4] × [0, 3] m");
    bad(with(vec![line("a", &[[-1e-9, 0.0], [0.5, 3.0]])]), "outside the domain");
    // Along the edge, and inside one cell: no face between two cells.
    bad(with(vec![line("edge", &[[0.0, 0.0], [4.0, 0.0]])]), "crosses no face");
    bad(with(vec![line("small", &[[1.1, 1.1], [1.4, 1.4]])]), "crosses no face");
    // Through the centres of the first column: they count as east of it, and no cell is west.
    bad(with(vec![line("first", &[[0.5, 0.0], [0.5, 3.0]])]), "crosses no face");
    // Through the centres of the second column: the faces between the first two.
    let s = Spec { gauges: vec![Gauge { name: "g".into(), x: 3.5, y: 0.5 }], ..with(vec![line("a-1_B", &ok)]) };
    s.check(&c).unwrap();
    let sites = Sites::of(&s, &g, &c).unwrap();
    assert_eq!(sites.cells, [3, 0, 1, 4, 5, 8, 9]);
    // A gauge outside names its own key.
    let far = Spec { gauges: vec![Gauge { name: "g".into(), x: 9.0, y: 0.5 }], ..Spec::default() };
    let e = Sites::of(&far, &g, &c).unwrap_err().to_string();
    assert!(
        e.contains("output.gauges: gauge g at (9, 0.5) m is outside") && !e.contains("output.gauges: output"),
        "{e}"
    );
}
