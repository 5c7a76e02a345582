//! The problem's forcing (`crate::forcing`: uniform and gridded rain, soils, inflows) laid out
//! as the kernels read it, and applied by the CPU reference after each step with the kernels'
//! point functions (`kernels::kp::integrate_span`, `cell_inputs`, `force_point`), in the GPU's
//! order: the series integrated over the span the step advanced, the inflow cells, then every
//! cell's rain and soil. The step's uniform forcing — uniform rain and a uniform Green–Ampt
//! soil, with no rain grid — acts inside the step's last RK stage instead ([`Layout::fused`]),
//! before the stage's velocity clamp.

use super::Problem;
use crate::Real;
use crate::field::stencil_rows;
use crate::forcing::{CellArrays, Forcing};
use kernels::forcing::{GREEN_AMPT, Infiltration, NO_SOIL, Soil, series_at};
use kernels::kp::{
    CellForcing, Coeffs, FORCED_LEN, FORCED_SPAN, FORCED_T, NO_LEVEL, NO_RAIN, OPEN, SeriesSet, cell_inputs,
    force_point, force_stage_cell, integrate_span, rain_depth, span_of,
};
use rayon::prelude::*;
use std::sync::Arc;

/// The forcing as arrays: the series back to back, the gridded rain's frames, the soils, and
/// the inflow cells with their shares.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Every series' points, series s at `starts[s]..starts[s + 1]` (the rain's first).
    pub times: Vec<f64>,
    pub values: Vec<f64>,
    pub starts: Vec<u32>,
    /// The rain's series index, or [`NO_RAIN`].
    pub rain: u32,
    /// Whether the step's uniform forcing acts inside its last RK stage, as the stage writes each
    /// cell (`kernels::kp::force_stage_cell`), rather than in a pass over every cell after the
    /// step: where every cell's rain and soil are the same — uniform rain, a uniform Green–Ampt
    /// soil or both, no rain grid — and the scheme is Euler, RK2 or SRK2. The pass reads and
    /// writes again what the stage has just written (w and f32's low part, with a soil also the
    /// momenta, the bed and the soil's total: 11 words a cell in compensated f32); in the stage
    /// it costs the soil's total (2 words) and a few instructions a cell. Horton's soils, which
    /// solve for their time by Newton's method in f64, and soils by cell stay in the pass.
    pub fused: bool,
    /// The rain grid and the soils.
    pub per_cell: CellArrays,
    /// The inflow cells (padded indexes, each once) and, cell c's at
    /// `cell_starts[c]..cell_starts[c + 1]`, the series feeding it and the weight (share / cell
    /// area, 1/m²) its discharge is added with.
    pub cells: Vec<u32>,
    pub cell_starts: Vec<u32>,
    pub cell_series: Vec<u32>,
    pub weights: Vec<f64>,
    /// The first level's series index (the levels' come last), and each side cell's level
    /// entry or `NO_LEVEL` (`kernels::kp::level_of`'s order); empty without levels.
    pub level_first: u32,
    pub level_map: Vec<u32>,
    /// Which interior cells (x fastest) are in the domain, where some is not: rain and soil
    /// act on no other (the kernel reads the model's activity map, `Coeffs::active`).
    pub active: Option<Arc<[bool]>>,
}

