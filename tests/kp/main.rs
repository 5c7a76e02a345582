//! Kurganov–Petrova shallow water, one test binary: the point functions against straightforward
//! formulas (`point.rs`, `friction.rs`), the CPU reference against exact solutions and
//! invariants (`validation.rs`, `wetdry.rs`, `schemes.rs`; the thin dry-bed front against a plain
//! central-upwind scheme in `plain_front.rs`), f32's compensated volume
//! (`compensated.rs`) and mixed precision (`mixed_cpu.rs`), forcing (`forcing.rs`; gridded rain,
//! soils per cell and Horton's in `forcing_spatial.rs`; gridded rain from NetCDF files in
//! `forcing_netcdf.rs`; the V-catchment in `catchment.rs`; the Environment Agency's Test 4 in
//! `floodplain.rs`; the water account's boundary
//! segments in `account.rs`), inactive cells (`inactive.rs`), bad input (`input.rs`), the GPU
//! kernels against the CPU reference (`gpu.rs`, `mixed_gpu.rs`), the products (`products.rs`), runs decomposed over ranks (`ranks.rs`)
//! and the discharge lines' physics (`lines.rs`); launch choices (`tuning.rs`) and the
//! pictures' ranges (`pictures.rs`).

mod account;
mod catchment;
#[path = "../common/mod.rs"]
mod common;
mod compensated;
mod floodplain;
mod forcing;
mod forcing_netcdf;
mod forcing_spatial;
mod friction;
mod gpu;
mod graphs;
mod inactive;
mod input;
mod lines;
mod mixed_cpu;
mod mixed_gpu;
mod pictures;
mod plain_front;
mod point;
mod products;
mod ranks;
mod schemes;
mod tuning;
mod validation;
mod view;
mod wetdry;

use hydrokern::Real;
use hydrokern::kp::Problem;
use hydrokern::kp::cpu::CpuKp;

pub const BLOCK: (u32, u32) = (16, 8);

pub fn run<T: Real>(p: &Problem, t_end: f64) -> CpuKp<T> {
    let mut m = CpuKp::<T>::new(p, BLOCK, false).expect("valid problem");
    while m.time() < t_end {
        m.step(t_end).expect("no blow-up");
    }
    m
}

/// minmod(a, b, c) written out: the smallest in magnitude if all three share a sign, else 0.
pub fn plain_minmod(a: f64, b: f64, c: f64) -> f64 {
    if a > 0.0 && b > 0.0 && c > 0.0 {
        a.min(b).min(c)
    } else if a < 0.0 && b < 0.0 && c < 0.0 {
        a.max(b).max(c)
    } else {
        0.0
    }
}

/// Interior depths h = w − B, row-major.
pub fn depth<T: Real>(p: &Problem, m: &CpuKp<T>) -> Vec<f64> {
    let w = p.interior(m.state()[0]);
    let b = p.interior(m.cell_bed());
    w.iter().zip(&b).map(|(w, b)| (*w - *b).to_f64()).collect()
}
