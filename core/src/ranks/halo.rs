//! The ghost rows a slab takes from its neighbours: after a solver has set its ghosts as for a
//! grid of its own, the rows at each cut are replaced by the neighbour's interior rows, so
//! every stencil reads what it reads in the undivided grid.

use super::comm::{Comm, Recv, Send, Tag};
use super::nccl::{DeviceLink, Message};
use super::slabs::Slab;
use super::wire;
use crate::grid::Layout2;
use crate::runtime::Gpu;
use crate::{GpuReal, Real, Result};
use cudarc::driver::{CudaSlice, CudaStream};
use kernels::Bands;
use std::rc::Rc;
use std::sync::Arc;

/// A message travelling to the neighbour above (north) or below (south).
const UP: Tag = 1;
const DOWN: Tag = 2;

/// One rank's ghost-row exchange for padded fields of `layout` (the slab's own layout: its
/// interior rows and the solver's ghost layers).
#[derive(Clone)]
pub struct Halo {
    comm: Rc<dyn Comm>,
    slab: Slab,
    layout: Layout2,
    /// Values stored for each point of the layout (cells of several values, interleaved).
    width: usize,
    /// The ranks' GPUs' direct link, where they have one: fields on the GPU are exchanged
    /// through it instead of through the host.
    link: Option<Rc<DeviceLink>>,
    /// Whether a solver that can may exchange beside its computation of the rows that do not
    /// wait for the ghost rows (`exchange_beside_bands`): true unless [`OVERLAP_ENV`] is `0` or
    /// [`in_order`](Halo::in_order) says otherwise.
    overlap: bool,
}

/// The environment variable that turns the exchange beside the computation off (`0`): the
/// ghost rows then travel before the kernels that read any row, on their stream.
pub const OVERLAP_ENV: &str = "HYDROKERN_OVERLAP";

impl Halo {
    pub fn new(comm: Rc<dyn Comm>, slab: Slab, layout: Layout2) -> Halo {
        let overlap = std::env::var(OVERLAP_ENV).map_or(true, |v| v != "0");
        Halo { comm, slab, layout, width: 1, link: None, overlap }
    }

    /// The same halo for fields that store `width` values for each point of the layout, one
    /// after another (a cell of several state values): a row holds `width` times the values.
    pub fn of_width(self, width: usize) -> Halo {
        Halo { width, ..self }
    }

    /// The slab's padded layout.
    pub fn layout(&self) -> Layout2 {
        self.layout
    }

    /// The same halo exchanging fields on the GPU through `link` (none: through the host).
    pub fn linked(self, link: Option<Rc<DeviceLink>>) -> Halo {
        Halo { link, ..self }
    }

    pub fn link(&self) -> Option<&Rc<DeviceLink>> {
        self.link.as_ref()
    }

    /// The same halo with its exchanges always before the kernels that read any row (no
    /// exchange beside the computation), as `bench scaling` compares.
    pub fn in_order(self) -> Halo {
        Halo { overlap: false, ..self }
    }

    /// Whether exchanges may go beside the computation: through the ranks' link, unless turned
    /// off ([`OVERLAP_ENV`], [`in_order`](Self::in_order)).
    pub fn overlaps(&self) -> bool {
        self.overlap && self.link.is_some()
    }

    pub fn comm(&self) -> &Rc<dyn Comm> {
        &self.comm
    }

    pub fn slab(&self) -> &Slab {
        &self.slab
    }

    /// [`exchange`](Self::exchange) inside a step, which has no error to return: a failed
    /// exchange (a rank gone) stops every rank.
    pub fn refresh<T: Real>(&self, fields: &mut [&mut [T]]) {
        if let Err(e) = self.exchange(fields) {
            self.comm.abort(&format!("rank {}: {e}", self.slab.rank), 1)
        }
    }

    /// Replace the ghost rows at each cut of every field (each of the slab's padded layout,
    /// whole rows with their x ghosts) by the neighbour's interior rows next to the cut: one
    /// message each way per neighbour for all the fields together.
    pub fn exchange<T: Real>(&self, fields: &mut [&mut [T]]) -> Result<()> {
        super::spent::exchanging(|| self.exchange_host(fields))
    }

