//! A model decomposed over ranks, as the runner sees it: rank 0 holds a [`Decomposed`] model,
//! which orders every other rank (each in [`serve`]) to do what it does to its own slab, and
//! joins their states into those of the whole grid. The runner and its outputs are therefore
//! the one-rank ones: a state of N ranks is bit for bit the one a single rank would have. A
//! checkpoint is joined the same way (`join`), or, once the runner asks for checkpoints in
//! parts, written by every rank as its own part of a set (`parts`) that joins into the
//! one-rank checkpoint; either restarts on any number of ranks.

use super::comm::{Comm, Messages};
use super::join::{decode_checkpoint, encode_checkpoint, join_checkpoint, join_faces, split_checkpoint};
use super::parts::{self, Part, Set};
use super::slabs::Slabs;
use super::wire::{self, Reader, Writer};
use crate::grid::Layout2;
use crate::model::{Checkpoint, Clock, Halt, Model, Output, Products, Series, State, Until};
use crate::products::{GAUGE_VALUES, Gauge, Joined};
use crate::{Error, GpuReal, Real, Result};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

/// What rank 0 orders the others to do, in the order it does it itself.
#[derive(Clone, Debug, PartialEq)]
enum Order {
    /// Rank 0 has checked the case and builds its model: the others build theirs.
    Go,
    Advance {
        t: f64,
        steps: u64,
    },
    State,
    /// The products so far, the maps only with `maps`.
    Products {
        maps: bool,
    },
    Checkpoint,
    Restore,
    /// Write this rank's part of a checkpoint into the directory `dir`.
    Parts {
        dir: String,
    },
    /// Restore from this rank's part, in `dir`, of the set whose manifest is `manifest` (encoded).
    RestoreParts {
        dir: String,
        manifest: Vec<u8>,
    },
    /// The run ended: the ranks leave [`serve`].
    Stop,
    /// The run failed on rank 0 (which said why): the ranks leave [`serve`] with an error.
    Fail,
}

impl Order {
    fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match *self {
            Order::Go => w.u64(6).str(&build()),
            Order::Advance { t, steps } => w.u64(0).f64(t).u64(steps),
            Order::State => w.u64(1),
            Order::Checkpoint => w.u64(2),
            Order::Restore => w.u64(3),
            Order::Stop => w.u64(4),
            Order::Fail => w.u64(5),
            Order::Products { maps } => w.u64(7).u64(maps as u64),
            Order::Parts { ref dir } => w.u64(8).str(dir),
            Order::RestoreParts { ref dir, ref manifest } => w.u64(9).str(dir).bytes(manifest),
        };
        w.0
    }

    fn decode(bytes: &[u8]) -> Result<Order> {
        let mut r = Reader::new(bytes);
        Ok(match r.u64()? {
            0 => Order::Advance { t: r.f64()?, steps: r.u64()? },
            1 => Order::State,
            2 => Order::Checkpoint,
            3 => Order::Restore,
            4 => Order::Stop,
            5 => Order::Fail,
            6 => {
                r.str()?;
                Order::Go
            }
            7 => Order::Products { maps: r.u64()? != 0 },
            8 => Order::Parts { dir: r.str()? },
            9 => Order::RestoreParts { dir: r.str()?, manifest: r.bytes()?.to_vec() },
            k => return Err(Error::invalid(format!("ranks: an unknown order {k} (ranks of different builds?)"))),
        })
    }
}

/// How long a call of [`Model::advance`] with a deadline steps before the ranks meet again:
/// the ranks must all stop at the same step, so rank 0 turns its deadline into a step count
/// from the rate it has seen.
fn steps_before(deadline: Instant, rate: Option<f64>) -> u64 {
    let left = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
    match rate {
        Some(r) if r.is_finite() && r > 0.0 => (r * left).clamp(1.0, 1e12) as u64,
        _ => 1,
    }
}

