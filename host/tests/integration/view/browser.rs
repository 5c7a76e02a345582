//! The live view's page in a real browser: Debian's Chromium, headless, driven over the DevTools
//! protocol. The page loads and draws its first frame within [`FIRST_FRAME`], the time shown
//! advances, its buttons pause, resume and stop the run, and a screenshot of its map matches the
//! run's PNG snapshot of the same step, cell by cell, within [`TOLERANCE`]: over the case's
//! hillshaded bed (kp) and over a relief that changes every frame (sediment's height).
//!
//! Built where `chromium` is on PATH or with `HYDROKERN_REQUIRE_BROWSER=1` (build.rs); ignored
//! elsewhere.

use super::{Viewed, scratch};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket, stream::MaybeTlsStream};

/// The page shows the run's first frame within this of loading.
const FIRST_FRAME: Duration = Duration::from_secs(5);
/// A channel of the page's map may differ from the picture's by this much: the frame's half
/// floats move a colour by at most one step of 255 on the colour map's steepest stretch, and the
/// hillshade's f32 by less; the rest is rounding.
const TOLERANCE: i32 = 3;

/// A headless Chromium and a DevTools session with its page.
struct Browser {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    _profile: tempdir::Profile,
}

mod tempdir {
    /// A browser profile directory, removed with it.
    pub struct Profile(pub std::path::PathBuf);
    impl Drop for Profile {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl Browser {
    fn open(url: &str) -> Browser {
        let profile = tempdir::Profile(scratch("chromium-profile"));
        let mut child = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--no-first-run",
                "--no-default-browser-check",
                "--mute-audio",
                "--force-device-scale-factor=1",
                "--window-size=1400,1000",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.0.display()))
            .arg(url)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium (Debian: apt-get install chromium)");
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/…" on standard error.
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let port: u16 = loop {
            let line = lines.next().expect("chromium ended before its DevTools line").unwrap();
            if let Some(rest) = line.split("ws://127.0.0.1:").nth(1) {
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        };
        // Its standard error drained, so a chatty browser never blocks on it.
        std::thread::spawn(move || lines.for_each(drop));
        let page = page_socket(port, url);
        let (socket, _) = tungstenite::connect(page).expect("the page's DevTools socket");
        Browser { child, socket, next: 1, _profile: profile }
    }

    /// A DevTools command's result.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.socket.send(Message::text(json!({ "id": id, "method": method, "params": params }).to_string())).unwrap();
        loop {
            let Message::Text(text) = self.socket.read().unwrap() else { continue };
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// The value of a JavaScript expression in the page.
    fn eval(&mut self, expression: &str) -> Value {
        let r = self
            .call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }));
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// Wait until the expression is true in the page.
    fn until(&mut self, expression: &str, within: Duration) -> Duration {
        let start = Instant::now();
        // False, not an exception, before the page's script has run.
        let guarded = format!("(() => {{ try {{ return !!({expression}); }} catch (e) {{ return false; }} }})()");
        while self.eval(&guarded) != json!(true) {
            let state = self.eval("typeof hk === 'undefined' ? 'no page yet' : JSON.stringify({state: hk.state, seq: hk.seq, drawn: hk.drawn, t: hk.t, msg: document.getElementById('message').textContent})");
            assert!(start.elapsed() < within, "waited {within:?} for `{expression}`: {state}");
            std::thread::sleep(Duration::from_millis(25));
        }
        start.elapsed()
    }

    fn click(&mut self, id: &str) {
        self.eval(&format!("document.getElementById('{id}').click(), true"));
    }

