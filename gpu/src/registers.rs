// Register caps: kernels whose registers, not their shared memory or threads, would leave
// fewer of their blocks on a multiprocessor than the rest of the kernel allows. The build
// script writes each cap as a `.maxnreg` directive on the entry point (the directive CUDA
// C++'s `__launch_bounds__`/`__maxnreg__` produce; Rust has no attribute for it), and ptxas
// then gives each thread at most that many registers. `build.rs` reads this file with
// `include!`, so it holds plain data and imports nothing.

/// (entry point, most registers a thread).
pub const REGISTER_CAPS: &[(&str, u32)] = &[
    // The ADI partition sweeps in f32 that read rows (the x-sweeps and the transposed design's
    // y-sweep), 256 threads and 52 KiB of shared memory a block at 2048²: 64 fits the four blocks
    // the shared memory allows, uncapped (72) three; capped, 17–37% faster on an H100 (2048² to
    // 8192²). Not the columns y-sweep (512 threads, 104 KiB a block), which is slower capped; in
    // f64 the shared memory allows two blocks, which fit uncapped.
    ("adi_x_partition_f32", 64),
    ("adi_yt_partition_f32", 64),
    // The streamed flux kernels (`kp::stream`; docs/kp-wet-dry-kernels.md, "Register caps"), bound
    // by latency at the occupancy their registers leave:
    // 128: four blocks of 4 warps fit a multiprocessor; uncapped (136–156 registers) three.
    ("kp_flux_stream_clamp_f64", 128),
    ("kp_flux_stream_early_clamp_f64", 128),
    // 64: eight blocks of 4 warps fit; uncapped (86 registers) five.
    ("kp_flux_stream_early_clamp_f32", 64),
    // 128: four blocks fit; uncapped (136–156 registers) three. Faster capped though they spill.
    ("kp_flux_stream_kp07_f64", 128),
    ("kp_flux_stream_early_kp07_f64", 128),
    ("kp_flux_stream_bollermann_f64", 128),
    ("kp_flux_stream_early_bollermann_f64", 128),
    // 72: a guard that keeps seven blocks (it needs 67, and 75 would leave six); at 64 (eight
    // blocks) it is no faster, bound by instruction issue.
    ("kp_flux_stream_clamp_f32", 72),
    // The fused kernels with RK2's second stage. f32: 96 against 96–107 registers uncapped,
    // faster capped than uncapped and than at 80. f64: 168, three blocks of 4 warps, where `clamp`
    // and `bollermann` do not spill (156 and 178 registers uncapped); at 128 (four blocks) they
    // spill 292 and 466 bytes (stores and loads) and the 4096² RK2 step takes 2.1% and 15% longer
    // (H100). `kp07` in f64 stays uncapped (168): at 128 it spills 188 bytes and its step is 14%
    // slower.
    ("kp_flux_stream_rk_clamp_f64", 168),
    ("kp_flux_stream_rk_clamp_f32", 96),
    ("kp_flux_stream_rk_kp07_f32", 96),
    ("kp_flux_stream_rk_bollermann_f64", 168),
    ("kp_flux_stream_rk_bollermann_f32", 96),
    // The same kernels' `_masked` entries (grids with inactive cells): the plain entries' caps,
    // for the same body plus the activity map's loads at the same occupancy. Measured on its own,
    // `clamp`'s fused f64 entry: at 128 it spills 632 bytes and the 4096² step with the cells
    // outside the inscribed disc inactive takes 3.4% longer than at 168 (H100). `bollermann`'s,
    // not measured, keeps 128.
    ("kp_flux_stream_masked_clamp_f64", 128),
    ("kp_flux_stream_early_masked_clamp_f64", 128),
    ("kp_flux_stream_early_masked_clamp_f32", 64),
    ("kp_flux_stream_masked_kp07_f64", 128),
    ("kp_flux_stream_early_masked_kp07_f64", 128),
    ("kp_flux_stream_masked_bollermann_f64", 128),
    ("kp_flux_stream_early_masked_bollermann_f64", 128),
    ("kp_flux_stream_masked_clamp_f32", 72),
    ("kp_flux_stream_rk_masked_clamp_f64", 168),
    ("kp_flux_stream_rk_masked_clamp_f32", 96),
    ("kp_flux_stream_rk_masked_kp07_f32", 96),
    ("kp_flux_stream_rk_masked_bollermann_f64", 128),
    ("kp_flux_stream_rk_masked_bollermann_f32", 96),
    // The fused kernels' `_rain` and `_soil` entries (uniform rain, and rain on a uniform
    // Green–Ampt soil, as the second stage writes): the plain entries' caps, but for the `_soil`
    // entries in f64 below. Measured on their own, `clamp`'s `_rain` entries in f64: at 128 the
    // plain one spills 304 bytes and the 4096² step with uniform rain takes 2.4% longer than at
    // 168, the masked one 586 bytes and the step with uniform rain on the cells inside the
    // inscribed disc 2.9% longer (H100); the other `_rain` entries in f64, not measured, keep 128.
    ("kp_flux_stream_rk_rain_clamp_f64", 168),
    ("kp_flux_stream_rk_rain_clamp_f32", 96),
    ("kp_flux_stream_rk_rain_kp07_f32", 96),
    ("kp_flux_stream_rk_rain_bollermann_f64", 128),
    ("kp_flux_stream_rk_rain_bollermann_f32", 96),
    ("kp_flux_stream_rk_rain_masked_clamp_f64", 168),
    ("kp_flux_stream_rk_rain_masked_clamp_f32", 96),
    ("kp_flux_stream_rk_rain_masked_kp07_f32", 96),
    ("kp_flux_stream_rk_rain_masked_bollermann_f64", 128),
    ("kp_flux_stream_rk_rain_masked_bollermann_f32", 96),
    ("kp_flux_stream_rk_soil_clamp_f32", 96),
    ("kp_flux_stream_rk_soil_kp07_f32", 96),
    ("kp_flux_stream_rk_soil_bollermann_f32", 96),
    ("kp_flux_stream_rk_soil_masked_clamp_f32", 96),
    ("kp_flux_stream_rk_soil_masked_kp07_f32", 96),
    ("kp_flux_stream_rk_soil_masked_bollermann_f32", 96),
    // The `_soil` entries in f64: 168, three blocks of 4 warps, where `clamp`'s does not spill
    // (172–176 registers uncapped: two blocks). At 128 (four blocks) they spill 354 bytes, and
    // the 4096² step with rain on a soil takes 6–7% longer than at 168 (H100).
    ("kp_flux_stream_rk_soil_clamp_f64", 168),
    ("kp_flux_stream_rk_soil_bollermann_f64", 168),
    ("kp_flux_stream_rk_soil_masked_clamp_f64", 168),
    ("kp_flux_stream_rk_soil_masked_bollermann_f64", 168),
    // 48: five blocks of 256 threads fit; the loop over the drain list takes them to 54 registers,
    // four blocks and 13–15% slower. In f64 the extra registers leave the four blocks they have.
    ("kp_rk_f32", 48),
    ("kp_rk_friction_field_f32", 48),
    ("kp_rk_c_f32", 48),
    ("kp_rk_c_friction_field_f32", 48),
    ("kp_rk_rain_f32", 48),
    ("kp_rk_rain_friction_field_f32", 48),
    ("kp_rk_c_rain_f32", 48),
    ("kp_rk_c_rain_friction_field_f32", 48),
    ("kp_rk_soil_f32", 48),
    ("kp_rk_soil_friction_field_f32", 48),
    ("kp_rk_c_soil_f32", 48),
    ("kp_rk_c_soil_friction_field_f32", 48),
    // The f64 x-sweeps of wave propagation, whose loop over a warp's rows keeps more registers
    // live than one more block of 4 warps (the default 2 × 2) leaves room for (uncapped: Roe 96,
    // HLLE 98, acoustics 74, and 82 in 3D). Capped, their 8192² (3D: 256³) x-sweeps take 4–15%
    // less time on an H200; Roe at 72 (spilling 64 bytes) 2% less than at 80, the others at
    // 72 or 64 0–2% more than at these caps.
    ("claw_shallow_roe_x_f64", 72),
    ("claw_shallow_hlle_x_f64", 80),
    ("claw_acoustics_2d_x_f64", 72),
    ("claw3_acoustics_3d_x_f64", 80),
    // The 2D y-sweeps, whose threads march a column each, where a cap gives one more block of
    // 4 warps a multiprocessor: Roe and HLLE in f64 at 128 (uncapped 137 and 130, three blocks;
    // capped four, spilling 16 and 8 bytes) take 15% and 18% less time at 4096² on an H200,
    // acoustics in f64 at 96 (101) 6%, HLLE in f32 at 64 (69) 3%, Roe in f32 at 72 (79: seven
    // blocks instead of six, spilling 12 bytes) 4–5% (at 64, spilling 32 bytes, 2% more). Not
    // the 3D y- and z-sweeps: at 64 in f32 3% faster at 256³ but 3% slower at 96³ and 512³, at
    // 96 in f64 0–3% slower.
    ("claw_shallow_roe_y_f64", 128),
    ("claw_shallow_hlle_y_f64", 128),
    ("claw_acoustics_2d_y_f64", 96),
    ("claw_shallow_hlle_y_f32", 64),
    ("claw_shallow_roe_y_f32", 72),
];