    fn exchange_host<T: Real>(&self, fields: &mut [&mut [T]]) -> Result<()> {
        let (low, high) = self.edges();
        let pack = |rows: std::ops::Range<usize>, fields: &[&mut [T]]| -> Vec<T> {
            fields.iter().flat_map(|f| f[rows.clone()].iter().copied()).collect()
        };
        let (below, above) = self.swap(&pack(low, fields), &pack(high, fields), fields.len())?;
        let (ghost_low, ghost_high) = self.ghost_rows();
        let span = ghost_low.len();
        for (k, f) in fields.iter_mut().enumerate() {
            if let Some(b) = &below {
                f[ghost_low.clone()].copy_from_slice(&b[k * span..(k + 1) * span]);
            }
            if let Some(a) = &above {
                f[ghost_high.clone()].copy_from_slice(&a[k * span..(k + 1) * span]);
            }
        }
        Ok(())
    }

    /// [`exchange`](Self::exchange) for fields on the GPU: through the ranks' direct link
    /// where they have one, queued on the stream; else staged through the host (a download of
    /// the rows next to each cut, the exchange, an upload into the ghost rows).
    pub fn exchange_device<T: GpuReal>(&self, gpu: &Gpu, fields: &mut [&mut CudaSlice<T>]) -> Result<()> {
        let planes: Vec<(usize, usize)> = (0..fields.len()).map(|k| (k, 0)).collect();
        self.exchange_planes(gpu, fields, &planes)
    }

    /// [`exchange_device`](Self::exchange_device) for every field of the slab's padded layout
    /// in `buffer`, one after another (a run's state buffers, each of several fields); its
    /// length is a whole number of them.
    pub fn exchange_buffer<T: GpuReal>(&self, gpu: &Gpu, buffer: &mut CudaSlice<T>) -> Result<()> {
        let planes = self.buffer_planes(buffer)?;
        self.exchange_planes(gpu, &mut [buffer], &planes)
    }

    /// [`exchange_beside_bands`](Self::exchange_beside_bands) for the fields of `buffer`, as
    /// [`exchange_buffer`](Self::exchange_buffer) exchanges them.
    pub fn exchange_buffer_beside_bands<T: GpuReal>(
        &self,
        gpu: &Gpu,
        buffer: &mut CudaSlice<T>,
        (ny, rows, reach): (u32, u32, u32),
        launch: impl Fn(Bands, &CudaStream) -> Result<()>,
    ) -> Result<()> {
        let planes = self.buffer_planes(buffer)?;
        let link = self.link.as_ref().filter(|_| self.overlap);
        let (Some(inner), Some(link)) = (Bands::inner(ny, rows, reach), link) else {
            self.exchange_planes(gpu, &mut [buffer], &planes)?;
            return launch(Bands::all(ny, rows), gpu.stream());
        };
        let messages = self.messages(link, &[&mut *buffer], &planes);
        self.beside(gpu, link, messages, (Bands::edges(ny, rows, reach), inner), launch)
    }

    /// Where each field of `buffer` (fields of the slab's padded layout one after another)
    /// starts in it.
    fn buffer_planes<T>(&self, buffer: &CudaSlice<T>) -> Result<Vec<(usize, usize)>> {
        let len = self.layout.len() * self.width;
        if !buffer.len().is_multiple_of(len) {
            return Err(crate::Error::invalid(format!(
                "ranks: a buffer of {} values for fields of {len}",
                buffer.len()
            )));
        }
        Ok((0..buffer.len() / len).map(|k| (0, k * len)).collect())
    }

    /// The exchange of the fields at `planes` (which of `fields`, and the offset there).
    fn exchange_planes<T: GpuReal>(
        &self,
        gpu: &Gpu,
        fields: &mut [&mut CudaSlice<T>],
        planes: &[(usize, usize)],
    ) -> Result<()> {
        if self.slab.below.is_none() && self.slab.above.is_none() {
            return Ok(());
        }
        if let Some(link) = &self.link {
            return super::spent::exchanging(|| self.exchange_linked(link, fields, planes));
        }
        // The work queued before is the slab's own: it is not counted as the exchange's.
        gpu.synchronize()?;
        super::spent::exchanging(|| self.exchange_staged(gpu, fields, planes))
    }

