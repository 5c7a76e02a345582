//! Sediment decomposed over ranks (threads of this process, `ranks::threads`): for any number
//! of slabs, of uneven rows and of one row, every state and checkpoint is bit for bit the
//! whole grid's, and a checkpoint restarts on another number of ranks.

use crate::common::cases;
use crate::common::ranks::{OwnGpus, PartsDir, checkpoint_parts, joined_parts, same_checkpoint, same_state};
use crate::reference_and_gpu::random_problem;
use hydrokern::GpuReal;
use hydrokern::model::{Model, Until};
use hydrokern::ranks::{Comm, Halo, Slab, Slabs, parts};
use hydrokern::runtime::Backend;
use hydrokern::sediment::gpu::Launch;
use hydrokern::sediment::{Accumulation, Problem, Scheme, SedimentModel, SlabPart, StepPolicy, StepVariant};
use proptest::prelude::*;
use std::rc::Rc;

/// Where and how a run steps: the backend, the mixed precision (with `T` = f64), the kernels.
#[derive(Clone)]
struct On {
    backend: Backend,
    mixed: bool,
    variant: StepVariant,
}

fn cpu(mixed: bool) -> On {
    On { backend: Backend::Cpu { why: None }, mixed, variant: StepVariant::Fused }
}

/// The whole grid's model.
fn whole<'p, T: GpuReal>(p: &'p Problem, on: &On) -> SedimentModel<'p, T> {
    let (b, v, launch) = (&on.backend, on.variant, Launch::default());
    match on.mixed {
        true => SedimentModel::mixed(b, p, POLICY, v, launch).unwrap(),
        false => SedimentModel::new(b, p, POLICY, v, launch).unwrap(),
    }
}

/// The model of `comm`'s slab of `p` cut into `slabs`, built as a rank of a run builds it: from
/// its part of `p`, encoded and decoded as it travels from rank 0 (`SlabPart`).
fn slab<'p, T: GpuReal>(p: &'p Problem, slabs: Slabs, comm: Rc<dyn Comm>, on: &On) -> SedimentModel<'p, T> {
    let s = slabs.slab(comm.rank());
    let layout = hydrokern::grid::Layout2::new(p.nx as u32, s.rows.len() as u32, 1);
    let kernels = (on.variant, Launch::default());
    let part = SlabPart::decode(&POLICY.part(p, &s).unwrap().encode()).unwrap();
    SedimentModel::of_part(&on.backend, part, Halo::new(comm, s, layout), POLICY, on.mixed, kernels).unwrap()
}

/// Run `lead` on rank 0's decomposed model of `p` over `n` ranks (`common::ranks::on_ranks`).
fn on_ranks<T: GpuReal, R>(p: &Problem, n: usize, on: &On, lead: impl FnOnce(&mut dyn Model<T>) -> R) -> R {
    let slabs = Slabs::new(p.ny, n, 1, false).unwrap();
    crate::common::ranks::on_ranks(slabs, p.layout(), None, |comm| slab::<T>(p, slabs, comm, on), lead)
}

/// 5 steps on the whole grid and on `n` ranks, then 4 more on `m` ranks from the whole grid's
/// checkpoint (`m` even) or from the `n` ranks' checkpoint in parts (`m` odd: each rank reads
/// its own part where `m` is `n`, else the parts join), the parts joined also the whole grid's.
fn check<T: GpuReal>(p: &Problem, n: usize, m: usize, on: &On) -> Result<(), TestCaseError> {
    let until = |steps| Until { t: f64::INFINITY, steps, deadline: None };
    let mut w = whole::<T>(p, on);
    w.advance(until(5)).unwrap();
    let (state, ckpt) = (w.state().unwrap(), w.checkpoint().unwrap());
    let dir = PartsDir::new();
    let (s, c, manifest) = on_ranks::<T, _>(p, n, on, |d| {
        d.advance(until(5)).unwrap();
        (d.state().unwrap(), d.checkpoint().unwrap(), checkpoint_parts(d, dir.path()))
    });
    same_state(&s, &state)?;
    same_checkpoint(&c, &ckpt)?;
    same_checkpoint(&joined_parts(&manifest, dir.path(), &w), &ckpt)?;
    w.advance(until(9)).unwrap();
    let later = w.state().unwrap();
    let s = on_ranks::<T, _>(p, m, on, |d| {
        match m % 2 {
            0 => d.restore(&ckpt).unwrap(),
            _ => parts::restore(d, &manifest, dir.path()).unwrap(),
        }
        d.advance(until(9)).unwrap();
        d.state().unwrap()
    });
    same_state(&s, &later)
}

