//! f32 shallow water conserves volume (docs/f32-conservation.md): Thacker's bowl, a closed basin
//! where water runs up and down sloped walls, keeps its volume over 10⁵ RK2 steps to a relative
//! error that does not grow with the step count on the compensated path (the default), and the
//! plain path, which loses increments below half an ulp of w in film cells, does not.

use hydrokern::Real;
use hydrokern::accumulation::Accumulation;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Problem, WetDry, setup};
use std::time::Instant;

/// The bound on |V − V₀| / V₀ f32 is held to (10⁵–10⁶ steps; docs/f32-conservation.md).
const BOUND: f64 = 1e-5;
const STEPS: u64 = 100_000;
const BLOCK: (u32, u32) = (16, 8);

/// Volume of the interior in f64: Σ (w + low − B) ΔxΔy.
fn volume<T: Real>(p: &Problem, m: &CpuKp<T>) -> f64 {
    p.volume_with_low(m.state()[0], m.low(), m.cell_bed())
}

/// (V − V₀) / V₀ after `steps` CPU RK2 steps of `p` in precision `T`, and the seconds they took.
fn volume_error<T: Real>(p: &Problem, steps: u64) -> (f64, f64) {
    let mut m = CpuKp::<T>::new(p, BLOCK, false).unwrap();
    let v0 = volume(p, &m);
    let start = Instant::now();
    for _ in 0..steps {
        m.step(f64::INFINITY).unwrap();
    }
    ((volume(p, &m) - v0) / v0, start.elapsed().as_secs_f64())
}

/// Thacker's bowl at 40² (walls, no inflow) with `wet_dry` and `accumulation`.
fn bowl(wet_dry: WetDry, accumulation: Accumulation) -> Problem {
    let mut p = setup::thacker(40);
    p.wet_dry = wet_dry;
    p.accumulation = accumulation;
    p
}

/// f64 ignores the setting (it runs the plain update) and keeps the volume to round-off.
#[test]
fn f64_runs_plain_and_keeps_the_volume() {
    let p = bowl(WetDry::Clamp, Accumulation::Compensated);
    assert!(!p.compensates::<f64>() && p.compensates::<f32>());
    let (err, secs) = volume_error::<f64>(&p, STEPS / 10);
    println!("thacker 40², clamp, {} steps: f64 {err:+.2e} ({secs:.1} s)", STEPS / 10);
    assert!(err.abs() <= 1e-12, "f64: relative volume change {err:.3e}");
}

/// A compensated f32 run resumed from its state, low part, wet map and clock takes the same steps
/// as the run that went on, bit for bit, low parts included; resumed without the low part (a
/// plain run's state) it starts the low part at zero and parts from it.
#[test]
fn compensated_f32_resumes_bit_for_bit() {
    let p = bowl(WetDry::Clamp, Accumulation::Compensated);
    let mut a = CpuKp::<f32>::new(&p, BLOCK, false).unwrap();
    for _ in 0..300 {
        a.step(f64::INFINITY).unwrap();
    }
    let (q, low, wet) = (a.state().map(|f| f.to_vec()), a.low().unwrap().to_vec(), a.wet().to_vec());
    assert!(low.iter().any(|&l| l != 0.0), "300 steps left no low part to carry");
    let resumed = |low: Option<&[f32]>| {
        let mut b = CpuKp::<f32>::new(&p, BLOCK, false).unwrap();
        b.resume([&q[0], &q[1], &q[2]], low, &wet, a.time(), a.last_dt(), a.steps()).unwrap();
        b
    };
    let (mut b, mut c) = (resumed(Some(&low)), resumed(None));
    assert!(c.low().unwrap().iter().all(|&l| l == 0.0), "a state without a low part resumes with zero");
    for _ in 0..300 {
        for m in [&mut a, &mut b, &mut c] {
            m.step(f64::INFINITY).unwrap();
        }
    }
    let bits = |m: &CpuKp<f32>| {
        let fields = m.state().into_iter().chain(m.low());
        fields.flat_map(|f| f.iter().map(|v| v.to_bits())).collect::<Vec<_>>()
    };
    assert_eq!((a.steps(), a.time().to_bits()), (b.steps(), b.time().to_bits()));
    assert!(bits(&a) == bits(&b), "the resumed run differs");
    assert!(bits(&a) != bits(&c), "dropping the low part changed nothing: the test cannot tell");
}

