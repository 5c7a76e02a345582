//! Experiment (docs/kp-wet-dry.md, "Fourth round"): the draining time step with the actual Δt
//! and a velocity maximum principle in partially flooded cells, built on the CPU reference's
//! point functions. Not a scheme of the code: `#[ignore]`d tests, configured by environment
//! variables (`HK_CLAMP`, `HK_SIZES`), that print the doc's tables.
//!
//! A stage computes every face flux once (the reconstruction of `Bollermann`, the flux of
//! `central_upwind` without the a-priori cap), then Δt (stage 1), then the draining factor of
//! each cell from its outgoing mass fluxes and the actual Δt, scales the faces that water leaves
//! a draining cell through (mass and advective momentum; the pressure part kept), and assembles
//! R as `cell_rhs` does. After the RK stage, in partially flooded cells only (w̄ < B_hi), each
//! velocity component is clamped to the range of its neighbours' (`HK_CLAMP`'s `clamp4` or
//! `clamp8`, from fully flooded neighbours or with `wet` from every neighbour deeper than
//! `dry`), u = 0 where no neighbour qualifies.

use super::BLOCK;
use super::wetdry::{Thacker, motion_of, thacker_mean, thacker_measure};
use hydrokern::Real;
use hydrokern::kp::cpu::{CpuKp, apply_boundary};
use hydrokern::kp::{Boundary, Problem, Scheme, exact, setup};
use kernels::kp::{
    Bollermann, Coeffs, FaceState, Flux, Kp07, Recon, STEP_OK, assemble, bed_x, bed_y, central_upwind,
    desingularize_pair, recon_x, recon_y, rk_point, surface_at, time_step,
};

/// One variant of the experiment, parsed from a comma-separated list (`HK_CLAMP`): `drain`
/// (draining time step in partially flooded cells; `drainall`: in every cell), `clamp4` or
/// `clamp8` (the velocity clamp over 4 or 8 neighbours), `wet` (the clamp's range from every
/// neighbour deeper than `dry`, not only fully flooded ones), `dtfull` (Δt only over faces that
/// touch a fully flooded cell), `cut=H` (the second round's face and cell cuts at depth H in
/// partially flooded cells).
#[derive(Clone, Copy, Debug, Default)]
pub struct Variant {
    pub drain: bool,
    pub drain_all: bool,
    pub clamp: Option<usize>,
    pub wet: bool,
    pub fallback: bool,
    pub dt_full: bool,
    pub cut: Option<f64>,
}

impl Variant {
    pub fn parse(s: &str) -> Variant {
        let mut v = Variant::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "drain" => v.drain = true,
                "drainall" => (v.drain, v.drain_all) = (true, true),
                "clamp4" => v.clamp = Some(4),
                "clamp8" => v.clamp = Some(8),
                "wet" => v.wet = true,
                "fallback" => v.fallback = true,
                "dtfull" => v.dt_full = true,
                _ => match part.strip_prefix("cut=").map(str::parse::<f64>) {
                    Some(Ok(h)) => v.cut = Some(h),
                    _ => panic!("HK_CLAMP: unknown part '{part}'"),
                },
            }
        }
        v
    }
}

/// The experiment's solver: padded state and scratch on the CPU reference's layout.
pub struct Exp<T: Real> {
    k: Coeffs<T>,
    v: Variant,
    cfl: f64,
    floor: f64,
    bed: Vec<T>,
    cb: Vec<T>,
    /// Highest corner of each cell: partially flooded where w̄ < it.
    hi: Vec<T>,
    q: [Vec<T>; 3],
    q1: [Vec<T>; 3],
    surf: Vec<(T, T, T, T)>,
    rx: Vec<Recon<T>>,
    ry: Vec<Recon<T>>,
    /// West and south face of each cell: flux and its pressure part.
    fx: Vec<Flux<T>>,
    fy: Vec<Flux<T>>,
    px: Vec<T>,
    py: Vec<T>,
    phi: Vec<T>,
    r: [Vec<T>; 3],
    pub t: f64,
    pub steps: u64,
    /// Draining factors below 1 applied, over the run.
    pub drained: u64,
}

