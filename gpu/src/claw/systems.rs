//! The systems of equations the wave-propagation framework runs: one line each, the only list
//! there is. Every other list is made from this one: the solvers' modules and names
//! (`riemann/mod.rs`), their core kernels' entry points and [`Kernels`](super::Kernels) /
//! [`Kernels3`](super::Kernels3) (`entries.rs`, `entries3.rs`), and the host's registry of what a
//! case file can name (`src/claw/equations.rs`).
//!
//! A line is `file => Type<T>, M, W, A;`: the solver's file in `riemann/` (without `.rs`), its
//! type — `Type<T>` when it carries constants of the precision T (they travel to the kernels in
//! their parameters), a plain `Type` for a unit struct without constants — and its numbers of
//! equations, waves and auxiliary fields. Solvers under `plane` get 2D kernels (an x- and a
//! y-sweep), those under `volume` 3D ones (x, y and z).

/// Hands the registry to the macro `$then` (a callback: `claw_systems!(my_macro)` expands to
/// `my_macro! { plane { … } volume { … } }`).
#[macro_export]
macro_rules! claw_systems {
    ($then:ident) => {
        $then! {
            plane {
                advection => Advection<T>, 1, 1, 0;
                acoustics_2d => Acoustics2d, 3, 2, 2;
                shallow_roe => ShallowRoe<T>, 3, 3, 0;
                shallow_hlle => ShallowHlle<T>, 3, 2, 0;
                burgers => Burgers, 1, 1, 0;
            }
            volume {
                acoustics_3d => Acoustics3d, 4, 2, 2;
            }
        }
    };
}
