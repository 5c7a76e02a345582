//! Which cells a frame of the live view shows ([`Samples`]), and taking their values from a
//! model: on the GPU by the gather kernel ([`GpuSampler`]), so that a frame moves the view's
//! size over the bus and never the field's; on the CPU by indexing (`State::at`).

use crate::grid::Mesh;
use crate::model::{Clock, DeviceView, Later, Output, State};
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape, Pending, Snapshots};
use crate::{Error, GpuReal, Result};
use kernels::view::{GATHER, GATHER_BLOCK, Gather};

/// The longest side of the view's map, in pixels, unless the viewer asks for another.
pub const DEFAULT_SIDE: usize = 512;
/// The longest side a viewer may ask for.
pub const MAX_SIDE: usize = 2048;

/// The cells a frame takes: a map of `w × h` pixels, each the cell at its centre (nearest
/// sampling: values, dry cells and the wet–dry edge stay the model's own; a grid no larger than
/// the view is shown cell for cell), then the gauges' cells. A 3D field shows its horizontal
/// slice through the middle of the box.
#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    /// The map's pixels across and up.
    pub w: usize,
    pub h: usize,
    /// Interior cells (row-major storage indices of a field, as [`State`]'s): `w·h` pixels,
    /// row 0 the southmost, then one a gauge.
    pub cells: Vec<usize>,
    /// The map's extent in metres (west, east, south, north).
    pub extent: [f64; 4],
    /// The map's cell size in metres (x, y): what a hillshade of it steps by.
    pub spacing: (f64, f64),
}

impl Samples {
    /// The view of `mesh` at most `side` pixels along its longer side, with the gauges at
    /// storage indices `gauges`.
    pub fn of(mesh: &Mesh, side: usize, gauges: &[usize]) -> Samples {
        let side = side.clamp(1, MAX_SIDE);
        let (nx, ny, plane, extent) = match mesh {
            Mesh::Plane(g) => (g.nx, g.ny, 0, g.edges()),
            Mesh::Volume(g) => {
                let (lx, ly, _) = g.extent();
                (g.nx, g.ny, (g.nz / 2) * g.nx * g.ny, [0.0, lx, 0.0, ly])
            }
        };
        let long = nx.max(ny);
        let (w, h) = if long <= side { (nx, ny) } else { ((nx * side).div_ceil(long), (ny * side).div_ceil(long)) };
        // The cell under each pixel's centre.
        let pick = |p: usize, pixels: usize, cells: usize| ((2 * p + 1) * cells / (2 * pixels)).min(cells - 1);
        let mut cells = Vec::with_capacity(w * h + gauges.len());
        for j in 0..h {
            let row = plane + pick(j, h, ny) * nx;
            cells.extend((0..w).map(|i| row + pick(i, w, nx)));
        }
        cells.extend_from_slice(gauges);
        let spacing = ((extent[1] - extent[0]) / w as f64, (extent[3] - extent[2]) / h as f64);
        Samples { w, h, cells, extent, spacing }
    }

    /// The map's pixels.
    pub fn pixels(&self) -> usize {
        self.w * self.h
    }
}

/// The element offset of interior cell `c` (row-major over `dims`) in an array laid out as
/// `view` says.
fn element(view: &DeviceView, c: usize) -> u64 {
    let mut rest = c;
    let mut at = view.offset / u64::from(view.bits / 8);
    for (&n, &stride) in view.dims.iter().zip(&view.strides).rev() {
        at += ((rest % n) * stride) as u64;
        rest /= n;
    }
    at
}

/// The gather kernel and its buffers, kept by a GPU model between frames: the cells' element
/// offsets (uploaded when the cells change), the values gathered, and the copies that bring
/// them to the host on a second stream while the model steps on.
pub struct GpuSampler<T: GpuReal> {
    kernel: Kernel<Gather<T>>,
    cells: Vec<usize>,
    /// Per array: its offsets, and the device address they were worked out for.
    at: Vec<(u64, DeviceBuffer<u64>)>,
    out: Option<DeviceBuffer<T>>,
    copies: Option<Snapshots<T>>,
}

impl<T: GpuReal> GpuSampler<T> {
    pub fn new(gpu: &Gpu) -> Result<GpuSampler<T>> {
        let kernel = gpu.kernel::<T, _>(GATHER)?;
        Ok(GpuSampler { kernel, cells: Vec::new(), at: Vec::new(), out: None, copies: None })
    }

