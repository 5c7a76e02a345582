//! Shallow water decomposed over ranks (threads of this process, `ranks::threads`): for any
//! number of slabs, of uneven rows and of two rows, every state and checkpoint is bit for bit
//! the whole grid's, and a checkpoint restarts on another number of ranks.

use super::forcing::forced;
use super::gpu::random_state;
use super::inactive::scatter;
use super::products;
use crate::common::cases;
use crate::common::ranks::{
    OwnGpus, PartsDir, checkpoint_parts, joined_parts, on_ranks, same_checkpoint, same_products, same_state,
};
use hydrokern::GpuReal;
use hydrokern::accumulation::Accumulation;
use hydrokern::grid::Layout2;
use hydrokern::kp::gpu::{FluxVariant, Launch};
use hydrokern::kp::part::SlabPart;
use hydrokern::kp::{Boundary, EarlyExit, KpModel, Problem, Scheme, Start, WetDry};
use hydrokern::model::{Checkpoint, Model, Products, State, Until};
use hydrokern::products::{Joined, Sites, Spec, slab_spec};
use hydrokern::ranks::parts;
use hydrokern::ranks::{Comm, Halo, Slabs, Solo};
use hydrokern::runtime::Backend;
use proptest::prelude::*;
use std::rc::Rc;

fn cpu() -> Backend {
    Backend::Cpu { why: None }
}

/// The block a slab's part is made for, which no run of these tests launches.
const OTHER_BLOCK: (u32, u32) = (48, 2);

/// The products a run keeps and where they sample, if any.
type Kept<'a> = Option<(&'a Spec, &'a Sites)>;

/// The model of `comm`'s slab of `p` cut into `slabs`, keeping its share of `kept`; `mixed`:
/// in the mixed precision (`T` f64). Built as a rank of a run builds it: from its part of `p`,
/// made for another block than the run's and encoded and decoded as it travels from rank 0
/// (`SlabPart`).
fn slab<'p, T: GpuReal>(
    p: &'p Problem,
    slabs: Slabs,
    comm: Rc<dyn Comm>,
    (run, mixed): (&Run, bool),
    kept: Kept,
) -> KpModel<'p, T> {
    let s = slabs.slab(comm.rank());
    let layout = Layout2::new(p.nx as u32, s.rows.len() as u32, 2);
    let rows = s.rows.clone();
    p.validate().unwrap();
    let m = match mixed {
        true => {
            let part =
                SlabPart::decode(&SlabPart::mixed_of(p, &p.whole_grid(), OTHER_BLOCK, &s).unwrap().encode()).unwrap();
            KpModel::mixed_of_part(&run.0, part, Halo::new(comm, s, layout), run.1, run.2).unwrap()
        }
        false => {
            let part = SlabPart::<T>::decode(&SlabPart::<T>::of(p, &p.whole_grid(), OTHER_BLOCK, &s).unwrap().encode())
                .unwrap();
            KpModel::of_part(&run.0, part, Halo::new(comm, s, layout), run.1, run.2).unwrap()
        }
    };
    match kept {
        Some((spec, sites)) => {
            let (spec, sites) = slab_spec(spec, sites, p.nx, rows);
            m.with_products(&spec, sites).unwrap()
        }
        None => m,
    }
}

/// [`check`] in f32 (`single`) or f64.
fn check_in(single: bool, p: &Problem, n: usize, m: usize, run: &Run, kept: Kept) -> Result<(), TestCaseError> {
    match single {
        true => check::<f32>(p, n, m, (run, false), kept),
        false => check::<f64>(p, n, m, (run, false), kept),
    }
}

/// What a test takes of a model after stepping: its state, checkpoint and products.
type Taken<T> = (State<T>, Checkpoint<T>, Option<Products<T>>);

/// Where a run steps: the backend, the kernels' launch and early exit (whose bookkeeping the
/// checkpoints carry; its values are the full kernels', `gpu::early_exit_matches_full_...`).
type Run = (Backend, Launch, EarlyExit);