    /// The page's map as the screen shows it: RGB rows of the `#field` canvas's box.
    fn screenshot_of_map(&mut self) -> (usize, usize, Vec<u8>) {
        let r = self.eval("(() => { const b = document.getElementById('field').getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; })()");
        let [x, y, w, h] = [0, 1, 2, 3].map(|k| r[k].as_f64().unwrap());
        let clip = json!({ "x": x, "y": y, "width": w, "height": h, "scale": 1 });
        let shot = self
            .call("Page.captureScreenshot", json!({ "format": "png", "clip": clip, "captureBeyondViewport": true }));
        let bytes = base64(shot["data"].as_str().unwrap());
        rgb_of_png(&bytes)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The DevTools WebSocket of the page at `url` (`/json/list`).
fn page_socket(port: u16, url: &str) -> String {
    let start = Instant::now();
    loop {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(c, "GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").unwrap();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut all = String::new();
        // The browser keeps the connection open: read what came, up to the body's end.
        let mut buf = [0u8; 65536];
        while let Ok(n) = c.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.push_str(&String::from_utf8_lossy(&buf[..n]));
            if all.trim_end().ends_with(']') {
                break;
            }
        }
        if let Some(body) = all.split("\r\n\r\n").nth(1)
            && let Ok(list) = serde_json::from_str::<Value>(body)
            && let Some(page) = list
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.starts_with(url)))
        {
            return page["webSocketDebuggerUrl"].as_str().unwrap().to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no page at {url} in {all}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).map(value).collect();
    digits
        .chunks(4)
        .flat_map(|q| {
            let n = q.iter().enumerate().fold(0u32, |n, (k, &d)| n | u32::from(d) << (18 - 6 * k));
            n.to_be_bytes()[1..q.len()].to_vec()
        })
        .collect()
}

/// A PNG's pixels as RGB rows.
fn rgb_of_png(bytes: &[u8]) -> (usize, usize, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let (w, h) = (info.width as usize, info.height as usize);
    let channels = info.line_size / w;
    let rgb = buf[..info.buffer_size()].chunks(channels).flat_map(|p| [p[0], p[1], p[2]]).collect();
    (w, h, rgb)
}

/// The map of a snapshot picture: its top-left pixel and s, its pixels a cell, found by its frame
/// (a black rectangle drawn just outside the map's `cells_x · s` pixels).
fn map_area(w: usize, rgb: &[u8], cells_x: usize) -> (usize, usize, usize) {
    let black = |x: usize, y: usize| rgb[3 * (y * w + x)..3 * (y * w + x) + 3] == [0, 0, 0];
    let h = rgb.len() / 3 / w;
    for y in 0..h {
        let mut x = 0;
        while x < w {
            let run = (x..w).take_while(|&i| black(i, y)).count();
            let inside = run.saturating_sub(2);
            if inside >= 3 * cells_x && inside % cells_x == 0 && black(x, y + 1) && !black(x + 1, y + 1) {
                return (x + 1, y + 1, inside / cells_x);
            }
            x += run.max(1);
        }
    }
    panic!("no map frame {cells_x} cells wide in the picture");
}

/// The page's map now against the picture at `path`, cell by cell, within [`TOLERANCE`].
fn same_as_picture(b: &mut Browser, path: &std::path::Path, nx: usize, ny: usize) {
    let (sw, sh, shot) = b.screenshot_of_map();
    let zoom = sw / nx;
    assert!(zoom >= 1 && sw == nx * zoom && sh == ny * zoom, "a map of {sw}×{sh} pixels for {nx}×{ny} cells");
    let picture = std::fs::read(path).unwrap();
    let (pw, _, rgb) = rgb_of_png(&picture);
    let (x0, y0, s) = map_area(pw, &rgb, nx);
    let mut worst = (0, 0, 0);
    for j in 0..ny {
        for i in 0..nx {
            let p = |x: usize, y: usize, img: &[u8], w: usize| -> [i32; 3] {
                let k = 3 * (y * w + x);
                [img[k], img[k + 1], img[k + 2]].map(i32::from)
            };
            let row = ny - 1 - j;
            let want = p(x0 + i * s + s / 2, y0 + row * s + s / 2, &rgb, pw);
            let got = p(i * zoom + zoom / 2, row * zoom + zoom / 2, &shot, sw);
            let d = (0..3).map(|c| (want[c] - got[c]).abs()).max().unwrap();
            if d > worst.0 {
                worst = (d, i, j);
            }
        }
    }
    let name = path.display();
    assert!(worst.0 <= TOLERANCE, "{name}: cell {:?} differs by {} from the picture", (worst.1, worst.2), worst.0);
}

