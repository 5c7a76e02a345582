//! The wave-propagation solver in three dimensions: the CPU reference ([`cpu`]), the GPU driver
//! ([`gpu`]) and its benchmark rows ([`bench`](mod@bench)); what does not depend on the dimension (the
//! equations, limiters, time-step control, launch shapes) is the 2D solver's, in `claw`.

#[cfg(feature = "bench")]
pub mod bench;
pub mod cpu;
pub mod gpu;
