//! The run's side of the live view (`crate::view`): frames taken between calls to
//! [`Model::advance`] — at the start, at the rate the viewers ask for, at every snapshot and at
//! the end — and the viewers' pause and stop, acted on at step boundaries. A frame is the
//! model's fields at the view's cells ([`Model::sample_later`]); the view's worker thread turns
//! it into layers ([`Drawer`]) and publishes them to the hub the server reads. Neither changes a
//! step: the deadline that brings the time loop back for a frame only hands control back, as
//! the progress lines' does. A simulation stepped from Python draws its frames the same way,
//! between its slices of steps (`session.rs`).

use super::{Console, Simulation};
use crate::model::{Clock, Later, Model, State};
use crate::view::{Command, Frame, Hub, Layer, Samples, Server, ViewOptions, layers};
use crate::{GpuReal, Real, Result};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::{Duration, Instant};

/// How long a finished run waits for its viewers to fetch its last frame.
const LAST_FRAME_WAIT: Duration = Duration::from_secs(2);

/// A view being served: the hub the server reads, the cells a frame takes, and the flag that
/// closes the server.
pub struct Served {
    pub hub: Arc<Hub>,
    pub samples: Samples,
    closing: Arc<AtomicBool>,
    pub port: u16,
}

impl Served {
    /// Serve the view of `sim`'s run as `opts` asks. A port that cannot be listened on is an
    /// error, which the command line reports as a line and runs on without its view.
    pub fn start<S: Simulation + ?Sized>(sim: &S, opts: ViewOptions) -> Result<Served> {
        let server = Server::bind(opts.port)?;
        let port = server.port();
        // The gauges' cells, as the products find them (the case checked they are inside).
        let gauges = match sim.mesh() {
            crate::grid::Mesh::Plane(g) => sim.info().output.products().cells(&g)?,
            crate::grid::Mesh::Volume(_) => Vec::new(),
        };
        let gauges: Vec<usize> = gauges.into_iter().map(|c| c as usize).collect();
        let samples = Samples::of(&sim.mesh(), crate::view::DEFAULT_SIDE, &gauges);
        let (hub, closing) = (Arc::new(Hub::new(opts.paused)), Arc::new(AtomicBool::new(false)));
        server.serve(hub.clone(), closing.clone());
        Ok(Served { hub, samples, closing, port })
    }

    /// The address the view is served at.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// After the run: say how it ended, give the viewers a moment to fetch the last frame, and
    /// close the server.
    pub fn finish(&self, how: &str) {
        self.hub.end(how);
        self.hub.wait_for_viewers(LAST_FRAME_WAIT);
        self.closing.store(true, Ordering::SeqCst);
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
    }
}

/// When a view's next frame is due: at the fastest rate a viewer asks for, and whenever one
/// must show (the start, a snapshot, where an advance stops).
pub struct Pace {
    next: Instant,
}

impl Pace {
    pub fn new() -> Pace {
        Pace { next: Instant::now() }
    }

    /// When the stepping must be back for the next frame: never without viewers.
    pub fn due(&self, hub: &Hub) -> Option<Instant> {
        hub.interval().map(|_| self.next)
    }

    /// Whether to take a frame now (`always`: one that must show), the next one then scheduled.
    pub fn take(&mut self, hub: &Hub, always: bool) -> bool {
        let now = Instant::now();
        let Some(every) = hub.interval().or(always.then_some(Duration::ZERO)) else { return false };
        if !always && now < self.next {
            return false;
        }
        self.next = now + every;
        true
    }
}

/// The runner's live view: when the next frame is due, and the worker its frames go to.
pub struct Live<'a, T> {
    pub served: &'a Served,
    console: &'a Console,
    pace: Pace,
    frames: SyncSender<Later<T>>,
}

impl<'a, T: GpuReal> Live<'a, T> {
    pub fn new(served: &'a Served, frames: SyncSender<Later<T>>, console: &'a Console) -> Live<'a, T> {
        Live { served, console, pace: Pace::new(), frames }
    }

    /// When the time loop must be back for the next frame: never without viewers.
    pub fn due(&self) -> Option<Instant> {
        self.pace.due(&self.served.hub)
    }

    /// A frame where one is due (or `always`: the start, a snapshot, the end). A frame the
    /// worker has no room for is dropped, unless it must be shown. The server's lines are said
    /// here.
    pub fn frame(&mut self, model: &mut dyn Model<T>, always: bool) -> Result<()> {
        self.say_notes();
        if !self.pace.take(&self.served.hub, always) {
            return Ok(());
        }
        // On the GPU the gather is enqueued behind the steps and comes over on a second
        // stream: the worker waits for it, not the time loop.
        let sampled = model.sample_later(&self.served.samples.cells)?;
        match always {
            // The worker may be drawing the frame before: the one that must show waits for it.
            true => {
                let _ = self.frames.send(sampled);
            }
            // Dropped where the worker is busy (or gone: the run goes on without frames).
            false => {
                let _ = self.frames.try_send(sampled);
            }
        }
        Ok(())
    }

    /// The viewers' command at a step boundary, holding the run while they pause it (looking
    /// for signals every `poll`): Run or Stop.
    pub fn hold(&self, poll: Duration) -> Command {
        loop {
            self.say_notes();
            match self.served.hub.command() {
                Command::Pause if super::interrupt::requested().is_none() => {
                    self.served.hub.wait_while_paused(poll);
                }
                Command::Pause => return Command::Run,
                c => return c,
            }
        }
    }

    fn say_notes(&self) {
        for line in self.served.hub.take_notes() {
            self.console.say(line);
        }
    }
}

