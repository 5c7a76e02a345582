//! Seed 003 §3.2's centre-line comparison of the time integration schemes on the circular dam
//! break (CPU reference, f64): each scheme at N² cells against RK2 at (2N)², the mean and largest
//! difference of the surface along y = 20 m printed, the centre lines drawn to a PNG.
//!
//! `cargo run --release --example centreline -- [N] [T] [OUT.png]` (defaults: 200, 2 s,
//! `centreline.png`; the seed's figures are N = 500).

use hydrokern::kp::Scheme;
use hydrokern::kp::centreline::compare;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args.first().map_or(Ok(200), |a| a.parse::<usize>());
    let t = args.get(1).map_or(Ok(2.0), |a| a.parse::<f64>());
    let out = PathBuf::from(args.get(2).map_or("centreline.png", String::as_str));
    let (Ok(n), Ok(t)) = (n, t) else {
        eprintln!("error: usage: centreline [N, even] [T, seconds] [OUT.png]");
        return ExitCode::FAILURE;
    };
    if !(t.is_finite() && t > 0.0) {
        eprintln!("error: T = {t}: must be positive and finite");
        return ExitCode::FAILURE;
    }
    let result = compare(n, t, &Scheme::ALL).and_then(|c| {
        for (s, _, mean, max) in &c.schemes {
            println!("{:>5} at {n}² against rk2 at {}²: mean |Δw| {mean:.3e} m, max |Δw| {max:.3e} m", s.name(), 2 * n);
        }
        c.write_png(&out)
    });
    match result {
        Ok(()) => {
            println!("centre lines: {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
