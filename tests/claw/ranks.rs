//! Wave propagation decomposed over ranks (threads of this process, `ranks::threads`): in 2D
//! cut across y, in 3D across z, for every system of equations, every side's condition
//! (periodic across the cut too), both splittings and precisions and uneven slabs, every state
//! and checkpoint is bit for bit the whole grid's, a checkpoint restarts on another number of
//! ranks, and a blow-up names the whole grid's cell on every rank; on the CPU, on ranks sharing
//! one GPU (ghost layers through the host), on GPUs of their own (through NCCL), and on one rank
//! whose slab is its own neighbour through NCCL (the sweep across the cut beside its exchange).

use crate::common::cases;
use crate::common::ranks::{
    OwnGpus, PartsDir, checkpoint_parts, joined_parts, own_neighbour_halo, same_checkpoint, same_products, same_state,
};
use hydrokern::case::initial::Values;
use hydrokern::claw::cpu::{Claw2, HALO, Setup};
use hydrokern::claw::d3::cpu::{Setup3, rows_of};
use hydrokern::claw::equations::{Data, Equations};
use hydrokern::claw::part::SlabPart;
use hydrokern::claw::{Cfl, Limiter, ShallowRoe, Splitting};
use hydrokern::grid::Layout2;
use hydrokern::model::{Model, Until};
use hydrokern::products::{Gauge, Joined, Sites, Spec, slab_spec};
use hydrokern::ranks::threads::{Threads, lead_on_threads};
use hydrokern::ranks::{Comm, Halo, Slabs, parts};
use hydrokern::runtime::Backend;
use hydrokern::{GpuReal, Rng};
use kernels::halo::{EXTRAPOLATE, PERIODIC, WALL};
use proptest::prelude::*;
use std::rc::Rc;

const CPU: Backend = Backend::Cpu { why: None };

/// Random admissible data of `eq` on `n` cells (nz = 1 in 2D) with sides `bc` (pairs per axis).
fn data(eq: Equations, n: [usize; 3], bc: [u32; 6], limiter: Limiter, splitting: Splitting, seed: u64) -> Data {
    let info = eq.info();
    let mut rng = Rng::new(seed);
    let cells = n.iter().product();
    let fields = info
        .fields
        .iter()
        .map(|&f| {
            let (lo, hi) = match f {
                "h" => (0.3, 2.0),
                "rho" | "bulk" => (0.5, 3.0),
                _ => (-1.0, 1.0),
            };
            Values::stored(rng.values::<f64>(cells, lo, hi))
        })
        .collect();
    let setup =
        Setup3 { nx: n[0], ny: n[1], nz: n[2], dx: 0.7, dy: 1.1, dz: 0.9, bc, limiter, splitting, cfl: Cfl::default() };
    Data { setup, constants: info.constants.iter().map(|c| c.1).collect(), fields }
}

/// The cut grid's padded layout as its rows, the slabs' rows along the cut axis, whether that
/// axis is periodic, and how many of a field's last axes a row spans.
fn cut(d: &Data, dims: usize) -> (Layout2, usize, bool, usize) {
    let s = &d.setup;
    match dims {
        2 => (Layout2::new(s.nx as u32, s.ny as u32, HALO), s.ny, s.bc[2] == PERIODIC, 1),
        _ => (rows_of(&s.layout()), s.nz, s.bc[4] == PERIODIC, 2),
    }
}

