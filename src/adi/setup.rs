//! The problem an ADI run solves: the grid, bathymetry and initial state, the physics (gravity,
//! bed friction, Coriolis, the wind and its drag law, the convective terms, eddy viscosity,
//! drying and flooding) and what each side's boundary faces do; its checks, and the point
//! functions' parameters it gives (`kernels::adi::Params`). Grid and indices are as the module
//! documentation (`mod.rs`) states them.

use crate::forcing::{Forcing, Series};
use crate::{Error, Result};
use kernels::adi::{FrictionLaw, Params};
use std::sync::Arc;

/// Gravity used unless the setup says otherwise (m/s²).
pub const G: f64 = 9.81;
/// Density of air and water (kg/m³) for the wind stress τ = ρ_a c_d W².
pub const RHO_AIR: f64 = 1.225;
pub const RHO_WATER: f64 = 1000.0;
/// MIKE 21's default drying and flooding depths (m).
pub const H_DRY: f64 = 0.2;
pub const H_FLOOD: f64 = 0.3;

/// One side of the grid: west (x = 0), east, south (y = 0), north.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    West = 0,
    East = 1,
    South = 2,
    North = 3,
}

/// A prescribed water level ζ(t) = mean + amplitude·sin(2π t/period + phase).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tide {
    pub mean: f64,
    pub amplitude: f64,
    /// Seconds; ignored when the amplitude is zero.
    pub period: f64,
    /// Radians.
    pub phase: f64,
}

impl Tide {
    /// A constant level.
    pub fn constant(level: f64) -> Tide {
        Tide { mean: level, amplitude: 0.0, period: 1.0, phase: 0.0 }
    }
    pub fn at(&self, t: f64) -> f64 {
        if self.amplitude == 0.0 {
            return self.mean;
        }
        self.mean + self.amplitude * (std::f64::consts::TAU * t / self.period + self.phase).sin()
    }
}

/// A water level outside a boundary: a sine tide (constant with zero amplitude) or a time
/// series read from a file.
#[derive(Clone, Debug, PartialEq)]
pub enum Level {
    Sine(Tide),
    Series(Arc<Series>),
}

impl Level {
    /// A constant level.
    pub fn constant(level: f64) -> Level {
        Level::Sine(Tide::constant(level))
    }
    /// ζ at time `t` (s).
    pub fn at(&self, t: f64) -> f64 {
        match self {
            Level::Sine(tide) => tide.at(t),
            Level::Series(s) => s.at(t),
        }
    }
}

impl From<Tide> for Level {
    fn from(t: Tide) -> Level {
        Level::Sine(t)
    }
}

/// What happens on a side's boundary faces.
#[derive(Clone, Debug, PartialEq)]
pub enum Boundary {
    /// Land: zero normal flux.
    Land,
    /// A water level outside the boundary faces: their flux follows the momentum equation
    /// with the outside level as the missing neighbour.
    Level(Level),
    /// A given normal flux density (m²/s, positive along +x or +y) on every face of the side.
    Flux(f64),
}

/// Bed friction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Friction {
    None,
    /// Chézy number C (m^½/s).
    Chezy(f64),
    /// Manning's n (s/m^⅓).
    Manning(f64),
}

/// A uniform wind: speed W (m/s, 10 m above the surface) blowing towards `direction`
/// (radians from +x, counter-clockwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wind {
    pub speed: f64,
    pub direction: f64,
}

/// MIKE 21's default drag law (Wu 1980, 1994): c_d = 1.255e-3 up to 7 m/s, 2.425e-3 from
/// 25 m/s, linear in W between.
pub fn drag_coefficient(speed: f64) -> f64 {
    let (wa, ca, wb, cb) = (7.0, 1.255e-3, 25.0, 2.425e-3);
    if speed <= wa {
        ca
    } else if speed >= wb {
        cb
    } else {
        ca + (cb - ca) * (speed - wa) / (wb - wa)
    }
}

