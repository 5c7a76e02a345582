//! The products on the GPU: one kernel after every step reads the state and the device clock,
//! updates the maps in place and writes the step's sample of the sites' cells into a ring of
//! records, which the host drains when it reads the clock anyway (at most every few dozen
//! steps), recording the gauges' values and the lines' discharges.

use super::records::Records;
use super::{MAPS, Products, Sites, Spec, map_starts, maps, saved};
use crate::model::Checkpoint;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{Error, GpuReal, Result};
use kernels::products::{Fields, GAUGE_VALUES, M_UPDATE, Sampling, UPDATE, Update};

/// Samples the record ring holds: more than the steps a model takes between two reads of its
/// clock (the shallow-water model reads it at least every 66 steps).
pub const RING: u32 = 1024;

/// Where the products kernel finds the time and step count of the state it reads.
#[derive(Clone, Copy)]
pub enum ClockAt<'a> {
    /// Slots (time, steps) of the model's device clock: the device decides its steps.
    Device(&'a DeviceBuffer<f64>, usize, usize),
    /// Known on the host when the step is enqueued (a fixed Δt).
    Host { t: f64, steps: u64 },
}

/// Maps, gauge and line records of a GPU model.
pub struct GpuProducts<T: GpuReal> {
    kernel: Kernel<Update<T>>,
    f: Fields<T>,
    s: Sampling,
    cells: DeviceBuffer<u32>,
    /// The maps of [`MAPS`] (nx·ny each; one element each without maxima).
    maps: [DeviceBuffer<T>; MAPS.len()],
    values: DeviceBuffer<T>,
    times: DeviceBuffer<f64>,
    records: Records,
    /// The number of the next sample to bring over (sample n is taken after step n·every).
    next: u64,
}

impl<T: GpuReal> GpuProducts<T> {
    /// `sites` from [`Sites::of`] (or the gauges' cells from [`Spec::cells`], for a case
    /// without lines); `f.maxima` is set from the spec.
    pub fn new(gpu: &Gpu, spec: &Spec, mut f: Fields<T>, sites: impl Into<Sites>) -> Result<Self> {
        let sites = sites.into();
        let cells = &sites.cells;
        f.maxima = u32::from(spec.maxima);
        let n = if spec.maxima { f.nx as usize * f.ny as usize } else { 1 };
        let s = Sampling { gauges: cells.len() as u32, every: spec.every as u32, capacity: RING };
        gpu.check_fits(
            "the gauge and line records and maximum maps",
            MAPS.len() * n * size_of::<T>() + RING as usize * (cells.len() * GAUGE_VALUES * size_of::<T>() + 8),
        )?;
        // Each sampled cell as (i, j), so the kernel divides by nothing (a trap path on the GPU).
        let mut pairs: Vec<u32> = cells.iter().flat_map(|&c| [c % f.nx, c / f.nx]).collect();
        if pairs.is_empty() {
            pairs.push(0);
        }
        let ring = (RING as usize * cells.len() * GAUGE_VALUES).max(1);
        Ok(GpuProducts {
            kernel: gpu.kernel::<T, _>(UPDATE)?,
            f,
            s,
            cells: gpu.upload(&pairs)?,
            // Set on the device: host vectors of the seven maps would cost a page fault every
            // 4 KiB and a pageable upload each, about a second at 4096².
            maps: {
                let fresh = |start: T| -> Result<DeviceBuffer<T>> {
                    let mut m = gpu.alloc(n)?;
                    crate::foundation::gpu::fill(gpu, &mut m, start)?;
                    Ok(m)
                };
                let [a, b, c, d, e, f, g] = map_starts::<T>();
                [fresh(a)?, fresh(b)?, fresh(c)?, fresh(d)?, fresh(e)?, fresh(f)?, fresh(g)?]
            },
            values: gpu.zeros(ring)?,
            times: gpu.zeros(RING as usize)?,
            records: Records::new(spec, &sites),
            next: 0,
        })
    }