/// 5 steps on the whole grid and on `n` ranks, then 4 more on `m` ranks from the whole grid's
/// checkpoint (`m` even) or from the `n` ranks' checkpoint in parts (`m` odd: each rank reads
/// its own part where `m` is `n`, else the parts join): the states, checkpoints (the parts
/// joined too) and products bit for bit the whole grid's. `mixed`: in the mixed precision.
fn check<T: GpuReal>(
    p: &Problem,
    n: usize,
    m: usize,
    (run, mixed): (&Run, bool),
    kept: Kept,
) -> Result<(), TestCaseError> {
    let until = |steps| Until { t: f64::INFINITY, steps, deadline: None };
    let w = match mixed {
        true => KpModel::<T>::mixed(&run.0, p, run.1, run.2).unwrap(),
        false => KpModel::<T>::new(&run.0, p, run.1, run.2).unwrap(),
    };
    let mut w = match kept {
        Some((spec, sites)) => w.with_products(spec, sites.clone()).unwrap(),
        None => w,
    };
    w.advance(until(5)).unwrap();
    let (state, ckpt, products) = (w.state().unwrap(), w.checkpoint().unwrap(), w.products(true).unwrap());
    // What snapshots and progress lines take (on the GPU: device copies downloaded beside the
    // model, widened on the reader's side in the mixed precision) is the state, bit for bit.
    same_state(&w.state_later().unwrap().wait().unwrap(), &state)?;
    let periodic = p.boundary[2] == hydrokern::kp::Boundary::Periodic;
    let cut = |ranks| Slabs::new(p.ny, ranks, 2, periodic).unwrap();
    let joined = |ranks| {
        let rows: Vec<_> = cut(ranks).all().into_iter().map(|s| s.rows).collect();
        kept.map(|(spec, sites)| Joined::new(spec, sites, p.nx, &rows))
    };
    let on = |ranks, lead: &mut dyn FnMut(&mut dyn Model<T>) -> Taken<T>| {
        on_ranks(cut(ranks), p.layout(), joined(ranks), |comm| slab::<T>(p, cut(ranks), comm, (run, mixed), kept), lead)
    };
    let dir = PartsDir::new();
    let mut manifest = None;
    let (s, c, k) = on(n, &mut |d| {
        d.advance(until(5)).unwrap();
        let taken = (d.state().unwrap(), d.checkpoint().unwrap(), d.products(true).unwrap());
        manifest = Some(checkpoint_parts(d, dir.path()));
        taken
    });
    let manifest = manifest.unwrap();
    same_state(&s, &state)?;
    same_checkpoint_of(p, &c, &ckpt)?;
    same_checkpoint_of(p, &joined_parts(&manifest, dir.path(), &w), &ckpt)?;
    prop_assert_eq!(k.is_some(), products.is_some());
    if let (Some(a), Some(b)) = (&k, &products) {
        same_products(a, b)?;
    }
    w.advance(until(9)).unwrap();
    let (later, later_ckpt, later_products) = (w.state().unwrap(), w.checkpoint().unwrap(), w.products(true).unwrap());
    let (s, c, k) = on(m, &mut |d| {
        match m % 2 {
            0 => d.restore(&ckpt).unwrap(),
            _ => parts::restore(d, &manifest, dir.path()).unwrap(),
        }
        d.advance(until(9)).unwrap();
        (d.state().unwrap(), d.checkpoint().unwrap(), d.products(true).unwrap())
    });
    same_state(&s, &later)?;
    same_checkpoint_of(p, &c, &later_ckpt)?;
    if let (Some(a), Some(b)) = (&k, &later_products) {
        same_products(a, b)?;
    }
    Ok(())
}

