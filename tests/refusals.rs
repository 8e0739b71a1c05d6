//! Where a refusal goes (`DeltaKind`'s rule): the same on every road,
//! whether the server streams it or ignores `"stream": true` and answers
//! with one body. Each road is tested twice, with the same assertions.

mod common;

use std::ops::ControlFlow;
use std::sync::mpsc;

use chatwire::{Client, DeltaKind, Reply};
use common::refusal::{refusing_server, Answer, REFUSAL};
use common::*;
use mockito::ServerGuard;

fn refusing_client(answer: Answer) -> (ServerGuard, Client) {
    let server = refusing_server(answer);
    let client = builder(&server.url()).build().unwrap();
    (server, client)
}

/// The reply keeps the refusal apart, and as the text it stands in for.
fn assert_refusal_kept(reply: &Reply) {
    assert_eq!(reply.refusal(), Some(REFUSAL));
    assert_eq!(reply.content(), REFUSAL);
    assert_eq!(reply.choices()[0].refusal(), Some(REFUSAL));
}

/// Pieces with their kind: all refusal, adding up to it.
fn assert_refusal_events(events: &[(DeltaKind, String)]) {
    assert!(!events.is_empty());
    assert!(
        events.iter().all(|(kind, _)| *kind == DeltaKind::Refusal),
        "{events:?}"
    );
    let text: String = events.iter().map(|(_, text)| text.as_str()).collect();
    assert_eq!(text, REFUSAL);
}

fn text_callback_gets_the_refusal(answer: Answer) {
    let (_server, client) = refusing_client(answer);
    let mut conversation = conversation();
    let mut text = String::new();
    let reply = client
        .send_stream(&mut conversation, |delta| {
            text.push_str(delta);
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(text, REFUSAL);
    assert_refusal_kept(&reply);
    assert_eq!(conversation.messages().last().unwrap().content, REFUSAL);
}

fn events_get_the_refusal_as_refusal(answer: Answer) {
    let (_server, client) = refusing_client(answer);
    let mut events = Vec::new();
    let reply = client
        .send_stream_events(&mut conversation(), |delta| {
            events.push((delta.kind, delta.text.clone()));
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_refusal_events(&events);
    assert_refusal_kept(&reply);
}

fn the_iterator_yields_the_refusal(answer: Answer) {
    let (_server, client) = refusing_client(answer);
    let mut conversation = conversation();
    let mut stream = client.stream(&mut conversation).unwrap();
    let text: String = stream.by_ref().map(Result::unwrap).collect();
    assert_eq!(text, REFUSAL);
    assert_refusal_kept(stream.reply().unwrap());
}

fn background_roads_get_the_refusal(answer: Answer) {
    let (_server, client) = refusing_client(answer);
    let (pieces, received) = mpsc::channel();
    let pending = client
        .stream_async(&conversation(), move |delta| {
            pieces.send(delta.to_owned()).unwrap();
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_refusal_kept(&pending.wait().unwrap());
    assert_eq!(received.try_iter().collect::<String>(), REFUSAL);

    let (pieces, received) = mpsc::channel();
    let pending = client
        .stream_events_async(&conversation(), move |delta| {
            pieces.send((delta.kind, delta.text.clone())).unwrap();
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_refusal_kept(&pending.wait().unwrap());
    assert_refusal_events(&received.try_iter().collect::<Vec<_>>());
}

/// Each check as two tests: on a server that streams the refusal, and on
/// one that answers whole.
macro_rules! on_both_roads {
    ($($check:ident: $streamed:ident, $whole:ident;)*) => {$(
        #[test]
        fn $streamed() {
            $check(Answer::Streamed);
        }

        #[test]
        fn $whole() {
            $check(Answer::Whole);
        }
    )*};
}

on_both_roads! {
    text_callback_gets_the_refusal:
        a_streamed_refusal_reaches_the_text_callback,
        a_whole_refusal_to_a_stream_reaches_the_text_callback;
    events_get_the_refusal_as_refusal:
        a_streamed_refusal_comes_as_refusal_events,
        a_whole_refusal_to_a_stream_comes_as_refusal_events;
    the_iterator_yields_the_refusal:
        a_streamed_refusal_is_what_the_iterator_yields,
        a_whole_refusal_to_a_stream_is_what_the_iterator_yields;
    background_roads_get_the_refusal:
        a_streamed_refusal_reaches_background_callbacks,
        a_whole_refusal_to_a_stream_reaches_background_callbacks;
}

#[test]
fn a_whole_send_keeps_the_refusal_apart() {
    let (_server, client) = refusing_client(Answer::Whole);
    assert_refusal_kept(&client.send_reply(&mut conversation()).unwrap());
}