impl Layout {
    /// The layout of `problem`'s forcing, `None` without any.
    pub fn of(problem: &Problem) -> Option<Layout> {
        let f: &Forcing = &problem.forcing;
        if f.is_empty() {
            return None;
        }
        let (mut times, mut values, mut starts) = (Vec::new(), Vec::new(), vec![0u32]);
        for s in f.series() {
            times.extend_from_slice(&s.times);
            values.extend_from_slice(&s.values);
            starts.push(times.len() as u32);
        }
        let first_inflow = f.rain.is_some() as u32;
        // Every (cell, series, weight), grouped by cell in the order cells first appear.
        let area = problem.dx * problem.dy;
        let pitch = problem.nx + 4;
        let mut order: Vec<usize> = Vec::new();
        let mut by_cell: std::collections::HashMap<usize, Vec<(u32, f64)>> = Default::default();
        for (s, inflow) in f.inflows.iter().enumerate() {
            for &(cell, share) in &inflow.cells {
                let (i, j) = (cell % problem.nx, cell / problem.nx);
                let padded = (j + 2) * pitch + i + 2;
                let list = by_cell.entry(padded).or_insert_with(|| {
                    order.push(padded);
                    Vec::new()
                });
                list.push((first_inflow + s as u32, share / area));
            }
        }
        let (mut cells, mut cell_starts, mut cell_series, mut weights) =
            (Vec::new(), vec![0u32], Vec::new(), Vec::new());
        for c in order {
            cells.push(c as u32);
            for &(s, w) in &by_cell[&c] {
                cell_series.push(s);
                weights.push(w);
            }
            cell_starts.push(cell_series.len() as u32);
        }
        let level_first = (starts.len() - 1 - f.levels.len()) as u32;
        let per_cell = CellArrays::of(f);
        let mut level_map = Vec::new();
        if !f.boundary_is_plain() {
            let (nx, ny) = (problem.nx, problem.ny);
            level_map = vec![NO_LEVEL; 2 * (nx + ny)];
            for (e, l) in f.levels.iter().enumerate() {
                let offset = [0, ny, 2 * ny, 2 * ny + nx][l.side];
                for k in l.cells.clone() {
                    level_map[offset + k] = e as u32;
                }
            }
            for o in &f.outlets {
                let offset = [0, ny, 2 * ny, 2 * ny + nx][o.side];
                for k in o.cells.clone() {
                    level_map[offset + k] = OPEN;
                }
            }
        }
        Some(Layout {
            level_first,
            level_map,
            active: problem.active.as_deref().map(Arc::from),
            times,
            values,
            starts,
            rain: if f.rain.is_some() { 0 } else { NO_RAIN },
            fused: Self::forced_in_stage(f, &per_cell) && !problem.scheme.is_split(),
            per_cell,
            cells,
            cell_starts,
            cell_series,
            weights,
        })
    }

    /// Whether every cell's rain and soil are the same and some act ([`Layout::fused`]).
    fn forced_in_stage(f: &Forcing, per_cell: &CellArrays) -> bool {
        let uniform_soil = match per_cell.soil_model {
            NO_SOIL => true,
            GREEN_AMPT => per_cell.soil_cells.is_empty(),
            _ => false,
        };
        f.rain_grid.is_none() && uniform_soil && (f.rain.is_some() || per_cell.has_soil())
    }

    /// Number of series.
    pub fn series(&self) -> usize {
        self.starts.len() - 1
    }

    /// Number of gridded rain frames (0 without).
    pub fn frames(&self) -> usize {
        self.per_cell.frames()
    }

    /// What the clock kernel evaluates.
    pub fn series_set(&self) -> SeriesSet {
        SeriesSet { count: self.series() as u32, level_first: self.level_first, frames: self.frames() as u32 }
    }

    /// Whether the cells have a soil.
    pub fn has_soil(&self) -> bool {
        self.per_cell.has_soil()
    }

    /// What every cell receives, in `T`.
    pub fn cell_forcing<T: Real>(&self) -> CellForcing<T> {
        self.per_cell.cell_forcing(self.rain)
    }

    /// The levels' values at `t`, in their order.
    pub fn levels_at(&self, t: f64) -> Vec<f64> {
        (self.level_first as usize..self.series())
            .map(|s| {
                let r = self.starts[s] as usize..self.starts[s + 1] as usize;
                series_at(&self.times[r.clone()], &self.values[r], t)
            })
            .collect()
    }

