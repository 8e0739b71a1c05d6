//! chatwire against the floor: each figure measured side by side, in one
//! run, with a minimal raw HTTP client (one kept-alive socket, a canned
//! request, the answer read by its length) on the same loopback server (a
//! raw-socket server in this process answering a canned chat completion
//! with keep-alive). The ratio says how far chatwire is from the physical
//! limit of this machine and server.
//!
//! ```sh
//! cargo bench --bench speed
//! ```
//!
//! Besides the table, the run counts the `clone`/`clone3` calls of a child
//! process making 1,000 sends (with `strace`, when installed).
//!
//! The child processes serve profilers too. A send's instructions, from
//! the difference of two counts (which takes the start-up out), against
//! any keep-alive server on `PORT`:
//!
//! ```sh
//! for n in 1000 3000; do
//!   CHATWIRE_BENCH_CHILD=chatwire CHATWIRE_BENCH_URL=http://127.0.0.1:PORT \
//!   CHATWIRE_BENCH_COUNT=$n valgrind --tool=callgrind target/release/deps/speed-*[!.d]
//! done
//! ```
//!
//! With `CHATWIRE_BENCH_API=responses` the child speaks the Responses API
//! (the server must answer its bodies).
//!
//! `CHATWIRE_BENCH_CHILD=threads` makes the sends from four threads
//! sharing a client, `raw` with the raw client, `stream` streamed sends
//! (against a server that streams: the instructions per delta are then the
//! difference over the deltas it sent).
//!
//! `cargo bench --bench speed -- many` runs one section alone: 1,000
//! background sends in flight at once against a server that answers each
//! after 1 s (peak memory and wall time of a child process making them).

#[path = "../tests/common/keepalive.rs"]
mod keepalive;
#[path = "speed/peers.rs"]
mod peers;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::ops::ControlFlow;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chatwire::{Client, Conversation};
use keepalive::KeepAliveServer;

/// Sends per measured round of the sequential figures.
const SENDS: usize = 5_000;
/// Rounds of each figure, floor and chatwire interleaved; medians are shown.
const ROUNDS: usize = 3;
const THREADS: usize = 4;
const HISTORY: usize = 1_000;
const DELTAS: usize = 10_000;
const PACED_DELTAS: usize = 200;

/// The minimal client the floor is measured with: one socket, one write and
/// reads until the length the answer announced.
struct RawClient {
    stream: TcpStream,
    request: Vec<u8>,
    buffer: Vec<u8>,
}

impl RawClient {
    fn connect(url: &str, body: &[u8]) -> RawClient {
        let address = url.trim_start_matches("http://");
        let stream = TcpStream::connect(address).unwrap();
        stream.set_nodelay(true).unwrap();
        let mut request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: {address}\r\n\
             authorization: Bearer sk-bench\r\ncontent-type: application/json\r\n\
             content-length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        RawClient {
            stream,
            request,
            buffer: vec![0; 256 * 1024],
        }
    }

    /// One exchange, read to the answer's end.
    fn post(&mut self) {
        self.stream.write_all(&self.request).unwrap();
        let mut filled = 0;
        let mut wanted = usize::MAX;
        while filled < wanted {
            let read = self.stream.read(&mut self.buffer[filled..]).unwrap();
            assert!(read > 0, "the server closed the connection");
            filled += read;
            if wanted == usize::MAX {
                wanted = answer_length(&self.buffer[..filled]).unwrap_or(usize::MAX);
            }
            if filled == self.buffer.len() {
                // Keep only what is needed to know the answer is complete.
                wanted -= filled;
                filled = 0;
            }
        }
    }
}

/// The whole answer's length, once its head is in.
fn answer_length(bytes: &[u8]) -> Option<usize> {
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&bytes[..end]);
    let length: usize = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())?
    })?;
    Some(end + length)
}