/// The decomposed run's checkpoint `c` against the whole grid's `w`: the same, bit for bit,
/// except that with rain and soils its wet map may flag fewer blocks (it is made of the state,
/// where a one-rank run's keeps a block the soil dried after the stage flagged it).
fn same_checkpoint_of<T: GpuReal>(p: &Problem, c: &Checkpoint<T>, w: &Checkpoint<T>) -> Result<(), TestCaseError> {
    if p.forcing.is_empty() {
        return same_checkpoint(c, w);
    }
    let unflagged = |c: &Checkpoint<T>| Checkpoint { flags: Vec::new(), ..c.clone() };
    same_checkpoint(&unflagged(c), &unflagged(w))?;
    prop_assert_eq!(c.flags.len(), w.flags.len());
    for ((n, f), (m, g)) in c.flags.iter().zip(&w.flags) {
        prop_assert_eq!(n, m);
        prop_assert!(f.len() == g.len() && f.iter().zip(g).all(|(a, b)| a <= b), "wet map {:?} not within {:?}", f, g);
    }
    Ok(())
}

/// A random state (`gpu::random_state`: wet, dry and shoreline cells, random sides and
/// friction) of an unsplit scheme and `wet_dry`, with inactive cells where `holes`; with
/// `forcing`, rain, soils and inflows (`forcing::forced`), and on every other seed a level held
/// on a reach of a side and an outlet on another: the water account measures the open sides,
/// levels and outlets face by face, its faces cut with the slabs.
fn problem(nx: usize, ny: usize, seed: u64, kind: u8, wet_dry: WetDry, f: (Accumulation, bool, bool)) -> Problem {
    let mut p = random_state(nx, ny, seed, kind);
    p.scheme = [Scheme::Euler, Scheme::Rk2, Scheme::Srk2][(seed % 3) as usize];
    (p.wet_dry, p.accumulation) = (wet_dry, f.0);
    if f.1 {
        scatter(&mut p, seed, 0.15);
    }
    if f.2 {
        forced(&mut p, seed, 2.0, seed.is_multiple_of(2));
        p.dt_max = 0.05;
    }
    p
}

/// Ranks that cut `ny` rows into slabs of two rows at least.
fn fit(ranks: usize, ny: usize) -> usize {
    ranks.min(ny / 2).max(1)
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    /// Every unsplit scheme, wet–dry scheme and precision (f32 plain and compensated), any
    /// sides (periodic across the cut too), friction, inactive cells, rain, soils and inflows,
    /// uneven slabs and slabs of two rows.
    #[test]
    fn decomposed_shallow_water_is_bit_identical(
        nx in 1usize..14,
        ny in 2usize..18,
        n in 1usize..=4,
        m in 1usize..=4,
        seed: u64,
        kind in 0u8..2,
        wet_dry in prop::sample::select(WetDry::ALL.to_vec()),
        accumulation in prop::sample::select(Accumulation::ALL.to_vec()),
        holes: bool,
        forcing: bool,
        single: bool,
    ) {
        let (n, m) = (fit(n, ny), fit(m, ny));
        let p = problem(nx, ny, seed, kind, wet_dry, (accumulation, holes, forcing));
        let run = (cpu(), Launch::default(), EarlyExit::Off);
        check_in(single, &p, n, m, &run, None)?;
    }

    /// The mixed precision (w in f64, the rest in f32) on the CPU and, where this run has a
    /// GPU, on the GPU (the ranks sharing it, early exit on or off): RK2 (on the GPU its second
    /// stage fused, as it runs by default) and Euler, every wet–dry scheme, any sides,
    /// friction, inactive cells, uneven slabs and slabs of two rows, started from the whole
    /// grid's mixed start.
    #[test]
    fn decomposed_mixed_shallow_water_is_bit_identical(
        nx in 1usize..40,
        ny in 2usize..30,
        n in 1usize..=4,
        m in 1usize..=4,
        seed: u64,
        kind in 0u8..2,
        wet_dry in prop::sample::select(WetDry::ALL.to_vec()),
        holes: bool,
        euler: bool,
        on_gpu in prop::bool::weighted(crate::common::gpu_share()),
        early: bool,
    ) {
        let (n, m) = (fit(n, ny), fit(m, ny));
        let mut p = problem(nx, ny, seed, kind, wet_dry, (Accumulation::ALL[0], holes, false));
        p.scheme = if euler { Scheme::Euler } else { Scheme::Rk2 };
        let backend = if on_gpu { Backend::Gpu(crate::common::gpu()) } else { cpu() };
        let early = if early && on_gpu { EarlyExit::On } else { EarlyExit::Off };
        let run = (backend, Launch::default(), early);
        check::<f64>(&p, n, m, (&run, true), None)?;
    }
}