/// Rank 0's view of a decomposed model (see the module's description).
pub struct Decomposed<'a, T> {
    comm: Rc<dyn Comm>,
    slabs: Slabs,
    /// The whole grid's padded layout: checkpoints join and split along its rows.
    layout: Layout2,
    model: Box<dyn Model<T> + 'a>,
    /// Steps a second of the last advance, for turning deadlines into step counts.
    rate: Option<f64>,
    /// The whole grid's gauges and lines, where the slabs keep products.
    joined: Option<Joined>,
    /// The last axes of a state's field that a row of the layout spans (`Decomposition::row_axes`).
    row_axes: usize,
    /// Where every rank writes its part of each checkpoint, when checkpoints are sets of parts.
    parts_dir: Option<PathBuf>,
}

impl<'a, T: GpuReal> Decomposed<'a, T> {
    /// Rank 0's model of its own slab, `model`, leading the other ranks of `comm`; `layout` is
    /// the whole grid's padded layout, which the checkpoints of the solver hold their fields in.
    /// The other ranks, waiting in [`wait_for_start`], are told to build their models, and
    /// rank 0 builds its own with `build` at the same time: a slab's model exchanges ghost rows
    /// as it sets its first ghosts. A failure from here on stops every rank.
    pub fn lead(
        comm: Rc<dyn Comm>,
        slabs: Slabs,
        layout: Layout2,
        build: impl FnOnce() -> Result<Box<dyn Model<T> + 'a>>,
    ) -> Result<Self> {
        let mut bytes = Order::Go.encode();
        comm.broadcast(&mut bytes)?;
        let built = build();
        let mine = built.as_ref().err().map(|e| e.to_string());
        if let Some(why) = built_everywhere(comm.as_ref(), mine)? {
            return Err(Error::invalid(why));
        }
        let model = built?;
        Ok(Decomposed { comm, slabs, layout, model, rate: None, joined: None, row_axes: 1, parts_dir: None })
    }

    /// Join the slabs' states along the axis `row_axes` from the last of each field (1, y of
    /// (y, x) fields, unless said otherwise; 2, z of (z, y, x) fields).
    pub fn with_row_axes(mut self, row_axes: usize) -> Self {
        self.row_axes = row_axes;
        self
    }

    /// Join the slabs' products (each slab keeping its own, `products::slab_spec`) into the
    /// whole grid's with `joined`.
    pub fn with_products(mut self, joined: Option<Joined>) -> Self {
        self.joined = joined;
        self
    }

    fn order(&mut self, order: Order) -> Result<()> {
        let mut bytes = order.encode();
        self.comm.broadcast(&mut bytes)
    }

    /// `r`, or every rank stopped with its error: once an order is out, the other ranks are
    /// inside its collective steps and would wait for rank 0 for ever.
    fn or_abort<R>(&self, r: Result<R>) -> R {
        r.unwrap_or_else(|e| self.comm.abort(&format!("rank 0: {e}"), 1))
    }
}

/// Every rank's clock must be rank 0's after an advance: the same steps, time and halt.
fn agree(comm: &dyn Comm, clock: &Clock) -> Result<()> {
    let mut w = Writer::default();
    w.f64(clock.t).u64(clock.steps).f64(clock.dt).u64(halt_code(clock.halt));
    let Some(all) = comm.gather(&w.0)? else { return Ok(()) };
    for (rank, bytes) in all.iter().enumerate().skip(1) {
        if bytes != all.get(0) {
            let mut r = Reader::new(bytes);
            let (t, steps) = (r.f64()?, r.u64()?);
            return Err(Error::invalid(format!(
                "ranks: rank {rank} stands at step {steps} (t = {t}) where rank 0 stands at step {} (t = {}): the ranks parted",
                clock.steps, clock.t
            )));
        }
    }
    Ok(())
}

fn halt_code(h: Option<Halt>) -> u64 {
    match h {
        None => 0,
        Some(Halt::NonFinite) => 1,
        Some(Halt::Collapsed { .. }) => 2,
        Some(Halt::Rejected { .. }) => 3,
    }
}