    /// Whether a per-cell pass is needed (rain or a soil); inflows alone touch their cells only.
    pub fn touches_every_cell(&self) -> bool {
        !self.fused && (self.rain != NO_RAIN || self.frames() > 0 || self.has_soil())
    }

    /// The soil that acts inside the step's last stage ([`Layout::fused`] with a soil), in `T`.
    pub fn stage_soil<T: Real>(&self) -> Option<Soil<T>> {
        let s = self.cell_forcing::<T>().soil;
        (self.fused && s.model == GREEN_AMPT).then_some(Soil { ks: s.p[0], suction_deficit: s.p[1] })
    }
}

/// The CPU reference's forcing: the layout, the forcing clock and the soil's total per cell.
pub struct CpuForcing<T> {
    pub layout: Layout,
    /// The forcing clock as the clock kernel keeps it (`kernels::kp::FORCED_*`): the time the
    /// forcing has been applied up to, and the last span's.
    clock: [f64; FORCED_LEN],
    amounts: Vec<f64>,
    /// The depth each cell's soil has taken (padded; zeros without a soil).
    pub infiltrated: Vec<T>,
    /// w's low part on the plain path: zeros, written with zeros.
    no_low: Vec<T>,
    /// The levels' values at the forcing clock's time.
    pub levels: Vec<f64>,
    /// The soils' parameters in `T`.
    soils: Vec<T>,
}

impl<T: Real> CpuForcing<T> {
    /// The held levels' values and map for the ghost cells, if any.
    pub fn ghosts(&self) -> Option<(&[f64], &[u32])> {
        (!self.layout.level_map.is_empty()).then_some((&self.levels[..], &self.layout.level_map[..]))
    }

    /// Time the forcing has been applied up to (s).
    pub fn forced(&self) -> f64 {
        self.clock[FORCED_T]
    }

    /// Continue from the forcing clock at `forced`: the levels' values there.
    pub fn set_clock(&mut self, forced: f64) {
        self.clock = [0.0; FORCED_LEN];
        self.clock[FORCED_T] = forced;
        self.levels = self.layout.levels_at(forced);
    }

    /// The step's uniform forcing over the span from the forcing clock to `t`, as the GPU's
    /// one-thread kernel gives it (`kernels::kp::kp_force_stage`): the rain's depth
    /// (`kernels::kp::rain_depth`, 0 without rain) and the span's length.
    fn stage_amounts<R: Real>(&self, t: f64) -> (R, R) {
        let l = &self.layout;
        let rain = if l.rain == NO_RAIN {
            R::ZERO
        } else {
            // SAFETY: the clock holds FORCED_LEN; starts holds an offset into times and values for
            // the rain's series and the next (`Layout::of`).
            unsafe {
                rain_depth(l.rain, t, self.clock.as_ptr(), l.times.as_ptr(), l.values.as_ptr(), l.starts.as_ptr())
            }
        };
        (rain, R::from_f64(span_of(self.clock[FORCED_T], t)))
    }

    /// With [`Layout::fused`], the step's uniform forcing on the output of its last RK stage,
    /// which takes the model to time `t` (padded (w, hu, hv), w's low part `low` on the
    /// compensated path), as the GPU's stage kernels apply it: `kernels::kp::force_stage_cell` on
    /// every active interior cell where there is a soil or the rain is positive, the soil's
    /// totals kept; the blocks of cells it leaves wet flagged in `wet`. Nothing otherwise.
    pub fn force_stage(
        &mut self,
        k: &Coeffs<T>,
        t: f64,
        [w, hu, hv]: [&mut [T]; 3],
        low: Option<&mut [T]>,
        cell_bed: &[T],
        wet: &mut [u8],
    ) {
        if !self.layout.fused {
            return;
        }
        let (rain, span) = self.stage_amounts::<T>(t);
        let soil = self.layout.stage_soil::<T>();
        if soil.is_none() && rain <= T::ZERO {
            return;
        }
        let compensated = low.is_some();
        let lo: &mut [T] = match low {
            Some(lo) => lo,
            None => &mut self.no_low,
        };
        let cells = Cells { w, hu, hv, lo, f: &mut self.infiltrated, cell_bed };
        for_active_cells(k, self.layout.active.as_deref(), cells, wet, |_, c| {
            let soil = soil.map(|s| (s, span, *c.f));
            let (((w, hu, hv), lo), f, is_wet) =
                force_stage_cell(k, ((*c.w, *c.hu, *c.hv), *c.lo), c.cb, rain, soil, compensated);
            (*c.w, *c.hu, *c.hv, *c.lo) = (w, hu, hv, lo);
            if soil.is_some() {
                *c.f = f;
            }
            is_wet
        });
    }