/// `got` and `want` hold the same bits: constants, padded fields, activity, plain strips,
/// perimeter faces, friction and segments.
fn same_start<T: GpuReal>(got: &Start<T>, want: &Start<T>) -> Result<(), TestCaseError> {
    prop_assert_eq!(format!("{:?}", got.k), format!("{:?}", want.k));
    let bits = |f: &hydrokern::field::Field2<T>| f.stored().iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>();
    let fields = |s: &Start<T>| {
        let p = &s.padded;
        [&p.bed, &p.cell_bed, &p.q[0], &p.q[1], &p.q[2]].map(|f| (f.layout(), bits(f)))
    };
    prop_assert!(fields(got) == fields(want), "padded fields differ");
    prop_assert_eq!(&got.active, &want.active);
    prop_assert_eq!(&got.plain_strips, &want.plain_strips);
    prop_assert_eq!(&got.out_only, &want.out_only);
    prop_assert_eq!(
        got.friction.as_ref().map(|f| (f.layout(), bits(f))),
        want.friction.as_ref().map(|f| (f.layout(), bits(f)))
    );
    prop_assert_eq!(&got.segments, &want.segments);
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(64), file!()))]
    /// A slab's start made from the rows around it (`Problem::slab_start`) is the whole
    /// grid's start cut to the slab, bit for bit, for every slab of 1 to 6, in f32 and f64:
    /// any sides (periodic, normal-depth), friction, inactive cells, held levels and outlets,
    /// any block. (The mixed precision's start is checked through its runs above.)
    #[test]
    fn a_slab_start_made_from_its_rows_is_the_whole_grids_cut(
        nx in 1usize..12,
        ny in 2usize..40,
        n in 1usize..=6,
        seed: u64,
        kind in 0u8..2,
        wet_dry in prop::sample::select(WetDry::ALL.to_vec()),
        holes: bool,
        forcing: bool,
        block in (1u32..9, 1u32..9),
    ) {
        let p = problem(nx, ny, seed, kind, wet_dry, (Accumulation::ALL[0], holes, forcing));
        let slabs = Slabs::new(ny, fit(n, ny), 2, p.boundary[2] == Boundary::Periodic).unwrap();
        let (whole32, whole64) = (p.start::<f32>(block).unwrap(), p.start::<f64>(block).unwrap());
        for slab in slabs.all() {
            same_start(&p.slab_start::<f32>(block, &slab).unwrap(), &whole32.slab(&slab).unwrap())?;
            same_start(&p.slab_start::<f64>(block, &slab).unwrap(), &whole64.slab(&slab).unwrap())?;
        }
    }
}

