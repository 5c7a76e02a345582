//! The pictures of a sediment snapshot: maps of the basin's height (hillshaded), of what was
//! laid down or eroded since the start (h − h₀, in diverging colours: deposition red, erosion
//! blue) and of the sand fraction, and an animation of the deposit.
//!
//! The colour ranges are fixed for the run before it starts ([`deposit_scale`]), so the
//! snapshots of a run compare colour for colour.

use super::Problem;
use crate::Real;
use crate::Result;
use crate::grid::Grid2;
use crate::model::State;
use crate::output::png::{Colormap, Ground, MapOptions, render_map};
use crate::run::{Album, RunDir, time_tag};

/// The deposit maps' range, ± this (m): the thickness at the mouth of a river feeding a
/// one-dimensional diffusive fan for the whole run, 2q√(t/(πK)) (the half-space's answer to an
/// inflow q into ∂h/∂t = K ∂²h/∂x²), with q the largest side inflow (m³/m/yr), t the run's
/// length and K the basin's mean conductance for the inflow's mix of sand and mud,
/// s_in α/C_s + (1 − s_in) β/C_m. On the `sediment` scenario's basin it gives 97 m where the
/// run lays down 91 m. Without inflow, the initial relief; 1 m if that is flat too.
pub fn deposit_scale(p: &Problem, t_run: f64) -> f64 {
    let side = p.sides.iter().copied().fold(None, |best: Option<super::Side>, s| match best {
        Some(b) if b.q >= s.q => Some(b),
        _ => Some(s),
    });
    let (alpha, beta) = (p.alpha.interior(), p.beta.interior());
    let r = match side {
        Some(s) if s.q > 0.0 && t_run > 0.0 && t_run.is_finite() => {
            let k: f64 =
                alpha.iter().zip(&beta).map(|(a, b)| s.s_in * a / p.cs + (1.0 - s.s_in) * b / p.cm).sum::<f64>()
                    / alpha.len().max(1) as f64;
            2.0 * s.q * (t_run / (std::f64::consts::PI * k)).sqrt()
        }
        _ => {
            let h0 = p.h.interior();
            let (lo, hi) = h0.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &h| (a.min(h), b.max(h)));
            hi - lo
        }
    };
    if r > 0.0 && r.is_finite() { r } else { 1.0 }
}

/// How the basin height (the initial basin's range raised by the deposit that may be laid on
/// it), the deposit h − h₀ (diverging, ± [`deposit_scale`]) and the sand fraction (0 to 1) are
/// drawn, in the pictures and the live view; `t_run` is the run's length in years.
pub fn maps(p: &Problem, t_run: f64) -> [MapOptions; 3] {
    let h0 = p.h.interior();
    let r = deposit_scale(p, t_run);
    let (lo, hi) = h0.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let mut h_map = MapOptions::new("basin height", "h [m]");
    h_map.range = Some((lo, hi + r));
    let mut d_map = MapOptions::new("deposition (red) and erosion (blue) since t = 0", "h − h₀ [m]");
    d_map.colormap = Colormap::diverging();
    d_map.range = Some((-r, r));
    let mut s_map = MapOptions::new("sand fraction", "s (sand)");
    s_map.colormap = Colormap::diverging();
    s_map.range = Some((0.0, 1.0));
    [h_map, d_map, s_map]
}

/// `h_t<time>.png`, `deposit_t<time>.png`, `s_t<time>.png` and a frame of `deposit.gif`; `t_run`
/// is the run's length in years.
pub fn write<T: Real>(
    p: &Problem,
    g: &Grid2,
    t_run: f64,
    state: &State<T>,
    album: &mut Album,
    dir: &mut RunDir,
) -> Result<()> {
    let (Some(h), Some(s)) = (state.field("h"), state.field("s")) else { return Ok(()) };
    let t = time_tag(state.clock.t);
    let when = format!("t = {t} yr");
    let f64s = |v: &[T]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let (hv, sv) = (f64s(&h.data), f64s(&s.data));
    let km = g.nx as f64 * g.dx / 1000.0;
    let edges = g.edges();
    let h0 = p.h.interior();
    let [h_map, d_map, s_map] = maps(p, t_run);
    let h_map = MapOptions { title: format!("basin height, {when} ({km:.1} km across)"), ..h_map.in_metres(edges) };
    let all_wet = vec![false; hv.len()];
    let ground = Ground { bed: &hv, dry: &all_wet };
    let pic = render_map(&hv, g.nx, g.ny, &h_map, Some(&ground))?;
    dir.write(&format!("h_t{t}.png"), |path| pic.write_png(path))?;
    // What was laid down (or eroded): h − h₀ shows the deposit the regional slope hides in h.
    let deposit: Vec<f64> = hv.iter().zip(&h0).map(|(a, b)| a - b).collect();
    let d_map = MapOptions { title: format!("{}, {when}", d_map.title), ..d_map.in_metres(edges) };
    let pic = render_map(&deposit, g.nx, g.ny, &d_map, None)?;
    dir.write(&format!("deposit_t{t}.png"), |path| pic.write_png(path))?;
    album.animations.push("deposit.gif", pic);
    let s_map = MapOptions { title: format!("sand fraction, {when}"), ..s_map.in_metres(edges) };
    let pic = render_map(&sv, g.nx, g.ny, &s_map, None)?;
    dir.write(&format!("s_t{t}.png"), |path| pic.write_png(path))
}