    fn exchange_staged<T: GpuReal>(
        &self,
        gpu: &Gpu,
        fields: &mut [&mut CudaSlice<T>],
        planes: &[(usize, usize)],
    ) -> Result<()> {
        let (low, high) = self.edges();
        // Every plane's rows for below, then every plane's for above, where there is a
        // neighbour: one download.
        let wanted = [(self.slab.below.is_some(), low), (self.slab.above.is_some(), high)];
        let edges: Vec<_> = wanted.iter().filter(|(n, _)| *n).map(|(_, r)| r.clone()).collect();
        let fields_ = &*fields;
        let parts: Vec<_> = edges
            .iter()
            .flat_map(|r| planes.iter().map(move |&(k, at)| (&*fields_[k], at + r.start..at + r.end)))
            .collect();
        let rows = gpu.download_ranges(&parts)?;
        let down = if self.slab.below.is_some() { rows.len() / edges.len() } else { 0 };
        let (below, above) = self.swap(&rows[..down], &rows[down..], planes.len())?;
        let (ghost_low, ghost_high) = self.ghost_rows();
        let span = ghost_low.len();
        // What came from each neighbour, plane by plane, into the ghost rows on its side.
        let mut host = Vec::with_capacity(rows.len());
        let mut pieces = Vec::with_capacity(2 * planes.len());
        for (got, at) in [(below, ghost_low.start), (above, ghost_high.start)] {
            if let Some(v) = got {
                host.extend_from_slice(&v);
                pieces.extend(planes.iter().map(|&(k, off)| (k, off + at, span)));
            }
        }
        gpu.write_ranges(&host, fields, &pieces)
    }

    /// [`exchange_planes`](Self::exchange_planes) through `link`, queued on the GPU's stream.
    fn exchange_linked<T: GpuReal>(
        &self,
        link: &DeviceLink,
        fields: &mut [&mut CudaSlice<T>],
        planes: &[(usize, usize)],
    ) -> Result<()> {
        let (sends, recvs) = self.messages(link, fields, planes);
        link.exchange(&sends, &recvs)
    }

    /// The GPU's stream waits for the last exchange aside (`DeviceLink::exchange_aside`).
    pub fn join_device(&self) -> Result<()> {
        self.link.as_ref().map_or(Ok(()), |l| l.join())
    }

    /// A streamed kernel over the slab's `ny` rows in bands of `rows` (each launch by `launch`:
    /// its bands, the stream to queue it on), while the ghost rows of `fields` at the cuts
    /// travel: the exchange and then the bands that read a ghost row (a cell reading `reach`
    /// rows on each side) on the stream beside the GPU's, the inner bands on the GPU's stream,
    /// which then waits for both. Each band is computed by the same code wherever it runs, so
    /// the results are those of the exchange and the whole launch in turn, bit for bit. Where
    /// there are no inner bands, the exchange and then every band on the GPU's stream.
    pub fn exchange_beside_bands<T: GpuReal>(
        &self,
        gpu: &Gpu,
        fields: &mut [&mut CudaSlice<T>],
        bands: (u32, u32, u32),
        launch: impl Fn(Bands, &CudaStream) -> Result<()>,
    ) -> Result<()> {
        self.exchange_beside_bands_of_two::<T, T>(gpu, (fields, &mut []), bands, launch)
    }

    /// [`exchange_device`](Self::exchange_device) of fields of two precisions (a mixed-precision
    /// state): those of `a`, then those of `b`, one exchange for each that has fields.
    pub fn exchange_device_of_two<A: GpuReal, B: GpuReal>(
        &self,
        gpu: &Gpu,
        (a, b): (&mut [&mut CudaSlice<A>], &mut [&mut CudaSlice<B>]),
    ) -> Result<()> {
        if !a.is_empty() {
            self.exchange_device(gpu, a)?;
        }
        if !b.is_empty() {
            self.exchange_device(gpu, b)?;
        }
        Ok(())
    }

    /// [`exchange_beside_bands`](Self::exchange_beside_bands) for fields of two precisions (a
    /// mixed-precision state), all in one exchange.
    pub fn exchange_beside_bands_of_two<A: GpuReal, B: GpuReal>(
        &self,
        gpu: &Gpu,
        (a, b): (&mut [&mut CudaSlice<A>], &mut [&mut CudaSlice<B>]),
        (ny, rows, reach): (u32, u32, u32),
        launch: impl Fn(Bands, &CudaStream) -> Result<()>,
    ) -> Result<()> {
        let link = self.link.as_ref().filter(|_| self.overlap);
        let (Some(inner), Some(link)) = (Bands::inner(ny, rows, reach), link) else {
            self.exchange_device_of_two(gpu, (a, b))?;
            return launch(Bands::all(ny, rows), gpu.stream());
        };
        let planes = |n: usize| (0..n).map(|k| (k, 0)).collect::<Vec<_>>();
        let (mut sends, mut recvs) = self.messages(link, a, &planes(a.len()));
        let (more_sends, more_recvs) = self.messages(link, b, &planes(b.len()));
        sends.extend(more_sends);
        recvs.extend(more_recvs);
        self.beside(gpu, link, (sends, recvs), (Bands::edges(ny, rows, reach), inner), launch)
    }

