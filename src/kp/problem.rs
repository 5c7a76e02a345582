//! A shallow-water problem: grid, constants, boundary conditions, bed and initial state; its
//! validation and the kernels' constants.

use super::Coeffs;
use crate::accumulation::Accumulation;
use crate::field::Field2;
use crate::forcing::Forcing;
use crate::grid::Layout2;
use crate::{Error, Precision, Real, Result};
use kernels::halo::{cell_source, node_source};
use kernels::kp::{
    BC_OUTFLOW, BC_PERIODIC, BC_WALL, Bollermann, Clamp, DtAt, Kp07, WetDryScheme, cell_bed as cell_bed_of,
    depth_at_level, surface,
};

/// The largest Manning n accepted, s/m^(1/3): five times the roughest vegetated floodplains of
/// the usual tables (about 0.2), so a larger value is a data error (a percentage, a nodata
/// value the file does not declare, another quantity's raster).
pub const MAX_MANNING: f64 = 1.0;

/// The padded fields a model starts from ([`Problem::padded`]).
pub struct Padded<T> {
    /// B at the cell corners ([`Problem::node_layout`]).
    pub bed: Field2<T>,
    /// B at the cell centres, the mean of the four corners.
    pub cell_bed: Field2<T>,
    /// w, hu, hv.
    pub q: [Field2<T>; 3],
}

/// Boundary condition of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// Reflective wall: two mirrored ghost layers, normal momentum negated.
    Wall,
    /// Free outflow: the ghosts copy the boundary cell's depth and momentum.
    Outflow,
    /// Periodic: the ghosts copy the cells at the opposite side (both sides must be periodic).
    Periodic,
    /// Normal depth: free outflow over a bed that goes on falling as it falls at the side (the
    /// ghosts' corners continue the last interior slope), so water leaves a slope at the
    /// uniform flow's depth instead of meeting the mirrored bed's rise; its faces let water
    /// only out (`out_only.rs`).
    NormalDepth,
}

impl Boundary {
    pub const ALL: [Boundary; 4] = [Boundary::Wall, Boundary::Outflow, Boundary::Periodic, Boundary::NormalDepth];
    pub fn name(self) -> &'static str {
        match self {
            Boundary::Wall => "wall",
            Boundary::Outflow => "outflow",
            Boundary::Periodic => "periodic",
            Boundary::NormalDepth => "normal-depth",
        }
    }
    /// The kernels' ghost rule: a normal-depth side is an outflow one over its own ghost bed.
    pub fn code(self) -> u32 {
        match self {
            Boundary::Wall => BC_WALL,
            Boundary::Outflow | Boundary::NormalDepth => BC_OUTFLOW,
            Boundary::Periodic => BC_PERIODIC,
        }
    }
    /// Whether water can leave through the side.
    pub fn is_open(self) -> bool {
        matches!(self, Boundary::Outflow | Boundary::NormalDepth)
    }
}

impl std::str::FromStr for Boundary {
    type Err = Error;
    fn from_str(s: &str) -> Result<Boundary> {
        Boundary::ALL.into_iter().find(|b| b.name() == s).ok_or_else(|| {
            Error::invalid(format!(
                "unknown boundary condition '{s}' (expected wall, outflow, normal-depth or periodic)"
            ))
        })
    }
}

/// Time integration (docs/kp-schemes.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// First-order forward Euler.
    Euler,
    /// Second-order Runge–Kutta (Heun / SSP-RK2).
    Rk2,
    /// RK2 with the F and G fluxes in separate kernels (Amundsen §3.1.1). The split is a GPU
    /// kernel structure; the arithmetic is RK2's, so the CPU reference runs RK2 for it.
    Srk2,
    /// Dimensional splitting X(Δt)·Y(Δt) with Euler substeps, first order in time (§3.1.2).
    Ds1,
    /// Dimensional splitting X(Δt)·Y(Δt)·Y(Δt)·X(Δt) with RK2 substeps: a double step of 2Δt,
    /// second order (Strang, §3.1.3).
    Ds2,
}

impl Scheme {
    pub const ALL: [Scheme; 5] = [Scheme::Euler, Scheme::Rk2, Scheme::Srk2, Scheme::Ds1, Scheme::Ds2];
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Euler => "euler",
            Scheme::Rk2 => "rk2",
            Scheme::Srk2 => "srk2",
            Scheme::Ds1 => "ds1",
            Scheme::Ds2 => "ds2",
        }
    }
    /// Whether the scheme splits the directions (Δt from the last substeps' estimates).
    pub fn is_split(self) -> bool {
        matches!(self, Scheme::Ds1 | Scheme::Ds2)
    }
}

