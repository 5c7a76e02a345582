//! The live view from outside: runs with `--view` served over HTTP, their frames, pause, resume
//! and stop, what a bad viewer gets, and a real headless browser drawing the page (`browser`).

use crate::cmd::{bin, hydrokern, refused, s, scratch, stderr};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod browser;

/// A run with its live view, its standard output collected as it comes.
pub struct Viewed {
    pub child: Child,
    pub out: Arc<Mutex<String>>,
    pub port: u16,
    pub dir: PathBuf,
}

impl Viewed {
    /// `hydrokern --backend cpu <args> --output <dir> --view 0 <extra>`, once it says its port.
    pub fn start(dir: &Path, args: &[&str], extra: &[&str]) -> Viewed {
        Viewed::on("cpu", dir, args, extra)
    }

    /// The same on `backend`.
    pub fn on(backend: &str, dir: &Path, args: &[&str], extra: &[&str]) -> Viewed {
        let mut all = vec!["--backend", backend];
        all.extend(args);
        all.extend(["--output", s(dir), "--view", "0"]);
        all.extend(extra);
        let mut child = Command::new(bin())
            .args(&all)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run hydrokern");
        let out = Arc::new(Mutex::new(String::new()));
        let reader = BufReader::new(child.stdout.take().unwrap());
        let kept = out.clone();
        std::thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                let mut o = kept.lock().unwrap();
                o.push_str(&line);
                o.push('\n');
            }
        });
        let until = Instant::now() + Duration::from_secs(60);
        let port = loop {
            let text = out.lock().unwrap().clone();
            if let Some(at) = text.find("live view: http://127.0.0.1:") {
                let rest = &text[at + "live view: http://127.0.0.1:".len()..];
                break rest.split('/').next().unwrap().parse().unwrap();
            }
            assert!(Instant::now() < until, "no live view line in:\n{text}");
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
                panic!("hydrokern ended ({status}) before its view started:\n{text}\n{err}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Viewed { child, out, port, dir: dir.to_path_buf() }
    }

    /// Wait for the run to end: its exit code and standard error.
    pub fn wait(mut self) -> (i32, String, String) {
        let mut err = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = self.child.wait().unwrap();
        // The reader thread has the rest of standard output once the pipe closes.
        std::thread::sleep(Duration::from_millis(50));
        let out = self.out.lock().unwrap().clone();
        (status.code().unwrap_or(-1), out, err)
    }
}

/// One HTTP request: the status code and the body.
pub fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, Vec<u8>) {
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(c, "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    let mut all = Vec::new();
    c.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&all[..split]).into_owned();
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    (code, all[split + 4..].to_vec())
}

