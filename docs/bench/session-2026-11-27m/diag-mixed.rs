//! Throwaway diagnostics for one device call (not committed).

use super::gpu::random_state;
use crate::common::gpu;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::gpu::{FluxKernel, GpuKp, Launch};
use hydrokern::kp::{Scheme, WetDry};

fn worst(name: &str, pitch: usize, g: &[f64], c: &[f64], extra: &dyn Fn(usize) -> String) {
    let mut d: Vec<(f64, usize)> = g.iter().zip(c).enumerate().map(|(k, (a, b))| ((a - b).abs(), k)).collect();
    d.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    for &(v, k) in d.iter().take(4) {
        if v > 0.0 {
            println!(
                "    {name} |d| {v:.3e} at i {} j {} (gpu {:.9e} cpu {:.9e}) {}",
                k as isize % pitch as isize - 2,
                k as isize / pitch as isize - 2,
                g[k],
                c[k],
                extra(k)
            );
        }
    }
}

#[test]
#[ignore = "diagnostic"]
fn diag_mixed() {
    let gpu = gpu();
    let cases: Vec<(usize, usize, u64)> = std::env::var("DIAG_CASES")
        .unwrap_or("7,31,7845836107163350650".into())
        .split(';')
        .map(|c| {
            let v: Vec<&str> = c.split(',').collect();
            (v[0].parse().unwrap(), v[1].parse().unwrap(), v[2].parse().unwrap())
        })
        .collect();
    for (nx, ny, seed) in cases {
        let p0 = random_state(nx, ny, seed, 1);
        println!(
            "case {nx}x{ny} seed {seed}: boundary {:?}, manning {} field {}",
            p0.boundary,
            p0.manning,
            p0.manning_field.is_some()
        );
        for scheme in [Scheme::Euler, Scheme::Rk2] {
            for early in [false, true] {
                for block in [(32u32, 8u32), (8, 4)] {
                    let mut p = p0.clone();
                    (p.scheme, p.wet_dry) = (scheme, WetDry::Clamp);
                    let launch = Launch { block, ..Launch::default() };
                    let kernel = if early { FluxKernel::EarlyExit } else { FluxKernel::Full };
                    let pitch = nx + 4;
                    // mixed
                    let mut c = CpuKp::<f32, f64>::new(&p, block, early).unwrap();
                    let mut g = GpuKp::new_mixed(&gpu, &p, launch).unwrap();
                    g.step(kernel).unwrap();
                    c.step(f64::INFINITY).unwrap();
                    let clock = g.clock(&gpu).unwrap();
                    let (gw, ghu, ghv) = g.download_mixed(&gpu).unwrap();
                    let (cw, chu, chv) = c.fields();
                    let cb: Vec<f64> = c.cell_bed().iter().map(|b| *b as f64).collect();
                    println!(
                        "  mixed {} early {early} block {block:?}: dt gpu {:.12e} cpu {:.12e} counts {:?}",
                        scheme.name(),
                        clock.dt,
                        c.last_dt(),
                        c.clamp_counts()
                    );
                    let ex = |k: usize| format!("h {:.3e} hu {:.3e}/{:.3e}", cw[k] - cb[k], ghu[k], chu[k]);
                    worst("w", pitch, &gw, cw, &ex);
                    let f = |v: &[f32]| v.iter().map(|x| *x as f64).collect::<Vec<f64>>();
                    worst("hu", pitch, &f(&ghu), &f(chu), &ex);
                    worst("hv", pitch, &f(&ghv), &f(chv), &ex);
                    // f32 plain and f64
                    let mut p32 = p.clone();
                    p32.accumulation = hydrokern::accumulation::Accumulation::Plain;
                    let mut c = CpuKp::<f32>::new(&p32, block, early).unwrap();
                    let mut g = GpuKp::<f32>::new(&gpu, &p32, launch).unwrap();
                    g.step(kernel).unwrap();
                    c.step(f64::INFINITY).unwrap();
                    let q = g.download(&gpu).unwrap();
                    let s = c.state();
                    println!("  f32 plain: dt gpu {:.9e} cpu {:.9e}", g.clock(&gpu).unwrap().dt, c.last_dt());
                    let f = |v: &[f32]| v.iter().map(|x| *x as f64).collect::<Vec<f64>>();
                    let cbb = c.cell_bed().to_vec();
                    let s0 = f(s[0]);
                    let ex = |k: usize| format!("h {:.3e}", s0[k] - cbb[k] as f64);
                    worst("w32", pitch, &f(&q[0]), &s0, &ex);
                    worst("hu32", pitch, &f(&q[1]), &f(s[1]), &ex);
                    let mut c = CpuKp::<f64>::new(&p, block, early).unwrap();
                    let mut g = GpuKp::<f64>::new(&gpu, &p, launch).unwrap();
                    g.step(kernel).unwrap();
                    c.step(f64::INFINITY).unwrap();
                    let q = g.download(&gpu).unwrap();
                    let s = c.state();
                    println!("  f64: dt gpu {:.12e} cpu {:.12e}", g.clock(&gpu).unwrap().dt, c.last_dt());
                    let ex = |_k: usize| String::new();
                    worst("w64", pitch, &q[0], s[0], &ex);
                    worst("hu64", pitch, &q[1], s[1], &ex);
                }
            }
        }
    }
}

