//! A one-connection HTTP server that sends a streamed body in steps, for
//! tests that need to control when each byte goes out.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the server does next.
pub enum Step {
    /// Writes these bytes as one chunk.
    Send(String),
    /// Waits for a message from the test (ten seconds at most, so that a
    /// test that never sends it fails rather than hangs).
    WaitFor(Receiver<()>),
    /// Tells the test the server got here: a first step tells it the
    /// request was read and the answer's head sent.
    Tell(Sender<()>),
    /// Sleeps.
    Pause(Duration),
}

/// What the server saw.
#[derive(Debug)]
pub struct Seen {
    /// The request body.
    pub body: String,
    /// True when a write failed or the client closed its side: the client hung up.
    pub client_hung_up: bool,
}

/// How the body's end is marked.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `transfer-encoding: chunked`.
    Chunked,
    /// No length and no chunks: the body ends when the server closes the
    /// connection, so a closed connection reads as a clean end.
    UntilClose,
}

pub struct PacedServer {
    pub url: String,
    thread: Option<JoinHandle<Seen>>,
}

impl PacedServer {
    /// Starts a server that answers one request with 200, `text/event-stream`,
    /// chunked, then runs `steps`, then ends the body.
    pub fn start(steps: Vec<Step>) -> PacedServer {
        PacedServer::start_framed(Framing::Chunked, steps)
    }

    /// Like [`start`](Self::start), with the body framed as `framing` says.
    pub fn start_framed(framing: Framing, steps: Vec<Step>) -> PacedServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let thread = std::thread::spawn(move || match accept(&listener) {
            Some(stream) => serve(stream, framing, steps),
            None => Seen {
                body: String::new(),
                client_hung_up: false,
            },
        });
        PacedServer {
            url,
            thread: Some(thread),
        }
    }

    /// Waits for the server to finish and says what it saw.
    pub fn finish(mut self) -> Seen {
        self.thread.take().unwrap().join().unwrap()
    }
}

/// Waits up to ten seconds for the client, so that a test whose client never
/// connects fails instead of hanging.
fn accept(listener: &TcpListener) -> Option<TcpStream> {
    listener.set_nonblocking(true).ok()?;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).ok()?;
                return Some(stream);
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    None
}

/// Reads one HTTP request's head and body from `reader`; `None` at end of
/// file or on a read error, before the body is whole.
pub fn read_request(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

fn serve(mut stream: TcpStream, framing: Framing, steps: Vec<Step>) -> Seen {
    let body = read_request(&mut BufReader::new(&stream))
        .map(|body| String::from_utf8_lossy(&body).into_owned())
        .unwrap_or_default();
    let head = match framing {
        Framing::Chunked => "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
        Framing::UntilClose => "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
    };
    let mut hung_up = stream.write_all(head.as_bytes()).is_err();
    for step in steps {
        if hung_up {
            break;
        }
        match step {
            Step::Send(text) => {
                let chunk = match framing {
                    Framing::Chunked => format!("{:x}\r\n{text}\r\n", text.len()),
                    Framing::UntilClose => text,
                };
                hung_up = stream
                    .write_all(chunk.as_bytes())
                    .and_then(|()| stream.flush())
                    .is_err();
            }
            Step::WaitFor(signal) => {
                let _ = signal.recv_timeout(Duration::from_secs(10));
            }
            Step::Tell(told) => {
                let _ = told.send(());
            }
            Step::Pause(pause) => std::thread::sleep(pause),
        }
    }
    if !hung_up && framing == Framing::Chunked {
        hung_up = stream.write_all(b"0\r\n\r\n").is_err();
    }
    // A client that hung up shows as end of file (or a reset) on our side.
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut rest = [0u8; 64];
    let closed = match stream.read(&mut rest) {
        Ok(read) => read == 0,
        Err(error) => !matches!(
            error.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    };
    Seen {
        body,
        client_hung_up: hung_up || closed,
    }
}

/// One SSE chunk event carrying `text`.
pub fn delta(text: &str) -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]
    });
    format!("data: {chunk}\n\n")
}

/// The finish chunk, a usage chunk, and `[DONE]`.
pub fn finish() -> String {
    let stop = serde_json::json!({
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    });
    let usage = serde_json::json!({
        "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    });
    format!("data: {stop}\n\ndata: {usage}\n\ndata: [DONE]\n\n")
}

/// A channel whose sender the test keeps and whose receiver a step waits on.
pub fn signal() -> (Sender<()>, Receiver<()>) {
    std::sync::mpsc::channel()
}
