//! Padded fields: the values of one quantity on a grid's interior and ghost layers, on the host
//! ([`Field2`]) or on the GPU ([`DeviceField2`]), indexed through their [`Layout2`].
//!
//! Host fields are allocated fallibly, so a grid too large for this machine's memory is an
//! error, never an abort.

use crate::alloc::{try_empty, try_filled};
use crate::grid::Layout2;
use crate::model::DeviceView;
use crate::runtime::{DeviceBuffer, Gpu};
use crate::{Error, GpuReal, Real, Result};

/// A padded 2D field on the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Field2<T> {
    layout: Layout2,
    data: Vec<T>,
}

impl<T: Copy + Send + Sync> Field2<T> {
    /// A field with every stored point set to `value`.
    pub fn filled(layout: Layout2, value: T) -> Result<Field2<T>> {
        Ok(Field2 { layout, data: try_filled("a field", layout.len(), value)? })
    }
    /// A field whose every stored point (ghosts included) is `value(i, j)`, interior-relative,
    /// computed on every core and written once: a field of hundreds of megabytes is mostly the
    /// first touch of its pages.
    pub fn from_fn(layout: Layout2, value: impl Fn(i32, i32) -> T + Sync) -> Result<Field2<T>> {
        use rayon::prelude::*;
        let (pitch, h) = (layout.pitch as usize, layout.halo as i32);
        let mut data = try_empty("a field", layout.len())?;
        data.par_extend(
            (0..layout.len()).into_par_iter().map(|g| value((g % pitch) as i32 - h, (g / pitch) as i32 - h)),
        );
        Ok(Field2 { layout, data })
    }
    /// A field whose stored points are `data` (in stored order).
    pub fn from_stored(layout: Layout2, data: Vec<T>) -> Result<Field2<T>> {
        if data.len() != layout.len() {
            return Err(Error::invalid(format!(
                "{} values for a padded {}×{} field with {} ghost layers ({} stored points)",
                data.len(),
                layout.nx,
                layout.ny,
                layout.halo,
                layout.len()
            )));
        }
        Ok(Field2 { layout, data })
    }
    /// A field with the interior from `interior` (`nx·ny` values, row-major, x fastest) and
    /// the ghosts set to `ghost`.
    pub fn from_interior<S: Copy>(
        layout: Layout2,
        interior: &[S],
        ghost: T,
        conv: impl Fn(S) -> T,
    ) -> Result<Field2<T>> {
        let mut f = Field2::filled(layout, ghost)?;
        f.fill_interior(interior, conv)?;
        Ok(f)
    }
    /// Replace the interior by `interior` (`nx·ny` values, row-major, x fastest); the ghosts
    /// keep their values.
    pub fn set_interior(&mut self, interior: &[T]) -> Result<()> {
        self.fill_interior(interior, |v| v)
    }
    fn fill_interior<S: Copy>(&mut self, interior: &[S], conv: impl Fn(S) -> T) -> Result<()> {
        let (nx, ny) = (self.layout.nx as usize, self.layout.ny as usize);
        if interior.len() != nx * ny {
            return Err(Error::invalid(format!("{} values for the {nx}×{ny} interior of a field", interior.len())));
        }
        for j in 0..ny {
            let row = &interior[j * nx..(j + 1) * nx];
            let at = self.layout.at(0, j as i32);
            for (dst, &src) in self.data[at..at + nx].iter_mut().zip(row) {
                *dst = conv(src);
            }
        }
        Ok(())
    }
    pub fn layout(&self) -> Layout2 {
        self.layout
    }
    /// The stored points (interior and ghosts).
    pub fn stored(&self) -> &[T] {
        &self.data
    }
    pub fn stored_mut(&mut self) -> &mut [T] {
        &mut self.data
    }
    /// Point (i, j), interior-relative (ghosts at negative indices and past the interior).
    pub fn get(&self, i: i32, j: i32) -> T {
        self.data[self.layout.at(i, j)]
    }
    pub fn set(&mut self, i: i32, j: i32, v: T) {
        let at = self.layout.at(i, j);
        self.data[at] = v;
    }
    /// The interior, row-major with x fastest: `ny` rows of `nx` values (NumPy shape (ny, nx)).
    pub fn interior(&self) -> Vec<T> {
        interior_of(&self.layout, &self.data)
    }
    /// The field of interior rows `rows` with the ghost layers around them as this field holds
    /// them: the rows beyond the slab where it is cut, its own ghosts at its sides.
    pub fn slab(&self, rows: std::ops::Range<usize>) -> Result<Field2<T>> {
        let (p, g) = (self.layout.pitch as usize, self.layout.halo as usize);
        if rows.is_empty() || rows.end > self.layout.ny as usize {
            return Err(Error::invalid(format!("rows {rows:?} of a field of {} rows", self.layout.ny)));
        }
        let layout = Layout2::new(self.layout.nx, rows.len() as u32, self.layout.halo);
        Field2::from_stored(layout, self.data[rows.start * p..(rows.end + 2 * g) * p].to_vec())
    }
}

