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
    // The `clamp` streamed flux kernel (`kp::stream`), the default scheme's: in f64, 136
    // registers (150 with early exit) leave three blocks of 4 warps on a multiprocessor (12
    // warps), and the kernel is bound by latency at that occupancy; at 128 four fit (ptxas
    // spills 20 and 44 bytes). In f32 with early exit, 86 registers leave five blocks; at 64,
    // eight (spilling 44 bytes). Measured on an H200 (`bench kp`, tuning off, main and the
    // capped build in one call, docs/bench/session-2026-11-28q/c116): f64 flux at 4096²
    // 0.998 → 0.868 ms, early exit 1.068 → 0.917; RK2 step 2.951 → 2.687 ms (2048²: 0.916 →
    // 0.820); the 4096² flood to t = 4 s 25.29 → 23.27 s. f32 with early exit at 4096² 0.471
    // → 0.414 ms (2048²: 0.134 → 0.136), its step 1.671 → 1.554. Not f32 without early exit
    // (72 registers, seven blocks): capped at 64 it was no faster at 4096² and 3% slower at
    // 2048²; 96 in f64 and 56 in f32 spilled more and gained less.
    ("kp_flux_stream_clamp_f64", 128),
    ("kp_flux_stream_early_clamp_f64", 128),
    ("kp_flux_stream_early_clamp_f32", 64),
    // The other schemes' f64 streamed kernels, since their rows' corners are kept as pairs
    // (session s): `kp07` moved from 128 to 136 registers, four blocks to three, and its flux
    // kernel from 0.801 to 0.928 ms at 4096² (c123); at 128 it spills 8 bytes and takes 0.796.
    // `bollermann` (148 registers, three blocks; at 128 it spills 44 bytes) went from 0.902 to
    // 0.818 ms capped; with early exit (154 and 156 registers; 56 and 88 bytes spilled capped)
    // `kp07` from 0.962 to 0.864 ms and `bollermann` from 0.952 to 0.881 (c125).
    ("kp_flux_stream_kp07_f64", 128),
    ("kp_flux_stream_early_kp07_f64", 128),
    ("kp_flux_stream_bollermann_f64", 128),
    ("kp_flux_stream_early_bollermann_f64", 128),
    // Session r (docs/kp-wet-dry-kernels.md, "RK2's second stage in the streamed flux
    // kernel"): the code for the second stage moved the f32 kernel without it from 72 to 75
    // registers, one block of 4 warps fewer (seven to six) and 5% slower at 4096² (c119); 72 is
    // where it was, without spills. Since its rows' loads are kept as loaded (session s) it
    // needs 67, so the cap only guards against such a move; capped at 64 (eight blocks, no
    // spills) it was no faster (c124: 0.338 against 0.333 ms at 4096²).
    ("kp_flux_stream_clamp_f32", 72),
    // The streamed kernel with the second stage in it: uncapped 110 (f32) and 155 (f64)
    // registers, four and three blocks. Capped at 96 and 128 (f32 spills nothing, f64 136
    // bytes) it was faster than at 80 and 112 (c120: f32 4096² stage 0.701 against 0.706 ms,
    // f64 1.191 against 1.403) and than uncapped (c119, before its inputs were loaded ahead).
    ("kp_flux_stream_rk_clamp_f64", 128),
    ("kp_flux_stream_rk_clamp_f32", 96),
    // The other schemes' fused kernels (session s, c126 against c125, `bench kp` at 4096²):
    // in f32 (105 and 108 registers uncapped, four blocks; 96 spills 4 bytes, five blocks)
    // the `kp07` step went from 1.169 to 1.136 ms and `bollermann`'s from 1.236 to 1.189; in
    // f64 `bollermann` (176 registers, two blocks; 128 spills 216 bytes) from 2.672 to 2.503 ms,
    // still 3% slower than its two kernels apart (2.437). `kp07` in f64 (162 registers) is left
    // uncapped: at 128 (188 bytes spilled) its step went from 2.046 to 2.323 ms.
    ("kp_flux_stream_rk_kp07_f32", 96),
    ("kp_flux_stream_rk_bollermann_f64", 128),
    ("kp_flux_stream_rk_bollermann_f32", 96),
    // The f32 RK kernels: the loop over the drain list (the second stage's blocks the streamed
    // kernel leaves) moved them from 46–48 to 54 registers, four blocks of 256 threads instead
    // of five, and both stages ran 13–15% slower (c119). At 48 they spill 0–8 bytes and run at
    // 78% (stage 1) and 67–73% (stage 2) of copy at 4096² (c120, c121). In f64 the extra
    // registers leave the four blocks as they were.
    ("kp_rk_f32", 48),
    ("kp_rk_friction_field_f32", 48),
    ("kp_rk_c_f32", 48),
    ("kp_rk_c_friction_field_f32", 48),
];
