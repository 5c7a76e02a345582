//! One rank's part of a decomposed sediment run (docs/ranks.md, "How it works": what each rank
//! reads): its slab's problem with the ghost rows at its cuts, and the whole grid's
//! conductances and first step. Rank 0 makes each part from the whole problem and sends it
//! (`ranks::handout`); the other ranks read none of the case's fields.

use super::{Conductances, Problem, Side};
use crate::field::Field2;
use crate::ranks::wire::{Reader, Writer};
use crate::{Error, Result};

/// What a slab's model is built from (`StepPolicy::part`).
#[derive(Clone, Debug)]
pub struct SlabPart {
    /// The slab's rows of the whole problem, and one beyond each cut (`Problem::slab`).
    pub problem: Problem,
    /// The whole grid's: they bound every slab's step.
    pub conductances: Conductances,
    pub dt: f64,
}

impl SlabPart {
    pub fn encode(&self) -> Vec<u8> {
        let p = &self.problem;
        let mut w = Writer::default();
        w.u64(p.nx as u64).u64(p.ny as u64).f64(p.dx).f64(p.dy).f64(p.cs).f64(p.cm).f64(p.a);
        for s in &p.sides {
            w.f64(s.q).f64(s.s_in);
        }
        w.str(p.scheme.name()).str(p.accumulation.name());
        w.f64(self.conductances.k_max).f64(self.conductances.alpha_max).f64(self.dt);
        for f in [&p.h, &p.s, &p.alpha, &p.beta] {
            w.values(f.stored());
        }
        w.0
    }

    pub fn decode(bytes: &[u8]) -> Result<SlabPart> {
        let mut r = Reader::new(bytes);
        let (nx, ny) = (r.u64()? as usize, r.u64()? as usize);
        let (dx, dy, cs, cm, a) = (r.f64()?, r.f64()?, r.f64()?, r.f64()?, r.f64()?);
        let mut sides = [Side::CLOSED; 4];
        for s in &mut sides {
            *s = Side { q: r.f64()?, s_in: r.f64()? };
        }
        let scheme = r.str()?.parse()?;
        let accumulation = r.str()?.parse()?;
        let conductances = Conductances { k_max: r.f64()?, alpha_max: r.f64()? };
        let dt = r.f64()?;
        // The layout `Problem::layout` gives these sizes.
        let layout = crate::grid::Layout2::new(nx as u32, ny as u32, 1);
        let mut field = || -> Result<Field2<f64>> { Field2::from_stored(layout, r.values()?) };
        let (h, s, alpha, beta) = (field()?, field()?, field()?, field()?);
        let problem = Problem { nx, ny, dx, dy, cs, cm, a, sides, h, s, alpha, beta, scheme, accumulation };
        debug_assert_eq!(problem.layout(), layout);
        if !r.rest().is_empty() {
            return Err(Error::invalid("sediment: a slab's part has bytes past its fields"));
        }
        Ok(SlabPart { problem, conductances, dt })
    }
}
