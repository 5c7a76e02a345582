//! The operation count behind `bench claw`'s GFLOP/s (`hydrokern::claw::flops`): the counter
//! on a known expression and on the acoustic solver counted by hand, its stability, a branch
//! it must see (Roe's entropy fix), and the count of a line's pieces against the CPU
//! reference's whole sweep of the same state, every solver and axis.

use hydrokern::Real;
use hydrokern::Rng;
use hydrokern::claw::cpu::{Claw2, HALO, Setup};
use hydrokern::claw::flops::{Counted, Ops, count, sweep_ops};
use hydrokern::claw::{Acoustics2d, Advection, Cfl, Limiter, Riemann, ShallowHlle, ShallowRoe, Splitting};
use kernels::grid::Layout2;
use kernels::halo::EXTRAPOLATE;

const G: Counted = Counted(9.81);

#[test]
fn the_counter_counts_each_kind_exactly() {
    let (a, b, c) = (Counted(2.0), Counted(3.0), Counted(-5.0));
    let (v, ops) = count(|| {
        // 2·3 − 5 = 1; √(3 − 2) = 1; max(|−2|, −5) = 2: x = 3, then 9, then 7.
        let mut x = a.mul_add(b, c) / (b - a).sqrt() + (-a).abs().max(c);
        x *= b;
        x -= a;
        let _ = (a < b, a == b, x.is_finite());
        x.recip() + b.powi(3)
    });
    assert_eq!(v.0, 1.0 / 7.0 + 27.0);
    let want = Ops { add: 4, mul: 4, div: 2, sqrt: 1, fma: 1, neg: 1, abs: 1, min_max: 1, compare: 3 };
    assert_eq!(ops, want);
    assert_eq!(ops.flops(), 4 + 4 + 2 + 1 + 2);
    // Counts nest (the outer one holds the inner one's) and start from nothing.
    let (((), inner), outer) = count(|| {
        let _ = a + b;
        count(|| {
            let _ = a * b;
        })
    });
    assert_eq!((inner.mul, inner.add), (1, 0));
    assert_eq!((outer.mul, outer.add), (1, 1));
}

/// Acoustics in 2D, counted from the source by hand: c and Z of each side (2 ÷, 2 √, 2 ×), the
/// jumps δp and δu (2 −), 1/(Z_l + Z_r) (1 +, 1 ÷), α₁ and α₂ (2 ×, 1 ± and 1 × each), the
/// waves' pressures (2 ×, one negation) and the left speed (a negation); the fluctuations
/// `from_waves` (a min and a max a wave, an fma a wave and component for each: 2·2·3). The
/// MC correction of each of its two waves (M = 3): M fma for θ's numerator (formed once for a
/// pair of interfaces, so one a wave and interface), M for 𝒲·𝒲 and M for the flux, θ as one
/// reciprocal and one ×, MC's 1 + and 2 ×, ½|s|(1 − Δt/Δx|s|)φ 4 × and 1 −: 6M + 10 = 28
/// flops. The update in three steps: (A⁺ΔQ − F̃) then three fma a component: 21.
#[test]
fn acoustics_counts_as_by_hand() {
    let mut rng = Rng::new(3);
    let mut u = |lo: f64, hi: f64| Counted(lo + (hi - lo) * rng.unit());
    let q: Vec<[Counted; 3]> = (0..40).map(|_| [u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0)]).collect();
    let aux: Vec<[Counted; 2]> = (0..40).map(|_| [u(0.9, 1.1), u(3.6, 4.4)]).collect();
    let ((), ops) = count(|| {
        let _ = <Acoustics2d as Riemann<Counted, 3, 2, 2>>::solve(&Acoustics2d, 0, &q[0], &q[1], &aux[0], &aux[1]);
    });
    assert_eq!(ops, Ops { add: 5, mul: 8, div: 3, sqrt: 2, fma: 12, neg: 2, abs: 0, min_max: 4, compare: 0 });
    assert_eq!(ops.flops(), 42);
    for dir in 0..2 {
        let line = sweep_ops(&Acoustics2d, Limiter::Mc, dir, 0.1, &q, &aux);
        assert_eq!((line.interfaces, line.corrections, line.cells), (39, 37, 36));
        assert_eq!((line.solve_flops(), line.correction_flops(), line.update_flops()), (42.0, 56.0, 21.0));
        assert_eq!(line.per_cell(), 119.0);
    }
}