/// `fields` at the end of the message `w` (each its name, dims and values), as [`join_state`]
/// reads them.
fn put_fields<T: Real>(w: &mut Writer, fields: &[Output<T>]) {
    w.u64(fields.len() as u64);
    for f in fields {
        w.str(f.name).u64(f.dims.len() as u64);
        f.dims.iter().for_each(|&d| {
            w.u64(d as u64);
        });
        w.values(&f.data);
    }
}

/// Bytes [`put_fields`] writes for `fields`, so that a message is allocated once.
fn fields_bytes<T: Real>(fields: &[Output<T>]) -> usize {
    let each = |f: &Output<T>| 8 + f.name.len() + 8 + 8 * f.dims.len() + 8 + wire::width::<T>() * f.data.len();
    8 + fields.iter().map(each).sum::<usize>()
}

/// A slab's boundary faces' values ([`Model::boundary_faces`]), then its state's fields, as
/// they travel to rank 0: the fields last, so that rank 0 reads them where they arrived.
fn encode_state_part<T: Real>(s: &State<T>, faces: Option<&[f64]>) -> Vec<u8> {
    let faces_bytes = 16 + 8 * faces.map_or(0, <[f64]>::len);
    let mut w = Writer(Vec::with_capacity(faces_bytes + fields_bytes(&s.fields)));
    w.u64(faces.is_some() as u64);
    if let Some(f) = faces {
        w.values(f);
    }
    put_fields(&mut w, &s.fields);
    w.0
}

/// A slab's state's fields (the bytes [`join_state`] reads) and its boundary faces' values, from
/// [`encode_state_part`].
fn decode_state_part(bytes: &[u8]) -> Result<(&[u8], Option<Vec<f64>>)> {
    let mut r = Reader::new(bytes);
    let faces = if r.u64()? != 0 { Some(r.values()?) } else { None };
    Ok((r.rest(), faces))
}

/// The fields of the whole grid from every rank's (rank 0's names, units and dims; the axis
/// `row_axes` before the last, y of (y, x) fields with 1, is the sum of the slabs'), each
/// rank's values read from the bytes that arrived into the whole field, with no copy between.
fn join_state<T: Real>(mine: State<T>, parts: &[&[u8]], row_axes: usize) -> Result<State<T>> {
    let mut fields: Vec<Output<T>> = Vec::with_capacity(mine.fields.len());
    let mut readers: Vec<Reader> = parts.iter().map(|b| Reader::new(b)).collect();
    let counts = readers.iter_mut().map(|r| r.u64()).collect::<Result<Vec<_>>>()?;
    if counts.iter().any(|&c| c as usize != mine.fields.len()) {
        return Err(Error::invalid("ranks: the ranks' states hold different fields"));
    }
    for f in mine.fields {
        let axis = f.dims.len().checked_sub(row_axes + 1).ok_or_else(|| {
            Error::invalid(format!("ranks: field '{}' of {} dimensions is not cut into slabs", f.name, f.dims.len()))
        })?;
        let outer: usize = f.dims[..axis].iter().product();
        let row: usize = f.dims[axis + 1..].iter().product();
        let mut pieces = Vec::with_capacity(readers.len());
        for r in readers.iter_mut() {
            let name = r.str()?;
            let dims = (0..r.u64()?).map(|_| r.u64().map(|d| d as usize)).collect::<Result<Vec<_>>>()?;
            if name != f.name
                || dims.len() != f.dims.len()
                || dims[..axis] != f.dims[..axis]
                || dims[axis + 1..] != f.dims[axis + 1..]
            {
                return Err(Error::invalid(format!(
                    "ranks: field '{}' differs in name or shape between ranks",
                    f.name
                )));
            }
            pieces.push((dims[axis], r.values_bytes::<T>()?));
        }
        let rows: usize = pieces.iter().map(|(n, _)| n).sum();
        let w = wire::width::<T>();
        let mut data = vec![T::ZERO; outer * rows * row];
        let mut at = 0;
        for o in 0..outer {
            for &(n, bytes) in &pieces {
                let span = n * row;
                let from = bytes.get(o * span * w..(o + 1) * span * w);
                let from =
                    from.ok_or_else(|| Error::invalid("ranks: a slab's field holds fewer values than its dims"))?;
                wire::take(from, &mut data[at..at + span])?;
                at += span;
            }
        }
        let mut dims = f.dims.clone();
        dims[axis] = rows;
        fields.push(Output { dims, data, ..f });
    }
    if !mine.boundary.is_empty() {
        return Err(Error::invalid("ranks: boundary flows are not joined across ranks"));
    }
    Ok(State { clock: mine.clock, fields, boundary: Vec::new() })
}

