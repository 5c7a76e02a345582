//! Raster inputs (`hydrokern::input`, docs/raster-input.md): the readers against files written
//! by independent writers (`readers.rs`).

mod readers;
