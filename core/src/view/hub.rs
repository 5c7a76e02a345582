//! What the run and the view's server share ([`Hub`]): the page's setup, the latest frame of each
//! layer, the run's status and the history of its balance and gauges, the viewers watching and
//! the frame rates they ask for, and the viewers' commands (pause, resume, stop).
//!
//! The run only ever publishes into the hub and reads its command: it never waits on a
//! viewer. A viewer that is slow fetches the latest frame when it is ready and misses the ones
//! in between.

use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What the viewers ask of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Run,
    Pause,
    /// A clean stop, as SIGINT's: outputs whole, the manifest saying where it stopped.
    Stop,
}

/// Frames a second a viewer may ask for, and what it gets when it names none.
pub const FPS_RANGE: (f64, f64) = (0.1, 30.0);
pub const DEFAULT_FPS: f64 = 10.0;
/// Points of the balance and gauge histories kept: past this, every other is dropped.
const HISTORY: usize = 4096;

/// One frame: its number, the clock it shows and each layer's bytes (`layers::encode`).
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub seq: u64,
    pub t: f64,
    pub step: u64,
    pub dt: f64,
    pub layers: Vec<(&'static str, Arc<Vec<u8>>)>,
    /// The value of the first layer at each gauge.
    pub gauges: Vec<f64>,
}

#[derive(Default)]
struct Shared {
    setup: Option<Arc<String>>,
    shade: Option<Arc<Vec<u8>>>,
    frame: Frame,
    /// How the run stands: "running", "paused", "finished", "stopped", or what failed.
    state: String,
    ended: bool,
    /// (t, relative balance error) at each progress line or snapshot.
    balance: Vec<[f64; 2]>,
    balance_name: Option<&'static str>,
    /// (t, the gauges' values) at each frame.
    gauges: Vec<(f64, Vec<f64>)>,
    /// Viewers by number: the frames a second each asks for, and the last frame it fetched.
    viewers: HashMap<u64, (f64, u64)>,
    next_viewer: u64,
    /// Lines the server has for the run's output (a malformed message ignored), not yet said.
    notes: Vec<String>,
}

/// The run's side and the server's side of the live view (see the module's note).
pub struct Hub {
    shared: Mutex<Shared>,
    changed: Condvar,
    command: AtomicU8,
}

impl Hub {
    /// A hub for a run that starts running, or paused until a viewer resumes it.
    pub fn new(paused: bool) -> Hub {
        let state = if paused { "paused" } else { "running" };
        let shared = Shared { state: state.into(), ..Shared::default() };
        let command = if paused { Command::Pause } else { Command::Run };
        Hub { shared: Mutex::new(shared), changed: Condvar::new(), command: AtomicU8::new(command as u8) }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn command(&self) -> Command {
        match self.command.load(Ordering::SeqCst) {
            0 => Command::Run,
            1 => Command::Pause,
            _ => Command::Stop,
        }
    }

    /// A viewer's command. A stop stays a stop.
    pub fn set_command(&self, c: Command) {
        if self.command() == Command::Stop {
            return;
        }
        self.command.store(c as u8, Ordering::SeqCst);
        let mut s = self.lock();
        if !s.ended {
            s.state = match c {
                Command::Run => "running",
                Command::Pause => "paused",
                Command::Stop => "stopping",
            }
            .into();
        }
        drop(s);
        self.changed.notify_all();
    }

    /// The run's wait while paused: returns the command once it is not Pause, or after `poll`
    /// (so that the run can look for signals).
    pub fn wait_while_paused(&self, poll: Duration) -> Command {
        let s = self.lock();
        let _unused = self.changed.wait_timeout_while(s, poll, |_| self.command() == Command::Pause);
        self.command()
    }

    /// How often the viewers want a frame: the fastest rate any asks for; None without viewers.
    pub fn interval(&self) -> Option<Duration> {
        let fps = self.lock().viewers.values().map(|v| v.0).fold(0.0, f64::max);
        (fps > 0.0).then(|| Duration::from_secs_f64(1.0 / fps))
    }

    pub fn publish_setup(&self, setup: String, shade: Option<Vec<u8>>) {
        let mut s = self.lock();
        s.setup = Some(Arc::new(setup));
        s.shade = shade.map(Arc::new);
        drop(s);
        self.changed.notify_all();
    }

    pub fn setup(&self) -> Option<Arc<String>> {
        self.lock().setup.clone()
    }

    pub fn shade(&self) -> Option<Arc<Vec<u8>>> {
        self.lock().shade.clone()
    }

    /// A new frame (numbered after the last by its maker), its gauges added to their history.
    pub fn publish_frame(&self, frame: Frame) {
        let mut s = self.lock();
        if !frame.gauges.is_empty() {
            s.gauges.push((frame.t, frame.gauges.clone()));
            thin(&mut s.gauges);
        }
        s.frame = frame;
        drop(s);
        self.changed.notify_all();
    }

    /// The balance's relative error at time `t` (a progress line's or a snapshot's state), and
    /// what the balance is of.
    pub fn push_balance(&self, name: &'static str, t: f64, error: f64) {
        let mut s = self.lock();
        s.balance_name = Some(name);
        s.balance.push([t, error]);
        thin(&mut s.balance);
        drop(s);
        self.changed.notify_all();
    }

    /// A line for the run's output: the run says it at its next step boundary.
    pub fn note(&self, line: String) {
        self.lock().notes.push(line);
    }

    /// The lines noted since the last call.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().notes)
    }

