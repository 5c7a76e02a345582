//! Ready-made problems: the five scenarios' set-ups and the validation cases.

use super::{Boundary, Problem};

/// Circular dam break (Amundsen §3.1.2): 40 m × 40 m, flat bed, walls, a column of radius
/// 2.5 m and depth 2.5 m at the centre; 0.5 m of water outside, or none with `dry`.
pub fn dam_break(nx: usize, ny: usize, dry: bool) -> Problem {
    circular(nx, ny, 40.0, 2.5, 2.5, if dry { 0.0 } else { 0.5 })
}

/// Flooding dam break (Amundsen §4.5): 100 m × 100 m, R = 6.5 m, 10 m inside, dry outside.
pub fn flood(nx: usize, ny: usize) -> Problem {
    circular(nx, ny, 100.0, 6.5, 10.0, 0.0)
}

/// A square domain of side `l` with a centred column of radius `r`: depth `h_in` inside,
/// `h_out` outside. The inside test uses integer cell offsets, so the set-up is exactly
/// symmetric under 90° rotations and mirrors.
pub fn circular(nx: usize, ny: usize, l: f64, r: f64, h_in: f64, h_out: f64) -> Problem {
    column(nx, ny, l, l, r, h_in, h_out)
}

/// A column of radius `r` centred in an `lx × ly` domain on a flat bed: depth `h_in` inside,
/// `h_out` outside, walls.
pub fn column(nx: usize, ny: usize, lx: f64, ly: f64, r: f64, h_in: f64, h_out: f64) -> Problem {
    let mut p = Problem::new(nx, ny, lx, ly);
    for j in 0..ny {
        for i in 0..nx {
            // Twice the offset from the centre, in cells: exact integers.
            let di = (2 * i + 1) as f64 - nx as f64;
            let dj = (2 * j + 1) as f64 - ny as f64;
            let d2 = (di * p.dx) * (di * p.dx) + (dj * p.dy) * (dj * p.dy);
            p.h[j * nx + i] = if d2 <= 4.0 * r * r { h_in } else { h_out };
        }
    }
    p
}

/// A Gaussian hump of water (1 m + 1 m·exp(−r²/(2·(5 m)²))) on a 1 m lake over a gently
/// sloping bed, 50 m × 50 m, walls.
pub fn gaussian(nx: usize, ny: usize) -> Problem {
    gaussian_hump(nx, ny, 50.0, 50.0, 1.0, 1.0, 5.0, (-0.5, -0.3))
}

/// A Gaussian hump `level + amplitude·exp(−r²/(2·width²))` of water, centred in an `lx × ly`
/// domain, over a bed rising linearly from `bed.0` (west) to `bed.1` (east); dry where the bed
/// is above the surface.
#[allow(clippy::too_many_arguments)]
pub fn gaussian_hump(
    nx: usize,
    ny: usize,
    lx: f64,
    ly: f64,
    level: f64,
    amplitude: f64,
    width: f64,
    bed: (f64, f64),
) -> Problem {
    let mut p = Problem::new(nx, ny, lx, ly);
    p.set_bed(|x, _| bed.0 + (bed.1 - bed.0) * x / lx);
    p.set_surface(|x, y| {
        let r2 = (x - 0.5 * lx).powi(2) + (y - 0.5 * ly).powi(2);
        level + amplitude * (-r2 / (2.0 * width * width)).exp()
    });
    p
}

/// Amundsen's scheme-selection case (§4.4.1): a sine wave in x on a flat bed with walls,
/// Δx = Δy = 1 m. Amundsen's w = sin(2πx/nx) is lifted to a positive depth:
/// h = 1 + 0.5·sin(2π x/L_x).
pub fn sine(nx: usize, ny: usize) -> Problem {
    sine_wave(nx, ny, nx as f64, ny as f64, 1.0, 0.5, 1.0)
}

/// Depth `mean + amplitude·sin(2π·waves·x/lx)` on a flat bed, at rest, walls.
pub fn sine_wave(nx: usize, ny: usize, lx: f64, ly: f64, mean: f64, amplitude: f64, waves: f64) -> Problem {
    let mut p = Problem::new(nx, ny, lx, ly);
    p.set_depth(|x, _| mean + amplitude * (2.0 * std::f64::consts::PI * waves * x / lx).sin());
    p
}

/// Lake at rest over uneven bathymetry with dry islands: surface at `level` = 1 m over a
/// 20 m × 20 m wavy bed, two islands rising above it. The islands are whole cells: every
/// corner of an island cell is at or above the surface (exactly at it on the island's rim),
/// every other corner below it, so each cell is either wet with a flat surface or dry — the
/// discrete lake at rest the scheme preserves exactly.
pub fn lake_at_rest(nx: usize, ny: usize) -> Problem {
    lake_at_rest_on(nx, ny, 20.0, 20.0, 1.0)
}

