//! Compressed answers: every request asks for gzip, and a gzip answer is
//! read as if it were plain: a whole reply, a streamed one, a background
//! one, an error body. A client header may ask for something else. (Bombs
//! and limits are in tests/hostile.rs.)

mod common;

use std::io::Write;
use std::ops::ControlFlow;

use chatwire::Error;
use common::*;
use flate2::write::GzEncoder;
use flate2::Compression;
use mockito::{Matcher, Server};

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap()
}

fn sse(text: &str) -> String {
    let delta = serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]});
    let stop = serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    format!("data: {delta}\n\ndata: {stop}\n\ndata: [DONE]\n\n")
}

#[test]
fn a_gzip_reply_is_read_whole_streamed_and_in_the_background() {
    let mut server = Server::new();
    // A streamed request is told by its body; the other mock takes the rest.
    let streamed = server
        .mock("POST", PATH)
        .match_header("accept-encoding", "gzip")
        .match_body(Matcher::PartialJsonString(r#"{"stream":true}"#.into()))
        .with_header("content-type", "text/event-stream")
        .with_header("content-encoding", "gzip")
        .with_body(gzip(&sse("packed stream")))
        .expect(2)
        .create();
    let whole = server
        .mock("POST", PATH)
        .match_header("accept-encoding", "gzip")
        .with_header("content-type", "application/json")
        .with_header("content-encoding", "gzip")
        .with_body(gzip(&completion("packed whole")))
        .expect(2)
        .create();
    let client = client(&server.url());
    assert_eq!(client.send(&mut conversation()).unwrap(), "packed whole");
    let mut pieces = String::new();
    client
        .send_stream(&mut conversation(), |delta| {
            pieces.push_str(delta);
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(pieces, "packed stream");
    let pending = client.send_async(&conversation()).unwrap();
    assert_eq!(pending.wait().unwrap().content(), "packed whole");
    let pending = client
        .stream_async(&conversation(), |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(pending.wait().unwrap().content(), "packed stream");
    whole.assert();
    streamed.assert();
}

#[test]
fn a_gzip_error_body_gives_the_servers_message() {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .with_status(400)
        .with_header("content-type", "application/json")
        .with_header("content-encoding", "gzip")
        .with_body(gzip(&error_body(
            "model 'nope' not found",
            "invalid_request_error",
            serde_json::Value::Null,
        )))
        .create();
    let error = client(&server.url()).send(&mut conversation()).unwrap_err();
    assert!(matches!(error, Error::Http(_)), "{error:?}");
    assert!(
        error.to_string().contains("model 'nope' not found"),
        "{error}"
    );
}

#[test]
fn a_body_that_says_gzip_and_is_not_is_a_clear_error_and_changes_nothing() {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .with_header("content-type", "application/json")
        .with_header("content-encoding", "gzip")
        .with_body(completion("not packed at all"))
        .create();
    let mut conversation = conversation();
    let before = conversation.to_json();
    let error = client(&server.url()).send(&mut conversation).unwrap_err();
    assert!(!error.to_string().is_empty());
    assert!(
        matches!(error, Error::Transport { .. } | Error::Decode { .. }),
        "{error:?}"
    );
    assert_eq!(conversation.to_json(), before);
}

#[test]
fn a_client_header_replaces_what_is_accepted() {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .match_header("accept-encoding", "identity")
        .with_body(completion("plain, as asked"))
        .create();
    let client = chatwire::Client::builder()
        .base_url(server.url())
        .api_key(KEY)
        .max_retries(0)
        .header("Accept-Encoding", "identity")
        .build()
        .unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), "plain, as asked");
}