    /// Read the shallow-water model's mixed precision: a level array of f64, bed and momenta
    /// arrays of f32 (the pointers [`launch`](Self::launch) takes carry those), each value
    /// converted to `T` on load.
    pub fn reading_mixed(mut self, gpu: &Gpu) -> Result<Self> {
        self.kernel = gpu.kernel::<T, _>(M_UPDATE)?;
        Ok(self)
    }

    /// The length of a model's state buffer, where the device names the one holding the state
    /// ([`launch_at`](Self::launch_at)'s `select`).
    pub fn set_buffer(&mut self, elements: u64) {
        self.f.buffer = elements;
    }

    /// Enqueue the update after a step: `level`, `bed`, `hu`, `hv` laid out as the fields say,
    /// the clock's time and step count at `t_at` and `steps_at` (slots of one f64 buffer).
    pub fn launch(
        &mut self,
        arrays: [*const T; 4],
        clock: &DeviceBuffer<f64>,
        (t_slot, steps_slot): (usize, usize),
    ) -> Result<()> {
        self.launch_at(arrays, None, ClockAt::Device(clock, t_slot, steps_slot))
    }

    /// Enqueue the update after a step: `level`, `bed`, `hu`, `hv` laid out as the fields say;
    /// with `select`, level and momenta lie in the state buffer whose number the device holds
    /// there (`Fields::buffer` elements each), as it chose it.
    pub fn launch_at(
        &mut self,
        arrays: [*const T; 4],
        select: Option<&DeviceBuffer<u32>>,
        clock: ClockAt,
    ) -> Result<()> {
        let [level, bed, hu, hv] = arrays;
        // Without maps, the gauges alone: block (0, 0) samples them.
        let shape = match self.f.maxima != 0 {
            true => LaunchShape::cover_2d(self.f.nx as u64, self.f.ny as u64, (32, 8), (1, 1))?,
            false => LaunchShape::fixed((1, 1, 1), (32, 8, 1)),
        };
        let [mh, ms, mq, mt, ar, du, since] = self.maps.each_mut().map(|m| m.ptr_mut());
        let (t_at, steps_at, t, steps) = match clock {
            ClockAt::Device(c, t_slot, steps_slot) => {
                (c.ptr().wrapping_add(t_slot), c.ptr().wrapping_add(steps_slot), 0.0, 0)
            }
            ClockAt::Host { t, steps } => (std::ptr::null(), std::ptr::null(), t, steps),
        };
        let p = Update {
            f: self.f,
            s: self.s,
            level,
            bed,
            hu,
            hv,
            select: select.map_or(std::ptr::null(), |b| b.ptr()),
            t_at,
            steps_at,
            t,
            steps,
            max_h: mh,
            max_speed: ms,
            arrival: ar,
            max_hazard: mq,
            max_h_time: mt,
            duration: du,
            wet_since: since,
            cells: self.cells.ptr(),
            values: self.values.ptr_mut(),
            times: self.times.ptr_mut(),
        };
        // SAFETY: blocks of 32×8 threads covering nx × ny, or one such block where no map is kept
        // (block (0, 0)'s threads take the samples in turn); level, bed, hu, hv and select are the
        // model's, holding what the fields' views reach (the caller's contract); the seven maps
        // hold nx·ny values each when f.maxima is set (new); cells holds s.gauges pairs (i, j) of interior
        // cells (new, from the sites); values holds RING·gauges·GAUGE_VALUES, times RING; t_at
        // and steps_at are null or slots of the clock buffer (the caller's contract).
        unsafe { self.kernel.launch(shape, p) }
    }

    /// Fill the record ring with NaN, so that a test sees any sample the kernel should have
    /// written and did not.
    pub fn poison_records(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.write(&vec![T::NAN; self.values.len()], &mut self.values)?;
        gpu.write(&vec![f64::NAN; self.times.len()], &mut self.times)
    }