    /// The exchange of `sends` and `recvs` and then the `edges` bands on the stream beside the
    /// GPU's, the `inner` bands on the GPU's, which then waits for both.
    fn beside(
        &self,
        gpu: &Gpu,
        link: &DeviceLink,
        (sends, recvs): (Vec<Message>, Vec<Message>),
        (edges, inner): (Bands, Bands),
        launch: impl Fn(Bands, &CudaStream) -> Result<()>,
    ) -> Result<()> {
        let then = |beside: &Arc<CudaStream>| launch(edges, beside);
        super::spent::exchanging(|| link.exchange_aside(&sends, &recvs, then))?;
        launch(inner, gpu.stream())?;
        self.join_device()
    }

    /// The messages of an exchange of the fields at `planes` through `link`: each plane's rows
    /// at a cut straight from its memory into the neighbour's ghost rows. A pair of ranks
    /// matches its messages in order, so every rank lists its sends down before up and its
    /// receives from above (what the neighbour sent down) before those from below: with two
    /// ranks on a periodic axis, where each is both neighbours of the other, the orders agree.
    fn messages<T: GpuReal>(
        &self,
        link: &DeviceLink,
        fields: &[&mut CudaSlice<T>],
        planes: &[(usize, usize)],
    ) -> (Vec<Message>, Vec<Message>) {
        let (low, high) = self.edges();
        let (ghost_low, ghost_high) = self.ghost_rows();
        let width = std::mem::size_of::<T>();
        let bytes = low.len() * width;
        let bases: Vec<u64> =
            planes.iter().map(|&(k, at)| link.gpu().address(&*fields[k]) + (at * width) as u64).collect();
        let messages = |peer: Option<usize>, rows: &std::ops::Range<usize>| -> Vec<Message> {
            let offset = (rows.start * width) as u64;
            peer.map(|peer| bases.iter().map(|b| Message { peer, at: b + offset, bytes }).collect()).unwrap_or_default()
        };
        let sends = [messages(self.slab.below, &low), messages(self.slab.above, &high)].concat();
        let recvs = [messages(self.slab.above, &ghost_high), messages(self.slab.below, &ghost_low)].concat();
        (sends, recvs)
    }

    /// The largest over the ranks of `value[0]` on the GPU, in place: through the ranks' link on
    /// the stream, or through the host (synchronising). NCCL's maximum may lose a NaN, so what
    /// is reduced must not be NaN.
    pub fn max_device<T: GpuReal>(&self, gpu: &Gpu, value: &mut CudaSlice<T>) -> Result<()> {
        if let Some(link) = &self.link {
            return super::spent::reducing(|| link.max_in_place(value));
        }
        gpu.synchronize()?;
        super::spent::reducing(|| {
            let mine = gpu.download_range(value, 0..1)?[0];
            let all = self.comm.max(mine.to_f64())?;
            gpu.write(&[T::from_f64(all)], value)
        })
    }

    /// The values in a stored row, the ghost rows on each side and the interior rows.
    fn rows(&self) -> (usize, usize, usize) {
        (self.layout.pitch as usize * self.width, self.layout.halo as usize, self.layout.ny as usize)
    }