/// The benchmark's client: over chat completions, or over the Responses
/// API when `CHATWIRE_BENCH_API=responses` (a child measured against a
/// server answering that API's bodies).
fn client(url: &str) -> Client {
    let api = match std::env::var("CHATWIRE_BENCH_API").as_deref() {
        Ok("responses") => chatwire::Api::Responses,
        _ => chatwire::Api::ChatCompletions,
    };
    Client::builder()
        .base_url(url)
        .api_key("sk-bench")
        .max_retries(0)
        .api(api)
        .build()
        .unwrap()
}

fn short_conversation() -> Conversation {
    let mut conversation = Conversation::new("bench");
    conversation.user("ping").unwrap();
    conversation
}

fn history() -> Conversation {
    let mut conversation = Conversation::new("bench");
    for turn in 0..HISTORY / 2 {
        conversation
            .user(format!("question {turn}: what comes next?"))
            .unwrap();
        conversation
            .assistant(format!("answer {turn}: the next one."))
            .unwrap();
    }
    conversation.user("last").unwrap();
    conversation
}

/// The request body chatwire sends for `conversation`, for the raw client.
fn body(conversation: &Conversation, streamed: bool) -> Vec<u8> {
    let mut value: serde_json::Value = serde_json::from_str(&conversation.to_json()).unwrap();
    if streamed {
        value["stream"] = true.into();
        value["stream_options"] = serde_json::json!({"include_usage": true});
    }
    serde_json::to_vec(&value).unwrap()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * fraction).round() as usize;
    samples[index]
}

/// Per-send times of `sends` calls of `send`.
fn timed(sends: usize, mut send: impl FnMut()) -> Vec<Duration> {
    (0..sends)
        .map(|_| {
            let started = Instant::now();
            send();
            started.elapsed()
        })
        .collect()
}

struct Row {
    figure: String,
    floor: f64,
    chatwire: f64,
    unit: &'static str,
    /// True when more is better (a rate), false for times and sizes.
    higher_is_better: bool,
}

impl Row {
    /// One line of a table whose `floor` column holds `baseline`'s figures:
    /// the raw client's ("the floor") or a peer's.
    fn print(&self, baseline: &str) {
        let ratio = self.chatwire / self.floor;
        let direction = if self.higher_is_better && baseline == FLOOR {
            format!("of {baseline}")
        } else {
            format!("× {baseline}")
        };
        println!(
            "| {:<46} | {:>12} | {:>12} | {:>5.2} {:<14} |",
            self.figure,
            format!("{} {}", format_value(self.floor), self.unit),
            format!("{} {}", format_value(self.chatwire), self.unit),
            ratio,
            direction
        );
    }
}

const FLOOR: &str = "the floor";

/// A table: its head, then each row against `baseline`.
fn print_table(rows: &[Row], baseline: &str, baseline_column: &str) {
    println!(
        "| {:<46} | {:>12} | {:>12} | {:<20} |",
        "figure", baseline_column, "chatwire", "ratio"
    );
    println!("|{:-<48}|{:->14}|{:->14}|{:-<22}|", "", "", "", "");
    for row in rows {
        row.print(baseline);
    }
}

fn format_value(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.2}")
    }
}

fn sequential(rows: &mut Vec<Row>, url: &str, server: &str) {
    let chatwire = client(url);
    let mut raw = RawClient::connect(url, &body(&short_conversation(), false));
    let conversation = short_conversation();
    for _ in 0..500 {
        raw.post();
        chatwire.send(&mut conversation.clone()).unwrap();
    }
    let (mut raw_rates, mut rates) = (Vec::new(), Vec::new());
    let (mut raw_samples, mut samples) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let mut round = timed(SENDS, || {
            raw.post();
        });
        raw_rates.push(SENDS as f64 / round.iter().sum::<Duration>().as_secs_f64());
        raw_samples.append(&mut round);
        let mut round = timed(SENDS, || {
            chatwire.send(&mut conversation.clone()).unwrap();
        });
        rates.push(SENDS as f64 / round.iter().sum::<Duration>().as_secs_f64());
        samples.append(&mut round);
    }
    rows.push(Row {
        figure: format!("sequential sends/s ({server})"),
        floor: median(raw_rates),
        chatwire: median(rates),
        unit: "/s",
        higher_is_better: true,
    });
    for (name, fraction) in [("p50", 0.5), ("p99", 0.99)] {
        rows.push(Row {
            figure: format!("sequential send latency, {name} ({server})"),
            floor: percentile(&mut raw_samples, fraction).as_secs_f64() * 1e6,
            chatwire: percentile(&mut samples, fraction).as_secs_f64() * 1e6,
            unit: "µs",
            higher_is_better: false,
        });
    }
}