/// The interior of stored points `data` laid out by `layout`, row-major.
pub fn interior_of<T: Copy + Send + Sync>(layout: &Layout2, data: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    interior_into(layout, data, &mut out);
    out
}

/// Values a parallel pass over a field hands each task at least: enough that a small field is
/// one task, and a 4096² snapshot hundreds.
pub const PARALLEL_GRAIN: usize = 1 << 16;

/// Cells a solver's stencil pass (hundreds of operations a cell) hands each task at least. A
/// grid of fewer than twice as many is one task, which rayon runs on the calling thread: a
/// small grid's pass is less work than waking other threads for it and waiting on them. The
/// passes write each cell from values no other task writes, so the split changes no bit.
pub const STENCIL_GRAIN: usize = 1 << 12;

/// Rows of `pitch` cells a stencil pass hands each task at least ([`STENCIL_GRAIN`]).
pub fn stencil_rows(pitch: usize) -> usize {
    (STENCIL_GRAIN / pitch.max(1)).max(1)
}

/// The index of the first value of `data` for which `bad` holds. Runs of [`PARALLEL_GRAIN`]
/// values are searched in parallel, each in order (rayon's `position_first` over single values
/// takes ~10 ns a value, more than a plain loop on one core).
pub fn first_where<T: Sync>(data: &[T], bad: impl Fn(&T) -> bool + Sync) -> Option<usize> {
    use rayon::prelude::*;
    let run = data.par_chunks(PARALLEL_GRAIN).position_first(|r| r.iter().any(&bad))?;
    let at = run * PARALLEL_GRAIN;
    data[at..].iter().position(bad).map(|k| at + k)
}

/// [`interior_of`], appended to `out` (a vector whose memory is reused). Rows are copied in
/// parallel: a GPU run's writer assembles a 4096² snapshot here, and one core takes ~30 ms a field.
pub fn interior_into<T: Copy + Send + Sync>(layout: &Layout2, data: &[T], out: &mut Vec<T>) {
    interior_into_as(layout, data, out, |v| v);
}

/// [`interior_into`], each value converted by `convert` on the way (the mixed precision's f64
/// surface and f32 momenta into the runner's precision).
pub fn interior_into_as<S: Copy + Sync, T: Send>(
    layout: &Layout2,
    data: &[S],
    out: &mut Vec<T>,
    convert: impl Fn(S) -> T + Sync,
) {
    use rayon::prelude::*;
    let (nx, ny) = (layout.nx as usize, layout.ny as usize);
    let start = out.len();
    out.reserve(nx * ny);
    let rows = &mut out.spare_capacity_mut()[..nx * ny];
    rows.par_chunks_mut(nx.max(1)).with_min_len(PARALLEL_GRAIN / nx.max(1)).enumerate().for_each(|(j, row)| {
        let at = layout.at(0, j as i32);
        for (o, &v) in row.iter_mut().zip(&data[at..at + nx]) {
            o.write(convert(v));
        }
    });
    // SAFETY: the nx·ny values after `start` are initialised: row j of them by task j above
    // (a panic there, a row out of `data`, unwinds past this line).
    unsafe { out.set_len(start + nx * ny) };
}

