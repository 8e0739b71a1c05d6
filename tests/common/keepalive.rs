//! A loopback server that answers every request on a connection with a
//! canned chat completion, keeping the connection open for the next, and
//! counts the connections it accepted. Streamed requests (`"stream":true`)
//! get a stream of `deltas` one-character deltas. The benchmarks use it
//! too, so it is quick: a thread per connection, one write per answer.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub struct KeepAliveServer {
    pub url: String,
    accepted: Arc<AtomicUsize>,
}

impl KeepAliveServer {
    /// Starts the server; it runs until the process ends.
    pub fn start(deltas: usize) -> KeepAliveServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let accepted = Arc::new(AtomicUsize::new(0));
        let answers = Arc::new(Answers::new(deltas));
        let counter = accepted.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let answers = answers.clone();
                std::thread::spawn(move || serve(stream, &answers));
            }
        });
        KeepAliveServer { url, accepted }
    }

    /// How many connections were accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// The two canned answers, head and body in one buffer each.
pub struct Answers {
    pub whole: Vec<u8>,
    pub streamed: Vec<u8>,
}

impl Answers {
    pub fn new(deltas: usize) -> Answers {
        let completion = concat!(
            r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","#,
            r#""choices":[{"index":0,"finish_reason":"stop","#,
            r#""message":{"role":"assistant","content":"pong"}}],"#,
            r#""usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#
        );
        let mut events = String::new();
        for _ in 0..deltas {
            events.push_str(r#"data: {"choices":[{"index":0,"delta":{"content":"x"}}]}"#);
            events.push_str("\n\n");
        }
        events.push_str(concat!(
            r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "\n\ndata: [DONE]\n\n"
        ));
        Answers {
            whole: answer("application/json", completion),
            streamed: answer("text/event-stream", &events),
        }
    }
}

fn answer(content_type: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Answers requests until the client closes the connection.
pub fn serve(mut stream: TcpStream, answers: &Answers) {
    let _ = stream.set_nodelay(true);
    let mut buffer = Vec::with_capacity(64 * 1024);
    while let Some(body) = next_request(&mut stream, &mut buffer) {
        let streamed = find(&body, b"\"stream\":true").is_some();
        let reply = if streamed {
            &answers.streamed
        } else {
            &answers.whole
        };
        if stream.write_all(reply).is_err() {
            return;
        }
    }
}

/// Reads one request (the head, then content-length bytes of body) and
/// returns its body; `None` when the client closed the connection.
/// `buffer` keeps what came after it.
pub fn next_request(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut fill = |buffer: &mut Vec<u8>| match stream.read(&mut chunk) {
        Ok(0) | Err(_) => None,
        Ok(read) => {
            buffer.extend_from_slice(&chunk[..read]);
            Some(())
        }
    };
    let (head_end, length) = loop {
        if let Some(end) = find(buffer, b"\r\n\r\n") {
            break (end + 4, content_length(&buffer[..end]));
        }
        fill(buffer)?;
    };
    while buffer.len() < head_end + length {
        fill(buffer)?;
    }
    let body = buffer[head_end..head_end + length].to_vec();
    buffer.drain(..head_end + length);
    Some(body)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn content_length(head: &[u8]) -> usize {
    String::from_utf8_lossy(head)
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}
