//! A server that holds every request until `count` of them are in at once,
//! then answers them all (and every later one at once), many connections
//! at once (a thread per connection, keep-alive), echoing the last user
//! message: "re: <message>", streamed when the request asks for a stream.
//! That all were in at once is the server's to say: a client that queued
//! its requests would never fill the gathering, which gives up after half
//! a minute. Over `http://`, or HTTPS with a certificate a test CA signed.

use std::io::{BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

pub struct SlowServer {
    pub url: String,
    gathering: Arc<Gathering>,
}

/// The requests in so far, and whether the wait for them ran out.
struct Gathering {
    state: Mutex<(usize, bool)>,
    full: Condvar,
    count: usize,
}

impl Gathering {
    /// Counts a request in and waits until `count` are in (or gives up).
    fn arrive(&self) {
        let mut state = self.state.lock().unwrap();
        state.0 += 1;
        if state.0 >= self.count {
            self.full.notify_all();
            return;
        }
        let (mut state, waited) = self
            .full
            .wait_timeout_while(state, Duration::from_secs(30), |state| {
                state.0 < self.count && !state.1
            })
            .unwrap();
        if waited.timed_out() {
            state.1 = true;
            self.full.notify_all();
        }
    }
}

impl SlowServer {
    /// Starts the server; it runs until the test process ends.
    pub fn gathering(count: usize) -> SlowServer {
        SlowServer::start(count, None)
    }

    /// The same over HTTPS, its certificate signed by `ca` (for
    /// `localhost` and 127.0.0.1).
    pub fn gathering_tls(count: usize, ca: &super::tls_server::TestCa) -> SlowServer {
        let config = super::tls_server::server_config(ca, super::tls_server::Leaf::Good, None);
        SlowServer::start(count, Some(config))
    }

    fn start(count: usize, tls: Option<Arc<rustls::ServerConfig>>) -> SlowServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        // A queue for every connection that comes at once (std's holds
        // 128): one it drops is tried again a second later, which a test
        // of many requests in flight would take for chatwire's slowness.
        // SAFETY: listen on a descriptor the listener owns.
        unsafe { libc::listen(std::os::fd::AsRawFd::as_raw_fd(&listener), 4096) };
        let scheme = if tls.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://{}", listener.local_addr().unwrap());
        let gathering = Arc::new(Gathering {
            state: Mutex::new((0, false)),
            full: Condvar::new(),
            count,
        });
        let shared = gathering.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let gathering = shared.clone();
                let tls = tls.clone();
                // The handshake's certificate check needs more than 128 KiB.
                let stack = if tls.is_some() { 512 } else { 128 } * 1024;
                let _ = std::thread::Builder::new()
                    .stack_size(stack)
                    .spawn(move || match tls {
                        None => serve(stream, &gathering),
                        Some(config) => {
                            let Ok(connection) = rustls::ServerConnection::new(config) else {
                                return;
                            };
                            serve(rustls::StreamOwned::new(connection, stream), &gathering);
                        }
                    });
            }
        });
        SlowServer { url, gathering }
    }

    /// True when `count` requests were in at once: the wait never ran out.
    pub fn all_were_in_at_once(&self) -> bool {
        let state = self.gathering.state.lock().unwrap();
        state.0 >= self.gathering.count && !state.1
    }
}

fn serve(stream: impl Read + Write, gathering: &Gathering) {
    let mut reader = BufReader::new(stream);
    while let Some(body) = super::paced::read_request(&mut reader) {
        gathering.arrive();
        let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let asked = request["messages"]
            .as_array()
            .and_then(|messages| messages.last())
            .and_then(|message| message["content"].as_str())
            .unwrap_or("")
            .to_string();
        let answer = if request["stream"] == true {
            let body = format!(
                "{}{}",
                super::paced::delta(&format!("re: {asked}")),
                super::paced::finish()
            );
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
        } else {
            let body = super::completion(&format!("re: {asked}"));
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let stream = reader.get_mut();
        if stream
            .write_all(answer.as_bytes())
            .and_then(|()| stream.flush())
            .is_err()
        {
            return;
        }
    }
}