/// The pressure part of `central_upwind`'s normal momentum flux, (a⁺·½g h_l² − a⁻·½g h_r²)/(a⁺ − a⁻).
fn pressure<T: Real>(k: &Coeffs<T>, l: FaceState<T>, r: FaceState<T>) -> T {
    let (ul, _) = desingularize_pair(k.kappa, l.h, l.qn, l.qt);
    let (ur, _) = desingularize_pair(k.kappa, r.h, r.qn, r.qt);
    let (cl, cr) = ((k.g * l.h).sqrt_fast(), (k.g * r.h).sqrt_fast());
    let ap = (ul + cl).max(ur + cr).max(T::ZERO);
    let am = (ul - cl).min(ur - cr).min(T::ZERO);
    let span = ap - am;
    if span > T::ZERO {
        (ap * (k.half_g * l.h * l.h) - am * (k.half_g * r.h * r.h)) * span.recip_fast()
    } else {
        T::ZERO
    }
}

impl<T: Real> Exp<T> {
    pub fn new(p: &Problem, v: Variant) -> Exp<T> {
        assert!(p.scheme == Scheme::Rk2, "the experiment runs RK2 only");
        let m = CpuKp::<T>::new(p, BLOCK, false).unwrap();
        let k = *m.coeffs();
        let n = k.cells();
        let (cp, pitch) = (k.cpitch as usize, k.pitch as usize);
        let bed = m.bed().to_vec();
        let hi = (0..n)
            .map(|c| {
                let cc = c / pitch * cp + c % pitch;
                bed[cc].max(bed[cc + 1]).max(bed[cc + cp].max(bed[cc + cp + 1]))
            })
            .collect();
        let q: [Vec<T>; 3] = core::array::from_fn(|f| m.state()[f].to_vec());
        Exp {
            k,
            v,
            cfl: p.cfl,
            floor: p.dt_floor,
            bed,
            cb: m.cell_bed().to_vec(),
            hi,
            q1: q.clone(),
            q,
            surf: vec![(T::ZERO, T::ZERO, T::ZERO, T::ZERO); n],
            rx: vec![Recon::ZERO; n],
            ry: vec![Recon::ZERO; n],
            fx: vec![Flux::ZERO; n],
            fy: vec![Flux::ZERO; n],
            px: vec![T::ZERO; n],
            py: vec![T::ZERO; n],
            phi: vec![T::ONE; n],
            r: core::array::from_fn(|_| vec![T::ZERO; n]),
            t: 0.0,
            steps: 0,
            drained: 0,
        }
    }

    /// Padded (w, hu, hv).
    pub fn state(&self) -> [&[T]; 3] {
        [&self.q[0], &self.q[1], &self.q[2]]
    }
    pub fn coeffs(&self) -> &Coeffs<T> {
        &self.k
    }