/// The step recomputed every 2 steps, so that the slabs' steepness sets it often.
const POLICY: StepPolicy = StepPolicy { forced: None, update_every: 2 };

/// A random problem with inflow on some sides, of `scheme` and `accumulation`.
fn problem(nx: usize, ny: usize, seed: u64, scheme: Scheme, accumulation: Accumulation) -> Problem {
    let mut p = random_problem(nx, ny, seed, true);
    (p.scheme, p.accumulation) = (scheme, accumulation);
    p
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]
    /// Every scheme and precision, uneven slabs, slabs of one row, sides with inflow, the step
    /// recomputed every 2 steps from the slabs' steepness.
    #[test]
    fn decomposed_sediment_is_bit_identical(
        nx in 1usize..20,
        ny in 1usize..14,
        n in 1usize..=4,
        m in 1usize..=4,
        seed: u64,
        scheme in prop::sample::select(Scheme::ALL.to_vec()),
        accumulation in prop::sample::select(Accumulation::ALL.to_vec()),
        precision in 0u8..3,
    ) {
        let (n, m) = (n.min(ny), m.min(ny));
        let p = problem(nx, ny, seed, scheme, accumulation);
        match precision {
            0 => check::<f32>(&p, n, m, &cpu(false))?,
            1 => check::<f64>(&p, n, m, &cpu(false))?,
            _ => check::<f64>(&p, n, m, &cpu(true))?,
        }
    }
}

proptest! {
    #![proptest_config(crate::common::config(cases(16), file!()))]
    /// On the GPU, the ranks sharing it: every kernel variant of either scheme, f32 (plain and
    /// compensated), f64 and mixed (the bounded scheme's fused kernel), against the whole grid
    /// on the GPU.
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn decomposed_sediment_on_the_gpu_is_bit_identical(
        nx in 1usize..70,
        ny in 1usize..40,
        n in 1usize..=4,
        m in 1usize..=4,
        seed: u64,
        scheme in prop::sample::select(Scheme::ALL.to_vec()),
        accumulation in prop::sample::select(Accumulation::ALL.to_vec()),
        variant in prop::sample::select(StepVariant::covering()),
        precision in 0u8..3,
    ) {
        // The seed scheme's fused kernels are refused on slabs (`a_seed_slab_on_the_gpu_...`);
        // the mixed precision has the fused kernel alone.
        let mixed = precision == 2;
        let (scheme, variant) = if mixed { (Scheme::Bounded, StepVariant::Fused) } else { (scheme, variant) };
        prop_assume!(scheme == Scheme::Bounded || matches!(variant, StepVariant::Split(..)));
        let (n, m) = (n.min(ny), m.min(ny));
        let p = problem(nx, ny, seed, scheme, accumulation);
        let on = On { backend: Backend::Gpu(crate::common::gpu()), mixed, variant };
        match precision {
            0 => check::<f32>(&p, n, m, &on)?,
            _ => check::<f64>(&p, n, m, &on)?,
        }
    }
}

/// A checkpoint in parts that a rank cannot write (its directory is not there) stops with that
/// rank's line on rank 0, no rank waiting for ever; the ranks then step on together.
#[test]
fn a_part_that_cannot_be_written_is_said_and_no_rank_hangs() {
    let p = problem(9, 7, 3, Scheme::Bounded, Accumulation::ALL[0]);
    let until = |steps| Until { t: f64::INFINITY, steps, deadline: None };
    let gone = std::env::temp_dir().join(format!("hydrokern-no-such-dir-{}", std::process::id()));
    let (e, clock) = on_ranks::<f64, _>(&p, 3, &cpu(false), |d| {
        d.advance(until(2)).unwrap();
        d.checkpoint_in_parts(&gone);
        let e = d.checkpoint().unwrap_err().to_string();
        (e, d.advance(until(3)).unwrap())
    });
    assert!(e.starts_with("rank 0: ") && e.contains("hydrokern-no-such-dir"), "{e}");
    assert_eq!(clock.steps, 3);
}

