//! Exact solutions (the validation cases): the 1D dam break on a flat, frictionless bed, Ritter
//! (dry bed downstream) and Stoker (wet bed downstream); Thacker's planar surface oscillating
//! in a paraboloid (wet–dry fronts on a curved bed).

/// Depth and velocity at (x, t) of a dam at x = x0 holding depth `hl` (left) against `hr`
/// (right, 0 for Ritter's dry bed), released at t = 0.
pub fn dam_break(g: f64, hl: f64, hr: f64, x0: f64, x: f64, t: f64) -> (f64, f64) {
    if t <= 0.0 {
        return (if x < x0 { hl } else { hr }, 0.0);
    }
    let cl = (g * hl).sqrt();
    let xi = (x - x0) / t;
    if hr <= 0.0 {
        // Ritter: a rarefaction from −c_l to the dry front at 2c_l.
        return if xi <= -cl {
            (hl, 0.0)
        } else if xi < 2.0 * cl {
            let c = (2.0 * cl - xi) / 3.0;
            (c * c / g, 2.0 * (cl - c))
        } else {
            (0.0, 0.0)
        };
    }
    // Stoker: rarefaction, constant middle state (hm, um), shock of speed s into hr.
    let (hm, um, s) = stoker_middle(g, hl, hr);
    let cm = (g * hm).sqrt();
    if xi <= -cl {
        (hl, 0.0)
    } else if xi <= um - cm {
        let c = (2.0 * cl - xi) / 3.0;
        (c * c / g, 2.0 * (cl - c))
    } else if xi <= s {
        (hm, um)
    } else {
        (hr, 0.0)
    }
}

/// Middle depth, velocity and shock speed of Stoker's solution: the rarefaction's
/// u = 2(c_l − c_m) equals the shock's u = (h_m − h_r)·√(g(h_m + h_r)/(2 h_m h_r)); bisection.
pub fn stoker_middle(g: f64, hl: f64, hr: f64) -> (f64, f64, f64) {
    let cl = (g * hl).sqrt();
    let f = |hm: f64| 2.0 * (cl - (g * hm).sqrt()) - (hm - hr) * (g * (hm + hr) / (2.0 * hm * hr)).sqrt();
    let (mut lo, mut hi) = (hr, hl);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let hm = 0.5 * (lo + hi);
    let um = 2.0 * (cl - (g * hm).sqrt());
    let s = hm * um / (hm - hr);
    (hm, um, s)
}

/// Thacker's planar surface in a paraboloid as SWASHES gives it (Delestre et al. 2013, §4.2.2):
/// side of the square domain, bowl radius a, depth h₀ at the bottom, η.
pub const THACKER_L: f64 = 4.0;
pub const THACKER_A: f64 = 1.0;
pub const THACKER_H0: f64 = 0.1;
pub const THACKER_ETA: f64 = 0.5;

/// The paraboloid bed z = −h₀(1 − r²/a²), r from the centre of the domain.
pub fn thacker_bed(x: f64, y: f64) -> f64 {
    let r2 = (x - THACKER_L / 2.0).powi(2) + (y - THACKER_L / 2.0).powi(2);
    -THACKER_H0 * (1.0 - r2 / (THACKER_A * THACKER_A))
}

/// The period T = 2π/ω of the oscillation, ω = √(2gh₀)/a.
pub fn thacker_period(g: f64) -> f64 {
    2.0 * std::f64::consts::PI * THACKER_A / (2.0 * g * THACKER_H0).sqrt()
}

/// Depth and velocity (h, u, v) at (x, y, t): the surface is the plane
/// ηh₀/a²·(2X cos ωt + 2Y sin ωt − η) (X, Y from the centre), the velocity uniform,
/// (−ηω sin ωt, ηω cos ωt) where wet.
pub fn thacker(g: f64, x: f64, y: f64, t: f64) -> (f64, f64, f64) {
    let (a, h0, eta) = (THACKER_A, THACKER_H0, THACKER_ETA);
    let w = (2.0 * g * h0).sqrt() / a;
    let (cx, cy) = (x - THACKER_L / 2.0, y - THACKER_L / 2.0);
    let surface = eta * h0 / (a * a) * (2.0 * cx * (w * t).cos() + 2.0 * cy * (w * t).sin() - eta);
    let h = surface - thacker_bed(x, y);
    if h > 0.0 { (h, -eta * w * (w * t).sin(), eta * w * (w * t).cos()) } else { (0.0, 0.0, 0.0) }
}
