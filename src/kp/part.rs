//! One rank's part of a decomposed shallow-water run (docs/ranks.md, "How it works": what each
//! rank reads): its slab's problem (its rows, the constants, its share of the forcing), its
//! start, which is the whole grid's cut to it (`Problem::slab_start`; in the mixed precision
//! `mixed::slab_start`), and the whole grid's water-account segments. Rank 0 makes each part
//! from the whole problem and sends it (`ranks::handout`); the other ranks read none of the
//! case's fields.

use super::problem::Padded;
use super::segments::Segments;
use super::slab::{Start, WholeGrid};
use super::state::State;
use super::{Boundary, Coeffs, Problem};
use crate::field::Field2;
use crate::forcing::Forcing;
use crate::grid::Layout2;
use crate::ranks::Slab;
use crate::ranks::wire::{Reader, Writer};
use crate::{Error, Real, Result};
use kernels::kp::DtAt;

/// What a slab's model is built from.
pub struct SlabPart<T> {
    /// The slab's rows of the whole problem (`Problem::slab`).
    pub problem: Problem,
    /// The slab's start for blocks of the launch it was made for: a rank of another launch
    /// sets its own ([`for_block`](Self::for_block)).
    pub start: Start<T>,
    /// The mixed precision's f64 surface and f32 momenta (with `T` = f32).
    pub mixed: Option<State<f32, f64>>,
    /// The whole grid's water-account segments.
    pub segments: Segments,
}

impl<T: Real> SlabPart<T> {
    /// `slab`'s part of `whole` (whose [`WholeGrid`] is `grid`) for blocks of `block` cells.
    pub fn of(whole: &Problem, grid: &WholeGrid, block: (u32, u32), slab: &Slab) -> Result<SlabPart<T>> {
        Ok(SlabPart {
            problem: whole.slab(slab.rows.clone())?,
            start: whole.slab_start_in::<T>(grid, block, slab)?,
            mixed: None,
            segments: Segments::of(whole),
        })
    }

    /// The part with its kernels' constants for blocks of `block` cells: the start itself does
    /// not depend on them.
    pub fn for_block(mut self, block: (u32, u32)) -> SlabPart<T> {
        let k = &mut self.start.k;
        (k.bx, k.by) = (block.0.max(1), block.1.max(1));
        (k.nbx, k.nby) = (k.nx.div_ceil(k.bx), k.ny.div_ceil(k.by));
        self
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        problem(&mut w, &self.problem);
        start(&mut w, &self.start);
        w.u64(self.mixed.is_some() as u64);
        if let Some(s) = &self.mixed {
            field(&mut w, &s.w);
            field(&mut w, &s.hu);
            field(&mut w, &s.hv);
        }
        w.u64(self.segments.names.len() as u64);
        self.segments.names.iter().for_each(|n| {
            w.str(n);
        });
        w.u32s(&self.segments.map);
        w.0
    }

    pub fn decode(bytes: &[u8]) -> Result<SlabPart<T>> {
        let mut r = Reader::new(bytes);
        let problem = read_problem(&mut r)?;
        let start = read_start(&mut r)?;
        let mixed = match r.u64()? {
            0 => None,
            _ => Some(State { w: read_field(&mut r)?, hu: read_field(&mut r)?, hv: read_field(&mut r)? }),
        };
        let names = (0..r.u64()?).map(|_| r.str()).collect::<Result<Vec<_>>>()?;
        let segments = Segments { names, map: r.u32s()? };
        if !r.rest().is_empty() {
            return Err(Error::invalid("kp: a slab's part has bytes past its end"));
        }
        Ok(SlabPart { problem, start, mixed, segments })
    }
}

impl SlabPart<f32> {
    /// `slab`'s part of `whole` in the mixed precision (`mixed::slab_start`).
    pub fn mixed_of(whole: &Problem, grid: &WholeGrid, block: (u32, u32), slab: &Slab) -> Result<SlabPart<f32>> {
        let (start, state) = super::mixed::slab_start(whole, grid, block, slab)?;
        Ok(SlabPart {
            problem: whole.slab(slab.rows.clone())?,
            start,
            mixed: Some(state),
            segments: Segments::of(whole),
        })
    }
}

fn problem(w: &mut Writer, p: &Problem) {
    w.u64(p.nx as u64).u64(p.ny as u64);
    for v in [p.dx, p.dy, p.g, p.theta, p.cfl, p.manning, p.ds_safety, p.kappa_depth, p.dt_floor, p.dt_max] {
        w.f64(v);
    }
    p.boundary.iter().for_each(|b| {
        w.str(b.name());
    });
    w.str(p.scheme.name()).str(p.wet_dry.name()).str(p.accumulation.name());
    w.u64(p.manning_field.is_some() as u64).values(p.manning_field.as_deref().unwrap_or(&[]));
    p.forcing.encode(w);
    w.values(&p.h).values(&p.hu).values(&p.hv).values(&p.bed);
    let active: Option<Vec<u8>> = p.active.as_ref().map(|a| a.iter().map(|&x| x as u8).collect());
    w.u64(active.is_some() as u64).bytes(active.as_deref().unwrap_or(&[]));
}

