//! A cancelled request says cancelled, whatever stage it was in: before it
//! started, waiting for the answer's head, during a retry pause, in the middle
//! of a whole body, and after the first delta of a stream, also when the body
//! is framed by the connection's end (so a closed connection looks like a
//! clean end of the body). Each stage also closes the connection and leaves
//! the conversation alone.

mod common;

use std::ops::ControlFlow;
use std::time::Duration;

use chatwire::{Client, Error};
use common::paced::{delta, signal, Framing, PacedServer, Step};
use common::*;
use mockito::Server;

fn client(url: &str, max_retries: u32) -> Client {
    Client::builder()
        .base_url(url)
        .api_key(KEY)
        .timeout(Duration::from_secs(20))
        .idle_timeout(Duration::from_secs(10))
        .max_retries(max_retries)
        .build()
        .unwrap()
}

fn ignore_deltas(_: &str) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

#[test]
fn cancelled_before_the_request_starts() {
    let (_keep, wait) = signal();
    let server = PacedServer::start(vec![Step::WaitFor(wait)]);
    let client = client(&server.url, 0);
    for streamed in [false, true] {
        let pending = if streamed {
            client.stream_async(&conversation(), ignore_deltas).unwrap()
        } else {
            client.send_async(&conversation()).unwrap()
        };
        pending.cancel();
        assert!(matches!(pending.wait(), Err(Error::Cancelled)));
    }
}

#[test]
fn cancelled_during_a_retry_pause() {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .with_status(503)
        .with_header("retry-after", "30")
        .create();
    let client = client(&server.url(), 3);
    // The attempt's log line, "retrying in 30 s", comes just before the pause.
    log_lines::record();
    let pausing = |count: usize| {
        wait_until("a retry pause", || {
            log_lines::about(&server.url())
                .iter()
                .filter(|line| line.contains("retrying in"))
                .count()
                >= count
        })
    };
    let pending = client.send_async(&conversation()).unwrap();
    pausing(1);
    cancel_now(pending);
    let pending = client.stream_async(&conversation(), ignore_deltas).unwrap();
    pausing(2);
    cancel_now(pending);
}

#[test]
fn cancelled_in_the_middle_of_a_whole_body() {
    for framing in [Framing::Chunked, Framing::UntilClose] {
        let (keep, wait) = signal();
        let (sent, has_sent) = signal();
        let server = PacedServer::start_framed(
            framing,
            vec![
                Step::Send(r#"{"choices":[{"message":{"content":"cut"#.into()),
                Step::Tell(sent),
                Step::WaitFor(wait),
            ],
        );
        let client = client(&server.url, 0);
        let pending = client.send_async(&conversation()).unwrap();
        // The head and part of the body are out; the rest is held.
        has_sent.recv_timeout(Duration::from_secs(10)).unwrap();
        cancel_now(pending);
        drop(keep);
        assert!(server.finish().client_hung_up);
    }
}

#[test]
fn cancelled_after_the_first_delta_of_a_silent_stream() {
    for framing in [Framing::Chunked, Framing::UntilClose] {
        let (keep, wait) = signal();
        let server =
            PacedServer::start_framed(framing, vec![Step::Send(delta("one")), Step::WaitFor(wait)]);
        let client = client(&server.url, 0);
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let pending = client
            .stream_async(&conversation(), move |delta| {
                let _ = seen_tx.send(delta.to_owned());
                ControlFlow::Continue(())
            })
            .unwrap();
        let first = seen_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(first, "one");
        cancel_now(pending);
        drop(keep);
        assert!(server.finish().client_hung_up);
    }
}

#[test]
fn a_blocking_stream_stopped_from_the_callback_after_a_delta_is_cancelled() {
    let (keep, wait) = signal();
    let server = PacedServer::start_framed(
        Framing::UntilClose,
        vec![Step::Send(delta("one")), Step::WaitFor(wait)],
    );
    let client = client(&server.url, 0);
    let mut conversation = conversation();
    let before = conversation.len();
    let err = client
        .send_stream(&mut conversation, |_| ControlFlow::Break(()))
        .unwrap_err();
    assert!(matches!(err, Error::Cancelled), "{err:?}");
    assert_eq!(conversation.len(), before);
    drop(keep);
    server.finish();
}
