//! Clawpack-style wave propagation (seed 002, cudaclaw; docs/claw.md): LeVeque's
//! high-resolution wave-propagation algorithm with dimensional splitting, where the only
//! equation-specific code is a point-wise Riemann solver ([`Riemann`], one file per system of
//! equations under [`riemann`]).
//!
//! Along one axis, at the interface i−½ between cells i−1 and i, the solver splits the jump
//! ΔQ = Q_i − Q_{i−1} into W waves 𝒲_p moving at speeds s_p and returns the fluctuations
//! A⁻ΔQ (into cell i−1) and A⁺ΔQ (into cell i). A sweep then updates every cell from its two
//! interfaces,
//!
//!   Q_i ← Q_i − Δt/Δx·(A⁺ΔQ_{i−½} + A⁻ΔQ_{i+½}) − Δt/Δx·(F̃_{i+½} − F̃_{i−½}),
//!   F̃_{i−½} = ½ Σ_p |s_p| (1 − Δt/Δx·|s_p|) 𝒲̃_p,
//!
//! where 𝒲̃_p = φ(θ_p)·𝒲_p is the wave limited by comparing it with the same family's wave at
//! the upwind interface ([`limited`], [`correction`]). These point functions are shared by the
//! CPU reference (`src/claw/cpu.rs`) and the core kernels (`sweep.rs`).

pub mod clock;
pub mod riemann;
mod systems;

mod entries;
mod limiter;
pub use entries::*;
pub use limiter::*;

#[cfg(target_arch = "nvptx64")]
mod ghosts;
#[cfg(target_arch = "nvptx64")]
mod sweep;

// The 3D kernels: entry points and parameters (`entries3.rs`), bodies (`sweep3.rs`,
// `ghosts3.rs`) on the line bodies of `lines.rs`.
mod entries3;
pub use entries3::*;
#[cfg(target_arch = "nvptx64")]
mod ghosts3;
#[cfg(target_arch = "nvptx64")]
mod lines;
#[cfg(target_arch = "nvptx64")]
mod sweep3;

/// Every entry-point stem of the module (`kernels!` makes one list an invocation): the 2D
/// kernels' (`entries.rs`), then the 3D kernels' (`entries3.rs`).
pub const ENTRY_STEMS: &[&str] = &STEMS;
const STEMS: [&str; entries::ENTRY_STEMS.len() + entries3::ENTRY_STEMS.len()] = {
    let (two, three) = (entries::ENTRY_STEMS, entries3::ENTRY_STEMS);
    let mut out = [""; entries::ENTRY_STEMS.len() + entries3::ENTRY_STEMS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = if i < two.len() { two[i] } else { three[i - two.len()] };
        i += 1;
    }
    out
};

use crate::Real;

/// What a Riemann solver returns at one interface: W waves of M components, their speeds, and
/// the fluctuations A⁻ΔQ (towards the left cell) and A⁺ΔQ (towards the right cell).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solution<T, const M: usize, const W: usize> {
    pub waves: [[T; M]; W],
    pub speeds: [T; W],
    pub amdq: [T; M],
    pub apdq: [T; M],
}

impl<T: Real, const M: usize, const W: usize> Solution<T, M, W> {
    /// No waves: the solution at an interface with equal states on both sides.
    pub const ZERO: Self =
        Solution { waves: [[T::ZERO; M]; W], speeds: [T::ZERO; W], amdq: [T::ZERO; M], apdq: [T::ZERO; M] };

    /// The solution made of `waves` and `speeds` with the fluctuations of the plain splitting
    /// A∓ΔQ = Σ_p s_p^∓ 𝒲_p (what a solver without an entropy fix returns).
    #[inline(always)]
    pub fn from_waves(waves: [[T; M]; W], speeds: [T; W]) -> Self {
        let (mut amdq, mut apdq) = ([T::ZERO; M], [T::ZERO; M]);
        for p in 0..W {
            let (sm, sp) = (speeds[p].min(T::ZERO), speeds[p].max(T::ZERO));
            for m in 0..M {
                amdq[m] = sm.mul_add(waves[p][m], amdq[m]);
                apdq[m] = sp.mul_add(waves[p][m], apdq[m]);
            }
        }
        Solution { waves, speeds, amdq, apdq }
    }