#[test]
fn counts_are_stable_and_see_the_entropy_fix() {
    let roe = ShallowRoe { g: G };
    let solve = |ql: [f64; 3], qr: [f64; 3]| {
        count(|| {
            let _ = roe.solve(0, &ql.map(Counted), &qr.map(Counted), &[], &[]);
        })
        .1
    };
    // Subsonic, and a 1-rarefaction whose characteristic speed u − c goes from −0.63 to
    // +0.52 across the 1-wave: Harten–Hyman splits that wave, lo·(hi − s)·1/(hi − lo) in place
    // of min(s, 0) (two ×, two −, a reciprocal more).
    let (plain, transonic) = ([1.0, 0.2, 0.1], [1.0, 2.5, 0.0]);
    let calm = solve(plain, [1.1, 0.3, -0.1]);
    let fixed = solve(transonic, [1.0, 4.0, 0.0]);
    assert!(calm.flops() > 0);
    assert_eq!(fixed.flops(), calm.flops() + 5, "{calm:?} {fixed:?}");
    // The same line counts the same, twice.
    let mut rng = Rng::new(11);
    let q: Vec<[Counted; 3]> = (0..64).map(|_| shallow(&mut rng).0.map(Counted)).collect();
    let once = sweep_ops(&roe, Limiter::Mc, 1, 0.1, &q, &[[]; 64]);
    let again = sweep_ops(&roe, Limiter::Mc, 1, 0.1, &q, &[[]; 64]);
    assert_eq!(once, again);
    assert!(once.per_cell() > 100.0, "{once:?}");
}

/// A random shallow-water state: depths from 0.1 to 1.5 m and velocities up to 4 m/s (so
/// some interfaces are transonic), and a third of the cells at rest at 1 m (equal
/// neighbours: waves of zero, which the limiter skips).
fn shallow(rng: &mut Rng) -> ([f64; 3], [f64; 0]) {
    if rng.unit() < 1.0 / 3.0 {
        return ([1.0, 0.0, 0.0], []);
    }
    let h = 0.1 + 1.4 * rng.unit();
    ([h, h * (8.0 * rng.unit() - 4.0), h * (8.0 * rng.unit() - 4.0)], [])
}

/// The flops of the CPU reference's sweep along each axis of a random state, counted whole,
/// equal the sum of [`sweep_ops`]' pieces over the same lines (ghosts included).
fn matches_cpu_reference<R: Riemann<Counted, M, W, A>, const M: usize, const W: usize, const A: usize>(
    solver: R,
    cell: impl Fn(&mut Rng) -> ([f64; M], [f64; A]),
) {
    let (nx, ny) = (9, 6);
    let (dx, dy) = (0.5, 0.25);
    let setup = Setup {
        nx,
        ny,
        dx,
        dy,
        bc: [EXTRAPOLATE; 4],
        limiter: Limiter::Mc,
        splitting: Splitting::Godunov,
        cfl: Cfl::default(),
    };
    let mut rng = Rng::new(5);
    let cells: Vec<_> = (0..nx * ny).map(|_| cell(&mut rng)).collect();
    let q: Vec<[Counted; M]> = cells.iter().map(|c| c.0.map(Counted)).collect();
    let aux: Vec<[Counted; A]> = cells.iter().map(|c| c.1.map(Counted)).collect();
    let run = Claw2::new(solver, setup, &q, &aux).unwrap();
    let layout = Layout2::new(nx as u32, ny as u32, HALO);
    // The reference sweeps lines on rayon's threads; the count sees only its own thread.
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let dt = 0.01;
    for (dir, spacing, n, lines) in [(0, dx, nx, ny), (1, dy, ny, nx)] {
        let (input, aux) = run.sweep_input(dir);
        let mut q = input.clone();
        let (_, whole) = one.install(|| count(|| run.sweep(&mut q, dir, dt)));
        let mut pieces = 0;
        for k in 0..lines as i32 {
            let at = |c: i32| if dir == 0 { layout.at(c, k) } else { layout.at(k, c) };
            let line: Vec<[Counted; M]> = (-2..n as i32 + 2).map(|c| input[at(c)]).collect();
            let line_aux: Vec<[Counted; A]> = (-2..n as i32 + 2).map(|c| aux[at(c)]).collect();
            let ops = sweep_ops(&solver, Limiter::Mc, dir, dt / spacing, &line, &line_aux);
            assert_eq!((ops.interfaces, ops.corrections, ops.cells), (n + 3, n + 1, n));
            pieces += ops.total();
        }
        assert!(pieces > 0);
        assert_eq!(whole.flops(), pieces, "{} along axis {dir}", R::NAME);
    }
}

#[test]
fn a_lines_pieces_count_what_the_cpu_reference_runs() {
    matches_cpu_reference(ShallowRoe { g: G }, shallow);
    // HLLE with dry (0) and film (below `dry`) cells among the wet ones.
    matches_cpu_reference(ShallowHlle { g: G, dry: Counted(1e-6) }, |rng| {
        let r = rng.unit();
        if r < 0.15 {
            ([0.0, 0.0, 0.0], [])
        } else if r < 0.3 {
            ([1e-7, 1e-8, -1e-8], [])
        } else {
            shallow(rng)
        }
    });
    matches_cpu_reference(Acoustics2d, |rng| {
        let mut u = |lo: f64, hi: f64| lo + (hi - lo) * rng.unit();
        ([u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0)], [u(0.5, 2.0), u(1.0, 4.0)])
    });
    // Flows to −y, so the y-sweep's waves take their upwind neighbours from the other side;
    // zeros make zero waves.
    matches_cpu_reference(Advection { velocity: [Counted(1.0), Counted(-0.5), Counted::ZERO] }, |rng| {
        let v = rng.unit();
        ([if v < 0.3 { 0.0 } else { v }], [])
    });
}