impl Wind {
    /// Kinematic stress τ/ρ_w = ρ_a c_d W² / ρ_w (m²/s²), x and y components.
    pub fn stress(&self) -> (f64, f64) {
        let t = RHO_AIR * drag_coefficient(self.speed) * self.speed * self.speed / RHO_WATER;
        (t * self.direction.cos(), t * self.direction.sin())
    }
}

/// A problem: grid, bathymetry, initial state, physics and boundaries. Scalars in f64, the
/// state in the model's precision.
#[derive(Clone, Debug)]
pub struct Setup {
    pub nx: usize,
    pub ny: usize,
    pub dx: f64,
    pub dy: f64,
    pub dt: f64,
    pub g: f64,
    /// Still-water depth d at the cells (nx·ny, positive downwards; h = d + ζ).
    pub depth: Vec<f64>,
    /// Initial elevation ζ (nx·ny). The fluxes start at rest.
    pub zeta: Vec<f64>,
    pub friction: Friction,
    pub coriolis: f64,
    pub wind: Wind,
    /// Convective terms on or off.
    pub convection: bool,
    /// Constant eddy viscosity (m²/s), zero for none.
    pub eddy: f64,
    /// Drying and flooding depths (m); None: no drying, every cell must stay wet.
    pub drying: Option<(f64, f64)>,
    /// West, east, south, north.
    pub sides: [Boundary; 4],
    /// Rain and the soils under the cells (`[forcing]`; none of its other parts).
    pub forcing: Forcing,
}

impl Setup {
    /// A closed flat basin at rest: depth `d` everywhere, no friction, wind or Coriolis.
    pub fn basin(nx: usize, ny: usize, dx: f64, dy: f64, dt: f64, d: f64) -> Setup {
        Setup {
            nx,
            ny,
            dx,
            dy,
            dt,
            g: G,
            depth: vec![d; nx * ny],
            zeta: vec![0.0; nx * ny],
            friction: Friction::None,
            coriolis: 0.0,
            wind: Wind { speed: 0.0, direction: 0.0 },
            convection: false,
            eddy: 0.0,
            drying: None,
            sides: [Boundary::Land, Boundary::Land, Boundary::Land, Boundary::Land],
            forcing: Forcing::default(),
        }
    }

    /// The problem `bench adi` times and `hydrokern tune` searches on, n × n cells: a closed
    /// basin 10 m deep with a hump of water, Chézy friction, wind, Coriolis and the convective
    /// terms on, Courant number √(gd)Δt/Δx ≈ 2.
    pub fn busy_basin(n: usize) -> Setup {
        let (dx, d) = (10.0, 10.0);
        let dt = 2.0 * dx / (G * d).sqrt();
        let mut s = Setup::basin(n, n, dx, dx, dt, d);
        for k in 0..n {
            for j in 0..n {
                let (x, y) = ((j as f64 + 0.5) / n as f64 - 0.4, (k as f64 + 0.5) / n as f64 - 0.55);
                s.zeta[k * n + j] = 0.5 * (-60.0 * (x * x + y * y)).exp();
            }
        }
        s.friction = Friction::Chezy(50.0);
        s.wind = Wind { speed: 12.0, direction: 0.5 };
        s.coriolis = 1e-4;
        s.convection = true;
        s
    }