    /// Bring the samples up to step `steps` to the host (synchronises).
    pub fn drain(&mut self, gpu: &Gpu, steps: u64) -> Result<()> {
        if self.records.is_empty() {
            return Ok(());
        }
        let last = steps / self.s.every as u64;
        if last + 1 < self.next {
            return Ok(());
        }
        if last + 1 - self.next > RING as u64 {
            return Err(Error::invalid(format!(
                "gauge samples {} to {last} no longer fit the ring of {RING}: the model read its clock too rarely",
                self.next
            )));
        }
        let g = self.s.gauges as usize;
        // Samples next..=last lie in the ring from slot next mod RING on, in at most two
        // contiguous runs (where it wraps).
        let mut n = self.next;
        while n <= last {
            let slot = (n % RING as u64) as usize;
            let run = ((last + 1 - n) as usize).min(RING as usize - slot);
            let times = gpu.download_range(&self.times, slot..slot + run)?;
            let v = gpu.download_range(&self.values, slot * g * GAUGE_VALUES..(slot + run) * g * GAUGE_VALUES)?;
            for (r, &t) in times.iter().enumerate() {
                let row = &v[r * g * GAUGE_VALUES..(r + 1) * g * GAUGE_VALUES];
                let sample: Vec<[f64; GAUGE_VALUES]> =
                    row.chunks_exact(GAUGE_VALUES).map(|at| std::array::from_fn(|c| at[c].to_f64())).collect();
                self.records.push(t, &sample);
            }
            n += run as u64;
        }
        self.next = last + 1;
        Ok(())
    }

    /// Add the maps and the gauge and line records up to step `steps` (the model's clock) to the
    /// model's checkpoint `c` (drains the ring; synchronises). The ring's position needs no saving:
    /// sample n always goes to slot n mod `RING`, and the samples taken give n.
    pub fn checkpoint(&mut self, gpu: &Gpu, steps: u64, c: Checkpoint<T>) -> Result<Checkpoint<T>> {
        self.drain(gpu, steps)?;
        let maps = match self.f.maxima != 0 {
            true => Some(self.download_maps(gpu)?),
            false => None,
        };
        Ok(saved::save(c, &self.records.series, &self.records.lines, maps))
    }

    /// Go on from the maps and gauge and line records of checkpoint `c` (taken of the same
    /// case): the maps go to the device, the next sample to bring over is the one after the
    /// checkpoint's.
    pub fn restore(&mut self, gpu: &Gpu, c: &Checkpoint<T>) -> Result<()> {
        saved::restore_records(c, &mut self.records, self.s.every as u64)?;
        self.next = saved::samples_after(c.clock.steps, self.s.every as u64);
        self.restore_maps(gpu, c)
    }

    /// Go on from the maps of checkpoint `c` with no records before it: a slab's products
    /// after a restart of a decomposed run, whose rank 0 keeps the records up to it
    /// ([`super::Joined`]).
    pub fn resume_after(&mut self, gpu: &Gpu, c: &Checkpoint<T>) -> Result<()> {
        self.records.clear();
        self.next = saved::samples_after(c.clock.steps, self.s.every as u64);
        self.restore_maps(gpu, c)
    }

    /// The maps of checkpoint `c`, to the device.
    fn restore_maps(&mut self, gpu: &Gpu, c: &Checkpoint<T>) -> Result<()> {
        if self.f.maxima != 0 {
            let restored = saved::restore_maps(c, self.f.nx as usize * self.f.ny as usize)?;
            for (m, host) in self.maps.iter_mut().zip(&restored) {
                gpu.write(host, m)?;
            }
        }
        Ok(())
    }

    /// Every map, brought to the host (synchronises).
    fn download_maps(&self, gpu: &Gpu) -> Result<super::Maps<T>> {
        let mut maps: super::Maps<T> = Default::default();
        for (host, dev) in maps.iter_mut().zip(&self.maps) {
            *host = gpu.download(dev)?;
        }
        Ok(maps)
    }

    /// The products so far, after [`drain`](Self::drain) up to the current step, the maps only
    /// with `with_maps` (synchronises).
    pub fn products(&self, gpu: &Gpu, with_maps: bool) -> Result<Products<T>> {
        let (nx, ny) = (self.f.nx as usize, self.f.ny as usize);
        let maps = if with_maps && self.f.maxima != 0 { maps(nx, ny, self.download_maps(gpu)?) } else { Vec::new() };
        Ok(Products { series: self.records.series.clone(), lines: self.records.lines.clone(), maps })
    }
}