    /// `cells`: the padded state's length.
    pub fn new(layout: Layout, cells: usize) -> CpuForcing<T> {
        let levels = layout.levels_at(0.0);
        CpuForcing {
            amounts: vec![0.0; layout.level_first as usize],
            soils: layout.per_cell.soils_in(),
            layout,
            clock: [0.0; FORCED_LEN],
            infiltrated: vec![T::ZERO; cells],
            no_low: vec![T::ZERO; cells],
            levels,
        }
    }

    /// The forcing from the forcing clock to `t` applied to the padded state, w's low part
    /// `low` on the compensated path; the blocks of cells left wet flagged in `wet`.
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        k: &Coeffs<T>,
        t: f64,
        w: &mut [T],
        mut low: Option<&mut [T]>,
        hu: &mut [T],
        hv: &mut [T],
        cell_bed: &[T],
        wet: &mut [u8],
    ) {
        let l = &self.layout;
        // SAFETY: the clock holds FORCED_LEN; starts holds count + 1 offsets into times and
        // values (`Layout::of`); amounts holds level_first, levels the rest; frame_times
        // frames + 1 when there are frames.
        unsafe {
            integrate_span(
                l.series_set(),
                t,
                self.clock.as_mut_ptr(),
                l.times.as_ptr(),
                l.values.as_ptr(),
                l.starts.as_ptr(),
                self.amounts.as_mut_ptr(),
                self.levels.as_mut_ptr(),
                l.per_cell.frame_times.as_ptr(),
            )
        };
        let dt = T::from_f64(self.clock[FORCED_SPAN]);
        let compensated = low.is_some();
        for (n, &c) in l.cells.iter().enumerate() {
            let c = c as usize;
            let mut d = 0.0f64;
            for e in l.cell_starts[n] as usize..l.cell_starts[n + 1] as usize {
                d += l.weights[e] * self.amounts[l.cell_series[e] as usize];
            }
            let lo = low.as_ref().map_or(T::ZERO, |lo| lo[c]);
            let ((nw, nl), keep, _, is_wet) =
                force_point(k, (w[c], lo), cell_bed[c], T::from_f64(d), Infiltration::NONE, T::ZERO, dt, compensated);
            w[c] = nw;
            if let Some(lo) = low.as_mut() {
                lo[c] = nl;
            }
            if keep != T::ONE {
                (hu[c], hv[c]) = (hu[c] * keep, hv[c] * keep);
            }
            if is_wet {
                wet[block_of(k, c)] = 1;
            }
        }
        if !l.touches_every_cell() {
            return;
        }
        let cf = l.cell_forcing::<T>();
        let lo: &mut [T] = match low {
            Some(lo) => lo,
            None => &mut self.no_low,
        };
        let (amounts, clock, soils) = (&self.amounts[..], &self.clock[..], &self.soils[..]);
        let per_cell = !l.per_cell.soil_cells.is_empty();
        let cells = Cells { w, hu, hv, lo, f: &mut self.infiltrated, cell_bed };
        for_active_cells(k, l.active.as_deref(), cells, wet, |n, c| {
            // SAFETY: the clock as `integrate_span` left it; amounts holds the uniform rain's
            // index; with frames, frame_times holds frames + 1, rain_cells every interior cell
            // and frames frames × stride (`RainGrid::new` checked each index); soil_cells null or
            // every interior cell's entry of soils (`Soils::per_cell` checked each).
            let (add, soil) = unsafe {
                cell_inputs(
                    &cf,
                    n,
                    amounts.as_ptr(),
                    clock.as_ptr(),
                    l.per_cell.frame_times.as_ptr(),
                    l.per_cell.frames.as_ptr(),
                    l.per_cell.rain_cells.as_ptr(),
                    soils.as_ptr(),
                    if per_cell { l.per_cell.soil_cells.as_ptr() } else { std::ptr::null() },
                )
            };
            let ((w, lo), keep, f, is_wet) = force_point(k, (*c.w, *c.lo), c.cb, add, soil, *c.f, dt, compensated);
            (*c.w, *c.lo, *c.f) = (w, lo, f);
            if keep != T::ONE {
                (*c.hu, *c.hv) = (*c.hu * keep, *c.hv * keep);
            }
            is_wet
        });
    }
}