/// nginx answering every request with a canned completion, keep-alive, one
/// worker process, as a second server; stopped when dropped.
struct Nginx {
    url: String,
    process: std::process::Child,
    _dir: TempDir,
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Nginx {
    fn start() -> Option<Nginx> {
        let binary = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
            .into_iter()
            .find(|path| std::path::Path::new(path).exists())?;
        let dir =
            TempDir(std::env::temp_dir().join(format!("chatwire-nginx-{}", std::process::id())));
        std::fs::create_dir_all(&dir.0).ok()?;
        // A free port: the kernel's pick for a listener closed at once.
        let port = TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let body = String::from_utf8(keepalive::Answers::new(1).whole).ok()?;
        let completion = body.split("\r\n\r\n").nth(1)?.to_owned();
        let path = dir.0.display();
        let config = format!(
            "daemon off; master_process off; worker_processes 1; pid {path}/nginx.pid;\n\
             error_log {path}/error.log;\n\
             events {{ worker_connections 1024; }}\n\
             http {{ access_log off; keepalive_requests 10000000; keepalive_timeout 60s;\n\
             client_body_temp_path {path}/body; proxy_temp_path {path}/proxy;\n\
             fastcgi_temp_path {path}/fastcgi; uwsgi_temp_path {path}/uwsgi; scgi_temp_path {path}/scgi;\n\
             client_body_buffer_size 1m;\n\
             server {{ listen 127.0.0.1:{port}; location / {{ default_type application/json; return 200 '{completion}'; }} }} }}\n"
        );
        let config_path = dir.0.join("nginx.conf");
        std::fs::write(&config_path, config).ok()?;
        let process = Command::new(binary)
            .arg("-p")
            .arg(&dir.0)
            .arg("-c")
            .arg(&config_path)
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let nginx = Nginx {
            url: format!("http://127.0.0.1:{port}"),
            process,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(nginx)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// TIME_WAIT sockets to or from `port` (Linux; 0 elsewhere).
fn time_wait(port: u16) -> usize {
    let port = format!(":{port:04X}");
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .map(|text| {
            text.lines()
                .skip(1)
                .filter(|line| {
                    let fields: Vec<&str> = line.split_whitespace().collect();
                    fields.len() > 3
                        && fields[3] == "06"
                        && (fields[1].ends_with(&port) || fields[2].ends_with(&port))
                })
                .count()
        })
        .sum()
}

/// Sends/s of 4 threads, each with a raw connection or all sharing one
/// client; returns the connections chatwire opened (as `accepted` counts
/// them) and the sockets left in TIME_WAIT.
fn threaded(
    rows: &mut Vec<Row>,
    url: &str,
    server: &str,
    accepted: impl Fn() -> usize,
) -> (usize, usize) {
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    let chatwire = client(url);
    let request = body(&short_conversation(), false);
    let per_thread = 20_000 / THREADS;
    let (mut raw_rates, mut rates) = (Vec::new(), Vec::new());
    let mut opened = 0;
    let mut waiting = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..THREADS {
                let mut raw = RawClient::connect(url, &request);
                scope.spawn(move || (0..per_thread).for_each(|_| raw.post()));
            }
        });
        raw_rates.push((per_thread * THREADS) as f64 / started.elapsed().as_secs_f64());
        let before = accepted();
        rates.push(threads_sharing(&chatwire, per_thread));
        opened = opened.max(accepted() - before);
        waiting = waiting.max(time_wait(port));
    }
    rows.push(Row {
        figure: format!("{THREADS} threads, one client, sends/s ({server})"),
        floor: median(raw_rates),
        chatwire: median(rates),
        unit: "/s",
        higher_is_better: true,
    });
    (opened, waiting)
}

/// Sends per second of [`THREADS`] threads sharing `chatwire`, each making
/// `per_thread` sends.
fn threads_sharing(chatwire: &Client, per_thread: usize) -> f64 {
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            let chatwire = chatwire.clone();
            scope.spawn(move || {
                let conversation = short_conversation();
                for _ in 0..per_thread {
                    chatwire.send(&mut conversation.clone()).unwrap();
                }
            });
        }
    });
    (per_thread * THREADS) as f64 / started.elapsed().as_secs_f64()
}

