//! A scripted raw-socket server for answers no well-behaved framework
//! sends: gzip bombs, endless streams, huge lines and headers, resets,
//! redirects of every kind, echoed secrets. Each connection gets one
//! request and one scripted answer, then the connection is closed.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

type Answer = dyn Fn(&Request, &mut TcpStream) + Send + Sync;

pub struct HostileServer {
    pub url: String,
    seen: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl HostileServer {
    /// Starts a server that answers every request with `answer`.
    pub fn start(answer: impl Fn(&Request, &mut TcpStream) + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let answer: Arc<Answer> = Arc::new(answer);
        let thread = {
            let (seen, stop) = (seen.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(mut stream) = stream else { continue };
                    let (seen, answer) = (seen.clone(), answer.clone());
                    std::thread::spawn(move || {
                        if let Some(request) = read_request(&mut stream) {
                            seen.lock().unwrap().push(request.clone());
                            answer(&request, &mut stream);
                        }
                    });
                }
            })
        };
        HostileServer {
            url,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for HostileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut buffer = Vec::new();
    let mut byte = [0u8; 1];
    while !buffer.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        buffer.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buffer).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

/// Writes a status line and headers, closing the connection after the body.
pub fn head(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)]) -> bool {
    let mut text = format!("HTTP/1.1 {status}\r\nconnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    stream.write_all(text.as_bytes()).is_ok()
}

/// A whole answer with a length.
pub fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let length = body.len().to_string();
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    all.push(("content-length", &length));
    if head(stream, status, &all) {
        let _ = stream.write_all(body);
    }
}

/// Writes `piece` again and again, up to `total` bytes or until the client
/// hangs up.
pub fn repeat(stream: &mut TcpStream, piece: &[u8], total: u64) {
    let mut sent = 0u64;
    while sent < total && stream.write_all(piece).is_ok() {
        sent += piece.len() as u64;
    }
}

/// One gzip member holding 1 MiB of spaces (JSON whitespace): members may
/// follow one another, so `n` of them inflate to `n` MiB.
pub fn gzip_member() -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&vec![b' '; 1 << 20]).unwrap();
    encoder.finish().unwrap()
}

/// A 200 with a gzip body that inflates to `mib` MiB.
pub fn gzip_bomb(stream: &mut TcpStream, content_type: &str, mib: u64) {
    let member = gzip_member();
    if head(
        stream,
        "200 OK",
        &[("content-type", content_type), ("content-encoding", "gzip")],
    ) {
        repeat(stream, &member, member.len() as u64 * mib);
    }
}

/// A 200 event stream that sends `event` until `total` bytes or a hang-up.
pub fn endless_stream(stream: &mut TcpStream, event: &str, total: u64) {
    if head(stream, "200 OK", &[("content-type", "text/event-stream")]) {
        repeat(stream, event.as_bytes(), total);
    }
}

/// One SSE chunk event carrying `text`.
pub fn delta(text: &str) -> String {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]});
    format!("data: {chunk}\n\n")
}

/// Closes the connection with a reset (RST) instead of a clean end.
pub fn reset(stream: &mut TcpStream) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid descriptor and a correctly sized option value.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    let _ = stream.shutdown(std::net::Shutdown::Read);
}

/// Peak resident memory of this process so far, in KiB.
pub fn peak_rss_kib() -> u64 {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    usage.ru_maxrss as u64
}