/// Both RK stages keep the pair's sum: hi + lo of `rk_pair` is E(Q¹) = (w¹ + lo¹) + fl(Δt·R_w)
/// (stage 1) or ½((wⁿ + loⁿ) + E) (stage 2) but for the rounding of the small terms (the
/// increment and the low parts), ε·(|Δt·R_w| + ulp(w)); `rk_point` on the high parts alone is off
/// by up to half an ulp of w, thousands of times that (so the bound can fail).
#[test]
fn rk_pair_keeps_the_sum_of_the_pair() {
    let p = setup::thacker(8);
    let k = p.coeffs::<f32>(BLOCK);
    let mut rng = hydrokern::Rng::new(16);
    let mut r = move || rng.unit();
    let (mut worst_pair, mut worst_plain) = (0.0f64, 0.0f64);
    for n in 0..100_000 {
        // Surfaces of 1–100 m over a bed far below (no clipping), low parts within half an ulp,
        // increments from far below to far above w's unit round-off.
        let w0 = (1.0 + 99.0 * r()) as f32;
        let w1 = w0 + ((r() - 0.5) * 1e-2) as f32;
        let ulp = |w: f32| (w.abs() * f32::EPSILON) as f64;
        let (lo0, lo1) = (((r() - 0.5) * ulp(w0)) as f32, ((r() - 0.5) * ulp(w1)) as f32);
        let (dt, rw) = (1e-3f32, ((r() - 0.5) * 10f64.powf(-6.0 + 6.0 * r())) as f32);
        let stage = 1 + n % 2;
        let bc = -1000.0f32;
        let (q0, q1, res) = ((w0, 0.0, 0.0), (w1, 0.0, 0.0), (rw, 0.0, 0.0));
        let ((w, ..), lo, _) = kernels::kp::rk_pair(&k, 0.0, stage, dt, bc, (q0, lo0), (q1, lo1), res);
        let ((plain, ..), _) = kernels::kp::rk_point(&k, 0.0, stage, dt, bc, q0, q1, res);
        let e = w1 as f64 + lo1 as f64 + (dt * rw) as f64;
        let want = if stage == 1 { e } else { 0.5 * (w0 as f64 + lo0 as f64 + e) };
        let small = f32::EPSILON as f64 * ((dt * rw).abs() as f64 + ulp(w));
        worst_pair = worst_pair.max((w as f64 + lo as f64 - want).abs() / small);
        worst_plain = worst_plain.max((plain as f64 - want).abs() / small);
    }
    println!("rk_pair: worst error {worst_pair:.2} ε·(|Δt·R_w| + ulp(w)); rk_point {worst_plain:.1e}");
    assert!(worst_pair <= 2.0, "the pair lost {worst_pair:.2} ε·(|Δt·R_w| + ulp(w))");
    assert!(worst_plain > 1e3, "the plain stage kept {worst_plain:.2e} of that: the bound tells nothing");
}

/// The clean-up sees the pair's depth: a pair below the bed is clipped to (B, 0), momentum
/// zeroed; a high part just below the bed whose low part lifts the pair above it is kept whole.
#[test]
fn clean_pair_clips_on_the_pair() {
    let k = setup::thacker(8).coeffs::<f32>(BLOCK);
    let bc = 0.5f32;
    let below = bc - 2.0 * f32::EPSILON * bc;
    let ((w, hu, hv), lo, wet) = kernels::kp::clean_pair(&k, bc, (below, 1.0, 1.0), -1e-9);
    assert_eq!((w, lo, hu, hv, wet), (bc, 0.0, 0.0, 0.0, false));
    let lift = 3.0 * f32::EPSILON * bc;
    let ((w, _, _), lo, _) = kernels::kp::clean_pair(&k, bc, (below, 0.0, 0.0), lift);
    assert_eq!((w, lo), (below, lift), "a pair above the bed keeps both parts");
    assert!(kernels::kp::clean(&k, bc, (below, 0.0, 0.0)).0.0 == bc, "the plain clean-up clips the high part");
}

/// The long runs, left out of the test command and run by `cargo long`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long: 10⁵ CPU steps, about a minute"]
    fn compensated_f32_keeps_the_volume_over_1e5_steps() {
        let (err, secs) = volume_error::<f32>(&bowl(WetDry::Clamp, Accumulation::Compensated), STEPS);
        println!("thacker 40², clamp, {STEPS} steps: f32 compensated {err:+.2e} ({secs:.1} s)");
        assert!(err.abs() <= BOUND, "relative volume change {err:.3e} after {STEPS} steps");
    }

    /// The same run on the plain path exceeds the bound: the test above can fail, and the
    /// compensation is what passes it.
    #[test]
    #[ignore = "long: 10⁵ CPU steps, about a minute"]
    fn plain_f32_breaks_the_volume_bound() {
        let (err, secs) = volume_error::<f32>(&bowl(WetDry::Clamp, Accumulation::Plain), STEPS);
        println!("thacker 40², clamp, {STEPS} steps: f32 plain {err:+.2e} ({secs:.1} s)");
        assert!(err.abs() > BOUND, "plain f32 kept {err:.3e}: the long-run test no longer tells the paths apart");
    }
}