/// The padded fields a pass over the cells changes — w, the momenta, w's low part (zeros on the
/// plain path), the soil's totals — and the cell beds it reads.
struct Cells<'a, T> {
    w: &'a mut [T],
    hu: &'a mut [T],
    hv: &'a mut [T],
    lo: &'a mut [T],
    f: &'a mut [T],
    cell_bed: &'a [T],
}

/// One cell of [`Cells`].
struct Cell<'a, T> {
    w: &'a mut T,
    hu: &'a mut T,
    hv: &'a mut T,
    lo: &'a mut T,
    f: &'a mut T,
    cb: T,
}

/// `point` on every interior cell of `cells` in the domain (`active`, x fastest: `None` for
/// all), given its interior index (x fastest) and the cell, rows in parallel; the blocks of the
/// cells it says are wet flagged in `wet`.
fn for_active_cells<T: Real>(
    k: &Coeffs<T>,
    active: Option<&[bool]>,
    cells: Cells<'_, T>,
    wet: &mut [u8],
    point: impl Fn(usize, Cell<'_, T>) -> bool + Sync,
) {
    let (p, nx, ny) = (k.pitch as usize, k.nx as usize, k.ny as usize);
    let Cells { w, hu, hv, lo, f, cell_bed } = cells;
    // Each row lists the blocks its wet cells lie in.
    let rows: Vec<Vec<usize>> = w
        .par_chunks_mut(p)
        .zip(hu.par_chunks_mut(p))
        .zip(hv.par_chunks_mut(p))
        .zip(cell_bed.par_chunks(p))
        .zip(f.par_chunks_mut(p))
        .zip(lo.par_chunks_mut(p))
        .enumerate()
        .skip(2)
        .take(ny)
        .with_min_len(stencil_rows(p))
        .map(|(j, (((((w, hu), hv), cb), f), lo))| {
            let mut blocks: Vec<usize> = Vec::new();
            for i in 2..nx + 2 {
                let n = (j - 2) * nx + i - 2;
                if active.is_some_and(|a| !a[n]) {
                    continue;
                }
                let cell =
                    Cell { w: &mut w[i], hu: &mut hu[i], hv: &mut hv[i], lo: &mut lo[i], f: &mut f[i], cb: cb[i] };
                let b = block_of(k, j * p + i);
                if point(n, cell) && blocks.last() != Some(&b) {
                    blocks.push(b);
                }
            }
            blocks
        })
        .collect();
    for b in rows.into_iter().flatten() {
        wet[b] = 1;
    }
}

/// The wet map's block of padded interior cell `c`.
fn block_of<T: Real>(k: &Coeffs<T>, c: usize) -> usize {
    let p = k.pitch as usize;
    let (i, j) = ((c % p) as u32, (c / p) as u32);
    (((j - 2) / k.by) * k.nbx + (i - 2) / k.bx) as usize
}