    /// The largest |s_p|: what the CFL number is taken from. Infinite when a speed is not
    /// finite, so that a state which has blown up can never pass for a slow one (a maximum
    /// would drop a NaN).
    #[inline(always)]
    pub fn max_speed(&self) -> T {
        let mut s = T::ZERO;
        for p in 0..W {
            let a = self.speeds[p].abs();
            if !a.is_finite() {
                return T::INFINITY;
            }
            s = s.max(a);
        }
        s
    }
}

/// A point-wise Riemann solver for a system of M equations with W waves and A auxiliary fields
/// per cell (material properties, bathymetry, …): the one piece of code a user writes to add a
/// system of equations. `dir` is the axis normal to the interface (0 = x, 1 = y, 2 = z); the
/// left state is the cell on the minus side. Problem constants (gravity, a velocity) are the
/// solver's own fields.
///
/// Implementations are plain `#[inline]` generic Rust over [`Real`], compiled for the GPU and
/// the host alike; they must not panic. Each lives in its own file under [`riemann`], with a
/// header stating the equations, the waves and the meaning of each component.
pub trait Riemann<T: Real, const M: usize, const W: usize, const A: usize>: Copy + Send + Sync {
    /// The solver's name in case files (`claw.solver`).
    const NAME: &'static str;
    /// Each state component's name, in order (outputs and messages).
    const FIELDS: [&'static str; M];
    /// Each auxiliary field's name, in order (case files name them).
    const AUX: [&'static str; A];
    /// The solver's constants (gravity, a velocity), by the names case files give them, with
    /// their defaults.
    const CONSTANTS: &'static [(&'static str, f64)];

    /// The solver with `values` for its constants, one per [`CONSTANTS`](Self::CONSTANTS) entry
    /// in that order (the host fills in the defaults).
    fn with_constants(values: &[f64]) -> Self;

    /// Waves, speeds and fluctuations at an interface normal to axis `dir`.
    fn solve(&self, dir: usize, ql: &[T; M], qr: &[T; M], al: &[T; A], ar: &[T; A]) -> Solution<T, M, W>;

    /// The component that is the velocity (or momentum) normal to a face across axis `dir`, if
    /// any: a reflecting wall negates it in the ghost cells.
    fn normal(dir: usize) -> Option<usize>;

    /// Why a cell's state or auxiliary values are not admissible initial data (a negative
    /// depth, a non-positive density), or `None`.
    fn inadmissible(&self, q: &[T; M], aux: &[T; A]) -> Option<&'static str> {
        let _ = (q, aux);
        None
    }
}

/// The second-order correction flux F̃_{i−½} at an interface from its solution `here` and the
/// solutions at the interfaces to its left (i−3/2) and right (i+½), with `dtdx` = Δt/Δx:
/// each wave limited against the same family's wave at the interface upwind of it, then
/// ½ |s| (1 − Δt/Δx |s|) times the limited wave.
#[inline(always)]
pub fn correction<T: Real, const M: usize, const W: usize>(
    limiter: Limiter,
    dtdx: T,
    left: &Solution<T, M, W>,
    here: &Solution<T, M, W>,
    right: &Solution<T, M, W>,
) -> [T; M] {
    let (l, r) = (wave_dots(&here.waves, &left.waves), wave_dots(&here.waves, &right.waves));
    correction_by(limiter, dtdx, here, &l, &r)
}

/// Each family's θ numerator between two interfaces, 𝒲_p · 𝒲'_p ([`dot`]): the same for
/// either order, so the sweeps form it once for the pair and hand it to both interfaces
/// (as the right one's left, the left one's right).
#[inline(always)]
pub fn wave_dots<T: Real, const M: usize, const W: usize>(a: &[[T; M]; W], b: &[[T; M]; W]) -> [T; W] {
    let mut d = [T::ZERO; W];
    for p in 0..W {
        d[p] = dot(&a[p], &b[p]);
    }
    d
}

