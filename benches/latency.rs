//! Prints a report of chatwire's own costs on this machine, against local
//! servers (no network, no model): the round trip of a send to a mock, the
//! cost of building a large request, and how long a cancel takes to stop a
//! request whose server is silent.
//!
//! ```sh
//! cargo bench --bench latency
//! ```

use std::io::Read;
use std::net::TcpListener;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use chatwire::{Client, Conversation};

fn completion(content: &str) -> String {
    serde_json::json!({
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
    .to_string()
}

fn client(url: &str) -> Client {
    Client::builder()
        .base_url(url)
        .api_key("sk-bench")
        .max_retries(0)
        .build()
        .expect("client")
}

fn conversation(turns: usize, words: usize) -> Conversation {
    let mut conversation = Conversation::new("bench");
    conversation.set_system("You are a benchmark.");
    let text = "lorem ipsum ".repeat(words);
    for _ in 0..turns {
        conversation.user(text.as_str()).unwrap();
        conversation.assistant(text.as_str()).unwrap();
    }
    conversation.user("last").unwrap();
    conversation
}

struct Summary {
    min: Duration,
    median: Duration,
    max: Duration,
}

fn summarize(mut samples: Vec<Duration>) -> Summary {
    samples.sort();
    Summary {
        min: samples[0],
        median: samples[samples.len() / 2],
        max: samples[samples.len() - 1],
    }
}

fn row(what: &str, summary: &Summary) {
    println!(
        "{what:<52} min {:>9.3?}  median {:>9.3?}  max {:>9.3?}",
        summary.min, summary.median, summary.max
    );
}

fn send_round_trips() {
    let mut server = mockito::Server::new();
    server
        .mock("POST", "/v1/chat/completions")
        .with_body(completion("pong"))
        .expect_at_least(1)
        .create();
    let client = client(&server.url());
    for (turns, words) in [(0, 1), (50, 100)] {
        let base = conversation(turns, words);
        let bytes = base.to_json().len();
        let samples = (0..200)
            .map(|_| {
                let mut conversation = base.clone();
                let started = Instant::now();
                client.send(&mut conversation).unwrap();
                started.elapsed()
            })
            .collect();
        row(
            &format!(
                "send to a loopback mock, {} messages ({} KiB)",
                base.len(),
                bytes / 1024
            ),
            &summarize(samples),
        );
    }
}

/// A server that accepts connections, reads the request, and says nothing;
/// it tells the bench each time a request has arrived.
fn silent_server() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (arrived, arrivals) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let arrived = arrived.clone();
            std::thread::spawn(move || {
                let mut buffer = [0u8; 65536];
                let _ = stream.read(&mut buffer);
                let _ = arrived.send(());
                // Hold the connection open, silent, until the client closes it.
                let _ = stream.read(&mut buffer);
            });
        }
    });
    (url, arrivals)
}

fn cancel_on_silent_server() {
    let (url, arrivals) = silent_server();
    let client = client(&url);
    let samples = (0..30)
        .map(|_| {
            let pending = client
                .stream_async(&conversation(0, 1), |_| ControlFlow::Continue(()))
                .unwrap();
            arrivals.recv_timeout(Duration::from_secs(10)).unwrap();
            std::thread::sleep(Duration::from_millis(5));
            let started = Instant::now();
            pending.cancel();
            let outcome = pending.wait();
            assert!(
                matches!(outcome, Err(chatwire::Error::Cancelled)),
                "{outcome:?}"
            );
            started.elapsed()
        })
        .collect();
    row(
        "cancel a streamed request, server silent (target 100 ms)",
        &summarize(samples),
    );
}

fn build_large_request() {
    let base = conversation(500, 200);
    let samples = (0..50)
        .map(|_| {
            let started = Instant::now();
            let json = base.to_json();
            std::hint::black_box(json);
            started.elapsed()
        })
        .collect();
    row(
        &format!(
            "serialize {} messages ({} KiB)",
            base.len(),
            base.to_json().len() / 1024
        ),
        &summarize(samples),
    );
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: stay quick then.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("latency: run with `cargo bench --bench latency` for the report");
        return;
    }
    println!("chatwire {} latency report", env!("CARGO_PKG_VERSION"));
    send_round_trips();
    build_large_request();
    cancel_on_silent_server();
}