    /// The run has ended; `how` says how ("finished", "stopped", what failed).
    pub fn end(&self, how: &str) {
        let mut s = self.lock();
        s.ended = true;
        s.state = how.to_string();
        drop(s);
        self.changed.notify_all();
    }

    pub fn ended(&self) -> bool {
        self.lock().ended
    }

    /// A new viewer asking for `fps` frames a second: its number.
    pub fn connect(&self, fps: f64) -> u64 {
        let mut s = self.lock();
        let id = s.next_viewer;
        s.next_viewer += 1;
        s.viewers.insert(id, (fps, 0));
        id
    }

    pub fn disconnect(&self, viewer: u64) {
        self.lock().viewers.remove(&viewer);
    }

    /// Viewers watching now.
    pub fn viewers(&self) -> usize {
        self.lock().viewers.len()
    }

    /// Layer `name` of the latest frame, noted as fetched by `viewer`.
    pub fn frame(&self, name: &str, viewer: Option<u64>) -> Option<Arc<Vec<u8>>> {
        let mut s = self.lock();
        let seq = s.frame.seq;
        let bytes = s.frame.layers.iter().find(|(n, _)| *n == name).map(|(_, b)| b.clone());
        if let Some(v) = viewer.and_then(|v| s.viewers.get_mut(&v)) {
            v.1 = v.1.max(seq);
        }
        bytes
    }

    /// The status after frame `seen`, waiting up to `wait` for a newer frame or a change of
    /// state: (the frame's number, the status as JSON, whether the run has ended).
    pub fn next_status(&self, seen: u64, state_seen: &str, wait: Duration) -> (u64, String, String, bool) {
        let s = self.lock();
        let (s, _) = self
            .changed
            .wait_timeout_while(s, wait, |s| s.frame.seq == seen && s.state == state_seen && !s.ended)
            .unwrap_or_else(|p| p.into_inner());
        let f = &s.frame;
        let status = json!({
            "seq": f.seq,
            "t": f.t,
            "step": f.step,
            "dt": f.dt,
            "state": s.state,
            "gauges": f.gauges,
            "balance": s.balance.last(),
            "balance_name": s.balance_name,
            "viewers": s.viewers.len(),
        });
        (f.seq, s.state.clone(), status.to_string(), s.ended)
    }

    /// The balance and gauge histories so far, as JSON: for a viewer that joins late.
    pub fn history(&self) -> String {
        let s = self.lock();
        let gauges: Vec<_> = s.gauges.iter().map(|(t, v)| json!([t, v])).collect();
        json!({ "balance": s.balance, "balance_name": s.balance_name, "gauges": gauges }).to_string()
    }

    /// Wait up to `wait` for every viewer to fetch the latest frame (the run's last, at its
    /// end); true when they all have.
    pub fn wait_for_viewers(&self, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        loop {
            let caught_up = {
                let s = self.lock();
                s.viewers.values().all(|v| v.1 >= s.frame.seq)
            };
            if caught_up {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Halve a history past [`HISTORY`] points by dropping every other one (the last kept).
fn thin<P>(points: &mut Vec<P>) {
    if points.len() > HISTORY {
        let last = points.len() - 1;
        let mut k = 0;
        points.retain(|_| {
            k += 1;
            (k - 1) % 2 == 0 || k - 1 == last
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_stays_a_stop_and_a_pause_waits() {
        let hub = Hub::new(true);
        assert_eq!(hub.command(), Command::Pause);
        let t = Instant::now();
        assert_eq!(hub.wait_while_paused(Duration::from_millis(50)), Command::Pause);
        assert!(t.elapsed() >= Duration::from_millis(40));
        hub.set_command(Command::Run);
        assert_eq!(hub.wait_while_paused(Duration::from_secs(5)), Command::Run);
        hub.set_command(Command::Stop);
        hub.set_command(Command::Run);
        assert_eq!(hub.command(), Command::Stop);
    }

    #[test]
    fn the_rate_is_the_fastest_viewer_s_and_none_without_viewers() {
        let hub = Hub::new(false);
        assert_eq!(hub.interval(), None);
        let a = hub.connect(2.0);
        let b = hub.connect(10.0);
        assert_eq!(hub.interval(), Some(Duration::from_millis(100)));
        hub.disconnect(b);
        assert_eq!(hub.interval(), Some(Duration::from_millis(500)));
        hub.disconnect(a);
        assert_eq!(hub.interval(), None);
    }

    #[test]
    fn viewers_catch_up_by_fetching_the_latest_frame() {
        let hub = Hub::new(false);
        let v = hub.connect(10.0);
        hub.publish_frame(Frame { seq: 1, layers: vec![("depth", Arc::new(vec![1, 2]))], ..Frame::default() });
        assert!(!hub.wait_for_viewers(Duration::from_millis(30)));
        assert_eq!(hub.frame("depth", Some(v)).as_deref(), Some(&vec![1, 2]));
        assert!(hub.frame("speed", Some(v)).is_none());
        assert!(hub.wait_for_viewers(Duration::ZERO));
    }

    #[test]
    fn histories_stay_bounded_and_keep_their_last_point() {
        let mut points: Vec<usize> = (0..=HISTORY).collect();
        thin(&mut points);
        assert!(points.len() <= HISTORY / 2 + 2);
        assert_eq!(points.last(), Some(&HISTORY));
        assert_eq!(points[0], 0);
    }
}