    /// Every check, each failure one line naming the value.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::invalid(m));
        if self.nx == 0 || self.ny == 0 {
            return bad(format!("adi: grid of {} × {} cells: both sizes must be at least 1", self.nx, self.ny));
        }
        for (name, v) in [("dx", self.dx), ("dy", self.dy), ("dt", self.dt), ("g", self.g)] {
            if !(v.is_finite() && v > 0.0) {
                return bad(format!("adi: {name} = {v}: must be finite and positive"));
            }
        }
        for (name, v) in
            [("coriolis", self.coriolis), ("wind speed", self.wind.speed), ("wind direction", self.wind.direction)]
        {
            if !v.is_finite() {
                return bad(format!("adi: {name} = {v}: must be finite"));
            }
        }
        if !(self.eddy.is_finite() && self.eddy >= 0.0) {
            return bad(format!("adi: eddy viscosity = {}: must be finite and not negative", self.eddy));
        }
        if self.wind.speed < 0.0 {
            return bad(format!("adi: wind speed = {}: must not be negative", self.wind.speed));
        }
        let cells = self.nx * self.ny;
        for (name, v) in [("depth", &self.depth), ("zeta", &self.zeta)] {
            if v.len() != cells {
                return bad(format!("adi: {name} has {} values for {} × {} cells", v.len(), self.nx, self.ny));
            }
            if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                return bad(format!("adi: {name} is not finite at cell ({}, {})", i % self.nx, i / self.nx));
            }
        }
        match self.friction {
            Friction::None => {}
            Friction::Chezy(c) if !(c.is_finite() && c > 0.0) => {
                return bad(format!("adi: Chézy number {c}: must be finite and positive"));
            }
            Friction::Manning(n) if !(n.is_finite() && n > 0.0) => {
                return bad(format!("adi: Manning's n {n}: must be finite and positive"));
            }
            _ => {}
        }
        if self.depth.iter().zip(&self.zeta).all(|(d, z)| d + z <= 0.0) {
            return bad("adi: the total depth d + ζ is zero or negative everywhere: no water".into());
        }
        match self.drying {
            Some((dry, flood)) => {
                if !(dry.is_finite() && flood.is_finite() && dry > 0.0) {
                    return bad(format!("adi: drying depth {dry}, flooding depth {flood}: must be finite, drying > 0"));
                }
                if dry > flood {
                    return bad(format!("adi: drying depth {dry} m is above the flooding depth {flood} m"));
                }
            }
            None => {
                if let Some(i) = self.depth.iter().zip(&self.zeta).position(|(d, z)| d + z <= 0.0) {
                    return bad(format!(
                        "adi: total depth d + ζ = {} at cell ({}, {}) without drying: give drying and flooding depths",
                        self.depth[i] + self.zeta[i],
                        i % self.nx,
                        i / self.nx
                    ));
                }
            }
        }
        for (s, b) in ["west", "east", "south", "north"].iter().zip(&self.sides) {
            match b {
                Boundary::Land => {}
                Boundary::Flux(f) if !f.is_finite() => {
                    return bad(format!("adi: {s} boundary flux {f}: must be finite"));
                }
                Boundary::Flux(_) => {}
                // A series is checked as it is read (`Series::parse`).
                Boundary::Level(Level::Series(_)) => {}
                Boundary::Level(Level::Sine(t)) => {
                    if ![t.mean, t.amplitude, t.period, t.phase].iter().all(|v| v.is_finite()) {
                        return bad(format!("adi: {s} boundary level {t:?}: every value must be finite"));
                    }
                    if t.amplitude != 0.0 && t.period <= 0.0 {
                        return bad(format!("adi: {s} boundary tide period {}: must be positive", t.period));
                    }
                }
            }
        }
        Ok(())
    }

    /// The point functions' parameters in precision T.
    pub fn params<T: crate::Real>(&self) -> Params<T> {
        let (law, friction) = match self.friction {
            Friction::None => (FrictionLaw::None, 0.0),
            Friction::Chezy(c) => (FrictionLaw::Chezy, c),
            Friction::Manning(n) => (FrictionLaw::Manning, n),
        };
        let (wx, wy) = self.wind.stress();
        // Without drying every cell stays wet: drying at −∞, never reached.
        let (dry, flood) = self.drying.unwrap_or((f64::MIN, f64::MIN));
        let t = T::from_f64;
        Params {
            g: t(self.g),
            dt: t(self.dt),
            dx: t(self.dx),
            dy: t(self.dy),
            friction: t(friction),
            law,
            convection: self.convection as u32,
            coriolis: t(self.coriolis),
            wind_x: t(wx),
            wind_y: t(wy),
            h_dry: t(dry),
            h_flood: t(flood),
            eddy: t(self.eddy),
        }
    }
}