/// A field reads as its stored points, ghosts included, so the point functions and kernels
/// that take slices take a field.
impl<T> std::ops::Deref for Field2<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.data
    }
}

impl<T> std::ops::DerefMut for Field2<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.data
    }
}

impl<T: Real> Field2<T> {
    /// The field in precision `U`.
    pub fn convert<U: Real>(&self) -> Field2<U> {
        Field2 { layout: self.layout, data: self.data.iter().map(|v| U::from_f64(v.to_f64())).collect() }
    }
}

/// A padded 2D field on the GPU. A model's fields live there for the whole run; they come to
/// the host only for output.
pub struct DeviceField2<T: GpuReal> {
    layout: Layout2,
    buf: DeviceBuffer<T>,
}

impl<T: GpuReal> DeviceField2<T> {
    /// Upload a host field.
    pub fn upload(gpu: &Gpu, f: &Field2<T>) -> Result<DeviceField2<T>> {
        Ok(DeviceField2 { layout: f.layout, buf: gpu.upload(f.stored())? })
    }
    /// A field whose contents are unspecified until a kernel writes it.
    pub fn uninit(gpu: &Gpu, layout: Layout2) -> Result<DeviceField2<T>> {
        Ok(DeviceField2 { layout, buf: gpu.alloc(layout.len())? })
    }
    /// A field of zeros.
    pub fn zeros(gpu: &Gpu, layout: Layout2) -> Result<DeviceField2<T>> {
        Ok(DeviceField2 { layout, buf: gpu.zeros(layout.len())? })
    }
    pub fn layout(&self) -> Layout2 {
        self.layout
    }
    pub fn buffer(&self) -> &DeviceBuffer<T> {
        &self.buf
    }
    /// Copy to the host (synchronises).
    pub fn download(&self, gpu: &Gpu) -> Result<Field2<T>> {
        Field2::from_stored(self.layout, gpu.download(&self.buf)?)
    }
    /// The interior on the host, row-major, through page-locked memory (synchronises): what
    /// output wants, at the bus's bandwidth.
    pub fn interior(&self, gpu: &Gpu) -> Result<Vec<T>> {
        gpu.download_with(&self.buf, |f| interior_of(&self.layout, f))
    }
    /// The interior where it lies, for a program that reads it in place: the padded rows are
    /// its strides, the first interior point its offset.
    pub fn view(&self, gpu: &Gpu, names: Names) -> DeviceView {
        let l = self.layout;
        let first = l.halo as usize * l.pitch as usize + l.halo as usize;
        view_at(gpu, &self.buf, names, first, [l.ny as usize, l.nx as usize], l.pitch as usize)
    }
}

/// A state field's name, long name and units.
pub type Names = (&'static str, &'static str, &'static str);

/// The whole of `buf` as rows of `dims[1]` values, for a program that reads it in place.
pub fn buffer_view<T: GpuReal>(gpu: &Gpu, buf: &DeviceBuffer<T>, names: Names, dims: [usize; 2]) -> DeviceView {
    view_at(gpu, buf, names, 0, dims, dims[1])
}

/// `dims` values of `buf` from value `first` on, in rows `pitch` values apart.
fn view_at<T: GpuReal>(
    gpu: &Gpu,
    buf: &DeviceBuffer<T>,
    (name, long_name, units): Names,
    first: usize,
    dims: [usize; 2],
    pitch: usize,
) -> DeviceView {
    let size = std::mem::size_of::<T>();
    DeviceView {
        name,
        long_name,
        units,
        address: gpu.address(buf),
        offset: (first * size) as u64,
        dims: dims.to_vec(),
        strides: vec![pitch, 1],
        bits: (8 * size) as u8,
        device: gpu.ordinal(),
    }
}

/// A device field is its buffer for launches and copies.
impl<T: GpuReal> std::ops::Deref for DeviceField2<T> {
    type Target = DeviceBuffer<T>;
    fn deref(&self) -> &DeviceBuffer<T> {
        &self.buf
    }
}

impl<T: GpuReal> std::ops::DerefMut for DeviceField2<T> {
    fn deref_mut(&mut self) -> &mut DeviceBuffer<T> {
        &mut self.buf
    }
}
