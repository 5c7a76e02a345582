//! f32 shallow water conserves volume (docs/f32-conservation.md): Thacker's bowl, a closed basin
//! where water runs up and down sloped walls, keeps its volume over 10⁵ RK2 steps to a relative
//! error that does not grow with the step count on the compensated path (the default), and the
//! plain path, which loses increments below half an ulp of w in film cells, does not.

use hydrokern::Real;
use hydrokern::accumulation::Accumulation;
use hydrokern::kp::cpu::CpuKp;
use hydrokern::kp::{Problem, WetDry, setup};
use std::time::Instant;

/// The bound on |V − V₀| / V₀ the issue sets for f32 (10⁵–10⁶ steps).
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

#[test]
fn compensated_f32_keeps_the_volume_over_1e5_steps() {
    let (err, secs) = volume_error::<f32>(&bowl(WetDry::Clamp, Accumulation::Compensated), STEPS);
    println!("thacker 40², clamp, {STEPS} steps: f32 compensated {err:+.2e} ({secs:.1} s)");
    assert!(err.abs() <= BOUND, "relative volume change {err:.3e} after {STEPS} steps");
}

/// The same run on the plain path exceeds the bound: the test above can fail, and the
/// compensation is what passes it.
#[test]
fn plain_f32_breaks_the_volume_bound() {
    let (err, secs) = volume_error::<f32>(&bowl(WetDry::Clamp, Accumulation::Plain), STEPS);
    println!("thacker 40², clamp, {STEPS} steps: f32 plain {err:+.2e} ({secs:.1} s)");
    assert!(err.abs() > BOUND, "plain f32 kept {err:.3e}: the long-run test no longer tells the paths apart");
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