/// Ranks on GPUs of their own (rank r on GPU r mod their count), their ghost rows GPU to GPU
/// through NCCL where the ranks can set it up (required with `HYDROKERN_REQUIRE_NCCL=1` on a
/// machine of several GPUs): the bounded scheme on 2 to 4 ranks, f32 and f64, bit for bit the
/// whole grid on GPU 0.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn sediment_on_their_own_gpus_through_nccl_is_bit_identical() {
    let p = problem(67, 45, 7, Scheme::Bounded, Accumulation::ALL[0]);
    own_gpus::<f32>(&p, false);
    own_gpus::<f64>(&p, false);
    own_gpus::<f64>(&p, true);
}

/// [`sediment_on_their_own_gpus_through_nccl_is_bit_identical`] in `T`, or `mixed`.
fn own_gpus<T: GpuReal>(p: &Problem, mixed: bool) {
    let variant = StepVariant::Fused;
    let until = Until { t: f64::INFINITY, steps: 9, deadline: None };
    let mut w = whole::<T>(p, &On { backend: Backend::Gpu(crate::common::gpu()), mixed, variant });
    w.advance(until).unwrap();
    let want = w.state().unwrap();
    for n in 2..=4 {
        let slabs = Slabs::new(p.ny, n, 1, false).unwrap();
        let gpus = OwnGpus::new(true);
        let build = |comm: Rc<dyn Comm>| {
            let (own, link) = gpus.rank(comm.as_ref());
            let s = slabs.slab(comm.rank());
            let layout = hydrokern::grid::Layout2::new(p.nx as u32, s.rows.len() as u32, 1);
            let kernels = (variant, Launch::default());
            SedimentModel::slab(&own, p, Halo::new(comm, s, layout).linked(link), POLICY, mixed, kernels).unwrap()
        };
        let lead = |d: &mut dyn Model<T>| {
            d.advance(until).unwrap();
            d.state().unwrap()
        };
        let got = crate::common::ranks::on_ranks(slabs, p.layout(), None, build, lead);
        let linked = gpus.linked(n);
        same_state(&got, &want).unwrap_or_else(|e| panic!("{n} ranks, {linked} linked: {e}"));
        let precision = if mixed { "mixed" } else { std::any::type_name::<T>() };
        eprintln!("sediment {n} ranks, {linked} linked, {precision}: bit for bit");
    }
}

/// A slab that is its own neighbour (below and above: its own top and bottom rows as its ghost
/// rows, a grid periodic along y, which sediment's sides do not offer, so the reference is the
/// same slab with its rows staged through the host) passes its ghost rows to itself through
/// NCCL (one rank: one GPU checks it): beside its fused kernel's inner bands (its edge bands
/// after the rows arrive, on the stream beside) and before the kernel (`Halo::in_order`), the
/// bounded scheme in f32 (plain and compensated), f64 and mixed (its h rows in f64 and the
/// others in f32 travelling together), the step recomputed every 2 steps,
/// every state bit for bit the host's. 77 rows leave inner bands of 4 rows and a short last
/// band; 6 rows have no inner band. It needs NCCL (`libnccl.so.2` on the loader's path).
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn a_sediment_slab_that_is_its_own_neighbour_exchanges_beside_its_inner_bands() {
    for (nx, ny) in [(67, 77), (40, 6)] {
        for accumulation in Accumulation::ALL {
            let p = problem(nx, ny, 11, Scheme::Bounded, accumulation);
            own_neighbour::<f32>(&p, false);
            own_neighbour::<f64>(&p, false);
        }
        own_neighbour::<f64>(&problem(nx, ny, 11, Scheme::Bounded, Accumulation::ALL[0]), true);
    }
}

