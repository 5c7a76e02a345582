//! Raster inputs (`hydrokern::input`, docs/raster-input.md): the readers against files written
//! by independent writers (`readers.rs`), and shallow-water cases that read rasters, with every
//! refused case (`case.rs`).

mod case;
mod readers;
