//! Throwaway diagnostics for calls c97 and c99 (tests/kp/diag.rs then, not committed): where the f32 4096² flood's Δt
//! collapses near t = 4 s.

use crate::common::gpu;
use hydrokern::kp::gpu::{FluxKernel, GpuKp, Launch};
use hydrokern::kp::setup;
use kernels::kp::{Clamp, Coeffs, cell_faces, is_film};

/// Every interior cell's rate (max face speed / spacing) from the padded state, in parallel.
fn rates(k: &Coeffs<f32>, n: usize, q: &[Vec<f32>; 3]) -> Vec<(f32, usize, usize)> {
    let p = n + 4;
    let threads = 16;
    let rows_per = n.div_ceil(threads);
    let mut out: Vec<Vec<(f32, usize, usize)>> = Vec::new();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut v = Vec::new();
                    for j in t * rows_per..((t + 1) * rows_per).min(n) {
                        for i in 0..n {
                            let c = cell_faces::<Clamp, f32>(
                                k,
                                |di, dj| {
                                    let g = (j as i32 + 2 + dj) as usize * p + (i as i32 + 2 + di) as usize;
                                    (q[0][g], q[1][g], q[2][g])
                                },
                                |_, _| 0.0,
                            );
                            let r = c.rhs::<Clamp>(k).rate;
                            if r > 4.0e3 || !r.is_finite() {
                                v.push((r, i, j));
                            }
                        }
                    }
                    v
                })
            })
            .collect();
        for h in hs {
            out.push(h.join().unwrap());
        }
    });
    let mut all: Vec<_> = out.into_iter().flatten().collect();
    all.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    all
}

fn show(k: &Coeffs<f32>, n: usize, q: &[Vec<f32>; 3], i: usize, j: usize) {
    let p = n + 4;
    let at = |i: i64, j: i64| (j + 2) as usize * p + (i + 2) as usize;
    for dj in (-3i64..=3).rev() {
        let mut line = String::new();
        for di in -3i64..=3 {
            let (ii, jj) = (i as i64 + di, j as i64 + dj);
            if ii < -2 || jj < -2 || ii >= n as i64 + 2 || jj >= n as i64 + 2 {
                line += "  [outside]                          ";
                continue;
            }
            let g = at(ii, jj);
            let h = q[0][g];
            let f = if is_film(k, h) { "F" } else if h <= k.dry { "d" } else { " " };
            line += &format!(" {f}h{:9.3e} u{:+9.2e} v{:+9.2e}", h, q[1][g] / h.max(1e-30), q[2][g] / h.max(1e-30));
        }
        println!("   dj {dj:+}:{line}");
    }
    let c = cell_faces::<Clamp, f32>(
        k,
        |di, dj| {
            let g = at(i as i64 + di as i64, j as i64 + dj as i64);
            (q[0][g], q[1][g], q[2][g])
        },
        |_, _| 0.0,
    );
    for (f, name) in ["west", "east", "south", "north"].iter().enumerate() {
        let (l, r) = c.sides[f];
        let fl = c.flux[f];
        println!(
            "   {name}: speed {:.4e}  l (w {:.4e} h {:.4e} qn {:+.4e} qt {:+.4e})  r (w {:.4e} h {:.4e} qn {:+.4e} qt {:+.4e})  f0 {:+.3e} fn {:+.3e}",
            fl.speed, l.w, l.h, l.qn, l.qt, r.w, r.h, r.qn, r.qt, fl.f0, fl.fn_
        );
    }
}

#[test]
#[ignore = "diagnostic"]
fn diag_flood() {
    let gpu = gpu();
    let n: usize = std::env::var("DIAG_N").map(|s| s.parse().unwrap()).unwrap_or(4096);
    let from: f64 = std::env::var("DIAG_FROM").map(|s| s.parse().unwrap()).unwrap_or(3.97);
    let problem = setup::flood(n, n);
    assert!(problem.bed.iter().all(|b| *b == 0.0));
    println!("cfl {} theta {} wet_dry {:?} scheme {:?} acc {:?}", problem.cfl, problem.theta, problem.wet_dry, problem.scheme, problem.accumulation);
    let mut m = GpuKp::<f32>::new(&gpu, &problem, Launch::default()).unwrap();
    let k = *m.coeffs();
    println!("dry {:e} kappa {:e} kappa^1/4 {:e}", k.dry, k.kappa, (k.kappa as f64).powf(0.25));
    let mut shown = 0;
    let mut dts: Vec<f64> = Vec::new();
    for t_stop in [1.0, 2.0, 3.0, 4.0] {
        m.set_stop(t_stop);
        loop {
            let c = m.clock(&gpu).unwrap();
            if c.t >= t_stop || c.status != 0 {
                break;
            }
            if c.t < from {
                for _ in 0..20 {
                    m.step(FluxKernel::Full).unwrap();
                }
                continue;
            }
            // One step at a time, with the state it started from.
            let q = m.download(&gpu).unwrap();
            m.step(FluxKernel::Full).unwrap();
            let after = m.clock(&gpu).unwrap();
            if after.dt > 0.0 {
                dts.push(after.dt);
            }
            let typical = {
                let mut s = dts.clone();
                s.sort_by(|a, b| a.partial_cmp(b).unwrap());
                s.get(s.len() / 2).copied().unwrap_or(1.0)
            };
            let collapsed = after.dt > 0.0 && after.dt < 0.6 * typical;
            if collapsed && (shown < 3 || shown % 40 == 0) || shown == 0 && after.steps % 50 == 0 {
                let all = rates(&k, n, &q);
                println!(
                    "step {} t {:.6} dt {:.4e} (median {:.3e}); CFL/rate {:.4e}; {} cells above 4e3",
                    after.steps,
                    c.t,
                    after.dt,
                    typical,
                    0.25 / all.first().map(|a| a.0 as f64).unwrap_or(0.0),
                    all.len()
                );
                for &(r, i, j) in all.iter().take(6) {
                    println!("  rate {r:.4e} (speed {:.1} m/s) at i {i} j {j}", r as f64 / k.inv_dx as f64);
                }
                if let Some(&(_, i, j)) = all.first() {
                    show(&k, n, &q, i, j);
                }
            }
            if collapsed {
                shown += 1;
            }
        }
    }
    let c = m.clock(&gpu).unwrap();
    println!("end: steps {} t {}", c.steps, c.t);
}