    /// Every face flux of the state Qⁿ (or Q¹) and the rate Δt is taken from.
    fn fluxes(&mut self, from_q1: bool) -> T {
        let k = self.k;
        let (nx, ny, p, cp) = (k.nx as usize, k.ny as usize, k.pitch as usize, k.cpitch as usize);
        let src = if from_q1 { &self.q1 } else { &self.q };
        let bed = &self.bed;
        let corners = |c: usize| {
            let cc = c / p * cp + c % p;
            move |ci: i32, cj: i32| bed[(cc as isize + ci as isize + cj as isize * cp as isize) as usize]
        };
        for c in 0..k.cells() {
            self.surf[c] = surface_at::<Bollermann, T>(&k, (src[0][c], src[1][c], src[2][c]), &corners(c), 0, 0);
        }
        let surf = &self.surf;
        let cut = |mut f: FaceState<T>| {
            if let Some(hc) = self.v.cut
                && f.cap < T::INFINITY
                && f.h < T::from_f64(hc)
            {
                (f.qn, f.qt) = (T::ZERO, T::ZERO);
            }
            f
        };
        let cut_recon = |r: Recon<T>| Recon { m: cut(r.m), p: cut(r.p), db: r.db };
        for j in 1..ny + 3 {
            for i in 1..nx + 3 {
                let c = j * p + i;
                let q = |di: i32, dj: i32| surf[(c as isize + di as isize + dj as isize * p as isize) as usize];
                if (2..ny + 2).contains(&j) {
                    self.rx[c] = cut_recon(recon_x::<Bollermann, T>(&k, &q, &corners(c), 0));
                }
                if (2..nx + 2).contains(&i) {
                    self.ry[c] = cut_recon(recon_y::<Bollermann, T>(&k, &q, &corners(c), 0));
                }
            }
        }
        let full = |c: usize| surf[c].3 == T::INFINITY;
        let mut rate = T::ZERO;
        let mut see = |speed: T, a: usize, b: usize, inv: T| {
            if !self.v.dt_full || full(a) || full(b) {
                rate = rate.max(if speed.is_finite() { speed * inv } else { T::INFINITY });
            }
        };
        for j in 2..ny + 3 {
            for i in 2..nx + 3 {
                let c = j * p + i;
                if j < ny + 2 {
                    let (l, r) = (self.rx[c - 1].p, self.rx[c].m);
                    self.fx[c] = central_upwind::<Kp07, T>(&k, l, r);
                    self.px[c] = pressure(&k, l, r);
                    see(self.fx[c].speed, c - 1, c, k.inv_dx);
                }
                if i < nx + 2 {
                    let (l, r) = (self.ry[c - p].p, self.ry[c].m);
                    self.fy[c] = central_upwind::<Kp07, T>(&k, l, r);
                    self.py[c] = pressure(&k, l, r);
                    see(self.fy[c].speed, c - p, c, k.inv_dy);
                }
            }
        }
        rate
    }

    /// The draining factors with the actual Δt, the faces scaled by them, and R.
    fn drain_and_rhs(&mut self, from_q1: bool, dt: T) {
        let k = self.k;
        let (nx, ny, p, cp) = (k.nx as usize, k.ny as usize, k.pitch as usize, k.cpitch as usize);
        let src = if from_q1 { &self.q1 } else { &self.q };
        let interior = |c: usize| (2..nx + 2).contains(&(c % p)) && (2..ny + 2).contains(&(c / p));
        if self.v.drain {
            for j in 2..ny + 2 {
                for i in 2..nx + 2 {
                    let c = j * p + i;
                    self.phi[c] = T::ONE;
                    if !self.v.drain_all && self.surf[c].3 == T::INFINITY {
                        continue;
                    }
                    let out = (-self.fx[c].f0).max(T::ZERO) * k.inv_dx
                        + self.fx[c + 1].f0.max(T::ZERO) * k.inv_dx
                        + (-self.fy[c].f0).max(T::ZERO) * k.inv_dy
                        + self.fy[c + p].f0.max(T::ZERO) * k.inv_dy;
                    let h = (src[0][c] - self.cb[c]).max(T::ZERO);
                    if dt * out > h {
                        self.phi[c] = h / (dt * out);
                        self.drained += 1;
                    }
                }
            }
            let phi = &self.phi;
            let scale = |f: &mut Flux<T>, pr: T, left: usize, right: usize| {
                let up = if f.f0 > T::ZERO { left } else { right };
                if f.f0 != T::ZERO && interior(up) && phi[up] < T::ONE {
                    let s = phi[up];
                    (f.f0, f.fn_, f.ft) = (s * f.f0, pr + s * (f.fn_ - pr), s * f.ft);
                }
            };
            for j in 2..ny + 3 {
                for i in 2..nx + 3 {
                    let c = j * p + i;
                    if j < ny + 2 {
                        scale(&mut self.fx[c], self.px[c], c - 1, c);
                    }
                    if i < nx + 2 {
                        scale(&mut self.fy[c], self.py[c], c - p, c);
                    }
                }
            }
        }
        let bed = &self.bed;
        for j in 2..ny + 2 {
            for i in 2..nx + 2 {
                let c = j * p + i;
                let cc = j * cp + i;
                let b = |ci: i32, cj: i32| bed[(cc as isize + ci as isize + cj as isize * cp as isize) as usize];
                let beds = (bed_x(&b, 0), bed_x(&b, 1), bed_y(&b, 0), bed_y(&b, 1));
                let (fw, fe, gs, gn) = (self.fx[c], self.fx[c + 1], self.fy[c], self.fy[c + p]);
                let r = assemble::<Bollermann, T>(&k, fw, fe, gs, gn, self.rx[c], self.ry[c], beds);
                (self.r[0][c], self.r[1][c], self.r[2][c]) = (r.w, r.hu, r.hv);
            }
        }
    }