/// chatwire against async-openai (and openai-python, when present) on
/// the same server, rounds interleaved: each peer runs as its own process
/// between chatwire's rounds. Skipped, with the command that adds the
/// peer, when it is not built.
fn compare_with_peers(url: &str, server: &str) {
    let Some(binary) = peers::async_openai_binary() else {
        println!(
            "async-openai comparison skipped: build it with `{}`",
            peers::BUILD_ASYNC_OPENAI
        );
        return;
    };
    let chatwire = client(url);
    let conversation = short_conversation();
    for _ in 0..500 {
        chatwire.send(&mut conversation.clone()).unwrap();
    }
    let (mut peer_runs, mut rates, mut samples, mut threaded) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let mut round = timed(SENDS, || {
            chatwire.send(&mut conversation.clone()).unwrap();
        });
        rates.push(SENDS as f64 / round.iter().sum::<Duration>().as_secs_f64());
        samples.append(&mut round);
        match peers::async_openai(&binary, url, SENDS, THREADS) {
            Some(figures) => peer_runs.push(figures),
            None => return,
        }
        threaded.push(threads_sharing(&chatwire, SENDS / THREADS));
    }
    let peer =
        |figure: fn(&peers::PeerFigures) -> f64| median(peer_runs.iter().map(figure).collect());
    let mut rows = vec![Row {
        figure: format!("sequential sends/s ({server})"),
        floor: peer(|run| run.sequential_per_s),
        chatwire: median(rates),
        unit: "/s",
        higher_is_better: true,
    }];
    for (name, fraction, figure) in [
        (
            "p50",
            0.5,
            (|run: &peers::PeerFigures| run.p50_us) as fn(&_) -> f64,
        ),
        ("p99", 0.99, |run: &peers::PeerFigures| run.p99_us),
    ] {
        rows.push(Row {
            figure: format!("sequential send latency, {name} ({server})"),
            floor: peer(figure),
            chatwire: percentile(&mut samples, fraction).as_secs_f64() * 1e6,
            unit: "µs",
            higher_is_better: false,
        });
    }
    rows.push(Row {
        figure: format!("{THREADS} threads / {THREADS} tasks, one client, sends/s"),
        floor: peer(|run| run.concurrent_per_s.unwrap_or(f64::NAN)),
        chatwire: median(threaded),
        unit: "/s",
        higher_is_better: true,
    });
    println!();
    println!("chatwire against async-openai 0.43 (tokio, multi-thread runtime), medians of {ROUNDS} interleaved rounds\n");
    print_table(&rows, "async-openai", "async-openai");
    if !peers::openai_python_present() {
        println!(
            "\nopenai-python comparison skipped: python3 cannot import openai (pip install openai)"
        );
        return;
    }
    if let Some(python) = peers::openai_python(url, SENDS / 5) {
        println!();
        let row = Row {
            figure: format!("sequential sends/s ({server})"),
            floor: python.sequential_per_s,
            chatwire: rows[0].chatwire,
            unit: "/s",
            higher_is_better: true,
        };
        print_table(&[row], "openai-python", "openai-python");
    }
    println!();
}

