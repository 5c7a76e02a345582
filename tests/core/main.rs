//! The core: the building blocks' kernels against their CPU references (copy, fill, reductions,
//! transposes, the products' gauges and maxima), grids and padded fields, initial fields' profiles, the raster readers,
//! the tuning engine and its cache, the embedded PTX (entry points, register caps, ptxas), and
//! the layers of the library (no module cycles, no solver importing another).

#[path = "../common/mod.rs"]
mod common;
mod forcing;
mod foundation;
mod handout;
mod initial;
mod layers;
mod products;
mod ptxas;
mod raster;
mod registry;
mod skeleton;
mod transpose;
mod tune;
mod view;