    /// RK stage `stage` into Q¹ (stage 1) or Qⁿ⁺¹ (stage 2, in place: each cell reads its own
    /// Qⁿ first), then the cuts and the clamp, then the ghosts.
    fn stage(&mut self, stage: u32, dt: T) {
        let k = self.k;
        let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
        for j in 2..ny + 2 {
            for i in 2..nx + 2 {
                let c = j * p + i;
                let q0 = (self.q[0][c], self.q[1][c], self.q[2][c]);
                let q1 = if stage == 1 { q0 } else { (self.q1[0][c], self.q1[1][c], self.q1[2][c]) };
                let r = (self.r[0][c], self.r[1][c], self.r[2][c]);
                let (out, _) = rk_point(&k, k.g_n2, stage, dt, self.cb[c], q0, q1, r);
                let dst = if stage == 1 { &mut self.q1 } else { &mut self.q };
                (dst[0][c], dst[1][c], dst[2][c]) = out;
            }
        }
        let dst = if stage == 1 { &mut self.q1 } else { &mut self.q };
        post_stage(&k, self.v, &self.cb, &self.hi, dst);
        let [w, hu, hv] = dst;
        apply_boundary(&k, w, hu, hv, &self.cb);
    }

    /// One RK2 step towards `t_stop`.
    pub fn step(&mut self, t_stop: f64) -> Result<f64, String> {
        let rate = self.fluxes(false);
        let (dt, status) = time_step(self.cfl, rate.to_f64(), self.t, t_stop, self.floor);
        if status != STEP_OK {
            return Err(format!("status {status} at t = {} after {} steps", self.t, self.steps));
        }
        let dtt = T::from_f64(dt);
        self.drain_and_rhs(false, dtt);
        self.stage(1, dtt);
        self.fluxes(true);
        self.drain_and_rhs(true, dtt);
        self.stage(2, dtt);
        self.t += dt;
        self.steps += 1;
        Ok(dt)
    }

    /// Interior (h, hu, hv) in f64, row-major.
    pub fn interior(&self) -> [Vec<f64>; 3] {
        let k = &self.k;
        let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
        let cells = || (2..ny + 2).flat_map(move |j| (2..nx + 2).map(move |i| j * p + i));
        [
            cells().map(|c| (self.q[0][c] - self.cb[c]).to_f64()).collect(),
            cells().map(|c| self.q[1][c].to_f64()).collect(),
            cells().map(|c| self.q[2][c].to_f64()).collect(),
        ]
    }

    /// Water volume Σ h̄·ΔxΔy.
    pub fn volume(&self, p: &Problem) -> f64 {
        self.interior()[0].iter().sum::<f64>() * p.dx * p.dy
    }
}