fn history_send(rows: &mut Vec<Row>) {
    let server = KeepAliveServer::start(1);
    let chatwire = client(&server.url);
    let conversation = history();
    let mut raw = RawClient::connect(&server.url, &body(&conversation, false));
    let sends = 300;
    let (mut raw_times, mut times) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        raw_times.append(&mut timed(sends, || raw.post()));
        let mut copies = vec![conversation.clone(); sends].into_iter();
        times.append(&mut timed(sends, || {
            chatwire.send(&mut copies.next().unwrap()).unwrap();
        }));
    }
    rows.push(Row {
        figure: format!("{HISTORY}-message history send, median"),
        floor: percentile(&mut raw_times, 0.5).as_secs_f64() * 1e6,
        chatwire: percentile(&mut times, 0.5).as_secs_f64() * 1e6,
        unit: "µs",
        higher_is_better: false,
    });
}

/// A token budget on a very long history: choosing what to leave out is
/// one pass over it, so a send of a 100,000-message conversation under a
/// 4,096-token budget costs milliseconds (choosing, copying what is kept,
/// the request, and dropping the rest when the reply is appended).
fn budget_trim() {
    const MESSAGES: usize = 100_000;
    let server = KeepAliveServer::start(1);
    let chatwire = client(&server.url);
    let mut long = Conversation::new("m");
    long.set_system("You are terse.");
    for turn in 0..MESSAGES / 2 {
        long.user(format!("Question {turn}: what comes after {turn}?"))
            .unwrap();
        long.assistant(format!("{}", turn + 1)).unwrap();
    }
    long.user("And now?").unwrap();
    long.set_token_budget(4096);
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        let mut copy = long.clone();
        let started = Instant::now();
        chatwire.send(&mut copy).unwrap();
        times.push(started.elapsed());
        assert!(copy.last_dropped() > MESSAGES - 1000);
    }
    println!(
        "A {MESSAGES}-message conversation under a 4,096-token budget: one send in {:.1} ms \
         (choosing what to drop, the request, dropping it), median of {ROUNDS}",
        percentile(&mut times, 0.5).as_secs_f64() * 1e3
    );
}

fn long_stream(rows: &mut Vec<Row>) {
    let server = KeepAliveServer::start(DELTAS);
    let chatwire = client(&server.url);
    let mut raw = RawClient::connect(&server.url, &body(&short_conversation(), true));
    let (mut raw_times, mut times) = (Vec::new(), Vec::new());
    for _ in 0..5 * ROUNDS {
        let started = Instant::now();
        raw.post();
        raw_times.push(started.elapsed());
        let mut conversation = short_conversation();
        let mut last = started;
        let started = Instant::now();
        let mut count = 0;
        chatwire
            .send_stream(&mut conversation, |_| {
                count += 1;
                last = Instant::now();
                ControlFlow::Continue(())
            })
            .unwrap();
        assert!(count > 0);
        times.push(last - started);
    }
    rows.push(Row {
        figure: format!("{DELTAS}-delta stream, time to last delta"),
        floor: percentile(&mut raw_times, 0.5).as_secs_f64() * 1e3,
        chatwire: percentile(&mut times, 0.5).as_secs_f64() * 1e3,
        unit: "ms",
        higher_is_better: false,
    });
}