#[cfg_attr(not(browser_tests), ignore = "needs chromium on PATH (Debian: apt-get install chromium)")]
#[test]
fn the_page_draws_the_run_as_its_pictures_and_its_buttons_act_on_the_run() {
    // A dam break down a valley DEM: dry land, relief to shade, water on the move.
    let (nx, ny) = (128usize, 64usize);
    let dir = scratch("view-browser");
    let case = ["valley", "--nx", "128", "--t-end", "300"];
    let v = Viewed::start(&dir, &case, &["--paused"]);
    let (port, url) = (v.port, format!("http://127.0.0.1:{}/", v.port));
    let mut b = Browser::open(&url);
    let first = b.until("hk.drawn >= 1", Duration::from_secs(20));
    assert!(first <= FIRST_FRAME, "the first frame took {first:?}");
    assert_eq!(b.eval("hk.state"), json!("paused"));
    assert_eq!(b.eval("hk.t").as_f64(), Some(0.0));
    // Resume: time advances on the page.
    b.click("resume");
    b.until("hk.t > 0 && hk.state === 'running'", Duration::from_secs(30));
    // Pause: the run stops stepping.
    b.click("pause");
    b.until("hk.state === 'paused'", Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(300));
    let step = super::status(port)["step"].clone();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(super::status(port)["step"], step, "the run stepped while the page paused it");
    // Resume to the end: the page shows the last frame, which is the last snapshot's state.
    b.click("resume");
    b.until("hk.state === 'finished' && hk.drawn === hk.seq && hk.step > 0", Duration::from_secs(60));
    let (code, out, err) = v.wait();
    assert_eq!(code, 0, "{out}\n{err}");
    let shown = b.eval("[hk.t, hk.step]");
    assert_eq!(shown[0].as_f64(), Some(300.0), "the last frame is the end's ({shown})");

    same_as_picture(&mut b, &dir.join("depth_t300.png"), nx, ny);

    // A map hillshaded by its own changing relief: sediment's basin height, its shade in each
    // frame.
    let dir = scratch("view-browser-sediment");
    let v = Viewed::start(&dir, &["sediment", "--nx", "48", "--ny", "24", "--t-end", "2000"], &["--paused"]);
    b.call("Page.navigate", json!({ "url": format!("http://127.0.0.1:{}/", v.port) }));
    b.until("hk.drawn >= 1 && hk.layer === 'h'", Duration::from_secs(30));
    b.click("resume");
    b.until("hk.state === 'finished' && hk.drawn === hk.seq && hk.step > 0", Duration::from_secs(60));
    let (code, out, err) = v.wait();
    assert_eq!(code, 0, "{out}\n{err}");
    same_as_picture(&mut b, &dir.join("h_t2000.png"), 48, 24);

    // A stop from the page is a clean stop, as SIGINT's.
    let dir = scratch("view-browser-stop");
    let v = Viewed::start(&dir, &["dam-break", "--nx", "64", "--t-end", "100"], &[]);
    let url = format!("http://127.0.0.1:{}/", v.port);
    b.call("Page.navigate", json!({ "url": url }));
    b.until("hk.drawn >= 1 && hk.step > 0", Duration::from_secs(30));
    b.click("stop");
    let (code, out, err) = v.wait();
    assert_eq!(code, 130, "{out}\n{err}");
    assert!(err.contains("stopped from the live view"), "{err}");
    b.until("hk.state === 'stopped'", Duration::from_secs(10));
}
