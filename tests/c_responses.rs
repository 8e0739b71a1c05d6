//! Every C send function over both APIs (tests/c/responses.c), against a
//! mock server answering chat completions and the Responses API, whole and
//! streamed, in the recorded llama.cpp shapes. Built as C under
//! AddressSanitizer and as C++ (under valgrind with CHATWIRE_VALGRIND=1).

mod common;

use common::cprog::{compile, compile_sanitized, run, Lang, Link};
use common::*;
use mockito::{Matcher, Server};
use serde_json::json;

/// Whether a request asked for a stream.
fn streamed(request: &mockito::Request) -> bool {
    let body: serde_json::Value =
        serde_json::from_slice(request.body().unwrap_or(&Vec::new())).unwrap_or_default();
    body["stream"] == true
}

#[test]
fn c_every_send_over_both_apis() {
    let mut server = Server::new();
    let whole = r#"{"city":"Paris"}"#;
    let response = json!({"id": "resp_c", "object": "response", "status": "completed",
        "output": [{"type": "message", "id": "msg_c", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": whole, "annotations": []}]}],
        "usage": {"input_tokens": 5, "output_tokens": 4}});
    let mocks = [
        server
            .mock("POST", PATH)
            .match_request(|request| !streamed(request))
            .with_header("content-type", "application/json")
            .with_body(completion(whole))
            .expect_at_least(2)
            .create(),
        server
            .mock("POST", PATH)
            .match_request(streamed)
            .with_header("content-type", "text/event-stream")
            .with_body(read_data("spec/recorded/llamacpp-stream.sse"))
            .expect_at_least(2)
            .create(),
        server
            .mock("POST", "/v1/responses")
            .match_request(|request| !streamed(request))
            .match_body(Matcher::PartialJson(json!({"store": false})))
            .with_header("content-type", "application/json")
            .with_body(response.to_string())
            .expect_at_least(2)
            .create(),
        server
            .mock("POST", "/v1/responses")
            .match_request(streamed)
            .with_header("content-type", "text/event-stream")
            .with_body(read_data("spec/recorded/llamacpp-responses-stream.sse"))
            .expect_at_least(2)
            .create(),
    ];
    for exe in [
        compile_sanitized("responses"),
        compile("responses", Lang::Cxx, Link::Static),
    ] {
        let out = run(&exe, &[&server.url()]);
        assert!(out.contains(", 0 failed"), "{out}");
    }
    for mock in mocks {
        mock.assert();
    }
}
