//! The live view's HTTP server, on the standard library alone: the page's static files, the
//! run's setup, frames and histories, a stream of server-sent events with the run's status, and
//! the viewers' commands. It listens on the loopback interface only. Every connection has a
//! thread of its own with read and write timeouts, so a viewer that stalls or vanishes costs its
//! own thread and never the run. What it has to say goes to the hub's notes, which the run says
//! at its next step boundary.

use super::hub::{Command, DEFAULT_FPS, FPS_RANGE, Hub};
use crate::{Error, Result};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The page, its script and its style: static files in the repository, built into the program.
const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/view.js");
const STYLE: &str = include_str!("page/view.css");

/// How long a connection may take to send its request, or to take what is written to it.
const TIMEOUT: Duration = Duration::from_secs(5);
/// A request's head and body may not exceed these.
const MAX_HEAD: usize = 16 * 1024;
const MAX_BODY: usize = 1024;
/// A status event at least this often, so that a viewer sees a stalled run is alive.
const KEEP_ALIVE: Duration = Duration::from_secs(2);

/// A bound listener, before it serves.
pub struct Server {
    listener: TcpListener,
    port: u16,
}

impl Server {
    /// Listen on 127.0.0.1:`port` (0: a free port the system picks).
    pub fn bind(port: u16) -> Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| Error::invalid(format!("the live view cannot listen on 127.0.0.1:{port}: {e}")))?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
        listener.set_nonblocking(true).map_err(|e| Error::invalid(format!("the live view's listener: {e}")))?;
        Ok(Server { listener, port })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serve until `closing` is set: one thread accepts, one more per connection. The threads
    /// are the server's own; a connection's ends with its request, or with the run.
    pub fn serve(self, hub: Arc<Hub>, closing: Arc<AtomicBool>) {
        std::thread::spawn(move || {
            while !closing.load(Ordering::SeqCst) {
                match self.listener.accept() {
                    Ok((stream, _)) => {
                        let hub = hub.clone();
                        std::thread::spawn(move || connection(stream, &hub));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => {
                        hub.note(format!("  view: accepting a viewer failed ({e}); the run goes on"));
                        std::thread::sleep(Duration::from_millis(200));
                    }
                }
            }
        });
    }
}

/// A request: method, path, query and body.
struct Request {
    method: String,
    path: String,
    query: Vec<(String, String)>,
    body: String,
}

impl Request {
    fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

fn connection(stream: TcpStream, hub: &Hub) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(TIMEOUT));
    let _ = stream.set_write_timeout(Some(TIMEOUT));
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut out = stream;
    let request = match read_request(&mut reader) {
        Ok(Some(r)) => r,
        // Connected and left without asking anything.
        Ok(None) => return,
        Err(why) => {
            hub.note(format!("  view: ignored a malformed request from a viewer ({why}); the run goes on"));
            let _ = respond(&mut out, "400 Bad Request", "text/plain", why.as_bytes());
            return;
        }
    };
    let _ = route(&request, &mut out, hub);
}

/// Read one request, or None where the connection closed before a byte of it.
fn read_request(reader: &mut impl BufRead) -> std::result::Result<Option<Request>, String> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let n = reader.by_ref().take((MAX_HEAD + 1 - head.len()) as u64).read_until(b'\n', &mut line);
        match n {
            Ok(0) if head.is_empty() => return Ok(None),
            Ok(0) => return Err("the request ended before its head did".into()),
            Ok(_) => {}
            Err(e) => return Err(format!("reading the request: {e}")),
        }
        head.extend_from_slice(&line);
        if head.len() > MAX_HEAD {
            return Err(format!("a request head over {MAX_HEAD} bytes"));
        }
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let head = String::from_utf8(head).map_err(|_| "a request head that is not UTF-8".to_string())?;
    let mut lines = head.lines();
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("a request line '{}' that is not 'METHOD PATH HTTP/1.x'", first.trim()));
    };
    if !version.starts_with("HTTP/1.") || parts.next().is_some() {
        return Err(format!("a request line '{}' that is not 'METHOD PATH HTTP/1.x'", first.trim()));
    }
    let mut length = 0usize;
    for line in lines {
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().map_err(|_| format!("a Content-Length of '{}'", value.trim()))?;
        }
    }
    if length > MAX_BODY {
        return Err(format!("a request body of {length} bytes (at most {MAX_BODY})"));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(|e| format!("reading the request's body: {e}"))?;
    let body = String::from_utf8(body).map_err(|_| "a request body that is not UTF-8".to_string())?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_string(), v.to_string())
        })
        .collect();
    Ok(Some(Request { method: method.to_string(), path: path.to_string(), query, body }))
}

