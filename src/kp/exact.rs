//! Exact solutions of the 1D dam break on a flat, frictionless bed (the validation cases):
//! Ritter (dry bed downstream) and Stoker (wet bed downstream).

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