/// After a stage, in partially flooded cells (w̄ < B_hi): the cell cut (momentum 0 below h_c)
/// and the velocity clamp to the neighbours' range (u = 0 where none qualifies). Neighbours'
/// velocities are taken before any cell is clamped, so the order of cells does not matter.
fn post_stage<T: Real>(k: &Coeffs<T>, v: Variant, cb: &[T], hi: &[T], q: &mut [Vec<T>; 3]) {
    let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
    if v.cut.is_none() && v.clamp.is_none() {
        return;
    }
    let h = |c: usize| q[0][c] - cb[c];
    let partial = |c: usize| q[0][c] < hi[c];
    let vel = |c: usize| if h(c) > k.dry { (q[1][c] / h(c), q[2][c] / h(c)) } else { (T::ZERO, T::ZERO) };
    let mut new = Vec::new();
    for j in 2..ny + 2 {
        for i in 2..nx + 2 {
            let c = j * p + i;
            if !partial(c) || h(c) <= k.dry {
                continue;
            }
            if let Some(hc) = v.cut
                && h(c) < T::from_f64(hc)
            {
                new.push((c, T::ZERO, T::ZERO));
                continue;
            }
            let Some(nb) = v.clamp else { continue };
            let offsets: &[(i32, i32)] = if nb == 4 {
                &[(-1, 0), (1, 0), (0, -1), (0, 1)]
            } else {
                &[(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, -1), (-1, 1), (1, 1)]
            };
            let (mut lo, mut up) = ((T::INFINITY, T::INFINITY), (-T::INFINITY, -T::INFINITY));
            for &(di, dj) in offsets {
                let (a, b) = (i as i32 + di, j as i32 + dj);
                if a < 2 || b < 2 || a >= nx as i32 + 2 || b >= ny as i32 + 2 {
                    continue;
                }
                let n = b as usize * p + a as usize;
                if h(n) > k.dry && (v.wet || !partial(n)) {
                    let (u, w) = vel(n);
                    lo = (lo.0.min(u), lo.1.min(w));
                    up = (up.0.max(u), up.1.max(w));
                }
            }
            if v.fallback && lo.0 > up.0 {
                // No fully flooded neighbour: the range of the wet ones.
                for &(di, dj) in offsets {
                    let (a, b) = (i as i32 + di, j as i32 + dj);
                    if a < 2 || b < 2 || a >= nx as i32 + 2 || b >= ny as i32 + 2 {
                        continue;
                    }
                    let n = b as usize * p + a as usize;
                    if h(n) > k.dry {
                        let (u, w) = vel(n);
                        lo = (lo.0.min(u), lo.1.min(w));
                        up = (up.0.max(u), up.1.max(w));
                    }
                }
            }
            let (u, w) = vel(c);
            let (u, w) = if lo.0 > up.0 { (T::ZERO, T::ZERO) } else { (u.max(lo.0).min(up.0), w.max(lo.1).min(up.1)) };
            new.push((c, h(c) * u, h(c) * w));
        }
    }
    for (c, hu, hv) in new {
        (q[1][c], q[2][c]) = (hu, hv);
    }
}

/// The variant of `HK_CLAMP` (default: the clamp over 4 fully flooded neighbours with the
/// draining time step).
fn variant() -> (String, Variant) {
    let s = std::env::var("HK_CLAMP").unwrap_or_else(|_| "drain,clamp4".into());
    let v = Variant::parse(&s);
    (s, v)
}