/// The lake of [`lake_at_rest`] on an `lx × ly` domain with its surface at `level`: the
/// islands sit at the same fractions of the domain.
pub fn lake_at_rest_on(nx: usize, ny: usize, lx: f64, ly: f64, level: f64) -> Problem {
    let mut p = Problem::new(nx, ny, lx, ly);
    let (sx, sy) = (lx / 20.0, ly / 20.0);
    let island = |x: f64, y: f64| {
        let (x, y) = (x / sx, y / sy);
        ((x - 6.0).powi(2) + (y - 7.0).powi(2)).sqrt() < 3.0 || ((x - 14.0).powi(2) + (y - 13.0).powi(2)).sqrt() < 2.5
    };
    let is_island_cell = |i: usize, j: usize| -> bool {
        let (x, y) = ((i as f64 + 0.5) * p.dx, (j as f64 + 0.5) * p.dy);
        island(x, y)
    };
    let cells: Vec<bool> =
        (0..ny).flat_map(|j| (0..nx).map(move |i| (i, j))).map(|(i, j)| is_island_cell(i, j)).collect();
    let cell = |i: isize, j: isize| {
        i >= 0 && j >= 0 && (i as usize) < nx && (j as usize) < ny && cells[j as usize * nx + i as usize]
    };
    for j in 0..=ny {
        for i in 0..=nx {
            let (x, y) = p.corner(i, j);
            let (ii, jj) = (i as isize, j as isize);
            let around = [cell(ii - 1, jj - 1), cell(ii, jj - 1), cell(ii - 1, jj), cell(ii, jj)];
            let b = if around.iter().all(|&c| c) {
                level + 0.3 + 0.2 * (0.7 * x).sin() * (0.9 * y).cos()
            } else if around.iter().any(|&c| c) {
                level
            } else {
                level - 0.65 + 0.25 * (0.5 * x).sin() * (0.4 * y).cos() + 0.1 * (0.3 * x + 0.2 * y).cos()
            };
            p.bed[j * (nx + 1) + i] = b;
        }
    }
    p.set_surface(|_, _| level);
    for j in 0..ny {
        for i in 0..nx {
            if cells[j * nx + i] {
                p.h[j * nx + i] = 0.0;
            }
        }
    }
    p
}

/// A 1D dam break run as a thin 2D strip: `nx × 4` cells over [0, 100 m] × [0, 4Δx], the dam
/// at x = 50 m with depth `hl` left and `hr` right, walls everywhere (the waves do not reach the
/// ends before t = 4 s for hl ≤ 1 m). Euler or RK2 per `p.scheme`.
pub fn dam_break_strip(nx: usize, hl: f64, hr: f64) -> Problem {
    let l = 100.0;
    let dx = l / nx as f64;
    let mut p = Problem::new(nx, 4, l, 4.0 * dx);
    p.set_depth(|x, _| if x < 50.0 { hl } else { hr });
    p.boundary = [Boundary::Wall; 4];
    p
}

/// A lake at rest in a bowl whose shoreline cuts through cells: on [0, 1]² a bed
/// B = 0.4 + 1.2·((x − 0.45)² + (y − 0.55)²) + 0.1·x (a tilted paraboloid, off-centre so no
/// symmetry helps), the surface at `level` (0.7 m leaves a dry rim in the corners and crosses
/// the east and north walls), each cell filled with what that flat surface holds over its bed
/// ([`Problem::set_level`]).
pub fn shore_lake(n: usize, level: f64, boundary: Boundary) -> Problem {
    let mut p = Problem::new(n, n, 1.0, 1.0);
    p.set_bed(|x, y| 0.4 + 1.2 * ((x - 0.45).powi(2) + (y - 0.55).powi(2)) + 0.1 * x);
    p.set_level(level);
    p.boundary = [boundary; 4];
    p
}

/// Thacker's planar surface in a paraboloid (SWASHES §4.2.2, [`exact::thacker`]): [0, 4 m]²,
/// a = 1 m, h₀ = 0.1 m, η = 0.5, walls; the exact state at t = 0 with each cell's depth the
/// cell mean of the exact depth (from 4×4 points), momenta from the exact velocity.
///
/// [`exact::thacker`]: super::exact::thacker
pub fn thacker(n: usize) -> Problem {
    use super::exact::{THACKER_L, thacker, thacker_bed};
    let mut p = Problem::new(n, n, THACKER_L, THACKER_L);
    p.set_bed(thacker_bed);
    let g = p.g;
    for j in 0..n {
        for i in 0..n {
            let (mut h, mut hu, mut hv) = (0.0, 0.0, 0.0);
            for (a, b) in (0..4).flat_map(|a| (0..4).map(move |b| (a, b))) {
                let x = (i as f64 + (a as f64 + 0.5) / 4.0) * p.dx;
                let y = (j as f64 + (b as f64 + 0.5) / 4.0) * p.dy;
                let (d, u, v) = thacker(g, x, y, 0.0);
                (h, hu, hv) = (h + d / 16.0, hu + d * u / 16.0, hv + d * v / 16.0);
            }
            let k = j * n + i;
            (p.h[k], p.hu[k], p.hv[k]) = (h, hu, hv);
        }
    }
    p
}