/// Run `lead` on rank 0's model of `eq` over `data` cut into `n` slabs on `on`, keeping
/// `spec`'s products at `cells` (2D).
fn on_ranks<T: GpuReal, R>(
    eq: Equations,
    data: &Data,
    (n, on): (usize, &On),
    (spec, cells): (&Spec, &[u32]),
    lead: impl FnOnce(&mut dyn Model<T>) -> R,
) -> R {
    let (layout, rows, periodic, row_axes) = cut(data, eq.info().dims);
    let slabs = Slabs::new(rows, n, HALO as usize, periodic).unwrap();
    let sites = Sites::from(cells.to_vec());
    let all: Vec<_> = slabs.all().into_iter().map(|s| s.rows).collect();
    let joined = (!spec.is_empty()).then(|| Joined::new(spec, &sites, data.setup.nx, &all));
    let slab = |comm: Rc<dyn Comm>| {
        let s = slabs.slab(comm.rank());
        let (spec, sites) = slab_spec(spec, &sites, data.setup.nx, s.rows.clone());
        let (backend, link) = match on {
            On::Backend(b) => (b.clone(), None),
            On::OwnGpus(gpus) => gpus.rank(comm.as_ref()),
        };
        let halo = Halo::new(comm, s.clone(), Layout2::new(layout.nx, s.rows.len() as u32, layout.halo));
        let part = handed_part::<T>(eq, data, s.rows);
        eq.slab_model::<T>((&data.setup, &data.constants, &part), &backend, &spec, &sites.cells, halo.linked(link))
    };
    lead_on_threads(slabs, (layout, row_axes), joined, slab, lead).unwrap()
}

/// The part of `data` rank 0 hands the slab of `rows` of a run in precision T, as it arrives:
/// encoded and decoded.
fn handed_part<T: GpuReal>(eq: Equations, data: &Data, rows: std::ops::Range<usize>) -> SlabPart {
    let part = eq.slab_part(data, rows, eq.first_dt::<T>(data).unwrap()).unwrap();
    let arrived = SlabPart::decode(&part.encode()).unwrap();
    assert_eq!(arrived, part);
    arrived
}

/// Where the ranks run: all on one backend, or each on a GPU of its own.
enum On {
    Backend(Backend),
    OwnGpus(OwnGpus),
}

/// `steps` steps on the whole grid (on `whole`) and on `n` ranks (on `on`; states,
/// checkpoints, the checkpoint in parts joined, and products alike), then more on `m` ranks
/// from the whole grid's checkpoint (`m` even) or from the `n` ranks' in parts (`m` odd: each
/// rank reads its own part where `m` is `n`, else the parts join).
fn check<T: GpuReal>(
    eq: Equations,
    d: &Data,
    (whole, on): (&Backend, &On),
    (n, m): (usize, usize),
    spec: &Spec,
    cells: &[u32],
) -> Result<(), TestCaseError> {
    let until = |steps| Until { t: f64::INFINITY, steps, deadline: None };
    let mut w = eq.model::<T>(d, whole, spec, cells).unwrap();
    w.advance(until(6)).unwrap();
    let (state, ckpt, products) = (w.state().unwrap(), w.checkpoint().unwrap(), w.products(true).unwrap());
    let dir = PartsDir::new();
    let mut manifest = None;
    let (s, c, p) = on_ranks::<T, _>(eq, d, (n, on), (spec, cells), |r| {
        r.advance(until(6)).unwrap();
        let taken = (r.state().unwrap(), r.checkpoint().unwrap(), r.products(true).unwrap());
        manifest = Some(checkpoint_parts(r, dir.path()));
        taken
    });
    let manifest = manifest.unwrap();
    same_state(&s, &state)?;
    same_checkpoint(&c, &ckpt)?;
    same_checkpoint(&joined_parts(&manifest, dir.path(), &*w), &ckpt)?;
    prop_assert_eq!(p.is_some(), products.is_some());
    if let (Some(p), Some(q)) = (&p, &products) {
        same_products(p, q)?;
    }
    w.advance(until(11)).unwrap();
    let (later, later_products) = (w.state().unwrap(), w.products(true).unwrap());
    let (s, p) = on_ranks::<T, _>(eq, d, (m, on), (spec, cells), |r| {
        match m % 2 {
            0 => r.restore(&ckpt).unwrap(),
            _ => parts::restore(r, &manifest, dir.path()).unwrap(),
        }
        r.advance(until(11)).unwrap();
        (r.state().unwrap(), r.products(true).unwrap())
    });
    same_state(&s, &later)?;
    if let (Some(p), Some(q)) = (&p, &later_products) {
        same_products(p, q)?;
    }
    Ok(())
}