/// Across a periodic y axis the faces closed for good at the ends of an outlet on a west or
/// east wall wrap around it: an outlet that starts at the first row closes a face in the last,
/// and one that ends at the last row a face in the first. The starts of the slabs that keep
/// those rows are the whole grid's cut all the same.
#[test]
fn slab_starts_keep_the_outlet_ends_that_wrap_a_periodic_axis() {
    use hydrokern::forcing::Outlet;
    for (side, cells) in [(0, 0..3), (1, 17..20), (0, 5..20)] {
        let mut p = random_state(6, 20, 7, 0);
        p.boundary = [Boundary::Wall, Boundary::Wall, Boundary::Periodic, Boundary::Periodic];
        p.forcing.outlets.push(Outlet { name: "outlet".into(), side, cells, normal_depth: true });
        assert!(!p.closed_faces().is_empty());
        for ranks in [5, 9] {
            for slab in Slabs::new(20, ranks, 2, true).unwrap().all() {
                let want = p.start::<f64>((4, 2)).unwrap().slab(&slab).unwrap();
                same_start(&p.slab_start::<f64>((4, 2), &slab).unwrap(), &want).unwrap();
            }
        }
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(16), file!()))]
    /// On the GPU, the ranks sharing it: both flux kernels (the streamed one with its second
    /// stage fused, as RK2 runs it by default), every wet–dry scheme, f32 (plain and
    /// compensated) and f64, against the whole grid on the GPU.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn decomposed_shallow_water_on_the_gpu_is_bit_identical(
        nx in 1usize..70,
        ny in 2usize..40,
        n in 1usize..=4,
        m in 1usize..=4,
        seed: u64,
        kind in 0u8..2,
        wet_dry in prop::sample::select(WetDry::ALL.to_vec()),
        accumulation in prop::sample::select(Accumulation::ALL.to_vec()),
        holes: bool,
        forcing: bool,
        tile: bool,
        single: bool,
        early: bool,
    ) {
        let (n, m) = (fit(n, ny), fit(m, ny));
        let p = problem(nx, ny, seed, kind, wet_dry, (accumulation, holes, forcing));
        let flux = if tile { FluxVariant::Tile } else { FluxVariant::STREAM };
        let early = if early { EarlyExit::On } else { EarlyExit::Off };
        let run = (Backend::Gpu(crate::common::gpu()), Launch { flux, ..Launch::default() }, early);
        check_in(single, &p, n, m, &run, None)?;
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(12), file!()))]
    /// Gauges, discharge lines (across the cuts, along them, folded back) and the maximum maps
    /// of water spreading over a dry bed, sampled every `every` steps: on 1 to 4 ranks, and
    /// restarted on another number, the records and maps are bit for bit the whole grid's,
    /// in f32, f64 and mixed, on the CPU and (`--include-ignored`) on the GPU.
    #[test]
    fn decomposed_products_are_bit_identical(
        n in 1usize..=4,
        m in 1usize..=4,
        every in 1u64..4,
        wet_dry in prop::sample::select(WetDry::ALL.to_vec()),
        precision in 0u8..3,
        on_gpu in prop::bool::weighted(crate::common::gpu_share()),
        early: bool,
    ) {
        let mut p = products::problem();
        p.wet_dry = wet_dry;
        let spec = Spec { every, ..products::spec() };
        let sites = products::sites(&spec, &products::grid_of(&p));
        let backend = if on_gpu { Backend::Gpu(crate::common::gpu()) } else { cpu() };
        let early = if early && on_gpu { EarlyExit::On } else { EarlyExit::Off };
        let run = (backend, Launch::default(), early);
        let kept = Some((&spec, &sites));
        match precision {
            0 => check::<f32>(&p, n, m, (&run, false), kept)?,
            1 => check::<f64>(&p, n, m, (&run, false), kept)?,
            _ => check::<f64>(&p, n, m, (&run, true), kept)?,
        }
    }
}

/// Each rank on its own GPU where the machine has several (rank r on GPU r mod their count, as
/// `Backend::select_for` gives a run's ranks), against the whole grid on GPU 0: a dam break on
/// 2 to 4 ranks, bit for bit, in `bollermann` and in `clamp` (whose draining factors and
/// velocities cross the cuts too), on walls and across a periodic axis, in f32 and f64, early
/// exit on and `auto` (the slabs' checkpoints joining); and a flood study's forcing: rain, a
/// level held on a reach of the east side that the cuts divide, an outlet in the north side
/// and an open west side, the water account's flows bit for bit too. The ghost rows and Δt
/// through the host and, where the ranks are on GPUs of their own, GPU to GPU through NCCL. `HYDROKERN_REQUIRE_NCCL=1` makes a rank that cannot set NCCL up a failure
/// (a machine of several GPUs with NCCL installed).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn ranks_on_their_own_gpus_are_bit_identical() {
    for (wet_dry, periodic, forcing) in [
        (WetDry::Bollermann, false, false),
        (WetDry::Clamp, false, false),
        (WetDry::Bollermann, true, false),
        (WetDry::Clamp, false, true),
    ] {
        let mut p = hydrokern::kp::setup::column(96, 77, 40.0, 32.0, 6.0, 2.5, 0.5);
        p.wet_dry = wet_dry;
        if periodic {
            p.boundary[2] = Boundary::Periodic;
            p.boundary[3] = Boundary::Periodic;
        }
        if forcing {
            use hydrokern::forcing::{LEVEL, LevelSide, Outlet, RAIN, Series};
            let rain = [(0.0, 2e-3), (10.0, 2e-3)];
            p.forcing.rain = Some(Series::from_points("rain", &rain, &RAIN, "s", "m/s").unwrap());
            let level = Series::from_points("level", &[(0.0, 1.0), (10.0, 3.0)], &LEVEL, "s", "m").unwrap();
            p.forcing.levels.push(LevelSide { name: "sea".into(), side: 1, cells: 10..60, series: level });
            p.forcing.outlets.push(Outlet { name: "outlet".into(), side: 3, cells: 20..50, normal_depth: false });
            p.boundary[0] = Boundary::Outflow;
        }
        on_own_gpus::<f32>(&p);
        on_own_gpus::<f64>(&p);
    }
}