/// A slab's products: its sites' samples ([`Joined`]), then its rows of the maps as a state's
/// fields (rank 0 joins them as it joins a state's), last.
fn encode_products<T: Real>(p: &Products<T>) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(p.series.len() as u64);
    for s in &p.series {
        w.values(&s.times).values(&s.values.iter().flatten().copied().collect::<Vec<f64>>());
    }
    w.0.reserve_exact(fields_bytes(&p.maps));
    put_fields(&mut w, &p.maps);
    w.0
}

/// A slab's sites' samples (as gauges with no name), and its maps' fields (the bytes
/// [`join_state`] reads).
fn decode_products(bytes: &[u8]) -> Result<(Vec<Series>, &[u8])> {
    let mut r = Reader::new(bytes);
    let mut series = Vec::new();
    for _ in 0..r.u64()? {
        let times: Vec<f64> = r.values()?;
        let flat: Vec<f64> = r.values()?;
        let values = flat.chunks_exact(GAUGE_VALUES).map(|c| std::array::from_fn(|k| c[k])).collect();
        let gauge = Gauge { name: String::new(), x: 0.0, y: 0.0 };
        series.push(Series { gauge, cell: 0, times, values });
    }
    Ok((series, r.rest()))
}

/// Maps as the fields of a state, to travel and join as a state's.
fn maps_state<T>(maps: Vec<Output<T>>) -> State<T> {
    State { clock: Clock::START, fields: maps, boundary: Vec::new() }
}