#[test]
#[ignore = "diagnostic"]
fn diag_mixed_cpu() {
    let p0 = random_state(7, 31, 7845836107163350650, 1);
    let mut p = p0.clone();
    (p.scheme, p.wet_dry) = (Scheme::Euler, WetDry::Clamp);
    let mut c = CpuKp::<f32, f64>::new(&p, (32, 8), false).unwrap();
    c.step(f64::INFINITY).unwrap();
    let (w, hu, hv) = c.fields();
    let cb = c.cell_bed();
    let bed = c.bed();
    let k = *c.coeffs();
    let (pitch, cpitch) = (k.pitch as usize, k.cpitch as usize);
    for j in 22..31usize {
        for i in 0..7usize {
            let g = (j + 2) * pitch + i + 2;
            let cc = (j + 2) * cpitch + i + 2;
            let hi = bed[cc].max(bed[cc + 1]).max(bed[cc + cpitch]).max(bed[cc + cpitch + 1]);
            let h = w[g] - cb[g] as f64;
            println!(
                "Q1 i {i} j {j}: w {:.9e} hi {:.9e} w-hi {:+.3e} h {:+.3e} hu {:+.3e} hv {:+.3e}",
                w[g], hi, w[g] - hi as f64, h, hu[g], hv[g]
            );
        }
    }
}

#[test]
#[ignore = "diagnostic"]
fn diag_mixed_conditioning() {
    let p0 = random_state(7, 31, 7845836107163350650, 1);
    for (name, eps) in [("none", 0.0f64), ("1e-7", 1.2e-7), ("-1e-7", -1.2e-7), ("3e-7", 3.6e-7)] {
        let mut p = p0.clone();
        (p.scheme, p.wet_dry) = (Scheme::Rk2, WetDry::Clamp);
        for (c, v) in p.hu.iter_mut().enumerate() {
            *v *= 1.0 + eps * if c % 3 == 0 { 1.0 } else { -0.5 };
        }
        let mut c = CpuKp::<f32, f64>::new(&p, (32, 8), false).unwrap();
        c.step(f64::INFINITY).unwrap();
        let (w, _, hv) = c.fields();
        let k = *c.coeffs();
        let g = (26 + 2) * k.pitch as usize + 6 + 2;
        let g5 = g - 1;
        println!("perturb {name}: w(6,26) {:.9e} w(5,26) {:.9e} hv(5,26) {:.9e} counts {:?}", w[g], w[g5], hv[g5], c.clamp_counts());
        let mut c = CpuKp::<f32>::new(&p, (32, 8), false).unwrap();
        c.step(f64::INFINITY).unwrap();
        let s = c.state();
        println!("   f32: w(6,26) {:.9e} w(5,26) {:.9e} hv(5,26) {:.9e} counts {:?}", s[0][g], s[0][g5], s[2][g5], c.clamp_counts());
    }
}
