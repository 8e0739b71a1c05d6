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
    let client = client(&stuck.url);
    for streamed in [false, true] {
        let pending = if streamed {
            client.stream_async(&conversation(), ignore_deltas).unwrap()
        } else {
            client.send_async(&conversation()).unwrap()
        };
        // Long enough to be inside connect(), far from the connect timeout.
        cancel_after(pending, Duration::from_millis(200));
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
        assert_eq!(reply.content, "xxx");
    }
    for _ in 0..50 {
        let reply = client.send_async(&conversation()).unwrap().wait().unwrap();
        assert_eq!(reply.content, "pong");
        let streamed = client
            .stream_async(&conversation(), ignore_deltas)
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(streamed.content, "xxx");
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
    let mut client = client(&server.url);
    client.set_max_idle_connections(0).unwrap();
    assert_eq!(client.max_idle_connections(), 0);
    for _ in 0..5 {
        client.send(&mut conversation()).unwrap();
    }
    assert_eq!(server.accepted(), 5);
    assert!(matches!(
        client.set_max_idle_connections(chatwire::MAX_IDLE_CONNECTIONS + 1),
        Err(Error::InvalidArgument(_))
    ));
    let built = Client::builder()
        .base_url(&server.url)
        .api_key(KEY)
        .max_idle_connections(chatwire::MAX_IDLE_CONNECTIONS + 1)
        .build();
    assert!(matches!(built, Err(Error::InvalidArgument(_))));
}
