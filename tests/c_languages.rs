//! The forms of the C API made for languages that cannot call the
//! originals cleanly (src/ffi/languages.rs, docs/languages.md), from C:
//! chatwire_request_wait_text() and the 32-bit twins of the uint64_t
//! parameters (tests/c/languages.c). Built as C and C++, static and shared,
//! and run under AddressSanitizer too (valgrind with `CHATWIRE_VALGRIND=1`).

mod common;

use std::time::Duration;

use common::cprog::{compile_sanitized, for_each_build, run};
use common::paced::{delta, finish, signal, PacedServer, Step};
use common::*;
use mockito::{Server, ServerGuard};
use serde_json::json;

/// "a", "b" and "c", 150 ms apart (600 ms under valgrind, which slows the
/// worker so much that closer pieces can arrive together).
fn paced_abc() -> PacedServer {
    let apart = if std::env::var_os("CHATWIRE_VALGRIND").is_some() {
        Duration::from_millis(600)
    } else {
        Duration::from_millis(150)
    };
    let pause = || Step::Pause(apart);
    PacedServer::start(vec![
        Step::Send(delta("a")),
        pause(),
        Step::Send(delta("b")),
        pause(),
        Step::Send(delta("c")),
        pause(),
        Step::Send(finish()),
    ])
}

/// A mock answering every request with `body`.
fn answering(content_type: &str, body: String) -> ServerGuard {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .with_header("content-type", content_type)
        .with_body(body)
        .expect_at_least(1)
        .create();
    server
}

/// A completion whose counts do not all fit 32 bits, with details.
fn usage_body() -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "counted"}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 5_000_000_019_u64,
                  "prompt_tokens_details": {"cached_tokens": 4},
                  "completion_tokens_details": {"reasoning_tokens": 3}}
    })
    .to_string()
}

/// A completion of more than 2 KiB, without usage.
fn long_body() -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "x".repeat(2100)}}]
    })
    .to_string()
}

#[test]
fn c_forms_for_other_languages() {
    let stream = answering(
        "text/event-stream",
        format!("{}{}{}", delta("Hello"), delta(" there"), finish()),
    );
    let usage = answering("application/json", usage_body());
    let long = answering("application/json", long_body());
    let check = |exe: &std::path::Path| {
        let paced = paced_abc();
        let (keep_silent, silent_waits) = signal();
        let silent = PacedServer::start(vec![Step::WaitFor(silent_waits)]);
        let out = run(
            exe,
            &[
                &paced.url,
                &silent.url,
                &stream.url(),
                &usage.url(),
                &long.url(),
            ],
        );
        assert!(out.contains(", 0 failed"), "{out}");
        drop(keep_silent);
        assert!(paced.finish().body.contains("slowly please"));
    };
    for_each_build("languages", check);
    check(&compile_sanitized("languages"));
}
