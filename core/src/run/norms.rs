//! Norms of output fields, the numbers a regression test stores and compares: per field the
//! mean absolute value (L1), the root mean square (L2) and the largest absolute value (L∞),
//! summed in f64 in a fixed order so the same field always gives the same bits.

use crate::Real;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Norms {
    pub l1: f64,
    pub l2: f64,
    pub linf: f64,
}

impl Norms {
    /// The norms of `values`; a NaN anywhere makes all three NaN.
    pub fn of<T: Real>(values: &[T]) -> Norms {
        let n = values.len().max(1) as f64;
        let (mut s1, mut s2, mut m) = (0.0f64, 0.0f64, 0.0f64);
        for v in values {
            let a = v.to_f64().abs();
            s1 += a;
            s2 += a * a;
            m = if a > m || a.is_nan() { a } else { m };
        }
        if m.is_nan() {
            return Norms { l1: f64::NAN, l2: f64::NAN, linf: f64::NAN };
        }
        Norms { l1: s1 / n, l2: (s2 / n).sqrt(), linf: m }
    }

    /// The largest of the three differences to `reference`, each relative to the reference's
    /// L∞ but at least 1 — so a norm near zero is judged on the field's scale, and a field that
    /// is round-off around zero (the momentum of a lake at rest) on the scale of 1, as the
    /// kernel tests judge it.
    pub fn rel_diff(&self, reference: &Norms) -> f64 {
        let scale = reference.linf.abs().max(1.0);
        [(self.l1, reference.l1), (self.l2, reference.l2), (self.linf, reference.linf)]
            .iter()
            .map(|(a, b)| if a.is_nan() || b.is_nan() { f64::INFINITY } else { (a - b).abs() / scale })
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norms_of_a_small_field() {
        let n = Norms::of(&[3.0f64, -4.0]);
        assert_eq!(n, Norms { l1: 3.5, l2: (12.5f64).sqrt(), linf: 4.0 });
        assert!(Norms::of(&[1.0f64, f64::NAN]).l1.is_nan());
        assert_eq!(n.rel_diff(&n), 0.0);
        assert_eq!(Norms::of(&[2.0f64, -4.0]).rel_diff(&n), 0.5 / 4.0);
        // Round-off around zero is judged on the scale of 1.
        let tiny = Norms::of(&[1e-16f64]);
        assert!(Norms::of(&[3e-16f64]).rel_diff(&tiny) < 1e-15);
        assert!(Norms::of(&[f32::NAN]).rel_diff(&n).is_infinite());
    }
}
