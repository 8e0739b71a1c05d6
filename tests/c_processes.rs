//! Living inside someone else's process, from C: a client used across
//! `fork()`, callbacks that call back into chatwire, and a host whose
//! thread-local storage glibc takes from every thread's stack. The programs
//! under tests/c/ are built as C and C++ and run as in tests/c_api.rs, and
//! once more under AddressSanitizer.

mod common;

use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use common::completion;
use common::cprog::{compile_sanitized, for_each_build, run, TellPipe};
use common::keepalive::{next_request, KeepAliveServer};

/// A server that answers each question with the question itself (the last
/// message's content), on the connection it came on, kept alive; so a
/// connection two processes share shows up as answers to the other's
/// questions. Counts the connections it accepted. The question "hold" it
/// never answers: it tells `held`, and keeps the connection until the
/// client closes it.
struct EchoServer {
    url: String,
    accepted: Arc<AtomicUsize>,
}

impl EchoServer {
    fn start() -> EchoServer {
        EchoServer::telling(mpsc::channel().0)
    }

    fn telling(held: mpsc::Sender<()>) -> EchoServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = accepted.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let held = held.clone();
                std::thread::spawn(move || echo(stream, held));
            }
        });
        EchoServer { url, accepted }
    }
}

fn echo(mut stream: std::net::TcpStream, held: mpsc::Sender<()>) {
    use std::io::{Read, Write};
    let mut buffer = Vec::new();
    while let Some(body) = next_request(&mut stream, &mut buffer) {
        let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let question = request["messages"]
            .as_array()
            .and_then(|messages| messages.last())
            .and_then(|message| message["content"].as_str())
            .unwrap_or("no question")
            .to_owned();
        if question == "hold" {
            let _ = held.send(());
            // Until the client closes the connection (a cancel shuts it down).
            while matches!(stream.read(&mut [0u8; 512]), Ok(1..)) {}
            return;
        }
        // A moment's thought, so that two processes writing on one
        // connection both write before either reads its answer.
        std::thread::sleep(std::time::Duration::from_millis(2));
        let body = completion(&question);
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if stream.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

#[test]
fn c_fork_gives_the_child_a_pool_of_its_own() {
    let check = |exe: &std::path::Path| {
        let server = EchoServer::start();
        let out = run(exe, &[&server.url]);
        assert!(out.contains(", 0 failed"), "{out}");
        // The parent's one pooled connection served all its sends, before
        // and after each fork; the first child opened one of its own, the
        // second none.
        assert_eq!(server.accepted.load(Ordering::SeqCst), 2);
    };
    for_each_build("fork", check);
    check(&compile_sanitized("fork"));
}

/// The parent holds the only place in flight (max_in_flight 1) with a
/// request the server never answers, and forks: the child's background
/// request runs all the same (tests/c/fork_in_flight.c, which gives up on
/// it after ten seconds rather than hang).
#[test]
fn c_a_forked_child_has_places_in_flight_of_its_own() {
    let check = |exe: &std::path::Path| {
        let (held, told) = mpsc::channel();
        let server = EchoServer::telling(held);
        let pipe = TellPipe::new(told);
        let out = run(exe, &[&server.url, pipe.arg()]);
        assert!(out.contains(", 0 failed"), "{out}");
        assert!(pipe.told_in_time(), "the server held the parent's request");
    };
    for_each_build("fork_in_flight", check);
    check(&compile_sanitized("fork_in_flight"));
}

#[test]
fn c_a_child_forked_while_the_trust_is_read_builds_a_client() {
    for_each_build("fork_trust", |exe| {
        let out = run(exe, &[]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
}

#[test]
fn c_callbacks_that_call_back_cannot_corrupt_the_conversation() {
    let server = KeepAliveServer::start(3);
    let url = format!("{}/v1", server.url);
    for_each_build("reentrant", |exe| {
        let out = run(exe, &[&url]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    run(&compile_sanitized("reentrant"), &[&url]);
}

#[test]
fn c_a_host_with_much_static_tls_leaves_workers_their_stack() {
    let server = KeepAliveServer::start(3);
    let url = format!("{}/v1", server.url);
    for_each_build("static_tls", |exe| {
        let out = run(exe, &[&url]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
}