/// A server that streams `PACED_DELTAS` deltas 0.5 ms apart, chunked, and
/// notes when it wrote each.
fn paced_server(sent: Arc<Mutex<Vec<Instant>>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let sent = sent.clone();
            std::thread::spawn(move || {
                stream.set_nodelay(true).unwrap();
                while read_request(&mut stream) {
                    if pace_deltas(&mut stream, &sent).is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

/// Reads one request; false when the client has closed the connection.
fn read_request(stream: &mut TcpStream) -> bool {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut request = Vec::new();
    loop {
        let read = stream.read(&mut buffer).unwrap_or(0);
        if read == 0 {
            return false;
        }
        request.extend_from_slice(&buffer[..read]);
        if answer_length(&request).is_some_and(|length| request.len() >= length) {
            return true;
        }
    }
}

fn pace_deltas(stream: &mut TcpStream, sent: &Mutex<Vec<Instant>>) -> std::io::Result<()> {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                transfer-encoding: chunked\r\n\r\n";
    stream.write_all(head.as_bytes())?;
    let chunk = |text: &str| format!("{:x}\r\n{text}\r\n", text.len());
    for _ in 0..PACED_DELTAS {
        std::thread::sleep(Duration::from_micros(500));
        let event = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n";
        sent.lock().unwrap().push(Instant::now());
        stream.write_all(chunk(event).as_bytes())?;
    }
    let end = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    stream.write_all(format!("{}0\r\n\r\n", chunk(end)).as_bytes())
}

/// Median delay from the server's write of a delta to its arrival.
fn median_delay(sent: &Mutex<Vec<Instant>>, seen: &[Instant]) -> f64 {
    let sent = std::mem::take(&mut *sent.lock().unwrap());
    let delays: Vec<f64> = sent
        .iter()
        .zip(seen)
        .map(|(sent, seen)| seen.saturating_duration_since(*sent).as_secs_f64() * 1e6)
        .collect();
    median(delays)
}

fn delta_delay(rows: &mut Vec<Row>) {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let url = paced_server(sent.clone());
    let chatwire = client(&url);
    let (mut raw_delays, mut delays) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        // The raw client: a delta has arrived when a read returns it.
        let mut raw = RawClient::connect(&url, &body(&short_conversation(), true));
        let mut seen = Vec::new();
        raw.stream.write_all(&raw.request).unwrap();
        let mut buffer = [0u8; 4096];
        while seen.len() < PACED_DELTAS {
            let read = raw.stream.read(&mut buffer).unwrap();
            assert!(read > 0);
            let now = Instant::now();
            let events = buffer[..read]
                .windows(9)
                .filter(|w| w == b"\"content\"")
                .count();
            seen.extend(std::iter::repeat_n(now, events));
        }
        raw_delays.push(median_delay(&sent, &seen));
        drop(raw);
        let mut seen = Vec::new();
        chatwire
            .send_stream(&mut short_conversation(), |_| {
                seen.push(Instant::now());
                ControlFlow::Continue(())
            })
            .unwrap();
        delays.push(median_delay(&sent, &seen));
    }
    rows.push(Row {
        figure: "delta written to delta seen, median".into(),
        floor: median(raw_delays),
        chatwire: median(delays),
        unit: "µs",
        higher_is_better: false,
    });
}

/// Runs this program as a child doing `what`; returns its wall time and
/// the peak memory it reported.
fn child(what: &str, url: &str, count: usize) -> (Duration, f64) {
    let started = Instant::now();
    let output = Command::new(std::env::current_exe().unwrap())
        .env("CHATWIRE_BENCH_CHILD", what)
        .env("CHATWIRE_BENCH_URL", url)
        .env("CHATWIRE_BENCH_COUNT", count.to_string())
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    assert!(output.status.success(), "{output:?}");
    let peak_kib: f64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap_or(f64::NAN);
    (elapsed, peak_kib / 1024.0)
}

fn cold_start(rows: &mut Vec<Row>) {
    let server = KeepAliveServer::start(1);
    let (mut raw_times, mut times) = (Vec::new(), Vec::new());
    let (mut raw_peak, mut peak) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let (time, memory) = child("raw", &server.url, 1);
        raw_times.push(time.as_secs_f64() * 1e3);
        raw_peak.push(memory);
        let (time, memory) = child("chatwire", &server.url, 1);
        times.push(time.as_secs_f64() * 1e3);
        peak.push(memory);
    }
    rows.push(Row {
        figure: "cold start to one reply (a new process)".into(),
        floor: median(raw_times),
        chatwire: median(times),
        unit: "ms",
        higher_is_better: false,
    });
    rows.push(Row {
        figure: "peak memory of that process".into(),
        floor: median(raw_peak),
        chatwire: median(peak),
        unit: "MiB",
        higher_is_better: false,
    });
}

/// Background sends in flight at once in the "many" section.
const IN_FLIGHT: usize = 1_000;
/// How long the "many" section's server takes to answer each request.
const LATENCY: Duration = Duration::from_secs(1);

/// Raises this process's limit on descriptors as far as it may go: each
/// request in flight holds a socket, on both sides.
fn raise_descriptor_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: both calls take a pointer to a live rlimit.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// A server answering every request with a short completion after
/// `latency`, all at once: a thread (with a small stack) per connection.
fn delayed_server(latency: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    // A queue for all the connections that come at once (std's is 128 long):
    // a connection the queue drops is tried again a second later, which
    // would measure this server's queue rather than chatwire.
    // SAFETY: listen on a descriptor the listener owns.
    unsafe { libc::listen(std::os::fd::AsRawFd::as_raw_fd(&listener), 4096) };
    let url = format!("http://{}", listener.local_addr().unwrap());
    let body = r#"{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}]}"#;
    let answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let answer: &'static str = answer.leak();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || {
                    while read_request(&mut stream) {
                        std::thread::sleep(latency);
                        if stream.write_all(answer.as_bytes()).is_err() {
                            return;
                        }
                    }
                });
        }
    });
    url
}