/// The steps the GPU rank tests take, and the whole grid's state after them on the GPU.
const GPU_STEPS: Until = Until { t: f64::INFINITY, steps: 12, deadline: None };

fn whole_on_the_gpu<T: GpuReal>(p: &Problem) -> State<T> {
    let mut w = KpModel::<T>::new(&Backend::Gpu(crate::common::gpu()), p, Launch::default(), EarlyExit::Off).unwrap();
    w.advance(GPU_STEPS).unwrap();
    w.state().unwrap()
}

fn on_own_gpus<T: GpuReal>(p: &Problem) {
    let launch = Launch::default();
    let periodic = p.boundary[2] == Boundary::Periodic;
    let until = GPU_STEPS;
    let want = whole_on_the_gpu::<T>(p);
    for ranks in 2..=4 {
        for nccl in [false, true] {
            // Early exit on, or chosen by timing, which the ranks do together.
            let early = if nccl { EarlyExit::Auto } else { EarlyExit::On };
            let slabs = Slabs::new(p.ny, ranks, 2, periodic).unwrap();
            let gpus = OwnGpus::new(nccl);
            let got = on_ranks(
                slabs,
                p.layout(),
                None,
                |comm| {
                    let (own, link) = gpus.rank(comm.as_ref());
                    let s = slabs.slab(comm.rank());
                    let layout = Layout2::new(p.nx as u32, s.rows.len() as u32, 2);
                    let halo = Halo::new(comm, s, layout).linked(link);
                    KpModel::<T>::slab(&own, p, halo, launch, early).unwrap()
                },
                |d| {
                    d.advance(until).unwrap();
                    // The slabs' checkpoints join: in `auto` the ranks chose the kernel together.
                    d.checkpoint().unwrap();
                    d.state().unwrap()
                },
            );
            let linked = gpus.linked(ranks);
            let what = format!(
                "{ranks} ranks, {}, {:?}, periodic {periodic}",
                if linked > 0 { "NCCL" } else { "host" },
                p.wet_dry
            );
            same_state(&got, &want).unwrap_or_else(|e| panic!("{what}: {e}"));
            eprintln!("{what}, {}: bit for bit", std::any::type_name::<T>());
        }
    }
}