/// A random case: a system, its grid (2D or 3D) and sides, the algorithm's choices, the ranks
/// before and after a restart (at most one a two-row slab), and gauges and maps where the
/// equations have a depth.
#[allow(clippy::too_many_arguments)]
fn case(
    eq: Equations,
    n3: [usize; 3],
    ranks: (usize, usize),
    sides: [u32; 3],
    limiter: Limiter,
    strang: bool,
    gauges: bool,
    seed: u64,
) -> (Data, usize, usize, Spec, Vec<u32>) {
    let dims = eq.info().dims;
    let [nx, ny, nz] = n3;
    let n3 = [nx, ny, if dims == 2 { 1 } else { nz }];
    let bc = [sides[0], sides[0], sides[1], sides[1], sides[2], sides[2]];
    let splitting = if strang { Splitting::Strang } else { Splitting::Godunov };
    let d = data(eq, n3, bc, limiter, splitting, seed);
    let rows = if dims == 2 { ny } else { nz };
    let (n, m) = (ranks.0.min(rows / 2), ranks.1.min(rows / 2));
    // Gauges on the first, the last and a middle cell, and the maps, for a depth in 2D.
    let depth = dims == 2 && eq.info().fields[0] == "h" && gauges;
    let cells = if depth { vec![0, (nx * ny / 2) as u32, (nx * ny - 1) as u32] } else { Vec::new() };
    let spec = match depth {
        true => Spec {
            gauges: (0..3).map(|k| Gauge { name: format!("g{k}"), x: 0.0, y: 0.0 }).collect(),
            maxima: true,
            every: 2,
            ..Spec::default()
        },
        false => Spec::default(),
    };
    (d, n, m, spec, cells)
}

const SIDES: [u32; 3] = [WALL, EXTRAPOLATE, PERIODIC];

/// A random case of [`case`] on grids below `max` cells along x, y and z, and its precision.
#[derive(Debug)]
struct Random {
    eq: Equations,
    data: Data,
    ranks: (usize, usize),
    spec: Spec,
    cells: Vec<u32>,
    f32_: bool,
}

impl Random {
    /// Checked on the whole grid on `whole` and on ranks on `on`.
    fn check(&self, on: (&Backend, &On)) -> Result<(), TestCaseError> {
        let (eq, d, spec, cells) = (self.eq, &self.data, &self.spec, &self.cells);
        match self.f32_ {
            true => check::<f32>(eq, d, on, self.ranks, spec, cells),
            false => check::<f64>(eq, d, on, self.ranks, spec, cells),
        }
    }
}

fn random(max: [usize; 3]) -> impl Strategy<Value = Random> {
    let grid = (1..max[0], 4..max[1], 4..max[2]);
    let sides = prop::array::uniform3(prop::sample::select(SIDES.to_vec()));
    let limiter = prop::sample::select(vec![Limiter::None, Limiter::Minmod, Limiter::Mc]);
    let choices = (any::<bool>(), any::<bool>(), any::<bool>(), any::<u64>());
    (prop::sample::select(Equations::ALL.to_vec()), grid, (1usize..=4, 1usize..=4), sides, limiter, choices).prop_map(
        |(eq, (nx, ny, nz), ranks, sides, limiter, (strang, gauges, f32_, seed))| {
            let (data, n, m, spec, cells) = case(eq, [nx, ny, nz], ranks, sides, limiter, strang, gauges, seed);
            Random { eq, data, ranks: (n, m), spec, cells, f32_ }
        },
    )
}

proptest! {
    #![proptest_config(crate::common::config(cases(32), file!()))]
    /// Every system (2D cut across y, 3D across z), every side's condition, both splittings,
    /// both precisions, uneven slabs down to the two ghost layers, and in 2D shallow water
    /// gauges and maximum maps.
    #[test]
    fn decomposed_wave_propagation_is_bit_identical(c in random([9, 13, 9])) {
        c.check((&CPU, &On::Backend(CPU)))?;
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    /// On the GPU, the ranks sharing it (ghost layers and rates through the host): the same
    /// cases, against the whole grid on the GPU, on grids over a block of the sweeps.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn decomposed_wave_propagation_on_the_gpu_is_bit_identical(c in random([70, 50, 20])) {
        let gpu = Backend::Gpu(crate::common::gpu());
        c.check((&gpu, &On::Backend(gpu.clone())))?;
    }
}