/// The run's status as the page's events give it: a viewer that reads the first one and leaves.
pub fn status(port: u16) -> serde_json::Value {
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(c, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut lines = BufReader::new(c).lines().map_while(Result::ok);
    let status = lines.by_ref().find(|l| l.starts_with("data: {\"balance\"")).expect("a status event");
    serde_json::from_str(&status["data: ".len()..]).unwrap()
}

/// Wait until `ok` holds of the status.
pub fn until(port: u16, what: &str, ok: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let st = status(port);
        if ok(&st) {
            return st;
        }
        assert!(Instant::now() < end, "waited a minute for {what}; status {st}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

const CASE: [&str; 7] = ["dam-break", "--nx", "48", "--ny", "40", "--t-end", "2"];

#[test]
fn a_run_watched_at_any_rate_equals_one_not_watched_bit_for_bit() {
    let case = ["dam-break", "--nx", "48", "--ny", "40", "--t-end", "6", "--snapshots", "1,3"];
    watched_equals_unwatched("cpu", &case, (48, 40));
}

#[test]
#[cfg_attr(not(gpu_tests), ignore = "needs an NVIDIA GPU")]
fn a_gpu_run_watched_equals_one_not_watched_bit_for_bit() {
    // Frames gathered on the device, in the default f32 (compensated) and in f64.
    let case = ["flood", "--nx", "512", "--ny", "300", "--t-end", "1", "--snapshots", "0.3,0.6"];
    watched_equals_unwatched("gpu", &case, (512, 300));
    let f64s = ["flood", "--nx", "512", "--ny", "300", "--t-end", "1", "--snapshots", "0.3,0.6", "--precision", "f64"];
    watched_equals_unwatched("gpu", &f64s, (512, 300));
}

/// A run of `case` watched by a greedy viewer writes the same files, bit for bit, as one not
/// watched; its frames are `view` pixels.
fn watched_equals_unwatched(backend: &str, case: &[&str], view: (u32, u32)) {
    let dir = scratch(&format!("view-bits-{backend}-{}", case.len()));
    let plain = dir.join("plain");
    let mut args = vec!["--backend", backend];
    args.extend(case);
    args.extend(["--output", s(&plain)]);
    let o = hydrokern(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // Started paused, resumed once a greedy viewer watches: frames as fast as it can take
    // them, beside the rate its events ask for, until the server closes.
    let watched = Viewed::on(backend, &dir.join("watched"), case, &["--paused"]);
    let port = watched.port;
    let frames = std::thread::spawn(move || {
        let mut seen = std::collections::BTreeSet::new();
        let mut events = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(events, "GET /events?fps=30 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(http(port, "POST", "/control", "resume").0, 204);
        loop {
            let Ok(mut c) = TcpStream::connect(("127.0.0.1", port)) else { break };
            if write!(c, "GET /frame?layer=speed HTTP/1.1\r\n\r\n").is_err() {
                break;
            }
            let mut all = Vec::new();
            if c.read_to_end(&mut all).is_err() {
                break;
            }
            let Some(at) = all.windows(4).position(|w| w == b"\r\n\r\n") else { break };
            // Resumed, the run draws its first frame soon after: until then there is none.
            if seen.is_empty() && all.starts_with(b"HTTP/1.1 404") {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            let body = &all[at + 4..];
            assert_eq!(&body[..4], b"HKV1");
            let (w, h) = (
                u32::from_le_bytes(body[4..8].try_into().unwrap()),
                u32::from_le_bytes(body[8..12].try_into().unwrap()),
            );
            assert_eq!((w, h), view, "the view of a small grid is the grid, cell for cell");
            assert_eq!(body.len(), 32 + 3 * (view.0 * view.1) as usize);
            seen.insert(u32::from_le_bytes(body[12..16].try_into().unwrap()));
        }
        seen
    });
    let (code, out, err) = watched.wait();
    assert_eq!(code, 0, "{out}\n{err}");
    let seen = frames.join().unwrap();
    assert!(seen.len() >= 3, "frames seen: {seen:?}\n{out}");
    let mut compared = 0;
    for entry in std::fs::read_dir(&plain).unwrap() {
        let name = entry.unwrap().file_name();
        if name.to_string_lossy().ends_with(".npy") {
            let a = std::fs::read(plain.join(&name)).unwrap();
            let b = std::fs::read(dir.join("watched").join(&name)).unwrap();
            assert!(a == b, "{name:?} differs with the view on");
            compared += 1;
        }
    }
    assert!(compared >= 9, "only {compared} NPY files compared");
}

#[test]
fn viewers_pause_resume_and_stop_a_run_cleanly() {
    let dir = scratch("view-control");
    let long = ["dam-break", "--nx", "64", "--t-end", "100"];
    let v = Viewed::start(&dir, &long, &["--paused"]);
    let port = v.port;
    let st = until(port, "the first frame", |st| st["seq"].as_u64() >= Some(1));
    assert_eq!(st["state"], "paused");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(status(port)["step"], 0, "a run started paused took steps");
    assert_eq!(http(port, "POST", "/control", "resume").0, 204);
    until(port, "steps after resuming", |st| st["step"].as_u64() > Some(5));
    assert_eq!(http(port, "POST", "/control", "pause").0, 204);
    let paused = until(port, "the pause", |st| st["state"] == "paused");
    std::thread::sleep(Duration::from_millis(300));
    let a = status(port)["step"].clone();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(status(port)["step"], a, "the run stepped while paused ({paused})");
    assert_eq!(http(port, "POST", "/control", "resume").0, 204);
    until(port, "steps after the second resume", |st| st["step"].as_u64() > a.as_u64());
    assert_eq!(http(port, "POST", "/control", "stop").0, 204);
    let dir = v.dir.clone();
    let (code, out, err) = v.wait();
    assert_eq!(code, 130, "a stop from the view exits as SIGINT does:\n{out}\n{err}");
    assert!(err.contains("stopped from the live view") && err.contains("are complete"), "{err}");
    let manifest = std::fs::read_to_string(dir.join("hydrokern-run.json")).unwrap();
    assert!(manifest.contains("\"interrupted\""), "{manifest}");
    assert!(!dir.join(".hydrokern.lock").exists() || !manifest.is_empty());
}

#[test]
fn bad_messages_and_vanishing_viewers_cost_a_line_and_the_run_goes_on() {
    let dir = scratch("view-bad");
    let v = Viewed::start(&dir, &CASE, &["--paused"]);
    let port = v.port;
    // Not HTTP at all; a command that does not exist; a rate out of range; a viewer that
    // opens the events and vanishes; one that connects and says nothing.
    let mut raw = TcpStream::connect(("127.0.0.1", port)).unwrap();
    raw.write_all(b"GARBAGE\r\n\r\n").unwrap();
    let mut reply = String::new();
    raw.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert_eq!(http(port, "POST", "/control", "explode").0, 400);
    assert_eq!(http(port, "GET", "/events?fps=1000", "").0, 400);
    assert_eq!(http(port, "GET", "/frame?layer=nothing", "").0, 404);
    assert_eq!(http(port, "GET", "/nowhere", "").0, 404);
    drop(TcpStream::connect(("127.0.0.1", port)).unwrap());
    {
        let mut gone = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(gone, "GET /events HTTP/1.1\r\n\r\n").unwrap();
    }
    let (code, page) = http(port, "GET", "/", "");
    assert_eq!(code, 200);
    assert!(String::from_utf8_lossy(&page).contains("/view.js"));
    assert_eq!(http(port, "POST", "/control", "resume").0, 204);
    let (code, out, err) = v.wait();
    assert_eq!(code, 0, "{out}\n{err}");
    for want in ["not 'METHOD PATH HTTP/1.x'", "a command 'explode'", "fps=1000"] {
        assert!(out.contains(want) && out.contains("the run goes on"), "no line on '{want}':\n{out}");
    }
    assert!(out.contains("done: "), "{out}");
}

#[test]
fn a_port_in_use_leaves_the_run_without_its_view() {
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let dir = scratch("view-port");
    let mut args = vec!["--backend", "cpu"];
    args.extend(CASE);
    args.extend(["--output", s(&dir), "--view", &port]);
    let o = hydrokern(&args);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        out.contains(&format!("cannot listen on 127.0.0.1:{port}")) && out.contains("without its live view"),
        "{out}"
    );
}

#[test]
fn paused_without_a_view_is_refused() {
    let dir = scratch("view-paused");
    refused(&["--backend", "cpu", "dam-break", "--nx", "16", "--output", s(&dir), "--paused"], "--paused");
    refused(&["--backend", "cpu", "dam-break", "--nx", "16", "--output", s(&dir), "--view", "70000"], "70000");
}

/// The page's setup, which comes with the first frame, drawn once the run has started.
fn setup_of(port: u16) -> serde_json::Value {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        match http(port, "GET", "/setup", "") {
            (200, setup) => return serde_json::from_slice(&setup).unwrap(),
            (503, _) if Instant::now() < end => std::thread::sleep(Duration::from_millis(20)),
            (code, _) => panic!("/setup answered {code}"),
        }
    }
}

#[test]
fn every_solver_s_view_offers_its_pictures_maps() {
    let cases: [(&[&str], &[&str]); 5] = [
        (&["dam-break", "--nx", "16"], &["depth", "surface", "speed"]),
        (&["seiche", "--nx", "20"], &["zeta", "h"]),
        (&["sediment", "--nx", "16", "--ny", "8"], &["h", "deposit", "s"]),
        (&["swe-radial", "--nx", "16", "--ny", "16"], &["h"]),
        (&["acoustics-3d", "--nx", "8", "--ny", "8", "--nz", "8"], &["p"]),
    ];
    for (k, (case, names)) in cases.iter().enumerate() {
        let v = Viewed::start(&scratch(&format!("view-solver-{k}")), case, &["--paused"]);
        let setup = setup_of(v.port);
        let got: Vec<&str> = setup["layers"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
        assert_eq!(&got, names, "{case:?}");
        for l in setup["layers"].as_array().unwrap() {
            let (lo, hi) = (l["range"][0].as_f64().unwrap(), l["range"][1].as_f64().unwrap());
            assert!(lo < hi, "{case:?}: {l}");
        }
        assert_eq!(http(v.port, "POST", "/control", "stop").0, 204);
        let (code, out, err) = v.wait();
        assert_eq!(code, 130, "{case:?}\n{out}\n{err}");
    }
}

/// Cells outside the domain (nodata in the bed raster) reach the page as no data: every kp
/// layer keys its NaN as outside the domain, and a frame holds NaN there, not dry land.
#[test]
fn cells_outside_the_domain_reach_the_page_as_no_data() {
    use hydrokern::output::{GeoRef, write_geotiff};
    let dir = scratch("view-outside");
    std::fs::create_dir_all(&dir).unwrap();
    let (nx, ny) = (16usize, 6usize);
    // The north-east corner, 4 × 2 cells, off the DEM (row 0 south).
    let outside = |k: usize| k % nx >= 12 && k / nx >= 4;
    let geo = GeoRef { west: 0.0, north: 60.0, dx: 10.0, dy: 10.0, epsg: None };
    let bed: Vec<f64> = (0..nx * ny).map(|k| if outside(k) { f64::NAN } else { 2.0 - 0.1 * (k % nx) as f64 }).collect();
    let surface: Vec<f64> = (0..nx * ny).map(|k| if k % nx < 5 { 3.0 } else { 0.0 }).collect();
    write_geotiff(&dir.join("bed.tif"), &bed, nx, ny, &geo).unwrap();
    write_geotiff(&dir.join("surface.tif"), &surface, nx, ny, &geo).unwrap();
    let case = dir.join("outside.toml");
    std::fs::write(
        &case,
        "solver = \"kp\"\n[time]\nt_end = 2.0\n[initial.raster]\nbed = \"bed.tif\"\nsurface = \"surface.tif\"\n\
         [output]\nformats = []\nprogress = 1e9\n",
    )
    .unwrap();
    let v = Viewed::start(&dir.join("out"), &["run", s(&case)], &["--paused"]);
    let setup = setup_of(v.port);
    for l in setup["layers"].as_array().unwrap() {
        assert_eq!(l["unset"].as_str(), Some("no data (outside the domain)"), "{l}");
    }
    let (code, frame) = http(v.port, "GET", "/frame?layer=depth", "");
    assert_eq!(code, 200);
    let word = |at: usize| u32::from_le_bytes(frame[at..at + 4].try_into().unwrap()) as usize;
    let (w, h) = (word(4), word(8));
    assert_eq!((w, h), (nx, ny), "the view samples the grid's own cells");
    let n = w * h;
    for k in 0..n {
        let half = u16::from_le_bytes([frame[32 + 2 * k], frame[33 + 2 * k]]);
        let nan = half & 0x7c00 == 0x7c00 && half & 0x03ff != 0;
        let dry = frame[32 + 2 * n + k] == 1;
        assert_eq!(nan, outside(k), "cell {k}: half {half:#06x}");
        assert!(!(outside(k) && dry), "cell {k} outside drawn as land");
    }
    assert_eq!(http(v.port, "POST", "/control", "stop").0, 204);
    let (code, out, err) = v.wait();
    assert_eq!(code, 130, "{out}\n{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