fn respond(out: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    out.write_all(body)?;
    out.flush()
}

fn route(r: &Request, out: &mut TcpStream, hub: &Hub) -> std::io::Result<()> {
    let bad = |out: &mut TcpStream, why: String| {
        hub.note(format!("  view: ignored a malformed message from a viewer ({why}); the run goes on"));
        respond(out, "400 Bad Request", "text/plain", why.as_bytes())
    };
    match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/" | "/index.html") => respond(out, "200 OK", "text/html; charset=utf-8", PAGE.as_bytes()),
        ("GET", "/view.js") => respond(out, "200 OK", "text/javascript; charset=utf-8", SCRIPT.as_bytes()),
        ("GET", "/view.css") => respond(out, "200 OK", "text/css; charset=utf-8", STYLE.as_bytes()),
        ("GET", "/setup") => match hub.setup() {
            Some(s) => respond(out, "200 OK", "application/json", s.as_bytes()),
            None => respond(out, "503 Service Unavailable", "text/plain", b"no frame yet"),
        },
        ("GET", "/shade") => match hub.shade() {
            Some(s) => respond(out, "200 OK", "application/octet-stream", &s),
            None => respond(out, "404 Not Found", "text/plain", b"no bed to shade"),
        },
        ("GET", "/history") => respond(out, "200 OK", "application/json", hub.history().as_bytes()),
        ("GET", "/frame") => {
            let Some(layer) = r.param("layer") else { return bad(out, "/frame without a layer".into()) };
            let viewer = match r.param("viewer").map(str::parse::<u64>) {
                Some(Ok(v)) => Some(v),
                Some(Err(_)) => return bad(out, "/frame with a viewer that is not a number".into()),
                None => None,
            };
            match hub.frame(layer, viewer) {
                Some(bytes) => respond(out, "200 OK", "application/octet-stream", &bytes),
                None => respond(out, "404 Not Found", "text/plain", format!("no layer '{layer}'").as_bytes()),
            }
        }
        ("GET", "/events") => {
            let fps = match r.param("fps").map(str::parse::<f64>) {
                None => DEFAULT_FPS,
                Some(Ok(f)) if (FPS_RANGE.0..=FPS_RANGE.1).contains(&f) => f,
                Some(_) => {
                    let (lo, hi) = FPS_RANGE;
                    return bad(
                        out,
                        format!("/events with fps={}: a number from {lo} to {hi}", r.param("fps").unwrap_or("")),
                    );
                }
            };
            events(out, hub, fps)
        }
        ("POST", "/control") => {
            let command = match r.body.trim() {
                "pause" => Command::Pause,
                "resume" => Command::Run,
                "stop" => Command::Stop,
                other => {
                    let shown: String = other.chars().take(40).collect();
                    return bad(out, format!("a command '{shown}': pause, resume or stop"));
                }
            };
            if command == Command::Stop {
                hub.note("  view: a viewer asked the run to stop".into());
            }
            // Answered before the command acts: a stopped run's process may end at once, and
            // the viewer that asked would get no answer.
            let answered = respond(out, "204 No Content", "text/plain", b"");
            hub.set_command(command);
            answered
        }
        (method, path) => respond(out, "404 Not Found", "text/plain", format!("nothing at {method} {path}").as_bytes()),
    }
}

/// A viewer's stream of the run's status: its number first, then the status at every frame and
/// change of state, at least every [`KEEP_ALIVE`], until the run ends or the viewer leaves.
fn events(out: &mut TcpStream, hub: &Hub, fps: f64) -> std::io::Result<()> {
    let head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
    let viewer = hub.connect(fps);
    let result = (|| {
        out.write_all(head.as_bytes())?;
        out.write_all(format!("event: hello\ndata: {{\"viewer\":{viewer}}}\n\n").as_bytes())?;
        out.flush()?;
        let (mut seen, mut state) = (u64::MAX, String::new());
        loop {
            let (seq, now, status, ended) = hub.next_status(seen, &state, KEEP_ALIVE);
            out.write_all(format!("event: status\ndata: {status}\n\n").as_bytes())?;
            out.flush()?;
            (seen, state) = (seq, now);
            if ended {
                return Ok(());
            }
        }
    })();
    // A viewer that is gone (or ended) no longer sets the rate; one that ended still counts
    // until it fetched the last frame, which the run's end waits for briefly.
    if result.is_err() {
        hub.disconnect(viewer);
    }
    result
}
