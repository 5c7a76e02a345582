//! Sediment transport: the CPU reference against exact solutions and invariants, the point
//! functions against straightforward formulas, every GPU variant against the CPU reference
//! (`reference_and_gpu.rs`), the bounded scheme (`bounded.rs`), f32's compensated mass balance
//! (`compensated.rs`), mixed precision (`mixed.rs`) and runs decomposed over ranks (`ranks.rs`).

mod bounded;
#[path = "../common/mod.rs"]
mod common;
mod compensated;
mod mixed;
mod ranks;
mod reference_and_gpu;
mod tuning;
mod view;
