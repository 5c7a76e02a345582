//! The wave-propagation solver's launch shapes: their labels, and the spaces the tuner
//! searches and prunes.

use hydrokern::claw::d3::gpu::Shapes3;
use hydrokern::claw::equations::Equations;
use hydrokern::claw::gpu::Shapes;
use hydrokern::claw::shapes::{SweepShapes, label, parse, threads, x_rows};
use hydrokern::claw::tune::{axis_space, problem, prune_axis};
use hydrokern::runtime::{BlockLimits, Pruned};

fn h100(regs: u32) -> BlockLimits {
    BlockLimits {
        device_threads: 1024,
        kernel_threads: 1024,
        regs_per_thread: regs,
        regs_per_block: 65536,
        shared_optin: 227 * 1024,
        static_shared: 0,
    }
}

#[test]
fn the_spaces_hold_the_defaults_and_whole_warps() {
    let x = axis_space(0);
    assert_eq!(x.len(), 36);
    assert!(x.contains(&Shapes::default().axis(0)));
    assert!(x.iter().all(|b| threads(0, *b) <= 1024));
    let y = axis_space(1);
    assert_eq!(y.len(), 36);
    assert!(y.contains(&Shapes::default().axis(1)) && y.contains(&Shapes3::default().axis(2)));
    assert!(y.iter().all(|b| threads(1, *b).is_multiple_of(32) && threads(1, *b) <= 1024));
}

#[test]
fn pruning_drops_what_the_driver_or_the_registers_refuse() {
    // x: 8 × 4 warps is 1024 threads, which 72 registers a thread (2304 a warp, 28 warps in
    // 65536) cannot hold, whatever the rows a warp takes; 4 × 4 is 16 warps.
    let v = prune_axis(Shapes::default(), 0, &h100(72), 8);
    let verdict = |w: u32, by: u32, r: u32| v.iter().find(|(s, _)| s.x == (w, by, r)).unwrap().1.clone();
    assert!(matches!(verdict(8, 4, 1), Err(Pruned::Registers { .. })));
    assert!(matches!(verdict(8, 4, 32), Err(Pruned::Registers { .. })));
    assert_eq!(verdict(4, 4, 8), Ok(()));
    assert_eq!(verdict(2, 2, 8), Ok(()));
    assert_eq!(verdict(1, 4, 32), Ok(()));
    // The other axis keeps its block.
    assert!(v.iter().all(|(s, _)| s.y == Shapes::default().y));
    // At 32 registers every block of the space launches (none passes 1024 threads), and a
    // block the drivers refuse is refused here too.
    let ok = prune_axis(Shapes::default(), 0, &h100(32), 4).iter().filter(|(_, v)| v.is_ok()).count();
    assert_eq!(ok, 36);
    let wide = Shapes { x: (33, 1, 8), ..Shapes::default() };
    assert!(matches!(prune_axis(wide, 0, &h100(32), 4)[0].1, Err(Pruned::Invalid(_))));
    // Across: shared memory counts (32 values of the block reduction besides the static).
    let tight = BlockLimits { static_shared: 227 * 1024 - 200, ..h100(32) };
    let v3 = prune_axis(Shapes3::default(), 2, &tight, 8);
    assert!(v3.iter().all(|(_, v)| matches!(v, Err(Pruned::Shared { .. }))));
    assert!(v3.iter().all(|(s, _)| s.x == Shapes3::default().x && s.y == Shapes3::default().y));
}

#[test]
fn a_base_outside_the_space_is_searched_too() {
    let odd = Shapes { x: (3, 1, 8), ..Shapes::default() };
    let v = prune_axis(odd, 0, &h100(32), 4);
    assert_eq!(v[0].0, odd);
    assert_eq!(v.len(), 37);
}

#[test]
fn the_problem_is_admissible_for_every_system() {
    for &eq in Equations::ALL {
        let info = eq.info();
        let data = problem(&info, 24);
        assert_eq!(data.fields.len(), info.fields.len());
        assert_eq!(data.setup.nz, if info.dims == 3 { 24 } else { 1 });
        let dt = eq.first_dt::<f64>(&data).unwrap_or_else(|e| panic!("{}: {e}", info.name));
        assert!(dt.is_finite() && dt > 0.0, "{}: {dt}", info.name);
    }
}

