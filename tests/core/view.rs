//! The live view's gather: the kernel against the CPU's indexing (`State::at`)
//! over random padded arrays, 2D and 3D, of awkward sizes, in both precisions (the sampler's
//! output starts as NaN, so a value never written shows); and the view's cells ([`Samples`]) against their definition.

use crate::common::{cases, gpu};
use hydrokern::grid::{Grid2, Grid3, Mesh};
use hydrokern::model::{Clock, DeviceView, Output, State};
use hydrokern::runtime::DevicePointers;
use hydrokern::view::{GpuSampler, MAX_SIDE, Samples};
use hydrokern::{GpuReal, Rng};
use proptest::prelude::*;

/// A padded array of `dims` (slowest first) with `halo` ghost cells on every side of the two
/// fastest axes, random values, and the interior in row-major order.
fn padded<T: GpuReal>(dims: &[usize], halo: usize, rng: &mut Rng) -> (Vec<T>, Vec<usize>, usize, Vec<T>) {
    let (ny, nx) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    let planes: usize = dims[..dims.len() - 2].iter().product();
    let pitch = nx + 2 * halo + 3;
    let plane = (ny + 2 * halo) * pitch;
    let all: Vec<T> = (0..planes * plane).map(|_| T::from_f64(rng.unit() * 200.0 - 100.0)).collect();
    let origin = halo * pitch + halo;
    let mut interior = Vec::new();
    for p in 0..planes {
        for j in 0..ny {
            for i in 0..nx {
                interior.push(all[p * plane + origin + j * pitch + i]);
            }
        }
    }
    let mut strides = vec![plane, pitch, 1];
    strides.drain(..3 - dims.len());
    (all, strides, origin, interior)
}

fn check<T: GpuReal>(dims: Vec<usize>, halo: usize, fields: usize, n: usize, seed: u64) -> Result<(), TestCaseError> {
    let gpu = gpu();
    let mut rng = Rng::new(seed);
    let cells_total: usize = dims.iter().product();
    let mut host = Vec::new();
    let mut buffers = Vec::new();
    let mut views = Vec::new();
    for k in 0..fields {
        let (all, strides, origin, interior) = padded::<T>(&dims, halo, &mut rng);
        buffers.push(gpu.upload(&all).unwrap());
        let buffer = buffers.last().unwrap();
        views.push(DeviceView {
            name: ["a", "b", "c"][k],
            long_name: "",
            units: "",
            address: buffer.ptr() as u64,
            offset: (origin * size_of::<T>()) as u64,
            dims: dims.clone(),
            strides,
            bits: (8 * size_of::<T>()) as u8,
            device: 0,
        });
        let out = Output { name: ["a", "b", "c"][k], long_name: "", units: "", dims: dims.clone(), data: interior };
        host.push(out);
    }
    let cells: Vec<usize> = (0..n).map(|_| (rng.unit() * cells_total as f64) as usize % cells_total).collect();
    let state = State { clock: Clock::START, fields: host, boundary: Vec::new() };
    let want = state.at(&cells).unwrap();
    let mut sampler = GpuSampler::<T>::new(&gpu).unwrap();
    // Twice: the second reuses the offsets the first uploaded (and must not keep stale ones
    // once the cells change).
    for round in 0..2 {
        let cells = if round == 0 { cells.clone() } else { cells.iter().rev().copied().collect() };
        let want = if round == 0 { want.clone() } else { state.at(&cells).unwrap() };
        let got = sampler.sample(&gpu, &views, &cells).unwrap();
        prop_assert_eq!(got.len(), fields);
        for (g, w) in got.iter().zip(&want.fields) {
            prop_assert_eq!(g.len(), n);
            for (k, (a, b)) in g.iter().zip(&w.data).enumerate() {
                prop_assert!(
                    a.to_f64().to_bits() == b.to_f64().to_bits(),
                    "{} cell {}: {:?} for {:?}",
                    w.name,
                    cells[k],
                    a,
                    b
                );
            }
        }
    }
    // A cell outside the arrays is refused, not read.
    prop_assert!(sampler.sample(&gpu, &views, &[cells_total]).is_err());
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(24), file!()))]

    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU")]
    #[test]
    fn the_gather_takes_the_cells_the_cpu_takes(
        nx in 1usize..70, ny in 1usize..40, nz in 1usize..4, three in any::<bool>(), halo in 0usize..3,
        fields in 1usize..4, n in prop::sample::select(vec![1usize, 31, 255, 256, 257, 1000]), seed in any::<u64>(), f64s in any::<bool>()
    ) {
        let dims = if three { vec![nz, ny, nx] } else { vec![ny, nx] };
        if f64s { check::<f64>(dims, halo, fields, n, seed)?; } else { check::<f32>(dims, halo, fields, n, seed)?; }
    }
}

#[test]
fn a_view_takes_each_pixel_s_centre_cell_and_a_small_grid_whole() {
    let g = |nx, ny| Mesh::Plane(Grid2 { nx, ny, dx: 2.0, dy: 1.0, origin: (10.0, -5.0), halo: 2 });
    // A grid no larger than the view: cell for cell, the gauges after.
    let s = Samples::of(&g(7, 3), 512, &[4, 20]);
    assert_eq!((s.w, s.h), (7, 3));
    assert_eq!(s.cells, (0..21).chain([4, 20]).collect::<Vec<_>>());
    assert_eq!(s.extent, [10.0, 24.0, -5.0, -2.0]);
    assert_eq!(s.spacing, (2.0, 1.0));
    // A larger one: at most `side` pixels along the longer side, the aspect kept, each pixel
    // the cell under its centre, every one inside the grid.
    let (nx, ny) = (4096, 1000);
    let s = Samples::of(&g(nx, ny), 512, &[]);
    assert_eq!((s.w, s.h), (512, 125));
    for (p, &c) in s.cells.iter().enumerate() {
        let (i, j) = (p % s.w, p / s.w);
        let (x, y) = ((i as f64 + 0.5) * nx as f64 / s.w as f64, (j as f64 + 0.5) * ny as f64 / s.h as f64);
        assert_eq!(c, y.floor() as usize * nx + x.floor() as usize, "pixel ({i}, {j})");
    }
    // A volume shows its middle horizontal slice; a side past the limit is held to it.
    let v = Mesh::Volume(Grid3 { nx: 5, ny: 4, nz: 3, dx: 1.0, dy: 1.0, dz: 1.0, origin: (0.0, 0.0, 0.0), halo: 1 });
    let s = Samples::of(&v, 10_000, &[]);
    assert_eq!(s.cells, (20..40).collect::<Vec<_>>());
    assert_eq!(Samples::of(&g(10_000, 10), usize::MAX, &[]).w, MAX_SIDE);
}
