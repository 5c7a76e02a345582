// Register caps: kernels whose registers, not their shared memory or threads, would leave
// fewer of their blocks on a multiprocessor than the rest of the kernel allows. The build
// script writes each cap as a `.maxnreg` directive on the entry point (the directive CUDA
// C++'s `__launch_bounds__`/`__maxnreg__` produce; Rust has no attribute for it), and ptxas
// then gives each thread at most that many registers. `build.rs` reads this file with
// `include!`, so it holds plain data and imports nothing.

/// (entry point, most registers a thread).
pub const REGISTER_CAPS: &[(&str, u32)] = &[
    // The ADI partition sweeps in f32 that read rows (the x-sweeps and the transposed design's
    // y-sweep): at 2048² a line of 4097 unknowns is a block of 256 threads with 52 KiB of
    // shared memory, room for four blocks a multiprocessor; three fit at 72 registers
    // (uncapped), four at 64 (ptxas spills 4 bytes). Measured on the H100 (`bench adi`, the
    // same run uncapped and capped): x-sweep 0.278 → 0.232 ms at 2048², 1.42 → 0.90 at 4096²,
    // 5.19 → 3.79 at 8192²; the transposed step 0.709 → 0.666, 3.32 → 2.46, 12.6 → 10.8 ms.
    // Not the columns y-sweep (two lines a block, 512 threads, 104 KiB): capped, it went from
    // 2.95 to 4.17 ms at 4096². In f64 the shared memory allows two blocks, which fit uncapped.
    ("adi_x_partition_f32", 64),
    ("adi_xt_partition_f32", 64),
    ("adi_yt_partition_f32", 64),
];