#[test]
fn labels_read_back_in_2d_and_3d() {
    assert_eq!(label(Shapes::default()), "x:2x2x8 y:64x2x32");
    assert_eq!(label(Shapes3::default()), "x:2x2x8 y:64x2x32 z:64x2x32");
    for s in [Shapes::default(), Shapes { x: (8, 4, 3), y: (32, 1, 16) }] {
        assert_eq!(parse::<Shapes>(&label(s)).unwrap(), s);
    }
    let s3 = Shapes3 { x: (1, 8, 16), y: (128, 2, 64), z: (256, 4, 8) };
    assert_eq!(parse::<Shapes3>(&label(s3)).unwrap(), s3);
    // A 2D label is not a 3D one and the other way round; blocks the drivers refuse are
    // refused here too (48 threads, 2048 threads, a zero).
    assert!(parse::<Shapes3>("x:2x2x8 y:64x2x32").is_err());
    assert!(parse::<Shapes>("x:2x2x8 y:64x2x32 z:64x2x32").is_err());
    for bad in [
        "",
        "x:2x2x8",
        "y:64x2x32 x:2x2x8",
        "x:2x2x8 y:48x1x32",
        "x:8x8x1 y:64x2x32",
        "x:2x2x8 y:64x2x0",
        "x:2x2 y:64x2x32",
        "x:2x2x0 y:64x2x32",
        "x:axb y:64x2x32",
    ] {
        assert!(parse::<Shapes>(bad).is_err(), "{bad}");
    }
}

#[test]
fn axes_replace_one_block_at_a_time() {
    let s = Shapes3::default().with_axis(2, [32, 8, 16]);
    assert_eq!(s.z, (32, 8, 16));
    assert_eq!((s.x, s.y), (Shapes3::default().x, Shapes3::default().y));
    assert_eq!(threads(0, s.axis(0)), 128);
    assert_eq!(threads(2, s.axis(2)), 256);
}

#[test]
fn x_sweep_warps_take_fewer_rows_where_the_grid_has_few_blocks() {
    // 4096² at 2 × 2 warps: 71 × 2048 blocks of one row a warp, so the shape's 8 rows stand.
    assert_eq!(x_rows(8, 71 * 2048), 8);
    // 1000²: 18 × 500 blocks; 4 rows keep 2250 of them.
    assert_eq!(x_rows(8, 18 * 500), 4);
    // 500² and smaller: one row a warp, as many blocks as there are.
    assert_eq!(x_rows(8, 9 * 250), 1);
    assert_eq!(x_rows(8, 1), 1);
    assert_eq!(x_rows(1, u64::MAX), 1);
    assert_eq!(x_rows(32, u64::MAX), 32);
    // The built-in shapes follow: a run's grid picks its rows, a shape asked for stands.
    assert_eq!(Shapes::default_for(4096, 4096), Shapes::default());
    assert_eq!(Shapes::default_for(1000, 1000).x, (2, 2, 4));
    assert_eq!(Shapes::default_for(256, 256).x, (2, 2, 1));
    assert_eq!(Shapes::default_for(1000, 1000).y, Shapes::default().y);
    assert_eq!(Shapes3::default_for(256, 256, 256), Shapes3::default());
    assert_eq!(Shapes3::default_for(96, 96, 96).x, (2, 2, 4));
    // A tuned record is fitted the same way: its own blocks decide its rows.
    let tuned = Shapes { x: (4, 1, 32), y: (128, 1, 16) };
    assert_eq!(tuned.for_grid(4096, 4096), tuned);
    // 1000² at 4 × 1 warps: 9 × 1000 blocks, 4 rows.
    assert_eq!(tuned.for_grid(1000, 1000), Shapes { x: (4, 1, 4), ..tuned });
    // 96³ at 1 × 4 warps: 4 × 24 × 96 blocks, 4 rows.
    let tuned3 = Shapes3 { x: (1, 4, 16), ..Shapes3::default() };
    assert_eq!(tuned3.for_grid(96, 96, 96).x, (1, 4, 4));
}