/// Thacker to t = T with the experiment at `n`².
pub fn thacker_exp(n: usize, v: Variant) -> (Thacker, u64) {
    let p = setup::thacker(n);
    let t = exact::thacker_period(p.g);
    let mut m = Exp::<f64>::new(&p, v);
    while m.t < t {
        m.step(t).unwrap_or_else(|e| panic!("{n}²: {e}"));
    }
    let h = m.interior()[0].clone();
    if std::env::var("HK_DIAG").is_ok() {
        // Cells deeper than 1 mm whose centre the exact solution leaves dry: depth, partial.
        let mut out = Vec::new();
        for (c, &hc) in h.iter().enumerate() {
            let (i, j) = (c % n, c / n);
            let (x, y) = p.centre(i, j);
            if hc > 1e-3 && exact::thacker(p.g, x, y, t).0 == 0.0 {
                let pc = m.k.at(i as u32 + 2, j as u32 + 2);
                out.push(format!("({i},{j}) h̄ {hc:.2e} {}", if m.q[0][pc] < m.hi[pc] { "partial" } else { "full" }));
            }
        }
        println!("  {n}²: {} cells deeper than 1 mm outside the exact wet region: {}", out.len(), out.join("; "));
        // Where the L1 error sits: cells the exact solution leaves dry, cells it wets in part
        // (cut by the exact shoreline), cells it covers; and the water in the dry ones.
        let (mut dry, mut cut, mut wet, mut water) = (0.0, 0.0, 0.0, 0.0);
        for (c, &hc) in h.iter().enumerate() {
            let (i, j) = (c % n, c / n);
            let want = thacker_mean(&p, t, i, j);
            let e = (hc - want).abs() * p.dx * p.dy;
            let corners = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .map(|(a, b)| exact::thacker(p.g, (i + a) as f64 * p.dx, (j + b) as f64 * p.dy, t).0 > 0.0);
            if want == 0.0 {
                (dry, water) = (dry + e, water + hc * p.dx * p.dy);
            } else if corners.iter().all(|&w| w) {
                wet += e;
            } else {
                cut += e;
            }
        }
        println!(
            "  {n}²: L1 in exact-dry cells {dry:.3e} (water there {water:.3e} m³), cut cells {cut:.3e}, wet cells {wet:.3e}"
        );
    }
    (thacker_measure(&p, t, &h, m.volume(&p), m.steps), m.drained)
}

/// Runs the sizes of `HK_SIZES` (default 25,50,100,200), at most `HK_THREADS` (default 2) at a
/// time, largest first, and prints the row of the doc's table.
#[test]
#[ignore = "experiment (docs/kp-wet-dry.md, fourth round): HK_CLAMP=... HK_SIZES=... --nocapture"]
fn clamp_thacker() {
    let (name, v) = variant();
    let mut ns: Vec<usize> = std::env::var("HK_SIZES")
        .unwrap_or_else(|_| "25,50,100,200".into())
        .split(',')
        .map(|s| s.trim().parse().expect("HK_SIZES: sizes"))
        .collect();
    ns.sort_unstable();
    let threads: usize = std::env::var("HK_THREADS").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new((0..ns.len()).map(|_| None).collect::<Vec<Option<Thacker>>>());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= ns.len() {
                        break;
                    }
                    let idx = ns.len() - 1 - k;
                    let start = std::time::Instant::now();
                    let (r, drained) = thacker_exp(ns[idx], v);
                    println!(
                        "[{name}] Thacker {}²: L1 {:.3e} m³, {} steps, shore {:.1} cells, volume change {:.1e}, {drained} draining factors < 1, {:.0} s",
                        ns[idx],
                        r.l1,
                        r.steps,
                        r.shore,
                        r.volume,
                        start.elapsed().as_secs_f64()
                    );
                    results.lock().unwrap()[idx] = Some(r);
                }
            });
        }
    });
    let runs: Vec<Thacker> = results.into_inner().unwrap().into_iter().map(Option::unwrap).collect();
    let orders: Vec<String> = runs.windows(2).map(|r| format!("{:.2}", (r[0].l1 / r[1].l1).log2())).collect();
    let growth: Vec<String> =
        runs.windows(2).map(|r| format!("{:.2}", r[1].steps as f64 / r[0].steps as f64)).collect();
    let cells: Vec<String> = ns.iter().zip(&runs).map(|(n, r)| format!("{n}²: {:.3e} / {}", r.l1, r.steps)).collect();
    let shores: Vec<String> = runs.iter().map(|r| format!("{:.1}", r.shore)).collect();
    println!(
        "| {name} | {} | orders {} | growth {} | shore {} |",
        cells.join(" | "),
        orders.join(", "),
        growth.join(", "),
        shores.join(", ")
    );
}