fn read_problem(r: &mut Reader) -> Result<Problem> {
    let (nx, ny) = (r.u64()? as usize, r.u64()? as usize);
    let mut v = [0.0; 10];
    for x in &mut v {
        *x = r.f64()?;
    }
    let [dx, dy, g, theta, cfl, manning, ds_safety, kappa_depth, dt_floor, dt_max] = v;
    let mut boundary = [Boundary::Wall; 4];
    for b in &mut boundary {
        *b = r.str()?.parse()?;
    }
    let scheme = r.str()?.parse()?;
    let wet_dry = r.str()?.parse()?;
    let accumulation = r.str()?.parse()?;
    let manning_field = match r.u64()? {
        0 => {
            r.values::<f64>()?;
            None
        }
        _ => Some(r.values()?),
    };
    let forcing = Forcing::decode(r)?;
    let (h, hu, hv, bed) = (r.values()?, r.values()?, r.values()?, r.values()?);
    let some = r.u64()? != 0;
    let flags = r.bytes()?;
    let active = some.then(|| flags.iter().map(|&x| x != 0).collect());
    Ok(Problem {
        nx,
        ny,
        dx,
        dy,
        g,
        theta,
        cfl,
        manning,
        manning_field,
        boundary,
        scheme,
        ds_safety,
        wet_dry,
        kappa_depth,
        dt_floor,
        dt_max,
        accumulation,
        forcing,
        h,
        hu,
        hv,
        bed,
        active,
    })
}

fn start<T: Real>(w: &mut Writer, s: &Start<T>) {
    coeffs(w, &s.k);
    let Padded { bed, cell_bed, q } = &s.padded;
    for f in [bed, cell_bed, &q[0], &q[1], &q[2]] {
        field(w, f);
    }
    for flags in [&s.active, &s.plain_strips] {
        w.u64(flags.is_some() as u64).bytes(flags.as_deref().unwrap_or(&[]));
    }
    w.u32s(&s.out_only);
    w.u64(s.friction.is_some() as u64);
    if let Some(f) = &s.friction {
        field(w, f);
    }
    w.u64(s.segments.names.len() as u64);
    s.segments.names.iter().for_each(|n| {
        w.str(n);
    });
    w.u32s(&s.segments.map);
}

fn read_start<T: Real>(r: &mut Reader) -> Result<Start<T>> {
    let k = read_coeffs(r)?;
    let (bed, cell_bed) = (read_field(r)?, read_field(r)?);
    let q = [read_field(r)?, read_field(r)?, read_field(r)?];
    let mut flags = || -> Result<Option<Vec<u8>>> {
        let some = r.u64()? != 0;
        let b = r.bytes()?;
        Ok(some.then(|| b.to_vec()))
    };
    let (active, plain_strips) = (flags()?, flags()?);
    let out_only = r.u32s()?;
    let friction = match r.u64()? {
        0 => None,
        _ => Some(read_field(r)?),
    };
    let names = (0..r.u64()?).map(|_| r.str()).collect::<Result<Vec<_>>>()?;
    let segments = Segments { names, map: r.u32s()? };
    Ok(Start { k, padded: Padded { bed, cell_bed, q }, active, plain_strips, out_only, friction, segments })
}

fn coeffs<T: Real>(w: &mut Writer, k: &Coeffs<T>) {
    let words = [k.nx, k.ny, k.pitch, k.cpitch, k.bc[0], k.bc[1], k.bc[2], k.bc[3], k.bx, k.by, k.nbx, k.nby, k.cut];
    w.u32s(&words);
    w.values(&[k.g, k.half_g, k.theta, k.inv_dx, k.inv_dy, k.kappa, k.dry, k.g_n2, k.wet_above, k.drain]);
    w.u64(k.active);
}

fn read_coeffs<T: Real>(r: &mut Reader) -> Result<Coeffs<T>> {
    let words: [u32; 13] =
        r.u32s()?.try_into().map_err(|_| Error::invalid("kp: a part's constants hold other words"))?;
    let [nx, ny, pitch, cpitch, b0, b1, b2, b3, bx, by, nbx, nby, cut] = words;
    let values: [T; 10] =
        r.values::<T>()?.try_into().map_err(|_| Error::invalid("kp: a part's constants hold other values"))?;
    let [g, half_g, theta, inv_dx, inv_dy, kappa, dry, g_n2, wet_above, drain] = values;
    Ok(Coeffs {
        nx,
        ny,
        pitch,
        cpitch,
        bc: [b0, b1, b2, b3],
        bx,
        by,
        nbx,
        nby,
        g,
        half_g,
        theta,
        inv_dx,
        inv_dy,
        kappa,
        dry,
        g_n2,
        wet_above,
        drain,
        cut,
        active: r.u64()?,
        dt_at: DtAt::NONE,
    })
}

fn field<T: Real>(w: &mut Writer, f: &Field2<T>) {
    let l = f.layout();
    w.u32s(&[l.nx, l.ny, l.halo]).values(f.stored());
}

fn read_field<T: Real>(r: &mut Reader) -> Result<Field2<T>> {
    let [nx, ny, halo]: [u32; 3] =
        r.u32s()?.try_into().map_err(|_| Error::invalid("kp: a part's field has no layout"))?;
    Field2::from_stored(Layout2::new(nx, ny, halo), r.values()?)
}