impl<T: GpuReal> Model<T> for Decomposed<'_, T> {
    fn describe(&self) -> String {
        let slabs = self.slabs.describe(self.row_axes == 2);
        format!("{}; {slabs} over {}", self.model.describe(), self.comm.describe())
    }

    fn clock(&self) -> Clock {
        self.model.clock()
    }

    fn advance(&mut self, until: Until) -> Result<Clock> {
        let before = self.model.clock();
        let steps = match until.deadline {
            Some(d) => until.steps.min(before.steps.saturating_add(steps_before(d, self.rate))),
            None => until.steps,
        };
        self.order(Order::Advance { t: until.t, steps })?;
        let start = Instant::now();
        let clock = self.model.advance(Until { t: until.t, steps, deadline: None });
        let clock = self.or_abort(clock);
        agree(self.comm.as_ref(), &clock)?;
        let took = start.elapsed().as_secs_f64();
        if clock.steps > before.steps && took > 0.0 {
            self.rate = Some((clock.steps - before.steps) as f64 / took);
        }
        Ok(clock)
    }

    fn state(&mut self) -> Result<State<T>> {
        self.order(Order::State)?;
        let mine = self.model.state().and_then(|s| Ok((s, self.model.boundary_faces()?)));
        let (mine, faces) = self.or_abort(mine);
        let all = self
            .comm
            .gather(&encode_state_part(&mine, faces.as_deref()))?
            .ok_or_else(|| Error::invalid("ranks: rank 0 gathered nothing"))?;
        let (states, faces): (Vec<_>, Vec<_>) =
            all.iter().map(|b| decode_state_part(b)).collect::<Result<Vec<_>>>()?.into_iter().unzip();
        let mut state = join_state(mine, &states, self.row_axes)?;
        if let Some(f) = join_faces("boundary faces", faces, self.layout.nx as usize, &self.slabs)? {
            state.boundary = self.model.boundary_flows(&f)?;
        }
        Ok(state)
    }

    fn products(&mut self, maps: bool) -> Result<Option<Products<T>>> {
        if self.joined.is_none() {
            return match self.model.products(maps)? {
                None => Ok(None),
                Some(_) => Err(Error::invalid("ranks: gauges and maximum maps are not joined across ranks")),
            };
        }
        self.order(Order::Products { maps })?;
        let mine = self.model.products(maps);
        let mine = self.or_abort(mine).unwrap_or_default();
        let all = self
            .comm
            .gather(&encode_products(&mine))?
            .ok_or_else(|| Error::invalid("ranks: rank 0 gathered nothing"))?;
        let (mut series, mut maps) = (Vec::new(), Vec::new());
        for bytes in all.iter() {
            let (s, m) = decode_products(bytes)?;
            series.push(s);
            maps.push(m);
        }
        let joined = self.joined.as_ref().ok_or_else(|| Error::invalid("ranks: no products to join"))?;
        let (series, lines) = joined.records(&series)?;
        // Maps are (y, x) fields, of runs cut across y.
        let maps = join_state(maps_state(mine.maps), &maps, 1)?.fields;
        Ok(Some(Products { series, lines, maps }))
    }

    fn checkpoint(&mut self) -> Result<Checkpoint<T>> {
        if let Some(dir) = self.parts_dir.clone() {
            return self.checkpoint_parts(&dir);
        }
        self.order(Order::Checkpoint)?;
        let mine = self.model.checkpoint();
        let mine = self.or_abort(mine);
        let all = self
            .comm
            .gather(&encode_checkpoint(&mine))?
            .ok_or_else(|| Error::invalid("ranks: rank 0 gathered nothing"))?;
        let mut parts = vec![mine];
        for bytes in all.iter().skip(1) {
            parts.push(decode_checkpoint(bytes)?);
        }
        let c = self.model.joined(join_checkpoint(parts, self.layout, &self.slabs)?)?;
        match self.joined.is_some() {
            // The products after the flow's fields, as a one-rank model adds them.
            true => match self.products(true)? {
                Some(p) => Joined::save(c, p),
                None => Ok(c),
            },
            false => Ok(c),
        }
    }

    fn restore(&mut self, c: &Checkpoint<T>) -> Result<()> {
        if let Some(j) = &mut self.joined {
            j.restore(c)?;
        }
        // Each rank's part encoded in turn into the one buffer the scatter sends from.
        let mut parts = Messages::default();
        for r in 0..self.slabs.ranks {
            parts.push(&encode_checkpoint(&split_checkpoint(c, self.layout, &self.slabs, r)?));
        }
        // Cut before the order: the other ranks wait in the scatter once it is out.
        self.order(Order::Restore)?;
        let mine = self.comm.scatter(Some(parts))?;
        let restored = decode_checkpoint(&mine).and_then(|c| self.model.restore(&c));
        self.or_abort(restored);
        Ok(())
    }

    fn checkpoint_in_parts(&mut self, dir: &Path) {
        self.parts_dir = Some(dir.to_path_buf());
    }

    /// On the ranks and slabs that wrote the set, each rank restores its own part; on others,
    /// rank 0 joins the parts into the whole grid's checkpoint and cuts that as any other.
    fn restore_parts(&mut self, manifest: &Checkpoint<T>, dir: &Path) -> Result<bool> {
        let set = Set::of(manifest)?.ok_or_else(|| Error::invalid("ranks: a checkpoint without parts"))?;
        if set.ranks() != self.slabs.ranks || set.layout != self.layout {
            let whole = parts::join(manifest, &set, dir, |j| self.model.joined(j))?;
            self.restore(&whole)?;
            return Ok(true);
        }
        if let Some(j) = &mut self.joined {
            j.restore(manifest)?;
        }
        let (dir, shown) = shared_dir(dir)?;
        self.order(Order::RestoreParts { dir: shown, manifest: encode_checkpoint(manifest) })?;
        let mine = restore_own_part(self.comm.as_ref(), self.model.as_mut(), &dir, manifest);
        first_failure(self.comm.as_ref(), mine.map(|_| Vec::new()))?;
        Ok(true)
    }
}