impl std::str::FromStr for Scheme {
    type Err = Error;
    fn from_str(s: &str) -> Result<Scheme> {
        Scheme::ALL.into_iter().find(|b| b.name() == s).ok_or_else(|| {
            Error::invalid(format!("unknown time integration scheme '{s}' (expected euler, rk2, srk2, ds1 or ds2)"))
        })
    }
}

/// The default of [`Problem::ds_safety`]: Amundsen's r (§3.1.2, Figure 3.2).
pub const DS_SAFETY: f64 = 0.95;

/// Treatment of wet–dry fronts (docs/kp-wet-dry.md): each is a type of the kernel crate
/// (`kernels::kp::Bollermann`, `Kp07`), and the CPU reference and the GPU driver call the point
/// functions and flux kernels compiled for the problem's scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WetDry {
    /// Bollermann, Chen, Kurganov & Noelle 2013 in 2D: partially flooded cells reconstructed
    /// flat at the level that holds their water, their outflow capped.
    Bollermann,
    /// Kurganov & Petrova 2007: slopes of w corrected to non-negative face depths.
    Kp07,
    /// Bollermann et al.'s reconstruction with the draining time step of the actual Δt and the
    /// velocities of partially flooded cells held to their neighbours' range after each stage
    /// (docs/kp-wet-dry.md, "Draining" and "After each RK stage: the velocity clamp and films
    /// (`clamp`)"). The default (`kp07` with rain, docs/kp-forcing.md).
    Clamp,
}

impl WetDry {
    pub const ALL: [WetDry; 3] = [WetDry::Bollermann, WetDry::Kp07, WetDry::Clamp];
    /// The schemes the GPU has kernels for.
    pub const GPU: [WetDry; 3] = [WetDry::Bollermann, WetDry::Kp07, WetDry::Clamp];
    /// The scheme a problem has unless it says otherwise.
    pub const DEFAULT: WetDry = WetDry::Clamp;
    pub fn name(self) -> &'static str {
        match self {
            WetDry::Bollermann => "bollermann",
            WetDry::Kp07 => "kp07",
            WetDry::Clamp => "clamp",
        }
    }
    /// The wet map's threshold depth of this scheme ([`WetDryScheme::wet_above`]) from `dry`.
    pub fn wet_above<T: Real>(self, dry: T) -> T {
        match self {
            WetDry::Bollermann => Bollermann::wet_above(dry),
            WetDry::Kp07 => Kp07::wet_above(dry),
            WetDry::Clamp => Clamp::wet_above(dry),
        }
    }
}

impl std::str::FromStr for WetDry {
    type Err = Error;
    fn from_str(s: &str) -> Result<WetDry> {
        WetDry::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| Error::invalid(format!("unknown wet–dry scheme '{s}' (expected bollermann, kp07 or clamp)")))
    }
}

/// The problem, in f64 on the host; solvers convert to their precision. Fields are given on
/// the interior only: `h`, `hu`, `hv` with `nx·ny` cells, `bed` with `(nx+1)(ny+1)` corners,
/// x fastest; solvers add the ghost layers.
#[derive(Clone, Debug)]
pub struct Problem {
    pub nx: usize,
    pub ny: usize,
    pub dx: f64,
    pub dy: f64,
    pub g: f64,
    /// Generalized minmod θ in [1, 2] (1.3 by default).
    pub theta: f64,
    /// Courant number (0.25 by default; the scheme's positivity needs ≤ 0.25).
    pub cfl: f64,
    /// Manning coefficient n (s/m^{1/3}) of every cell; 0 for no friction (and with
    /// `manning_field`, which replaces it).
    pub manning: f64,
    /// Manning's n per cell (`nx·ny`, x fastest, row 0 south), from a raster; `None`: every
    /// cell has `manning`. The model then reads each cell's g·n² from a field of the state's
    /// layout (the RK kernel's per-cell entry point, `kernels::kp::PerCell`).
    pub manning_field: Option<Vec<f64>>,
    /// West, east, south, north.
    pub boundary: [Boundary; 4],
    pub scheme: Scheme,
    /// r of the split schemes' Δt = r·min(Δt_x, Δt_y) from the last substeps, in (0, 1].
    pub ds_safety: f64,
    pub wet_dry: WetDry,
    /// Velocities are desingularized below this depth, as a fraction of min(Δx, Δy) (0.01).
    pub kappa_depth: f64,
    /// A Δt below this stops the run as collapsed.
    pub dt_floor: f64,
    /// Δt never exceeds this (infinite: the CFL condition alone). Forcing needs a cap: a still
    /// or dry state has no wave speed to limit Δt, and rain on it would come in one step.
    pub dt_max: f64,
    /// How an f32 RK stage adds its increment to w ([`Problem::compensates`]).
    pub accumulation: Accumulation,
    /// Rain, infiltration and inflows, applied after every step (`forcing.rs`).
    pub forcing: Forcing,
    pub h: Vec<f64>,
    pub hu: Vec<f64>,
    pub hv: Vec<f64>,
    pub bed: Vec<f64>,
    /// Which cells are in the domain (`nx·ny`, x fastest, row 0 south); `None`: all of them.
    /// An inactive cell (a DEM's nodata) holds no water, and its faces with active cells are
    /// walls (`kernels::kp::walls`).
    pub active: Option<Vec<bool>>,
}