    /// The stored points of the lowest and of the highest interior rows, as many as the ghost
    /// layers: what goes down and up.
    fn edges(&self) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let (p, g, n) = self.rows();
        (g * p..2 * g * p, n * p..(n + g) * p)
    }

    /// The stored points of the interior rows sent below and above (each the length of a
    /// field's ghost rows at one cut), where there is a neighbour that way.
    pub fn sent_rows(&self) -> [Option<std::ops::Range<usize>>; 2] {
        let (low, high) = self.edges();
        [self.slab.below.map(|_| low), self.slab.above.map(|_| high)]
    }

    /// The stored points of the ghost rows below and above the interior.
    fn ghost_rows(&self) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let (p, g, n) = self.rows();
        (0..g * p, (n + g) * p..(n + 2 * g) * p)
    }

    /// Send `low` (the lowest rows of `fields` fields, packed) down and `high` up, each only
    /// where there is a neighbour that way (and may be empty where there is not), and return
    /// what came from below and from above (none where there is no neighbour).
    #[allow(clippy::type_complexity)]
    fn swap<T: Real>(&self, low: &[T], high: &[T], fields: usize) -> Result<(Option<Vec<T>>, Option<Vec<T>>)> {
        if self.slab.below.is_none() && self.slab.above.is_none() {
            return Ok((None, None));
        }
        let bytes = fields * self.ghost_rows().0.len() * wire::width::<T>();
        let encode = |v: &[T]| {
            let mut out = Vec::with_capacity(bytes);
            wire::put(v, &mut out);
            out
        };
        let (down, up) = (encode(low), encode(high));
        let mut from_below = vec![0u8; if self.slab.below.is_some() { bytes } else { 0 }];
        let mut from_above = vec![0u8; if self.slab.above.is_some() { bytes } else { 0 }];
        let mut sends = Vec::new();
        let mut recvs = Vec::new();
        if let Some(r) = self.slab.below {
            sends.push(Send { rank: r, tag: DOWN, bytes: &down });
            recvs.push(Recv { rank: r, tag: UP, bytes: &mut from_below });
        }
        if let Some(r) = self.slab.above {
            sends.push(Send { rank: r, tag: UP, bytes: &up });
            recvs.push(Recv { rank: r, tag: DOWN, bytes: &mut from_above });
        }
        self.comm.exchange(&sends, &mut recvs)?;
        drop(recvs);
        let below = self.slab.below.map(|_| wire::values(&from_below)).transpose()?;
        let above = self.slab.above.map(|_| wire::values(&from_above)).transpose()?;
        Ok((below, above))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranks::slabs::Slabs;
    use crate::ranks::threads::Threads;

    /// Each slab, filled with its own interior of a whole padded grid and garbage in its ghost
    /// rows, receives at its cuts exactly the whole grid's rows (periodic: wrapped).
    fn exchange_matches_the_whole_grid<T: Real>(nx: u32, ny: usize, halo: u32, ranks: usize, periodic: bool) {
        let whole = Layout2::new(nx, ny as u32, halo);
        let (p, g) = (whole.pitch as usize, halo as usize);
        // Value of padded row r (interior rows wrap on a periodic axis), column c.
        let value = |r: isize, c: usize| {
            let r = if periodic { (r - g as isize).rem_euclid(ny as isize) + g as isize } else { r };
            T::from_f64((r * 1000 + c as isize) as f64 + 0.25)
        };
        let slabs = Slabs::new(ny, ranks, g, periodic).unwrap();
        std::thread::scope(|scope| {
            for t in Threads::group(ranks) {
                scope.spawn(move || {
                    let comm: Rc<dyn Comm> = Rc::new(t);
                    let slab = slabs.slab(comm.rank());
                    let layout = Layout2::new(nx, slab.rows.len() as u32, halo);
                    let y0 = slab.rows.start as isize;
                    let mut a = vec![T::from_f64(-1.0); layout.len()];
                    let mut b = vec![T::from_f64(-2.0); layout.len()];
                    let rows = layout.len() / p;
                    for r in g..rows - g {
                        for c in 0..p {
                            a[r * p + c] = value(y0 + r as isize, c);
                            b[r * p + c] = -value(y0 + r as isize, c);
                        }
                    }
                    let halo_ = Halo::new(comm, slab.clone(), layout);
                    halo_.exchange(&mut [&mut a, &mut b]).unwrap();
                    for r in 0..rows {
                        let cut = (r < g && slab.below.is_some()) || (r >= rows - g && slab.above.is_some());
                        let interior = r >= g && r < rows - g;
                        for c in 0..p {
                            let want = if cut || interior { value(y0 + r as isize, c) } else { T::from_f64(-1.0) };
                            assert_eq!(a[r * p + c], want, "rank {} row {r} col {c}", slab.rank);
                            let want_b = if cut || interior { -value(y0 + r as isize, c) } else { T::from_f64(-2.0) };
                            assert_eq!(b[r * p + c], want_b);
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn ghost_rows_at_cuts_are_the_neighbours_rows() {
        for (nx, ny, halo, ranks) in [(3, 7, 1, 3), (5, 8, 2, 4), (1, 4, 2, 2), (4, 9, 1, 9), (2, 5, 2, 1)] {
            for periodic in [false, true] {
                exchange_matches_the_whole_grid::<f64>(nx, ny, halo, ranks, periodic);
                exchange_matches_the_whole_grid::<f32>(nx, ny, halo, ranks, periodic);
            }
        }
    }
}