fn own_neighbour<T: GpuReal>(p: &Problem, mixed: bool) {
    let gpu = Backend::Gpu(crate::common::gpu());
    let until = Until { t: f64::INFINITY, steps: 9, deadline: None };
    let layout = p.layout();
    let run = |route: Option<bool>| {
        let slab = |comm: Rc<dyn Comm>| {
            let halo = match route {
                None => Halo::new(comm, Slab { rank: 0, rows: 0..p.ny, below: Some(0), above: Some(0) }, layout),
                Some(in_order) => crate::common::ranks::own_neighbour_halo(comm, &gpu, p.ny, layout, in_order),
            };
            let kernels = (StepVariant::Fused, Launch::default());
            SedimentModel::slab(&gpu, p, halo, POLICY, mixed, kernels).unwrap()
        };
        let lead = |d: &mut dyn Model<T>| {
            d.advance(until).unwrap();
            d.state().unwrap()
        };
        crate::common::ranks::on_ranks(Slabs::new(p.ny, 1, 1, true).unwrap(), layout, None, slab, lead)
    };
    let want = run(None);
    for in_order in [false, true] {
        let precision = if mixed { "mixed" } else { std::any::type_name::<T>() };
        let what = format!("{}×{} {:?} {precision}, in order {in_order}", p.nx, p.ny, p.accumulation);
        same_state(&run(Some(in_order)), &want).unwrap_or_else(|e| panic!("{what}: {e}"));
        eprintln!("{what}: bit for bit");
    }
}

/// More ranks than rows of the stencil's ghost layer allows: one line that says how many.
#[test]
fn slabs_thinner_than_the_ghost_rows_are_refused() {
    let e = Slabs::new(3, 4, 1, false).unwrap_err().to_string();
    assert!(e.contains("4 ranks") && e.contains("at most 3"), "{e}");
    let e = Slabs::new(5, 3, 2, false).unwrap_err().to_string();
    assert!(e.contains("2 ghost rows") && e.contains("at most 2"), "{e}");
}

/// A slab of the seed scheme with a fused kernel on the GPU is refused in one line that names
/// the split kernels: the fused kernel forms h′ next to the slab's edge by the boundary rule.
/// In mixed precision, whose one kernel is the fused one, the line says what runs instead.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn a_seed_slab_on_the_gpu_with_a_fused_kernel_is_refused() {
    let gpu = crate::common::gpu();
    let mut p = random_problem(4, 4, 1, false);
    p.scheme = Scheme::Seed;
    let comm: Rc<dyn Comm> = Rc::new(hydrokern::ranks::Solo);
    let slabs = Slabs::new(4, 1, 1, false).unwrap();
    let policy = StepPolicy { forced: None, update_every: 1 };
    for variant in [StepVariant::Fused, StepVariant::FusedTile] {
        let halo = Halo::new(comm.clone(), slabs.slab(0), p.layout());
        let e = SedimentModel::<f32>::slab(
            &Backend::Gpu(gpu.clone()),
            &p,
            halo,
            policy,
            false,
            (variant, Launch::default()),
        );
        assert!(e.err().unwrap().to_string().contains("split kernels only"));
    }
    let halo = Halo::new(comm, slabs.slab(0), p.layout());
    let e =
        SedimentModel::<f64>::slab(&Backend::Gpu(gpu), &p, halo, policy, true, (StepVariant::Fused, Launch::default()));
    assert!(e.err().unwrap().to_string().contains("in precision mixed does not run on several GPU ranks"));
}

/// A slab in mixed precision takes the fused kernel only, as a whole grid does: another
/// variant is refused in one line that names it.
#[test]
fn a_mixed_slab_takes_the_fused_kernel_only() {
    let p = random_problem(4, 4, 1, false);
    let comm: Rc<dyn Comm> = Rc::new(hydrokern::ranks::Solo);
    let slabs = Slabs::new(4, 1, 1, false).unwrap();
    let halo = Halo::new(comm, slabs.slab(0), p.layout());
    let policy = StepPolicy { forced: None, update_every: 1 };
    let variant = StepVariant::covering().into_iter().find(|v| matches!(v, StepVariant::Split(..))).unwrap();
    let e = SedimentModel::<f64>::slab(&cpu(true).backend, &p, halo, policy, true, (variant, Launch::default()));
    let e = e.err().unwrap().to_string();
    assert!(e.contains("fused kernel only") && e.contains(&variant.name()), "{e}");
}
