//! Every request rides the client's connection pool: plain, streamed and
//! background sends reuse the same connections, threads sharing a client
//! keep theirs, and a cancel still stops a request at once, also while its
//! connection is being made.

mod common;

use std::ops::ControlFlow;
use std::time::Duration;

use chatwire::{Client, Error};
use common::keepalive::KeepAliveServer;
use common::stuck::StuckListener;
use common::*;

fn ignore_deltas(_: &str) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

#[test]
fn a_cancel_while_connecting_returns_at_once() {
    let stuck = StuckListener::start();
    let port = stuck.port();
    let client = client(&stuck.url);
    let mut earlier = Vec::new();
    for streamed in [false, true] {
        let pending = if streamed {
            client.stream_async(&conversation(), ignore_deltas).unwrap()
        } else {
            client.send_async(&conversation()).unwrap()
        };
        // Inside connect(): the kernel shows a new handshake to the port
        // under way (the connect timeout is ten seconds away).
        let mut connecting = None;
        wait_until("a handshake to the stuck listener", || {
            connecting = sockets::to_port(port).into_iter().find(|socket| {
                socket.state == sockets::SYN_SENT && !earlier.contains(&socket.inode)
            });
            connecting.is_some()
        });
        earlier.push(connecting.unwrap().inode);
        cancel_now(pending);
    }
}

#[test]
fn sequential_streams_and_background_sends_reuse_one_connection() {
    let server = KeepAliveServer::start(3);
    let client = client(&server.url);
    for _ in 0..200 {
        let mut conversation = conversation();
        let reply = client
            .send_stream(&mut conversation, ignore_deltas)
            .unwrap();
        assert_eq!(reply.content(), "xxx");
    }
    for _ in 0..50 {
        let reply = client.send_async(&conversation()).unwrap().wait().unwrap();
        assert_eq!(reply.content(), "pong");
        let streamed = client
            .stream_async(&conversation(), ignore_deltas)
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(streamed.content(), "xxx");
    }
    assert!(server.accepted() <= 2, "{} connections", server.accepted());
}

#[test]
fn threads_sharing_a_client_keep_their_connections() {
    let server = KeepAliveServer::start(1);
    let client = client(&server.url);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            let client = client.clone();
            scope.spawn(move || {
                for _ in 0..250 {
                    client.send(&mut conversation()).unwrap();
                }
            });
        }
    });
    // One per thread, give or take a race at the start; a pool too small
    // for four threads opens hundreds.
    assert!(server.accepted() <= 8, "{} connections", server.accepted());
}

#[test]
fn a_client_keeps_no_more_idle_connections_than_asked() {
    let server = KeepAliveServer::start(1);
    let client = builder(&server.url)
        .max_idle_connections(0)
        .build()
        .unwrap();
    assert_eq!(client.max_idle_connections(), 0);
    for _ in 0..5 {
        client.send(&mut conversation()).unwrap();
    }
    assert_eq!(server.accepted(), 5);
    let built = Client::builder()
        .base_url(&server.url)
        .api_key(KEY)
        .max_idle_connections(chatwire::MAX_IDLE_CONNECTIONS + 1)
        .build();
    assert!(matches!(built, Err(Error::InvalidArgument(_))));
}

/// A server that answers one request per connection, then, while the
/// connection idles in the client's pool, either says something unasked or
/// closes it without having said `Connection: close`. The next send must
/// notice, take a new connection and succeed.
#[test]
fn a_pooled_connection_the_server_spoke_on_or_closed_is_not_reused() {
    use std::io::Write;
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    for speaks in [true, false] {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = accepted.clone();
        std::thread::spawn(move || {
            let answers = common::keepalive::Answers::new(0);
            let mut kept = Vec::new();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let mut buffer = Vec::new();
                if common::keepalive::next_request(&mut stream, &mut buffer).is_none() {
                    continue;
                }
                stream.write_all(&answers.whole).unwrap();
                if speaks {
                    stream
                        .write_all(b"HTTP/1.1 408 Request Timeout\r\n\r\n")
                        .unwrap();
                    // Kept open: only the bytes tell the client not to reuse it.
                    kept.push(stream);
                }
            }
        });
        let client = client(&url);
        for _ in 0..3 {
            let reply = client.send(&mut conversation()).unwrap();
            assert_eq!(reply, "pong");
            // The bytes or the close must have reached the pooled socket
            // for the client to see them: the kernel says when.
            sockets::wait_until_no_idle_connection_to(port);
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 3, "speaks: {speaks}");
    }
}

/// Settings that ureq's agent holds keep every send on the pool: a
/// timeout, and a header limit large enough to need a larger input buffer
/// (the pool is built for them; a C program's setters make a client the
/// same way).
#[test]
fn a_timeout_and_a_large_header_limit_keep_every_send_on_the_pool() {
    let server = KeepAliveServer::start(1);
    let client = builder(&server.url)
        .timeout(Duration::from_secs(7))
        .limit(chatwire::Limit::Headers, 512 * 1024)
        .build()
        .unwrap();
    for _ in 0..20 {
        assert_eq!(client.send(&mut conversation()).unwrap(), "pong");
    }
    assert_eq!(server.accepted(), 1);
}