/// Ranks on GPUs of their own (rank r on GPU r mod their count), their ghost layers and rates
/// GPU to GPU through NCCL where the ranks can set it up (required with
/// `HYDROKERN_REQUIRE_NCCL=1` on a machine of several GPUs): shallow water in 2D with gauges and
/// maps, and acoustics in 3D, periodic across the cuts, on 2 to 4 ranks in f32 and f64, bit for
/// bit the whole grid on GPU 0.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn wave_propagation_on_their_own_gpus_is_bit_identical() {
    for (eq, n3) in [(Equations::ShallowRoe, [67, 45, 1]), (Equations::Acoustics3d, [19, 13, 23])] {
        for ranks in 2..=4 {
            let sides = [WALL, PERIODIC, PERIODIC];
            let (d, n, _, spec, cells) = case(eq, n3, (ranks, ranks), sides, Limiter::Mc, true, true, 11);
            own_gpus::<f32>(eq, &d, n, &spec, &cells);
            own_gpus::<f64>(eq, &d, n, &spec, &cells);
        }
    }
}

/// Nine steps on GPU 0 and on `n` ranks on GPUs of their own: states, checkpoints and products
/// bit for bit.
fn own_gpus<T: GpuReal>(eq: Equations, d: &Data, n: usize, spec: &Spec, cells: &[u32]) {
    let until = Until { t: f64::INFINITY, steps: 9, deadline: None };
    let mut w = eq.model::<T>(d, &Backend::Gpu(crate::common::gpu()), spec, cells).unwrap();
    w.advance(until).unwrap();
    let want = (w.state().unwrap(), w.checkpoint().unwrap(), w.products(true).unwrap());
    let on = On::OwnGpus(OwnGpus::new(true));
    let got = on_ranks::<T, _>(eq, d, (n, &on), (spec, cells), |r| {
        r.advance(until).unwrap();
        (r.state().unwrap(), r.checkpoint().unwrap(), r.products(true).unwrap())
    });
    let On::OwnGpus(gpus) = &on else { unreachable!() };
    let linked = gpus.linked(n);
    let name = eq.info().name;
    let same = same_state(&got.0, &want.0).and_then(|()| same_checkpoint(&got.1, &want.1));
    let same = same.and_then(|()| match (&got.2, &want.2) {
        (Some(p), Some(q)) => same_products(p, q),
        (None, None) => Ok(()),
        _ => Err(TestCaseError::fail("products on one side only")),
    });
    same.unwrap_or_else(|e| panic!("{name} on {n} ranks, {linked} linked: {e}"));
    eprintln!("claw {name} on {n} ranks, {linked} linked, {}: bit for bit", std::any::type_name::<T>());
}

/// A slab that is its own neighbour across a periodic cut axis passes its ghost layers to
/// itself through NCCL (one rank: one GPU checks it): beside the inner bands of its sweep
/// across the cut (its edge bands after the layers arrive, on the stream beside) and before
/// that sweep (`Halo::in_order`), shallow water in 2D (bands of 64 rows across 203) and
/// acoustics in 3D (bands of 32 planes across 100), both splittings, f32 and f64, every state
/// bit for bit the whole grid's. It needs NCCL (`libnccl.so.2` on the loader's path).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn a_slab_that_is_its_own_neighbour_sweeps_beside_its_inner_bands() {
    for (eq, n3, sides) in [
        (Equations::ShallowRoe, [67, 203, 1], [WALL, PERIODIC, WALL]),
        (Equations::Acoustics3d, [35, 9, 100], [WALL, EXTRAPOLATE, PERIODIC]),
    ] {
        for strang in [false, true] {
            let (d, ..) = case(eq, n3, (1, 1), sides, Limiter::Mc, strang, false, 5);
            own_neighbour::<f32>(eq, &d);
            own_neighbour::<f64>(eq, &d);
        }
    }
}

