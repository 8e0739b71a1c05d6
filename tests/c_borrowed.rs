//! Texts chatwire handed out, kept and passed back in, as C and C++, linked
//! statically and dynamically, and under AddressSanitizer, which sees a read
//! of a freed text (`CHATWIRE_VALGRIND=1` runs the others under valgrind):
//! tests/c/last_error_in.c gives chatwire_last_error() to
//! chatwire_conversation_append and to chatwire_client_set_header;
//! tests/c/borrowed.c holds a conversation's borrowed texts up to the edge
//! of their rule, "borrowed until the conversation changes or is freed".

mod common;

use common::cprog::{compile_sanitized, for_each_build, run};
use common::paced::{delta, finish};
use common::*;
use mockito::{Matcher, Server};

#[test]
fn c_last_error_passed_in_stays_valid_for_the_call() {
    let mut server = Server::new();
    let text = "invalid argument: temperature must be a number from 0 to 2, or null, not 5";
    let logged = server
        .mock("POST", PATH)
        .match_header("x-last-error", Matcher::Exact(text.into()))
        .match_body(Matcher::Regex(format!(
            r#"[{{]"role":"user","content":"{text}"[}}]"#
        )))
        .with_body(completion("logged"))
        .expect(4)
        .create();
    let url = server.url();
    let check = |exe: &std::path::Path| {
        let out = run(exe, &[&url]);
        assert!(out.contains(", 0 failed"), "{out}");
    };
    for_each_build("last_error_in", check);
    check(&compile_sanitized("last_error_in"));
    logged.assert();
}

#[test]
fn c_conversation_texts_stay_borrowed_until_the_conversation_changes() {
    let mut answering = Server::new();
    let answered = answering
        .mock("POST", PATH)
        .with_header("content-type", "text/event-stream")
        .with_body(format!("{}{}{}", delta("re"), delta("ply"), finish()))
        .expect(4)
        .create();
    let mut refusing = Server::new();
    let refused = refusing
        .mock("POST", PATH)
        .with_status(400)
        .with_body(r#"{"error":{"message":"refused on purpose"}}"#)
        .expect(4)
        .create();
    let (answering, refusing) = (answering.url(), refusing.url());
    let check = |exe: &std::path::Path| {
        let out = run(exe, &[&answering, &refusing]);
        assert!(out.contains(", 0 failed"), "{out}");
    };
    check(&compile_sanitized("borrowed"));
    for_each_build("borrowed", check);
    answered.assert();
    refused.assert();
}