    /// The sampler a model keeps in `slot`, made there on first use.
    pub fn of<'s>(slot: &'s mut Option<GpuSampler<T>>, gpu: &Gpu) -> Result<&'s mut GpuSampler<T>> {
        match slot {
            Some(s) => Ok(s),
            None => Ok(slot.insert(GpuSampler::new(gpu)?)),
        }
    }

    /// Enqueue one gather of each of `views` (arrays of this precision; the model's stream
    /// orders them after its queued steps) at interior `cells` into one buffer, and its
    /// download on a second stream; returns at once. The frame's values, `views.len()` runs of
    /// `cells.len()`, come with [`Pending::read`].
    pub fn sample_later(&mut self, gpu: &Gpu, views: &[DeviceView], cells: &[usize]) -> Result<Pending<T>> {
        let n = cells.len();
        if n == 0 || views.is_empty() {
            return Err(Error::invalid("the view's gather of no cells or no arrays"));
        }
        let bits = (8 * size_of::<T>()) as u8;
        if let Some(v) = views.iter().find(|v| v.bits != bits) {
            return Err(Error::invalid(format!(
                "the view's gather of {bits}-bit values met '{}' of {} bits",
                v.name, v.bits
            )));
        }
        let total: usize = views[0].dims.iter().product();
        if let Some(&c) = cells.iter().find(|&&c| c >= total) {
            return Err(Error::invalid(format!("the view asked for cell {c} of a field of {total}")));
        }
        if self.cells != cells || self.at.len() != views.len() {
            self.cells = cells.to_vec();
            self.at.clear();
        }
        for (k, v) in views.iter().enumerate() {
            let base = v.address;
            if self.at.get(k).is_none_or(|(b, _)| *b != base) {
                let offsets: Vec<u64> = cells.iter().map(|&c| element(v, c)).collect();
                let buffer = gpu.upload(&offsets)?;
                if k < self.at.len() {
                    self.at[k] = (base, buffer);
                } else {
                    self.at.push((base, buffer));
                }
            }
        }
        let len = views.len() * n;
        if self.out.as_ref().is_none_or(|o| o.len() != len) {
            // NaN until gathered: a value never written shows as missing, not as another's.
            let mut out = gpu.alloc(len)?;
            crate::foundation::gpu::fill(gpu, &mut out, T::NAN)?;
            self.out = Some(out);
            self.copies = Some(Snapshots::new(gpu, &[len])?);
        }
        let (Some(out), Some(copies)) = (self.out.as_mut(), self.copies.as_mut()) else {
            return Err(Error::invalid("the view's buffers"));
        };
        let shape = LaunchShape::cover_1d(n as u64, GATHER_BLOCK)?;
        for (k, (v, (_, at))) in views.iter().zip(&self.at).enumerate() {
            let params = Gather {
                src: std::ptr::without_provenance(v.address as usize),
                at: at.ptr(),
                n: n as u64,
                // Device addresses: arithmetic only, never dereferenced here.
                out: out.ptr_mut().wrapping_add(k * n),
            };
            // SAFETY: every offset lies inside its array (the cells are interior cells and the
            // offsets follow the array's own layout); `out` is a separate allocation of
            // views.len()·n values; the grid covers n threads.
            unsafe { self.kernel.launch(shape, params)? };
        }
        copies.take(gpu, &[&*out])
    }

    /// [`sample_later`](Self::sample_later), waited for: each view's values at `cells`.
    pub fn sample(&mut self, gpu: &Gpu, views: &[DeviceView], cells: &[usize]) -> Result<Vec<Vec<T>>> {
        let n = cells.len();
        self.sample_later(gpu, views, cells)?.read(|q| q[0].chunks_exact(n).map(|c| c.to_vec()).collect())
    }
}

/// A GPU model's state at `cells` from its device views ([`crate::model::Model::device_views`],
/// taken without waiting for the model's queue) where those are its state's fields: gathered
/// on the device by `sampler` (made on first use) and brought over while the model steps on;
/// each field named as its view, and a view `<name>_low` (the low part of a compensated level)
/// added to `<name>` in `T`, as the model's state adds them.
pub fn sample_views<T: GpuReal>(
    sampler: &mut Option<GpuSampler<T>>,
    gpu: &Gpu,
    views: Vec<DeviceView>,
    cells: &[usize],
    clock: Clock,
) -> Result<Later<T>> {
    let pending = GpuSampler::of(sampler, gpu)?.sample_later(gpu, &views, cells)?;
    let n = cells.len();
    Ok(Later::of(move || {
        let values = pending.read(|q| q[0].chunks_exact(n).map(|c| c.to_vec()).collect::<Vec<Vec<T>>>())?;
        let mut fields: Vec<Output<T>> = Vec::new();
        let mut lows = Vec::new();
        for (v, data) in views.iter().zip(values) {
            match v.name.strip_suffix("_low") {
                Some(base) => lows.push((base, data)),
                None => {
                    fields.push(Output { name: v.name, long_name: v.long_name, units: v.units, dims: vec![n], data })
                }
            }
        }
        for (base, low) in lows {
            let f = fields.iter_mut().find(|f| f.name == base).ok_or_else(|| {
                Error::invalid(format!("the view's gather met a low part of '{base}' without its high part"))
            })?;
            f.data.iter_mut().zip(low).for_each(|(hi, lo)| *hi += lo);
        }
        Ok(State { clock, fields, boundary: Vec::new() })
    }))
}