/// [`IN_FLIGHT`] background sends at once, with the default settings, in a
/// child process: its wall time from the first send to the last reply, as
/// a multiple of the server's latency, and its peak resident memory.
fn many_in_flight() {
    raise_descriptor_limit();
    let url = delayed_server(LATENCY);
    let (mut ratios, mut peaks) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let output = Command::new(std::env::current_exe().unwrap())
            .env("CHATWIRE_BENCH_CHILD", "many")
            .env("CHATWIRE_BENCH_URL", &url)
            .env("CHATWIRE_BENCH_COUNT", IN_FLIGHT.to_string())
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let mut figures = stdout
            .split_whitespace()
            .map(|n| n.parse::<f64>().unwrap_or(f64::NAN));
        let (seconds, peak_kib) = (
            figures.next().unwrap_or(f64::NAN),
            figures.next().unwrap_or(f64::NAN),
        );
        ratios.push(seconds / LATENCY.as_secs_f64());
        peaks.push(peak_kib / 1024.0);
    }
    let each: Vec<String> = ratios.iter().map(|ratio| format!("{ratio:.2}")).collect();
    println!(
        "{IN_FLIGHT} background sends in flight, server answering after {} s, default settings (medians of {ROUNDS} processes): \
         {:.2}x the server's latency ({}), peak resident memory {:.1} MiB",
        LATENCY.as_secs(),
        median(ratios),
        each.join(", "),
        median(peaks)
    );
}

/// The "many" child: `count` background sends started at once, then all
/// collected; prints the seconds from the first send to the last reply and
/// the peak resident memory (KiB).
fn many_child(url: &str, count: usize) {
    raise_descriptor_limit();
    let chatwire = client(url);
    let started = Instant::now();
    let pending: Vec<_> = (0..count)
        .map(|_| chatwire.send_async(&short_conversation()).unwrap())
        .collect();
    for reply in pending {
        assert_eq!(reply.wait().unwrap().content(), "pong");
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("{seconds} {}", peak_kib());
}

/// This process's peak resident memory (KiB), from `/proc/self/status`:
/// getrusage's figure would count the parent's memory at the fork, which
/// Linux keeps across the exec.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0)
}

/// The size of the C shared library `make lib` built, stripped.
fn stripped_library_size() -> Option<u64> {
    let built = concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/libchatwire.so");
    let stripped =
        std::env::temp_dir().join(format!("chatwire-stripped-{}.so", std::process::id()));
    let status = Command::new("strip")
        .arg("-o")
        .arg(&stripped)
        .arg(built)
        .status()
        .ok()?;
    let size = std::fs::metadata(&stripped).ok().map(|meta| meta.len());
    let _ = std::fs::remove_file(&stripped);
    status.success().then_some(size?)
}

/// `clone`/`clone3` calls of a child making 1,000 sends after one warm-up
/// send, counted by strace; `None` without strace.
fn clones_per_thousand_sends() -> Option<usize> {
    let server = KeepAliveServer::start(1);
    let output = Command::new("strace")
        .args(["-f", "-c", "-e", "trace=clone,clone3", "--"])
        .arg(std::env::current_exe().ok()?)
        .env("CHATWIRE_BENCH_CHILD", "chatwire")
        .env("CHATWIRE_BENCH_URL", &server.url)
        .env("CHATWIRE_BENCH_COUNT", "1001")
        .output()
        .ok()?;
    let summary = String::from_utf8_lossy(&output.stderr);
    Some(
        summary
            .lines()
            .filter(|line| line.ends_with(" clone") || line.ends_with(" clone3"))
            .filter_map(|line| line.split_whitespace().nth(3)?.parse::<usize>().ok())
            .sum(),
    )
}

