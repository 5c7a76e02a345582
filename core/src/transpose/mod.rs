//! Out-of-place transpose of a row-major `rows × cols` matrix into `cols × rows`: the CPU
//! reference ([`cpu`]) and three GPU variants ([`gpu`]), see `gpu/src/transpose/`.

#[cfg(feature = "bench")]
pub mod bench;
pub mod cpu;
pub mod gpu;

use crate::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Coalesced reads, strided writes.
    Naive,
    /// Shared tile with a padding column: both sides coalesced.
    Tile,
    /// Tile + diagonal block reordering (Ruetsch & Micikevicius 2009).
    Diagonal,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Naive, Variant::Tile, Variant::Diagonal];
    pub fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
            Variant::Tile => "tile",
            Variant::Diagonal => "diagonal",
        }
    }
    /// The kernel of this variant.
    pub fn entry(self) -> kernels::Entry<kernels::transpose::Transpose<()>> {
        match self {
            Variant::Naive => kernels::transpose::TRANSPOSE_NAIVE,
            Variant::Tile => kernels::transpose::TRANSPOSE_TILE,
            Variant::Diagonal => kernels::transpose::TRANSPOSE_DIAGONAL,
        }
    }
}

/// rows, cols ≥ 1 and rows·cols values in `input` and `out`.
pub fn check(rows: usize, cols: usize, input: usize, out: usize) -> Result<()> {
    check_pitched(rows, cols, (input, cols), (out, rows))?;
    let len = rows * cols;
    if input != len || out != len {
        return Err(Error::invalid(format!(
            "transpose of a {rows}×{cols} matrix: input has {input} values and output {out}, expected {len}"
        )));
    }
    Ok(())
}

/// rows, cols ≥ 1; `input` (its length, its pitch) holds rows rows of cols values `in_pitch`
/// apart and `out` cols rows of rows values `out_pitch` apart; pitches below 2^32.
pub fn check_pitched(
    rows: usize,
    cols: usize,
    (input, in_pitch): (usize, usize),
    (out, out_pitch): (usize, usize),
) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Err(Error::invalid(format!("transpose of a {rows}×{cols} matrix: both sizes must be at least 1")));
    }
    if rows > u32::MAX as usize || cols > u32::MAX as usize {
        return Err(Error::invalid(format!("transpose of a {rows}×{cols} matrix: sizes must be below 2^32")));
    }
    rows.checked_mul(cols).ok_or_else(|| Error::invalid("transpose: rows·cols overflows"))?;
    if in_pitch < cols || out_pitch < rows || in_pitch > u32::MAX as usize || out_pitch > u32::MAX as usize {
        return Err(Error::invalid(format!(
            "transpose of a {rows}×{cols} matrix: pitches {in_pitch} (input) and {out_pitch} (output) must be at least {cols} and {rows} and below 2^32"
        )));
    }
    let need =
        |lines: usize, pitch: usize, line: usize| (lines - 1).checked_mul(pitch).and_then(|v| v.checked_add(line));
    let (need_in, need_out) = (need(rows, in_pitch, cols), need(cols, out_pitch, rows));
    if need_in.is_none_or(|n| input < n) || need_out.is_none_or(|n| out < n) {
        return Err(Error::invalid(format!(
            "transpose of a {rows}×{cols} matrix at pitches {in_pitch} and {out_pitch}: input has {input} values and output {out}, too few"
        )));
    }
    Ok(())
}