/// A slab that is its own neighbour across a periodic y axis passes its ghost rows to itself
/// through NCCL (one rank: one GPU checks it): beside its flux kernel's inner bands (its edge
/// bands after the rows arrive, on the stream beside) and before the flux kernel
/// (`Halo::in_order`), with early exit off and on, `bollermann` and `clamp`, f32 and f64, every
/// state bit for bit the whole grid's. It needs NCCL (`libnccl.so.2` on the loader's path).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn a_slab_that_is_its_own_neighbour_exchanges_beside_its_inner_bands() {
    for wet_dry in [WetDry::Bollermann, WetDry::Clamp] {
        // 77 rows: bands of 32 rows leave a short last band, and the edge bands are both ends.
        let mut p = hydrokern::kp::setup::column(96, 77, 40.0, 32.0, 6.0, 2.5, 0.5);
        p.wet_dry = wet_dry;
        p.boundary[2] = Boundary::Periodic;
        p.boundary[3] = Boundary::Periodic;
        own_neighbour::<f32>(&p);
        own_neighbour::<f64>(&p);
    }
    // Shorelines over the whole grid, across the cut too: `clamp`'s draining factors and its
    // velocity clamp read the rows beyond the cut, which come through NCCL before those passes.
    let mut p = random_state(96, 77, 7, 0);
    p.wet_dry = WetDry::Clamp;
    p.boundary[2] = Boundary::Periodic;
    p.boundary[3] = Boundary::Periodic;
    own_neighbour::<f32>(&p);
    own_neighbour::<f64>(&p);
}

fn own_neighbour<T: GpuReal>(p: &Problem) {
    let launch = Launch::default();
    let gpu = Backend::Gpu(crate::common::gpu());
    let until = GPU_STEPS;
    let want = whole_on_the_gpu::<T>(p);
    let layout = p.layout();
    for in_order in [false, true] {
        for early in [EarlyExit::Off, EarlyExit::On] {
            let got = on_ranks(
                Slabs::new(p.ny, 1, 2, true).unwrap(),
                layout,
                None,
                |comm| {
                    let halo = crate::common::ranks::own_neighbour_halo(comm, &gpu, p.ny, layout, in_order);
                    KpModel::<T>::slab(&gpu, p, halo, launch, early).unwrap()
                },
                |d| {
                    d.advance(until).unwrap();
                    d.state().unwrap()
                },
            );
            let what = format!("{:?}, in order {in_order}, early exit {early:?}", p.wet_dry);
            same_state(&got, &want).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    }
}

/// A slab's refusal, in one line.
fn refused(p: &Problem, on: &Backend) -> String {
    let comm: Rc<dyn Comm> = Rc::new(Solo);
    let slabs = Slabs::new(p.ny, 1, 2, false).unwrap();
    let layout = Layout2::new(p.nx as u32, p.ny as u32, 2);
    let halo = Halo::new(comm, slabs.slab(0), layout);
    match KpModel::<f64>::slab(on, p, halo, Launch::default(), EarlyExit::Off) {
        Ok(_) => panic!("a slab of {:?} / {:?} was built", p.scheme, p.wet_dry),
        Err(e) => e.to_string(),
    }
}

/// The split schemes transpose the whole grid: refused, with what runs instead.
#[test]
fn split_schemes_on_ranks_are_refused() {
    for scheme in [Scheme::Ds1, Scheme::Ds2] {
        let mut p = random_state(8, 8, 3, 0);
        p.scheme = scheme;
        let e = refused(&p, &cpu());
        assert!(e.contains(scheme.name()) && e.contains("rk2, srk2 or euler"), "{e}");
    }
}

/// A GPU run with a level held on the west side, an outlet beside it, inactive cells and rain
/// restored from its checkpoint goes on as the run that wrote it, bit for bit (on one rank and
/// on several): the levels' values at the forcing clock come from the device's arithmetic
/// (which contracts to FMA) as in the run, not from the host's. This case, found by
/// `decomposed_shallow_water_on_the_gpu_is_bit_identical`, parted at the first step after the
/// restore when the host computed them.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn a_gpu_run_with_held_levels_resumes_bit_for_bit() {
    let p = problem(55, 15, 15149197795800669064, 1, WetDry::Kp07, (Accumulation::Plain, true, true));
    assert!(!p.forcing.levels.is_empty() && p.active.is_some(), "the case holds a level and inactive cells");
    let run =
        (Backend::Gpu(crate::common::gpu()), Launch { flux: FluxVariant::STREAM, ..Launch::default() }, EarlyExit::Off);
    for ranks in [1, 3] {
        check_in(false, &p, 1, ranks, &run, None).unwrap();
    }
}