/// The child's work: `count` sends with the raw client or with chatwire,
/// then its peak memory (KiB) on stdout.
fn run_child(what: &str) {
    let url = std::env::var("CHATWIRE_BENCH_URL").unwrap();
    let count: usize = std::env::var("CHATWIRE_BENCH_COUNT")
        .unwrap()
        .parse()
        .unwrap();
    if what == "many" {
        many_child(&url, count);
        return;
    }
    if what == "raw" {
        let mut raw = RawClient::connect(&url, &body(&short_conversation(), false));
        (0..count).for_each(|_| raw.post());
    } else if what == "threads" {
        // For a profiler: `count` sends from THREADS threads sharing a client.
        threads_sharing(&client(&url), count / THREADS);
    } else if what == "stream" {
        let chatwire = client(&url);
        for _ in 0..count {
            let mut deltas = 0;
            chatwire
                .send_stream(&mut short_conversation(), |_| {
                    deltas += 1;
                    ControlFlow::Continue(())
                })
                .unwrap();
            assert!(deltas > 0);
        }
    } else {
        let chatwire = client(&url);
        for _ in 0..count {
            chatwire.send(&mut short_conversation()).unwrap();
        }
    }
    let peak = peak_kib();
    println!("{peak}");
}

fn main() {
    if let Ok(what) = std::env::var("CHATWIRE_BENCH_CHILD") {
        run_child(&what);
        return;
    }
    // `cargo test --benches` runs this without `--bench`: stay quick then.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("speed: run with `cargo bench --bench speed` for the report");
        return;
    }
    // `cargo bench --bench speed -- budget` prints the token budget's figure alone,
    // `-- many` the figure of many requests in flight.
    if std::env::args().any(|arg| arg == "budget") {
        budget_trim();
        return;
    }
    if std::env::args().any(|arg| arg == "many") {
        many_in_flight();
        return;
    }
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "chatwire {} against a raw client (the floor), loopback, {cores} cores, medians of {ROUNDS} interleaved rounds\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut rows = Vec::new();
    let server = KeepAliveServer::start(1);
    sequential(&mut rows, &server.url, "raw server");
    let (opened, waiting) = threaded(&mut rows, &server.url, "raw server", || server.accepted());
    let nginx = Nginx::start();
    if let Some(nginx) = &nginx {
        sequential(&mut rows, &nginx.url, "nginx");
        threaded(&mut rows, &nginx.url, "nginx", || 0);
    }
    history_send(&mut rows);
    long_stream(&mut rows);
    delta_delay(&mut rows);
    cold_start(&mut rows);
    print_table(&rows, FLOOR, "floor");
    println!();
    budget_trim();
    println!(
        "{THREADS} threads sharing one client, 20,000 sends: {opened} connections opened, {waiting} sockets in TIME_WAIT"
    );
    if nginx.is_none() {
        println!("nginx figures skipped: nginx is not installed (apt-get install nginx-light)");
    }
    let peer_url = nginx
        .as_ref()
        .map_or(server.url.as_str(), |nginx| nginx.url.as_str());
    compare_with_peers(
        peer_url,
        if nginx.is_some() {
            "nginx"
        } else {
            "raw server"
        },
    );
    match stripped_library_size() {
        Some(bytes) => println!(
            "libchatwire.so, stripped: {:.2} MiB",
            bytes as f64 / (1024.0 * 1024.0)
        ),
        None => println!("library size skipped: build it with `make lib` (and have strip)"),
    }
    many_in_flight();
    match clones_per_thousand_sends() {
        Some(clones) => println!(
            "clone/clone3 calls of a process making 1,000 sends after one (strace): {clones}"
        ),
        None => println!("clone/clone3 count skipped: strace is not installed"),
    }
}