impl<T: GpuReal> Decomposed<'_, T> {
    /// Every rank writes its slab's part into `dir` (`parts`); the manifest lists them, with
    /// the whole grid's gauge and line records where the slabs keep products.
    fn checkpoint_parts(&mut self, dir: &Path) -> Result<Checkpoint<T>> {
        let (dir, shown) = shared_dir(dir)?;
        self.order(Order::Parts { dir: shown })?;
        let mine = write_own_part(self.comm.as_ref(), self.model.as_mut(), &dir);
        let all = first_failure(self.comm.as_ref(), mine.map(|p| part_bytes(&p)))?;
        let parts = all.iter().map(|b| decode_part(b)).collect::<Result<Vec<_>>>()?;
        let set = Set { layout: self.layout, parts };
        let manifest = set.listed_in(Checkpoint::at(self.model.clock()));
        match self.joined.is_some() {
            true => match self.products(false)? {
                Some(p) => Joined::save(manifest, p),
                None => Ok(manifest),
            },
            false => Ok(manifest),
        }
    }
}

/// `dir` as every rank names it in an order: absolute, so that each rank finds it whatever its
/// own working directory (a shared file system holds it at the same path on every host), and
/// as text.
fn shared_dir(dir: &Path) -> Result<(PathBuf, String)> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let text =
        dir.to_str().ok_or_else(|| Error::invalid(format!("ranks: {} is not UTF-8", dir.display())))?.to_string();
    Ok((dir, text))
}

/// This rank's part of a checkpoint: its slab's checkpoint with its rows of the maximum maps
/// (which a slab's restore resumes from, and which join as the whole grid's), written into
/// `dir`.
fn write_own_part<T: GpuReal>(comm: &dyn Comm, model: &mut dyn Model<T>, dir: &Path) -> Result<Part> {
    let mut part = || {
        let c = model.checkpoint()?;
        let c = match model.products(true)? {
            Some(p) if !p.maps.is_empty() => {
                Joined::save(c, Products { series: Vec::new(), lines: Vec::new(), maps: p.maps })?
            }
            _ => c,
        };
        parts::write(dir, comm.rank(), comm.size(), &c)
    };
    part().map_err(|e| Error::invalid(format!("rank {}: {e}", comm.rank())))
}

/// This rank's part, read from `dir` and checked against `manifest` (encoded), restored.
fn restore_own_part<T: GpuReal>(
    comm: &dyn Comm,
    model: &mut dyn Model<T>,
    dir: &Path,
    manifest: &Checkpoint<T>,
) -> Result<()> {
    let set = Set::of(manifest)?.ok_or_else(|| Error::invalid("ranks: a checkpoint without parts"))?;
    let part = parts::read(dir, manifest, &set, comm.rank())?;
    model.restore(&part).map_err(|e| Error::invalid(format!("rank {}: {e}", comm.rank())))
}

fn part_bytes(p: &Part) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(p.bytes).u64(p.crc as u64);
    w.0
}

fn decode_part(bytes: &[u8]) -> Result<Part> {
    let mut r = Reader::new(bytes);
    Ok(Part { bytes: r.u64()?, crc: r.u64()? as u32 })
}