/// The lake at rest of `setup::shore_lake` (24², 0.7 m) over `steps` steps of the experiment:
/// max |u| and the depth gained by a dry cell.
fn lake<T: Real>(v: Variant, boundary: Boundary, steps: usize) -> (f64, f64) {
    let p = setup::shore_lake(24, 0.7, boundary);
    let mut m = Exp::<T>::new(&p, v);
    for _ in 0..steps {
        m.step(f64::INFINITY).unwrap();
    }
    let [h, hu, hv] = m.interior();
    let dry = m.coeffs().dry.to_f64();
    if std::env::var("HK_DIAG").is_ok() {
        // Where the fastest cell is: its depth, and whether it is partially flooded.
        let speed = |c: usize| if h[c] > dry { (hu[c].abs() / h[c]).max(hv[c].abs() / h[c]) } else { 0.0 };
        let c = (0..h.len()).max_by(|&a, &b| speed(a).total_cmp(&speed(b))).unwrap();
        let (i, j) = (c % p.nx, c / p.nx);
        let pc = m.coeffs().at(i as u32 + 2, j as u32 + 2);
        let partial = m.q[0][pc] < m.hi[pc];
        println!(
            "  {} {}: fastest cell ({i}, {j}), h̄ {:.3e}, |u| {:.2e}, partial {partial}",
            T::NAME,
            boundary.name(),
            h[c],
            speed(c)
        );
    }
    motion_of(&p, &h, &hu, &hv, dry)
}

#[test]
#[ignore = "experiment (docs/kp-wet-dry.md, fourth round): HK_CLAMP=... --nocapture"]
fn clamp_shore_lake() {
    let (name, v) = variant();
    for boundary in [Boundary::Wall, Boundary::Outflow] {
        let (u64_, g64) = lake::<f64>(v, boundary, 10_000);
        let (u32_, g32) = lake::<f32>(v, boundary, 10_000);
        println!(
            "[{name}] shore lake 24², {}, 10 000 steps: max |u| {u64_:.2e} (f64) {u32_:.2e} (f32), dry cells gain {g64:.1e} / {g32:.1e} m",
            boundary.name()
        );
    }
}

/// A flat bed has no partially flooded cell: the experiment must give the CPU reference's
/// `bollermann` bits (Ritter's dam break on a strip, and the dry circular dam break in 2D).
#[test]
#[ignore = "experiment (docs/kp-wet-dry.md, fourth round): HK_CLAMP=... --nocapture"]
fn clamp_flat_bed() {
    let (name, v) = variant();
    for (case, p, t_end) in [
        ("Ritter strip 400", setup::dam_break_strip(400, 1.0, 0.0), 4.0),
        ("dry dam break 64²", setup::dam_break(64, 64, true), 1.0),
    ] {
        let mut m = CpuKp::<f64>::new(&p, BLOCK, false).unwrap();
        let mut e = Exp::<f64>::new(&p, v);
        while m.time() < t_end {
            m.step(t_end).unwrap();
            e.step(t_end).unwrap();
        }
        let same = (0..3).all(|f| m.state()[f].iter().zip(e.state()[f]).all(|(a, b)| a.to_bits() == b.to_bits()));
        println!("[{name}] {case}: {} steps, bit for bit {same}", m.steps());
        assert!(same && m.steps() == e.steps, "{case}: the experiment changes a flat-bed run");
    }
}
