//! The tridiagonal entry points.
//!
//! - `tridiag_thomas`: one thread per system (the MIKE 21 thesis's S1), any layout through `Dims`
//!   (coalesced in the interleaved layout, where consecutive threads read consecutive words);
//!   rows are loaded in groups of `SWEEP_GROUP` (16) so that a thread keeps several loads in
//!   flight, each group's loads issued before the group before is eliminated
//!   (`sweep_forward_ahead` in f32, where two groups of equations fit the registers one f64
//!   group takes; `sweep_back_ahead` in both); the plain `sweep_forward` and `sweep_back` are
//!   shared with the twisted kernel, which loads `TWISTED_GROUP` (8) at once.
//! - `tridiag_thomas_contiguous`: one thread per system for the contiguous layout (and the
//!   rows of a padded field: any layout whose unknowns of a system are consecutive), coalesced
//!   by staging: each warp loads a chunk of `2^chunk` rows of its 32 systems cooperatively
//!   (consecutive lanes read consecutive words of one system, whole 32-byte sectors) into a
//!   padded shared tile, and each lane then eliminates its own system's rows from the tile.
//!   c' and d' go to the workspace in the interleaved layout (coalesced by construction); the
//!   back substitution stages x through the tile again to write it contiguously.
//! - `tridiag_cr`, `tridiag_pcr`, `tridiag_cr_pcr`, `tridiag_pcr_thomas`: one row of a block's
//!   threads per system with the system in shared memory (4n words: a, b, c, d; x replaces d),
//!   one system a block, or `blockDim.y` of them where consecutive systems are adjacent in
//!   memory (interleaved, columns), so that the block stages and writes consecutive systems of
//!   a row with consecutive threads (whole sectors, where one system a block reads a sector a
//!   value). CR as in
//!   Zhang–Cohen–Owens 2010 generalised to any n (reduce while 2s ≤ n; the equations left at
//!   stride s are the i with s | i+1); PCR with each thread holding up to `PCR_MAX_PER_THREAD`
//!   equations in registers between the read and write barriers of a step; CR-PCR reduces
//!   with CR down to `switch` equations and solves those with PCR; PCR-Thomas runs `switch`
//!   PCR steps, which split the system into 2^switch independent interleaved subsystems, then
//!   one thread per subsystem solves it by Thomas in place in shared memory.
//!
//! - `tridiag_thomas_twisted`: Thomas from both ends (a twisted factorisation), two threads
//!   per system: `threadIdx.y = 0` eliminates rows 0..n/2 downwards, `threadIdx.y = 1` rows
//!   n−1..n/2 upwards, they meet in the middle through shared memory (one barrier) and each
//!   back-substitutes its half. Twice the threads, so twice the loads in flight, of
//!   `tridiag_thomas` for the same traffic (9 words per unknown; c′ and d′ go to a workspace
//!   interleaved across systems, coalesced in either layout): the row-provider kernel
//!   `thomas_twisted_lines` over the arrays, as the ADI sweeps run it over their state.
//! - `tridiag_partition`: the partition method (see `mod.rs`), `blockDim.y` systems per
//!   block, `blockDim.x` threads per system, each owning a chunk of `2^chunk` rows. The
//!   systems are staged in shared memory with coalesced loads and normalised on the way in
//!   (3 values per row), each thread reduces its chunk, PCR solves the reduced system (two
//!   equations per thread), each thread fills in its chunk, and x leaves coalesced. Global
//!   traffic is the minimum 5 words per unknown; barriers: 3 + 2·⌈log2(2n/2^chunk)⌉.
//!
//! - `tridiag_lu`: LU with partial pivoting (LAPACK's gtsv, `mod.rs`), one thread per
//!   system, any layout; for systems that are not diagonally dominant. U's two
//!   superdiagonals go to the workspace (2 words per unknown), its right-hand side to x.
//!   Equations and rows of U are loaded 16 (f32) or 8 (f64) at a time, a group ahead of the
//!   steps (`lu_solve_grouped`).
//! - `tridiag_spike`: SPIKE with partial pivoting (`mod.rs`) for few long systems: one block
//!   per system, one thread per chunk (LU with partial pivoting on its interior for three
//!   right-hand sides), thread 0 solves the reduced system of the chunks' ends by LU in shared
//!   memory, every thread fills in its chunk. Workspace 5 words per unknown.
//! - `tridiag_spike_reduce`, `tridiag_spike_fill`: one level of the multi-block SPIKE for
//!   systems longer than `SPIKE_ONE_BLOCK_MAX` (`mod.rs`): many blocks per system (grid
//!   (blocks, batch)), one thread per chunk of about `SPIKE_ROWS` rows, each block's rows
//!   staged through shared memory. The reduction writes two reduced equations per chunk as
//!   the next level's system into `w` (its a, b, c, d); the fill reads that system's solution
//!   (its d, solved in place) and solves each chunk's interior again. The host chains the
//!   levels down to the one-block `tridiag_spike` and back up.
//! - `tridiag_dominance`: the check the automatic choice runs before it picks a solver: the
//!   first (system, row) that is not diagonally dominant, into `status`, one pass over a, b, c.
//!
//! Every kernel reads `a`, `b`, `c` through the read-only cache and `d` with plain loads, so
//! `x` may be `d` itself (in-place solve): a kernel reads all of its `d` values before it
//! writes the same positions of `x`. Breakdown is reported through `status` (see `mod.rs`).

use super::Dims;
#[cfg(target_arch = "nvptx64")]
use super::{
    cyclic::{cr, cr_pcr, pcr, pcr_thomas},
    lu::{dominance, lu},
    partition::partition,
    spike::spike,
    spike_levels::{spike_level_fill, spike_level_reduce},
    thomas::{thomas, thomas_contiguous, thomas_twisted},
};

kernels! {
    /// Solve a batch into `x` (which may be `d`), with a workspace `w` of the size the kernel
    /// states, reporting a breakdown in `status`.
    pub struct SolveWork<T> {
        p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, w: *mut T, status: *mut u64,
    }
    pub const THOMAS: SolveWork = tridiag_thomas(thomas::<T>);
    pub const THOMAS_CONTIGUOUS: SolveWork = tridiag_thomas_contiguous(thomas_contiguous::<T>);
    pub const THOMAS_TWISTED: SolveWork = tridiag_thomas_twisted(thomas_twisted::<T>);
    pub const LU: SolveWork = tridiag_lu(lu::<T>);
    pub const SPIKE: SolveWork = tridiag_spike(spike::<T>);
    pub const SPIKE_REDUCE: SolveWork = tridiag_spike_reduce(spike_level_reduce::<T>);
    pub const SPIKE_FILL: SolveWork = tridiag_spike_fill(spike_level_fill::<T>);

    /// Solve a batch into `x` (which may be `d`) with no workspace, reporting a breakdown in
    /// `status`.
    pub struct Solve<T> { p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64 }
    pub const PARTITION: Solve = tridiag_partition(partition::<T>);
    pub const CR: Solve = tridiag_cr(cr::<T>);
    pub const PCR: Solve = tridiag_pcr(pcr::<T>);
    pub const CR_PCR: Solve = tridiag_cr_pcr(cr_pcr::<T>);
    pub const PCR_THOMAS: Solve = tridiag_pcr_thomas(pcr_thomas::<T>);

    /// Report in `status` the first (system, row) of a batch that is not diagonally dominant.
    pub struct Dominance<T> { p: Dims, a: *const T, b: *const T, c: *const T, status: *mut u64 }
    pub const DOMINANCE: Dominance = tridiag_dominance(dominance::<T>);
}
