//! Soils for the infiltration tests and the exact ponded Green–Ampt solution they are held to.

use hydrokern::forcing::GreenAmpt;

/// Silt loam (Rawls, Brakensiek & Miller 1983): K_s 6.5 mm/h, ψ 166.8 mm, Δθ 0.34.
pub const SILT_LOAM: GreenAmpt = GreenAmpt { ks: 6.5e-3 / 3600.0, suction: 0.1668, deficit: 0.34 };

/// F(t) of ponded Green–Ampt infiltration, exactly: the root of F − S·ln(1 + F/S) = K·t (S =
/// ψΔθ), by bisection in f64 — an independent plain version of what the models integrate.
pub fn green_ampt_exact(ks: f64, s: f64, t: f64) -> f64 {
    let g = |f: f64| f - s * (1.0 + f / s).ln() - ks * t;
    let (mut lo, mut hi) = (0.0, ks * t + (2.0 * ks * s * t).sqrt() + s);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 { hi = mid } else { lo = mid }
    }
    0.5 * (lo + hi)
}