/// Every rank's result of a step it took on its own (`mine`: bytes to hand rank 0, or why it
/// failed, naming the rank), gathered: on rank 0 every rank's bytes, or the first failure; on
/// the others nothing. The ranks go on serving either way: rank 0 says the failure and ends the run.
fn first_failure(comm: &dyn Comm, mine: Result<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
    let mut w = Writer::default();
    match &mine {
        Ok(b) => w.u64(1).bytes(b),
        Err(e) => w.u64(0).str(&e.to_string()),
    };
    let Some(all) = comm.gather(&w.0)? else { return Ok(Vec::new()) };
    all.iter()
        .map(|b| {
            let mut r = Reader::new(b);
            match r.u64()? {
                1 => Ok(r.bytes()?.to_vec()),
                _ => Err(Error::invalid(r.str()?)),
            }
        })
        .collect()
}

/// Whether every rank built its slab's model, each saying why not in `mine`: on rank 0 the
/// first reason (its own, or another rank's named), on the others whether any rank failed (then
/// they wait for rank 0's last order, [`wait_for_end`]). A case a solver refuses on several
/// ranks is refused by every rank alike, and so in one line from rank 0 with every rank
/// leaving cleanly.
fn built_everywhere(comm: &dyn Comm, mine: Option<String>) -> Result<Option<String>> {
    if comm.max(mine.is_some() as u8 as f64)? == 0.0 {
        return Ok(None);
    }
    // A mark before each reason: no rank sends an empty message.
    let said = comm.gather(format!("#{}", mine.as_deref().unwrap_or("")).as_bytes())?;
    let Some(all) = said else { return Ok(Some(String::new())) };
    let first = all.iter().enumerate().find(|(_, b)| b.len() > 1);
    Ok(Some(match first {
        Some((0, b)) => String::from_utf8_lossy(&b[1..]).into_owned(),
        Some((r, b)) => format!("rank {r}: {}", String::from_utf8_lossy(&b[1..])),
        None => "a rank failed to build its slab's model".into(),
    }))
}

/// A rank other than 0 whose model, or another rank's, was not built: wait for rank 0's last
/// order of the run ([`finish`]), which it gives as its run fails.
fn wait_for_end(comm: &dyn Comm) -> Result<()> {
    let mut bytes = Vec::new();
    comm.broadcast(&mut bytes)?;
    Ok(())
}

/// A rank other than 0, once it has tried to build the model of its slab (`built`): every rank
/// learns whether all did; then it serves rank 0 until the run ends ([`serve`]) and hands the
/// model back. Where some rank's model was not built it waits for rank 0's last order and
/// returns an error (rank 0 says why).
pub fn serve_built<'a, T: GpuReal>(
    comm: &dyn Comm,
    built: Result<Box<dyn Model<T> + 'a>>,
) -> Result<Box<dyn Model<T> + 'a>> {
    let mine = built.as_ref().err().map(|e| e.to_string());
    if built_everywhere(comm, mine)?.is_some() {
        wait_for_end(comm)?;
        return Err(Error::invalid("a rank's model was not built (rank 0 says why)"));
    }
    let mut model = built?;
    serve(comm, model.as_mut())?;
    Ok(model)
}

/// Rank 0's last order of a run, whatever became of it (its end, an error, an interrupt): the
/// other ranks leave [`serve`], with an error if `failed`. Rank 0 gives it once, after its
/// model is gone.
pub fn finish(comm: &dyn Comm, failed: bool) -> Result<()> {
    let mut bytes = if failed { Order::Fail } else { Order::Stop }.encode();
    comm.broadcast(&mut bytes)
}

/// A rank other than 0, before it builds its model: wait until rank 0 builds its own (an
/// error if rank 0 failed first: a case it refused, say). Then why this rank must not build,
/// if it must not: it is another build of hydrokern than rank 0's, whose results could differ.
/// It says so as its build's failure, for rank 0 to say in one line.
pub fn wait_for_start(comm: &dyn Comm) -> Result<Option<String>> {
    let mut bytes = Vec::new();
    comm.broadcast(&mut bytes)?;
    match Order::decode(&bytes)? {
        Order::Go => Ok(other_build(&bytes)),
        _ => Err(Error::invalid("rank 0 stopped the run (it says why)")),
    }
}