impl Problem {
    /// A still, dry problem on a flat bed with walls, for the set-ups to fill in.
    pub fn new(nx: usize, ny: usize, lx: f64, ly: f64) -> Problem {
        Problem {
            nx,
            ny,
            dx: lx / nx.max(1) as f64,
            dy: ly / ny.max(1) as f64,
            g: 9.81,
            theta: 1.3,
            cfl: 0.25,
            manning: 0.0,
            manning_field: None,
            boundary: [Boundary::Wall; 4],
            scheme: Scheme::Rk2,
            ds_safety: DS_SAFETY,
            wet_dry: WetDry::DEFAULT,
            kappa_depth: 0.01,
            dt_floor: 1e-9,
            dt_max: f64::INFINITY,
            accumulation: Accumulation::default(),
            forcing: Forcing::default(),
            h: vec![0.0; nx * ny],
            hu: vec![0.0; nx * ny],
            hv: vec![0.0; nx * ny],
            bed: vec![0.0; (nx + 1) * (ny + 1)],
            active: None,
        }
    }

    /// Whether a run in precision `T` keeps w's low part (docs/f32-conservation.md): compensated,
    /// in f32, and a scheme whose stages are `rk_point`'s (the split schemes DS1 and DS2 have
    /// their own substeps and run the plain update).
    pub fn compensates<T: Real>(&self) -> bool {
        self.accumulation.compensates::<T>() && !self.scheme.is_split()
    }
    /// [`compensates`](Self::compensates) for a precision chosen at run time.
    pub fn compensates_in(&self, precision: Precision) -> bool {
        self.accumulation.compensates_in(precision) && !self.scheme.is_split()
    }
    /// What a run in precision `T` does, for summaries: "compensated" or "plain".
    pub fn accumulation_of<T: Real>(&self) -> &'static str {
        if self.compensates::<T>() { "compensated" } else { "plain" }
    }

    /// Cell centre (x, y) of interior cell (i, j), 0-based, origin at the south-west corner.
    pub fn centre(&self, i: usize, j: usize) -> (f64, f64) {
        ((i as f64 + 0.5) * self.dx, (j as f64 + 0.5) * self.dy)
    }
    /// Position of corner (i, j).
    pub fn corner(&self, i: usize, j: usize) -> (f64, f64) {
        (i as f64 * self.dx, j as f64 * self.dy)
    }
    /// B at the centre of interior cell (i, j): the mean of its corners.
    pub fn cell_bed(&self, i: usize, j: usize) -> f64 {
        let c = |a: usize, b: usize| self.bed[b * (self.nx + 1) + a];
        cell_bed_of(c(i, j), c(i + 1, j), c(i, j + 1), c(i + 1, j + 1))
    }
    /// Set the bed from a function of position at every corner.
    pub fn set_bed(&mut self, f: impl Fn(f64, f64) -> f64) {
        for j in 0..=self.ny {
            for i in 0..=self.nx {
                let (x, y) = self.corner(i, j);
                self.bed[j * (self.nx + 1) + i] = f(x, y);
            }
        }
    }
    /// Set the depth from a function of the cell centre.
    pub fn set_depth(&mut self, f: impl Fn(f64, f64) -> f64) {
        for j in 0..self.ny {
            for i in 0..self.nx {
                let (x, y) = self.centre(i, j);
                self.h[j * self.nx + i] = f(x, y);
            }
        }
    }
    /// Set the depth so the surface is `level` where the bed is below it, dry elsewhere.
    pub fn set_surface(&mut self, level: impl Fn(f64, f64) -> f64) {
        for j in 0..self.ny {
            for i in 0..self.nx {
                let (x, y) = self.centre(i, j);
                self.h[j * self.nx + i] = (level(x, y) - self.cell_bed(i, j)).max(0.0);
            }
        }
    }

    /// Set the depth of every cell to what a flat surface at `level` holds over its bed, the
    /// shoreline cutting through cells (`kernels::kp::depth_at_level`): the wet–dry scheme's
    /// lake at rest at that level.
    pub fn set_level(&mut self, level: f64) {
        self.set_levels(|_, _| level);
    }

    /// [`set_level`](Problem::set_level) with a level per cell (i, j): each cell holds what a
    /// flat surface at its own level holds over its bed.
    pub fn set_levels(&mut self, level: impl Fn(usize, usize) -> f64) {
        let n = self.nx + 1;
        for j in 0..self.ny {
            for i in 0..self.nx {
                let c = |a: usize, b: usize| self.bed[(j + b) * n + i + a];
                self.h[j * self.nx + i] = depth_at_level(level(i, j), (c(0, 0), c(1, 0), c(0, 1), c(1, 1)));
            }
        }
    }

    /// Check sizes, constants and fields; the message names the first problem found.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::invalid(m));
        if self.nx == 0 || self.ny == 0 {
            return bad(format!("grid {}×{}: sizes must be positive", self.nx, self.ny));
        }
        if self.nx > (u32::MAX / 8) as usize || self.ny > (u32::MAX / 8) as usize {
            return bad(format!("grid {}×{} is too large", self.nx, self.ny));
        }
        for (name, v) in
            [("dx", self.dx), ("dy", self.dy), ("g", self.g), ("CFL", self.cfl), ("kappa depth", self.kappa_depth)]
        {
            if !(v.is_finite() && v > 0.0) {
                return bad(format!("{name} = {v}: must be positive and finite"));
            }
        }
        if !(1.0..=2.0).contains(&self.theta) {
            return bad(format!("theta = {}: the generalized minmod needs θ in [1, 2]", self.theta));
        }
        if !(self.ds_safety > 0.0 && self.ds_safety <= 1.0) {
            return bad(format!("ds_safety = {}: the split schemes' Δt factor r must lie in (0, 1]", self.ds_safety));
        }
        if !(self.manning.is_finite() && (0.0..=MAX_MANNING).contains(&self.manning)) {
            return bad(format!("Manning coefficient {}: must lie in [0, {MAX_MANNING}] s/m^(1/3)", self.manning));
        }
        if let Some(field) = &self.manning_field {
            if self.manning != 0.0 {
                return bad(format!(
                    "a Manning field and a constant Manning n = {}: give one (the constant must be 0 with the field)",
                    self.manning
                ));
            }
            if field.len() != self.nx * self.ny {
                return bad(format!(
                    "the Manning field has {} values; a {}×{} grid needs {}",
                    field.len(),
                    self.nx,
                    self.ny,
                    self.nx * self.ny
                ));
            }
            if let Some(k) = field.iter().position(|n| !(n.is_finite() && (0.0..=MAX_MANNING).contains(n))) {
                return bad(format!(
                    "Manning n[{}, {}] = {}: must lie in [0, {MAX_MANNING}] s/m^(1/3)",
                    k % self.nx,
                    k / self.nx,
                    field[k]
                ));
            }
        }
        if !(self.dt_floor.is_finite() && self.dt_floor >= 0.0) {
            return bad(format!("Δt floor {}: must be finite and non-negative", self.dt_floor));
        }
        let [w, e, s, n] = self.boundary;
        if (w == Boundary::Periodic) != (e == Boundary::Periodic)
            || (s == Boundary::Periodic) != (n == Boundary::Periodic)
        {
            return bad("periodic boundaries come in pairs: west with east, south with north".into());
        }
        if self.bed.len() == (self.nx + 1) * (self.ny + 1) {
            self.check_periodic_bed()?;
        }
        let cells = self.nx * self.ny;
        for (name, f, len) in [
            ("h", &self.h, cells),
            ("hu", &self.hu, cells),
            ("hv", &self.hv, cells),
            ("bed", &self.bed, (self.nx + 1) * (self.ny + 1)),
        ] {
            if f.len() != len {
                return bad(format!("{name} has {} values; a {}×{} grid needs {len}", f.len(), self.nx, self.ny));
            }
            if let Some(k) = f.iter().position(|v| !v.is_finite()) {
                let w = if name == "bed" { self.nx + 1 } else { self.nx };
                return bad(format!("{name}[{}, {}] = {}: input fields must be finite", k % w, k / w, f[k]));
            }
        }
        if let Some(k) = self.h.iter().position(|&v| v < 0.0) {
            return bad(format!("h[{}, {}] = {}: depth must be non-negative", k % self.nx, k / self.nx, self.h[k]));
        }
        // The forcing's arrays a cell: what the kernels index by interior cell.
        if let Some(g) = &self.forcing.rain_grid
            && g.index.len() != cells
        {
            return bad(format!("{}: rain cells for {} model cells; the grid has {cells}", g.source, g.index.len()));
        }
        if let Some(s) = &self.forcing.soil
            && (s.soils.is_empty() || (s.varies() && s.cells.len() != cells))
        {
            return bad(format!("{} soils for {} cells; the grid has {cells}", s.soils.len(), s.cells.len()));
        }
        Ok(())
    }

    /// Periodic sides need a bed that repeats: the node rows (columns) on the two sides are one
    /// and the same row, which [`padded`](Self::padded) takes from the west (south) side. A bed
    /// that differs there by more than round-off would put the cells of one side over another
    /// bed than their ghosts' (which copy the surface of the other side): water out of nothing.
    fn check_periodic_bed(&self) -> Result<()> {
        let (nx, ny) = (self.nx, self.ny);
        let node = |i: usize, j: usize| self.bed[j * (nx + 1) + i];
        let tol = 1e-9 * (1.0 + self.bed.iter().fold(0.0f64, |m, b| m.max(b.abs())));
        let sides = [
            (self.boundary[0], "west and east", "x = 0 and x = lx", ny + 1, &|t: usize| (node(0, t), node(nx, t))),
            (self.boundary[2], "south and north", "y = 0 and y = ly", nx + 1, &|t: usize| (node(t, 0), node(t, ny))),
        ] as [(Boundary, &str, &str, usize, &dyn Fn(usize) -> (f64, f64)); 2];
        for (bc, names, at, count, pair) in sides {
            if bc != Boundary::Periodic {
                continue;
            }
            if let Some((t, (a, b))) = (0..count).map(|t| (t, pair(t))).find(|(_, (a, b))| (a - b).abs() > tol) {
                return Err(Error::invalid(format!(
                    "periodic {names} sides need a bed that repeats: B at {at} differs ({a} m and {b} m at node {t})"
                )));
            }
        }
        Ok(())
    }

    /// The kernels' constants in precision `T` for blocks of `block` cells (the wet map's unit).
    pub fn coeffs<T: Real>(&self, block: (u32, u32)) -> Coeffs<T> {
        self.coeffs_at_scale(block, self.scale())
    }

    /// The largest |B| plus the largest h, which the dry depth scales with (4 ε of f32 times it,
    /// at least 1 µm, whatever the precision).
    pub(super) fn scale(&self) -> f64 {
        self.bed.iter().fold(0.0f64, |m, b| m.max(b.abs())) + self.h.iter().fold(0.0f64, |m, &h| m.max(h))
    }

    /// [`coeffs`](Self::coeffs) with the dry depth of `scale` ([`scale`](Self::scale)).
    pub(super) fn coeffs_at_scale<T: Real>(&self, block: (u32, u32), scale: f64) -> Coeffs<T> {
        let t = T::from_f64;
        let kd = self.kappa_depth * self.dx.min(self.dy);
        // The depth f32 resolves beside the level's scale, in every precision: the dry depth is
        // part of the discrete problem (it decides where fronts advance and which films set
        // Δt), so f32, f64 and mixed runs solve the same one and take the same steps.
        let dry = (1e-6f64).max(4.0 * f32::EPSILON as f64 * scale);
        let (bx, by) = (block.0.max(1), block.1.max(1));
        Coeffs {
            nx: self.nx as u32,
            ny: self.ny as u32,
            pitch: self.nx as u32 + 4,
            cpitch: self.nx as u32 + 5,
            bc: self.boundary.map(Boundary::code),
            bx,
            by,
            nbx: (self.nx as u32).div_ceil(bx),
            nby: (self.ny as u32).div_ceil(by),
            g: t(self.g),
            half_g: t(0.5 * self.g),
            theta: t(self.theta),
            inv_dx: t(1.0 / self.dx),
            inv_dy: t(1.0 / self.dy),
            kappa: t(kd * kd * kd * kd),
            dry: t(dry),
            g_n2: t(self.g * self.manning * self.manning),
            wet_above: self.wet_dry.wet_above(t(dry)),
            drain: t(0.25 / self.cfl),
            cut: 0,
            active: 0,
            dt_at: DtAt::NONE,
        }
    }

    /// Each cell's g·n² in precision `T` on the state's padded layout (ghosts 0: the RK stage
    /// reads interior cells only), when the problem has a Manning field. Computed as
    /// [`coeffs`](Problem::coeffs) computes `g_n2`, so a field equal to n everywhere gives its bits.
    pub fn friction_field<T: Real>(&self) -> Result<Option<Field2<T>>> {
        let Some(n) = &self.manning_field else { return Ok(None) };
        let mut f = Field2::filled(self.layout(), T::ZERO)?;
        for j in 0..self.ny {
            for i in 0..self.nx {
                let n = n[j * self.nx + i];
                f.set(i as i32, j as i32, T::from_f64(self.g * n * n));
            }
        }
        Ok(Some(f))
    }

    /// Cells of the padded state arrays.
    pub fn padded_cells(&self) -> usize {
        self.layout().len()
    }
    /// Whether interior cell `s` (x fastest, row 0 south) is in the domain.
    pub fn is_active(&self, s: usize) -> bool {
        self.active.as_ref().is_none_or(|a| a[s])
    }

    /// The activity of every padded cell, 1 active, 0 not, for the kernels
    /// (`kernels::kp::is_active`): a ghost takes its side's source cell's, as the state's ghosts
    /// take its values, but beyond the faces closed for good (`out_only.rs`). `None` where every
    /// cell is active and no face lets water only out: a run with such faces writes their
    /// ghosts' activity every stage.
    pub fn active_map(&self) -> Option<Vec<u8>> {
        self.has_active_map().then(|| self.activity())
    }

    /// Whether [`active_map`](Self::active_map) gives a map: some cell is inactive, or some
    /// face lets water only out or is closed for good.
    pub(super) fn has_active_map(&self) -> bool {
        self.active.is_some() || !self.out_only_faces().is_empty() || !self.closed_faces().is_empty()
    }

    /// The map [`active_map`](Self::active_map) gives, made whether or not it would.
    pub(super) fn activity(&self) -> Vec<u8> {
        let all = vec![true; self.nx * self.ny];
        let a = self.active.as_ref().unwrap_or(&all);
        let l = self.layout();
        let bc = self.boundary.map(Boundary::code);
        let (nx, ny) = (self.nx as u32, self.ny as u32);
        let mut map = vec![0u8; l.len()];
        for j in -2..ny as i32 + 2 {
            let lo_hi = |g: i32, n: u32, lo: u32, hi: u32| cell_source(n, g, if g < 0 { lo } else { hi }).0 as usize;
            let sj = lo_hi(j, ny, bc[2], bc[3]);
            for i in -2..nx as i32 + 2 {
                let si = lo_hi(i, nx, bc[0], bc[1]);
                map[l.at(i, j)] = a[sj * self.nx + si] as u8;
            }
        }
        self.close_faces(&mut map);
        map
    }

    /// The layout of the state: two ghost layers.
    pub fn layout(&self) -> Layout2 {
        Layout2::new(self.nx as u32, self.ny as u32, 2)
    }
    /// The layout of the bed at cell corners: `(nx+1) × (ny+1)` nodes, two ghost layers.
    pub fn node_layout(&self) -> Layout2 {
        Layout2::new(self.nx as u32 + 1, self.ny as u32 + 1, 2)
    }

    /// The padded fields in precision `T` a model starts from: the bed at the corners (ghost
    /// corners mirrored or wrapped per side, [`node_source`]), B at the cell centres, and the
    /// state (w, hu, hv) cleaned (no momentum where dry) with its ghosts set.
    pub fn padded<T: Real>(&self, k: &Coeffs<T>) -> Result<Padded<T>> {
        self.padded_with(k, &self.coeffs::<f64>((k.bx, k.by)))
    }

    /// [`padded`](Self::padded) with the constants `k` and, for the surfaces of partially
    /// flooded cells, `k64` in f64: of this problem, or of the whole grid for the rows around
    /// a slab (`slab.rs`).
    pub(super) fn padded_with<T: Real>(&self, k: &Coeffs<T>, k64: &Coeffs<f64>) -> Result<Padded<T>> {
        let (nx, ny) = (self.nx as u32, self.ny as u32);
        let nodes = self.node_layout();
        let bc = self.boundary.map(Boundary::code);
        // The interior node a stored node copies: each side mirrors or wraps its own ghosts. Across
        // periodic sides the last node row is the first (`check_periodic_bed`), taken from it bit
        // for bit, so the ghosts' beds are those of the cells they copy.
        let source = |n: u32, g: i32, lo: u32, hi: u32| {
            let bc = if g < 0 { lo } else { hi };
            if bc == BC_PERIODIC && g == n as i32 { 0 } else { node_source(n, g, bc) as usize }
        };
        // A normal-depth side's ghost corners, and those of a normal-depth outlet's nodes,
        // continue the slope of the last two node lines (B(−g) = B(0) − g·(B(1) − B(0))) where
        // the bed falls toward the side or is level; the others mirror or wrap. Where the bed
        // rises toward the side there is no uniform flow to leave at: continued, the ghosts
        // would stand higher than the cells inside them, and the copied depth would pour in
        // over them; mirrored, as an `outflow` side's, water leaves only over the rise.
        let whole = self.boundary.map(|b| b == Boundary::NormalDepth);
        let nd = |side: usize, node: i32| {
            whole[side]
                || self.forcing.outlets.iter().any(|o| {
                    o.normal_depth && o.side == side && (o.cells.start as i32..=o.cells.end as i32).contains(&node)
                })
        };
        // B(edge) + g·(B(edge) − B(inner)) for the ghost node g lines beyond the boundary node
        // line `edge`, where that does not rise above it.
        let falls = |edge: f64, inner: f64, g: i32| (edge <= inner).then_some(edge + g as f64 * (edge - inner));
        let along_y = |i: usize, j: i32| -> f64 {
            let b = |j: usize| self.bed[j * (self.nx + 1) + i];
            let n = ny as usize;
            let continued = match j {
                j if j < 0 && nd(2, i as i32) => falls(b(0), b(1), -j),
                j if j > ny as i32 && nd(3, i as i32) => falls(b(n), b(n - 1), j - ny as i32),
                _ => None,
            };
            continued.unwrap_or_else(|| b(source(ny, j, bc[2], bc[3])))
        };
        let value = |i: i32, j: i32| -> f64 {
            let n = nx as usize;
            let continued = match i {
                i if i < 0 && nd(0, j) => falls(along_y(0, j), along_y(1, j), -i),
                i if i > nx as i32 && nd(1, j) => falls(along_y(n, j), along_y(n - 1, j), i - nx as i32),
                _ => None,
            };
            continued.unwrap_or_else(|| along_y(source(nx, i, bc[0], bc[1]), j))
        };
        // Every point is a function of the problem alone: the fields are built on every core.
        let bed = Field2::from_fn(nodes, |i, j| T::from_f64(value(i, j)))?;
        let layout = self.layout();
        let cell_bed = Field2::from_fn(layout, |i, j| {
            let c = |a: i32, b: i32| bed.get(i + a, j + b);
            cell_bed_of(c(0, 0), c(1, 0), c(0, 1), c(1, 1))
        })?;
        // Outside the interior and the domain (inactive cells): dry and still, as they stay.
        let interior = |i: i32, j: i32| {
            let s = layout.is_interior(i, j).then(|| j as usize * self.nx + i as usize)?;
            self.is_active(s).then_some(s)
        };
        let mut w = Field2::from_fn(layout, |i, j| match interior(i, j) {
            // A dry cell keeps w = B in T: exactly dry.
            Some(s) if self.h[s] > 0.0 => {
                let corners = (bed.get(i, j), bed.get(i + 1, j), bed.get(i, j + 1), bed.get(i + 1, j + 1));
                self.surface_in(k, k64, i as usize, j as usize, corners)
            }
            _ => cell_bed.get(i, j),
        })?;
        let mut hu = Field2::from_fn(layout, |i, j| interior(i, j).map_or(T::ZERO, |s| T::from_f64(self.hu[s])))?;
        let mut hv = Field2::from_fn(layout, |i, j| interior(i, j).map_or(T::ZERO, |s| T::from_f64(self.hv[s])))?;
        let (wb, cb) = (w.stored_mut(), cell_bed.stored());
        super::state::clean_state(k, wb, hu.stored_mut(), hv.stored_mut(), cb);
        super::state::apply_boundary(k, w.stored_mut(), hu.stored_mut(), hv.stored_mut(), cell_bed.stored(), None);
        Ok(Padded { bed, cell_bed, q: [w, hu, hv] })
    }

    /// The mean surface w̄ in T of wet interior cell (i, j) whose corners are `corners` in T,
    /// chosen so that the level the reconstruction sees (w* of `kernels::kp::surface`) is the
    /// f64 state's level rounded, as near as T allows. Where the level is w̄ (a fully flooded
    /// cell, or KP07) that is h + B rounded to T once: rounding h and B first and then their sum
    /// leaves a flat f32 surface rough by an ulp (a lake at 0.7 m holds cells at 0.7 and
    /// 0.7 + 6e-8), a pressure gradient that drives currents no later step removes, as steps
    /// change w̄ by less than half an ulp (docs/kp-wet-dry.md). In a partially flooded cell w*
    /// moves by √((B_hi − B̄)/h̄) ≥ 1 ulps per ulp of w̄, so the w̄ whose w* is nearest may lie
    /// an ulp or two from that rounding: the one within three ulps of h + B whose w* is nearest
    /// the f64 state's (the nearest to h + B on a tie). In f64 that is h + B itself.
    fn surface_in<T: Real>(&self, k: &Coeffs<T>, k64: &Coeffs<f64>, i: usize, j: usize, corners: (T, T, T, T)) -> T {
        let n = self.nx + 1;
        let c = |a: usize, b: usize| self.bed[(j + b) * n + i + a];
        let c64 = (c(0, 0), c(1, 0), c(0, 1), c(1, 1));
        let w64 = self.h[j * self.nx + i] + cell_bed_of(c64.0, c64.1, c64.2, c64.3);
        let w = T::from_f64(w64);
        let hi = corners.0.max(corners.1).max(corners.2.max(corners.3));
        if self.wet_dry == WetDry::Kp07 || w >= hi {
            return w;
        }
        // Bollermann's and `clamp`'s levels are the same function.
        let level64 = surface::<Bollermann, f64>(k64, w64, c64).0;
        let b = cell_bed_of(corners.0, corners.1, corners.2, corners.3);
        let miss = |x: T| (surface::<Bollermann, T>(k, x, corners).0.to_f64() - level64).abs();
        // Steps of ε·w̄/2, at most an ulp of T: every T value within three ulps of w64 is a
        // candidate, the nearest ones first.
        let step = T::EPSILON.to_f64() * w64.abs() / 2.0;
        let mut best = (w, miss(w));
        for d in 1..=6 {
            for x in [T::from_f64(w64 - d as f64 * step), T::from_f64(w64 + d as f64 * step)] {
                if x > b && miss(x) < best.1 {
                    best = (x, miss(x));
                }
            }
        }
        best.0
    }

    /// Interior values of a padded field, `nx·ny` row-major.
    pub fn interior<T: Copy + Send + Sync>(&self, padded: &[T]) -> Vec<T> {
        crate::field::interior_of(&self.layout(), padded)
    }

    /// Water volume Σ h·ΔxΔy over the interior, from padded w and cell beds.
    pub fn volume<T: Real>(&self, w: &[T], cell_bed: &[T]) -> f64 {
        let p = self.nx + 4;
        let mut sum = 0.0f64;
        for j in 2..self.ny + 2 {
            for i in 2..self.nx + 2 {
                sum += (w[j * p + i] - cell_bed[j * p + i]).to_f64();
            }
        }
        sum * self.dx * self.dy
    }

    /// [`volume`](Self::volume) of a compensated state: w's low part `low` (padded) added, in f64.
    pub fn volume_with_low<T: Real>(&self, w: &[T], low: Option<&[T]>, cell_bed: &[T]) -> f64 {
        let lo = low.map_or(0.0, |l| self.interior(l).iter().map(|v| v.to_f64()).sum::<f64>());
        self.volume(w, cell_bed) + lo * self.dx * self.dy
    }

    /// Initial water volume.
    pub fn initial_volume(&self) -> f64 {
        self.h.iter().sum::<f64>() * self.dx * self.dy
    }
}