/// Nine steps on the whole grid on the GPU and on one rank whose slab is its own neighbour,
/// its ghost layers beside the inner bands and before the sweep: states bit for bit.
fn own_neighbour<T: GpuReal>(eq: Equations, d: &Data) {
    let gpu = Backend::Gpu(crate::common::gpu());
    let until = Until { t: f64::INFINITY, steps: 9, deadline: None };
    let mut w = eq.model::<T>(d, &gpu, &Spec::default(), &[]).unwrap();
    w.advance(until).unwrap();
    let want = w.state().unwrap();
    let (layout, rows, periodic, row_axes) = cut(d, eq.info().dims);
    assert!(periodic, "the cut axis is periodic");
    for in_order in [false, true] {
        let part = handed_part::<T>(eq, d, 0..rows);
        let slab = |comm: Rc<dyn Comm>| {
            let halo = own_neighbour_halo(comm, &gpu, rows, layout, in_order);
            eq.slab_model::<T>((&d.setup, &d.constants, &part), &gpu, &Spec::default(), &[], halo)
        };
        let slabs = Slabs::new(rows, 1, HALO as usize, true).unwrap();
        let got = lead_on_threads(slabs, (layout, row_axes), None, slab, |m| {
            m.advance(until).unwrap();
            m.state().unwrap()
        })
        .unwrap();
        let what = format!("{} {}, in order {in_order}", eq.info().name, std::any::type_name::<T>());
        same_state(&got, &want).unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

/// A step that overflows in the last of three slabs stops every rank with the one-rank run's
/// line, which names the whole grid's first cell that is not finite.
#[test]
fn a_blow_up_names_the_whole_grids_cell_on_every_rank() {
    let (nx, ny) = (5, 9);
    let setup = Setup {
        nx,
        ny,
        dx: 1.0,
        dy: 1.0,
        bc: [WALL; 4],
        limiter: Limiter::Mc,
        splitting: Splitting::Godunov,
        cfl: Cfl::default(),
    };
    // Waves of a depth of 10²⁰ m at cell (3, 7), in the last slab, overflow f32 as they update
    // the cells beside it: the wave speeds, and so the step's rate, stay finite.
    let q: Vec<[f32; 3]> = (0..nx * ny).map(|c| [if c == 7 * nx + 3 { 1e20 } else { 1.0 }, 0.0, 0.0]).collect();
    let roe = ShallowRoe { g: 9.81f32 };
    let mut one = Claw2::new(roe, setup, &q, &[[]; 45]).unwrap();
    let dt = one.next_dt();
    let said = one.step(1.0).unwrap_err().to_string();
    // The first cell past the cut below the last slab: a slab's own numbering would say (2, 0).
    assert!(said.contains("cell (2, 6) is not finite"), "{said}");
    let slabs = Slabs::new(ny, 3, HALO as usize, false).unwrap();
    let q = &q;
    let lines: Vec<String> = std::thread::scope(|scope| {
        let ranks: Vec<_> = Threads::group(3)
            .into_iter()
            .map(|t| {
                scope.spawn(move || {
                    let comm: Rc<dyn Comm> = Rc::new(t);
                    let s = slabs.slab(comm.rank());
                    let layout = Layout2::new(nx as u32, s.rows.len() as u32, HALO);
                    let part = SlabPart::of(&setup.shape(), s.rows.clone(), dt, 3, |f, c| q[c][f] as f64).unwrap();
                    let (mut slab, across) =
                        Claw2::slab_of_part(roe, setup, &part, Halo::new(comm, s, layout)).unwrap();
                    slab.step_across(1.0, Some(&across)).unwrap_err().to_string()
                })
            })
            .collect();
        ranks.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert!(lines.iter().all(|l| *l == said), "{lines:?} against {said}");
}