/// This build: the version and the revision it was built from.
fn build() -> String {
    format!("hydrokern {} (revision {})", env!("CARGO_PKG_VERSION"), crate::GIT_REVISION)
}

/// Where rank 0's order to start (`go`) names another build than this one: what to say.
fn other_build(go: &[u8]) -> Option<String> {
    let mut r = Reader::new(go);
    let theirs = r.u64().and_then(|_| r.str()).ok()?;
    let ours = build();
    (theirs != ours).then(|| format!("runs {ours} where rank 0 runs {theirs}: start every rank from the same build"))
}

/// A rank other than 0: do to `model`, the model of this rank's slab, what rank 0 orders,
/// until it says stop ([`finish`]).
pub fn serve<T: GpuReal>(comm: &dyn Comm, model: &mut dyn Model<T>) -> Result<()> {
    loop {
        let mut bytes = Vec::new();
        comm.broadcast(&mut bytes)?;
        match Order::decode(&bytes)? {
            Order::Advance { t, steps } => {
                let clock = model.advance(Until { t, steps, deadline: None })?;
                agree(comm, &clock)?;
            }
            Order::State => {
                let state = model.state()?;
                comm.gather(&encode_state_part(&state, model.boundary_faces()?.as_deref()))?;
            }
            Order::Products { maps } => {
                comm.gather(&encode_products(&model.products(maps)?.unwrap_or_default()))?;
            }
            Order::Checkpoint => {
                comm.gather(&encode_checkpoint(&model.checkpoint()?))?;
            }
            Order::Restore => {
                let mine = comm.scatter(None)?;
                model.restore(&decode_checkpoint(&mine)?)?;
            }
            Order::Parts { dir } => {
                let mine = write_own_part(comm, model, Path::new(&dir));
                first_failure(comm, mine.map(|p| part_bytes(&p)))?;
            }
            Order::RestoreParts { dir, manifest } => {
                let mine =
                    decode_checkpoint(&manifest).and_then(|m| restore_own_part(comm, model, Path::new(&dir), &m));
                first_failure(comm, mine.map(|_| Vec::new()))?;
            }
            Order::Stop => return Ok(()),
            Order::Go | Order::Fail => return Err(Error::invalid("rank 0 stopped the run (it says why)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rank started from another build than rank 0's learns it from the order to start, and
    /// says both builds; the same build goes on.
    #[test]
    fn a_rank_of_another_build_is_told_so() {
        assert_eq!(other_build(&Order::Go.encode()), None);
        assert_eq!(Order::decode(&Order::Go.encode()).unwrap(), Order::Go);
        let mut w = Writer::default();
        w.u64(6).str("hydrokern 0.0.9 (revision 0123abc)");
        let why = other_build(&w.0).expect("another build");
        assert!(
            why.contains(&build()) && why.contains("0.0.9 (revision 0123abc)") && why.contains("same build"),
            "{why}"
        );
    }

    #[test]
    fn checkpoints_and_orders_travel_whole() {
        let c = Checkpoint::<f32>::at(Clock { t: 1.5, steps: 7, dt: 0.25, halt: None })
            .field("h", vec![1.0, f32::MIN_POSITIVE, -0.0])
            .flag("wet", vec![1, 0, 1])
            .value("dt", 0.1)
            .record("gauge", vec![3.0, 4.0]);
        assert_eq!(decode_checkpoint::<f32>(&encode_checkpoint(&c)).unwrap(), c);
        for o in [
            Order::Go,
            Order::Advance { t: 2.5, steps: 9 },
            Order::State,
            Order::Checkpoint,
            Order::Restore,
            Order::Parts { dir: "out/a run".into() },
            Order::RestoreParts { dir: "out".into(), manifest: vec![1, 2, 3] },
            Order::Stop,
            Order::Fail,
        ] {
            assert_eq!(Order::decode(&o.encode()).unwrap(), o);
        }
        assert!(Order::decode(&[9, 0, 0, 0, 0, 0, 0, 0]).is_err());
    }
}