/// [`correction`] from `here` and its waves' dot products with the waves to its left and to
/// its right ([`wave_dots`]).
#[inline(always)]
pub fn correction_by<T: Real, const M: usize, const W: usize>(
    limiter: Limiter,
    dtdx: T,
    here: &Solution<T, M, W>,
    left: &[T; W],
    right: &[T; W],
) -> [T; M] {
    let mut f = [T::ZERO; M];
    for p in 0..W {
        let s = here.speeds[p];
        let upwind = if s > T::ZERO { left[p] } else { right[p] };
        let phi = limited_by(limiter, &here.waves[p], upwind);
        let c = T::HALF * s.abs() * (T::ONE - dtdx * s.abs()) * phi;
        for (fm, wm) in f.iter_mut().zip(&here.waves[p]) {
            *fm = c.mul_add(*wm, *fm);
        }
    }
    f
}

/// Cell i's new state from its two interfaces: A⁺ΔQ and F̃ of i−½ (`apdq_w`, `fw`) and A⁻ΔQ and
/// F̃ of i+½ (`amdq_e`, `fe`): Q − Δt/Δx (A⁺ΔQ_{i−½} + A⁻ΔQ_{i+½}) − Δt/Δx (F̃_{i+½} − F̃_{i−½}),
/// taken in three steps, [`update_west`], then [`step_by`] A⁻ΔQ_{i+½}, then F̃_{i+½}, so that a
/// sweep marching along a line keeps M numbers of a cell's part-done update rather than Q,
/// A⁺ΔQ, F̃ and A⁻ΔQ.
#[inline(always)]
pub fn update<T: Real, const M: usize>(
    dtdx: T,
    q: &[T; M],
    apdq_w: &[T; M],
    fw: &[T; M],
    amdq_e: &[T; M],
    fe: &[T; M],
) -> [T; M] {
    step_by(dtdx, &step_by(dtdx, &update_west(dtdx, q, apdq_w, fw), amdq_e), fe)
}

/// The west interface's part of [`update`]: Q − Δt/Δx (A⁺ΔQ_{i−½} − F̃_{i−½}).
#[inline(always)]
pub fn update_west<T: Real, const M: usize>(dtdx: T, q: &[T; M], apdq_w: &[T; M], fw: &[T; M]) -> [T; M] {
    let mut out = *q;
    for m in 0..M {
        out[m] = (-dtdx).mul_add(apdq_w[m] - fw[m], q[m]);
    }
    out
}

/// q − Δt/Δx·d, one fused multiply-add a component (a step of [`update`]).
#[inline(always)]
pub fn step_by<T: Real, const M: usize>(dtdx: T, q: &[T; M], d: &[T; M]) -> [T; M] {
    let mut out = *q;
    for m in 0..M {
        out[m] = (-dtdx).mul_add(d[m], q[m]);
    }
    out
}

/// The parameters every core kernel shares: the padded layout of every plane (two ghost
/// layers), 1/Δ along the sweep's axis, the fraction of the step's Δt the sweep takes (1, or
/// ½ for Strang's x-sweeps), the limiter's code, the rows a y-sweep thread marches, and the
/// sweep's place in the step (`stage`: it reads state buffer `order[stage]` and writes
/// `order[stage + 1]`, [`clock`]). Each state buffer holds M planes one after another, each
/// `layout.len()` values, and the buffers lie one after another; the auxiliary buffer holds
/// A planes. The layout is 2D by default, [`Sweep3`]'s 3D (where `rows` is what a y- or
/// z-sweep thread marches).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep<T, L = crate::grid::Layout2> {
    pub layout: L,
    pub inv_dx: T,
    pub dt_frac: T,
    pub limiter: u32,
    pub rows: u32,
    pub stage: u32,
}

/// The ghost-fill kernel's parameters: the layout, each side's condition (west, east, south,
/// north; `halo` codes), the component a wall negates across `dir` (`u32::MAX` for none), the
/// axis, and the stage whose input buffer (`order[stage]`) it fills.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GhostFill {
    pub layout: crate::grid::Layout2,
    pub bc: [u32; 4],
    pub normal: u32,
    pub dir: u32,
    pub stage: u32,
}

/// Cells a warp of the x-sweep updates: its 32 lanes solve 32 consecutive interfaces, and the
/// first and last two serve only the limiting and the update of their neighbours.
pub const X_CELLS_PER_WARP: u32 = 29;