/// Turns sampled states into the frames the hub publishes: the solver's maps of the view's
/// pixels (as its pictures draw them), the first map's values at the gauges, and with the
/// first frame the page's setup and the bed's hillshade.
pub struct Drawer<'a, S: ?Sized> {
    sim: &'a S,
    samples: Samples,
    /// The bed at the map's pixels, which the page shades the ground under the maps with.
    map_bed: Option<Vec<f64>>,
    /// The plain maps' ranges, from the first frame.
    ranges: Option<Vec<(f64, f64)>>,
    seq: u64,
}

impl<'a, S: Simulation + ?Sized> Drawer<'a, S> {
    pub fn new(sim: &'a S, samples: Samples) -> Drawer<'a, S> {
        let pixels = &samples.cells[..samples.pixels()];
        let map_bed = sim.bed().map(|b| pixels.iter().map(|&c| b.get(c).copied().unwrap_or(0.0)).collect());
        Drawer { sim, samples, map_bed, ranges: None, seq: 0 }
    }

    fn layers(&mut self, state: &State<f64>, cells: &[usize]) -> Vec<Layer> {
        if let Some(l) = self.sim.view_layers(state, cells) {
            return l;
        }
        let fields: Vec<(&'static str, String, Vec<f64>)> =
            state.fields.iter().map(|f| (f.name, format!("{} [{}]", f.name, f.units), f.data.clone())).collect();
        let r = self.ranges.get_or_insert_with(|| fields.iter().map(|f| layers::first_range(&f.2)).collect());
        layers::plain(&fields, r)
    }

    /// Publish the frame of `sampled` (a state at the samples' cells) to `hub`.
    pub fn draw<T: Real>(&mut self, sampled: &State<T>, hub: &Hub) {
        let pixels = self.samples.pixels();
        let (map, at_gauges) = split(sampled, pixels);
        let cells = std::mem::take(&mut self.samples.cells);
        let layers = self.layers(&map, &cells[..pixels]);
        let gauge_values = match at_gauges.fields.first().is_some_and(|f| !f.data.is_empty()) {
            true => self.layers(&at_gauges, &cells[pixels..]).first().map(|l| l.values.clone()).unwrap_or_default(),
            false => Vec::new(),
        };
        self.samples.cells = cells;
        if self.seq == 0 {
            let gauges: Vec<String> = self.sim.info().output.gauges.iter().map(|g| g.name.clone()).collect();
            let setup = layers::setup(&self.sim.info().name, self.sim.times().unit, &self.samples, &layers, &gauges);
            hub.publish_setup(setup, layers::shade(&self.samples, self.map_bed.as_deref()));
        }
        self.seq += 1;
        let (seq, Clock { t, steps, dt, .. }) = (self.seq, sampled.clock);
        let (w, h) = (self.samples.w, self.samples.h);
        let encoded = layers
            .iter()
            .map(|l| {
                let shade = layers::relief_shade(l, &self.samples);
                (l.name, Arc::new(layers::encode(l, w, h, seq, t, steps, shade.as_deref())))
            })
            .collect();
        hub.publish_frame(Frame { seq, t, step: steps, dt, layers: encoded, gauges: gauge_values });
    }
}

/// The view's worker: each sampled state drawn and published. Ends when the time loop drops
/// its sender (or a sample fails to arrive: the run sees the same failure at its next step).
pub fn work<S: Simulation, T: GpuReal>(sim: &S, served: &Served, frames: Receiver<Later<T>>) {
    let mut drawer = Drawer::new(sim, served.samples.clone());
    for later in frames {
        match later.wait() {
            Ok(sampled) => drawer.draw(&sampled, &served.hub),
            Err(_) => return,
        }
    }
}

/// A sampled state's map pixels and its gauges' cells, as two states in f64.
fn split<T: Real>(s: &State<T>, pixels: usize) -> (State<f64>, State<f64>) {
    let part = |range: std::ops::Range<usize>| State {
        clock: s.clock,
        fields: s
            .fields
            .iter()
            .map(|f| crate::model::Output {
                name: f.name,
                long_name: f.long_name,
                units: f.units,
                dims: vec![range.len()],
                data: f.data[range.clone()].iter().map(|v| v.to_f64()).collect(),
            })
            .collect(),
        boundary: Vec::new(),
    };
    let n = s.fields.first().map_or(0, |f| f.data.len());
    (part(0..pixels.min(n)), part(pixels.min(n)..n))
}
